"""GameBench's prompt style (arena_client.prompts.gamebench) and its CoT variant.

Each prompt is built from a real engine state of the gamebench preset (a seeded random playout to a
decision of the kind wanted) turned into the DecisionView the SDK would receive: the prompt's
structure (system, then rules summary, section map, observation, actions, JSON form), every legal
action named by an id that reads back to it, the open-ended field exactly when the decision carries
a message, and GameBench's invalid-answer policy (corrective messages, Explain, three attempts).
Then the LLM agent through the real `openai` client against the local endpoint (fake_openai): JSON
mode, CoT's two calls, and `arena-agent llm --preset gamebench` playing codenames, santorini, hive
(with --vision), are_you_the_traitor, two_rooms_and_a_boom and pit on a real server against the house
random agent, with open-ended responses said as messages.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import threading

import pytest
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import DecisionView, LegalAction, PublicMove, TextActionSpec
from arena_client.agent import Utterance
from arena_client.agents.llm_agent import LLMAgent
from arena_client.convert import struct_to_dict
from arena_client.prompts import STYLES, gamebench, style_for
from arena_engines import load_game
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from ..conftest import agent_process
from ..e2e.helpers import matches_of, run_tournament, wait_connected
from .fake_openai import FakeOpenAI, Reply, error, message_text, prompt_text, text, words

pytestmark = pytest.mark.timeout(120)

KEY = "test-key"
GAMEBENCH = STYLES["gamebench"]
GAMES = ("air_land_sea", "arctic_scavengers", "are_you_the_traitor", "codenames", "hive", "pit", "santorini",
         "two_rooms_and_a_boom", "sea_battle")


# ---- engine states and the views the SDK makes of them -----------------------------------------------

def _step(state, rng: random.Random) -> None:
    """One random step: chance, a simultaneous node, or one seat's move (with a message when wanted)."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
        return
    seats = state.current_players()

    def said(seat):
        spec = state.text_action_spec(seat)
        return "hello" if spec and spec.get("message") else None
    if state.is_simultaneous_node():
        actions, messages = [0] * state.num_players, [None] * state.num_players
        for seat in seats:
            actions[seat], messages[seat] = rng.choice(state.legal_actions(seat)), said(seat)
        state.apply_actions(actions, messages)
    else:
        state.apply_action(rng.choice(state.legal_actions(seats[0])), said(seats[0]))


def state_at(game: str, wanted, *, parameters: dict | None = None, seed: int = 5):
    """(state, seat): a seeded random playout of the gamebench preset up to the first decision for
    which wanted(state, seat) holds."""
    state = load_game(game, parameters, preset="gamebench").new_initial_state()
    rng = random.Random(seed)
    for _ in range(5000):
        if not state.is_chance_node() and not state.is_terminal():
            for seat in state.current_players():
                if wanted(state, seat):
                    return state, seat
        assert not state.is_terminal(), f"{game}: no such decision in the playout"
        _step(state, rng)
    raise AssertionError(f"{game}: no such decision in 5000 steps")


def view_of(state, seat: int, *, images: bool = False, attempt: int = 0, feedback: str = "") -> DecisionView:
    """What the SDK hands the agent: the observation data through a protobuf Struct (as on the wire),
    the legal actions, the text spec, the conversation and, when asked, the image of the view."""
    data = struct_pb2.Struct()
    data.update(state.observation_dict(seat))
    spec = state.text_action_spec(seat)
    text_action = None if spec is None else TextActionSpec(
        spec["description"], spec["max_length"], tuple(spec.get("forbidden_words", ())), spec.get("message"),
        spec.get("example", ""), tuple(spec.get("audience") or ()))
    image = state.observation_image(seat) if images else None
    return DecisionView(
        match_id="m1", decision_id=1, seat=seat, game_id=state.game.spec.game_id,
        observation_text=state.observation_string(seat), observation_data=struct_to_dict(data),
        history=[PublicMove(i, s, a, t) for i, (s, a, t) in enumerate(state.public_history())],
        legal_actions=[LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)],
        text_action=text_action, deadline=None, time_remaining=30.0, attempt=attempt, feedback=feedback,
        parameters=dict(state.game.parameters),
        conversation=[Utterance(u["move"], u["seat"], u["text"], tuple(u.get("to") or ()))
                      for u in state.conversation(seat)],
        images=[image] if image else [])


def _message(state, seat) -> bool:
    spec = state.text_action_spec(seat)
    return bool(spec and spec.get("message"))


def _choice(state, seat) -> bool:
    return len(state.legal_actions(seat)) > 1 and not _message(state, seat)


def _phase(name: str):
    return lambda state, seat: _choice(state, seat) and state.observation_dict(seat).get("phase") == name


# One decision of each kind per game: (game, which decision, message wanted).
DECISIONS = [
    ("air_land_sea", _choice, False),
    ("arctic_scavengers", _choice, False),
    ("are_you_the_traitor", _phase("choose_target"), False),
    ("are_you_the_traitor", lambda state, seat: _message(state, seat)
     and state.observation_dict(seat).get("phase") == "question", True),
    ("codenames", _message, True),
    ("codenames", _choice, False),
    ("hive", _choice, False),
    ("pit", _choice, False),
    ("santorini", _choice, False),
    ("two_rooms_and_a_boom", _choice, False),
    ("two_rooms_and_a_boom", _message, True),
    ("sea_battle", _choice, False),
]
IDS = [f"{game}-{'message' if message else 'action'}" for game, _, message in DECISIONS]


def user_of(prompt) -> str:
    return prompt.messages[1]["content"]


def answer(action: str, response: str | None = None) -> str:
    return json.dumps({"action": action, "openended_response": response})


# ---- the prompt's structure, for every game ------------------------------------------------------------

@pytest.mark.parametrize("game,wanted,message", DECISIONS, ids=IDS)
def test_the_prompt_has_gamebenchs_structure_and_names_every_legal_action(game, wanted, message):
    state, seat = state_at(game, wanted)
    view = view_of(state, seat)
    assert bool(view.message_wanted) == message
    assert style_for("auto", game, "gamebench") is GAMEBENCH and style_for("auto", game, "gamebench_code") is GAMEBENCH
    assert style_for("auto", game).name == "generic"           # by GameBench's presets only
    prompt = GAMEBENCH.build(view, False)
    assert [m["role"] for m in prompt.messages] == ["system", "user"] and prompt.then is None
    assert "maximises your chance of winning" in prompt.messages[0]["content"]
    user = user_of(prompt)
    rules = gamebench.RULES[game]
    # In order: title and summary, the section map, the observation, the actions, the JSON form.
    headings = [f"  H{k}: {heading}" for k, (heading, _) in enumerate(rules.sections, 1)]
    marks = [f"You are playing {rules.title}.", "Rules summary: " + rules.summary, '"Explain(Hk)"', *headings,
             "Observation:\n" + view.observation_text.strip(), "Actions:", "Instructions:",
             'answer with "Explain(<action id>)"', "Answer with a JSON object only: " + gamebench.JSON_FORM]
    positions = [user.find(mark) for mark in marks]
    assert -1 not in positions and positions == sorted(positions), dict(zip(marks, positions))
    assert len(rules.sections) >= 3 and all(text for _, text in rules.sections)
    # The open-ended section appears exactly when the decision carries a message; then it is the decision.
    assert ('Open-ended actions (id: what to write in "openended_response"):' in user) == message
    assert ("Predefined actions (id: description):" in user) == (not message)
    # Every legal action has an id in the list that reads back to it.
    read = set()
    if message:
        ident, = prompt.open_ended
        assert f'  "{prompt.open_ended[ident].id}": ' in user
        response = "fresco,2" if game == "codenames" else "Who do you trust?"
        reading = prompt.read(answer(prompt.open_ended[ident].id, response))
        assert reading.action in view.legal_actions and reading.message
    else:
        for ident, (action, description) in prompt.predefined.items():
            shown = prompt.ids[list(prompt.predefined).index(ident)]
            assert f'  "{shown}": {description}' in user
            reading = prompt.read(answer(shown))
            assert reading.action == action and reading.message is None and not reading.problem
            read.add(action.action_id)
        assert read == {a.action_id for a in view.legal_actions}
    # CoT: the reasoning request instead of the answer, and the summary prompt restating the actions.
    cot = GAMEBENCH.build(view, True)
    assert user_of(cot).endswith(gamebench.REASON_ALOUD) and gamebench.JSON_FORM not in user_of(cot)
    assert cot.then.startswith("Now choose your action.") and cot.then.endswith(gamebench.JSON_FORM + ".")
    assert all(f'"{ident}"' in cot.then for ident in cot.ids)
    assert ("The valid open-ended actions are:" in cot.then) == message


def test_the_style_has_a_card_for_each_of_the_nine_games_and_these_tests_visit_each():
    assert set(GAMES) == set(gamebench.RULES) == {game for game, _, _ in DECISIONS}
    assert all(GAMEBENCH.covers(game) for game in GAMES) and GAMEBENCH.response_format == {"type": "json_object"}


def test_game_specific_ids_are_gamebenchs():
    state, seat = state_at("codenames", _choice)
    prompt = GAMEBENCH.build(view_of(state, seat), False)
    assert "end_turn" in prompt.ids and all(re.fullmatch(r"guess_\d+|end_turn", i) for i in prompt.ids)
    state, seat = state_at("are_you_the_traitor", _phase("choose_target"))
    assert GAMEBENCH.build(view_of(state, seat), False).ids == [str(p) for p in range(5) if p != seat]
    state, seat = state_at("pit", _choice)
    assert all(re.fullmatch(r"(Offer_\w+_\d|Accept_\d+_\w+_\d)", i) for i in GAMEBENCH.build(view_of(state, seat),
                                                                                              False).ids)
    state, seat = state_at("air_land_sea", _choice)
    view = view_of(state, seat)
    assert GAMEBENCH.build(view, False).ids == [str(a.action_id) for a in view.legal_actions]


def test_a_game_outside_gamebench_falls_back_to_the_generic_style():
    state = load_game("tic_tac_toe", None).new_initial_state()
    assert GAMEBENCH.build(view_of(state, 0), False).style == "generic"


def test_the_image_goes_with_the_observation_when_the_game_sends_one():
    state, seat = state_at("hive", _choice)
    with_image = view_of(state, seat, images=True)
    assert with_image.images and with_image.images[0][0] == "image/png"
    assert "(An image of the current state is attached.)" in user_of(GAMEBENCH.build(with_image, False))
    assert "image" not in user_of(GAMEBENCH.build(view_of(state, seat), False))


# ---- reading GameBench's JSON answers ------------------------------------------------------------------

@pytest.fixture(scope="module")
def clue():
    """Codenames' spymaster turn: the clue is the open-ended action."""
    state, seat = state_at("codenames", _message)
    view = view_of(state, seat)
    return view, GAMEBENCH.build(view, False)


@pytest.fixture(scope="module")
def move():
    """A Santorini move: predefined actions only."""
    state, seat = state_at("santorini", _phase("play"))
    view = view_of(state, seat)
    return view, GAMEBENCH.build(view, False)


def test_an_open_ended_response_is_read_to_the_action_and_message(clue):
    _, prompt = clue
    reading = prompt.read('Here goes.\n```json\n{"action": "clue", "openended_response": "fresco, 3"}\n```')
    assert reading.action.action_id == 3 and reading.message == "fresco" and not reading.problem
    assert prompt.read(answer("CLUE", "fresco,9")).action.action_id == 9
    state, seat = state_at("are_you_the_traitor", lambda s, p: _message(s, p))
    question = GAMEBENCH.build(view_of(state, seat), False)
    ident, = question.ids
    reading = question.read(answer(ident, "Which wizard holds your trust?"))
    assert reading.action == view_of(state, seat).legal_actions[0] and reading.message == "Which wizard holds your trust?"
    # Two Rooms' own instructions call the open-ended action "openended": that id is read too.
    state, seat = state_at("two_rooms_and_a_boom", _message)
    talk = GAMEBENCH.build(view_of(state, seat), False)
    assert talk.read(answer("openended", "Are you the Bomber?")).message == "Are you the Bomber?"


def test_a_missing_open_ended_response_is_refused_with_gamebenchs_corrective_message(clue):
    _, prompt = clue
    for reply in (answer("clue"), '{"action": "clue"}', answer("clue", "  ")):
        reading = prompt.read(reply)
        assert reading.action is None
        assert reading.problem == 'The action "clue" is open-ended: your JSON must include its "openended_response".'
    feedback = prompt.feedback(prompt.read(answer("clue")))
    assert feedback.endswith("Answer again with a JSON object: " + gamebench.JSON_FORM)


def test_a_clue_the_game_would_refuse_is_asked_again(clue):
    view, prompt = clue
    board_word = view.text_action.forbidden_words[0].lower()
    assert "may not contain the word" in prompt.read(answer("clue", f"{board_word},2")).problem
    assert "not of the form 'word,number'" in prompt.read(answer("clue", "two words,2")).problem


def test_an_action_outside_the_list_is_refused_with_the_valid_actions_restated(move):
    _, prompt = move
    reading = prompt.read(answer("Move up, build down"))
    assert reading.action is None and reading.answer == "Move up, build down"
    assert reading.problem.startswith('"Move up, build down" is not one of the valid actions. The valid actions are: ')
    assert all(ident in reading.problem for ident in prompt.ids)
    # An open-ended id on a decision without one is no valid action either.
    assert "is not one of the valid actions" in prompt.read(answer("clue", "fresco,2")).problem


def test_an_actions_text_is_read_where_the_games_instructions_allow_it():
    state, seat = state_at("pit", _choice)
    prompt = GAMEBENCH.build(view_of(state, seat), False)
    assert "also works" in user_of(prompt)
    ident = prompt.ids[1]
    action, description = prompt.predefined[ident.lower()]
    assert prompt.read(answer(description)).action == action == prompt.read(answer(ident)).action


def test_invalid_json_is_refused(move):
    _, prompt = move
    for reply in ("Move north, build east", '{"action": "Move north, build east"', "{'move': 1}", ""):
        reading = prompt.read(reply)
        assert reading.action is None and reading.problem == 'Your reply is not a JSON object with an "action" field.'


def test_explain_answers_a_rule_section_or_an_action(move):
    _, prompt = move
    reading = prompt.read(answer("Explain(H3)"))
    heading, section = gamebench.RULES["santorini"].sections[2]
    assert reading.action is None and reading.problem == f"Explanation of H3 ({heading}): {section}"
    assert prompt.feedback(reading) == f"{reading.problem}\nNow answer with a JSON object: {gamebench.JSON_FORM}"
    ident = prompt.ids[0]
    assert prompt.read(answer(f"Explain({ident})")).problem == \
        f"Explanation of action {ident}: {prompt.predefined[ident.lower()][1]}"
    assert prompt.read(answer("Explain(H9)")).problem.startswith("There is nothing to explain under 'H9'")


# ---- the agent through the real openai client ------------------------------------------------------------

def _agent(model, **options) -> LLMAgent:
    return LLMAgent("fake", base_url=model.base_url, api_key=KEY, retry_delay=0.01, **options)


def test_explain_and_bad_answers_use_attempts_and_the_answer_goes_in_json_mode(move):
    view, prompt = move
    good = prompt.ids[5]
    with FakeOpenAI(api_key=KEY) as model:
        model.push(text(answer("Explain(H3)")), text("I would move north."), text(answer(good)))
        choice = asyncio.run(_agent(model, style="gamebench").decide(view))
    assert len(model.requests) == 3 and choice.extra["reasks"] == 2 and choice.extra["sent_as"] == "action_id"
    assert choice.action_id == prompt.predefined[good.lower()][0].action_id
    assert all(r["response_format"] == {"type": "json_object"} for r in model.requests)
    second = model.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[-1]["content"].startswith("Explanation of H3 (Moving): ")
    assert 'is not a JSON object' in model.requests[2]["messages"][-1]["content"]


def test_after_three_failed_attempts_the_agent_gives_up_for_the_referees_failure_policy(move):
    view, _ = move
    with FakeOpenAI(api_key=KEY) as model:
        model.push(text(answer("Explain(H1)")), text("no json"), text(answer("Move up, build down")),
                   text(answer("never asked")))
        # The agent's own bound is higher: GameBench's three attempts hold.
        choice = asyncio.run(_agent(model, style="gamebench", max_reasks=5).decide(view))
    assert len(model.requests) == 3 and choice.extra["reasks"] == 2
    assert choice.action_id is None and choice.extra["sent_as"] == "text"
    assert choice.text not in {a.text for a in view.legal_actions}


def test_cot_makes_two_calls_reasoning_then_the_json_action_with_the_summary_prompt(clue):
    view, _ = clue
    thought = "My words are few; a clue for three of them is worth the risk."
    final = answer("clue", "fresco,3")
    with FakeOpenAI(api_key=KEY) as model:
        model.push(text(thought), text(final))
        choice = asyncio.run(_agent(model, style="gamebench", reasoning="cot").decide(view))
    first, second = model.requests
    assert "response_format" not in first and second["response_format"] == {"type": "json_object"}
    assert first["messages"][-1]["content"].endswith(gamebench.REASON_ALOUD)
    cot = GAMEBENCH.build(view, True)
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == thought and second["messages"][3]["content"] == cot.then
    assert "The valid open-ended actions are: \"clue\"" in cot.then
    assert choice.action_id == 3 and choice.message == "fresco" and choice.reasoning == thought
    assert choice.extra["calls"] == 2 and choice.extra["responses"] == [thought, final]
    assert choice.prompt_tokens == words(prompt_text(first)) + words(prompt_text(second))
    assert choice.completion_tokens == words(thought) + words(final)


def test_an_endpoint_without_json_mode_is_asked_without_it(move):
    view, prompt = move
    with FakeOpenAI(api_key=KEY) as model:
        model.push(error(400, "response_format is not supported"), text(answer(prompt.ids[0])),
                   text(answer(prompt.ids[1])))
        agent = _agent(model, style="gamebench")
        first = asyncio.run(agent.decide(view))
        second = asyncio.run(agent.decide(view))
    assert [("response_format" in r) for r in model.requests] == [True, False, False]
    assert first.action_id == prompt.predefined[prompt.ids[0].lower()][0].action_id
    assert second.action_id == prompt.predefined[prompt.ids[1].lower()][0].action_id


# ---- end to end: `arena-agent llm --preset gamebench` on a real server --------------------------------

E2E = {"codenames": {}, "santorini": {}, "hive": {"max_turns": 6}, "are_you_the_traitor": {}, "two_rooms_and_a_boom": {}, "pit": {}}
_PREDEFINED = re.compile(r'^  "(.+?)": ', re.MULTILINE)
_OPEN_ENDED = re.compile(r'Open-ended actions [^\n]*\n  "(.+?)": ')
OPEN_TEXT = "Who among you has seen the treasure?"


def gamebench_player():
    """A model that reads the gamebench prompt: it answers the first predefined action, or a fresh clue
    for the open-ended one; every fourth request it answers malformed JSON first, and once an Explain."""
    count, clues, lock = itertools.count(), itertools.count(), threading.Lock()
    explained = []

    def reply(body: dict) -> Reply:
        messages = body["messages"]
        with lock:
            n = next(count)
        if messages[-1]["role"] == "user" and len(messages) == 2:
            if n % 4 == 3:
                return text('{"action": "oops"')                  # malformed: asked again
            if not explained:
                explained.append(n)
                return text(answer("Explain(H1)"))
        user = message_text(messages[1])
        if '"clue": ' in user:
            with lock:
                word = "".join(chr(ord("a") + int(d)) for d in str(next(clues)))
            return text(answer("clue", f"zq{word},1"))
        open_ended = _OPEN_ENDED.search(user)
        if open_ended:      # a question, an answer or an exchange: say it
            return text(answer(open_ended.group(1), OPEN_TEXT))
        action = _PREDEFINED.search(user.split("Predefined actions")[1]).group(1)
        if 'write your message in "openended_response"' in user:      # a move with talk: say something
            return text(answer(action, OPEN_TEXT))
        return text(answer(action))
    return reply


def test_arena_agent_llm_plays_gamebench_games_in_its_json_style(server_factory, monkeypatch):
    server = server_factory("--per-decision", "5", "--house-delay", "0.01")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(api_key=KEY, responder=gamebench_player()) as model:
        games = [arg for game in E2E for arg in ("--game", game)]
        bot = agent_process(server, "gb-bot", "llm", *games, "--preset", "gamebench", "--no-ladder", "--model", "fake",
                            "--base-url", model.base_url, "--vision")
        try:
            wait_connected(server, "gb-bot")
            stub = server.arena_stub()
            reasked, spoken = 0, {game: 0 for game in E2E}
            for game, parameters in E2E.items():
                tournament = run_tournament(server, game, ["gb-bot", "random"], preset="gamebench",
                                            parameters=parameters, timeout=90)
                assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
                matches = matches_of(server, tournament.tournament_id)
                assert len(matches) == 2         # seats swapped
                for match in matches:
                    assert match.status == match_pb2.MATCH_STATUS_FINISHED
                    assert match.result.reason == match_pb2.END_REASON_NORMAL
                    log = stub.GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
                    seats = {p.seat for p in match.players if p.agent_name == "gb-bot"}
                    for seat in seats:
                        stats = next(s for s in match.result.seat_stats if s.seat == seat)
                        assert (stats.illegal_actions, stats.parse_failures, stats.timeouts,
                                stats.substituted_actions) == (0, 0, 0, 0), (game, seat)
                    metas = [MessageToDict(e.data)["metadata"]["extra"] for e in log
                             if e.kind == "decision_meta" and e.data["seat"] in seats]
                    asked = [m for m in metas if not m.get("forced")]
                    assert asked, game
                    for extra in asked:
                        assert extra["style"] == "gamebench" and extra["sent_as"] == "action_id"
                        assert extra["sampling"]["response_format"] == {"type": "json_object"}
                        user = extra["prompt"][1]["content"]
                        if game == "hive":      # --vision: the board's image goes with the observation
                            assert user[0]["text"].startswith("You are playing Hive.")
                            assert user[1]["image_url"]["url"].startswith("data:image/png;base64,<")
                        else:
                            assert user.startswith(f"You are playing {gamebench.RULES[game].title}.")
                    reasked += sum(extra["reasks"] for extra in asked)
                    entries = [MessageToDict(e.data) for e in log if e.kind in ("action", "actions")]
                    said = [a["message"] for a in entries if a.get("seat") in seats and "message" in a]
                    said += [text for a in entries if "seats" in a       # a simultaneous move's messages
                             for seat, text in enumerate(a.get("messages") or []) if seat in seats and text]
                    if game == "codenames":       # the clue's word; Red's spymaster always gives one
                        assert all(re.fullmatch(r"zq[a-j]+", c) for c in said)
                    else:                         # the open-ended responses, said as messages
                        assert set(said) <= {OPEN_TEXT}, (game, said)
                    spoken[game] += len(said)
            assert reasked > 0
            assert spoken["codenames"] and spoken["are_you_the_traitor"] and spoken["two_rooms_and_a_boom"], spoken
        finally:
            bot.terminate()
            bot.wait(10)
