"""What every house agent shares (HousePolicy), and the two that play every game: random and MCTS."""

from __future__ import annotations

import random

from arena.v1 import agent_service_pb2 as pb
from arena_engines import load_game
from arena_engines.mcts import MCTSBot

from ..convert import from_struct

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


POLICIES = {
    "random": ("uniformly random legal actions", RandomPolicy),
    "mcts": (f"MCTS with {MCTS_SIMULATIONS} simulations, UCT c = 2, random rollouts and solver (GTBench's "
             "opponent); determinized from its own view in imperfect-information games", MCTSPolicy),
}
