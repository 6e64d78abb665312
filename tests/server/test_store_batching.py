"""Match-log entries written on the event loop are committed once per turn of the loop, before any
task woken after them runs (so before anything they record is sent); so are match records. Other
writes commit at once."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from arena_server.store import MatchRecord, Store


def _record(match_id: str) -> MatchRecord:
    return MatchRecord(match_id=match_id, tournament_id="", game_id="tic_tac_toe", rules_version="1", parameters={},
                       players=[{"seat": 0, "agent_name": "a", "team": 0, "house_agent": False}], seed=1,
                       time_control={}, failure_policy={}, status="pending", result=None, created_at=time.time(),
                       ended_at=None)


def _committed(path) -> int:
    """Log entries another connection (another process) can see."""
    with sqlite3.connect(path) as other:
        return other.execute("SELECT COUNT(*) FROM match_log").fetchone()[0]


def test_entries_are_committed_before_a_task_woken_after_them_runs(tmp_path):
    path = tmp_path / "arena.db"
    store = Store(path)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))

    async def main() -> list[int]:
        outbox: asyncio.Queue = asyncio.Queue()
        seen: list[int] = []

        async def writer():             # stands for a stream writer sending what the referee queued
            while True:
                await outbox.get()
                seen.append(_committed(path))

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)
        for seq in range(3):
            store.append_log("m_1", seq, "action", {"seq": seq}, public=False)
        assert _committed(path) == 0     # the batch is still open in this turn of the loop
        assert len(store.read_log("m_1")) == 3     # ...and visible to the server itself
        outbox.put_nowait("the move's event")
        await asyncio.sleep(0.05)
        store.append_log("m_1", 3, "event", {}, public=True)
        store.finish_match("m_1", "finished", {"reason": "normal"}, time.time())
        assert _committed(path) == 3 and _status(path, "m_1") == "pending"   # the match's writes share the batch
        store.ensure_agent("b")
        assert _committed(path) == 4 and _status(path, "m_1") == "finished"  # other writes commit it, then themselves
        task.cancel()
        return seen

    assert asyncio.run(main()) == [3]
    store.close()


def _status(path, match_id: str) -> str:
    with sqlite3.connect(path) as other:
        return other.execute("SELECT status FROM matches WHERE match_id = ?", (match_id,)).fetchone()[0]


def test_a_match_record_that_fails_is_undone_alone_and_the_batch_still_commits(tmp_path):
    path = tmp_path / "arena.db"
    store = Store(path)
    store.ensure_agent("a")

    async def main() -> None:
        store.add_match(_record("m_1"))
        store.append_log("m_1", 0, "start", {}, public=True)
        with pytest.raises(sqlite3.IntegrityError):
            store.add_match(_record("m_1"))          # the same id again
        store.add_match(_record("m_2"))
        await asyncio.sleep(0)                         # the turn ends: the batch commits

    asyncio.run(main())
    with sqlite3.connect(path) as other:
        assert [r[0] for r in other.execute("SELECT match_id FROM matches ORDER BY match_id")] == ["m_1", "m_2"]
        assert other.execute("SELECT COUNT(*) FROM match_agents").fetchone()[0] == 2
    assert _committed(path) == 1
    store.close()


def test_off_the_event_loop_every_entry_commits_at_once(tmp_path):
    path = tmp_path / "arena.db"
    store = Store(path)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))
    store.append_log("m_1", 0, "start", {}, public=True)
    assert _committed(path) == 1
    store.close()


def test_closing_commits_the_open_batch(tmp_path):
    path = tmp_path / "arena.db"
    store = Store(path)
    store.ensure_agent("a")
    store.add_match(_record("m_1"))

    async def main() -> None:
        store.append_log("m_1", 0, "start", {}, public=True)
        store.close()

    asyncio.run(main())
    assert _committed(path) == 1
