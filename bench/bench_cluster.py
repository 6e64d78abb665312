"""Several server processes on one PostgreSQL database: decisions per second with 1, 2 and 4
processes, beside one process on SQLite, and what a seat on another process costs.

In one run, on one machine, each configuration on a fresh database:

- **sqlite x1** (the peer: one process, the default deployment) and **postgres xP** for P = 1, 2, 4:
  `arena-server serve` processes (subprocesses, log lines to a file) on one throwaway PostgreSQL
  cluster (tests/pgcluster.py, fsync and synchronous_commit on, as in production). A second process
  runs N remote agents (grpc.aio raw stubs, one connection each, two matches at a time, random
  legal moves, "no_match_events"), spread round-robin over the server processes, playing
  tic-tac-toe on the ladder. The ladder pairs agents wherever they are connected, so with P
  processes about (P-1)/P of the seats are held on another process than the match's referee (the
  share is measured from the database and printed).
- **seat on another process**: two processes; a tournament run (and refereed) by the first among
  agents all connected to the second, so every seat is relayed over the bus; against the same
  tournament with the agents connected to the first (every seat local).

- **failover**: two processes; four `arena-agent random` processes (the SDK, given both addresses,
  two starting on each); a tournament run by the second process. Halfway through, SIGKILL the
  second: the time until the first process holds the tournament (the takeover), until the first
  taken-over match logs a decision again, until every agent is connected again; and the matches
  lost (finished ones whose record changed or went, planned ones never finished, void ones).

Decisions per second are counted by the agents over a window after a warm-up. CPU seconds of
every server process, of PostgreSQL (all its processes) and of the agents' process are read from
/proc over the same window: CPU per decision per process, from which the scaling on a machine with
more cores can be read. This machine has 2 cores, which the server processes, PostgreSQL and the
agents share: no figure here is a claim about more cores.

Run: .venv/bin/python bench/bench_cluster.py   (options: --help; needs Debian's postgresql package)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.v1 import agent_service_pb2 as pb  # noqa: E402
from arena.v1 import agent_service_pb2_grpc  # noqa: E402

GAME = "tic_tac_toe"
TICKS = os.sysconf("SC_CLK_TCK")


# ---- the agents' side (a second process) ------------------------------------------------------
async def _agent(address: str, name: str, key: str, tally: dict, rng: random.Random, capacity: int,
                 ladder: bool) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(metadata=[("authorization", f"Bearer {key}")])
        await call.write(pb.ConnectRequest(hello=pb.Hello(
            protocol_version="1.0", agent=pb.AgentInfo(name=name, version="bench"), games=[pb.GameOffer(game_id=GAME)],
            capabilities=["no_match_events"], max_concurrent_matches=capacity, join_ladder=ladder)))
        async for response in call:
            if response.WhichOneof("message") != "decision_request":
                continue
            request = response.decision_request
            tally["decisions"] += 1
            await call.write(pb.ConnectRequest(decision=pb.Decision(
                match_id=request.match_id, decision_id=request.decision_id,
                action_id=rng.choice(request.legal_actions).id)))


async def agents_main(args) -> None:
    plan = json.loads(Path(args.plan).read_text())      # [[name, key, address], ...]
    tally = {"decisions": 0}
    tasks = [asyncio.create_task(_agent(address, name, key, tally, random.Random(i), args.capacity, not args.no_ladder))
             for i, (name, key, address) in enumerate(plan)]
    await asyncio.sleep(args.warmup)
    print(json.dumps({"window": "start"}), flush=True)
    start, decisions = time.perf_counter(), tally["decisions"]
    await asyncio.sleep(args.seconds)
    elapsed, decisions = time.perf_counter() - start, tally["decisions"] - decisions
    print(json.dumps({"per_second": decisions / elapsed, "decisions": decisions}), flush=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# ---- processes and their CPU -----------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS      # utime, stime


def postgres_pids(cluster) -> list[int]:
    postmaster = int((cluster.dir / "data" / "postmaster.pid").read_text().split()[0])
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                children.append(int(stat.parent.name))
        except (OSError, ValueError):
            pass
    return [postmaster, *children]


def start_server(database: str, folder: Path, index: int, *extra: str) -> tuple[subprocess.Popen, str]:
    log = open(folder / f"server-{index}.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_server.cli", "serve", "--db", database, "--port", "0", "--house-delay", "600",
         "--per-decision", "30", *extra], stdout=subprocess.PIPE, stderr=log, text=True, cwd=folder)
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        found = re.search(r"listening on \S+:(\d+)", line or "")
        if found:
            return process, f"127.0.0.1:{found.group(1)}"
        if not line:
            break
    process.kill()
    raise RuntimeError(f"the server did not start:\n{(folder / f'server-{index}.log').read_text()[-2000:]}")


def create_keys(database: str, names: list[str]) -> dict[str, str]:
    from arena_server import auth
    from arena_server.store import Store

    store = Store(database)
    try:
        for name in names:
            store.ensure_agent(name)
        return {name: auth.create_key(store, agent_name=name, scopes=["play"])[0] for name in names}
    finally:
        store.close()


def cross_share(database: str, since: float) -> float | None:
    """The share of the seats of matches ended since `since` held on another process than the referee."""
    from arena_server.store import Store, is_postgres_url

    if not is_postgres_url(database):
        return None
    store = Store(database, migrate=False)
    try:
        row = store._execute(
            "SELECT AVG(CASE WHEN s.server_id <> m.referee THEN 1.0 ELSE 0.0 END) AS share FROM matches m "
            "JOIN match_agents ma USING (match_id) JOIN sessions s ON s.session_id = ma.session_id "
            "WHERE m.status = 'finished' AND m.ended_at > ?", (since,)).fetchone()
        return float(row["share"]) if row["share"] is not None else None
    finally:
        store.close()


def measure(database: str, folder: Path, processes: int, agents: int, args, *, postgres=None,
            tournament: str | None = None, agent_server: int | None = None) -> dict:
    """One configuration: `processes` servers on `database`, `agents` agents spread over them (or all on
    server `agent_server`), on the ladder, or in a round-robin tournament run by server 0 when
    `tournament` names the game."""
    servers = []
    try:
        for index in range(processes):
            servers.append(start_server(database, folder, index, "--lease-seconds", "10"))
            if index == 0 and processes > 1:
                time.sleep(0.5)          # the first one migrates the database
        names = [f"agent-{i:03d}" for i in range(agents)]
        keys = create_keys(database, names)
        plan = [[name, keys[name], servers[agent_server if agent_server is not None else i % processes][1]]
                for i, name in enumerate(names)]
        plan_file = folder / f"plan-{processes}-{agents}.json"
        plan_file.write_text(json.dumps(plan))
        runner = subprocess.Popen(
            [sys.executable, __file__, "--role", "agents", "--plan", str(plan_file), "--capacity", str(args.capacity),
             "--warmup", str(args.warmup), "--seconds", str(args.seconds),
             *(["--no-ladder"] if tournament else [])], stdout=subprocess.PIPE, text=True)
        if tournament:
            time.sleep(2.0)
            start_tournament(servers[0][1], folder, database, names)
        line = runner.stdout.readline()
        assert json.loads(line)["window"] == "start", line
        window_start = time.time()
        pids = {f"server {i}": p.pid for i, (p, _) in enumerate(servers)} | {"agents": runner.pid}
        before = {who: cpu_seconds(pid) for who, pid in pids.items()}
        pg_before = sum(cpu_seconds(p) for p in postgres_pids(postgres)) if postgres else 0.0
        result = json.loads(runner.stdout.readline())
        after = {who: cpu_seconds(pid) for who, pid in pids.items()}
        pg_after = sum(cpu_seconds(p) for p in postgres_pids(postgres)) if postgres else 0.0
        runner.wait(30)
        decisions = max(result["decisions"], 1)
        cpu = {who: (after[who] - before[who]) / decisions * 1e3 for who in pids}   # ms per decision
        if postgres:
            cpu["postgres"] = (pg_after - pg_before) / decisions * 1e3
        return {"per_second": result["per_second"], "decisions": result["decisions"], "cpu_ms": cpu,
                "cross_share": cross_share(database, window_start)}
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


def start_tournament(address: str, folder: Path, database: str, names: list[str]) -> None:
    from arena.v1 import arena_service_pb2 as apb
    from arena.v1 import arena_service_pb2_grpc, match_pb2
    from arena_server.server import admin_key_path

    key = (folder / admin_key_path(database)).read_text().strip()
    stub = arena_service_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(address))
    t = apb.Tournament(name="bench", game_id=GAME, agents=names, games_per_pairing=50, seed=1,
                       failure_policy=match_pb2.FailurePolicy(max_retries=2))
    t.time_control.per_decision.FromNanoseconds(30 * 10**9)
    stub.CreateTournament(apb.CreateTournamentRequest(tournament=t), metadata=[("authorization", f"Bearer {key}")])


# ---- failover ----------------------------------------------------------------------------------------
def failover(cluster, folder: Path, run: int) -> dict:
    from arena.v1 import arena_service_pb2 as apb
    from arena.v1 import arena_service_pb2_grpc, match_pb2
    from arena_server.server import admin_key_path
    from arena_server.store import Store

    database = cluster.create_database(f"failover{run}")
    servers = [start_server(database, folder, 10 + run * 2)]
    time.sleep(0.5)
    servers.append(start_server(database, folder, 11 + run * 2))
    (a, a_address), (b, b_address) = servers
    names = [f"player-{i}" for i in range(4)]
    keys = create_keys(database, names)
    agents = [subprocess.Popen(
        [sys.executable, "-m", "arena_client.cli", "random", "--name", name, "--game", GAME, "--no-ladder", "--server",
         f"{b_address},{a_address}" if i % 2 else f"{a_address},{b_address}"],
        env={**os.environ, "ARENA_API_KEY": keys[name]}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i, name in enumerate(names)]
    store = Store(database, migrate=False)
    try:
        def one(sql, args=()):
            return store._execute(sql, args).fetchone()

        while one("SELECT COUNT(*) AS n FROM sessions WHERE alive = 1")["n"] < len(names):
            time.sleep(0.05)
        key = (folder / admin_key_path(database)).read_text().strip()
        t = apb.Tournament(name="failover", game_id=GAME, agents=[*names, "random"], games_per_pairing=10, seed=run + 1,
                           failure_policy=match_pb2.FailurePolicy(max_retries=2))
        t.time_control.per_decision.FromNanoseconds(30 * 10**9)
        created = arena_service_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(b_address)).CreateTournament(
            apb.CreateTournamentRequest(tournament=t), metadata=[("authorization", f"Bearer {key}")]).tournament
        total = created.matches_total
        while one("SELECT COUNT(*) AS n FROM matches WHERE status = 'finished'")["n"] < total // 2:   # its matches only
            time.sleep(0.01)
        b.kill()
        killed = time.monotonic()
        b.wait()
        finished = {r["match_id"]: r["result"] for r in store._execute(
            "SELECT match_id, result FROM matches WHERE status = 'finished'").fetchall()}
        running = {r["match_id"]: r["n"] for r in store._execute(
            "SELECT m.match_id, MAX(l.seq) AS n FROM matches m JOIN match_log l USING (match_id) "
            "WHERE m.status = 'running' GROUP BY m.match_id").fetchall()}
        a_id = one("SELECT server_id FROM servers ORDER BY started_at LIMIT 1")["server_id"]
        took = resumed = reconnected = None
        while time.monotonic() - killed < 120:
            now = time.monotonic() - killed
            if took is None and one("SELECT runner FROM tournaments")["runner"] == a_id:
                took = now
            if took is not None and resumed is None and (not running or one(
                    "SELECT COUNT(*) AS n FROM match_log WHERE match_id = ANY(?) AND seq > ?",
                    (list(running), min(running.values())))["n"]):
                resumed = now
            if reconnected is None and one("SELECT COUNT(*) AS n FROM sessions WHERE alive = 1 AND server_id = ?",
                                           (a_id,))["n"] == len(names):
                reconnected = now
            status = one("SELECT status FROM tournaments")["status"]
            if status != "running" and took is not None:
                break
            time.sleep(0.01)
        counts = {r["status"]: r["n"] for r in store._execute(
            "SELECT status, COUNT(*) AS n FROM matches GROUP BY status").fetchall()}
        changed = sum(1 for match_id, result in finished.items()
                      if one("SELECT result FROM matches WHERE match_id = ?", (match_id,))["result"] != result)
        return {"took": took, "resumed": resumed, "reconnected": reconnected, "total": total,
                "running_at_kill": len(running), "finished": counts.get("finished", 0),
                "lost": changed + counts.get("void", 0) + (total - counts.get("finished", 0)), "status": status}
    finally:
        store.close()
        for process in agents + [a]:
            process.terminate()
        for process in agents + [a]:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


# ---- the report ------------------------------------------------------------------------------------
def _cpu_cells(cpu: dict[str, float]) -> str:
    servers = [v for k, v in cpu.items() if k.startswith("server")]
    return (f"{sum(servers):.3f} ({' + '.join(f'{v:.3f}' for v in servers)}) | {cpu.get('postgres', 0.0):.3f} | "
            f"{cpu['agents']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", default="main", choices=["main", "agents"], help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--no-ladder", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--agents", type=int, default=40, help="remote agents (default %(default)s)")
    parser.add_argument("--capacity", type=int, default=2, help="matches each agent plays at once (default %(default)s)")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before the window (default %(default)g)")
    parser.add_argument("--seconds", type=float, default=10.0, help="the window, in seconds (default %(default)g)")
    parser.add_argument("--processes", default="1,2,4", help="server processes on PostgreSQL (default %(default)s)")
    parser.add_argument("--failovers", type=int, default=5, help="kills of a process mid-tournament (default %(default)s)")
    args = parser.parse_args()
    if args.role == "agents":
        asyncio.run(agents_main(args))
        return

    from tests.pgcluster import ThrowawayCluster

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"grpcio {version('grpcio')}, psycopg {version('psycopg')}; {args.agents} agents x {args.capacity} matches, "
          f"{args.seconds:g} s window after {args.warmup:g} s; load average {os.getloadavg()[0]:.1f} at the start")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        folder = Path(tmp)
        sqlite = measure(str(folder / "sqlite.db"), folder, 1, args.agents, args)
        rows.append(("sqlite", 1, sqlite))
        cluster = ThrowawayCluster(fsync=True).start()
        try:
            for processes in [int(p) for p in args.processes.split(",")]:
                rows.append(("postgres", processes,
                             measure(cluster.create_database(f"p{processes}"), folder, processes, args.agents, args,
                                     postgres=cluster)))
            local = measure(cluster.create_database("local"), folder, 2, args.agents // 2, args, postgres=cluster,
                            tournament=GAME, agent_server=0)
            remote = measure(cluster.create_database("remote"), folder, 2, args.agents // 2, args, postgres=cluster,
                             tournament=GAME, agent_server=1)
            failovers = [failover(cluster, folder, run) for run in range(args.failovers)]
        finally:
            cluster.stop()

    print("\n| back end | server processes | decisions/s | / sqlite x1 | seats on another process | "
          "server CPU ms per decision (each) | PostgreSQL CPU ms | agents' CPU ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for backend, processes, r in rows:
        share = "-" if r["cross_share"] is None else f"{r['cross_share']:.0%}"
        print(f"| {backend} | {processes} | {r['per_second']:,.0f} | {r['per_second'] / sqlite['per_second']:.2f}x | "
              f"{share} | {_cpu_cells(r['cpu_ms'])} |")
    print("\nA tournament refereed by server 0 with every agent on server 0 (local seats) or on server 1 "
          f"(every seat relayed over the bus), {args.agents // 2} agents:\n")
    print("| seats | decisions/s | seats on another process | server CPU ms per decision (each) | PostgreSQL CPU ms | "
          "agents' CPU ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in (("local", local), ("on another process", remote)):
        share = "-" if r["cross_share"] is None else f"{r['cross_share']:.0%}"
        print(f"| {label} | {r['per_second']:,.0f} | {share} | {_cpu_cells(r['cpu_ms'])} |")
    extra = sum(remote["cpu_ms"].values()) - sum(local["cpu_ms"].values())
    print(f"\nA seat on another process: {extra:+.3f} ms of CPU per decision over all processes "
          f"({remote['per_second'] / local['per_second']:.2f}x the local rate).")
    if failovers:
        print("\nFailover: SIGKILL of the process running a tournament, halfway (seconds after the kill):\n")
        print("| run | matches | running at the kill | tournament taken over | a taken-over match moves again | "
              "every agent connected again | finished | lost |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for run, f in enumerate(failovers, 1):
            cells = [f"{f[k]:.2f}" if f[k] is not None else "never" for k in ("took", "resumed", "reconnected")]
            print(f"| {run} | {f['total']} | {f['running_at_kill']} | {' | '.join(cells)} | {f['finished']} | "
                  f"{f['lost']} |")


if __name__ == "__main__":
    main()
