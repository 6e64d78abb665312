"""Suites over real gRPC: the GTBench protocol run for a remote agent, and its per-pairing report."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

from ..conftest import agent_process
from .helpers import wait_connected

GTBENCH_GAMES = ["tic_tac_toe", "connect_four", "kuhn_poker", "breakthrough", "liars_dice", "sealed_bid_auction",
                 "negotiation", "nim", "pig", "iterated_prisoners_dilemma"]


def test_list_suites_describes_gtbench(server):
    suites = server.arena_stub().ListSuites(apb.ListSuitesRequest(), metadata=server.metadata()).suites
    gtbench = next(s for s in suites if s.name == "gtbench")
    assert [g.game_id for g in gtbench.games] == GTBENCH_GAMES
    assert not gtbench.missing_games
    assert gtbench.matches_per_pairing == 50
    assert gtbench.failure_policy.on_failure == match_pb2.FAILURE_ACTION_VOID_AND_REPLAY
    assert gtbench.failure_policy.max_retries == 0 and gtbench.failure_policy.max_replays == 50
    opponents = {g.game_id: list(g.opponents) for g in gtbench.games}
    assert opponents["negotiation"] == ["mcts"] and opponents["iterated_prisoners_dilemma"] == ["tit_for_tat"]
    assert opponents["pig"] == ["random", "mcts"]


def test_run_suite_refuses_unknown_suites_and_agents(server):
    stub = server.arena_stub()
    with pytest.raises(grpc.RpcError) as unknown_suite:
        stub.RunSuite(apb.RunSuiteRequest(suite="nope", agent_name="random"), metadata=server.metadata())
    assert unknown_suite.value.code() == grpc.StatusCode.NOT_FOUND and "gtbench" in unknown_suite.value.details()
    with pytest.raises(grpc.RpcError) as unknown_agent:
        stub.RunSuite(apb.RunSuiteRequest(suite="gtbench", agent_name="ghost"), metadata=server.metadata())
    assert unknown_agent.value.code() == grpc.StatusCode.NOT_FOUND and "ghost" in unknown_agent.value.details()
    with pytest.raises(grpc.RpcError) as odd:
        stub.RunSuite(apb.RunSuiteRequest(suite="gtbench", agent_name="random", matches_per_pairing=3),
                      metadata=server.metadata())
    assert odd.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_gtbench_suite_runs_for_a_remote_agent_and_reports_each_pairing(server):
    agent = agent_process(server, "candidate", "random", *sum((["--game", g] for g in GTBENCH_GAMES), []),
                          "--no-ladder", "--concurrency", "4")
    try:
        wait_connected(server, "candidate")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "gtbench", "--agent",
                              "candidate", "--matches-per-pairing", "2", "--server", server.address, "--key",
                              server.admin_key, "--timeout", "600"], capture_output=True, text=True, timeout=660)
        assert run.returncode == 0, run.stderr + server.log_path.read_text()[-2000:]
        rows = [line.split() for line in run.stdout.splitlines() if line.split() and line.split()[0] in GTBENCH_GAMES
                and len(line.split()) == 7]
        # 8 games against random and MCTS, negotiation against MCTS, the dilemma against tit-for-tat.
        assert len(rows) == 8 * 2 + 2
        for game, opponent, counted, played, completion, wdl, nra in rows:
            assert (counted, played, completion) == ("2", "2", "100%"), (game, opponent)   # random never errs
            wins, draws, losses = map(int, wdl.split("-"))
            assert wins + draws + losses == 2
            assert -1.0 <= float(nra) <= 1.0
        against_mcts = {r[0]: r for r in rows if r[1] == "mcts"}
        assert against_mcts["connect_four"][5].endswith("-2")      # random loses both to MCTS at connect four
        matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="candidate", page_size=1000),
                                                  metadata=server.metadata()).matches
        assert len(matches) == 36
        seats = {}
        for m in matches:
            opponent = next(p.agent_name for p in m.players if p.agent_name != "candidate")
            seats.setdefault((m.game_id, opponent), []).append(
                next(p.seat for p in m.players if p.agent_name == "candidate"))
        assert len(seats) == 18 and all(sorted(s) == [0, 1] for s in seats.values())   # each side first once
    finally:
        agent.terminate()
        agent.wait(10)
