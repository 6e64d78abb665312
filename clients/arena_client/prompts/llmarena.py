"""LLMArena's prompt style (Chen et al., ACL 2024), in our own words after the paper's Appendix A.

Each game has three prompts: a rules prompt (the role and the rules), an observation prompt (the
changing state and a "hint" line with the legal moves) and an action prompt (the answer format).
The rules go first; observation and action prompt form one user message. Board games are stateless
(each decision is a fresh chat); Bid and Bargain keep the conversation of the match, the model's
earlier replies included. Answers: "X: (1, 3)", "X: 4", "player_0: $1.08", "player_0: Deal." or
"player_0: 1 hat 2 balls 0 apples". Paper setting: temperature 0; the released code re-prompted
an unreadable answer up to 3 times (the agent's --max-reasks 3).

The paper calls the rules prompt a system prompt and the released code sent it as a user message;
it goes here with the system role, because some chat templates refuse two user messages in a row.
"""

from __future__ import annotations

import re

from ..agent import DecisionView, LegalAction
from ..answers import AnswerFormat, amount_key
from . import generic
from .base import Conversation, Prompt, Style, join_words, money, plural, referee_note, singular


def _compose(view: DecisionView, rules: str, observation: list[str], action: str, answer: AnswerFormat, hint: str,
             conversation: Conversation = (), keep_history: bool = False) -> Prompt:
    lines = list(observation)
    note = referee_note(view)
    if note:
        lines.append(note)
    user = "\n".join(lines) + "\n" + action
    messages = [{"role": "system", "content": rules}]
    for asked, replied in conversation:
        messages += [{"role": "user", "content": asked}, {"role": "assistant", "content": replied}]
    messages.append({"role": "user", "content": user})
    return Prompt("llmarena", messages, answer, list(view.legal_actions), keep=user if keep_history else None,
                  hint=hint)


def _board_rows(board: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(cell or "_" for cell in row) + " |" for row in board]


def _answer_line(mark: str, think: bool, form: str, example: str, rule: str) -> str:
    if think:
        return (f"Think step by step about the board, then give your move on the last line, only your mark and "
                f"the {form}, like '{example}'. {rule}")
    return f"Answer with only your mark and the {form}, like '{example}'. {rule} Do not say anything else."


# ---- tic_tac_toe: "X: (x, y)", x the row and y the column --------------------------------------------

TIC_TAC_TOE_RULES = "\n".join([
    "You are playing Tic-Tac-Toe. Two players take turns marking the cells of a 3x3 grid, one with X and the "
    "other with O; the first to place three marks in a horizontal, vertical or diagonal line wins.",
    "Here is an example game that X wins in seven moves: X (1, 3), O (1, 1), X (3, 1), O (2, 2), X (3, 3), "
    "O (2, 3), X (3, 2). It ends with this board:",
    "| O | _ | X |",
    "| _ | O | O |",
    "| X | X | X |",
    "X always moves first. A moderator draws the board for you after every move. A cell that is already marked "
    "cannot be marked again. A cell is written (x, y), where x is its row and y its column, both counted from 1: "
    "(1, 1) is the top-left cell and (3, 3) the bottom-right one.",
])

_PAIR = r"\(\s*(\d)\s*,\s*(\d)\s*\)"


def _pair_key(text: str) -> str | None:
    match = re.search(_PAIR, text)
    return f"{match.group(1)},{match.group(2)}" if match else None


def _first_or_last_pair(think: bool):
    """The paper's parser took the first pair in the reply; after step-by-step thinking the move
    is on the last line, so the last marked pair counts there."""
    def find(reply: str) -> list[tuple[str, str]]:
        marked = [(m.group(0), f"{m.group(1)},{m.group(2)}") for m in re.finditer(r"[XO]\s*:\s*" + _PAIR, reply)]
        if think and marked:
            return marked[-1:]
        return [(m.group(0), f"{m.group(1)},{m.group(2)}") for m in re.finditer(_PAIR, reply)][:1]
    return find


def tic_tac_toe(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    mark = data.get("mark", "X")
    cells = ", ".join(f"({r}, {c})" for r, c in data.get("legal_cells", []))
    observation = [f"You play {mark}. The board now is:", *_board_rows(data.get("board", [])),
                   f"You may only choose one of these empty cells: {cells}."]
    action = _answer_line(mark, think, "cell", f"{mark}: (1, 3)", "The cell must be empty.")
    answer = AnswerFormat(find=_first_or_last_pair(think), key_of=lambda a: _pair_key(a.text), pick="first")
    return _compose(view, TIC_TAC_TOE_RULES, observation, action, answer, f"'{mark}: (x, y)'")


# ---- connect_four: "X: c" -------------------------------------------------------------------------

CONNECT_FOUR_RULES = (
    "You are playing Connect Four. The board has 6 rows and 7 columns. The players take turns choosing a column "
    "that still has an empty cell, and their piece drops to the lowest empty cell of that column. The first player "
    "to get four pieces in a row - horizontally, vertically or diagonally - wins; if the board fills up first, the "
    "game is a draw. X moves first.\n"
    "You play by giving the number of a column. A full column cannot be chosen. The columns are numbered 1 to 7 "
    "from left to right, and no other number may be given.")


def _column_finder(think: bool):
    def find(reply: str) -> list[tuple[str, str]]:
        found = [(m.group(0), m.group(1)) for m in re.finditer(r"\b[XO]\s*:\s*(\d)\b", reply)]
        return (found[-1:] if think else found[:1])
    return find


def connect_four(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    mark = data.get("mark", "X")
    columns = ", ".join(str(c) for c in data.get("legal_columns", []))
    board = data.get("board", [])
    header = "  " + "   ".join(str(c) for c in range(1, len(board[0]) + 1)) if board else ""
    observation = [f"You play {mark}. The board now is (top row first):", header, *_board_rows(board),
                   f"You may only choose one of these columns: {columns}."]
    action = _answer_line(mark, think, "column", f"{mark}: 4", "The column must not be full.")
    answer = AnswerFormat(find=_column_finder(think), key_of=lambda a: re.findall(r"\d+", a.text)[-1], pick="first")
    return _compose(view, CONNECT_FOUR_RULES, observation, action, answer, f"'{mark}: c'")


# ---- sealed_bid_auction (Bid): "player_0: $1.08" --------------------------------------------------------

BID_RULES = "\n".join([
    "You are taking part in a first-price sealed-bid auction.",
    "(1) Information and roles: every bidder submits one sealed bid without knowing the bids of the others. The "
    "highest bid wins the item, and the winner pays its own bid.",
    "(2) Objectives: win the item with the highest bid, without paying more than you need to.",
    "(3) Strategy: a bid that is too low may lose the item to someone else; a bid that is too high leaves you "
    "little or nothing of your valuation - the winner's curse. Think about what the other bidders are likely to "
    "bid.",
])


def _find_bid(reply: str) -> list[tuple[str, str | None]]:
    """The first bid line ("player_0: $1.08"); without one, the last dollar amount, as the paper's
    parser fell back to."""
    lines = [(m.group(0), amount_key(m.group(1)))
             for m in re.finditer(r"player_\d+\s*:\s*\$?\s*(\d+(?:\.\d+)?)", reply, re.IGNORECASE)]
    if lines:
        return lines[:1]
    return [(m.group(0), amount_key(m.group(1))) for m in re.finditer(r"\$\s*(\d+\.\d\d)\b", reply)][-1:]


def sealed_bid_auction(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("phase") != "bidding" or data.get("price_rule") != "first":
        return None
    decimals = data.get("decimals", 0)
    name = f"player_{view.seat}"
    example = money(min(data.get("max_legal_bid", 0), 108), decimals)
    observation = [f"You are {name}. Your valuation of the item is {money(data.get('my_valuation', 0), decimals)}. "
                   f"Your bid must not be higher than your valuation. If you win, your reward is your valuation minus "
                   f"your bid; otherwise it is 0."]
    for past in data.get("past_rounds", []):
        observation.insert(0, f"In round {past['round']} you bid {money(past['my_bid'], decimals)} and "
                              f"{'won' if past['won'] else 'did not win'}; the winning bid was "
                              f"{money(past['winning_bid'], decimals)}.")
    action = (f"Think step by step, then give your bid on its own line in the form '{name}: {example}'.")
    answer = AnswerFormat(find=_find_bid, key_of=lambda a: amount_key(a.text), pick="first")
    return _compose(view, BID_RULES, observation, action, answer, f"'{name}: $x.xx'", conversation,
                    keep_history=True)


# ---- negotiation (Bargain): "player_0: Deal." or "player_0: 1 hat 2 balls 0 apples" ---------------------

NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def _plan_finder(name: str, names: list[str]):
    forms = {form.lower(): i for i, noun in enumerate(names) for form in (noun, singular(noun))}
    count = (r"(\d+|" + "|".join(NUMBER_WORDS) + r")\s+("
             + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + r")\b")

    def plan(text: str) -> str | None:
        if re.search(r"\bdeal\b", text, re.IGNORECASE):
            return "agree"
        counts: dict[int, int] = {}
        for m in re.finditer(count, text, re.IGNORECASE):
            amount = m.group(1).lower()
            counts.setdefault(forms[m.group(2).lower()], int(NUMBER_WORDS.get(amount, amount)))
        if not counts:
            return None
        return "p:" + ",".join(str(counts.get(i, 0)) for i in range(len(names)))

    def find(reply: str) -> list[tuple[str, str | None]]:
        # The plan line of this player (the last one); without one, the paper's parser looked for
        # "deal" or counts of items anywhere in the reply.
        lines = re.findall(rf"{re.escape(name)}\s*:\s*(.+)", reply, re.IGNORECASE)
        if lines:
            return [(lines[-1].strip(), plan(lines[-1]))]
        key = plan(reply)
        return [(reply.strip().splitlines()[-1] if reply.strip() else "", key)] if key else []
    return find


def _terms_key(action: LegalAction) -> str | None:
    if action.text.strip().lower() == "agree":
        return "agree"
    numbers = re.findall(r"\d+", action.text)
    return "p:" + ",".join(numbers) if action.text.lower().startswith("proposal") and len(numbers) == 3 else None


def negotiation(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("phase") != "proposal" or data.get("pool") is None:
        return None                  # Bargain has no utterance turns
    names = data.get("item_names", ["hats", "balls", "apples"])
    name = f"player_{view.seat}"
    limit = data.get("turn_limit")
    rounds = f"at most {limit // 2} rounds" if limit else "a limited number of rounds"
    rules = (f"You are playing a bargaining game.\n"
             f"(1) Information and roles: two players, player_0 and player_1, divide a pool of {join_words(names)}. "
             f"Each item is worth something different to each player, and neither player knows the other's values. "
             f"You have {rounds} to reach an agreement; if you do not agree in time, the negotiation fails and both "
             f"of you leave with nothing.\n"
             f"(2) Objectives: end with items whose total value to you is as high as possible.")
    pool, values = data["pool"], data.get("my_values", [])
    turn = data.get("turn", 1)
    observation = []
    if turn == 1:
        observation.append("You make the first proposal: open the bargaining with a plan.")
    observation += [f"Round {(turn + 1) // 2}. You are {name}.",
                    f"The pool: {', '.join(plural(n, item) for n, item in zip(pool, names))}.",
                    f"Your value for one of each: {', '.join(f'{item} {v}' for item, v in zip(names, values))}."]
    latest = data.get("latest_proposal")
    if latest and latest["by"] != view.seat:
        theirs = ", ".join(plural(n, item) for n, item in zip(latest["takes"], names))
        mine = ", ".join(plural(n, item) for n, item in zip(latest["leaves"], names))
        worth = sum(n * v for n, v in zip(latest["leaves"], values))
        observation.append(f"Your opponent's plan gives it {theirs}, which leaves you {mine}, worth {worth} to you.")
    example = f"{name}: 1 {singular(names[0])} 2 {names[1]} 0 {names[2]}"
    action = (f"Do you agree to your opponent's plan? If you do, answer '{name}: Deal.'. If not, first bargain "
              f"with your opponent in free text, then give your own plan on the last line, in Arabic numerals, as "
              f"what you want for yourself: '{name}: x {names[0]} y {names[1]} z {names[2]}', for example "
              f"'{example}'. Never tell your opponent your values.")
    if not latest or latest["by"] == view.seat:
        action = (f"Bargain with your opponent in free text, then give your plan on the last line, in Arabic "
                  f"numerals, as what you want for yourself: '{name}: x {names[0]} y {names[1]} z {names[2]}', "
                  f"for example '{example}'. Never tell your opponent your values.")
    answer = AnswerFormat(find=_plan_finder(name, names), key_of=_terms_key, pick="last")
    hint = f"'{name}: Deal.' or '{name}: x {names[0]} y {names[1]} z {names[2]}'"
    return _compose(view, rules, observation, action, answer, hint, conversation, keep_history=True)


STYLE = Style("llmarena", {
    "tic_tac_toe": tic_tac_toe, "connect_four": connect_four, "sealed_bid_auction": sealed_bid_auction,
    "negotiation": negotiation,
}, temperature=0.0, max_tokens=None, fallback=generic.STYLE)
