"""The store's one interface: every query the server and the CLI use, written once in SQL that both
back ends accept, with the rules of write batching; sqlite.py and postgres.py supply connections.

`Store(database)` opens the back end the name says: a `postgresql://` (or `postgres://`) URL opens
PostgreSQL, anything else a SQLite file. Either way the schema is created or migrated on opening
(migrations.py), unless `migrate=False`.

The match log is append-only and written ahead: the referee appends a decision before it applies
it, so every match can be replayed (and resumed) from (game, rules version, parameters, seed, log).

On an event loop, the writes of running matches (their records and log entries) are committed in
batches, one transaction per turn of the loop: the first write opens it and schedules its commit
ahead of everything woken afterwards, so the tasks that send what a write records (stream writers,
spectator feeds) run only once it is committed. Every other write (agents, keys, tournaments)
commits the open batch first, then itself, at once. Off a loop (CLI, tools), every write commits at
once. A write of the batch that fails is undone alone (the batch's other writes stay), on both back
ends; a match record (match and seats) is written whole or not at all. A failed write of a running
match (its log, its status) is reported to `on_write_failed` rather than raised: PostgreSQL sends a
batch's writes together (postgres.py), so the failure is known only then, and the server ends the
match (its log would no longer replay it).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import structlog

from .. import metrics
from .errors import SchemaTooNew, StoreError
from .migrations import LATEST, MIGRATIONS, SCHEMA_VERSION_TABLE, Migration

__all__ = ["LogEntry", "MatchRecord", "SchemaTooNew", "Store", "StoreError", "is_postgres_url"]

log = structlog.get_logger("arena.store")


def is_postgres_url(database: object) -> bool:
    return str(database).startswith(("postgresql://", "postgres://"))


@dataclass
class MatchRecord:
    match_id: str
    tournament_id: str
    game_id: str
    rules_version: str
    parameters: dict[str, Any]
    players: list[dict[str, Any]]       # [{"seat", "agent_name", "team", "house_agent"}]
    seed: int
    time_control: dict[str, Any]
    failure_policy: dict[str, Any]
    status: str                         # pending | running | finished | void
    result: dict[str, Any] | None
    created_at: float
    ended_at: float | None
    referee: str = ""                   # the server process refereeing it (several processes on one database)

    @property
    def agent_names(self) -> list[str]:
        return [p["agent_name"] for p in self.players]


@dataclass
class LogEntry:
    seq: int
    kind: str
    public: bool
    data: dict[str, Any]
    time: float


class Store:
    """The interface. Rows of agents, keys and tournaments are read by column name (row["name"])."""

    backend = ""                                   # "sqlite" | "postgres"
    Error: type[Exception] = Exception             # the driver's base error
    IntegrityError: type[Exception] = Exception    # a constraint refused a write (a duplicate id, ...)
    exit_on_lost_commit = False     # PostgreSQL: exit the process when its connection is lost (postgres.py)
    # (match id, error) of a running match's write that failed and was undone (the server voids the match).
    on_write_failed: Callable[[str, Exception], None] | None = None

    def __new__(cls, database, *args, **kwargs):
        if cls is Store:
            if is_postgres_url(database):
                from .postgres import PostgresStore as cls
            else:
                from .sqlite import SQLiteStore as cls
        return super().__new__(cls)

    def __init__(self, database, *, migrate: bool = True):
        self.database = str(database)
        self._batch_open = False
        self.migrations_applied: list[Migration] = []      # by this store, on opening
        if migrate:
            try:
                self.migrations_applied = self.migrate()
            except BaseException as e:
                self.close()
                if isinstance(e, self.Error):
                    raise StoreError(f"cannot migrate the database {self.display_name}: {e}") from None
                raise

    @property
    def display_name(self) -> str:
        """The database as named in messages (a URL without its password)."""
        return self.database

    # ---- what a back end supplies ---------------------------------------------------------------
    def _execute(self, sql: str, args: tuple | list = ()):
        """Runs one statement (`?` placeholders); returns a cursor (fetchone, fetchall, rowcount, iteration)."""
        raise NotImplementedError

    def _batch_execute(self, sql: str, args: tuple | list = (), many: bool = False, match_id: str = ""):
        """Runs a write that joins the open batch (or, with none open, commits at once). `match_id`
        names the running match it is a write of, for `_write_failed`."""
        raise NotImplementedError

    def _begin(self) -> None:
        raise NotImplementedError

    def _commit(self) -> None:
        raise NotImplementedError

    def _rollback(self) -> None:
        raise NotImplementedError

    @contextmanager
    def _atomic(self):
        """Statements applied whole: inside the open batch they join it (and a failure undoes them
        alone); outside it they commit together."""
        raise NotImplementedError
        yield

    def _begin_migration(self) -> None:
        """Opens the migration transaction, holding off any other process migrating the same database."""
        self._begin()

    def _has_table(self, name: str) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # ---- migrations -----------------------------------------------------------------------------
    def schema_version(self) -> int:
        """The version the database is at (0: empty, or made before versions were recorded)."""
        self.commit_batch()
        if not self._has_table("schema_version"):
            return 0
        row = self._execute("SELECT MAX(version) AS v FROM schema_version").fetchone()
        return row["v"] or 0

    def pending_migrations(self) -> list[Migration]:
        current = self.schema_version()
        return [m for m in MIGRATIONS if m.version > current]

    def migrate(self) -> list[Migration]:
        """Applies the migrations the database lacks, each in its own transaction with its
        schema_version row; returns those applied. Raises SchemaTooNew when a newer server migrated
        the database past what this one knows."""
        self.commit_batch()
        applied = []
        while True:
            self._begin_migration()
            try:
                # Inside the migration's lock: two processes starting at once never both create it.
                self._execute(SCHEMA_VERSION_TABLE)
                row = self._execute("SELECT MAX(version) AS v FROM schema_version").fetchone()
                current = row["v"] or 0
                if current > LATEST:
                    raise SchemaTooNew(f"the database is at schema version {current}, newer than this server's "
                                       f"{LATEST}: run a newer arena-server")
                pending = [m for m in MIGRATIONS if m.version > current]
                if not pending:
                    self._commit()
                    return applied
                migration = pending[0]
                for statement in migration.statements:
                    self._execute(statement)
                self._execute("INSERT INTO schema_version(version, description, applied_at) VALUES (?, ?, ?)",
                              (migration.version, migration.description, time.time()))
                self._commit()
            except BaseException:
                self._rollback()
                raise
            applied.append(migration)

    def applied_migrations(self) -> list[dict[str, Any]]:
        self.commit_batch()
        if not self._has_table("schema_version"):
            return []
        return [dict(version=r["version"], description=r["description"], applied_at=r["applied_at"])
                for r in self._execute("SELECT * FROM schema_version ORDER BY version").fetchall()]

    # ---- batching -------------------------------------------------------------------------------
    def commit_batch(self) -> None:
        """Commits the match writes made since the batch opened (nothing when none is open)."""
        if not self._batch_open:
            return
        self._batch_open = False
        started = time.perf_counter()
        try:
            self._fence()
            self._commit()
        except self.Error:
            metrics.observe_commit(self.backend, started, ok=False)
            log.exception("committing match records and log entries failed; they are lost")
            self._commit_failed()
        else:
            metrics.observe_commit(self.backend, started)

    def _commit_failed(self) -> None:
        self._rollback()

    def _fence(self) -> None:
        """Runs in a batch's transaction before it commits (several processes: the lease check, cluster/members.py)."""

    def _write_failed(self, match_id: str, error: Exception) -> None:
        """A write of the open batch failed and was undone alone."""
        log.error("a write of a running match failed and was undone", match_id=match_id, error=str(error).strip())
        if self.on_write_failed is not None:
            self.on_write_failed(match_id, error)

    def _open_batch(self) -> None:
        if self._batch_open:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._begin()
        self._batch_open = True
        # In an empty context: the commit is no task's, whatever task's write opened the batch.
        loop.call_soon(self.commit_batch, context=contextvars.Context())

    def _match_write(self, sql: str, args: tuple) -> None:
        """A write of a running match (its id last in `args`): joins this turn's batch (committed at
        once off a loop)."""
        self._open_batch()
        self._batch_execute(sql, args, match_id=args[-1])

    def _write(self, sql: str, args: tuple):
        """Any other write: committed at once, after the open batch."""
        self.commit_batch()
        return self._execute(sql, args)

    # ---- agents -----------------------------------------------------------------------------
    def add_agent(self, name: str, description: str = "", house: bool = False) -> None:
        self._write(
            "INSERT INTO agents(name, description, house, created_at) VALUES (?, ?, ?, ?)",
            (name, description, int(house), time.time()),
        )

    def ensure_agent(self, name: str, description: str = "", house: bool = False) -> None:
        self._write(
            "INSERT INTO agents(name, description, house, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (name, description, int(house), time.time()),
        )

    def get_agent(self, name: str):
        return self._execute("SELECT * FROM agents WHERE name = ?", (name,)).fetchone()

    def list_agents(self) -> list:
        return self._execute("SELECT * FROM agents ORDER BY name").fetchall()

    # ---- keys ---------------------------------------------------------------------------------
    def add_key(self, key_id: str, key_hash: str, agent_name: str | None, scopes: list[str], label: str) -> None:
        self._write(
            "INSERT INTO api_keys(key_id, key_hash, agent_name, scopes, label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, key_hash, agent_name, ",".join(sorted(scopes)), label, time.time()),
        )

    def get_key(self, key_id: str):
        return self._execute("SELECT * FROM api_keys WHERE key_id = ? AND revoked = 0", (key_id,)).fetchone()

    def list_keys(self) -> list:
        """Every key, revoked ones included, oldest first (hashes are never shown by callers)."""
        return self._execute("SELECT * FROM api_keys ORDER BY created_at").fetchall()

    def revoke_key(self, key_id: str) -> bool:
        """Revokes a key for good; False when no such key is active."""
        cursor = self._write("UPDATE api_keys SET revoked = 1 WHERE key_id = ? AND revoked = 0", (key_id,))
        return cursor.rowcount == 1

    def has_admin_key(self) -> bool:
        row = self._execute("SELECT 1 AS one FROM api_keys WHERE revoked = 0 AND scopes LIKE ? LIMIT 1",
                            ("%admin%",)).fetchone()
        return row is not None

    # ---- tournaments ----------------------------------------------------------------------------
    def add_tournament(self, tournament_id: str, config: dict[str, Any], status: str, runner: str = "") -> None:
        self._write(
            "INSERT INTO tournaments(tournament_id, config, status, created_at, runner) VALUES (?, ?, ?, ?, ?)",
            (tournament_id, json.dumps(config), status, time.time(), runner),
        )

    def set_tournament_waiting(self, tournament_id: str, waiting: list[dict[str, Any]]) -> None:
        """The agents a running tournament cannot seat, as its runner last saw them (GetTournament
        reads them on whichever process is asked)."""
        self._write("UPDATE tournaments SET waiting = ? WHERE tournament_id = ?", (json.dumps(waiting), tournament_id))

    def set_tournament_config(self, tournament_id: str, config: dict[str, Any]) -> None:
        """Replaces a tournament's stored configuration (a sampled tournament's growing plan)."""
        self._write("UPDATE tournaments SET config = ? WHERE tournament_id = ?", (json.dumps(config), tournament_id))

    def set_tournament_status(self, tournament_id: str, status: str, error: str = "") -> None:
        self._write(
            "UPDATE tournaments SET status = ?, error = ? WHERE tournament_id = ?", (status, error, tournament_id)
        )

    def get_tournament(self, tournament_id: str):
        return self._execute("SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,)).fetchone()

    def list_tournaments(self, status: str | None = None) -> list:
        if status:
            return self._execute("SELECT * FROM tournaments WHERE status = ? ORDER BY created_at", (status,)).fetchall()
        return self._execute("SELECT * FROM tournaments ORDER BY created_at").fetchall()

    def tournament_counts(self, tournament_id: str) -> dict[str, int]:
        rows = self._execute(
            "SELECT status, COUNT(*) AS n FROM matches WHERE tournament_id = ? GROUP BY status", (tournament_id,)
        ).fetchall()
        return {r["status"]: r["n"] for r in rows}

    # ---- matches -----------------------------------------------------------------------------
    def add_match(self, m: MatchRecord, sessions: dict[int, str] | None = None) -> None:
        """`sessions`: the agent session holding each seat (by seat; house seats hold none)."""
        # Whole: it joins the batch (or, off a loop, commits by itself), and a failed insert is undone
        # without touching the batch's other writes.
        self._open_batch()
        with self._atomic():
            self._batch_execute(MATCH_INSERT, match_row(m))
            self._batch_execute(SEAT_INSERT, seat_rows(m, sessions), many=True)

    def set_match_status(self, match_id: str, status: str) -> None:
        self._match_write("UPDATE matches SET status = ? WHERE match_id = ?", (status, match_id))

    def finish_match(self, match_id: str, status: str, result: dict[str, Any], ended_at: float) -> None:
        self._match_write(
            "UPDATE matches SET status = ?, result = ?, ended_at = ? WHERE match_id = ?",
            (status, json.dumps(result), ended_at, match_id),
        )

    def get_match(self, match_id: str) -> MatchRecord | None:
        row = self._execute("SELECT * FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        return _match_from_row(row) if row else None

    def list_matches(self, *, tournament_id: str = "", game_id: str = "", agent_name: str = "", status: str = "",
                     limit: int = 100, before: tuple[float, str] | None = None) -> list[MatchRecord]:
        """Newest first; `before` = (created_at, match_id) of the last match of the previous page
        (both, so that matches created in the same instant are neither skipped nor repeated)."""
        query = "SELECT m.* FROM matches m"
        where, args = [], []
        if agent_name:
            query += " JOIN (SELECT DISTINCT match_id FROM match_agents WHERE agent_name = ?) a USING (match_id)"
            args.append(agent_name)
        for column, value in (("tournament_id", tournament_id), ("game_id", game_id), ("status", status)):
            if value:
                where.append(f"m.{column} = ?")
                args.append(value)
        if before is not None:
            where.append("(m.created_at < ? OR (m.created_at = ? AND m.match_id < ?))")
            args += [before[0], before[0], before[1]]
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY m.created_at DESC, m.match_id DESC LIMIT ?"
        args.append(limit)
        return [_match_from_row(r) for r in self._execute(query, args).fetchall()]

    def finished_matches(self, *, game_id: str = "", tournament_id: str = "") -> Iterator[MatchRecord]:
        """Counted results in the order they ended: the input of every rating method, read in one
        query (the bootstrap's outcomes, however many)."""
        query, args = "SELECT * FROM matches WHERE status = 'finished'", []
        if game_id:
            query += " AND game_id = ?"
            args.append(game_id)
        if tournament_id:
            query += " AND tournament_id = ?"
            args.append(tournament_id)
        query += " ORDER BY ended_at, match_id"
        for row in self._execute(query, args):
            yield _match_from_row(row)

    # ---- match log ----------------------------------------------------------------------------
    def append_log(self, match_id: str, seq: int, kind: str, data: dict[str, Any], public: bool) -> float:
        now = time.time()
        self._open_batch()
        self._batch_execute(
            "INSERT INTO match_log(match_id, seq, kind, public, data, time) VALUES (?, ?, ?, ?, ?, ?)",
            (match_id, seq, kind, int(public), json.dumps(data), now), match_id=match_id,
        )
        return now

    def read_log(self, match_id: str, *, public_only: bool = False) -> list[LogEntry]:
        query = "SELECT * FROM match_log WHERE match_id = ?"
        if public_only:
            query += " AND public = 1"
        rows = self._execute(query + " ORDER BY seq", (match_id,)).fetchall()
        return [LogEntry(r["seq"], r["kind"], bool(r["public"]), json.loads(r["data"]), r["time"]) for r in rows]


MATCH_INSERT = (
    "INSERT INTO matches(match_id, tournament_id, game_id, rules_version, parameters, players, seed,"
    " time_control, failure_policy, status, result, created_at, ended_at, referee)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
SEAT_INSERT = "INSERT INTO match_agents(match_id, agent_name, seat, session_id) VALUES (?, ?, ?, ?)"


def match_row(m: MatchRecord) -> tuple:
    return (m.match_id, m.tournament_id, m.game_id, m.rules_version, json.dumps(m.parameters), json.dumps(m.players),
            m.seed, json.dumps(m.time_control), json.dumps(m.failure_policy), m.status,
            json.dumps(m.result) if m.result is not None else None, m.created_at, m.ended_at, m.referee)


def seat_rows(m: MatchRecord, sessions: dict[int, str] | None) -> list[tuple]:
    return [(m.match_id, p["agent_name"], p["seat"], (sessions or {}).get(p["seat"], "")) for p in m.players]


def _match_from_row(row) -> MatchRecord:
    return MatchRecord(
        match_id=row["match_id"], tournament_id=row["tournament_id"], game_id=row["game_id"],
        rules_version=row["rules_version"], parameters=json.loads(row["parameters"]),
        players=json.loads(row["players"]), seed=row["seed"], time_control=json.loads(row["time_control"]),
        failure_policy=json.loads(row["failure_policy"]), status=row["status"],
        result=json.loads(row["result"]) if row["result"] else None, created_at=row["created_at"],
        ended_at=row["ended_at"], referee=row["referee"],
    )
