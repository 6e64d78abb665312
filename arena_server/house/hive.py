"""House agent for Hive: a greedy one-ply player.

It reads the seat's observation data (the pieces on the board with their owners, types and axial
cells, whether each Queen is placed) and the legal actions, whose texts are GameBench's action ids:
"place_(q,r)_<Type>", "move_(q,r)_(q,r)" (from, to) and "pass"."""

from __future__ import annotations

import re

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_PLACE = re.compile(r"place_\((-?\d+),(-?\d+)\)_(\w+)")
_MOVE = re.compile(r"move_\((-?\d+),(-?\d+)\)_\((-?\d+),(-?\d+)\)")

WIN, LOSS = 1000.0, -1000.0
PRESSURE, EXPOSURE = 10.0, 12.0     # per occupied cell around the enemy Queen / around its own Queen
QUEEN_DOWN = 3.0                    # placing its Queen early frees its pieces to move


def _occupied_around(board: dict, cell: tuple[int, int]) -> int:
    return sum((cell[0] + dq, cell[1] + dr) in board for dq, dr in DIRECTIONS)


def _queen(board: dict, seat: int):
    return next((cell for cell, piece in board.items() if piece == (seat, "Queen")), None)


class GreedyPolicy(HousePolicy):
    """Plays the action after which the enemy Queen is most hemmed in and its own Queen least: score =
    10 x the occupied cells around the enemy Queen - 12 x those around its own, plus 3 for placing its
    own Queen; a move that surrounds the enemy Queen alone wins at once, one that surrounds its own
    Queen is avoided (half as badly when it surrounds both). Ties are broken at random (seeded)."""

    games = frozenset({"hive"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        seat = view["player"] - 1
        board = {(p["q"], p["r"]): (p["owner"], p["type"]) for p in view["pieces"]}
        scored = [(self._score(board, seat, action.text), action.id) for action in request.legal_actions]
        best = max(score for score, _ in scored)
        return self.rng.choice([action for score, action in scored if score == best])

    def _score(self, board: dict, seat: int, text: str) -> float:
        after = dict(board)
        bonus = 0.0
        if placed := _PLACE.fullmatch(text):
            after[(int(placed[1]), int(placed[2]))] = (seat, placed[3])
            bonus = QUEEN_DOWN if placed[3] == "Queen" else 0.0
        elif moved := _MOVE.fullmatch(text):
            after[(int(moved[3]), int(moved[4]))] = after.pop((int(moved[1]), int(moved[2])))
        mine, theirs = _queen(after, seat), _queen(after, 1 - seat)
        my_exposure = _occupied_around(after, mine) if mine else 0
        their_exposure = _occupied_around(after, theirs) if theirs else 0
        if my_exposure == 6:
            return LOSS / (2 if their_exposure == 6 else 1)
        if their_exposure == 6:
            return WIN
        return PRESSURE * their_exposure - EXPOSURE * my_exposure + bonus


POLICIES = {
    "hive_greedy": ("Hive: one-ply greedy -- surrounds the enemy Queen when it can, otherwise crowds it and keeps "
                    "its own Queen free, placing its Queen early", GreedyPolicy),
}
