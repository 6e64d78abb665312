"""What a new operator meets in the first hour, against real servers: tournaments that cannot fill a
seat say so and end by their stated rule, tournaments and matches can be listed, shown, followed,
cancelled and exported, keys listed and revoked, and bad `serve` inputs end in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import grpc
import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

from ..conftest import agent_process
from .helpers import FAILURE, matches_of, wait_connected, wait_tournament
from .scripted import ScriptedAgent


def cli(server, *args: str, key: str | None = None, env: dict | None = None, timeout: float = 120):
    """`arena-server ARGS --server ADDRESS`, run beside the server's database (as the README does)."""
    command = [sys.executable, "-m", "arena_server.cli", *args, "--server", server.address]
    if key:
        command += ["--key", key]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=server.db.parent,
                          env=dict(os.environ, **(env or {})))


def create(server, game: str, agents: list[str], *, absent_timeout: float, on_absent: int = apb.ABSENT_AGENT_RULE_FAIL,
           on_failure: str = "forfeit", games_per_pairing: int = 1) -> str:
    t = apb.Tournament(name="first hour", game_id=game, agents=agents, games_per_pairing=games_per_pairing,
                       on_absent=on_absent, failure_policy=match_pb2.FailurePolicy(on_failure=FAILURE[on_failure]))
    t.time_control.per_decision.FromNanoseconds(int(5e9))
    t.absent_timeout.FromNanoseconds(int(absent_timeout * 1e9))
    return server.arena_stub().CreateTournament(apb.CreateTournamentRequest(tournament=t),
                                                metadata=server.metadata()).tournament.tournament_id


def get(server, tournament_id: str) -> apb.Tournament:
    return server.arena_stub().GetTournament(apb.GetTournamentRequest(tournament_id=tournament_id),
                                             metadata=server.metadata()).tournament


@pytest.fixture
def tic_tac_toe_agent(server):
    """An agent connected for tic-tac-toe only, as the README's first agent is."""
    agent = agent_process(server, "first-agent", "random", "--game", "tic_tac_toe", "--no-ladder")
    wait_connected(server, "first-agent")
    yield "first-agent"
    agent.terminate()
    agent.wait(10)


def test_an_agent_connected_for_other_games_is_reported_at_once_then_the_tournament_fails(server, tic_tac_toe_agent):
    run = cli(server, "tournament", "run", "--game", "connect_four", "--agents", f"{tic_tac_toe_agent},random",
              "--absent-timeout", "3")
    assert run.returncode == 1
    assert "waiting: first-agent is connected for tic_tac_toe but not for connect_four; it fails in" in run.stdout
    assert "error: tournament failed: gave up after waiting 3 s: first-agent is connected for tic_tac_toe but not " \
           "for connect_four" in run.stderr
    # The server logged it too, and the failed tournament never comes back.
    log = server.log_path.read_text()
    assert "tournament waiting for an agent" in log and "first-agent" in log
    failed = cli(server, "tournament", "list", "--status", "failed")
    assert failed.returncode == 0 and "connect_four" in failed.stdout
    server.stop()
    server.restart()
    assert all(t.status != apb.TOURNAMENT_STATUS_RUNNING for t in server.arena_stub().ListTournaments(
        apb.ListTournamentsRequest(), metadata=server.metadata()).tournaments)


def test_get_tournament_names_the_missing_agent_while_it_waits(server):
    server.create_key("never-connects")
    tid = create(server, "tic_tac_toe", ["never-connects", "random"], absent_timeout=60)
    deadline = time.monotonic() + 10
    while not get(server, tid).waiting and time.monotonic() < deadline:
        time.sleep(0.1)
    (wait,) = get(server, tid).waiting
    assert wait.agent_name == "never-connects" and not wait.connected and list(wait.connected_games) == []
    assert wait.reason == "never-connects is not connected"
    assert 50 < wait.remaining.ToNanoseconds() / 1e9 <= 60
    show = cli(server, "tournament", "show", tid)
    assert show.returncode == 0 and "waiting     never-connects is not connected; it fails in" in show.stdout
    listed = cli(server, "tournament", "list")
    assert "(waiting for never-connects)" in listed.stdout
    # Cancelling ends it for good, even across a restart.
    cancelled = cli(server, "tournament", "cancel", tid)
    assert cancelled.returncode == 0 and f"tournament {tid} cancelled" in cancelled.stdout
    assert get(server, tid).status == apb.TOURNAMENT_STATUS_CANCELLED
    again = cli(server, "tournament", "cancel", tid)
    assert again.returncode == 1 and "FAILED_PRECONDITION" in again.stderr and "cancelled, not running" in again.stderr
    server.stop()
    server.restart()
    assert get(server, tid).status == apb.TOURNAMENT_STATUS_CANCELLED
    time.sleep(0.5)
    assert server.log_path.read_text().count("tournament started") == 1     # not again after the restart


def test_on_absent_failure_policy_plays_without_the_absent_agent(server):
    server.create_key("absentee")
    tid = create(server, "tic_tac_toe", ["absentee", "random"], absent_timeout=1,
                 on_absent=apb.ABSENT_AGENT_RULE_FAILURE_POLICY, on_failure="forfeit")
    t = wait_tournament(server, tid, timeout=60)
    assert t.status == apb.TOURNAMENT_STATUS_FINISHED and t.matches_finished == 2
    for m in matches_of(server, tid):
        seat = next(p.seat for p in m.players if p.agent_name == "absentee")
        assert m.result.reason == match_pb2.END_REASON_FORFEIT_DISCONNECT and list(m.result.blamed_seats) == [seat]


def test_cancelling_a_running_tournament_aborts_its_matches(server):
    # A silent agent keeps its match running until the 5 s decision deadline.
    slow = ScriptedAgent(server.address, server.create_key("slow-agent"), "slow-agent", ["tic_tac_toe"],
                         lambda request: None, join_ladder=False)
    try:
        wait_connected(server, "slow-agent")
        tid = create(server, "tic_tac_toe", ["slow-agent", "random"], absent_timeout=60, games_per_pairing=2)
        deadline = time.monotonic() + 20
        while not any(m.status == match_pb2.MATCH_STATUS_RUNNING for m in matches_of(server, tid)):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        cancelled = server.arena_stub().CancelTournament(apb.CancelTournamentRequest(tournament_id=tid),
                                                         metadata=server.metadata()).tournament
        assert cancelled.status == apb.TOURNAMENT_STATUS_CANCELLED
        matches = matches_of(server, tid)
        assert matches and all(m.status == match_pb2.MATCH_STATUS_VOID for m in matches)
        assert all(m.result.reason == match_pb2.END_REASON_ABORTED for m in matches)
        time.sleep(1.5)
        assert len(matches_of(server, tid)) == len(matches)      # nothing new starts
    finally:
        slow.close()


def test_a_house_agent_that_cannot_play_the_game_is_refused(server):
    run = cli(server, "tournament", "run", "--game", "connect_four", "--agents", "tit_for_tat,random")
    assert run.returncode == 1 and "INVALID_ARGUMENT" in run.stderr
    assert "house agent tit_for_tat cannot play connect_four" in run.stderr


def test_matches_list_show_and_export(server, tic_tac_toe_agent):
    run = cli(server, "tournament", "run", "--game", "tic_tac_toe", "--agents", f"{tic_tac_toe_agent},random")
    assert run.returncode == 0, run.stderr
    listed = cli(server, "matches", "list", "--game", "tic_tac_toe")
    assert listed.returncode == 0
    rows = [line for line in listed.stdout.splitlines()[1:] if line.startswith("m_")]
    assert len(rows) == 2 and all("finished" in row and "first-agent" in row for row in rows)
    match_id = rows[0].split()[0]
    show = cli(server, "matches", "show", match_id)
    assert show.returncode == 0 and "tic_tac_toe" in show.stdout and "seed" in show.stdout
    exported = cli(server, "matches", "export", match_id)
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert lines[0]["match"]["matchId"] == match_id
    kinds = [line["kind"] for line in lines[1:]]
    assert kinds[0] == "start" and "end" in kinds and "action" in kinds
    assert [line["seq"] for line in lines[1:]] == list(range(len(lines) - 1))
    missing = cli(server, "matches", "show", "m_nosuchmatch")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr


def test_operator_commands_use_the_admin_key_file_even_with_a_play_key_exported(server):
    play_key = server.create_key("exported-agent")
    listed = cli(server, "tournament", "list", env={"ARENA_API_KEY": play_key})
    assert listed.returncode == 0, listed.stderr
    # Given the play key explicitly, the refusal says where the key came from.
    refused = cli(server, "tournament", "run", "--game", "nim", "--agents", "random,mcts", key=play_key)
    assert refused.returncode == 1 and "PERMISSION_DENIED" in refused.stderr
    assert "the key came from --key" in refused.stderr


def test_keys_list_revoke_and_create_refuses_to_make_a_new_database(server, tmp_path):
    key = server.create_key("revocable")
    key_id = key.split("_")[1]
    listed = subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "list", "--db", str(server.db)],
                            capture_output=True, text=True)
    row = next(line for line in listed.stdout.splitlines() if line.startswith(key_id))
    assert "revocable" in row and "play" in row and "active" in row and "ak_" not in listed.stdout
    stub = server.arena_stub()
    stub.ListGames(apb.ListGamesRequest(), metadata=server.metadata(key))
    revoke = subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "revoke", key_id, "--db", str(server.db)],
                            capture_output=True, text=True)
    assert revoke.returncode == 0 and f"revoked key {key_id}" in revoke.stdout
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListGames(apb.ListGamesRequest(), metadata=server.metadata(key))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # Outside the server's directory, no database is made silently.
    elsewhere = subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "create", "--agent", "lost"],
                               capture_output=True, text=True, cwd=tmp_path)
    assert elsewhere.returncode != 0 and "no database arena.db here" in elsewhere.stderr
    assert not (tmp_path / "arena.db").exists()
    made = subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "create", "--agent", "new",
                           "--create-db"], capture_output=True, text=True, cwd=tmp_path)
    assert made.returncode == 0 and f"written to {tmp_path / 'arena.db'}" in made.stderr


def serve(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", "serve", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("args,wanted", [
    (["--port", "80000"], "argument --port: '80000' is not a port number"),
    (["--per-decision", "-1"], "argument --per-decision: '-1' is not a positive number"),
    (["--per-decision", "nan"], "argument --per-decision: 'nan' is not a positive number"),
    (["--max-retries", "two"], "argument --max-retries: 'two' is not an integer >= 0"),
    (["--db", "/proc/no/such/dir/arena.db"], "error: cannot open the database /proc/no/such/dir/arena.db"),
    (["--db", "."], "error: cannot open the database ."),
    (["--host", "203.0.113.7", "--port", "0"], "error: cannot listen on 203.0.113.7:0"),
])
def test_bad_serve_inputs_end_in_one_line_with_status_2(tmp_path, args, wanted):
    done = serve(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    assert wanted in done.stderr and "Traceback" not in done.stderr
    assert len([line for line in done.stderr.splitlines() if line.startswith("error") or "error:" in line]) == 1


def test_a_second_server_on_the_same_port_or_database_is_refused(server, tmp_path):
    port = server.address.rsplit(":", 1)[1]
    same_port = serve(tmp_path, "--db", str(tmp_path / "other.db"), "--port", port)
    assert same_port.returncode == 2 and f"cannot listen on 127.0.0.1:{port}: the port is in use" in same_port.stderr
    same_db = serve(tmp_path, "--db", str(server.db), "--port", "0")
    assert same_db.returncode == 2 and "another arena-server is already using the database" in same_db.stderr
    assert "Traceback" not in same_port.stderr + same_db.stderr
    # The first server is untouched.
    server.arena_stub().ListGames(apb.ListGamesRequest(), metadata=server.metadata())


def test_serve_help_shows_every_default():
    done = subprocess.run([sys.executable, "-m", "arena_server.cli", "serve", "--help"], capture_output=True, text=True)
    flat = " ".join(done.stdout.split("options:", 1)[1].split())
    for option in ("--db", "--host", "--port", "--per-decision", "--max-retries", "--on-failure", "--house-delay",
                   "--resume-grace", "--max-message-bytes", "--max-concurrent-per-agent", "--rate-limit",
                   "--rate-burst", "--max-unread-messages"):
        section = flat.split(option, 1)[1].split(" --", 1)[0]
        assert "default" in section, (option, section)
