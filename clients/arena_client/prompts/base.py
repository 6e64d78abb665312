"""What every prompt style shares: the Prompt it builds, the Style that holds its per-game cards,
and small renderers used by several styles.

A card turns one decision (the structured observation, the public history, the legal actions and
the match parameters) into chat messages plus the answer format of its suite. A style without a
card for a game hands the decision to the generic style.

Dialogue: on a decision that carries a message (view.message_wanted), a card either reads the
message from the reply (`says`: the agent then sends the action id with that message, after checking
it against the game's limits) or, when the game's own read_reply knows the suite's answer layout,
asks for the whole reply to be sent as text (`whole_reply`: the game splits it into move and talk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..agent import DecisionView, LegalAction, TextActionSpec
from ..answers import AnswerFormat, Reading, read

Message = dict[str, str]
# (user message, model reply) pairs of earlier decisions of the same match, for styles that keep a chat.
Conversation = Sequence[tuple[str, str]]


@dataclass
class Prompt:
    """Chat messages for one decision and how to read the reply."""

    style: str
    messages: list[Message]
    answer_format: AnswerFormat | None
    legal: list[LegalAction]
    numbered: bool = False           # the legal actions were listed with numbers ("#k" answers accepted)
    keep: str | None = None          # user message to keep with the reply in the match's conversation
    hint: str = ""                   # the answer format, for feedback
    says: Callable[[str], str | None] | None = None   # dialogue: the message a reply says with its action
    whole_reply: bool = False        # dialogue: send the reply as text, for the game's read_reply to split
    max_reasks: int | None = None    # the suite's bound on re-asks for this game (the agent's own applies too)
    speech: TextActionSpec | None = None   # the message's limits when the decision carries one (Style.build)

    def read(self, reply: str) -> Reading:
        """The legal action the reply names and, when the card reads messages, the message it says:
        a reply whose message the game would refuse (missing when required, too long, a forbidden
        word) names no action, so that it is asked again."""
        reading = read(reply, self.legal, self.answer_format, numbered=self.numbered)
        if self.says is None or reading.action is None:
            return reading
        message = self.says(reply)
        problem = message_problem(self.speech, message) if self.speech is not None else ""
        if problem:
            return Reading(None, reading.answer, problem=problem)
        return Reading(reading.action, reading.answer, message=message)

    def labels(self) -> list[str]:
        if self.answer_format is None:
            return [a.text for a in self.legal]
        return [self.answer_format.label_of(a) for a in self.legal]

    def feedback(self, reading: Reading) -> str:
        """The message that re-asks the model after an unreadable or illegal answer."""
        if reading.problem:
            return f"{reading.problem} Answer again in the form {self.hint}."
        if reading.found:
            problem = f"Your answer {reading.answer!r} is not a legal move now."
        else:
            problem = "I could not find your move in the required format."
        choices = f", choosing one of: {compact(self.labels())}" if self.legal else ""
        return f"{problem} Answer again in the form {self.hint}{choices}."


Card = Callable[[DecisionView, bool, Conversation], Prompt | None]


@dataclass
class Style:
    """A suite's prompt style: one card per game, and the suite's sampling defaults.

    A card returns None for a decision it does not cover (e.g. a phase its paper never had); the
    fallback style (the generic one) then builds the prompt. `any_game` is the card of a style that
    covers every game.
    """

    name: str
    cards: dict[str, Card]
    temperature: float | None = None
    max_tokens: int | None = None
    fallback: "Style | None" = field(default=None, repr=False)
    any_game: Card | None = field(default=None, repr=False)

    def covers(self, game_id: str) -> bool:
        return game_id in self.cards

    def build(self, view: DecisionView, think: bool, conversation: Conversation = ()) -> Prompt:
        card = self.cards.get(view.game_id, self.any_game)
        prompt = card(view, think, conversation) if card else None
        if prompt is not None:
            if view.message_wanted and prompt.speech is None:
                prompt.speech = view.text_action
            return prompt
        if self.fallback is None:
            raise ValueError(f"the {self.name} style has no prompt for game {view.game_id!r}")
        return self.fallback.build(view, think, conversation)


def message_problem(spec: TextActionSpec, message: str | None) -> str:
    """Why the game would refuse `message` on a decision with these limits ("" when it would not):
    the base checks every game makes (a required message, the length, forbidden whole words, case
    aside). A game's own rules (no repeated clue) are left to the referee's re-ask."""
    if message is None or not message.strip():
        return f"Your reply has no message, and this decision needs one: {spec.description.rstrip('.')}." \
            if spec.message == "required" else ""
    if len(message) > spec.max_length:
        return f"Your message has {len(message)} characters; the limit is {spec.max_length}."
    for word in spec.forbidden_words:
        if re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", message, re.IGNORECASE):
            return f"Your message may not contain the word {word!r}."
    return ""


# ---- renderers ------------------------------------------------------------------------------------

def compact(items: Sequence[str], limit: int = 40) -> str:
    """Comma-joined; a long list shows its ends and its length."""
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:5])}, …, {', '.join(items[-5:])} ({len(items)} in all)"


def referee_note(view: DecisionView) -> str:
    """The server's reason for re-asking, to put in front of the model; "" on a first ask."""
    if not view.feedback:
        return ""
    return f"Your previous answer was refused by the referee (this is attempt {view.attempt + 1}): {view.feedback}"


def moves_by(view: DecisionView) -> tuple[list[str], list[str]]:
    """The public moves of the other players and of this seat, as action texts, oldest first."""
    theirs = [m.text for m in view.history if m.seat >= 0 and m.seat != view.seat]
    mine = [m.text for m in view.history if m.seat == view.seat]
    return theirs, mine


def money(amount: int, decimals: int) -> str:
    """An amount in the smallest unit as the game writes it: 108 -> "$1.08" with 2 decimals, else "108"."""
    return f"${amount / 100:.2f}" if decimals == 2 else str(amount)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def join_words(words: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def plural(count: int, noun: str) -> str:
    """"1 hat", "2 hats" from the plural noun."""
    return f"{count} {singular(noun) if count == 1 else noun}"


def singular(noun: str) -> str:
    """"hats" -> "hat", "matches" -> "match", "cherries" -> "cherry"."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "xes", "sses")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") else noun
