"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory,
pg_ctl start on a free loopback port with its unix socket in that directory, a fresh database per
test (CREATE DATABASE copies template1 in milliseconds), pg_ctl stop and the directory removed at
the end.

It uses Debian's `postgresql` package (scripts/test-tools.sh installs it): the binaries under
/usr/lib/postgresql/<version>/bin. initdb refuses to run as root, so as root the cluster belongs to
the `postgres` user the package creates (commands run through `runuser -u postgres --`); otherwise
to the current user. Clients connect as the cluster's superuser `arena` over the unix socket, with
no password (trust authentication, the socket directory is private to this run).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin directory, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayCluster:
    def __init__(self, *, fsync: bool = False, settings: dict[str, str] | None = None):
        """`fsync=False` (tests) skips flushing to disk: a killed server process still loses nothing
        committed (PostgreSQL's own process keeps it), only a machine crash would. Benchmarks pass
        fsync=True to measure what production pays."""
        self.bin = postgres_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (scripts/test-tools.sh installs Debian's postgresql)")
        self.fsync = fsync
        self.settings = settings or {}
        self.dir: Path | None = None
        self.port = 0
        self._names = itertools.count(1)
        self._prefix: list[str] = []

    def _run(self, *command: str) -> None:
        out = subprocess.run([*self._prefix, *command], capture_output=True, text=True, cwd=self.dir)
        if out.returncode != 0:
            log = (self.dir / "postgres.log") if self.dir else None
            tail = log.read_text()[-2000:] if log and log.is_file() else ""
            raise RuntimeError(f"{' '.join(command[:2])} failed ({out.returncode}): {out.stderr or out.stdout}\n{tail}")

    def start(self) -> "ThrowawayCluster":
        self.dir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._prefix = ["runuser", "-u", "postgres", "--"]
        data = self.dir / "data"
        self._run(str(self.bin / "initdb"), "-D", str(data), "-U", "arena", "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        options = {"listen_addresses": "127.0.0.1", "unix_socket_directories": str(self.dir),
                   "fsync": "on" if self.fsync else "off", "max_connections": "200", **self.settings}
        with open(data / "postgresql.conf", "a") as conf:
            conf.writelines(f"{k} = '{v}'\n" for k, v in options.items())
        for attempt in range(5):            # another process may take the free port first
            self.port = free_port()
            try:
                self._run(str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.dir / "postgres.log"), "-w",
                          "-t", "60", "-o", f"-p {self.port}", "start")
                return self
            except RuntimeError:
                if attempt == 4:
                    self.stop()
                    raise
        return self

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for `database` over the cluster's unix socket."""
        return f"postgresql://arena@/{database}?host={quote(str(self.dir), safe='')}&port={self.port}"

    def tcp_url(self, database: str = "postgres") -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "test") -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        # From PostgreSQL 15 the default strategy writes the whole template to the WAL; copying its
        # files is faster for a small database (two to three times here, fsync off).
        strategy = " STRATEGY FILE_COPY" if int(self.bin.parts[-2]) >= 15 else ""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{strategy}')
        return self.url(name)

    def stop(self) -> None:
        if self.dir is None:
            return
        if (self.dir / "data" / "postmaster.pid").exists():
            try:
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
            except RuntimeError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
