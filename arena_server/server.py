"""Assembles the gRPC server: agent, arena and spectator services, health, reflection,
the ladder matchmaker and the house agents; TLS (optionally mutual) and the limits."""

from __future__ import annotations

import asyncio
import fcntl
import inspect
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import psycopg
import structlog
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.v1 import agent_service_pb2, agent_service_pb2_grpc, arena_service_pb2, arena_service_pb2_grpc
from arena.v1 import spectator_service_pb2, spectator_service_pb2_grpc

from . import auth, logs, metrics
from .cluster import ClusterNode
from .coordinator import Coordinator
from .federation.keys import KeyFileError
from .federation.service import serve_federation
from .house import HOUSE_AGENTS
from .limits import STATUS_MESSAGE_LIMIT, RateLimiter, RateLimitInterceptor, echo
from .lobby import Lobby
from .matchmaking import Matchmaker
from .referee import Rules
from .service.agent import AgentService
from .service.arena import ArenaService
from .service.spectator import SpectatorService
from .store import Store, StoreError, is_postgres_url

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
    # Requests and stream messages per second per API key (0: off), and the burst after idling. In
    # normal play every message answers the server (a Decision per DecisionRequest) or is a heartbeat
    # every 10 s, so one key cannot send faster than the server asks for decisions, at most about
    # 5,400 a second for all agents together on a 2-vCPU machine (docs/benchmarks.md), 2,600 for the
    # fastest single agent measured: play never meets 10,000, and the SDKs resend what it drops.
    rate_limit: float = 10_000.0
    rate_burst: float = 20_000.0
    max_unread_messages: int = 10_000       # queued for an agent that is not reading its stream
    metrics_port: int = 0                   # Prometheus metrics over HTTP on host:metrics_port; 0: off
    http_port: int = 0                      # the web front (arena_server/web) on host:http_port; 0: off
    lab_key: str | None = None              # federation: the lab's key file (default: beside the database, if any)
    # Several processes on one PostgreSQL database: seconds without a heartbeat before a process's
    # work is taken over (at once when its connections are gone).
    lease_seconds: float = 10.0


class ServerStartError(Exception):
    """The server cannot start; the message says why in one line, for the operator."""


class ArenaServer:
    """The running server; `await start()`, then `await stop()`. Raises ServerStartError when the
    database cannot be opened or another server already uses it, and when it cannot listen."""

    def __init__(self, config: ServerConfig):
        self.config = config
        logs.bind_process(server_id=config.server_id)
        # One server per SQLite file (a file lock); any number on one PostgreSQL database (cluster/).
        self._lock_fd = None if is_postgres_url(config.database) else _lock_database(config.database)
        self.cluster: ClusterNode | None = None
        try:
            self.store = Store(config.database)
            if is_postgres_url(config.database):
                self.cluster = ClusterNode(config.database, config.server_id, self.store,
                                           lease_seconds=config.lease_seconds,
                                           max_matches_per_agent=config.max_concurrent_per_agent)
        except (StoreError, psycopg.Error) as e:
            if getattr(self, "store", None) is not None:
                self.store.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
            raise ServerStartError(str(e) if isinstance(e, StoreError) else
                                   f"cannot join the other servers on {self.store.display_name}: "
                                   f"{' '.join(str(e).split())}") from None
        # PostgreSQL: a lost connection ends the process (store/postgres.py says why).
        self.store.exit_on_lost_commit = True
        for migration in self.store.migrations_applied:
            log.info("database migrated", version=migration.version, description=migration.description)
        self._metrics_http = None
        self.web = None                     # the web front, when config.http_port is set
        self.lobby = (self.cluster.lobby if self.cluster is not None
                      else Lobby(max_matches_per_agent=config.max_concurrent_per_agent))
        self.limiter = RateLimiter(config.rate_limit, config.rate_burst)
        self.coordinator = Coordinator(
            self.store, Rules(per_decision=config.per_decision, max_retries=config.max_retries,
                              on_failure=config.on_failure), server_id=config.server_id)
        # A running match whose log could not be written is ended (void): its log no longer replays it.
        self.store.on_write_failed = lambda match_id, error: asyncio.ensure_future(
            self.coordinator.abort(match_id, f"its log could not be written: {' '.join(str(error).split())}"))
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
        credentials = server_credentials(self.config)
        interceptors = [RequestGuardInterceptor()]
        if self.limiter.enabled:
            interceptors.append(RateLimitInterceptor(self.limiter))
        server = grpc.aio.server(interceptors=interceptors, options=[
            # Refuse a port another process listens on, instead of sharing its connections with it.
            ("grpc.so_reuseport", 0),
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
        try:     # with a lab key, the server also serves its signed match records
            federated = serve_federation(server, self.store, self.config.database, self.config.lab_key)
        except KeyFileError as e:
            raise ServerStartError(str(e)) from None
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        reflection.enable_server_reflection(
            SERVICE_NAMES + federated + [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                                         reflection.SERVICE_NAME],
            server)
        address = f"{self.config.host}:{self.config.port}"
        try:
            self.port = (server.add_secure_port(address, credentials) if credentials
                         else server.add_insecure_port(address))
        except RuntimeError:
            self.port = 0
        if self.port == 0:
            raise ServerStartError(f"cannot listen on {address}: the port is in use, or {self.config.host} is not an "
                                   f"address of this machine")
        if self.config.metrics_port:
            try:
                self._metrics_http = metrics.serve(self.config.metrics_port, self.config.host,
                                                   server_id=self.config.server_id, backend=self.store.backend,
                                                   pid=os.getpid())
            except OSError as e:
                raise ServerStartError(f"cannot serve metrics on {self.config.host}:{self.config.metrics_port}: "
                                       f"{e.strerror}") from None
        if self.config.http_port:
            await self._start_web()
        # Listening is assured: carry on with the work a previous process left (with several processes,
        # the work no live process holds).
        if self.cluster is not None:
            self.cluster.wire(self.coordinator, agent_service, self.arena_service)
            resumed, voided, tournaments = self.cluster.resume(self.cluster.start(f"{self.config.host}:{self.port}"))
            self._background.append(asyncio.create_task(self.cluster.run(), name="cluster"))
        else:
            resumed, voided = self.coordinator.resume_interrupted_matches(agent_service.awaiting_seat)
            tournaments = self.arena_service.resume_tournaments()
        if resumed or voided or tournaments:
            log.warning("resuming work interrupted by a previous shutdown", matches=resumed,
                        unresumable_matches_voided=voided, tournaments=tournaments)
        await server.start()
        self._server = server
        for name in SERVICE_NAMES + federated + [""]:
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._background.append(asyncio.create_task(self.matchmaker.run(), name="matchmaker"))
        log.info("server listening", address=f"{self.config.host}:{self.port}", database=self.store.display_name,
                 server_id=self.config.server_id, transport=self.transport,
                 metrics=f"{self.config.host}:{self.config.metrics_port}" if self._metrics_http else "off")
        return self.port

    async def _start_web(self) -> None:
        from .web import WebFront

        tls = (self.config.tls_cert, self.config.tls_key) if self.config.tls_cert else None
        web = WebFront(store=self.store, lobby=self.lobby, coordinator=self.coordinator, limiter=self.limiter,
                       resume_grace=self.config.resume_grace, host=self.config.host, port=self.config.http_port,
                       tls=tls, arena_service=self.arena_service)
        try:
            await web.start()
        except OSError as e:
            raise ServerStartError(f"cannot serve the web front on {self.config.host}:{self.config.http_port}: "
                                   f"{e.strerror or e}") from None
        self.web = web

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
        if self.web is not None:
            await self.web.stop()
            self.web = None
        if self._server is not None:
            await self._server.stop(grace)
        await self.coordinator.shutdown()
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
        if self._metrics_http is not None:
            self._metrics_http[0].shutdown()
            self._metrics_http[0].server_close()
            self._metrics_http = None
        self.store.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)      # releases the database lock
            self._lock_fd = None

    async def wait(self) -> None:
        assert self._server is not None
        await self._server.wait_for_termination()


class RequestGuardInterceptor(grpc.aio.ServerInterceptor):
    """Two rules for every call, whatever service handles it:
    - request bytes that do not decode end the call with INVALID_ARGUMENT and a plain message (left
      alone, gRPC's Python server ends it with UNKNOWN and the text of protobuf's DecodeError); on a
      stream, the first undecodable message does;
    - a status message is cut to STATUS_MESSAGE_LIMIT characters, so quoting a client's oversized
      string can never turn the status into RESOURCE_EXHAUSTED (services quote through
      limits.echo; this bounds the rest)."""

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        return _guarded(handler, logs.request_fields(handler_call_details))


class _UndecodableRequest(DecodeError):
    """Raised by the guarded deserializer of a streaming request, out of the handler's read."""


_UNDECODABLE = object()   # what an undecodable unary request is handed on as, for the behaviour to refuse


class _BoundedStatusContext:
    """A servicer context whose status messages are cut to STATUS_MESSAGE_LIMIT characters."""

    def __init__(self, context: grpc.aio.ServicerContext):
        self._context = context
        self.write = context.write           # once per message on a stream: no lookup through __getattr__

    def __getattr__(self, name: str):
        return getattr(self._context, name)

    async def abort(self, code: grpc.StatusCode, details: str = "", *args, **kwargs):
        await self._context.abort(code, echo(details, STATUS_MESSAGE_LIMIT), *args, **kwargs)

    def set_details(self, details: str) -> None:
        self._context.set_details(echo(details, STATUS_MESSAGE_LIMIT))


def _guarded(handler: grpc.RpcMethodHandler, log_fields: dict[str, str]) -> grpc.RpcMethodHandler:
    """`handler` with a deserializer that flags undecodable bytes, and a behaviour that ends the
    call with INVALID_ARGUMENT when it meets them and bounds its status messages, and whose log
    lines carry `log_fields` (the call's request id and method). A unary request
    is flagged as _UNDECODABLE; a message of a request stream raises _UndecodableRequest out of the
    handler's read (no wrapper per message: the agent stream is the server's hot path)."""
    parse = handler.request_deserializer
    descriptor = getattr(getattr(parse, "__self__", None), "DESCRIPTOR", None)
    expected = descriptor.full_name if descriptor is not None else "the method's request type"
    problem = f"undecodable message: the bytes received are not a serialized {expected}"
    streaming = handler.request_streaming

    def deserialize(data: bytes):
        try:
            return parse(data)
        except DecodeError as e:
            if streaming:
                raise _UndecodableRequest(str(e)) from None
            return _UNDECODABLE

    if streaming:
        behavior = handler.stream_stream if handler.response_streaming else handler.stream_unary
    else:
        behavior = handler.unary_stream if handler.response_streaming else handler.unary_unary

    if inspect.isasyncgenfunction(behavior):     # a response stream written by yielding
        async def wrapped(request, context):
            structlog.contextvars.bind_contextvars(**log_fields)     # in this call's task only
            try:
                if request is _UNDECODABLE:
                    raise _UndecodableRequest
                async for response in behavior(request, _BoundedStatusContext(context)):
                    yield response
            except _UndecodableRequest:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
    else:
        async def wrapped(request, context):
            structlog.contextvars.bind_contextvars(**log_fields)     # in this call's task only
            try:
                if request is _UNDECODABLE:
                    raise _UndecodableRequest
                return await behavior(request, _BoundedStatusContext(context))
            except _UndecodableRequest:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
    make = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[(streaming, handler.response_streaming)]
    return make(wrapped, request_deserializer=deserialize, response_serializer=handler.response_serializer)


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


def _lock_database(database: str) -> int | None:
    """An exclusive lock on the database file for as long as the server runs, so that a second server
    on the same file is refused (SQLite's own locks would let both write, each with its own matches
    and agents). It is a flock, separate from SQLite's fcntl locks: the CLI's keys commands and other
    readers still open the file. Returns the descriptor holding it (None for an in-memory database)."""
    if database == ":memory:":
        return None
    path = Path(database)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise ServerStartError(f"cannot open the database {database}: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ServerStartError(f"another arena-server is already using the database {database}; "
                               f"stop it first, or give this one another --db") from None
    return fd


def admin_key_path(database: str) -> Path:
    """Beside a SQLite file; for a PostgreSQL URL, in the working directory, named after the database."""
    if is_postgres_url(database):
        name = database.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "arena"
        return Path(f"{name}.admin-key")
    return Path(database).with_name(Path(database).name + ".admin-key")
