"""What a new user meets first, end to end: the README's ten-line agent, `arena-agent` run as the
README writes it (no --name, no --game), the line it prints on connecting and the opponents it
names, and a Hello that leaves the agent's name to the key."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import grpc
import pytest

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import agent_service_pb2_grpc, match_pb2

from ..conftest import ROOT
from .helpers import run_tournament, wait_connected, wait_for
from .scripted import ScriptedAgent

RESULT_LINE = r"^(m_\w+)  (\w+)  seat (\d+) against ([\w, .×-]+)  returns \[[-\d., e]*\]  normal"


def _finished(server, agent: str) -> dict[str, match_pb2.MatchInfo]:
    matches = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name=agent, page_size=100),
                                              metadata=server.metadata()).matches
    return {m.match_id: m for m in matches if m.status == match_pb2.MATCH_STATUS_FINISHED}


def test_the_readme_agent_plays_whole_matches_against_a_real_server(server):
    env = dict(os.environ, ARENA_SERVER=server.address, ARENA_API_KEY=server.create_key("first-timer"))
    done = subprocess.run([sys.executable, str(ROOT / "clients" / "arena_client" / "examples" / "first_agent.py")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and all(re.fullmatch(r"tic_tac_toe against \w+ -> .+", line) for line in lines), lines
    finished = _finished(server, "first-timer")
    assert len(finished) == 3
    for match in finished.values():
        assert match.result.reason == match_pb2.END_REASON_NORMAL
        assert not any(s.illegal_actions or s.substituted_actions for s in match.result.seat_stats)


@pytest.mark.parametrize("kind, options", [("random", ()), ("mcts", ("--simulations", "20"))])
def test_arena_agent_runs_as_the_readme_writes_it_as_the_keys_agent_on_every_game_it_can_play(server, kind, options):
    name = f"readme-{kind}"
    env = dict(os.environ, ARENA_API_KEY=server.create_key(name))
    done = subprocess.run([sys.executable, "-m", "arena_client.cli", kind, *options, "--server", server.address,
                           "--matches", "2"], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    connected, *results, summary = done.stdout.splitlines()

    listed = server.arena_stub().ListGames(apb.ListGamesRequest(), metadata=server.metadata()).games
    playable = [g.game_id for g in listed if kind == "random" or not g.dialogue]
    assert connected == f"connected to {server.address} as {name}, playing {', '.join(sorted(playable))}"
    assert kind == "random" or len(playable) < len(listed)      # MCTS leaves out the dialogue games

    finished = _finished(server, name)
    assert len(results) == 2 and summary.startswith("2 matches finished")
    for line in results:
        match_id, game_id, seat, opponents = re.match(RESULT_LINE, line).groups()
        players = [p.agent_name for p in finished[match_id].players]
        assert game_id == finished[match_id].game_id and game_id in playable
        assert players[int(seat)] == name
        others = [p for s, p in enumerate(players) if s != int(seat)]
        assert opponents == ", ".join(p if others.count(p) == 1 else f"{p} ×{others.count(p)}"
                                      for p in dict.fromkeys(others))


def test_a_hello_without_a_name_plays_as_the_keys_agent_and_resumes_so(server):
    key = server.create_key("nameless")
    agent = ScriptedAgent(server.address, key, "", ["tic_tac_toe"],
                          lambda r: pb.Decision(match_id=r.match_id, decision_id=r.decision_id,
                                                action_id=r.legal_actions[0].id), join_ladder=False)
    try:
        welcome = wait_for(lambda: [agent.welcome] if agent.welcome else [])[0]
        assert welcome.agent_name == "nameless"
        wait_connected(server, "nameless")
        assert run_tournament(server, "tic_tac_toe", ["nameless", "random"]).matches_finished == 2
    finally:
        agent.close()
    back = ScriptedAgent(server.address, key, "", ["tic_tac_toe"], lambda r: None, resume_token=welcome.resume_token)
    try:
        resumed = wait_for(lambda: [back.welcome] if back.welcome else [])[0]
        assert (resumed.session_id, resumed.agent_name) == (welcome.session_id, "nameless")
    finally:
        back.close()


def test_an_admin_key_must_name_the_agent_it_plays(server):
    hello = pb.ConnectRequest(hello=pb.Hello(protocol_version="1.0", games=[pb.GameOffer(game_id="nim")]))
    with grpc.insecure_channel(server.address) as channel:
        call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(iter([hello]), metadata=server.metadata())
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(call))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == "this admin key belongs to no agent: name the agent in Hello.agent.name"
