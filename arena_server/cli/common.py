"""What the operator commands share: the database default, client connection options, the admin
stub with its key, the channel (plaintext, TLS or mutual TLS), and argument types that refuse bad
values with one line (argparse exits with status 2)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import grpc

DEFAULT_DB = "arena.db"


def add_client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051", help="the server's address (default %(default)s)")
    p.add_argument("--key", default="",
                   help="API key (default: the admin key file beside --db when there is one, else $ARENA_API_KEY)")
    p.add_argument("--db", default=DEFAULT_DB,
                   help="the server's database file, beside which its admin key file lies (default %(default)s)")
    p.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    p.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    p.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    p.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")


def api_key(args) -> tuple[str, str]:
    """(key, where it came from): --key, else the admin key file beside --db (operator commands act
    as the operator, even after `export ARENA_API_KEY=<an agent's play key>`), else $ARENA_API_KEY."""
    from ..server import admin_key_path

    if args.key:
        return args.key, "--key"
    path = admin_key_path(args.db)
    if path.is_file():
        try:
            return path.read_text().strip(), str(path)
        except OSError as e:
            raise SystemExit(f"error: cannot read the admin key file {path}: {e.strerror}") from None
    if os.environ.get("ARENA_API_KEY"):
        return os.environ["ARENA_API_KEY"], "$ARENA_API_KEY"
    raise SystemExit(f"error: no API key: pass --key, run beside the server's database (no {path} here), "
                     f"or set ARENA_API_KEY")


def stubs(args):
    from arena.v1 import arena_service_pb2_grpc

    key, source = api_key(args)
    args.key_source = source    # named in a PERMISSION_DENIED error
    return arena_service_pb2_grpc.ArenaServiceStub(channel(args)), [("authorization", f"Bearer {key}")]


def channel(args) -> grpc.Channel:
    if not (args.tls or args.root_certificates or args.client_cert):
        return grpc.insecure_channel(args.server)
    if bool(args.client_cert) != bool(args.client_key):
        raise SystemExit("error: mutual TLS needs both --client-cert and --client-key")
    pem = {}
    for name, path in (("root_certificates", args.root_certificates), ("certificate_chain", args.client_cert),
                       ("private_key", args.client_key)):
        try:
            pem[name] = Path(path).read_bytes() if path else None
        except OSError as e:
            raise SystemExit(f"error: cannot read {path}: {e.strerror}") from None
    return grpc.secure_channel(args.server, grpc.ssl_channel_credentials(**pem))


# ---- argument types: a bad value is one line of usage error, exit status 2 ------------------------
def _number(kind, test, wanted: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {wanted}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {wanted}")
        return value
    parse.__name__ = wanted     # argparse names the type in its messages
    return parse


positive_float = _number(float, lambda v: v > 0 and v != float("inf"), "a positive number")
non_negative_float = _number(float, lambda v: v >= 0 and v != float("inf"), "a number >= 0")
positive_int = _number(int, lambda v: v > 0, "a positive integer")
non_negative_int = _number(int, lambda v: v >= 0, "an integer >= 0")
port_number = _number(int, lambda v: 0 <= v <= 65535, "a port number (0-65535; 0 picks a free port)")
