"""The lobby of several processes: every process's agent sessions in the `sessions` table, read by
schedulers once per pass, and seats claimed in the same transaction as their match.

A process writes its own sessions' rows (opened, attached, detached, abandoned, their games and
capacity) and tells the others that the lobby changed. A scheduling pass reads every row in one
query, with how many matches each session holds (counted from match_agents, the claims of every
process); a local session's games and ladder choice are read from the session itself, which is
newer than its row. Passes share one reading until the lobby changes here or elsewhere, a match
ends, or a second has passed, and for at least VIEW_MIN_AGE however much changes (under load
matches end many times a second on every process): a reading behind the table costs a failed
claim, or a pairing a few milliseconds late, at worst.

A claim (`claim`) locks the rows of every session of the match's agents without waiting (NOWAIT:
two processes claiming at once never wait for each other, the later one fails and pairs again at its
next pass), checks each session's room and the agents' caps, and writes the match with each seat's
session in the same transaction, so no session is ever given more matches than it asked for, by
any number of processes.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import psycopg
from psycopg.rows import dict_row

from ..lobby import Lobby
from ..service.agent import RemoteSeat
from ..store.base import MATCH_INSERT, SEAT_INSERT, MatchRecord, match_row, seat_rows

if TYPE_CHECKING:
    from ..referee import SeatEndpoint
    from ..service.agent import AgentSession

SESSION_COLUMNS = ("session_id, server_id, agent_name, games, capacity, join_ladder, match_events, images, probes, "
                   "alive, joined_at, waiting_since, last_match_started")
VIEW_MAX_AGE = 1.0       # seconds a reading of the table serves passes when nothing was heard to change
VIEW_MIN_AGE = 0.02      # seconds a reading serves passes whatever changed
HOLDINGS = ("SELECT ma.session_id, COUNT(DISTINCT ma.match_id) AS n FROM match_agents ma JOIN matches m USING (match_id) "
            "WHERE m.status IN ('pending', 'running') AND ma.session_id <> '' {where} GROUP BY ma.session_id")


@dataclass
class SessionRow:
    """A session as a scheduling pass sees it, on this process or another."""

    session_id: str
    server_id: str
    agent_name: str
    games: dict[str, str | None]
    capacity: int
    holding: int
    join_ladder: bool
    match_events: bool
    images: bool
    probes: bool
    alive: bool
    joined_at: float
    waiting_since: float
    last_match_started: float

    def free_slots(self) -> int:
        return self.capacity - self.holding


class SharedLobby(Lobby):
    """`connection` is this process's own (used on the event loop, never inside the store's batches);
    `standin(row)` gives the stand-in of a session of another process (cluster/relays.py);
    `changed_elsewhere()` tells the other processes that the lobby changed."""

    def __init__(self, connection: psycopg.Connection, server_id: str, *, max_matches_per_agent: int = 0,
                 standin: Callable[[SessionRow], "AgentSession"], changed_elsewhere: Callable[[], None]):
        super().__init__(max_matches_per_agent=max_matches_per_agent)
        self.connection = connection
        self.server_id = server_id
        self.standin = standin
        self.changed_elsewhere = changed_elsewhere
        self._published: dict[str, tuple] = {}     # session id -> the row as last written
        self._view: ClusterView | None = None
        self._view_at = 0.0
        self._stale = True
        self._recheck: asyncio.TimerHandle | None = None

    # ---- this process's sessions in the table --------------------------------------------------------
    def register(self, session: "AgentSession") -> None:
        super().register(session)
        self._publish(session)

    def add(self, session: "AgentSession") -> None:
        super().add(session)
        self._publish(session)

    def remove(self, session: "AgentSession") -> None:
        super().remove(session)
        self._publish(session)

    def forget(self, session: "AgentSession") -> None:
        super().forget(session)
        if self._published.pop(session.session_id, None) is not None:
            self.connection.execute("DELETE FROM sessions WHERE session_id = %s", (session.session_id,))
            self.changed_elsewhere()
            self.touch()

    def notify_change(self) -> None:
        super().notify_change()
        for session in list(self.local.values()):
            self._publish(session)
        self.touch()

    def touch(self) -> None:
        """The lobby changed (here or on another process, or a match ended): the next pass reads it again."""
        self._stale = True
        self.changed.set()

    def _publish(self, session: "AgentSession") -> None:
        """Writes the session's row if it changed since it was last written."""
        if session.session_id not in self.local:
            return
        state = (json.dumps(session.games, sort_keys=True), session.capacity, int(session.join_ladder),
                 int(session.match_events), int(session.images), int(session.probes),
                 int(session.alive and session.session_id in self.sessions))
        if self._published.get(session.session_id) == state:
            return
        now = time.time()
        self.connection.execute(
            f"INSERT INTO sessions({SESSION_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (session_id) DO UPDATE SET games = EXCLUDED.games, capacity = EXCLUDED.capacity, "
            "join_ladder = EXCLUDED.join_ladder, match_events = EXCLUDED.match_events, images = EXCLUDED.images, "
            "probes = EXCLUDED.probes, alive = EXCLUDED.alive",
            (session.session_id, self.server_id, session.agent_name, *state, now, session.waiting_since,
             session.last_match_started))
        self._published[session.session_id] = state
        self.changed_elsewhere()
        self.touch()

    # ---- what schedulers read --------------------------------------------------------------------
    def view(self) -> "ClusterView":
        for session in list(self.local.values()):
            self._publish(session)          # a browser's one-match ladder turn ends without a call here
        age = time.monotonic() - self._view_at
        young = self._view is not None and age <= VIEW_MAX_AGE and not (self._stale and age > VIEW_MIN_AGE)
        if young and self._stale and not self._recheck:
            try:    # changed since this reading: schedulers are woken to read again once it may be renewed
                self._recheck = asyncio.get_running_loop().call_later(VIEW_MIN_AGE - age, self._wake)
            except RuntimeError:     # off the event loop (tools, tests): read it now
                young = False
        if not young:
            self._view, self._view_at, self._stale = ClusterView(self, self.rows()), time.monotonic(), False
        return self._view

    def _wake(self) -> None:
        self._recheck = None
        self.changed.set()

    def rows(self, where: str = "alive = 1", args: tuple = ()) -> list[SessionRow]:
        """The sessions `where` says (over the table's columns), with the matches each holds, in one query."""
        found = self.connection.cursor(row_factory=dict_row).execute(
            f"SELECT s.*, COALESCE(h.n, 0) AS holding FROM (SELECT {SESSION_COLUMNS} FROM sessions WHERE {where}) s "
            f"LEFT JOIN ({HOLDINGS.format(where='')}) h USING (session_id)", args).fetchall()
        rows = []
        for r in found:
            row = SessionRow(r["session_id"], r["server_id"], r["agent_name"], json.loads(r["games"]), r["capacity"],
                             r["holding"], bool(r["join_ladder"]), bool(r["match_events"]),
                             bool(r["images"]), bool(r["probes"]), bool(r["alive"]), r["joined_at"],
                             r["waiting_since"], r["last_match_started"])
            local = self.local.get(row.session_id) if row.server_id == self.server_id else None
            if row.server_id == self.server_id:
                if local is None or not local.alive:
                    continue       # gone since its row was read
                row.games, row.join_ladder, row.waiting_since = local.games, local.join_ladder, local.waiting_since
            rows.append(row)
        return rows

    def connected_agents(self) -> set[str]:
        return {row.agent_name for row in self.rows()}

    def games_of(self, agent_name: str) -> set[str] | None:
        return ClusterView(self, self.rows("alive = 1 AND agent_name = %s", (agent_name,))).games_of(agent_name)

    # ---- claims ---------------------------------------------------------------------------------
    def claim(self, record: MatchRecord, sessions: dict[int, str]) -> bool:
        """Writes the match if every session in `sessions` (seat -> session id) is live and has room
        (and each agent is under the per-agent cap), in one transaction; False, writing nothing, if
        not or if another process is claiming one of them at this moment. Two round trips: the locks
        and the counts, then the writes and the commit (pipeline mode)."""
        ids = sorted(set(sessions.values()))
        agents = sorted({p["agent_name"] for p in record.players if p["seat"] in sessions})
        connection = self.connection
        cursors = [connection.cursor(row_factory=dict_row) for _ in range(3)]
        try:
            with connection.pipeline():
                connection.execute("BEGIN")
                cursors[0].execute("SELECT session_id, capacity, alive FROM sessions WHERE agent_name = ANY(%s) "
                                   "ORDER BY session_id FOR UPDATE NOWAIT", (agents,))
                cursors[1].execute(HOLDINGS.format(where="AND ma.agent_name = ANY(%s)"), (agents,))
                if self.max_matches_per_agent:
                    cursors[2].execute(
                        "SELECT COUNT(DISTINCT ma.match_id) AS n FROM match_agents ma JOIN matches m USING (match_id) "
                        "WHERE m.status IN ('pending', 'running') AND ma.agent_name = ANY(%s) "
                        "GROUP BY ma.agent_name", (agents,))
        except psycopg.errors.LockNotAvailable:
            connection.rollback()    # psycopg's: it also forgets the statements the failed pipeline skipped
            return False
        live = {r["session_id"]: r for r in cursors[0].fetchall() if r["alive"]}
        holding = {r["session_id"]: r["n"] for r in cursors[1].fetchall()}
        at_cap = self.max_matches_per_agent and any(r["n"] >= self.max_matches_per_agent
                                                    for r in cursors[2].fetchall())
        if at_cap or any(i not in live or holding.get(i, 0) >= live[i]["capacity"] for i in ids):
            connection.rollback()
            return False
        try:
            with connection.pipeline():
                connection.execute(MATCH_INSERT.replace("?", "%s"), match_row(record))
                connection.cursor().executemany(SEAT_INSERT.replace("?", "%s"), seat_rows(record, sessions))
                connection.execute("UPDATE sessions SET last_match_started = %s WHERE session_id = ANY(%s)",
                                   (time.time(), ids))
                connection.execute("COMMIT")
        except BaseException:
            connection.rollback()
            raise
        return True

    def bind_seat(self, match_id: str, seat: int, session_id: str) -> None:
        """The seat is held by another session now (its agent connected again, or a takeover)."""
        self.connection.execute("UPDATE match_agents SET session_id = %s WHERE match_id = %s AND seat = %s",
                                (session_id, match_id, seat))


class ClusterView:
    """One pass's reading of every process's sessions: what Lobby offers schedulers, over rows."""

    def __init__(self, lobby: SharedLobby, rows: list[SessionRow]):
        self.lobby = lobby
        self.rows = rows

    def offers(self) -> set[tuple[str, str | None]]:
        return {(g, p) for r in self.rows if r.alive and r.join_ladder for g, p in r.games.items()}

    def available(self, game_id: str, *, ladder_only: bool = False) -> list[SessionRow]:
        busy = self._agents_at_cap()
        found = [r for r in self.rows if r.alive and r.free_slots() > 0 and game_id in r.games
                 and (r.join_ladder or not ladder_only) and r.agent_name not in busy]
        return sorted(found, key=lambda r: (r.last_match_started, r.joined_at, r.session_id))

    def _agents_at_cap(self) -> set[str]:
        cap = self.lobby.max_matches_per_agent
        if not cap:
            return set()
        playing: dict[str, int] = {}
        for r in self.rows:
            playing[r.agent_name] = playing.get(r.agent_name, 0) + r.holding
        return {name for name, count in playing.items() if count >= cap}

    def session_for(self, agent_name: str, game_id: str) -> SessionRow | None:
        candidates = [r for r in self.available(game_id) if r.agent_name == agent_name]
        return max(candidates, key=lambda r: r.free_slots(), default=None)

    def games_of(self, agent_name: str) -> set[str] | None:
        live = [r for r in self.rows if r.alive and r.agent_name == agent_name]
        return {g for r in live for g in r.games} if live else None

    def is_local(self, row: SessionRow) -> bool:
        return row.server_id == self.lobby.server_id

    def seat(self, row: SessionRow) -> "SeatEndpoint":
        if self.is_local(row):
            return RemoteSeat(self.lobby.local[row.session_id])
        return RemoteSeat(self.lobby.standin(row))

    def claimed(self, rows: list[SessionRow]) -> None:
        now = time.time()
        for row in {r.session_id: r for r in rows}.values():
            row.holding += 1
            row.last_match_started = now
