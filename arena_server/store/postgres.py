"""PostgreSQL back end: `--db postgresql://user:password@host:port/dbname` (psycopg 3).

The queries and the batching rules are the interface's (base.py); this module supplies one
synchronous connection used from the event-loop thread, exactly as the SQLite store uses its own.
(An async connection would make every store call a coroutine, and the batching rule relies on the
commit finishing inside the callback scheduled ahead of the woken tasks; bench/bench_store.py
measures what the synchronous round trips cost.)

- Autocommit, with explicit BEGIN/COMMIT around a batch, so reads and other writes outside a batch
  commit at once, as on SQLite. `synchronous_commit` is on: a batch's COMMIT returns once its WAL is
  flushed, so a decision is durable before anything that reports it runs.
- A batch's writes are sent together, in pipeline mode: nothing waits for a write's answer, so a
  turn's BEGIN, writes and lease check travel in one round trip and its COMMIT in a second (one round
  trip per statement would keep the event loop waiting on the network for each). A read in the
  middle of a batch sends the writes before it first, so it sees them.
- PostgreSQL refuses the rest of a transaction after a statement fails, where SQLite undoes that
  statement alone. To keep SQLite's rule (a failed write of the batch is undone alone, the batch's
  other writes stay), the batch's writes are kept in memory until it commits, and a failure rolls the
  transaction back and writes them again, each under a savepoint, leaving out the ones that fail
  (reported like SQLite's, through `on_write_failed`). Failures are rare (a duplicate id is a bug),
  so the common path costs nothing but the list.
- If the connection is lost (when a batch commits, or at any statement), the open batch's writes are
  lost and anything woken after them would report what is not recorded: with `exit_on_lost_commit`
  (the server sets it) the process exits at once (status 75), for its supervisor to restart it; the
  new process resumes every match from what was committed.
- Any number of server processes may share the database (cluster/: leases, routing, takeover); with
  `lease_check` set, a batch commits only while this process holds its lease. Migrations take a
  transaction-scoped advisory lock, so two processes starting at once migrate one after the other.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from typing import Callable

import psycopg
import structlog
from psycopg.rows import dict_row

from .base import Store
from .errors import StoreError

log = structlog.get_logger("arena.store")

MIGRATION_LOCK = 0x4172656E61_02      # pg advisory lock keys: "Arena" and a number
EXIT_STATUS_LOST_COMMIT = 75    # EX_TEMPFAIL: restart me


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@?]*):[^@/?]*@", r"\1:***@", url)


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class PostgresStore(Store):
    backend = "postgres"
    Error = psycopg.Error
    IntegrityError = psycopg.IntegrityError

    def __init__(self, url: str, *, migrate: bool = True, connect_timeout: int = 10):
        self.url = str(url)
        self.exit_on_lost_commit = False
        self._sql_cache: dict[str, str] = {}
        self._batch_log: list[tuple[str, object, bool, str]] = []   # the open batch's writes, for a replay
        self._unsent: list[tuple[str, object, bool, str]] = []      # the open batch's writes not sent yet
        self._begun = False          # the open batch's BEGIN was sent
        self._atomic_depth = 0
        # Several processes (cluster/members.py): a query that returns a row while this process holds
        # its lease, sent with each batch before its commit, and what to do when it returns none.
        self.lease_check: tuple[str, tuple] | None = None
        self.on_lease_lost: Callable[[], None] = lambda: None
        try:
            self._conn = psycopg.connect(self.url, autocommit=True, row_factory=dict_row,
                                         connect_timeout=connect_timeout, application_name="arena-server")
            self._conn.execute("SET synchronous_commit = on")
        except psycopg.Error as e:
            raise StoreError(f"cannot open the database {redact(self.url)}: {_one_line(e)}") from None
        super().__init__(self.url, migrate=migrate)

    @property
    def display_name(self) -> str:
        return redact(self.url)

    # ---- statements ---------------------------------------------------------------------------
    def _sql(self, sql: str) -> str:
        query = self._sql_cache.get(sql)
        if query is None:
            query = self._sql_cache[sql] = sql.replace("?", "%s")
        return query

    def _execute(self, sql: str, args=()):
        if self._unsent:
            self._send()          # what the batch wrote comes first: a read sees it
        try:
            return self._conn.execute(self._sql(sql), args or None)
        except psycopg.Error:
            self._check_connection()
            if self._batch_open and not self._atomic_depth:
                self._restore_batch(len(self._batch_log))
            raise

    def _batch_execute(self, sql: str, args=(), many: bool = False, match_id: str = ""):
        query = self._sql(sql)
        if self._batch_open and not self._atomic_depth:
            self._unsent.append((query, args, many, match_id))      # sent with the rest of the batch
            self._batch_log.append((query, args, many, match_id))
            return None
        if self._batch_open:
            self._send()          # an atomic write joins the batch: its BEGIN and writes go first
        try:
            if many:
                cursor = self._conn.cursor()
                cursor.executemany(query, args)
            else:
                cursor = self._conn.execute(query, args or None)
        except psycopg.Error:
            self._check_connection()
            if self._batch_open and not self._atomic_depth:
                self._restore_batch(len(self._batch_log))
            raise
        if self._batch_open:
            self._batch_log.append((query, args, many, match_id))
        return cursor

    def _send(self, check: tuple[str, tuple] | None = None):
        """Sends the batch's BEGIN and unsent writes, and `check`, in one round trip; returns the row
        `check` reads (None without one). A write that fails is left out (the others are written
        again) and reported."""
        statements, self._unsent = self._unsent, []
        if self._begun and not statements and check is None:
            return None
        try:
            with self._conn.pipeline():
                if not self._begun:
                    self._conn.execute("BEGIN")
                    self._begun = True
                for query, args, many, _ in statements:
                    if many:
                        self._conn.cursor().executemany(query, args)
                    else:
                        self._conn.execute(query, args or None)
                cursor = self._conn.execute(check[0], check[1]) if check else None
        except psycopg.Error:
            self._check_connection()
            self._rewrite_batch()
            cursor = self._conn.execute(check[0], check[1]) if check else None
        return cursor.fetchone() if cursor is not None else None

    def commit_with(self, sql: str, args: tuple) -> bool:
        """Commits the open batch with one more statement in it (the cluster bus's notifications:
        PostgreSQL delivers them at this commit, with what they report); False, doing nothing, when no
        batch is open."""
        if not self._batch_open:
            return False
        self._unsent.append((sql, args, False, ""))
        self._batch_log.append((sql, args, False, ""))
        self.commit_batch()
        return True

    def _rewrite_batch(self) -> None:
        """After a write of the batch failed: the batch again in a fresh transaction, each write under
        a savepoint, without the writes that fail (each reported, as SQLite's are)."""
        self._conn.rollback()        # psycopg's: it also forgets the statements the failed pipeline skipped
        self._conn.execute("BEGIN")
        kept = []
        for write in self._batch_log:
            query, args, many, match_id = write
            self._conn.execute("SAVEPOINT write")
            try:
                if many:
                    self._conn.cursor().executemany(query, args)
                else:
                    self._conn.execute(query, args or None)
            except psycopg.Error as e:
                self._check_connection()
                self._conn.execute("ROLLBACK TO SAVEPOINT write")
                self._write_failed(match_id, e)
                continue
            self._conn.execute("RELEASE SAVEPOINT write")
            kept.append(write)
        self._batch_log = kept

    def _restore_batch(self, keep: int) -> None:
        """After a failed statement: the batch as it was with its first `keep` writes, in a fresh
        transaction (PostgreSQL refuses every statement of a transaction after a failure)."""
        del self._batch_log[keep:]
        self._unsent = []
        self._conn.rollback()
        self._conn.execute("BEGIN")
        self._begun = True
        for query, args, many, _ in self._batch_log:
            if many:
                self._conn.cursor().executemany(query, args)
            else:
                self._conn.execute(query, args or None)

    def _has_table(self, name: str) -> bool:
        return self._execute("SELECT to_regclass(?) IS NOT NULL AS found", (name,)).fetchone()["found"]

    # ---- transactions -------------------------------------------------------------------------
    def _begin(self) -> None:
        """A batch opens: its BEGIN is sent with its first writes."""
        self._batch_log.clear()
        self._unsent.clear()
        self._begun = False

    def _begin_migration(self) -> None:
        self._conn.execute("BEGIN")
        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))

    def _commit(self) -> None:
        self._batch_log.clear()
        self._conn.execute("COMMIT")

    def _fence(self) -> None:
        """The batch's writes (and the lease check) go out before its COMMIT."""
        held = self._send(self.lease_check)
        if self.lease_check is not None and held is None:
            self._conn.rollback()
            self.on_lease_lost()

    def _rollback(self) -> None:
        self._batch_log.clear()
        self._unsent.clear()
        if not self._conn.closed and not self._conn.broken:
            self._conn.rollback()

    def _commit_failed(self) -> None:
        self._check_connection()
        if self._conn.broken or self._conn.closed:
            self._batch_log.clear()
            return
        self._rollback()

    def _check_connection(self) -> None:
        """After a failed statement: a server whose connection is gone exits (exit_on_lost_commit),
        whatever it was doing, since an open batch's writes may be lost with it and nothing can be
        recorded any more; its supervisor restarts it, and the new process resumes every match from
        what was committed."""
        if self.exit_on_lost_commit and (self._conn.broken or self._conn.closed):
            log.critical("the connection to PostgreSQL was lost; exiting so that a restarted server resumes "
                         "every match from what was committed", database=self.display_name,
                         exit_status=EXIT_STATUS_LOST_COMMIT)
            os._exit(EXIT_STATUS_LOST_COMMIT)

    @contextmanager
    def _atomic(self):
        if self._batch_open:
            self._send()
            mark = len(self._batch_log)
            self._atomic_depth += 1
            try:
                yield
            except BaseException:
                self._atomic_depth -= 1
                self._restore_batch(mark)
                raise
            self._atomic_depth -= 1
            return
        self._conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        if self._conn.closed:
            return
        try:
            self.commit_batch()
        finally:
            self._conn.close()
