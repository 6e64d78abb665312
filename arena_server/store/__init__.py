"""Persistent state: agents, API keys, tournaments, matches and the append-only match log.

One interface (base.Store), two back ends: SQLite in a file (sqlite.py, the default) and
PostgreSQL by URL (postgres.py). `Store(database)` opens the one the name says and brings its
schema to the current version (migrations.py).
"""

from .base import LogEntry, MatchRecord, Store, is_postgres_url
from .errors import SchemaTooNew, StoreError

__all__ = ["LogEntry", "MatchRecord", "SchemaTooNew", "Store", "StoreError", "is_postgres_url"]
