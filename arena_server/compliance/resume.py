"""Resume: a dropped stream comes back with the latest Welcome's resume token inside the grace window,
gets the same session, a snapshot of its match and the pending request, and plays on; a token works
once, and an unknown one is refused."""

from __future__ import annotations

import secrets

import grpc

from arena.v1 import match_pb2

from .context import Context, first_legal, reason_name
from .registry import Fail, check, require
from .wire import hello, kind

DISCONNECTS = "docs/protocol.md, Disconnects and resuming; agent_service.proto Hello.resume_token"


def _token(stream) -> str:
    welcomes = stream.of_kind("welcome")
    return welcomes[-1].resume_token if welcomes else ""


@check("resume.mid_match", DISCONNECTS,
       "a stream dropped mid-match and resumed with the resume token: Welcome with the same session_id and a new "
       "token, MatchStarted of the held match, the pending DecisionRequest (same decision_id); the match plays on")
async def mid_match(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a match to drop and resume", per_decision=15.0) as seat:
        started = await seat.match_started()
        match_id = started.match.match_id
        pending = await seat.request(match_id)
        first = seat.stream.of_kind("welcome")[0]
        await seat.stream.close()                       # the drop: the call is cancelled, nothing answered
        seat.stream = await ctx.connect(hello(name=first.agent_name, resume_token=first.resume_token))
        welcome = await seat.stream.welcome(ctx.timeout)
        require(welcome.session_id == first.session_id,
                f"the resumed Welcome has session {welcome.session_id!r}, not {first.session_id!r}")
        require(welcome.resume_token and welcome.resume_token != first.resume_token,
                "the resumed Welcome carries no fresh resume token")
        snapshot = await seat.stream.next(lambda m: kind(m) == "match_started", ctx.timeout, "the snapshot's MatchStarted")
        require(snapshot.match_started.match.match_id == match_id,
                f"the snapshot's MatchStarted is of {snapshot.match_started.match.match_id!r}, not {match_id!r}")
        require(snapshot.match_started.seat == started.seat, "the snapshot gives another seat")
        again = await seat.request(match_id, ctx.timeout)
        require(again.decision_id == pending.decision_id,
                f"the snapshot's pending request is decision {again.decision_id}, not {pending.decision_id}")
        require(again.time_remaining.ToNanoseconds() <= pending.time_remaining.ToNanoseconds(),
                "the pending request's time_remaining grew while away (the clock must keep running)")
        await seat.stream.decide(again, **first_legal(again))
        ended = await seat.play_out(match_id, first_legal)
        refused = [e for e in seat.our_errors(match_id) if e.decision_id == again.decision_id]
        if refused:
            raise Fail(f"the answer to the re-sent request was refused: {refused[0].message!r}")
        timeouts = [s.timeouts for s in ended.match.result.seat_stats if s.seat == started.seat]
        require(not any(timeouts), f"the resumed seat was charged {timeouts} timeouts")
        require(ended.match.status == match_pb2.MATCH_STATUS_FINISHED,
                f"the resumed match ended {match_pb2.MatchStatus.Name(ended.match.status)}")
        return (f"{match_id}: resumed session {welcome.session_id}, decision {again.decision_id} re-sent, "
                f"ended {reason_name(ended.match)}")


@check("resume.token_once", DISCONNECTS, "a resume token works once: using it again -> NOT_FOUND")
async def token_once(ctx: Context) -> str:
    name = await ctx.key_agent()
    stream = await ctx.connect(hello())
    try:
        token = (await stream.welcome(ctx.timeout)).resume_token
    finally:
        await stream.close()
    resumed = await ctx.connect(hello(name=name, resume_token=token))
    try:
        await resumed.welcome(ctx.timeout)
    finally:
        await resumed.close()
    again = await ctx.connect(hello(name=name, resume_token=token))
    try:
        status = await again.ended(ctx.timeout)
        require(not again.of_kind("welcome"), "the used token was accepted a second time")
        require(status is not None, f"the call was still open {ctx.timeout:g} s after a used token")
        require(status.code == grpc.StatusCode.NOT_FOUND, f"a used token ended the call with {status}, expected NOT_FOUND")
        return f"first use welcomed; second use NOT_FOUND ({status.details[:60]})"
    finally:
        await again.close()


@check("resume.unknown_token", DISCONNECTS, "Hello with an unknown resume token -> NOT_FOUND")
async def unknown_token(ctx: Context) -> str:
    stream = await ctx.connect(hello(name=await ctx.key_agent(), resume_token=secrets.token_urlsafe(24)))
    try:
        status = await stream.ended(ctx.timeout)
        if status is None:
            raise Fail(f"the call was still open {ctx.timeout:g} s later")
        require(not stream.of_kind("welcome"), "an unknown token was welcomed")
        require(status.code == grpc.StatusCode.NOT_FOUND, f"ended with {status}, expected NOT_FOUND")
        return f"NOT_FOUND: {status.details[:80]}"
    finally:
        await stream.close()
