"""House agent for Sea Battle: a greedy one-turn gunner.

It rebuilds the position from the request's observation data with the engine's `state_from_view` (Sea
Battle is perfect information) and tries each of its ship's eight orders against a simple guess of the
other ships' orders: every other ship stays where it is and fires to its left, or every other ship stays
and fires to its right (both guesses count equally). Each resolved turn is scored as damage dealt to
the enemy minus damage taken by its own side, with a bonus for each enemy ship sunk and a penalty for
each own ship sunk; ties go to the order that ends nearest an enemy ship, then at random (seeded)."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines import load_game

from ..convert import from_struct
from .base import HousePolicy

SINK_BONUS = 5.0
# The action ids of "don't move then shoot left" and "don't move then shoot right".
HOLD_AND_SHOOT = (6, 7)


class GreedyGunnerPolicy(HousePolicy):
    """One-turn lookahead for one ship against stationary opponents firing to one side."""

    games = frozenset({"sea_battle"})

    def __init__(self, seed: int):
        super().__init__(seed)
        self.game = None

    def start(self, started: pb.MatchStarted) -> None:
        match = started.match
        self.game = load_game(match.game_id, from_struct(match.parameters), num_players=len(match.players))

    def choose(self, request: pb.DecisionRequest) -> int:
        if self.game is None:
            raise RuntimeError("the Sea Battle house agent was asked to decide before the match started")
        seat = request.seat
        state = self.game.state_from_view(seat, from_struct(request.observation.data))
        before = state.observation_dict(seat)["ships"]
        scored = [(self._score(state, before, seat, action.id), action.id) for action in request.legal_actions]
        best = max(score for score, _ in scored)
        return self.rng.choice([action for score, action in scored if score == best])

    def _score(self, state, before: list, seat: int, order: int) -> tuple[float, float]:
        """(expected material balance, minus the distance to the nearest enemy) after `order`."""
        mine = seat // 3
        total, distance = 0.0, 0.0
        for others in HOLD_AND_SHOOT:
            after = state.clone()
            joint = [others] * state.num_players
            joint[seat] = order
            after.apply_actions(joint)
            after_ships = after.observation_dict(seat)["ships"]
            for old, new in zip(before, after_ships):
                change = new["damage"] - old["damage"] + (SINK_BONUS if new["sunk"] and not old["sunk"] else 0.0)
                total += change if old["side"] != mine else -change
            me = after_ships[seat]["position"]
            enemies = [s["position"] for s in after_ships if s["side"] != mine and not s["sunk"]]
            distance += min((abs(me[0] - x) + abs(me[1] - y) for x, y in enemies), default=0)
        return total / len(HOLD_AND_SHOOT), -distance


POLICIES = {
    "sea_battle_gunner": ("Sea Battle: one-turn greedy gunner -- tries its eight orders against the other ships "
                          "holding still and firing to one side, maximises damage dealt minus damage taken (sinkings "
                          "count extra), then closes in on the nearest enemy", GreedyGunnerPolicy),
}
