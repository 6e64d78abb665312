"""Shared fixtures: a real `arena-server serve` process on loopback with its own SQLite file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class RunningServer:
    address: str
    db: Path
    admin_key: str
    process: subprocess.Popen
    log_path: Path
    extra: tuple[str, ...] = ()

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
        """A read-side view of the server's database (SQLite WAL allows a second process)."""
        from arena_server.store import Store

        return Store(self.db)

    def kill(self) -> None:
        """Ends the server with SIGKILL, as a crash would: no shutdown code runs."""
        self.process.kill()
        self.process.wait()

    def restart(self) -> None:
        """Starts the stopped or killed server again, on the same database file and port."""
        port = self.address.rsplit(":", 1)[1]
        again = start_server(self.db.parent, *self.extra, "--port", port)
        self.process, self.address = again.process, again.address

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(tmp: Path, *extra: str) -> RunningServer:
    db = tmp / "arena.db"
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
    key_file = db.with_name(db.name + ".admin-key")
    return RunningServer(address, db, key_file.read_text().strip(), process, log_path, extra)


@pytest.fixture
def server_factory(tmp_path_factory):
    servers = []

    def make(*extra: str) -> RunningServer:
        s = start_server(tmp_path_factory.mktemp("server"), *extra)
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
