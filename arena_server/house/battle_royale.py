"""House agents for Battle Royale: action id k shoots seat k; the observation data lists the living
seats ("alive") and every seat's hit rate ("hit_rates"). GAMA-Bench has no fixed-strategy player for
this game (gamabench.md §3.3), so these are two baselines."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy


def _living_opponents(request: pb.DecisionRequest) -> tuple[list[int], list[int]]:
    """(living seats other than the requester, every seat's hit rate)."""
    view = from_struct(request.observation.data)
    return [seat for seat in view["alive"] if seat != request.seat], view["hit_rates"]


class ShootStrongestPolicy(HousePolicy):
    """Always shoots the living opponent with the highest hit rate: the target GAMA-Bench's S7 counts
    as correct, so this agent scores 100."""

    games = frozenset({"battle_royale"})

    def choose(self, request: pb.DecisionRequest) -> int:
        opponents, rates = _living_opponents(request)
        return max(opponents, key=lambda seat: rates[seat])


class RandomTargetPolicy(HousePolicy):
    """Shoots a living opponent drawn uniformly; never misses on purpose."""

    games = frozenset({"battle_royale"})

    def choose(self, request: pb.DecisionRequest) -> int:
        opponents, _ = _living_opponents(request)
        return self.rng.choice(opponents)


POLICIES = {
    "battle_royale_shoot_strongest": ("Battle Royale: always shoots the living opponent with the highest hit rate",
                                      ShootStrongestPolicy),
    "battle_royale_random_target": ("Battle Royale: shoots a uniformly random living opponent, never misses "
                                    "on purpose", RandomTargetPolicy),
}
