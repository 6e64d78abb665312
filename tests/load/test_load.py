"""Load: 200 concurrent agent streams from one client process (grpc.aio raw stubs, one connection
per agent, as separate agent programs would have) play 2,000 tic-tac-toe and Connect Four matches
through the ladder on loopback. No stream may fail, no in-band error may be sent, every match the
agents saw end must have ended normally, and the server's resident memory must stay bounded.

Speed is not asserted here; bench/bench_server.py measures it."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_server.referee.replay import replay_match

from ..conftest import start_server

AGENTS = 200
MATCHES = 2_000
WARM_UP = 200                   # matches before the first memory reading (caches, arenas, pools filled)
GAMES = ("tic_tac_toe", "connect_four")
TIME_LIMIT = 170.0
RSS_GROWTH_LIMIT_MB = 120       # generous: a leak of a few kB per match would pass 2,000 matches unseen,
RSS_LIMIT_MB = 600              # but anything that holds each match's messages or states would not


@dataclass
class Tally:
    ended: dict[str, int] = field(default_factory=dict)        # match id -> end reason, as the agents saw it
    decisions: int = 0
    problems: list[str] = field(default_factory=list)
    warmed_up: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def match_ended(self, ended: pb.MatchEnded) -> None:
        self.ended[ended.match.match_id] = ended.match.result.reason
        if len(self.ended) >= WARM_UP:
            self.warmed_up.set()
        if len(self.ended) >= MATCHES:
            self.done.set()


async def play(address: str, name: str, key: str, tally: Tally, rng: random.Random) -> None:
    """One agent: random legal moves on the ladder until the tally is done."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(metadata=[("authorization", f"Bearer {key}")])
        await call.write(pb.ConnectRequest(hello=pb.Hello(
            protocol_version="1.0", agent=pb.AgentInfo(name=name, version="load"),
            games=[pb.GameOffer(game_id=g) for g in GAMES], max_concurrent_matches=2, join_ladder=True)))
        try:
            async for response in call:
                kind = response.WhichOneof("message")
                if kind == "decision_request":
                    request = response.decision_request
                    tally.decisions += 1
                    await call.write(pb.ConnectRequest(decision=pb.Decision(
                        match_id=request.match_id, decision_id=request.decision_id,
                        action_id=rng.choice(request.legal_actions).id)))
                elif kind == "match_ended":
                    tally.match_ended(response.match_ended)
                elif kind == "error":
                    tally.problems.append(f"{name}: in-band error {response.error}")
            tally.problems.append(f"{name}: the server closed the stream")
        except grpc.aio.AioRpcError as e:
            if not tally.done.is_set():
                tally.problems.append(f"{name}: stream failed: {e.code().name} {e.details()}")


async def run_load(address: str, keys: dict[str, str], rss) -> dict:
    tally = Tally()
    started = time.monotonic()
    tasks = [asyncio.create_task(play(address, name, key, tally, random.Random(i)))
             for i, (name, key) in enumerate(keys.items())]
    await asyncio.wait_for(tally.warmed_up.wait(), TIME_LIMIT)
    rss_warm = rss()
    await asyncio.wait_for(tally.done.wait(), TIME_LIMIT - (time.monotonic() - started))
    rss_end = rss()
    elapsed = time.monotonic() - started
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"tally": tally, "rss_warm": rss_warm, "rss_end": rss_end, "elapsed": elapsed}


def test_two_hundred_agents_play_two_thousand_ladder_matches_without_errors(tmp_path):
    server = start_server(tmp_path, "--house-delay", "600", "--per-decision", "60")
    try:
        stub = server.arena_stub()
        keys = {}
        for i in range(AGENTS):
            name = f"load-{i:03d}"
            keys[name] = stub.RegisterAgent(apb.RegisterAgentRequest(name=name), metadata=server.metadata()).api_key

        def rss_mb() -> float:
            for line in open(f"/proc/{server.process.pid}/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
            raise AssertionError("no VmRSS")

        rss_idle = rss_mb()
        outcome = asyncio.run(run_load(server.address, keys, rss_mb))
        tally: Tally = outcome["tally"]
        print(f"\n{len(tally.ended)} matches, {tally.decisions} decisions in {outcome['elapsed']:.1f} s; server RSS "
              f"{rss_idle:.0f} MB idle, {outcome['rss_warm']:.0f} MB after {WARM_UP} matches, "
              f"{outcome['rss_end']:.0f} MB after {len(tally.ended)}")
        assert not tally.problems, tally.problems[:10]
        assert len(tally.ended) >= MATCHES
        assert set(tally.ended.values()) == {match_pb2.END_REASON_NORMAL}
        assert outcome["rss_end"] - outcome["rss_warm"] < RSS_GROWTH_LIMIT_MB
        assert outcome["rss_end"] < RSS_LIMIT_MB
        # The server recorded them all, and a sample replays from the log.
        store = server.store()
        finished = {m.match_id: m for m in store.list_matches(status="finished", limit=100_000)}
        assert set(tally.ended) <= set(finished)
        for match_id in random.Random(0).sample(sorted(tally.ended), 50):
            assert replay_match(store, match_id) == finished[match_id].result["returns"]
        assert {m.game_id for m in finished.values()} == set(GAMES)
        assert "Traceback" not in server.log_path.read_text()
    finally:
        server.stop()
