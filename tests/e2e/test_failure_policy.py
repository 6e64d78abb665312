"""Illegal actions, unparseable text, stale ids and silence, each handled in-band and by policy."""

from __future__ import annotations

import time

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import match_pb2

from .helpers import matches_of, run_tournament, wait_connected
from .scripted import ScriptedAgent


def _illegal(request: pb.DecisionRequest) -> pb.Decision:
    return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, action_id=999)


def _connect(server, name: str, policy, games=("tic_tac_toe",)) -> ScriptedAgent:
    agent = ScriptedAgent(server.address, server.create_key(name), name, list(games), policy, join_ladder=False)
    wait_connected(server, name)
    return agent


def test_illegal_actions_get_in_band_errors_then_forfeit(server):
    bad = _connect(server, "bad", _illegal)
    try:
        t = run_tournament(server, "tic_tac_toe", ["bad", "random"], on_failure="forfeit", max_retries=2)
        assert t.matches_finished == 2
        for match in matches_of(server, t.tournament_id):
            bad_seat = next(p.seat for p in match.players if p.agent_name == "bad")
            assert match.result.reason == match_pb2.END_REASON_FORFEIT_ILLEGAL
            assert list(match.result.blamed_seats) == [bad_seat]
            assert match.result.seat_stats[bad_seat].illegal_actions == 3
            assert match.result.returns[bad_seat] == -1 and match.result.returns[1 - bad_seat] == 1
        errors = bad.of_kind("error")
        assert errors and all(e.code == pb.ERROR_CODE_ILLEGAL_ACTION for e in errors)
        assert "not among the legal actions" in errors[0].message
        attempts = [r.attempt for r in bad.of_kind("decision_request")]
        assert attempts.count(0) == 2 and attempts.count(1) == 2 and attempts.count(2) == 2
        retried = [r for r in bad.of_kind("decision_request") if r.attempt > 0]
        assert all("retr" in r.feedback for r in retried)
        assert bad.failure is None   # the stream stayed open throughout
    finally:
        bad.close()


def test_random_legal_policy_substitutes_and_the_match_finishes(server):
    bad = _connect(server, "bad", _illegal)
    try:
        t = run_tournament(server, "tic_tac_toe", ["bad", "random"], on_failure="random_legal", max_retries=1)
        assert t.matches_finished == 2
        for match in matches_of(server, t.tournament_id):
            bad_seat = next(p.seat for p in match.players if p.agent_name == "bad")
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            stats = match.result.seat_stats[bad_seat]
            assert stats.substituted_actions >= 1
            assert stats.illegal_actions == 2 * stats.substituted_actions
    finally:
        bad.close()


def test_void_and_replay_replays_up_to_the_cap(server):
    bad = _connect(server, "bad", _illegal)
    try:
        t = run_tournament(server, "tic_tac_toe", ["bad", "random"], on_failure="void_and_replay", max_retries=0,
                           max_replays=2)
        assert t.status == 2  # finished
        matches = matches_of(server, t.tournament_id)
        # Two scheduled matches, then two replays for the pairing: the cap counts per pairing.
        assert len(matches) == 2 + 2 and t.matches_void == 4 and t.matches_finished == 0
        assert all(m.result.reason == match_pb2.END_REASON_VOIDED for m in matches)
    finally:
        bad.close()


def test_text_decisions_are_parsed_and_bad_text_is_answered_in_band(server):
    def policy(request: pb.DecisionRequest) -> pb.Decision:
        if request.attempt == 0:
            return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, text="I pick the best one")
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                           text=f"My move: {request.legal_actions[0].text}")

    talker = _connect(server, "talker", policy)
    try:
        t = run_tournament(server, "tic_tac_toe", ["talker", "random"], on_failure="forfeit", max_retries=1)
        assert t.matches_finished == 2
        for match in matches_of(server, t.tournament_id):
            seat = next(p.seat for p in match.players if p.agent_name == "talker")
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            assert match.result.seat_stats[seat].parse_failures >= 1
        assert {e.code for e in talker.of_kind("error")} == {pb.ERROR_CODE_UNPARSEABLE_TEXT}
    finally:
        talker.close()


def test_silent_agent_is_timed_out_and_the_match_still_ends(server):
    silent = _connect(server, "silent", lambda request: None)
    try:
        t = run_tournament(server, "tic_tac_toe", ["silent", "random"], on_failure="forfeit", per_decision=0.5)
        assert t.matches_finished == 2
        for match in matches_of(server, t.tournament_id):
            seat = next(p.seat for p in match.players if p.agent_name == "silent")
            assert match.result.reason == match_pb2.END_REASON_FORFEIT_TIMEOUT
            assert list(match.result.blamed_seats) == [seat]
            assert match.result.seat_stats[seat].timeouts == 1
        assert any(e.code == pb.ERROR_CODE_TIMEOUT for e in silent.of_kind("error"))
    finally:
        silent.close()


def test_stale_and_unknown_decisions_are_refused_in_band(server):
    answered = []

    def wrong_id_first(request: pb.DecisionRequest) -> pb.Decision:
        agent.send(pb.ConnectRequest(decision=pb.Decision(
            match_id=request.match_id, decision_id=request.decision_id + 1000, action_id=request.legal_actions[0].id)))
        decision = pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                               action_id=request.legal_actions[0].id)
        answered.append(decision)
        return decision

    agent = _connect(server, "dup", wrong_id_first)
    try:
        t = run_tournament(server, "tic_tac_toe", ["dup", "random"], games_per_pairing=1)
        assert t.matches_finished == 2
        agent.send(pb.ConnectRequest(decision=answered[0]))                      # duplicate of an answered id
        agent.send(pb.ConnectRequest(decision=pb.Decision(match_id="m_nope", decision_id=1, action_id=0)))
        agent.send(pb.ConnectRequest())                                          # empty oneof
        for _ in range(100):
            if len(agent.of_kind("error")) >= len(answered) + 3:
                break
            time.sleep(0.05)
        codes = [e.code for e in agent.of_kind("error")]
        assert codes.count(pb.ERROR_CODE_STALE_DECISION) == len(answered)   # every wrong id, while running
        assert pb.ERROR_CODE_UNKNOWN_MATCH in codes          # finished match: no seat held any more
        assert pb.ERROR_CODE_MALFORMED_MESSAGE in codes
        assert agent.failure is None
    finally:
        agent.close()
