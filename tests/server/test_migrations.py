"""Versioned migrations, the same on both back ends: a new database is created at the latest
version; a migration is applied once, whole or not at all, and recorded; a database newer than the
server is refused; `arena-server db migrate | status` for operators; and a SQLite file made by the
code before versions were recorded opens and migrates in place, its data intact."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena_server.store import SchemaTooNew, Store, StoreError, base
from arena_server.store.migrations import LATEST, MIGRATIONS, Migration

# The schema as the store created it before migrations existed (arena_server/store/sqlite.py as of
# commit ed108c3, unchanged until versions were introduced), verbatim.
UNVERSIONED_SCHEMA = """
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


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", *args], capture_output=True, text=True,
                          timeout=60)


def test_a_sqlite_file_made_before_versions_opens_and_migrates_in_place(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as old:
        old.executescript(UNVERSIONED_SCHEMA)
        old.execute("INSERT INTO agents VALUES ('alice', 'first', 0, 1700000000.5)")
        old.execute("INSERT INTO api_keys VALUES ('k1', 'hash', 'alice', 'play', '', 1700000001.25, 0)")
        old.execute("INSERT INTO matches VALUES ('m1', '', 'pig', '1', '{}', ?, 9223372036854775807, ?, '{}', "
                    "'running', NULL, 1700000002.0, NULL)",
                    (json.dumps([{"seat": 0, "agent_name": "alice", "team": 0, "house_agent": False}]),
                     json.dumps({"per_decision": 5.0})))
        old.execute("INSERT INTO match_agents VALUES ('m1', 'alice', 0)")
        old.execute("INSERT INTO match_log VALUES ('m1', 0, 'start', 1, '{\"players\": []}', 1700000003.0)")
    old.close()

    status = _cli("db", "status", "--db", str(path))
    assert status.returncode == 0, status.stderr
    assert f"schema version 0; this server's is {LATEST}" in status.stdout
    assert all(f"pending {m.version}:" in status.stdout for m in MIGRATIONS)

    store = Store(path)
    try:
        assert [m.version for m in store.migrations_applied] == [m.version for m in MIGRATIONS]
        assert store.schema_version() == LATEST
        assert store.get_agent("alice")["description"] == "first"
        assert store.get_key("k1")["agent_name"] == "alice"
        match = store.get_match("m1")
        assert match.status == "running" and match.seed == 2 ** 63 - 1 and match.time_control == {"per_decision": 5.0}
        assert match.referee == ""        # added by migration 2: no process referees it yet
        assert [(e.seq, e.kind, e.data) for e in store.read_log("m1")] == [(0, "start", {"players": []})]
        store.append_log("m1", 1, "chance", {"action": 3}, public=False)     # and it takes new writes
    finally:
        store.close()
    again = Store(path)
    try:
        assert again.migrations_applied == [] and [e.seq for e in again.read_log("m1")] == [0, 1]
    finally:
        again.close()


def test_a_new_database_is_created_at_the_latest_version_and_migrates_once(backend):
    db = backend.database()
    store = Store(db)
    try:
        assert [m.version for m in store.migrations_applied] == [m.version for m in MIGRATIONS]
        assert store.schema_version() == LATEST and store.pending_migrations() == [] and store.migrate() == []
        assert [r["version"] for r in store.applied_migrations()] == [m.version for m in MIGRATIONS]
    finally:
        store.close()
    assert Store(db).migrations_applied == []


def test_a_later_migration_is_applied_once_whole_or_not_at_all(backend, monkeypatch):
    db = backend.database()
    Store(db).close()
    broken = Migration(LATEST + 1, "a table, then a mistake", (
        "CREATE TABLE leases (match_id TEXT PRIMARY KEY, holder TEXT NOT NULL)",
        "ALTER TABLE no_such_table ADD COLUMN x INTEGER",
    ))
    monkeypatch.setattr(base, "MIGRATIONS", MIGRATIONS + (broken,))
    monkeypatch.setattr(base, "LATEST", broken.version)
    with pytest.raises(StoreError, match="cannot migrate the database"):
        Store(db)
    assert backend.query(db, "SELECT MAX(version) FROM schema_version") == [(LATEST,)]
    # The failed migration's first statement was undone with it (DDL is transactional on both).
    store = Store(db, migrate=False)
    try:
        with pytest.raises(store.Error):
            store._execute("SELECT * FROM leases")
    finally:
        store.close()

    fixed = Migration(LATEST + 1, "match leases", (
        "CREATE TABLE leases (match_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION)",
        "ALTER TABLE matches ADD COLUMN holder TEXT NOT NULL DEFAULT ''",
    ))
    monkeypatch.setattr(base, "MIGRATIONS", MIGRATIONS + (fixed,))
    store = Store(db)
    try:
        assert store.migrations_applied == [fixed] and store.schema_version() == fixed.version
        store._execute("INSERT INTO leases(match_id, holder, expires_at) VALUES (?, ?, ?)", ("m1", "a", 1.5))
        assert store._execute("SELECT holder FROM matches").fetchall() == []
    finally:
        store.close()
    assert Store(db).migrations_applied == []


def test_a_database_migrated_by_a_newer_server_is_refused(backend):
    db = backend.database()
    Store(db).close()
    store = Store(db)
    store._execute("INSERT INTO schema_version(version, description, applied_at) VALUES (?, ?, ?)",
                   (LATEST + 5, "from the future", 0.0))
    store.close()
    with pytest.raises(SchemaTooNew, match=f"schema version {LATEST + 5}, newer than this server's {LATEST}"):
        Store(db)
    status = _cli("db", "status", "--db", db)
    assert status.returncode == 1 and "newer than this server" in status.stderr


def test_db_migrate_and_status_for_operators(backend):
    db = backend.database()
    status = _cli("db", "status", "--db", db)
    if backend.name == "sqlite":       # status changes nothing: no file, no new file
        assert status.returncode == 1 and f"error: no database {db}" in status.stderr and not Path(db).exists()
        sqlite3.connect(db).close()
        status = _cli("db", "status", "--db", db)
    assert status.returncode == 0 and f"({backend.name}): schema version 0" in status.stdout
    empty = Store(db, migrate=False)
    try:
        assert not empty._has_table("schema_version") and empty.applied_migrations() == []
    finally:
        empty.close()
    migrated = _cli("db", "migrate", "--db", db)
    assert migrated.returncode == 0, migrated.stderr
    assert f"applied 1: {MIGRATIONS[0].description}" in migrated.stdout
    assert f"schema version 0 -> {LATEST}" in migrated.stdout
    again = _cli("db", "migrate", "--db", db)
    assert again.returncode == 0 and f"schema version {LATEST}, up to date" in again.stdout
    status = _cli("db", "status", "--db", db)
    assert f"schema version {LATEST};" in status.stdout and "applied 1:" in status.stdout
    assert "pending" not in status.stdout


def test_an_unreachable_database_is_one_line_without_the_password(postgres_cluster):
    url = f"postgresql://arena:s3cret@127.0.0.1:{postgres_cluster.port}/no_such_database"
    with pytest.raises(StoreError) as refused:
        Store(url)
    assert "cannot open the database postgresql://arena:***@127.0.0.1" in str(refused.value)
    assert "s3cret" not in str(refused.value) and "no_such_database" in str(refused.value)
    out = _cli("db", "migrate", "--db", url)
    assert out.returncode == 1 and "s3cret" not in out.stderr and "Traceback" not in out.stderr


def test_stores_opening_a_new_database_at_once_migrate_it_once(backend):
    # Servers (and `db migrate`) starting together: the migration lock lets one apply each migration
    # and the others find it applied (on PostgreSQL an advisory lock, on SQLite BEGIN IMMEDIATE).
    from concurrent.futures import ThreadPoolExecutor

    db = backend.database()
    if backend.name == "sqlite":
        sqlite3.connect(db).close()         # the file, so that no opener races to create it

    def open_store(_):
        store = Store(db)
        try:
            return [m.version for m in store.migrations_applied]
        finally:
            store.close()

    with ThreadPoolExecutor(4) as pool:
        applied = list(pool.map(open_store, range(4)))
    assert sorted(v for versions in applied for v in versions) == [m.version for m in MIGRATIONS]
    assert backend.query(db, "SELECT COUNT(*) FROM schema_version") == [(len(MIGRATIONS),)]
