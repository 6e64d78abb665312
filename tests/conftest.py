"""Shared fixtures: a real `arena-server serve` process on loopback with its own database (a SQLite
file, or a fresh PostgreSQL database), and the store back ends to parametrise over: `backend` runs a
test once on SQLite and once on PostgreSQL (a throwaway cluster started once per session)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import grpc
import pytest

ROOT = Path(__file__).resolve().parents[1]


# ---- store back ends --------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def postgres_cluster():
    """A PostgreSQL cluster for the whole session (tests/pgcluster.py). Without PostgreSQL installed
    the PostgreSQL variants are skipped, except on CI, where scripts/test-tools.sh installs it."""
    from .pgcluster import ThrowawayCluster, postgres_bin

    if postgres_bin() is None and not os.environ.get("CI"):
        pytest.skip("PostgreSQL is not installed (scripts/test-tools.sh installs Debian's postgresql)")
    cluster = ThrowawayCluster().start()
    yield cluster
    cluster.stop()


@dataclass
class Backend:
    """One store back end: `database(name)` names a new, empty database of it."""

    name: str
    database: Callable[[str], str]

    def query(self, database: str, sql: str, args: tuple = ()) -> list[tuple]:
        """Rows of `sql` (`?` placeholders) read over a connection of its own, as another process
        would read them: only what is committed."""
        if self.name == "sqlite":
            import sqlite3

            with sqlite3.connect(database) as other:
                return [tuple(r) for r in other.execute(sql, args).fetchall()]
        import psycopg

        with psycopg.connect(database, autocommit=True) as other:
            return [tuple(r) for r in other.execute(sql.replace("?", "%s"), args or None).fetchall()]


def _backend(request, directory: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", lambda name="arena": str(directory / f"{name}.db"))
    cluster = request.getfixturevalue("postgres_cluster")
    return Backend("postgres", lambda name="arena": cluster.create_database(name))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Backend:
    return _backend(request, tmp_path)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_backend(request, tmp_path_factory) -> Backend:
    """`backend` for a module's shared fixtures (a server started once per module and back end)."""
    return _backend(request, tmp_path_factory.mktemp("backend"))


@dataclass
class RunningServer:
    address: str
    db: Path | str          # the SQLite file, or the PostgreSQL URL
    admin_key: str
    process: subprocess.Popen
    log_path: Path
    extra: tuple[str, ...] = ()
    home: Path | None = None    # the directory it runs in

    def metadata(self, key: str | None = None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {key or self.admin_key}")]

    def create_key(self, agent: str, scopes: str = "play") -> str:
        out = subprocess.run(
            [sys.executable, "-m", "arena_server.cli", "keys", "create", "--db", str(self.db), "--agent", agent,
             "--scopes", scopes], check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def arena_stub(self):
        from arena.v1 import arena_service_pb2_grpc

        return arena_service_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(self.address))

    def store(self):
        """A read-side view of the server's database (SQLite WAL allows a second process; PostgreSQL
        any number of connections). It never migrates: the server did."""
        from arena_server.store import Store

        return Store(self.db, migrate=False)

    def kill(self) -> None:
        """Ends the server with SIGKILL, as a crash would: no shutdown code runs."""
        self.process.kill()
        self.process.wait()

    def restart(self) -> None:
        """Starts the stopped or killed server again, on the same database file and port."""
        port = self.address.rsplit(":", 1)[1]
        again = start_server(self.home, *self.extra, "--port", port, database=str(self.db), admin_key=self.admin_key)
        self.process, self.address = again.process, again.address

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(tmp: Path, *extra: str, database: str | None = None, admin_key: str | None = None) -> RunningServer:
    """`arena-server serve` in `tmp`, on `database` (default: tmp/arena.db). `admin_key`: the database's,
    for a server joining others on a PostgreSQL database (the first one wrote it in its directory)."""
    from arena_server.server import admin_key_path
    from arena_server.store import is_postgres_url

    db = database if is_postgres_url(database) else Path(database or tmp / "arena.db")
    log_path = tmp / "server.log"
    log_file = open(log_path, "a")   # a restarted server adds to its log
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_server.cli", "serve", "--db", str(db), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=log_file, text=True, cwd=tmp,
    )
    deadline = time.monotonic() + 30
    address = None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        match = re.search(r"listening on (\S+):(\d+)", line)
        if match:
            address = f"127.0.0.1:{match.group(2)}"
            break
    if address is None:
        process.kill()
        raise RuntimeError("server did not start:\n" + log_path.read_text())
    key_file = tmp / admin_key_path(str(db))     # beside the file; in its directory for a URL
    key = admin_key or key_file.read_text().strip()
    return RunningServer(address, db, key, process, log_path, extra, tmp)


@pytest.fixture
def server_factory(tmp_path_factory):
    """make(*serve_options, database=None): a server on a new SQLite file, or on `database` (a URL
    from the `backend` fixture, for tests that run on both back ends)."""
    servers = []

    def make(*extra: str, database: str | None = None, admin_key: str | None = None) -> RunningServer:
        s = start_server(tmp_path_factory.mktemp("server"), *extra, database=database, admin_key=admin_key)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def server(server_factory) -> RunningServer:
    return server_factory("--per-decision", "5", "--house-delay", "0.2")


def agent_process(server: RunningServer, name: str, *args: str) -> subprocess.Popen:
    """`arena-agent` as a separate process, as a team would run it."""
    key = server.create_key(name)
    env = dict(os.environ, ARENA_API_KEY=key)
    return subprocess.Popen(
        [sys.executable, "-m", "arena_client.cli", *args[:1], "--server", server.address, "--name", name, *args[1:]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
