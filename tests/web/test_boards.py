"""Boards drawn from seats' views: along random playouts of every game with a board, each legal action is
one clickable path the page can resolve to it alone, and the cells it clicks agree with the position
(an empty cell for a mark, the mover's own pawn first, a match that is there to take)."""

from __future__ import annotations

import random

import arena_engines
import pytest

from arena_server.web.boards import ADAPTERS, board_view

PLAYOUTS = 6


def positions(game_id: str, seed: int):
    """(state, seat to move, legal [(id, text)]) along one random playout."""
    rng = random.Random(seed)
    state = arena_engines.load_game(game_id).new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        seat = state.current_player()
        legal = [(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)]
        yield state, seat, legal
        state.apply_action(rng.choice(legal)[0])


def cell(board, path_step):
    row, col = path_step
    return board["cells"][row][col] if row is not None else None


@pytest.mark.parametrize("game_id", sorted(ADAPTERS))
def test_every_legal_action_is_one_clickable_path_the_page_resolves_to_it_alone(game_id):
    checked = 0
    for seed in range(PLAYOUTS):
        for state, seat, legal in positions(game_id, seed):
            board = board_view(game_id, state.observation_dict(seat), legal)
            assert board is not None
            moves = board["moves"]
            assert sorted(m["id"] for m in moves) == sorted(a for a, _ in legal)
            paths = [tuple(map(tuple, m["path"])) for m in moves]
            assert len(set(paths)) == len(paths), "two actions share a path"
            for path in paths:
                assert not any(other != path and other[:len(path)] == path for other in paths), \
                    "a path that is the start of another could never be played"
                for row, col in path:
                    assert (row is None or 0 <= row < board["rows"]) and 0 <= col < board["cols"]
            checked += len(moves)
    assert checked > 50


def test_the_cells_clicked_agree_with_the_position():
    for state, seat, legal in positions("tic_tac_toe", 1):
        board = board_view("tic_tac_toe", state.observation_dict(seat), legal)
        for move in board["moves"]:
            assert cell(board, move["path"][0])["t"] == ""            # a mark goes on an empty cell
    for state, seat, legal in positions("breakthrough", 2):
        data = state.observation_dict(seat)
        board = board_view("breakthrough", data, legal)
        own = "black" if data["color"] == "black" else "white"
        for move in board["moves"]:
            assert cell(board, move["path"][0])["c"] == own           # the mover's pawn, then
            assert cell(board, move["path"][1])["c"] != own           # a square it does not hold
    for state, seat, legal in positions("nim", 3):
        board = board_view("nim", state.observation_dict(seat), legal)
        for move in board["moves"]:
            assert cell(board, move["path"][0])["c"] == "match"       # a match that is there
    for state, seat, legal in positions("connect_four", 4):
        board = board_view("connect_four", state.observation_dict(seat), legal)
        for move in board["moves"]:
            assert board["cells"][0][move["path"][0][1]]["t"] == ""   # a column with room
    for state, seat, legal in positions("santorini", 5):
        data = state.observation_dict(seat)
        board = board_view("santorini", data, legal)
        for move in board["moves"]:
            first = cell(board, move["path"][0])
            if data["phase"] == "placement":
                assert first["c"].split()[-1] not in ("mine", "theirs")     # on a free square
            else:
                assert first["c"].endswith("mine") and len(move["path"]) == 3   # own pawn, to, build


def test_games_without_an_adapter_get_the_generic_view_and_a_strange_view_no_board():
    assert board_view("kuhn_poker", {"card": "K"}) is None
    assert board_view("tic_tac_toe", {"no": "board"}) is None
    board = board_view("tic_tac_toe", {"board": [["X", "", ""], ["", "O", ""], ["", "", ""]]})
    assert "moves" not in board and board["cells"][1][1] == {"t": "O", "c": "o"}
