"""A GTBench suite run by `arena-agent llm` against a local OpenAI-compatible endpoint, once per module:
its cost in the suite's report and in the leaderboard's CSV and HTML (equal to the sums in the match
log), and `arena-server export` of the run (JSONL over the RPCs, Parquet from the database file),
read back and replayed to the same results.

The endpoint answers in GTBench's format (bench/llm_endpoint.py's answers) but garbles every fifth
answer, so some decisions need a re-ask.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from arena_server.cli.export import read_export, replay_export
from arena_server.ratings.report import COST_COLUMNS

from ..conftest import ROOT, start_server
from ..e2e.helpers import wait_connected
from .fake_openai import FakeOpenAI, text

pytestmark = pytest.mark.timeout(300)

KEY = "test-key"
AGENT = "contestant-zeta"
PRICE_IN, PRICE_OUT = 0.5, 1.5          # dollars per 1000 prompt / completion tokens
GAMES = ["tic_tac_toe", "connect_four", "kuhn_poker", "breakthrough", "liars_dice", "sealed_bid_auction",
         "negotiation", "nim", "pig", "iterated_prisoners_dilemma"]


def _bench_endpoint():
    spec = importlib.util.spec_from_file_location("bench_llm_endpoint", ROOT / "bench" / "llm_endpoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Responder:
    """GTBench answers, every fifth one garbled."""

    def __init__(self):
        self.bench = _bench_endpoint()
        self.count = 0

    def __call__(self, body):
        import random

        self.count += 1
        if self.count % 5 == 0:
            return text("I would rather not say.")
        return text(self.bench.gtbench_answer(body["messages"], random.Random(self.count)))


def _cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "arena_server.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=240, check=check)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    home = tmp_path_factory.mktemp("llm-suite")
    server = start_server(home, "--house-delay", "0")
    with FakeOpenAI(api_key=KEY, responder=_Responder()) as model:
        env = dict(os.environ, ARENA_API_KEY=server.create_key(AGENT), OPENAI_API_KEY=KEY)
        log = open(home / "agent.log", "w")
        agent = subprocess.Popen(
            [sys.executable, "-m", "arena_client.cli", "llm", "--server", server.address, "--name", AGENT,
             "--model", "fake", "--base-url", model.base_url, "--style", "gtbench", "--no-ladder",
             "--concurrency", "8", "--retry-delay", "0.01", "--price-per-1k-input", str(PRICE_IN),
             "--price-per-1k-output", str(PRICE_OUT), *sum((["--game", g] for g in GAMES), [])],
            stdout=log, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        try:
            wait_connected(server, AGENT)
            report = _cli("suite", "run", "gtbench", "--agent", AGENT, "--matches-per-pairing", "2",
                          "--server", server.address, "--db", str(server.db))
            assert report.returncode == 0, report.stderr
            yield server, report.stdout, home
        finally:
            agent.terminate()
            agent.wait(10)
            log.close()
            server.stop()


def _log_sums(db, statuses=("finished", "void")):
    """Per agent, straight from the database: matches, prompt and completion tokens, cost, and the
    decisions' metadata re-asks."""
    con = sqlite3.connect(db)
    try:
        players = {}
        for match_id, status, data in con.execute("SELECT match_id, status, players FROM matches"):
            if status in statuses:
                players[match_id] = {p["seat"]: p["agent_name"] for p in json.loads(data)}
        sums = {}
        for match_id, seats in players.items():
            for name in set(seats.values()):
                sums.setdefault(name, {"matches": 0, "prompt": 0, "completion": 0, "cost": 0.0, "reasks": 0})
                sums[name]["matches"] += 1
        for match_id, data in con.execute("SELECT match_id, data FROM match_log WHERE kind = 'decision_meta'"):
            if match_id not in players:
                continue
            entry = json.loads(data)
            meta = entry["metadata"]
            s = sums[players[match_id][entry["seat"]]]
            s["prompt"] += int(meta.get("promptTokens", 0))
            s["completion"] += int(meta.get("completionTokens", 0))
            s["cost"] += float(meta.get("costUsd", 0.0))
            s["reasks"] += meta.get("extra", {}).get("reasks", 0) > 0
    finally:
        con.close()
    return sums


def test_the_suite_report_shows_tokens_cost_and_completion_per_agent(run):
    server, report, _ = run
    sums = _log_sums(server.db)[AGENT]
    assert sums["prompt"] > 0 and sums["completion"] > 0 and sums["reasks"] > 0
    block = report[report.index("Cost and completion"):]
    table = block[:block.index("\n\n")].splitlines()          # the block ends with an empty line
    assert table[1].split()[:4] == ["agent", "matches", "decisions", "tokens"]
    line = next(row.split() for row in table if row.split()[:1] == [AGENT])
    matches, decisions, tokens = int(line[1]), int(line[2]), int(line[3].replace(",", ""))
    assert matches == sums["matches"] >= 36          # counted matches, and void ones replayed
    assert tokens == sums["prompt"] + sums["completion"]
    assert float(line[6].lstrip("$").replace(",", "")) == pytest.approx(sums["cost"], abs=0.005)   # printed to the cent
    assert sums["cost"] == pytest.approx((sums["prompt"] * PRICE_IN + sums["completion"] * PRICE_OUT) / 1000)
    assert float(line[4].replace(",", "")) == pytest.approx(tokens / matches, abs=0.5)
    reasked = float(line[9].rstrip("%")) / 100
    assert reasked == pytest.approx(sums["reasks"] / decisions, abs=0.001) and reasked > 0
    # House agents report no tokens: their rows say so rather than being left out.
    house = [row.split() for row in table[2:] if row.split() and row.split()[0] != AGENT]
    assert house and all(row[3] == "0" for row in house)


def test_leaderboard_csv_and_html_carry_cost_columns_equal_to_the_log(run, tmp_path):
    server, _, _ = run
    out = _cli("leaderboard", "--local", "--db", str(server.db), "--suite", "gtbench", "--method", "elo",
               "--resamples", "0", "--csv", str(tmp_path / "b.csv"), "--html", str(tmp_path / "b.html"))
    assert "Cost and completion" in out.stdout
    sums = _log_sums(server.db, statuses=("finished",))
    with open(tmp_path / "b.csv") as f:
        rows = {r["agent"]: r for r in csv.DictReader(f)}
    row = rows[AGENT]
    assert int(row["prompt_tokens"]) == sums[AGENT]["prompt"]
    assert int(row["completion_tokens"]) == sums[AGENT]["completion"]
    assert float(row["cost_usd"]) == pytest.approx(sums[AGENT]["cost"], rel=1e-5)
    assert float(row["tokens_per_match"]) == pytest.approx(
        (sums[AGENT]["prompt"] + sums[AGENT]["completion"]) / sums[AGENT]["matches"], rel=1e-5)
    assert 0 < float(row["reask_share"]) < 1 and float(row["fallback_share"]) == 0
    assert all(int(r["prompt_tokens"]) == 0 for name, r in rows.items() if name != AGENT)
    page = (tmp_path / "b.html").read_text()
    section = page[page.index("<h2>Cost and completion</h2>"):]
    assert f"<td>{AGENT}</td>" in section and f"<td>{sums[AGENT]['prompt']:,}</td>" in section
    quiet = _cli("leaderboard", "--local", "--db", str(server.db), "--suite", "gtbench", "--no-costs")
    assert "Cost and completion" not in quiet.stdout
    # Over the RPCs (one GetMatch per match), asked for: the same columns.
    _cli("leaderboard", "--costs", "--server", server.address, "--db", str(server.db), "--suite", "gtbench",
         "--method", "elo", "--resamples", "0", "--csv", str(tmp_path / "r.csv"))
    with open(tmp_path / "r.csv") as f:
        remote = {r["agent"]: r for r in csv.DictReader(f)}
    assert {name: [r[c] for c in COST_COLUMNS] for name, r in remote.items()} == {
        name: [r[c] for c in COST_COLUMNS] for name, r in rows.items()}


def test_export_round_trip_replays_every_match_to_its_result(run, tmp_path):
    server, _, _ = run
    jsonl = tmp_path / "run.jsonl"
    done = _cli("export", "--suite", "gtbench", "--server", server.address, "--db", str(server.db), "--out",
                str(jsonl))
    ended = _log_sums(server.db)[AGENT]["matches"]      # counted and void
    lines = read_export(str(jsonl))
    matches = [line for line in lines if line["type"] == "match"]
    decisions = [line for line in lines if line["type"] == "decision"]
    assert f"exported {ended} matches, {len(decisions)} decisions" in done.stderr
    assert len(matches) == ended and {m["game_id"] for m in matches} == set(GAMES)
    normal = {m["match_id"] for m in matches if m["status"] == "finished" and m["result"]["reason"] == "normal"}
    replayed = replay_export(lines)
    assert set(replayed) == normal and len(normal) >= 30
    for m in matches:
        if m["match_id"] in replayed:
            assert replayed[m["match_id"]] == m["result"]["returns"]
    asked = [d for d in decisions if d["agent"] == AGENT and d["agent_metadata"]
             and not d["agent_metadata"].get("forced")]
    assert asked and all(d["observation_text"] and d["legal_actions"] and d["agent_metadata"]["prompt"]
                         and d["agent_metadata"]["reply"] is not None for d in asked)
    for d in decisions:
        if d["legal_actions"]:
            assert d["action"]["id"] in [a["id"] for a in d["legal_actions"]]
        returns = next(m for m in matches if m["match_id"] == d["match_id"])["result"]["returns"]
        assert d["outcome"]["return"] == (returns[d["seat"]] if returns else None)     # a void match has none
    sums = _log_sums(server.db)[AGENT]
    assert sum(d["agent_metadata"].get("prompt_tokens", 0) for d in asked) == sums["prompt"]

    # The same run from the database file, as Parquet, anonymised: the same moves, no names.
    parquet = tmp_path / "run.parquet"
    _cli("export", "--local", "--db", str(server.db), "--suite", "gtbench", "--anonymise", "--out", str(parquet))
    again = read_export(str(parquet))
    assert replay_export(again) == replayed
    assert [(d["match_id"], d["step"], d["seat"], d["action"]["id"]) for d in again if d["type"] == "decision"] == \
        [(d["match_id"], d["step"], d["seat"], d["action"]["id"]) for d in decisions]
    assert AGENT not in json.dumps(again)
    assert {p["agent"] for m in again if m["type"] == "match" for p in m["players"]} <= {
        f"agent-{i}" for i in range(1, 10)}


def test_a_running_match_is_exported_without_hidden_information():
    from arena_server.cli.export import _Match, _Names, match_lines

    players = [{"seat": 0, "agent_name": AGENT, "team": 0, "house_agent": False},
               {"seat": 1, "agent_name": "random", "team": 1, "house_agent": True}]
    # What a running match's log shows a spectator: its public entries (a chance deal and the
    # private bets of Kuhn poker are not among them); the private entries would follow the same way.
    public = [("start", {"players": players}, True), ("action", {"seat": 0, "action": 1}, True),
              ("action", {"seat": 1, "action": 0}, True)]
    match = _Match("m1", "t1", "kuhn_poker", "1", {}, players, None, "running", 1.7e9, None, public)
    lines = list(match_lines(match, _Names(anonymise=True)))
    head, moves = lines[0], lines[1:]
    assert head["hidden_information_removed"] and head["seed"] is None and head["result"] is None
    assert [p["agent"] for p in head["players"]] == ["agent-1", "agent-2"]
    assert [(d["type"], d["step"], d["seat"], d["agent"], d["action"]) for d in moves] == [
        ("decision", 0, 0, "agent-1", {"id": 1}), ("decision", 1, 1, "agent-2", {"id": 0})]
    assert not any(key in d for d in moves for key in ("observation_text", "observation", "legal_actions",
                                                        "agent_metadata"))
    # The same match once ended is exported in full: the engine replays it for the views.
    ended = _Match("m1", "t1", "tic_tac_toe", "1", {}, players, 7, "finished", 1.7e9, 1.7e9 + 5,
                   [("action", {"seat": s, "action": a}, True) for s, a in zip([0, 1, 0, 1, 0], [0, 3, 1, 4, 2])]
                   + [("end", {"reason": "normal", "returns": [1.0, -1.0], "ranks": [1, 2]}, True)])
    full = list(match_lines(ended, _Names(anonymise=False)))
    assert not full[0]["hidden_information_removed"] and full[0]["seed"] == 7
    assert [len(d["legal_actions"]) for d in full[1:]] == [9, 8, 7, 6, 5]
    assert full[-1]["outcome"] == {"return": 1.0, "rank": 1, "reason": "normal"}
    assert replay_export(full) == {"m1": [1.0, -1.0]}
