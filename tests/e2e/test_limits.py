"""Limits, each answered with a clear status: message size, free-text length, concurrent matches
per agent, and the request rate per API key (unary calls and agent-stream messages)."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import agent_service_pb2_grpc, arena_service_pb2_grpc, match_pb2
from arena_client import ErrorView, RandomAgent, Session
from arena_server.server import ServerConfig

from .helpers import create_tournament, matches_of, run_tournament, wait_connected, wait_for, wait_tournament
from .scripted import ScriptedAgent


def _first_legal(request: pb.DecisionRequest) -> pb.Decision:
    return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, action_id=request.legal_actions[0].id)


def test_a_message_over_the_size_limit_ends_the_call_with_resource_exhausted(server):
    """The default limit (4 MiB) holds; the server stays healthy and the agent can come back."""
    key = server.create_key("bulky")
    bulky = ScriptedAgent(server.address, key, "bulky", ["tic_tac_toe"], lambda r: None, join_ladder=False)
    try:
        wait_for(lambda: [bulky.welcome] if bulky.welcome else [])
        bulky.send(pb.ConnectRequest(decision=pb.Decision(match_id="m_x", decision_id=1, text="x" * (5 << 20))))
        assert bulky.ended.wait(15)
        assert bulky.failure is not None and bulky.failure.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        bulky.close()
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
    again = ScriptedAgent(server.address, key, "bulky", ["tic_tac_toe"], _first_legal, join_ladder=False)
    try:
        wait_connected(server, "bulky")
        assert run_tournament(server, "tic_tac_toe", ["bulky", "random"]).matches_finished == 2
    finally:
        again.close()


@pytest.mark.parametrize("game_id,length", [("tic_tac_toe", 1_000_000), ("negotiation", 4_001)])
def test_text_over_the_games_length_limit_is_refused_in_band(server, game_id, length):
    """An enormous string (1 MB against the default 1000 characters) or one character past a text
    game's own limit: TEXT_REJECTED, a retry, and the match goes on."""
    limits = []

    def too_long_then_legal(request: pb.DecisionRequest) -> pb.Decision:
        if request.attempt == 0:
            limits.append(request.text_action.max_length if request.HasField("text_action") else 1000)
            return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, text="7" * length)
        return _first_legal(request)

    talker = ScriptedAgent(server.address, server.create_key("talker"), "talker", [game_id], too_long_then_legal,
                           join_ladder=False)
    try:
        wait_connected(server, "talker")
        t = run_tournament(server, game_id, ["talker", "random"], max_retries=1, on_failure="forfeit")
        assert t.matches_finished == 2
        for match in matches_of(server, t.tournament_id):
            seat = next(p.seat for p in match.players if p.agent_name == "talker")
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            assert match.result.seat_stats[seat].illegal_actions >= 1
        errors = talker.of_kind("error")
        assert errors and {e.code for e in errors} == {pb.ERROR_CODE_TEXT_REJECTED}
        assert len(limits) == len(errors) and all(limit < length for limit in limits)
        assert all(f"text of {length} characters exceeds the limit of {limit}" in e.message
                   for e, limit in zip(errors, limits))
        assert talker.failure is None
    finally:
        talker.close()


def test_concurrent_matches_are_capped_over_all_of_an_agents_sessions(server_factory):
    server = server_factory("--max-concurrent-per-agent", "2", "--house-delay", "0.1", "--per-decision", "60")
    key = server.create_key("greedy")
    # Two sessions asking for 3 matches each; silent, so every match they get stays running.
    sessions = [ScriptedAgent(server.address, key, "greedy", ["tic_tac_toe"], lambda r: None, capacity=3)
                for _ in range(2)]
    stub = server.arena_stub()

    def running():
        return list(stub.ListMatches(apb.ListMatchesRequest(agent_name="greedy", status=match_pb2.MATCH_STATUS_RUNNING),
                                     metadata=server.metadata()).matches)
    try:
        assert len(wait_for(running, 2)) >= 2
        time.sleep(1.5)         # the ladder pairs every 0.05 s: it had many chances to exceed the cap
        assert len(running()) == 2
        assert all(s.failure is None for s in sessions)
    finally:
        for s in sessions:
            s.close()


def test_unary_calls_over_the_rate_limit_get_resource_exhausted_and_retry_after(server_factory):
    server = server_factory("--rate-limit", "0.5", "--rate-burst", "4")
    viewer, other = (server.metadata(server.create_key(name, scopes="spectate")) for name in ("viewer", "other"))
    stub = arena_service_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(server.address))
    for _ in range(4):
        stub.ListGames(apb.ListGamesRequest(), metadata=viewer)
    with pytest.raises(grpc.RpcError) as limited:
        stub.ListGames(apb.ListGamesRequest(), metadata=viewer)
    assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "rate limit" in limited.value.details()
    retry_after = float(dict(limited.value.trailing_metadata())["retry-after"])
    assert 0 < retry_after <= 2.0
    viewer_key = viewer[0][1].removeprefix("Bearer ")
    streaming = ScriptedAgent(server.address, viewer_key, "viewer", ["tic_tac_toe"], lambda r: None)
    assert streaming.ended.wait(10)                                 # a stream opened over the limit, too
    assert streaming.failure.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    streaming.close()
    stub.ListGames(apb.ListGamesRequest(), metadata=other)          # each key has its own bucket
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    for _ in range(10):                                             # calls without a key are not counted
        health.Check(health_pb2.HealthCheckRequest())
    time.sleep(retry_after)
    assert stub.ListGames(apb.ListGamesRequest(), metadata=viewer).games


def test_stream_messages_over_the_rate_limit_are_refused_in_band_and_the_stream_stays_open(server_factory):
    server = server_factory("--rate-limit", "1", "--rate-burst", "10", "--per-decision", "30")
    agent = ScriptedAgent(server.address, server.create_key("chatty"), "chatty", ["tic_tac_toe"], lambda r: None,
                          join_ladder=False)
    try:
        wait_for(lambda: [agent.welcome] if agent.welcome else [])
        create_tournament(server, "tic_tac_toe", ["chatty", "random"], per_decision=30)
        request = wait_for(lambda: agent.of_kind("decision_request"))[0]
        for _ in range(30):     # drains the bucket (10, less one for opening the call), and any refill
            agent.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        decision = _first_legal(request)
        agent.send(pb.ConnectRequest(decision=decision))
        refused = wait_for(lambda: [e for e in agent.of_kind("error") if e.decision_id == request.decision_id])[0]
        assert refused.code == pb.ERROR_CODE_RATE_LIMITED and refused.match_id == request.match_id
        assert "retry after" in refused.message and "dropped" in refused.message
        limited = [e for e in agent.of_kind("error") if e.code == pb.ERROR_CODE_RATE_LIMITED]
        assert len(limited) >= 15 and len(agent.of_kind("heartbeat")) < 15
        time.sleep(float(refused.message.split("retry after ")[1].split(" s")[0]))
        agent.send(pb.ConnectRequest(decision=decision))   # the same decision, still awaited, is now taken
        following = wait_for(lambda: agent.of_kind("decision_request"), count=2)[1]
        assert following.match_id == request.match_id and following.decision_id > request.decision_id
        assert (request.seat, decision.action_id) in [(m.seat, m.action_id) for m in following.observation.history]
        assert agent.failure is None
    finally:
        agent.close()


def test_an_agent_that_sends_but_never_reads_has_its_stream_closed_and_can_resume(server_factory):
    """Heartbeat answers pile up for an agent that does not read its stream: past the bound the
    stream ends with RESOURCE_EXHAUSTED, the server stays healthy, and the session resumes."""
    server = server_factory("--max-unread-messages", "100", "--rate-limit", "0")
    key = server.create_key("deaf")
    channel = grpc.insecure_channel(server.address)
    stub = agent_service_pb2_grpc.AgentServiceStub(channel)
    hello = pb.ConnectRequest(hello=pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name="deaf"),
                                             games=[pb.GameOffer(game_id="tic_tac_toe")], join_ladder=False))

    def flood():
        yield hello
        for _ in range(500_000):
            yield pb.ConnectRequest(heartbeat=pb.Heartbeat())

    responses = stub.Connect(flood(), metadata=[("authorization", f"Bearer {key}")])
    welcome = next(responses).welcome          # read once, then never again while the flood runs
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "closing a stream whose agent does not read it" not in server.log_path.read_text():
        time.sleep(0.2)
    with pytest.raises(grpc.RpcError) as closed:
        for _ in responses:
            pass
    assert closed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "waiting for this agent to read its stream (at most 100)" in closed.value.details()
    channel.close()
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
    assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
    back = ScriptedAgent(server.address, key, "deaf", ["tic_tac_toe"], _first_legal, join_ladder=False,
                         resume_token=welcome.resume_token)
    try:
        wait_for(lambda: [back.welcome] if back.welcome else [])
        assert back.welcome.session_id == welcome.session_id and back.failure is None
    finally:
        back.close()


class CountingRandomAgent(RandomAgent):
    """The SDK's random agent, noting when it decides (one message each) and the errors it is sent."""

    def __init__(self):
        super().__init__(seed=5)
        self.decided: list[float] = []
        self.errors: dict[str, int] = {}

    def decide(self, request):
        self.decided.append(time.monotonic())
        return super().decide(request)

    def on_error(self, error: ErrorView) -> None:
        self.errors[error.code] = self.errors.get(error.code, 0) + 1

    def peak_rate(self) -> int:
        """The most decisions made within one second."""
        times, first, peak = sorted(self.decided), 0, 0
        for last, now in enumerate(times):
            while now - times[first] >= 1.0:
                first += 1
            peak = max(peak, last - first + 1)
        return peak


def _all_matches(server, tournament_id: str) -> list[match_pb2.MatchInfo]:
    stub, matches, token = server.arena_stub(), [], ""
    while True:
        page = stub.ListMatches(apb.ListMatchesRequest(tournament_id=tournament_id, page_size=1000, page_token=token),
                                metadata=server.metadata())
        matches += page.matches
        if not (token := page.next_page_token):
            return matches


def _play_fast(server, name: str, games_per_pairing: int) -> tuple[CountingRandomAgent, list[match_pb2.MatchInfo]]:
    """The SDK's random agent (Session defaults) against house random, back to back, as fast as both
    go: a tournament of 2 x games_per_pairing tic-tac-toe matches in which a decision that never
    arrives forfeits the match."""
    agent, key = CountingRandomAgent(), server.create_key(name)

    async def main() -> str:
        session = asyncio.create_task(Session(agent, server.address, key, ["tic_tac_toe"], join_ladder=False).run())
        try:
            await asyncio.to_thread(wait_connected, server, name)
            tournament_id = await asyncio.to_thread(create_tournament, server, "tic_tac_toe", [name, "random"],
                                                    games_per_pairing=games_per_pairing, per_decision=5,
                                                    max_retries=0, on_failure="forfeit")
            await asyncio.to_thread(wait_tournament, server, tournament_id, 120)
            return tournament_id
        finally:
            session.cancel()
            await asyncio.gather(session, return_exceptions=True)

    tournament_id = asyncio.run(main())
    return agent, _all_matches(server, tournament_id)


def test_thousands_of_fast_matches_with_the_default_limits_lose_nothing_to_the_rate_limit(server_factory):
    """One SDK agent at full speed sends up to about 1,000 messages a second on a 2-vCPU machine
    (the old default limit was 500); the default is far above what any agent is asked for."""
    server = server_factory()                     # every default, the rate limit's included
    agent, matches = _play_fast(server, "sprinter", games_per_pairing=1000)
    assert len(matches) == 2000
    assert agent.errors == {}                     # not one message refused, for the rate or anything else
    lost = [m for m in matches if m.result.reason != match_pb2.END_REASON_NORMAL
            or any(s.timeouts or s.substituted_actions for s in m.result.seat_stats)]
    assert lost == []
    # Full speed stays far below the default: a faster machine has room before meeting it.
    assert 4 * agent.peak_rate() < ServerConfig().rate_limit


def test_the_sdk_sends_again_what_a_tight_rate_limit_drops_and_loses_no_match(server_factory):
    """Under a limit far below its pace, the SDK agent is refused often and still plays every
    match to its normal end: each dropped decision is sent again after the quoted wait."""
    server = server_factory("--rate-limit", "100", "--rate-burst", "20")
    agent, matches = _play_fast(server, "throttled", games_per_pairing=25)
    assert len(matches) == 50
    assert agent.errors.get("rate_limited", 0) >= 10 and set(agent.errors) == {"rate_limited"}
    assert all(m.result.reason == match_pb2.END_REASON_NORMAL for m in matches)
    assert all(not (s.timeouts or s.substituted_actions or s.illegal_actions) for m in matches
               for s in m.result.seat_stats)


def test_a_dropped_decision_is_named_by_a_bounded_echo_of_its_match_id(server_factory):
    server = server_factory("--rate-limit", "1", "--rate-burst", "3")
    agent = ScriptedAgent(server.address, server.create_key("long-ids"), "long-ids", ["tic_tac_toe"], lambda r: None,
                          join_ladder=False)
    try:
        wait_for(lambda: [agent.welcome] if agent.welcome else [])
        for _ in range(5):                            # spends what is left of the burst
            agent.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        huge = "m" * (5 << 19)                        # 2.5 MiB, under the 4 MiB message limit
        agent.send(pb.ConnectRequest(decision=pb.Decision(match_id=huge, decision_id=9, action_id=0)))
        dropped = wait_for(lambda: [e for e in agent.of_kind("error") if e.decision_id == 9])[0]
        assert dropped.code == pb.ERROR_CODE_RATE_LIMITED
        assert dropped.match_id == f"{'m' * 100}…({len(huge)} characters)"
        assert agent.failure is None
    finally:
        agent.close()
