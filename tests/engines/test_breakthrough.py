"""Breakthrough: OpenSpiel's action ids, hand-worked captures and wins, blocked pawns, the parser, the
views, and random playouts checked against independently written rules."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.breakthrough import max_game_length
from arena_engines.core import ActionParseError, IllegalActionError

BLACK, WHITE = 0, 1


def move_id(rows, cols, text):
    """OpenSpiel's id of a move written "a7->a6" or "b7->a6*", computed independently of the engine:
    ((r * cols + c) * 6 + direction) * 2 + capture, r counted from the top row."""
    m = re.fullmatch(r"([a-z])(\d+)->([a-z])(\d+)(\*?)", text)
    c1, r1 = ord(m[1]) - ord("a"), rows - int(m[2])
    c2, r2 = ord(m[3]) - ord("a"), rows - int(m[4])
    direction = (0 if r2 > r1 else 3) + (c2 - c1 + 1)
    return ((r1 * cols + c1) * 6 + direction) * 2 + (1 if m[5] else 0)


def new_state(rows=8, cols=8):
    return load_game("breakthrough", {"rows": rows, "columns": cols}).new_initial_state()


def play(rows, cols, moves):
    state = new_state(rows, cols)
    for move in moves:
        action = move_id(rows, cols, move)
        assert state.action_to_string(state.current_player(), action) == move
        state.apply_action(action)
    return state


def texts(state):
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


# ---- OpenSpiel compatibility ---------------------------------------------------------------------
# Legal action ids taken from OpenSpiel's breakthrough playthrough (8 x 8, seed history below).
OPENSPIEL_INITIAL = [98, 100, 108, 110, 112, 120, 122, 124, 132, 134, 136, 144, 146, 148, 156, 158, 160,
                     168, 170, 172, 180, 182]
OPENSPIEL_HISTORY = [124, 620, 156, 642, 16, 596, 230, 750, 62]
OPENSPIEL_AFTER = [498, 500, 502, 522, 524, 526, 534, 536, 538, 584, 608, 634, 644, 646, 654, 656, 658, 666,
                   668, 682, 692, 702, 706, 716, 726]
OPENSPIEL_BOARD_AFTER = ["8b.bbb.bb", "7bbbbbbbb", "6....b...", "5...b....", "4........", "3.w.ww...",
                         "2w.w.wwww", "1wwwwww.w"]


def test_action_ids_and_boards_match_openspiel():
    state = new_state()
    assert state.legal_actions() == OPENSPIEL_INITIAL
    assert texts(state)[:3] == ["a7->a6", "a7->b6", "b7->a6"]
    for action in OPENSPIEL_HISTORY:
        state.apply_action(action)
    assert state.current_player() == WHITE
    assert state.legal_actions() == OPENSPIEL_AFTER
    assert state.observation_dict(WHITE)["board"] == OPENSPIEL_BOARD_AFTER
    assert [state.action_to_string(s, a) for s, a in state.history()][:4] == [
        "c7->d6", "d2->d3", "f7->e6", "f2->e3"]


def test_gtbench_board_is_8_rows_by_3_columns_with_two_rows_of_pawns_each():
    state = load_game("breakthrough", preset="gtbench").new_initial_state()
    assert state.observation_dict(BLACK)["board"] == ["8bbb", "7bbb", "6...", "5...", "4...", "3...", "2www",
                                                      "1www"]
    assert texts(state) == ["a7->a6", "a7->b6", "b7->a6", "b7->b6", "b7->c6", "c7->b6", "c7->c6"]
    assert state.legal_actions() == [move_id(8, 3, t) for t in texts(state)] == [38, 40, 48, 50, 52, 60, 62]


def test_boards_under_six_rows_start_with_one_row_of_pawns_each():
    state = new_state(5, 3)
    assert state.observation_dict(BLACK)["board"] == ["5bbb", "4...", "3...", "2...", "1www"]
    assert state.result_details()["pawns_left"] == [3, 3]
    assert new_state(6, 2).observation_dict(BLACK)["board"][:2] == ["6bb", "5bb"]


# ---- hand-worked positions -----------------------------------------------------------------------
# 4 rows x 2 columns, one row of pawns each:   after a4->a3, b1->b2, a3->a2:
#   4 .b          White's a1 is blocked: a pawn never captures straight ahead (a2 is black) and
#   3 ..          its only diagonal, b2, holds its own pawn.
#   2 bw
#   1 w.
BLOCKED = ["a4->a3", "b1->b2", "a3->a2"]


def test_a_pawn_blocked_straight_ahead_and_by_its_own_pawn_has_no_move():
    state = play(4, 2, BLOCKED)
    assert state.observation_dict(WHITE)["board"] == ["4.b", "3..", "2bw", "1w."]
    assert texts(state) == ["b2->a3", "b2->b3"]
    for move in ["a1->a2", "a1->a2*", "a1->b2", "a1->b2*"]:
        assert not state.is_legal(WHITE, move_id(4, 2, move))


def test_no_straight_capture_and_reaching_the_last_row_wins_for_black():
    state = play(4, 2, BLOCKED + ["b2->b3"])
    # a2 faces a white pawn straight ahead and b4 faces one too: only diagonal moves remain.
    assert texts(state) == ["b4->a3", "a2->b1"]
    for move in ["a2->a1", "a2->a1*", "b4->b3", "b4->b3*"]:
        action = move_id(4, 2, move)
        assert not state.is_legal(BLACK, action)
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    state.apply_action(move_id(4, 2, "a2->b1"))
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
    assert state.result_summary() == "black wins (reached the far row)"
    assert state.result_details() == {"winner": 0, "reason": "reached the far row", "pawns_left": [2, 2],
                                      "moves": 5}


def test_white_captures_and_wins_by_reaching_the_top_row():
    state = play(4, 2, ["a4->a3", "b1->b2", "b4->b3", "b2->a3*"])
    assert state.observation_dict(BLACK)["board"] == ["4..", "3wb", "2..", "1w."]
    assert state.result_details()["pawns_left"] == [1, 2]
    state.apply_action(move_id(4, 2, "b3->b2"))
    assert not state.is_terminal()
    state.apply_action(move_id(4, 2, "a3->a4"))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    assert state.result_summary() == "white wins (reached the far row)"


def test_diagonal_captures_are_legal_and_capturing_every_pawn_wins():
    # 5 rows x 2 columns: black takes a3, then b2 (row 2, short of the far row).
    moves = ["a5->a4", "a1->a2", "b5->b4", "a2->a3"]
    state = play(5, 2, moves)
    assert texts(state) == ["a4->b3", "b4->a3*", "b4->b3"]
    state.apply_action(move_id(5, 2, "b4->a3*"))
    assert state.result_details()["pawns_left"] == [2, 1]
    state.apply_action(move_id(5, 2, "b1->b2"))
    assert "a3->b2*" in texts(state)
    state.apply_action(move_id(5, 2, "a3->b2*"))
    assert state.observation_dict(BLACK)["board"] == ["5..", "4b.", "3..", "2.b", "1.."]
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.result_details() == {"winner": 0, "reason": "captured every opponent pawn",
                                      "pawns_left": [2, 0], "moves": 7}
    assert state.result_summary() == "black wins (captured every opponent pawn)"


def test_moves_after_the_end_and_out_of_range_ids_are_refused():
    state = play(4, 2, BLOCKED + ["b2->b3", "a2->b1"])
    assert state.legal_actions() == [] and state.current_players() == []
    with pytest.raises(IllegalActionError):
        state.apply_action(move_id(4, 2, "b4->a3"))
    fresh = new_state(4, 2)
    for bad in (-1, 4 * 2 * 12, 10_000):
        assert not fresh.is_legal(BLACK, bad)
        with pytest.raises(IllegalActionError):
            fresh.apply_action(bad)
    assert fresh.history() == []


# ---- parser --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,move", [
    ("<a7->a6>", "a7->a6"),
    ("Thought: the centre is strong. Action: <b7->b6>", "b7->b6"),
    ("<a7->a6> ... on second thought, Action: <c7->c6>", "c7->c6"),   # GTBench: the last match
    ("a7-a6", "a7->a6"),                                                 # the paper's single dash
    ("A7->B6", "a7->b6"),
    ("c7c6", "c7->c6"),                                                  # OpenSpiel's notation
    ("b7 -> c6", "b7->c6"),
    ("Action: <a7->a6>, then b6 c5 later", "a7->a6"),                   # two bare squares are prose
])
def test_parser_reads_gtbench_paper_and_openspiel_notations(text, move):
    state = load_game("breakthrough", preset="gtbench").new_initial_state()
    action = state.parse_action(BLACK, text)
    assert action == move_id(8, 3, move) and state.is_legal(BLACK, action)


def test_parser_corrects_the_capture_flag_from_the_board():
    state = play(4, 2, ["a4->a3", "b1->b2"])          # black's a3 may take b2
    assert state.parse_action(BLACK, "<a3->b2>") == move_id(4, 2, "a3->b2*")
    assert state.parse_action(BLACK, "<a3->b2*>") == move_id(4, 2, "a3->b2*")
    assert state.parse_action(BLACK, "<a3->a2*>") == move_id(4, 2, "a3->a2")
    assert all(state.is_legal(BLACK, state.parse_action(BLACK, t)) for t in ["a3->b2", "a3->a2*"])


@pytest.mark.parametrize("text", ["<a8->a7>", "<a2->a3>", "<a7->a8>"])
def test_parser_returns_well_formed_illegal_moves_for_the_referee(text):
    # A blocked square, the opponent's pawn, a step backwards.
    state = load_game("breakthrough", preset="gtbench").new_initial_state()
    action = state.parse_action(BLACK, text)
    assert 0 <= action < 8 * 3 * 12 and not state.is_legal(BLACK, action)


def test_parser_returns_a_straight_capture_as_an_illegal_move():
    state = play(4, 2, BLOCKED + ["b2->b3"])
    action = state.parse_action(BLACK, "<a2->a1*>")
    assert action == move_id(4, 2, "a2->a1*") and not state.is_legal(BLACK, action)


@pytest.mark.parametrize("text,fragment", [
    ("", "could not read a move"),
    ("I advance my left pawn", "could not read a move"),
    ("<d7->d6>", "d7 is off the board: columns are a-c, rows 1-8"),
    ("<a9->a8>", "a9 is off the board"),
    ("<a7->a5>", "a7 to a5 is not a move"),
    ("<a7->c6>", "a7 to c6 is not a move"),
    ("<b7->b7>", "b7 to b7 is not a move"),
])
def test_parser_refuses_unreadable_answers_with_the_expected_format(text, fragment):
    state = load_game("breakthrough", preset="gtbench").new_initial_state()
    with pytest.raises(ActionParseError) as refused:
        state.parse_action(BLACK, text)
    assert fragment in str(refused.value) and "<a7->a6>" in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=40),
                      st.text(alphabet=st.sampled_from(list("abcdABCD0123456789-><* ")), max_size=20)))
def test_parser_returns_an_in_range_id_or_refuses(text):
    state = load_game("breakthrough", preset="gtbench").new_initial_state()
    try:
        action = state.parse_action(BLACK, text)
    except ActionParseError:
        return
    assert 0 <= action < 8 * 3 * 12
    state.action_to_string(BLACK, action)       # the destination is on the board


# ---- views ---------------------------------------------------------------------------------------
def test_observation_text_shows_board_histories_and_legal_moves():
    state = play(4, 2, ["a4->a3", "b1->b2"])
    assert state.observation_string(BLACK) == "\n".join([
        "Breakthrough on 4 rows x 2 columns. You play black (b): your pawns move down the board, toward "
        "row 1. Black moves first.",
        "Board (b black, w white, . empty; row numbers on the left, columns lettered below):",
        "4.b",
        "3b.",
        "2.w",
        "1w.",
        " ab",
        "Your opponent's moves so far: b1->b2.",
        "Your moves so far: a4->a3.",
        "Your move. Legal moves: b4->b3, a3->a2, a3->b2*",
    ])
    white = state.observation_string(WHITE).splitlines()
    assert white[0].startswith("Breakthrough on 4 rows x 2 columns. You play white (w): your pawns move up "
                               "the board, toward row 4.")
    assert white[7:] == ["Your opponent's moves so far: a4->a3.", "Your moves so far: b1->b2.",
                         "Waiting for black to move."]
    start = new_state(10, 2).observation_string(WHITE).splitlines()
    assert start[2] == "10bb" and start[11] == " 1ww" and start[12] == "  ab"
    assert start[13:] == ["Your opponent has not moved yet.", "You have not moved yet.",
                          "Waiting for black to move."]


def test_observation_dict_is_json_compatible_and_complete():
    state = play(4, 2, ["a4->a3", "b1->b2"])
    data = state.observation_dict(WHITE)
    assert data == {
        "rows": 4, "columns": 2, "color": "white", "board": ["4.b", "3b.", "2.w", "1w."], "to_play": 0,
        "legal_moves": [], "opponent_moves": ["a4->a3"], "self_moves": ["b1->b2"],
        "history": [[0, move_id(4, 2, "a4->a3")], [1, move_id(4, 2, "b1->b2")]],
    }
    assert json.loads(json.dumps(data)) == data
    assert state.observation_dict(BLACK)["legal_moves"] == ["b4->b3", "a3->a2", "a3->b2*"]


def test_public_history_lists_every_move_with_its_text():
    state = play(4, 2, ["a4->a3", "b1->b2", "a3->b2*"])
    assert state.public_history() == [(0, move_id(4, 2, "a4->a3"), "a4->a3"),
                                      (1, move_id(4, 2, "b1->b2"), "b1->b2"),
                                      (0, move_id(4, 2, "a3->b2*"), "a3->b2*")]


# ---- parameters ----------------------------------------------------------------------------------
def test_spec_parameters_and_presets():
    spec = game_spec("breakthrough")
    assert spec.defaults() == {"rows": 8, "columns": 8}
    assert [p.name for p in spec.presets] == ["gtbench"]
    assert spec.resolve("gtbench") == {"rows": 8, "columns": 3}
    assert spec.max_game_length == max_game_length(26, 26)
    assert (max_game_length(8, 3), max_game_length(8, 8), max_game_length(4, 2)) == (67, 177, 9)


@pytest.mark.parametrize("parameters", [{"rows": 1}, {"columns": 1}, {"rows": 27}, {"columns": 27},
                                        {"rows": 8.5}, {"rows": True}, {"columns": "3"}])
def test_invalid_parameters_are_refused(parameters):
    with pytest.raises(ValueError):
        load_game("breakthrough", parameters)


def test_parameters_from_json_floats_are_integers():
    game = load_game("breakthrough", {"rows": 8.0, "columns": 3.0})
    assert game.parameters == {"rows": 8, "columns": 3}


# ---- random playouts against independently written rules ----------------------------------------
BOARDS = [(8, 3), (8, 8), (6, 2), (5, 3), (2, 2), (3, 4), (10, 5), (26, 2)]


def reference_legal(board_rows, rows, cols, seat):
    """Legal ids from the board strings ("8bbb", top row first): forward straight onto an empty square,
    forward diagonal onto an empty or an enemy square."""
    width = len(str(rows))
    cells = [row[width:] for row in board_rows]
    own, enemy, step = ("b", "w", 1) if seat == BLACK else ("w", "b", -1)
    legal = []
    for r in range(rows):
        for c in range(cols):
            if cells[r][c] != own:
                continue
            for dc in (-1, 0, 1):
                r2, c2 = r + step, c + dc
                if not (0 <= r2 < rows and 0 <= c2 < cols):
                    continue
                direction = 3 * seat + dc + 1
                if cells[r2][c2] == ".":
                    legal.append(((r * cols + c) * 6 + direction) * 2)
                elif dc != 0 and cells[r2][c2] == enemy:
                    legal.append(((r * cols + c) * 6 + direction) * 2 + 1)
    return sorted(legal)


def reference_winner(board_rows, rows):
    width = len(str(rows))
    cells = [row[width:] for row in board_rows]
    if "b" in cells[rows - 1] or not any("w" in row for row in cells):
        return BLACK
    if "w" in cells[0] or not any("b" in row for row in cells):
        return WHITE
    return None


def test_random_playouts_follow_the_reference_rules():
    spec = game_spec("breakthrough")
    for seed in range(240):
        rng = random.Random(seed)
        rows, cols = BOARDS[seed % len(BOARDS)]
        num_ids = rows * cols * 12
        game = load_game("breakthrough", {"rows": rows, "columns": cols})
        state = game.new_initial_state()
        while True:
            board = state.observation_dict(BLACK)["board"]
            winner = reference_winner(board, rows)
            assert state.is_terminal() == (winner is not None), (seed, board)
            if state.is_terminal():
                break
            seat = state.current_player()
            assert seat == state.move_number % 2
            legal = state.legal_actions()
            assert legal and legal == reference_legal(board, rows, cols, seat), (seed, board)
            for action in legal:
                child = state.clone()
                child.apply_action(action)
                assert child.move_number == state.move_number + 1
            illegal = [a for a in rng.sample(range(num_ids), min(num_ids, 40)) if a not in legal]
            for action in [-1, num_ids] + illegal:
                assert not state.is_legal(seat, action)
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(action)
            for player in (BLACK, WHITE):
                view = json.loads(json.dumps(state.observation_dict(player)))
                rebuilt = game.state_from_view(player, view)
                assert rebuilt.observation_string(player) == state.observation_string(player)
                assert rebuilt.legal_actions() == legal and rebuilt.current_player() == seat
            state.apply_action(rng.choice(legal))
            assert state.move_number <= max_game_length(rows, cols) <= spec.max_game_length
        returns = state.returns()
        assert sum(returns) == 0 and returns == ([1.0, -1.0] if winner == BLACK else [-1.0, 1.0])
        assert state.legal_actions() == [] and state.current_players() == []


def test_clones_are_independent_and_replays_are_deterministic():
    for seed in range(200):
        rng = random.Random(seed)
        state = load_game("breakthrough", preset="gtbench").new_initial_state()
        for _ in range(rng.randrange(10)):
            state.apply_action(rng.choice(state.legal_actions()))
        views = (state.history(), state.observation_string(0), state.observation_dict(1), state.legal_actions())
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), state.observation_string(0), state.observation_dict(1),
                state.legal_actions()) == views
        replay = load_game("breakthrough", preset="gtbench").new_initial_state()
        for _, action in clone.history():
            replay.apply_action(action)
        assert replay.returns() == clone.returns() and replay.observation_dict(0) == clone.observation_dict(0)


def test_state_from_view_refuses_a_history_out_of_turn():
    game = load_game("breakthrough", preset="gtbench")
    with pytest.raises(ValueError):
        game.state_from_view(BLACK, {"history": [[1, 38]]})
    with pytest.raises(IllegalActionError):
        game.state_from_view(BLACK, {"history": [[0, 39]]})
