"""Request-rate limits: one token bucket per API key, shared by every call and every agent-stream
message sent with that key.

Calls are checked when they open, by `RateLimitInterceptor`: a call over the limit ends with
RESOURCE_EXHAUSTED and a `retry-after` trailing metadata entry giving the seconds to wait (a
decimal number). The agent stream is one long call, so the agent service also checks each message
it reads with `refuse_message`: a message over the limit is dropped and answered in-band with
ERROR_CODE_RATE_LIMITED, and the stream stays open.

Calls without a key (health checks, reflection) are not limited: they carry no identity, and an
arena service refuses a call without a key at once anyway.

What a client sent is echoed in replies and log lines only through `echo`, cut to ECHO_LIMIT
characters: a request under the message-size limit can then never make a reply over it (a 2.5 MB
match id echoed twice would otherwise end the call with RESOURCE_EXHAUSTED instead of the in-band
answer), nor a log line of megabytes.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import grpc

from arena.v1 import agent_service_pb2 as pb

from . import metrics
from .auth import key_from_metadata

# Past this many tracked keys, buckets that have refilled completely are forgotten: a full bucket
# is what a key that was never seen gets, so forgetting it changes nothing.
MAX_TRACKED_KEYS = 10_000

# Longest echo of a client's string (an id, a name, a version) in a reply or a log line. Every id
# the server issues and every name it accepts is far shorter, so a cut echo never hides one.
ECHO_LIMIT = 100
# Longest status message a call ends with, whatever it quotes: gRPC carries it in a trailer, and a
# trailer over about 8 KiB reaches the client as RESOURCE_EXHAUSTED instead of the status sent.
STATUS_MESSAGE_LIMIT = 1000


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """`text` as sent when it is at most `limit` characters; else its start, marked as cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…({len(text)} characters)"


class RateLimiter:
    """Token buckets by key: `rate` tokens per second, at most `burst` saved. A rate of 0 disables
    limiting."""

    def __init__(self, rate: float, burst: float, *, clock: Callable[[], float] = time.monotonic):
        if rate < 0 or (rate > 0 and burst < 1):
            raise ValueError("the rate limit must be >= 0 and its burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        # Keyed by the key as presented, not by its public key id: a caller who knows only the id
        # cannot drain the bucket of the key's owner.
        self._buckets: dict[str, tuple[float, float]] = {}   # key -> (tokens, when counted)

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def acquire(self, key: str) -> float:
        """Takes one token from `key`'s bucket: 0.0 when one was there, else the seconds until one
        will be (nothing is taken then)."""
        if not self.rate:
            return 0.0
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED_KEYS:
                self._forget_full_buckets(now)
            bucket = (self.burst, now)
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        # Rounded up to the millisecond quoted to the caller, so that waiting as told suffices.
        return max(1, math.ceil((1 - tokens) / self.rate * 1000)) / 1000

    def explain(self, wait: float) -> str:
        return (f"rate limit exceeded: at most {self.rate:g} requests and messages per second per API key "
                f"(bursts of {self.burst:g}); retry after {wait:.3f} s")

    def refuse_message(self, key: str | None, message: pb.ConnectRequest) -> pb.Error | None:
        """None when the agent-stream message may be handled; else the in-band Error that answers it
        instead (naming the decision, when it is one, so the agent knows what to send again)."""
        if key is None or not self.rate:
            return None
        wait = self.acquire(key)
        if not wait:
            return None
        metrics.RATE_LIMITED.labels("message").inc()
        error = pb.Error(code=pb.ERROR_CODE_RATE_LIMITED, message=self.explain(wait) + "; the message was dropped")
        if message.WhichOneof("message") == "decision":
            error.match_id = echo(message.decision.match_id)
            error.decision_id = message.decision.decision_id
        return error

    def _forget_full_buckets(self, now: float) -> None:
        full = [k for k, (tokens, counted) in self._buckets.items()
                if tokens + (now - counted) * self.rate >= self.burst]
        for k in full:
            del self._buckets[k]


class RateLimitInterceptor(grpc.aio.ServerInterceptor):
    """Counts every call that carries an API key against that key's bucket when it opens."""

    def __init__(self, limiter: RateLimiter):
        self.limiter = limiter

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        key = key_from_metadata(handler_call_details.invocation_metadata)
        if handler is None or key is None:
            return handler
        wait = self.limiter.acquire(key)
        if not wait:
            return handler
        metrics.RATE_LIMITED.labels("call").inc()
        return _refusing(handler, self.limiter.explain(wait), wait)


def _refusing(handler: grpc.RpcMethodHandler, message: str, wait: float) -> grpc.RpcMethodHandler:
    """A handler of the same shape as `handler` that ends the call with RESOURCE_EXHAUSTED."""
    async def refuse(request, context):
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, message,
                            trailing_metadata=(("retry-after", f"{wait:.3f}"),))

    make = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[(handler.request_streaming, handler.response_streaming)]
    return make(refuse, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
