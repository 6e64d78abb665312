"""GAMA-Bench prompt cards (arena_client.prompts.gamabench) for El Farol Bar, Divide the Dollar,
Public Goods, Diner's Dilemma, Battle Royale and the Pirate Game.

Each prompt is built from a real engine state (the gamabench preset, a few scripted rounds, or any
decision of a seeded random match) turned into the DecisionView the SDK would receive, so the checks
are on the prompt a live match produces: the chat's structure (system, three messages per past
round, the request), the canonical echoes of the seat's own answers, nothing the seat may not know,
and replies in the card's JSON read as the engine itself reads them. Then `arena-agent llm --style
gamabench` plays short matches of each game on a real server against the local fake OpenAI endpoint.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass

import pytest
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import DecisionView, LegalAction, PublicMove, TextActionSpec
from arena_client.agent import Utterance
from arena_client.agents.llm_agent import LLMAgent
from arena_client.convert import struct_to_dict
from arena_client.prompts import STYLES, style_for
from arena_engines import load_game
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from ..conftest import agent_process, start_server
from ..e2e.helpers import matches_of, run_tournament, wait_connected
from .fake_openai import FakeOpenAI, text

pytestmark = pytest.mark.timeout(120)

KEY = "test-key"
GAMABENCH = STYLES["gamabench"]
SMALL = {"players": 3, "rounds": 3}
BR = {"players": 3, "max_turns": 10}


# ---- engine states and the views the SDK makes of them -------------------------------------------

def play(game: str, moves, *, preset: str = "gamabench", parameters: dict | None = None, seed: int = 1):
    """The state after `moves` (joint moves as lists, single moves and chance outcomes as ids, a
    move said with a message as (id, message)), then any chance node left drawn with a seeded RNG."""
    state = load_game(game, SMALL if parameters is None else parameters, preset=preset).new_initial_state()
    for move in moves:
        if isinstance(move, list):
            state.apply_actions(move)
        elif isinstance(move, tuple):
            state.apply_action(*move)
        else:
            state.apply_action(move)
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
    return state


def view_of(state, seat: int, *, attempt: int = 0, feedback: str = "") -> DecisionView:
    """What the SDK hands the agent: the observation data through a protobuf Struct (as on the wire,
    then arena_client.convert), the legal actions, the text spec and the conversation."""
    data = struct_pb2.Struct()
    data.update(state.observation_dict(seat))
    spec = state.text_action_spec(seat)
    text_action = None if spec is None else TextActionSpec(
        spec["description"], spec["max_length"], tuple(spec.get("forbidden_words", ())), spec.get("message"),
        spec.get("example", ""), tuple(spec.get("audience") or ()))
    return DecisionView(
        match_id="m1", decision_id=1, seat=seat, game_id=state.game.spec.game_id,
        observation_text=state.observation_string(seat), observation_data=struct_to_dict(data),
        history=[PublicMove(i, s, a, t) for i, (s, a, t) in enumerate(state.public_history())],
        legal_actions=[LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)],
        text_action=text_action, deadline=None, time_remaining=30.0, attempt=attempt, feedback=feedback,
        parameters=dict(state.game.parameters),
        conversation=[Utterance(u["move"], u["seat"], u["text"], tuple(u.get("to") or ()))
                      for u in state.conversation(seat)])


def roles(prompt) -> list[str]:
    return [m["role"] for m in prompt.messages]


def chat_roles(past_rounds: int) -> list[str]:
    return ["system"] + ["user", "assistant", "user"] * past_rounds + ["user"]


def everything(prompt) -> str:
    return "\n".join(m["content"] for m in prompt.messages)


# ---- the simultaneous games: one case per card ------------------------------------------------------

@dataclass(frozen=True)
class Case:
    game: str
    key: str                    # the answer's JSON key
    moves: list                 # joint moves of two rounds; the view is taken in round 3
    seat: int
    form: str                   # the answer line's JSON
    reply: str                  # a reply in the card's format (chatter around it)
    action: str                 # the legal action it names
    bad: tuple[str, ...]        # replies in the card's shape that name no legal action
    preset: str = "gamabench"


CASES = [
    Case("el_farol_bar", "decision", [[0, 1, 1], [1, 0, 1]], 0, '{"decision": "go_or_stay"}',
         'The bar was crowded last time.\n{"decision": "Stay"}', "stay",
         ('{"decision": "maybe"}', '{"decision": "go_or_stay"}')),
    Case("el_farol_bar", "decision", [[0, 1, 1], [1, 0, 1]], 0, '{"decision": "go_or_stay"}',
         '{"decision": "go"}', "go", ('{"decision": "home"}',), preset="gamabench_explicit"),
    Case("divide_the_dollar", "bid_amount", [[20, 37, 41], [25, 11, 13]], 0,
         '{"bid_amount": "integer_between_0_and_100"}', 'Sure: {"bid_amount": "33"}', "33",
         ('{"bid_amount": "12.5"}', '{"bid_amount": "2000"}', '{"bid_amount": "-4"}')),
    Case("public_goods", "tokens_contributed", [[17, 72, 9], [8, 0, 15]], 1,
         '{"tokens_contributed": "integer_between_0_and_20"}', '{"tokens_contributed": 7}', "7",
         ('{"tokens_contributed": "-3"}', '{"tokens_contributed": "seven"}', '{"tokens_contributed": "101"}')),
    Case("diners_dilemma", "chosen_dish", [[0, 1, 0], [1, 1, 0]], 0, '{"chosen_dish": "costly_or_cheap"}',
         "{'chosen_dish': 'Costly'}", "costly", ('{"chosen_dish": "soup"}', '{"chosen_dish": "costly_or_cheap"}')),
]
IDS = [f"{c.game}-{c.preset}" for c in CASES]


def case_state(case: Case):
    return play(case.game, case.moves, preset=case.preset)


def own_echoes(case: Case, state) -> list[str]:
    """The seat's answers of the past rounds as canonical JSON, from the moves played (the engine's
    action text is the answer's value)."""
    return [json.dumps({case.key: state.action_to_string(case.seat, joint[case.seat])}) for joint in case.moves]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_each_past_round_is_report_canonical_answer_and_private_outcome(case):
    state = case_state(case)
    prompt = GAMABENCH.build(view_of(state, case.seat), False)
    assert prompt.style == "gamabench" and roles(prompt) == chat_roles(len(case.moves))
    messages = [m["content"] for m in prompt.messages]
    assert messages[0].startswith("You are one of 3 players in a game that lasts 3 rounds. The rules:\n1. ")
    assert [messages[2], messages[5]] == own_echoes(case, state)
    for report in (messages[1], messages[4]):
        assert report.startswith("Results of round ") and report.endswith(" was:")
    assert messages[1].startswith("Results of round 1:") and messages[4].startswith("Results of round 2:")
    request = messages[-1]
    assert request.startswith("Round 3 begins.") and request.endswith(f"not in markdown: {case.form}")
    assert "step by step" not in request
    # With reasoning: the step-by-step cue, then the JSON with "explanation" first.
    thinking = GAMABENCH.build(view_of(state, case.seat), True).messages[-1]["content"]
    form = json.loads(case.form)
    assert thinking.endswith("Let's think step by step.\nAnswer with this JSON, not in markdown: "
                             + json.dumps({"explanation": "thinking_process", **form}))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_replies_are_read_as_the_engine_reads_them(case):
    state = case_state(case)
    prompt = GAMABENCH.build(view_of(state, case.seat), False)
    reading = prompt.read(case.reply)
    assert reading.action is not None and reading.action.text == case.action
    assert reading.action.action_id == state.parse_action(case.seat, case.reply)
    explained = json.dumps({"explanation": f"I pick {case.action}.", case.key: case.action})
    assert prompt.read(explained).action == reading.action
    for bad in case.bad:
        refused = prompt.read(bad)
        assert refused.found and refused.action is None, bad


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_bad_reply_is_reasked_in_the_cards_format_through_the_openai_client(case):
    state = case_state(case)
    view = view_of(state, case.seat)
    with FakeOpenAI(api_key=KEY) as model:
        model.push(text(case.bad[0]), text(case.reply))
        agent = LLMAgent("fake", base_url=model.base_url, api_key=KEY, style="gamabench", retry_delay=0.01)
        choice = asyncio.run(agent.decide(view))
        first, second = model.requests
    assert next(a.text for a in view.legal_actions if a.action_id == choice.action_id) == case.action
    assert choice.extra["style"] == "gamabench" and choice.extra["reasks"] == 1
    assert first["messages"] == GAMABENCH.build(view, False).messages and first["temperature"] == 1
    assert second["messages"][-2] == {"role": "assistant", "content": case.bad[0]}
    assert f"Answer again in the form {case.form}" in second["messages"][-1]["content"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_referees_feedback_on_a_server_reask_is_in_the_request(case):
    feedback = "the answer was not understood (1 retry left)"
    prompt = GAMABENCH.build(view_of(case_state(case), case.seat, attempt=1, feedback=feedback), True)
    request = prompt.messages[-1]["content"]
    assert f"refused by the referee (this is attempt 2): {feedback}\nLet's think step by step." in request


# ---- every decision of seeded random matches -------------------------------------------------------------

# (game, preset, parameters): short matches of every card, at their GAMA-Bench presets
RANDOM_MATCHES = [
    ("el_farol_bar", "gamabench", SMALL), ("el_farol_bar", "gamabench_explicit", SMALL),
    ("divide_the_dollar", "gamabench", SMALL), ("public_goods", "gamabench", SMALL),
    ("diners_dilemma", "gamabench", SMALL), ("battle_royale", "gamabench", BR),
    ("pirate_game", "gamabench", {"players": 4}),
]
KEYS = {"el_farol_bar": "decision", "divide_the_dollar": "bid_amount", "public_goods": "tokens_contributed",
        "diners_dilemma": "chosen_dish", "pirate_game": "decision"}


def answer_for(game: str, state, seat: int, action: int, message: str | None) -> str:
    """The seat's answer in the card's JSON: what a model replies and what the history echoes."""
    if message is not None:                          # a pirate's proposal
        return message
    text_ = state.action_to_string(seat, action)
    if game == "battle_royale":
        return json.dumps({"target": {"intentional miss": None, "wasted shot": "wasted_shot"}.get(
            text_, text_.removeprefix("shoot "))})
    return json.dumps({KEYS[game]: text_})


@pytest.mark.parametrize("game,preset,parameters", RANDOM_MATCHES, ids=[f"{g}-{p}" for g, p, _ in RANDOM_MATCHES])
def test_every_decision_of_a_seeded_random_match_replays_what_the_seat_answered(game, preset, parameters):
    state = load_game(game, parameters, preset=preset).new_initial_state()
    rng = random.Random(11)
    answered = {seat: [] for seat in range(state.num_players)}     # each seat's answers, as canonical JSON
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        current = state.current_player()
        seats = [s for s in range(state.num_players) if state.legal_actions(s)] if current < 0 else [current]
        moves = {}
        for seat in seats:
            prompt = GAMABENCH.build(view_of(state, seat), rng.random() < 0.5)
            assert prompt.style == "gamabench" and roles(prompt) == chat_roles(len(answered[seat]))
            assert [m["content"] for m in prompt.messages if m["role"] == "assistant"] == answered[seat]
            action = rng.choice(state.legal_actions(seat))
            wanted = (state.text_action_spec(seat) or {}).get("message")
            message = state.random_message(seat, rng) if wanted else None
            answer = answer_for(game, state, seat, action, message)
            reading = prompt.read(f"Let me think about it.\n{answer}")
            assert reading.action is not None and reading.action.action_id == action == state.parse_action(seat, answer)
            assert (prompt.says(answer) if prompt.says else None) == message
            moves[seat] = (action, message, answer)
            decisions += 1
        if current < 0:
            state.apply_actions([moves[s][0] if s in moves else 0 for s in range(state.num_players)])
        else:
            state.apply_action(*moves[current][:2]) if moves[current][1] else state.apply_action(moves[current][0])
        for seat, (_, _, answer) in moves.items():
            answered[seat].append(answer)
    assert decisions >= state.num_players


# ---- what each seat may not know ------------------------------------------------------------------------

# (game, preset, seat, two histories that differ only in what `seat` is never told)
HIDDEN = [
    ("el_farol_bar", "gamabench", 0, [[0, 1, 1], [0, 1, 0]], [[0, 0, 0], [0, 1, 1]]),        # stayed home twice
    ("divide_the_dollar", "gamabench", 0, [[20, 37, 41], [25, 11, 13]], [[20, 30, 48], [25, 12, 12]]),
    ("diners_dilemma", "gamabench", 0, [[0, 1, 0], [1, 1, 0]], [[0, 0, 1], [1, 0, 1]]),
]


@pytest.mark.parametrize("game,preset,seat,first,second", HIDDEN, ids=[h[0] for h in HIDDEN])
def test_other_seats_choices_never_reach_the_prompt(game, preset, seat, first, second):
    one, other = play(game, first, preset=preset), play(game, second, preset=preset)
    assert one.result_details()["rounds"] != other.result_details()["rounds"]     # the worlds do differ
    prompt = GAMABENCH.build(view_of(one, seat), False)
    assert prompt.messages == GAMABENCH.build(view_of(other, seat), False).messages
    assert roles(prompt) == chat_roles(2)


def test_el_farol_implicit_tells_the_attendance_only_to_those_who_went():
    moves = [[0, 1, 1], [0, 1, 0]]                   # seat 0 stays twice; seat 1 goes twice
    implicit = play("el_farol_bar", moves)
    stayed = everything(GAMABENCH.build(view_of(implicit, 0), False))
    assert "went to the bar and" not in stayed and "%, " not in stayed
    assert stayed.count("You stayed home, so you do not know how many players went to the bar.") == 2
    went = GAMABENCH.build(view_of(implicit, 1), False).messages
    assert "2 of the 3 players went to the bar and 1 stayed home." in went[1]["content"]
    assert "The share that went was 66.67%, more than 60%." in went[1]["content"]
    assert "Going to the bar was less fun than staying home." in went[1]["content"]
    assert went[3]["content"] == "You gained 0." and went[6]["content"] == "You gained 10."
    assert "1 of the 3 players went to the bar" in went[4]["content"]
    assert "only the players who went to the bar are told" in went[0]["content"]
    explicit = GAMABENCH.build(view_of(play("el_farol_bar", moves, preset="gamabench_explicit"), 0), False).messages
    assert "2 of the 3 players went to the bar and 1 stayed home." in explicit[1]["content"]
    assert explicit[3]["content"] == "You gained 5." and "all players are told" in explicit[0]["content"]


def test_divide_the_dollar_reports_only_the_sum_and_the_seats_own_bid():
    state = play("divide_the_dollar", [[20, 37, 41], [25, 11, 13]])
    prompt = GAMABENCH.build(view_of(state, 0), False)
    text_ = everything(prompt)
    assert not re.search(r"\b(37|41|11|13)\b", text_)
    assert "The bids add up to 98, not more than 100." in prompt.messages[1]["content"]
    assert prompt.messages[3]["content"] == "You received your bid: 20 golds."
    assert "The bids add up to 49" in prompt.messages[4]["content"]
    over = GAMABENCH.build(view_of(play("divide_the_dollar", [[60, 30, 20]]), 0), False)
    assert "The bids add up to 110, more than 100." in over.messages[1]["content"]
    assert over.messages[3]["content"] == "The bids went over the limit, so you received nothing this round."


def test_diners_dilemma_reports_counts_bill_share_and_own_utility():
    prompt = GAMABENCH.build(view_of(play("diners_dilemma", [[0, 1, 0], [1, 1, 0]]), 0), False)
    rules = prompt.messages[0]["content"]
    assert "costs 20 and the cheap dish costs 10" in rules
    assert "utility of 20 and the cheap dish a utility of 15" in rules
    assert "not worth the extra cost" in rules                     # 20 - 20 < 15 - 10
    assert "1 player ordered the costly dish and 2 the cheap dish." in prompt.messages[1]["content"]
    assert "Total bill: 1 × 20 + 2 × 10 = 40." in prompt.messages[1]["content"]
    assert "Each player's share of the bill: 40 / 3 = 13.33." in prompt.messages[1]["content"]
    assert prompt.messages[3]["content"] == "Your utility this round: 15 - 40 / 3 = 1.67."
    assert prompt.messages[6]["content"] == "Your utility this round: 20 - 50 / 3 = 3.33."


def test_public_goods_shows_every_contribution_share_gain_and_tokens():
    prompt = GAMABENCH.build(view_of(play("public_goods", [[17, 72, 9], [8, 0, 15]]), 1), False)
    assert "you are seat 1" in prompt.messages[0]["content"] and "multiplied by 2." in prompt.messages[0]["content"]
    report, outcome = prompt.messages[1]["content"], prompt.messages[3]["content"]
    assert "Contributions: seat 0: 17, seat 1 (you): 72, seat 2: 9." in report
    assert "Tokens in the pot: 98; multiplied by 2 that makes 196, so each player receives 65.33." in report
    assert outcome.startswith("Your gain this round is -6.67 (your share 65.33 minus your contribution 72): "
                              "you end the round with 13.33 tokens.")
    assert "Everyone's total tokens so far: seat 0: 68.33, seat 1 (you): 13.33, seat 2: 76.33." in outcome
    assert "You have 20 tokens this round" in prompt.messages[-1]["content"]


def test_magics_public_goods_falls_back_to_the_generic_style():
    state = play("public_goods", [[10, 20, 30]], preset="magic", parameters={"rounds": 3})
    assert GAMABENCH.build(view_of(state, 0), False).style == "generic"
    assert style_for("auto", "public_goods", "magic").name == "generic"
    assert style_for("auto", "public_goods", "gamabench_r4").name == "gamabench"


# ---- battle_royale: a round is one turn; the seat's own turns carry its answers -------------------------

MISS, WASTED = 100, 101
HIT, MISSED = 1, 0


def test_battle_royale_replays_the_seats_own_turns_with_the_turns_between_them():
    # Turn 1: player_0 shoots at player_2 and misses; 2: player_1 misses on purpose; 3: player_2
    # hits player_1; 4: player_0 misses on purpose; 5: player_2 shoots at player_0 and misses.
    state = play("battle_royale", [2, MISSED, MISS, 1, HIT, MISS, 0, MISSED], parameters=BR)
    assert state.current_player() == 0
    prompt = GAMABENCH.build(view_of(state, 0), False)
    assert roles(prompt) == chat_roles(2)
    system, *chat, request = [m["content"] for m in prompt.messages]
    assert system.startswith("You are one of 3 players in a game. The rules:\n1. ")
    assert "player_0 (35%), player_1 (40%), player_2 (45%). You are player_0: your hit rate is 35% and you are " \
           "the 1st to shoot." in system and "after 10 turns" in system
    assert chat == [
        "Turn 1 was your turn. Your answer was:", '{"target": "player_2"}',
        "Turn 1: You shot at player_2 and missed. 3 players left.",
        ("Turn 2: player_1 missed on purpose. 3 players left.\n"
         "Turn 3: player_2 shot at player_1 and hit: player_1 is eliminated. 2 players left.\n"
         "Turn 4 was your turn. Your answer was:"), '{"target": null}',
        "Turn 4: You missed on purpose. 2 players left.",
    ]
    assert request.startswith("Turn 5: player_2 shot at you and missed. 2 players left.\nTurn 6 begins, and it is "
                              "your turn to shoot.")
    assert "Players still in the game, in shooting order: player_0 (35%), player_2 (45%)." in request
    assert "Choose the player to shoot at (player_2)" in request
    assert request.endswith('not in markdown: {"target": "playerID_or_null"}')


def test_battle_royale_replies_are_read_as_the_engine_reads_them():
    state = play("battle_royale", [2, MISSED, MISS, 1, HIT], parameters=BR)       # player_1 is out
    prompt = GAMABENCH.build(view_of(state, 0), False)
    expected = {
        'I aim at the strongest.\n{"target": "player_2"}': "shoot player_2",
        '{"action": "shoot", "target": "2"}': "shoot player_2",
        '{"target": 2}': "shoot player_2",
        '{"target": null}': "intentional miss",
        "{'target': 'null'}": "intentional miss",
        '{"action": "miss", "target": "player_2"}': "intentional miss",
        '{"target": "player_1"}': "wasted shot",                    # eliminated
        '{"target": "player_0"}': "wasted shot",                    # itself
        '{"target": "the strongest one"}': "wasted shot",
        '{"explanation": "waiting is safer", "target": null}': "intentional miss",
    }
    for reply, action in expected.items():
        reading = prompt.read(reply)
        assert reading.action is not None and reading.action.text == action, reply
        assert reading.action.action_id == state.parse_action(0, reply), reply
    for bad in ('{"target": "playerID_or_null"}', '{"action": "shoot"}'):
        assert prompt.read(bad).found and prompt.read(bad).action is None, bad
    # A wasted shot is echoed in a form that reads back as a wasted shot.
    later = play("battle_royale", [2, MISSED, MISS, 1, HIT, WASTED, MISS], parameters=BR)
    messages = GAMABENCH.build(view_of(later, 0), False).messages
    assert messages[5]["content"] == '{"target": "wasted_shot"}'
    assert GAMABENCH.build(view_of(later, 0), False).read(messages[5]["content"]).action.text == "wasted shot"


def test_battle_royale_asks_only_the_seat_whose_turn_it_is():
    state = play("battle_royale", [2, MISSED], parameters=BR)
    assert GAMABENCH.build(view_of(state, 1), True).style == "gamabench"
    waiting = view_of(state, 2)
    assert GAMABENCH.build(waiting, False).style == "generic"       # not its turn: no GAMA-Bench request


# ---- pirate_game: proposals are the decision's message; votes are actions ---------------------------------

PROPOSE, ACCEPT, REJECT = 0, 1, 2
PIRATES = {"players": 5}
FIRST_PLAN = '{"1": "96", "2": "0", "3": "1", "4": "0", "5": "3"}'
SECOND_PLAN = '{"2": "97", "3": "1", "4": "2", "5": "0"}'


def pirates_after(first_votes: list, second_votes: list = (0, 0, REJECT, REJECT, REJECT), *more):
    """Five pirates: pirate 1's plan and its votes, pirate 2's plan and its votes, then `more`."""
    return play("pirate_game", [(PROPOSE, FIRST_PLAN), list(first_votes), (PROPOSE, SECOND_PLAN),
                                list(second_votes), *more], parameters=PIRATES)


def test_pirate_proposal_turn_replays_the_votes_and_asks_for_a_rank_map():
    state = pirates_after([0, ACCEPT, REJECT, REJECT, REJECT])      # 2 of 5, then 1 of 4: both overboard
    assert state.text_action_spec(2)["message"] == "required"
    prompt = GAMABENCH.build(view_of(state, 2), False)
    assert roles(prompt) == chat_roles(2)
    system, *chat, request = [m["content"] for m in prompt.messages]
    assert system.startswith("You are one of 5 players in a game. The rules:\n1. ") and "you are pirate 3." in system
    assert chat[0] == ("Results of round 1:\nPirate 1 proposed this split (pirate: coins): " + FIRST_PLAN + ".\n"
                       "You were offered 1 coin.\n2 of the 5 pirates aboard accepted, fewer than half.\nYour vote was:")
    assert chat[1] == chat[4] == '{"decision": "reject"}'
    assert chat[2] == ("The plan was rejected: pirate 1 is thrown overboard, and pirate 2 is now the most senior "
                       "pirate aboard.")
    assert "Pirate 2 proposed this split (pirate: coins): " + SECOND_PLAN in chat[3]
    assert "1 of the 4 pirates aboard accepted, fewer than half." in chat[3]
    assert request.startswith("Round 3 begins. You are the most senior pirate aboard")
    assert request.endswith('not in markdown: {"3": "coins_for_pirate_3", "4": "coins_for_pirate_4", '
                            '"5": "coins_for_pirate_5"}')
    thinking = GAMABENCH.build(view_of(state, 2), True).messages[-1]["content"]
    assert thinking.endswith('{"explanation": "thinking_process", "3": "coins_for_pirate_3", '
                             '"4": "coins_for_pirate_4", "5": "coins_for_pirate_5"}')


def test_a_pirate_proposal_is_read_as_the_engine_checks_it_and_said_in_canonical_form():
    state = pirates_after([0, ACCEPT, REJECT, REJECT, REJECT])
    prompt = GAMABENCH.build(view_of(state, 2), True)
    for reply in ('I keep most.\n{"explanation": "two votes needed", "3": "99", "4": "0", "5": "1"}',
                  '{"proposal": {"3-th": "99", "4-th": 0, "5-th": "1"}}',
                  "{'3': 99, '4': 0, '5': 1}"):
        reading = prompt.read(reply)
        assert reading.action is not None and reading.action.text == "propose", reply
        assert prompt.says(reply) == '{"3": "99", "4": "0", "5": "1"}' == state.check_message(2, reply)
    for bad in ('{"3": "60", "4": "30", "5": "0"}',            # adds up to 90
                '{"2": "50", "3": "50", "4": "0", "5": "0"}',  # pirate 2 is overboard
                '{"3": "101", "4": "-1", "5": "0"}',            # a negative share
                '{"3": "99.5", "4": "0.5", "5": "0"}',
                '{"3": "coins_for_pirate_3", "4": "coins_for_pirate_4", "5": "coins_for_pirate_5"}'):
        assert prompt.read(bad).found and prompt.read(bad).action is None and prompt.says(bad) is None, bad
    # Words alone propose nothing, even "propose" (the single legal action's text).
    unreadable = prompt.read("I propose to keep everything for myself.")
    assert unreadable.action is None and not unreadable.found
    assert "Answer again in the form {" in prompt.feedback(unreadable)


def test_a_pirate_vote_shows_the_plan_and_the_offer_and_reads_accept_or_reject():
    state = pirates_after([0, ACCEPT, REJECT, REJECT, REJECT], (0, 0, REJECT, REJECT, REJECT),
                          (PROPOSE, '{"3": "98", "4": "0", "5": "2"}'))
    prompt = GAMABENCH.build(view_of(state, 4), False)
    assert roles(prompt) == chat_roles(2)
    assert [prompt.messages[2]["content"], prompt.messages[5]["content"]] == ['{"decision": "reject"}'] * 2
    request = prompt.messages[-1]["content"]
    assert request.startswith('Round 3 begins. Pirate 3 proposes this split (pirate: coins): '
                              '{"3": "98", "4": "0", "5": "2"}.\nYou are offered 2 coins.')
    assert request.endswith('not in markdown: {"decision": "accept_or_reject"}') and prompt.says is None
    for reply, vote in (('{"decision": "accept"}', "accept"), ('{"decision": "I reject it"}', "reject"),
                        ("{'decision': 'Accept'}", "accept")):
        reading = prompt.read(reply)
        assert reading.action.text == vote and reading.action.action_id == state.parse_action(4, reply), reply
    for bad in ('{"decision": "accept_or_reject"}', '{"decision": "maybe"}'):
        assert prompt.read(bad).found and prompt.read(bad).action is None, bad


def test_how_each_pirate_voted_never_reaches_the_prompt():
    one = pirates_after([0, ACCEPT, REJECT, REJECT, REJECT])
    other = pirates_after([0, REJECT, REJECT, REJECT, ACCEPT])       # another pirate accepted; same count
    assert one.result_details()["rounds"] != other.result_details()["rounds"]
    assert GAMABENCH.build(view_of(one, 2), False).messages == GAMABENCH.build(view_of(other, 2), False).messages


def test_the_llm_agent_says_its_proposal_as_the_decisions_message():
    state = pirates_after([0, ACCEPT, REJECT, REJECT, REJECT])
    view = view_of(state, 2)
    with FakeOpenAI(api_key=KEY) as model:
        model.push(text('{"3": "100", "4": "0"}'),
                   text('Fine.\n{"proposal": {"3-th": "98", "4-th": "0", "5-th": "2"}}'))
        agent = LLMAgent("fake", base_url=model.base_url, api_key=KEY, style="gamabench", retry_delay=0.01)
        choice = asyncio.run(agent.decide(view))
    assert len(model.requests) == 2 and choice.extra["reasks"] == 1       # pirate 5 was left out: asked again
    assert choice.action_id == PROPOSE and choice.message == '{"3": "98", "4": "0", "5": "2"}'
    state.apply_action(choice.action_id, choice.message)
    assert state.conversation(4)[-1]["text"] == choice.message


# ---- end to end: `arena-agent llm --style gamabench` on a real server ------------------------------------

GAMES = {   # game -> tournament parameters (3 players each): short matches
    "el_farol_bar": {"rounds": 3},
    "divide_the_dollar": {"rounds": 3},
    "public_goods": {"rounds": 2},
    "diners_dilemma": {"rounds": 3},
    "battle_royale": {"max_turns": 4},
    "pirate_game": {},
}
_FORM = re.compile(r"\{[^{}]*\}\s*$")
_TARGETS = re.compile(r"Choose the player to shoot at \((player_\d+)")


def gamabench_player(body: dict):
    """A model that reads the card's request: it answers its JSON form with a legal value, with an
    explanation when the form asks for one. As the proposing pirate it keeps all the gold."""
    request = body["messages"][-1]["content"]
    form = json.loads(_FORM.search(request).group(0))
    fields = [k for k in form if k != "explanation"]
    rounds = len(body["messages"]) // 3
    if all(k.isdigit() for k in fields):            # a pirate's proposal: rank -> coins
        gold = re.search(r"must add up to (\d+)", request).group(1)
        answer = {k: gold if i == 0 else "0" for i, k in enumerate(fields)}
    else:
        key, = fields
        vote = "accept" if rounds % 2 else "reject"
        answer = {key: {"decision": ("go" if rounds % 2 else "stay") if form[key] == "go_or_stay" else vote,
                        "bid_amount": str(30 + rounds), "tokens_contributed": str(5 * rounds),
                        "chosen_dish": "cheap" if rounds % 2 else "costly",
                        "target": _TARGETS.search(request).group(1) if key == "target" else None}[key]}
    if "explanation" in form:
        answer = {"explanation": "Looking at the past rounds.", **answer}
    return text(f"Here is my answer.\n{json.dumps(answer)}")


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """One server, one fake model and two LLM agents (one answering with reasoning) for every game."""
    server = start_server(tmp_path_factory.mktemp("server"), "--per-decision", "5", "--house-delay", "0.05")
    bots = []
    try:
        with FakeOpenAI(api_key=KEY, responder=gamabench_player) as model, pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENAI_API_KEY", KEY)
            games = [arg for game in GAMES for arg in ("--game", game)]
            for name, reasoning in (("llm-a", "plain"), ("llm-b", "cot")):
                bots.append(agent_process(server, name, "llm", *games, "--no-ladder", "--model", "fake",
                                          "--base-url", model.base_url, "--style", "gamabench",
                                          "--reasoning", reasoning, "--concurrency", "3"))
            wait_connected(server, "llm-a", "llm-b")
            yield server, model
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(10)
        server.stop()


@pytest.mark.parametrize("game", GAMES)
def test_arena_agent_llm_plays_each_game_in_the_gamabench_style(arena, game):
    server, model = arena
    asked_before = len(model.requests)
    tournament = run_tournament(server, game, ["llm-a", "llm-b", "random"], players_per_match=3,
                                preset="gamabench", parameters=GAMES[game], timeout=60)
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
    matches = matches_of(server, tournament.tournament_id)
    assert len(matches) == 3
    stub = server.arena_stub()
    asked = proposed = 0
    for match in matches:
        assert match.status == match_pb2.MATCH_STATUS_FINISHED and match.result.reason == match_pb2.END_REASON_NORMAL
        log = stub.GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
        for player in match.players:
            if not player.agent_name.startswith("llm-"):
                continue
            stats = next(s for s in match.result.seat_stats if s.seat == player.seat)
            assert (stats.illegal_actions, stats.parse_failures, stats.timeouts, stats.substituted_actions) \
                == (0, 0, 0, 0), (game, player.agent_name)
            metas = [MessageToDict(e.data)["metadata"] for e in log
                     if e.kind == "decision_meta" and e.data["seat"] == player.seat]
            assert metas or game == "battle_royale"         # a shooter may be eliminated before its turn
            for meta in metas:
                extra = meta["extra"]
                assert extra["style"] == "gamabench" and extra["sent_as"] == "action_id" and extra["reasks"] == 0
                prompt = extra["prompt"]
                assert prompt[0]["role"] == "system" and [m["role"] for m in prompt[1:-1]] == \
                    ["user", "assistant", "user"] * ((len(prompt) - 2) // 3)
                assert ('"explanation": "thinking_process"' in prompt[-1]["content"]) == \
                    (player.agent_name == "llm-b")
            asked += len(metas)
            # A pirate's proposal is the decision's message: the model's plan (all the gold to the
            # proposer), not the game's fallback split.
            for said in (MessageToDict(e.data) for e in log if e.kind == "action" and e.data["seat"] == player.seat):
                if game == "pirate_game":
                    plan = {str(player.seat + 1 + i): "100" if i == 0 else "0" for i in range(3 - player.seat)}
                    assert json.loads(said["message"]) == plan
                    proposed += 1
                else:
                    assert "message" not in said
    assert asked > 0 and len(model.requests) - asked_before == asked
    assert (proposed > 0) == (game == "pirate_game")
