"""Suites as configuration: the tournaments a suite makes for an agent, in the order they start."""

from __future__ import annotations

from arena_server.suites import SUITES


def test_gtbench_starts_its_longest_matches_first_and_each_game_keeps_its_seed():
    # A match's decisions are sequential: Pig's longest match alone outlasts the rest of a run at
    # 128 requests in flight, so its tournament starts first. Seeds follow the suite's own order.
    gtbench = SUITES["gtbench"]
    configs = gtbench.tournaments("candidate", matches_per_pairing=2, seed=100)
    assert [c.game_id for c in configs][:4] == ["pig", "iterated_prisoners_dilemma", "breakthrough", "connect_four"]
    assert sorted(c.game_id for c in configs) == sorted(g.game_id for g in gtbench.games)
    assert {c.game_id: c.seed for c in configs} == {g.game_id: 100 + i for i, g in enumerate(gtbench.games)}
