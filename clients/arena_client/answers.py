"""Reading a model's reply as one of the legal actions.

A prompt style describes its answer format with an AnswerFormat: how to find answers in a reply
(the paper's own pattern) and how to key both those answers and the legal actions, so that
"<C3R1>", "X: (1, 3)" and "x:(1,3)" can all mean the same cell. `read` tries the paper's format
first; only when the reply holds no answer in that format does it fall back to a tolerant search
for the legal actions' own texts.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Callable, Iterable, Sequence

from .agent import LegalAction

# Lines that usually introduce the final answer; the tolerant search looks after the last one.
_ANSWER_MARKER = re.compile(r"(?im)^[\s*#>_`]*(?:final\s+)?(?:action|answer|move|choice|decision)\s*\**\s*[:=]")
_CHOICE_NUMBER = re.compile(r"^#\s*(\d+)\b")
_SPACES = re.compile(r"\s+")
_SPACE_AROUND_PUNCTUATION = re.compile(r"\s*([,:;()\[\]<>{}\-=/])\s*")
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class Reading:
    """What a reply says: the legal action it names (None: none), and the answer as found in the
    reply ("" when none was found; an answer without an action names an illegal move). On a
    decision that carries a message: the message the reply says (None: none), and `problem`, why
    the reply cannot be sent as it is (no required message, a forbidden word), for the re-ask."""

    action: LegalAction | None
    answer: str
    message: str | None = None
    problem: str = ""

    @property
    def found(self) -> bool:
        return bool(self.answer)


@dataclass(frozen=True)
class AnswerFormat:
    """A suite's answer format for one game.

    find: the answers in a reply, as (answer text, key) pairs in reply order; key None marks an
      answer in the right shape that names no possible action (e.g. a cell off the board).
    key_of: the key of a legal action (None: the format cannot express it).
    pick: "first" or "last" answer found, as the paper's parser did.
    label: the action written in this format, for lists and feedback (default: its text).
    """

    find: Callable[[str], list[tuple[str, str | None]]]
    key_of: Callable[[LegalAction], str | None]
    pick: str = "last"
    label: Callable[[LegalAction], str] | None = None

    def label_of(self, action: LegalAction) -> str:
        return self.label(action) if self.label else action.text


def read(reply: str, legal: Sequence[LegalAction], answer_format: AnswerFormat | None, *,
         numbered: bool = False) -> Reading:
    """The legal action the reply names: the paper's format first, then the legal actions' texts
    (and "#k" for the k-th action when the prompt listed them numbered)."""
    if answer_format is not None:
        found = answer_format.find(reply)
        if found:
            answer, key = found[0] if answer_format.pick == "first" else found[-1]
            by_key = {}
            for action in legal:
                action_key = answer_format.key_of(action)
                if action_key is not None:
                    by_key.setdefault(action_key, action)
            if key is not None and key in by_key:
                return Reading(by_key[key], answer)
            return Reading(None, answer)
    action, answer = match_legal_text(reply, legal, numbered=numbered)
    if action is not None:
        return Reading(action, answer)
    return Reading(None, "")


def match_legal_text(reply: str, legal: Sequence[LegalAction], *,
                     numbered: bool = False) -> tuple[LegalAction | None, str]:
    """Tolerant match: after the last answer marker ("Action:", "Answer:", ...) when there is one,
    the answer equal to a legal action's text (or "#k", the k-th action, when they were listed
    numbered), or else the legal action whose text occurs last (the longest on a tie). Spacing and
    case are ignored."""
    segment = answer_segment(reply)
    first_line = segment.splitlines()[0].strip() if segment else ""
    number = _CHOICE_NUMBER.match(first_line)
    if numbered and number and 1 <= int(number.group(1)) <= len(legal):
        return legal[int(number.group(1)) - 1], first_line
    wanted = normalize(first_line.rstrip("."))
    for action in legal:
        if normalize(action.text) == wanted:
            return action, first_line
    text = normalize(segment)
    best: tuple[int, int, LegalAction] | None = None
    for action in legal:
        for end in _occurrences(text, normalize(action.text)):
            candidate = (end, len(action.text), action)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    return (best[2], best[2].text) if best else (None, "")


def answer_segment(reply: str) -> str:
    """The part of a reply after its last answer marker ("Action:", "Answer:", ...), or the whole
    reply when it has none."""
    markers = list(_ANSWER_MARKER.finditer(reply))
    segment = reply[markers[-1].end():] if markers else reply
    return segment.strip().strip("`*\"'").strip()


def normalize(text: str) -> str:
    """Case-folded, single-spaced, with no spaces around punctuation: "X: ( 1 , 3 )" -> "x:(1,3)"."""
    text = _SPACES.sub(" ", text.casefold()).strip()
    return _SPACE_AROUND_PUNCTUATION.sub(r"\1", text)


def _occurrences(text: str, needle: str) -> Iterable[int]:
    """End offsets of `needle` in `text` as a whole token: not inside a word or a longer number."""
    if not needle:
        return
    before = (r"(?<![0-9a-z])" if needle[0].isalnum() else "") + (r"(?<!\d\.)" if needle[0].isdigit() else "")
    after = (r"(?![0-9a-z])" if needle[-1].isalnum() else "") + (r"(?!\.\d)" if needle[-1].isdigit() else "")
    for match in re.finditer(before + re.escape(needle) + after, text):
        yield match.end()


def majority(readings: Sequence[Reading]) -> int:
    """Index of the reading to follow among samples: the most frequent legal action, ties to the
    earliest sample; unreadable samples do not vote; when none is readable, the first sample."""
    votes = Counter(r.action.action_id for r in readings if r.action is not None)
    if not votes:
        return 0
    top = max(votes.values())
    return next(i for i, r in enumerate(readings) if r.action is not None and votes[r.action.action_id] == top)


# ---- helpers for the formats of the styles --------------------------------------------------------

def finder(pattern: str | re.Pattern, key: Callable[[re.Match], str | None]) -> Callable[[str], list]:
    """A `find` function: every match of `pattern`, keyed by `key`."""
    compiled = re.compile(pattern, re.IGNORECASE) if isinstance(pattern, str) else pattern
    return lambda reply: [(m.group(0), key(m)) for m in compiled.finditer(reply)]


def amount_key(text: str) -> str | None:
    """A money amount's key, so "$1.08", "1.08" and "1.080" agree and "7" equals "7.00"."""
    try:
        value = Decimal(text.strip().lstrip("$").replace(",", ""))
    except InvalidOperation:
        return None
    return f"{value:.2f}" if value.is_finite() else None


def json_values(reply: str, key: str) -> list[tuple[str, str]]:
    """The values of `key` in the JSON objects of a reply, as (object text, value as text). Single
    quotes are tolerated, as models often write them."""
    found = []
    for candidate in _JSON_OBJECT.findall(reply):
        data = None
        for attempt in (candidate, candidate.replace("'", '"')):
            try:
                data = json.loads(attempt)
                break
            except ValueError:
                continue
        if isinstance(data, dict) and key in data and not isinstance(data[key], (dict, list, bool)) \
                and data[key] is not None:
            found.append((candidate, str(data[key]).strip()))
    return found
