"""GAMA-Bench's prompt style (Huang et al., 2024), in our own words after the paper's structure.

A system message holds the game description (N players, K rounds, numbered rules). Then, for every
past round, three messages: the round's public results ending with a lead-in to the agent's own
choice (user), the agent's choice as canonical JSON (assistant; the raw reply is not kept), and the
agent's private outcome (user). Last comes the current request: the round starts, the goal, and
the JSON answer line, e.g. {"chosen_number": "integer_between_0_and_100"}. The chat is rebuilt
from the structured observation at every decision, so no reply has to be remembered, and it holds
only what the observation shows the seat (El Farol's stayers, for one, never learn the attendance).
With reasoning, a step-by-step cue precedes the answer line and the JSON gains an "explanation" key
first. Paper settings: temperature 1, 1024 tokens at most; the released code re-asked an invalid
answer until it was valid (the agent's --max-reasks bounds that).

Cards: guess_two_thirds_average, sealed_bid_auction, el_farol_bar (both information modes),
divide_the_dollar, public_goods (GAMA-Bench's per-round tokens only; MAgIC's preset gets the generic
style), diners_dilemma, battle_royale (a round is one turn: the seat's own turns carry its answers)
and pirate_game (a proposal is said as the decision's message, a vote is an action). Answers are
read as the engines read them, so what the agent plays is what the game would have parsed.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from ..agent import DecisionView, LegalAction
from ..answers import AnswerFormat, amount_key, json_values
from . import generic
from .base import Conversation, Prompt, Style, money, ordinal, plural, referee_note

STEP_BY_STEP = "Let's think step by step."


def _json_answer(key: str, key_of_value: Callable[[str], str | None] = amount_key) -> AnswerFormat:
    """The first JSON object holding `key` (GAMA-Bench read the first {...} of a reply); values and
    legal actions' texts are compared through `key_of_value` (amounts by default: "10" == "10.0")."""
    return AnswerFormat(find=lambda reply: [(text, key_of_value(value)) for text, value in json_values(reply, key)],
                        key_of=lambda a: key_of_value(a.text), pick="first")


def _word(value: str) -> str:
    """A word answer's key: "Go", " stay " -> "go", "stay"."""
    return value.strip().lower()


_OBJECT = re.compile(r"\{[^{}]*\}")


def _json_objects(reply: str) -> list[tuple[str, dict]]:
    """The flat JSON objects of a reply, as (text, object); single quotes tolerated."""
    found = []
    for candidate in _OBJECT.findall(reply):
        for attempt in (candidate, candidate.replace("'", '"')):
            try:
                data = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(data, dict):
                found.append((candidate, {str(k): v for k, v in data.items()}))
            break
    return found


def _num(value) -> str:
    """A number as the reports print it: at most 2 decimals, no trailing zeros (124, 36.67)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _request(lead: list[str], key: str, placeholder: str, think: bool, view: DecisionView) -> tuple[str, str]:
    """The current round's request and the JSON form asked for."""
    return _request_form(lead, {key: placeholder}, think, view)


def _request_form(lead: list[str], fields: dict[str, str], think: bool, view: DecisionView) -> tuple[str, str]:
    """The request for a JSON answer with these fields (placeholders as values)."""
    if think:
        form = json.dumps({"explanation": "thinking_process", **fields})
        lines = lead + [STEP_BY_STEP, f"Answer with this JSON, not in markdown: {form}"]
    else:
        form = json.dumps(fields)
        lines = lead + [f"Answer only with this JSON, not in markdown: {form}"]
    note = referee_note(view)
    if note:
        lines.insert(len(lead), note)
    return "\n".join(lines), form


def _chat(view: DecisionView, system: str, rounds: list[tuple[str, str, str]], request: str, form: str,
          answer: AnswerFormat, says: Callable[[str], str | None] | None = None) -> Prompt:
    """System message, (report, own answer, outcome) per past round, then the request. `says`: for a
    decision that carries a message, the message a reply says."""
    messages = [{"role": "system", "content": system}]
    for report, choice, outcome in rounds:
        messages += [{"role": "user", "content": report}, {"role": "assistant", "content": choice},
                     {"role": "user", "content": outcome}]
    messages.append({"role": "user", "content": request})
    return Prompt("gamabench", messages, answer, list(view.legal_actions), hint=form, says=says)


def _canonical(key: str, value) -> str:
    """The agent's own answer as the history shows it: the JSON it was asked for, the value a string
    (None stays null: Battle Royale's deliberate miss)."""
    return json.dumps({key: None if value is None else str(value)})


def _opener(data: dict) -> str:
    return f"You are one of {data.get('players')} players in a game that lasts {data.get('rounds')} rounds. The rules:"


def _rules(opener: str, rules: list[str]) -> str:
    return "\n".join([opener] + [f"{i}. {rule}" for i, rule in enumerate(rules, 1)])


# ---- guess_two_thirds_average: {"chosen_number": "..."} ---------------------------------------------

def guess_two_thirds_average(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished"):
        return None
    low, high, ratio = data.get("min", 0), data.get("max", 100), data.get("ratio", "2/3")
    system = (f"You are one of {data.get('players')} players in a game that lasts {data.get('rounds')} rounds. "
              f"The rules:\n"
              f"1. Each player chooses an integer from {low} to {high}, both included.\n"
              f"2. The average of all the chosen numbers is computed.\n"
              f"3. The target number is {ratio} of that average.\n"
              f"4. The player(s) whose number is closest to the target number win the round.")
    rounds = []
    for past in data.get("past_rounds", []):
        report = (f"Results of round {past['round']}:\n"
                  f"Average of the chosen numbers: {past['mean']:g}\n"
                  f"Target number ({ratio} of the average): {past['target']:.2f}\n"
                  f"Winning number: {past['winning_number']}\n"
                  f"Your choice was:")
        outcome = "You won this round." if past["won"] else "You lost this round."
        rounds.append((report, _canonical("chosen_number", past["my_choice"]), outcome))
    lead = [f"Round {data.get('round')} begins.",
            f"Your goal is to choose the number closest to {ratio} of the average of all the numbers chosen, "
            f"your own included."]
    request, form = _request(lead, "chosen_number", f"integer_between_{low}_and_{high}", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("chosen_number"))


# ---- sealed_bid_auction: {"bid": "..."} -----------------------------------------------------------

def sealed_bid_auction(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("phase") != "bidding":
        return None
    decimals = data.get("decimals", 0)
    price = "its own bid" if data.get("price_rule") == "first" else "the second-highest bid"
    system = (f"You are one of {data.get('players')} players in a game that lasts {data.get('rounds')} rounds. "
              f"The rules:\n"
              f"1. In every round each player receives a private valuation of the item on sale.\n"
              f"2. Without knowing the other players' bids or valuations, each player submits a written bid.\n"
              f"3. The highest bidder wins the item and pays {price}.\n"
              f"4. The winner's utility for the round is its valuation minus the price it paid; everyone else's "
              f"is 0.")
    rounds = []
    for past in data.get("past_rounds", []):
        report = (f"Results of round {past['round']}:\n"
                  f"Winning bid: {money(past['winning_bid'], decimals)}\n"
                  f"Price paid: {money(past['price'], decimals)}\n"
                  f"Your valuation was {money(past['my_valuation'], decimals)} and your bid was:")
        outcome = (f"You won the item; your utility this round is {past['utility']:g}." if past["won"]
                   else "You did not win the item; your utility this round is 0.")
        rounds.append((report, _canonical("bid", money(past["my_bid"], decimals).lstrip("$")), outcome))
    valuation = money(data.get("my_valuation", 0), decimals)
    lead = [f"Round {data.get('round')} begins.", "Your goal is to maximise your total utility.",
            f"Your valuation this round is {valuation}."]
    request, form = _request(lead, "bid", f"integer_between_0_and_{valuation.lstrip('$')}", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("bid"))


# ---- el_farol_bar: {"decision": "..."} -------------------------------------------------------------

def el_farol_bar(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished") or data.get("round") is None:
        return None
    players, percent = data["players"], data["capacity_percent"]
    uncrowded, crowded, home = data["max_payoff"], data["min_payoff"], data["home_payoff"]
    if data.get("mode") == "explicit":
        news = "After every round all players are told how many went to the bar."
    else:
        news = ("After every round only the players who went to the bar are told how many went; those who stayed "
                "home learn nothing about the bar.")
    system = _rules(_opener(data), [
        "Every round each player decides on its own, without talking to the others, whether to go to the bar or "
        "to stay home.",
        f"If {percent}% of the players or fewer go, the bar is pleasant and everyone who went gets {uncrowded}.",
        f"If more than {percent}% of the players go, the bar is crowded and everyone who went gets {crowded}.",
        f"Everyone who stays home gets {home}, whatever happens at the bar.",
        news,
    ])
    rounds = []
    for past in data.get("past_rounds", []):
        lines = [f"Results of round {past['round']}:"]
        if past.get("result_seen"):
            went, crowded_now = past["went"], past["crowded"]
            goers_got = crowded if crowded_now else uncrowded
            fun = "more" if goers_got > home else "less" if goers_got < home else "as much"
            lines += [f"{went} of the {players} players went to the bar and {past['stayed']} stayed home.",
                      f"The share that went was {_num(100 * went / players)}%, "
                      f"{'more than' if crowded_now else 'no more than'} {percent}%.",
                      f"Going to the bar was {fun} fun than staying home."]
        else:
            lines.append("You stayed home, so you do not know how many players went to the bar.")
        lines.append("Your decision was:")
        rounds.append(("\n".join(lines), _canonical("decision", past["my_decision"]),
                       f"You gained {past['my_payoff']}."))
    lead = [f"Round {data['round']} begins.",
            f"Your goal is to have as much fun as you can: go to the bar if you predict that fewer than {percent}% "
            f"of the players will go, otherwise stay home."]
    request, form = _request(lead, "decision", "go_or_stay", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("decision", _word))


# ---- divide_the_dollar: {"bid_amount": "..."} -------------------------------------------------------

def divide_the_dollar(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished") or data.get("round") is None:
        return None
    golds = data["golds"]
    system = _rules(_opener(data), [
        f"In every round the players share {golds} golds: each player, without knowing the others' bids, bids "
        f"for the number of golds it wants.",
        f"If the bids add up to {golds} or less, every player receives exactly what it bid.",
        f"If the bids add up to more than {golds}, nobody receives anything that round.",
    ])
    rounds = []
    for past in data.get("past_rounds", []):
        report = (f"Results of round {past['round']}:\n"
                  f"The bids add up to {past['total']}, "
                  f"{'more than' if past['exceeded'] else 'not more than'} {golds}.\n"
                  f"Your bid was:")
        outcome = ("The bids went over the limit, so you received nothing this round." if past["exceeded"]
                   else f"You received your bid: {past['received']} golds.")
        rounds.append((report, _canonical("bid_amount", past["my_bid"]), outcome))
    lead = [f"Round {data['round']} begins.",
            f"Your goal is to gain as many golds as you can without the bids adding up to more than {golds}."]
    request, form = _request(lead, "bid_amount", f"integer_between_0_and_{golds}", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("bid_amount"))


# ---- public_goods: {"tokens_contributed": "..."} ----------------------------------------------------

def public_goods(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    """GAMA-Bench's setting only: tokens refilled every round and the pot shared after every round.
    MAgIC's whole-game budget paid out at the end is another game's prompt (the generic one)."""
    data = view.observation_data
    if data.get("finished") or data.get("round") is None or data.get("endowment_mode") != "per_round" \
            or data.get("payout") != "each_round":
        return None
    players, endowment, multiplier, seat = data["players"], data["endowment"], _num(data["multiplier"]), view.seat
    system = _rules(_opener(data), [
        f"At the start of every round each player receives {endowment} tokens and decides, in secret, how many of "
        f"them to contribute to a public pot.",
        f"The tokens in the pot are multiplied by {multiplier}.",
        f"The multiplied pot is divided equally among all {players} players, whatever each of them contributed.",
        "Each player keeps the tokens it did not contribute.",
        f"After every round everyone's contribution is revealed. The players are seats 0 to {players - 1}; you "
        f"are seat {seat}.",
    ])

    def by_seat(values) -> str:
        return ", ".join(f"seat {i}{' (you)' if i == seat else ''}: {_num(v)}" for i, v in enumerate(values))

    rounds = []
    for past in data.get("past_rounds", []):
        mine, share = past["contributions"][seat], past["share"]
        report = (f"Results of round {past['round']}:\n"
                  f"Contributions: {by_seat(past['contributions'])}.\n"
                  f"Tokens in the pot: {past['pot']}; multiplied by {multiplier} that makes "
                  f"{_num(data['multiplier'] * past['pot'])}, so each player receives {_num(share)}.\n"
                  f"Your contribution was:")
        outcome = (f"Your gain this round is {_num(share - mine)} (your share {_num(share)} minus your contribution "
                   f"{mine}): you end the round with {_num(endowment - mine + share)} tokens.\n"
                   f"Everyone's total tokens so far: {by_seat(past['points_after'])}.")
        rounds.append((report, _canonical("tokens_contributed", mine), outcome))
    holding = _num(data["holding"])
    lead = [f"Round {data['round']} begins.",
            "Your goal is to have as many tokens as possible at the end of the game.",
            f"You have {holding} tokens this round; decide how many of them to contribute."]
    request, form = _request(lead, "tokens_contributed", f"integer_between_0_and_{holding}", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("tokens_contributed"))


# ---- diners_dilemma: {"chosen_dish": "..."} ---------------------------------------------------------

def diners_dilemma(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if data.get("finished") or data.get("round") is None:
        return None
    players = data["players"]
    costly_price, cheap_price = data["costly_price"], data["cheap_price"]
    costly_utility, cheap_utility = data["costly_utility"], data["cheap_utility"]
    rules = [
        "Every round each player orders one dish, either the costly dish or the cheap dish, without knowing what "
        "the others order.",
        f"The costly dish costs {costly_price} and the cheap dish costs {cheap_price}.",
        f"The costly dish gives a utility of {costly_utility} and the cheap dish a utility of {cheap_utility}.",
    ]
    if costly_utility - costly_price < cheap_utility - cheap_price:
        rules.append("The costly dish tastes better, but for someone paying only for its own meal it is not worth "
                     "the extra cost.")
    rules.append(f"At the end of every round the total bill is split equally among all {players} players; only "
                 f"the number of players who ordered each dish is revealed.")
    system = _rules(_opener(data), rules)
    rounds = []
    for past in data.get("past_rounds", []):
        costly, cheap, total = past["costly_count"], past["cheap_count"], past["total_cost"]
        report = (f"Results of round {past['round']}:\n"
                  f"{plural(costly, 'players')} ordered the costly dish and {cheap} the cheap dish.\n"
                  f"Total bill: {costly} × {costly_price} + {cheap} × {cheap_price} = {total}.\n"
                  f"Each player's share of the bill: {total} / {players} = {_num(past['share'])}.\n"
                  f"Your choice was:")
        dish_utility = costly_utility if past["my_choice"] == "costly" else cheap_utility
        outcome = f"Your utility this round: {dish_utility} - {total} / {players} = {past['my_utility']:.2f}."
        rounds.append((report, _canonical("chosen_dish", past["my_choice"]), outcome))
    lead = [f"Round {data['round']} begins.",
            "Your goal is to make your total satisfaction as high as possible, weighing how good your dish is "
            "against your share of the bill."]
    request, form = _request(lead, "chosen_dish", "costly_or_cheap", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("chosen_dish", _word))


# ---- battle_royale: {"target": "player_k"} or {"target": null} -------------------------------------
#
# A round is one player's turn, and every living player hears how each turn went. The agent's own
# turns are its rounds: the reports of the turns since its previous one lead in to its answer
# (canonical JSON), then comes the outcome of its own shot. A target that names nobody who can be
# shot (itself, an eliminated player, any other name) is a wasted shot, as GAMA-Bench's code and
# the engine read it; null is a deliberate miss.

_MISS, _WASTED = "null", "wasted"
_TARGET_PLACEHOLDER = "playerID_or_null"
_SEAT_NAME = re.compile(r"(?:player[\s_-]?)?(\d{1,6})", re.IGNORECASE)


def _player(seat: int, me: int = -1) -> str:
    return "you" if seat == me else f"player_{seat}"


def _target_answers(shooter: int, living: set[int]) -> AnswerFormat:
    def key(fields: dict) -> str | None:
        action = fields.get("action")
        if isinstance(action, str) and action.strip().lower() == "miss":
            return _MISS
        if "target" not in fields:
            return None
        target = fields["target"]
        if target is None or (isinstance(target, str) and target.strip().lower() in ("null", "none", "-1", "")) \
                or (isinstance(target, (int, float)) and not isinstance(target, bool) and target == -1):
            return _MISS
        if isinstance(target, str) and target.strip().lower() == _TARGET_PLACEHOLDER.lower():
            return None
        seat = None
        if isinstance(target, (int, float)) and not isinstance(target, bool) and float(target).is_integer():
            seat = int(target)
        elif isinstance(target, str) and _SEAT_NAME.fullmatch(target.strip()):
            seat = int(_SEAT_NAME.fullmatch(target.strip()).group(1))
        return f"player_{seat}" if seat in living and seat != shooter else _WASTED

    def find(reply: str) -> list[tuple[str, str | None]]:
        found = []
        for text_, fields in _json_objects(reply):
            fields = {k.lower(): v for k, v in fields.items()}
            if "target" in fields or "action" in fields:
                found.append((text_, key(fields)))
        return found

    def key_of(action: LegalAction) -> str | None:
        if action.text == "intentional miss":
            return _MISS
        if action.text == "wasted shot":
            return _WASTED
        return action.text.removeprefix("shoot ")

    def label(action: LegalAction) -> str:
        return {_MISS: "null (a deliberate miss)", _WASTED: "wasted_shot"}.get(key_of(action), key_of(action))

    return AnswerFormat(find=find, key_of=key_of, pick="first", label=label)


def _turn_report(turn: dict, me: int) -> str:
    shooter = "You" if turn["shooter"] == me else _player(turn["shooter"])
    if turn["action"] == "miss":
        what = f"{shooter} missed on purpose."
    elif turn["action"] == "wasted":
        what = f"{shooter} aimed at nobody who could be shot; the shot was wasted."
    else:
        target = _player(turn["target"], me)
        eliminated = "you are" if turn["target"] == me else f"{target} is"
        what = (f"{shooter} shot at {target} and hit: {eliminated} eliminated." if turn["hit"]
                else f"{shooter} shot at {target} and missed.")
    return f"Turn {turn['turn']}: {what} {plural(turn['players_left'], 'players')} left."


def _own_answer(turn: dict) -> str:
    if turn["action"] == "shoot":
        return _canonical("target", f"player_{turn['target']}")
    return _canonical("target", None if turn["action"] == "miss" else "wasted_shot")


def battle_royale(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    if not data.get("my_turn"):
        return None
    me, rates = view.seat, data["hit_rates"]
    order = ", ".join(f"player_{s} ({rate}%)" for s, rate in enumerate(rates))
    identity = (f"You are player_{me}: your hit rate is {data['my_hit_rate']}% and you are the "
                f"{ordinal(data['my_position'])} to shoot.")
    system = _rules(f"You are one of {data['players']} players in a game. The rules:", [
        "This is a game of survival: only one player can survive and win.",
        "The players shoot one at a time in a fixed order, from the lowest hit rate to the highest; after the "
        "last player the order starts again, skipping the eliminated.",
        f"The players and their hit rates, in shooting order: {order}. {identity}",
        "Bullets are unlimited. On your turn you shoot at one other player still in the game, who is eliminated "
        "if your shot hits.",
        "You may also miss on purpose.",
        f"The game ends when only one player is left, or after {data['max_turns']} turns; the players left then "
        f"share the win.",
    ])
    rounds, since = [], []
    for turn in data.get("past_turns", []):
        if turn["shooter"] != me:
            since.append(_turn_report(turn, me))
            continue
        report = "\n".join(since + [f"Turn {turn['turn']} was your turn. Your answer was:"])
        rounds.append((report, _own_answer(turn), _turn_report(turn, me)))
        since = []
    living = list(data["alive"])
    lead = since + [
        f"Turn {data['turn']} begins, and it is your turn to shoot.",
        "Your goal is to eliminate the other players and be the last one standing.",
        f"Players still in the game, in shooting order: "
        f"{', '.join(f'player_{s} ({rates[s]}%)' for s in living)}. {identity}",
        f"Choose the player to shoot at ({', '.join(f'player_{s}' for s in living if s != me)}), or miss on "
        f"purpose with a null target.",
    ]
    request, form = _request(lead, "target", _TARGET_PLACEHOLDER, think, view)
    return _chat(view, system, rounds, request, form, _target_answers(me, set(living)))


# ---- pirate_game: a proposal {"1": "96", "2": "0", ...} said as the decision's message; votes
# {"decision": "accept"} --------------------------------------------------------------------------
#
# A proposal turn has a single legal action ("propose") and a required message, the proposal: the
# reply's first rank-to-coins map is read, checked as the engine checks it (one whole, non-negative
# share per pirate aboard, adding up to G) and sent as the message in the paper's canonical form,
# ranks in order and string values. A vote contains accept or reject, not both (the code's check).

_PIRATE_GOALS = ("Your goals, in this order: first, stay aboard; second, get as many coins as you can; third, "
                 "when it costs you nothing, see other pirates thrown overboard.")
_RANK_KEY = re.compile(r"\s*(?:pirate[\s_-]*)?(\d{1,6})\s*(?:-?\s*(?:th|st|nd|rd))?\s*", re.IGNORECASE)
_WHOLE = re.compile(r"\s*\+?(\d{1,12})\s*")


def _split(first_rank: int, shares) -> str:
    """A proposal in the paper's form: pirate rank -> coins, the proposer first."""
    return json.dumps({str(first_rank + i): str(share) for i, share in enumerate(shares)})


def _proposal_in(fields: dict, first_rank: int, players: int, gold: int) -> tuple[bool, str | None]:
    """(whether `fields` is a proposal at all, its canonical text when it is a valid one). The code's
    {"proposal": {"3-th": ...}} reaches here as its inner object."""
    inner = next((v for k, v in fields.items() if k.strip().lower() == "proposal" and isinstance(v, dict)), None)
    ranked = {}
    for key, value in (inner or fields).items():
        match = _RANK_KEY.fullmatch(key)
        if match:
            if int(match.group(1)) in ranked:
                return True, None
            ranked[int(match.group(1))] = value
    if not ranked:
        return False, None
    shares = []
    for rank in range(first_rank, players + 1):
        value = ranked.pop(rank, None)
        if isinstance(value, float) and value.is_integer() or isinstance(value, str) and _WHOLE.fullmatch(value):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return True, None
        shares.append(value)
    if ranked or sum(shares) != gold:           # a pirate not aboard, or the wrong total
        return True, None
    return True, _split(first_rank, shares)


def _proposal_answers(first_rank: int, players: int, gold: int) -> tuple[AnswerFormat, Callable[[str], str | None]]:
    def proposals(reply: str) -> list[tuple[str, str | None]]:
        found = []
        for text_, fields in _json_objects(reply):
            is_proposal, canonical = _proposal_in(fields, first_rank, players, gold)
            if is_proposal:
                found.append((text_, canonical))
        return found

    def find(reply: str) -> list[tuple[str, str | None]]:
        # Without a proposal the reply says nothing: it is unreadable, even if it mentions the
        # action's text ("I propose ..."), so the tolerant search must not pick "propose".
        return [(text_, "propose" if canonical else None) for text_, canonical in proposals(reply)] or [("", None)]

    def says(reply: str) -> str | None:
        found = proposals(reply)
        return found[0][1] if found else None

    return AnswerFormat(find=find, key_of=lambda a: a.text, pick="first",
                        label=lambda a: "your split of the coins as JSON"), says


def _vote(value: str) -> str:
    value = value.lower()
    accepts, rejects = "accept" in value, "reject" in value
    return value if accepts == rejects else "accept" if accepts else "reject"


def pirate_game(view: DecisionView, think: bool, conversation: Conversation) -> Prompt | None:
    data = view.observation_data
    phase, players, gold, rank = data.get("phase"), data["players"], data["gold"], data["rank"]
    proposer = data["proposer"]
    # The proposer proposes; the pirates below it aboard vote; nobody else has a decision.
    if not (phase == "propose" and view.seat == proposer or phase == "vote" and view.seat > proposer):
        return None
    system = _rules(f"You are one of {players} players in a game. The rules:", [
        f"The players are pirates who have found {gold} gold coins and must agree on how to share them.",
        f"The pirates are ranked by seniority, from pirate 1 (the most senior) to pirate {players}; you are "
        f"pirate {rank}.",
        "The most senior pirate still aboard proposes how to split the coins among the pirates aboard.",
        "Every other pirate aboard then votes, in secret, to accept or reject the plan; the proposer always "
        "accepts its own. Only the number of accepts is announced.",
        "If at least half of the pirates aboard accept, the coins are paid as proposed and the game ends.",
        "Otherwise the proposer is thrown overboard, and the next most senior pirate makes a proposal.",
        "The game ends when a plan is accepted or only one pirate is left.",
    ])
    rounds = []
    for past in data.get("past_rounds", []):
        first = past["proposer"] + 1
        if past["proposer"] > view.seat:
            break                                       # overboard by then: nothing more to report
        tally = (f"{past['accepts']} of the {past['aboard']} pirates aboard accepted, "
                 f"{'at least' if past['passed'] else 'fewer than'} half.")
        if past["passed"]:
            share = past["proposal"][view.seat - past["proposer"]]
            consequence = f"The plan passed: you receive {plural(share, 'coins')}, and the game is over."
        elif past["proposer"] == view.seat:
            consequence = "The plan was rejected: you are thrown overboard."
        else:
            consequence = (f"The plan was rejected: pirate {first} is thrown overboard, and pirate {first + 1} is now "
                           f"the most senior pirate aboard.")
        if past["proposer"] == view.seat:
            report = (f"Results of round {past['round']}:\nYou were the most senior pirate aboard and proposed a "
                      f"split.\n{tally}\nYour proposal was:")
            rounds.append((report, _split(first, past["proposal"]), consequence))
            continue
        report = (f"Results of round {past['round']}:\nPirate {first} proposed this split (pirate: coins): "
                  f"{_split(first, past['proposal'])}.\n"
                  f"You were offered {plural(past['proposal'][view.seat - past['proposer']], 'coins')}.\n"
                  f"{tally}\nYour vote was:")
        rounds.append((report, _canonical("decision", past["my_vote"]), consequence))
    if phase == "propose":
        lead = [f"Round {data['round']} begins. You are the most senior pirate aboard, so you propose how to split "
                f"the {gold} coins.", _PIRATE_GOALS,
                f"Give every pirate aboard, from yourself (pirate {rank}) to pirate {players}, a whole number of "
                f"coins, 0 or more; the numbers must add up to {gold}."]
        request, form = _request_form(lead, {str(r): f"coins_for_pirate_{r}" for r in range(rank, players + 1)},
                                      think, view)
        answer, says = _proposal_answers(rank, players, gold)
        return _chat(view, system, rounds, request, form, answer, says)
    first = proposer + 1
    lead = [f"Round {data['round']} begins. Pirate {first} proposes this split (pirate: coins): "
            f"{_split(first, data['proposal'])}.",
            f"You are offered {plural(data['my_share'], 'coins')}.", _PIRATE_GOALS,
            "Decide whether to accept or reject the plan."]
    request, form = _request(lead, "decision", "accept_or_reject", think, view)
    return _chat(view, system, rounds, request, form, _json_answer("decision", _vote))


STYLE = Style("gamabench", {
    "guess_two_thirds_average": guess_two_thirds_average, "sealed_bid_auction": sealed_bid_auction,
    "el_farol_bar": el_farol_bar, "divide_the_dollar": divide_the_dollar, "public_goods": public_goods,
    "diners_dilemma": diners_dilemma, "battle_royale": battle_royale, "pirate_game": pirate_game,
}, temperature=1.0, max_tokens=1024, fallback=generic.STYLE)
