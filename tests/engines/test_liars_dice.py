"""Liar's dice: rolls, bid ordering, challenges (wild faces included), the parser, hidden
information (leak test, resampling, rebuilding from a view) and seeded random playouts."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

GAME = "liars_dice"
LIAR = 12           # with the defaults: 2 dice x 6 faces


def bid(quantity, face, faces=6):
    """OpenSpiel's action id of a bid, written out independently of the engine."""
    return (quantity - 1) * faces + (face - 1)


def new_state(**parameters):
    return load_game(GAME, parameters).new_initial_state()


def rolled(dice0, dice1, **parameters):
    """A state after rolling `dice0` for seat 0 and `dice1` for seat 1 (faces 1..n)."""
    state = new_state(**parameters)
    for face in [*dice0, *dice1]:
        state.apply_action(face - 1)
    return state


def play(dice0, dice1, moves, **parameters):
    state = rolled(dice0, dice1, **parameters)
    for move in moves:
        assert not state.is_terminal()
        state.apply_action(move)
    return state


def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


# ---- rolls ----------------------------------------------------------------------------------------
def test_every_die_is_a_chance_node_seat_0_first_and_hands_are_sorted():
    state = new_state(dice_per_player=2)
    for _ in range(4):
        assert state.is_chance_node()
        assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
        state.apply_action([4, 1, 5, 0][state.move_number])
    assert state.current_player() == 0
    assert state.observation_dict(0)["my_dice"] == [2, 5]
    assert state.observation_dict(1)["my_dice"] == [1, 6]
    assert "Your dice: 2, 5." in state.observation_string(0)


def test_faces_parameter_sets_the_chance_outcomes_and_the_liar_id():
    state = new_state(faces=4)
    assert [a for a, _ in state.chance_outcomes()] == [0, 1, 2, 3]
    state.apply_action(0)
    state.apply_action(3)
    assert state.legal_actions() == list(range(8))          # bids only: no Liar before a bid
    state.apply_action(bid(1, 2, faces=4))
    assert state.legal_actions() == [2, 3, 4, 5, 6, 7, 8]    # 8 = Liar
    assert state.action_to_string(1, 8) == "<Liar>"


# ---- bid ordering ---------------------------------------------------------------------------------
def test_a_bid_must_raise_the_quantity_or_keep_it_and_raise_the_face():
    state = rolled([3], [5])
    assert state.legal_actions() == list(range(12))          # every bid, no Liar yet
    with pytest.raises(IllegalActionError):
        state.apply_action(LIAR)
    state.apply_action(bid(1, 4))
    # Higher: (1, 5), (1, 6), then any face with quantity 2; then Liar.
    assert state.legal_actions() == [bid(1, 5), bid(1, 6)] + [bid(2, f) for f in range(1, 7)] + [LIAR]
    for lower_or_equal in (bid(1, 1), bid(1, 3), bid(1, 4)):
        assert not state.is_legal(1, lower_or_equal)
        with pytest.raises(IllegalActionError):
            state.apply_action(lower_or_equal)
    state.apply_action(bid(2, 1))                            # more dice, lower face: higher
    assert state.current_player() == 0
    assert state.legal_actions() == [bid(2, f) for f in range(2, 7)] + [LIAR]
    assert not state.is_legal(0, bid(1, 6))


def test_after_the_highest_bid_only_liar_is_legal():
    state = play([1], [2], [bid(2, 6)])
    assert state.legal_actions() == [LIAR]
    assert "you can only call <Liar>" in state.observation_string(1)


def test_only_the_seat_to_bid_has_legal_actions():
    state = play([1], [2], [bid(1, 1)])
    assert state.current_player() == 1 and state.legal_actions(0) == []
    assert not state.is_legal(0, bid(1, 2))


# ---- challenges -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dice0,dice1,moves,returns,matching", [
    # seat 0 bids one 3 and holds a 3: the bid holds, the caller (seat 1) loses.
    ([3], [5], [bid(1, 3), LIAR], [1.0, -1.0], 1),
    # two 3s with dice 3 and 5: only one, the bid fails, the caller wins.
    ([3], [5], [bid(2, 3), LIAR], [-1.0, 1.0], 1),
    # two 3s with dice 3 and 6: the 6 is wild, so the bid holds.
    ([3], [6], [bid(2, 3), LIAR], [1.0, -1.0], 2),
    # seat 1 bids two 2s holding a 6 while seat 0 has a 6: both wild, the bid holds; seat 0 loses.
    ([6], [6], [bid(1, 1), bid(2, 2), LIAR], [-1.0, 1.0], 2),
    # two 6s with dice 6 and 3: a bid on the wild face counts only 6s; it fails.
    ([6], [3], [bid(2, 6), LIAR], [-1.0, 1.0], 1),
    ([6], [6], [bid(2, 6), LIAR], [1.0, -1.0], 2),
    # seat 1 bids one 2 with dice 4 and 5: no 2 and no wild 6, so seat 0 (the caller) wins.
    ([4], [5], [bid(1, 1), bid(1, 2), LIAR], [1.0, -1.0], 0),
])
def test_challenges_resolve_against_all_dice_with_the_highest_face_wild(dice0, dice1, moves, returns, matching):
    state = play(dice0, dice1, moves)
    assert state.is_terminal() and state.current_player() == -4
    assert state.returns() == returns
    details = state.result_details()
    assert details["matching_dice"] == matching and details["dice"] == [dice0, dice1]
    assert details["winner"] == (0 if returns[0] > 0 else 1)
    assert state.legal_actions(0) == [] and state.legal_actions(1) == []
    with pytest.raises(IllegalActionError):
        state.apply_action(LIAR)


def test_several_dice_per_player_and_a_smaller_die():
    # 2 dice each, faces 1-4 (4 wild), dice [2, 4] and [2, 3]: three count as 2s (2, 2 and the wild 4),
    # two as 3s (3 and the wild 4).
    state = play([2, 4], [3, 2], [bid(3, 2, faces=4), 16], dice_per_player=2, faces=4)
    assert state.returns() == [1.0, -1.0] and state.result_details()["matching_dice"] == 3
    state = play([2, 4], [3, 2], [bid(4, 2, faces=4), 16], dice_per_player=2, faces=4)
    assert state.returns() == [-1.0, 1.0]
    state = play([2, 4], [3, 2], [bid(2, 3, faces=4), 16], dice_per_player=2, faces=4)
    assert state.returns() == [1.0, -1.0] and state.result_details()["dice"] == [[2, 4], [2, 3]]


def test_challenge_report_and_summary():
    state = play([3], [6], [bid(2, 3), LIAR])
    text = state.observation_string(1)
    assert ("You called Liar on <2 dices, 3 value>. Your dice: 6; your opponent's dice: 3. 2 of the dice show "
            "3 (counting wild 6s), so the bid holds: you lost.") in text
    assert state.result_summary() == ("seat 0 wins: seat 1 called Liar on seat 0's bid of 2 x 3, and 2 of the "
                                      "dice count for it")
    assert state.observation_dict(0)["all_dice"] == [[3], [6]]
    assert state.public_history()[-1] == (-1, -1, "dice revealed: seat 0 has 3, seat 1 has 6")


def test_returns_are_zero_before_the_challenge():
    state = play([3], [6], [bid(1, 3), bid(2, 3)])
    assert state.returns() == [0.0, 0.0] and state.result_summary() == "game in progress"


# ---- texts and parsing ----------------------------------------------------------------------------
def test_action_texts_are_gtbench_answers():
    state = rolled([1], [2])
    assert state.action_to_string(0, bid(1, 1)) == "<1 dice, 1 value>"
    assert state.action_to_string(0, bid(2, 6)) == "<2 dices, 6 value>"
    assert state.action_to_string(0, LIAR) == "<Liar>"
    assert state.action_to_string(-1, 3) == "roll 4"
    with pytest.raises(ValueError):
        state.action_to_string(0, 13)


@pytest.mark.parametrize("text,action", [
    ("<1 dice, 3 value>", bid(1, 3)),
    ("<2 dices, 6 value>", bid(2, 6)),
    ("<2 dice, 5 value>", bid(2, 5)),                       # GTBench also reads "dice" with 2
    ("<Liar>", LIAR),
    ("<liar>", LIAR),
    ("Action: < 1 DICES , 4 VALUES >", bid(1, 4)),
    ("Thought: <1 dice, 2 value> is too low. Action: <2 dices, 2 value>", bid(2, 2)),     # last tag
    ("You are no liar, so <1 dice, 6 value>", bid(1, 6)),   # a tag beats bare words
    ("2 dices, 3 value", bid(2, 3)),
    ("Liar!", LIAR),
    ("2-6", bid(2, 6)),                                      # OpenSpiel's action text
    (" 1-1 ", bid(1, 1)),
])
def test_parser_reads_gtbench_answers_and_openspiel_texts(text, action):
    assert rolled([1], [2]).parse_action(0, text) == action


def test_parser_returns_well_formed_bids_even_when_illegal():
    state = play([1], [2], [bid(2, 1)])
    assert state.parse_action(1, "<1 dice, 5 value>") == bid(1, 5)
    assert not state.is_legal(1, bid(1, 5))
    assert rolled([1], [2]).parse_action(0, "<Liar>") == LIAR      # before any bid: parsed, not legal


@pytest.mark.parametrize("text,fragment", [
    ("<3 dices, 2 value>", "quantities are 1-2"),
    ("<1 dice, 7 value>", "faces 1-6"),
    ("<0 dice, 3 value>", "quantities are 1-2"),
    ("I bid two threes", "could not read a bid or Liar"),
    ("", "could not read a bid or Liar"),
    ("raise 2-6 maybe", "could not read a bid or Liar"),
])
def test_parser_refuses_unreadable_and_out_of_range_bids(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        rolled([1], [2]).parse_action(0, text)
    assert fragment in str(refused.value) and "<Liar>" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.text(alphabet="<>dicesvalueLiar ,-0123456789", max_size=40)))
def test_parser_returns_an_in_range_id_or_refuses(text):
    try:
        action = rolled([1], [2]).parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= action <= LIAR


# ---- information ----------------------------------------------------------------------------------
@pytest.mark.parametrize("moves", [[], [bid(1, 2)], [bid(1, 2), bid(2, 1)], [bid(1, 1), bid(1, 6), bid(2, 4)]])
def test_leak_a_seat_views_do_not_depend_on_the_opponent_dice(moves):
    first, second = play([2, 4], [1, 1], moves, dice_per_player=2), play([2, 4], [3, 6], moves, dice_per_player=2)
    assert views(first, 0) == views(second, 0)
    assert views(first, 1) != views(second, 1)
    assert views(play([1, 5], [3, 3], moves, dice_per_player=2), 1) == \
        views(play([6, 6], [3, 3], moves, dice_per_player=2), 1)


def test_leak_while_rolling_seat_1_does_not_see_seat_0_dice():
    first, second = new_state(), new_state()
    first.apply_action(0)
    second.apply_action(5)
    assert views(first, 1) == views(second, 1)
    assert views(first, 0) != views(second, 0)


def test_resample_hidden_redraws_the_opponent_dice_and_keeps_the_own_dice():
    state = play([2, 5], [1, 3], [bid(1, 2)], dice_per_player=2)
    seen = set()
    for seed in range(100):
        copy = state.resample_hidden(1, seed)
        dice = copy.result_details()["dice"]
        assert dice[1] == [1, 3] and dice[0] == sorted(dice[0]) and all(1 <= d <= 6 for d in dice[0])
        assert views(copy, 1) == views(state, 1)
        assert copy.legal_actions() == state.legal_actions() and copy.current_player() == 1
        seen.add(tuple(dice[0]))
    assert len(seen) > 10
    assert state.result_details()["dice"] == [[2, 5], [1, 3]]        # the original is untouched


def test_resample_hidden_while_rolling_and_after_the_reveal():
    state = new_state()
    state.apply_action(2)
    redrawn = {state.resample_hidden(1, seed).result_details()["dice"][0][0] for seed in range(60)}
    assert redrawn == set(range(1, 7))
    assert {state.resample_hidden(0, seed).result_details()["dice"][0][0] for seed in range(20)} == {3}
    over = play([3], [6], [bid(2, 3), LIAR])
    assert all(over.resample_hidden(0, seed).result_details() == over.result_details() for seed in range(20))


# ---- random playouts ------------------------------------------------------------------------------
def reference_winner(dice, quantity, face, faces, bidder):
    """The winner of a challenge, written out independently of the engine."""
    count = sum(1 for hand in dice for d in hand if d == face or d == faces)
    return bidder if count >= quantity else 1 - bidder


def random_playout(seed, dice_per_player=1, faces=6):
    rng = random.Random(seed)
    state = new_state(dice_per_player=dice_per_player, faces=faces)
    liar = 2 * dice_per_player * faces
    states = [state.clone()]
    last_bid = -1
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
        else:
            legal = state.legal_actions()
            assert legal == list(range(last_bid + 1, liar)) + ([liar] if last_bid >= 0 else [])
            for action in legal:
                state.clone().apply_action(action)
            for bad in [-1, liar + 1, *range(last_bid + 1)] + ([liar] if last_bid < 0 else []):
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(bad)
            # Favour Liar and small raises so that games are not all long.
            action = liar if liar in legal and rng.random() < 0.3 else rng.choice(legal[:4])
            if action != liar:
                last_bid = action
        state.apply_action(action)
        assert state.move_number <= game_spec(GAME).max_game_length
        states.append(state.clone())
    return state, states, last_bid


@pytest.mark.parametrize("dice_per_player,faces", [(1, 6), (2, 6), (3, 4), (1, 2)])
def test_random_playouts_follow_the_reference_rules(dice_per_player, faces):
    for seed in range(250):
        state, _, last_bid = random_playout(seed, dice_per_player, faces)
        details = state.result_details()
        bidder = (len(details["bids"]) - 2) % 2
        quantity, face = last_bid // faces + 1, last_bid % faces + 1
        winner = reference_winner(details["dice"], quantity, face, faces, bidder)
        assert details["winner"] == winner
        assert state.returns() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        json.dumps([state.observation_dict(0), state.observation_dict(1), details])


def test_same_seed_same_match():
    for seed in range(50):
        first, second = random_playout(seed)[0], random_playout(seed)[0]
        assert first.history() == second.history() and first.returns() == second.returns()


def test_clones_are_independent():
    for seed in range(200):
        rng = random.Random(seed)
        state = new_state()
        for _ in range(rng.randrange(6)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        before = (state.history(), views(state, 0), views(state, 1), state.returns())
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), views(state, 0), views(state, 1), state.returns()) == before


@pytest.mark.parametrize("dice_per_player", [1, 2])
def test_state_from_view_rebuilds_what_the_seat_sees(dice_per_player):
    game = load_game(GAME, {"dice_per_player": dice_per_player})
    for seed in range(200):
        _, states, _ = random_playout(seed, dice_per_player)
        for state in states:
            for seat in (0, 1):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions() == state.legal_actions()


# ---- spec and parameters --------------------------------------------------------------------------
def test_spec_and_gtbench_preset():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("sequential", "stochastic", "imperfect", "zero_sum")
    assert spec.preset("gtbench").values == {"dice_per_player": 1, "faces": 6}
    state = load_game(GAME, preset="gtbench").new_initial_state()
    assert len(state.chance_outcomes()) == 6


@pytest.mark.parametrize("parameters,players", [
    ({"dice_per_player": 0}, 2), ({"dice_per_player": 6}, 2), ({"faces": 1}, 2), ({"faces": 21}, 2),
    ({"faces": 6.5}, 2), ({}, 3),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
