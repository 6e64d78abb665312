"""Small helpers for end-to-end tests: run a tournament through the admin RPC and wait for it."""

from __future__ import annotations

import contextlib
import time

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

FAILURE = {"random_legal": match_pb2.FAILURE_ACTION_RANDOM_LEGAL, "forfeit": match_pb2.FAILURE_ACTION_FORFEIT,
           "void_and_replay": match_pb2.FAILURE_ACTION_VOID_AND_REPLAY}


def run_tournament(server, game: str, agents: list[str], *, timeout: float = 240.0, **options) -> apb.Tournament:
    return wait_tournament(server, create_tournament(server, game, agents, **options), timeout)


def create_tournament(server, game: str, agents: list[str], *, games_per_pairing: int = 1, per_decision: float = 5.0,
                      max_retries: int = 2, on_failure: str = "random_legal", max_replays: int = 0,
                      players_per_match: int = 0, preset: str = "", parameters: dict | None = None,
                      seed: int = 7) -> str:
    from google.protobuf import struct_pb2

    stub = server.arena_stub()
    params = struct_pb2.Struct()
    params.update(parameters or {})
    t = apb.Tournament(name="test", game_id=game, agents=agents, games_per_pairing=games_per_pairing,
                       players_per_match=players_per_match, parameters=params, seed=seed,
                       failure_policy=match_pb2.FailurePolicy(max_retries=max_retries, on_failure=FAILURE[on_failure],
                                                              max_replays=max_replays))
    t.time_control.per_decision.FromNanoseconds(int(per_decision * 1e9))
    created = stub.CreateTournament(apb.CreateTournamentRequest(tournament=t, preset=preset),
                                    metadata=server.metadata()).tournament
    return created.tournament_id


def wait_tournament(server, tournament_id: str, timeout: float = 240.0) -> apb.Tournament:
    stub = server.arena_stub()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = stub.GetTournament(apb.GetTournamentRequest(tournament_id=tournament_id),
                                     metadata=server.metadata()).tournament
        if current.status != apb.TOURNAMENT_STATUS_RUNNING:
            return current
        time.sleep(0.1)
    raise AssertionError(f"tournament {tournament_id} did not finish in {timeout} s:\n"
                         + server.log_path.read_text()[-3000:])


def matches_of(server, tournament_id: str) -> list[match_pb2.MatchInfo]:
    return list(server.arena_stub().ListMatches(apb.ListMatchesRequest(tournament_id=tournament_id, page_size=1000),
                                                metadata=server.metadata()).matches)


def wait_connected(server, *names: str, timeout: float = 20.0) -> None:
    stub = server.arena_stub()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        agents = stub.ListAgents(apb.ListAgentsRequest(), metadata=server.metadata()).agents
        if set(names) <= {a.name for a in agents if a.connected}:
            return
        time.sleep(0.05)
    raise AssertionError(f"agents {names} did not connect")


def wait_for(read, count: int = 1, timeout: float = 15.0) -> list:
    """Polls `read()` until it returns at least `count` items; fails with what it last saw."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = read()
        if len(found) >= count:
            return found
        time.sleep(0.02)
    raise AssertionError(f"expected {count}, got {read()}")


@contextlib.contextmanager
def agents_running(server, processes: dict):
    """Yields the agent processes (by agent name) once all have connected; stops them afterwards."""
    try:
        wait_connected(server, *processes)
        yield list(processes.values())
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(10)
