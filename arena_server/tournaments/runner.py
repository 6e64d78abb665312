"""Plays a tournament's schedule: starts each match as soon as its agents have a free slot,
and replays void matches (void-and-replay policy) up to the replay cap. Where the schedule stands
is read from the store, so a runner started after a server restart carries on where the last one
stopped."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any

import structlog

import arena_engines

from ..coordinator import Coordinator
from ..house import HOUSE_AGENTS, HouseSeat
from ..lobby import Lobby
from ..referee import MatchRunner, Rules
from ..referee.match import FAILURE_POLICIES
from ..service.agent import RemoteSeat
from ..store import Store
from .schedules import SCHEDULES

log = structlog.get_logger("arena.tournaments")


@dataclass
class TournamentConfig:
    name: str
    game_id: str
    agents: list[str]
    parameters: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    games_per_pairing: int = 1
    players_per_match: int = 0          # 0: the game's minimum
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    format: str = "round_robin"         # a key of SCHEDULES
    suite: str = ""                     # the suite that created the tournament, if any

    def seatings(self) -> list[list[str]]:
        return SCHEDULES[self.format](self.agents, self.players_per_match, self.games_per_pairing)

    def validate(self) -> "TournamentConfig":
        """Resolves defaults and checks the game, parameters and schedule; raises ValueError/KeyError."""
        spec = arena_engines.game_spec(self.game_id)
        self.parameters = spec.resolve(self.preset, self.parameters)
        self.preset = None   # folded into parameters
        if not self.players_per_match:
            self.players_per_match = spec.min_players
        if not spec.min_players <= self.players_per_match <= spec.max_players:
            raise ValueError(f"{self.game_id} takes {spec.min_players}-{spec.max_players} players per match")
        if self.games_per_pairing < 1:
            raise ValueError("games_per_pairing must be at least 1")
        if self.rules.on_failure not in FAILURE_POLICIES:
            raise ValueError(f"unknown failure action {self.rules.on_failure!r}")
        if self.format not in SCHEDULES:
            raise ValueError(f"unknown tournament format {self.format!r} (known: {', '.join(SCHEDULES)})")
        self.seatings()
        if not self.seed:
            self.seed = secrets.randbits(62)
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TournamentConfig":
        data = dict(data)
        data["rules"] = Rules(**data["rules"])
        return cls(**data)


class TournamentRunner:
    def __init__(self, tournament_id: str, config: TournamentConfig, store: Store, lobby: Lobby,
                 coordinator: Coordinator):
        self.tournament_id = tournament_id
        self.config = config
        self.store = store
        self.lobby = lobby
        self.coordinator = coordinator
        self.log = log.bind(tournament_id=tournament_id)

    async def run(self) -> None:
        config = self.config
        seatings = config.seatings()
        try:
            queue, in_flight, replays = self._progress(seatings)
            self.log.info("tournament started", matches=len(seatings), game_id=config.game_id, to_start=len(queue),
                          running=len(in_flight))
            while queue or in_flight:
                still_queued = []
                for index, seating in queue:
                    runner = self._try_start(index, seating, replays.get(frozenset(seating), 0))
                    if runner is None:
                        still_queued.append((index, seating))
                    else:
                        in_flight[runner.finished] = (index, runner)
                queue = still_queued
                if not in_flight:
                    await asyncio.sleep(0.1)   # waiting for agents to connect or free a slot
                    continue
                done, _ = await asyncio.wait(list(in_flight), timeout=0.1, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    index, runner = in_flight.pop(future)
                    if self._takes_replay(seatings[index], future.result()["reason"], replays):
                        queue.append((index, seatings[index]))
            self.store.set_tournament_status(self.tournament_id, "finished")
            self.log.info("tournament finished", counts=self.store.tournament_counts(self.tournament_id))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.log.exception("tournament failed")
            self.store.set_tournament_status(self.tournament_id, "failed", str(e))

    def _progress(self, seatings: list[list[str]]):
        """(slots to start, matches in flight, replays used per pairing) as the store records them.
        Slots with the same seating are interchangeable, so each recorded match takes the first open
        slot of its seating: a finished one closes it, a running one is followed to its end, a void
        one closes it unless it was replayed. A new tournament has no matches: every slot is open."""
        open_slots: dict[tuple[str, ...], list[int]] = {}
        for index, seating in enumerate(seatings):
            open_slots.setdefault(tuple(seating), []).append(index)
        replays: dict[frozenset[str], int] = {}
        in_flight: dict[asyncio.Future, tuple[int, MatchRunner]] = {}
        recorded = self.store.list_matches(tournament_id=self.tournament_id, limit=1_000_000)
        # Ended matches in the order they ended (the order the replay cap saw them), then running ones.
        for match in sorted(recorded, key=lambda m: (m.ended_at is None, m.ended_at or 0.0, m.created_at)):
            slots = open_slots.get(tuple(match.agent_names))
            if not slots:
                self.log.warning("a recorded match fits no open slot of the schedule", match_id=match.match_id)
            elif match.status == "finished":
                slots.pop(0)
            elif match.status == "void":
                if not self._takes_replay(match.agent_names, match.result["reason"], replays):
                    slots.pop(0)
            elif (runner := self.coordinator.running.get(match.match_id)) is not None:
                in_flight[runner.finished] = (slots.pop(0), runner)
            else:
                self.log.warning("a recorded match is neither ended nor running; its slot is played again",
                                 match_id=match.match_id)
        queue = sorted((index, seatings[index]) for slots in open_slots.values() for index in slots)
        return queue, in_flight, replays

    def _takes_replay(self, seating: list[str], reason: str, replays: dict[frozenset[str], int]) -> bool:
        """Whether a match that ended for `reason` is replayed, counting the replay if so. The cap is
        per pairing (the group of agents, whatever the seats), as in GTBench: at most max_replays void
        matches are replaced before the pairing stops replaying."""
        rules = self.config.rules
        pairing = frozenset(seating)
        if rules.on_failure != "void_and_replay" or reason != "voided" or replays.get(pairing, 0) >= rules.max_replays:
            return False
        replays[pairing] = replays.get(pairing, 0) + 1
        return True

    def _try_start(self, index: int, seating: list[str], replay: int) -> MatchRunner | None:
        seed = (self.config.seed + index * 1_000_003 + replay * 7_919) % (1 << 63)
        seats = []
        for seat, name in enumerate(seating):
            if name in HOUSE_AGENTS:
                seats.append(HouseSeat(name, seed + seat))
                continue
            session = self.lobby.session_for(name, self.config.game_id)
            if session is None:
                return None
            seats.append(RemoteSeat(session))
        return self.coordinator.start_match(
            self.config.game_id, self.config.parameters, seats, rules=self.config.rules,
            tournament_id=self.tournament_id, seed=seed,
        )
