"""GTBench's prompt style (Duan et al., 2024), in our own words after the paper's structure.

Every decision is a fresh two-message chat: a system prompt that is the same for every game, then
one user message made of the game's head prompt (background and rules), its observation prompt
(move histories and the state, filled from the structured observation; no board drawing except
Breakthrough's row list) and the reasoning prompt of the agent kind (Prompt agent: answer only; CoT
and SC-CoT: a thought, then the answer). Answers are moves in angle brackets, "Action: <C1R1>";
as GTBench's parser did, the last bracketed move in the reply counts. Legal moves are listed for
every game but Negotiation. Paper settings: temperature 0.2, 1024 tokens at most; GTBench never
re-asked a model (the agent's --max-reasks 0 does the same), and SC-CoT took 5 samples.
"""

from __future__ import annotations

import re
from typing import Callable

from ..agent import DecisionView, LegalAction
from ..answers import AnswerFormat, amount_key, finder
from . import generic
from .base import Conversation, Prompt, Style, compact, join_words, money, moves_by, ordinal, plural, referee_note

SYSTEM = ("You are a capable game-playing agent, and your aim is to beat the user in the game the user describes. "
          "You follow the user's instructions exactly, and you answer by choosing one of the legal moves the user "
          "gives you.")

LEGAL_LISTED_IN_REMINDER = 10      # CoT's closing reminder repeats the legal moves when there are this few


def _compose(view: DecisionView, think: bool, head: str, observation: list[str], answer: AnswerFormat,
             notation: str, list_legal: bool = True) -> Prompt:
    """head + observation + reasoning prompt in one user message after the shared system prompt."""
    labels = [answer.label_of(a) for a in view.legal_actions]
    lines = list(observation)
    if list_legal and labels:
        lines.append(f"The legal moves now are: {compact(labels)}.")
    note = referee_note(view)
    if note:
        lines.append(note)
    example = labels[0] if labels else notation
    if think:
        reminder = f": {', '.join(labels)}" if list_legal and len(labels) <= LEGAL_LISTED_IN_REMINDER else ""
        step = (f"First think about the current situation of the game, then choose one legal move. Answer strictly "
                f"in this form:\nThought: <your thinking>\nAction: {notation}\n"
                f"Remember to choose only from the legal moves{reminder}.")
    else:
        step = (f"Choose one legal move that sets you up for an advantage. Answer with 'Action:' followed by the "
                f"move in angle brackets in the form {notation}, e.g. 'Action: {example}'. Do not explain.")
    user = head + "\n" + "\n".join(lines) + "\n\n" + step
    return Prompt("gtbench", [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], answer,
                  list(view.legal_actions), hint=f"'Action: {notation}'")


def _moves_sentences(theirs: list[str], mine: list[str], to_label: Callable[[str], str], verb: str) -> list[str]:
    if not theirs and not mine:
        return ["No moves have been made yet: you move first."]
    return [f"Your opponent has {verb}: {', '.join(to_label(t) for t in theirs)}." if theirs
            else "Your opponent has not moved yet.",
            f"You have {verb}: {', '.join(to_label(t) for t in mine)}." if mine else "You have not moved yet."]


# ---- tic_tac_toe: "<CxRy>", column then row ---------------------------------------------------------

_CELL = re.compile(r"\((\d+),\s*(\d+)\)")


def _cell_key(text: str) -> str | None:
    match = _CELL.search(text)
    return f"{match.group(1)},{match.group(2)}" if match else None


def _cell_label(text: str) -> str:
    row, col = _cell_key(text).split(",")
    return f"<C{col}R{row}>"


TIC_TAC_TOE_ANSWER = AnswerFormat(
    find=finder(r"(?<![a-z])<?C(\d)\s*R(\d)>?", lambda m: f"{m.group(2)},{m.group(1)}"),
    key_of=lambda a: _cell_key(a.text), label=lambda a: _cell_label(a.text))


def tic_tac_toe(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    head = ("Tic-tac-toe is a game for two players who take turns putting their mark in an empty square of a grid. "
            "The first player to get three marks in a row - across, down or diagonally - wins; when all nine "
            "squares are filled without such a row, the game is a draw. The grid is 3 by 3 and a row of 3 wins. "
            "A move names a square by its column and then its row, both counted from 1: <C1R2> is the square in "
            "the first column and the second row. You play against the user, your opponent.")
    theirs, mine = moves_by(view)
    observation = [f"You play {view.observation_data.get('mark', '?')}."]
    observation += _moves_sentences(theirs, mine, _cell_label, "finished these moves")
    return _compose(view, think, head, observation, TIC_TAC_TOE_ANSWER, "<CxRy>")


# ---- connect_four: "<Cx>" -------------------------------------------------------------------------

def _column_key(text: str) -> str | None:
    digits = re.findall(r"\d+", text)
    return digits[-1] if digits else None


CONNECT_FOUR_ANSWER = AnswerFormat(
    find=finder(r"<C(\d)>|column\W{0,3}(\d)", lambda m: m.group(1) or m.group(2)),
    key_of=lambda a: _column_key(a.text), label=lambda a: f"<C{_column_key(a.text)}>")


def connect_four(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    head = ("Connect Four is a game for two players. Each player takes a colour and, in turn, drops one disc into "
            "a column of an upright grid with six rows and seven columns; the disc falls to the lowest free space "
            "of that column. The first player to line up four discs of their colour across, down or diagonally "
            "wins. You play against the user and want to win. A move names the column to drop the disc in, "
            "counted from 1 at the left: <C1> is the first column.")
    theirs, mine = moves_by(view)
    observation = [f"You play {view.observation_data.get('mark', '?')}."]
    observation += _moves_sentences(theirs, mine, lambda t: f"<C{_column_key(t)}>", "finished these moves")
    return _compose(view, think, head, observation, CONNECT_FOUR_ANSWER, "<Cx>")


# ---- moves already written in angle brackets: kuhn_poker, iterated_prisoners_dilemma, pig ---------------

def _word_answer(words: list[str]) -> AnswerFormat:
    pattern = r"<\s*(" + "|".join(re.escape(w) for w in words) + r")\s*>"
    return AnswerFormat(find=finder(pattern, lambda m: m.group(1).lower()),
                        key_of=lambda a: a.text.strip("<> ").lower(),
                        label=lambda a: f"<{a.text.strip('<> ')}>")


def kuhn_poker(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    head = ("Kuhn poker is a simple two-player, zero-sum poker game with imperfect information. The deck has three "
            "cards: King (K), Queen (Q) and Jack (J); the King ranks highest and the Jack lowest. Each player puts "
            "one chip in the pot and is dealt one card; the third card stays hidden. Players act in turn with two "
            "moves, <Bet> and <Pass>. A bet adds one chip to the pot; after a bet the other player either bets too "
            "(calls) or passes (folds and gives up the pot). If both players pass, or a bet is called, the higher "
            "card wins the pot; if a player folds, the one who bet wins it.")
    data = view.observation_data
    observation = [f"In this match your card is {data.get('card')}."]
    for i, move in enumerate(data.get("betting", []), 1):
        who = "you" if move["seat"] == view.seat else "your opponent"
        observation.append(f"In step {i}, {who} chose {move['text']}.")
    if not data.get("betting"):
        observation.append("No one has acted yet in this match.")
    return _compose(view, think, head, observation, _word_answer(["pass", "bet"]), "<Pass> or <Bet>")


def iterated_prisoners_dilemma(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    labels = [label.strip("<> ") for label in data.get("labels", [])]
    payoffs = data.get("payoffs")
    if len(labels) != 2 or not payoffs or data.get("players") != 2:
        return None                       # the paper's game has two prisoners
    quiet, talk = labels
    years = all(p <= 0 for row in payoffs for p in row)

    def outcome(points: float) -> str:
        if years:
            spent = -points
            return "go free" if spent == 0 else f"serve {spent:g} year{'s' if spent != 1 else ''} in prison"
        return f"get {points:g} points"

    head = (f"You and your partner in crime are questioned separately, and each of you chooses to stay {quiet} or to "
            f"{talk} against the other. If you choose <{talk}> while your partner chooses <{quiet}>, you "
            f"{outcome(payoffs[1][0])} and your partner will {outcome(payoffs[0][1])}. If you choose <{quiet}> while "
            f"your partner chooses <{talk}>, you {outcome(payoffs[0][1])} and your partner will "
            f"{outcome(payoffs[1][0])}. If you both choose <{talk}>, each of you will {outcome(payoffs[1][1])}; if "
            f"you both choose <{quiet}>, each of you will {outcome(payoffs[0][0])}. This is repeated over several "
            f"rounds, and after each round both choices are revealed.")
    observation = []
    for past in data.get("rounds", []):
        mine, theirs = past["actions"][view.seat], past["actions"][1 - view.seat]
        observation.append(f"In round {past['round']}, you chose <{labels[mine]}> and your opponent chose "
                           f"<{labels[theirs]}>.")
    observation.append(f"Round {data.get('round')}: you and your opponent now decide at the same time.")
    return _compose(view, think, head, observation, _word_answer(labels), f"<{quiet}> or <{talk}>")


def pig(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    head = (f"Pig is a dice game of risk. On your turn you roll a die as many times as you like, adding each roll "
            f"to your points for the turn; but a roll of 1 loses all the points of the turn and ends it. You may "
            f"stop at any time and bank the turn's points into your score. The first player to reach "
            f"{data.get('target')} points wins. The moves are <roll> and <stop>.")
    observation = [f"Right now your score is {data.get('self_current_score')} and your opponent's score is "
                   f"{data.get('opponent_current_score')}.",
                   f"In this turn you have earned {data.get('turn_total_score')} points so far."]
    return _compose(view, think, head, observation, _word_answer(["roll", "stop"]), "<roll> or <stop>")


# ---- breakthrough: "<a7->a6>" ---------------------------------------------------------------------

_STEP = r"([a-z]\d{1,2})\s*-+>\s*([a-z]\d{1,2})\*?"


def _step_key(text: str) -> str | None:
    match = re.search(_STEP, text.lower())
    return f"{match.group(1)}->{match.group(2)}" if match else None


BREAKTHROUGH_ANSWER = AnswerFormat(
    find=finder(r"<?\s*" + _STEP + r"\s*>?", lambda m: f"{m.group(1).lower()}->{m.group(2).lower()}"),
    key_of=lambda a: _step_key(a.text), label=lambda a: f"<{a.text}>")


def breakthrough(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    rows, columns = data.get("rows", 8), data.get("columns", 3)
    last_column = chr(ord("a") + columns - 1)
    head = (f"Breakthrough is a two-player game on a rectangular board of {rows} rows and {columns} columns; "
            f"columns are lettered from a to {last_column} left to right and rows numbered from 1 at the bottom to "
            f"{rows} at the top. Each player starts with two rows of pawns on their own side. On your turn you move "
            f"one pawn one square forward, straight or diagonally, into an empty square; a pawn may also capture an "
            f"opponent's pawn one square diagonally forward (capturing is optional, and takes one pawn at most). "
            f"You win by reaching the farthest row first, and you lose if all your pawns are captured; there are "
            f"no draws. A move is written from square to square, <a7->a6>, with * at the end for a capture, "
            f"e.g. <b5->c4*>.")
    observation = [f"You play {data.get('color')}.",
                   f"The board, one string per row from the top: {data.get('board')} "
                   f"('b' is a black pawn, 'w' a white pawn, '.' an empty square; each string starts with its "
                   f"row number)."]
    observation += _moves_sentences(data.get("opponent_moves", []), data.get("self_moves", []), lambda t: f"<{t}>",
                                    "finished these moves")
    return _compose(view, think, head, observation, BREAKTHROUGH_ANSWER, "<a7->a6>")


# ---- liars_dice: "<x dices, y value>" or "<Liar>" ------------------------------------------------------

_BID = r"(\d+)\s*dices?\s*,\s*(\d+)\s*values?"


def _bid_key(text: str) -> str | None:
    if "liar" in text.lower():
        return "liar"
    match = re.search(_BID, text, re.IGNORECASE)
    return f"{match.group(1)},{match.group(2)}" if match else None


LIARS_DICE_ANSWER = AnswerFormat(
    find=finder(r"<\s*" + _BID + r"\s*>|<\s*liar\s*>",
                lambda m: f"{m.group(1)},{m.group(2)}" if m.group(1) else "liar"),
    key_of=lambda a: _bid_key(a.text))


def liars_dice(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    faces, wild = data.get("faces", 6), data.get("wild_face")
    dice = data.get("dice_per_player", 1)
    total = 2 * dice
    wild_rule = f" Face {wild} is wild: it counts as any face." if wild else ""
    head = (f"Liar's Dice is a game of bluffing and probability for two players. Each player rolls "
            f"{plural(dice, 'dice') if dice != 1 else 'one die'} with {faces} faces and keeps it hidden.{wild_rule} "
            f"Players take turns: either bid higher than the last bid - a larger number of dice showing any face, "
            f"or the same number with a higher face - or call <Liar> on the last bid. A bid <x dices, y value> "
            f"claims that at least x of all the dice show the face y. When a bid is challenged and holds, its "
            f"bidder wins; otherwise the challenger wins. Try to outbid your opponent without being caught.")
    bids = data.get("bids", [])
    theirs = [b for b in bids if b["seat"] != view.seat]
    observation = [f"Your dice show: {', '.join(str(d) for d in data.get('my_dice', []))}.",
                   f"Your opponent's last move was {theirs[-1]['text']}." if theirs
                   else "Your opponent has not bid yet.",
                   f"Remember that there are only {total} dice in total."]
    return _compose(view, think, head, observation, LIARS_DICE_ANSWER, "<x dices, y value> or <Liar>")


# ---- sealed_bid_auction: "<x>" --------------------------------------------------------------------

AUCTION_ANSWER = AnswerFormat(
    find=finder(r"<\s*\$?\s*(\d+(?:\.\d+)?)\s*>", lambda m: amount_key(m.group(1))),
    key_of=lambda a: amount_key(a.text), label=lambda a: f"<{a.text.lstrip('$')}>")


def sealed_bid_auction(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("phase") != "bidding":
        return None
    decimals = data.get("decimals", 0)
    rule = ("the highest bidder wins the object and pays its own bid" if data.get("price_rule") == "first"
            else "the highest bidder wins the object and pays the second-highest bid")
    head = (f"This is a sealed-bid auction: all bidders submit their bids at the same time, each without knowing "
            f"the others' bids, and {rule}. A move is your bid in angle brackets: <x> bids x.")
    opponents = data.get("players", 2) - 1
    valuation = money(data.get("my_valuation", 0), decimals)
    observation = [f"You are in an auction against {plural(opponents, 'opponents')} and you want to win the object.",
                   f"Your budget equals your valuation of the object, {valuation}.",
                   f"You may bid at most {money(data.get('max_legal_bid', 0), decimals)}.",
                   "Think carefully about how much to bid.",
                   "Each opponent has a valuation of its own, which you do not know."]
    if data.get("rounds", 1) > 1:
        observation.insert(0, f"This is round {data.get('round')} of {data.get('rounds')}.")
    return _compose(view, think, head, observation, AUCTION_ANSWER, "<x>")


# ---- nim: "<pile:x, take:y>" ----------------------------------------------------------------------

_TAKE = r"pile\s*:?\s*(\d+)\s*,\s*take\s*:?\s*(\d+)"


def _take_key(text: str) -> str | None:
    match = re.search(_TAKE, text, re.IGNORECASE)
    return f"{match.group(1)},{match.group(2)}" if match else None


NIM_ANSWER = AnswerFormat(
    find=finder(r"<?\s*" + _TAKE + r"\s*>?", lambda m: f"{m.group(1)},{m.group(2)}"),
    key_of=lambda a: _take_key(a.text), label=lambda a: f"<{a.text}>")


def nim(view: DecisionView, think: bool, conversation: Conversation) -> Prompt:
    data = view.observation_data
    piles = data.get("piles", [])
    last = ("Whoever takes the last match loses, so try to force your opponent to take it." if data.get("misere", True)
            else "Whoever takes the last match wins.")
    head = (f"Nim is played with {len(piles)} piles of matches. Players take turns; on your turn you take at least "
            f"one match, and as many as you like, from a single pile, but never more than the pile holds. {last} "
            f"A move <pile:x, take:y> takes y matches from the x-th pile.")
    clauses = [f"the {ordinal(i)} pile has {plural(n, 'matches')}" for i, n in enumerate(piles, 1)]
    observation = [f"Right now, {join_words(clauses)}."]
    return _compose(view, think, head, observation, NIM_ANSWER, "<pile:x, take:y>")


# ---- negotiation: "<Proposal: [a, b, c]>", "<Utterance: [a, b, c]>", "<Agree>" ------------------------------

_TRIPLE = r"\[\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\]"
_DEAL_TERMS = re.compile(r"<\s*(proposal|utterance)\s*:\s*" + _TRIPLE + r"\s*>|<\s*agree\s*>", re.IGNORECASE)
_DEAL_TERMS_LOOSE = re.compile(r"\b(proposal|utterance)\s*:\s*" + _TRIPLE + r"|\bagree\b", re.IGNORECASE)


def _terms_key(match: re.Match) -> str:
    if not match.group(1):
        return "agree"
    return f"{match.group(1)[0].lower()}:{match.group(2)},{match.group(3)},{match.group(4)}"


def _find_terms(reply: str) -> list[tuple[str, str]]:
    """Bracketed answers; only when there are none, bare ones ("Agree", "Proposal: [1, 0, 2]")."""
    found = [(m.group(0), _terms_key(m)) for m in _DEAL_TERMS.finditer(reply)]
    return found or [(m.group(0), _terms_key(m)) for m in _DEAL_TERMS_LOOSE.finditer(reply)]


def _action_terms_key(action: LegalAction) -> str | None:
    match = _DEAL_TERMS_LOOSE.search(action.text)
    return _terms_key(match) if match else None


NEGOTIATION_ANSWER = AnswerFormat(find=_find_terms, key_of=_action_terms_key, label=lambda a: f"<{a.text}>")


def negotiation(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    names = data.get("item_names", ["peppers", "strawberries", "cherries"])
    phase = data.get("phase")
    if phase not in ("proposal", "utterance") or data.get("pool") is None:
        return None
    head = (f"You are negotiating with an opponent how to divide {join_words(names)}. Each kind of item is worth a "
            f"different amount to each of you. Every round has two stages: a proposal stage, where a player proposes "
            f"how many of each item it takes, or agrees to the other player's latest proposal; and an utterance stage, "
            f"where a player tells the other how many of each item it wants - cheap talk that need not reflect its "
            f"real intent.")
    pool = ", ".join(plural(n, name) for n, name in zip(data["pool"], names))
    values = ", ".join(f"{name} {v}" for name, v in zip(names, data.get("my_values", [])))
    observation = [f"The items to divide: {pool}. Your value for one of each: {values}."]
    moves = data.get("moves", [])
    said = [m["text"] for m in moves if m["seat"] != view.seat and m["text"].lower().startswith("utterance")]
    latest = data.get("latest_proposal")
    order = f"in the order {join_words(names)}"
    if phase == "proposal":
        if latest and latest["by"] != view.seat:
            observation.append(f"Your opponent proposes to take {latest['takes']} ({order}).")
        if said:
            observation.append(f"Its last message said it would take {said[-1].split(':', 1)[1].strip()}.")
        observation.append("If the proposal is acceptable to you, answer <Agree>; otherwise answer with your own "
                           f"proposal of what you take, <Proposal: [a, b, c]> ({order}).")
        notation = "<Agree> or <Proposal: [a, b, c]>"
    else:
        if latest and latest["by"] == view.seat:
            observation.append(f"You last proposed to take {latest['takes']} ({order}).")
        if said:
            observation.append(f"Your opponent's last message was {said[-1].split(':', 1)[1].strip()}.")
        observation.append(f"Now send your message, <Utterance: [a, b, c]>, three numbers from 0 to 4 ({order}); "
                           f"it is what you tell your opponent and need not be your real intent.")
        notation = "<Utterance: [a, b, c]>"
    return _compose(view, think, head, observation, NEGOTIATION_ANSWER, notation, list_legal=False)


STYLE = Style("gtbench", {
    "tic_tac_toe": tic_tac_toe, "connect_four": connect_four, "kuhn_poker": kuhn_poker, "breakthrough": breakthrough,
    "liars_dice": liars_dice, "sealed_bid_auction": sealed_bid_auction, "negotiation": negotiation, "nim": nim,
    "pig": pig, "iterated_prisoners_dilemma": iterated_prisoners_dilemma,
}, temperature=0.2, max_tokens=1024, fallback=generic.STYLE)
