"""GAMA-Bench's released logs and expected scores, read in place from ../shared/data/gamabench
(GPL-3.0: never copied into the project) or from $ARENA_SHARED_DATA/gamabench.

Game keys are expected.json's: guess_2_3, el_farol_bar, divide_dollar, public_goods, diners_dilemma,
sealed_bid_auction, battle_royale, pirate_game. Without the data every loader fails the test that
asked (a fidelity suite that silently does not run proves nothing).
"""

from __future__ import annotations

import functools
import json
import os
import statistics
from pathlib import Path

import pytest


def data_dir() -> Path:
    root = os.environ.get("ARENA_SHARED_DATA")
    base = Path(root) if root else Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return base / "gamabench"


DATA = data_dir()


@functools.cache
def expected() -> dict:
    path = DATA / "expected.json"
    if not path.is_file():
        pytest.fail(f"GAMA-Bench reference data not found under {DATA}; "
                    "set ARENA_SHARED_DATA to the directory that holds gamabench/")
    return json.loads(path.read_text())


def entries(select) -> list:
    """Parameters drawn from expected.json for pytest.mark.parametrize; without the data, one None
    entry whose test then fails in load_run."""
    if not (DATA / "expected.json").is_file():
        return [None]
    return select(expected())


def entry_id(entry: dict | None) -> str:
    return Path(entry["file"]).stem if entry else "missing"


def default_runs(game: str, data: dict | None = None) -> list[dict]:
    """The five Table 5 runs of `game`."""
    return [e for e in (data or expected())["default_runs"] if e["game"] == game]


def five_run_group(game: str) -> dict:
    return next(g for g in expected()["five_run_groups"] if g["game"] == game)


def table9_variant(game: str, data: dict | None = None) -> dict:
    """{"group": ..., "entries": [...]} of `game`'s Table 9 parameter variants."""
    groups = [v for v in (data or expected())["table9_parameter_variants"] if v["group"]["game"] == game]
    assert len(groups) == 1, f"expected one Table 9 group for {game}, found {len(groups)}"
    return groups[0]


@functools.cache
def _load(file: str) -> dict:
    return json.loads((DATA / file).read_text())


def load_run(entry: dict | None) -> dict:
    """The released log of an expected.json entry (cached: several tests read each file)."""
    if entry is None:
        expected()
    return _load(entry["file"])


def check_group(scores: list[float], group: dict) -> None:
    """The mean and sample standard deviation of `scores` against a group of expected.json."""
    mean, std = statistics.mean(scores), statistics.stdev(scores)
    assert abs(mean - group["mean_recomputed"]) <= group["tolerance_vs_recomputed"], (mean, group["mean_recomputed"])
    assert abs(std - group["std_recomputed_ddof1"]) <= group["tolerance_vs_recomputed"], (std, group["std_recomputed_ddof1"])
    assert abs(mean - group["mean_paper"]) <= group["tolerance_vs_paper"]["mean"], (mean, group["mean_paper"])
    assert abs(std - group["std_paper"]) <= group["tolerance_vs_paper"]["std"], (std, group["std_paper"])


def check_score(score: float, entry: dict) -> None:
    """One file's rescaled score against its recomputed and printed values."""
    assert abs(score - entry["score_recomputed"]) <= entry["tolerance_vs_recomputed"], \
        (entry["file"], score, entry["score_recomputed"])
    assert abs(score - entry["score_paper"]) <= entry["tolerance_vs_paper"], (entry["file"], score, entry["score_paper"])


def table9_entries(game: str) -> list:
    """`game`'s Table 9 parameter variants as pytest parameters (ids: setting_id)."""
    return entries(lambda data: table9_variant(game, data)["entries"])


def setting_id(entry: dict | None) -> str:
    return entry["setting_label"] if entry else "missing"


def check_five_runs(game: str, score) -> None:
    """The five-run group of `game`, each run scored by `score(entry)`, against its mean and sample std."""
    group = five_run_group(game)
    by_file = {e["file"]: e for e in default_runs(game)}
    check_group([score(by_file[f]) for f in group["files"]], group)


def table9_group(game: str, count: int) -> tuple[dict, list[dict]]:
    """`game`'s Table 9 group and its entries in the group's order, checked to be the variant's `count`
    files."""
    variant = table9_variant(game)
    group = variant["group"]
    by_file = {e["file"]: e for e in variant["entries"]}
    assert len(group["files"]) == count and set(group["files"]) == set(by_file)
    return group, [by_file[f] for f in group["files"]]
