"""Helpers shared by the games' text views: reading answers, checking seat numbers and clues."""

from __future__ import annotations

import json
import re

from arena_engines.core import RANDOM_WORDS, ActionParseError

MISSING = object()      # no answer found (None is a JSON answer: null)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")
_WORD = re.compile(r"\w+")
# GameBench's JSON answer {"action": "..."}, in double or single quotes.
_GAMEBENCH_ACTION = re.compile(r"""["']action["']\s*:\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def last_match(pattern: re.Pattern, text: str) -> re.Match | None:
    """The last match of `pattern` in `text`, or None. Replies often restate the options before
    giving their answer, so the papers' parsers read the last occurrence."""
    found = None
    for found in pattern.finditer(text):
        pass
    return found


def check_seat(game_name: str, player: int, num_players: int = 2) -> None:
    """Refuses a seat number the game does not have."""
    if not 0 <= player < num_players:
        seats = " and ".join(map(str, range(num_players))) if num_players == 2 else f"0 to {num_players - 1}"
        raise ValueError(f"{game_name} has seats {seats}, not {player}")


def json_objects(text: str):
    """The flat JSON objects written in `text`, in order; chatter around them is tolerated."""
    for candidate in _JSON_OBJECT.findall(text):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def json_answer(text: str, key: str, *fields: re.Pattern):
    """The value of `key` in the first JSON object of `text` holding it (GAMA-Bench's answers), else
    group 1 of the first of `fields` that matches (JSON-like answers json.loads refuses), else MISSING."""
    for data in json_objects(text):
        if key in data:
            return data[key]
    for field in fields:
        match = field.search(text)
        if match:
            return match.group(1)
    return MISSING


def number_answer(text: str, key: str, *fields: re.Pattern):
    """json_answer for a number: `key: value` also read with single quotes, unquoted keys or trailing
    commas, then `text` itself when it is a bare number (whole_number refuses a fractional one)."""
    like_json = re.compile(rf"{key}['\"]?\s*:\s*['\"]?\s*([^'\",}}\s]+)", re.IGNORECASE)
    value = json_answer(text, key, like_json, *fields)
    if value is MISSING and _NUMBER.fullmatch(text.strip()):
        return text.strip()
    return value


def whole_number(value, help_text: str, noun: str = "a whole number") -> int:
    """An answer's value (a string or a JSON number) as an int, 34.0 included; anything else raises
    ActionParseError saying it is not `noun`, then `help_text`."""
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ActionParseError(f"{json.dumps(value)} is not {noun}. {help_text}")


def gamebench_answer(text: str) -> str:
    """The value of the last {"action": "..."} in `text` (GameBench's answer format), else `text`."""
    found = last_match(_GAMEBENCH_ACTION, text)
    if found is None:
        return text
    return found.group(1) if found.group(1) is not None else found.group(2)


def repeated_clue(clue: str, said) -> str | None:
    """Why `clue` is refused as a repeat of one of `said` ((speaker's name, clue) pairs), or None. Clues
    compare in lower case, punctuation and spacing aside."""
    words = _WORD.findall(clue.lower())
    for name, earlier in said:
        if words and _WORD.findall(earlier.lower()) == words:
            return f"{name} already said {earlier!r}; give a new clue"
    return None


def neutral_clue(rng, problem) -> str | None:
    """The first neutral word, else pair of words, in an order `rng` shuffles, that `problem` (the game's
    own rules: a reason or None) lets through, or None. Random agents say it."""
    words = list(RANDOM_WORDS)
    rng.shuffle(words)
    for candidate in words + [f"{a} {b}" for a in words for b in words if a != b]:
        if problem(candidate) is None:
            return candidate
    return None
