"""The TypeScript bot in clients/typescript, built with npm from proto/ alone, against a live server."""

from __future__ import annotations

import os
import re
import socket
import subprocess

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

GAMES = ("tic_tac_toe", "connect_four")
MATCH_LINE = re.compile(r"^(m_\w+)  (\w+)  seat (\d+)  returns \[(.*)\]  (\w+)(  .*)?$")


def run_bot(command: list[str], key: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*command, *args], env=dict(os.environ, ARENA_API_KEY=key), capture_output=True,
                          text=True, timeout=timeout)


def test_bot_plays_ladder_matches_with_legal_actions_only(server, typescript_bot):
    key = server.create_key("ts-bot")
    done = run_bot(typescript_bot, key, "--server", server.address, "--name", "ts-bot", "--game", GAMES[0],
                   "--game", GAMES[1], "--matches", "4", "--seed", "7")
    assert done.returncode == 0, done.stderr

    lines = done.stdout.splitlines()
    printed = [MATCH_LINE.match(line) for line in lines[:-1]]
    assert len(printed) == 4 and all(printed), done.stdout
    assert lines[-1].startswith("4 matches finished, 4 scored"), done.stdout
    seat_of = {m.group(1): int(m.group(3)) for m in printed}
    assert len(seat_of) == 4, "each match is reported once"
    for m in printed:
        assert m.group(2) in GAMES
        assert m.group(5) == "normal"
        assert len(m.group(4).split(", ")) == 2

    stored = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="ts-bot", page_size=100),
                                             metadata=server.metadata()).matches
    by_id = {m.match_id: m for m in stored}
    assert set(seat_of) <= set(by_id), "every printed match is in the store"
    for match_id, seat in seat_of.items():
        match = by_id[match_id]
        assert match.status == match_pb2.MATCH_STATUS_FINISHED
        assert match.result.reason == match_pb2.END_REASON_NORMAL
        assert {p.seat: p.agent_name for p in match.players}[seat] == "ts-bot"
        stats = next(s for s in match.result.seat_stats if s.seat == seat)
        # Every request was answered by the bot itself, legally: nothing refused, nothing substituted.
        assert (stats.illegal_actions, stats.parse_failures, stats.timeouts, stats.substituted_actions) == (0, 0, 0, 0)


def test_wrong_key_is_reported_as_unauthenticated(server, typescript_bot):
    done = run_bot(typescript_bot, "ak_deadbeef_not-a-real-secret", "--server", server.address, "--name", "ts-bot",
                   "--game", "tic_tac_toe", timeout=60)
    assert done.returncode == 1
    assert "UNAUTHENTICATED" in done.stderr and "refused the session" in done.stderr
    assert done.stdout == ""


def test_key_of_another_agent_is_reported_as_permission_denied(server, typescript_bot):
    key = server.create_key("ts-owner")
    done = run_bot(typescript_bot, key, "--server", server.address, "--name", "ts-impostor", "--game", "tic_tac_toe",
                   timeout=60)
    assert done.returncode == 1
    assert "PERMISSION_DENIED" in done.stderr and "ts-owner" in done.stderr


def test_unreachable_server_is_reported(typescript_bot):
    with socket.socket() as probe:          # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run_bot(typescript_bot, "ak_deadbeef_any", "--server", f"127.0.0.1:{port}", "--game", "tic_tac_toe",
                   "--connect-timeout", "2", timeout=60)
    assert done.returncode == 1
    assert f"cannot reach 127.0.0.1:{port}" in done.stderr
