"""What every house agent shares (HousePolicy), and the two that play every game: random and MCTS."""

from __future__ import annotations

import random
import re

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2
from arena_engines import load_game
from arena_engines.core import RANDOM_WORDS
from arena_engines.mcts import MCTSBot

from ..convert import from_struct

MCTS_SIMULATIONS = 1000     # GTBench's MCTS opponent (reference gtbench.md section 3.1)


class HousePolicy:
    """How a house agent plays one seat of one match."""

    games: frozenset[str] | None = None     # the games it can play; None: every game
    cpu_bound = False                       # True: `choose` runs in a worker thread
    # False: it cannot write messages, so it moves without talking where a message is optional and
    # answers nothing where one is required (the referee's failure policy handles the seat).
    speaks = True

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seed = seed

    def plays(self, game_id: str) -> bool:
        return self.games is None or game_id in self.games

    def start(self, started: pb.MatchStarted) -> None:
        """The match begins (called before the first request)."""

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str | None]:
        """A legal action id for the request, or (action id, message) when the decision carries a
        message (request.text_action.message)."""
        raise NotImplementedError


def wants_message(request: pb.DecisionRequest) -> bool:
    return request.text_action.message != game_pb2.MESSAGE_MODE_UNSPECIFIED


def random_message(request: pb.DecisionRequest, rng: random.Random) -> str:
    """The game's example message, else a word or two at random that avoid the forbidden words."""
    spec = request.text_action
    if spec.example:
        return spec.example
    forbidden = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.IGNORECASE) for w in spec.forbidden_words]
    allowed = [w for w in RANDOM_WORDS if not any(f.search(w) for f in forbidden)]
    return " ".join(rng.sample(allowed, min(len(allowed), rng.randint(1, 2))))


class RandomPolicy(HousePolicy):
    """A uniformly random legal action; on a dialogue turn, the game's example message or a short
    random one."""

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str | None]:
        action = self.rng.choice(request.legal_actions).id
        return (action, random_message(request, self.rng)) if wants_message(request) else action


class MCTSPolicy(HousePolicy):
    """OpenSpiel-style MCTS (UCT c = 2, random rollouts, solver) over the arena's own engine."""

    cpu_bound = True
    speaks = False                                  # search cannot write messages

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
    "random": ("uniformly random legal actions (and a short random message on dialogue turns)", RandomPolicy),
    "mcts": (f"MCTS with {MCTS_SIMULATIONS} simulations, UCT c = 2, random rollouts and solver (GTBench's "
             "opponent); determinized from its own view in imperfect-information games; silent in dialogue "
             "games, where it declines decisions that need a message",
             MCTSPolicy),
}
