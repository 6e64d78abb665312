"""The store on its two back ends, in one run: SQLite (a WAL file) against PostgreSQL (a throwaway
local cluster, tests/pgcluster.py, with fsync and synchronous_commit on, as in production).

- **log appends**: the referee's write path on an event loop. Each turn of the loop appends
  `--per-turn` match-log entries (one decision writes about three: its move, its public event, a
  choice or penalty now and then; many matches in flight write more per turn), then yields, and the
  batch commits (one transaction per turn: the write-ahead rule). Entries per second, and the
  commit's share.
- **outcome read**: what every rating method (the Bradley–Terry bootstrap included) reads:
  `finished_matches()`, all finished match records in the order they ended, in one query.
  For comparison only, PostgreSQL with synchronous_commit off: a commit then returns before its WAL
  is flushed, which is SQLite's WAL-mode synchronous=NORMAL guarantee (nothing committed is lost
  when the server process dies; an operating-system crash may lose the last commits). The server
  keeps synchronous_commit on.
- **driver**: why the PostgreSQL store uses a synchronous psycopg connection from the loop thread:
  the cost of one INSERT round trip, sync against psycopg's async connection awaited on the loop.

Run: .venv/bin/python bench/bench_store.py   (options: --help; needs Debian's postgresql package)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_server.store import MatchRecord, Store  # noqa: E402
from tests.pgcluster import ThrowawayCluster  # noqa: E402


def record(k: int, status: str = "finished") -> MatchRecord:
    a, b = f"agent{k % 97}", f"agent{(k * 7 + 1) % 97}"
    if a == b:
        b = "agent96" if a != "agent96" else "agent0"
    return MatchRecord(
        match_id=f"m_{k:09d}", tournament_id="", game_id=("tic_tac_toe", "connect_four", "pig")[k % 3],
        rules_version="1", parameters={}, players=[{"seat": 0, "agent_name": a, "team": 0, "house_agent": False},
                                                   {"seat": 1, "agent_name": b, "team": 1, "house_agent": False}],
        seed=k, time_control={"per_decision": 30.0}, failure_policy={"max_retries": 2, "on_failure": "random_legal"},
        status=status, result={"reason": "normal", "returns": [1.0, -1.0] if k % 2 else [-1.0, 1.0],
                               "ranks": [1, 2] if k % 2 else [2, 1], "blamed_seats": [], "summary": "",
                               "details": {}, "seat_stats": [{"seat": 0, "illegal_actions": 0, "timeouts": 0},
                                                             {"seat": 1, "illegal_actions": 0, "timeouts": 0}]},
        created_at=1_700_000_000.0 + k, ended_at=1_700_000_000.0 + k + 0.5,
    )


def bench_appends(database: str, entries: int, per_turn: int, *, async_commit: bool = False) -> tuple[float, float]:
    """(entries per second, share of the time spent committing). `async_commit`: PostgreSQL with
    synchronous_commit off, for comparison only (the server never sets it)."""
    store = Store(database)
    if async_commit:
        store._conn.execute("SET synchronous_commit = off")
    matches = max(1, entries // 200)
    for k in range(matches):
        store.add_match(record(k, status="running"))
    data = {"seat": 0, "action": 4, "last_decision_id": 17}
    commit_time = [0.0]
    commit = store.commit_batch

    def timed_commit():
        started = time.perf_counter()
        commit()
        commit_time[0] += time.perf_counter() - started

    store.commit_batch = timed_commit

    async def main() -> float:
        seqs = [0] * matches
        started = time.perf_counter()
        written = 0
        while written < entries:
            for _ in range(min(per_turn, entries - written)):
                m = written % matches
                store.append_log(f"m_{m:09d}", seqs[m], "action", data, public=False)
                seqs[m] += 1
                written += 1
            await asyncio.sleep(0)       # the turn ends: the batch commits
        return time.perf_counter() - started

    elapsed = asyncio.run(main())
    store.close()
    return entries / elapsed, commit_time[0] / elapsed


def fill(store: Store, matches: int, chunk: int = 5_000) -> None:
    """`matches` finished match records, written in bulk (executemany, one transaction per chunk):
    the setup of the outcome read, not measured. The rows are those add_match writes."""
    import json

    for first in range(0, matches, chunk):
        records = [record(k) for k in range(first, min(matches, first + chunk))]
        with store._atomic():
            store._batch_execute(
                "INSERT INTO matches(match_id, tournament_id, game_id, rules_version, parameters, players, seed,"
                " time_control, failure_policy, status, result, created_at, ended_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(m.match_id, m.tournament_id, m.game_id, m.rules_version, json.dumps(m.parameters),
                  json.dumps(m.players), m.seed, json.dumps(m.time_control), json.dumps(m.failure_policy), m.status,
                  json.dumps(m.result), m.created_at, m.ended_at) for m in records], many=True)
            store._batch_execute("INSERT INTO match_agents(match_id, agent_name, seat) VALUES (?, ?, ?)",
                                 [(m.match_id, p["agent_name"], p["seat"]) for m in records for p in m.players],
                                 many=True)


def bench_outcomes(database: str, matches: int, repeats: int) -> float:
    """Median seconds of list(finished_matches()) over `matches` finished matches."""
    store = Store(database)
    fill(store, matches)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        read = list(store.finished_matches())
        times.append(time.perf_counter() - started)
        assert len(read) == matches
    store.close()
    return statistics.median(times)


def bench_driver(url: str, statements: int) -> tuple[float, float]:
    """(sync, async) microseconds per INSERT round trip, autocommit off, one transaction."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS driver_probe (k BIGINT PRIMARY KEY, v TEXT)")
        conn.execute("TRUNCATE driver_probe")
        conn.execute("BEGIN")
        started = time.perf_counter()
        for k in range(statements):
            conn.execute("INSERT INTO driver_probe VALUES (%s, %s)", (k, "x"))
        sync = (time.perf_counter() - started) / statements
        conn.execute("ROLLBACK")

    async def run_async() -> float:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            await conn.execute("BEGIN")
            started = time.perf_counter()
            for k in range(statements):
                await conn.execute("INSERT INTO driver_probe VALUES (%s, %s)", (k, "x"))
            elapsed = (time.perf_counter() - started) / statements
            await conn.execute("ROLLBACK")
            return elapsed
        finally:
            await conn.close()

    return sync * 1e6, asyncio.run(run_async()) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=30_000, help="log entries appended per run")
    parser.add_argument("--per-turn", type=int, nargs="+", default=[3, 30], help="entries per turn of the loop")
    parser.add_argument("--matches", type=int, default=100_000, help="finished matches read as outcomes")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    print(f"python {platform.python_version()}, sqlite {__import__('sqlite3').sqlite_version}, "
          f"psycopg {version('psycopg')}, {os.cpu_count()} CPUs")
    cluster = ThrowawayCluster(fsync=True).start()
    tmp = Path(tempfile.mkdtemp(prefix="arena-bench-store-"))
    try:
        pg_version = cluster.bin.parts[-2]
        print(f"PostgreSQL {pg_version}: local cluster over its unix socket, fsync on, synchronous_commit on; "
              f"SQLite: WAL, synchronous=NORMAL")
        names = iter(range(1_000_000))

        def databases():
            return {"sqlite": str(tmp / f"bench{next(names)}.db"), "postgres": cluster.create_database("bench")}

        print("\nlog appends (batched per turn of the event loop)")
        for per_turn in args.per_turn:
            results = {}
            runs = list(databases().items()) + [("postgres, synchronous_commit off", cluster.create_database("bench"))]
            for backend, database in runs:
                rate, commit_share = bench_appends(database, args.entries, per_turn,
                                                   async_commit=backend.endswith("off"))
                results[backend] = rate
                print(f"  {per_turn:>3} entries/turn  {backend:<34} {rate:>9,.0f} entries/s  "
                      f"(commits {commit_share:.0%} of the time)")
            ratio = results["postgres"] / results["sqlite"]
            print(f"  {per_turn:>3} entries/turn  postgres/sqlite throughput ratio {ratio:.2f}"
                  f" (synchronous_commit off: {results['postgres, synchronous_commit off'] / results['sqlite']:.2f})")

        print(f"\noutcome read: list(finished_matches()) of {args.matches:,} matches, median of {args.repeats}")
        results = {}
        for backend, database in databases().items():
            seconds = bench_outcomes(database, args.matches, args.repeats)
            results[backend] = seconds
            print(f"  {backend:<8} {seconds:6.2f} s  ({args.matches / seconds:,.0f} matches/s)")
        print(f"  postgres/sqlite time ratio {results['postgres'] / results['sqlite']:.2f}")

        sync_us, async_us = bench_driver(cluster.create_database("driver"), 5_000)
        print(f"\ndriver: one INSERT round trip, psycopg sync {sync_us:.0f} us, async {async_us:.0f} us "
              f"(async/sync {async_us / sync_us:.2f})")
    finally:
        cluster.stop()
        for path in tmp.iterdir():
            path.unlink()
        tmp.rmdir()


if __name__ == "__main__":
    main()
