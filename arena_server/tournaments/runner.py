"""Plays a tournament's schedule: starts each match as soon as its agents have a free slot,
and replays void matches (void-and-replay policy) up to the replay cap. Where the schedule stands
is read from the store, so a runner started after a server restart carries on where the last one
stopped.

A seat it cannot fill is never waited on silently: an agent that is not connected for the game
(not connected at all, or connected for other games only) is reported at once in the log and in
`waiting` (which GetTournament shows), again every minute, and after the tournament's
`absent_timeout` the `on_absent` rule applies: "fail" ends the tournament (status failed, the error
naming the agent), "failure_policy" plays the agent's matches without it, its seats left to the
matches' failure policy (random legal moves, forfeit or void). An agent that is connected for the
game but busy in other matches is not absent: its matches start when it has room."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import structlog

import arena_engines

from ..coordinator import Coordinator
from ..house import HOUSE_AGENTS, HouseSeat
from ..lobby import Lobby
from ..referee import MatchRunner, Rules, SeatEndpoint
from ..referee.match import FAILURE_POLICIES
from ..store import Store
from .schedules import SCHEDULES

log = structlog.get_logger("arena.tournaments")

ABSENT_RULES = ("fail", "failure_policy")
DEFAULT_ABSENT_TIMEOUT = 300.0     # seconds a tournament waits for an agent that is not connected
REPORT_EVERY = 60.0                # seconds between log lines about the same absent agent


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
    absent_timeout: float = DEFAULT_ABSENT_TIMEOUT   # seconds before on_absent applies to a missing agent
    on_absent: str = "fail"             # one of ABSENT_RULES
    seat_sides: list[int] | None = None  # team games: the side of each seat (set by validate)
    # "sampled" format: {"batch", "threshold", "max_matches"}: after the planned matches, `batch` more
    # until the first agent's TrueSkill μ moved less than `threshold` over the last batch (LLMArena).
    convergence: dict[str, float] | None = None
    matches_planned: int = 0            # "sampled": matches planned so far (games_per_pairing at first)
    challenger_seat_parameter: str = ""  # a game parameter set to the first agent's seat in each match
    # "listed" format: the matches one by one, each {"seats": [index into agents, per seat],
    # "parameters": {overrides for that match}} (MAgIC: a setting and the challenger's seat per match).
    listed: list[dict[str, Any]] | None = None

    def seatings(self) -> list[list[str]]:
        """The agent in each seat of each match. In team games the schedule places one agent per side,
        and each holds every seat of its side."""
        if self.format == "listed":
            return [[self.agents[i] for i in match["seats"]] for match in self.listed or ()]
        places = len(set(self.seat_sides)) if self.seat_sides else self.players_per_match
        if self.format == "sampled":
            groups = SCHEDULES["sampled"](self.agents, places, self.matches_planned or self.games_per_pairing, self.seed)
        else:
            groups = SCHEDULES[self.format](self.agents, places, self.games_per_pairing)
        if not self.seat_sides:
            return groups
        return [[group[side] for side in self.seat_sides] for group in groups]

    def validate(self) -> "TournamentConfig":
        """Resolves defaults and checks the game, parameters and schedule; raises ValueError/KeyError."""
        spec = arena_engines.game_spec(self.game_id)
        self.parameters = spec.resolve(self.preset, self.parameters)
        self.preset = None   # folded into parameters
        if not self.players_per_match:
            self.players_per_match = spec.min_players
        if not spec.min_players <= self.players_per_match <= spec.max_players:
            raise ValueError(f"{self.game_id} takes {spec.min_players}-{spec.max_players} players per match")
        # Engines check parameter values when they build a game: build one now, so a bad value is
        # refused here rather than failing the tournament at its first match.
        sides = arena_engines.load_game(self.game_id, self.parameters, num_players=self.players_per_match).seat_sides()
        self.seat_sides = sides if sides != list(range(self.players_per_match)) else None
        if self.games_per_pairing < 1:
            raise ValueError("games_per_pairing must be at least 1")
        if self.rules.on_failure not in FAILURE_POLICIES:
            raise ValueError(f"unknown failure action {self.rules.on_failure!r}")
        if self.format == "listed":
            if not self.listed or any(not 0 <= i < len(self.agents) for m in self.listed for i in m["seats"]):
                raise ValueError("a listed tournament names its matches, each seat an index into its agents")
            for match in self.listed:
                spec.resolve(None, {**self.parameters, **match.get("parameters", {})})   # names checked
        elif self.format not in SCHEDULES:
            raise ValueError(f"unknown tournament format {self.format!r} (known: {', '.join(SCHEDULES)}, listed)")
        if self.on_absent not in ABSENT_RULES:
            raise ValueError(f"unknown rule for absent agents {self.on_absent!r} (known: {', '.join(ABSENT_RULES)})")
        if self.absent_timeout <= 0:
            raise ValueError("the wait for absent agents must be positive")
        cannot = [a for a in self.agents if a in HOUSE_AGENTS and not HOUSE_AGENTS[a][1](0).plays(self.game_id)]
        if cannot:
            raise ValueError(f"house agent{'s' if len(cannot) > 1 else ''} {', '.join(cannot)} cannot play "
                             f"{self.game_id}")
        if self.convergence is not None and (self.format != "sampled" or self.convergence.get("batch", 0) < 1):
            raise ValueError("a convergence rule needs the sampled format and a batch of at least one match")
        if not self.seed:
            self.seed = secrets.randbits(62)
        self.seatings()
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TournamentConfig":
        data = dict(data)
        data["rules"] = Rules(**data["rules"])
        return cls(**data)


@dataclass
class Waiting:
    """An agent the tournament cannot seat because it is not connected for the game."""

    agent_name: str
    connected: bool                     # connected at all (for other games)
    games: list[str]                    # the games it is connected for
    since: float                        # wall-clock time the wait began
    started: float = field(default_factory=time.monotonic)
    reported: float = field(default_factory=time.monotonic)

    def describe(self, game_id: str) -> str:
        if not self.connected:
            return f"{self.agent_name} is not connected"
        return f"{self.agent_name} is connected for {', '.join(self.games) or 'no game'} but not for {game_id}"


class AbsentSeat(SeatEndpoint):
    """The seat of an agent the tournament stopped waiting for: it never answers, so the match's
    failure policy decides every one of its moves (or ends the match)."""

    def __init__(self, agent_name: str):
        self.agent_name = agent_name

    def notify(self, message) -> None:
        pass

    async def ask(self, request, timeout: float):
        return None

    def connected(self) -> bool:
        return False


class TournamentRunner:
    def __init__(self, tournament_id: str, config: TournamentConfig, store: Store, lobby: Lobby,
                 coordinator: Coordinator):
        self.tournament_id = tournament_id
        self.config = config
        self.store = store
        self.lobby = lobby
        self.coordinator = coordinator
        self.log = log.bind(tournament_id=tournament_id)
        self.waiting: dict[str, Waiting] = {}
        self.given_up: set[str] = set()     # absent agents whose seats the failure policy takes
        self.in_flight: dict[asyncio.Future, tuple[int, MatchRunner | None]] = {}
        self._stored_waiting: list[dict[str, Any]] = []

    async def run(self) -> None:
        try:
            while await self._play(self.config.seatings()):
                if not self._extend():
                    self.store.set_tournament_status(self.tournament_id, "finished")
                    self.log.info("tournament finished", counts=self.store.tournament_counts(self.tournament_id))
                    return
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.log.exception("tournament failed")
            self.store.set_tournament_status(self.tournament_id, "failed", str(e))

    def _extend(self) -> bool:
        """Plans another batch of a sampled tournament whose first agent's TrueSkill μ has not settled
        (and that is under its cap); the plan is stored, so a restarted runner keeps it."""
        rule, config = self.config.convergence, self.config
        if not rule:
            return False
        planned = len(config.seatings())
        if planned >= rule["max_matches"]:
            self.log.info("tournament reached its match cap before converging", matches=planned)
            return False
        change = self._last_batch_change(int(rule["batch"]))
        if change is not None and change < rule["threshold"]:
            self.log.info("TrueSkill converged", matches=planned, last_batch_change=round(change, 4))
            return False
        config.matches_planned = min(planned + int(rule["batch"]), int(rule["max_matches"]))
        self.store.set_tournament_config(self.tournament_id, config.to_dict())
        self.log.info("TrueSkill not yet converged; another batch", matches=config.matches_planned,
                      last_batch_change=None if change is None else round(change, 4))
        return True

    def _last_batch_change(self, batch: int) -> float | None:
        """|Δμ| of the first agent over the last `batch` finished matches (LLMArena's TrueSkill)."""
        from ..ratings.trueskill_board import TRUESKILL_PRESETS, TrueSkillBoard

        matches = list(self.store.finished_matches(tournament_id=self.tournament_id))
        if len(matches) <= batch:
            return None
        board = TrueSkillBoard(TRUESKILL_PRESETS["llmarena"])
        agent, before = self.config.agents[0], None
        for position, match in enumerate(matches):
            if position == len(matches) - batch:
                before = board.rating(agent).mu
            board.update(match)
        return abs(board.rating(agent).mu - before)

    async def _play(self, seatings: list[list[str]]) -> bool:
        """Plays every open slot of `seatings` to its end; False when the tournament was stopped."""
        config = self.config
        queue, in_flight, replays = self._progress(seatings)
        self.in_flight = in_flight
        self.log.info("tournament started", matches=len(seatings), game_id=config.game_id, to_start=len(queue),
                      running=len(in_flight))
        # Slots to start by seating, in schedule order: a pass tries each seating's first slot, and
        # within a pass room only shrinks, so a seating that cannot start now is not asked again.
        pending: dict[tuple[str, ...], list[int]] = {}
        for index, seating in queue:
            pending.setdefault(tuple(seating), []).append(index)
        while pending or in_flight:
            absent: dict[str, tuple[bool, list[str]]] = {}
            view = self.lobby.view() if pending else None
            looked: dict[str, tuple] = {}     # agent -> (its session with room, or None; its games if None)
            waited_on = {a for a in config.agents if a not in HOUSE_AGENTS and a not in self.given_up}
            for key in list(pending):
                indices = pending[key]
                while indices:
                    runner = self._try_start(view, indices[0], list(key), replays.get(frozenset(key), 0), absent,
                                             looked)
                    if runner is None:
                        break
                    in_flight[runner.finished] = (indices.pop(0), runner)
                if not indices:
                    del pending[key]
                elif waited_on and all(looked.get(a, (True,))[0] is None for a in waited_on):
                    break        # no agent has room: the other seatings wait, unread
            expired = self._note_absent(absent)
            if expired:
                if config.on_absent == "fail":
                    error = "; ".join(w.describe(config.game_id) for w in expired)
                    await self.stop("failed", f"gave up after waiting {config.absent_timeout:g} s: {error}")
                    return False
                self.given_up.update(w.agent_name for w in expired)
                self.log.warning("playing without absent agents; the failure policy takes their seats",
                                 agents=[w.agent_name for w in expired], policy=config.rules.on_failure)
                continue
            if not in_flight:
                await asyncio.sleep(0.1)   # waiting for agents to connect or free a slot
                continue
            done, _ = await asyncio.wait(list(in_flight), timeout=0.1, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                index, runner = in_flight.pop(future)
                if self._takes_replay(seatings[index], future.result()["reason"], replays):
                    pending.setdefault(tuple(seatings[index]), []).append(index)
        return True

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
            slot = self._slot_of(match, slots) if slots else None
            if slot is None:
                self.log.warning("a recorded match fits no open slot of the schedule", match_id=match.match_id)
            elif match.status == "finished":
                slots.remove(slot)
            elif match.status == "void":
                if not self._takes_replay(match.agent_names, match.result["reason"], replays):
                    slots.remove(slot)
            elif (runner := self.coordinator.running.get(match.match_id)) is not None:
                slots.remove(slot)
                in_flight[runner.finished] = (slot, runner)
            elif match.referee and match.referee != self.coordinator.server_id:
                # Refereed by another process sharing the database: followed there to its end.
                slots.remove(slot)
                in_flight[self.coordinator.ended_elsewhere(match.match_id)] = (slot, None)
            else:
                self.log.warning("a recorded match is neither ended nor running; its slot is played again",
                                 match_id=match.match_id)
        queue = sorted((index, seatings[index]) for slots in open_slots.values() for index in slots)
        return queue, in_flight, replays

    def _slot_of(self, match, slots: list[int]) -> int | None:
        """The first open slot a recorded match fills: in a listed tournament, one whose parameters
        the match was played with (two slots may seat the same agents with other settings)."""
        if not self.config.listed:
            return slots[0]
        return next((i for i in slots if all(match.parameters.get(k) == v
                                             for k, v in self.config.listed[i].get("parameters", {}).items())), None)

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

    async def stop(self, status: str, error: str = "") -> None:
        """Ends the tournament for good ("failed" or "cancelled"): its running matches are aborted
        (void), and the status is stored, so it never resumes."""
        self.store.set_tournament_status(self.tournament_id, status, error)
        for _, runner in list(self.in_flight.values()):
            if runner is not None:
                await self.coordinator.abort(runner.record.match_id, f"tournament {status}")
        self.waiting.clear()
        self._store_waiting()
        self.log.warning(f"tournament {status}", error=error)

    def _note_absent(self, absent: dict[str, tuple[bool, list[str]]]) -> list[Waiting]:
        """Updates `waiting` from this round's absent agents (name -> (connected, games)), logs new and
        long waits, and returns the waits past the tournament's absent_timeout."""
        now = time.monotonic()
        for name in list(self.waiting):
            if name not in absent:
                self.log.info("absent agent arrived", agent=name, waited=round(now - self.waiting[name].started, 1))
                del self.waiting[name]
        expired = []
        for name, (connected, games) in absent.items():
            wait = self.waiting.get(name)
            if wait is None:
                wait = self.waiting[name] = Waiting(name, connected, games, since=time.time())
                self.log.warning("tournament waiting for an agent", reason=wait.describe(self.config.game_id),
                                 gives_up_in=self.config.absent_timeout, rule=self.config.on_absent)
            else:
                wait.connected, wait.games = connected, games
                if now - wait.reported >= REPORT_EVERY:
                    wait.reported = now
                    self.log.warning("tournament still waiting for an agent", reason=wait.describe(self.config.game_id),
                                     waited=round(now - wait.started), gives_up_in=round(
                                         self.config.absent_timeout - (now - wait.started)))
            if now - wait.started >= self.config.absent_timeout:
                expired.append(wait)
        for wait in expired:
            del self.waiting[wait.agent_name]
        self._store_waiting()
        return expired

    def _store_waiting(self) -> None:
        """The waits as GetTournament shows them, in the store, when they changed (any process may be asked)."""
        waiting = [{"agent_name": w.agent_name, "connected": w.connected, "games": w.games, "since": w.since}
                   for w in self.waiting.values()]
        if waiting != self._stored_waiting:
            self.store.set_tournament_waiting(self.tournament_id, waiting)
            self._stored_waiting = waiting

    def _try_start(self, view, index: int, seating: list[str], replay: int,
                   absent: dict[str, tuple[bool, list[str]]], looked: dict[str, tuple]) -> MatchRunner | None:
        """Starts the match of `seating` if every agent can take a seat now; else notes in `absent`
        the agents that are not connected for the game and returns None. `view` is the pass's
        reading of the lobby, `looked` what it said of each agent so far (a long schedule asks
        about the same agents again and again)."""
        sessions, missing = {}, False
        for name in seating:
            if name in HOUSE_AGENTS or name in sessions:
                continue
            if name not in looked:
                session = view.session_for(name, self.config.game_id)
                looked[name] = (session, view.games_of(name) if session is None else None)
            session, games = looked[name]
            if session is not None:
                sessions[name] = session
            elif name not in self.given_up:
                missing = True
                if games is None or self.config.game_id not in games:
                    absent[name] = (games is not None, sorted(games or ()))
        if missing:
            return None
        seed = (self.config.seed + index * 1_000_003 + replay * 7_919) % (1 << 63)
        seats: list[SeatEndpoint] = [
            HouseSeat(name, seed + seat) if name in HOUSE_AGENTS
            else view.seat(sessions[name]) if name in sessions else AbsentSeat(name)
            for seat, name in enumerate(seating)]
        parameters = self.config.parameters
        if self.config.listed:
            parameters = {**parameters, **self.config.listed[index].get("parameters", {})}
        if self.config.challenger_seat_parameter:
            parameters = {**parameters, self.config.challenger_seat_parameter: seating.index(self.config.agents[0])}
        runner = self.coordinator.start_match(
            self.config.game_id, parameters, seats, rules=self.config.rules,
            tournament_id=self.tournament_id, seed=seed, teams=self.config.seat_sides,
        )
        if runner is not None:
            view.claimed(list(sessions.values()))
        for name in sessions:
            looked.pop(name, None)       # room taken (or lost to another process): asked again
        return runner
