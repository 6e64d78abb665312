"""On PostgreSQL, a server whose database connection is lost exits with status 75 rather than go on
without recording (its supervisor restarts it); started again, it serves from what was committed."""

from __future__ import annotations

import grpc
import psycopg
import pytest

from arena.v1 import arena_service_pb2 as apb


def _agents(server) -> list[str]:
    return [a.name for a in server.arena_stub().ListAgents(apb.ListAgentsRequest(), metadata=server.metadata(),
                                                             timeout=10).agents]


def test_a_server_that_loses_its_postgresql_connection_exits_and_serves_again_when_restarted(server_factory,
                                                                                              postgres_cluster):
    url = postgres_cluster.create_database("lost")
    server = server_factory("--per-decision", "5", database=url)
    server.create_key("alice")
    assert "alice" in _agents(server)

    database = url.split("?", 1)[0].rsplit("/", 1)[1]
    with psycopg.connect(postgres_cluster.url(), autocommit=True) as admin:
        ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              " WHERE datname = %s AND application_name = 'arena-server'", (database,)).fetchall()
    assert ended == [(True,)]       # the server's one connection

    with pytest.raises(grpc.RpcError):
        _agents(server)             # its next statement finds the connection gone
    assert server.process.wait(10) == 75
    assert "the connection to PostgreSQL was lost" in server.log_path.read_text()

    server.restart()
    assert "alice" in _agents(server)
