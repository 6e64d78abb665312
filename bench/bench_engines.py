"""Engines and MCTS against OpenSpiel, in one run, per game that both implement.

    .venv/bin/pip install -e '.[bench]'        # open-spiel
    .venv/bin/python bench/bench_engines.py [--games tic_tac_toe,connect_four] [--runs 5]

For every registry game that OpenSpiel also has (parameters mapped so both play the same game):

  1. Python-level random playouts per second: the same driver loop (legal_actions(), random.choice,
     apply_action / apply_actions, chance sampled from chance_outcomes()) over the arena's State and
     over pyspiel's. Ratio = arena / OpenSpiel (target >= 1.0).
  2. C-level random playouts per second: arena_engines.mcts.random_playouts, the loop MCTS rollouts
     run (pyspiel exposes no native playout loop to compare with; the C++ MCTS below includes one).
  3. MCTS time per move at 1000 simulations from the opening (the first decision; a dealt opening
     for card and dice games), UCT c = 2, one random rollout per leaf, solver on: arena MCTSBot against
     OpenSpiel's C++ pyspiel.MCTSBot (target: within 1.5x) and against OpenSpiel's Python MCTSBot,
     which GTBench used (target: at least 15x faster). Both OpenSpiel bots search the true state, so
     the arena bot runs with determinize=False here; its determinized time (the house agent's
     setting in imperfect-information games) is printed alongside.

Every figure is the median of --runs runs. Mean playout lengths of both engines are printed as a
check that the mapped games agree. Simultaneous-move games have no MCTS row: OpenSpiel's MCTS
searches sequential games only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from arena_engines import game_ids, load_game
from arena_engines.mcts import MCTSBot, random_playouts


@dataclass(frozen=True)
class Pairing:
    """How to load the same game in both: arena preset/parameters and OpenSpiel's name/parameters."""

    preset: str | None = None
    parameters: dict = field(default_factory=dict)
    openspiel: str = ""
    openspiel_parameters: dict = field(default_factory=dict)
    # Whether the uniform random players make games of different lengths, so that a rate per move
    # (playouts per second times mean moves) is printed too.
    per_move: bool = False


PAIRINGS = {
    "tic_tac_toe": Pairing(openspiel="tic_tac_toe"),
    "connect_four": Pairing(openspiel="connect_four"),
    "breakthrough": Pairing(parameters={"rows": 8, "columns": 8}, openspiel="breakthrough",
                            openspiel_parameters={"rows": 8, "columns": 8}),
    "nim": Pairing(parameters={"piles": [1, 3, 5, 7], "misere": True}, openspiel="nim",
                   openspiel_parameters={"pile_sizes": "1;3;5;7", "is_misere": True}),
    "pig": Pairing(parameters={"target": 100, "die_sides": 6, "horizon": 1000}, openspiel="pig",
                   openspiel_parameters={"players": 2, "winscore": 100, "diceoutcomes": 6, "horizon": 1000}),
    "kuhn_poker": Pairing(openspiel="kuhn_poker", openspiel_parameters={"players": 2}),
    "liars_dice": Pairing(parameters={"dice_per_player": 1, "faces": 6}, openspiel="liars_dice",
                          openspiel_parameters={"players": 2, "numdice": 1, "dice_sides": 6}),
    # OpenSpiel's is a Python game (open_spiel.python.games); simultaneous in both.
    "iterated_prisoners_dilemma": Pairing(preset="gtbench_2p", openspiel="python_iterated_prisoners_dilemma",
                                          openspiel_parameters={"termination_probability": 0.125,
                                                                "max_game_length": 9999}),
    # OpenSpiel bids in turn with hidden bids, the arena bids simultaneously; bids 0..v-1 in both.
    "sealed_bid_auction": Pairing(preset="gtbench_code", openspiel="first_sealed_auction",
                                  openspiel_parameters={"players": 2, "max_value": 10}),
    "negotiation": Pairing(preset="gtbench", openspiel="negotiation"),
    # The base game in both: Queen, 2 Beetles, 2 Spiders, 3 Grasshoppers, 3 Ants, no expansion bugs.
    # OpenSpiel's board is bounded (a piece leaving it ends the game as a draw): its largest radius, 14.
    "hive": Pairing(preset="standard", openspiel="hive",
                    openspiel_parameters={"uses_mosquito": False, "uses_ladybug": False, "uses_pillbug": False,
                                          "board_size": 14},
                    # OpenSpiel lists one action per piece copy (wA1, wA2, wA3) and per reference tile, so
                    # its random player favours some moves and ends games sooner.
                    per_move=True),
}

SIMULATIONS = 1000
UCT_C = 2.0


# ---- one driver for both engines ------------------------------------------------------------------
def random_playout(state, num_players: int, rng: random.Random) -> int:
    """Plays `state` to the end with uniformly random legal actions; returns the number of moves."""
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            u, acc = rng.random(), 0.0
            chosen = outcomes[-1][0]
            for action, probability in outcomes:
                acc += probability
                if u < acc:
                    chosen = action
                    break
            state.apply_action(chosen)
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(num_players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        moves += 1
    return moves


def playouts_per_second(new_state, num_players: int, budget: float, seed: int) -> tuple[float, float]:
    """(playouts per second, mean moves per playout) over about `budget` seconds."""
    rng = random.Random(seed)
    count = moves = 0
    start = time.perf_counter()
    while True:
        moves += random_playout(new_state(), num_players, rng)
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return count / elapsed, moves / count


def opening(state, seed: int):
    """The first decision node from `state`, chance outcomes sampled with a fixed seed."""
    rng = random.Random(seed)
    while state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, weights=probabilities)[0])
    return state


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def median(values) -> float:
    return statistics.median(values)


# ---- per game -------------------------------------------------------------------------------------
def bench_game(game_id: str, pairing: Pairing, runs: int, budget: float, python_mcts_runs: int) -> dict:
    import pyspiel
    from open_spiel.python.algorithms import mcts as python_mcts

    ours = load_game(game_id, pairing.parameters, preset=pairing.preset)
    theirs = pyspiel.load_game(pairing.openspiel, pairing.openspiel_parameters)
    n = ours.num_players
    row = {"game": game_id, "openspiel": pairing.openspiel, "per_move": pairing.per_move}

    # 1. Python-level playouts, interleaved run by run so that machine noise hits both alike.
    ours_rates, theirs_rates, ours_lengths, theirs_lengths = [], [], [], []
    for run in range(runs):
        rate, length = playouts_per_second(ours.new_initial_state, n, budget, seed=run)
        ours_rates.append(rate)
        ours_lengths.append(length)
        rate, length = playouts_per_second(theirs.new_initial_state, n, budget, seed=run)
        theirs_rates.append(rate)
        theirs_lengths.append(length)
    row["py_ours"], row["py_theirs"] = median(ours_rates), median(theirs_rates)
    row["len_ours"], row["len_theirs"] = median(ours_lengths), median(theirs_lengths)

    sequential = theirs.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    simultaneous_here = ours.spec.dynamics == "simultaneous"

    # 2. C-level playouts from the initial state, about `budget` seconds per run.
    count = max(100, int(row["py_ours"] * budget * 10))
    c_rates = []
    for run in range(runs):
        state = ours.new_initial_state()
        c_rates.append(count / timed(lambda: random_playouts(state, count, run)))
    row["c_ours"] = median(c_rates)

    # 3. MCTS from the opening, when both engines are sequential.
    if sequential and not simultaneous_here:
        times = {"ours": [], "ours_determinized": [], "cpp": [], "python": []}
        for run in range(runs):
            state = opening(ours.new_initial_state(), run)
            bot = MCTSBot(ours, simulations=SIMULATIONS, uct_c=UCT_C, seed=run, solve=True, determinize=False)
            times["ours"].append(timed(lambda: bot.step(state)))
            if ours.spec.information == "imperfect":
                bot = MCTSBot(ours, simulations=SIMULATIONS, uct_c=UCT_C, seed=run, solve=True)
                times["ours_determinized"].append(timed(lambda: bot.step(state)))
            their_state = opening(theirs.new_initial_state(), run)
            cpp = pyspiel.MCTSBot(theirs, pyspiel.RandomRolloutEvaluator(1, run), UCT_C, SIMULATIONS, 1000, True,
                                  run, False)
            times["cpp"].append(timed(lambda: cpp.step(their_state)))
            if run < python_mcts_runs:
                rng = np.random.RandomState(run)
                py = python_mcts.MCTSBot(theirs, UCT_C, SIMULATIONS, python_mcts.RandomRolloutEvaluator(1, rng),
                                         solve=True, random_state=rng)
                times["python"].append(timed(lambda: py.step(their_state)))
        for key, values in times.items():
            if values:
                row["mcts_" + key] = median(values)
    return row


# ---- report ----------------------------------------------------------------------------------------
def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "n/a"


def seconds(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    return f"{value * 1e3:.2f} ms" if value < 1 else f"{value:.2f} s"


def report(rows: list[dict]) -> str:
    lines = [
        "Random playouts per second: Python-level step API, the same driver for both; then the arena's",
        "C-level loop (random_playouts)",
        "| game | OpenSpiel game | arena | OpenSpiel | arena / OpenSpiel | mean moves (arena / OpenSpiel) "
        "| arena C level | C level / OpenSpiel |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['game']} | {r['openspiel']} | {r['py_ours']:,.0f} | {r['py_theirs']:,.0f} | "
                     f"{ratio(r['py_ours'], r['py_theirs'])} | {r['len_ours']:.1f} / {r['len_theirs']:.1f} | "
                     f"{r['c_ours']:,.0f} | {ratio(r['c_ours'], r['py_theirs'])} |")
    for r in rows:
        if r["per_move"]:
            ours, theirs = r["py_ours"] * r["len_ours"], r["py_theirs"] * r["len_theirs"]
            lines.append(f"{r['game']}: random games of different mean lengths; per move, Python level: arena "
                         f"{ours:,.0f} moves/s, OpenSpiel {theirs:,.0f} moves/s, {ratio(ours, theirs)}; arena C "
                         f"level {r['c_ours'] * r['len_ours']:,.0f} moves/s, "
                         f"{ratio(r['c_ours'] * r['len_ours'], theirs)}")
    lines += [
        "",
        f"MCTS time per move, {SIMULATIONS} simulations from the opening (UCT c = {UCT_C:g}, random rollouts, solver)",
        "| game | arena | arena determinized | OpenSpiel C++ | C++ / arena | OpenSpiel Python | Python / arena |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "mcts_ours" in r:
            lines.append(
                f"| {r['game']} | {seconds(r['mcts_ours'])} | {seconds(r.get('mcts_ours_determinized'))} | "
                f"{seconds(r['mcts_cpp'])} | {ratio(r['mcts_cpp'], r['mcts_ours'])} | "
                f"{seconds(r.get('mcts_python'))} | {ratio(r.get('mcts_python'), r['mcts_ours'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", help="comma-separated game ids (default: every game both have)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure; medians are reported (default 5)")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per playout-rate run (default 0.5)")
    parser.add_argument("--python-mcts-runs", type=int, default=3,
                        help="runs of OpenSpiel's slow Python MCTS per game (default 3)")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
        import open_spiel.python.games  # noqa: F401  (registers the Python games, e.g. the IPD)
    except ImportError:
        print("bench_engines needs OpenSpiel: pip install open-spiel (or the 'bench' extra)", file=sys.stderr)
        return 2
    wanted = args.games.split(",") if args.games else [g for g in game_ids() if g in PAIRINGS]
    rows = []
    for game_id in wanted:
        print(f"benchmarking {game_id} ...", file=sys.stderr, flush=True)
        rows.append(bench_game(game_id, PAIRINGS[game_id], args.runs, args.budget, args.python_mcts_runs))
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
