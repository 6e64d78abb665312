"""What the pages compute from a match log: a replay carries each move with its timing and the agent's
logged reasoning and tokens, every seat's view and the board; a running match's position is built from
public entries only, and only for games whose moves are all public."""

from __future__ import annotations

import pytest

from arena_server.store import LogEntry, MatchRecord
from arena_server.web import views


def record(game_id: str, status: str) -> MatchRecord:
    players = [{"seat": s, "agent_name": name, "team": s, "house_agent": False} for s, name in enumerate(["ann", "bob"])]
    return MatchRecord(match_id="m_test", tournament_id="", game_id=game_id, rules_version="1", parameters={},
                       players=players, seed=42, time_control={"per_decision": 5}, failure_policy={}, status=status,
                       result=None if status == "running" else {"reason": "normal", "returns": [1, -1], "summary": "X wins"},
                       created_at=100.0, ended_at=None if status == "running" else 200.0)


def entry(seq: int, kind: str, data: dict, t: float, public: bool = True) -> LogEntry:
    return LogEntry(seq, kind, public, data, t)


def test_a_replay_shows_each_move_with_its_time_reasoning_and_tokens_and_every_seats_view():
    log = [
        entry(0, "start", {"players": [], "parameters": {}}, 100.0),
        entry(1, "decision_meta", {"seat": 0, "decision_id": 1, "metadata": {
            "reasoning": "the centre is strongest", "promptTokens": "120", "completionTokens": "30",
            "latency": "1.5s"}}, 102.4, public=False),
        entry(2, "action", {"seat": 0, "action": 4, "last_decision_id": 1}, 102.5),
        entry(3, "event", {"sequence": 1, "kind": 2, "seats": [0], "text": "seat 0 plays X: (2, 2)", "data": {}}, 102.5),
        entry(4, "penalty", {"seat": 1, "decision_id": 2, "problem": "the decision timed out", "substituted": True,
                             "failure": "timeouts"}, 107.5),
        entry(5, "action", {"seat": 1, "action": 0, "last_decision_id": 2}, 107.5),
    ]
    shown = views.replay(record("tic_tac_toe", "finished"), log)
    frames = shown["frames"]
    assert shown["seats"] == ["ann", "bob"] and len(frames) == 3
    first = frames[1]
    assert first["move"]["seat"] == 0 and first["move"]["text"] == "X: (2, 2)"
    assert first["move"]["seconds"] == pytest.approx(2.5)
    assert first["move"]["meta"] == {"reasoning": "the centre is strongest", "prompt_tokens": "120",
                                     "completion_tokens": "30", "latency": "1.5s"}
    assert first["events"] == ["seat 0 plays X: (2, 2)"]
    assert first["board"]["cells"][1][1] == {"t": "X", "c": "x"}
    assert len(first["views"]) == 2 and "You play O" in first["views"][1]
    second = frames[2]
    assert second["move"]["meta"] is None and second["notes"] == [
        "seat 1: the decision timed out; the failure policy played for it"]


def test_a_running_matchs_position_comes_from_public_entries_of_games_whose_moves_are_all_public():
    moves = [entry(0, "start", {}, 1.0), entry(1, "action", {"seat": 0, "action": 4}, 2.0)]
    shown = views.position(record("tic_tac_toe", "running"), moves)
    assert shown["moves"] == 1 and shown["board"]["cells"][1][1]["t"] == "X" and "moves" not in shown["board"]
    with pytest.raises(AssertionError):
        views.position(record("tic_tac_toe", "running"), moves + [entry(2, "probe", {}, 3.0, public=False)])
    assert views.position(record("kuhn_poker", "running"), [entry(0, "start", {}, 1.0)]) is None
    assert views.position(record("tic_tac_toe", "finished"), moves) is None
    with pytest.raises(AssertionError):        # every seat's view, before the end: never
        views.replay(record("kuhn_poker", "running"), [])
