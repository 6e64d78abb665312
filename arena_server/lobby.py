"""The lobby: connected agent sessions, what they play and how much room they have.

Matchmaking and tournaments take seats from here; a session's capacity is its Hello's
max_concurrent_matches, and a seat is held from match start to match end.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .service.agent import AgentSession


@dataclass
class Lobby:
    sessions: dict[str, "AgentSession"] = field(default_factory=dict)   # by session id
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    _order: itertools.count = field(default_factory=itertools.count)

    def add(self, session: "AgentSession") -> None:
        session.joined_order = next(self._order)
        self.sessions[session.session_id] = session
        self.changed.set()

    def remove(self, session: "AgentSession") -> None:
        self.sessions.pop(session.session_id, None)
        self.changed.set()

    def notify_change(self) -> None:
        self.changed.set()

    def available(self, game_id: str, *, ladder_only: bool = False) -> list["AgentSession"]:
        """Live sessions that accept `game_id` and have a free slot, longest-waiting first."""
        found = [
            s for s in self.sessions.values()
            if s.alive and s.free_slots() > 0 and game_id in s.games and (s.join_ladder or not ladder_only)
        ]
        return sorted(found, key=lambda s: (s.last_match_started, s.joined_order))

    def session_for(self, agent_name: str, game_id: str) -> "AgentSession | None":
        """The connected session of `agent_name` with the most room for `game_id`, if any."""
        candidates = [s for s in self.available(game_id) if s.agent_name == agent_name]
        return max(candidates, key=lambda s: s.free_slots(), default=None)

    def connected_agents(self) -> set[str]:
        return {s.agent_name for s in self.sessions.values() if s.alive}
