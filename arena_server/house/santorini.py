"""House agent for Santorini: a greedy one-ply player.

It reads the seat's observation data (levels, pawns, the pawn to play, whether pawns alternate) and the
legal actions, whose texts are GameBench's ids: "(row, column)" to place a pawn, "Move <direction>,
build <direction>" for a turn ("Move pawn B <direction>, build <direction>" when players choose the
pawn)."""

from __future__ import annotations

import re

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

STEPS = {"northwest": (-1, -1), "north": (-1, 0), "northeast": (-1, 1), "west": (0, -1), "east": (0, 1),
         "southwest": (1, -1), "south": (1, 0), "southeast": (1, 1)}
TURN_ORDER = "AXBY"
_PLAY = re.compile(r"Move (?:pawn ([ABXY]) )?(\w+), build (\w+)")
_PLACE = re.compile(r"\((\d), (\d)\)")

WIN, LOSS = 1000.0, -1000.0


def _neighbours(square):
    r, c = square
    return [(r + dr, c + dc) for dr, dc in STEPS.values() if 0 <= r + dr < 5 and 0 <= c + dc < 5]


def _moves(levels, occupied, square):
    """The squares a pawn on `square` may move to."""
    return [n for n in _neighbours(square) if n not in occupied and levels[n[0]][n[1]] < 4
            and levels[n[0]][n[1]] <= levels[square[0]][square[1]] + 1]


class GreedyPolicy(HousePolicy):
    """Places its pawns near the centre. On a turn it wins at once when it can (a move up onto level 3,
    or leaving the opponent's next pawn without a move), never leaves the opponent a climb onto level 3
    on its next turn when it can help it, and otherwise prefers standing high and keeping the
    opponent low: score = 4 x the moved pawn's level + its other pawn's level - the opponent's pawns'
    levels, minus 2 when its build makes a level-3 square next to an opponent pawn standing on level 2
    or more. Ties are broken at random (seeded)."""

    games = frozenset({"santorini"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        scored = [(self._score(view, action.text), action.id) for action in request.legal_actions]
        best = max(score for score, _ in scored)
        return self.rng.choice([action for score, action in scored if score == best])

    def _score(self, view: dict, text: str) -> float:
        placed = _PLACE.fullmatch(text)
        if placed:
            r, c = int(placed[1]), int(placed[2])
            return -(abs(r - 2) + abs(c - 2))
        letter, move, build = _PLAY.fullmatch(text).groups()
        pawn = letter or view["pawn_to_play"]
        levels = [list(row) for row in view["levels"]]
        pawns = {p: tuple(at) for p, at in view["pawns"].items()}
        (r, c), (mr, mc) = pawns[pawn], STEPS[move]
        pawns[pawn] = (r + mr, c + mc)
        if levels[r + mr][c + mc] == 3:
            return WIN
        br, bc = STEPS[build]
        built = (r + mr + br, c + mc + bc)
        levels[built[0]][built[1]] += 1

        def height(p):
            return levels[pawns[p][0]][pawns[p][1]]

        mine, theirs = view["my_pawns"], view["opponent_pawns"]
        occupied = set(pawns.values())
        # The opponent's next pawn: the one after ours in the alternation, else either of its pawns.
        nxt = [TURN_ORDER[(TURN_ORDER.index(pawn) + 1) % 4]] if view["forced_alternation"] else theirs
        if not any(_moves(levels, occupied, pawns[p]) for p in nxt):
            return WIN
        score = 4 * height(pawn) + sum(height(p) for p in mine if p != pawn) - sum(height(p) for p in theirs)
        if levels[built[0]][built[1]] == 3 and any(height(p) >= 2 and pawns[p] in _neighbours(built) for p in theirs):
            score -= 2
        threatened = any(levels[n[0]][n[1]] == 3 for p in nxt
                         for n in _moves(levels, occupied, pawns[p]))
        return score + (LOSS if threatened else 0.0)


POLICIES = {
    "santorini_greedy": ("Santorini: one-ply greedy -- wins at once when it can, blocks the opponent's next "
                         "climb onto level 3, otherwise stands high and builds away from the opponent",
                         GreedyPolicy),
}
