"""A browser seat speaks the agent protocol: its JSON becomes the same Decision and Resign messages a
gRPC agent sends (free text and messages included), anything else is refused with a reason, and a
decision request reaches the page with its view, legal actions, free-text spec and conversation."""

from __future__ import annotations

from types import SimpleNamespace

import arena_engines
import pytest
from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2

from arena_server.web import views
from arena_server.web.seat import MAX_TEXT, decision_dict, from_browser


def test_browser_json_becomes_the_protocols_decisions_and_resignations():
    chosen = from_browser({"type": "decision", "match_id": "m_1", "decision_id": 7, "action_id": 3})
    assert chosen.decision.action_id == 3 and chosen.decision.decision_id == 7
    assert chosen.decision.WhichOneof("choice") == "action_id"

    typed = from_browser({"type": "decision", "match_id": "m_1", "decision_id": 8, "text": "ocean,2",
                          "message": "think of the sea"})
    assert typed.decision.WhichOneof("choice") == "text" and typed.decision.text == "ocean,2"
    assert typed.decision.message == "think of the sea"

    message_only = from_browser({"type": "decision", "match_id": "m_1", "decision_id": 9, "message": "hi"})
    assert message_only.decision.WhichOneof("choice") is None and message_only.decision.message == "hi"

    resigned = from_browser({"type": "resign", "match_id": "m_1", "seat": 1})
    assert resigned.resign.match_id == "m_1" and resigned.resign.seat == 1


@pytest.mark.parametrize("data", [
    "decision", ["decision"], {"type": "decision", "decision_id": 1, "action_id": 0},
    {"type": "decision", "match_id": "m", "decision_id": True, "action_id": 0},
    {"type": "decision", "match_id": "m", "decision_id": -1, "action_id": 0},
    {"type": "decision", "match_id": "m", "decision_id": 1, "action_id": "0"},
    {"type": "decision", "match_id": "m", "decision_id": 1, "text": "x" * (MAX_TEXT + 1)},
    {"type": "decision", "match_id": "m", "decision_id": 1, "action_id": 0, "message": 5},
    {"type": "resign", "match_id": "m", "seat": "0"}, {"type": "probe", "match_id": "m"},
])
def test_anything_else_is_refused_with_a_reason(data):
    refused = from_browser(data)
    assert isinstance(refused, str) and refused


def test_a_decision_request_reaches_the_page_with_its_free_text_spec_and_conversation():
    request = pb.DecisionRequest(
        match_id="m_1", decision_id=4, seat=2, attempt=1, feedback="a clue is exactly one word",
        observation=game_pb2.Observation(text="Give a clue", conversation=[
            game_pb2.Utterance(seat=0, text="ocean", audience=[1, 2])]),
        legal_actions=[game_pb2.LegalAction(id=1, text="clue for 1"), game_pb2.LegalAction(id=2, text="clue for 2")],
        text_action=game_pb2.TextActionSpec(description="one word", max_length=20, forbidden_words=["sea"],
                                            message=game_pb2.MESSAGE_MODE_REQUIRED, audience=[0, 1]))
    request.time_remaining.FromNanoseconds(12_500_000_000)
    shown = decision_dict(request, SimpleNamespace(matches={}))
    assert shown["type"] == "decision" and shown["decision_id"] == 4 and shown["seat"] == 2
    assert shown["seconds_left"] == pytest.approx(12.5)
    assert shown["legal"] == [{"id": 1, "text": "clue for 1"}, {"id": 2, "text": "clue for 2"}]
    assert shown["text_action"] == {"description": "one word", "max_length": 20, "forbidden_words": ["sea"],
                                    "message": "required", "example": "", "audience": [0, 1]}
    assert shown["conversation"] == [{"seat": 0, "text": "ocean", "to": [1, 2]}]
    assert shown["attempt"] == 1 and shown["feedback"] == "a clue is exactly one word" and shown["board"] is None
    assert decision_dict(pb.DecisionRequest(match_id="m_1"), SimpleNamespace(matches={}))["text_action"] is None


def test_a_live_position_is_shown_only_for_games_whose_moves_and_setup_are_all_public(monkeypatch):
    assert views.live_position_public("tic_tac_toe") and views.live_position_public("connect_four")
    for game_id in ("kuhn_poker", "pig", "chameleon", "negotiation", "no_such_game"):
        assert not views.live_position_public(game_id), game_id

    real = arena_engines.game_spec("tic_tac_toe")
    hidden_setup = SimpleNamespace(information=real.information, chance=real.chance, dialogue=real.dialogue,
                                   parameters=[SimpleNamespace(name="layout", secret=True)])
    monkeypatch.setattr(arena_engines, "game_spec", lambda game_id: hidden_setup)
    assert not views.live_position_public("tic_tac_toe")
