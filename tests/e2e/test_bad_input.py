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

from .helpers import matches_of, run_tournament, wait_connected, wait_for
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


HUGE = "m" * (5 << 19)      # 2.5 MiB: under the 4 MiB message limit, over it when echoed twice


def _is_bounded_echo(echoed: str, sent: str) -> bool:
    """The echo of `sent` that the server gives: its first 100 characters, marked as cut."""
    return echoed == f"{sent[:100]}…({len(sent)} characters)"


def test_oversized_ids_are_answered_in_band_with_bounded_echoes_and_the_stream_stays_open(server):
    agent = ScriptedAgent(server.address, server.create_key("echoed"), "echoed", ["tic_tac_toe"], lambda r: None,
                          join_ladder=False)
    try:
        wait_connected(server, "echoed")
        agent.send(pb.ConnectRequest(decision=pb.Decision(match_id=HUGE, decision_id=1, action_id=0)))
        agent.send(pb.ConnectRequest(resign=pb.Resign(match_id=HUGE, seat=0)))
        agent.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        unknown_decision, unknown_resign = wait_for(lambda: agent.of_kind("error"), 2)
        assert wait_for(lambda: agent.of_kind("heartbeat"))            # the stream is still open
        assert agent.failure is None
        for error in (unknown_decision, unknown_resign):
            assert error.code == pb.ERROR_CODE_UNKNOWN_MATCH and _is_bounded_echo(error.match_id, HUGE)
            assert error.match_id in error.message and len(error.message) < 250
        assert unknown_decision.decision_id == 1
    finally:
        agent.close()
    assert "m" * 101 not in server.log_path.read_text()


def _refusal(server, key: str, hello: pb.Hello) -> grpc.RpcError:
    from arena.v1 import agent_service_pb2_grpc

    with grpc.insecure_channel(server.address) as channel:
        call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(
            iter([pb.ConnectRequest(hello=hello)]), metadata=server.metadata(key))
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(call))
    return refused.value


def test_refused_hellos_echo_oversized_names_and_versions_bounded(server):
    key = server.create_key("named")
    impostor = _refusal(server, key, pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name=HUGE)))
    assert impostor.code() == grpc.StatusCode.PERMISSION_DENIED
    assert impostor.details().startswith("this API key plays as 'named'; Hello names 'mmmm")
    version = "9." + HUGE
    future = _refusal(server, key, pb.Hello(protocol_version=version, agent=pb.AgentInfo(name="named")))
    assert future.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert future.details() == f"protocol version {version[:100]}…({len(version)} characters) is not supported; " \
                               "this server speaks 1.0"
    invalid = _refusal(server, server.admin_key, pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name=HUGE)))
    assert invalid.code() == grpc.StatusCode.INVALID_ARGUMENT and "invalid agent name 'mmmm" in invalid.details()
    assert all(len(e.details()) < 300 for e in (impostor, future, invalid))


def test_a_hello_offering_a_flood_of_unknown_games_gets_a_small_welcome(server):
    offers = [(f"no_such_game_{i}", "") for i in range(100_000)] + [("nim", "")]
    welcome = _Hello(server, server.create_key("flooder"), "flooder", offers).welcome
    assert list(welcome.accepted_games) == ["nim"]
    rejected = {g.game_id: g.reason for g in welcome.rejected_games}
    assert len(rejected) == 50 and "unknown game 'no_such_game_0'" in rejected["no_such_game_0"]
    assert welcome.ByteSize() < 64 * 1024


def test_a_hello_with_an_oversized_game_id_or_preset_gets_them_back_bounded(server):
    welcome = _Hello(server, server.create_key("odd"), "odd", [(HUGE, ""), ("nim", "x" * 1000), ("nim", "")]).welcome
    (game, game_reason), (preset, preset_reason) = [(g.game_id, g.reason) for g in welcome.rejected_games]
    assert _is_bounded_echo(game, HUGE) and f"unknown game '{game}'" in game_reason
    assert preset == "nim" and f"no preset '{'x' * 100}…(1000 characters)'" in preset_reason


def _raw(server, method: str, streaming: bool, requests: list[bytes], key: str):
    """Sends `requests` as they are, bytes on the wire, to `method`; returns the responses' bytes."""
    channel = grpc.insecure_channel(server.address)
    identity = lambda data: data      # noqa: E731
    kind = channel.stream_stream if streaming else channel.unary_stream
    call = kind(method, request_serializer=identity, response_deserializer=identity)
    try:
        return list(call(iter(requests) if streaming else requests[0], metadata=server.metadata(key), timeout=10))
    finally:
        channel.close()


GARBAGE = b"\x0a\xff\x01"      # field 1, length-delimited, 255 bytes announced, one sent


def test_undecodable_bytes_end_the_call_with_invalid_argument_and_the_server_serves_on(server):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    key = server.create_key("garbled")
    hello = pb.ConnectRequest(hello=pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name="garbled"),
                                             games=[pb.GameOffer(game_id="nim")])).SerializeToString()
    connect = "/arena.v1.AgentService/Connect"
    for requests in ([GARBAGE], [hello, GARBAGE]):              # first message, or after the handshake
        with pytest.raises(grpc.RpcError) as refused:
            _raw(server, connect, True, requests, key)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details() == ("undecodable message: the bytes received are not a serialized "
                                           "arena.v1.ConnectRequest")
    for method, expected in (("/arena.v1.ArenaService/ListGames", "arena.v1.ListGamesRequest"),
                             ("/arena.v1.SpectatorService/Watch", "arena.v1.WatchRequest")):
        with pytest.raises(grpc.RpcError) as refused:
            _raw(server, method, False, [GARBAGE], server.admin_key)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and expected in refused.value.details()
    # Every service still answers well-formed calls, the streaming ones included.
    assert server.arena_stub().ListGames(apb.ListGamesRequest(), metadata=server.metadata()).games
    with grpc.insecure_channel(server.address) as channel:
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        listed = next(reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        assert "arena.v1.AgentService" in [s.name for s in listed.list_services_response.service]
    back = ScriptedAgent(server.address, key, "garbled", ["tic_tac_toe"], lambda r: None, join_ladder=False)
    try:
        assert wait_for(lambda: [back.welcome] if back.welcome else []) and back.failure is None
    finally:
        back.close()


def test_any_status_quoting_an_oversized_id_stays_a_readable_bounded_status(server):
    """Services quote ids in their NOT_FOUND messages; the server bounds every status message, so
    the caller gets NOT_FOUND, not a RESOURCE_EXHAUSTED for a trailer grown past gRPC's limit."""
    from arena.v1 import spectator_service_pb2 as spb
    from arena.v1 import spectator_service_pb2_grpc

    with pytest.raises(grpc.RpcError) as missing:
        server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=HUGE), metadata=server.metadata())
    with grpc.insecure_channel(server.address) as channel:
        with pytest.raises(grpc.RpcError) as unwatchable:
            list(spectator_service_pb2_grpc.SpectatorServiceStub(channel).Watch(spb.WatchRequest(match_id=HUGE),
                                                                                metadata=server.metadata()))
    for refused in (missing.value, unwatchable.value):
        assert refused.code() == grpc.StatusCode.NOT_FOUND
        quoted = f"no match {HUGE!r}"
        assert refused.details() == f"{quoted[:1000]}…({len(quoted)} characters)"
        assert len(refused.details()) < 1100
