"""Assembles the gRPC server: agent, arena and spectator services, health, reflection,
the ladder matchmaker and the house agents."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.v1 import agent_service_pb2, agent_service_pb2_grpc, arena_service_pb2, arena_service_pb2_grpc
from arena.v1 import spectator_service_pb2, spectator_service_pb2_grpc

from . import auth
from .coordinator import Coordinator
from .house import HOUSE_AGENTS
from .lobby import Lobby
from .matchmaking import Matchmaker
from .referee import Rules
from .service.agent import AgentService
from .service.arena import ArenaService
from .service.spectator import SpectatorService
from .store import Store

log = structlog.get_logger("arena.server")

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
SERVICE_NAMES = [
    agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name,
    arena_service_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
    spectator_service_pb2.DESCRIPTOR.services_by_name["SpectatorService"].full_name,
]


@dataclass
class ServerConfig:
    database: str = "arena.db"
    host: str = "127.0.0.1"
    port: int = 50051
    per_decision: float = 30.0
    max_retries: int = 2
    on_failure: str = "random_legal"
    house_delay: float = 1.0
    heartbeat_interval: float = 10.0
    server_id: str = field(default_factory=lambda: "arena-" + secrets.token_hex(3))


class ArenaServer:
    """The running server; `await start()`, then `await stop()`."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.store = Store(config.database)
        self.lobby = Lobby()
        self.coordinator = Coordinator(
            self.store, Rules(per_decision=config.per_decision, max_retries=config.max_retries,
                              on_failure=config.on_failure))
        self.matchmaker = Matchmaker(self.lobby, self.coordinator, house_delay=config.house_delay)
        self.arena_service = ArenaService(self.store, self.lobby, self.coordinator)
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._background: list[asyncio.Task] = []

    async def start(self) -> int:
        for name, (description, _) in HOUSE_AGENTS.items():
            self.store.ensure_agent(name, description, house=True)
        voided = self.coordinator.void_interrupted_matches()
        if voided:
            log.warning("voided matches interrupted by a previous shutdown", count=voided)
        server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            # Detect dead peers on idle streams: ping every 20 s, drop after 10 s without an answer.
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
        ])
        agent_service_pb2_grpc.add_AgentServiceServicer_to_server(
            AgentService(self.store, self.lobby, self.config.server_id, self.config.heartbeat_interval), server)
        arena_service_pb2_grpc.add_ArenaServiceServicer_to_server(self.arena_service, server)
        spectator_service_pb2_grpc.add_SpectatorServiceServicer_to_server(
            SpectatorService(self.store, self.coordinator), server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        reflection.enable_server_reflection(
            SERVICE_NAMES + [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME],
            server)
        self.port = server.add_insecure_port(f"{self.config.host}:{self.config.port}")
        if self.port == 0:
            raise OSError(f"cannot listen on {self.config.host}:{self.config.port}")
        await server.start()
        self._server = server
        for name in SERVICE_NAMES + [""]:
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._background.append(asyncio.create_task(self.matchmaker.run(), name="matchmaker"))
        log.info("server listening", address=f"{self.config.host}:{self.port}", database=self.config.database,
                 server_id=self.config.server_id)
        return self.port

    def ensure_admin_key(self) -> Path | None:
        """On a new database, issues an admin key and writes it beside the database file (mode 600)
        so the operator's CLI can use it; returns the file written, if any."""
        if self.store.has_admin_key():
            return None
        key, _ = auth.create_key(self.store, agent_name=None, scopes=["admin"], label="bootstrap")
        path = admin_key_path(self.config.database)
        path.write_text(key + "\n")
        path.chmod(0o600)
        return path

    async def stop(self, grace: float = 1.0) -> None:
        for task in self._background:
            task.cancel()
        for task in self.arena_service.tournament_tasks.values():
            task.cancel()
        await asyncio.gather(*self._background, *self.arena_service.tournament_tasks.values(), return_exceptions=True)
        if self._server is not None:
            await self._server.stop(grace)
        await self.coordinator.shutdown()
        self.store.close()

    async def wait(self) -> None:
        assert self._server is not None
        await self._server.wait_for_termination()


def admin_key_path(database: str) -> Path:
    return Path(database).with_name(Path(database).name + ".admin-key")
