"""TLS and mutual TLS with certificates made at test time; plaintext clients fail clearly."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ..conftest import agent_process


def _health(address: str, credentials: grpc.ChannelCredentials | None) -> grpc.StatusCode:
    channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
    try:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()
    finally:
        channel.close()


def _operator(server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", "games", "--server", server.address,
                           "--key", server.admin_key, *args], capture_output=True, text=True, timeout=60)


def test_a_tls_server_serves_agents_and_operators_and_refuses_plaintext(server_factory, pki):
    server = server_factory("--tls-cert", str(pki["server"].cert), "--tls-key", str(pki["server"].key),
                            "--house-delay", "0.2", "--per-decision", "5")
    roots = pki["ca"].cert.read_bytes()
    assert _health(server.address, grpc.ssl_channel_credentials(roots)) == grpc.StatusCode.OK
    assert _health(server.address, grpc.ssl_channel_credentials()) == grpc.StatusCode.UNAVAILABLE   # untrusted
    assert _health(server.address, None) == grpc.StatusCode.UNAVAILABLE

    agent = agent_process(server, "secure-bot", "random", "--game", "tic_tac_toe", "--matches", "2",
                          "--root-certificates", str(pki["ca"].cert))
    out, err = agent.communicate(timeout=60)
    assert agent.returncode == 0, err
    assert out.count("tic_tac_toe") >= 2
    listed = _operator(server, "--root-certificates", str(pki["ca"].cert))
    assert listed.returncode == 0 and "tic_tac_toe" in listed.stdout

    plaintext_agent = agent_process(server, "plain-bot", "random", "--game", "tic_tac_toe", "--matches", "1",
                                    "--connect-timeout", "2")
    _, err = plaintext_agent.communicate(timeout=60)
    assert plaintext_agent.returncode == 1
    assert "plaintext" in err and "--root-certificates" in err
    plaintext_operator = _operator(server)
    assert plaintext_operator.returncode == 1
    assert "UNAVAILABLE" in plaintext_operator.stderr and "uses TLS" in plaintext_operator.stderr


def test_mutual_tls_requires_a_client_certificate_signed_by_the_client_ca(server_factory, pki):
    server = server_factory("--tls-cert", str(pki["server"].cert), "--tls-key", str(pki["server"].key),
                            "--tls-client-ca", str(pki["ca"].cert), "--house-delay", "0.2", "--per-decision", "5")
    roots = pki["ca"].cert.read_bytes()
    client, stranger = pki["client"], pki["stranger"]
    assert _health(server.address, grpc.ssl_channel_credentials(roots)) == grpc.StatusCode.UNAVAILABLE
    assert _health(server.address, grpc.ssl_channel_credentials(
        roots, stranger.key.read_bytes(), stranger.cert.read_bytes())) == grpc.StatusCode.UNAVAILABLE
    assert _health(server.address, grpc.ssl_channel_credentials(
        roots, client.key.read_bytes(), client.cert.read_bytes())) == grpc.StatusCode.OK

    tls = ["--root-certificates", str(pki["ca"].cert), "--client-cert", str(client.cert),
           "--client-key", str(client.key)]
    agent = agent_process(server, "lab-bot", "random", "--game", "tic_tac_toe", "--matches", "1", *tls)
    out, err = agent.communicate(timeout=60)
    assert agent.returncode == 0, err
    assert "tic_tac_toe" in out
    assert _operator(server, *tls).returncode == 0
    without_certificate = _operator(server, "--root-certificates", str(pki["ca"].cert))
    assert without_certificate.returncode == 1 and "UNAVAILABLE" in without_certificate.stderr


@pytest.mark.parametrize("options,message", [
    (["--tls-cert", "server.pem"], "needs both --tls-cert and --tls-key"),
    (["--tls-client-ca", "ca.pem"], "--tls-client-ca needs --tls-cert and --tls-key"),
    (["--tls-cert", "missing.pem", "--tls-key", "missing.key"], "--tls-cert: cannot read missing.pem"),
    (["--tls-cert", "notes.txt", "--tls-key", "notes.txt"], "--tls-cert: notes.txt is not a PEM file"),
])
def test_serve_refuses_incomplete_or_unreadable_tls_options(tmp_path, options, message):
    (tmp_path / "notes.txt").write_text("not a certificate\n")
    done = subprocess.run([sys.executable, "-m", "arena_server.cli", "serve", "--db", "arena.db", "--port", "0",
                           *options], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert not (tmp_path / "arena.db").exists()
