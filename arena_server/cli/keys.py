"""`arena-server keys create | list | revoke`: API keys, read and written in the database file
directly (the server checks every call against it, so a revoked key stops working at once).

The database must exist: a key written to a new, empty file would be one the running server never
sees, so `create` refuses to make one unless asked (--create-db) and names the file it wrote to.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .common import DEFAULT_DB


def add_parsers(sub) -> None:
    keys = sub.add_parser("keys", help="API keys, in the database file")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="issue a key (printed once)")
    create.add_argument("--db", default=DEFAULT_DB, help="the server's database file (default %(default)s)")
    create.add_argument("--agent", help="agent the key plays as (registered if new); required for the play scope; "
                                        "LAB/AGENT for another lab's agent playing here (a federated key)")
    create.add_argument("--scopes", default="play", help="comma-separated: play, spectate, admin (default %(default)s)")
    create.add_argument("--label", default="", help="a note stored with the key")
    create.add_argument("--create-db", action="store_true", help="make the database file if it does not exist")
    create.set_defaults(run=_create)

    listing = keys_sub.add_parser("list", help="list keys: id, agent, scopes, label, created, revoked")
    listing.add_argument("--db", default=DEFAULT_DB, help="the server's database file (default %(default)s)")
    listing.set_defaults(run=_list)

    revoke = keys_sub.add_parser("revoke", help="revoke a key by its id (the part after ak_)")
    revoke.add_argument("key_id")
    revoke.add_argument("--db", default=DEFAULT_DB, help="the server's database file (default %(default)s)")
    revoke.set_defaults(run=_revoke)


def _open(db: str, create: bool = False):
    from ..store import Store, StoreError, is_postgres_url

    if not create and not is_postgres_url(db) and not Path(db).is_file():
        raise SystemExit(f"error: no database {db} here; run this beside the server's database (arena-server serve "
                         f"creates it) or pass --db PATH" + ("; --create-db makes a new one" if create is not None else ""))
    try:
        return Store(db)
    except StoreError as e:       # it names the database (a URL without its password)
        raise SystemExit(f"error: {e}") from None
    except Exception as e:        # sqlite3.Error, OSError: one line, not a traceback
        raise SystemExit(f"error: cannot open the database {db}: {e}") from None


def _create(args) -> int:
    from .. import auth
    from ..federation.keys import KeyFileError, lab_beside_database

    try:      # a federated agent "lab/agent" may not claim this server's own lab
        own_lab = lab_beside_database(args.db) if args.agent and "/" in args.agent else None
    except KeyFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    store = _open(args.db, args.create_db)
    try:
        key, key_id = auth.create_key(store, agent_name=args.agent, scopes=[s.strip() for s in args.scopes.split(",")],
                                      label=args.label, federated=True, own_lab=own_lab)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(key)
    print(f"key id {key_id}; scopes {args.scopes}" + (f"; agent {args.agent}" if args.agent else "")
          + f"; written to {store.display_name if store.backend == 'postgres' else Path(args.db).resolve()}",
          file=sys.stderr)
    return 0


def _list(args) -> int:
    store = _open(args.db, create=None)
    try:
        rows = store.list_keys()
    finally:
        store.close()
    print(f"{'key id':<10} {'agent':<24} {'scopes':<22} {'created':<19}  {'state':<8} label")
    for row in rows:
        created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["created_at"]))
        state = "revoked" if row["revoked"] else "active"
        print(f"{row['key_id']:<10} {row['agent_name'] or '-':<24} {row['scopes']:<22} {created:<19}  {state:<8} "
              f"{row['label']}")
    return 0


def _revoke(args) -> int:
    store = _open(args.db, create=None)
    try:
        revoked = store.revoke_key(args.key_id)
    finally:
        store.close()
    if not revoked:
        print(f"error: no active key with id {args.key_id!r} in {args.db}", file=sys.stderr)
        return 1
    print(f"revoked key {args.key_id}")
    return 0
