"""Assembles the gRPC server: agent, arena and spectator services, health, reflection,
the ladder matchmaker and the house agents; TLS (optionally mutual) and the limits."""

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
from .limits import RateLimiter, RateLimitInterceptor
from .lobby import Lobby
from .matchmaking import Matchmaker
from .referee import Rules
from .service.agent import AgentService
from .service.arena import ArenaService
from .service.spectator import SpectatorService
from .store import Store

log = structlog.get_logger("arena.server")

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
    resume_grace: float = 30.0   # seconds a dropped agent (or, after a restart, any agent) has to come back
    server_id: str = field(default_factory=lambda: "arena-" + secrets.token_hex(3))
    # TLS: PEM files. With tls_client_ca set, clients must present a certificate signed by it.
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    # Limits, each answered with a clear status (see limits.py and the proto comments).
    max_message_bytes: int = 4 * 1024 * 1024
    max_concurrent_per_agent: int = 0       # matches at once over all of an agent's sessions; 0: no cap
    rate_limit: float = 500.0               # requests and stream messages per second per API key; 0: off
    rate_burst: float = 1000.0
    max_unread_messages: int = 10_000       # queued for an agent that is not reading its stream


class ArenaServer:
    """The running server; `await start()`, then `await stop()`."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.store = Store(config.database)
        self.lobby = Lobby(max_matches_per_agent=config.max_concurrent_per_agent)
        self.limiter = RateLimiter(config.rate_limit, config.rate_burst)
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
        agent_service = AgentService(self.store, self.lobby, self.config.server_id, self.config.heartbeat_interval,
                                     limiter=self.limiter, resume_grace=self.config.resume_grace,
                                     max_unread_messages=self.config.max_unread_messages)
        resumed, voided = self.coordinator.resume_interrupted_matches(agent_service.awaiting_seat)
        tournaments = self.arena_service.resume_tournaments()
        if resumed or voided or tournaments:
            log.warning("resuming work interrupted by a previous shutdown", matches=resumed,
                        unresumable_matches_voided=voided, tournaments=tournaments)
        credentials = server_credentials(self.config)
        interceptors = [RateLimitInterceptor(self.limiter)] if self.limiter.enabled else []
        server = grpc.aio.server(interceptors=interceptors, options=[
            ("grpc.max_receive_message_length", self.config.max_message_bytes),
            ("grpc.max_send_message_length", self.config.max_message_bytes),
            # Detect dead peers on idle streams: ping every 20 s, drop after 10 s without an answer.
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
        ])
        agent_service_pb2_grpc.add_AgentServiceServicer_to_server(agent_service, server)
        arena_service_pb2_grpc.add_ArenaServiceServicer_to_server(self.arena_service, server)
        spectator_service_pb2_grpc.add_SpectatorServiceServicer_to_server(
            SpectatorService(self.store, self.coordinator), server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        reflection.enable_server_reflection(
            SERVICE_NAMES + [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME],
            server)
        address = f"{self.config.host}:{self.config.port}"
        self.port = (server.add_secure_port(address, credentials) if credentials
                     else server.add_insecure_port(address))
        if self.port == 0:
            raise OSError(f"cannot listen on {self.config.host}:{self.config.port}")
        await server.start()
        self._server = server
        for name in SERVICE_NAMES + [""]:
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._background.append(asyncio.create_task(self.matchmaker.run(), name="matchmaker"))
        log.info("server listening", address=f"{self.config.host}:{self.port}", database=self.config.database,
                 server_id=self.config.server_id, transport=self.transport)
        return self.port

    @property
    def transport(self) -> str:
        if not self.config.tls_cert:
            return "plaintext"
        return "mutual TLS" if self.config.tls_client_ca else "TLS"

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


def server_credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from the configured PEM files, or None for plaintext. Raises ValueError
    naming the file that is missing or unreadable."""
    if not config.tls_cert and not config.tls_key:
        if config.tls_client_ca:
            raise ValueError("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    if not (config.tls_cert and config.tls_key):
        raise ValueError("TLS needs both --tls-cert and --tls-key")
    chain, key = _read_pem(config.tls_cert, "--tls-cert"), _read_pem(config.tls_key, "--tls-key")
    client_ca = _read_pem(config.tls_client_ca, "--tls-client-ca") if config.tls_client_ca else None
    return grpc.ssl_server_credentials([(key, chain)], root_certificates=client_ca,
                                       require_client_auth=client_ca is not None)


def _read_pem(path: str, option: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"{option}: cannot read {path}: {e.strerror}") from None
    if b"-----BEGIN " not in data:
        raise ValueError(f"{option}: {path} is not a PEM file")
    return data


def admin_key_path(database: str) -> Path:
    return Path(database).with_name(Path(database).name + ".admin-key")
