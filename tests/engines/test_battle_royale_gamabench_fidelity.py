"""Fidelity to GAMA-Bench's released Battle Royale runs (GPL-3.0 data, read in place, never copied).

The data lives in ../shared/data/gamabench relative to the repository root, or under
$ARENA_SHARED_DATA/gamabench. Every released run (the five Table 5 runs and the three Table 9 hit-rate
variants) is converted with `gamabench_history` and replayed through the engine; each turn is checked
against the log: the shooter, the players alive at its start with their hit rates, the action and
target, the hit, the elimination and the players left, plus the shooter's own answer record. The
finished state is then scored with `gamabench_score` against expected.json, alone and by group.
"""

from __future__ import annotations

import pytest

from arena_engines import load_game
from arena_engines.battle_royale import gamabench_history, gamabench_score

from .gamabench_data import (check_five_runs, check_group, check_score, default_runs, entries, entry_id, load_run,
                             setting_id, table9_entries, table9_group, table9_variant)

GAME = "battle_royale"


def seat_of(name: str) -> int:
    prefix, _, index = name.partition("_")
    assert prefix == "player" and index.isdigit(), name
    return int(index)


def replay(entry: dict):
    """The finished engine state of a released run, checked turn by turn against its log."""
    run = load_run(entry)
    parameters, history = gamabench_history(run)
    assert (parameters["base_hit_rate"], parameters["hit_rate_step"]) == \
        (entry["setting"]["base_hit_rate"], entry["setting"]["interval"])
    game = load_game(GAME, parameters)
    state = game.new_initial_state()
    for seat, action in history:
        assert seat == state.current_player(), "the log's shooter is not the engine's next shooter"
        state.apply_action(action)
    assert state.is_terminal()

    details = state.result_details()
    records = run["round_records"]
    assert len(details["turns"]) == len(records)
    for turn, record in zip(details["turns"], records):
        assert turn["shooter"] == int(record["player_shooting"])
        # The log's "initial_players" are the players alive at the start of the turn, in shooting order.
        assert [[f"player_{s}", details["hit_rates"][s]] for s in turn["alive_before"]] == record["initial_players"]
        if record["action"] == "miss":
            assert (turn["action"], turn["target"], turn["hit"]) == ("miss", None, None)
            assert record["shot_player"] == "null" and record["out"] is False
        else:
            assert (turn["action"], turn["target"], turn["hit"]) == ("shoot", int(record["shot_player"]), record["out"])
        assert turn["players_left"] == len(record["initial_players"]) - (1 if turn["hit"] else 0)
        assert record["responses"] == [record["shot_player"]]

    # Each player's own answers are the turns it shot in.
    for seat, player in enumerate(run["player_data"]):
        assert player["records"] == [r["shot_player"] for r in records if int(r["player_shooting"]) == seat]
    # Elimination order: the log's removed_player_info is the final list, shared by every turn.
    eliminated = sorted((t, s) for s, t in enumerate(details["eliminated_in_turn"]) if t is not None)
    assert [f"player_{s}" for _, s in eliminated] == records[-1]["removed_player_info"]
    # Every released game ends with one survivor, within the cap.
    assert details["winner"] is not None and not details["turn_limit_reached"]
    assert state.returns() == [1.0 if s == details["winner"] else 0.0 for s in range(game.num_players)]
    return game, state


def check_run(entry: dict) -> float:
    game, state = replay(entry)
    result = gamabench_score(game.parameters, state.result_details())
    assert result["correct_turns"] == entry["raw"]["correct_turns"]
    assert result["turns"] == entry["raw"]["turns"]
    assert result["S7"] == pytest.approx(entry["raw"]["S7"], abs=1e-6)
    check_score(result["score"], entry)
    assert state.result_details()["gamabench"] == result
    return result["score"]


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_and_score(entry):
    check_run(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    check_five_runs(GAME, check_run)


@pytest.mark.parametrize("entry", table9_entries(GAME), ids=setting_id)
def test_table9_hit_rate_variants_replay_and_score(entry):
    check_run(entry)


def test_table9_group_mean_and_std():
    group, runs = table9_group(GAME, 3)
    check_group([check_run(entry) for entry in runs], group)


@pytest.mark.parametrize("preset,base,step", [("gamabench", 35, 5), ("gamabench_h51_60", 51, 1),
                                              ("gamabench_h10_100", 10, 10)])
def test_each_table9_setting_is_a_preset(preset, base, step):
    settings = {(e["setting"]["base_hit_rate"], e["setting"]["interval"]) for e in table9_variant(GAME)["entries"]}
    assert (base, step) in settings
    parameters = load_game(GAME, preset=preset).parameters
    assert parameters == {"players": 10, "base_hit_rate": base, "hit_rate_step": step, "max_turns": 20}

