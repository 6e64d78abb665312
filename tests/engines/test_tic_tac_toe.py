"""Tic-tac-toe: hand-worked positions, action texts, the answer parsers and the views."""

from __future__ import annotations

import itertools
import json

import pytest

from arena_engines import load_game
from arena_engines.core import ActionParseError, IllegalActionError

# The eight lines as 0-based cell ids (row * 3 + col), written out independently of the engine.
LINES = {
    "row 1": (0, 1, 2), "row 2": (3, 4, 5), "row 3": (6, 7, 8),
    "column 1": (0, 3, 6), "column 2": (1, 4, 7), "column 3": (2, 5, 8),
    "diagonal": (0, 4, 8), "anti-diagonal": (2, 4, 6),
}


def new_state():
    return load_game("tic_tac_toe").new_initial_state()


def play(moves):
    state = new_state()
    for move in moves:
        state.apply_action(move)
    return state


def winning_sequence(line, winner):
    """Moves in which `winner` (0 = X, 1 = O) completes `line` with its third mark while the other
    seat fills cells off the line that never make a line of their own."""
    others = [c for c in range(9) if c not in line]
    loser_cells = next(cells for cells in itertools.combinations(others, 3)
                       if not any(set(l) <= set(cells) for l in LINES.values()))
    moves = []
    for i in range(3):
        if winner == 0:
            moves += [line[i]] + ([loser_cells[i]] if i < 2 else [])
        else:
            moves += [loser_cells[i], line[i]]
    return moves


@pytest.mark.parametrize("winner", [0, 1], ids=["X", "O"])
@pytest.mark.parametrize("name", list(LINES))
def test_every_line_wins_for_either_mark(name, winner):
    line = LINES[name]
    moves = winning_sequence(line, winner)
    state = new_state()
    for move in moves[:-1]:
        state.apply_action(move)
        assert not state.is_terminal()
    state.apply_action(moves[-1])
    assert state.is_terminal()
    assert state.current_player() == -4
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert state.returns() == expected
    assert state.result_summary() == ("X wins" if winner == 0 else "O wins")
    details = state.result_details()
    assert details["winner"] == winner
    assert details["winning_line"] == [[c // 3 + 1, c % 3 + 1] for c in line]
    assert state.legal_actions() == [] and state.current_players() == []


def test_a_full_board_without_a_line_is_a_draw():
    # X O X / X O O / O X X
    state = new_state()
    for move in [0, 4, 8, 1, 7, 6, 2, 5, 3]:
        assert not state.is_terminal()
        state.apply_action(move)
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "draw"
    assert state.result_details() == {"winner": None, "winning_line": None, "moves": 9}
    assert state.observation_dict(0)["board"] == [["X", "O", "X"], ["X", "O", "O"], ["O", "X", "X"]]


def test_returns_are_zero_before_the_end():
    state = play([4, 0])
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "game in progress"


def test_occupied_cells_and_out_of_range_ids_are_refused_and_leave_the_state_unchanged():
    state = play([4])
    before = (state.history(), state.observation_string(1))
    for bad in (4, -1, 9, 100):
        assert not state.is_legal(1, bad)
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    assert (state.history(), state.observation_string(1)) == before
    assert 4 not in state.legal_actions()
    assert state.legal_actions() == [0, 1, 2, 3, 5, 6, 7, 8]


def test_only_the_seat_to_move_has_legal_actions():
    state = play([4])
    assert state.current_player() == 1
    assert state.legal_actions(0) == [] and not state.is_legal(0, 0)
    assert state.legal_actions(1) == [0, 1, 2, 3, 5, 6, 7, 8]


def test_no_move_after_the_end():
    state = play(winning_sequence(LINES["row 1"], 0))
    for cell in range(9):
        with pytest.raises(IllegalActionError):
            state.apply_action(cell)
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 0])


def test_action_ids_are_row_major_and_texts_use_the_seat_mark_and_1_based_cells():
    state = new_state()
    assert state.action_to_string(0, 0) == "X: (1, 1)"
    assert state.action_to_string(0, 2) == "X: (1, 3)"
    assert state.action_to_string(0, 3) == "X: (2, 1)"
    assert state.action_to_string(1, 8) == "O: (3, 3)"
    with pytest.raises(ValueError):
        state.action_to_string(0, 9)
    with pytest.raises(ValueError):
        state.action_to_string(2, 0)


@pytest.mark.parametrize("seat", [0, 1])
def test_canonical_texts_parse_back_to_their_ids(seat):
    state = new_state()
    for action in range(9):
        assert state.parse_action(seat, state.action_to_string(seat, action)) == action


@pytest.mark.parametrize("text,action", [
    ("X: (2, 3)", 5),                                           # LLMArena answer
    ("Sure! My move is X: (2, 3). Good luck.", 5),              # chatter around it
    ("x:(3,1)", 6),                                             # spacing and case
    ("O: (1, 2)", 1),                                           # the mark is not checked
    ("(3, 1)", 6),                                              # LLMArena parser: mark optional
    ("I'll take ( 1 , 2 ) this time", 1),
    ("(1, 1) or maybe (2, 2)", 0),                              # LLMArena: first pair
    ("<C3R1>", 2),                                              # GTBench: column 3, row 1
    ("<c1r2>", 3),
    ("Action: C2R2", 4),                                        # GTBench pattern without brackets
    ("Thought: <C1R1> is taken. Action: <C2R3>", 7),            # GTBench: last tag
    ("X: (1, 1) then <C3R3>", 0),                               # canonical answer first
    ("(1, 1) ... Action: <C3R3>", 8),                           # a tag beats a bare pair
])
def test_parser_reads_llmarena_and_gtbench_answers(text, action):
    assert new_state().parse_action(0, text) == action


def test_parser_returns_an_occupied_cell_for_the_referee_to_refuse():
    state = play([4])
    assert state.parse_action(1, "O: (2, 2)") == 4
    assert not state.is_legal(1, 4)


@pytest.mark.parametrize("text,fragment", [
    ("", "could not read a cell"),
    ("I pass", "could not read a cell"),
    ("row 2, column 3", "could not read a cell"),
    ("(1, 2, 3)", "could not read a cell"),
    ("X: (4, 1)", "off the board"),
    ("(0, 2)", "off the board"),
    ("<C4R1>", "off the board"),
    ("X: (12, 1)", "off the board"),
])
def test_parser_refuses_malformed_answers_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        new_state().parse_action(1, text)
    message = str(refused.value)
    assert fragment in message
    assert "O: (row, column)" in message and "<CxRy>" in message


def test_observation_text_shows_mark_board_and_legal_cells():
    state = play([2, 4])
    assert state.observation_string(0) == "\n".join([
        "Tic-tac-toe. You play X; X moves first.",
        "Board (row 1 at the top, column 1 at the left; _ is empty):",
        "| _ | _ | X |",
        "| _ | O | _ |",
        "| _ | _ | _ |",
        "Your move. Legal cells (row, column): (1, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)",
    ])
    other = state.observation_string(1)
    assert other.startswith("Tic-tac-toe. You play O;")
    assert other.endswith("Waiting for X to move.")


def test_observation_at_the_end_states_the_result():
    state = play(winning_sequence(LINES["column 2"], 1))
    assert state.observation_string(0).endswith("The game is over: O wins.")


def test_observation_dict_is_json_compatible_and_complete():
    state = play([2, 4])
    data = state.observation_dict(1)
    assert data == {
        "board": [["", "", "X"], ["", "O", ""], ["", "", ""]],
        "mark": "O",
        "to_play": 0,
        "legal_cells": [[1, 1], [1, 2], [2, 1], [2, 3], [3, 1], [3, 2], [3, 3]],
    }
    assert json.loads(json.dumps(data)) == data
    finished = play([0, 4, 8, 1, 7, 6, 2, 5, 3]).observation_dict(0)
    assert finished["to_play"] is None and finished["legal_cells"] == []


def test_public_history_lists_every_move_with_its_text():
    assert play([2, 4]).public_history() == [(0, 2, "X: (1, 3)"), (1, 4, "O: (2, 2)")]
