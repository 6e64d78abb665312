"""The lobby: connected agent sessions, what they play and how much room they have.

Matchmaking and tournaments take seats from here; a session's capacity is its Hello's
max_concurrent_matches, and a seat is held from match start to match end. The server may also cap
the matches one agent plays at once over all its sessions (max_matches_per_agent).

Schedulers read the lobby through `view()`, once per pass: here the view is the lobby itself (every
session is in this process, and a match started takes its seats at once); with several processes
on one database it is a snapshot of every process's sessions (cluster/lobby.py), and `seat` gives
a session of another process a stand-in here.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .service.agent import RemoteSeat

if TYPE_CHECKING:
    from .referee import SeatEndpoint
    from .service.agent import AgentSession


@dataclass
class Lobby:
    sessions: dict[str, "AgentSession"] = field(default_factory=dict)   # attached, by session id
    # Every session of this process, attached or waiting to be resumed, by id.
    local: dict[str, "AgentSession"] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    _order: itertools.count = field(default_factory=itertools.count)
    max_matches_per_agent: int = 0      # 0: no cap beyond each session's own capacity

    def register(self, session: "AgentSession") -> None:
        """A session exists here (from its first stream until it is abandoned)."""
        self.local[session.session_id] = session

    def forget(self, session: "AgentSession") -> None:
        """The session was abandoned."""
        self.local.pop(session.session_id, None)

    def add(self, session: "AgentSession") -> None:
        session.joined_order = next(self._order)
        self.sessions[session.session_id] = session
        self.register(session)
        self.changed.set()

    def remove(self, session: "AgentSession") -> None:
        self.sessions.pop(session.session_id, None)
        self.changed.set()

    def notify_change(self) -> None:
        self.changed.set()

    # ---- what schedulers read ---------------------------------------------------------------------
    def view(self) -> "Lobby":
        """What a scheduling pass reads: here, the lobby itself."""
        return self

    def seat(self, session: "AgentSession") -> "SeatEndpoint":
        """The seat endpoint of a match held by `session` (one from `available` or `session_for`)."""
        return RemoteSeat(session)

    def is_local(self, session: "AgentSession") -> bool:
        return True

    def claimed(self, sessions: list["AgentSession"]) -> None:
        """A match started with these sessions (their seats are held already, here)."""

    def offers(self) -> set[tuple[str, str | None]]:
        """(game, preset) pairs offered on the ladder."""
        return {(g, p) for s in self.sessions.values() if s.alive and s.join_ladder for g, p in s.games.items()}

    def available(self, game_id: str, *, ladder_only: bool = False) -> list["AgentSession"]:
        """Live sessions that accept `game_id` and have a free slot, longest-waiting first."""
        busy = self._agents_at_cap()
        found = [
            s for s in self.sessions.values()
            if s.alive and s.free_slots() > 0 and game_id in s.games and (s.join_ladder or not ladder_only)
            and s.agent_name not in busy
        ]
        return sorted(found, key=lambda s: (s.last_match_started, s.joined_order))

    def _agents_at_cap(self) -> set[str]:
        if not self.max_matches_per_agent:
            return set()
        playing: dict[str, int] = {}
        for s in self.sessions.values():
            playing[s.agent_name] = playing.get(s.agent_name, 0) + len(s.matches)
        return {name for name, count in playing.items() if count >= self.max_matches_per_agent}

    def session_for(self, agent_name: str, game_id: str) -> "AgentSession | None":
        """The connected session of `agent_name` with the most room for `game_id`, if any."""
        candidates = [s for s in self.available(game_id) if s.agent_name == agent_name]
        return max(candidates, key=lambda s: s.free_slots(), default=None)

    def connected_agents(self) -> set[str]:
        return {s.agent_name for s in self.sessions.values() if s.alive}

    def games_of(self, agent_name: str) -> set[str] | None:
        """The games `agent_name` is connected for over its live sessions; None when not connected."""
        live = [s for s in self.sessions.values() if s.alive and s.agent_name == agent_name]
        return {g for s in live for g in s.games} if live else None
