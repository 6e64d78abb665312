"""Kuhn poker: the deal, every betting line's payoff, the parser, hidden information (leak test,
resampling, rebuilding from a view) and seeded random playouts."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

GAME = "kuhn_poker"
J, Q, K = 0, 1, 2
PASS, BET = 0, 1


def new_state(**parameters):
    return load_game(GAME, parameters).new_initial_state()


def deal(card0, card1, **parameters):
    state = new_state(**parameters)
    state.apply_action(card0)
    state.apply_action(card1)
    return state


def play(card0, card1, betting, **parameters):
    state = deal(card0, card1, **parameters)
    for action in betting:
        assert not state.is_terminal()
        state.apply_action(action)
    return state


def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


# ---- the deal -------------------------------------------------------------------------------------
def test_the_deal_is_two_chance_nodes_over_the_cards_left_in_the_deck():
    state = new_state()
    assert state.is_chance_node() and state.current_player() == -1
    assert state.chance_outcomes() == [(J, pytest.approx(1 / 3)), (Q, pytest.approx(1 / 3)), (K, pytest.approx(1 / 3))]
    state.apply_action(Q)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(J, 0.5), (K, 0.5)]
    with pytest.raises(IllegalActionError):
        state.apply_action(Q)                       # already dealt to seat 0
    state.apply_action(K)
    assert not state.is_chance_node() and state.current_player() == 0
    assert state.observation_dict(0)["card"] == "Q" and state.observation_dict(1)["card"] == "K"


# ---- every betting line ---------------------------------------------------------------------------
@pytest.mark.parametrize("cards,betting,returns,showdown", [
    ((K, J), [PASS, PASS], [1.0, -1.0], True),              # pass-pass: K beats J for the antes
    ((J, Q), [PASS, PASS], [-1.0, 1.0], True),
    ((Q, K), [BET, BET], [-2.0, 2.0], True),                # bet-call: K beats Q for ante + bet
    ((K, Q), [BET, BET], [2.0, -2.0], True),
    ((J, K), [BET, PASS], [1.0, -1.0], False),              # bet-fold: the J bluff takes the antes
    ((Q, J), [PASS, BET, BET], [2.0, -2.0], True),          # pass-bet-call: Q beats J
    ((J, Q), [PASS, BET, BET], [-2.0, 2.0], True),
    ((K, J), [PASS, BET, PASS], [-1.0, 1.0], False),        # pass-bet-fold: seat 1's bet wins
])
def test_every_betting_line_pays_as_worked_by_hand(cards, betting, returns, showdown):
    state = play(*cards, betting)
    assert state.is_terminal() and state.current_player() == -4
    assert state.returns() == returns
    assert sum(state.returns()) == 0
    details = state.result_details()
    assert details["showdown"] is showdown
    assert details["winner"] == (0 if returns[0] > 0 else 1)
    assert details["cards"] == ["JQK"[cards[0]], "JQK"[cards[1]]]
    assert state.legal_actions() == [] and state.legal_actions(0) == [] and state.legal_actions(1) == []


@pytest.mark.parametrize("betting,loser_pays", [
    ([PASS, PASS], 2),                  # the ante
    ([BET, BET], 5),                    # ante + bet
    ([PASS, BET, BET], 5),
    ([BET, PASS], 2),                   # the folder's ante
    ([PASS, BET, PASS], 2),
])
def test_ante_and_bet_parameters_scale_the_returns(betting, loser_pays):
    state = play(K, Q, betting, ante=2, bet=3)
    winner = state.result_details()["winner"]
    assert state.returns()[winner] == loser_pays and state.returns()[1 - winner] == -loser_pays
    assert state.observation_dict(0)["pot"] == sum(state.observation_dict(0)["contributions"])


def test_pot_and_contributions_follow_the_betting():
    state = deal(J, K)
    assert state.observation_dict(0)["contributions"] == [1, 1]
    state.apply_action(PASS)
    state.apply_action(BET)
    data = state.observation_dict(0)
    assert data["contributions"] == [1, 2] and data["pot"] == 3 and data["to_play"] == 0
    assert "Pot: 3 chips (you 1, your opponent 2)." in state.observation_string(0)
    assert "<Bet> to call" in state.observation_string(0) and "<Pass> to fold" in state.observation_string(0)


def test_returns_are_zero_and_summary_in_progress_before_the_end():
    state = play(K, J, [BET])
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "game in progress"


def test_result_summaries():
    assert play(K, Q, [BET, BET]).result_summary() == "seat 0 wins 2 chips at showdown (K beats Q)"
    assert play(Q, K, [PASS, PASS]).result_summary() == "seat 1 wins 1 chip at showdown (K beats Q)"
    assert play(J, K, [BET, PASS]).result_summary() == "seat 0 wins 1 chip: seat 1 folded"


# ---- legality -------------------------------------------------------------------------------------
def test_both_actions_are_legal_for_the_seat_to_act_only():
    state = deal(Q, J)
    assert state.legal_actions(0) == [PASS, BET] and state.legal_actions(1) == []
    for bad in (-1, 2, 7):
        assert not state.is_legal(0, bad)
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    state.apply_action(BET)
    assert state.current_player() == 1 and state.legal_actions(1) == [PASS, BET]
    assert not state.is_legal(0, PASS)


def test_no_action_after_the_end():
    state = play(Q, J, [PASS, PASS])
    with pytest.raises(IllegalActionError):
        state.apply_action(PASS)


# ---- texts and parsing ----------------------------------------------------------------------------
def test_action_texts_are_gtbench_answers():
    state = deal(Q, J)
    assert state.action_to_string(0, PASS) == "<Pass>" and state.action_to_string(1, BET) == "<Bet>"
    assert state.action_to_string(-1, K) == "deal K"
    with pytest.raises(ValueError):
        state.action_to_string(0, 2)


@pytest.mark.parametrize("text,action", [
    ("<Pass>", PASS),
    ("<Bet>", BET),
    ("Action: <bet>", BET),
    ("< PASS >", PASS),
    ("Thought: a <Bet> is risky with a J. Action: <Pass>", PASS),      # GTBench: the last tag
    ("I would pass here, but <Bet>", BET),                              # a tag beats bare words
    ("Pass", PASS),
    ("bet", BET),
    ("I check.", PASS),
    ("fold", PASS),
    ("I call", BET),
])
def test_parser_reads_gtbench_tags_and_single_words(text, action):
    assert deal(Q, J).parse_action(0, text) == action


@pytest.mark.parametrize("text,problem", [
    ("", "names no action"),
    ("<Raise>", "names no action"),
    ("betting is fun", "names no action"),
    ("pass or bet?", "names both actions"),
    ("I call, no, I fold", "names both actions"),
])
def test_parser_refuses_unreadable_and_ambiguous_answers(text, problem):
    with pytest.raises(ActionParseError) as refused:
        deal(Q, J).parse_action(0, text)
    assert problem in str(refused.value) and "<Pass> or <Bet>" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.text(alphabet="<>PassBetCheckFoldCall ,.!", max_size=40)))
def test_parser_returns_an_in_range_id_or_refuses(text):
    try:
        action = deal(Q, J).parse_action(0, text)
    except ActionParseError:
        return
    assert action in (PASS, BET)


# ---- information ----------------------------------------------------------------------------------
def test_each_seat_sees_only_its_own_card():
    state = deal(Q, K)
    assert "Your card: Q." in state.observation_string(0)
    assert "K" not in state.observation_string(0).split("Your card:")[1]
    assert state.observation_dict(0)["card"] == "Q" and state.observation_dict(0)["opponent_card"] is None
    assert "Your card: K." in state.observation_string(1)
    assert state.public_history() == [(-1, -1, "a card is dealt to seat 0"), (-1, -1, "a card is dealt to seat 1")]


@pytest.mark.parametrize("betting", [[], [PASS], [BET], [PASS, BET], [BET, PASS], [PASS, BET, PASS]])
def test_leak_a_seat_views_do_not_depend_on_the_opponent_card(betting):
    # Seat 0 holds Q in both states; seat 1 holds J in one and K in the other. Folded hands never
    # show the cards, so every view of seat 0 must be identical, including at the end of a fold.
    low, high = play(Q, J, betting), play(Q, K, betting)
    assert views(low, 0) == views(high, 0)
    assert views(low, 1) != views(high, 1)       # the views are not trivially constant
    # The same for seat 1 when only seat 0's card differs.
    assert views(play(J, Q, betting), 1) == views(play(K, Q, betting), 1)


def test_leak_during_the_deal_seat_1_does_not_see_seat_0_card():
    first, second = new_state(), new_state()
    first.apply_action(J)
    second.apply_action(K)
    assert views(first, 1) == views(second, 1)
    assert views(first, 0) != views(second, 0)


def test_showdown_reveals_both_cards_to_both_seats():
    state = play(J, K, [BET, BET])
    assert state.observation_dict(0)["opponent_card"] == "K"
    assert state.observation_dict(1)["opponent_card"] == "J"
    assert "Showdown: your opponent's card is K." in state.observation_string(0)
    assert state.public_history()[-1] == (-1, -1, "showdown: seat 0 shows J, seat 1 shows K")
    assert "The hand is over: you lost 2 chips." in state.observation_string(0)


def test_resample_hidden_redraws_only_the_opponent_card_and_never_the_own_card():
    for own in (J, Q, K):
        state = play(own, (own + 1) % 3, [PASS])
        seen = set()
        for seed in range(60):
            copy = state.resample_hidden(0, seed)
            data = copy.result_details()
            assert data["cards"][0] == "JQK"[own]
            assert data["cards"][1] != "JQK"[own]
            assert views(copy, 0) == views(state, 0)
            assert copy.legal_actions() == state.legal_actions() and copy.current_player() == 1
            seen.add(data["cards"][1])
        assert seen == {c for c in "JQK" if c != "JQK"[own]}
        assert state.result_details()["cards"][1] == "JQK"[(own + 1) % 3]     # the original is untouched


def test_resample_hidden_for_seat_1_before_its_own_card_draws_from_all_three():
    state = new_state()
    state.apply_action(Q)
    seen = set()
    for seed in range(60):
        copy = state.resample_hidden(1, seed)
        assert views(copy, 1) == views(state, 1) and copy.is_chance_node()
        card0 = "JQK".index(copy.result_details()["cards"][0])
        assert [a for a, _ in copy.chance_outcomes()] == [c for c in (J, Q, K) if c != card0]
        seen.add(card0)
    assert seen == {J, Q, K}


def test_resample_hidden_keeps_cards_shown_at_showdown():
    state = play(J, K, [PASS, PASS])
    for seed in range(20):
        assert state.resample_hidden(0, seed).result_details() == state.result_details()


# ---- random playouts ------------------------------------------------------------------------------
def random_playout(seed, **parameters):
    """Plays a seeded match (chance by its probabilities), checking legality on the way."""
    rng = random.Random(seed)
    state = new_state(**parameters)
    spec = game_spec(GAME)
    states = [state.clone()]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
        else:
            seat = state.current_player()
            legal = state.legal_actions()
            assert legal == [PASS, BET]
            for action in legal:
                state.clone().apply_action(action)
            for bad in (-1, 2):
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(bad)
            assert state.legal_actions(1 - seat) == []
            action = rng.choice(legal)
        state.apply_action(action)
        assert state.move_number <= spec.max_game_length
        states.append(state.clone())
    return state, states


def test_random_playouts_end_with_zero_sum_returns_of_one_or_two_chips():
    for seed in range(300):
        state, _ = random_playout(seed)
        returns = state.returns()
        assert sum(returns) == 0 and abs(returns[0]) in (1.0, 2.0)
        assert 4 <= state.move_number <= 5
        json.dumps([state.observation_dict(0), state.observation_dict(1), state.result_details()])


def test_same_seed_same_match():
    for seed in range(50):
        first, _ = random_playout(seed)
        second, _ = random_playout(seed)
        assert first.history() == second.history() and first.returns() == second.returns()


def test_clones_are_independent():
    for seed in range(200):
        rng = random.Random(seed)
        state = new_state()
        for _ in range(rng.randrange(5)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        before = (state.history(), views(state, 0), views(state, 1), state.returns())
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), views(state, 0), views(state, 1), state.returns()) == before


def test_state_from_view_rebuilds_what_the_seat_sees():
    game = load_game(GAME)
    for seed in range(200):
        _, states = random_playout(seed)
        for state in states:
            for seat in (0, 1):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.current_player() == state.current_player()
                if not state.is_chance_node():      # the cards left to deal depend on hidden cards
                    assert rebuilt.legal_actions() == state.legal_actions()


# ---- spec and parameters --------------------------------------------------------------------------
def test_spec_and_gtbench_preset():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("sequential", "stochastic", "imperfect", "zero_sum")
    assert spec.preset("gtbench").values == {"ante": 1, "bet": 1}
    assert load_game(GAME, preset="gtbench").parameters == {"ante": 1, "bet": 1}


@pytest.mark.parametrize("parameters,players", [
    ({"ante": 0}, 2), ({"bet": 0}, 2), ({"ante": 101}, 2), ({"bet": 1.5}, 2), ({"ante": True}, 2), ({}, 3),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
