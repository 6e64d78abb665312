"""Counters updated off the referee's path, checked in-process: rate-limit refusals of stream
messages and of calls."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import grpc
from prometheus_client import REGISTRY

from arena.v1 import agent_service_pb2 as pb
from arena_server.limits import RateLimiter, RateLimitInterceptor


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_refused_stream_messages_are_counted():
    limiter = RateLimiter(1.0, 2.0, clock=lambda: 100.0)      # the clock stands still: two tokens, no more
    before = _value("arena_rate_limited_total", kind="message")
    heartbeat = pb.ConnectRequest(heartbeat=pb.Heartbeat())
    refused = [limiter.refuse_message("key", heartbeat) is not None for _ in range(5)]
    assert refused == [False, False, True, True, True]
    assert _value("arena_rate_limited_total", kind="message") - before == 3


def test_refused_calls_are_counted():
    interceptor = RateLimitInterceptor(RateLimiter(1.0, 1.0, clock=lambda: 100.0))
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: None)

    async def continuation(details):
        return handler

    details = SimpleNamespace(invocation_metadata=(("authorization", "Bearer key"),), method="/arena.v1.X/Y")
    before = _value("arena_rate_limited_total", kind="call")

    async def calls():
        return [await interceptor.intercept_service(continuation, details) is handler for _ in range(3)]

    assert asyncio.run(calls()) == [True, False, False]
    assert _value("arena_rate_limited_total", kind="call") - before == 2
