"""What others may see (spectators, GetMatch while running) and the ladder that pairs agents."""

from __future__ import annotations

import threading

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2, spectator_service_pb2, spectator_service_pb2_grpc

from ..conftest import agent_process
from .helpers import create_tournament, matches_of, wait_connected, wait_tournament
from .scripted import ScriptedAgent


def test_private_moves_and_seed_stay_hidden_until_the_match_ends(server):
    release = threading.Event()
    second_round_asked = threading.Event()
    calls = []

    def play_round_one_then_hold(request: pb.DecisionRequest) -> pb.Decision:
        calls.append(request)
        if len(calls) == 2:
            second_round_asked.set()
            release.wait(30)
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, text="33")

    holder = ScriptedAgent(server.address, server.create_key("holder"), "holder", ["guess_two_thirds_average"],
                           play_round_one_then_hold, join_ladder=False)
    try:
        wait_connected(server, "holder")
        tid = create_tournament(server, "guess_two_thirds_average", ["holder", "random"], players_per_match=2,
                                parameters={"rounds": 3}, per_decision=30, games_per_pairing=1)
        assert second_round_asked.wait(30)
        stub = server.arena_stub()
        match_id = calls[1].match_id
        during = stub.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=server.metadata())
        assert during.match.status == match_pb2.MATCH_STATUS_RUNNING
        assert during.match.seed == 0
        kinds = {e.kind for e in during.log}
        assert "start" in kinds and "actions" not in kinds     # round 1 was played, its choices stay private
        assert [e.kind for e in during.events].count(match_pb2.EVENT_KIND_ROUND_RESOLVED) == 1
        # The second request shows round 1's public outcome but not the opponent's number.
        history = calls[1].observation.history
        assert len(history) == 1 and history[0].seat == -1
        release.set()
        t = wait_tournament(server, tid)
        assert t.matches_finished == 2
        after = stub.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=server.metadata())
        assert after.match.seed != 0
        assert sum(e.kind == "actions" for e in after.log) == 3
        rounds = [e for e in after.events if e.kind == match_pb2.EVENT_KIND_ROUND_RESOLVED]
        assert len(rounds) == 3 and all(not e.seats for e in rounds)
    finally:
        release.set()
        holder.close()


def test_spectator_sees_public_events_then_the_end(server):
    agent = agent_process(server, "shown", "random", "--game", "connect_four", "--no-ladder")
    try:
        wait_connected(server, "shown")
        tid = create_tournament(server, "connect_four", ["shown", "random"])
        wait_tournament(server, tid)
        match = matches_of(server, tid)[0]
        channel = grpc.insecure_channel(server.address)
        watcher = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        key = server.create_key("viewer", scopes="spectate")
        stream = list(watcher.Watch(spectator_service_pb2.WatchRequest(match_id=match.match_id),
                                    metadata=server.metadata(key)))
        events = [r.event for r in stream if r.WhichOneof("message") == "event"]
        assert [e.sequence for e in events] == list(range(len(events)))
        assert events[0].kind == match_pb2.EVENT_KIND_MATCH_STARTED
        assert events[-1].kind == match_pb2.EVENT_KIND_MATCH_ENDED
        moves = [e for e in events if e.kind == match_pb2.EVENT_KIND_MOVE]
        assert len(moves) >= 7
        assert stream[-1].WhichOneof("message") == "ended" and stream[-1].ended.seed != 0
    finally:
        agent.terminate()
        agent.wait(10)


def test_a_lone_ladder_agent_gets_house_opponents(server):
    agent = agent_process(server, "newcomer", "random", "--game", "tic_tac_toe", "--matches", "3")
    out, err = agent.communicate(timeout=60)
    assert agent.returncode == 0, err
    assert out.count("tic_tac_toe") >= 3
    matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="newcomer"),
                                              metadata=server.metadata()).matches
    assert len(matches) >= 3
    assert all({p.agent_name for p in m.players} == {"newcomer", "random"} for m in matches)


def test_two_ladder_agents_are_paired_with_each_other(server_factory):
    server = server_factory("--house-delay", "60")
    procs = [agent_process(server, name, "random", "--game", "connect_four", "--matches", "2")
             for name in ("left", "right")]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(game_id="connect_four"),
                                              metadata=server.metadata()).matches
    assert len(matches) >= 2
    assert all({p.agent_name for p in m.players} == {"left", "right"} for m in matches)
