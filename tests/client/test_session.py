"""The SDK's session against a real grpc.aio server on loopback running a scripted AgentService.

Each test gives the servicer a script: an async function that plays the server's side of one
stream (read Hello, send Welcome, start matches, ask, check answers, end matches). Failures inside
the script are re-raised in the test, so they read as ordinary assertion errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime

import grpc
import pytest
from google.protobuf import struct_pb2

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import agent_service_pb2_grpc, arena_service_pb2_grpc, game_pb2, match_pb2
from arena_client import (Agent, Choice, ErrorView, LegalAction, PublicMove, RandomAgent, Session, SessionError,
                          TextActionSpec)
from arena_client.agents.mcts_agent import MCTSAgent

KEY = "secret-key"


class Stream:
    """The server's end of one Connect stream, as a script sees it."""

    def __init__(self, requests, context: grpc.aio.ServicerContext):
        self.context = context
        self.heartbeats = 0
        self._inbox: asyncio.Queue[pb.ConnectRequest] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(requests))

    async def _read(self, requests) -> None:
        try:
            async for message in requests:
                if message.WhichOneof("message") == "heartbeat":
                    self.heartbeats += 1
                else:
                    await self._inbox.put(message)
        except Exception:   # the client left: nothing more to read, and recv() times out if a script expected more
            pass

    async def recv(self, timeout: float = 5.0) -> pb.ConnectRequest:
        """The next message other than a heartbeat."""
        return await asyncio.wait_for(self._inbox.get(), timeout)

    async def send(self, **message) -> None:
        await self.context.write(pb.ConnectResponse(**message))

    async def welcome(self, heartbeat: float = 10.0, accepted=("tic_tac_toe",), rejected=(), agent_name="") -> pb.Hello:
        hello = (await self.recv()).hello
        welcome = pb.Welcome(session_id="s1", resume_token="resume-me", protocol_version="1.0", server_id="scripted",
                             accepted_games=list(accepted), agent_name=agent_name,
                             rejected_games=[pb.RejectedGame(game_id=g, reason=r) for g, r in rejected])
        welcome.heartbeat_interval.FromNanoseconds(int(heartbeat * 1e9))
        await self.send(welcome=welcome)
        return hello

    async def start(self, match_id: str, seat: int, game_id: str = "tic_tac_toe", **parameters) -> None:
        info = match_pb2.MatchInfo(match_id=match_id, game_id=game_id, tournament_id="t1",
                                   players=[match_pb2.Player(seat=s, agent_name=f"p{s}") for s in range(2)],
                                   parameters=_struct(parameters))
        info.time_control.per_decision.FromSeconds(5)
        await self.send(match_started=pb.MatchStarted(match=info, seat=seat))

    async def ask(self, match_id: str, decision_id: int, seat: int, actions=(3, 5), time_remaining: float = 5.0,
                  **fields) -> None:
        request = pb.DecisionRequest(
            match_id=match_id, decision_id=decision_id, seat=seat,
            observation=game_pb2.Observation(text=f"board of {match_id}", data=_struct({"turn": seat}),
                                             history=[game_pb2.PublicMove(move_number=0, seat=1, action_id=4,
                                                                          text="O(2,2)")]),
            legal_actions=[game_pb2.LegalAction(id=a, text=f"a{a}") for a in actions], **fields)
        request.time_remaining.FromNanoseconds(int(time_remaining * 1e9))
        request.deadline.FromNanoseconds(time.time_ns() + int(time_remaining * 1e9))
        await self.send(decision_request=request)

    async def end(self, match_id: str, seat: int, returns=(1.0, -1.0), game_id: str = "tic_tac_toe",
                  players=()) -> None:
        result = match_pb2.MatchResult(reason=match_pb2.END_REASON_NORMAL, returns=list(returns),
                                       ranks=[1 if r == max(returns) else 2 for r in returns], summary="done")
        info = match_pb2.MatchInfo(match_id=match_id, game_id=game_id, status=match_pb2.MATCH_STATUS_FINISHED,
                                   result=result,
                                   players=[match_pb2.Player(seat=s, agent_name=n) for s, n in enumerate(players)])
        await self.send(match_ended=pb.MatchEnded(match=info, seat=seat))


class ScriptedAgentService(agent_service_pb2_grpc.AgentServiceServicer):
    def __init__(self, script):
        self.script = script
        self.failure: BaseException | None = None

    async def Connect(self, request_iterator, context):
        metadata = dict(context.invocation_metadata())
        stream = Stream(request_iterator, context)
        if metadata.get("authorization") != f"Bearer {KEY}":
            await stream.recv()     # as the arena server does: Hello first, then the refusal
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown API key")
        try:
            await self.script(stream)
        except grpc.aio.AbortError:
            raise
        except Exception as e:
            self.failure = e
            raise


@pytest.fixture(scope="module")
def run():
    """Runs a coroutine to completion on one event loop shared by the module: grpc.aio binds its
    poller to every loop it meets and would later complain about closed ones."""
    loop = asyncio.new_event_loop()
    yield lambda coroutine: loop.run_until_complete(asyncio.wait_for(coroutine, 30))
    loop.close()


class ListedGames(arena_service_pb2_grpc.ArenaServiceServicer):
    """ArenaService.ListGames only, answering `games` (or refusing with `refusal`), recording each
    call's key."""

    def __init__(self, games=(), refusal: tuple[grpc.StatusCode, str] | None = None):
        self.games, self.refusal, self.keys = list(games), refusal, []

    async def ListGames(self, request, context):
        self.keys.append(dict(context.invocation_metadata()).get("authorization"))
        if self.refusal:
            await context.abort(*self.refusal)
        return apb.ListGamesResponse(games=self.games)


@contextlib.asynccontextmanager
async def scripted_server(script, listed: ListedGames | None = None):
    servicer = ScriptedAgentService(script)
    server = grpc.aio.server()
    agent_service_pb2_grpc.add_AgentServiceServicer_to_server(servicer, server)
    arena_service_pb2_grpc.add_ArenaServiceServicer_to_server(listed or ListedGames(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        await server.stop(0)
        if servicer.failure is not None:    # the root cause, rather than the client's view of it
            raise servicer.failure


def play(run, script, agent: Agent, games=("tic_tac_toe",), key: str = KEY, listed: ListedGames | None = None,
         **options) -> Session:
    """Runs a Session against the scripted server to its end; returns it for inspection."""
    async def main() -> Session:
        async with scripted_server(script, listed) as (address, _):
            session = Session(agent, address, key, games, connect_timeout=5, **options)
            await session.run()
        return session

    return run(main())


def _struct(values: dict) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


class Recorder(Agent):
    """A sync agent that records what it sees. On match "slow" it first waits until the server has
    received the decision of match "fast" (asked later), then answers illegally."""

    name = "recorder"
    version = "1.2"
    description = "records everything"

    def __init__(self, fast_received: threading.Event):
        self.fast_received = fast_received
        self.requests, self.started, self.events, self.errors, self.ended = [], [], [], [], []

    def decide(self, request):
        self.requests.append(request)
        if request.match_id == "slow" and request.attempt == 0:
            assert self.fast_received.wait(5), "the other match's decision never reached the server"
            return Choice(action_id=99)
        return Choice(action_id=request.legal_actions[-1].action_id, reasoning="last one")

    def on_match_start(self, match):
        self.started.append(match)

    def on_event(self, event):
        self.events.append(event)

    def on_error(self, error):
        self.errors.append(error)

    async def on_match_end(self, result):
        self.ended.append(result)


def test_handshake_two_concurrent_matches_retry_heartbeats_and_results(run):
    fast_received = threading.Event()
    seen = {}

    async def script(stream: Stream):
        seen["hello"] = await stream.welcome(heartbeat=0.05, accepted=("tic_tac_toe", "connect_four"),
                                             rejected=[("nope", "unknown game")])
        await stream.start("slow", seat=0, rounds=3)
        await stream.start("fast", seat=1, game_id="connect_four")
        await stream.ask("slow", 1, seat=0)
        await stream.ask("fast", 1, seat=1, actions=(0, 6))

        first = (await stream.recv()).decision
        assert (first.match_id, first.decision_id, first.action_id) == ("fast", 1, 6)
        assert first.metadata.reasoning == "last one" and first.metadata.latency.ToNanoseconds() > 0
        fast_received.set()

        illegal = (await stream.recv()).decision
        assert (illegal.match_id, illegal.decision_id, illegal.action_id) == ("slow", 1, 99)
        await stream.send(error=pb.Error(code=pb.ERROR_CODE_ILLEGAL_ACTION, message="99 is not legal",
                                         match_id="slow", decision_id=1))
        await stream.ask("slow", 2, seat=0, attempt=1, feedback="99 is not legal (1 retry left)")
        retry = (await stream.recv()).decision
        assert (retry.match_id, retry.decision_id, retry.action_id) == ("slow", 2, 5)

        for _ in range(100):
            if stream.heartbeats >= 2:
                break
            await asyncio.sleep(0.02)
        seen["heartbeats"] = stream.heartbeats
        await stream.send(event=match_pb2.MatchEvent(match_id="fast", sequence=4, kind=match_pb2.EVENT_KIND_MOVE,
                                                     seats=[1], text="seat 1 plays column 6"))
        await stream.end("fast", seat=1, returns=(-1.0, 1.0), game_id="connect_four")
        await stream.end("slow", seat=0, returns=(0.0, 0.0))
        await asyncio.sleep(10)     # the client leaves after its second match

    agent = Recorder(fast_received)
    session = play(run, script, agent, games=["tic_tac_toe", ("connect_four", "pro"), "nope"], max_concurrent_matches=2,
                   join_ladder=False, capabilities=["probes"], max_matches=2)

    hello = seen["hello"]
    assert hello.protocol_version == "1.0"
    assert (hello.agent.name, hello.agent.version, hello.agent.description) == ("recorder", "1.2", "records everything")
    assert [(g.game_id, g.preset) for g in hello.games] == [("tic_tac_toe", ""), ("connect_four", "pro"), ("nope", "")]
    assert (hello.max_concurrent_matches, hello.join_ladder, list(hello.capabilities)) == (2, False, ["probes"])
    assert not hello.resume_token
    assert seen["heartbeats"] >= 2

    assert session.welcome.session_id == "s1" and session.welcome.resume_token == "resume-me"
    assert session.welcome.agent_name == "recorder"      # a server that does not say: the name Hello gave
    assert session.welcome.heartbeat_interval == pytest.approx(0.05)
    assert session.welcome.rejected_games == {"nope": "unknown game"}
    assert [(r.match_id, r.game_id, r.seat, r.returns, r.reason) for r in session.results] == [
        ("fast", "connect_four", 1, [-1.0, 1.0], "normal"), ("slow", "tic_tac_toe", 0, [0.0, 0.0], "normal")]
    assert [r.my_return for r in session.results] == [1.0, 0.0]
    assert agent.ended == session.results

    slow_start, fast_start = agent.started
    assert (slow_start.match_id, slow_start.seat, slow_start.players, slow_start.tournament_id) == \
        ("slow", 0, ["p0", "p1"], "t1")
    assert slow_start.parameters == {"rounds": 3} and slow_start.per_decision == 5.0
    assert agent.errors == [ErrorView("illegal_action", "99 is not legal", "slow", 1)]
    assert [(e.kind, e.seats, e.text) for e in agent.events] == [("move", [1], "seat 1 plays column 6")]

    retry = next(r for r in agent.requests if r.attempt == 1)
    assert (retry.match_id, retry.decision_id, retry.seat, retry.game_id) == ("slow", 2, 0, "tic_tac_toe")
    assert retry.feedback == "99 is not legal (1 retry left)"
    assert retry.legal_actions == [LegalAction(3, "a3"), LegalAction(5, "a5")]
    assert retry.observation_text == "board of slow" and retry.observation_data == {"turn": 0}
    assert retry.history == [PublicMove(0, 1, 4, "O(2,2)")]
    assert retry.text_action is None and retry.parameters == {"rounds": 3}
    assert isinstance(retry.deadline, datetime) and retry.deadline.tzinfo is not None
    assert retry.time_remaining == 5.0


class AsyncTalker(Agent):
    name = "talker"

    def __init__(self):
        self.threads, self.requests = set(), []

    async def decide(self, request):
        self.threads.add(threading.get_ident())
        self.requests.append(request)
        await asyncio.sleep(0.01)
        return Choice(text=f"hello within {request.text_action.max_length}", reasoning="polite", prompt_tokens=10,
                      completion_tokens=5, cost_usd=0.25, extra={"model": "tiny"})

    async def answer_probe(self, probe):
        return probe.choices[0]


def test_async_decide_text_action_metadata_and_probe(run):
    async def script(stream: Stream):
        await stream.welcome()
        await stream.start("m", seat=0)
        probe = pb.Probe(match_id="m", probe_id="p1", seat=0, question="Who wins?", choices=["me", "them"])
        await stream.send(probe=probe)
        answer = (await stream.recv()).probe_answer
        assert (answer.match_id, answer.probe_id, answer.text) == ("m", "p1", "me")

        await stream.ask("m", 7, seat=0, actions=(),
                         text_action=game_pb2.TextActionSpec(description="a greeting", max_length=40,
                                                             forbidden_words=["bye"]))
        decision = (await stream.recv()).decision
        assert (decision.match_id, decision.decision_id, decision.WhichOneof("choice")) == ("m", 7, "text")
        assert decision.text == "hello within 40"
        meta = decision.metadata
        assert (meta.reasoning, meta.prompt_tokens, meta.completion_tokens, meta.cost_usd) == ("polite", 10, 5, 0.25)
        assert dict(meta.extra) == {"model": "tiny"}
        await stream.end("m", seat=0)

    agent = AsyncTalker()
    session = play(run, script, agent, max_matches=1)
    assert [r.match_id for r in session.results] == ["m"]
    assert agent.threads == {threading.get_ident()}       # async decide runs on the session's loop
    (request,) = agent.requests
    assert request.legal_actions == [] and request.text_action == TextActionSpec("a greeting", 40, ("bye",))


class Sleeper(Agent):
    def decide(self, request):
        threading.Event().wait(0.4)
        return Choice(action_id=request.legal_actions[0].action_id)


def test_a_decision_past_its_deadline_is_not_sent(run, caplog):
    async def script(stream: Stream):
        await stream.welcome()
        await stream.start("m", seat=0)
        await stream.ask("m", 1, seat=0, time_remaining=0.1)
        with pytest.raises(asyncio.TimeoutError):
            await stream.recv(timeout=0.8)
        await stream.end("m", seat=0)

    with caplog.at_level(logging.WARNING, logger="arena_client"):
        session = play(run, script, Sleeper(), max_matches=1)
    assert len(session.results) == 1
    assert "over its 0.10 s limit; not sent" in caplog.text


def test_random_agent_plays_legal_actions_and_sends_nothing_for_text_only_requests(run, caplog):
    async def script(stream: Stream):
        await stream.welcome()
        await stream.start("m", seat=1)
        await stream.ask("m", 1, seat=1, actions=(),
                         text_action=game_pb2.TextActionSpec(description="a clue", max_length=20))
        with pytest.raises(asyncio.TimeoutError):
            await stream.recv(timeout=0.5)
        await stream.ask("m", 2, seat=1, actions=(2, 4, 8))
        decision = (await stream.recv()).decision
        assert decision.decision_id == 2 and decision.action_id in (2, 4, 8)
        await stream.end("m", seat=1)

    session = play(run, script, RandomAgent(seed=1), max_matches=1)
    assert len(session.results) == 1
    assert "only accepts free text (a clue)" in caplog.text


def test_an_agent_that_ignores_events_declares_no_match_events_and_one_that_reads_them_does_not(run):
    hellos = []

    async def script(stream: Stream):
        hellos.append(await stream.welcome())
        await stream.start("m", seat=0)
        await stream.end("m", seat=0)

    play(run, script, RandomAgent(seed=1), max_matches=1, capabilities=["probes"])
    play(run, script, Recorder(threading.Event()), max_matches=1, capabilities=["probes"])
    assert [list(h.capabilities) for h in hellos] == [["probes", "no_match_events"], ["probes"]]


@pytest.mark.parametrize("key,code,message", [
    ("wrong-key", grpc.StatusCode.UNAUTHENTICATED, "unknown API key"),
    (KEY, grpc.StatusCode.PERMISSION_DENIED, "this API key plays as 'alice'"),
    (KEY, grpc.StatusCode.FAILED_PRECONDITION, "protocol version 1.0 is not supported"),
])
def test_a_refused_handshake_raises_with_the_servers_message(run, key, code, message):
    async def script(stream: Stream):
        await stream.recv()
        await stream.context.abort(code, message)

    with pytest.raises(SessionError) as refused:
        play(run, script, RandomAgent(), key=key)
    assert refused.value.code == code
    assert code.name in str(refused.value) and message in str(refused.value)


def test_no_accepted_game_is_an_error(run):
    async def script(stream: Stream):
        await stream.welcome(accepted=(), rejected=[("tic_tac_toe", "unknown preset 'x'")])
        await asyncio.sleep(10)

    with pytest.raises(SessionError, match="accepted none of the offered games.*unknown preset"):
        play(run, script, RandomAgent(), games=[("tic_tac_toe", "x")])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_server_raises_after_the_connect_timeout(run):
    session = Session(RandomAgent(), f"127.0.0.1:{_free_port()}", KEY, ["tic_tac_toe"], connect_timeout=0.3)
    with pytest.raises(SessionError, match="cannot reach") as unreachable:
        run(session.run())
    assert unreachable.value.code == grpc.StatusCode.UNAVAILABLE


async def _cli(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "arena_client.cli", *args,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, out.decode(), err.decode()


def test_cli_plays_prints_each_match_and_a_summary(run):
    async def script(stream: Stream):
        hello = await stream.welcome(accepted=("tic_tac_toe", "nim"), agent_name="alice")
        # No --name: Hello leaves the name to the server, which plays the key's agent and says so.
        assert hello.agent.name == "" and not hello.join_ladder and hello.max_concurrent_matches == 2
        assert [(g.game_id, g.preset) for g in hello.games] == [("tic_tac_toe", "classic"), ("nim", "classic")]
        await stream.start("m1", seat=0)
        await stream.ask("m1", 1, seat=0, actions=(1, 2))
        assert (await stream.recv()).decision.action_id in (1, 2)
        await stream.end("m1", seat=0, returns=(1.0, -1.0))
        await stream.start("m2", seat=1)
        await stream.end("m2", seat=1, returns=(0.0, 0.0, 0.0, 0.0), players=("bob", "alice", "carol", "bob"))
        await asyncio.sleep(10)

    async def main():
        async with scripted_server(script) as (address, _):
            code, out, err = await _cli("random", "--server", address, "--game", "tic_tac_toe", "--game", "nim",
                                        "--preset", "classic", "--key", KEY, "--matches", "2", "--concurrency", "2",
                                        "--no-ladder", "--seed", "3")
            return address, code, out, err

    address, code, out, err = run(main())
    assert code == 0, err
    assert out.splitlines() == [
        f"connected to {address} as alice, playing tic_tac_toe, nim",
        "m1  tic_tac_toe  seat 0 against p1  returns [1, -1]  normal  done",      # names from MatchStarted
        "m2  tic_tac_toe  seat 1 against bob ×2, carol  returns [0, 0, 0, 0]  normal  done",   # from MatchEnded
        "2 matches finished, 2 scored: mean return 0.500, 1 won, 1 drawn, 0 lost",
    ]


def test_cli_reports_a_refused_key_and_an_unreachable_server(run):
    async def refused():
        async with scripted_server(lambda stream: stream.recv()) as (address, _):
            return await _cli("random", "--server", address, "--game", "tic_tac_toe", "--key", "wrong")

    code, out, err = run(refused())
    assert code == 1 and "refused the session (UNAUTHENTICATED): unknown API key" in err

    code, out, err = run(_cli("random", "--server", f"127.0.0.1:{_free_port()}", "--game", "tic_tac_toe",
                                      "--key", KEY, "--connect-timeout", "0.3"))
    assert code == 1 and "cannot reach" in err and "Traceback" not in err


class Remembering(Agent):
    """Records what reaches the agent: a resumed stream's snapshot must not repeat anything."""

    name = "remembering"

    def __init__(self):
        self.started, self.events, self.requests = [], [], []

    def decide(self, request):
        self.requests.append((request.match_id, request.decision_id))
        return Choice(action_id=request.legal_actions[0].action_id)

    def on_match_start(self, match):
        self.started.append((match.match_id, match.seat))

    def on_event(self, event):
        self.events.append((event.match_id, event.sequence))


def test_a_dropped_stream_is_resumed_with_the_token_and_a_refused_token_falls_back_to_a_fresh_hello(run):
    hellos = []

    async def welcome(stream: Stream, token: str) -> None:
        hellos.append((await stream.recv()).hello)
        await stream.send(welcome=pb.Welcome(session_id="s1", resume_token=token, protocol_version="1.0",
                                             accepted_games=["tic_tac_toe"]))

    async def event(stream: Stream, sequence: int) -> None:
        await stream.send(event=match_pb2.MatchEvent(match_id="m1", sequence=sequence, kind=match_pb2.EVENT_KIND_MOVE))

    async def script(stream: Stream):
        streams = len(hellos)
        if streams == 0:          # plays, then the connection breaks while a request is pending
            await welcome(stream, "t1")
            await stream.start("m1", seat=0)
            await event(stream, 0)
            await stream.ask("m1", 1, seat=0)
            await stream.context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset")
        elif streams == 1:        # resumed: the snapshot, then the pending request again
            await welcome(stream, "t2")
            await stream.start("m1", seat=0)
            await event(stream, 0)
            await event(stream, 1)
            await stream.ask("m1", 1, seat=0)
            assert (await stream.recv()).decision.decision_id == 1
            await stream.context.abort(grpc.StatusCode.UNAVAILABLE, "the server is restarting")
        elif streams == 2:        # a restarted server no longer knows the token
            hellos.append((await stream.recv()).hello)
            await stream.context.abort(grpc.StatusCode.NOT_FOUND, "the resume token is unknown or expired")
        else:                     # a fresh Hello gets the seat back by name
            await welcome(stream, "t3")
            await stream.start("m1", seat=0)
            await stream.ask("m1", 2, seat=0)
            assert (await stream.recv()).decision.decision_id == 2
            await stream.end("m1", seat=0)
            await asyncio.sleep(10)

    agent = Remembering()
    session = play(run, script, agent, max_matches=1)
    assert [h.resume_token for h in hellos] == ["", "t1", "t2", ""]
    assert session.reconnects == 2 and session.welcome.resume_token == "t3"
    assert [r.match_id for r in session.results] == ["m1"]
    assert agent.started == [("m1", 0)] and agent.events == [("m1", 0), ("m1", 1)]
    assert ("m1", 1) in agent.requests and ("m1", 2) in agent.requests


def test_a_stream_cut_as_internal_or_unknown_is_resumed_and_a_resume_refused_that_way_goes_afresh(run):
    # A killed server's connection can surface as INTERNAL or UNKNOWN rather than UNAVAILABLE, and a
    # restarted server's NOT_FOUND for the token can be masked as INTERNAL by the transport.
    hellos = []

    async def script(stream: Stream):
        hellos.append(await stream.recv())
        streams = len(hellos)
        if streams in (1, 2):
            await stream.send(welcome=pb.Welcome(session_id="s1", resume_token=f"t{streams}", protocol_version="1.0",
                                                 accepted_games=["tic_tac_toe"]))
            code = grpc.StatusCode.UNKNOWN if streams == 1 else grpc.StatusCode.INTERNAL
            await stream.context.abort(code, "Stream removed")
        elif streams == 3:        # the resume is refused during the handshake
            await stream.context.abort(grpc.StatusCode.INTERNAL, "Internal error from Core")
        else:
            await stream.send(welcome=pb.Welcome(session_id="s2", resume_token="t4", protocol_version="1.0",
                                                 accepted_games=["tic_tac_toe"]))
            await stream.start("m1", seat=0)
            await stream.ask("m1", 1, seat=0)
            assert (await stream.recv()).decision.decision_id == 1
            await stream.end("m1", seat=0)
            await asyncio.sleep(10)

    session = play(run, script, RandomAgent(), max_matches=1)
    assert [h.hello.resume_token for h in hellos] == ["", "t1", "t2", ""]
    assert session.reconnects == 2 and session.welcome.session_id == "s2"
    assert [r.match_id for r in session.results] == ["m1"]


def test_without_reconnect_a_dropped_stream_ends_the_session(run):
    async def script(stream: Stream):
        await stream.welcome()
        await stream.context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset")

    with pytest.raises(SessionError, match="ended the session.*connection reset") as dropped:
        play(run, script, RandomAgent(), reconnect=False)
    assert dropped.value.code == grpc.StatusCode.UNAVAILABLE


def test_reconnecting_gives_up_after_the_attempt_limit(run):
    streams = []

    async def script(stream: Stream):
        streams.append(stream)
        if len(streams) == 1:
            await stream.welcome()
        else:
            await stream.recv()
        await stream.context.abort(grpc.StatusCode.UNAVAILABLE, "down for maintenance")

    with pytest.raises(SessionError, match="down for maintenance") as gave_up:
        play(run, script, RandomAgent(), max_reconnect_attempts=2)
    assert gave_up.value.code == grpc.StatusCode.UNAVAILABLE and len(streams) == 1 + 2


class Listener(Agent):
    """Plays the first legal action and records the errors it is told about."""

    def __init__(self):
        self.errors = []

    def decide(self, request):
        return Choice(action_id=request.legal_actions[0].action_id)

    def on_error(self, error):
        self.errors.append(error)


def _rate_limited(match_id: str = "", decision_id: int = 0, wait: str = "0.010") -> pb.Error:
    return pb.Error(code=pb.ERROR_CODE_RATE_LIMITED, match_id=match_id, decision_id=decision_id,
                    message=f"rate limit exceeded: at most 2 requests and messages per second per API key (bursts "
                            f"of 3); retry after {wait} s; the message was dropped")


def test_a_decision_the_rate_limit_dropped_is_sent_again_after_the_quoted_wait_while_it_is_awaited(run, caplog):
    async def script(stream: Stream):
        loop = asyncio.get_running_loop()
        await stream.welcome()
        await stream.start("m", seat=0)
        await stream.ask("m", 1, seat=0)
        first = (await stream.recv()).decision
        dropped = loop.time()
        await stream.send(error=_rate_limited("m", 1, "0.200"))
        assert (await stream.recv()).decision == first                  # the same Decision, again...
        assert loop.time() - dropped >= 0.2                             # ... after the quoted wait
        await stream.send(error=_rate_limited("m", 1))                  # dropped again: sent again
        assert (await stream.recv()).decision == first

        await stream.ask("m", 3, seat=0)                                # the match moved on:
        assert (await stream.recv()).decision.decision_id == 3
        await stream.send(error=_rate_limited("m", 1))                  # decision 1 is not sent again,
        await stream.send(error=_rate_limited())                        # nor anything for a dropped heartbeat,
        await stream.send(error=_rate_limited("other", 1))              # nor for a decision never sent
        with pytest.raises(asyncio.TimeoutError):
            await stream.recv(timeout=0.5)

        await stream.ask("m", 5, seat=0, time_remaining=0.3)
        assert (await stream.recv()).decision.decision_id == 5
        await stream.send(error=_rate_limited("m", 5, "0.500"))         # a wait past the deadline: given up
        with pytest.raises(asyncio.TimeoutError):
            await stream.recv(timeout=1.0)

        await stream.ask("m", 7, seat=0)
        seventh = (await stream.recv()).decision
        await stream.send(error=_rate_limited("m", 7, "0.050"))
        await stream.end("m", seat=0)                                   # the match ended meanwhile
        with pytest.raises(asyncio.TimeoutError):
            await stream.recv(timeout=0.5)
        assert seventh.decision_id == 7

    agent = Listener()
    with caplog.at_level(logging.INFO, logger="arena_client"):
        session = play(run, script, agent, max_matches=1)
    assert len(session.results) == 1
    assert [(e.code, e.match_id, e.decision_id) for e in agent.errors] == [
        ("rate_limited", "m", 1), ("rate_limited", "m", 1), ("rate_limited", "m", 1), ("rate_limited", "", 0),
        ("rate_limited", "other", 1), ("rate_limited", "m", 5), ("rate_limited", "m", 7)]
    assert "match m decision 1 was dropped over the rate limit; sending it again in 0.200 s" in caplog.text
    assert "match m decision 5, dropped over the rate limit, could not be sent again in time" in caplog.text


LISTED = [game_pb2.GameSpec(game_id="tic_tac_toe", presets=[game_pb2.Preset(name="gtbench")]),
          game_pb2.GameSpec(game_id="negotiation", dialogue=True, presets=[game_pb2.Preset(name="gtbench")]),
          game_pb2.GameSpec(game_id="nim"),
          game_pb2.GameSpec(game_id="not_installed_here", presets=[game_pb2.Preset(name="gtbench")])]


@pytest.mark.parametrize("make_agent, preset, offered", [
    (lambda: RandomAgent(seed=1), "", ["tic_tac_toe", "negotiation", "nim", "not_installed_here"]),
    (lambda: RandomAgent(seed=1), "gtbench", ["tic_tac_toe", "negotiation", "not_installed_here"]),
    # MCTS searches with the local engines, and cannot write: no dialogue game, no unknown one.
    (lambda: MCTSAgent(simulations=10), "", ["tic_tac_toe", "nim"]),
])
def test_without_games_the_session_offers_every_game_the_server_lists_that_the_agent_can_play(
        run, make_agent, preset, offered):
    hellos = []

    async def script(stream: Stream):
        hellos.append(await stream.welcome(accepted=offered))
        await stream.start("m", seat=0)
        await stream.end("m", seat=0)

    listed = ListedGames(LISTED)
    session = play(run, script, make_agent(), games=None, preset=preset, listed=listed, max_matches=1)
    assert [(g.game_id, g.preset) for g in hellos[0].games] == [(g, preset) for g in offered]
    assert session.games == [(g, preset) for g in offered]
    assert listed.keys == [f"Bearer {KEY}"]                   # listed once, with the session's key


def test_without_games_a_server_that_lists_none_the_agent_can_play_or_refuses_to_list_is_an_error(run):
    async def script(stream: Stream):
        raise AssertionError("no stream is opened without games to offer")

    with pytest.raises(SessionError, match="none of the 4 games .* offers with the preset 'llmarena' suits"):
        play(run, script, RandomAgent(), games=None, preset="llmarena", listed=ListedGames(LISTED))
    refusing = ListedGames(refusal=(grpc.StatusCode.PERMISSION_DENIED, "this API key lacks the 'spectate' scope"))
    with pytest.raises(SessionError, match="refused to list its games .PERMISSION_DENIED.: this API key lacks") as e:
        play(run, script, RandomAgent(), games=None, listed=refusing)
    assert e.value.code == grpc.StatusCode.PERMISSION_DENIED


def test_cli_says_when_it_reconnects(run):
    streams = []

    async def script(stream: Stream):
        streams.append(stream)
        await stream.welcome(agent_name="alice")
        if len(streams) == 1:
            await stream.context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset")
        await stream.start("m1", seat=0)
        await stream.end("m1", seat=0)
        await asyncio.sleep(10)

    async def main():
        async with scripted_server(script) as (address, _):
            return address, *await _cli("random", "--server", address, "--game", "tic_tac_toe", "--key", KEY,
                                        "--matches", "1")

    address, code, out, err = run(main())
    assert code == 0, err
    assert out.splitlines()[:3] == [f"connected to {address} as alice, playing tic_tac_toe",
                                    f"reconnected to {address} as alice (session s1)",
                                    "m1  tic_tac_toe  seat 0 against p1  returns [1, -1]  normal  done"]


def test_cli_llm_needs_the_games_named():
    done = subprocess.run([sys.executable, "-m", "arena_client.cli", "llm", "--model", "m", "--key", KEY],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "arena-agent llm needs the games to play: --game GAME_ID" in done.stderr
