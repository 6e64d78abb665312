"""GetLeaderboard over real gRPC, on a server whose log holds GameBench's released matches."""

from __future__ import annotations

import grpc
import pytest

from arena.v1 import arena_service_pb2 as pb

from ..conftest import start_server
from .helpers import gamebench_expected, gamebench_records


@pytest.fixture(scope="module")
def gamebench_server(module_backend, tmp_path_factory):
    """One server per back end for the module: its tests only read."""
    server = start_server(tmp_path_factory.mktemp("server"), "--per-decision", "5", "--house-delay", "0.2",
                          database=module_backend.database())
    try:
        store = server.store()
        try:
            for r in gamebench_records():
                store.add_match(r)
        finally:
            store.close()
        yield server
    finally:
        server.stop()


def _board(server, **fields):
    return server.arena_stub().GetLeaderboard(pb.GetLeaderboardRequest(**fields), metadata=server.metadata())


def test_methods_over_the_wire(gamebench_server):
    expected = gamebench_expected()
    default = _board(gamebench_server)
    assert default.method == pb.RATING_METHOD_TRUESKILL and default.matches_counted == 277
    assert [e.rank for e in default.entries] == list(range(1, 8)) and "sigma" in default.entries[0].details

    exact = _board(gamebench_server, preset="gamebench_code")
    assert exact.method == pb.RATING_METHOD_BRADLEY_TERRY and exact.resamples == 1000
    assert exact.confidence_level == pytest.approx(0.9) and "Bradley–Terry" in exact.description
    for e in exact.entries:
        assert e.rating == pytest.approx(expected["overall"][e.agent_name]["paper"], abs=0.005)
        assert e.lower < e.rating < e.upper
    assert exact.entries[0].agent_name == "human" and exact.entries[0].rank == 1
    assert len(exact.games) == 9

    santorini = _board(gamebench_server, preset="gamebench_code", game_id="santorini")
    assert santorini.matches_counted == 25 and list(santorini.games) == ["santorini"]
    for e in santorini.entries:
        assert e.rating == pytest.approx(expected["per_game"]["santorini"][e.agent_name]["paper"], abs=0.005)

    anchored = _board(gamebench_server, method=pb.RATING_METHOD_BRADLEY_TERRY, scoring=pb.OUTCOME_SCORING_RETURN_SHARE,
                      bradley_terry=pb.BradleyTerryOptions(resamples=200, seed=3, anchor_agent="random",
                                                           anchor_rating=1000, scale=400 / 2.302585092994046,
                                                           confidence_level=0.95))
    random_row = next(e for e in anchored.entries if e.agent_name == "random")
    assert random_row.rating == random_row.lower == random_row.upper == pytest.approx(1000)
    assert anchored.confidence_level == pytest.approx(0.95) and anchored.resamples == 200

    nra = _board(gamebench_server, method=pb.RATING_METHOD_NRA, nra=pb.NraOptions(opponent="random"))
    assert "random" not in [e.agent_name for e in nra.entries] and all(-1 <= e.rating <= 1 for e in nra.entries)
    elo = _board(gamebench_server, method=pb.RATING_METHOD_ELO, elo=pb.EloOptions(k_factor=16, initial_rating=1000))
    assert abs(sum(e.rating for e in elo.entries) / len(elo.entries) - 1000) < 1e-6    # Elo conserves the mean
    suite = _board(gamebench_server, method=pb.RATING_METHOD_SUITE_SCORE, suite="gamebench")
    assert suite.entries[0].agent_name == "human" and suite.entries[0].rating == pytest.approx(0.85, abs=0.005)
    assert suite.entries[0].details["sea_battle"] == pytest.approx(1.0)
    pooled = _board(gamebench_server, method=pb.RATING_METHOD_BRADLEY_TERRY, agents=["gpt-4", "gpt-4-cot", "human"],
                    bradley_terry=pb.BradleyTerryOptions(resamples=100))
    assert sorted(e.agent_name for e in pooled.entries) == ["gpt-4", "gpt-4-cot", "human"]


@pytest.mark.parametrize("fields, code", [
    (dict(preset="nope"), grpc.StatusCode.INVALID_ARGUMENT),
    (dict(preset="gamebench", method=pb.RATING_METHOD_ELO), grpc.StatusCode.INVALID_ARGUMENT),
    (dict(method=pb.RATING_METHOD_BRADLEY_TERRY, bradley_terry=pb.BradleyTerryOptions(anchor_agent="ghost")),
     grpc.StatusCode.INVALID_ARGUMENT),
    (dict(method=pb.RATING_METHOD_BRADLEY_TERRY, bradley_terry=pb.BradleyTerryOptions(confidence_level=1.5)),
     grpc.StatusCode.INVALID_ARGUMENT),
    (dict(suite="nosuch"), grpc.StatusCode.INVALID_ARGUMENT),
    (dict(method=pb.RATING_METHOD_SUITE_SCORE, suite="gtbench"), grpc.StatusCode.FAILED_PRECONDITION),
    (dict(game_id="chess960"), grpc.StatusCode.NOT_FOUND),
    (dict(method=pb.RATING_METHOD_BRADLEY_TERRY, bradley_terry=pb.BradleyTerryOptions(resamples=10**8)),
     grpc.StatusCode.INVALID_ARGUMENT),
])
def test_bad_requests_are_refused_clearly(gamebench_server, fields, code):
    with pytest.raises(grpc.RpcError) as e:
        _board(gamebench_server, **fields)
    assert e.value.code() == code and e.value.details()


def test_cli_against_the_server_prints_and_writes_the_report(gamebench_server, tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "arena_server.cli", "leaderboard", "--server", gamebench_server.address, "--key",
         gamebench_server.admin_key, "--method", "bradley-terry", "--scoring", "share", "--resamples", "300",
         "--anchor", "random", "--scale", "173.72", "--anchor-rating", "1000", "--html", str(tmp_path / "r.html"),
         "--csv", str(tmp_path / "r.csv")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Bradley–Terry leaderboard (277 matches)" in out.stdout and "anchored at random = 1000" in out.stdout
    text = (tmp_path / "r.html").read_text()
    assert "277 finished matches, 7 agents, 9 game(s)" in text and text.count("<h3>") == 9
    assert "random,1000" in (tmp_path / "r.csv").read_text()


def test_intervals_provisional_marks_and_the_prior_over_the_wire(gamebench_server):
    default = _board(gamebench_server, method=pb.RATING_METHOD_BRADLEY_TERRY, game_id="sea_battle",
                     bradley_terry=pb.BradleyTerryOptions(resamples=300))
    assert default.has_interval and default.provisional_matches == 10 and "prior of 1 win and 1 loss" in default.description
    rows = {e.agent_name: e for e in default.entries}
    assert rows["human"].matches == 3 and rows["human"].provisional and not rows["gpt-4"].provisional
    assert rows["human"].upper - rows["human"].lower > 3.0                  # 3-0: finite, and wide
    no_prior = _board(gamebench_server, method=pb.RATING_METHOD_BRADLEY_TERRY, game_id="sea_battle",
                      bradley_terry=pb.BradleyTerryOptions(resamples=300, prior=0))
    assert "α 0.001, no prior" in no_prior.description                       # regularisation back to GameBench's
    gpt4 = next(e for e in no_prior.entries if e.agent_name == "gpt-4")
    assert gpt4.rating < -5 and gpt4.rating < next(e for e in default.entries if e.agent_name == "gpt-4").rating

    elo = _board(gamebench_server, method=pb.RATING_METHOD_ELO, elo=pb.EloOptions(resamples=200, seed=4))
    assert elo.has_interval and elo.resamples == 200 and elo.confidence_level == pytest.approx(0.95)
    assert all(e.lower < e.upper and "bootstrap_median" in e.details for e in elo.entries)
    flat = _board(gamebench_server, method=pb.RATING_METHOD_ELO, elo=pb.EloOptions(resamples=0))
    assert not flat.has_interval and all(e.lower == e.upper == e.rating for e in flat.entries)
    nra = _board(gamebench_server, method=pb.RATING_METHOD_NRA)
    assert not nra.has_interval and nra.confidence_level == 0
    with pytest.raises(grpc.RpcError) as e:
        _board(gamebench_server, method=pb.RATING_METHOD_ELO, elo=pb.EloOptions(resamples=10**6))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
