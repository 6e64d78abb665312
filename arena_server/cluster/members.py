"""This process's lease on its work, and the takeover of a dead process's work.

Each process has a row in `servers`. A thread of its own, on a connection of its own named
"arena-lease <server id>", refreshes the row's heartbeat (PostgreSQL's clock) every lease / 4
seconds, so a busy event loop never loses the lease; the process's matches (matches.referee) and
tournaments (tournaments.runner) are its own for as long as the row exists.

A process is dead when its heartbeat is older than the lease, or at once when its lease connection
is gone (PostgreSQL drops a killed process's connections as soon as their sockets close). Every
process looks for dead ones every second: in one transaction, under an advisory lock so that two
survivors never split one dead process's work, it deletes their rows and their sessions, and
takes their running matches and tournaments (and any left by a process that stopped) as its own.
It then resumes them from their logs, exactly as a restarted server resumes its own.

The fence: the referee's write-ahead batches commit only while the row exists. Each batch reads
the row FOR KEY SHARE before it commits, which a takeover's DELETE waits for: either the batch
commits first and the taker reads it from the log, or the row is gone and the process exits
(status 75) without committing. So a match is refereed by one process at a time, even when a
process that was thought dead (frozen, cut off from the database) wakes up. The same happens when
the heartbeat finds the row gone.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass, field

import psycopg
import structlog
from psycopg.rows import dict_row

from ..store.postgres import EXIT_STATUS_LOST_COMMIT

log = structlog.get_logger("arena.cluster")

TAKEOVER_LOCK = 0x4172656E61_03      # pg advisory lock keys: "Arena" and a number (postgres.py has 01, 02)
NOW = "EXTRACT(EPOCH FROM clock_timestamp())"
LEASE_APPLICATION = "arena-lease "


@dataclass
class Takeover:
    """What a takeover made this process's own."""

    dead: list[str] = field(default_factory=list)              # server ids
    matches: list[str] = field(default_factory=list)
    tournaments: list[str] = field(default_factory=list)
    sessions: list[dict] = field(default_factory=list)         # the dead processes' sessions (rows)

    def __bool__(self) -> bool:
        return bool(self.dead or self.matches or self.tournaments or self.sessions)


class Membership:
    def __init__(self, url: str, server_id: str, lease_seconds: float = 10.0):
        self.url = url
        self.server_id = server_id
        self.lease_seconds = lease_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lease = psycopg.connect(url, autocommit=True, application_name=LEASE_APPLICATION + server_id)

    def join(self, address: str) -> None:
        """Adds this process's row (through its lease connection, whose presence says it is alive) and
        starts the heartbeat."""
        self._lease.execute(
            f"INSERT INTO servers(server_id, address, host, pid, started_at, heartbeat_at) VALUES (%s, %s, %s, %s, {NOW}, {NOW})",
            (self.server_id, address, socket.gethostname(), os.getpid()))
        self._thread = threading.Thread(target=self._beat, name="arena-lease", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.lease_seconds / 4):
            try:
                updated = self._lease.execute(f"UPDATE servers SET heartbeat_at = {NOW} WHERE server_id = %s",
                                              (self.server_id,)).rowcount
            except psycopg.Error as e:
                lost(f"the lease connection failed: {' '.join(str(e).split())}")
            if not updated and not self._stop.is_set():
                lost("another process took this process's work over")

    def leave(self) -> None:
        """Gives the work up on a clean stop: the row and the sessions go, so another process takes the
        running matches and tournaments over at its next look."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if not self._lease.closed:
            try:
                self._lease.execute("DELETE FROM sessions WHERE server_id = %s", (self.server_id,))
                self._lease.execute("DELETE FROM servers WHERE server_id = %s", (self.server_id,))
            finally:
                self._lease.close()

    # ---- the fence --------------------------------------------------------------------------------
    @property
    def lease_check(self) -> tuple[str, tuple]:
        """The query a write-ahead batch sends before its commit: a row while the lease holds (see above)."""
        return "SELECT 1 AS held FROM servers WHERE server_id = %s FOR KEY SHARE", (self.server_id,)

    @staticmethod
    def lease_lost() -> None:
        lost("another process took this process's work over; its last writes are not committed")

    # ---- taking over ------------------------------------------------------------------------------
    def take_over(self, connection: psycopg.Connection) -> Takeover:
        """Takes the work of dead (and stopped) processes, in one transaction; returns what it took."""
        took = Takeover()
        cursor = connection.cursor(row_factory=dict_row)
        cursor.execute("BEGIN")
        try:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (TAKEOVER_LOCK,))
            cursor.execute(
                f"DELETE FROM servers s WHERE s.server_id <> %s AND (s.heartbeat_at < {NOW} - %s OR NOT EXISTS ("
                "SELECT 1 FROM pg_stat_activity a WHERE a.application_name = %s || s.server_id)) RETURNING server_id",
                (self.server_id, self.lease_seconds, LEASE_APPLICATION))
            took.dead = [r["server_id"] for r in cursor.fetchall()]
            cursor.execute("DELETE FROM sessions WHERE server_id NOT IN (SELECT server_id FROM servers) "
                           "RETURNING session_id, server_id, agent_name")
            took.sessions = cursor.fetchall()
            cursor.execute("UPDATE matches SET referee = %s WHERE status IN ('pending', 'running') "
                           "AND referee NOT IN (SELECT server_id FROM servers) RETURNING match_id", (self.server_id,))
            took.matches = [r["match_id"] for r in cursor.fetchall()]
            cursor.execute("UPDATE tournaments SET runner = %s WHERE status = 'running' "
                           "AND runner NOT IN (SELECT server_id FROM servers) RETURNING tournament_id",
                           (self.server_id,))
            took.tournaments = [r["tournament_id"] for r in cursor.fetchall()]
            cursor.execute("COMMIT")
        except BaseException:
            if connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                cursor.execute("ROLLBACK")
            raise
        return took


def live_servers(connection: psycopg.Connection) -> list[dict]:
    """The server processes sharing the database, oldest first: their address, host and pid, the age of
    their heartbeat in seconds, the matches they referee and the agent streams attached to them."""
    return connection.cursor(row_factory=dict_row).execute(
        f"SELECT s.server_id, s.address, s.host, s.pid, {NOW} - s.heartbeat_at AS heartbeat_age, "
        "(SELECT COUNT(*) FROM matches m WHERE m.referee = s.server_id AND m.status IN ('pending', 'running')) "
        "AS matches, (SELECT COUNT(*) FROM sessions x WHERE x.server_id = s.server_id AND x.alive = 1) AS sessions "
        "FROM servers s ORDER BY s.started_at").fetchall()


def lost(why: str) -> None:
    log.critical(f"{why}; exiting", exit_status=EXIT_STATUS_LOST_COMMIT)
    os._exit(EXIT_STATUS_LOST_COMMIT)
