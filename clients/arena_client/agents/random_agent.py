"""The simplest agent: a uniformly random legal action. A baseline, and a smoke test for a server."""

from __future__ import annotations

import random
import re

from ..agent import Agent, Choice, DecisionView

# Neutral words for the short random message of a dialogue turn (a clue, talk).
WORDS = ("blue", "river", "quick", "stone", "garden", "light", "paper", "window", "music", "winter",
         "circle", "orange", "silver", "forest", "candle", "ocean", "basket", "thunder")


class RandomAgent(Agent):
    """Chooses uniformly among the legal actions; `seed` makes a single-match run reproducible.
    When the decision carries a message it says the game's example message if there is one, else a
    word or two picked at random (never a forbidden word).

    It cannot invent other free text, so a request that accepts only a typed answer (no legal
    actions) raises ValueError: nothing is sent and the server's failure policy applies.
    """

    description = "uniformly random legal actions"

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def decide(self, request: DecisionView) -> Choice:
        if not request.legal_actions:
            wanted = f" ({request.text_action.description})" if request.text_action else ""
            raise ValueError(f"RandomAgent cannot answer match {request.match_id} decision {request.decision_id}: "
                             f"it has no legal actions and only accepts free text{wanted}")
        action = self._rng.choice(request.legal_actions).action_id
        message = random_message(request, self._rng) if request.message_wanted else None
        return Choice(action_id=action, message=message)


def random_message(request: DecisionView, rng: random.Random) -> str:
    """The game's example message, else one or two random words that avoid the forbidden ones."""
    spec = request.text_action
    if spec.example:
        return spec.example
    forbidden = {w.lower() for w in spec.forbidden_words}
    allowed = [w for w in WORDS if w not in forbidden and not any(re.search(rf"\b{re.escape(f)}\b", w) for f in forbidden)]
    return " ".join(rng.sample(allowed, min(len(allowed), rng.randint(1, 2))))[:spec.max_length]
