"""Bad input the failure-policy tests do not cover: out-of-order messages, decisions without a
choice, empty and blank text, out-of-range ids, probe answers and resignations that match nothing,
unknown presets and bad tournament parameters. Each gets a clear in-band error or status, the
stream stays up, and every match still replays from its log."""

from __future__ import annotations

import itertools

import grpc
import pytest
from google.protobuf import struct_pb2

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_server.referee.replay import replay_match

from .helpers import matches_of, run_tournament, wait_connected
from .scripted import ScriptedAgent

# A bad answer for each first ask, then a legal one on the retry; the code each bad answer earns.
BAD_ANSWERS = [
    (lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id), pb.ERROR_CODE_MALFORMED_MESSAGE),
    (lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id, text=""), pb.ERROR_CODE_UNPARSEABLE_TEXT),
    (lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id, text=" \n\t "),
     pb.ERROR_CODE_UNPARSEABLE_TEXT),
    (lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id, action_id=-1), pb.ERROR_CODE_ILLEGAL_ACTION),
    (lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id, action_id=2**63 - 1),
     pb.ERROR_CODE_ILLEGAL_ACTION),
]


def test_out_of_order_and_meaningless_messages_get_in_band_errors_and_matches_stay_sound(server):
    bad_turns = itertools.cycle(BAD_ANSWERS)
    sent: list[tuple[str, int, int]] = []     # (match id, decision id, expected code) of every bad answer
    agent: ScriptedAgent

    def policy(request: pb.DecisionRequest) -> pb.Decision:
        if request.attempt > 0:
            return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                               action_id=request.legal_actions[0].id)
        # Noise that answers nothing, before the real (bad) answer: none of it may disturb the match.
        agent.send(pb.ConnectRequest(hello=pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name="messy"))))
        agent.send(pb.ConnectRequest(probe_answer=pb.ProbeAnswer(match_id=request.match_id, probe_id="p_none",
                                                                 text="whatever")))
        agent.send(pb.ConnectRequest(resign=pb.Resign(match_id=request.match_id, seat=1 - request.seat)))
        make, code = next(bad_turns)
        sent.append((request.match_id, request.decision_id, code))
        return make(request)

    agent = ScriptedAgent(server.address, server.create_key("messy"), "messy", ["tic_tac_toe"], policy,
                          join_ladder=False)
    try:
        wait_connected(server, "messy")
        # Before any match: a decision for a match that never existed.
        agent.send(pb.ConnectRequest(decision=pb.Decision(match_id="m_never", decision_id=1, action_id=0)))
        t = run_tournament(server, "tic_tac_toe", ["messy", "random"], games_per_pairing=2, max_retries=1,
                           on_failure="forfeit")
        assert t.matches_finished == 4
        errors = agent.of_kind("error")
        assert errors[0].code == pb.ERROR_CODE_UNKNOWN_MATCH and errors[0].match_id == "m_never"
        by_decision = {(e.match_id, e.decision_id): e.code for e in errors if e.decision_id}
        assert [by_decision[(match_id, decision_id)] for match_id, decision_id, _ in sent] == [c for *_, c in sent]
        assert {c for *_, c in sent} == {c for _, c in BAD_ANSWERS}   # every kind was tried
        noise = [e for e in errors if not e.decision_id and e.match_id != "m_never"]
        assert [e.code for e in noise].count(pb.ERROR_CODE_MALFORMED_MESSAGE) == len(sent)      # second Hellos
        assert [e.code for e in noise].count(pb.ERROR_CODE_UNKNOWN_MATCH) == len(sent)          # the other seat
        assert all("only once" in e.message for e in noise if e.code == pb.ERROR_CODE_MALFORMED_MESSAGE)
        assert agent.failure is None
        store = server.store()
        refused = 0
        for match in matches_of(server, t.tournament_id):
            seat = next(p.seat for p in match.players if p.agent_name == "messy")
            assert match.result.reason == match_pb2.END_REASON_NORMAL
            stats = match.result.seat_stats[seat]
            refused += stats.illegal_actions + stats.parse_failures
            assert stats.substituted_actions == 0
            assert replay_match(store, match.match_id) == list(match.result.returns)
        assert refused == len(sent)
    finally:
        agent.close()


def test_unknown_presets_are_refused_in_welcome(server):
    hello_games = [("tic_tac_toe", "gtbench"), ("connect_four", "no_such_preset"), ("", "")]
    welcome = _Hello(server, server.create_key("picky"), "picky", hello_games).welcome
    assert list(welcome.accepted_games) == ["tic_tac_toe"]
    reasons = {g.game_id: g.reason for g in welcome.rejected_games}
    assert "no preset 'no_such_preset'" in reasons["connect_four"] and "gtbench" in reasons["connect_four"]
    assert "unknown game ''" in reasons[""]


class _Hello:
    """One handshake with presets (ScriptedAgent offers games without them)."""

    def __init__(self, server, key: str, name: str, games: list[tuple[str, str]]):
        from arena.v1 import agent_service_pb2_grpc

        hello = pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name=name),
                         games=[pb.GameOffer(game_id=g, preset=p) for g, p in games], join_ladder=False)
        with grpc.insecure_channel(server.address) as channel:
            call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(
                iter([pb.ConnectRequest(hello=hello)]), metadata=server.metadata(key))
            self.welcome = next(iter(call)).welcome
            call.cancel()


@pytest.mark.parametrize("game_id,parameters,message", [
    ("no_such_game", {}, "unknown game 'no_such_game'"),
    ("tic_tac_toe", {"size": 4}, "has no parameter 'size'"),
    ("guess_two_thirds_average", {"rounds": -5}, "'rounds' must be an integer in 1..100"),
    ("guess_two_thirds_average", {"rounds": "many"}, "'rounds' must be an integer"),
    ("nim", {"misere": 1}, "true or false"),
    ("iterated_prisoners_dilemma", {"action_labels": ["c", "d"]}, ""),   # the engine raises TypeError
])
def test_tournaments_with_unknown_games_or_bad_parameters_are_refused_at_once(server, game_id, parameters, message):
    params = struct_pb2.Struct()
    params.update(parameters)
    tournament = apb.Tournament(name="bad", game_id=game_id, agents=["random", "mcts"], parameters=params)
    with pytest.raises(grpc.RpcError) as refused:
        server.arena_stub().CreateTournament(apb.CreateTournamentRequest(tournament=tournament),
                                             metadata=server.metadata())
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in refused.value.details()
    listed = server.arena_stub().ListMatches(apb.ListMatchesRequest(), metadata=server.metadata()).matches
    assert not listed
