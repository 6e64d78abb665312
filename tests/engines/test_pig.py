"""Pig: holding, busting, winning, the die as a uniform chance node, the horizon, the parser, the views
(die rolls are public), and random playouts checked against an independently written model."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import CHANCE, TERMINAL, ActionParseError, IllegalActionError

ROLL, STOP = 0, 1


def face(n):
    """The chance outcome of the die showing n."""
    return n - 1


def new_state(preset="gtbench", **parameters):
    return load_game("pig", parameters, preset=preset).new_initial_state()


def play(state, actions):
    for action in actions:
        state.apply_action(action)
    return state


def test_stopping_banks_the_turn_total_and_passes_the_turn():
    state = play(new_state(), [ROLL, face(4), ROLL, face(5)])
    data = state.observation_dict(0)
    assert (data["self_current_score"], data["turn_total_score"], data["turn_rolls"]) == (0, 9, [4, 5])
    assert state.current_player() == 0 and state.legal_actions() == [ROLL, STOP]
    state.apply_action(STOP)
    assert state.current_player() == 1
    assert state.observation_dict(1)["opponent_current_score"] == 9
    assert state.observation_dict(1)["turn_total_score"] == 0 and state.observation_dict(1)["turn_rolls"] == []
    assert state.returns() == [0.0, 0.0] and state.result_summary() == "game in progress"


def test_rolling_a_one_loses_the_turn_total_and_passes_the_turn():
    state = play(new_state(), [ROLL, face(6), STOP, ROLL, face(3), ROLL, face(5)])
    assert state.observation_dict(1)["turn_total_score"] == 8
    state.apply_action(ROLL)
    state.apply_action(face(1))
    data = state.observation_dict(0)
    assert state.current_player() == 0
    assert (data["self_current_score"], data["opponent_current_score"], data["turn_total_score"]) == (6, 0, 0)
    assert data["turn_rolls"] == []


def test_reaching_the_target_leaves_only_stop_which_wins():
    state = play(new_state("gtbench_code"), [ROLL, face(6), ROLL, face(6), ROLL, face(6)])
    assert state.legal_actions() == [ROLL, STOP]           # 18 < 20
    play(state, [ROLL, face(2)])
    assert state.legal_actions() == [STOP]                 # 20 >= 20
    assert not state.is_legal(0, ROLL)
    with pytest.raises(IllegalActionError):
        state.apply_action(ROLL)
    state.apply_action(STOP)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [1.0, -1.0]
    assert state.result_summary() == "seat 0 wins, 20-0"
    assert state.result_details() == {"winner": 0, "scores": [20, 0], "decisions": 5, "horizon_reached": False}
    assert state.observation_string(1).endswith("The game is over: your opponent wins.")


def test_the_second_seat_can_win():
    state = play(new_state(target=5), [STOP, ROLL, face(5), STOP])
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


@pytest.mark.parametrize("sides", [2, 6, 10])
def test_die_outcomes_are_uniform_over_the_faces(sides):
    state = play(new_state(die_sides=sides), [ROLL])
    assert state.is_chance_node() and state.current_player() == CHANCE and state.current_players() == []
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(sides)) == state.legal_actions()
    assert all(p == pytest.approx(1 / sides) for _, p in outcomes)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert [state.action_to_string(CHANCE, a) for a, _ in outcomes] == [f"rolled {n}" for n in range(1, sides + 1)]
    for bad in (-1, sides):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    assert state.legal_actions(0) == [] and not state.is_legal(0, STOP)


def test_the_game_stops_without_a_winner_at_the_horizon():
    state = play(new_state(horizon=3), [ROLL, face(2), ROLL, face(2)])
    state.apply_action(ROLL)                                  # the third decision: the roll stays pending
    assert state.is_terminal() and state.chance_outcomes() == []
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "no winner after 3 decisions, 0-0"
    assert state.result_details() == {"winner": None, "scores": [0, 0], "decisions": 3, "horizon_reached": True}
    assert state.observation_string(0).endswith(
        "The game is over: the 3-decision limit was reached before anyone reached 100: no winner.")


def test_public_history_includes_every_die_roll():
    state = play(new_state(), [ROLL, face(4), STOP, ROLL, face(1)])
    assert state.public_history() == [(0, ROLL, "roll"), (CHANCE, face(4), "rolled 4"), (0, STOP, "stop"),
                                      (1, ROLL, "roll"), (CHANCE, face(1), "rolled 1")]


# ---- parser --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ("<roll>", ROLL),
    ("<STOP>", STOP),
    ("Thought: 18 points is plenty, I should not roll.\nAction: <stop>", STOP),
    ("I won't stop now: <roll>", ROLL),                       # a tag wins over the first keyword
    ("<roll> ... no, Action: <stop>", STOP),                   # the last tag
    ("roll", ROLL),
    ("I will stop rolling now", STOP),                        # GTBench: the first keyword of the line
    ("Rolling again is too risky, so I stop", ROLL),          # GTBench's substring quirk, kept
    ("I stop here.\nGood luck!", STOP),                       # the last line that names a move
    ("I'd stop.\nActually, roll.", ROLL),
])
def test_parser_reads_tags_then_gtbench_keywords(text, action):
    assert new_state().parse_action(0, text) == action


def test_parser_returns_roll_for_the_referee_to_refuse_when_only_stop_is_legal():
    state = play(new_state(target=3), [ROLL, face(3)])
    assert state.parse_action(0, "<roll>") == ROLL and not state.is_legal(0, ROLL)


@pytest.mark.parametrize("text", ["", "hold", "I pass", "bank the points"])
def test_parser_refuses_answers_without_a_move(text):
    with pytest.raises(ActionParseError) as refused:
        new_state().parse_action(1, text)
    assert "'<roll>'" in str(refused.value) and "'<stop>'" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=40),
                      st.text(alphabet=st.sampled_from(list("rolstpROLSTP<> \n")), max_size=20)))
def test_parser_returns_roll_or_stop_or_refuses(text):
    try:
        assert new_state().parse_action(0, text) in (ROLL, STOP)
    except ActionParseError:
        pass


# ---- views ---------------------------------------------------------------------------------------
RULES = ("Pig: the first to reach 100 points wins. On your turn, roll a 6-sided die as often as you like, adding "
         "each roll to your turn total; rolling a 1 loses the turn total and ends your turn; stopping banks the "
         "turn total into your score and ends your turn.")


def test_observation_text_shows_scores_turn_total_and_legal_moves():
    state = play(new_state(), [ROLL, face(5), STOP, ROLL, face(3), ROLL, face(4)])
    assert state.observation_string(1) == "\n".join([
        RULES,
        "Right now, your current score is 0 and your opponent's current score is 5.",
        "In this turn, you have earned 7 points (rolls: 3, 4).",
        "996 roll/stop decisions remain before the game is stopped without a winner.",
        "Your move. Legal moves: roll, stop",
    ])
    assert state.observation_string(0).splitlines()[1:] == [
        "Right now, your current score is 5 and your opponent's current score is 0.",
        "In this turn, your opponent has earned 7 points (rolls: 3, 4).",
        "996 roll/stop decisions remain before the game is stopped without a winner.",
        "Waiting for your opponent to roll or stop.",
    ]
    state.apply_action(ROLL)
    assert state.observation_string(1).endswith("The die is being rolled for you.")
    assert state.observation_string(0).endswith("The die is being rolled for your opponent.")
    assert new_state().observation_string(0).splitlines()[2] == "In this turn, you have earned 0 points."


def test_observation_dict_is_json_compatible_and_complete():
    state = play(new_state("gtbench_code"), [ROLL, face(5), STOP, ROLL, face(2)])
    data = state.observation_dict(0)
    assert data == {
        "target": 20, "die_sides": 6, "self_current_score": 5, "opponent_current_score": 0,
        "turn_total_score": 2, "turn_player": 1, "turn_rolls": [2], "to_play": 1, "rolling": False,
        "legal_moves": [], "decisions_left": 997,
        "history": [[0, ROLL], [CHANCE, face(5)], [0, STOP], [1, ROLL], [CHANCE, face(2)]],
    }
    assert json.loads(json.dumps(data)) == data
    assert state.observation_dict(1)["legal_moves"] == ["roll", "stop"]
    state.apply_action(ROLL)
    assert state.observation_dict(1)["rolling"] is True and state.observation_dict(1)["to_play"] is None


# ---- parameters ----------------------------------------------------------------------------------
def test_spec_parameters_and_presets():
    spec = game_spec("pig")
    assert spec.chance == "stochastic" and spec.information == "perfect"
    assert spec.defaults() == {"target": 100, "die_sides": 6, "horizon": 1000}
    assert [p.name for p in spec.presets] == ["gtbench", "gtbench_code"]
    assert spec.resolve("gtbench") == {"target": 100, "die_sides": 6, "horizon": 1000}
    assert spec.resolve("gtbench_code") == {"target": 20, "die_sides": 6, "horizon": 1000}
    assert spec.max_game_length == 2 * 10000


@pytest.mark.parametrize("parameters", [{"target": 0}, {"target": 10001}, {"die_sides": 1}, {"die_sides": 101},
                                        {"horizon": 0}, {"horizon": 10001}, {"target": 2.5}, {"horizon": True}])
def test_invalid_parameters_are_refused(parameters):
    with pytest.raises(ValueError):
        load_game("pig", parameters)


# ---- random playouts against an independent model ------------------------------------------------
def test_random_playouts_follow_the_reference_rules():
    spec = game_spec("pig")
    for seed in range(250):
        rng = random.Random(seed)
        target, sides, horizon = rng.choice([1, 5, 20, 100]), rng.choice([2, 3, 6, 10]), rng.choice([5, 50, 1000])
        game = load_game("pig", {"target": target, "die_sides": sides, "horizon": horizon})
        state = game.new_initial_state()
        scores, turn_total, player, decisions = [0, 0], 0, 0, 0
        while not state.is_terminal():
            data = state.observation_dict(player)
            assert (data["self_current_score"], data["opponent_current_score"]) == (scores[player], scores[1 - player])
            assert data["turn_total_score"] == turn_total and data["turn_player"] == player
            for seat in (0, 1) if seed < 60 else ():      # a replay per step: quadratic, so fewer games
                view = json.loads(json.dumps(state.observation_dict(seat)))
                rebuilt = game.state_from_view(seat, view)
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions() == state.legal_actions()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert outcomes == [(a, pytest.approx(1 / sides)) for a in range(sides)]
                for bad in (-1, sides):
                    with pytest.raises(IllegalActionError):
                        state.clone().apply_action(bad)
                outcome = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
                state.apply_action(outcome)
                if outcome == 0:
                    turn_total, player = 0, 1 - player
                else:
                    turn_total += outcome + 1
                continue
            assert state.current_player() == player
            legal = state.legal_actions()
            assert legal == ([STOP] if scores[player] + turn_total >= target else [ROLL, STOP])
            for action in legal:
                state.clone().apply_action(action)
            for action in [-1, 2, *(a for a in (ROLL, STOP) if a not in legal)]:
                assert not state.is_legal(player, action)
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(action)
            action = rng.choice(legal)
            state.apply_action(action)
            decisions += 1
            if action == STOP:
                scores[player] += turn_total
                turn_total, player = 0, 1 - player
            assert state.move_number <= 2 * horizon <= spec.max_game_length
        winners = [seat for seat in (0, 1) if scores[seat] >= target]
        assert len(winners) <= 1 and (winners or decisions == horizon)
        expected = {(): [0.0, 0.0], (0,): [1.0, -1.0], (1,): [-1.0, 1.0]}[tuple(winners)]
        assert state.returns() == expected and sum(state.returns()) == 0
        assert state.result_details()["scores"] == scores


def test_clones_are_independent_and_replays_are_deterministic():
    for seed in range(200):
        rng = random.Random(seed)
        state = new_state("gtbench_code")

        def step(s):
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
            else:
                s.apply_action(rng.choice(s.legal_actions()))

        for _ in range(rng.randrange(12)):
            if not state.is_terminal():
                step(state)
        views = (state.history(), state.observation_string(0), state.observation_dict(1), state.legal_actions())
        clone = state.clone()
        while not clone.is_terminal():
            step(clone)
        assert (state.history(), state.observation_string(0), state.observation_dict(1),
                state.legal_actions()) == views
        replay = new_state("gtbench_code")
        for _, action in clone.history():
            replay.apply_action(action)
        assert replay.returns() == clone.returns() and replay.result_details() == clone.result_details()
