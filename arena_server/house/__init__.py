"""Built-in house agents: baselines that run inside the server, without the network.

They answer through the same SeatEndpoint interface as remote agents and see exactly what a remote
agent would see: MatchStarted (game id, parameters, seat) and each DecisionRequest (observation and
legal actions). MCTS in particular rebuilds its state from the request's observation data with the
game's `state_from_view`, never from the referee's state, so it cannot read hidden information.

Each module of this package holds the policies of one game or family (base: random and MCTS, which
play every game) and exports POLICIES, a map from a house agent's name to (description, factory);
the factory takes a seed and returns a HousePolicy, which plays one seat of one match. HOUSE_AGENTS
gathers them all; adding a house agent is adding it to its module's POLICIES.
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
from typing import Callable

import structlog

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2

from ..referee import SeatEndpoint
from .base import HousePolicy

log = structlog.get_logger("arena.house")


def _gather() -> dict[str, tuple[str, Callable[[int], HousePolicy]]]:
    found: dict[str, tuple[str, Callable[[int], HousePolicy]]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: (i.name != "base", i.name)):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, entry in getattr(module, "POLICIES", {}).items():
            if name in found:
                raise RuntimeError(f"house agent {name!r} is defined twice (again in {module.__name__})")
            found[name] = entry
    return found


HOUSE_AGENTS: dict[str, tuple[str, Callable[[int], HousePolicy]]] = _gather()

__all__ = ["HOUSE_AGENTS", "HousePolicy", "HouseSeat"]


class HouseSeat(SeatEndpoint):
    house_agent = True

    def __init__(self, name: str, seed: int):
        self.agent_name = name
        self._policy = HOUSE_AGENTS[name][1](seed)
        self._game_id = ""

    def notify(self, message: pb.ConnectResponse) -> None:
        if message.WhichOneof("message") == "match_started":
            started = message.match_started
            self._game_id = started.match.game_id
            if self._plays(self._game_id):
                self._policy.start(started)

    def wants_events(self) -> bool:
        return False    # policies read the requests' observations

    async def ask(self, request: pb.DecisionRequest, timeout: float) -> pb.Decision | None:
        if not self._plays(self._game_id):
            # Answering nothing lets the referee's failure policy handle the seat.
            log.error("house agent cannot play this game", agent=self.agent_name, game_id=self._game_id,
                      match_id=request.match_id)
            return None
        if not self._policy.speaks and request.text_action.message == game_pb2.MESSAGE_MODE_REQUIRED:
            log.error("house agent cannot write the message this decision needs", agent=self.agent_name,
                      game_id=self._game_id, match_id=request.match_id)
            return None
        if self._policy.cpu_bound:
            try:
                choice = await asyncio.wait_for(asyncio.to_thread(self._policy.choose, request), timeout)
            except asyncio.TimeoutError:
                return None
        else:
            choice = self._policy.choose(request)
        action, message = choice if isinstance(choice, tuple) else (choice, None)
        decision = pb.Decision(match_id=request.match_id, decision_id=request.decision_id, action_id=action)
        if message is not None:
            decision.message = message
        return decision

    def _plays(self, game_id: str) -> bool:
        return bool(game_id) and self._policy.plays(game_id)
