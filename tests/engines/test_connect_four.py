"""Connect Four: hand-worked wins in every direction, a full-board draw, full columns, the parsers
and the views."""

from __future__ import annotations

import json

import pytest

from arena_engines import load_game
from arena_engines.core import ActionParseError, IllegalActionError

# A full board with no four in a row, built from the column patterns A = X,O,X,O,X,O (bottom up)
# and B = O,X,O,X,O,X arranged A A B B A A B: every row alternates in pairs, and every window of
# four columns holds two equal neighbours, so no diagonal can be uniform. Playing columns 0 and 2
# (then 1 and 3, then 4 and 6) in the order [a, b, b, a] puts each mark where the pattern wants it,
# and column 5 is filled last.
DRAW_SEQUENCE = [0, 2, 2, 0] * 3 + [1, 3, 3, 1] * 3 + [4, 6, 6, 4] * 3 + [5] * 6
DRAW_BOARD = [  # top row first
    "| O | O | X | X | O | O | X |",
    "| X | X | O | O | X | X | O |",
    "| O | O | X | X | O | O | X |",
    "| X | X | O | O | X | X | O |",
    "| O | O | X | X | O | O | X |",
    "| X | X | O | O | X | X | O |",
]


def new_state():
    return load_game("connect_four").new_initial_state()


def play(moves):
    state = new_state()
    for move in moves:
        state.apply_action(move)
    return state


@pytest.mark.parametrize("name,moves,winner", [
    ("horizontal, X along the bottom row", [0, 0, 1, 1, 2, 2, 3], 0),
    ("horizontal, completed in the middle", [0, 0, 1, 1, 3, 3, 2], 0),
    ("horizontal, O on the second row", [0, 2, 1, 0, 3, 1, 6, 2, 6, 3], 1),
    ("vertical, X", [0, 1, 0, 1, 0, 1, 0], 0),
    ("vertical, O at the top of a column", [0, 1, 0, 0, 1, 0, 2, 0, 2, 0], 1),
    ("diagonal up to the right", [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 0),
    ("diagonal down to the right", [6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 0),
    ("diagonal up to the right, O, ending at the edge", [1, 3, 4, 4, 5, 5, 6, 5, 6, 6, 0, 6], 1),
])
def test_four_in_a_row_wins_in_every_direction(name, moves, winner):
    state = new_state()
    for move in moves[:-1]:
        state.apply_action(move)
        assert not state.is_terminal(), name
    state.apply_action(moves[-1])
    assert state.is_terminal(), name
    assert winner == (len(moves) - 1) % 2          # the winner made the last move
    assert state.returns() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
    assert state.result_summary() == ("X wins" if winner == 0 else "O wins")
    assert state.result_details() == {"winner": winner, "moves": len(moves)}


def test_horizontal_o_win_position_is_as_drawn():
    state = play([0, 2, 1, 0, 3, 1, 6, 2, 6, 3])
    rows = state.observation_string(0).splitlines()[3:9]
    assert rows[4:] == ["| O | O | O | O | _ | _ | X |", "| X | X | O | X | _ | _ | X |"]


def test_a_full_board_without_four_in_a_row_is_a_draw():
    state = new_state()
    for move in DRAW_SEQUENCE:
        assert not state.is_terminal()
        state.apply_action(move)
    assert len(DRAW_SEQUENCE) == 42
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "draw"
    assert state.observation_string(0).splitlines()[3:9] == DRAW_BOARD
    assert state.legal_actions() == []


def test_a_full_column_is_refused():
    state = play([3, 3, 3, 3, 3, 3])
    assert not state.is_terminal()
    assert 3 not in state.legal_actions()
    assert state.legal_actions() == [0, 1, 2, 4, 5, 6]
    before = state.history()
    with pytest.raises(IllegalActionError):
        state.apply_action(3)
    assert state.history() == before
    assert state.parse_action(0, "X: 4") == 3          # parsed, then refused by the referee
    assert not state.is_legal(0, 3)


@pytest.mark.parametrize("bad", [-1, 7, 42])
def test_out_of_range_columns_are_refused(bad):
    state = new_state()
    assert not state.is_legal(0, bad)
    with pytest.raises(IllegalActionError):
        state.apply_action(bad)


def test_no_move_after_the_end():
    state = play([0, 1, 0, 1, 0, 1, 0])
    for column in range(7):
        with pytest.raises(IllegalActionError):
            state.apply_action(column)


def test_action_texts_use_the_seat_mark_and_1_based_columns():
    state = new_state()
    assert [state.action_to_string(0, a) for a in range(7)] == [f"X: {c}" for c in range(1, 8)]
    assert state.action_to_string(1, 6) == "O: 7"
    with pytest.raises(ValueError):
        state.action_to_string(0, 7)


@pytest.mark.parametrize("seat", [0, 1])
def test_canonical_texts_parse_back_to_their_ids(seat):
    state = new_state()
    for action in range(7):
        assert state.parse_action(seat, state.action_to_string(seat, action)) == action


@pytest.mark.parametrize("text,action", [
    ("X: 4", 3),
    ("O:7", 6),
    ("I will play X: 2 now.", 1),
    ("x : 5", 4),
    ("<C4>", 3),
    ("Action: <c 1>", 0),
    ("<C1> is risky; Action: <C6>", 5),        # GTBench: last match
    ("column 4", 3),
    ("Column: 5", 4),
    ("I choose column #2", 1),
    ("I choose column 2. Action: <C3>", 2),    # last match of either GTBench form
    ("<C3>, or rather column 6", 5),
    ("X: 1 and not <C7>", 0),                  # the canonical answer comes first
])
def test_parser_reads_llmarena_and_gtbench_answers(text, action):
    assert new_state().parse_action(0, text) == action


@pytest.mark.parametrize("text,fragment", [
    ("", "could not read a column"),
    ("the left side", "could not read a column"),
    ("4", "could not read a column"),
    ("X: 8", "no column 8"),
    ("<C0>", "no column 0"),
    ("column 9", "no column 9"),
    ("Column 12", "no column 12"),
])
def test_parser_refuses_malformed_answers_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        new_state().parse_action(0, text)
    assert fragment in str(refused.value)
    assert "'X: 4'" in str(refused.value) and "<C4>" in str(refused.value)


def test_observation_text_has_header_rows_top_first_and_available_columns():
    state = play([3, 3, 4] + [0] * 6)
    assert state.current_player() == 1
    assert state.observation_string(1) == "\n".join([
        "Connect Four. You play O; X moves first. Pieces drop to the lowest empty cell of the chosen column.",
        "Board (top row first; _ is empty):",
        "  1   2   3   4   5   6   7",
        "| X | _ | _ | _ | _ | _ | _ |",
        "| O | _ | _ | _ | _ | _ | _ |",
        "| X | _ | _ | _ | _ | _ | _ |",
        "| O | _ | _ | _ | _ | _ | _ |",
        "| X | _ | _ | O | _ | _ | _ |",
        "| O | _ | _ | X | X | _ | _ |",
        "Your move. Available columns: 2, 3, 4, 5, 6, 7",
    ])
    assert state.observation_string(0).endswith("Waiting for O to move.")


def test_observation_dict_is_json_compatible_with_the_top_row_first():
    state = play([3, 3, 4])
    data = state.observation_dict(1)
    empty = [""] * 7
    assert data == {
        "board": [empty] * 4 + [["", "", "", "O", "", "", ""], ["", "", "", "X", "X", "", ""]],
        "mark": "O",
        "to_play": 1,
        "legal_columns": [1, 2, 3, 4, 5, 6, 7],
    }
    assert json.loads(json.dumps(data)) == data


def test_public_history_lists_every_move_with_its_text():
    assert play([3, 4]).public_history() == [(0, 3, "X: 4"), (1, 4, "O: 5")]
