"""`arena-server`: serve, issue keys, run tournaments and suites, print leaderboards.

`serve` and `keys` work on the database file directly; the other commands talk to a running server
over its admin RPCs, so they work against a remote server too. One module per command.
"""

from __future__ import annotations

import argparse
import sys

import grpc

from . import compliance, db, export, federation, games, keys, leaderboard, matches, serve, suites, tournaments

COMMANDS = (serve, keys, tournaments, matches, suites, leaderboard, games, db, federation, export, compliance)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-server", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parsers(sub)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except grpc.RpcError as e:
        plaintext = not (getattr(args, "tls", False) or getattr(args, "root_certificates", None)
                         or getattr(args, "client_cert", None))
        hint = ""
        if plaintext and e.code() == grpc.StatusCode.UNAVAILABLE:
            hint = " (this client speaks plaintext: if the server uses TLS, add --tls or --root-certificates)"
        elif e.code() == grpc.StatusCode.PERMISSION_DENIED and getattr(args, "key_source", ""):
            hint = f" (the key came from {args.key_source}; operator commands need the admin key: --key or --db)"
        print(f"error: {e.code().name}: {e.details()}{hint}", file=sys.stderr)
        return 1
