"""Built-in house agents: baselines that run inside the server, without the network.

They answer through the same SeatEndpoint interface as remote agents and see exactly what a remote
agent would see: MatchStarted (game id, parameters, seat) and each DecisionRequest (observation and
legal actions). MCTS in particular rebuilds its state from the request's observation data with the
game's `state_from_view`, never from the referee's state, so it cannot read hidden information.

HOUSE_AGENTS maps a name to (description, factory); the factory takes a seed and returns a
HousePolicy, which plays one seat of one match.
"""

from __future__ import annotations

import asyncio
import random
from typing import Callable

import structlog

from arena.v1 import agent_service_pb2 as pb
from arena_engines import load_game
from arena_engines.mcts import MCTSBot

from .convert import from_struct
from .referee import SeatEndpoint

log = structlog.get_logger("arena.house")

MCTS_SIMULATIONS = 1000     # GTBench's MCTS opponent (reference gtbench.md section 3.1)


class HousePolicy:
    """How a house agent plays one seat of one match."""

    games: frozenset[str] | None = None     # the games it can play; None: every game
    cpu_bound = False                       # True: `choose` runs in a worker thread

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seed = seed

    def start(self, started: pb.MatchStarted) -> None:
        """The match begins (called before the first request)."""

    def choose(self, request: pb.DecisionRequest) -> int:
        """A legal action id for the request."""
        raise NotImplementedError


class RandomPolicy(HousePolicy):
    def choose(self, request: pb.DecisionRequest) -> int:
        return self.rng.choice(request.legal_actions).id


class MCTSPolicy(HousePolicy):
    """OpenSpiel-style MCTS (UCT c = 2, random rollouts, solver) over the arena's own engine."""

    cpu_bound = True

    def __init__(self, seed: int, simulations: int = MCTS_SIMULATIONS):
        super().__init__(seed)
        self.simulations = simulations
        self.bot = None

    def start(self, started: pb.MatchStarted) -> None:
        match = started.match
        game = load_game(match.game_id, from_struct(match.parameters), num_players=len(match.players))
        self.bot = MCTSBot(game, simulations=self.simulations, seed=self.seed)

    def choose(self, request: pb.DecisionRequest) -> int:
        if self.bot is None:
            raise RuntimeError("MCTS was asked to decide before the match started")
        return self.bot.step_from_view(request.seat, from_struct(request.observation.data))


# ---- iterated prisoner's dilemma (action 0 cooperates, 1 defects, as OpenSpiel) -------------------
COOPERATE, DEFECT = 0, 1


class TitForTatPolicy(HousePolicy):
    """Cooperates first, then repeats the opponent's previous choice (Axelrod; GTBench's IPD
    opponent). With several opponents it defects when any of them defected in the last round."""

    games = frozenset({"iterated_prisoners_dilemma"})

    def choose(self, request: pb.DecisionRequest) -> int:
        rounds = from_struct(request.observation.data)["rounds"]
        if not rounds:
            return COOPERATE
        last = rounds[-1]["actions"]
        others = [a for seat, a in enumerate(last) if seat != request.seat]
        return DEFECT if DEFECT in others else COOPERATE


class AlwaysDefectPolicy(HousePolicy):
    games = frozenset({"iterated_prisoners_dilemma"})

    def choose(self, request: pb.DecisionRequest) -> int:
        return DEFECT


# ---- sealed-bid auction: action id = bid amount; the observation holds the private valuation -------
class FixedBidPolicy(HousePolicy):
    """Bids a fixed fraction of its private valuation: the highest legal bid not above it."""

    games = frozenset({"sealed_bid_auction"})
    fraction = 1.0

    def choose(self, request: pb.DecisionRequest) -> int:
        value = from_struct(request.observation.data)["my_valuation"]
        target = value * self.fraction
        bids = sorted(a.id for a in request.legal_actions)
        below = [b for b in bids if b <= target]
        return below[-1] if below else bids[0]


class BidHalfValuePolicy(FixedBidPolicy):
    fraction = 0.5


class BidValuePolicy(FixedBidPolicy):
    fraction = 1.0


HOUSE_AGENTS: dict[str, tuple[str, Callable[[int], HousePolicy]]] = {
    "random": ("uniformly random legal actions", RandomPolicy),
    "mcts": (f"MCTS with {MCTS_SIMULATIONS} simulations, UCT c = 2, random rollouts and solver (GTBench's "
             "opponent); determinized from its own view in imperfect-information games", MCTSPolicy),
    "tit_for_tat": ("iterated prisoner's dilemma: cooperates first, then copies the opponent's last choice",
                    TitForTatPolicy),
    "always_defect": ("iterated prisoner's dilemma: always defects", AlwaysDefectPolicy),
    "bid_half_value": ("sealed-bid auction: bids half its valuation, rounded down", BidHalfValuePolicy),
    "bid_value": ("sealed-bid auction: bids its valuation (the highest legal bid below it when bids must "
                  "stay under the valuation)", BidValuePolicy),
}


class HouseSeat(SeatEndpoint):
    house_agent = True

    def __init__(self, name: str, seed: int):
        self.agent_name = name
        self._policy = HOUSE_AGENTS[name][1](seed)
        self._game_id = ""

    def notify(self, message: pb.ConnectResponse) -> None:
        if message.WhichOneof("message") == "match_started":
            started = message.match_started
            self._game_id = started.match.game_id
            if self._plays(self._game_id):
                self._policy.start(started)

    def wants_events(self) -> bool:
        return False    # policies read the requests' observations

    async def ask(self, request: pb.DecisionRequest, timeout: float) -> pb.Decision | None:
        if not self._plays(self._game_id):
            # Answering nothing lets the referee's failure policy handle the seat.
            log.error("house agent cannot play this game", agent=self.agent_name, game_id=self._game_id,
                      match_id=request.match_id)
            return None
        if self._policy.cpu_bound:
            try:
                action = await asyncio.wait_for(asyncio.to_thread(self._policy.choose, request), timeout)
            except asyncio.TimeoutError:
                return None
        else:
            action = self._policy.choose(request)
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, action_id=action)

    def _plays(self, game_id: str) -> bool:
        games = self._policy.games
        return games is None or game_id in games
