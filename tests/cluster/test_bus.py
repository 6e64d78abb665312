"""The cluster bus over a real PostgreSQL: messages reach only the process they are sent to, in the
order sent, whole whatever their size; broadcasts reach every other process; a turn's messages are
delivered with the commit of the store's open batch, never before what they report is durable."""

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


def test_a_turns_messages_join_the_stores_open_batch_and_go_out_with_its_commit(url):
    # With writes open, the notification is a statement of their transaction: PostgreSQL delivers it
    # at their commit. With none, the bus sends it on its own connection.
    from arena_server.store import Store

    store = Store(url)
    order = []

    async def run():
        got = asyncio.Event()

        def received(sender, message):
            order.append((message[0], _agents_elsewhere(url)))
            got.set()

        sender = Bus(url, "a", lambda *_: None, commit_with=store.commit_with)
        receiver = Bus(url, "b", received)
        receiver.start()
        sender.start()
        try:
            store._open_batch()                  # a write of this turn, not yet committed
            store._batch_execute("INSERT INTO agents(name, created_at) VALUES (?, ?)", ("ann", 0.0), match_id="m")
            sender.send("b", ["with a write"])
            await asyncio.wait_for(got.wait(), 5)
            got.clear()
            sender.send("b", ["alone"])
            await asyncio.wait_for(got.wait(), 5)
        finally:
            sender.close()
            receiver.close()
            store.close()

    asyncio.run(run())
    assert order == [("with a write", 1), ("alone", 1)]      # heard only once the write was committed


def _agents_elsewhere(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as other:
        return other.execute("SELECT COUNT(*) FROM agents").fetchone()[0]
