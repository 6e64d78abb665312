"""Santorini random playouts against `santorinai`, the board GameBench wraps (OpenSpiel has no Santorini).

    .venv/bin/python bench/bench_santorini.py [--seconds 5] [--runs 5]

Both play whole games from the empty board with uniformly random choices, the same rules
(tests/engines/test_santorini_santorinai.py checks them move for move):

  - santorinai: its Board driven the way GameBench's match loop drives it, without GameBench's text:
    place the four pawns at random legal squares, then for the pawn to play pick a random (move,
    build) pair from get_possible_movement_and_building_positions and play_move, until the board is
    over or the pawn to play has no play.
  - arena, Python level: the same driver loop over the engine's State (legal_actions, random.choice,
    apply_action), i.e. what a Python agent or harness pays per move.
  - arena, C level: arena_engines.mcts.random_playouts, the loop the native MCTS runs for rollouts.

Prints games per second (median of --runs runs of --seconds each), mean plies per game as a check
that both play the same game, and the ratios arena / santorinai.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from santorinai import board as santorinai_board

from arena_engines import load_game
from arena_engines.mcts import random_playouts


def santorinai_game(rng: random.Random) -> int:
    board = santorinai_board.Board(2)
    plies = 0
    for _ in range(4):
        pawn = board.get_playing_pawn()
        placed, why = board.place_pawn(rng.choice(board.get_possible_movement_positions(pawn)))
        assert placed, why
        plies += 1
    while not board.is_game_over():
        pawn = board.get_playing_pawn()
        plays = board.get_possible_movement_and_building_positions(pawn)
        if not plays:
            break
        played, why = board.play_move(*rng.choice(plays))
        assert played, why
        plies += 1
    return plies


def arena_game(game, rng: random.Random) -> int:
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal():
        player = state.current_player()
        state.apply_action(rng.choice(state.legal_actions(player)))
        plies += 1
    return plies


def rate(play, seconds: float) -> tuple[float, float]:
    """Games per second and mean plies per game over `seconds` of play."""
    games = plies = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        plies += play()
        games += 1
    return games / elapsed, plies / games


def c_level_rate(game, seconds: float) -> float:
    state = game.new_initial_state()
    count = 100
    while True:      # grow the batch until one call takes a measurable time
        start = time.perf_counter()
        random_playouts(state, count, seed=count)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed
        count *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default %(default)g)")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement; the median is printed")
    args = parser.parse_args()

    game = load_game("santorini", preset="gamebench")
    rng = random.Random(1)
    peer = [rate(lambda: santorinai_game(rng), args.seconds) for _ in range(args.runs)]
    python = [rate(lambda: arena_game(game, rng), args.seconds) for _ in range(args.runs)]
    native = [c_level_rate(game, args.seconds) for _ in range(args.runs)]
    peer_rate, python_rate = statistics.median(r for r, _ in peer), statistics.median(r for r, _ in python)
    native_rate = statistics.median(native)
    print(f"santorinai (GameBench's board), Python driver: {peer_rate:10,.0f} games/s, "
          f"{statistics.mean(p for _, p in peer):.1f} plies/game")
    print(f"arena santorini, Python driver:                {python_rate:10,.0f} games/s, "
          f"{statistics.mean(p for _, p in python):.1f} plies/game   ratio {python_rate / peer_rate:.1f}x")
    print(f"arena santorini, C-level playouts:             {native_rate:10,.0f} games/s"
          f"                      ratio {native_rate / peer_rate:.1f}x")


if __name__ == "__main__":
    main()
