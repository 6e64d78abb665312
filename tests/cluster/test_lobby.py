"""The shared lobby's claims over a real PostgreSQL: processes claiming the same sessions at once
never give a session more matches than its capacity, nor an agent more than the per-agent cap, and
a failed claim writes nothing; a pass's view reads every process's sessions with what they hold."""

from __future__ import annotations

import itertools
import threading
import time

import psycopg
import pytest

from arena_server.cluster.lobby import SharedLobby
from arena_server.store import MatchRecord, Store

_ids = itertools.count()


@pytest.fixture
def url(postgres_cluster) -> str:
    database = postgres_cluster.create_database("lobby")
    Store(database).close()         # the schema
    return database


def _lobby(url: str, server_id: str, cap: int = 0) -> SharedLobby:
    return SharedLobby(psycopg.connect(url, autocommit=True), server_id, max_matches_per_agent=cap,
                       standin=lambda row: None, changed_elsewhere=lambda: None)


def _session(lobby: SharedLobby, session_id: str, agent: str, capacity: int) -> None:
    lobby.connection.execute(
        "INSERT INTO sessions(session_id, server_id, agent_name, games, capacity, join_ladder, match_events, images, "
        "probes, alive, joined_at, waiting_since) VALUES (%s, %s, %s, '{\"pig\": null}', %s, 1, 1, 0, 0, 1, 0, 0)",
        (session_id, lobby.server_id, agent, capacity))


def _record(*agents: str) -> MatchRecord:
    return MatchRecord(match_id=f"m_{next(_ids)}", tournament_id="", game_id="pig", rules_version="1", parameters={},
                       players=[{"seat": i, "agent_name": a, "team": i, "house_agent": False} for i, a in enumerate(agents)],
                       seed=1, time_control={"per_decision": 5.0}, failure_policy={}, status="pending", result=None,
                       created_at=time.time(), ended_at=None, referee="p1")


def _race(lobbies: list[SharedLobby], attempts: int, sessions: dict[int, str], agents: tuple[str, ...]) -> int:
    """Every lobby claims `attempts` matches at once, from its own thread; returns how many were written."""
    won, start = [], threading.Barrier(len(lobbies))

    def claim(lobby):
        start.wait()
        for _ in range(attempts):
            won.append(lobby.claim(_record(*agents), sessions))

    threads = [threading.Thread(target=claim, args=(lobby,)) for lobby in lobbies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(won)


def test_concurrent_claims_never_give_a_session_more_matches_than_its_capacity(url):
    lobbies = [_lobby(url, f"p{i}") for i in range(4)]
    _session(lobbies[0], "s_alice", "alice", capacity=3)
    _session(lobbies[1], "s_bob", "bob", capacity=5)
    written = _race(lobbies, 25, {0: "s_alice", 1: "s_bob"}, ("alice", "bob"))
    assert written == 3             # alice's capacity, whoever claimed
    with psycopg.connect(url) as check:
        assert check.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 3      # a failed claim wrote nothing
        assert check.execute("SELECT COUNT(*) FROM match_agents WHERE session_id = 's_alice'").fetchone()[0] == 3
        check.execute("UPDATE matches SET status = 'finished'")                      # their seats are free again
    view = lobbies[2].view()
    (alice,) = [r for r in view.rows if r.agent_name == "alice"]
    assert alice.holding == 0 and alice.free_slots() == 3 and alice.server_id == "p0"
    assert _race(lobbies[:2], 5, {0: "s_alice", 1: "s_bob"}, ("alice", "bob")) == 3


def test_claims_keep_the_per_agent_cap_over_all_of_an_agents_sessions(url):
    lobbies = [_lobby(url, f"p{i}", cap=2) for i in range(3)]
    for i, lobby in enumerate(lobbies):          # carol on every process, room for 5 each
        _session(lobby, f"s_carol_{i}", "carol", capacity=5)
    won, start = [], threading.Barrier(3)

    def claim(i):
        start.wait()
        for _ in range(10):
            won.append(lobbies[i].claim(_record("carol", "carol"), {0: f"s_carol_{i}", 1: f"s_carol_{i}"}))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(won) == 2


def test_a_session_that_is_gone_or_detached_is_not_claimed(url):
    lobby = _lobby(url, "p1")
    _session(lobby, "s_dan", "dan", capacity=1)
    assert not lobby.claim(_record("dan", "erin"), {0: "s_dan", 1: "s_erin"})       # erin has no session
    lobby.connection.execute("UPDATE sessions SET alive = 0")
    assert not lobby.claim(_record("dan"), {0: "s_dan"})
    assert lobby.view().rows == []
