"""Iterated prisoner's dilemma: payoffs for 2 and 3 players, the stop chance node and the round cap,
what is revealed when, the parser, the presets and seeded random playouts."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError
from arena_engines.iterated_prisoners_dilemma import magic_payoffs

GAME = "iterated_prisoners_dilemma"
C, D = 0, 1
CONTINUE, STOP = 0, 1


def new_state(preset=None, **parameters):
    return load_game(GAME, parameters, preset=preset).new_initial_state()


def play_rounds(state, rounds):
    """Plays joint moves, continuing the game at every chance node in between."""
    for joint in rounds:
        if state.is_chance_node():
            state.apply_action(CONTINUE)
        state.apply_actions(list(joint))
    return state


# ---- payoffs --------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset,table", [
    # OpenSpiel's rewards: C/C 5, C/D 0, D/C 10, D/D 1.
    ("gtbench_2p_code", {(C, C): [5, 5], (C, D): [0, 10], (D, C): [10, 0], (D, D): [1, 1]}),
    # The paper's prison years as negative rewards: 1 year each, 3 years vs free, 2 years each.
    ("gtbench_2p", {(C, C): [-1, -1], (C, D): [-3, 0], (D, C): [0, -3], (D, D): [-2, -2]}),
])
def test_two_player_payoffs_for_every_combination(preset, table):
    for joint, points in table.items():
        state = new_state(preset)
        state.apply_actions(list(joint))
        assert state.returns() == points
        assert state.observation_dict(0)["rounds"][0]["points"] == points


def magic_reference(choices, cooperate, defect, one_defect, two_defect):
    """MAgIC's scoring table (magic.md section 2.4), written out independently of the engine."""
    defectors = sum(choices)
    if defectors == 0:
        return [cooperate] * 3
    if defectors == 3:
        return [defect] * 3
    each = one_defect if defectors == 1 else two_defect
    return [each if c == D else 0 for c in choices]


@pytest.mark.parametrize("joint", list(itertools.product((C, D), repeat=3)))
def test_three_player_payoffs_for_every_combination_of_the_magic_preset(joint):
    state = new_state("magic_3p")
    state.apply_actions(list(joint))
    # The released setting: cooperate 2, defect 1, one_defect 4, two_defect 2.
    assert state.returns() == magic_reference(joint, 2, 1, 4, 2)


def test_magic_payoffs_table_and_the_figure_8_games():
    assert magic_payoffs(cooperate=3, defect=1, one_defect=5, two_defect=5) == [[3, 0, 0], [5, 5, 1]]
    params = {"players": 3, "payoffs": magic_payoffs(3, 1, 5, 5), "continue_probability": 1.0, "max_rounds": 5}
    # MAgIC Figure 8 (setting 3/1/5/5): the PGM-aware run ends [5, 15, 10], the vanilla run [13, 8, 8].
    pgm = [(C, C, C), (C, D, C), (D, D, D), (C, D, D), (D, D, D)]
    vanilla = [(C, C, C), (C, C, C), (D, C, C), (D, D, D), (D, D, D)]
    for rounds, final in [(pgm, [5, 15, 10]), (vanilla, [13, 8, 8])]:
        state = play_rounds(load_game(GAME, params).new_initial_state(), rounds)
        assert state.is_terminal() and state.returns() == final
    assert state.result_details()["highest"] == [0]


def test_returns_accumulate_round_by_round():
    state = new_state("gtbench_2p_code")
    totals = [0, 0]
    for joint, points in [((C, C), (5, 5)), ((D, C), (10, 0)), ((D, D), (1, 1)), ((C, D), (0, 10))]:
        play_rounds(state, [joint])
        totals = [t + p for t, p in zip(totals, points)]
        assert state.returns() == totals
    assert state.observation_dict(1)["totals"] == [16, 16]


def test_payoffs_depend_on_the_number_of_other_defectors():
    # 4 players, a table that makes every (own choice, other defectors) pair distinct.
    table = [[10, 11, 12, 13], [20, 21, 22, 23]]
    state = load_game(GAME, {"payoffs": table}, num_players=4).new_initial_state()
    state.apply_actions([C, D, D, C])
    assert state.returns() == [12, 21, 21, 12]


# ---- length: the stop chance node and the round cap -----------------------------------------------
def test_after_every_round_a_chance_node_continues_or_stops_with_the_gtbench_probabilities():
    state = new_state("gtbench_2p_code")
    assert state.is_simultaneous_node() and state.current_players() == [0, 1]
    state.apply_actions([C, D])
    assert state.is_chance_node() and state.current_player() == -1
    assert state.chance_outcomes() == [(CONTINUE, 0.875), (STOP, 0.125)]
    assert state.observation_dict(0)["phase"] == "chance"
    continued = state.clone()
    continued.apply_action(CONTINUE)
    assert continued.is_simultaneous_node() and continued.observation_dict(0)["round"] == 2
    state.apply_action(STOP)
    assert state.is_terminal() and state.returns() == [0, 10]
    assert state.result_details()["stopped_by_chance"] is True
    assert state.result_summary() == "after 1 round the totals are 0, 10; highest: seat 1"


def test_continue_probability_is_a_parameter():
    state = new_state("gtbench_2p_code", continue_probability=0.5)
    state.apply_actions([C, C])
    assert state.chance_outcomes() == [(CONTINUE, 0.5), (STOP, 0.5)]
    state = new_state("gtbench_2p_code", continue_probability=0.0)
    state.apply_actions([C, C])
    assert state.chance_outcomes() == [(STOP, 1.0)]
    with pytest.raises(IllegalActionError):
        state.apply_action(CONTINUE)


def test_the_round_cap_ends_the_game_without_a_last_chance_node():
    state = new_state("gtbench_2p_code", max_rounds=3)
    play_rounds(state, [(C, C), (C, D), (D, D)])
    assert state.is_terminal() and state.move_number == 5          # 3 rounds and 2 chance nodes
    assert state.returns() == [6, 16]
    assert state.result_details()["stopped_by_chance"] is False


def test_magic_preset_plays_exactly_five_rounds_without_chance_nodes():
    state = new_state("magic_3p")
    for r in range(5):
        assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2]
        state.apply_actions([C, D, C])
    assert state.is_terminal() and state.move_number == 5
    assert all(seat == -2 for seat, _ in state.history())
    assert state.returns() == [0, 20, 0]
    assert state.result_details()["defections"] == [0, 5, 0]


def test_the_fallback_for_an_unreadable_answer_is_defect_as_in_magic():
    state = new_state("magic_3p")
    assert [state.default_action(seat) for seat in range(3)] == [D, D, D]
    state = new_state("gtbench_2p")
    state.apply_actions([C, C])
    assert state.is_chance_node() and state.default_action(0) is None


# ---- information ----------------------------------------------------------------------------------
def test_choices_are_shown_only_after_the_round_is_played():
    state = new_state("gtbench_2p_code")
    play_rounds(state, [(C, D)])
    state.apply_action(CONTINUE)
    before = {seat: (state.observation_string(seat), state.observation_dict(seat)) for seat in (0, 1)}
    for seat in (0, 1):
        text, data = before[seat]
        assert "Round 1:" in text and "Round 2: choose <Silent> or <Testify>." in text
        assert [r["actions"] for r in data["rounds"]] == [[C, D]]
    assert "Round 1: you <Silent> (0), seat 1 <Testify> (10)." in before[0][0]
    assert "Round 1: seat 0 <Silent> (0), you <Testify> (10)." in before[1][0]
    state.apply_actions([D, C])
    for seat in (0, 1):
        assert [r["actions"] for r in state.observation_dict(seat)["rounds"]] == [[C, D], [D, C]]
    assert "Round 2: you <Testify> (10), seat 1 <Silent> (0)." in state.observation_string(0)
    assert "Totals: you 10, seat 1 10." in state.observation_string(0)


def test_public_history_has_every_choice_and_every_chance_outcome():
    state = play_rounds(new_state("gtbench_2p_code"), [(C, D), (D, D)])
    state.apply_action(STOP)
    assert state.public_history() == [
        (0, C, "<Silent>"), (1, D, "<Testify>"), (-1, CONTINUE, "chance: the game continues"),
        (0, D, "<Testify>"), (1, D, "<Testify>"), (-1, STOP, "chance: the game stops"),
    ]


def test_the_game_is_public_so_resampling_changes_nothing():
    state = play_rounds(new_state("gtbench_2p_code"), [(C, D), (D, D)])
    for seed in range(10):
        copy = state.resample_hidden(0, seed)
        assert copy.observation_dict(1) == state.observation_dict(1) and copy.history() == state.history()


# ---- texts and parsing ----------------------------------------------------------------------------
def test_action_texts_follow_the_labels_of_the_preset():
    gtbench, magic = new_state("gtbench_2p_code"), new_state("magic_3p")
    assert [gtbench.action_to_string(0, a) for a in (C, D)] == ["<Silent>", "<Testify>"]
    assert [magic.action_to_string(2, a) for a in (C, D)] == ["Cooperate", "Defect"]
    assert gtbench.action_to_string(-1, STOP) == "stop"
    with pytest.raises(ValueError):
        magic.action_to_string(0, 2)


@pytest.mark.parametrize("text,action", [
    ("<Silent>", C),
    ("<Testify>", D),
    ("Action: <testify>", D),
    ("Thought: <Testify> is tempting. Action: <Silent>", C),     # GTBench: the last tag
    ("<Cooperate>", C),
    ("<Defect>", D),
    ("Cooperate", C),
    ("Defect", D),
    ("I choose to defect.", D),
    ("I will cooperate rather than defect", C),                  # MAgIC: "cooperate" wins
    ("Silent", C),
    ("I testify.", D),
    ("I cooperate, whatever <Testify> means", D),                # a tag beats the words
])
def test_parser_reads_gtbench_and_magic_answers(text, action):
    for preset in ("gtbench_2p_code", "magic_3p"):
        assert new_state(preset).parse_action(0, text) == action


@pytest.mark.parametrize("text", ["", "I pass", "<Betray>", "silent or testify?", "cooperation"])
def test_parser_refuses_answers_without_a_single_choice(text):
    with pytest.raises(ActionParseError) as refused:
        new_state("magic_3p").parse_action(0, text)
    assert "Cooperate or Defect" in str(refused.value)
    with pytest.raises(ActionParseError) as refused:
        new_state("gtbench_2p_code").parse_action(0, text)
    assert "<Silent> or <Testify>" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.text(alphabet="<>SilentTestifyCooperateDefect ,.", max_size=40)))
def test_parser_returns_an_in_range_id_or_refuses(text):
    try:
        action = new_state("gtbench_2p_code").parse_action(0, text)
    except ActionParseError:
        return
    assert action in (C, D)


# ---- legality -------------------------------------------------------------------------------------
def test_moves_are_simultaneous_and_illegal_ones_are_refused():
    state = new_state("magic_3p")
    assert state.legal_actions(0) == [C, D] and state.legal_actions(2) == [C, D]
    with pytest.raises(IllegalActionError):
        state.apply_action(C)
    for bad in ([C, D, 2], [-1, C, C], [C, D]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    assert state.move_number == 0
    chance = new_state("gtbench_2p_code")
    chance.apply_actions([C, C])
    assert chance.legal_actions(0) == [] and chance.current_players() == []
    with pytest.raises(IllegalActionError):
        chance.apply_actions([C, C])


# ---- random playouts ------------------------------------------------------------------------------
def random_playout(seed, preset="gtbench_2p_code", **parameters):
    rng = random.Random(seed)
    game = load_game(GAME, parameters, preset=preset)
    table = game.parameters["payoffs"]
    state = game.new_initial_state()
    totals = [0.0] * game.num_players
    states = [state.clone()]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
        else:
            assert state.current_players() == list(range(game.num_players))
            joint = [rng.choice(state.legal_actions(seat)) for seat in range(game.num_players)]
            state.apply_actions(joint)
            for seat, own in enumerate(joint):
                totals[seat] += table[own][sum(joint) - own]
            assert state.returns() == pytest.approx(totals)
        assert state.move_number <= game_spec(GAME).max_game_length
        states.append(state.clone())
    return state, states


@pytest.mark.parametrize("preset", ["gtbench_2p_code", "gtbench_2p", "magic_3p"])
def test_random_playouts_follow_the_reference_payoffs(preset):
    lengths = []
    for seed in range(250):
        state, _ = random_playout(seed, preset)
        rounds = len(state.observation_dict(0)["rounds"])
        lengths.append(rounds)
        json.dumps([state.observation_dict(0), state.result_details(), state.public_history()])
    if preset == "magic_3p":
        assert set(lengths) == {5}
    else:
        # Geometric length with mean 8: a loose check that the stop node is drawn as specified.
        assert 6 < sum(lengths) / len(lengths) < 10 and max(lengths) > 20


def test_same_seed_same_match():
    for seed in range(50):
        first, second = random_playout(seed)[0], random_playout(seed)[0]
        assert first.history() == second.history() and first.returns() == second.returns()


def test_clones_are_independent():
    for seed in range(200):
        state, states = random_playout(seed, max_rounds=6)
        middle = states[len(states) // 2]
        before = (middle.history(), middle.observation_dict(0), middle.returns())
        clone = middle.clone()
        rng = random.Random(seed)
        while not clone.is_terminal():
            if clone.is_chance_node():
                clone.apply_action(CONTINUE if CONTINUE in clone.legal_actions() else STOP)
            else:
                clone.apply_actions([rng.choice((C, D)) for _ in range(2)])
        assert (middle.history(), middle.observation_dict(0), middle.returns()) == before


@pytest.mark.parametrize("preset", ["gtbench_2p_code", "magic_3p"])
def test_state_from_view_rebuilds_the_state(preset):
    game = load_game(GAME, preset=preset)
    for seed in range(200):
        _, states = random_playout(seed, preset)
        for state in states:
            for seat in range(game.num_players):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.chance_outcomes() == state.chance_outcomes()


# ---- spec, presets and parameters -----------------------------------------------------------------
def test_spec_and_presets():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("simultaneous", "stochastic", "perfect", "general_sum")
    assert [p.name for p in spec.presets] == ["gtbench_2p", "gtbench_2p_code", "magic_3p"]
    assert spec.preset("gtbench_2p_code").values == {
        "players": 2, "payoffs": [[5, 0], [10, 1]], "continue_probability": 0.875, "max_rounds": 9999,
        "action_labels": "silent_testify"}
    assert spec.preset("magic_3p").values == {
        "players": 3, "payoffs": [[2, 0, 0], [4, 2, 1]], "continue_probability": 1.0, "max_rounds": 5,
        "action_labels": "cooperate_defect"}
    assert load_game(GAME, preset="magic_3p").num_players == 3


@pytest.mark.parametrize("parameters,players", [
    ({}, 3),                                                    # OpenSpiel's 2-player table for 3 players
    ({"payoffs": [[5, 0], [10]]}, 2),
    ({"payoffs": [[5, 0]]}, 2),
    ({"payoffs": [[5, "0"], [10, 1]]}, 2),
    ({"payoffs": [[5, 0], [10, 1e6]]}, 2),
    ({"payoffs": [[5, 0], [10, float("nan")]]}, 2),
    ({"continue_probability": 1.5}, 2),
    ({"continue_probability": -0.1}, 2),
    ({"max_rounds": 0}, 2),
    ({"max_rounds": 10000}, 2),
    ({"action_labels": "betray"}, 2),
    ({}, 1),
    ({}, 17),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
