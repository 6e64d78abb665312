"""`arena-server compliance`: holds a server, any implementation of arena.v1 at any address, to the
protocol (the checks of arena_server.compliance), and prints one line per check and a summary."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .common import non_negative_int, positive_float, positive_int


def add_parsers(sub) -> None:
    p = sub.add_parser("compliance", help="check that a server at any address speaks arena.v1 (handshake, decisions, "
                                          "resume, spectating, reads, federation, limits)",
                       description="Runs the arena.v1 compliance checks against a running server and prints PASS, "
                                   "FAIL or SKIP per check. Exit status 0 only when no check failed.")
    p.add_argument("--server", help="the address of the server under test, HOST:PORT (required unless --list)")
    p.add_argument("--key", default="", help="an API key with the play scope, or a read key with --read-only; @FILE reads it from a file "
                        "(default $ARENA_API_KEY)")
    p.add_argument("--admin-key", default="",
                   help="an admin key: the checks that need matches start tournaments against a house agent "
                        "(without it they use the ladder), and the scope checks run; optional")
    p.add_argument("--only", action="append", default=[], metavar="AREA",
                   help="run only this area (repeatable, or comma-separated): handshake, decisions, resume, "
                        "spectating, reads, federation, limits")
    p.add_argument("--check", action="append", default=[], metavar="ID", help="run only this check (repeatable)")
    p.add_argument("--list", action="store_true", help="list the checks with the rule each holds, and exit")
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write the report as JSON to PATH (to stdout, instead of the lines, when no PATH is given)")
    p.add_argument("--game", default="", help="the game decisions are played in (default: tic_tac_toe, or the "
                                              "first two-player sequential game the server lists)")
    p.add_argument("--require-federation", action="store_true",
                   help="fail the federation checks when the server offers no FederationService (default: SKIP)")
    p.add_argument("--read-only", action="store_true",
                   help="the key only reads (a spectate key, as an aggregator holds for a peer): the checks that play "
                        "are skipped, the reads, spectating of finished matches and federation run")
    p.add_argument("--max-message-bytes", type=positive_int, default=4 << 20, metavar="N",
                   help="the server's message size limit (default %(default)s, the documented default)")
    p.add_argument("--max-concurrent-per-agent", type=non_negative_int, default=0, metavar="N",
                   help="the server's cap on an agent's concurrent matches, to check it (default: not checked)")
    p.add_argument("--rate-calls", type=non_negative_int, default=300, metavar="N",
                   help="calls the rate-limit check may spend looking for the limit (default %(default)s)")
    p.add_argument("--timeout", type=positive_float, default=5.0, metavar="SECONDS",
                   help="how long any single reply may take (default %(default)s)")
    p.add_argument("--match-wait", type=positive_float, default=15.0, metavar="SECONDS",
                   help="how long a check waits to be seated in a match (default %(default)s)")
    tls = p.add_argument_group("TLS")
    tls.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    tls.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    tls.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    tls.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")
    p.set_defaults(run=_compliance, parser=p)


def _read(path: str | None) -> bytes | None:
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise SystemExit(f"error: cannot read {path}: {e.strerror}") from None


def _key(value: str, flag: str) -> str:
    """A key given as it is, or as @FILE (read from the file, as `federation aggregate --peer-key` does)."""
    if not value.startswith("@"):
        return value
    try:
        return Path(value[1:]).read_text().strip()
    except OSError as e:
        raise SystemExit(f"error: cannot read the {flag} file {value[1:]}: {e.strerror}") from None


def _compliance(args) -> int:
    from ..compliance import Endpoint, Settings, Unreachable
    from ..compliance.runner import run, select

    areas = [a.strip() for item in args.only for a in item.split(",") if a.strip()]
    try:
        checks = select(areas or None, args.check or None)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    if args.list:
        for c in checks:
            print(f"{c.id:<32} {c.rule}\n{'':<32} ({c.section})")
        return 0
    if not args.server:
        raise SystemExit("error: --server HOST:PORT is required (the server under test)")
    key = _key(args.key, "--key") or os.environ.get("ARENA_API_KEY", "")
    if not key:
        raise SystemExit("error: no API key: pass --key (a key with the play scope) or set ARENA_API_KEY")
    if bool(args.client_cert) != bool(args.client_key):
        raise SystemExit("error: mutual TLS needs both --client-cert and --client-key")
    endpoint = Endpoint(args.server, _read(args.root_certificates), _read(args.client_cert), _read(args.client_key),
                        tls=args.tls)
    settings = Settings(endpoint, key, _key(args.admin_key, "--admin-key"), game=args.game, require_federation=args.require_federation,
                        read_only=args.read_only,
                        max_message_bytes=args.max_message_bytes,
                        max_concurrent_per_agent=args.max_concurrent_per_agent, rate_calls=args.rate_calls,
                        reply_timeout=args.timeout, match_wait=args.match_wait)
    quiet = args.json == "-"

    def line(result) -> None:
        if not quiet:
            print(f"{result.outcome}  {result.id:<32} {result.reason}", flush=True)

    try:
        report = run(settings, checks, on_result=line)
    except Unreachable as e:
        hint = "" if (args.tls or args.root_certificates or args.client_cert) else \
            " (this client speaks plaintext: if the server uses TLS, add --tls or --root-certificates)"
        print(f"error: {e}{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if args.json:
        text = json.dumps(report.as_dict(), indent=2)
        if quiet:
            print(text)
        else:
            try:
                Path(args.json).write_text(text + "\n")
            except OSError as e:
                raise SystemExit(f"error: cannot write {args.json}: {e.strerror}") from None
    if not quiet:
        print(report.summary())
    return 0 if report.ok else 1
