"""The LLM agent through the real `openai` client, over HTTP, against a local OpenAI-compatible
endpoint (fake_openai) with scripted replies; and `arena-agent llm` playing full matches on a real
server.

Decision views are built from the real game engines (the server's observation and legal actions),
so every prompt here is the prompt a live match would produce.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import re
import socket
import subprocess
import sys

import pytest
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import DecisionView, LegalAction, PublicMove, TextActionSpec
from arena_client.agents.llm_agent import LLMAgent, ModelError, ModelUnavailable
from arena_client.answers import match_legal_text
from arena_client.convert import struct_to_dict
from arena_client.prompts import STYLES, style_for
from arena_engines import load_game

from ..conftest import agent_process
from ..e2e.helpers import create_tournament, matches_of, run_tournament, wait_connected
from .fake_openai import FakeOpenAI, error, first_listed_action, prompt_text, text, words

pytestmark = pytest.mark.timeout(120)

KEY = "test-key"


def view_of(game_id: str, *, preset: str | None = None, parameters: dict | None = None, moves=(), seat=None,
            chance_seed: int = 1, match_id: str = "m1", attempt: int = 0, feedback: str = "") -> DecisionView:
    """The view the server would send: `moves` applied (lists are simultaneous moves), chance drawn
    with a seeded RNG, then the request for `seat` (default: the seat to move)."""
    state = load_game(game_id, parameters, preset=preset).new_initial_state()
    rng = random.Random(chance_seed)
    moves = list(moves)
    while True:
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
        if not moves:
            break
        move = moves.pop(0)
        state.apply_actions(move) if isinstance(move, list) else state.apply_action(move)
    seat = state.current_player() if seat is None else seat
    spec = state.text_action_spec(seat)
    data = struct_pb2.Struct()
    data.update(state.observation_dict(seat))
    return DecisionView(
        match_id=match_id, decision_id=1, seat=seat, game_id=game_id,
        observation_text=state.observation_string(seat), observation_data=struct_to_dict(data),
        history=[PublicMove(i, s, a, t) for i, (s, a, t) in enumerate(state.public_history())],
        legal_actions=[LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)],
        text_action=TextActionSpec(spec["description"], spec["max_length"]) if spec else None,
        deadline=None, time_remaining=30.0, attempt=attempt, feedback=feedback, parameters=dict(parameters or {}))


@pytest.fixture
def model():
    with FakeOpenAI(api_key=KEY) as fake:
        yield fake


def agent_for(model: FakeOpenAI, **options) -> LLMAgent:
    options.setdefault("retry_delay", 0.01)
    return LLMAgent("fake", base_url=model.base_url, api_key=KEY, **options)


def decide(agent: LLMAgent, view: DecisionView):
    return asyncio.run(agent.decide(view))


def chosen_text(view: DecisionView, choice) -> str:
    return next(a.text for a in view.legal_actions if a.action_id == choice.action_id)


# ---- prompts per style, answers in each paper's format ---------------------------------------------

# (style, game, preset, parameters, moves, seat, reply in the paper's format with chatter, the action it names)
PAPER_ANSWERS = [
    ("gtbench", "tic_tac_toe", None, None, [0, 1], None, "Thought: take the centre.\nAction: <C2R2>", "X: (2, 2)"),
    ("gtbench", "connect_four", None, None, [3], None, "Thought: block.\nAction: <C4>", "O: 4"),
    ("gtbench", "kuhn_poker", None, None, [], None, "With this card I should wait.\nAction: <Pass>", "<Pass>"),
    ("gtbench", "breakthrough", None, None, [], None, "Thought: advance.\nAction: <a7->b6>", "a7->b6"),
    ("gtbench", "liars_dice", None, None, [], None, "Action: <2 dice, 1 value>", "<2 dices, 1 value>"),
    ("gtbench", "nim", None, None, [], None, "I will even the piles. Action: <pile:4, take:3>", "pile:4, take:3"),
    ("gtbench", "pig", None, None, [], None, "Action: <roll>", "roll"),
    ("gtbench", "iterated_prisoners_dilemma", "gtbench_2p", None, [], 0, "Action: <Testify>", "<Testify>"),
    ("gtbench", "sealed_bid_auction", "gtbench_blind", None, [], 1, "Action: <1>", "1"),
    ("llmarena", "tic_tac_toe", None, None, [4], None, "O: (1, 3)", "O: (1, 3)"),
    ("llmarena", "connect_four", None, None, [], None, "X: 4", "X: 4"),
    ("llmarena", "sealed_bid_auction", "llmarena_bid", None, [], 0,
     "Step by step: half my valuation is about right.\nplayer_0: $0.50\nThat is my bid.", "$0.50"),
    ("gamabench", "guess_two_thirds_average", "gamabench", {"players": 3, "rounds": 3}, [[17, 72, 97]], 0,
     'Sure.\n{"chosen_number": "30"}', "30"),
    ("gamabench", "sealed_bid_auction", "gamabench", {"players": 3, "rounds": 2}, [], 2, '{"bid": "120"}', "120"),
    ("generic", "kuhn_poker", None, None, [], None, "I have a weak card, so I check.\nAction: <Pass>", "<Pass>"),
]


@pytest.mark.parametrize("style,game,preset,parameters,moves,seat,reply,expected", PAPER_ANSWERS,
                         ids=[f"{c[0]}-{c[1]}" for c in PAPER_ANSWERS])
def test_answers_in_each_papers_format_are_played_as_action_ids(model, style, game, preset, parameters, moves, seat,
                                                                reply, expected):
    view = view_of(game, preset=preset, parameters=parameters, moves=moves, seat=seat)
    model.push(text(reply))
    choice = decide(agent_for(model, style=style), view)
    assert choice.action_id is not None and chosen_text(view, choice) == expected
    assert choice.extra["style"] == style and choice.extra["reasks"] == 0 and choice.extra["sent_as"] == "action_id"
    assert len(model.requests) == 1


def test_generic_prompt_shows_the_canonical_view_history_parameters_and_numbered_legal_actions(model):
    view = dataclasses.replace(view_of("tic_tac_toe", moves=[0, 1]), parameters={"board": "3x3"})
    model.push(text("Action: #3"))
    choice = decide(agent_for(model, style="generic"), view)
    assert chosen_text(view, choice) == "X: (2, 2)"        # "#3": the third listed action
    system, user = model.requests[0]["messages"]
    assert system["role"] == "system"
    assert view.observation_text in user["content"] and 'Match parameters: {"board": "3x3"}' in user["content"]
    assert "0. you: X: (1, 1)" in user["content"] and "1. seat 1: O: (1, 2)" in user["content"]
    assert "#1  X: (1, 3)" in user["content"] and "#7  X: (3, 3)" in user["content"]
    assert "Action: X: (1, 3)" in user["content"]


def test_gtbench_prompt_is_system_head_observation_and_reasoning_with_move_histories(model):
    view = view_of("tic_tac_toe", moves=[0, 1, 4])
    model.push(text("Thought: block the column.\nAction: <C3R3>"))
    decide(agent_for(model, style="gtbench", reasoning="cot"), view)
    body = model.requests[0]
    system, user = body["messages"]
    assert "beat the user" in system["content"] and "legal moves" in system["content"]
    content = user["content"]
    assert "<C1R2> is the square in the first column and the second row" in content       # head
    assert "You play O." in content
    assert "Your opponent has finished these moves: <C1R1>, <C2R2>." in content              # histories, no board
    assert "You have finished these moves: <C2R1>." in content and "| X |" not in content
    assert "Thought: <your thinking>\nAction: <CxRy>" in content                              # CoT reasoning prompt
    assert "choose only from the legal moves: <C3R1>, <C1R2>" in content                      # <= 10 listed again
    assert body["temperature"] == 0.2 and body["max_tokens"] == 1024                          # the paper's settings


def test_llmarena_prompt_is_rules_then_board_hint_and_action_format(model):
    view = view_of("connect_four", moves=[3, 3, 3, 3, 3, 3])
    model.push(text("X: 4"), text("X: 5"))
    choice = decide(agent_for(model, style="llmarena", max_reasks=1), view)
    rules, current = model.requests[0]["messages"]
    assert "Connect Four" in rules["content"] and "numbered 1 to 7" in rules["content"]
    assert "| _ | _ | _ | O | _ | _ | _ |" in current["content"]
    assert "You may only choose one of these columns: 1, 2, 3, 5, 6, 7." in current["content"]
    assert "like 'X: 4'" in current["content"]
    assert model.requests[0]["temperature"] == 0
    # Column 4 is full: the answer is illegal, the model is told so and answers again.
    assert chosen_text(view, choice) == "X: 5" and choice.extra["reasks"] == 1
    assert "'X: 4' is not a legal move now" in model.requests[1]["messages"][-1]["content"]


def test_gamabench_prompt_replays_each_past_round_as_a_chat_with_canonical_json(model):
    view = view_of("guess_two_thirds_average", preset="gamabench", parameters={"players": 3, "rounds": 3},
                   moves=[[17, 72, 97], [40, 20, 30]], seat=1)
    model.push(text('{"explanation": "the average keeps falling", "chosen_number": "12"}'))
    choice = decide(agent_for(model, style="gamabench", reasoning="cot"), view)
    assert chosen_text(view, choice) == "12"
    messages = model.requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "user", "assistant", "user", "user"]
    assert "one of 3 players in a game that lasts 3 rounds" in messages[0]["content"]
    assert "Results of round 1:" in messages[1]["content"] and "Winning number: 17" in messages[1]["content"]
    assert messages[2]["content"] == '{"chosen_number": "72"}' and messages[3]["content"] == "You lost this round."
    assert messages[5]["content"] == '{"chosen_number": "20"}'
    assert "Round 3 begins." in messages[-1]["content"] and "Let's think step by step." in messages[-1]["content"]
    assert ('{"explanation": "thinking_process", "chosen_number": "integer_between_0_and_100"}'
            in messages[-1]["content"])
    assert model.requests[0]["temperature"] == 1


def test_gtbench_negotiation_reads_proposals_agreements_and_utterances_without_listing_moves(model):
    agent = agent_for(model, style="gtbench")
    proposal = view_of("negotiation", preset="gtbench")
    offer = proposal.legal_actions[-1].text                     # e.g. "Proposal: [5, 0, 3]"
    model.push(text(f"I value peppers most, so I'll not agree yet.\nAction: <{offer}>"))
    choice = decide(agent, proposal)
    assert chosen_text(proposal, choice) == offer             # the bracketed proposal, not the bare "agree"
    content = model.requests[-1]["messages"][-1]["content"]
    assert "peppers, strawberries and cherries" in content and "The legal moves now are" not in content
    talk = view_of("negotiation", preset="gtbench", moves=[choice.action_id])
    model.push(text("Action: <Utterance: [4, 0, 4]>"))
    assert chosen_text(talk, decide(agent, talk)) == "Utterance: [4, 0, 4]"
    assert f"You last proposed to take {offer.split(': ')[1]}" in model.requests[-1]["messages"][-1]["content"]


def test_llmarena_bargain_keeps_the_matchs_conversation(model):
    agent = agent_for(model, style="llmarena")
    first = view_of("negotiation", preset="llmarena_bargain", chance_seed=3)
    pool = first.observation_data["pool"]
    model.push(text(f"Let us split it. player_0: {pool[0]} hats 0 balls 0 apples"))
    mine = decide(agent, first)
    assert chosen_text(first, mine) == f"Proposal: [{pool[0]}, 0, 0]"
    reply = model.requests[0]
    second = view_of("negotiation", preset="llmarena_bargain", chance_seed=3, moves=[mine.action_id])
    model.push(text("player_1: 0 hats 1 balls 1 apples"))
    theirs = decide(agent, second)
    third = view_of("negotiation", preset="llmarena_bargain", chance_seed=3, moves=[mine.action_id, theirs.action_id])
    model.push(text("Fine by me. player_0: Deal."))
    deal = decide(agent, third)
    assert chosen_text(third, deal) == "Agree"
    messages = model.requests[2]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == reply["messages"][1]["content"]          # the first turn, as asked
    assert messages[2]["content"].startswith("Let us split it.")            # and the model's own reply
    assert "leaves you" in messages[3]["content"]


# ---- reading replies, re-asking with feedback ----------------------------------------------------------

def test_malformed_answers_are_reasked_with_feedback_then_sent_as_text(model):
    view = view_of("tic_tac_toe", moves=[0, 1])
    model.push(text("I like the middle of the board."), text("Centre, obviously!"), text("Still thinking..."))
    choice = decide(agent_for(model, style="gtbench", max_reasks=2), view)
    assert len(model.requests) == 3 and choice.extra["reasks"] == 2
    second = model.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "I like the middle of the board."}
    assert "I could not find your move in the required format" in second[-1]["content"]
    assert "'Action: <CxRy>'" in second[-1]["content"] and "<C3R1>" in second[-1]["content"]
    # Nothing readable: the game's own parser (and the referee's failure policy) get the reply.
    assert choice.action_id is None and choice.text == "Still thinking..." and choice.extra["sent_as"] == "text"


def test_an_illegal_move_is_reasked_and_the_legal_answer_played(model):
    view = view_of("tic_tac_toe", moves=[0, 1])
    model.push(text("Action: <C1R1>"), text("Sorry, that square is taken. Action: <C3R3>"))
    choice = decide(agent_for(model, style="gtbench"), view)
    assert chosen_text(view, choice) == "X: (3, 3)"
    assert "'<C1R1>' is not a legal move now" in model.requests[1]["messages"][-1]["content"]
    assert choice.extra["feedback"] == [model.requests[1]["messages"][-1]["content"]]
    assert choice.extra["responses"] == ["Action: <C1R1>", "Sorry, that square is taken. Action: <C3R3>"]


def test_the_referees_feedback_on_a_server_reask_is_in_the_prompt(model):
    feedback = "'X: (1, 1)' is not a legal move now (1 retry left)"
    for style in ("generic", "gtbench", "llmarena"):
        view = view_of("tic_tac_toe", moves=[0, 1], attempt=1, feedback=feedback)
        model.push(text("Action: X: (2, 2)" if style == "generic" else "<C2R2>" if style == "gtbench" else "X: (2, 2)"))
        choice = decide(agent_for(model, style=style), view)
        prompt = model.requests[-1]["messages"][-1]["content"]
        assert f"refused by the referee (this is attempt 2): {feedback}" in prompt
        assert choice.extra["referee_feedback"] == feedback and choice.extra["referee_attempt"] == 1


def test_tolerant_matching_reads_legal_texts_when_the_papers_format_is_missing():
    legal = [LegalAction(i, str(i)) for i in range(101)]
    assert match_legal_text("My answer is 34.", legal)[0].action_id == 34
    assert match_legal_text("Answer: 7\nbecause 2/3 of 10.5 is 7", legal)[0].action_id == 7
    cells = [LegalAction(0, "X: (1, 1)"), LegalAction(4, "X: (2, 2)")]
    assert match_legal_text("I play x:(2,2) now", cells)[0].action_id == 4
    assert match_legal_text("no idea", cells)[0] is None


# ---- reasoning modes ---------------------------------------------------------------------------------

def test_self_consistency_plays_the_majority_over_parsed_samples(model):
    view = view_of("tic_tac_toe", moves=[0, 1])
    by_seed = {10: "Action: <C3R3>", 11: "Thought: hmm\nAction: <C2R2>", 12: "no move at all",
               13: "Action: <C2R2>", 14: "Action: <C3R3>", 15: "Action: <C2R2>"}
    model.responder = lambda body: text(by_seed[body["seed"]])
    choice = decide(agent_for(model, style="gtbench", reasoning="self-consistency", samples=6, seed=10), view)
    assert chosen_text(view, choice) == "X: (2, 2)"
    assert choice.extra["votes"] == {"X: (2, 2)": 3, "X: (3, 3)": 2, "(unreadable)": 1}
    assert len(model.requests) == 6 and all("Thought:" in r["messages"][-1]["content"] for r in model.requests)
    # A tie goes to the earliest sample.
    by_seed = {20: "Action: <C3R3>", 21: "Action: <C2R2>"}
    model.responder = lambda body: text(by_seed[body["seed"]])
    choice = decide(agent_for(model, style="gtbench", reasoning="self-consistency", samples=2, seed=20), view)
    assert chosen_text(view, choice) == "X: (3, 3)"


# ---- metadata --------------------------------------------------------------------------------------

def test_tokens_latency_and_cost_are_recorded_and_prompts_can_be_left_out(model):
    view = view_of("nim")
    reply = "Action: <pile:1, take:1>"
    model.push(text(reply))
    choice = decide(agent_for(model, style="gtbench", price_per_1k_input=2.0, price_per_1k_output=10.0), view)
    sent = words(prompt_text(model.requests[0]))
    assert (choice.prompt_tokens, choice.completion_tokens) == (sent, words(reply))
    assert choice.cost_usd == pytest.approx((sent * 2.0 + words(reply) * 10.0) / 1000)
    assert choice.reasoning == reply and choice.extra["responses"] == [reply]
    assert choice.extra["model_seconds"] > 0 and choice.extra["calls"] == 1
    assert choice.extra["prompt"] == model.requests[0]["messages"]
    model.push(text(reply))
    quiet = decide(agent_for(model, style="gtbench", log_prompts=False), view)
    assert "prompt" not in quiet.extra and quiet.extra["responses"] == [reply] and quiet.prompt_tokens == sent


def test_a_single_legal_action_is_played_without_asking_the_model(model):
    view = view_of("tic_tac_toe", moves=[0, 1, 2, 4, 3, 5, 7, 6])
    assert len(view.legal_actions) == 1
    choice = decide(agent_for(model), view)
    assert choice.action_id == view.legal_actions[0].action_id and choice.extra["forced"] and not model.requests


def test_many_matches_are_decided_concurrently(model):
    model.responder = first_listed_action
    agent = agent_for(model, style="generic")

    async def all_at_once():
        return await asyncio.gather(*(agent.decide(view_of("tic_tac_toe", match_id=f"m{i}")) for i in range(8)))

    choices = asyncio.run(all_at_once())
    assert [c.action_id for c in choices] == [0] * 8 and len(model.requests) == 8


# ---- endpoint failures -------------------------------------------------------------------------------

def test_rate_limits_and_server_errors_are_retried_respecting_retry_after(model):
    view = view_of("nim")
    model.push(error(429, "slow down", retry_after="0.3"), error(500), error(503, retry_after_ms="50"),
               text("Action: <pile:2, take:3>"))
    choice = decide(agent_for(model, style="gtbench", retry_delay=0.05), view)
    assert chosen_text(view, choice) == "pile:2, take:3"
    retries = choice.extra["api_retries"]
    assert [r["problem"].split(":")[0] for r in retries] == ["429", "500", "503"]
    assert retries[0]["wait_s"] == 0.3 and retries[2]["wait_s"] == 0.05
    assert 0.05 <= retries[1]["wait_s"] <= 0.1             # second attempt: 2 x 0.05 s, with jitter
    assert choice.extra["calls"] == 1 and len(model.requests) == 4


def test_retries_are_capped_and_the_decision_fails_without_ending_the_agent(model):
    model.push(*[error(500)] * 3)
    agent = agent_for(model, style="gtbench", max_attempts=3)
    with pytest.raises(ModelError, match="after 3 failed attempts .last: 500"):
        decide(agent, view_of("nim"))
    model.push(text("Action: <pile:1, take:1>"))
    assert decide(agent, view_of("nim")).action_id is not None


def test_a_refused_key_makes_the_model_unavailable(model):
    agent = LLMAgent("fake", base_url=model.base_url, api_key="wrong-key")
    with pytest.raises(ModelUnavailable, match=r"refused the API key \(401: Incorrect API key provided.\)"):
        asyncio.run(agent.check_endpoint())
    with pytest.raises(ModelUnavailable, match="refused the API key"):
        decide(agent, view_of("nim"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_endpoint_makes_the_model_unavailable():
    agent = LLMAgent("fake", base_url=f"http://127.0.0.1:{_closed_port()}/v1", api_key=KEY, max_attempts=2,
                     retry_delay=0.01)
    with pytest.raises(ModelUnavailable, match="cannot reach the model endpoint"):
        asyncio.run(agent.check_endpoint())
    with pytest.raises(ModelUnavailable, match="cannot reach the model endpoint"):
        decide(agent, view_of("nim"))


def _cli(*args: str, env_key: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ARENA_API_KEY="ak_unused", OPENAI_API_KEY=env_key)
    return subprocess.run([sys.executable, "-m", "arena_client.cli", "llm", "--game", "tic_tac_toe", "--model", "fake",
                           "--server", f"127.0.0.1:{_closed_port()}", *args], capture_output=True, text=True, env=env,
                          timeout=60)


@pytest.mark.parametrize("case", ["wrong key", "unreachable"])
def test_cli_exits_with_one_line_when_the_model_endpoint_fails(model, case):
    if case == "wrong key":
        done = _cli("--base-url", model.base_url, env_key="wrong-key")
        expected = "refused the API key (401"
    else:
        done = _cli("--base-url", f"http://127.0.0.1:{_closed_port()}/v1", env_key=KEY)
        expected = "cannot reach the model endpoint"
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("arena-agent: ")


WITHOUT_OPENAI = """
import asyncio, importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] == "openai":
            raise ImportError("openai is not installed")

sys.meta_path.insert(0, Block())
import arena_client.cli
from arena_client.agents.llm_agent import LLMAgent, ModelUnavailable
assert "openai" not in sys.modules
agent = LLMAgent("fake", base_url="http://127.0.0.1:9/v1")
try:
    asyncio.run(agent.check_endpoint())
except ModelUnavailable as e:
    print(e)
"""


def test_without_the_openai_package_the_sdk_imports_and_the_agent_says_what_to_install():
    done = subprocess.run([sys.executable, "-c", WITHOUT_OPENAI], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "needs the openai package: pip install 'arena[llm]'" in done.stdout


def test_style_choice_by_game_and_preset():
    assert style_for("auto", "kuhn_poker").name == "gtbench"                 # only GTBench played it
    assert style_for("auto", "guess_two_thirds_average").name == "gamabench"
    assert style_for("auto", "tic_tac_toe").name == "generic"                # two suites: the preset decides
    assert style_for("auto", "tic_tac_toe", "llmarena").name == "llmarena"
    assert style_for("auto", "sealed_bid_auction", "gtbench_blind").name == "gtbench"
    assert style_for("auto", "iterated_prisoners_dilemma", "magic_3p").name == "generic"   # no MAgIC style
    assert style_for("gtbench", "guess_two_thirds_average").name == "gtbench"
    assert set(STYLES) == {"generic", "gtbench", "llmarena", "gamabench", "gamebench"}
    with pytest.raises(ValueError, match="unknown prompt style 'chatty'"):
        style_for("chatty", "nim")


# ---- end to end: `arena-agent llm` on a real server -------------------------------------------------------

def test_arena_agent_llm_plays_full_matches_and_its_metadata_reaches_the_match_log(server, model, monkeypatch):
    model.responder = first_listed_action
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    bot = agent_process(server, "llm-bot", "llm", "--game", "tic_tac_toe", "--no-ladder", "--model", "fake",
                        "--base-url", model.base_url, "--price-per-1k-input", "1")
    try:
        wait_connected(server, "llm-bot")
        tournament = run_tournament(server, "tic_tac_toe", ["llm-bot", "random"], games_per_pairing=2)
        assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
        matches = matches_of(server, tournament.tournament_id)
        assert len(matches) == 4
        stub = server.arena_stub()
        asked = 0
        for match in matches:
            assert match.status == match_pb2.MATCH_STATUS_FINISHED
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            seat = next(p.seat for p in match.players if p.agent_name == "llm-bot")
            stats = next(s for s in match.result.seat_stats if s.seat == seat)
            assert (stats.illegal_actions, stats.parse_failures, stats.timeouts,
                    stats.substituted_actions) == (0, 0, 0, 0)
            log = stub.GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
            metas = [MessageToDict(e.data)["metadata"] for e in log
                     if e.kind == "decision_meta" and e.data["seat"] == seat]
            # A forced last move is played without asking the model.
            metas = [m for m in metas if not m["extra"].get("forced")]
            assert metas
            for metadata in metas:
                assert int(metadata["promptTokens"]) > 0 and int(metadata["completionTokens"]) > 0
                assert metadata["costUsd"] > 0 and re.search(r"Action: [XO]: \(\d, \d\)", metadata["reasoning"])
                extra = metadata["extra"]
                assert extra["style"] == "generic" and extra["model"] == "fake" and extra["sent_as"] == "action_id"
                assert "Legal actions:" in extra["prompt"][1]["content"]
            asked += len(metas)
        assert len(model.requests) == asked
    finally:
        bot.terminate()
        bot.wait(10)


def test_a_key_refused_mid_run_ends_arena_agent_llm_with_one_line(server, model, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    bot = agent_process(server, "llm-bot", "llm", "--game", "tic_tac_toe", "--no-ladder", "--model", "fake",
                        "--base-url", model.base_url)
    try:
        wait_connected(server, "llm-bot")       # the endpoint check passed with the right key
        model.api_key = "rotated-key"
        create_tournament(server, "tic_tac_toe", ["llm-bot", "random"], games_per_pairing=1)
        _, stderr = bot.communicate(timeout=60)
        assert bot.returncode == 1
        assert stderr.count("\n") == 1 and "refused the API key (401" in stderr and "Traceback" not in stderr, stderr
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)


def test_with_vision_the_agent_sends_the_pictures_of_its_view_to_the_model(server, model, monkeypatch):
    model.responder = first_listed_action
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    bot = agent_process(server, "llm-eyes", "llm", "--game", "hive", "--no-ladder", "--model", "fake",
                        "--base-url", model.base_url, "--vision")
    try:
        wait_connected(server, "llm-eyes")
        tournament = run_tournament(server, "hive", ["llm-eyes", "random"], parameters={"max_turns": 2})
        assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
        assert model.requests
        for body in model.requests:
            parts = body["messages"][-1]["content"]
            assert [p["type"] for p in parts] == ["text", "image_url"]
            assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")   # a PNG
        # The logged prompt names the image instead of carrying it.
        match = matches_of(server, tournament.tournament_id)[0]
        log = server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
        prompts = [MessageToDict(e.data)["metadata"]["extra"]["prompt"] for e in log if e.kind == "decision_meta"]
        assert prompts and all(p[-1]["content"][1]["image_url"]["url"].endswith(" bytes>") for p in prompts)
    finally:
        bot.terminate()
        bot.wait(10)
