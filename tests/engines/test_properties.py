"""Property tests over many seeded random playouts, checked against independent reference rules,
plus parser fuzzing."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

SEEDS = range(250)


# ---- reference rules, written independently of the engines -------------------------------------
def board_winner(board, need):
    """The mark with `need` in a row on `board` (rows of "X"/"O"/""), or None."""
    rows, cols = len(board), len(board[0])
    for r in range(rows):
        for c in range(cols):
            mark = board[r][c]
            if not mark:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(need)]
                if all(0 <= rr < rows and 0 <= cc < cols and board[rr][cc] == mark for rr, cc in cells):
                    return mark
    return None


BOARD_GAMES = {
    # game id: (number of action ids, line length, legal actions from the board)
    "tic_tac_toe": (9, 3, lambda board: [r * 3 + c for r in range(3) for c in range(3) if not board[r][c]]),
    "connect_four": (7, 4, lambda board: [c for c in range(7) if not board[0][c]]),
}


@pytest.mark.parametrize("game_id", list(BOARD_GAMES))
def test_random_playouts_follow_the_reference_rules(game_id):
    spec = game_spec(game_id)
    num_ids, need, reference_legal = BOARD_GAMES[game_id]
    for seed in SEEDS:
        rng = random.Random(seed)
        state = load_game(game_id).new_initial_state()
        while True:
            board = state.observation_dict(0)["board"]
            winner = board_winner(board, need)
            full = all(all(cell for cell in row) for row in board)
            assert state.is_terminal() == (winner is not None or full), (seed, board)
            if state.is_terminal():
                break
            seat = state.current_player()
            assert seat == state.move_number % 2
            legal = state.legal_actions()
            assert legal == reference_legal(board)
            for action in legal:
                child = state.clone()
                child.apply_action(action)
                assert child.move_number == state.move_number + 1
            for action in [-1, num_ids, *(a for a in range(num_ids) if a not in legal)]:
                assert not state.is_legal(seat, action)
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(action)
            state.apply_action(rng.choice(legal))
            assert state.move_number <= spec.max_game_length
        returns = state.returns()
        assert sum(returns) == 0
        expected = {None: [0.0, 0.0], "X": [1.0, -1.0], "O": [-1.0, 1.0]}[winner]
        assert returns == expected
        assert state.legal_actions() == [] and state.current_players() == []
        with pytest.raises(IllegalActionError):
            state.apply_action(0)
        rebuilt = state.game.state_from_view(seed % 2, state.observation_dict(seed % 2))
        assert rebuilt.is_terminal() and rebuilt.returns() == returns
        assert rebuilt.result_summary() == state.result_summary()


@pytest.mark.parametrize("game_id", list(BOARD_GAMES))
def test_clones_are_independent(game_id):
    for seed in range(200):
        rng = random.Random(seed)
        state = load_game(game_id).new_initial_state()
        for _ in range(rng.randrange(6)):
            state.apply_action(rng.choice(state.legal_actions()))
        views = (state.history(), state.observation_string(0), state.observation_dict(1), state.legal_actions())
        clone = state.clone()
        assert (clone.history(), clone.observation_string(0), clone.observation_dict(1),
                clone.legal_actions()) == views
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), state.observation_string(0), state.observation_dict(1),
                state.legal_actions()) == views
        assert state.clone().returns() == state.returns()
        # The board is the whole state: rebuilding it from a seat's view gives the same position.
        rebuilt = state.game.state_from_view(seed % 2, state.observation_dict(seed % 2))
        assert (rebuilt.observation_string(0), rebuilt.observation_dict(1), rebuilt.legal_actions(),
                rebuilt.returns(), rebuilt.move_number) == views[1:] + (state.returns(), state.move_number)
        # Perfect information: a determinization is a plain copy.
        resampled = state.resample_hidden(seed % 2, seed)
        assert (resampled.history(), resampled.observation_string(0), resampled.observation_dict(1),
                resampled.legal_actions()) == views


def reference_round(choices, ratio):
    """Winners of one round of Guess R of the average, in exact arithmetic."""
    target = ratio * Fraction(sum(choices), len(choices))
    best = min(abs(c - target) for c in choices)
    return target, [i for i, c in enumerate(choices) if abs(c - target) == best]


def test_guess_random_playouts_follow_the_reference_rules():
    spec = game_spec("guess_two_thirds_average")
    for seed in SEEDS:
        rng = random.Random(seed)
        players, rounds = rng.randint(2, 12), rng.randint(1, 6)
        low = rng.choice([0, 0, 5, 100])
        high = low + rng.choice([1, 2, 10, 100, 1023])
        num, den = rng.choice([(2, 3), (1, 2), (1, 1), (4, 3), (0, 1), (7, 6)])
        state = load_game("guess_two_thirds_average", {"rounds": rounds, "min_value": low, "max_value": high,
                                                       "ratio_numerator": num, "ratio_denominator": den},
                          num_players=players).new_initial_state()
        wins = [0] * players
        for r in range(rounds):
            assert state.is_simultaneous_node() and state.current_players() == list(range(players))
            for seat in range(players):
                assert state.legal_actions(seat) == list(range(low, high + 1))
            # Illegal joint moves are refused and change nothing.
            bad = [low] * players
            bad[rng.randrange(players)] = rng.choice([low - 1, high + 1])
            with pytest.raises(IllegalActionError):
                state.apply_actions(bad)
            assert state.move_number == r
            # Both clamp values and random values are accepted.
            choices = [rng.choice([low, high, rng.randint(low, high)]) for _ in range(players)]
            state.apply_actions(choices)
            target, winners = reference_round(choices, Fraction(num, den))
            last = state.result_details()["rounds"][r]
            assert last["winners"] == winners and last["choices"] == choices
            assert last["target"] == pytest.approx(float(target), abs=1e-9)
            assert last["mean"] == pytest.approx(sum(choices) / players, abs=1e-9)
            for seat in winners:
                wins[seat] += 1
            assert state.returns() == [float(w) for w in wins]
        assert state.is_terminal() and state.move_number == rounds <= spec.max_game_length
        # Determinizations, from the true state and from a seat's view, agree with all it observed.
        seat = rng.randrange(players)
        game = state.game
        for other in (state.resample_hidden(seat, seed), game.state_from_view(seat, state.observation_dict(seat))):
            assert other.observation_dict(seat) == state.observation_dict(seat)
            for ours, truth in zip(other.result_details()["rounds"], state.result_details()["rounds"]):
                assert ours["choices"][seat] == truth["choices"][seat]
                assert sum(ours["choices"]) == sum(truth["choices"])
                assert all(low <= c <= high for c in ours["choices"])
                _, winners = reference_round(ours["choices"], Fraction(num, den))
                assert sorted({ours["choices"][i] for i in winners}) == truth["winning_numbers"]
                assert ours["winners"] == winners
        assert spec.min_utility <= min(wins) and max(wins) <= rounds <= spec.max_utility
        assert sum(wins) >= rounds       # every round has a winner
        with pytest.raises(IllegalActionError):
            state.apply_actions([low] * players)


def test_guess_clones_are_independent():
    for seed in range(200):
        rng = random.Random(seed)
        state = load_game("guess_two_thirds_average", {"rounds": 4}, num_players=3).new_initial_state()
        for _ in range(rng.randrange(4)):
            state.apply_actions([rng.randint(0, 100) for _ in range(3)])
        views = (state.history(), state.returns(), state.observation_dict(0), state.result_details())
        clone = state.clone()
        assert (clone.history(), clone.returns(), clone.observation_dict(0), clone.result_details()) == views
        while not clone.is_terminal():
            clone.apply_actions([rng.randint(0, 100) for _ in range(3)])
        assert (state.history(), state.returns(), state.observation_dict(0), state.result_details()) == views


# ---- parser fuzzing: any text either parses to an in-range id or raises ActionParseError ---------
ANSWERY = st.text(alphabet=st.sampled_from(list("XOxo:(), <>CRcr0123456789{}\"'-.column_chosen nber")),
                  max_size=40)


@pytest.mark.parametrize("game_id,num_ids", [("tic_tac_toe", 9), ("connect_four", 7)])
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), ANSWERY))
def test_board_game_parsers_return_an_in_range_id_or_refuse(game_id, num_ids, text):
    state = load_game(game_id).new_initial_state()
    try:
        action = state.parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= action < num_ids


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), ANSWERY, st.integers(-1000, 1000).map(str)))
def test_guess_parser_returns_an_in_range_number_or_refuses(text):
    state = load_game("guess_two_thirds_average", num_players=2).new_initial_state()
    try:
        action = state.parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= action <= 100 and state.is_legal(0, action)
