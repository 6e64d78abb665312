"""House agent for Guess 2/3 of the Average: the previous round's target (GAMA-Bench's documented
fallback, §2.9), a simple best response to a population that does not move."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy


class LastTargetPolicy(HousePolicy):
    games = frozenset({"guess_two_thirds_average"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        low, high = view["min"], view["max"]
        past = view["past_rounds"]
        guess = round(past[-1]["target"]) if past else (low + high) // 2
        return min(max(guess, low), high)


POLICIES = {
    "guess_last_target": ("guess 2/3 of the average: picks the previous round's target (the middle of the range "
                          "in round 1)", LastTargetPolicy),
}
