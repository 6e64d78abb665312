"""House agents for the Diner's Dilemma (action 0 orders the cheap dish, 1 the costly one). The
observation shows each past round's counts and the agent's own order, never who ordered what."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

CHEAP, COSTLY = 0, 1


class AlwaysCostlyPolicy(HousePolicy):
    """GAMA-Bench's fixed player (reference gamabench.md §3.3): orders the costly dish every round,
    the Nash equilibrium of the one-shot game."""

    games = frozenset({"diners_dilemma"})

    def choose(self, request: pb.DecisionRequest) -> int:
        return COSTLY


class ReciprocalPolicy(HousePolicy):
    """A conditional cooperator, tit for tat among many: orders cheap in the first round, then cheap
    again as long as at least half of the other diners ordered cheap in the previous round."""

    games = frozenset({"diners_dilemma"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        if not view["past_rounds"]:
            return CHEAP
        last = view["past_rounds"][-1]
        others_cheap = last["cheap_count"] - (last["my_choice"] == "cheap")
        return CHEAP if 2 * others_cheap >= view["players"] - 1 else COSTLY


POLICIES = {
    "diners_always_costly": ("diner's dilemma: always orders the costly dish (GAMA-Bench's fixed player)",
                             AlwaysCostlyPolicy),
    "diners_reciprocal": ("diner's dilemma: orders cheap first, then cheap while at least half of the others "
                          "ordered cheap in the last round, else costly", ReciprocalPolicy),
}
