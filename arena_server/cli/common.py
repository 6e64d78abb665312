"""What the operator commands share: the database default, client connection options, the admin
stub with its key, and the channel (plaintext, TLS or mutual TLS)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import grpc

DEFAULT_DB = "arena.db"


def add_client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051")
    p.add_argument("--key", default=os.environ.get("ARENA_API_KEY", ""),
                   help="API key (default: $ARENA_API_KEY, else the admin key file beside --db)")
    p.add_argument("--db", default=DEFAULT_DB, help="where to find the admin key file when --key is not given")
    p.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    p.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    p.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    p.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")


def stubs(args):
    from arena.v1 import arena_service_pb2_grpc

    from ..server import admin_key_path

    key = args.key
    if not key:
        path = admin_key_path(args.db)
        if not path.exists():
            raise SystemExit(f"error: no API key: pass --key, set ARENA_API_KEY, or run from beside {path}")
        key = path.read_text().strip()
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
