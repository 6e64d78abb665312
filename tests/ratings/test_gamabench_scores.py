"""The gamabench suite score over GAMA-Bench's released logs: every default run of the eight games is
read by its engine's converter, replayed through the engine, stored as a match record, and scored by
the same code that scores the arena's own matches; the per-run Overall and its mean and std must be
the paper's (Table 5's Overall row). The logs are read in place (GPL-3.0, never copied)."""

from __future__ import annotations

import pytest

from arena_engines import game_module, load_game
from arena_engines.core import SIMULTANEOUS
from arena_server.ratings.gamabench_scores import GAMES, gamabench_rows, runs_of, scores_by_agent, summary
from arena_server.store import MatchRecord

from ..engines.gamabench_data import expected, five_run_group, load_run

# expected.json's game keys.
KEYS = {"guess_two_thirds_average": "guess_2_3", "el_farol_bar": "el_farol_bar", "divide_the_dollar": "divide_dollar",
        "public_goods": "public_goods", "diners_dilemma": "diners_dilemma", "sealed_bid_auction": "sealed_bid_auction",
        "battle_royale": "battle_royale", "pirate_game": "pirate_game"}
MODEL = "gpt-3.5-turbo-0125"


def replayed_record(game_id: str, run: dict, index: int) -> MatchRecord:
    """A finished match record of the released run, replayed through the engine."""
    converted = game_module(game_id).gamabench_history(run)
    parameters, history = converted[0], converted[1]
    messages = converted[2] if len(converted) > 2 else {}
    state = load_game(game_id, parameters).new_initial_state()
    for position, (seat, action) in enumerate(history):
        if seat == SIMULTANEOUS:
            state.apply_actions(list(action), messages.get(position))
        else:
            state.apply_action(action, messages.get(position))
    assert state.is_terminal(), (game_id, index)
    players = [{"seat": i, "agent_name": MODEL, "team": i, "house_agent": False} for i in range(state.num_players)]
    return MatchRecord(match_id=f"{game_id}-{index}", tournament_id="", game_id=game_id, rules_version="1",
                       parameters=state.game.parameters, players=players, seed=0, time_control={}, failure_policy={},
                       status="finished", result={"reason": "normal", "returns": state.returns(),
                                                  "details": state.result_details()},
                       created_at=float(index), ended_at=float(index))


@pytest.fixture(scope="module")
def released_runs() -> list[MatchRecord]:
    records = []
    for game_id in GAMES:
        for index, file in enumerate(five_run_group(KEYS[game_id])["files"]):
            records.append(replayed_record(game_id, load_run({"file": file}), index))
    return records


def test_each_game_score_is_the_papers_five_run_mean_and_std(released_runs):
    per_game = scores_by_agent(released_runs)[MODEL]
    table = summary(per_game)
    for game_id in GAMES:
        group = five_run_group(KEYS[game_id])
        assert len(runs_of(table, game_id)) == 5
        assert table[game_id] == pytest.approx(group["mean_recomputed"], abs=1e-5), game_id
        assert table[f"{game_id}_std"] == pytest.approx(group["std_recomputed_ddof1"], abs=1e-5), game_id


def test_overall_per_run_mean_and_std_are_table_5s(released_runs):
    overall = expected()["overall_default"]
    (row,) = gamabench_rows(released_runs)
    assert row.agent_name == MODEL and row.matches == 40
    per_run = [row.extra[f"overall_run_{i}"] for i in range(1, 6)]
    assert per_run == pytest.approx(overall["per_run_recomputed"], abs=1e-5)
    assert per_run == pytest.approx(overall["per_run_paper"], abs=overall["tolerance_vs_paper"]["per_run"])
    assert row.rating == pytest.approx(overall["mean_recomputed"], abs=1e-5)
    assert row.extra["overall_std"] == pytest.approx(overall["std_recomputed_ddof1"], abs=1e-5)
    assert abs(row.rating - overall["mean_paper"]) <= overall["tolerance_vs_paper"]["mean"]


def test_unscored_settings_and_mixed_matches_do_not_count(released_runs):
    explicit = [r for r in released_runs if r.game_id == "el_farol_bar"][0]
    moved = MatchRecord(**{**vars(explicit), "parameters": {**explicit.parameters, "mode": "explicit"}})
    mixed = MatchRecord(**{**vars(explicit), "players": [{**p, "agent_name": f"a{p['seat'] % 2}"}
                                                          for p in explicit.players]})
    assert scores_by_agent([moved, mixed]) == {}
    # Without every game, the row has no Overall and ranks after agents that have one.
    partial = [MatchRecord(**{**vars(r), "players": [{**p, "agent_name": "partial"} for p in r.players]})
               for r in released_runs if r.game_id != "pirate_game"]
    rows = gamabench_rows(released_runs + partial)
    assert [r.agent_name for r in rows] == [MODEL, "partial"] and "overall" not in rows[1].extra
