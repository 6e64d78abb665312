"""The generic style: works for every game, present and future.

It shows the game's canonical text view (observation_text, which the server renders for each seat),
the match parameters, the public history, what the seat has heard (in games with dialogue) and the
numbered legal actions, and asks for a final "Action: ..." line naming one of them. It is stateless:
each decision is one fresh chat.

A decision that carries a message (a clue, bargaining talk) is described as the game's spec gives it:
what the message is for, whether it is required, who will hear it, its length limit, its forbidden
words and an example. The reply then says it on a "Message: ..." line: alone when the move is fixed
(a clue turn, one legal action), followed by the "Action: ..." line otherwise. The agent sends the
action id with the message, so this works for any game's message turn without knowing its layout.
"""

from __future__ import annotations

import json
import re

from ..agent import DecisionView, LegalAction
from ..answers import AnswerFormat, match_legal_text
from .base import Conversation, Prompt, Style, compact, join_words, referee_note

SYSTEM = ("You are an agent playing a game against other agents. At each decision you are shown your own view "
          "of the game, what has happened so far and the moves you may make. Choose the move that is best for "
          "you and answer exactly in the form asked for.")

HISTORY_SHOWN = 30      # most recent public moves listed; the observation carries the rest of the state
HEARD_SHOWN = 30        # most recent messages listed
NUMBERED_LIMIT = 60     # longer lists (bids, numbers) are shown compactly, without numbers

_MESSAGE_LINE = re.compile(r"(?im)^[\s*#>_`]*message\s*\**\s*[:=]")
_ACTION_LINE = re.compile(r"(?im)^[\s*#>_`]*(?:final\s+)?action\s*\**\s*[:=]")


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
    if view.conversation:
        sections.append(_heard(view))
    numbered = 0 < len(view.legal_actions) <= NUMBERED_LIMIT
    if numbered:
        listed = (f"  #{i}  {action.text}" for i, action in enumerate(view.legal_actions, 1))
        sections.append("Legal actions:\n" + "\n".join(listed))
    elif view.legal_actions:
        sections.append("Legal actions: " + compact([a.text for a in view.legal_actions]))
    if view.message_wanted:
        sections.append(_message_rules(view))
    elif view.text_action is not None:
        sections.append(f"You may also answer in free text: {view.text_action.description} "
                        f"(at most {view.text_action.max_length} characters).")
    note = referee_note(view)
    if note:
        sections.append(note)
    if view.message_wanted and view.legal_actions:
        return _message_prompt(view, think, sections, numbered)
    if view.legal_actions:
        example = view.legal_actions[0].text
        how = (f"a line 'Action: {example}' naming one legal action exactly as written above"
               + (" (or '#k' for the k-th in the list)" if numbered else ""))
        hint = f"'Action: {example}'"
    else:
        description = view.text_action.description if view.text_action else "your answer"
        how = f"a line 'Action: ...' giving {description}"
        hint = "'Action: ...'"
    sections.append(_ending(think, how))
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(sections)}]
    return Prompt("generic", messages, None, list(view.legal_actions), numbered=numbered, hint=hint)


def _ending(think: bool, how: str) -> str:
    if think:
        return f"Think step by step about the situation and your options, then end your reply with {how}."
    return f"Reply with just {how}."


def _who(seat: int, me: int) -> str:
    if seat < 0:
        return "game"
    return "you" if seat == me else f"seat {seat}"


def _seats(seats, me: int) -> str:
    return join_words([_who(s, me) for s in seats])


def _heard(view: DecisionView) -> str:
    """What the seat has heard, oldest first: who said it and, for a private message, to whom."""
    shown = view.conversation[-HEARD_SHOWN:]
    earlier = f" (the last {len(shown)} of {len(view.conversation)})" if len(shown) < len(view.conversation) else ""
    lines = []
    for said in shown:
        to = f" (to {_seats(said.audience, view.seat)} only)" if said.audience else ""
        text = said.text.strip().replace("\n", "\n    ") or "(nothing)"
        lines.append(f"  {_who(said.seat, view.seat)}{to}: {text}")
    return f"What has been said so far{earlier}:\n" + "\n".join(lines)


def _message_rules(view: DecisionView) -> str:
    """The message this decision carries, as the game's spec describes it."""
    spec = view.text_action
    fixed = len(view.legal_actions) == 1
    need = "must" if spec.message == "required" else "may"
    lines = [f"With this decision you {need} say something, a message, on a 'Message:' line. The game describes "
             f"the decision as: {spec.description.rstrip('.')}."]
    if fixed:
        lines.append(f"Your move is fixed ('{view.legal_actions[0].text}'): what you say is your decision.")
    others = [s for s in spec.audience if s != view.seat]
    lines.append(f"Only {_seats(others, view.seat)} will hear it." if others else "Every player will hear it.")
    limits = f"At most {spec.max_length} characters."
    if spec.forbidden_words:
        limits += f" It must not contain the word{'s' if len(spec.forbidden_words) > 1 else ''} " \
                  f"{join_words([repr(w) for w in spec.forbidden_words])}."
    lines.append(limits)
    if spec.example:
        lines.append(f"An acceptable message looks like: {spec.example}")
    return "\n".join(lines)


def _message_prompt(view: DecisionView, think: bool, sections: list[str], numbered: bool) -> Prompt:
    """A decision with a message: "Message: ..." alone when the move is fixed, else followed by
    "Action: ..."; the action is read from the reply without its message."""
    legal = list(view.legal_actions)
    fixed = len(legal) == 1
    optional = view.message_wanted == "optional"
    if fixed:
        how = "a line 'Message: <your message>'"
        hint = "'Message: <your message>'"
        answer = AnswerFormat(find=lambda reply: [(_message_in(reply, True, think) or "", "fixed")],
                              key_of=lambda action: "fixed")
    else:
        example = legal[0].text
        how = ("two lines: first 'Message: <your message>'" + (" (leave it empty to say nothing)" if optional else "")
               + f", then 'Action: {example}' naming one legal action exactly as written above"
               + (" (or '#k' for the k-th in the list)" if numbered else ""))
        hint = f"'Message: <your message>' and then 'Action: {example}'"
        answer = AnswerFormat(find=lambda reply: _move_without_message(reply, legal, numbered),
                              key_of=lambda action: str(action.action_id))
    sections.append(_ending(think, how))
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(sections)}]
    return Prompt("generic", messages, answer, legal, numbered=numbered, hint=hint,
                  says=lambda reply: _message_in(reply, fixed, think))


def _message_in(reply: str, fixed: bool, think: bool) -> str | None:
    """The message of a reply: the text after its last "Message:" line, up to an "Action:" line. A
    fixed move answered plainly, without thinking aloud, is all message (a clue said as it is)."""
    markers = list(_MESSAGE_LINE.finditer(reply))
    if markers:
        rest = reply[markers[-1].end():]
        action = _ACTION_LINE.search(rest)
        text = rest[:action.start()] if action else rest
    elif fixed and not think:
        text = reply
    else:
        return None
    return _unquoted(text.strip()) or None


def _unquoted(text: str) -> str:
    """Without the quotes or bold marks a model puts around a whole message."""
    text = text.strip("*").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def _move_without_message(reply: str, legal: list[LegalAction], numbered: bool) -> list[tuple[str, str | None]]:
    """The legal action a reply names, read with its message cut out (a message may mention moves)."""
    markers = list(_MESSAGE_LINE.finditer(reply))
    if markers:
        start = markers[-1]
        rest = reply[start.end():]
        action = _ACTION_LINE.search(rest)
        reply = reply[:start.start()] + (rest[action.start():] if action else "")
    chosen, answer = match_legal_text(reply, legal, numbered=numbered)
    return [(answer, str(chosen.action_id) if chosen is not None else None)]


# The papers' sampling settings do not apply; the endpoint's defaults do unless the user sets them.
STYLE = Style("generic", {}, any_game=build)
