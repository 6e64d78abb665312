"""House agents for the Pirate Game. A proposal turn is answered with (PROPOSE, the written proposal);
a vote with ACCEPT or REJECT. The observation data gives the phase, the gold, the seats aboard (the
proposer, most senior, first) and, at a vote, the proposal and the seat's own share. GAMA-Bench has no
fixed-strategy player for this game (gamabench.md §3.3); the optimal pirate plays the reference's
known solution (§2.8), the fair pirate is a simple baseline."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines.pirate_game import (ACCEPT, PROPOSE, REJECT, equal_split, optimal_proposal, proposal_text,
                                       stewart_accepts)

from ..convert import from_struct
from .base import HousePolicy


class PiratePolicy(HousePolicy):
    """Proposes `plan(aboard, gold)` and accepts when `accepts(position, share, view)`."""

    games = frozenset({"pirate_game"})

    def plan(self, aboard: int, gold: int) -> list[int]:
        raise NotImplementedError

    def accepts(self, position: int, share: int, view: dict) -> bool:
        raise NotImplementedError

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        if view["phase"] == "propose":
            shares = self.plan(len(view["aboard"]), view["gold"])
            return PROPOSE, proposal_text(request.seat + 1, shares)
        position = request.seat - view["proposer"]       # relative to the proposer, who is position 0
        return ACCEPT if self.accepts(position, view["my_share"], view) else REJECT


class OptimalPiratePolicy(PiratePolicy):
    """The game-theoretic optimum (Stewart, gamabench.md §2.8): proposes 1 coin to each pirate at
    relative position 2, 4, 6, ... and keeps the rest (96 of 100 with 10 pirates); votes accept for 2
    coins or more, reject for none, and for a single coin accepts only at the proposer's parity."""

    def plan(self, aboard: int, gold: int) -> list[int]:
        return optimal_proposal(aboard, gold)

    def accepts(self, position: int, share: int, view: dict) -> bool:
        return stewart_accepts(position, share)


class FairPiratePolicy(PiratePolicy):
    """Proposes the equal split (remainder to itself) and accepts any offer of at least an equal
    share of the gold among the pirates aboard, rounded down."""

    def plan(self, aboard: int, gold: int) -> list[int]:
        return equal_split(aboard, gold)

    def accepts(self, position: int, share: int, view: dict) -> bool:
        return share >= view["gold"] // len(view["aboard"])


POLICIES = {
    "pirate_optimal": ("Pirate Game: the known optimal play; proposes 1 coin to every second pirate after the next "
                       "(relative positions 2, 4, ...) and keeps the rest; votes accept for 2+ coins, reject for 0, "
                       "and accepts 1 coin only at the proposer's parity", OptimalPiratePolicy),
    "pirate_fair": ("Pirate Game: proposes the equal split and accepts any offer of at least an equal share",
                    FairPiratePolicy),
}
