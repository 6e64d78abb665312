"""Match-log entries written on the event loop are committed once per turn of the loop, before any
task woken after them runs (so before anything they record is sent); so are match records. Other
writes commit at once. On both back ends (the `backend` fixture): what another connection, as
another process, sees committed."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena_server.store import MatchRecord, Store


def _record(match_id: str) -> MatchRecord:
    return MatchRecord(match_id=match_id, tournament_id="", game_id="tic_tac_toe", rules_version="1", parameters={},
                       players=[{"seat": 0, "agent_name": "a", "team": 0, "house_agent": False}], seed=1,
                       time_control={}, failure_policy={}, status="pending", result=None, created_at=time.time(),
                       ended_at=None)


def _committed(backend, db) -> int:
    """Log entries another connection (another process) can see."""
    return backend.query(db, "SELECT COUNT(*) FROM match_log")[0][0]


def _status(backend, db, match_id: str) -> str:
    return backend.query(db, "SELECT status FROM matches WHERE match_id = ?", (match_id,))[0][0]


def test_entries_are_committed_before_a_task_woken_after_them_runs(backend):
    db = backend.database()
    store = Store(db)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))

    async def main() -> list[int]:
        outbox: asyncio.Queue = asyncio.Queue()
        seen: list[int] = []

        async def writer():             # stands for a stream writer sending what the referee queued
            while True:
                await outbox.get()
                seen.append(_committed(backend, db))

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)
        for seq in range(3):
            store.append_log("m_1", seq, "action", {"seq": seq}, public=False)
        assert _committed(backend, db) == 0     # the batch is still open in this turn of the loop
        assert len(store.read_log("m_1")) == 3     # ...and visible to the server itself
        outbox.put_nowait("the move's event")
        await asyncio.sleep(0.05)
        store.append_log("m_1", 3, "event", {}, public=True)
        store.finish_match("m_1", "finished", {"reason": "normal"}, time.time())
        assert _committed(backend, db) == 3 and _status(backend, db, "m_1") == "pending"   # one batch
        store.ensure_agent("b")
        # Other writes commit the batch, then themselves.
        assert _committed(backend, db) == 4 and _status(backend, db, "m_1") == "finished"
        task.cancel()
        return seen

    assert asyncio.run(main()) == [3]
    store.close()


def test_a_match_record_that_fails_is_undone_alone_and_the_batch_still_commits(backend):
    db = backend.database()
    store = Store(db)
    store.ensure_agent("a")

    async def main() -> None:
        store.add_match(_record("m_1"))
        store.append_log("m_1", 0, "start", {}, public=True)
        with pytest.raises(store.IntegrityError):
            store.add_match(_record("m_1"))          # the same id again
        store.add_match(_record("m_2"))
        await asyncio.sleep(0)                         # the turn ends: the batch commits

    asyncio.run(main())
    assert [r[0] for r in backend.query(db, "SELECT match_id FROM matches ORDER BY match_id")] == ["m_1", "m_2"]
    assert backend.query(db, "SELECT COUNT(*) FROM match_agents")[0][0] == 2
    assert _committed(backend, db) == 1
    store.close()


def test_a_log_entry_that_fails_is_undone_alone_reported_and_the_batch_keeps_the_others(backend):
    # PostgreSQL refuses the rest of a transaction after a failed statement, and learns of the failure
    # only when the batch's writes are sent together; the store keeps SQLite's rule on both: the failed
    # write alone is undone, and reported (the server ends its match), not raised to the writer.
    db = backend.database()
    store = Store(db)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))
    failed = []
    store.on_write_failed = lambda match_id, error: failed.append((match_id, isinstance(error, store.IntegrityError)))

    async def main() -> None:
        store.append_log("m_1", 0, "start", {}, public=True)
        store.set_match_status("m_1", "running")
        store.append_log("m_1", 0, "again", {}, public=True)     # the same sequence number
        store.append_log("m_1", 1, "action", {}, public=False)
        assert [e.kind for e in store.read_log("m_1")] == ["start", "action"]     # a read sees the batch
        assert failed == [("m_1", True)]
        store.append_log("m_1", 2, "event", {}, public=True)
        await asyncio.sleep(0)

    asyncio.run(main())
    assert backend.query(db, "SELECT seq, kind FROM match_log ORDER BY seq") == [(0, "start"), (1, "action"),
                                                                              (2, "event")]
    assert _status(backend, db, "m_1") == "running" and failed == [("m_1", True)]
    store.close()


def test_off_the_event_loop_every_entry_commits_at_once(backend):
    db = backend.database()
    store = Store(db)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))
    store.append_log("m_1", 0, "start", {}, public=True)
    assert _committed(backend, db) == 1
    store.close()


def test_closing_commits_the_open_batch(backend):
    db = backend.database()
    store = Store(db)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))

    async def main() -> None:
        store.append_log("m_1", 0, "start", {}, public=True)
        store.close()

    asyncio.run(main())
    assert _committed(backend, db) == 1
