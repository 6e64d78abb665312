"""The agent stream, fuzzed: random message sequences with random field values, sent by a raw-stub
client to a real server while matches run (the fuzzer joins the ladder and is seated against a
well-behaved agent or house agents, so many of its decisions answer real pending requests).

After every example the server must still answer its health check; afterwards a well-behaved agent
must still connect and play, every finished match must replay from its log to its recorded
result, and no referee may have crashed."""

from __future__ import annotations

import queue
import threading
import time

import grpc
import pytest
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arena_engines
from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc
from arena_server.referee.replay import replay_match

from ..conftest import agent_process, start_server

LAST, NEXT = "the last request's", "one past the last request's"
EXAMPLE_SECONDS = 20        # the call's deadline: nothing may hang longer
GAMES = arena_engines.game_ids()


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """A server, a well-behaved ladder agent playing on it, and the fuzzer's key."""
    server = start_server(tmp_path_factory.mktemp("fuzz"), "--per-decision", "1", "--house-delay", "0.1")
    steady = agent_process(server, "steady", "random", "--game", "tic_tac_toe", "--game", "kuhn_poker",
                           "--game", "negotiation", "--game", "liars_dice", "--concurrency", "2")
    yield server, server.create_key("fuzzer")
    steady.terminate()
    steady.wait(10)
    server.stop()


# ---- what the fuzzer sends ---------------------------------------------------------------------
TEXT = st.one_of(st.text(max_size=40), st.text(min_size=900, max_size=4500),
                 st.sampled_from(["", "Agree", "<Bet>", "X: (1, 1)", "<C4>", "33", '{"bid": 3}', "Proposal: [1, 0, 2]"]))
MATCH = st.one_of(st.just(LAST), st.just(LAST), st.just(""), st.text(max_size=20))
DECISION_ID = st.one_of(st.just(LAST), st.just(LAST), st.just(NEXT), st.integers(0, 2**64 - 1))
CHOICE = st.one_of(st.none(), st.just(("legal",)), st.just(("legal text",)),
                   st.tuples(st.just("id"), st.integers(-2**63, 2**63 - 1)), st.tuples(st.just("text"), TEXT))
HELLO = st.fixed_dictionaries({
    "version": st.sampled_from(["1.0", "1.0", "1.0", "1.9", "2.0", "", "one"]),
    "name": st.sampled_from(["fuzzer", "fuzzer", "fuzzer", "someone-else", ""]),
    "games": st.lists(st.tuples(st.sampled_from(GAMES + ["no_such_game", ""]),
                                st.sampled_from(["", "", "gtbench", "llmarena", "bogus"])), max_size=4),
    "capacity": st.integers(-3, 4),
    "ladder": st.sampled_from([True, True, False]),
    "resume_token": st.sampled_from(["", "", "not-a-token"]),
})
STEP = st.one_of(
    st.tuples(st.just("wait"), st.floats(0, 0.3)),
    st.tuples(st.just("await request"), st.floats(0, 2)),
    st.tuples(st.just("decision"), MATCH, DECISION_ID, CHOICE, st.one_of(st.none(), st.text(max_size=30))),
    st.tuples(st.just("decision"), MATCH, DECISION_ID, CHOICE, st.one_of(st.none(), st.text(max_size=30))),
    st.tuples(st.just("hello"), HELLO),
    st.tuples(st.just("probe answer"), MATCH, st.text(max_size=10), TEXT),
    st.tuples(st.just("resign"), MATCH, st.integers(-2**31, 2**31 - 1)),
    st.tuples(st.just("heartbeat")),
    st.tuples(st.just("empty")),
)
# A session that gets seated: a good handshake offering real games on the ladder, then anything.
SEATED = st.fixed_dictionaries({
    "hello": st.fixed_dictionaries({
        "version": st.just("1.0"), "name": st.just("fuzzer"),
        "games": st.lists(st.tuples(st.sampled_from(GAMES), st.just("")), min_size=1, max_size=3),
        "capacity": st.integers(1, 3), "ladder": st.just(True), "resume_token": st.just(""),
    }),
    "steps": st.lists(STEP, min_size=3, max_size=16),
    "end": st.sampled_from(["half-close", "cancel"]),
})
# A handshake of any kind: keys, versions, names, games, or no Hello at all.
HANDSHAKE = st.fixed_dictionaries({
    "key": st.sampled_from(["fuzzer", "none", "bogus"]),
    "first": st.one_of(st.tuples(st.just("hello"), HELLO), STEP),
    "steps": st.lists(STEP, max_size=4),
    "end": st.sampled_from(["half-close", "cancel"]),
})


class RawClient:
    """One Connect call on the raw stubs: messages go out from a queue, answers are collected by a
    reader thread."""

    def __init__(self, address: str, key: str | None):
        self.channel = grpc.insecure_channel(address)
        self.outbox: queue.Queue = queue.Queue()
        self.received: list[pb.ConnectResponse] = []
        self.status: grpc.StatusCode | None = None
        metadata = [("authorization", f"Bearer {key}")] if key else []
        self.call = agent_service_pb2_grpc.AgentServiceStub(self.channel).Connect(
            iter(self.outbox.get, None), metadata=metadata, timeout=EXAMPLE_SECONDS)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            for response in self.call:
                self.received.append(response)
            self.status = grpc.StatusCode.OK
        except grpc.RpcError as e:
            self.status = e.code()

    def last_request(self) -> pb.DecisionRequest | None:
        requests = [r.decision_request for r in list(self.received) if r.WhichOneof("message") == "decision_request"]
        return requests[-1] if requests else None

    def requests_seen(self) -> int:
        return sum(r.WhichOneof("message") == "decision_request" for r in list(self.received))


def _hello(fields) -> pb.ConnectRequest:
    return pb.ConnectRequest(hello=pb.Hello(
        protocol_version=fields["version"], agent=pb.AgentInfo(name=fields["name"], version="fuzz"),
        games=[pb.GameOffer(game_id=g, preset=p) for g, p in fields["games"]],
        max_concurrent_matches=fields["capacity"], join_ladder=fields["ladder"], resume_token=fields["resume_token"]))


def _message(step, client: RawClient) -> pb.ConnectRequest | None:
    kind = step[0]
    last = client.last_request()
    match_id = lambda ref: (last.match_id if last else "") if ref == LAST else ref   # noqa: E731
    if kind == "hello":
        return _hello(step[1])
    if kind == "decision":
        _, match_ref, id_ref, choice, reasoning = step
        decision_id = id_ref if isinstance(id_ref, int) else (last.decision_id if last else 0) + (id_ref == NEXT)
        decision = pb.Decision(match_id=match_id(match_ref), decision_id=decision_id)
        if choice and choice[0] == "id":
            decision.action_id = choice[1]
        elif choice and choice[0] == "text":
            decision.text = choice[1]
        elif choice and last and last.legal_actions:
            legal = last.legal_actions[decision_id % len(last.legal_actions)]
            if choice[0] == "legal":
                decision.action_id = legal.id
            else:
                decision.text = legal.text
        if reasoning is not None:
            decision.metadata.reasoning = reasoning
        return pb.ConnectRequest(decision=decision)
    if kind == "probe answer":
        return pb.ConnectRequest(probe_answer=pb.ProbeAnswer(match_id=match_id(step[1]), probe_id=step[2], text=step[3]))
    if kind == "resign":
        return pb.ConnectRequest(resign=pb.Resign(match_id=match_id(step[1]), seat=step[2]))
    if kind == "heartbeat":
        return pb.ConnectRequest(heartbeat=pb.Heartbeat())
    if kind == "empty":
        return pb.ConnectRequest()
    return None


def _play(step, client: RawClient) -> None:
    kind = step[0]
    if kind == "wait":
        time.sleep(step[1])
    elif kind == "await request":
        seen, deadline = client.requests_seen(), time.monotonic() + step[1]
        while client.requests_seen() == seen and time.monotonic() < deadline and client.status is None:
            time.sleep(0.01)
    else:
        client.outbox.put(_message(step, client))


FUZZ_SETTINGS = settings(max_examples=30, deadline=None,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ_SETTINGS
@given(session=SEATED)
def test_random_messages_while_seated_never_break_the_server(fuzzed, session):
    server, fuzzer_key = fuzzed
    client = RawClient(server.address, fuzzer_key)
    client.outbox.put(_hello(session["hello"]))
    _play(("await request", 3.0), client)
    _run(server, client, session)
    assert client.status in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED), "a handled session ended in error"


@FUZZ_SETTINGS
@given(session=HANDSHAKE)
def test_random_handshakes_are_refused_or_accepted_cleanly(fuzzed, session):
    server, fuzzer_key = fuzzed
    key = {"fuzzer": fuzzer_key, "none": None, "bogus": "ak_00000000_bogus"}[session["key"]]
    client = RawClient(server.address, key)
    first = session["first"]
    client.outbox.put(_hello(first[1]) if first[0] == "hello" else _message(first, client) or pb.ConnectRequest())
    _run(server, client, session)


def _run(server, client: RawClient, session) -> None:
    try:
        for step in session["steps"]:
            if client.status is not None:
                break
            _play(step, client)
        if session["end"] == "half-close":
            client.outbox.put(None)
        else:
            client.call.cancel()
        client.reader.join(EXAMPLE_SECONDS + 5)
        assert not client.reader.is_alive(), "the call outlived its deadline"
        assert client.status != grpc.StatusCode.DEADLINE_EXCEEDED, "the server neither answered nor closed"
        if client.status not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED):
            # Refusals end the call at the handshake with a status that says why.
            assert client.status in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                                     grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT,
                                     grpc.StatusCode.NOT_FOUND)   # NOT_FOUND: an unknown resume token
            assert not any(r.WhichOneof("message") == "decision_request" for r in client.received)
    finally:
        client.outbox.put(None)
        client.call.cancel()
        client.channel.close()
    assert _health(server) == health_pb2.HealthCheckResponse.SERVING


def _decodes(frame: bytes) -> bool:
    try:
        pb.ConnectRequest.FromString(frame)
    except DecodeError:
        return False
    return True


@FUZZ_SETTINGS
@given(frames=st.lists(st.binary(max_size=64), min_size=1, max_size=4))
def test_random_bytes_after_the_hello_are_read_or_end_the_call_with_invalid_argument(fuzzed, frames):
    server, fuzzer_key = fuzzed
    hello = pb.ConnectRequest(hello=pb.Hello(protocol_version="1.0", agent=pb.AgentInfo(name="fuzzer"),
                                             games=[pb.GameOffer(game_id="nim")], join_ladder=False))
    with grpc.insecure_channel(server.address) as channel:
        connect = channel.stream_stream("/arena.v1.AgentService/Connect", request_serializer=bytes,
                                        response_deserializer=pb.ConnectResponse.FromString)
        call = connect(iter([hello.SerializeToString(), *frames]), metadata=[("authorization", f"Bearer {fuzzer_key}")],
                       timeout=EXAMPLE_SECONDS)
        try:
            received = list(call)
            status, details = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            received, status, details = [], e.code(), e.details()
    if all(map(_decodes, frames)):
        # Read as messages (some meaningless, answered in-band); the client's half-close ends the call.
        assert status == grpc.StatusCode.OK and received[0].WhichOneof("message") == "welcome"
    else:
        assert status == grpc.StatusCode.INVALID_ARGUMENT
        assert details == "undecodable message: the bytes received are not a serialized arena.v1.ConnectRequest"
    assert _health(server) == health_pb2.HealthCheckResponse.SERVING


def test_after_the_fuzzing_agents_still_play_and_every_match_replays(fuzzed):
    server, _ = fuzzed
    agent = agent_process(server, "latecomer", "random", "--game", "tic_tac_toe", "--matches", "2")
    out, err = agent.communicate(timeout=60)
    assert agent.returncode == 0, err
    assert sum(line.startswith("m_") and "  tic_tac_toe  " in line for line in out.splitlines()) == 2
    time.sleep(1.5)         # matches the fuzzer left get their last (timed-out) decisions played
    store = server.store()
    finished = store.list_matches(status="finished", limit=100_000)
    assert len(finished) >= 2
    for record in finished:
        assert replay_match(store, record.match_id) == record.result["returns"]
    void = store.list_matches(status="void", limit=100_000)
    assert not [m.match_id for m in void if m.result["reason"] == "aborted"], "a referee crashed"
    log = server.log_path.read_text()
    assert "Traceback" not in log and "referee crashed" not in log


def _health(server) -> int:
    with grpc.insecure_channel(server.address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
