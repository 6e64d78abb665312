"""Santorini against the `santorinai` board that GameBench wraps: hundreds of random games played in
both from the same choices, driven the way GameBench's match loop drives the board (placements A, X,
B, Y; then player 1, player 2, ... until the board reports a winner or a player's pawn to play has no
play). At every decision the two must agree on who decides and on the list of GameBench action ids, in
order; after every step on the levels and the pawns; at the end on the scores."""

from __future__ import annotations

import ast
import random

from santorinai import board as santorinai_board    # installed by scripts/bootstrap.sh, without its GUI

from arena_engines import load_game

GAMES = 400
# GameBench names the step from one square to the next by (row change, column change).
STEP_NAMES = {(-1, -1): "northwest", (-1, 0): "north", (-1, 1): "northeast", (0, -1): "west", (0, 1): "east",
              (1, -1): "southwest", (1, 0): "south", (1, 1): "southeast"}
LETTERS = {1: "A", 2: "X", 3: "B", 4: "Y"}      # santorinai's pawn numbers


def step_name(start, end) -> str:
    return STEP_NAMES[(end[0] - start[0], end[1] - start[1])]


def gamebench_match(choose):
    """GameBench's Santorini match loop over a santorinai board. choose(team, board, action_ids) returns
    one of the ids; the scores of teams 1 and 2 come back with the final board."""
    board = santorinai_board.Board(2)
    for _ in range(2):
        for team in (1, 2):
            pawn = board.get_playing_pawn()
            ids = [f"{position}" for position in board.get_possible_movement_positions(pawn)]
            placed, why = board.place_pawn(ast.literal_eval(choose(team, board, ids)))
            assert placed, why
    while not board.is_game_over():
        for team in (1, 2):
            pawn = board.get_playing_pawn()
            plays = {}
            if pawn.player_number == team:
                for move, build in board.get_possible_movement_and_building_positions(pawn):
                    plays[f"Move {step_name(pawn.pos, move)}, build {step_name(move, build)}"] = (move, build)
            if not plays:
                return ((0.0, 1.0) if team == 1 else (1.0, 0.0)), board
            played, why = board.play_move(*plays[choose(team, board, list(plays))])
            assert played, why
    return ((1.0, 0.0) if board.winner_player_number == 1 else (0.0, 1.0)), board


def assert_same_position(state, board):
    view = state.observation_dict(0)
    assert view["levels"] == board.board
    for pawn in board.pawns:
        where = None if pawn.pos == (None, None) else list(pawn.pos)
        assert view["pawns"][LETTERS[pawn.number]] == where


def play_both(pick):
    """One game in both; pick(ids) chooses the index of an action. Returns the engine's final state,
    GameBench's scores and the number of decisions compared."""
    state = load_game("santorini", preset="gamebench").new_initial_state()
    compared = 0

    def choose(team, board, ids):
        nonlocal compared
        assert not state.is_terminal()
        seat = state.current_player()
        assert seat == team - 1
        legal = state.legal_actions(seat)
        assert [state.action_to_string(seat, a) for a in legal] == ids
        assert_same_position(state, board)
        index = pick(ids)
        state.apply_action(legal[index])
        compared += 1
        return ids[index]

    scores, board = gamebench_match(choose)
    assert state.is_terminal()
    assert_same_position(state, board)
    return state, scores, compared


def test_random_games_agree_with_santorinai_move_for_move():
    endings = {"climbed": 0, "stuck": 0}
    decisions = 0
    for seed in range(GAMES):
        rng = random.Random(seed)
        state, scores, compared = play_both(lambda ids: rng.randrange(len(ids)))
        assert state.returns() == list(scores), seed
        endings[state.result_details()["reason"]] += 1
        decisions += compared
    # Both ways of winning were compared, over thousands of decisions.
    assert endings["climbed"] > 0 and endings["stuck"] > 0, endings
    assert decisions > 20 * GAMES, decisions
    print(f"{GAMES} games, {decisions} decisions compared, endings {endings}")


def test_pawn_a_boxed_in_by_the_placements_loses_in_both():
    # A in the corner, the other three pawns on its three neighbours: A cannot move on player 1's first turn.
    script = iter(["(0, 0)", "(0, 1)", "(1, 0)", "(1, 1)"])
    state, scores, compared = play_both(lambda ids: ids.index(next(script)))
    assert scores == (0.0, 1.0) and state.returns() == [0.0, 1.0]
    assert compared == 4 and state.result_details()["reason"] == "stuck"
