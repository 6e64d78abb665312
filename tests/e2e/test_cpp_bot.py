"""The C++ bot in clients/cpp, built from proto/ with Debian's gRPC and protobuf packages, plays
ladder matches on a live server with legal, correctly echoed decisions, and fails clearly when the
server refuses it or cannot be reached."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

ENDED_LINE = re.compile(r"(?P<match_id>\S+)  (?P<game>\w+)  seat (?P<seat>\d+)  returns \[(?P<returns>[^\]]*)\]  "
                        r"(?P<reason>\w+)(  .*)?")


def run_bot(bot: Path, *args: str, key: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_API_KEY"}
    if key is not None:
        env["ARENA_API_KEY"] = key
    return subprocess.run([str(bot), *args], capture_output=True, text=True, env=env, timeout=120)


def test_cpp_bot_plays_ladder_matches_with_legal_decisions(server, cpp_bot):
    key = server.create_key("cpp-bot")
    run = run_bot(cpp_bot, "--server", server.address, "--name", "cpp-bot", "--game", "tic_tac_toe",
                  "--game", "connect_four", "--matches", "4", "--seed", "7", key=key)
    assert run.returncode == 0, run.stderr
    assert "server error" not in run.stderr
    *ended_lines, summary = run.stdout.splitlines()
    assert len(ended_lines) == 4, run.stdout
    assert summary.startswith("4 matches finished, 4 scored: mean return "), summary

    stub = server.arena_stub()
    for line in ended_lines:
        ended = ENDED_LINE.fullmatch(line)
        assert ended, line
        match = stub.GetMatch(apb.GetMatchRequest(match_id=ended["match_id"]), metadata=server.metadata()).match
        seat = int(ended["seat"])
        assert match.game_id == ended["game"]
        assert match.game_id in {"tic_tac_toe", "connect_four"}
        assert match.status == match_pb2.MATCH_STATUS_FINISHED
        assert match.result.reason == match_pb2.END_REASON_NORMAL and ended["reason"] == "normal"
        assert [float(r) for r in ended["returns"].split(", ")] == list(match.result.returns)
        assert match.players[seat].agent_name == "cpp-bot"
        assert all(p.house_agent for p in match.players if p.seat != seat)
        # A refused or stale answer (wrong decision id, unknown action) would show up here.
        stats = match.result.seat_stats[seat]
        assert (stats.illegal_actions, stats.parse_failures, stats.timeouts, stats.substituted_actions) == (0, 0, 0, 0)


def test_cpp_bot_exits_with_the_reason_when_refused_or_unreachable(server, cpp_bot):
    game = ("--game", "tic_tac_toe")
    wrong_key = run_bot(cpp_bot, "--server", server.address, "--name", "cpp-bot", "--key", "ak_0000_wrong", *game)
    assert wrong_key.returncode == 1
    assert "UNAUTHENTICATED" in wrong_key.stderr and "unknown or revoked API key" in wrong_key.stderr

    other_agents_key = server.create_key("someone-else")
    wrong_name = run_bot(cpp_bot, "--server", server.address, "--name", "cpp-bot", *game, key=other_agents_key)
    assert wrong_name.returncode == 1
    assert "PERMISSION_DENIED" in wrong_name.stderr and "someone-else" in wrong_name.stderr

    with socket.socket() as probe:          # a port nobody listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    unreachable = run_bot(cpp_bot, "--server", f"127.0.0.1:{closed_port}", "--connect-timeout", "1", *game,
                          key=other_agents_key)
    assert unreachable.returncode == 1
    assert f"cannot reach 127.0.0.1:{closed_port} within 1 s (UNAVAILABLE)" in unreachable.stderr

    no_key = run_bot(cpp_bot, "--server", server.address, *game)
    assert no_key.returncode == 2 and "ARENA_API_KEY" in no_key.stderr
    assert not (wrong_key.stdout or wrong_name.stdout or unreachable.stdout)
