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
