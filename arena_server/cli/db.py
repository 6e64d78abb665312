"""`arena-server db migrate | status`: the database's schema version, for operators.

`serve` migrates the schema itself when it starts; `db migrate` does it beforehand (an upgrade
window, a schema to prepare before the servers roll over) and says what it applied. `db status`
changes nothing: it prints the version, the migrations applied and those pending, and on
PostgreSQL the server processes sharing the database. Both take a SQLite file or a postgresql://
URL, like `serve --db`.
"""

from __future__ import annotations

import sys
import time

from .common import DEFAULT_DB


def add_parsers(sub) -> None:
    db = sub.add_parser("db", help="the database's schema: migrate it, or show its version")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    for name, run, help_text in (
        ("migrate", _migrate, "apply the schema migrations the database lacks (serve does it on start)"),
        ("status", _status, "print the schema version, applied and pending migrations; change nothing"),
    ):
        command = db_sub.add_parser(name, help=help_text)
        command.add_argument("--db", default=DEFAULT_DB,
                             help="SQLite database file or postgresql:// URL (default %(default)s)")
        command.set_defaults(run=run)


def _open(database: str, *, create: bool = False):
    from pathlib import Path

    from ..store import Store, StoreError, is_postgres_url

    if not create and not is_postgres_url(database) and not Path(database).is_file():
        raise SystemExit(f"error: no database {database}")
    try:
        return Store(database, migrate=False)
    except StoreError as e:
        raise SystemExit(f"error: {e}") from None


def _migrate(args) -> int:
    from ..store import StoreError
    from ..store.migrations import LATEST

    store = _open(args.db, create=True)       # a new file is made at the latest version
    try:
        before = store.schema_version()
        applied = store.migrate()
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except store.Error as e:
        print(f"error: migrating {store.display_name} failed: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    for migration in applied:
        print(f"applied {migration.version}: {migration.description}")
    if applied:
        print(f"{store.display_name}: schema version {before} -> {LATEST}")
    else:
        print(f"{store.display_name}: schema version {before}, up to date")
    return 0


def _status(args) -> int:
    from ..store.migrations import LATEST

    store = _open(args.db)
    try:
        applied = store.applied_migrations()
        pending = store.pending_migrations()
        version = store.schema_version()
    finally:
        store.close()
    print(f"{store.display_name} ({store.backend}): schema version {version}; this server's is {LATEST}")
    for row in applied:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["applied_at"]))
        print(f"  applied {row['version']}: {row['description']} ({when})")
    for migration in pending:
        print(f"  pending {migration.version}: {migration.description}")
    if store.backend == "postgres" and version >= 2:
        _servers(args.db)
    if version > LATEST:
        print(f"error: the database is newer than this server (version {version} > {LATEST}); run a newer "
              f"arena-server", file=sys.stderr)
        return 1
    return 0


def _servers(url: str) -> None:
    import psycopg

    from ..cluster.members import live_servers

    with psycopg.connect(url, autocommit=True) as connection:
        servers = live_servers(connection)
    print(f"server processes: {len(servers) or 'none'}")
    for s in servers:
        print(f"  {s['server_id']} at {s['address'] or '?'} ({s['host']}, pid {s['pid']}): heartbeat "
              f"{s['heartbeat_age']:.1f} s ago, refereeing {s['matches']} matches, {s['sessions']} agent streams")
