"""Server parts with no network: keys, store, schedules, ranks and the TrueSkill leaderboard."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
import trueskill

from arena_server import auth
from arena_server.ratings import trueskill_leaderboard
from arena_server.referee import rank_returns
from arena_server.store import MatchRecord, Store
from arena_server.tournaments import round_robin


@pytest.fixture
def store(backend):
    s = Store(backend.database())
    yield s
    s.close()


def test_keys_are_stored_hashed_and_scoped(store, backend):
    key, key_id = auth.create_key(store, agent_name="alice", scopes=["play"])
    assert key.startswith(f"ak_{key_id}_")
    (row,) = backend.query(store.database, "SELECT * FROM api_keys")
    secret = key.removeprefix(f"ak_{key_id}_")  # the secret itself may contain "_"
    assert key_id in row and not any(secret in str(value) for value in row)
    if backend.name == "sqlite":
        assert key not in Path(store.database).read_bytes().decode("latin-1")
    principal = auth.authenticate(store, key)
    assert principal.agent_name == "alice" and principal.allows("play") and principal.allows("spectate")
    assert not principal.allows("admin")
    assert auth.authenticate(store, key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    assert auth.authenticate(store, "garbage") is None
    with pytest.raises(ValueError, match="must name its agent"):
        auth.create_key(store, agent_name=None, scopes=["play"])
    with pytest.raises(ValueError, match="scopes"):
        auth.create_key(store, agent_name="x", scopes=["root"])
    with pytest.raises(ValueError, match="invalid agent name"):
        auth.create_key(store, agent_name="bad name!", scopes=["play"])


def test_metadata_key_extraction():
    assert auth.key_from_metadata([("authorization", "Bearer abc")]) == "abc"
    assert auth.key_from_metadata([("authorization", "Basic abc")]) is None
    assert auth.key_from_metadata(None) is None


def _record(match_id: str, players: list[str], ranks: list[int], ended: float) -> MatchRecord:
    return MatchRecord(
        match_id=match_id, tournament_id="", game_id="tic_tac_toe", rules_version="1",
        parameters={}, players=[{"seat": i, "agent_name": n, "team": i, "house_agent": False}
                                for i, n in enumerate(players)],
        seed=1, time_control={}, failure_policy={}, status="finished",
        result={"reason": "normal", "returns": [0.0] * len(players), "ranks": ranks}, created_at=ended,
        ended_at=ended,
    )


def test_store_round_trips_matches_and_the_log(store):
    record = _record("m1", ["a", "b"], [1, 2], time.time())
    record.status, record.result, record.ended_at = "pending", None, None
    store.add_match(record)
    store.append_log("m1", 0, "start", {"x": 1}, public=True)
    store.append_log("m1", 1, "action", {"seat": 0, "action": 4}, public=False)
    assert [e.kind for e in store.read_log("m1")] == ["start", "action"]
    assert [e.kind for e in store.read_log("m1", public_only=True)] == ["start"]
    with pytest.raises(Exception):
        store.append_log("m1", 1, "action", {}, public=False)   # the log is append-only per sequence
    store.finish_match("m1", "finished", {"reason": "normal", "returns": [1, -1], "ranks": [1, 2]}, time.time())
    assert store.get_match("m1").status == "finished"
    assert [m.match_id for m in store.list_matches(agent_name="b")] == ["m1"]
    assert store.list_matches(agent_name="c") == []
    assert [m.match_id for m in store.finished_matches(game_id="tic_tac_toe")] == ["m1"]


def test_pages_of_matches_created_in_the_same_instant_skip_and_repeat_nothing(store):
    now = time.time()
    for i in range(7):
        store.add_match(_record(f"m{i}", ["a", "b"], [1, 2], now))
    seen, before = [], None
    while True:
        page = store.list_matches(limit=3, before=before)
        seen += [m.match_id for m in page]
        if len(page) < 3:
            break
        before = (page[-1].created_at, page[-1].match_id)
    assert seen == [f"m{i}" for i in reversed(range(7))]


def test_round_robin_rotates_seats_evenly():
    seatings = round_robin(["a", "b", "c"], 2, 3)
    assert len(seatings) == 3 * 2 * 3
    for name in "abc":
        seats = Counter(s.index(name) for s in seatings if name in s)
        assert seats[0] == seats[1] == 6
    trios = round_robin(["a", "b", "c"], 3, 1)
    assert sorted(tuple(s) for s in trios) == sorted([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")])
    with pytest.raises(ValueError):
        round_robin(["a"], 2, 1)
    with pytest.raises(ValueError):
        round_robin(["a", "a"], 2, 1)


def test_rank_returns_shares_ranks_on_ties():
    assert rank_returns([1.0, -1.0]) == [1, 2]
    assert rank_returns([0.0, 0.0]) == [1, 1]
    assert rank_returns([3.0, 5.0, 3.0, 1.0]) == [2, 1, 2, 4]


def test_trueskill_leaderboard_matches_the_library_and_counts_results():
    matches = [
        _record("m1", ["a", "b"], [1, 2], 1.0),
        _record("m2", ["b", "a"], [1, 1], 2.0),                # draw
        _record("m3", ["a", "c", "b"], [2, 1, 3], 3.0),        # three players by rank
        _record("m4", ["c", "c"], [1, 2], 4.0),                # self-play carries no comparison
    ]
    rows = {r.agent_name: r for r in trueskill_leaderboard(matches)}
    env = trueskill.TrueSkill(draw_probability=0.1)
    a, b, c = env.create_rating(), env.create_rating(), env.create_rating()
    (a,), (b,) = env.rate([(a,), (b,)], ranks=[1, 2])
    (a,), (b,) = env.rate([(a,), (b,)], ranks=[1, 1])
    (a,), (b,), (c,) = env.rate([(a,), (b,), (c,)], ranks=[2, 3, 1])
    for name, expected in (("a", a), ("b", b), ("c", c)):
        assert rows[name].rating == pytest.approx(expected.mu)
        assert rows[name].lower == pytest.approx(expected.mu - 3 * expected.sigma)
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses, rows["a"].matches) == (1, 1, 1, 3)
    assert (rows["c"].wins, rows["c"].matches) == (1, 1)
    assert sorted(r.rank for r in rows.values()) == [1, 2, 3]


def test_gauntlet_pits_the_challenger_against_each_opponent_only():
    from arena_server.tournaments import gauntlet

    seatings = gauntlet(["me", "random", "mcts"], 2, 25)
    assert len(seatings) == 2 * 2 * 25
    assert all("me" in s for s in seatings)
    for opponent in ("random", "mcts"):
        pairing = [s for s in seatings if opponent in s]
        assert sum(s[0] == "me" for s in pairing) == sum(s[1] == "me" for s in pairing) == 25
    trios = gauntlet(["me", "a", "b", "c"], 3, 1)
    assert len(trios) == 3 * 3 and all("me" in s for s in trios)


def test_self_play_seats_one_agent_everywhere_and_refuses_several():
    from arena_server.tournaments import SCHEDULES

    assert SCHEDULES["self_play"](["me"], 10, 3) == [["me"] * 10] * 3
    with pytest.raises(ValueError, match="exactly one agent"):
        SCHEDULES["self_play"](["me", "you"], 10, 1)


def test_team_games_pair_one_agent_per_side_and_fill_each_sides_seats():
    from arena_server.tournaments import TournamentConfig

    config = TournamentConfig(name="t", game_id="tic_tac_toe", agents=["a", "b", "c"], players_per_match=6,
                              games_per_pairing=1, seat_sides=[0, 0, 0, 1, 1, 1])
    seatings = config.seatings()
    assert len(seatings) == 3 * 2      # every pair of agents, each side once per agent
    assert ["a", "a", "a", "b", "b", "b"] in seatings and ["b", "b", "b", "a", "a", "a"] in seatings
    assert all(len(set(s[:3])) == 1 and len(set(s[3:])) == 1 and s[0] != s[3] for s in seatings)
    interleaved = TournamentConfig(name="t", game_id="tic_tac_toe", agents=["a", "b"], players_per_match=4,
                                   seat_sides=[0, 1, 0, 1]).seatings()
    assert interleaved == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]


@pytest.mark.parametrize("capabilities,events_sent", [((), 2), (("no_match_events",), 0)])
def test_a_resumed_sessions_snapshot_holds_events_only_for_agents_that_take_them(capabilities, events_sent):
    import asyncio
    from types import SimpleNamespace

    from arena.v1 import agent_service_pb2 as pb
    from arena.v1 import match_pb2
    from arena_server.service.agent import AgentSession

    runner = SimpleNamespace(
        match_started=lambda seat: pb.ConnectResponse(match_started=pb.MatchStarted(seat=seat)),
        public_events=lambda: [match_pb2.MatchEvent(match_id="m", sequence=i) for i in range(2)],
    )

    async def snapshot() -> list[str]:
        session = AgentSession("s", "quiet")
        session.configure(pb.Hello(capabilities=capabilities), {"tic_tac_toe": None})
        session.hold("m", 1, runner)
        session.attach()
        sent = []
        while not session.outbox.empty():
            sent.append(session.outbox.get_nowait().WhichOneof("message"))
        return sent

    assert asyncio.run(snapshot()) == ["match_started"] + ["event"] * events_sent


def test_match_ids_are_unique_and_sort_in_creation_order_across_milliseconds():
    import re

    from arena_server.coordinator import _new_match_id

    ids = [_new_match_id() for _ in range(10_000)]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"m_[0-9a-f]{16}", i) for i in ids)
    time.sleep(0.002)
    assert _new_match_id() > max(ids)
