"""`arena-server serve`: the server on an embedded SQLite file (default) or a PostgreSQL database."""

from __future__ import annotations

import asyncio
import signal
import sys

from ..referee.match import FAILURE_POLICIES
from .common import DEFAULT_DB, non_negative_float, non_negative_int, port_number, positive_float, positive_int


def add_parsers(sub) -> None:
    serve = sub.add_parser("serve", help="run the server on an embedded SQLite file or a PostgreSQL database")
    serve.add_argument("--db", default=DEFAULT_DB,
                       help="SQLite database file, created if missing, or a postgresql://user:password@host:port/dbname "
                            "URL; the schema is created or migrated on start; one server per SQLite file, any number "
                            "on one PostgreSQL database, sharing its agents, matches and tournaments "
                            "(default %(default)s)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    serve.add_argument("--port", type=port_number, default=50051,
                       help="port to listen on; 0 picks a free one (default %(default)s)")
    serve.add_argument("--per-decision", type=positive_float, default=30.0,
                       help="seconds allowed per decision (default %(default)g)")
    serve.add_argument("--max-retries", type=non_negative_int, default=2,
                       help="re-asks after an illegal or unparseable decision (default %(default)s)")
    serve.add_argument("--on-failure", default="random_legal", choices=list(FAILURE_POLICIES),
                       help="what the referee does after the retries or a timeout (default %(default)s)")
    serve.add_argument("--house-delay", type=non_negative_float, default=1.0,
                       help="seconds a lone ladder agent waits before house agents fill its match (default %(default)g)")
    serve.add_argument("--log-json", action="store_true", help="JSON log lines instead of console lines")
    serve.add_argument("--metrics-port", type=port_number, default=0, metavar="PORT",
                       help="serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (default 0: off)")
    serve.add_argument("--http-port", type=port_number, default=0, metavar="PORT",
                       help="serve the web front (watch, replay, leaderboards, play in the browser) at "
                            "http://HOST:PORT/, over HTTPS with the TLS certificate when one is given "
                            "(default 0: off; ./scripts/serve.sh uses 8080)")
    serve.add_argument("--resume-grace", type=non_negative_float, default=30.0, metavar="SECONDS",
                       help="how long a dropped agent's seats wait for it to resume (with its resume token, or "
                            "after a server restart with a new session) before the failure policy takes them "
                            "(default %(default)g)")
    serve.add_argument("--lease-seconds", type=positive_float, default=10.0, metavar="SECONDS",
                       help="several servers on one PostgreSQL database: how long a server's heartbeat may be missing "
                            "before another takes its matches and tournaments over (at once when its database "
                            "connections are gone, as when it was killed) (default %(default)g)")
    serve.add_argument("--lab-key", metavar="PATH",
                       help="federation: the lab's signing key (`arena-server federation init`); with one, the server "
                            "serves its signed match records (default: DB.lab-key beside the database, if there)")
    tls = serve.add_argument_group("TLS")
    tls.add_argument("--tls-cert", metavar="PEM", help="serve over TLS with this certificate chain")
    tls.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    tls.add_argument("--tls-client-ca", metavar="PEM",
                     help="mutual TLS: require client certificates signed by these CAs (e.g. server-to-server links)")
    limits = serve.add_argument_group("limits")
    limits.add_argument("--max-message-bytes", type=positive_int, default=4 * 1024 * 1024,
                        help="largest message received or sent; larger ones end the call with RESOURCE_EXHAUSTED "
                             "(default %(default)s)")
    limits.add_argument("--max-concurrent-per-agent", type=non_negative_int, default=0, metavar="N",
                        help="matches one agent plays at once over all its sessions, whatever its Hellos ask "
                             "(default 0: no cap)")
    limits.add_argument("--rate-limit", type=non_negative_float, default=10_000.0, metavar="PER_SECOND",
                        help="calls and agent-stream messages per second per API key; over it a call ends with "
                             "RESOURCE_EXHAUSTED and a retry-after trailer, a stream message is answered with an "
                             "in-band RATE_LIMITED error (default %(default)g; 0 turns it off)")
    limits.add_argument("--rate-burst", type=non_negative_float, default=20_000.0, metavar="N",
                        help="calls and messages a key may send at once after being idle (default %(default)g)")
    limits.add_argument("--max-unread-messages", type=positive_int, default=10_000, metavar="N",
                        help="messages queued for an agent that does not read its stream before the stream is "
                             "closed with RESOURCE_EXHAUSTED; the session stays resumable (default %(default)d)")
    serve.set_defaults(run=_serve)


def _serve(args) -> int:
    from .. import logs
    from ..server import ArenaServer, ServerConfig, ServerStartError, server_credentials

    logs.configure(json=args.log_json)
    config = ServerConfig(database=args.db, host=args.host, port=args.port, per_decision=args.per_decision,
                          max_retries=args.max_retries, on_failure=args.on_failure, house_delay=args.house_delay,
                          tls_cert=args.tls_cert, tls_key=args.tls_key, tls_client_ca=args.tls_client_ca,
                          max_message_bytes=args.max_message_bytes,
                          max_concurrent_per_agent=args.max_concurrent_per_agent, rate_limit=args.rate_limit,
                          rate_burst=args.rate_burst, resume_grace=args.resume_grace,
                          max_unread_messages=args.max_unread_messages, metrics_port=args.metrics_port,
                          http_port=args.http_port, lab_key=args.lab_key, lease_seconds=args.lease_seconds)
    try:
        server_credentials(config)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    async def run() -> None:
        server = ArenaServer(config)
        key_file = server.ensure_admin_key()
        try:
            port = await server.start()
        except ServerStartError:
            await server.stop(grace=0)
            raise
        if key_file:
            print(f"admin key written to {key_file}", flush=True)
        print(f"arena-server listening on {config.host}:{port} over {server.transport} "
              f"(database {server.store.display_name})", flush=True)
        if server.web is not None:
            print(f"web front at {server.web.url} (sign in with an API key: arena-server keys create --agent NAME)",
                  flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    try:
        asyncio.run(run())
    except ServerStartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
