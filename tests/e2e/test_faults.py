"""Faults between real processes: an agent that drops and resumes (or never comes back), and a
server killed with SIGKILL in the middle of a tournament and started again on the same database."""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.request

import grpc
import pytest

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import Choice, RandomAgent, Session
from arena_server.ratings import compute_leaderboard
from arena_server.referee import replay_match
from arena_server.service.arena import leaderboard_query, leaderboard_response

from ..pgcluster import free_port
from .helpers import create_tournament, matches_of, wait_connected, wait_tournament
from .scripted import ScriptedAgent

GRACE = 1.0


def _first_legal(request: pb.DecisionRequest) -> pb.Decision:
    return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                       action_id=request.legal_actions[0].id)


class GoesSilent:
    """A policy that answers its first `answered` requests, then stays silent and signals `stalled`."""

    def __init__(self, answered: int = 1):
        self.answered = answered
        self.requests: list[pb.DecisionRequest] = []
        self.stalled = threading.Event()

    def __call__(self, request: pb.DecisionRequest) -> pb.Decision | None:
        self.requests.append(request)
        if len(self.requests) <= self.answered:
            return _first_legal(request)
        self.stalled.set()
        return None


def _wait(predicate, timeout: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _match(server, match_id: str) -> match_pb2.MatchInfo:
    return server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=server.metadata()).match


def _ended(server, match_id: str) -> match_pb2.MatchInfo:
    return _wait(lambda: (m := _match(server, match_id)).status in (match_pb2.MATCH_STATUS_FINISHED,
                                                                    match_pb2.MATCH_STATUS_VOID) and m,
                 what=f"match {match_id} to end")


# ---- an agent drops ----------------------------------------------------------------------------------
@pytest.mark.parametrize("policy, reason", [
    ("forfeit", match_pb2.END_REASON_FORFEIT_DISCONNECT),
    ("random_legal", match_pb2.END_REASON_NORMAL),
    ("void_and_replay", match_pb2.END_REASON_VOIDED),
], ids=["forfeit", "random_legal", "void_and_replay"])
def test_an_agent_that_never_comes_back_is_left_to_the_policy_after_the_grace_window(server_factory, policy, reason):
    # The deadline is far away: only the end of the grace window can end the wait.
    server = server_factory("--per-decision", "60", "--resume-grace", str(GRACE), "--on-failure", policy,
                            "--house-delay", "0.2")
    silent = GoesSilent()
    dropper = ScriptedAgent(server.address, server.create_key("dropper"), "dropper", ["tic_tac_toe"], silent)
    try:
        assert silent.stalled.wait(30)
        match_id = silent.requests[-1].match_id
        dropper.close()
        dropped_at = time.time()
        match = _ended(server, match_id)
    finally:
        dropper.close()
    seat = next(p.seat for p in match.players if p.agent_name == "dropper")
    assert match.result.reason == reason
    # It waited for the window (and not for the 60 s deadline) before the policy took the seat.
    ended_after = match.ended_at.ToNanoseconds() / 1e9 - dropped_at
    assert GRACE * 0.9 <= ended_after < 30
    stats = match.result.seat_stats[seat]
    assert stats.timeouts == 0
    if policy == "random_legal":     # each of the seat's moves after the window is a substitute
        assert stats.disconnects == stats.substituted_actions >= 1
    else:
        assert stats.disconnects == 1 and list(match.result.blamed_seats) == [seat]

    late = ScriptedAgent(server.address, server.create_key("dropper"), "dropper", ["tic_tac_toe"], _first_legal,
                         resume_token=dropper.welcome.resume_token)
    try:
        assert late.ended.wait(10)
        assert late.failure.code() == grpc.StatusCode.NOT_FOUND and "unknown or expired" in late.failure.details()
    finally:
        late.close()


def test_an_agent_that_resumes_gets_its_matches_and_the_pending_request_with_the_clock_running(server_factory):
    server = server_factory("--per-decision", "20", "--resume-grace", "20", "--on-failure", "forfeit",
                            "--house-delay", "0.2")
    key = server.create_key("resumer")
    silent = GoesSilent()
    first = ScriptedAgent(server.address, key, "resumer", ["tic_tac_toe"], silent)
    try:
        assert silent.stalled.wait(30)
    finally:
        first.close()
    pending = silent.requests[-1]
    seen_before = first.of_kind("event")
    time.sleep(0.3)    # the clock keeps running while the agent is away

    second = ScriptedAgent(server.address, key, "resumer", ["tic_tac_toe"], _first_legal,
                           resume_token=first.welcome.resume_token)
    try:
        match = _ended(server, pending.match_id)
        assert second.failure is None
    finally:
        second.close()
    assert second.welcome.session_id == first.welcome.session_id
    assert second.welcome.resume_token not in ("", first.welcome.resume_token)     # rotated
    assert list(second.welcome.accepted_games) == ["tic_tac_toe"]

    kinds = [r.WhichOneof("message") for r in second.received]
    assert kinds[0] == "welcome" and kinds[1] == "match_started"
    started = second.of_kind("match_started")[0]
    assert started.match.match_id == pending.match_id and started.seat == pending.seat
    # The public events so far come before the pending request, which comes back unchanged but for
    # the time it has left: the deadline did not move.
    request_at = kinds.index("decision_request")
    snapshot_events = [r.event for r in second.received[2:request_at]]
    assert [e.sequence for e in snapshot_events] == list(range(len(snapshot_events)))
    assert [e.text for e in snapshot_events] == [e.text for e in seen_before]
    resent = second.of_kind("decision_request")[0]
    assert resent.decision_id == pending.decision_id and resent.attempt == pending.attempt
    assert resent.legal_actions == pending.legal_actions and resent.observation == pending.observation
    assert resent.deadline.ToNanoseconds() <= pending.deadline.ToNanoseconds()
    assert resent.time_remaining.ToNanoseconds() < pending.time_remaining.ToNanoseconds()

    assert match.result.reason == match_pb2.END_REASON_NORMAL
    seat_stats = match.result.seat_stats[pending.seat]
    assert seat_stats.disconnects == seat_stats.timeouts == seat_stats.substituted_actions == 0
    store = server.store()
    try:
        assert replay_match(store, pending.match_id) == list(match.result.returns)
    finally:
        store.close()

    reused = ScriptedAgent(server.address, key, "resumer", ["tic_tac_toe"], _first_legal,
                           resume_token=first.welcome.resume_token)
    try:
        assert reused.ended.wait(10) and reused.failure.code() == grpc.StatusCode.NOT_FOUND   # single use
    finally:
        reused.close()


# ---- the server is killed ------------------------------------------------------------------------------
class SlowRandom(RandomAgent):
    """Random legal actions after a short think, so that matches are in flight when the server dies."""

    async def decide(self, request):
        await asyncio.sleep(0.03)
        return Choice(action_id=self._rng.choice(request.legal_actions).action_id)


class BackgroundSessions:
    """SDK sessions playing on their own event loop in a thread, as agent programs would."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sessions: dict[str, Session] = {}
        self.futures = {}

    def start(self, name: str, session: Session) -> None:
        self.sessions[name] = session
        self.futures[name] = asyncio.run_coroutine_threadsafe(session.run(), self.loop)

    def check_alive(self) -> None:
        """Fails at once, with the SDK's own error, when a session gave up."""
        for name, future in self.futures.items():
            if future.done():
                raise AssertionError(f"the SDK session of {name} gave up: {future.exception()!r}")

    def close(self) -> None:
        for future in self.futures.values():
            future.cancel()
        time.sleep(0.2)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def _store_snapshot(server):
    """The finished matches with their results, and the ids of those in flight: running, or pending (written,
    not started yet), which a restart or a takeover resumes alike."""
    store = server.store()
    try:
        matches = store.list_matches(limit=10_000)
        return ({m.match_id: m.result for m in matches if m.status == "finished"},
                {m.match_id for m in matches if m.status in ("pending", "running")})
    finally:
        store.close()


def test_a_server_killed_mid_tournament_resumes_every_match_and_loses_nothing(server_factory, backend):
    metrics_port = free_port()
    server = server_factory("--per-decision", "10", "--resume-grace", "20", "--house-delay", "60",
                            "--metrics-port", str(metrics_port), database=backend.database())
    agents = BackgroundSessions()
    try:
        for name in ("alice", "bob"):
            key = server.create_key(name)
            agents.start(name, Session(SlowRandom(seed=len(name)), server.address, key, ["tic_tac_toe"], name=name,
                                       max_concurrent_matches=2, join_ladder=False, reconnect=True))
        wait_connected(server, "alice", "bob")
        # Three groups (the house agent "random" too), two seatings each, twice: 12 matches.
        tournament_id = create_tournament(server, "tic_tac_toe", ["alice", "bob", "random"], games_per_pairing=2,
                                          per_decision=10)
        _wait(lambda: len(_store_snapshot(server)[0]) >= 3 and _store_snapshot(server)[1], what="matches in flight")
        server.kill()
        finished_before, running_before = _store_snapshot(server)
        results_before = {name: len(s.results) for name, s in agents.sessions.items()}
        assert running_before, "no match was in flight when the server died"

        server.restart()
        _wait(lambda: agents.check_alive() or all(s.reconnects for s in agents.sessions.values()),
              timeout=60, what="both SDK sessions reconnected")
        tournament = wait_tournament(server, tournament_id, timeout=120)
        agents.check_alive()
        sessions = agents.sessions
    finally:
        agents.close()

    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED
    assert tournament.matches_total == 12 and tournament.matches_finished == 12 and tournament.matches_void == 0
    matches = {m.match_id: m for m in matches_of(server, tournament_id)}
    assert len(matches) == 12     # nothing was scheduled twice

    store = server.store()
    try:
        for match_id, result in finished_before.items():     # nothing finished was lost or changed
            assert store.get_match(match_id).status == "finished" and store.get_match(match_id).result == result
        for match_id in running_before:                      # resumed, not restarted: one start, no gap
            assert matches[match_id].result.reason == match_pb2.END_REASON_NORMAL
            log = store.read_log(match_id)
            assert [e.seq for e in log] == list(range(len(log)))
            assert [e.kind for e in log].count("start") == 1
            issued = [e.data["last_decision_id"] for e in log if e.kind == "action"]
            assert issued == sorted(issued) and len(set(issued)) == len(issued)
        for match_id in matches:
            replay_match(store, match_id)
        recorded = list(store.finished_matches())
    finally:
        store.close()

    assert len(recorded) == 12
    _assert_ratings_are_a_recomputation(server, recorded)

    for name, session in sessions.items():    # each SDK session reconnected and kept playing
        assert session.reconnects >= 1
        assert len(session.results) > results_before[name]
    # The restarted server counted the agents that came back for their resumed matches' seats.
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    assert 1 <= _sample(metrics, "arena_session_reconnects_total") <= 2


def _sample(text: str, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    return next(s.value for family in text_string_to_metric_families(text) for s in family.samples
                if s.name == name and labels.items() <= s.labels.items())


def test_after_a_restart_an_agent_that_does_not_return_in_time_is_voided_and_its_match_replayed(server_factory,
                                                                                                backend):
    server = server_factory("--per-decision", "60", "--resume-grace", str(GRACE), database=backend.database())
    silent = GoesSilent(answered=1)
    keys = {name: server.create_key(name) for name in ("steady", "stalling")}
    steady = ScriptedAgent(server.address, keys["steady"], "steady", ["tic_tac_toe"], _first_legal, join_ladder=False)
    stalling = ScriptedAgent(server.address, keys["stalling"], "stalling", ["tic_tac_toe"], silent, join_ladder=False)
    wait_connected(server, "steady", "stalling")
    tournament_id = create_tournament(server, "tic_tac_toe", ["steady", "stalling"], on_failure="void_and_replay",
                                      max_replays=1, per_decision=60)
    assert silent.stalled.wait(30)
    stuck = silent.requests[-1].match_id
    server.kill()
    steady.close()
    stalling.close()

    server.restart()
    time.sleep(GRACE + 0.5)   # nobody comes back within the grace window
    assert _ended(server, stuck).result.reason == match_pb2.END_REASON_VOIDED
    again = [ScriptedAgent(server.address, keys[name], name, ["tic_tac_toe"], _first_legal, join_ladder=False)
             for name in keys]
    try:
        tournament = wait_tournament(server, tournament_id, timeout=60)
    finally:
        for agent in again:
            agent.close()
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED
    assert tournament.matches_finished == 2 and tournament.matches_void == 1
    voided = _match(server, stuck)
    seat = next(p.seat for p in voided.players if p.agent_name == "stalling")
    assert list(voided.result.blamed_seats) == [seat] and voided.result.seat_stats[seat].disconnects == 1
    replayed = [m for m in matches_of(server, tournament_id) if m.match_id != stuck
                and [p.agent_name for p in m.players] == [p.agent_name for p in voided.players]]
    assert len(replayed) == 1 and replayed[0].result.reason == match_pb2.END_REASON_NORMAL


def _assert_ratings_are_a_recomputation(server, recorded) -> None:
    """Ratings are computed from the log: the server's equal a fresh recomputation from the store."""
    for request in (apb.GetLeaderboardRequest(method=apb.RATING_METHOD_TRUESKILL),
                    apb.GetLeaderboardRequest(method=apb.RATING_METHOD_BRADLEY_TERRY,
                                              bradley_terry=apb.BradleyTerryOptions(resamples=200, seed=5))):
        served = server.arena_stub().GetLeaderboard(request, metadata=server.metadata())
        assert served.matches_counted == len(recorded)
        assert served == leaderboard_response(compute_leaderboard(recorded, leaderboard_query(request).resolved()))
