"""The ladder: pairs connected agents that joined it, per game, and fills empty seats with house
agents when an agent has waited long enough alone."""

from __future__ import annotations

import asyncio
import random
import time

import structlog

import arena_engines

from .coordinator import Coordinator
from .house import HouseSeat
from .lobby import Lobby

log = structlog.get_logger("arena.matchmaking")


class Matchmaker:
    def __init__(self, lobby: Lobby, coordinator: Coordinator, *, house_agent: str = "random",
                 house_delay: float = 1.0, seed: int | None = None):
        self.lobby = lobby
        self.coordinator = coordinator
        self.house_agent = house_agent
        self.house_delay = house_delay
        self._rng = random.Random(seed)
        self._sides: dict[tuple[str, str | None], list[int]] = {}     # (game, preset) -> side of each seat

    async def run(self) -> None:
        # Pair when sessions come or go and when a match ends (its seats are free again), and at
        # least every house_delay / 2, so that a lone agent gets house opponents in time.
        wakeups = (self.lobby.changed, self.coordinator.match_ended)
        while True:
            waits = [asyncio.ensure_future(event.wait()) for event in wakeups]
            try:
                await asyncio.wait(waits, timeout=max(self.house_delay / 2, 0.05),
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()
            for event in wakeups:
                event.clear()
            self.pair_all()

    def pair_all(self) -> int:
        view = self.lobby.view()
        started = 0
        offers = sorted(view.offers(), key=lambda o: (o[0], o[1] or ""))
        # A fresh order each pass, so an agent offering several games is not always given the first.
        self._rng.shuffle(offers)
        for game_id, preset in offers:
            while self._pair_one(view, game_id, preset):
                started += 1
        return started

    def _pair_one(self, view, game_id: str, preset: str | None) -> bool:
        candidates = [s for s in view.available(game_id, ladder_only=True) if s.games[game_id] == preset]
        # With several processes, each pairs the game when the longest-waiting agent is its own; the
        # process of that agent referees the match (fewer pairing races, the same order as one process).
        if not candidates or not view.is_local(candidates[0]):
            return False
        sides = self._sides.get((game_id, preset))
        if sides is None:
            spec = arena_engines.game_spec(game_id)
            players = spec.resolve(preset).get("players", spec.min_players)
            sides = self._sides[(game_id, preset)] = arena_engines.load_game(
                game_id, preset=preset, num_players=players).seat_sides()
        sides_needed = len(set(sides))
        group, names = [], set()
        for session in candidates:
            if session.agent_name not in names:
                group.append(session)
                names.add(session.agent_name)
            if len(group) == sides_needed:
                break
        if len(group) < sides_needed and time.time() - group[0].waiting_since < self.house_delay:
            return False
        holders: list = group + [None] * (sides_needed - len(group))    # None: a house agent
        self._rng.shuffle(holders)
        seed = self._rng.getrandbits(63)
        # One agent holds every seat of its side (team games); each seat has its own endpoint.
        seats = [view.seat(holders[side]) if holders[side] is not None else HouseSeat(self.house_agent, seed + seat)
                 for seat, side in enumerate(sides)]
        teams = sides if sides != list(range(len(sides))) else None
        if self.coordinator.start_match(game_id, None, seats, preset=preset, seed=seed, teams=teams) is None:
            return False      # a session lost its room to another process's match: the next pass pairs again
        view.claimed(group)
        return True
