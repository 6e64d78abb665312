"""Versioned schema migrations, one list for both back ends, recorded in `schema_version`.

Each migration is a version number, a one-line description and its statements, written in the SQL
that SQLite and PostgreSQL both accept (DOUBLE PRECISION and BIGINT are REAL and INTEGER to SQLite;
JSON is kept as TEXT so that both return what was written, byte for byte). A store applies the
migrations its database lacks when it opens, each in one transaction with its `schema_version` row,
so a migration is applied whole or not at all; `arena-server db migrate` does the same for operators.

Version 1 is the schema that existed before versions were recorded: its statements are
`IF NOT EXISTS`, so a database made by earlier code (tables, no `schema_version`) is brought in
place to version 1 without a change, and later migrations run on it as on any other.

Rules for adding one: append, never edit or reorder an applied migration; keep each statement valid
on both back ends (tests/server/test_migrations.py applies every migration to both); a migration
must be safe while older processes of the same major version still read the database (add columns
with defaults, add tables and indexes; drop only in a later version, once nothing reads them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "agents, API keys, tournaments, matches, match agents and the append-only match log", (
        """CREATE TABLE IF NOT EXISTS agents (
            name        TEXT PRIMARY KEY,
            description TEXT NOT NULL DEFAULT '',
            house       INTEGER NOT NULL DEFAULT 0,
            created_at  DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS api_keys (
            key_id      TEXT PRIMARY KEY,
            key_hash    TEXT NOT NULL,
            agent_name  TEXT REFERENCES agents(name),
            scopes      TEXT NOT NULL,
            label       TEXT NOT NULL DEFAULT '',
            created_at  DOUBLE PRECISION NOT NULL,
            revoked     INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE IF NOT EXISTS tournaments (
            tournament_id TEXT PRIMARY KEY,
            config        TEXT NOT NULL,
            status        TEXT NOT NULL,
            error         TEXT NOT NULL DEFAULT '',
            created_at    DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS matches (
            match_id       TEXT PRIMARY KEY,
            tournament_id  TEXT NOT NULL DEFAULT '',
            game_id        TEXT NOT NULL,
            rules_version  TEXT NOT NULL,
            parameters     TEXT NOT NULL,
            players        TEXT NOT NULL,
            seed           BIGINT NOT NULL,
            time_control   TEXT NOT NULL,
            failure_policy TEXT NOT NULL,
            status         TEXT NOT NULL,
            result         TEXT,
            created_at     DOUBLE PRECISION NOT NULL,
            ended_at       DOUBLE PRECISION
        )""",
        "CREATE INDEX IF NOT EXISTS matches_by_tournament ON matches(tournament_id)",
        "CREATE INDEX IF NOT EXISTS matches_by_status ON matches(status, ended_at)",
        """CREATE TABLE IF NOT EXISTS match_agents (
            match_id   TEXT NOT NULL REFERENCES matches(match_id),
            agent_name TEXT NOT NULL,
            seat       INTEGER NOT NULL,
            PRIMARY KEY (match_id, seat)
        )""",
        "CREATE INDEX IF NOT EXISTS match_agents_by_agent ON match_agents(agent_name)",
        """CREATE TABLE IF NOT EXISTS match_log (
            match_id TEXT NOT NULL REFERENCES matches(match_id),
            seq      BIGINT NOT NULL,
            kind     TEXT NOT NULL,
            public   INTEGER NOT NULL,
            data     TEXT NOT NULL,
            time     DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (match_id, seq)
        )""",
    )),
    Migration(2, "several server processes on one database: server leases, agent sessions, each match's referee "
                 "and each seat's session, each tournament's runner and the agents it waits for", (
        # One row per live server process; a process whose heartbeat is stale (or whose connections
        # are gone) has lost its lease, and another process takes its matches and tournaments over.
        """CREATE TABLE IF NOT EXISTS servers (
            server_id    TEXT PRIMARY KEY,
            address      TEXT NOT NULL DEFAULT '',
            host         TEXT NOT NULL DEFAULT '',
            pid          INTEGER NOT NULL DEFAULT 0,
            started_at   DOUBLE PRECISION NOT NULL,
            heartbeat_at DOUBLE PRECISION NOT NULL
        )""",
        # The agent sessions of every process, for pairing across processes. A session's matches are
        # counted from match_agents, so a seat is claimed in the same transaction as its match.
        """CREATE TABLE IF NOT EXISTS sessions (
            session_id         TEXT PRIMARY KEY,
            server_id          TEXT NOT NULL,
            agent_name         TEXT NOT NULL,
            games              TEXT NOT NULL,
            capacity           INTEGER NOT NULL,
            join_ladder        INTEGER NOT NULL,
            match_events       INTEGER NOT NULL,
            images             INTEGER NOT NULL,
            probes             INTEGER NOT NULL,
            alive              INTEGER NOT NULL,
            joined_at          DOUBLE PRECISION NOT NULL,
            waiting_since      DOUBLE PRECISION NOT NULL,
            last_match_started DOUBLE PRECISION NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent_name)",
        "ALTER TABLE matches ADD COLUMN referee TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE match_agents ADD COLUMN session_id TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE tournaments ADD COLUMN runner TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE tournaments ADD COLUMN waiting TEXT NOT NULL DEFAULT '[]'",
    )),
)

LATEST = MIGRATIONS[-1].version

SCHEMA_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at  DOUBLE PRECISION NOT NULL
)"""
