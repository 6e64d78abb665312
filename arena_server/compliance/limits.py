"""Limits: a message over the server's size limit ends the call with RESOURCE_EXHAUSTED; calls over a
key's rate limit are refused with RESOURCE_EXHAUSTED and a `retry-after` trailer that is true (a call
after the wait is served); a session is never given more matches at once than Hello.max_concurrent_matches.
Last in the run: the rate check spends a key's budget (a fresh key when the admin key can make one)."""

from __future__ import annotations

import asyncio
import re

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb

from .context import Context, first_legal
from .registry import Fail, Skip, check, require
from .wire import bearer, hello, kind, match_of, refusal, status_of

LIMITS = "docs/protocol.md fatal table"
MAX_RETRY_WAIT = 10.0


@check("limits.message_size", f"{LIMITS}: 'a message over the size limit'",
       "a ConnectRequest over the server's message size limit (--max-message-bytes, default 4 MiB) -> RESOURCE_EXHAUSTED")
async def message_size(ctx: Context) -> str:
    size = ctx.settings.max_message_bytes + (64 << 10)
    async with ctx.session() as stream:
        await stream.send(pb.ConnectRequest(decision=pb.Decision(match_id="m_compliance_bulky", decision_id=1,
                                                                 text="x" * size)))
        status = await stream.ended(ctx.timeout + 10)
        if status is None:
            raise Fail(f"a {size}-byte message was taken: the stream is still open "
                       f"(give the server's limit with --max-message-bytes)")
        require(status.code == grpc.StatusCode.RESOURCE_EXHAUSTED, f"a {size}-byte message ended the call with {status}, "
                                                                   "expected RESOURCE_EXHAUSTED")
    again = await ctx.connect(hello())
    try:
        await again.welcome(ctx.timeout)
    finally:
        await again.close()
    return f"{size} bytes: RESOURCE_EXHAUSTED ({status.details[:60]}); a new session is welcomed after"


@check("limits.capacity", "agent_service.proto Hello.max_concurrent_matches; docs/protocol.md Multiplexing",
       "a session with max_concurrent_matches 1 is never given a second match before the first one ends")
async def capacity(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="two matches for one slot", capacity=1) as seat:
        played = []
        for _ in range(2):
            started = await seat.match_started()
            match_id = started.match.match_id
            held = {m.match_started.match.match_id for m in seat.stream.received if kind(m) == "match_started"}
            ended = {m.match_ended.match.match_id for m in seat.stream.received if kind(m) == "match_ended"}
            require(len(held - ended) <= 1, f"the session holds {len(held - ended)} matches at once with capacity 1")
            await seat.play_out(match_id, first_legal)
            played.append(match_id)
        starts = [i for i, m in enumerate(seat.stream.received) if kind(m) == "match_started"]
        end_first = next(i for i, m in enumerate(seat.stream.received)
                         if kind(m) == "match_ended" and match_of(m) == played[0])
        require(starts[1] > end_first, "the second MatchStarted came before the first match's MatchEnded")
        return f"{played[0]} then {played[1]}, one at a time"


def _running(*streams) -> set[str]:
    held, ended = set(), set()
    for stream in streams:
        for m in stream.received:
            if kind(m) == "match_started":
                held.add(m.match_started.match.match_id)
            elif kind(m) == "match_ended":
                ended.add(m.match_ended.match.match_id)
    return held - ended


@check("limits.per_agent_cap", "docs/protocol.md Multiplexing: 'the operator may also cap the total over all of an "
       "agent's sessions' (--max-concurrent-per-agent)",
       "two sessions of one agent, each offering cap + 1 slots, together hold at most the operator's cap of matches")
async def per_agent_cap(ctx: Context) -> str:
    cap = ctx.settings.max_concurrent_per_agent
    if not cap:
        raise Skip("needs --max-concurrent-per-agent N (the server's cap on an agent's concurrent matches)")
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="matches for two sessions of one agent", capacity=cap + 1,
                          per_decision=30.0, matches=cap + 1) as seat:
        other = await ctx.connect(hello(games=[game], capacity=cap + 1, join_ladder=not seat.tournament_id))
        try:
            await other.welcome(ctx.timeout)
            await seat.match_started()          # matches are being given; the decisions stay unanswered
            loop = asyncio.get_running_loop()
            most, settle, deadline = 0, None, loop.time() + ctx.settings.match_wait
            while loop.time() < (settle or deadline):
                await asyncio.sleep(0.1)
                most = max(most, len(_running(seat.stream, other)))
                require(most <= cap, f"the agent holds {most} matches at once over two sessions; the cap is {cap}")
                if most == cap and settle is None:
                    settle = loop.time() + 1.5  # then 1.5 s more: time to hand out one too many, if it would
            require(most == cap, f"the two sessions held at most {most} matches, fewer than the cap {cap} with "
                                 f"{2 * (cap + 1)} slots offered")
            return f"{most} matches held at once over two sessions offering {2 * (cap + 1)} slots (cap {cap})"
        finally:
            for match_id in _running(other):
                seats = [m.match_started.seat for m in other.received
                         if kind(m) == "match_started" and m.match_started.match.match_id == match_id]
                await other.send(pb.ConnectRequest(resign=pb.Resign(match_id=match_id, seat=seats[0])))
            await other.close()


@check("limits.rate_limit_stream", "agent_service.proto ErrorCode RATE_LIMITED; docs/protocol.md recoverable table",
       "stream messages over the key's rate limit -> in-band Error RATE_LIMITED quoting 'retry after N s'; the "
       "stream stays open and is answered again after that wait")
async def rate_limit_stream(ctx: Context) -> str:
    budget = ctx.settings.rate_calls
    async with ctx.session() as stream:
        mark = len(stream.received)
        for _ in range(budget):
            if not await stream.send(pb.ConnectRequest(heartbeat=pb.Heartbeat())):
                raise Fail(f"the stream ended while Heartbeats were sent: {stream.status or stream.send_failure}")

        def settled():
            answered = sum(kind(m) == "heartbeat" for m in stream.received[mark:])
            return stream.find(lambda m: kind(m) == "error", mark) >= 0 or answered >= budget

        await stream.wait(settled, ctx.timeout + budget / 100)
        found = stream.find(lambda m: kind(m) == "error", mark)
        if found < 0:
            if stream.status is not None:
                raise Fail(f"the stream ended with {stream.status} instead of refusing messages in-band")
            raise Skip(f"none of {budget} Heartbeats was refused: the server's rate limit is above what "
                       f"--rate-calls {budget} spends")
        error = stream.received[found].error
        require(error.code == pb.ERROR_CODE_RATE_LIMITED, f"got {pb.ErrorCode.Name(error.code)} ({error.message!r}), "
                                                          "expected ERROR_CODE_RATE_LIMITED")
        quoted = re.search(r"retry after ([0-9.]+) ?s", error.message)
        require(quoted, f"the RATE_LIMITED message quotes no wait ('retry after N s'): {error.message!r}")
        wait = float(quoted.group(1))
        require(stream.status is None, f"the stream ended: {stream.status}")
        await asyncio.sleep(min(wait, MAX_RETRY_WAIT) + 0.2)
        after = len(stream.received)
        await stream.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        await stream.expect(lambda m: kind(m) == "heartbeat", ctx.timeout, "a Heartbeat answered after the wait", after)
        return f"RATE_LIMITED in-band ({error.message[:60]!r}); answered again after {wait:g} s"


async def _rate_key(ctx: Context) -> tuple[list[tuple[str, str]], str]:
    if ctx.settings.admin_key:
        try:
            made = await ctx.arena.CreateApiKey(apb.CreateApiKeyRequest(scopes=[apb.SCOPE_SPECTATE],
                                                                        label="arena.v1 compliance rate check"),
                                                metadata=bearer(ctx.settings.admin_key), timeout=ctx.timeout)
            return bearer(made.api_key), "a fresh spectate key"
        except grpc.aio.AioRpcError as e:
            raise Fail(f"CreateApiKey with the admin key was refused: {status_of(e)}") from None
    return ctx.play, "the key given" if ctx.settings.read_only else "the play key"


@check("limits.rate_limit", f"{LIMITS}: 'opening a call over the key's rate limit'",
       "calls over a key's rate limit -> RESOURCE_EXHAUSTED with trailing metadata retry-after (seconds); "
       "a call after that wait is served")
async def rate_limit(ctx: Context) -> str:
    metadata, which = await _rate_key(ctx)
    budget, spent, refused = ctx.settings.rate_calls, 0, None
    while spent < budget and refused is None:
        batch = min(200, budget - spent)       # at once: faster than any refill a limit within reach allows
        statuses = await asyncio.gather(*(refusal(ctx.arena.ListGames(apb.ListGamesRequest(), metadata=metadata,
                                                                      timeout=ctx.timeout)) for _ in range(batch)))
        spent += batch
        others = [s for s in statuses if s is not None and s.code != grpc.StatusCode.RESOURCE_EXHAUSTED]
        if others:
            raise Fail(f"a call under test was refused with {others[0]}")
        refused = next((s for s in statuses if s is not None), None)
    if refused is None:
        raise Skip(f"no call of {spent} with {which} was refused: the server's rate limit is above what "
                   f"--rate-calls {budget} spends")
    raw = refused.trailers.get("retry-after")
    require(raw is not None, f"the refusal ({refused}) has no retry-after trailer")
    try:
        wait = float(raw)
    except ValueError:
        raise Fail(f"retry-after is {raw!r}, not a number of seconds") from None
    require(wait > 0, f"retry-after is {raw!r}")
    if wait > MAX_RETRY_WAIT:
        return f"refused after {spent} calls with retry-after {wait:g} s (longer than {MAX_RETRY_WAIT:g} s: not waited)"
    await asyncio.sleep(wait + 0.05)
    status = await refusal(ctx.arena.ListGames(apb.ListGamesRequest(), metadata=metadata, timeout=ctx.timeout))
    require(status is None, f"the call after the quoted wait ({wait:g} s) was refused: {status}")
    return (f"RESOURCE_EXHAUSTED within {spent} calls with {which} ({refused.details[:50]}), retry-after {wait:g} s; "
            "served after the wait")
