"""Creates matches, runs their referees as tasks, and fans public events out to spectators."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import structlog

import arena_engines
from arena.v1 import match_pb2

from .referee import MatchRunner, Rules, SeatEndpoint
from .store import MatchRecord, Store

log = structlog.get_logger("arena.coordinator")


class Coordinator:
    def __init__(self, store: Store, default_rules: Rules):
        self.store = store
        self.default_rules = default_rules
        self.running: dict[str, MatchRunner] = {}
        self._tasks: set[asyncio.Task] = set()
        self._watchers: dict[str, set[asyncio.Queue]] = {}
        self.match_ended = asyncio.Event()   # set whenever any match ends; schedulers wait on it

    def start_match(self, game_id: str, parameters: dict[str, Any] | None, seats: list[SeatEndpoint], *,
                    rules: Rules | None = None, tournament_id: str = "", seed: int | None = None,
                    preset: str | None = None) -> MatchRunner:
        """Records a new match and starts its referee. Raises KeyError/ValueError on a bad game or
        parameters, before anything is written."""
        rules = rules or self.default_rules
        game = arena_engines.load_game(game_id, parameters, preset=preset, num_players=len(seats))
        record = MatchRecord(
            match_id="m_" + secrets.token_hex(8), tournament_id=tournament_id, game_id=game_id,
            rules_version=game.spec.rules_version, parameters=dict(game.parameters),
            players=[{"seat": i, "agent_name": s.agent_name, "team": i, "house_agent": s.house_agent}
                     for i, s in enumerate(seats)],
            seed=seed if seed is not None else secrets.randbits(63), time_control=rules.time_control(),
            failure_policy=rules.failure_policy(), status="pending", result=None, created_at=time.time(),
            ended_at=None,
        )
        self.store.add_match(record)
        runner = MatchRunner(self.store, record, game, seats, rules, publish=self._publish)
        for seat, endpoint in enumerate(seats):
            holder = getattr(endpoint, "session", None)
            if holder is not None:
                holder.hold(record.match_id, seat, runner)
        self.running[record.match_id] = runner
        task = asyncio.create_task(self._run(runner), name=f"match-{record.match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return runner

    async def _run(self, runner: MatchRunner) -> None:
        match_id = runner.record.match_id
        try:
            await runner.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("referee crashed; match voided", match_id=match_id)
            result = {"reason": "aborted", "returns": [], "ranks": [], "blamed_seats": [],
                      "summary": "aborted by an internal error", "details": {}}
            self.store.finish_match(match_id, "void", result, time.time())
            runner.record.status, runner.record.result = "void", result
            if not runner.finished.done():
                runner.finished.set_result(result)
        finally:
            self.running.pop(match_id, None)
            for endpoint in runner.endpoints:
                holder = getattr(endpoint, "session", None)
                if holder is not None:
                    holder.release(match_id)
            for queue in self._watchers.pop(match_id, set()):
                queue.put_nowait(None)
            self.match_ended.set()

    # ---- spectators -------------------------------------------------------------------------------
    def subscribe(self, match_id: str) -> asyncio.Queue | None:
        """A queue of the match's live public events (None marks its end), or None if not running."""
        if match_id not in self.running:
            return None
        queue: asyncio.Queue = asyncio.Queue()
        self._watchers.setdefault(match_id, set()).add(queue)
        return queue

    def unsubscribe(self, match_id: str, queue: asyncio.Queue) -> None:
        self._watchers.get(match_id, set()).discard(queue)

    def _publish(self, event: match_pb2.MatchEvent) -> None:
        for queue in self._watchers.get(event.match_id, ()):
            queue.put_nowait(event)

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def void_interrupted_matches(self) -> int:
        """Matches left running by a previous process are voided (resuming them is future work)."""
        count = 0
        for record in self.store.list_matches(status="running", limit=1_000_000) + \
                self.store.list_matches(status="pending", limit=1_000_000):
            result = {"reason": "aborted", "returns": [], "ranks": [], "blamed_seats": [],
                      "summary": "interrupted by a server restart", "details": {}}
            self.store.finish_match(record.match_id, "void", result, time.time())
            count += 1
        return count
