"""Hello capability "no_match_events": the agent is sent no MatchEvent, yet learns every public move
from its requests' observation history and the outcome from MatchEnded; agents without it and
spectators still receive every event, live."""

from __future__ import annotations

import threading

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import match_pb2, spectator_service_pb2, spectator_service_pb2_grpc

from .helpers import create_tournament, matches_of, wait_connected, wait_tournament
from .scripted import ScriptedAgent


def _first_legal(request: pb.DecisionRequest) -> pb.Decision:
    return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                       action_id=request.legal_actions[0].id)


def test_an_agent_without_events_sees_every_move_in_its_requests_and_the_other_gets_them_all(server):
    quiet = ScriptedAgent(server.address, server.create_key("quiet"), "quiet", ["tic_tac_toe"], _first_legal,
                          join_ladder=False, capabilities=("no_match_events",))
    chatty = ScriptedAgent(server.address, server.create_key("chatty"), "chatty", ["tic_tac_toe"], _first_legal,
                           join_ladder=False)
    try:
        wait_connected(server, "quiet", "chatty")
        tid = create_tournament(server, "tic_tac_toe", ["quiet", "chatty"])
        assert wait_tournament(server, tid).matches_finished == 2
        assert quiet.ended.wait(10) and chatty.ended.wait(10)

        assert quiet.of_kind("event") == []
        assert len(quiet.of_kind("match_started")) == 2 and len(quiet.of_kind("match_ended")) == 2
        events = chatty.of_kind("event")
        for match in matches_of(server, tid):
            own = sorted((e for e in events if e.match_id == match.match_id), key=lambda e: e.sequence)
            assert own[0].kind == match_pb2.EVENT_KIND_MATCH_STARTED
            assert own[-1].kind == match_pb2.EVENT_KIND_MATCH_ENDED
            moves = [(e.seats[0], int(e.data["action_id"])) for e in own if e.kind == match_pb2.EVENT_KIND_MOVE]
            # The quiet agent's last request of the match lists every move before it, in order.
            requests = [r for r in quiet.of_kind("decision_request") if r.match_id == match.match_id]
            history = [(m.seat, m.action_id) for m in requests[-1].observation.history]
            assert history and history == moves[:len(history)]
            assert len(history) >= len(moves) - 2      # at most the quiet seat's own move and the last one after it
    finally:
        quiet.close()
        chatty.close()


def test_a_spectator_gets_live_events_of_a_match_whose_agents_take_none(server):
    """The referee builds event messages only when someone takes them; a spectator who arrives
    mid-match must still get every one, from the log and then live."""
    first_request = threading.Event()
    release = threading.Event()

    def hold_first_then_play(request: pb.DecisionRequest) -> pb.Decision:
        first_request.set()
        release.wait(30)
        return _first_legal(request)

    quiet = ScriptedAgent(server.address, server.create_key("quiet"), "quiet", ["connect_four"], hold_first_then_play,
                          join_ladder=False, capabilities=("no_match_events",))
    channel = grpc.insecure_channel(server.address)
    try:
        wait_connected(server, "quiet")
        tid = create_tournament(server, "connect_four", ["quiet", "random"], per_decision=30)
        assert first_request.wait(30)
        match_id = quiet.of_kind("decision_request")[0].match_id
        watcher = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        stream = watcher.Watch(spectator_service_pb2.WatchRequest(match_id=match_id),
                               metadata=server.metadata(server.create_key("viewer", scopes="spectate")))
        received = []
        reader = threading.Thread(target=lambda: received.extend(stream), daemon=True)
        reader.start()
        release.set()
        wait_tournament(server, tid)
        reader.join(30)
        assert not reader.is_alive()
        events = [r.event for r in received if r.WhichOneof("message") == "event"]
        assert [e.sequence for e in events] == list(range(len(events)))
        assert events[-1].kind == match_pb2.EVENT_KIND_MATCH_ENDED
        assert sum(e.kind == match_pb2.EVENT_KIND_MOVE for e in events) >= 7
        assert received[-1].WhichOneof("message") == "ended"
        assert quiet.of_kind("event") == []
    finally:
        release.set()
        quiet.close()
        channel.close()
