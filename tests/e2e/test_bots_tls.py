"""The TypeScript and C++ bots' connection options against live servers: TLS with the server's CA
or the default roots, mutual TLS, clear failures when TLS is missing or its files are unusable,
and decisions sent again after the server's rate limit dropped them. Every test runs each bot
(built once per session, in conftest.py)."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass

import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

PLAINTEXT_HINT = "this bot speaks plaintext: if the server uses TLS, add --tls or --root-certificates"


@dataclass(frozen=True)
class Bot:
    """A built bot: the command that runs it."""

    command: list[str]

    def run(self, key: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        environment = {k: v for k, v in os.environ.items() if k != "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"}
        environment.update(env or {}, ARENA_API_KEY=key)
        return subprocess.run([*self.command, *args], capture_output=True, text=True, env=environment, timeout=60)


@pytest.fixture(params=["typescript", "cpp"])
def bot(request) -> Bot:
    if request.param == "typescript":
        return Bot(request.getfixturevalue("typescript_bot"))
    return Bot([str(request.getfixturevalue("cpp_bot"))])


def tls_server(server_factory, certificates, *extra: str):
    issued = certificates["server"]
    return server_factory("--tls-cert", str(issued.cert), "--tls-key", str(issued.key),
                          "--per-decision", "5", "--house-delay", "0.2", *extra)


def play_one_match(bot: Bot, server, *tls: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return bot.run(server.create_key("secure-bot"), "--server", server.address, "--name", "secure-bot",
                   "--game", "tic_tac_toe", "--matches", "1", "--connect-timeout", "5", *tls, env=env)


def test_bot_plays_over_tls_with_the_given_or_the_default_roots(bot, server_factory, pki):
    server = tls_server(server_factory, pki)
    ca = str(pki["ca"].cert)
    with_ca = play_one_match(bot, server, "--root-certificates", ca)
    assert with_ca.returncode == 0, with_ca.stderr
    assert with_ca.stdout.splitlines()[-1].startswith("1 matches finished, 1 scored"), with_ca.stdout

    # --tls trusts gRPC's default roots, which this variable replaces (in gRPC C++ and grpc-js alike).
    with_default_roots = play_one_match(bot, server, "--tls", env={"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": ca})
    assert with_default_roots.returncode == 0, with_default_roots.stderr
    assert with_default_roots.stdout.splitlines()[-1].startswith("1 matches finished, 1 scored")


def test_plaintext_bot_fails_clearly_against_a_tls_server(bot, server_factory, pki):
    server = tls_server(server_factory, pki)
    done = bot.run(server.create_key("plain-bot"), "--server", server.address, "--name", "plain-bot",
                   "--game", "tic_tac_toe", "--connect-timeout", "2")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"arena-bot: cannot reach {server.address} within 2 s (UNAVAILABLE); {PLAINTEXT_HINT}"]
    assert done.stdout == ""


def test_bot_plays_with_mutual_tls(bot, server_factory, pki):
    # This server refuses a client without a certificate signed by the CA (see test_tls.py).
    server = tls_server(server_factory, pki, "--tls-client-ca", str(pki["ca"].cert))
    client = pki["client"]
    done = play_one_match(bot, server, "--root-certificates", str(pki["ca"].cert),
                          "--client-cert", str(client.cert), "--client-key", str(client.key))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 matches finished, 1 scored"), done.stdout


@pytest.mark.parametrize("option,file,status,message", [
    pytest.param("--client-cert", "client.pem", 2, "mutual TLS needs both --client-cert and --client-key",
                 id="cert-without-key"),
    pytest.param("--root-certificates", "missing.pem", 1,
                 "arena-bot: --root-certificates: cannot read {folder}/missing.pem (", id="missing-file"),
    pytest.param("--root-certificates", "notes.txt", 1,
                 "arena-bot: --root-certificates: {folder}/notes.txt is not a PEM file", id="not-pem"),
])
def test_unusable_tls_options_fail_before_connecting(bot, tmp_path, option, file, status, message):
    (tmp_path / "notes.txt").write_text("not a certificate\n")
    # Nothing listens on port 1: the bot must stop before trying it.
    done = bot.run("ak_deadbeef_any", "--server", "127.0.0.1:1", "--game", "tic_tac_toe",
                   option, str(tmp_path / file))
    assert done.returncode == status
    first_line, *more = done.stderr.splitlines()
    assert message.format(folder=tmp_path) in first_line
    assert status == 2 or not more, done.stderr     # only a usage error goes on (with the usage)


def test_bot_resends_the_decisions_the_rate_limit_dropped(bot, server_factory):
    # Two messages a second per key: the bot's decisions, a few tenths of a second apart, go over it.
    server = server_factory("--rate-limit", "2", "--rate-burst", "3", "--per-decision", "3", "--house-delay", "0.2")
    done = bot.run(server.create_key("eager-bot"), "--server", server.address, "--name", "eager-bot",
                   "--game", "tic_tac_toe", "--matches", "2", "--seed", "11")
    assert done.returncode == 0, done.stderr
    # Each bot logs the in-band Errors: decisions (not only heartbeats) were dropped.
    assert re.search(r"ERROR_CODE_RATE_LIMITED for match m_\w+ decision [1-9]", done.stderr), done.stderr

    seat_of = {line.split()[0]: int(line.split()[3]) for line in done.stdout.splitlines()[:-1]}
    assert len(seat_of) == 2, done.stdout
    stored = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="eager-bot", page_size=100),
                                             metadata=server.metadata()).matches
    by_id = {m.match_id: m for m in stored}
    for match_id, seat in seat_of.items():
        result = by_id[match_id].result
        assert result.reason == match_pb2.END_REASON_NORMAL
        stats = next(s for s in result.seat_stats if s.seat == seat)
        # Every dropped decision was sent again in time: none timed out and was played for the bot.
        assert (stats.illegal_actions, stats.timeouts, stats.substituted_actions) == (0, 0, 0)
