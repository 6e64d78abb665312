"""House agent for Undercover: clues from a small word-association table, votes by clue overlap.

It reads its own word, the clues said so far (with who said them) and the players still in the game
from the observation data; it never knows its role (neither preset tells it)."""

from __future__ import annotations

import re

from arena.v1 import agent_service_pb2 as pb
from arena_engines.undercover import mentions
from arena_engines.undercover_words import ASSOCIATIONS

from ..convert import from_struct
from .base import HousePolicy, random_message, wants_message

_WORD = re.compile(r"[a-z]+")


def _said(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


class AssociationPolicy(HousePolicy):
    """Clue: an association of its own word (undercover_words.ASSOCIATIONS) nobody has said yet, at
    random; a neutral word once they are used up. Vote: the player whose clues share the fewest words
    with its own word's associations (a player whose clue names its own word cannot have it, and
    comes first), ties at random."""

    games = frozenset({"undercover"})

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        if wants_message(request):
            return request.legal_actions[0].id, self._clue(view, request)
        return self._vote(view, request.seat)

    def _clue(self, view: dict, request: pb.DecisionRequest) -> str:
        said = {_said(c["text"]) for c in view["clues"]}
        unused = [w for w in ASSOCIATIONS.get(view["word"], ()) if w not in said]
        return self.rng.choice(unused) if unused else random_message(request, self.rng)

    def _vote(self, view: dict, seat: int) -> int:
        word = view["word"]
        associated = set(ASSOCIATIONS.get(word, ()))
        scores = {}
        for other in view["alive"]:
            if other == seat:
                continue
            texts = [c["text"] for c in view["clues"] if c["seat"] == other]
            if any(mentions(text, word) for text in texts):
                scores[other] = -1
            else:
                scores[other] = len({w for text in texts for w in _WORD.findall(text.lower())} & associated)
        least = min(scores.values())
        return self.rng.choice(sorted(s for s, score in scores.items() if score == least))


POLICIES = {
    "undercover_association": (("undercover: clues from a word-association table; votes for the player whose "
                                "clues overlap least with its own word's associations"), AssociationPolicy),
}
