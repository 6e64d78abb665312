"""Image observations over real gRPC: an agent that declares the "images" capability receives a PNG of
its view in each Hive request; one that does not receives none."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from .helpers import run_tournament, wait_connected
from .scripted import ScriptedAgent

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _first_legal(request: pb.DecisionRequest) -> pb.Decision:
    return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                       action_id=request.legal_actions[0].id)


def test_images_go_only_to_agents_that_ask_for_them(server):
    seeing = ScriptedAgent(server.address, server.create_key("seeing"), "seeing", ["hive"], _first_legal,
                           join_ladder=False, capabilities=("images",))
    blind = ScriptedAgent(server.address, server.create_key("blind"), "blind", ["hive"], _first_legal,
                          join_ladder=False)
    try:
        wait_connected(server, "seeing", "blind")
        t = run_tournament(server, "hive", ["seeing", "blind"], parameters={"max_turns": 3})
        assert t.matches_finished == 2
        with_images = [r for r in seeing.of_kind("decision_request")]
        without = [r for r in blind.of_kind("decision_request")]
        assert with_images and without
        for request in with_images:
            (image,) = request.observation.images
            assert image.mime_type == "image/png" and image.data.startswith(PNG_SIGNATURE) and len(image.data) > 1000
        assert all(not r.observation.images for r in without)
    finally:
        seeing.close()
        blind.close()
