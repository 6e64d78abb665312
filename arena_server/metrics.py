"""Prometheus metrics: what the server counts, and the HTTP endpoint that serves them.

The counters and histograms live in prometheus_client's default registry (which also carries the
process collector: CPU, memory, open files), are updated at the server's choke points (the
referee's decision path, the agent service's streams, the rate limiter, the store's commits) and are
served as Prometheus text on `--metrics-port` (0, the default: not served). Every process counts
its own: with several server processes, Prometheus scrapes each and sums (`sum by (game)`), and
`arena_server_info` names the process.

Per game (label `game`): running matches, decisions, decision latency (the referee's own time and
the agent's think time), timeouts, illegal and unparseable answers. Per process: connected agent
streams, session resumes and reconnects, rate-limit refusals, and the latency of the match-log
commits (one per turn of the event loop; `backend` sqlite or postgres). docs/operations.md lists
them with what to alert on.
"""

from __future__ import annotations

import time

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, Info, start_http_server

# Decision latency buckets: the referee's own time is ~0.1 ms; an agent thinks from a millisecond
# (a bot on loopback) to a minute (an LLM with a long chain of thought).
_SERVER_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
_THINK_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
_COMMIT_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

SERVER_INFO = Info("arena_server", "This server process: its server id, process id and database back end")
SESSIONS_CONNECTED = Gauge("arena_sessions_connected", "Agent streams attached now (one per connected agent process)")
RESUMES = Counter("arena_session_resumes", "Streams that took over a dropped session with its resume token")
RECONNECTS = Counter("arena_session_reconnects",
                     "Fresh Hellos that took over the seats of matches resumed after a server restart")
RATE_LIMITED = Counter("arena_rate_limited", "Calls and agent-stream messages refused by the rate limit",
                       ["kind"])   # kind: call | message

MATCHES_RUNNING = Gauge("arena_matches_running", "Matches being refereed by this process now", ["game"])
DECISIONS = Counter("arena_decisions",
                    "Moves made by seats and logged (each seat of a simultaneous round counts once; moves the "
                    "failure policy substituted included)", ["game"])
DECISION_SERVER_SECONDS = Histogram(
    "arena_decision_server_seconds",
    "The referee's own time per decision: building the request, validating the answers, substitutions "
    "(the agent's think time excluded)", ["game"], buckets=_SERVER_BUCKETS)
AGENT_THINK_SECONDS = Histogram(
    "arena_agent_think_seconds", "From a decision request sent to its answer received (answered requests)",
    ["game"], buckets=_THINK_BUCKETS)
TIMEOUTS = Counter("arena_decision_timeouts", "Decision requests not answered in time (agent connected)", ["game"])
ILLEGAL = Counter("arena_illegal_answers", "Answers refused as illegal (illegal action, rejected or malformed text)",
                  ["game"])
UNPARSEABLE = Counter("arena_unparseable_answers", "Text answers the game's parser could not read", ["game"])
LOG_COMMIT_SECONDS = Histogram(
    "arena_log_commit_seconds", "Commits of the match log's writes (one transaction per turn of the event loop)",
    ["backend"], buckets=_COMMIT_BUCKETS)
CLUSTER_MESSAGES = Counter("arena_cluster_messages",
                           "Messages between server processes on the cluster bus (several processes, one database)",
                           ["direction"])     # direction: sent | received
CLUSTER_TAKEOVERS = Counter("arena_cluster_takeovers",
                            "Work taken over from server processes that died or stopped", ["kind"])
# kind: process | match | tournament
LOG_COMMIT_FAILURES = Counter("arena_log_commit_failures", "Commits of the match log's writes that failed", ["backend"])


class GameMetrics:
    """The per-game children a referee updates, looked up once per match (labels cost a lookup)."""

    __slots__ = ("game", "decisions", "server_seconds", "think_seconds", "timeouts", "illegal", "unparseable",
                 "running")

    def __init__(self, game: str):
        self.game = game
        self.decisions = DECISIONS.labels(game)
        self.server_seconds = DECISION_SERVER_SECONDS.labels(game)
        self.think_seconds = AGENT_THINK_SECONDS.labels(game)
        self.timeouts = TIMEOUTS.labels(game)
        self.illegal = ILLEGAL.labels(game)
        self.unparseable = UNPARSEABLE.labels(game)
        self.running = MATCHES_RUNNING.labels(game)


_games: dict[str, GameMetrics] = {}


def for_game(game: str) -> GameMetrics:
    metrics = _games.get(game)
    if metrics is None:
        metrics = _games[game] = GameMetrics(game)
    return metrics


def observe_commit(backend: str, started: float, ok: bool = True) -> None:
    """A match-log commit that began at `started` (time.perf_counter()) just ended."""
    if ok:
        LOG_COMMIT_SECONDS.labels(backend).observe(time.perf_counter() - started)
    else:
        LOG_COMMIT_FAILURES.labels(backend).inc()


def serve(port: int, host: str, *, server_id: str, backend: str, pid: int):
    """Starts the HTTP endpoint (GET /metrics, Prometheus text format) in a daemon thread; returns
    (http server, thread) for shutdown. Raises OSError when the port cannot be bound."""
    SERVER_INFO.info({"server_id": server_id, "pid": str(pid), "backend": backend})
    return start_http_server(port, addr=host, registry=REGISTRY)
