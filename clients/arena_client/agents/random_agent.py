"""The simplest agent: a uniformly random legal action. A baseline, and a smoke test for a server."""

from __future__ import annotations

import random

from ..agent import Agent, Choice, DecisionView


class RandomAgent(Agent):
    """Chooses uniformly among the legal actions; `seed` makes a single-match run reproducible.

    It cannot invent free text, so a request that accepts only a text action (no legal actions)
    raises ValueError: nothing is sent and the server's failure policy applies.
    """

    name = "random"
    description = "uniformly random legal actions"

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def decide(self, request: DecisionView) -> Choice:
        if not request.legal_actions:
            wanted = f" ({request.text_action.description})" if request.text_action else ""
            raise ValueError(f"RandomAgent cannot answer match {request.match_id} decision {request.decision_id}: "
                             f"it has no legal actions and only accepts free text{wanted}")
        return Choice(action_id=self._rng.choice(request.legal_actions).id)
