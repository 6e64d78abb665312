"""Creates matches (and resumes those a previous process left unfinished), runs their referees as
tasks, and fans public events out to spectators.

With several server processes on one database (cluster/), a match is created only if its agents'
sessions still have room when it is written (`claim`, in the same transaction), and spectators of a
match refereed by another process follow its log in the store."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from typing import Any, Callable

import structlog

import arena_engines
from arena.v1 import match_pb2

from . import convert
from .house import HouseSeat
from .referee import MatchRunner, Rules, SeatEndpoint, match_status
from .store import MatchRecord, Store

log = structlog.get_logger("arena.coordinator")
_match_counter = itertools.count(secrets.randbits(20))


def _new_match_id() -> str:
    """m_ and 16 hex digits: the creation time in milliseconds, then a counter. Ids in creation
    order keep the match log's inserts at the end of its index (few pages written per commit)."""
    return f"m_{time.time_ns() // 1_000_000:011x}{next(_match_counter) % (1 << 20):05x}"


FOLLOW_INTERVAL = 0.25    # seconds between reads of the log of a match refereed by another process


class Coordinator:
    def __init__(self, store: Store, default_rules: Rules, server_id: str = ""):
        self.store = store
        self.default_rules = default_rules
        self.server_id = server_id
        # Several processes: writes a new match only if its seats' sessions have room, and says
        # whether it did (cluster/lobby.py). One process: None, every match is written.
        self.claim: Callable[[MatchRecord, dict[int, str]], bool] | None = None
        self.running: dict[str, MatchRunner] = {}
        self._tasks: set[asyncio.Task] = set()
        self._task_of: dict[str, asyncio.Task] = {}
        self._watchers: dict[str, set[asyncio.Queue]] = {}
        self._followers: dict[asyncio.Queue, asyncio.Task] = {}    # spectators of matches refereed elsewhere
        self.match_ended = asyncio.Event()   # set whenever any match ends; schedulers wait on it
        self.on_match_end: list[Callable[[MatchRunner], None]] = []     # called as each match ends

    def start_match(self, game_id: str, parameters: dict[str, Any] | None, seats: list[SeatEndpoint], *,
                    rules: Rules | None = None, tournament_id: str = "", seed: int | None = None,
                    preset: str | None = None, teams: list[int] | None = None) -> MatchRunner | None:
        """Records a new match and starts its referee. `teams` gives each seat's side in team games
        (default: every seat its own). Raises KeyError/ValueError on a bad game or parameters,
        before anything is written. Returns None, writing nothing, when a session lost its room to a
        match another process started meanwhile (several processes only)."""
        rules = rules or self.default_rules
        game = arena_engines.load_game(game_id, parameters, preset=preset, num_players=len(seats))
        record = MatchRecord(
            match_id=_new_match_id(), tournament_id=tournament_id, game_id=game_id,
            rules_version=game.spec.rules_version, parameters=dict(game.parameters),
            players=[{"seat": i, "agent_name": s.agent_name, "team": teams[i] if teams else i,
                      "house_agent": s.house_agent} for i, s in enumerate(seats)],
            seed=seed if seed is not None else secrets.randbits(63), time_control=rules.time_control(),
            failure_policy=rules.failure_policy(), status="pending", result=None, created_at=time.time(),
            ended_at=None, referee=self.server_id,
        )
        sessions = {i: s.session.session_id for i, s in enumerate(seats) if getattr(s, "session", None) is not None}
        if self.claim is None:
            self.store.add_match(record, sessions)
        elif not self.claim(record, sessions):
            return None
        runner = MatchRunner(self.store, record, game, seats, rules, publish=self._publish,
                             watched=self._watchers.__contains__)
        self._launch(runner)
        return runner

    def resume_interrupted_matches(self, remote_seat: Callable[[MatchRecord, int], SeatEndpoint],
                                   interrupted: list[MatchRecord] | None = None) -> tuple[int, int]:
        """Continues every match a previous process left pending or running (or those given, taken
        over from a dead process), from its write-ahead log. House seats are rebuilt here;
        `remote_seat(record, seat)` gives the seat of an agent: its session if connected, else a
        seat that waits for the agent to connect again (the failure policy takes it if the agent
        does not come back in time). A match whose log cannot be resumed is voided. Returns
        (resumed, voided)."""
        resumed = voided = 0
        if interrupted is None:
            interrupted = (self.store.list_matches(status="running", limit=1_000_000)
                           + self.store.list_matches(status="pending", limit=1_000_000))
        for record in sorted(interrupted, key=lambda m: m.created_at):
            entries = self.store.read_log(record.match_id)
            end = next((e for e in reversed(entries) if e.kind == "end"), None)
            if end is not None:    # the result was logged; the process died before storing it
                self.store.finish_match(record.match_id, match_status(end.data["reason"]), end.data, end.time)
                continue
            try:
                game = arena_engines.load_game(record.game_id, record.parameters, num_players=len(record.players))
                seats = [HouseSeat(p["agent_name"], record.seed + p["seat"]) if p["house_agent"]
                         else remote_seat(record, p["seat"]) for p in record.players]
                runner = MatchRunner(self.store, record, game, seats, Rules.of_match(record), publish=self._publish,
                                     watched=self._watchers.__contains__)
                runner.restore(entries)
            except Exception as e:
                log.exception("cannot resume an interrupted match; voided", match_id=record.match_id)
                result = {"reason": "aborted", "returns": [], "ranks": [], "blamed_seats": [],
                          "summary": f"interrupted by a server restart and not resumable: {e}", "details": {}}
                self.store.finish_match(record.match_id, "void", result, time.time())
                voided += 1
                continue
            self._launch(runner)
            resumed += 1
        return resumed, voided

    def _launch(self, runner: MatchRunner) -> None:
        """Seats the match in its agents' sessions and starts its referee."""
        match_id = runner.record.match_id
        for seat, endpoint in enumerate(runner.endpoints):
            holder = getattr(endpoint, "session", None)
            if holder is not None:
                holder.hold(match_id, seat, runner)
        self.running[match_id] = runner
        task = asyncio.create_task(self._run(runner), name=f"match-{match_id}")
        self._tasks.add(task)
        self._task_of[match_id] = task
        task.add_done_callback(self._tasks.discard)

    async def _run(self, runner: MatchRunner) -> None:
        match_id = runner.record.match_id
        try:
            await runner.run()
        except asyncio.CancelledError:
            if runner.abort_reason is None:
                raise       # a shutdown: the match stays running in the store and resumes from its log
            runner.abort()
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
            self._task_of.pop(match_id, None)
            for endpoint in runner.endpoints:
                holder = getattr(endpoint, "session", None)
                if holder is not None:
                    holder.release(match_id)
            for queue in self._watchers.pop(match_id, set()):
                queue.put_nowait(None)
            self.match_ended.set()
            for callback in self.on_match_end:
                callback(runner)

    def ended_elsewhere(self, match_id: str) -> asyncio.Future:
        """The result of a match refereed by another process, once the store has it."""
        async def wait() -> dict[str, Any]:
            while True:
                record = self.store.get_match(match_id)
                if record is not None and record.status in ("finished", "void"):
                    return record.result
                await asyncio.sleep(FOLLOW_INTERVAL)

        task = asyncio.create_task(wait(), name=f"ended-{match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def abort(self, match_id: str, why: str) -> None:
        """Ends a running match as void (reason "aborted"), e.g. when its tournament is cancelled."""
        runner, task = self.running.get(match_id), self._task_of.get(match_id)
        if runner is None or task is None:
            return
        runner.abort_reason = why
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    # ---- spectators -------------------------------------------------------------------------------
    def subscribe(self, match_id: str) -> asyncio.Queue | None:
        """A queue of the match's live public events (None marks its end), or None if not running.
        A match refereed by another process is followed in the store."""
        queue: asyncio.Queue = asyncio.Queue()
        if match_id not in self.running:
            record = self.store.get_match(match_id)
            if record is None or record.status not in ("pending", "running"):
                return None
            task = asyncio.create_task(self._follow(match_id, queue), name=f"follow-{match_id}")
            self._followers[queue] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return queue
        self._watchers.setdefault(match_id, set()).add(queue)
        return queue

    async def _follow(self, match_id: str, queue: asyncio.Queue) -> None:
        """Feeds `queue` the public events of a match refereed elsewhere, as its log grows, then None.
        A match taken over by this process meanwhile is followed the same way (its log is the same)."""
        seen = -1
        while True:
            for entry in self.store.read_log(match_id, public_only=True):
                if entry.kind == "event" and entry.data["sequence"] > seen:
                    seen = entry.data["sequence"]
                    queue.put_nowait(convert.event_from_log(match_id, entry))
            record = self.store.get_match(match_id)
            if record is None or record.status not in ("pending", "running"):
                queue.put_nowait(None)
                return
            await asyncio.sleep(FOLLOW_INTERVAL)

    def unsubscribe(self, match_id: str, queue: asyncio.Queue) -> None:
        follower = self._followers.pop(queue, None)
        if follower is not None:
            follower.cancel()
            return
        queues = self._watchers.get(match_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._watchers[match_id]     # unwatched matches build no event messages

    def _publish(self, event: match_pb2.MatchEvent) -> None:
        for queue in self._watchers.get(event.match_id, ()):
            queue.put_nowait(event)

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
