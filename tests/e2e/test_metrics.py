"""Operations against a real server: the Prometheus endpoint scraped during and after a short
tournament, its values checked against the match log they must follow from; JSON log lines carry
the process, the call's request id and the match id. Once per store back end (the log-commit
histogram is labelled with it)."""

from __future__ import annotations

import json
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

from ..pgcluster import free_port
from .helpers import FAILURE, matches_of, wait_connected, wait_tournament
from .scripted import ScriptedAgent


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    """Every sample of the endpoint, parsed by Prometheus's own text parser: (name, labels) -> value."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


class Awkward:
    """First attempts: now an illegal action id, now unreadable text, now a legal move; retries
    answer legally."""

    def __init__(self):
        self.first_attempts = 0

    def __call__(self, request: pb.DecisionRequest) -> pb.Decision:
        answer = pb.Decision(match_id=request.match_id, decision_id=request.decision_id)
        turn = self.first_attempts % 3 if request.attempt == 0 else 2
        self.first_attempts += request.attempt == 0
        if turn == 0:
            answer.action_id = 10_000
        elif turn == 1:
            answer.text = "somewhere in the middle, I think"
        else:
            answer.action_id = request.legal_actions[-1].id
        return answer


def test_metrics_follow_from_the_tournament_played(server_factory, backend):
    port = free_port()
    server = server_factory("--per-decision", "5", "--house-delay", "60", "--metrics-port", str(port), "--log-json",
                            database=backend.database())
    before = scrape(port)
    assert before[("arena_sessions_connected", ())] == 0
    info = [labels for (name, labels) in before if name == "arena_server_info"]
    assert info and dict(info[0])["backend"] == backend.name and dict(info[0])["pid"] == str(server.process.pid)

    agent = ScriptedAgent(server.address, server.create_key("alice"), "alice", ["tic_tac_toe"], Awkward(),
                          join_ladder=False)
    try:
        wait_connected(server, "alice")
        t = apb.Tournament(name="metrics", game_id="tic_tac_toe", agents=["alice", "random"], games_per_pairing=2,
                           seed=3, failure_policy=match_pb2.FailurePolicy(max_retries=2,
                                                                          on_failure=FAILURE["random_legal"]))
        t.time_control.per_decision.FromNanoseconds(int(5e9))
        created = server.arena_stub().CreateTournament(
            apb.CreateTournamentRequest(tournament=t),
            metadata=server.metadata() + [("x-request-id", "operator-42")]).tournament
        during = scrape(port)
        assert during[("arena_sessions_connected", ())] == 1
        tournament = wait_tournament(server, created.tournament_id, timeout=60)
        assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED and tournament.matches_finished == 4
        after = scrape(port)
    finally:
        agent.close()

    store = server.store()
    try:
        logs = [store.read_log(m.match_id) for m in matches_of(server, created.tournament_id)]
    finally:
        store.close()
    entries = [e for log in logs for e in log]
    moves = sum(1 for e in entries if e.kind == "action") + sum(len(e.data["seats"]) for e in entries
                                                                  if e.kind == "actions")
    refused = [e.data["failure"] for e in entries if e.kind == "penalty" and not e.data.get("substituted")]
    assert moves and refused.count("illegal_actions") and refused.count("parse_failures")
    assert not any(e.kind == "penalty" and e.data.get("substituted") for e in entries)

    game = (("game", "tic_tac_toe"),)
    assert after[("arena_decisions_total", game)] == moves
    assert after[("arena_illegal_answers_total", game)] == refused.count("illegal_actions")
    assert after[("arena_unparseable_answers_total", game)] == refused.count("parse_failures")
    assert after[("arena_decision_timeouts_total", game)] == 0
    # Every request was answered (alice's refused attempts included), and each move took one decision.
    assert after[("arena_agent_think_seconds_count", game)] == moves + len(refused)
    assert after[("arena_decision_server_seconds_count", game)] == moves
    assert 0 < after[("arena_decision_server_seconds_sum", game)] < after[("arena_agent_think_seconds_sum", game)]
    assert after[("arena_matches_running", game)] == 0
    commits = after[("arena_log_commit_seconds_count", (("backend", backend.name),))]
    assert 4 <= commits <= len(entries)       # batched: at most one commit per entry, at least one per match
    assert after[("arena_log_commit_seconds_bucket", (("backend", backend.name), ("le", "+Inf")))] == commits
    assert after.get(("arena_log_commit_failures_total", (("backend", backend.name),)), 0) == 0
    assert after[("arena_session_resumes_total", ())] == 0 and after[("arena_session_reconnects_total", ())] == 0
    assert not [name for name, _ in after if name.startswith("arena_rate_limited")]     # nothing was refused

    # Correlation in the JSON log: the process on every line, the request id on a call's lines
    # (the caller's x-request-id, carried on to the tournament it started), the match id on a match's.
    lines = [json.loads(line) for line in server.log_path.read_text().splitlines() if line.startswith("{")]
    assert lines and all(line["pid"] == server.process.pid and line["server_id"].startswith("arena-")
                         for line in lines)
    started = [line for line in lines if line["event"] == "tournament started"]
    assert [line["request_id"] for line in started] == ["operator-42"]
    opened = [line for line in lines if line["event"] == "session opened"]
    assert opened[0]["rpc"] == "/arena.v1.AgentService/Connect" and opened[0]["request_id"].startswith("r_")
    ended = [line for line in lines if line["event"] == "match ended"]
    assert sorted(line["match_id"] for line in ended) == sorted(m.match_id for m in matches_of(server,
                                                                                                created.tournament_id))


def test_a_metrics_port_in_use_stops_the_server_with_one_line(server_factory, tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "arena_server.cli", "serve", "--db", str(tmp_path / "a.db"),
                              "--port", "0", "--metrics-port", str(port)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and f"error: cannot serve metrics on 127.0.0.1:{port}" in out.stderr
    assert "Traceback" not in out.stderr
