"""Suites over real gRPC: the GTBench protocol run for a remote agent, and its per-pairing report."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_server.convert import from_struct, probes_from_result

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
    formats = {s.name: {g.format for g in s.games} for s in suites}
    assert formats == {"gtbench": {"gauntlet"}, "gamabench": {"self_play"}, "llmarena": {"sampled", "self_play"},
                       "magic": {"listed"}, "gamebench": {"sampled"}}
    listing = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "list", "--server", server.address,
                              "--key", server.admin_key], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0, listing.stderr
    lines = {line.split()[0]: line for line in listing.stdout.splitlines() if line.startswith("  ")}
    assert "self-play" in lines["el_farol_bar"] and "vs --opponents" in lines["chameleon"]


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


MAGIC_GAMES = ["chameleon", "undercover", "cost_sharing", "iterated_prisoners_dilemma", "public_goods"]
# A random agent that answers every probe in MAgIC's templates, run as its own process: argv = server, key, games.
PROBE_ANSWERING_AGENT = """
import sys
from arena_client import RandomAgent, run_agent

class ProbeAnsweringRandom(RandomAgent):
    def answer_probe(self, probe):
        if probe.data["metric"] == "self_awareness":
            return f"I am Player {probe.seat + 1}, my role is non-chameleon."
        return f"As Player {probe.seat + 1}, I think:\\nPlayer 1 is more suspicious\\nI think Player 1 is the undercover"

run_agent(ProbeAnsweringRandom(seed=5), sys.argv[1], sys.argv[2], sys.argv[3:], name="magic-candidate",
          max_concurrent_matches=4, join_ladder=False)
"""


def test_magic_suite_seats_the_challenger_in_every_role_asks_the_probes_and_prints_the_seven_metrics(server, tmp_path):
    from arena_engines.chameleon_settings import COMPETITIONS

    agent_log = tmp_path / "agent.log"
    with open(agent_log, "w") as log:
        agent = subprocess.Popen([sys.executable, "-c", PROBE_ANSWERING_AGENT, server.address,
                                  server.create_key("magic-candidate"), *MAGIC_GAMES],
                                 stdout=subprocess.DEVNULL, stderr=log, text=True)
    try:
        wait_connected(server, "magic-candidate")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "magic", "--agent",
                              "magic-candidate", "--opponents", "random", "--matches-per-pairing", "2", "--server",
                              server.address, "--key", server.admin_key, "--timeout", "600",
                              "--plot", str(tmp_path / "radar.png")],
                             capture_output=True, text=True, timeout=660)
        assert run.returncode == 0, run.stderr + agent_log.read_text()[-2000:] + server.log_path.read_text()[-2000:]
    finally:
        agent.terminate()
        agent.wait(10)
    assert f"wrote {tmp_path / 'radar.png'}" in run.stdout
    assert (tmp_path / "radar.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    stub = server.arena_stub()
    board = stub.GetLeaderboard(apb.GetLeaderboardRequest(suite="magic", method=apb.RATING_METHOD_SUITE_SCORE),
                                metadata=server.metadata())
    (entry,) = [e for e in board.entries if e.agent_name == "magic-candidate"]
    details = dict(entry.details)
    # Table 1's line: the win rate and the seven metrics, printed as the suite score has them.
    lines = run.stdout.splitlines()
    header = lines.index(next(line for line in lines if line.split()[:3] == ["agent", "Win", "Rate"]))
    row = next(line.split() for line in lines[header:] if line.split() and line.split()[0] == "magic-candidate")
    keys = ["win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination",
            "rationality"]
    assert len(row) == 9, run.stdout
    for key, cell in zip(keys, row[1:]):
        if key == "coordination" and details["agreed"] == 0:      # no negotiation succeeded: undefined
            assert cell == "-"
        else:
            assert float(cell) == pytest.approx(details[key], abs=0.006), key
    assert all(details[f"games_{role}"] == 2 for role in ("chameleon", "non-chameleon", "undercover", "civilian",
                                                            "cost_sharing", "prisoners_dilemma", "public_good"))
    assert details["reasoning_counted"] == 2 * 3 + 4 * 3 + 2 * 2 + 4 * 2     # seats × metric turns, 4 role runs

    # Matches per role, seats and probes, from the log.
    matches = stub.ListMatches(apb.ListMatchesRequest(agent_name="magic-candidate", page_size=1000),
                               metadata=server.metadata()).matches
    by_game = {}
    for m in matches:
        assert m.status == match_pb2.MATCH_STATUS_FINISHED and [p.agent_name for p in m.players].count("random") in (1, 2)
        by_game.setdefault(m.game_id, []).append(m)
    assert {g: len(ms) for g, ms in by_game.items()} == {"chameleon": 4, "undercover": 4, "cost_sharing": 2,
                                                          "iterated_prisoners_dilemma": 2, "public_goods": 2}
    for game, lone in (("chameleon", "chameleon"), ("undercover", "undercover")):
        roles = []
        for m in by_game[game]:
            full = stub.GetMatch(apb.GetMatchRequest(match_id=m.match_id), metadata=server.metadata())
            result = from_struct(full.match.result.details)
            mine = sorted(p.seat for p in full.match.players if p.agent_name == "magic-candidate")
            roles.append("alone" if mine == [result[lone]] else "others" if len(mine) == 2 and result[lone] not in mine
                         else "neither")
            probes = [from_struct(e.data) for e in full.log if e.kind == "probe"]
            assert len(probes) == (18 if game == "chameleon" else 12)        # 3 seats × (3 + 3) or (2 + 2) turns
            assert probes_from_result(full.match.result) == probes     # the result carries them, for remote scoring
            for probe in probes:
                assert bool(probe["answer"]) == probe["asked"] == (int(probe["seat"]) in mine)   # house agents take none
            if game == "chameleon" and mine == [result["chameleon"]] and result["chameleon"] == 2:
                record = COMPETITIONS[0]
                assert [c["text"] for c in result["clues"][:2]] == list(record.first_clues[:2])   # replayed
        assert sorted(roles) == ["alone", "alone", "others", "others"], game
    for game in ("cost_sharing", "iterated_prisoners_dilemma", "public_goods"):
        seats = []
        for m in by_game[game]:
            full = stub.GetMatch(apb.GetMatchRequest(match_id=m.match_id), metadata=server.metadata())
            seats += [p.seat for p in full.match.players if p.agent_name == "magic-candidate"]
            assert not [e for e in full.log if e.kind == "probe"]
        assert sorted(seats) == [0, 1], game


GAMEBENCH_GAMES = ["air_land_sea", "arctic_scavengers", "are_you_the_traitor", "codenames", "hive", "pit", "santorini",
                   "two_rooms_and_a_boom", "sea_battle"]


def test_gamebench_suite_plays_every_game_against_the_pool_with_team_seats_and_prints_its_tables(server):
    agent = agent_process(server, "bench-candidate", "random", *sum((["--game", g] for g in GAMEBENCH_GAMES), []),
                          "--no-ladder", "--concurrency", "4")
    try:
        wait_connected(server, "bench-candidate")
        run = subprocess.run([sys.executable, "-m", "arena_server.cli", "suite", "run", "gamebench", "--agent",
                              "bench-candidate", "--opponents", "random", "--matches-per-pairing", "2", "--server",
                              server.address, "--key", server.admin_key, "--timeout", "600"],
                             capture_output=True, text=True, timeout=660)
        assert run.returncode == 0, run.stderr + server.log_path.read_text()[-2000:]
        table = run.stdout[run.stdout.index("\nagent ") + 1:].splitlines()
        rows = {line.split()[0]: line.split()[1:] for line in table[1:3]}
        assert set(rows) == {"bench-candidate", "random"}
        # Scores sum to one per match, so the two agents' averages per game sum to one.
        for a, b in zip(rows["bench-candidate"][:9], rows["random"][:9]):
            assert float(a) + float(b) == pytest.approx(1.0, abs=0.002)
        assert "Bradley–Terry leaderboard" in run.stdout
        matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="bench-candidate", page_size=100),
                                                  metadata=server.metadata()).matches
        by_game = {}
        for m in matches:
            by_game.setdefault(m.game_id, []).append(m)
        assert {g: len(v) for g, v in by_game.items()} == {g: 2 for g in GAMEBENCH_GAMES}
        for m in by_game["sea_battle"] + by_game["codenames"]:
            teams = {}
            for p in m.players:
                teams.setdefault(p.team, set()).add(p.agent_name)
            assert sorted(map(len, teams.values())) == [1, 1] and len(teams) == 2    # one agent per side
        assert all(m.failure_policy.max_retries == 2 for m in matches)
    finally:
        agent.terminate()
        agent.wait(10)
