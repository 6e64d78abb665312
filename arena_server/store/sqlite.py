"""SQLite back end (WAL), the default. One connection, used from the server's event-loop thread only.

The queries and the batching rules are the interface's (base.py). Here: the connection
(autocommit, WAL, synchronous=NORMAL, foreign keys), savepoints for the writes that must be whole,
and BEGIN IMMEDIATE for migrations (a second process migrating at once waits for the first).
A server's exclusive hold on the file is its flock (server.py), separate from SQLite's own locks.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

from .base import LogEntry, MatchRecord, Store, StoreError

__all__ = ["LogEntry", "MatchRecord", "SQLiteStore"]


class SQLiteStore(Store):
    backend = "sqlite"
    Error = sqlite3.Error
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, path: str | Path, *, migrate: bool = True):
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            self._db.row_factory = sqlite3.Row
            self._wal()
            # NORMAL keeps WAL durable across process crashes (only an OS crash can lose the tail).
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open the database {self.path}: {e}") from None
        super().__init__(self.path, migrate=migrate)

    def _wal(self) -> None:
        """Puts the file in WAL mode. Switching takes the file's exclusive lock without waiting for it
        (SQLite calls no busy handler there), so openers of a new file at once retry for a while."""
        deadline = time.monotonic() + 30
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _execute(self, sql: str, args=()):
        return self._db.execute(sql, args)

    def _batch_execute(self, sql: str, args=(), many: bool = False, match_id: str = ""):
        try:
            return self._db.executemany(sql, args) if many else self._db.execute(sql, args)
        except sqlite3.Error as e:
            if not (self._batch_open and match_id):
                raise
            self._write_failed(match_id, e)     # SQLite undid the statement alone
            return None

    def _has_table(self, name: str) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                (name,)).fetchone() is not None

    def _begin(self) -> None:
        self._db.execute("BEGIN")

    def _begin_migration(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def _commit(self) -> None:
        self._db.execute("COMMIT")

    def _rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    @contextmanager
    def _atomic(self):
        # A savepoint joins the open transaction (the batch), or, with none open, is one: its
        # release commits.
        self._db.execute("SAVEPOINT atomic")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK TO atomic")
            self._db.execute("RELEASE atomic")
            raise
        self._db.execute("RELEASE atomic")

    def close(self) -> None:
        self.commit_batch()
        self._db.close()
