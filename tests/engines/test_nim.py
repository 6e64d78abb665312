"""Nim: OpenSpiel's action ids, misère and normal-play endings, illegal takes, the parser, the views,
and random playouts checked against independently written rules."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError


def take(pile, count, num_piles=4):
    """OpenSpiel's (and GTBench's) id of taking `count` from the 1-based `pile`."""
    return (count - 1) * num_piles + pile - 1


def new_state(piles=(1, 3, 5, 7), misere=True):
    return load_game("nim", {"piles": list(piles), "misere": misere}).new_initial_state()


def play(moves, **kwargs):
    state = new_state(**kwargs)
    for pile, count in moves:
        state.apply_action(take(pile, count))
    return state


# Seat 0 empties pile 4, seat 1 pile 3, seat 0 pile 2, seat 1 takes the last match (pile 1).
EMPTYING = [(4, 7), (3, 5), (2, 3), (1, 1)]


def test_initial_legal_actions_are_openspiel_ids_in_increasing_order():
    state = new_state()
    expected = sorted(take(p, n) for p, size in enumerate([1, 3, 5, 7], 1) for n in range(1, size + 1))
    assert state.legal_actions() == expected
    assert expected == [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 14, 15, 18, 19, 23, 27]
    assert state.action_to_string(0, 0) == "pile:1, take:1"
    assert state.action_to_string(1, 27) == "pile:4, take:7"
    assert state.action_to_string(0, take(2, 3)) == "pile:2, take:3"
    with pytest.raises(ValueError):
        state.action_to_string(0, 28)


def test_misere_the_player_who_takes_the_last_match_loses():
    state = new_state()
    for pile, count in EMPTYING[:-1]:
        state.apply_action(take(pile, count))
        assert not state.is_terminal()
    assert state.legal_actions() == [take(1, 1)]
    state.apply_action(take(1, 1))
    assert state.is_terminal() and state.current_player() == -4
    assert state.returns() == [1.0, -1.0]
    assert state.result_summary() == "seat 0 wins: seat 1 took the last match (misère)"
    assert state.result_details() == {"winner": 0, "took_last": 1, "misere": True, "moves": 4}
    assert state.observation_string(1).endswith("The game is over: you took the last match, so you lose.")
    assert state.observation_string(0).endswith(
        "The game is over: your opponent took the last match, so you win.")


def test_normal_play_the_player_who_takes_the_last_match_wins():
    state = play(EMPTYING, misere=False)
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]
    assert state.result_summary() == "seat 1 wins: seat 1 took the last match (normal play)"
    assert state.observation_string(1).splitlines()[0].endswith(
        "whoever takes the last match wins. Your opponent moves first.")


def test_taking_everything_in_one_move_ends_the_game_at_once():
    state = new_state(piles=[4])
    assert state.observation_string(0).startswith("Nim with 1 pile. On your turn")
    state.apply_action(take(1, 4, num_piles=1))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_illegal_takes_are_refused_and_leave_the_state_unchanged():
    state = play([(4, 7), (2, 1)])            # piles 1, 2, 5, 0
    before = (state.history(), state.observation_dict(0))
    for bad in [take(4, 1), take(2, 3), take(1, 2), take(3, 6), 28, -1, 100]:
        assert not state.is_legal(0, bad)
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    assert (state.history(), state.observation_dict(0)) == before
    assert state.legal_actions(1) == [] and not state.is_legal(1, 0)     # not seat 1's turn


def test_no_move_after_the_end():
    state = play(EMPTYING)
    assert state.legal_actions() == [] and state.current_players() == []
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


# ---- parser --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,pile,count", [
    ("<pile:4, take:3>", 4, 3),
    ("Thought: leave a nim-sum of zero. Action: <pile:1, take:1>", 1, 1),
    ("<pile:1, take:1> or rather <pile:3, take:2>", 3, 2),                # GTBench: the last match
    ("pile: 2, take: 3", 2, 3),
    ("PILE:2 TAKE:3", 2, 3),
    ("<pile 4; take 7>", 4, 7),
])
def test_parser_reads_the_gtbench_answer(text, pile, count):
    assert new_state().parse_action(0, text) == take(pile, count)


def test_parser_returns_a_take_larger_than_the_pile_for_the_referee_to_refuse():
    state = new_state()
    action = state.parse_action(0, "<pile:1, take:2>")           # pile 1 holds a single match
    assert action == take(1, 2) and not state.is_legal(0, action)
    emptied = play([(4, 7)])
    assert not emptied.is_legal(1, emptied.parse_action(1, "<pile:4, take:1>"))


@pytest.mark.parametrize("text,fragment", [
    ("", "could not read a move"),
    ("take 3 from the 2nd pile", "could not read a move"),
    ("<pile:5, take:1>", "there is no pile 5: piles are numbered 1-4"),
    ("<pile:0, take:1>", "there is no pile 0"),
    ("<pile:2, take:0>", "cannot take 0"),
    ("<pile:4, take:8>", "cannot take 8"),
])
def test_parser_refuses_unreadable_answers_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        new_state().parse_action(0, text)
    assert fragment in str(refused.value) and "<pile:x, take:y>" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=40),
                      st.text(alphabet=st.sampled_from(list("piletak:, <>;0123456789")), max_size=30)))
def test_parser_returns_an_in_range_id_or_refuses(text):
    state = new_state()
    try:
        action = state.parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= action < 4 * 7
    state.action_to_string(0, action)


# ---- views ---------------------------------------------------------------------------------------
def test_observation_text_lists_piles_histories_and_legal_moves():
    state = play([(4, 5), (3, 5)])
    assert state.observation_string(0) == "\n".join([
        "Nim with 4 piles. On your turn take one or more matches from a single pile; whoever takes the last "
        "match loses. You move first.",
        "Currently, the 1st pile has 1 match;",
        "the 2nd pile has 3 matches;",
        "the 3rd pile has 0 matches;",
        "the 4th pile has 2 matches.",
        "Your opponent's moves so far: pile:3, take:5.",
        "Your moves so far: pile:4, take:5.",
        "Your move. Legal moves: pile:1, take:1; pile:2, take:1; pile:4, take:1; pile:2, take:2; "
        "pile:4, take:2; pile:2, take:3",
    ])
    assert state.observation_string(1).splitlines()[5:] == [
        "Your opponent's moves so far: pile:4, take:5.", "Your moves so far: pile:3, take:5.",
        "Waiting for your opponent to move."]
    start = new_state().observation_string(1).splitlines()
    assert start[5:] == ["Your opponent has not moved yet.", "You have not moved yet.",
                         "Waiting for your opponent to move."]


def test_observation_dict_is_json_compatible_and_complete():
    state = play([(4, 5)])
    data = state.observation_dict(1)
    assert data == {
        "piles": [1, 3, 5, 2], "misere": True, "to_play": 1,
        "legal_moves": [state.action_to_string(1, a) for a in state.legal_actions()],
        "opponent_moves": ["pile:4, take:5"], "self_moves": [], "history": [[0, take(4, 5)]],
    }
    assert json.loads(json.dumps(data)) == data
    assert state.observation_dict(0)["legal_moves"] == []


def test_public_history_lists_every_move_with_its_text():
    assert play([(4, 5), (1, 1)]).public_history() == [(0, take(4, 5), "pile:4, take:5"),
                                                       (1, take(1, 1), "pile:1, take:1")]


# ---- parameters ----------------------------------------------------------------------------------
def test_spec_parameters_and_presets():
    spec = game_spec("nim")
    assert spec.defaults() == {"piles": [1, 3, 5, 7], "misere": True}
    assert [p.name for p in spec.presets] == ["gtbench"]
    assert spec.resolve("gtbench") == {"piles": [1, 3, 5, 7], "misere": True}
    assert spec.max_game_length == 1024


def test_parameters_from_json_floats_are_integers_and_the_default_is_not_shared():
    game = load_game("nim", {"piles": [2.0, 5.0]})
    assert game.parameters == {"piles": [2, 5], "misere": True}
    assert all(type(p) is int for p in game.parameters["piles"])
    game.parameters["piles"].append(9)
    assert game_spec("nim").defaults()["piles"] == [1, 3, 5, 7]


@pytest.mark.parametrize("parameters", [
    {"piles": []}, {"piles": [0, 3]}, {"piles": [1.5]}, {"piles": [True, 2]}, {"piles": "1;3;5;7"},
    {"piles": [600, 600]}, {"piles": [1] * 65},
])
def test_invalid_parameters_are_refused(parameters):
    with pytest.raises(ValueError):
        load_game("nim", parameters)


# ---- random playouts against independently written rules ----------------------------------------
def test_random_playouts_follow_the_reference_rules():
    spec = game_spec("nim")
    for seed in range(250):
        rng = random.Random(seed)
        piles = [rng.randint(1, 9) for _ in range(rng.randint(1, 6))] if seed else [1, 3, 5, 7]
        misere = rng.random() < 0.5
        n = len(piles)
        game = load_game("nim", {"piles": piles, "misere": misere})
        state = game.new_initial_state()
        left = list(piles)
        while sum(left):
            seat = state.current_player()
            assert seat == state.move_number % 2 and state.observation_dict(seat)["piles"] == left
            legal = state.legal_actions()
            assert legal == sorted((k - 1) * n + p for p in range(n) for k in range(1, left[p] + 1))
            for action in legal:
                state.clone().apply_action(action)
            for action in [-1, n * max(piles), *(a for a in range(n * max(piles)) if a not in legal)]:
                assert not state.is_legal(seat, action)
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(action)
            for player in (0, 1):
                view = json.loads(json.dumps(state.observation_dict(player)))
                rebuilt = game.state_from_view(player, view)
                assert rebuilt.observation_string(player) == state.observation_string(player)
                assert rebuilt.legal_actions() == legal and rebuilt.current_player() == seat
            action = rng.choice(legal)
            state.apply_action(action)
            left[action % n] -= action // n + 1
            assert state.move_number <= sum(piles) <= spec.max_game_length
        assert state.is_terminal()
        last_mover = (state.move_number - 1) % 2
        winner = 1 - last_mover if misere else last_mover
        assert state.returns() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])


def test_clones_are_independent_and_replays_are_deterministic():
    for seed in range(200):
        rng = random.Random(seed)
        state = new_state()
        for _ in range(rng.randrange(5)):
            state.apply_action(rng.choice(state.legal_actions()))
        views = (state.history(), state.observation_string(0), state.observation_dict(1), state.legal_actions())
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), state.observation_string(0), state.observation_dict(1),
                state.legal_actions()) == views
        replay = new_state()
        for _, action in clone.history():
            replay.apply_action(action)
        assert replay.returns() == clone.returns() and replay.observation_dict(0) == clone.observation_dict(0)
