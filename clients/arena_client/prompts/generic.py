"""The generic style: works for every game, present and future.

It shows the game's canonical text view (observation_text, which the server renders for each seat),
the match parameters, the public history and the numbered legal actions, and asks for a final
"Action: ..." line naming one of them. It is stateless: each decision is one fresh chat.
"""

from __future__ import annotations

import json

from ..agent import DecisionView
from .base import Conversation, Prompt, Style, compact, referee_note

SYSTEM = ("You are an agent playing a game against other agents. At each decision you are shown your own view "
          "of the game, what has happened so far and the moves you may make. Choose the move that is best for "
          "you and answer exactly in the form asked for.")

HISTORY_SHOWN = 30      # most recent public moves listed; the observation carries the rest of the state
NUMBERED_LIMIT = 60     # longer lists (bids, numbers) are shown compactly, without numbers


def build(view: DecisionView, think: bool, conversation: Conversation = ()) -> Prompt:
    sections = [f"Game: {view.game_id}. You are seat {view.seat}."]
    if view.parameters:
        sections.append("Match parameters: " + json.dumps(view.parameters, sort_keys=True))
    sections.append("Your view of the game:\n" + view.observation_text.strip())
    if view.history:
        shown = view.history[-HISTORY_SHOWN:]
        earlier = f" (the last {len(shown)} of {len(view.history)})" if len(shown) < len(view.history) else ""
        lines = [f"  {m.move_number}. {_who(m.seat, view.seat)}: {m.text}" for m in shown]
        sections.append(f"Public history{earlier}:\n" + "\n".join(lines))
    numbered = 0 < len(view.legal_actions) <= NUMBERED_LIMIT
    if numbered:
        listed = (f"  #{i}  {action.text}" for i, action in enumerate(view.legal_actions, 1))
        sections.append("Legal actions:\n" + "\n".join(listed))
    elif view.legal_actions:
        sections.append("Legal actions: " + compact([a.text for a in view.legal_actions]))
    if view.text_action is not None:
        sections.append(f"You may also answer in free text: {view.text_action.description} "
                        f"(at most {view.text_action.max_length} characters).")
    note = referee_note(view)
    if note:
        sections.append(note)
    if view.legal_actions:
        example = view.legal_actions[0].text
        how = (f"a line 'Action: {example}' naming one legal action exactly as written above"
               + (" (or '#k' for the k-th in the list)" if numbered else ""))
        hint = f"'Action: {example}'"
    else:
        description = view.text_action.description if view.text_action else "your answer"
        how = f"a line 'Action: ...' giving {description}"
        hint = "'Action: ...'"
    if think:
        sections.append(f"Think step by step about the situation and your options, then end your reply with {how}.")
    else:
        sections.append(f"Reply with just {how}.")
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(sections)}]
    return Prompt("generic", messages, None, list(view.legal_actions), numbered=numbered, hint=hint)


def _who(seat: int, me: int) -> str:
    if seat < 0:
        return "game"
    return "you" if seat == me else f"seat {seat}"


# The papers' sampling settings do not apply; the endpoint's defaults do unless the user sets them.
STYLE = Style("generic", {}, any_game=build)
