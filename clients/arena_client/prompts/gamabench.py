"""GAMA-Bench's prompt style (Huang et al., 2024), in our own words after the paper's structure.

A system message holds the game description (N players, K rounds, numbered rules). Then, for every
past round, three messages: the round's public results ending with a lead-in to the agent's own
choice (user), the agent's choice as canonical JSON (assistant; the raw reply is not kept), and the
agent's private outcome (user). Last comes the current request: the round starts, the goal, and
the JSON answer line, e.g. {"chosen_number": "integer_between_0_and_100"}. The chat is rebuilt
from the structured observation at every decision, so no reply has to be remembered. With
reasoning, a step-by-step cue precedes the answer line and the JSON gains an "explanation" key
first. Paper settings: temperature 1, 1024 tokens at most; the released code re-asked an invalid
answer until it was valid (the agent's --max-reasks bounds that).
"""

from __future__ import annotations

import json

from ..agent import DecisionView
from ..answers import AnswerFormat, amount_key, json_values
from . import generic
from .base import Conversation, Prompt, Style, money, referee_note

STEP_BY_STEP = "Let's think step by step."


def _json_answer(key: str) -> AnswerFormat:
    return AnswerFormat(find=lambda reply: [(text, amount_key(value)) for text, value in json_values(reply, key)],
                        key_of=lambda a: amount_key(a.text), pick="first")


def _request(lead: list[str], key: str, placeholder: str, think: bool, view: DecisionView) -> tuple[str, str]:
    """The current round's request and the JSON form asked for."""
    if think:
        form = json.dumps({"explanation": "thinking_process", key: placeholder})
        lines = lead + [STEP_BY_STEP, f"Answer with this JSON, not in markdown: {form}"]
    else:
        form = json.dumps({key: placeholder})
        lines = lead + [f"Answer only with this JSON, not in markdown: {form}"]
    note = referee_note(view)
    if note:
        lines.insert(len(lead), note)
    return "\n".join(lines), form


def _chat(view: DecisionView, system: str, rounds: list[tuple[str, str, str]], request: str, key: str,
          form: str) -> Prompt:
    messages = [{"role": "system", "content": system}]
    for report, choice, outcome in rounds:
        messages += [{"role": "user", "content": report}, {"role": "assistant", "content": choice},
                     {"role": "user", "content": outcome}]
    messages.append({"role": "user", "content": request})
    answer = _json_answer(key)
    return Prompt("gamabench", messages, answer, list(view.legal_actions), hint=form)


def _canonical(key: str, value) -> str:
    return json.dumps({key: str(value)})


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
    return _chat(view, system, rounds, request, "chosen_number", form)


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
    return _chat(view, system, rounds, request, "bid", form)


STYLE = Style("gamabench", {
    "guess_two_thirds_average": guess_two_thirds_average, "sealed_bid_auction": sealed_bid_auction,
}, temperature=1.0, max_tokens=1024, fallback=generic.STYLE)
