"""House agents for El Farol Bar (action 0 stays home, 1 goes to the bar). GAMA-Bench's fixed-strategy
experiments (gamabench.md §3.3) do not include this game, so these are baselines: the mixed Nash
equilibrium of §2.2 and a simple reactive player."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

STAY, GO = 0, 1


class MixedNashPolicy(HousePolicy):
    """Goes with probability R, the capacity, whatever happened before: the symmetric mixed Nash
    equilibrium the paper names (go 60 %, stay 40 % at R = 60 %)."""

    games = frozenset({"el_farol_bar"})

    def choose(self, request: pb.DecisionRequest) -> int:
        capacity = from_struct(request.observation.data)["capacity_percent"]
        return GO if self.rng.random() * 100 < capacity else STAY


class LastSeenPolicy(HousePolicy):
    """Expects tonight's crowd to be the last one it saw (Arthur's "same as last time" predictor):
    goes first, then goes when the latest attendance it saw was within capacity and stays when that
    night was crowded. In implicit mode a night at home brings no news, so after one it goes back to
    look instead of waiting for news that cannot come."""

    games = frozenset({"el_farol_bar"})

    def choose(self, request: pb.DecisionRequest) -> int:
        past = from_struct(request.observation.data)["past_rounds"]
        seen = [r for r in past if r["result_seen"]]
        if not seen or not seen[-1]["crowded"]:
            return GO
        return STAY if seen[-1]["round"] == past[-1]["round"] else GO


POLICIES = {
    "farol_mixed_nash": ("El Farol Bar: goes with probability equal to the capacity R (the mixed Nash "
                         "equilibrium), independently every round", MixedNashPolicy),
    "farol_last_seen": ("El Farol Bar: goes unless the last night it saw was crowded; after a night at home "
                        "without news (implicit mode) it goes back to look", LastSeenPolicy),
}
