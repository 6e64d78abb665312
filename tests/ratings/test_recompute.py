"""Ratings are a function of the match log: recomputed after a restart they are identical."""

from __future__ import annotations

import dataclasses

from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.store import Store

from .helpers import gamebench_records, record

QUERIES = [
    LeaderboardQuery(),
    LeaderboardQuery(method="bradley_terry", bt=BTOptions(resamples=300, seed=9)),
    LeaderboardQuery(method="bradley_terry", weighting="match", ties="half", scoring="share",
                     bt=BTOptions(resamples=200, anchor="random", anchor_rating=1000, scale=173.7)),
    LeaderboardQuery(method="bradley_terry", game_id="hive", bt=BTOptions(resamples=200)),
    LeaderboardQuery(preset="gamebench_code"),
    LeaderboardQuery(method="trueskill", trueskill_orders=3, trueskill_seed=4),
    LeaderboardQuery(preset="llmarena"),
    LeaderboardQuery(method="elo"),
    LeaderboardQuery(method="nra", nra_opponent="random"),
    LeaderboardQuery(method="suite_score", suite="gamebench"),
]


def _snapshot(matches):
    return [[dataclasses.astuple(row) for row in compute_leaderboard(matches, q).rows] for q in QUERIES]


def test_recomputing_from_the_log_after_a_restart_gives_identical_ratings(backend):
    path = backend.database()
    store = Store(path)
    records = gamebench_records()
    for k, r in enumerate(records):
        r.ended_at = 1_700_000_000.0 + k
        store.add_match(r)
    # A few arena matches as well: three players, a team game, a pending (uncounted) match.
    store.add_match(record("x1", ["random", "human", "gpt-4"], [1, 2, 0], ended=1_800_000_000.0))
    store.add_match(record("x2", ["gpt-3", "gpt-3", "gpt-4", "gpt-4"], [0, 0, 1, 1], teams=[0, 0, 1, 1],
                           ended=1_800_000_001.0))
    pending = record("x3", ["gpt-3", "human"], [1, 0], ended=1_800_000_002.0)
    pending.status, pending.result, pending.ended_at = "pending", None, None
    store.add_match(pending)
    before = list(store.finished_matches())
    first = _snapshot(before)
    store.close()

    reopened = Store(path)
    try:
        after = list(reopened.finished_matches())
        assert [m.match_id for m in after] == [m.match_id for m in before]
        assert len(after) == 279
        assert _snapshot(after) == first
    finally:
        reopened.close()
