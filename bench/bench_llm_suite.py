"""The gtbench suite for an LLM agent at the model endpoint's speed: wall time against the floor.

For each concurrency level, in one run, on one machine, four processes:

1. a local OpenAI-compatible endpoint (bench/llm_endpoint.py) that answers every chat request after
   a fixed latency (default 0.5 s) with a legal move in GTBench's answer format, and counts the
   requests in flight;
2. `arena-server serve` on a fresh SQLite file;
3. `arena-agent llm --style gtbench --concurrency N --max-concurrency N` (the SDK's LLM agent: async
   openai client, one connection pool), offering GTBench's ten games;
4. this script, which starts the suite (RunSuite, as `arena-server suite run gtbench` does) and
   follows its tournaments (GetTournament every 0.5 s: the server's time goes to the matches) until
   every one has ended.

Printed per level: wall time from RunSuite to the end of the match that ended last (its last log
entry, on the same clock); model calls (counted by the endpoint); the **floor** = calls x latency /
concurrency (the issue's measure: the endpoint busy with N requests all the time) and wall / floor;
the longest match's chain of calls x latency (a match's decisions are sequential, so no schedule
beats it) and the floor that includes it, max(floor, chain); the longest match as measured (first
to last log entry: its model calls, its opponents' moves and every hand-off) and when the last match
started; the most requests the endpoint saw in flight; the CPU seconds of each process, and of
everything else the machine ran meanwhile ("others", also as cores on average: the load the run
shared the machine with); and the **sequential** time, the papers' way (one call at a time):
measured when the level's concurrency is 1, else calls x the seconds per call measured at
concurrency 1.

Levels run with fewer matches per pairing where 50 would take too long at that concurrency (each
level should take a few minutes at most): `--levels 1:2,8:10,32:50,128:50` (concurrency:matches per
pairing, the default). The suite's seed is fixed (`--seed`), so every level plays the same matches
(the moves are seeded by each prompt): a level with fewer matches plays a prefix of the same set.

Run: .venv/bin/python bench/bench_llm_suite.py   (options: --help)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.v1 import arena_service_pb2 as pb  # noqa: E402
from arena.v1 import arena_service_pb2_grpc  # noqa: E402

GAMES = ["tic_tac_toe", "connect_four", "kuhn_poker", "breakthrough", "liars_dice", "sealed_bid_auction",
         "negotiation", "nim", "pig", "iterated_prisoners_dilemma"]
AGENT = "bench-llm"


def _start(args: list[str], pattern: str, log: Path, env: dict | None = None,
           timeout: float = 60.0) -> tuple[subprocess.Popen, re.Match]:
    """Starts a process writing to the file `log` (a pipe nobody reads would block it once full) and
    waits for a line of its output matching `pattern`."""
    out = open(log, "w")
    process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    out.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        found = re.search(pattern, log.read_text())
        if found:
            return process, found
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{' '.join(args[:4])} did not print {pattern!r}:\n{log.read_text()[-2000:]}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _cpu_seconds(process: subprocess.Popen) -> float:
    """User + system CPU time of a running process so far (Linux /proc), 0 where unavailable."""
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _machine_cpu_seconds() -> float:
    """User and system CPU time of every process of the machine since boot (Linux /proc/stat; not
    interrupts, where the kernel counts the loopback traffic of the run itself), 0 where unavailable."""
    try:
        user, nice, system = map(int, Path("/proc/stat").read_text().split()[1:4])
        return (user + nice + system) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return 0.0


def _stats(base: str, reset: bool = False) -> dict:
    request = urllib.request.Request(base.removesuffix("/v1") + "/stats", method="POST" if reset else "GET")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _match_chains(db: Path, started_at: float) -> tuple[int, int, int, float, float, float]:
    """(matches, model calls of the longest match, model calls in all, the longest match's measured
    duration in seconds (first to last log entry), the last match's start and the end of the match
    that ended last, in seconds after `started_at` (time.time() at RunSuite)) from the match log."""
    con = sqlite3.connect(db)
    try:
        per_match: dict[str, int] = {}
        for match_id, data in con.execute("SELECT match_id, data FROM match_log WHERE kind = 'decision_meta'"):
            extra = json.loads(data)["metadata"].get("extra", {})
            per_match[match_id] = per_match.get(match_id, 0) + int(extra.get("calls", 0))
        matches = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        spans = con.execute("SELECT MIN(time), MAX(time) FROM match_log GROUP BY match_id").fetchall()
    finally:
        con.close()
    longest = max((end - start for start, end in spans), default=0.0)
    last_start = max((start for start, _ in spans), default=started_at) - started_at
    last_end = max((end for _, end in spans), default=started_at) - started_at
    return matches, max(per_match.values(), default=0), sum(per_match.values()), longest, last_start, last_end


def run_level(concurrency: int, matches_per_pairing: int, args: argparse.Namespace) -> dict:
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        db = Path(tmp) / "arena.db"
        endpoint, found = _start([python, str(ROOT / "bench" / "llm_endpoint.py"), "--latency", str(args.latency),
                                  "--seed", str(args.seed)], r"listening on (\S+)",
                                 Path(tmp) / "endpoint.log")
        base = f"http://{found.group(1)}/v1"
        server = agent = None
        try:
            profile = ["-m", "cProfile", "-o", args.profile_server] if args.profile_server else []
            server, found = _start([python, *profile, "-m", "arena_server.cli", "serve", "--db", str(db), "--port", "0",
                                    "--log-json"], r"listening on \S+:(\d+)", Path(tmp) / "server.log")
            address = f"127.0.0.1:{found.group(1)}"
            key = subprocess.run([python, "-m", "arena_server.cli", "keys", "create", "--db", str(db), "--agent",
                                  AGENT], check=True, capture_output=True, text=True, cwd=ROOT).stdout.strip()
            admin = db.with_name(db.name + ".admin-key").read_text().strip()
            env = dict(os.environ, ARENA_API_KEY=key, OPENAI_API_KEY="bench")
            profile = ["-m", "cProfile", "-o", args.profile_agent] if args.profile_agent else []
            agent, _ = _start([python, *profile, "-m", "arena_client.cli", "llm", "--server", address, "--name", AGENT,
                               "--model", "bench", "--base-url", base, "--style", "gtbench", "--no-ladder",
                               "--concurrency", str(concurrency), "--max-concurrency", str(concurrency),
                               "--http-client", args.http_client,
                               *sum((["--game", g] for g in GAMES), [])], r"connected to", Path(tmp) / "agent.log",
                              env=env)
            stub = arena_service_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(address))
            md = [("authorization", f"Bearer {admin}")]
            _stats(base, reset=True)
            cpu_before = {name: _cpu_seconds(p) for name, p in (("server", server), ("agent", agent),
                                                                ("endpoint", endpoint))}
            machine_before = _machine_cpu_seconds()
            own_cpu = time.process_time()
            started_at = time.time()
            tournaments = stub.RunSuite(pb.RunSuiteRequest(suite="gtbench", agent_name=AGENT, seed=args.seed,
                                                           matches_per_pairing=matches_per_pairing),
                                        metadata=md).tournaments
            pending = {t.tournament_id for t in tournaments}
            statuses = {}
            while pending:
                for tid in list(pending):
                    t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid), metadata=md).tournament
                    if t.status != pb.TOURNAMENT_STATUS_RUNNING:
                        pending.discard(tid)
                        statuses[t.game_id] = (pb.TournamentStatus.Name(t.status), t.matches_finished, t.matches_void)
                time.sleep(0.5)
            stats = _stats(base)
            cpu = {name: round(_cpu_seconds(p) - cpu_before[name], 1) for name, p in (
                ("server", server), ("agent", agent), ("endpoint", endpoint))}
            # What the machine did besides the three processes and this script: other users' work.
            mine = sum(cpu.values()) + time.process_time() - own_cpu
            cpu["others"] = round(max(0.0, _machine_cpu_seconds() - machine_before - mine), 1)
            others_cores = cpu["others"] / (time.time() - started_at)
        finally:
            for process, profiled in ((agent, args.profile_agent), (server, args.profile_server)):
                if process is not None and profiled:
                    process.send_signal(signal.SIGINT)      # cProfile writes its file when the process ends normally
                    process.wait(30)
            for process in (agent, server, endpoint):
                if process is not None:
                    _stop(process)
        matches, chain_calls, logged_calls, longest, last_start, last_end = _match_chains(db, started_at)
    wall = last_end
    failed = {g: s for g, s in statuses.items() if s[0] != "TOURNAMENT_STATUS_FINISHED"}
    if failed:
        raise RuntimeError(f"tournaments did not finish: {failed}")
    calls = stats["calls"]
    floor = calls * args.latency / concurrency
    chain = chain_calls * args.latency
    return {"concurrency": concurrency, "matches_per_pairing": matches_per_pairing, "matches": matches,
            "void": sum(s[2] for s in statuses.values()), "calls": calls, "logged_calls": logged_calls,
            "wall": wall, "floor": floor, "chain": chain, "floor_with_chain": max(floor, chain),
            "max_in_flight": stats["max_in_flight"], "cpu_seconds": cpu, "longest_measured": longest,
            "last_start": last_start, "others_cores": others_cores}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1:2,8:10,32:50,128:50",
                        help="concurrency:matches per pairing, comma-separated (default %(default)s)")
    parser.add_argument("--latency", type=float, default=0.5, help="the endpoint's seconds per answer (default 0.5)")
    parser.add_argument("--seed", type=int, default=20240601, help="suite and endpoint seed (default %(default)s)")
    parser.add_argument("--http-client", choices=["auto", "aiohttp", "httpx"], default="auto",
                        help="the LLM agent's transport (default %(default)s: the agent's own default)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--profile-agent", metavar="PATH", help="run the agent under cProfile, writing PATH")
    parser.add_argument("--profile-server", metavar="PATH", help="run the server under cProfile, writing PATH")
    args = parser.parse_args()
    levels = [tuple(int(x) for x in level.split(":")) for level in args.levels.split(",")]
    print(f"gtbench suite, LLM agent against a local endpoint answering after {args.latency:g} s; "
          f"Python {platform.python_version()}, openai {version('openai')}, grpcio {version('grpcio')}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    results = []
    for concurrency, matches in levels:
        result = run_level(concurrency, matches, args)
        results.append(result)
        print(f"  concurrency {concurrency:>3}, {matches:>2} matches per pairing: {result['matches']} matches "
              f"({result['void']} void), {result['calls']} calls, wall {result['wall']:.1f} s, floor "
              f"{result['floor']:.1f} s ({result['wall'] / result['floor']:.2f}x), longest match "
              f"{result['chain']:.1f} s (measured {result['longest_measured']:.1f} s), last match started at "
              f"{result['last_start']:.1f} s, max in flight {result['max_in_flight']}; CPU s {result['cpu_seconds']} "
              f"(others: {result['others_cores']:.2f} cores on average); load "
              f"{os.getloadavg()[0]:.2f}", flush=True)
    sequential = next((r for r in results if r["concurrency"] == 1), None)
    per_call = sequential["wall"] / sequential["calls"] if sequential else None
    print()
    print("| concurrency | matches/pairing | matches (void) | model calls | wall | floor | wall / floor | "
          "longest match | max(floor, longest) | wall / that | max in flight | sequential (papers' way) | "
          "speed-up | others' cores |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if r["concurrency"] == 1:
            seq, how = r["wall"], "measured"
        elif per_call is not None:
            seq, how = r["calls"] * per_call, "extrapolated"
        else:
            seq, how = None, ""
        r["sequential"] = seq
        seq_cell = f"{seq:,.0f} s ({how})" if seq is not None else "-"
        speedup = f"{seq / r['wall']:.1f}x" if seq is not None else "-"
        print(f"| {r['concurrency']} | {r['matches_per_pairing']} | {r['matches']} ({r['void']}) | {r['calls']:,} | "
              f"{r['wall']:.1f} s | {r['floor']:.1f} s | **{r['wall'] / r['floor']:.2f}x** | {r['chain']:.1f} s | "
              f"{r['floor_with_chain']:.1f} s | {r['wall'] / r['floor_with_chain']:.2f}x | {r['max_in_flight']} | "
              f"{seq_cell} | {speedup} | {r['others_cores']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"latency": args.latency, "levels": results}, indent=2))


if __name__ == "__main__":
    main()
