"""Suites over real gRPC: the GTBench protocol run for a remote agent, and its per-pairing report."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_server.convert import from_struct

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


GAMABENCH_GAMES = ["guess_two_thirds_average", "el_farol_bar", "divide_the_dollar", "public_goods", "diners_dilemma",
                   "sealed_bid_auction", "battle_royale", "pirate_game"]


def test_gamabench_suite_seats_one_agent_in_all_ten_seats_and_prints_the_eight_scores(server):
    agent = agent_process(server, "gama-candidate", "random", *sum((["--game", g] for g in GAMABENCH_GAMES), []),
                          "--no-ladder", "--concurrency", "2")
    try:
        wait_connected(server, "gama-candidate")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "gamabench", "--agent",
                              "gama-candidate", "--matches-per-pairing", "2", "--max-retries", "3", "--server",
                              server.address, "--key", server.admin_key, "--timeout", "600"],
                             capture_output=True, text=True, timeout=660)
        assert run.returncode == 0, run.stderr + server.log_path.read_text()[-2000:]
        rows = {line.split()[0]: line.split() for line in run.stdout.splitlines()
                if line.split() and line.split()[0] in GAMABENCH_GAMES + ["Overall"]}
        assert set(rows) == set(GAMABENCH_GAMES) | {"Overall"}, run.stdout
        for game in GAMABENCH_GAMES + ["Overall"]:
            runs, score, std, *per_run = rows[game][1:]
            assert runs == "2" and len(per_run) == 2
            assert float(score) == pytest.approx(sum(map(float, per_run)) / 2, abs=0.011)   # all rounded to 0.01
        overall = [sum(float(rows[g][4 + i]) for g in GAMABENCH_GAMES) / 8 for i in range(2)]
        assert [float(x) for x in rows["Overall"][4:]] == pytest.approx(overall, abs=0.02)
        matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="gama-candidate", page_size=100),
                                                  metadata=server.metadata()).matches
        assert len(matches) == 16
        for m in matches:
            assert [p.agent_name for p in m.players] == ["gama-candidate"] * 10
            assert m.status == match_pb2.MATCH_STATUS_FINISHED
            assert m.failure_policy.max_retries == 3
            assert m.failure_policy.on_failure == match_pb2.FAILURE_ACTION_GAME_DEFAULT
        # The suite score is also a leaderboard, computed from the same log.
        board = server.arena_stub().GetLeaderboard(apb.GetLeaderboardRequest(
            suite="gamabench", method=apb.RATING_METHOD_SUITE_SCORE), metadata=server.metadata())
        (entry,) = [e for e in board.entries if e.agent_name == "gama-candidate"]
        assert entry.rating == pytest.approx(float(rows["Overall"][2]), abs=0.01)
    finally:
        agent.terminate()
        agent.wait(10)


LLMARENA_GAMES = ["tic_tac_toe", "connect_four", "texas_holdem_no_limit", "sealed_bid_auction", "negotiation",
                  "undercover", "hanabi"]


def test_llmarena_suite_pairs_the_agent_with_the_pool_and_prints_the_normalised_table(server):
    agent = agent_process(server, "arena-candidate", "random", *sum((["--game", g] for g in LLMARENA_GAMES), []),
                          "--no-ladder", "--concurrency", "4")
    try:
        wait_connected(server, "arena-candidate")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "llmarena", "--agent",
                              "arena-candidate", "--opponents", "random", "--matches-per-pairing", "4", "--server",
                              server.address, "--key", server.admin_key, "--timeout", "600"],
                             capture_output=True, text=True, timeout=660)
        assert run.returncode == 0, run.stderr + server.log_path.read_text()[-2000:]
        table = run.stdout[run.stdout.index("\nagent ") + 1:].splitlines()[1:]
        rows = {line.split()[0]: line for line in table if line.split()}
        assert "arena-candidate" in rows and "random" in rows, run.stdout
        candidate = rows["arena-candidate"].split()
        assert rows["arena-candidate"].count("(") == 7      # a raw score in every environment
        stub = server.arena_stub()
        matches = stub.ListMatches(apb.ListMatchesRequest(agent_name="arena-candidate", page_size=1000),
                                   metadata=server.metadata()).matches
        by_game = {}
        for m in matches:
            by_game.setdefault(m.game_id, []).append(m)
        assert set(by_game) == set(LLMARENA_GAMES)
        for m in by_game["undercover"]:
            seat = next(p.seat for p in m.players if p.agent_name == "arena-candidate")
            assert [p.agent_name for p in m.players].count("random") == 4
            full = stub.GetMatch(apb.GetMatchRequest(match_id=m.match_id), metadata=server.metadata())
            assert from_struct(full.match.result.details)["undercover"] == seat      # evaluated as the undercover
        for m in by_game["hanabi"]:
            assert [p.agent_name for p in m.players] == ["arena-candidate"] * 2
        assert len(by_game["tic_tac_toe"]) >= 4 and all(m.failure_policy.illegal_move_forfeits for m in matches)
        board = stub.GetLeaderboard(apb.GetLeaderboardRequest(suite="llmarena", method=apb.RATING_METHOD_SUITE_SCORE),
                                    metadata=server.metadata())
        (entry,) = [e for e in board.entries if e.agent_name == "arena-candidate"]
        assert "average" in entry.details and 0 < entry.details["average"] <= 100
    finally:
        agent.terminate()
        agent.wait(10)
