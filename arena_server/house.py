"""Built-in house agents: baselines that run inside the server, without the network.

They answer through the same SeatEndpoint interface as remote agents and see exactly what a
remote agent would see (the DecisionRequest), so they can be rating anchors.
"""

from __future__ import annotations

import random
from typing import Callable

from arena.v1 import agent_service_pb2 as pb

from .referee import SeatEndpoint

Policy = Callable[[pb.DecisionRequest, random.Random], int]


def random_policy(request: pb.DecisionRequest, rng: random.Random) -> int:
    return rng.choice(request.legal_actions).id


HOUSE_AGENTS: dict[str, tuple[str, Policy]] = {
    "random": ("uniformly random legal actions", random_policy),
}


class HouseSeat(SeatEndpoint):
    house_agent = True

    def __init__(self, name: str, seed: int):
        self.agent_name = name
        self._policy = HOUSE_AGENTS[name][1]
        self._rng = random.Random(seed)

    def notify(self, message: pb.ConnectResponse) -> None:
        pass

    async def ask(self, request: pb.DecisionRequest, timeout: float) -> pb.Decision:
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                           action_id=self._policy(request, self._rng))
