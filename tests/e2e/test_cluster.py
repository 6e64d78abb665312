"""Several `arena-server serve` processes on one PostgreSQL database, as real processes on loopback:
agents connected to different processes play each other (tournaments and the ladder), a process
killed halfway through a tournament is taken over with nothing lost, spectators and operators reach
matches and tournaments from any process, and a process that lost its lease stops refereeing."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.request

import grpc
import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2, spectator_service_pb2, spectator_service_pb2_grpc
from arena_client import Session
from arena_server.referee import replay_match

from ..pgcluster import free_port
from .helpers import create_tournament, matches_of, wait_connected, wait_tournament
from .test_faults import (BackgroundSessions, GoesSilent, SlowRandom, _assert_ratings_are_a_recomputation, _ended,
                          _first_legal, _sample, _store_snapshot, _wait)

LEASE = "2"


@pytest.fixture
def cluster_db(postgres_cluster) -> str:
    return postgres_cluster.create_database("cluster")


def _two(server_factory, db: str, *options: str):
    first = server_factory(*options, database=db)
    second = server_factory(*options, database=db, admin_key=first.admin_key)
    return first, second


def _rows(server, sql: str, args: tuple = ()) -> list[tuple]:
    store = server.store()
    try:
        return [tuple(r.values()) for r in store._execute(sql, args).fetchall()]
    finally:
        store.close()


def _server_id(server) -> str:
    return re.search(r"server_id=(arena-[0-9a-f]+)", server.log_path.read_text()).group(1)


def test_a_tournament_with_agents_on_two_processes_plays_every_match_across_them(server_factory, cluster_db):
    a, b = _two(server_factory, cluster_db, "--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE)
    agents = BackgroundSessions()
    try:
        agents.start("alice", Session(SlowRandom(seed=1), a.address, a.create_key("alice"), ["tic_tac_toe"],
                                      name="alice", max_concurrent_matches=2, join_ladder=False))
        agents.start("bob", Session(SlowRandom(seed=2), b.address, b.create_key("bob"), ["tic_tac_toe"],
                                    name="bob", max_concurrent_matches=2, join_ladder=False))
        wait_connected(a, "alice", "bob")
        wait_connected(b, "alice", "bob")       # each process sees every process's agents
        tournament_id = create_tournament(a, "tic_tac_toe", ["alice", "bob", "random"], games_per_pairing=2,
                                          per_decision=10)
        tournament = wait_tournament(b, tournament_id, timeout=120)     # followed from the other process
        agents.check_alive()
    finally:
        agents.close()
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED
    assert tournament.matches_total == tournament.matches_finished == 12 and tournament.matches_void == 0
    matches = matches_of(b, tournament_id)
    assert len(matches) == 12 and all(m.result.reason == match_pb2.END_REASON_NORMAL for m in matches)
    # Refereed by the process running the tournament; bob's seats were on the other one.
    assert _rows(a, "SELECT DISTINCT referee FROM matches") == [(_server_id(a),)]
    seats = _rows(a, "SELECT ma.agent_name, s.server_id FROM match_agents ma JOIN sessions s USING (session_id)")
    assert {(name, server) for name, server in seats} == {("alice", _server_id(a)), ("bob", _server_id(b))}
    store = b.store()
    try:
        for match in matches:
            assert replay_match(store, match.match_id) == list(match.result.returns)
            stats = match.result.seat_stats
            assert sum(s.timeouts + s.disconnects + s.substituted_actions for s in stats) == 0
        recorded = list(store.finished_matches())
    finally:
        store.close()
    status = subprocess.run([sys.executable, "-m", "arena_server.cli", "db", "status", "--db", cluster_db],
                            capture_output=True, text=True, check=True).stdout
    assert "server processes: 2" in status
    assert all(f"{_server_id(s)} at {s.address} " in status for s in (a, b))
    for server in (a, b):
        _assert_ratings_are_a_recomputation(server, recorded)


def test_a_process_killed_mid_tournament_is_taken_over_by_the_other_and_nothing_is_lost(server_factory, cluster_db):
    metrics_port = free_port()
    a = server_factory("--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE,
                       "--resume-grace", "20", "--metrics-port", str(metrics_port), database=cluster_db)
    b = server_factory("--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE,
                       "--resume-grace", "20", database=cluster_db, admin_key=a.admin_key)
    homes = {"alice": [b, a], "bob": [a, b], "carol": [b, a]}     # the address each agent tries first, then the other
    agents = BackgroundSessions()
    try:
        for seed, (name, servers) in enumerate(homes.items()):
            agents.start(name, Session(SlowRandom(seed=seed), [s.address for s in servers], a.create_key(name),
                                       ["tic_tac_toe"], name=name, max_concurrent_matches=2, join_ladder=False))
        wait_connected(a, *homes)
        # Run by b, which referees its matches: 4 groups of 3 agents (and the house agent), 2 seatings, twice.
        tournament_id = create_tournament(b, "tic_tac_toe", ["alice", "bob", "carol", "random"],
                                          games_per_pairing=2, per_decision=10)
        _wait(lambda: len(_store_snapshot(a)[0]) >= 6 and _store_snapshot(a)[1], what="matches in flight")
        b.kill()
        killed_at = time.monotonic()
        finished_before, in_flight_before = _store_snapshot(a)
        assert in_flight_before, "no match was in flight when the process died"
        ended_unstored = _logged_their_end(a, in_flight_before)    # finished by the taker, not resumed
        results_before = {name: len(s.results) for name, s in agents.sessions.items()}

        a_id = _server_id(a)
        _wait(lambda: _rows(a, "SELECT runner FROM tournaments") == [(a_id,)], what="the tournament taken over")
        took_over_after = time.monotonic() - killed_at
        tournament = wait_tournament(a, tournament_id, timeout=120)
        agents.check_alive()
        sessions = agents.sessions
    finally:
        agents.close()

    assert took_over_after < float(LEASE) + 3       # the lease, plus a look every second
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED
    assert tournament.matches_total == tournament.matches_finished == 24 and tournament.matches_void == 0
    matches = {m.match_id: m for m in matches_of(a, tournament_id)}
    assert len(matches) == 24      # nothing was scheduled twice
    assert _rows(a, "SELECT server_id FROM servers") == [(a_id,)]
    store = a.store()
    try:
        for match_id, result in finished_before.items():     # nothing finished was lost or changed
            assert store.get_match(match_id).status == "finished" and store.get_match(match_id).result == result
        for match_id in in_flight_before:                    # resumed where the log stopped: one start, no gap
            assert store.get_match(match_id).referee == a_id
            assert matches[match_id].result.reason == match_pb2.END_REASON_NORMAL
            log = store.read_log(match_id)
            assert [e.seq for e in log] == list(range(len(log)))
            assert [e.kind for e in log].count("start") == 1
        for match_id, match in matches.items():
            assert replay_match(store, match_id) == list(match.result.returns)
        recorded = list(store.finished_matches())
    finally:
        store.close()

    assert len(recorded) == 24           # the surviving process's ratings come from every process's log
    _assert_ratings_are_a_recomputation(a, recorded)

    for name in ("alice", "carol"):       # they moved to the surviving process and kept playing
        assert sessions[name].server == a.address and sessions[name].reconnects >= 1
    for name, session in sessions.items():
        assert len(session.results) > results_before[name]
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    assert _sample(metrics, "arena_cluster_takeovers_total", kind="process") == 1
    assert _sample(metrics, "arena_cluster_takeovers_total", kind="tournament") == 1
    assert _sample(metrics, "arena_cluster_takeovers_total", kind="match") == len(in_flight_before - ended_unstored)


def _logged_their_end(server, match_ids) -> set[str]:
    store = server.store()
    try:
        return {m for m in match_ids if any(e.kind == "end" for e in store.read_log(m))}
    finally:
        store.close()


def test_the_ladder_pairs_agents_connected_to_different_processes(server_factory, cluster_db):
    a, b = _two(server_factory, cluster_db, "--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE)
    agents = BackgroundSessions()
    try:
        agents.start("alice", Session(SlowRandom(seed=1), a.address, a.create_key("alice"), ["tic_tac_toe"],
                                      name="alice", max_matches=3))
        agents.start("bob", Session(SlowRandom(seed=2), b.address, b.create_key("bob"), ["tic_tac_toe"],
                                    name="bob", max_matches=3))
        _wait(lambda: all(len(s.results) >= 3 for s in agents.sessions.values()), what="three ladder matches each")
    finally:
        agents.close()
    for session in agents.sessions.values():       # each other's opponent: no house agent waited 60 s to step in
        assert all(r.opponents == [("bob" if session.name == "alice" else "alice")] for r in session.results[:3])
    referees = _rows(a, "SELECT DISTINCT referee FROM matches")
    assert len(referees) == 1 and referees[0][0] in (_server_id(a), _server_id(b))


class Steady(SlowRandom):
    async def decide(self, request):
        import asyncio

        await asyncio.sleep(0.15)
        return await super().decide(request)


def test_spectators_and_operators_reach_a_match_and_a_tournament_from_either_process(server_factory, cluster_db):
    a, b = _two(server_factory, cluster_db, "--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE)
    agents = BackgroundSessions()
    try:
        agents.start("alice", Session(Steady(seed=1), a.address, a.create_key("alice"), ["connect_four"],
                                      name="alice", join_ladder=False))
        agents.start("bob", Session(Steady(seed=2), b.address, b.create_key("bob"), ["connect_four"],
                                    name="bob", join_ladder=False))
        wait_connected(a, "alice", "bob")
        tournament_id = create_tournament(a, "connect_four", ["alice", "bob"], games_per_pairing=5, per_decision=10)
        first = _wait(lambda: matches_of(b, tournament_id), what="a match")[-1]
        # Watched through b, refereed by a: stored events, then live ones as a's log grows, then the end.
        watch = spectator_service_pb2_grpc.SpectatorServiceStub(grpc.insecure_channel(b.address)).Watch(
            spectator_service_pb2.WatchRequest(match_id=first.match_id), metadata=b.metadata(), timeout=60)
        seen = list(watch)
        # Cancelled through b, run by a: its running match is aborted there and nothing new starts.
        b.arena_stub().CancelTournament(apb.CancelTournamentRequest(tournament_id=tournament_id),
                                        metadata=b.metadata())
        _wait(lambda: all(m.status != match_pb2.MATCH_STATUS_RUNNING for m in matches_of(a, tournament_id)),
              what="the running match aborted")
        started = len(matches_of(a, tournament_id))
        time.sleep(1.0)
        assert len(matches_of(a, tournament_id)) == started
        agents.check_alive()
    finally:
        agents.close()
    events = [r.event for r in seen if r.HasField("event")]
    assert seen[-1].HasField("ended") and seen[-1].ended.match_id == first.match_id
    stored = a.arena_stub().GetMatch(apb.GetMatchRequest(match_id=first.match_id), metadata=a.metadata())
    assert [e.sequence for e in events] == [e.sequence for e in stored.events] == list(range(len(events)))
    assert [e.text for e in events] == [e.text for e in stored.events]
    assert any(e.kind == match_pb2.EVENT_KIND_MOVE for e in events)
    tournament = a.arena_stub().GetTournament(apb.GetTournamentRequest(tournament_id=tournament_id),
                                              metadata=a.metadata()).tournament
    assert tournament.status == apb.TOURNAMENT_STATUS_CANCELLED
    assert tournament.matches_finished < 5 and tournament.matches_void >= 1


def test_a_process_that_lost_its_lease_exits_without_writing_and_its_matches_finish_elsewhere(server_factory,
                                                                                            cluster_db):
    a, b = _two(server_factory, cluster_db, "--per-decision", "10", "--house-delay", "60", "--lease-seconds", LEASE,
                "--resume-grace", "20")
    agents = BackgroundSessions()
    try:
        for seed, name in enumerate(("alice", "bob")):       # connected to b; the tournament runs on a
            agents.start(name, Session(Steady(seed=seed), b.address, b.create_key(name), ["tic_tac_toe"], name=name,
                                       max_concurrent_matches=2, join_ladder=False))
        wait_connected(a, "alice", "bob")
        tournament_id = create_tournament(a, "tic_tac_toe", ["alice", "bob"], games_per_pairing=6, per_decision=10)
        _wait(lambda: _store_snapshot(a)[1], what="matches in flight")
        a.process.send_signal(signal.SIGSTOP)       # frozen, its connections open: only the heartbeat can tell
        b_id = _server_id(b)
        _wait(lambda: _rows(b, "SELECT runner FROM tournaments") == [(b_id,)], timeout=15, what="the takeover")
        a.process.send_signal(signal.SIGCONT)
        assert a.process.wait(15) == 75         # it found its lease gone and exited before committing more
        tournament = wait_tournament(b, tournament_id, timeout=120)
        agents.check_alive()
    finally:
        agents.close()
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED and tournament.matches_finished == 12
    assert "another process took this process's work over" in a.log_path.read_text()
    store = b.store()
    try:
        for match in matches_of(b, tournament_id):
            log = store.read_log(match.match_id)
            assert [e.seq for e in log] == list(range(len(log))) and [e.kind for e in log].count("end") == 1
            assert replay_match(store, match.match_id) == list(match.result.returns)
    finally:
        store.close()


def test_an_agent_resuming_on_its_process_gets_the_matches_refereed_by_the_other_one(server_factory, cluster_db):
    from .scripted import ScriptedAgent

    a, b = _two(server_factory, cluster_db, "--per-decision", "20", "--house-delay", "60", "--lease-seconds", LEASE,
                "--resume-grace", "20", "--on-failure", "forfeit")
    key = b.create_key("resumer")
    steady = ScriptedAgent(a.address, a.create_key("steady"), "steady", ["tic_tac_toe"], _first_legal,
                           join_ladder=False)
    silent = GoesSilent()
    first = ScriptedAgent(b.address, key, "resumer", ["tic_tac_toe"], silent, join_ladder=False)
    try:
        wait_connected(a, "steady", "resumer")
        create_tournament(a, "tic_tac_toe", ["steady", "resumer"], per_decision=20, on_failure="forfeit")
        assert silent.stalled.wait(30)        # refereed by a, the request relayed through b, unanswered
    finally:
        first.close()
    pending = silent.requests[-1]
    time.sleep(0.3)
    second = ScriptedAgent(b.address, key, "resumer", ["tic_tac_toe"], _first_legal,
                           resume_token=first.welcome.resume_token, join_ladder=False)
    try:
        match = _ended(a, pending.match_id)
        assert second.failure is None
    finally:
        second.close()
        steady.close()
    assert second.welcome.session_id == first.welcome.session_id
    kinds = [r.WhichOneof("message") for r in second.received]
    assert kinds[:2] == ["welcome", "match_started"]
    assert second.of_kind("match_started")[0].match.match_id == pending.match_id
    resent = second.of_kind("decision_request")[0]       # sent again by a's stand-in, with less time left
    assert resent.decision_id == pending.decision_id and resent.legal_actions == pending.legal_actions
    assert resent.time_remaining.ToNanoseconds() < pending.time_remaining.ToNanoseconds()
    seat = pending.seat
    assert match.result.reason == match_pb2.END_REASON_NORMAL
    assert match.result.seat_stats[seat].disconnects == match.result.seat_stats[seat].timeouts == 0
    assert _rows(a, "SELECT referee FROM matches WHERE match_id = ?", (pending.match_id,)) == [(_server_id(a),)]


def test_an_agent_whose_process_dies_takes_its_seats_back_on_a_third_while_the_referee_lives(server_factory,
                                                                                            cluster_db):
    options = ("--per-decision", "20", "--house-delay", "60", "--lease-seconds", LEASE, "--resume-grace", "20")
    a = server_factory(*options, database=cluster_db)
    b, c = (server_factory(*options, database=cluster_db, admin_key=a.admin_key) for _ in range(2))
    agents = BackgroundSessions()
    try:
        agents.start("xavier", Session(Steady(seed=1), [b.address, c.address], b.create_key("xavier"),
                                       ["tic_tac_toe"], name="xavier", max_concurrent_matches=2, join_ladder=False))
        agents.start("yann", Session(Steady(seed=2), a.address, a.create_key("yann"), ["tic_tac_toe"], name="yann",
                                     max_concurrent_matches=2, join_ladder=False))
        wait_connected(a, "xavier", "yann")
        tournament_id = create_tournament(a, "tic_tac_toe", ["xavier", "yann"], games_per_pairing=4, per_decision=20)
        _wait(lambda: _store_snapshot(a)[1], what="matches in flight")
        b.kill()             # xavier's process: a, the referee, lives on; xavier moves to c
        running = _store_snapshot(a)[1]
        tournament = wait_tournament(a, tournament_id, timeout=120)
        agents.check_alive()
        xavier = agents.sessions["xavier"]
    finally:
        agents.close()
    assert running and xavier.server == c.address and xavier.reconnects >= 1
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED and tournament.matches_finished == 8
    for match in matches_of(a, tournament_id):
        assert match.result.reason == match_pb2.END_REASON_NORMAL
        if match.match_id in running:     # its seat waited for xavier, then went on through c
            seat = next(p.seat for p in match.players if p.agent_name == "xavier")
            assert match.result.seat_stats[seat].substituted_actions == 0
    assert _rows(a, "SELECT DISTINCT referee FROM matches") == [(_server_id(a),)]
