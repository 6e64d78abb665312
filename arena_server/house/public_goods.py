"""House agents for the public goods game: action id = contribution; the observation holds every past
round's contributions and the game's endowment rules."""

from __future__ import annotations

import math

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy


class FreeRiderPolicy(HousePolicy):
    """GAMA-Bench's persistent free-rider (§3.3): contributes 0 every round."""

    games = frozenset({"public_goods"})

    def choose(self, request: pb.DecisionRequest) -> int:
        return 0


class ConditionalCooperatorPolicy(HousePolicy):
    """Conditional cooperation, the commonest pattern in public goods experiments: opens with half of a
    round's allowance (the tokens of one round, or an even split of a whole-game budget over its rounds),
    then matches the other players' average contribution of the previous round (rounded half up), never
    more than it holds (nor than the largest legal contribution)."""

    games = frozenset({"public_goods"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        if view["past_rounds"]:
            last = view["past_rounds"][-1]["contributions"]
            others = [c for seat, c in enumerate(last) if seat != request.seat]
            wanted = sum(others) / len(others)
        else:
            allowance = view["endowment"] if view["endowment_mode"] == "per_round" else view["endowment"] / view["rounds"]
            wanted = allowance / 2
        largest = max(a.id for a in request.legal_actions)
        return max(0, min(math.floor(wanted + 0.5), math.floor(view["holding"]), largest))


POLICIES = {
    "public_goods_free_rider": ("public goods: contributes nothing, every round (GAMA-Bench's persistent "
                                "free-rider)", FreeRiderPolicy),
    "public_goods_conditional_cooperator": ("public goods: opens with half a round's allowance, then matches the "
                                            "others' average contribution of the last round",
                                            ConditionalCooperatorPolicy),
}
