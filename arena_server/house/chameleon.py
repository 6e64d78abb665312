"""House agent for the Chameleon: clues, votes and the guess from the cue table of the game's settings.

It reads the topic, its role, the secret word (unless it is the chameleon) and the clues said so far
(with who said them) from the observation data, and chameleon_settings.CUES / TOPIC_CUES for what may
be said about each word."""

from __future__ import annotations

import re

from arena.v1 import agent_service_pb2 as pb
from arena_engines.chameleon import mentions
from arena_engines.chameleon_settings import CUES, TOPIC_CUES, topic_words

from ..convert import from_struct
from .base import HousePolicy, random_message

_TOKEN = re.compile(r"[a-z]+")
# Words that tie clues together without saying anything about a word.
_FILLER = frozenset({"a", "an", "and", "the", "of", "or", "in", "on", "to", "it", "is", "its", "with", "for",
                     "no", "one", "two", "up", "after", "above"})


def _tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text.lower())) - _FILLER


def _said(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


def _overlap(texts: list[str], word: str) -> int:
    """How many tokens of `texts` are tokens of the cues of `word`."""
    cues = set().union(*(_tokens(cue) for cue in CUES.get(word, ())))
    return sum(len(_tokens(text) & cues) for text in texts)


class CuePolicy(HousePolicy):
    """A non-chameleon says a cue of its word nobody has said yet, and votes for the player whose clue
    shares the fewest tokens with its word's cues (a player who named the word first: only the
    chameleon can). The chameleon takes for the word the topic's word whose cues the others' clues
    match best (never one a clue named, which a non-chameleon cannot say): it says a cue of that word
    once the clues point somewhere (a cue of the topic before), votes as a non-chameleon with that
    word would, and guesses it. Ties at random; a neutral word once the cues are used up."""

    games = frozenset({"chameleon"})

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        action = request.legal_actions[0].id
        if view["phase"] == "clue":
            return action, self._clue(view, request)
        if view["phase"] == "guess":
            return action, f'I guess the code is "{self._likely_word(view)}".'
        return self._vote(view, request.seat)

    def _others_clues(self, view: dict) -> list[dict]:
        return [c for c in view["clues"] if c["seat"] != view["seat"]]

    def _likely_word(self, view: dict) -> str:
        """The chameleon's best guess of the word from the others' clues, ties at random."""
        texts = [c["text"] for c in self._others_clues(view)]
        candidates = [w for w in topic_words(view["topic"]) if not any(mentions(t, w) for t in texts)]
        candidates = candidates or list(topic_words(view["topic"]))
        best = max(_overlap(texts, w) for w in candidates)
        return self.rng.choice([w for w in candidates if _overlap(texts, w) == best])

    def _word(self, view: dict) -> str | None:
        """The secret word, or the chameleon's idea of it (None while the clues point nowhere)."""
        if view["role"] != "chameleon":
            return view["word"]
        texts = [c["text"] for c in self._others_clues(view)]
        if not any(_overlap(texts, w) for w in topic_words(view["topic"])):
            return None
        return self._likely_word(view)

    def _clue(self, view: dict, request: pb.DecisionRequest) -> str:
        said = {_said(c["text"]) for c in view["clues"]}
        word = self._word(view)
        cues = CUES[word] if word else TOPIC_CUES[view["topic"]]
        unused = [cue for cue in cues if _said(cue) not in said]
        return self.rng.choice(unused) if unused else random_message(request, self.rng)

    def _vote(self, view: dict, seat: int) -> int:
        word = self._word(view) or self._likely_word(view)
        scores = {}
        for other in range(len(view["names"])):
            if other == seat:
                continue
            texts = [c["text"] for c in view["clues"] if c["seat"] == other]
            scores[other] = -1 if any(mentions(t, word) for t in texts) else _overlap(texts, word)
        least = min(scores.values())
        return self.rng.choice(sorted(s for s, score in scores.items() if score == least))


POLICIES = {
    "chameleon_cues": (("chameleon: clues from a cue table of the topic's words; votes for the player whose clue "
                        "fits the (guessed) word least; as the chameleon, guesses the word the others' clues "
                        "fit best"), CuePolicy),
}
