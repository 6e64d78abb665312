"""The operator's commands against a running server: games, tournament run, leaderboard."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import agent_process
from .helpers import wait_connected


def _cli(server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", *args, "--server", server.address,
                           "--key", server.admin_key], capture_output=True, text=True, timeout=120)


def test_tournament_run_follows_progress_and_prints_the_leaderboard(server):
    agent = agent_process(server, "cli-bot", "random", "--game", "tic_tac_toe", "--no-ladder")
    try:
        wait_connected(server, "cli-bot")
        games = _cli(server, "games")
        assert games.returncode == 0 and "guess_two_thirds_average" in games.stdout
        run = _cli(server, "tournament", "run", "--game", "tic_tac_toe", "--agents", "cli-bot,random",
                   "--games-per-pairing", "3", "--per-decision", "5")
        assert run.returncode == 0, run.stderr
        assert "6 matches of tic_tac_toe" in run.stdout
        assert "6/6 finished, 0 void" in run.stdout
        table = run.stdout.split("TrueSkill leaderboard (6 matches")[1]
        assert "cli-bot" in table and "random" in table
        board = _cli(server, "leaderboard", "--game", "tic_tac_toe")
        assert board.returncode == 0 and "cli-bot" in board.stdout
    finally:
        agent.terminate()
        agent.wait(10)


def test_tournament_with_unknown_agent_or_game_is_refused_clearly(server):
    unknown_agent = _cli(server, "tournament", "run", "--game", "tic_tac_toe", "--agents", "ghost,random")
    assert unknown_agent.returncode == 1 and "NOT_FOUND" in unknown_agent.stderr and "ghost" in unknown_agent.stderr
    unknown_game = _cli(server, "tournament", "run", "--game", "chess960", "--agents", "random,random2")
    assert unknown_game.returncode == 1 and "INVALID_ARGUMENT" in unknown_game.stderr
    bad_param = _cli(server, "tournament", "run", "--game", "tic_tac_toe", "--agents", "random,x", "--param", "size=4")
    assert bad_param.returncode == 1 and "size" in bad_param.stderr
