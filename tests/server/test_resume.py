"""Resuming after a restart, without the network. A tournament's runner rebuilds its schedule from
the store; a match resumes from its write-ahead log: cut off by a dying process and resumed in a
new one, it ends exactly as the same match played without interruption
(same log entries, same chance outcomes, same substituted moves, same seat statistics), but for
the ids of the requests that were in flight when the process died (never logged, so issued again)
and the order of the seats' entries within a simultaneous round (their asks run concurrently)."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections import Counter
from types import SimpleNamespace

import pytest

from arena.v1 import agent_service_pb2 as pb
from arena_server.coordinator import Coordinator
from arena_server.lobby import Lobby
from arena_server.referee import Rules, SeatEndpoint, replay_match
from arena_server.store import Store
from arena_server.tournaments import TournamentConfig, TournamentRunner

from ..ratings.helpers import record

SEED = 20_240_607
RULES = Rules(per_decision=5.0, max_retries=1, on_failure="random_legal")


class Misbehaving(SeatEndpoint):
    """Answers from the decision it is asked (seat, view and attempt), so that a resumed match gets
    the same answers: now and then an illegal action (re-asked), now and then nothing (a timeout,
    then a random legal substitute).
    With `stall_at`, the n-th request of the match never gets an answer: the process dies there."""

    def __init__(self, name: str, asked: list[int] | None = None, stall_at: int = 0, stalled: asyncio.Event = None):
        self.agent_name = name
        self.asked = asked if asked is not None else [0]
        self.stall_at = stall_at
        self.stalled = stalled

    def notify(self, message: pb.ConnectResponse) -> None:
        pass

    async def ask(self, request: pb.DecisionRequest, timeout: float):
        self.asked[0] += 1
        number = self.asked[0]
        await asyncio.sleep(0)
        if number == self.stall_at:
            self.stalled.set()
            await asyncio.Event().wait()
        draw = zlib.crc32(f"{request.seat}|{request.observation.text}|{request.attempt}".encode())
        if draw % 5 == 3:
            return None
        if draw % 4 == 1 and request.attempt == 0:
            return pb.Decision(match_id=request.match_id, decision_id=request.decision_id, action_id=10_000)
        legal = request.legal_actions
        return pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                           action_id=legal[draw % len(legal)].id)


async def _play_uninterrupted(store: Store, game_id: str, parameters=None, asked: list[int] | None = None) -> str:
    coordinator = Coordinator(store, RULES)
    asked = asked if asked is not None else [0]
    seats = [Misbehaving("p0", asked), Misbehaving("p1", asked)]
    runner = coordinator.start_match(game_id, parameters, seats, seed=SEED)
    await runner.finished
    return runner.record.match_id


async def _play_until_the_process_dies(store: Store, game_id: str, stall_at: int, parameters=None) -> str:
    coordinator = Coordinator(store, RULES)
    asked, stalled = [0], asyncio.Event()
    seats = [Misbehaving(f"p{i}", asked, stall_at, stalled) for i in range(2)]
    runner = coordinator.start_match(game_id, parameters, seats, seed=SEED)
    await asyncio.wait_for(stalled.wait(), 10)
    await coordinator.shutdown()     # nothing more is written, as when the process is killed
    return runner.record.match_id


def _seat_again(record, seat: int) -> Misbehaving:
    return Misbehaving(record.players[seat]["agent_name"])


async def _resume(store: Store) -> None:
    coordinator = Coordinator(store, RULES)
    assert coordinator.resume_interrupted_matches(_seat_again) == (1, 0)
    (runner,) = coordinator.running.values()
    await asyncio.wait_for(runner.finished, 10)


ID_FIELDS = ("decision_id", "last_decision_id")


def _moves_and_results(store: Store, match_id: str):
    """The moves in order, every log entry (without decision ids, in any order), the status and the result."""
    record = store.get_match(match_id)
    entries = store.read_log(match_id)
    moves = [(e.kind, e.data.get("action", e.data.get("actions"))) for e in entries
             if e.kind in ("chance", "action", "actions")]
    logged = Counter(json.dumps([e.kind, {k: v for k, v in e.data.items() if k not in ID_FIELDS}], sort_keys=True)
                     for e in entries)
    return moves, logged, record.status, record.result


@pytest.mark.parametrize("game_id, parameters", [
    ("pig", None),                                           # dice
    ("breakthrough", None),
    ("liars_dice", {"dice_per_player": 4}),                  # hidden dice
    ("negotiation", None),                                   # private values
    ("iterated_prisoners_dilemma", None),                    # simultaneous, random length
    ("sealed_bid_auction", {"rounds": 10}),                  # simultaneous, private values
])
def test_a_match_resumed_after_the_process_died_ends_as_if_never_interrupted(backend, game_id, parameters):
    reference = Store(backend.database("reference"))
    crashed = Store(backend.database("crashed"))
    try:
        asked = [0]
        played = asyncio.run(_play_uninterrupted(reference, game_id, parameters, asked))
        expected = _moves_and_results(reference, played)
        _, _, _, result = expected
        stats = result["seat_stats"]
        assert sum(s["substituted_actions"] for s in stats) and sum(s["illegal_actions"] for s in stats)

        match_id = asyncio.run(_play_until_the_process_dies(crashed, game_id, asked[0] // 2 + 1, parameters))
        assert crashed.get_match(match_id).status == "running"
        cut = len(crashed.read_log(match_id))
        assert 0 < cut < sum(expected[1].values())
        asyncio.run(_resume(crashed))
        assert _moves_and_results(crashed, match_id) == expected
        assert replay_match(crashed, match_id) == result["returns"]
        # Decision ids never went back: the refused ones are all distinct, the counter only grew.
        entries = crashed.read_log(match_id)
        refused = [e.data["decision_id"] for e in entries if e.kind == "penalty" and not e.data.get("substituted")]
        issued = [e.data["last_decision_id"] for e in entries if "last_decision_id" in e.data]
        assert len(set(refused)) == len(refused) and issued == sorted(issued)
    finally:
        reference.close()
        crashed.close()


def test_a_logged_end_is_stored_and_a_log_that_contradicts_the_seed_is_voided(backend):
    store = Store(backend.database())
    try:
        ended = asyncio.run(_play_uninterrupted(store, "pig"))
        result = store.get_match(ended).result
        store.set_match_status(ended, "running")     # died after logging the end, before storing it
        contradicted = asyncio.run(_play_until_the_process_dies(store, "pig", 20))
        store._execute("UPDATE match_log SET data = '{\"action\": 99}' WHERE match_id = ? AND kind = 'chance'",
                       (contradicted,))

        async def resume():
            return Coordinator(store, RULES).resume_interrupted_matches(_seat_again)

        assert asyncio.run(resume()) == (0, 1)
        assert store.get_match(ended).status == "finished" and store.get_match(ended).result == result
        voided = store.get_match(contradicted)
        assert voided.status == "void" and voided.result["reason"] == "aborted"
        assert "not resumable" in voided.result["summary"] and "is not the seed's" in voided.result["summary"]
    finally:
        store.close()


def test_a_restarted_tournament_runner_rebuilds_its_schedule_from_the_store(backend):
    store = Store(backend.database())

    def recorded(match_id: str, seating: list[str], status: str, ended: float | None, reason: str = "normal"):
        m = record(match_id, seating, [1, 0], ended=ended or 0.0, tournament="t1")
        m.status, m.ended_at, m.created_at = status, ended, ended or 10.0
        m.result = None if ended is None else {**m.result, "reason": reason}
        store.add_match(m)

    async def progress():
        config = TournamentConfig(name="t", game_id="tic_tac_toe", agents=["a", "b"], games_per_pairing=2,
                                  rules=Rules(on_failure="void_and_replay", max_replays=1)).validate()
        coordinator = Coordinator(store, RULES)
        running = asyncio.get_running_loop().create_future()
        coordinator.running["m4"] = SimpleNamespace(finished=running)    # the resumed referee of m4
        runner = TournamentRunner("t1", config, store, Lobby(), coordinator)
        queue, in_flight, replays = runner._progress(config.seatings())
        return config.seatings(), queue, [(index, f is running) for f, (index, _) in in_flight.items()], replays

    try:
        recorded("m1", ["a", "b"], "finished", 1.0)
        recorded("m2", ["b", "a"], "void", 2.0, "voided")     # replayed: its slot stays open
        recorded("m3", ["a", "b"], "void", 3.0, "voided")     # past the replay cap: its slot is closed
        recorded("m4", ["b", "a"], "running", None)           # followed to its end
        seatings, queue, in_flight, replays = asyncio.run(progress())
        assert seatings == [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]
        assert queue == [(3, ["b", "a"])]
        assert in_flight == [(1, True)]
        assert replays == {frozenset({"a", "b"}): 1}
    finally:
        store.close()
