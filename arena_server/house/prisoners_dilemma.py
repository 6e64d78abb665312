"""House agents for the iterated prisoner's dilemma (action 0 cooperates, 1 defects, as OpenSpiel)."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

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


POLICIES = {
    "tit_for_tat": ("iterated prisoner's dilemma: cooperates first, then copies the opponent's last choice",
                    TitForTatPolicy),
    "always_defect": ("iterated prisoner's dilemma: always defects", AlwaysDefectPolicy),
}
