"""Keys, scopes, version negotiation, health and reflection, over real gRPC."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.v1 import arena_service_pb2 as apb

from .scripted import ScriptedAgent


def _connect_failure(server, key, name, **kw) -> grpc.RpcError:
    agent = ScriptedAgent(server.address, key, name, ["tic_tac_toe"], lambda r: None, **kw)
    agent.ended.wait(10)
    agent.close()
    assert agent.welcome is None
    assert agent.failure is not None
    return agent.failure


def test_agent_without_key_is_refused(server):
    failure = _connect_failure(server, "", "nobody")
    assert failure.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "authorization: Bearer" in failure.details()


def test_unknown_key_is_refused(server):
    failure = _connect_failure(server, "ak_deadbeef_not-a-real-secret", "nobody")
    assert failure.code() == grpc.StatusCode.UNAUTHENTICATED


def test_key_cannot_play_as_another_agent(server):
    key = server.create_key("alice")
    failure = _connect_failure(server, key, "mallory")
    assert failure.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "alice" in failure.details()


def test_spectate_key_cannot_play(server):
    key = server.create_key("watcher", scopes="spectate")
    failure = _connect_failure(server, key, "watcher")
    assert failure.code() == grpc.StatusCode.PERMISSION_DENIED


def test_major_version_mismatch_is_refused(server):
    key = server.create_key("old-bot")
    failure = _connect_failure(server, key, "old-bot", protocol_version="2.0")
    assert failure.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "1.0" in failure.details()


def test_welcome_reports_accepted_and_rejected_games(server):
    key = server.create_key("picky")
    agent = ScriptedAgent(server.address, key, "picky", ["tic_tac_toe", "no_such_game"], lambda r: None,
                          join_ladder=False)
    try:
        for _ in range(100):
            if agent.welcome is not None:
                break
            agent.ended.wait(0.05)
        assert agent.welcome is not None
        assert list(agent.welcome.accepted_games) == ["tic_tac_toe"]
        assert [g.game_id for g in agent.welcome.rejected_games] == ["no_such_game"]
        assert agent.welcome.resume_token and agent.welcome.session_id
        assert agent.welcome.protocol_version == "1.0"
    finally:
        agent.close()


def test_admin_rpcs_need_admin_scope(server):
    stub = server.arena_stub()
    play_key = server.create_key("player")
    with pytest.raises(grpc.RpcError) as refused:
        stub.RegisterAgent(apb.RegisterAgentRequest(name="x"), metadata=server.metadata(play_key))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as anonymous:
        stub.ListGames(apb.ListGamesRequest())
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    registered = stub.RegisterAgent(apb.RegisterAgentRequest(name="newbie", description="d"),
                                    metadata=server.metadata())
    assert registered.agent.name == "newbie" and registered.api_key.startswith("ak_")
    with pytest.raises(grpc.RpcError) as again:
        stub.RegisterAgent(apb.RegisterAgentRequest(name="newbie"), metadata=server.metadata())
    assert again.value.code() == grpc.StatusCode.ALREADY_EXISTS


def test_list_games_describes_each_game(server):
    games = server.arena_stub().ListGames(apb.ListGamesRequest(), metadata=server.metadata()).games
    by_id = {g.game_id: g for g in games}
    assert {"tic_tac_toe", "connect_four", "guess_two_thirds_average"} <= set(by_id)
    assert by_id["guess_two_thirds_average"].dynamics == 2  # simultaneous
    assert any(p.name == "gamabench" for p in by_id["guess_two_thirds_average"].presets)


def test_health_and_reflection(server):
    channel = grpc.insecure_channel(server.address)
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "arena.v1.AgentService", "arena.v1.ArenaService"):
        status = health.Check(health_pb2.HealthCheckRequest(service=service)).status
        assert status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"arena.v1.AgentService", "arena.v1.ArenaService", "arena.v1.SpectatorService",
            "grpc.health.v1.Health"} <= names
