"""The cluster bus over a real PostgreSQL: messages reach only the process they are sent to, in the
order sent, whole whatever their size; broadcasts reach every other process; a turn's messages are
sent after the store's open batch is committed."""

from __future__ import annotations

import asyncio

import pytest

from arena.v1 import agent_service_pb2 as pb
from arena_server.cluster.bus import PART_SIZE, Bus, pack, unpack


@pytest.fixture
def url(postgres_cluster) -> str:
    return postgres_cluster.create_database("bus")


async def _until(predicate, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def test_messages_arrive_in_order_whole_and_only_where_they_are_sent(url):
    async def run():
        received: dict[str, list] = {"a": [], "b": [], "c": []}
        buses = {name: Bus(url, name, lambda sender, message, name=name: received[name].append((sender, message)))
                 for name in received}
        for bus in buses.values():
            bus.start()
        try:
            big = pb.ConnectResponse(decision_request=pb.DecisionRequest(
                match_id="m", observation={"text": "x" * (5 * PART_SIZE)}))
            for i in range(200):
                buses["a"].send("b", ["n", i])
                if i % 50 == 0:
                    await asyncio.sleep(0)           # across several turns (several notifications)
            buses["a"].send("b", ["big", pack(big)])
            buses["c"].broadcast(["hello"])
            await _until(lambda: len(received["b"]) == 202 and len(received["a"]) == 1)
            await asyncio.sleep(0.1)
        finally:
            for bus in buses.values():
                bus.close()
        numbers = [m[1] for s, m in received["b"] if m[0] == "n"]
        assert numbers == list(range(200)) and all(s == "a" for s, m in received["b"] if m[0] == "n")
        (_, (kind, text)), = [e for e in received["b"] if e[1][0] == "big"]
        assert unpack(pb.ConnectResponse, text) == big
        assert ("c", ["hello"]) in received["b"] and received["a"] == [("c", ["hello"])]
        assert received["c"] == []            # not its own broadcast, and nothing was sent to it
        return buses["a"].sent

    assert asyncio.run(run()) == 201


def test_a_message_is_sent_after_the_store_commits_what_it_reports(url):
    order = []

    async def run():
        got = asyncio.Event()
        sender = Bus(url, "a", lambda *_: None, before_flush=lambda: order.append("commit"))
        receiver = Bus(url, "b", lambda sender, message: (order.append(message[0]), got.set()))
        receiver.start()
        sender.start()
        try:
            sender.send("b", ["decision"])
            order.append("queued")
            await asyncio.wait_for(got.wait(), 5)
        finally:
            sender.close()
            receiver.close()

    asyncio.run(run())
    assert order == ["queued", "commit", "decision"]
