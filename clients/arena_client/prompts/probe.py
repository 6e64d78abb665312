"""Probes: the metric questions a game asks a seat during a match (MAgIC's self-awareness and
reasoning questions, magic.md §4 items 3 and 5), as one short chat with the model.

The context is the seat's own view as the probe carries it (servers send it with every probe); from
a server that sends none, what the agent kept: the seat's view at its latest decision in the match,
and what was said in public since (MatchEvents), or, before the seat's first decision, only the game
and its public parameters. The reply is the answer: one of the probe's
choices when it offers some (read tolerantly), else its text, cut to a sane length.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..agent import DecisionView, LegalAction, ProbeView
from ..answers import answer_segment, match_legal_text
from .base import Message

ANSWER_LIMIT = 4000         # characters of a free-text answer kept (room for a reasoning layout)
# The games that ask probes (MAgIC's). An agent offered none of them has no use for the capability,
# nor for the MatchEvents its answers read: one message per move of every match.
GAMES = frozenset({"chameleon", "undercover"})

SYSTEM = ("You are playing a game as {me}. Between moves you are sometimes asked a question about the game, to measure "
          "how well you follow it. Answer as that player, truthfully and briefly, in the form the question asks for. "
          "Your answer never changes the game.")


def messages(probe: ProbeView, game_id: str, view: DecisionView | None, since: Sequence[str],
             parameters: dict | None = None) -> list[Message]:
    """The probe's chat. `since`: lines said or announced in public after `view` (or, with no view
    yet, since the match began)."""
    me = _name(view, probe.seat)
    sections = [f"Game: {game_id}. You are {me}."]
    if probe.observation_text:
        sections.append("Your view of the game now:\n" + probe.observation_text.strip())
        since = ()                  # the view holds what was said so far
    elif view is not None:
        sections.append("Your view of the game at your latest move:\n" + view.observation_text.strip())
    else:
        sections.append("You have not been asked for a move in this match yet.")
        if parameters:
            sections.append("Match parameters: " + json.dumps(parameters, sort_keys=True))
    if since:
        sections.append("Said or announced since then:\n" + "\n".join(f"  {line}" for line in since))
    sections.append("Question: " + probe.question.strip())
    if probe.choices:
        sections.append("Answer with exactly one of: " + "; ".join(probe.choices) + ".")
    sections.append("Reply with just your answer.")
    return [{"role": "system", "content": SYSTEM.format(me=me)}, {"role": "user", "content": "\n\n".join(sections)}]


def answer(probe: ProbeView, reply: str) -> str | None:
    """The answer to send: the choice the reply names, else the reply's answer (after an "Answer:"
    line, if any) cut to ANSWER_LIMIT; None for an empty reply."""
    if probe.choices:
        chosen, _ = match_legal_text(reply, [LegalAction(i, c) for i, c in enumerate(probe.choices)])
        if chosen is not None:
            return chosen.text
    text = answer_segment(reply) or reply.strip()
    return text[:ANSWER_LIMIT] or None


def seat_name(view: DecisionView | None, seat: int) -> str:
    """A seat as the game names it ("Player 2") when the view says, else "seat 1"."""
    listed = view.observation_data.get("names") if view is not None else None
    if isinstance(listed, list) and 0 <= seat < len(listed) and isinstance(listed[seat], str):
        return listed[seat]
    return f"seat {seat}"


def _name(view: DecisionView | None, seat: int) -> str:
    name = seat_name(view, seat)
    return name if name == f"seat {seat}" else f"{name} (seat {seat})"
