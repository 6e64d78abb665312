"""Match records for rating tests."""

from __future__ import annotations

import json
from pathlib import Path

from arena_server.ratings.gamebench import records_from_gamebench
from arena_server.store import MatchRecord

DATA = Path(__file__).resolve().parents[1] / "data" / "gamebench"


def record(match_id: str, players: list[str], returns: list[float], *, game: str = "tic_tac_toe",
           teams: list[int] | None = None, ended: float = 0.0, tournament: str = "") -> MatchRecord:
    """A finished match; ranks follow from the returns (equal returns share a rank)."""
    ranks = [1 + sum(o > r for o in returns) for r in returns]
    teams = teams if teams is not None else list(range(len(players)))
    return MatchRecord(
        match_id=match_id, tournament_id=tournament, game_id=game, rules_version="1", parameters={},
        players=[{"seat": i, "agent_name": n, "team": t, "house_agent": False}
                 for i, (n, t) in enumerate(zip(players, teams))],
        seed=1, time_control={}, failure_policy={}, status="finished",
        result={"reason": "normal", "returns": [float(r) for r in returns], "ranks": ranks},
        created_at=ended, ended_at=ended,
    )


def gamebench_records() -> list[MatchRecord]:
    return records_from_gamebench(json.loads((DATA / "matches.json").read_text()))


def gamebench_expected() -> dict:
    return json.loads((DATA / "expected.json").read_text())


def newcomer_log(*, separate_game: bool = False) -> list[MatchRecord]:
    """The log of the issue "Ratings that don't overclaim", in miniature (315 matches of one game):
    `strong` 121-6-1 over 128 matches against three regulars; `mid_a`, `mid_b`, `weak` playing each
    other; `newbie` 5-0 against `weak` (and nobody else); `tiny` 0-2 against `mid_a` (in a game of
    its own, `connect_four`, when `separate_game`: pooled with per-game weights, that game of 2
    matches weighs as much as the other 313)."""
    recs: list[MatchRecord] = []

    def add(a: str, b: str, result: float, game: str = "tic_tac_toe") -> None:
        k = len(recs)
        r = [1, 0] if result == 1 else [0, 1] if result == 0 else [0, 0]
        players, returns = ([a, b], r) if k % 2 else ([b, a], r[::-1])    # seats alternate
        recs.append(record(f"m{k}", players, returns, game=game, ended=k))

    opponents = ["mid_a", "mid_b", "weak"]
    for k in range(128):
        add("strong", opponents[k % 3], 0 if k == 50 else 0.5 if k % 21 == 5 else 1)
    for k in range(60):
        add("mid_a", "mid_b", k % 2)
        add("mid_a", "weak", 1 if k % 4 else 0)
        add("mid_b", "weak", 1 if k % 4 else 0)
    for _ in range(5):
        add("newbie", "weak", 1)
    for _ in range(2):
        add("tiny", "mid_a", 0, game="connect_four" if separate_game else "tic_tac_toe")
    return recs
