"""`arena-server keys`: API keys, written to the database file directly."""

from __future__ import annotations

import sys

from .common import DEFAULT_DB


def add_parsers(sub) -> None:
    keys = sub.add_parser("keys", help="API keys")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="issue a key (printed once)")
    create.add_argument("--db", default=DEFAULT_DB)
    create.add_argument("--agent", help="agent the key plays as (registered if new); required for the play scope")
    create.add_argument("--scopes", default="play", help="comma-separated: play, spectate, admin")
    create.add_argument("--label", default="")
    create.set_defaults(run=_keys_create)


def _keys_create(args) -> int:
    from .. import auth
    from ..store import Store

    store = Store(args.db)
    try:
        key, key_id = auth.create_key(store, agent_name=args.agent, scopes=[s.strip() for s in args.scopes.split(",")],
                                      label=args.label)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(key)
    print(f"key id {key_id}; scopes {args.scopes}" + (f"; agent {args.agent}" if args.agent else ""), file=sys.stderr)
    return 0
