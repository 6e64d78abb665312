"""Server throughput against bare gRPC, the referee's own time per decision, and memory per match.

In one run, on one machine:

1. **Arena**: an in-process server (`ArenaServer`, SQLite file, default limits) and, in a second
   process, N remote agents (grpc.aio raw stubs, one connection each, two matches at a time so about
   N decisions are in flight) playing tic-tac-toe on the ladder with random legal moves. Decisions
   per second are counted by the agents over a window after a warm-up: every one went through the
   whole server (matchmaking, referee, engine, write-ahead log). The agents declare
   "no_match_events", as the SDK does for agents that ignore events and the TypeScript and C++
   bots do; a second arena run has agents that take events (a MatchEvent per move to each seat).
2. **Bare gRPC**: an in-process grpc.aio server with the same options, serving AgentService.Connect
   with no logic: each Decision it reads is answered by one ConnectResponse holding a real
   tic-tac-toe DecisionRequest captured in run 1. N streams from a second process answer each with
   a Decision of the agents' size. Round trips per second, same window; the target is
   arena >= 0.6x bare gRPC. A second peer also sends the arena's other messages (MatchStarted,
   MatchEnded, ...: real samples from run 1, in run 1's proportion per decision) spread over its
   answers: bare gRPC with the arena's traffic, which separates the cost of the protocol's
   messages from the server's work.
3. **Referee overhead per decision**, timed inside the server of run 1 (the agent service's methods
   are wrapped here, nothing is added to the server): from the moment a Decision is routed to its
   pending request to the moment the match's next DecisionRequest is handed to the outbox. Under
   the N-agent load (which includes waiting for the event loop) and alone (two agents, one match).
4. **Memory**: server RSS with 1,000 concurrent matches (tic-tac-toe, agents that never answer,
   decision limit 10 minutes), against the same server with the agents connected and idle.

Run: .venv/bin/python bench/bench_server.py   (options: --help)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.v1 import agent_service_pb2 as pb  # noqa: E402
from arena.v1 import agent_service_pb2_grpc, match_pb2  # noqa: E402

GAME = "tic_tac_toe"


# ---- the agents' side (a second process) ------------------------------------------------------
async def _agent(address: str, name: str, key: str, mode: str, capacity: int, tally: dict, rng: random.Random,
                 decision_bytes: int, match_events: bool) -> None:
    """Plays (random legal moves), echoes (answers every request at once) or holds (never answers)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(metadata=[("authorization", f"Bearer {key}")])
        await call.write(pb.ConnectRequest(hello=pb.Hello(
            protocol_version="1.0", agent=pb.AgentInfo(name=name, version="bench"), games=[pb.GameOffer(game_id=GAME)],
            capabilities=[] if match_events else ["no_match_events"],
            max_concurrent_matches=capacity, join_ladder=True)))
        # The echo server answers whatever it is sent; the first message starts the ping-pong.
        padding = "x" * max(0, decision_bytes - 30)
        if mode == "echo":
            await call.write(pb.ConnectRequest(decision=pb.Decision(match_id=padding, decision_id=1, action_id=4)))
        async for response in call:
            tally["messages"] += 1
            if response.WhichOneof("message") != "decision_request" or mode == "hold":
                continue
            request = response.decision_request
            tally["decisions"] += 1
            action = rng.choice(request.legal_actions).id if mode == "play" else 4
            await call.write(pb.ConnectRequest(decision=pb.Decision(
                match_id=request.match_id if mode == "play" else padding, decision_id=request.decision_id,
                action_id=action)))


async def agents_main(args) -> None:
    keys = json.loads(Path(args.keys).read_text())
    tally = {"decisions": 0, "messages": 0}
    tasks = [asyncio.create_task(_agent(args.address, name, key, args.mode, args.capacity, tally, random.Random(i),
                                        args.decision_bytes, args.match_events))
             for i, (name, key) in enumerate(keys.items())]
    await asyncio.sleep(args.warmup)
    start, decisions, messages = time.perf_counter(), tally["decisions"], tally["messages"]
    await asyncio.sleep(args.seconds)
    elapsed, decisions, messages = (time.perf_counter() - start, tally["decisions"] - decisions,
                                    tally["messages"] - messages)
    print(json.dumps({"per_second": decisions / elapsed, "decisions": decisions,
                      "messages_per_decision": messages / max(decisions, 1)}), flush=True)
    if args.mode == "hold":
        await asyncio.sleep(3600)      # the parent ends this process once it has measured
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _run_agents(address: str, keys: dict[str, str], mode: str, *, capacity: int, warmup: float,
                      seconds: float, folder: str, decision_bytes: int = 0,
                      match_events: bool = False) -> asyncio.subprocess.Process:
    keys_file = Path(folder) / f"keys-{mode}-{len(keys)}.json"
    keys_file.write_text(json.dumps(keys))
    return await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--role", "agents", "--address", address, "--keys", str(keys_file), "--mode", mode,
        "--capacity", str(capacity), "--warmup", str(warmup), "--seconds", str(seconds),
        "--decision-bytes", str(decision_bytes), *(["--match-events"] if match_events else []),
        stdout=asyncio.subprocess.PIPE)


async def _result(process: asyncio.subprocess.Process) -> dict:
    line = await process.stdout.readline()
    if not line:
        raise RuntimeError("the agents' process ended without a result")
    return json.loads(line)


# ---- the server's side (this process) ---------------------------------------------------------------
class RefereeTimer:
    """Wraps AgentSession.on_decision and AgentSession.ask: time from an accepted Decision to the
    next DecisionRequest of the same match. Also counts, by kind, the other messages sent to the
    agents and keeps one of each, and a mid-game request, as samples for the bare gRPC peers."""

    def __init__(self):
        from arena_server.service.agent import AgentSession

        self.cls = AgentSession
        self.originals = (AgentSession.on_decision, AgentSession.ask, AgentSession.send)
        self.samples: list[float] = []
        self.sample_request: pb.DecisionRequest | None = None
        self.other_messages: dict[str, list] = {}     # kind -> [count, a sample]
        self.decision_sizes: list[int] = []

    def __enter__(self) -> "RefereeTimer":
        on_decision, ask, send = self.originals
        received: dict[str, float] = {}
        timer = self

        def timed_on_decision(session, decision):
            error = on_decision(session, decision)
            if error is None:
                received[decision.match_id] = time.perf_counter()
                timer.decision_sizes.append(pb.ConnectRequest(decision=decision).ByteSize())
            return error

        async def timed_ask(session, request, timeout):
            at = received.pop(request.match_id, None)
            if at is not None:
                timer.samples.append(time.perf_counter() - at)
            if timer.sample_request is None and request.decision_id == 5:
                timer.sample_request = request
            return await ask(session, request, timeout)

        def sampling_send(session, message):
            kind = message.WhichOneof("message")
            if kind == "event":
                kind = match_pb2.EventKind.Name(message.event.kind)
            if kind != "decision_request":
                timer.other_messages.setdefault(kind, [0, message])[0] += 1
            return send(session, message)

        self.cls.on_decision, self.cls.ask, self.cls.send = timed_on_decision, timed_ask, sampling_send
        return self

    def __exit__(self, *exc) -> None:
        self.cls.on_decision, self.cls.ask, self.cls.send = self.originals

    def percentiles(self) -> tuple[float, float]:
        ordered = sorted(self.samples)
        return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def _arena_server(folder: str, name: str, per_decision: float):
    """A fresh server on a new database file."""
    from arena_server.server import ArenaServer, ServerConfig

    database = tempfile.mktemp(prefix=f"{name}-", suffix=".db", dir=folder)
    server = ArenaServer(ServerConfig(database=database, port=0, per_decision=per_decision, house_delay=600))
    port = await server.start()
    return server, f"127.0.0.1:{port}"


def _keys(server, prefix: str, count: int) -> dict[str, str]:
    from arena_server import auth

    return {f"{prefix}-{i:03d}": auth.create_key(server.store, agent_name=f"{prefix}-{i:03d}", scopes=["play"])[0]
            for i in range(count)}


async def measure_arena(folder: str, agents: int, capacity: int, warmup: float, seconds: float,
                        match_events: bool = False) -> dict:
    server, address = await _arena_server(folder, f"arena-{agents}", per_decision=30)
    try:
        with RefereeTimer() as timer:
            process = await _run_agents(address, _keys(server, "agent", agents), "play", capacity=capacity,
                                        warmup=warmup, seconds=seconds, folder=folder, match_events=match_events)
            result = await _result(process)
            await process.wait()
        p50, p99 = timer.percentiles()
        return {"per_second": result["per_second"], "p50": p50, "p99": p99, "timed": len(timer.samples),
                "messages_per_decision": result["messages_per_decision"], "sample_request": timer.sample_request,
                "other_messages": timer.other_messages, "decisions_seen": len(timer.decision_sizes), "decision_bytes": int(statistics.median(timer.decision_sizes))}
    finally:
        await server.stop()


class EchoAgentService(agent_service_pb2_grpc.AgentServiceServicer):
    """AgentService.Connect without a server behind it: each Decision read is answered with the
    next list of messages of a fixed cycle (each list ends with a DecisionRequest)."""

    def __init__(self, cycle: list[list[pb.ConnectResponse]]):
        self.cycle = cycle

    async def Connect(self, request_iterator, context):
        turn = 0
        async for request in request_iterator:
            if request.WhichOneof("message") == "decision":
                for answer in self.cycle[turn % len(self.cycle)]:
                    await context.write(answer)
                turn += 1


def arena_traffic(request: pb.ConnectResponse, other_messages: dict[str, list], decisions: int,
                  length: int = 200) -> list[list[pb.ConnectResponse]]:
    """A cycle of `length` answers carrying, besides a request each, the arena's other messages
    (real samples, in the arena's proportions) spread evenly: the arena's traffic, no work."""
    others = []
    for count, sample in other_messages.values():
        others += [sample] * round(count / decisions * length)
    cycle = [[] for _ in range(length)]
    for j, message in enumerate(others):
        cycle[j * length // len(others)].append(message)
    return [before + [request] for before in cycle]


async def measure_echo(folder: str, streams: int, cycle: list[list[pb.ConnectResponse]], decision_bytes: int,
                       warmup: float, seconds: float) -> dict:
    from arena_server.server import ServerConfig

    config = ServerConfig()
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", config.max_message_bytes),
        ("grpc.keepalive_time_ms", 20_000), ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000), ("grpc.keepalive_permit_without_calls", 1),
    ])
    agent_service_pb2_grpc.add_AgentServiceServicer_to_server(EchoAgentService(cycle), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        keys = {f"echo-{i:03d}": "unused" for i in range(streams)}
        process = await _run_agents(f"127.0.0.1:{port}", keys, "echo", capacity=1, warmup=warmup, seconds=seconds,
                                    folder=folder, decision_bytes=decision_bytes)
        result = await _result(process)
        await process.wait()
        return result
    finally:
        await server.stop(0)


def _rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


async def measure_memory(folder: str, matches: int, sessions: int) -> dict:
    """RSS with `matches` running against the same server before any agent connected. The agents'
    capacity leaves some slack: greedy ladder pairing cannot always use every last seat."""
    server, address = await _arena_server(folder, "memory", per_decision=600)
    try:
        idle = _rss_mb()
        process = await _run_agents(address, _keys(server, "holder", sessions), "hold",
                                    capacity=(2 * matches) // sessions + 10, warmup=0, seconds=0, folder=folder)
        await _result(process)
        deadline = time.monotonic() + 120
        while len(server.coordinator.running) < matches and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)      # every first request sent and queued
        running = len(server.coordinator.running)
        loaded = _rss_mb()
        process.kill()
        await process.wait()
        return {"idle": idle, "loaded": loaded, "running": running}
    finally:
        await server.stop(0)


async def main(args) -> None:
    print(f"Python {platform.python_version()}, grpcio {version('grpcio')}, protobuf {version('protobuf')}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        memory = await measure_memory(folder, args.matches_in_memory, sessions=20)
        per_match = (memory["loaded"] - memory["idle"]) * 1024 / max(memory["running"], 1)
        print(f"memory: {memory['running']:,} concurrent matches (20 agents connected): server RSS "
              f"{memory['loaded']:.0f} MB against {memory['idle']:.0f} MB idle: {per_match:.0f} kB per running match",
              flush=True)
        alone = await measure_arena(folder, 2, capacity=1, warmup=1, seconds=args.seconds / 2)
        print(f"alone (2 agents, 1 match): {alone['per_second']:,.0f} decisions/s; referee p50 "
              f"{alone['p50'] * 1e6:,.0f} us, p99 {alone['p99'] * 1e6:,.0f} us ({alone['timed']:,} timed)", flush=True)
        ratios, traffic_ratios, with_events = [], [], []
        for run in range(args.runs):
            arena = await measure_arena(folder, args.agents, capacity=2, warmup=args.warmup, seconds=args.seconds)
            request = pb.ConnectResponse(decision_request=arena["sample_request"])
            echo = await measure_echo(folder, args.agents, [[request]], arena["decision_bytes"], args.warmup,
                                      args.seconds)
            cycle = arena_traffic(request, arena["other_messages"], arena["decisions_seen"])
            traffic = await measure_echo(folder, args.agents, cycle,
                                         arena["decision_bytes"], args.warmup, args.seconds)
            evented = await measure_arena(folder, args.agents, capacity=2, warmup=args.warmup, seconds=args.seconds,
                                          match_events=True)
            ratios.append(arena["per_second"] / echo["per_second"])
            traffic_ratios.append(arena["per_second"] / traffic["per_second"])
            with_events.append(evented["per_second"] / echo["per_second"])
            print(f"run {run + 1}: arena {arena['per_second']:,.0f} decisions/s with {args.agents} agents "
                  f"({arena['messages_per_decision']:.2f} messages to the agents per decision) | bare gRPC "
                  f"{echo['per_second']:,.0f} round trips/s ({request.ByteSize()} B answers, {arena['decision_bytes']} B "
                  f"decisions): {ratios[-1]:.2f}x | bare gRPC with the arena's messages "
                  f"{traffic['per_second']:,.0f}/s: {traffic_ratios[-1]:.2f}x | referee p50 {arena['p50'] * 1e6:,.0f} us, "
                  f"p99 {arena['p99'] * 1e6:,.0f} us ({arena['timed']:,} timed) | agents taking events: "
                  f"{evented['per_second']:,.0f} decisions/s ({evented['messages_per_decision']:.2f} messages per "
                  f"decision): {with_events[-1]:.2f}x", flush=True)
        print(f"arena / bare gRPC ping-pong: median {statistics.median(ratios):.2f}x (target >= 0.6x); arena / bare "
              f"gRPC with the arena's messages: median {statistics.median(traffic_ratios):.2f}x; agents taking events "
              f"/ bare gRPC ping-pong: median {statistics.median(with_events):.2f}x; load average now "
              f"{os.getloadavg()[0]:.1f}")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100, help="remote agents, and bare gRPC streams (default 100)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window per run (default 10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before the window opens (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="arena / bare gRPC pairs of runs (default 3)")
    parser.add_argument("--matches-in-memory", type=int, default=1000, help="concurrent matches for the memory figure")
    # The agents' process:
    parser.add_argument("--role", default="bench", choices=["bench", "agents"], help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--keys", help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=["play", "echo", "hold"], help=argparse.SUPPRESS)
    parser.add_argument("--capacity", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--decision-bytes", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--match-events", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.role == "agents":
        asyncio.run(agents_main(arguments))
    else:
        import structlog

        from arena_server import logs

        # The server logs as `arena-server serve --log-json` does, every line rendered, into nothing.
        logs.configure(json=True)
        structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=open(os.devnull, "w")))
        asyncio.run(main(arguments))
