"""House agent for heads-up no-limit hold'em: a scripted baseline that bets by hand strength.

Action ids are the engine's (RLCard's): 0 Fold, 1 Check and Call, 2 Raise Half Pot, 3 Raise Full Pot,
4 All in. The observation data holds the seat's hole cards, the community cards, the pot and what the
seat owes."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines.texas_holdem_no_limit import hand_equity

from ..convert import from_struct
from .base import HousePolicy

FOLD, CHECK_AND_CALL, RAISE_HALF_POT, RAISE_FULL_POT, ALL_IN = range(5)


class HandStrengthPolicy(HousePolicy):
    """Estimates its hand's equity, the share of the pot it would win at showdown against one random
    hand (a seeded Monte Carlo over the unseen cards; the opponent's betting is ignored). From
    `raise_at` it raises, the full pot when it may, else half the pot, else it calls. Below that it
    checks when checking is free, calls when the equity pays for the call (equity >= owed / (pot +
    owed), the pot odds), and folds otherwise."""

    games = frozenset({"texas_holdem_no_limit"})
    raise_at = 0.65
    samples = 2000

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        legal = {a.id for a in request.legal_actions}
        equity = hand_equity(view["hole_cards"], view["board"], samples=self.samples,
                             seed=self.rng.getrandbits(64))
        if equity >= self.raise_at:
            return next(a for a in (RAISE_FULL_POT, RAISE_HALF_POT, CHECK_AND_CALL) if a in legal)
        owed = view["to_call"]
        if owed == 0 or equity >= owed / (view["pot"] + owed):
            return CHECK_AND_CALL
        return FOLD


POLICIES = {
    "holdem_hand_strength": ("heads-up no-limit hold'em: raises the pot with a strong hand (equity against a "
                             "random hand >= 0.65), otherwise checks, calls when the pot odds pay, or folds",
                             HandStrengthPolicy),
}
