"""LLMArena's prompt style (Chen et al., ACL 2024), in our own words after the paper's Appendix A.

Each game has three prompts: a rules prompt (the role and the rules), an observation prompt (the
changing state and a "hint" line with the legal moves) and an action prompt (the answer format).
The rules go first; observation and action prompt form one user message. TicTacToe, ConnectFour,
Hold'em and Hanabi are stateless (each decision is a fresh chat); Bid, Bargain and Undercover keep
the conversation of the match, the model's earlier replies included. Answers: "X: (1, 3)", "X: 4",
"Action: Check and Call", "Action: Reveal Yellow Cards for another player", "player_0: $1.08",
"player_0: Deal." or "I'd like the hats.\nplayer_0: 1 hat 2 balls 0 apples" (talk, then the plan
line), "player_2: It's a fruit." (a clue) and "vote: player_1.". Paper setting: temperature 0; the
released code re-prompted an unreadable answer up to 3 times (the agent's --max-reasks 3), Hanabi's
once (its card caps the re-asks at 1).

Dialogue. Bargain's talk and Undercover's clues are messages. A Bargain reply (talk, then the plan
line) is sent whole as text, and the game's read_reply splits it as LLMArena did; the opponent's
talk is shown as the bargaining history. An Undercover clue is read from "player_k: ..." and sent as
the clue turn's message, checked first against the seat's forbidden word; a vote is an action.

Hold'em leaves out the betting history, as the released prompt did (its "opponent's last action"
line was commented out): the seat sees its cards, the community cards, its chips and what both
players have put in, and the legal actions with what each would put in. The opponent's hole cards
never reach a prompt; in Hanabi, neither do the seat's own cards. As in the paper, the Bid, Hold'em
and Hanabi action prompts always ask to think step by step (Hold'em and Hanabi: then the action
line, then an explanation), whatever the agent's reasoning mode; the parsers take the first action
line there, as the released ones did.

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
             conversation: Conversation = (), keep_history: bool = False, **dialogue) -> Prompt:
    """Rules as the system message, the kept chat, then observation + action prompt. `dialogue`:
    the Prompt's says / whole_reply / max_reasks."""
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
                  hint=hint, **dialogue)


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


# ---- negotiation (Bargain): "player_0: Deal." or talk, then "player_0: 1 hat 2 balls 0 apples" ------------

NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine".split())}
_DEAL = re.compile(r"\b(agree|agreed|deal)\b", re.IGNORECASE)
_CANONICAL_MOVE = re.compile(r"\s*(agree|proposal\s*:\s*\[\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,9})\s*\])\s*",
                             re.IGNORECASE)


def _plan_reader(names: list[str]):
    """The key of a plan line's text, read as the game reads it: item counts propose (the last
    mention of each item counts, a missing item is 0, number words zero-nine allowed), else "Deal"
    agrees; None when it names neither."""
    forms = {form.lower(): i for i, noun in enumerate(names) for form in (noun, singular(noun))}
    count = re.compile(r"\b(\d{1,9}|" + "|".join(NUMBER_WORDS) + r")\s+("
                       + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + r")\b", re.IGNORECASE)

    def plan(text: str) -> str | None:
        counts: dict[int, int] = {}
        for m in count.finditer(text):
            amount = m.group(1).lower()
            counts[forms[m.group(2).lower()]] = int(NUMBER_WORDS.get(amount, amount))
        if counts:
            return "p:" + ",".join(str(counts.get(i, 0)) for i in range(len(names)))
        return "agree" if _DEAL.search(text) else None
    return plan


def _plan_finder(name: str, names: list[str]):
    """LLMArena's reading when the move goes alone (no talk): the last plan line of this player;
    without one, "deal" or counts of items anywhere in the reply, as the paper's parser fell back to."""
    plan = _plan_reader(names)

    def find(reply: str) -> list[tuple[str, str | None]]:
        lines = re.findall(rf"{re.escape(name)}\s*:\s*(.+)", reply, re.IGNORECASE)
        if lines:
            return [(lines[-1].strip(), plan(lines[-1]))]
        key = plan(reply)
        return [(reply.strip().splitlines()[-1] if reply.strip() else "", key)] if key else []
    return find


def _reply_finder(seat: int, names: list[str]):
    """The move of a whole reply exactly as the game's read_reply finds it, since the game splits the
    reply itself: the last "player_<seat>:" plan line, or a reply that is only a canonical move. No
    fallback: a reply without its plan line is asked again rather than relayed as talk that binds."""
    plan = _plan_reader(names)
    own_line = re.compile(rf"\bplayer_{seat}\s*:([^\n]*)", re.IGNORECASE)

    def find(reply: str) -> list[tuple[str, str | None]]:
        lines = list(own_line.finditer(reply))
        if lines:
            return [(lines[-1].group(0).strip(), plan(lines[-1].group(1)))]
        move = _CANONICAL_MOVE.fullmatch(reply)
        if move:
            key = "agree" if move.group(2) is None else "p:" + ",".join(move.group(i) for i in (2, 3, 4))
            return [(move.group(1), key)]
        return [("", None)]
    return find


def _plan_label(name: str, names: list[str]):
    """A legal action as a plan line, for the re-ask's list: "player_0: 1 hat 0 balls 2 apples"."""
    def label(action: LegalAction) -> str:
        key = _terms_key(action)
        if key == "agree":
            return f"{name}: Deal."
        if key is None:
            return action.text
        counts = [int(n) for n in key[2:].split(",")]
        return f"{name}: " + " ".join(plural(n, noun) for n, noun in zip(counts, names))
    return label


def _terms_key(action: LegalAction) -> str | None:
    if action.text.strip().lower() == "agree":
        return "agree"
    numbers = re.findall(r"\d+", action.text)
    return "p:" + ",".join(numbers) if action.text.lower().startswith("proposal") and len(numbers) == 3 else None


def _new_talk(view: DecisionView) -> list[str]:
    """What the other player said since this seat last spoke (all of it if it never did): the part of
    the bargaining history the kept chat does not hold yet."""
    heard = list(view.conversation)
    mine = [i for i, said in enumerate(heard) if said.seat == view.seat]
    since = heard[mine[-1] + 1:] if mine else heard
    return [said.text.strip() for said in since if said.seat != view.seat and said.text.strip()]


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
    for talk in _new_talk(view):
        observation.append(f"Your opponent said: \"{talk}\"")
    latest = data.get("latest_proposal")
    if latest and latest["by"] != view.seat:
        theirs = ", ".join(plural(n, item) for n, item in zip(latest["takes"], names))
        mine = ", ".join(plural(n, item) for n, item in zip(latest["leaves"], names))
        worth = sum(n * v for n, v in zip(latest["leaves"], values))
        observation.append(f"Your opponent's plan gives it {theirs}, which leaves you {mine}, worth {worth} to you.")
    example = f"{name}: 1 {singular(names[0])} 2 {names[1]} 0 {names[2]}"
    plan_form = (f"in Arabic numerals, as what you want for yourself: '{name}: x {names[0]} y {names[1]} z "
                 f"{names[2]}', for example '{example}'. Never tell your opponent your values.")
    if latest and latest["by"] != view.seat:
        action = (f"Do you agree to your opponent's plan? If you do, answer '{name}: Deal.'. If not, first bargain "
                  f"with your opponent in free text, then give your own plan on the last line, {plan_form}")
    else:
        action = f"Bargain with your opponent in free text, then give your plan on the last line, {plan_form}"
    hint = f"'{name}: Deal.' or '{name}: x {names[0]} y {names[1]} z {names[2]}'"
    if view.message_wanted:
        # The talk is a message: the whole reply goes to the game, which splits off the plan line.
        action += " Everything you write before that line is said to your opponent."
        answer = AnswerFormat(find=_reply_finder(view.seat, names), key_of=_terms_key, pick="last",
                              label=_plan_label(name, names))
        return _compose(view, rules, observation, action, answer, hint, conversation, keep_history=True,
                        whole_reply=True)
    answer = AnswerFormat(find=_plan_finder(name, names), key_of=_terms_key, pick="last",
                          label=_plan_label(name, names))
    return _compose(view, rules, observation, action, answer, hint, conversation, keep_history=True)


# ---- texas_holdem_no_limit: "Action: Check and Call" ---------------------------------------------------

# The released parser: the first "action:" followed by one of the five labels, case aside.
_HOLDEM_ACTION = re.compile(r"action\s*:\s*(fold|check\s+and\s+call|raise\s+half\s+pot|raise\s+full\s+pot"
                            r"|all(?:\s+|-)in)\b", re.IGNORECASE)


def _label_key(text: str) -> str:
    return " ".join(text.replace("-", " ").split()).lower()


def _holdem_rules(chips: int) -> str:
    return "\n".join([
        f"You are playing no-limit Texas Hold'em against one opponent: one game of a single hand. Both of you start "
        f"with {chips} chips. When the hand is over, the player with more chips wins; a player left with no chips "
        f"has lost.",
        "Each player is dealt two private cards (hole cards) that only they can see. Five community cards, shared "
        "by both players, are then dealt face up in three stages: three cards (the flop), one card (the turn) and "
        "one last card (the river). There is a betting round before the flop and after each stage, four in all. "
        "When it is your turn to bet you may Fold, Check and Call, Raise Half Pot, Raise Full Pot or go All in.",
        "Your goal is to finish the game with as many chips as you can.",
        "At the showdown each player's hand is the best five cards among its two hole cards and the five community "
        "cards. The hands, from the strongest to the weakest:",
        "1. Royal flush: A, K, Q, J and 10, all of one suit.",
        "2. Straight flush: five cards in sequence, all of one suit; between two, the higher top card wins.",
        "3. Four of a kind: four cards of one rank; the higher rank wins, then the fifth card.",
        "4. Full house: three cards of one rank and two of another; the higher three win, then the higher two.",
        "5. Flush: five cards of one suit; compare the cards one by one, from the highest down.",
        "6. Straight: five cards in sequence; the higher top card wins.",
        "7. Three of a kind: three cards of one rank; the higher rank wins.",
        "8. Two pair: the higher pair wins, then the lower pair, then the fifth card.",
        "9. One pair: the higher pair wins, then the other cards from the highest down.",
        "10. High card: compare the cards one by one, from the highest down.",
        "When both hands are equal, the pot is split between the players.",
    ])


def _holdem_option(option: dict) -> str:
    chips = plural(option["chips"], "chips")
    effect = {
        "Fold": "give up the hand, and the chips you have put in",
        "Check and Call": f"put in {chips} to match your opponent's bet" if option["chips"] else
                          "put in nothing more (check)",
        "Raise Half Pot": f"raise by putting in {chips}, half the pot",
        "Raise Full Pot": f"raise by putting in {chips}, the whole pot",
        "All in": f"put in all your remaining {chips}",
    }.get(option["text"], f"put in {chips}")
    return f"  {option['text']}: {effect}."


def texas_holdem_no_limit(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished") or not data.get("hole_cards"):
        return None
    me, other = view.seat, 1 - view.seat
    board = data.get("board") or []
    chips_left, chips_in = data.get("chips_left", [0, 0]), data.get("chips_in", [0, 0])
    observation = [
        f"The hand goes on: it is your turn in the {data.get('stage', 'pre-flop')} betting round.",
        f"Your hole cards: {join_words(data['hole_cards'])}.",
        f"Community cards: {join_words(board) if board else 'none dealt yet'}.",
        f"You have {plural(chips_left[me], 'chips')} left and have put {plural(chips_in[me], 'chips')} in the pot; "
        f"your opponent has put in {plural(chips_in[other], 'chips')}.",
        "Your legal actions now:",
        *(_holdem_option(option) for option in data.get("options", [])),
    ]
    action = ("Think step by step about your cards, the community cards and the chips. Then write your action on "
              "its own line as 'Action: <action>', naming one of your legal actions exactly as written above (for "
              "example 'Action: Check and Call'), and after that line explain briefly why you chose it.")
    answer = AnswerFormat(find=lambda reply: [(m.group(0), _label_key(m.group(1)))
                                              for m in _HOLDEM_ACTION.finditer(reply)],
                          key_of=lambda a: _label_key(a.text), pick="first")
    chips = (data.get("starting_chips") or [100])[me]
    return _compose(view, _holdem_rules(chips), observation, action, answer, "'Action: <action>'")


# ---- hanabi: "Action: Reveal Yellow Cards for another player" ----------------------------------------------

HANABI_REASKS = 1       # the released code re-asked Hanabi once, not three times


def _hanabi_labels(data: dict) -> list[str]:
    positions, colours, ranks = range(data.get("hand_size", 2)), data.get("colours", []), data.get("ranks", 5)
    return ([f"Discard Card at position {i}" for i in positions] + [f"Play Card at position {i}" for i in positions]
            + [f"Reveal {c} Cards for another player" for c in colours]
            + [f"Reveal Rank {r} Cards for another player" for r in range(1, ranks + 1)])


def _copies(ranks: int) -> str:
    """Cards per colour: three of the lowest rank, one of the highest, two of each other."""
    if ranks == 1:
        return "three 1s"
    middle = list(range(2, ranks))
    two = f", two each of {join_words([str(r) for r in middle])}" if middle else ""
    return f"three 1s{two} and one {ranks}"


def _hanabi_rules(data: dict, parameters: dict) -> str:
    colours, ranks = data.get("colours", []), data.get("ranks", 5)
    hand, tokens = data.get("hand_size", 2), data.get("max_information_tokens", 3)
    lives = data.get("max_life_tokens", 1)
    both = "both fireworks" if len(colours) == 2 else "every firework"
    if parameters.get("scoring", "height") == "sum":
        score = "The team scores the values of all the cards in the fireworks, added up."
    else:
        score = "The team scores the largest card of each firework, added up over the fireworks."
    if parameters.get("zero_when_lives_lost", True):
        score += " A game that ends because the last life token is lost scores 0."
    return "\n".join([
        f"You are playing Hanabi, a cooperative card game, in a small version for two players: the deck has "
        f"{len(colours)} colours ({join_words(colours)}) and the numbers 1 to {ranks}, with {_copies(ranks)} in each "
        f"colour.",
        f"You and your partner are one team. Together you build one firework per colour by playing that colour's "
        f"cards in order: first its 1, then its 2, and so on up to {ranks}.",
        "Every card has a colour and a number. You hold your cards facing away from you: you cannot see your own "
        "cards, but you see your partner's, and your partner sees yours.",
        "On your turn you do one of three things:",
        "- Reveal: spend one information token to show your partner which of their cards have a colour, or a "
        "number, that you name. Every card of that colour or number must be pointed out, and at least one card "
        "must have it.",
        "- Discard one of your cards: it leaves the game and one information token comes back. You cannot discard "
        "while all the information tokens are available.",
        "- Play one of your cards: it must be the next card of its colour's firework. If it is not, it is discarded "
        "and the team loses a life token.",
        f"After playing or discarding you draw a new card while the deck lasts. Completing a firework (playing its "
        f"{ranks}) brings an information token back.",
        f"The game ends when the last life token is lost, when {both} are complete, or once the deck has run out "
        f"and each player has had one more turn.",
        score,
        f"In this game each player holds {plural(hand, 'cards')}, and the team has "
        f"{plural(tokens, 'information tokens')} and {plural(lives, 'life tokens')}"
        + (": a single wrong play ends the game." if lives == 1 else "."),
    ])


def _card(card: dict) -> str:
    return f"{card['colour']} {card['rank']}"


def _own_knowledge(data: dict) -> list[str]:
    """What the reveals told this seat about each of its own cards (never the cards themselves)."""
    colours, ranks = data.get("colours", []), data.get("ranks", 5)
    lines = []
    for position, known in enumerate(data.get("my_knowledge", [])):
        parts = []
        if known.get("colour"):
            parts.append(f"it was revealed to be {known['colour']}")
        elif len(known.get("possible_colours", colours)) < len(colours):
            parts.append(f"it could be {' or '.join(known['possible_colours'])}")
        if known.get("rank"):
            parts.append(f"it was revealed to be a {known['rank']}")
        elif len(known.get("possible_ranks", [])) < ranks:
            parts.append(f"its number could be {' or '.join(str(r) for r in known['possible_ranks'])}")
        lines.append(f"  the card at position {position}: " + ("; ".join(parts) if parts else "nothing is known yet"))
    return lines


def hanabi(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished") or not view.legal_actions:
        return None
    colours = data.get("colours", [])
    partner = data.get("partner", 1 - view.seat)
    observation = [
        f"It is your turn. You are player {view.seat}, your partner is player {partner}.",
        "Your partner's cards: " + ", ".join(f"position {i}: {_card(c)}"
                                             for i, c in enumerate(data.get("partner_hand", []))) + ".",
        "The fireworks: " + ", ".join(f"the {c} firework is at {h}" for c, h in zip(colours, data.get("fireworks", [])))
        + ".",
        f"Information tokens: {data.get('information_tokens')} of {data.get('max_information_tokens')}. "
        f"Life tokens: {data.get('life_tokens')} of {data.get('max_life_tokens')}.",
        "What you know about your own cards:",
        *_own_knowledge(data),
        f"Cards left in the deck: {data.get('deck_size')}.",
    ]
    last = data.get("partner_last_action")
    observation.append(f"Your partner's last action: {last['text']}." if last else "Your partner has not acted yet.")
    handled = [m for m in data.get("history", []) if m.get("seat") == partner and m.get("card")]
    if handled:
        observation.append(f"The card your partner last played or discarded: {_card(handled[-1]['card'])}.")
    observation.append("Your legal actions: " + "; ".join(a.text for a in view.legal_actions) + ".")
    action = ("Think step by step about what your partner knows and what the team needs. Then give your action on "
              "its own line as 'Action: <action>', naming one of your legal actions exactly as written, for example "
              f"'Action: {view.legal_actions[-1].text}', and after that line explain your choice.")
    labels = _hanabi_labels(data)
    pattern = re.compile(r"Action:\s*[<\"'`*\[]*\s*(" + "|".join(re.escape(label) for label in labels) + ")",
                         re.IGNORECASE)
    answer = AnswerFormat(find=lambda reply: [(m.group(0), m.group(1).lower()) for m in pattern.finditer(reply)],
                          key_of=lambda a: a.text.lower(), pick="first")
    return _compose(view, _hanabi_rules(data, view.parameters), observation, action, answer, "'Action: <action>'",
                    max_reasks=HANABI_REASKS)


# ---- undercover: a clue "player_2: It's a fruit." (the message), a vote "vote: player_1." ----------------

def _undercover_rules(rounds: int) -> str:
    return "\n".join([
        "You are playing Who is the Undercover, a party game of words.",
        "The players are split into two groups. Most of them, the civilians, share one secret word; the undercover "
        "has a different word that is close to it. Nobody is told which group they are in: you only know your own "
        "word.",
        "The game goes in rounds of two stages. In the clue stage every player still in the game describes its word "
        "with one clue, in turn. In the voting stage everyone votes, in secret, for one other player, and the player "
        "with the most votes is out of the game.",
        f"The civilians win by voting the undercover out. The undercover wins by staying in the game until the end "
        f"of the last round; there are at most {rounds} rounds.",
        "Your clue must never contain your word, and must not repeat what another player has said. A clue that is "
        "too precise helps the undercover find the civilians' word; a clue that is too vague makes you look like "
        "the undercover.",
        "If you are a civilian, find the undercover from the clues without giving your word away. If you are the "
        "undercover, blend in: work out the civilians' word from their clues, describe yours so that it sounds like "
        "theirs, and vote for civilians.",
    ])


def _clue_says(name: str, think: bool):
    """The clue of a reply: the rest of the line after "<name>:" (the first one, as LLMArena's parser
    took it); a one-line reply without it is the clue as it is."""
    marker = re.compile(rf"{re.escape(name)}\s*:\s*(.*)", re.IGNORECASE)

    def says(reply: str) -> str | None:
        found = marker.search(reply)
        if found:
            clue = found.group(1).strip()
        elif not think and "\n" not in reply.strip():
            clue = reply.strip()
        else:
            return None
        return clue or None
    return says


def _vote_finder(reply: str) -> list[tuple[str, str | None]]:
    """The first "vote:" and the first player named (or number given) after it."""
    found = re.search(r"vote\s*:\s*(.*)", reply, re.IGNORECASE)
    if found is None:
        return []
    named = re.search(r"player[ _]?(\d+)", found.group(1), re.IGNORECASE) or re.search(r"(\d+)", found.group(1))
    return [(found.group(0).strip(), named.group(1) if named else None)]


def _voted_seat(action: LegalAction) -> str | None:
    """"vote for player_3" -> "3" (LLMArena's names are player_<seat>)."""
    named = re.fullmatch(r"vote for player_(\d+)", action.text)
    return named.group(1) if named else None


def undercover(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    names = data.get("names") or []
    if data.get("phase") not in ("clue", "vote") or not names or names[0] != "player_0":
        return None                     # MAgIC's naming and prompts are not LLMArena's
    name, round_ = data["name"], data.get("round")
    rules = _undercover_rules(data.get("vote_rounds", 2))
    this_round = [c for c in data.get("clues", []) if c["round"] == round_]
    if data["phase"] == "clue":
        # The vote that ended the last round (the kept chat has the earlier ones).
        observation = [f"{names[out['seat']]} was voted out in round {out['round']}, and the game went on: it was "
                       f"not the undercover." for out in data.get("voted_out", []) if out["round"] == round_ - 1]
        observation += [f"Round {round_}, clue stage. You are {name}, and your secret word is \"{data['word']}\"."]
        others = [c for c in this_round if c["seat"] != view.seat]
        observation += (["The other players' clues so far this round:"]
                        + [f"{names[c['seat']]}: {c['text'].strip() or '(nothing)'}" for c in others]
                        if others else ["Nobody has given a clue yet this round."])
        action = ("Give one clue about your word, in a few words on one line. Do not say your word, and do not repeat "
                  "a clue another player has given. " + ("Think step by step, then give" if think else "Give")
                  + f" your clue on its own line in the form '{name}: <your clue>', for example '{name}: It's a "
                  f"fruit.'")
        answer = AnswerFormat(find=lambda reply: [(reply.strip(), "clue")], key_of=lambda a: "clue")
        return _compose(view, rules, observation, action, answer, f"'{name}: <your clue>'", conversation,
                        keep_history=True, says=_clue_says(name, think))
    observation = [f"Round {round_}, voting stage. You are {name}, and your secret word is \"{data['word']}\".",
                   "The clues of this round:"]
    observation += [f"{names[c['seat']]}: {c['text'].strip() or '(nothing)'}" for c in this_round]
    targets = [names[s] for s in data.get("alive", []) if s != view.seat]
    action = (f"Vote for one of the other players still in the game: {', '.join(targets)}. "
              + ("Think step by step about who the undercover is, then give" if think else "Give")
              + f" your vote on its own line in the form 'vote: {targets[0]}.'")
    answer = AnswerFormat(find=_vote_finder, key_of=_voted_seat, pick="first",
                          label=lambda a: f"vote: {a.text.removeprefix('vote for ')}.")
    return _compose(view, rules, observation, action, answer, f"'vote: {targets[0]}.'", conversation,
                    keep_history=True)


STYLE = Style("llmarena", {
    "tic_tac_toe": tic_tac_toe, "connect_four": connect_four, "sealed_bid_auction": sealed_bid_auction,
    "negotiation": negotiation, "texas_holdem_no_limit": texas_holdem_no_limit, "hanabi": hanabi,
    "undercover": undercover,
}, temperature=0.0, max_tokens=None, fallback=generic.STYLE)
