"""House agent for Air, Land, and Sea: a one-ply greedy baseline.

It rebuilds the position from the request's observation data with the engine's `state_from_view` (so it
reads nothing the seat cannot see: the opponent's hidden cards are placeholders), plays each option on a
copy, and keeps the one whose position it likes best from its own view."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines import load_game

from ..convert import from_struct
from .base import HousePolicy

GAME = "air_land_sea"


def position_value(view: dict, seat: int) -> float:
    """How good a position is for `seat`, from its own view: the VP lead first, then the theaters it
    controls now, then its total strength margin over the three theaters."""
    other = 1 - seat
    lead = view["victory_points"][seat] - view["victory_points"][other]
    held = sum(1 for theater in view["board"] if theater["controller"] == seat)
    margin = sum(theater["strength"][seat] - theater["strength"][other] for theater in view["board"])
    return 1000.0 * lead + 100.0 * held + margin


class GreedyPolicy(HousePolicy):
    """Plays the option that leaves the best position one move later (position_value), ties broken at
    random; it withdraws only when nothing else is possible, which never happens in this game."""

    games = frozenset({GAME})

    def __init__(self, seed: int):
        super().__init__(seed)
        self.game = None

    def start(self, started: pb.MatchStarted) -> None:
        match = started.match
        self.game = load_game(match.game_id, from_struct(match.parameters), num_players=len(match.players))

    def choose(self, request: pb.DecisionRequest) -> int:
        if self.game is None:
            raise RuntimeError("the greedy agent was asked to decide before the match started")
        seat = request.seat
        state = self.game.state_from_view(seat, from_struct(request.observation.data))
        options = [a.id for a in request.legal_actions if not a.text.startswith("Withdraw")]
        if not options:
            return request.legal_actions[0].id
        scored = []
        for action in options:
            after = state.clone()
            after.apply_action(action)
            scored.append((position_value(after.observation_dict(seat), seat), action))
        best = max(value for value, _ in scored)
        return self.rng.choice([action for value, action in scored if value == best])


POLICIES = {
    "als_greedy": (("Air, Land, and Sea: one-ply greedy; plays the option that leaves it the largest VP lead, "
                    "then the most theaters controlled, then the largest strength margin; never withdraws"),
                   GreedyPolicy),
}
