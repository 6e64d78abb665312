"""LLMArena's scores on hand-made match records: TrueSkill μ per environment with LLMArena's settings,
the undercover win rate, mean returns, the normalised table (best = 100) and which matches count."""

from __future__ import annotations

import pytest
import trueskill

from arena_engines import game_spec
from arena_server.ratings.llmarena_scores import llmarena_rows, normalised_table, raw_scores
from arena_server.store import MatchRecord

_ids = iter(range(10**6))


def record(game_id: str, preset: str, agents: list[str], returns: list[float], *, details=None,
           parameters=None) -> MatchRecord:
    ranks = [1 + sum(o > r for o in returns) for r in returns]
    n = next(_ids)
    return MatchRecord(match_id=f"m{n}", tournament_id="", game_id=game_id, rules_version="1",
                       parameters=parameters or game_spec(game_id).resolve(preset),
                       players=[{"seat": i, "agent_name": a, "team": i, "house_agent": False}
                                for i, a in enumerate(agents)],
                       seed=0, time_control={}, failure_policy={}, status="finished",
                       result={"reason": "normal", "returns": returns, "ranks": ranks, "details": details or {}},
                       created_at=float(n), ended_at=float(n))


def test_trueskill_mu_per_environment_matches_the_library_with_winners_against_the_rest():
    matches = [record("tic_tac_toe", "llmarena", ["a", "b"], [1, -1]),
               record("tic_tac_toe", "llmarena", ["b", "a"], [0, 0]),
               record("tic_tac_toe", "llmarena", ["b", "a"], [1, -1])]
    env = trueskill.TrueSkill()
    a, b = env.create_rating(), env.create_rating()
    (a,), (b,) = env.rate([(a,), (b,)], ranks=[0, 1])
    (b,), (a,) = env.rate([(b,), (a,)], ranks=[0, 0])
    (b,), (a,) = env.rate([(b,), (a,)], ranks=[0, 1])
    raw = raw_scores(matches)
    assert raw["a"]["tic_tac_toe"] == pytest.approx(a.mu) and raw["b"]["tic_tac_toe"] == pytest.approx(b.mu)


def test_only_matches_under_llmarenas_presets_count():
    other_rules = record("connect_four", "llmarena", ["a", "b"], [1, -1],
                         parameters={**game_spec("connect_four").resolve("llmarena"), "rows": 5})
    gtbench_bid = record("sealed_bid_auction", "gtbench_blind", ["a", "b"], [3, 0])
    assert raw_scores([other_rules, gtbench_bid]) == {}
    bid = record("sealed_bid_auction", "llmarena_bid", ["a", "b"], [3, 0])
    assert raw_scores([bid]) == {"a": {"sealed_bid_auction": 3.0}, "b": {"sealed_bid_auction": 0.0}}


def test_undercover_win_rate_counts_only_games_as_the_undercover_and_secret_seats_do_not_matter():
    def undercover_game(agents, undercover, returns):
        roles = ["civilian"] * 5
        roles[undercover] = "undercover"
        parameters = {**game_spec("undercover").resolve("llmarena"), "undercover_seat": undercover}
        return record("undercover", "llmarena", agents, returns, details={"roles": roles, "undercover": undercover},
                      parameters=parameters)
    civilians = ["civ"] * 4
    matches = [undercover_game(civilians + ["me"], 4, [-1, -1, -1, -1, 1]),       # won as the undercover
               undercover_game(["me"] + civilians, 0, [-1, 1, 1, 1, 1]),          # lost as the undercover
               undercover_game(["me"] + civilians, 0, [1, -1, -1, -1, -1]),       # won
               undercover_game(civilians + ["me"], 2, [1, 1, -1, 1, 1])]          # "me" a civilian: not counted
    raw = raw_scores(matches)
    assert raw["me"]["undercover"] == pytest.approx(100 * 2 / 3)
    assert raw["civ"]["undercover"] == 0.0


def test_the_table_normalises_by_the_best_and_averages_complete_rows():
    raw = {"x": {"tic_tac_toe": 30.0, "hanabi": 2.0}, "y": {"tic_tac_toe": 20.0, "hanabi": 4.0}}
    table = normalised_table(raw)
    assert table["x"] == {"tic_tac_toe": 100.0, "hanabi": 50.0}
    assert table["y"]["tic_tac_toe"] == pytest.approx(200 / 3) and table["y"]["hanabi"] == 100.0
    assert "average" not in table["x"]
    everything = {g: 10.0 for g in ("tic_tac_toe", "connect_four", "texas_holdem_no_limit", "sealed_bid_auction",
                                    "negotiation", "undercover", "hanabi")}
    full = normalised_table({"x": everything, "y": {**everything, "hanabi": 5.0, "undercover": 0.0}})
    assert full["x"]["average"] == 100.0 and full["y"]["average"] == pytest.approx((500 + 50 + 0) / 7)
    # Nobody earned anything: the ratio is undefined and every score there is 0.
    assert normalised_table({"x": {"hanabi": 0.0}, "y": {"hanabi": 0.0}})["x"]["hanabi"] == 0.0


def test_rows_put_agents_with_every_environment_first():
    matches = [record("hanabi", "llmarena_small", ["solo", "solo"], [3, 3]),
               record("hanabi", "llmarena_small", ["solo", "solo"], [1, 1]),
               record("sealed_bid_auction", "llmarena_bid", ["solo", "other"], [2.5, 0.0])]
    rows = llmarena_rows(matches)
    solo = next(r for r in rows if r.agent_name == "solo")
    assert solo.extra["hanabi"] == 2.0 and solo.extra["sealed_bid_auction"] == 2.5 and solo.matches == 3
    assert [r.rank for r in rows] == [1, 2]
