"""A fresh local run, exported in GameBench's dataset format by `arena-server export --format
gamebench`, rates in one pool with GameBench's released 277 matches."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from arena_server.ratings.gamebench import records_from_gamebench, table2

from ..ratings.helpers import DATA
from .helpers import create_tournament, wait_tournament


def test_a_local_run_exported_in_gamebench_format_rates_with_the_released_matches(server_factory, tmp_path):
    server = server_factory()
    tournament_id = create_tournament(server, "santorini", ["random", "santorini_greedy"], games_per_pairing=3,
                                      preset="gamebench")
    assert wait_tournament(server, tournament_id).matches_finished == 6
    out = tmp_path / "ours.json"
    done = subprocess.run([sys.executable, "-m", "arena_server.cli", "export", "--local", "--db", str(server.db),
                           "--format", "gamebench", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "exported 6 matches in GameBench's format" in done.stderr

    ours = json.loads(out.read_text())
    assert len(ours) == 6
    for entry in ours:      # GameBench's entry: the game and each side's score, summing to 1
        assert entry.keys() == {"game", "random", "santorini_greedy"} and entry["game"] == "santorini"
        assert entry["random"] + entry["santorini_greedy"] == 1.0

    released = json.loads((DATA / "matches.json").read_text())
    union = records_from_gamebench(released + ours)
    assert len(union) == 277 + 6
    pool = table2(union, resamples=200)
    assert {"random", "santorini_greedy", "gpt-4", "human"} <= set(pool.agents)
    assert "santorini_greedy" in pool.played["santorini"]
    greedy, house_random = pool.agents.index("santorini_greedy"), pool.agents.index("random")
    # GameBench's random agent and ours share the name, so our matches join its record in one rating.
    assert pool.overall.lower[greedy] <= pool.overall.point[greedy] <= pool.overall.upper[greedy]
    assert math.isfinite(pool.overall.point[house_random])
