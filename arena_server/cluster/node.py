"""One process of several on one PostgreSQL database: wires the lease (members.py), the bus (bus.py),
the shared lobby (lobby.py) and the relays (relays.py) into the server, and takes over the work of
processes that die.

What crosses processes, besides the relays' messages (all broadcasts but "cancel"):
    ["lobby"]                                   sessions came, went or changed, or seats were freed
    ["fresh", agent, session, events, images, probes]   an agent connected afresh: seats waiting for it go to it
    ["dead", [server id, ...]]                  processes taken over: stand-ins of their sessions wait for
                                                their agents to connect again
    ["cancel", tournament]                      to the process running it
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import psycopg
import structlog

from .. import metrics
from ..service.agent import RemoteSeat
from .bus import Bus
from .lobby import SessionRow, SharedLobby
from .members import Membership, Takeover
from .relays import Relays

if TYPE_CHECKING:
    from ..coordinator import Coordinator
    from ..service.agent import AgentService, AgentSession
    from ..service.arena import ArenaService
    from ..store import Store

log = structlog.get_logger("arena.cluster")

SCAN_INTERVAL = 1.0      # seconds between looks for dead processes


class ClusterNode:
    def __init__(self, url: str, server_id: str, store: "Store", *, lease_seconds: float = 10.0,
                 max_matches_per_agent: int = 0):
        self.server_id = server_id
        self.store = store
        self.connection = psycopg.connect(url, autocommit=True, application_name=f"arena-server {server_id}")
        self.members = Membership(url, server_id, lease_seconds)
        self.bus = Bus(url, server_id, self._on_message, commit_with=store.commit_with)
        self.lobby = SharedLobby(self.connection, server_id, max_matches_per_agent=max_matches_per_agent,
                                 standin=self._standin, changed_elsewhere=lambda: self.bus.broadcast(["lobby"]))
        self.relays = Relays(self.bus, server_id, store, self.lobby.local, self.lobby.bind_seat)
        self.agents: "AgentService | None" = None
        self.arena: "ArenaService | None" = None
        self.coordinator: "Coordinator | None" = None
        self._seat_sessions: dict[tuple[str, int], str] = {}

    def wire(self, coordinator: "Coordinator", agents: "AgentService", arena: "ArenaService") -> None:
        self.coordinator, self.agents, self.arena = coordinator, agents, arena
        coordinator.claim = self.lobby.claim
        coordinator.on_match_end.append(self._match_ended)
        agents.on_fresh = self._fresh
        arena.cancel_elsewhere = lambda tournament_id, runner: self.bus.send(runner, ["cancel", tournament_id])
        self.store.lease_check, self.store.on_lease_lost = self.members.lease_check, self.members.lease_lost

    def start(self, address: str) -> Takeover:
        """Joins the cluster and takes the work nobody holds (left by dead or stopped processes); the
        caller resumes it (`resume`) once it listens."""
        self.members.join(address)
        self.bus.start()
        return self.members.take_over(self.connection)

    def resume(self, took: Takeover) -> tuple[int, int, int]:
        """Resumes taken matches and tournaments from the store, then tells the other processes whose
        work it took; returns (resumed, voided, tournaments)."""
        records = [r for r in (self.store.get_match(m) for m in took.matches) if r is not None]
        if records:
            rows = self.connection.execute(
                "SELECT match_id, seat, session_id FROM match_agents WHERE match_id = ANY(%s)",
                ([r.match_id for r in records],)).fetchall()
            self._seat_sessions = {(m, seat): session for m, seat, session in rows}
        resumed, voided = self.coordinator.resume_interrupted_matches(self.takeover_seat, records)
        self._seat_sessions = {}
        tournaments = self.arena.resume_tournaments(took.tournaments) if took.tournaments else 0
        # After the resumptions: the dead processes' sessions elsewhere hear of the new referee before
        # they drop what it did not take (matches that had ended, seats now held by other sessions).
        if took.dead:
            self.bus.broadcast(["dead", took.dead])
            self._dead(set(took.dead))
        if took:
            metrics.CLUSTER_TAKEOVERS.labels("process").inc(len(took.dead))
            metrics.CLUSTER_TAKEOVERS.labels("match").inc(resumed)
            metrics.CLUSTER_TAKEOVERS.labels("tournament").inc(tournaments)
        return resumed, voided, tournaments

    async def run(self) -> None:
        """Looks for dead processes every SCAN_INTERVAL seconds and takes their work over."""
        while True:
            await asyncio.sleep(SCAN_INTERVAL)
            took = self.members.take_over(self.connection)
            if not took:
                continue
            resumed, voided, tournaments = self.resume(took)
            log.warning("took over the work of processes that stopped", servers=took.dead, matches=resumed,
                        unresumable_matches_voided=voided, tournaments=tournaments,
                        sessions_gone=len(took.sessions))
            self.lobby.touch()

    def stop(self) -> None:
        self.members.leave()
        self.bus.broadcast(["dead", [self.server_id]])
        self.bus.close()
        self.connection.close()

    # ---- seats ------------------------------------------------------------------------------------------
    def takeover_seat(self, record, seat: int):
        """The seat of a taken-over match: the session that held it if still connected (on any process),
        else another session of its agent, else a placeholder waiting for the agent."""
        name = record.players[seat]["agent_name"]
        recorded = self._seat_sessions.get((record.match_id, seat), "")
        rows = self.lobby.rows("alive = 1 AND agent_name = %s", (name,))
        row = next((r for r in rows if r.session_id == recorded), None) or max(
            (r for r in rows if record.game_id in r.games), key=SessionRow.free_slots, default=None)
        if row is None:
            return self.agents.awaiting_seat(record, seat)
        if row.server_id != self.server_id:
            return RemoteSeat(self._standin(row))       # its relay records the seat's session when it holds
        self.lobby.bind_seat(record.match_id, seat, row.session_id)
        return RemoteSeat(self.lobby.local[row.session_id])

    def _standin(self, row: SessionRow) -> "AgentSession":
        return self.relays.standin(row.server_id, row.session_id, row.agent_name, match_events=row.match_events,
                                   images=row.images, probes=row.probes)

    def _match_ended(self, runner) -> None:
        self.lobby.touch()
        self.bus.broadcast(["lobby"])

    def _fresh(self, session: "AgentSession", adopted: list["AgentSession"]) -> None:
        """A session opened here with a fresh Hello (after `adopted` placeholders of this process
        relayed to it): the other processes' placeholders of its agent go to it too."""
        for placeholder in adopted:
            for match_id, (_, seats) in placeholder.matches.items():
                for seat in seats:
                    self.lobby.bind_seat(match_id, seat, session.session_id)
        self.bus.broadcast(["fresh", session.agent_name, session.session_id, session.match_events, session.images,
                            session.probes])

    def _dead(self, dead: set[str]) -> None:
        for standin in self.relays.lost(dead):
            self.agents.wait_for_agent(standin)
        for session in list(self.lobby.local.values()):
            self.relays.drop_routes(session, dead)
        self.lobby.touch()

    # ---- messages ---------------------------------------------------------------------------------
    def _on_message(self, sender: str, message: list) -> None:
        metrics.CLUSTER_MESSAGES.labels("received").inc()
        if self.relays.handle(sender, message):
            return
        kind = message[0]
        if kind == "lobby":
            self.lobby.touch()
        elif kind == "fresh":
            _, agent, session_id, match_events, images, probes = message
            self.agents.adopt_awaiting(agent, lambda placeholder: self.relays.relay(placeholder, sender, session_id),
                                       match_events=match_events, images=images, probes=probes)
        elif kind == "dead":
            self._dead(set(message[1]) - {self.server_id})
        elif kind == "cancel":
            asyncio.ensure_future(self.arena.cancel_tournament(message[1]))
        else:
            log.warning("unknown cluster message", kind=kind, sender=sender)
