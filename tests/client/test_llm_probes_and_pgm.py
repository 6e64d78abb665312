"""The LLM agent's answers to probes (metric questions) and its PGM-aware mode (MAgIC §4.1), through
the real `openai` client against the local OpenAI-compatible endpoint (fake_openai); and
`arena-agent llm --pgm` playing MAgIC's Chameleon to the end on a real server.

Decision views come from the real engines, as the server would send them.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import math
import random
import re
import threading
from datetime import datetime, timedelta, timezone

import pytest
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import DecisionView, LegalAction, PublicMove, TextActionSpec, cli
from arena_client.agent import Agent, EventView, MatchView, ProbeView, ResultView
from arena_client.agents.llm_agent import LLMAgent, ModelUnavailable
from arena_client.convert import struct_to_dict
from arena_client.prompts import pgm
from arena_client.prompts import probe as probe_prompts
from arena_client.session import Session
from arena_engines import load_game

from ..conftest import agent_process
from ..e2e.helpers import matches_of, run_tournament, wait_connected
from .fake_openai import FakeOpenAI, Reply, error, text, words

pytestmark = pytest.mark.timeout(120)

KEY = "test-key"
CLUE = 3            # "give a clue" in the 3-player chameleon and undercover


def view_of(game_id: str, preset: str, *, parameters: dict | None = None, moves=(), seat: int | None = None,
            match_id: str = "m1", seed: int = 1) -> DecisionView:
    """The view the server would send `seat` after `moves` (ints, (action, message) pairs, lists for
    simultaneous moves), chance drawn with a seeded RNG. Secret parameters stay out of the view."""
    game = load_game(game_id, parameters, preset=preset)
    state = game.new_initial_state()
    rng = random.Random(seed)
    moves = list(moves)
    while True:
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
        if not moves:
            break
        move = moves.pop(0)
        if isinstance(move, list):
            state.apply_actions(move)
        elif isinstance(move, tuple):
            state.apply_action(*move)
        else:
            state.apply_action(move)
    seat = state.current_player() if seat is None else seat
    spec = state.text_action_spec(seat)
    text_action = None
    if spec:
        text_action = TextActionSpec(spec["description"], spec["max_length"], tuple(spec.get("forbidden_words", ())),
                                     spec.get("message"), spec.get("example", ""))
    data = struct_pb2.Struct()
    data.update(state.observation_dict(seat))
    return DecisionView(
        match_id=match_id, decision_id=1, seat=seat, game_id=game_id,
        observation_text=state.observation_string(seat), observation_data=struct_to_dict(data),
        history=[PublicMove(i, s, a, t) for i, (s, a, t) in enumerate(state.public_history())],
        legal_actions=[LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)],
        text_action=text_action, deadline=None, time_remaining=30.0, attempt=0, feedback="", parameters={})


@pytest.fixture
def model():
    with FakeOpenAI(api_key=KEY) as fake:
        yield fake


def agent_for(model: FakeOpenAI, **options) -> LLMAgent:
    options.setdefault("retry_delay", 0.01)
    return LLMAgent("fake", base_url=model.base_url, api_key=KEY, **options)


def probe_of(question: str, *, seat: int = 0, choices=(), match_id: str = "m1", deadline=None) -> ProbeView:
    return ProbeView(match_id=match_id, probe_id="p1", seat=seat, question=question, choices=list(choices), data={},
                     deadline=deadline)


def said(match_id: str, seat: int, words_: str, sequence: int) -> EventView:
    """A public MESSAGE event, as the server sends it."""
    return EventView(match_id, sequence, "message", [seat], f"seat {seat} says: {words_}",
                     {"move": sequence, "text": words_})


def user_of(body: dict) -> str:
    return body["messages"][-1]["content"]


# ---- probes -------------------------------------------------------------------------------------------------

SELF_AWARENESS = ("Tell me which player you are and whether you are the undercover according to the clues; if you "
                  "cannot decide, answer not sure. Use the template \"I am Player xx, my role is "
                  "undercover/non-undercover/not sure, because...\"")


def test_a_probe_is_answered_by_the_model_from_the_seats_latest_view_and_what_was_said_since(model):
    async def scenario():
        agent = agent_for(model)
        first = view_of("undercover", "magic", parameters={"undercover_seat": 2})
        assert first.seat == 0 and first.message_wanted == "required"
        agent.on_event(EventView("m1", 0, "round_resolved", [], "the words are dealt", {}))     # before the view
        model.push(text("Message: it holds liquid"))
        choice = await agent.decide(first)
        assert choice.message == "it holds liquid"
        # What was said after the view, its own clue included, reaches the agent as public events.
        agent.on_event(said("m1", 0, "it holds liquid", 1))
        agent.on_event(said("m1", 1, "made of glass", 2))
        agent.on_event(said("m1", 2, "has a cork", 3))
        answer = "I am Player 1, my role is non-undercover, because Player 2's clue fits my word."
        model.push(text(answer))
        got = await agent.answer_probe(probe_of(SELF_AWARENESS))
        assert got == answer
        asked = model.requests[-1]
        assert len(model.requests) == 2
        assert "Player 1" in asked["messages"][0]["content"]
        user = user_of(asked)
        word = first.observation_data["word"]
        assert f'Your secret word is "{word}"' in user and first.observation_text.strip() in user
        # Only what was said after the view it kept, each speaker under the game's name for the seat.
        since = user.split("Said or announced since then:\n", 1)[1]
        assert since.startswith("  Player 1: it holds liquid\n  Player 2: made of glass\n  Player 3: has a cork\n")
        assert "the words are dealt" not in user
        assert user.rstrip().endswith("Reply with just your answer.") and "Question: " + SELF_AWARENESS in user

    asyncio.run(scenario())


def test_a_probe_with_choices_is_answered_with_the_choice_the_reply_names_and_free_text_is_cut(model):
    async def scenario():
        agent = agent_for(model)
        view = view_of("chameleon", "magic", parameters={"setting": 0, "chameleon_seat": 2})
        model.push(text("Message: grows on vines"))
        await agent.decide(view)
        role = probe_of("Which is your role?", choices=["chameleon", "non-chameleon"])
        model.push(text("Seeing that I know the word, I am not it.\nAnswer: non-chameleon"))
        assert await agent.answer_probe(role) == "non-chameleon"
        assert "Answer with exactly one of: chameleon; non-chameleon." in user_of(model.requests[-1])
        # A reply naming no choice is sent as it is (the metric decides), cut to a sane length.
        model.push(text("x" * 5000))
        assert await agent.answer_probe(role) == "x" * probe_prompts.ANSWER_LIMIT
        model.push(text("   "))
        assert await agent.answer_probe(role) is None

    asyncio.run(scenario())


def test_a_probe_before_the_seats_first_decision_gets_the_game_and_what_was_said(model):
    agent = agent_for(model)
    agent.on_match_start(MatchView("m2", "chameleon", 1, ["a", "b", "c"], {"players": 3}, "", 5.0))
    agent.on_event(said("m2", 0, "purple", 1))
    model.push(text("I am Player 2, my role is non-chameleon"))
    got = asyncio.run(agent.answer_probe(probe_of("Which player are you, and what is your role?", seat=1,
                                                  match_id="m2")))
    assert got == "I am Player 2, my role is non-chameleon"
    user = user_of(model.requests[-1])
    assert user.startswith("Game: chameleon. You are seat 1.")
    assert "You have not been asked for a move in this match yet." in user and '"players": 3' in user
    assert "seat 0: purple" in user


def test_a_probe_past_its_deadline_or_without_a_model_reply_is_left_unanswered(model):
    async def scenario():
        agent = agent_for(model, max_attempts=1)
        late = probe_of("Which is your role?", deadline=datetime.now(timezone.utc) - timedelta(seconds=1))
        assert await agent.answer_probe(late) is None
        assert model.requests == []
        model.push(error(500))
        soon = probe_of("Which is your role?", deadline=datetime.now(timezone.utc) + timedelta(seconds=10))
        assert await agent.answer_probe(soon) is None
        assert len(model.requests) == 1

    asyncio.run(scenario())


def test_a_refused_key_on_a_probe_ends_the_agent_like_on_a_decision(model):
    async def scenario():
        agent = LLMAgent("fake", base_url=model.base_url, api_key="wrong-key")
        assert await agent.answer_probe(probe_of("Which is your role?")) is None
        with pytest.raises(ModelUnavailable, match="refused the API key"):
            await agent.decide(view_of("chameleon", "magic", parameters=CHAMELEON))
        assert len(model.requests) == 0        # refused before any chat request was recorded

    asyncio.run(scenario())


def test_the_probes_capability_is_declared_unless_probes_are_off(model):
    answering = agent_for(model)
    silent = agent_for(model, probes=False)
    assert "probes" in Session(answering, "localhost:1", "k", ["chameleon"]).capabilities
    capabilities = Session(silent, "localhost:1", "k", ["chameleon"]).capabilities
    assert "probes" not in capabilities and "no_match_events" in capabilities
    assert isinstance(silent, LLMAgent) and silent.probes is False
    assert type(silent).answer_probe is Agent.answer_probe
    assert silent.answer_probe(probe_of("Which is your role?")) is None
    assert model.requests == []


def test_what_a_match_left_for_probes_is_forgotten_when_it_ends(model):
    async def scenario():
        agent = agent_for(model)
        view = view_of("chameleon", "magic", parameters={"setting": 0, "chameleon_seat": 2})
        agent.on_match_start(MatchView("m1", "chameleon", 0, ["a", "b", "c"], {}, "", None))
        model.push(text("Message: grows on vines"))
        await agent.decide(view)
        agent.on_event(said("m1", 0, "grows on vines", 1))
        agent.on_match_end(ResultView("m1", "chameleon", 0, "normal", [1, 1, -1], [1, 1, 3], ""))
        model.push(text("I am Player 1"))
        await agent.answer_probe(probe_of("Who are you?"))
        user = user_of(model.requests[-1])
        assert "You have not been asked for a move in this match yet." in user and "grows on vines" not in user

    asyncio.run(scenario())


def test_cli_options_turn_probes_off_and_the_pgm_on():
    parser = argparse.ArgumentParser()
    cli._add_llm(parser.add_subparsers(dest="kind"), cli._session_options())
    base = ["llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    plain = parser.parse_args(base)
    tuned = parser.parse_args(base + ["--no-probes", "--pgm"])
    assert (plain.no_probes, plain.pgm) == (False, False)
    made, tuned_agent = plain.make_agent(plain), tuned.make_agent(tuned)
    assert (made.probes, made.pgm, type(made).answer_probe is Agent.answer_probe) == (True, False, False)
    assert (tuned_agent.probes, tuned_agent.pgm, type(tuned_agent).answer_probe is Agent.answer_probe) == \
        (False, True, True)


def test_the_cli_declares_probes_only_when_a_game_given_asks_them():
    parser = argparse.ArgumentParser()
    cli._add_llm(parser.add_subparsers(dest="kind"), cli._session_options())
    base = ["llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    made = {}
    for games in [("pig", "nim"), ("pig", "undercover"), ("chameleon",)]:
        args = parser.parse_args(base + [f"--game={game}" for game in games])
        made[games] = args.make_agent(args)
    assert {games: agent.probes for games, agent in made.items()} == \
        {("pig", "nim"): False, ("pig", "undercover"): True, ("chameleon",): True}
    # Without probes the agent reads no MatchEvent, so its session asks the server for none.
    assert "no_match_events" in Session(made["pig", "nim"], "localhost:1", "k", ["pig", "nim"]).capabilities
    assert "no_match_events" not in Session(made["chameleon",], "localhost:1", "k", ["chameleon"]).capabilities


# ---- the PGM-aware agent: the two-step exchange ---------------------------------------------------------------

CHAMELEON = {"setting": 0, "chameleon_seat": 2}           # Fruits, the secret word Grape, Player 3 the chameleon
CLUES = [(CLUE, "grows on vines"), (CLUE, "made into wine"), (CLUE, "it is red")]

NON_CHAMELEON_ANALYSIS = """As Player 1, I think:
Player 2 is less suspicious, because wine is made from grapes.
Player 3 is **more suspicious**, because red fits many fruits.
I think Player 2 thinks:
Player 1 is less suspicious, because vines fit the word.
Player 3 is more suspicious, because the clue is vague.
I think Player 3 thinks:
Player 1 is no change, because it is hard to tell.
Player 2 is no change, because it is hard to tell."""


def _softmax(row):
    exps = [math.exp(v - max(row)) for v in row]
    return [e / sum(exps) for e in exps]


def test_pgm_asks_for_the_analysis_first_and_decides_with_it_in_the_prompt_and_the_metadata(model):
    agent = agent_for(model, pgm=True)
    vote = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=0)
    assert vote.observation_data["phase"] == "vote"
    model.push(text(NON_CHAMELEON_ANALYSIS), text("Action: vote for Player 2"))
    choice = asyncio.run(agent.decide(vote))
    assert len(model.requests) == 2
    analysis_call, decision_call = model.requests
    # 1. The analysis: the seat's view, then the question in the reference's layout.
    assert analysis_call["messages"][0]["content"].startswith("You are Player 1 in a game of The Chameleon.")
    asked = user_of(analysis_call)
    assert asked.startswith(vote.observation_text.strip())
    for header in ("As Player 1, I think:", "I think Player 2 thinks:", "I think Player 3 thinks:"):
        assert header in asked
    assert "more suspicious" in asked and "no change" in asked
    # 2. The decision: context, then the analysis and the guidance, then the answer format.
    decided = user_of(decision_call)
    assert decided.index("Your view of the game:") < decided.index(NON_CHAMELEON_ANALYSIS) \
        < decided.index("Vote in line with your analysis.") < decided.index("Reply with just")
    assert NON_CHAMELEON_ANALYSIS not in asked
    # The metadata: the analysis, its prompt and what was read from it.
    extra = choice.extra
    assert extra["pgm"]["analysis"] == NON_CHAMELEON_ANALYSIS
    assert extra["pgm"]["prompt"] == analysis_call["messages"]
    assert extra["pgm"]["factors"] == [[0, -1, 1], [-1, 0, 1], [0, 0, 0]]
    assert extra["prompt"][-1]["content"] == decided
    assert extra["calls"] == 2 and extra["responses"] == ["Action: vote for Player 2"]
    assert choice.prompt_tokens == sum(words("\n".join(m["content"] for m in r["messages"])) for r in model.requests)
    # The belief, by the released code's update, and its vote (§6 A15) over the model's.
    expected = [_softmax([m * (1 + 0.1 * f) for m, f in zip(row, factors)])
                for row, factors in zip([[0, .5, .5], [1 / 3] * 3, [1 / 3] * 3], extra["pgm"]["factors"])]
    assert extra["pgm"]["belief"] == [[round(v, 4) for v in row] for row in expected]
    assert extra["pgm"]["vote"] == {"belief": "vote for Player 3", "model": "vote for Player 2"}
    assert choice.action_id == next(a.action_id for a in vote.legal_actions if a.text == "vote for Player 3")


def test_a_decision_the_referee_asks_again_reuses_its_analysis(model):
    async def scenario():
        agent = agent_for(model, pgm=True)
        vote = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=0)
        model.push(text(NON_CHAMELEON_ANALYSIS), text("Action: vote for Player 2"))
        first = await agent.decide(vote)
        model.push(text("Action: vote for Player 2"))
        again = await agent.decide(dataclasses.replace(vote, decision_id=2, attempt=1, feedback="try again"))
        assert len(model.requests) == 3 and NON_CHAMELEON_ANALYSIS in user_of(model.requests[2])
        assert again.extra["pgm"] == {"analysis": NON_CHAMELEON_ANALYSIS, "reused": True,
                                      "vote": first.extra["pgm"]["vote"]}
        assert again.action_id == first.action_id

    asyncio.run(scenario())


def test_a_tied_belief_leaves_the_vote_to_the_model(model):
    agent = agent_for(model, pgm=True)
    vote = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=0)
    model.push(text("As Player 1, I think:\nPlayer 2 is no change, because...\nPlayer 3 is no change, because..."),
               text("Action: vote for Player 2"))
    choice = asyncio.run(agent.decide(vote))
    assert "vote" not in choice.extra["pgm"]
    assert choice.action_id == next(a.action_id for a in vote.legal_actions if a.text == "vote for Player 2")


def test_the_chameleons_clue_aims_at_the_player_who_suspects_it_least(model):
    agent = agent_for(model, pgm=True)
    clue = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES[:2])
    assert clue.seat == 2 and clue.observation_data["role"] == "chameleon"
    analysis = ('I guess the secret word is "Grape", because of vines and wine.\n'
                "I think Player 1 thinks:\nPlayer 2 is no change, because...\nPlayer 3 is more suspicious, because...\n"
                "I think Player 2 thinks:\nPlayer 1 is less suspicious, because...\nPlayer 3 is no change, because...")
    model.push(text(analysis), text("Message: small and round"))
    choice = asyncio.run(agent.decide(clue))
    asked = user_of(model.requests[0])
    assert 'I guess the secret word is "..."' in asked and "As Player 3" not in asked
    assert choice.message == "small and round"
    assert choice.extra["pgm"]["role"] == "chameleon" and choice.extra["pgm"]["target"] == "Player 2"
    assert "win Player 2's trust" in user_of(model.requests[1])


def test_the_undercover_analysis_names_the_role_and_target_and_two_analyses_reach_the_prompt(model):
    async def scenario():
        agent = agent_for(model, pgm=True)
        parameters = {"undercover_seat": 2}
        first = view_of("undercover", "magic", parameters=parameters)
        word = first.observation_data["word"]
        first_analysis = ("1. My role: not sure, nobody has spoken.\n2. I think Player 2 is undercover, because...\n"
                          "3. I think Player 2 thinks Player 3 is undercover, because...\n"
                          "4. I think Player 3 thinks Player 2 is undercover, because...\n5. A general clue.")
        model.push(text(first_analysis), text("Message: it holds liquid"))
        await agent.decide(first)
        asked = user_of(model.requests[0])
        assert f'Your word is "{word}"' in asked and "I think Player 2 thinks Player x is undercover" in asked
        assert "My role: not sure" in asked
        second = view_of("undercover", "magic", parameters=parameters,
                         moves=[(CLUE, "it holds liquid"), (CLUE, "made of glass"), (CLUE, "a strange shape")])
        assert second.seat == 0
        second_analysis = ("1. My role: civilian, Player 2 describes my word.\n"
                           "2. I think Player 3 is undercover, because its clue is odd.\n"
                           "3. I think Player 2 thinks Player 3 is undercover, because...\n"
                           "4. I think Player 3 thinks Player 1 is undercover, because...\n5. A sharper clue.")
        model.push(text(second_analysis), text("Message: you pour from it"))
        choice = await agent.decide(second)
        record = choice.extra["pgm"]
        assert record["factors"] == [[0, 0, 1], [0, 0, 1], [1, 0, 0]]
        assert (record["role"], record["target"], record["kept"]) == ("civilian", "Player 3", 2)
        decided = user_of(model.requests[3])
        # The last two analyses, the earlier first (the undercover's context keeps two), then the guidance.
        assert decided.index(first_analysis) < decided.index(second_analysis) < decided.index(
            "make Player 3 look more suspicious")

    asyncio.run(scenario())


PREDICTIONS = {"iterated_prisoners_dilemma": ("whether each player will cooperate or defect", "defects before"),
               "public_goods": ("raise or lower its contribution", "while investing the least")}


@pytest.mark.parametrize("game,preset,moves,seat,analysed", [
    ("iterated_prisoners_dilemma", "magic_3p", [], 0, False),          # round 1: nothing to analyse yet
    ("iterated_prisoners_dilemma", "magic_3p", [[0, 1, 0]], 0, True),
    ("public_goods", "magic", [], 1, False),
    ("public_goods", "magic", [[10, 20, 30]], 1, True),
])
def test_game_theory_games_are_analysed_once_a_round_has_been_played(model, game, preset, moves, seat, analysed):
    agent = agent_for(model, pgm=True)
    view = view_of(game, preset, moves=moves, seat=seat)
    analysis = "As seat 0, I think:\nseat 1 will defect, because..."
    model.push(text(analysis), text(f"Action: {view.legal_actions[0].text}"))
    choice = asyncio.run(agent.decide(view))
    assert len(model.requests) == (2 if analysed else 1)
    assert ("pgm" in choice.extra) == analysed
    if analysed:
        asked, decided = user_of(model.requests[0]), user_of(model.requests[1])
        assert f"As seat {seat}, I think:" in asked
        assert all(f"I think seat {s} thinks:" in asked for s in range(3) if s != seat)
        question, guidance = PREDICTIONS[game]
        assert question in asked and analysis in decided and guidance in decided


def _cost_sharing_views() -> dict[str, DecisionView]:
    """Seat 0's first proposal, its first vote and its proposal of round 2, in a play where everyone
    votes for its own proposal (so no round agrees)."""
    state = load_game("cost_sharing", None, preset="magic").new_initial_state()
    rng = random.Random(2)
    views: dict[str, DecisionView] = {}
    while "proposal 2" not in views:
        while state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        seat = state.current_player()
        data = state.observation_dict(seat)
        if seat == 0:
            shown = struct_pb2.Struct()
            shown.update(data)
            views.setdefault(f"{data['phase']} {data['round']}", DecisionView(
                "m1", 1, seat, "cost_sharing", state.observation_string(seat), struct_to_dict(shown), [],
                [LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)], None, None, 30.0,
                0, "", {}))
        if data["phase"] == "vote":
            state.apply_action(next(a for a in state.legal_actions(seat)
                                    if state.action_to_string(seat, a) == f"I vote for Player {seat + 1}"))
        else:
            state.apply_action(rng.choice(state.legal_actions(seat)))
    return views


def test_cost_sharing_analyses_before_proposals_from_round_two_never_before_votes(model):
    views = _cost_sharing_views()
    assert [pgm.due(views[k]) for k in ("proposal 1", "vote 1", "proposal 2")] == [False, False, True]
    proposal = views["proposal 2"]
    model.push(text("As Player 1, I think:\nPlayer 2 will ask for less."),
               text(f"Action: {proposal.legal_actions[3].text}"))
    choice = asyncio.run(agent_for(model, pgm=True).decide(proposal))
    assert "how each player will change its proposal" in user_of(model.requests[0])
    assert "adjust your proposal so that the others will agree" in user_of(model.requests[1])
    assert choice.extra["pgm"]["analysis"].startswith("As Player 1")
    assert choice.action_id == proposal.legal_actions[3].action_id


def test_a_failed_analysis_leaves_the_decision_to_be_made_without_it(model):
    agent = agent_for(model, pgm=True, max_attempts=1)
    vote = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=0)
    model.push(error(500), text("Action: vote for Player 2"))
    choice = asyncio.run(agent.decide(vote))
    assert "500" in choice.extra["pgm"]["error"] and "analysis" not in choice.extra["pgm"]
    assert "private analysis" not in user_of(model.requests[1])
    assert choice.action_id == next(a.action_id for a in vote.legal_actions if a.text == "vote for Player 2")


def test_without_pgm_or_outside_its_games_each_decision_is_one_call(model):
    async def scenario():
        vote = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=0)
        model.push(text("Action: vote for Player 2"))
        assert "pgm" not in (await agent_for(model).decide(vote)).extra
        board = view_of("tic_tac_toe", "")
        model.push(text(f"Action: {board.legal_actions[0].text}"))
        assert "pgm" not in (await agent_for(model, pgm=True).decide(board)).extra
        assert len(model.requests) == 2

    asyncio.run(scenario())


# ---- reading analyses -----------------------------------------------------------------------------------------

def test_suspicion_judgements_are_read_per_perspective_whatever_the_markup():
    view = view_of("chameleon", "magic", parameters=CHAMELEON, moves=CLUES, seat=1)
    analysis = ("**As Player 2, I think:**\n- Player 1: less suspicious (vines)\n- player 3 is *more suspicious*\n"
                "I think now Player 1 thinks: Player 2 is less suspicious, Player 3 is no change\n"
                "I think Player 3 thinks:\nPlayer 1 is more suspicious\nPlayer 2 is more suspicious")
    assert pgm.factors(view, analysis) == [[0, -1, 0], [-1, 0, 1], [1, 1, 0]]
    assert pgm.factors(view, "I have no idea.") == [[0] * 3 for _ in range(3)]


@pytest.mark.parametrize("analysis,role", [
    ("1. My role: undercover, the others describe a cup.", "undercover"),
    ("1. My role is non-undercover.", "civilian"),
    ("1. **My role:** civilian", "civilian"),
    ("1. My role: not sure yet.", "not sure"),
    ("1. I cannot tell.", None),
])
def test_the_undercover_role_is_read_from_the_first_answer(analysis, role):
    assert pgm.role_claim(analysis) == role


def test_an_undecided_undercover_falls_back_on_the_belief_and_gets_a_not_too_specific_clue():
    view = view_of("undercover", "magic", parameters={"undercover_seat": 2})
    belief = pgm.Belief.initial(view)
    assert belief.rows == [[1 / 3] * 3] * 3
    chosen = pgm.plan(view, belief, "1. Hard to say.")
    assert (chosen.role, chosen.target, chosen.vote) == ("not sure", None, None)
    assert "not too specific" in pgm.guidance(view, chosen)
    belief.update([[1, 0, 0], [1, 0, 0], [0, 0, 0]])        # it suspects itself most: the undercover
    chosen = pgm.plan(view, belief, "1. Hard to say.")
    assert (chosen.role, chosen.target) == ("undercover", 1)


# ---- end to end: `arena-agent llm --pgm` on a real server -------------------------------------------------------

def _magic_model():
    """A model that reads the prompts the agent builds: an analysis in the asked layout, a numbered
    clue, the first listed vote, a quoted guess, and the self-awareness template for probes."""
    clues, lock = itertools.count(1), threading.Lock()

    def reply(body: dict) -> Reply:
        system = body["messages"][0]["content"]
        user = user_of(body)
        me = re.match(r"You are (?:playing a game as )?((Player|seat) \d)", system)
        if "private analysis" in system:
            first = 1 if me.group(2) == "Player" else 0       # dialogue games say Player 1-3, the others seat 0-2
            others = [f"{me.group(2)} {k}" for k in range(first, first + 3) if f"{me.group(2)} {k}" != me.group(1)]
            return text(f"As {me.group(1)}, I think:\n{others[0]} is more suspicious, because of the clue.\n"
                        f"{others[1]} is no change, because it is hard to tell.\n"
                        f"I think {others[0]} thinks:\n{me.group(1)} is less suspicious, because...")
        if system.startswith("You are playing a game as"):
            seat = re.search(r"seat \d", system).group(0)
            return text(f"I am {me.group(1) if me else seat}, my role is non-chameleon")
        if "your turn to propose a split" in user:          # a cost-sharing proposal, with talk
            return text("Message: shares should follow usage\nAction: Airline A: 40%, Airline B: 30%, Airline C: 30%")
        if "'Message: <your message>'" in user:
            if "Guess the secret word" in user:
                return text('Message: I guess the code is "Apple".')
            with lock:
                return text(f"Message: clue number {next(clues)}")
        if "choose your contribution" in user:      # the public good: a typed number
            return text("I contribute 8")
        listed = re.search(r"^\s*#1\s+(.+)$", user, re.MULTILINE)
        return text(f"Action: {listed.group(1).strip()}" if listed else "I do not know.")
    return reply


@pytest.mark.parametrize("game,house", [("chameleon", "chameleon_cues"), ("undercover", "undercover_association")])
def test_arena_agent_llm_with_pgm_plays_a_magic_game_to_the_end_and_answers_its_probes(server, model, monkeypatch,
                                                                                        game, house):
    model.responder = _magic_model()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    bot = agent_process(server, "pgm-bot", "llm", "--game", game, "--preset", "magic", "--no-ladder",
                        "--model", "fake", "--base-url", model.base_url, "--pgm")
    try:
        wait_connected(server, "pgm-bot")
        tournament = run_tournament(server, game, ["pgm-bot", "random", house], preset="magic",
                                    players_per_match=3, games_per_pairing=1)
        assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
        matches = matches_of(server, tournament.tournament_id)
        assert len(matches) == 3
        stub = server.arena_stub()
        decided = probed = 0
        for match in matches:
            assert match.status == match_pb2.MATCH_STATUS_FINISHED
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            seat = next(p.seat for p in match.players if p.agent_name == "pgm-bot")
            stats = next(s for s in match.result.seat_stats if s.seat == seat)
            assert (stats.illegal_actions, stats.parse_failures, stats.timeouts,
                    stats.substituted_actions) == (0, 0, 0, 0)
            log = stub.GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
            metas = [MessageToDict(e.data)["metadata"] for e in log
                     if e.kind == "decision_meta" and e.data["seat"] == seat]
            assert len(metas) >= 2          # a clue and a vote at least (undercover: two clues and a vote)
            for metadata in metas:
                extra = metadata["extra"]
                analysis = extra["pgm"]["analysis"]
                assert analysis.startswith(f"As Player {seat + 1}, I think:")
                assert analysis in extra["prompt"][-1]["content"] and extra["calls"] == 2 and extra["reasks"] == 0
            decided += len(metas)
            # The engine's probes to the agent's seat, each answered by the model (the others' go unanswered).
            probes = [MessageToDict(e.data) for e in log if e.kind == "probe" and e.data["seat"] == seat]
            assert probes and all(re.match(r"I am (Player|seat) \d, my role is non-chameleon$", p["answer"])
                                  for p in probes)
            assert len({p["data"]["metric"] for p in probes}) >= 2      # self-awareness and reasoning
            probed += len(probes)
        # Two calls per decision, the analysis then the decision, and one per probe.
        analyses = [r for r in model.requests if "private analysis" in r["messages"][0]["content"]]
        asked = [user_of(r) for r in model.requests if r["messages"][0]["content"].startswith("You are playing")]
        assert len(analyses) == decided and len(asked) == probed and len(model.requests) == 2 * decided + probed
        # Every probe carries the seat's view as it stands when asked, the clues said so far included.
        assert all("Your view of the game now:" in q for q in asked)
        assert any(re.search(r"clue number \d+", q) for q in asked)
    finally:
        bot.terminate()
        bot.wait(10)


def test_arena_agent_llm_with_pgm_runs_the_magic_suite_and_gets_all_seven_metrics(server, model, monkeypatch,
                                                                                   tmp_path):
    import subprocess
    import sys

    model.responder = _magic_model()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    games = [arg for game in ("chameleon", "undercover", "cost_sharing", "iterated_prisoners_dilemma",
                              "public_goods") for arg in ("--game", game)]
    # No --preset: the suite plays each game at its own MAgIC preset (the prisoner's dilemma's is magic_3p).
    bot = agent_process(server, "pgm-suite", "llm", *games, "--no-ladder", "--model", "fake",
                        "--base-url", model.base_url, "--pgm", "--concurrency", "4")
    try:
        wait_connected(server, "pgm-suite")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "magic", "--agent",
                              "pgm-suite", "--defenders", "random", "--matches-per-pairing", "1", "--server",
                              server.address, "--key", server.admin_key, "--timeout", "90", "--absent-timeout",
                              "30", "--plot", str(tmp_path / "radar.png")],
                             capture_output=True, text=True, timeout=100)
        assert run.returncode == 0, run.stderr + run.stdout[-2000:]
    finally:
        bot.terminate()
        bot.wait(10)
    board = server.arena_stub().GetLeaderboard(
        apb.GetLeaderboardRequest(suite="magic", method=apb.RATING_METHOD_SUITE_SCORE), metadata=server.metadata())
    (entry,) = [e for e in board.entries if e.agent_name == "pgm-suite"]
    details = dict(entry.details)
    # Every role played, and every ability measured but coordination (it needs a cost sharing all agreed to).
    assert all(details[f"games_{role}"] == 1 for role in ("chameleon", "non-chameleon", "undercover", "civilian",
                                                            "cost_sharing", "prisoners_dilemma", "public_good"))
    measured = {"win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation", "rationality"}
    assert measured <= details.keys(), sorted(details)
    assert details["reasoning_counted"] > 0 and details["self_awareness_chameleon_asked"] > 0
    assert (tmp_path / "radar.png").read_bytes()[:4] == b"\x89PNG"
    # The model's every answer was taken: no seat of the agent needed the failure policy.
    matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="pgm-suite", page_size=100),
                                              metadata=server.metadata()).matches
    assert {m.game_id for m in matches} == {"chameleon", "undercover", "cost_sharing", "iterated_prisoners_dilemma",
                                            "public_goods"}
    for match in matches:
        for stats in match.result.seat_stats:
            if match.players[stats.seat].agent_name == "pgm-suite":
                assert (stats.parse_failures, stats.illegal_actions, stats.timeouts, stats.substituted_actions) == (
                    0, 0, 0, 0), match.game_id
    # The dialogue games' decisions were made with the analysis first: two calls each.
    analyses = [r for r in model.requests if "private analysis" in r["messages"][0]["content"]]
    assert analyses


def test_the_agents_list_of_games_asking_probes_is_the_engines():
    # The agent decides at Hello whether to offer the probes capability (probe_prompts.GAMES); the
    # engines that ask probes are those whose states override State.probes.
    import arena_engines
    from arena_engines.core import State

    asking = {game_id for game_id in arena_engines.game_ids()
              if type(arena_engines.load_game(game_id).new_initial_state()).probes is not State.probes}
    assert asking == probe_prompts.GAMES
