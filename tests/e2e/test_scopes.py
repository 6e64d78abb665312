"""What each key may do: an agent acts only for its own seats, a spectator only reads."""

from __future__ import annotations

import threading

import grpc
import pytest

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import arena_service_pb2_grpc, match_pb2, spectator_service_pb2, spectator_service_pb2_grpc

from .helpers import create_tournament, matches_of, wait_connected, wait_for, wait_tournament
from .scripted import ScriptedAgent


def test_an_agent_cannot_decide_or_resign_for_another_agents_seat(server):
    held = threading.Event()
    release = threading.Event()
    first_requests: list[pb.DecisionRequest] = []

    def owner_policy(request: pb.DecisionRequest) -> pb.Decision:
        if not first_requests:
            first_requests.append(request)
            held.set()
            release.wait(30)
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                           action_id=request.legal_actions[0].id)

    owner_key = server.create_key("owner")
    owner = ScriptedAgent(server.address, owner_key, "owner", ["kuhn_poker"], owner_policy, join_ladder=False)
    intruder = ScriptedAgent(server.address, server.create_key("intruder"), "intruder", ["kuhn_poker"],
                             lambda request: None, join_ladder=False)
    try:
        wait_connected(server, "owner", "intruder")
        tid = create_tournament(server, "kuhn_poker", ["owner", "random"], per_decision=30)
        assert held.wait(30)
        request = first_requests[0]
        # The intruder answers the owner's pending request with another action, and resigns its seat.
        intruder.send(pb.ConnectRequest(decision=pb.Decision(
            match_id=request.match_id, decision_id=request.decision_id, action_id=request.legal_actions[-1].id)))
        intruder.send(pb.ConnectRequest(resign=pb.Resign(match_id=request.match_id, seat=request.seat)))
        errors = wait_for(lambda: intruder.of_kind("error"), count=2)
        assert [e.code for e in errors] == [pb.ERROR_CODE_UNKNOWN_MATCH] * 2
        assert all(e.match_id == request.match_id for e in errors)
        # The owner's own key reads the running match like any spectator: public entries only.
        during = server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=request.match_id),
                                              metadata=server.metadata(owner_key))
        assert during.match.status == match_pb2.MATCH_STATUS_RUNNING and during.match.seed == 0
        assert {e.kind for e in during.log} <= {"start", "event"}
        release.set()
        t = wait_tournament(server, tid)
        assert t.matches_finished == 2
        match = next(m for m in matches_of(server, tid) if m.match_id == request.match_id)
        assert match.result.reason == match_pb2.END_REASON_NORMAL      # nobody resigned
        full = server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata())
        owner_moves = [e for e in full.log if e.kind == "action" and int(e.data["seat"]) == request.seat]
        assert int(owner_moves[0].data["action"]) == request.legal_actions[0].id   # the owner's choice stood
        assert not intruder.of_kind("decision_request") and not intruder.of_kind("match_started")
        assert owner.failure is None and intruder.failure is None and not owner.of_kind("error")
    finally:
        release.set()
        owner.close()
        intruder.close()


def test_a_spectate_key_reads_and_watches_but_cannot_administer(server):
    agent = ScriptedAgent(server.address, server.create_key("player"), "player", ["tic_tac_toe"],
                          lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id,
                                                action_id=r.legal_actions[0].id), join_ladder=False)
    try:
        wait_connected(server, "player")
        t = wait_tournament(server, create_tournament(server, "tic_tac_toe", ["player", "random"]))
        match_id = matches_of(server, t.tournament_id)[0].match_id
    finally:
        agent.close()
    viewer = server.metadata(server.create_key("viewer", scopes="spectate"))
    channel = grpc.insecure_channel(server.address)
    stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
    assert stub.ListGames(apb.ListGamesRequest(), metadata=viewer).games
    assert len(stub.ListMatches(apb.ListMatchesRequest(), metadata=viewer).matches) == 2
    assert stub.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=viewer).match.seed != 0
    watch = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
    stream = list(watch.Watch(spectator_service_pb2.WatchRequest(match_id=match_id), metadata=viewer))
    assert stream[-1].WhichOneof("message") == "ended"
    for call in (lambda: stub.CreateTournament(apb.CreateTournamentRequest(tournament=apb.Tournament(
                     game_id="tic_tac_toe", agents=["player", "random"])), metadata=viewer),
                 lambda: stub.RegisterAgent(apb.RegisterAgentRequest(name="sneaky"), metadata=viewer),
                 lambda: stub.CreateApiKey(apb.CreateApiKeyRequest(agent_name="player", scopes=[apb.SCOPE_ADMIN]),
                                           metadata=viewer),
                 lambda: stub.RunSuite(apb.RunSuiteRequest(suite="gtbench", agent_name="player"), metadata=viewer)):
        with pytest.raises(grpc.RpcError) as refused:
            call()
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "'admin' scope" in refused.value.details()
    with pytest.raises(grpc.RpcError) as anonymous:
        list(watch.Watch(spectator_service_pb2.WatchRequest(match_id=match_id)))
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as unknown:
        list(watch.Watch(spectator_service_pb2.WatchRequest(match_id="m_nope"), metadata=viewer))
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    channel.close()


