"""SQLite store (WAL). One connection, used from the server's event-loop thread only.

The match log is append-only and written ahead: the referee appends a decision before it applies
it, so every match can be replayed (and resumed) from (game, rules version, parameters, seed, log).

On an event loop, the writes of running matches (their records and log entries) are committed in
batches, one transaction per turn of the loop: the first write opens it and schedules its commit
ahead of everything woken afterwards, so the tasks that send what a write records (stream writers,
spectator feeds) run only once it is committed. Every other write (agents, keys, tournaments)
commits the open batch first, then itself, at once. Off a loop (CLI, tools), every write commits at
once.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import structlog

SCHEMA = """
CREATE TABLE IF NOT EXISTS agents (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    house       INTEGER NOT NULL DEFAULT 0,
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
    key_id      TEXT PRIMARY KEY,
    key_hash    TEXT NOT NULL,
    agent_name  TEXT REFERENCES agents(name),
    scopes      TEXT NOT NULL,
    label       TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    revoked     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    config        TEXT NOT NULL,
    status        TEXT NOT NULL,
    error         TEXT NOT NULL DEFAULT '',
    created_at    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    match_id       TEXT PRIMARY KEY,
    tournament_id  TEXT NOT NULL DEFAULT '',
    game_id        TEXT NOT NULL,
    rules_version  TEXT NOT NULL,
    parameters     TEXT NOT NULL,
    players        TEXT NOT NULL,
    seed           INTEGER NOT NULL,
    time_control   TEXT NOT NULL,
    failure_policy TEXT NOT NULL,
    status         TEXT NOT NULL,
    result         TEXT,
    created_at     REAL NOT NULL,
    ended_at       REAL
);
CREATE INDEX IF NOT EXISTS matches_by_tournament ON matches(tournament_id);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches(status, ended_at);
CREATE TABLE IF NOT EXISTS match_agents (
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    agent_name TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS match_agents_by_agent ON match_agents(agent_name);
CREATE TABLE IF NOT EXISTS match_log (
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    public   INTEGER NOT NULL,
    data     TEXT NOT NULL,
    time     REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
"""


log = structlog.get_logger("arena.store")


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
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL keeps WAL durable across process crashes (only an OS crash can lose the tail).
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._batch_open = False

    def close(self) -> None:
        self.commit_batch()
        self._db.close()

    def commit_batch(self) -> None:
        """Commits the match writes made since the batch opened (nothing when none is open)."""
        if not self._batch_open:
            return
        self._batch_open = False
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error:
            log.exception("committing match records and log entries failed; they are lost")
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def _open_batch(self) -> None:
        if self._batch_open:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._db.execute("BEGIN")
        self._batch_open = True
        loop.call_soon(self.commit_batch)

    def _match_write(self, sql: str, args: tuple) -> None:
        """A write of a running match: joins this turn's batch (committed at once off a loop)."""
        self._open_batch()
        self._db.execute(sql, args)

    def _write(self, sql: str, args: tuple) -> None:
        """Any other write: committed at once, after the open batch."""
        self.commit_batch()
        self._db.execute(sql, args)

    # ---- agents -----------------------------------------------------------------------------
    def add_agent(self, name: str, description: str = "", house: bool = False) -> None:
        self._write(
            "INSERT INTO agents(name, description, house, created_at) VALUES (?, ?, ?, ?)",
            (name, description, int(house), time.time()),
        )

    def ensure_agent(self, name: str, description: str = "", house: bool = False) -> None:
        self._write(
            "INSERT OR IGNORE INTO agents(name, description, house, created_at) VALUES (?, ?, ?, ?)",
            (name, description, int(house), time.time()),
        )

    def get_agent(self, name: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM agents WHERE name = ?", (name,)).fetchone()

    def list_agents(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM agents ORDER BY name").fetchall()

    # ---- keys ---------------------------------------------------------------------------------
    def add_key(self, key_id: str, key_hash: str, agent_name: str | None, scopes: list[str], label: str) -> None:
        self._write(
            "INSERT INTO api_keys(key_id, key_hash, agent_name, scopes, label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, key_hash, agent_name, ",".join(sorted(scopes)), label, time.time()),
        )

    def get_key(self, key_id: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM api_keys WHERE key_id = ? AND revoked = 0", (key_id,)).fetchone()

    def list_keys(self) -> list[sqlite3.Row]:
        """Every key, revoked ones included, oldest first (hashes are never shown by callers)."""
        return self._db.execute("SELECT * FROM api_keys ORDER BY created_at").fetchall()

    def revoke_key(self, key_id: str) -> bool:
        """Revokes a key for good; False when no such key is active."""
        cursor = self._db.execute("UPDATE api_keys SET revoked = 1 WHERE key_id = ? AND revoked = 0", (key_id,))
        return cursor.rowcount == 1

    def has_admin_key(self) -> bool:
        row = self._db.execute("SELECT 1 FROM api_keys WHERE revoked = 0 AND scopes LIKE '%admin%' LIMIT 1").fetchone()
        return row is not None

    # ---- tournaments ----------------------------------------------------------------------------
    def add_tournament(self, tournament_id: str, config: dict[str, Any], status: str) -> None:
        self._write(
            "INSERT INTO tournaments(tournament_id, config, status, created_at) VALUES (?, ?, ?, ?)",
            (tournament_id, json.dumps(config), status, time.time()),
        )

    def set_tournament_config(self, tournament_id: str, config: dict[str, Any]) -> None:
        """Replaces a tournament's stored configuration (a sampled tournament's growing plan)."""
        self._write("UPDATE tournaments SET config = ? WHERE tournament_id = ?", (json.dumps(config), tournament_id))

    def set_tournament_status(self, tournament_id: str, status: str, error: str = "") -> None:
        self._write(
            "UPDATE tournaments SET status = ?, error = ? WHERE tournament_id = ?", (status, error, tournament_id)
        )

    def get_tournament(self, tournament_id: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,)).fetchone()

    def list_tournaments(self, status: str | None = None) -> list[sqlite3.Row]:
        if status:
            return self._db.execute("SELECT * FROM tournaments WHERE status = ? ORDER BY created_at", (status,)).fetchall()
        return self._db.execute("SELECT * FROM tournaments ORDER BY created_at").fetchall()

    def tournament_counts(self, tournament_id: str) -> dict[str, int]:
        rows = self._db.execute(
            "SELECT status, COUNT(*) AS n FROM matches WHERE tournament_id = ? GROUP BY status", (tournament_id,)
        ).fetchall()
        return {r["status"]: r["n"] for r in rows}

    # ---- matches -----------------------------------------------------------------------------
    def add_match(self, m: MatchRecord) -> None:
        # A savepoint keeps the record whole: it joins the batch (or, off a loop, commits on release),
        # and a failed insert is undone without touching the batch's other writes.
        self._open_batch()
        self._db.execute("SAVEPOINT add_match")
        try:
            self._db.execute(
                "INSERT INTO matches(match_id, tournament_id, game_id, rules_version, parameters, players, seed,"
                " time_control, failure_policy, status, result, created_at, ended_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (m.match_id, m.tournament_id, m.game_id, m.rules_version, json.dumps(m.parameters),
                 json.dumps(m.players), m.seed, json.dumps(m.time_control), json.dumps(m.failure_policy),
                 m.status, json.dumps(m.result) if m.result is not None else None, m.created_at, m.ended_at),
            )
            self._db.executemany(
                "INSERT INTO match_agents(match_id, agent_name, seat) VALUES (?, ?, ?)",
                [(m.match_id, p["agent_name"], p["seat"]) for p in m.players],
            )
        except BaseException:
            self._db.execute("ROLLBACK TO add_match")
            self._db.execute("RELEASE add_match")
            raise
        self._db.execute("RELEASE add_match")

    def set_match_status(self, match_id: str, status: str) -> None:
        self._match_write("UPDATE matches SET status = ? WHERE match_id = ?", (status, match_id))

    def finish_match(self, match_id: str, status: str, result: dict[str, Any], ended_at: float) -> None:
        self._match_write(
            "UPDATE matches SET status = ?, result = ?, ended_at = ? WHERE match_id = ?",
            (status, json.dumps(result), ended_at, match_id),
        )

    def get_match(self, match_id: str) -> MatchRecord | None:
        row = self._db.execute("SELECT * FROM matches WHERE match_id = ?", (match_id,)).fetchone()
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
        return [_match_from_row(r) for r in self._db.execute(query, args)]

    def finished_matches(self, *, game_id: str = "", tournament_id: str = "") -> Iterator[MatchRecord]:
        """Counted results in the order they ended: the input of every rating method."""
        query, args = "SELECT * FROM matches WHERE status = 'finished'", []
        if game_id:
            query += " AND game_id = ?"
            args.append(game_id)
        if tournament_id:
            query += " AND tournament_id = ?"
            args.append(tournament_id)
        query += " ORDER BY ended_at, match_id"
        for row in self._db.execute(query, args):
            yield _match_from_row(row)

    # ---- match log ----------------------------------------------------------------------------
    def append_log(self, match_id: str, seq: int, kind: str, data: dict[str, Any], public: bool) -> float:
        now = time.time()
        self._open_batch()
        self._db.execute(
            "INSERT INTO match_log(match_id, seq, kind, public, data, time) VALUES (?, ?, ?, ?, ?, ?)",
            (match_id, seq, kind, int(public), json.dumps(data), now),
        )
        return now

    def read_log(self, match_id: str, *, public_only: bool = False) -> list[LogEntry]:
        query = "SELECT * FROM match_log WHERE match_id = ?"
        if public_only:
            query += " AND public = 1"
        rows = self._db.execute(query + " ORDER BY seq", (match_id,)).fetchall()
        return [LogEntry(r["seq"], r["kind"], bool(r["public"]), json.loads(r["data"]), r["time"]) for r in rows]


def _match_from_row(row: sqlite3.Row) -> MatchRecord:
    return MatchRecord(
        match_id=row["match_id"], tournament_id=row["tournament_id"], game_id=row["game_id"],
        rules_version=row["rules_version"], parameters=json.loads(row["parameters"]),
        players=json.loads(row["players"]), seed=row["seed"], time_control=json.loads(row["time_control"]),
        failure_policy=json.loads(row["failure_policy"]), status=row["status"],
        result=json.loads(row["result"]) if row["result"] else None, created_at=row["created_at"],
        ended_at=row["ended_at"],
    )
