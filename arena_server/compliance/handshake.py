"""Handshake: Hello and Welcome, the refusals that end the call with a status, and what the stream does
with messages that answer nothing (a second Hello, an empty message, a Heartbeat)."""

from __future__ import annotations

import secrets

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb

from .context import Context
from .registry import Fail, Skip, check, require
from .wire import hello, kind, status_of

SESSION_FLOW = "agent_service.proto, session flow"
UNKNOWN_GAME = "compliance_no_such_game"


async def _refused(ctx: Context, first: pb.ConnectRequest | None, key: str | None, expected: grpc.StatusCode,
                   wait: float | None = None) -> str:
    """Opens Connect with `key`, sends `first`, and requires the call to end with `expected` and no Welcome."""
    stream = await ctx.connect(first, key=key)
    try:
        if first is None:
            await stream.started()
        status = await stream.ended(wait or ctx.timeout)
        if status is None:
            welcomed = " after a Welcome" if stream.of_kind("welcome") else ""
            raise Fail(f"the call was still open{welcomed} {wait or ctx.timeout:g} s later; expected {expected.name}")
        require(not stream.of_kind("welcome"), f"the server sent Welcome, then ended the call with {status}")
        require(status.code == expected, f"ended with {status}, expected {expected.name}")
        return f"{expected.name}: {status.details}"
    finally:
        await stream.close()


@check("handshake.welcome", f"{SESSION_FLOW} 2; Hello, Welcome",
       "Hello -> Welcome: session_id, resume_token, protocol_version 1.x, the key's agent_name when Hello names "
       "none, heartbeat_interval > 0; an unknown game is listed in rejected_games, not fatal")
async def welcome(ctx: Context) -> str:
    try:
        known = [await ctx.play_game()]
    except (Fail, Skip):
        known = []      # without ListGames, only the refusal of the unknown game is checked
    stream = await ctx.connect(hello(games=known + [UNKNOWN_GAME]))
    try:
        w = await stream.welcome(ctx.timeout)
    finally:
        await stream.close()
    require(w.session_id, "Welcome.session_id is empty")
    require(w.resume_token, "Welcome.resume_token is empty")
    require(w.protocol_version.split(".")[0] == "1", f"Welcome.protocol_version is {w.protocol_version!r}, not 1.x")
    require(w.agent_name, "Welcome.agent_name is empty for a Hello that names no agent")
    require(w.heartbeat_interval.ToNanoseconds() > 0, "Welcome.heartbeat_interval is not set")
    require(UNKNOWN_GAME not in w.accepted_games, f"Welcome accepted the unknown game {UNKNOWN_GAME!r}")
    require(UNKNOWN_GAME in [g.game_id for g in w.rejected_games],
            f"the unknown game {UNKNOWN_GAME!r} is not in Welcome.rejected_games")
    require(all(g in w.accepted_games for g in known), f"Welcome did not accept {known}, which ListGames lists")
    ctx.agent_name = w.agent_name
    return (f"session {w.session_id} as {w.agent_name!r}, protocol {w.protocol_version}, accepted "
            f"{list(w.accepted_games)}, refused the unknown game")


@check("handshake.minor_version", "agent_service.proto Hello.protocol_version; docs/protocol.md Versioning",
       "only the major version must match: Hello '1.99' is welcomed, and Welcome names the 1.x it speaks")
async def minor_version(ctx: Context) -> str:
    stream = await ctx.connect(hello(version="1.99"))
    try:
        w = await stream.welcome(ctx.timeout)
    finally:
        await stream.close()
    require(w.protocol_version.split(".")[0] == "1", f"Welcome.protocol_version is {w.protocol_version!r}")
    return f"Hello 1.99 welcomed; the server speaks {w.protocol_version}"


@check("handshake.no_key", f"{SESSION_FLOW} 1; AgentService.Connect",
       "Connect without an API key -> UNAUTHENTICATED")
async def no_key(ctx: Context) -> str:
    return await _refused(ctx, hello(), "", grpc.StatusCode.UNAUTHENTICATED)


@check("handshake.bad_key", f"{SESSION_FLOW} 1; AgentService.Connect",
       "Connect with an unknown API key -> UNAUTHENTICATED")
async def bad_key(ctx: Context) -> str:
    return await _refused(ctx, hello(), f"ak_{secrets.token_hex(4)}_compliance-not-a-key", grpc.StatusCode.UNAUTHENTICATED)


@check("handshake.other_agent", f"{SESSION_FLOW} 1; AgentInfo.name",
       "a Hello naming another agent than the key's -> PERMISSION_DENIED")
async def other_agent(ctx: Context) -> str:
    return await _refused(ctx, hello(name=f"compliance-impostor-{secrets.token_hex(4)}"), None,
                          grpc.StatusCode.PERMISSION_DENIED)


@check("handshake.spectate_key", f"{SESSION_FLOW} 1; arena_service.proto Scope",
       "a key without the play scope (spectate only) -> PERMISSION_DENIED")
async def spectate_key(ctx: Context) -> str:
    admin = ctx.admin("to issue a spectate-only key")
    try:
        made = await ctx.arena.CreateApiKey(apb.CreateApiKeyRequest(scopes=[apb.SCOPE_SPECTATE],
                                                                    label="arena.v1 compliance suite"),
                                            metadata=admin, timeout=ctx.timeout)
    except grpc.aio.AioRpcError as e:
        raise Fail(f"CreateApiKey(spectate) with the admin key was refused: {status_of(e)}") from None
    ctx.spectate_key = made.api_key
    return await _refused(ctx, hello(name=await ctx.key_agent()), made.api_key, grpc.StatusCode.PERMISSION_DENIED)


@check("handshake.major_version", f"{SESSION_FLOW} 1; Hello.protocol_version",
       "Hello with an unknown protocol major (2.0) -> FAILED_PRECONDITION")
async def major_version(ctx: Context) -> str:
    return await _refused(ctx, hello(version="2.0"), None, grpc.StatusCode.FAILED_PRECONDITION)


@check("handshake.first_not_hello", "ConnectRequest: 'Hello must be the first message'; docs/protocol.md fatal table",
       "a first message that is not Hello (a Heartbeat) -> INVALID_ARGUMENT")
async def first_not_hello(ctx: Context) -> str:
    return await _refused(ctx, pb.ConnectRequest(heartbeat=pb.Heartbeat()), None, grpc.StatusCode.INVALID_ARGUMENT)


@check("handshake.hello_timeout", "ConnectRequest: 'Hello must be the first message'; docs/protocol.md fatal table",
       "a call that sends no Hello is ended with INVALID_ARGUMENT within 10 s", background=True)
async def hello_timeout(ctx: Context) -> str:
    return await _refused(ctx, None, None, grpc.StatusCode.INVALID_ARGUMENT, wait=10.0 + ctx.timeout)


async def _stays_open_after(ctx: Context, message: pb.ConnectRequest, code: int, what: str) -> str:
    async with ctx.session() as stream:
        require(await stream.send(message), f"the stream refused {what}: {stream.send_failure}")
        error = await stream.next(lambda m: kind(m) == "error", ctx.timeout, f"an Error for {what}")
        require(error.error.code == code, f"{what} got {pb.ErrorCode.Name(error.error.code)}, "
                                          f"expected {pb.ErrorCode.Name(code)}")
        await stream.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        await stream.next(lambda m: kind(m) == "heartbeat", ctx.timeout, "a Heartbeat showing the stream is open")
        return f"{pb.ErrorCode.Name(code)} in-band ({error.error.message!r}); the stream stays open"


@check("handshake.second_hello", "agent_service.proto ConnectRequest.hello 'appear only once'; ErrorCode MALFORMED_MESSAGE",
       "a second Hello -> in-band Error MALFORMED_MESSAGE, the stream stays open")
async def second_hello(ctx: Context) -> str:
    return await _stays_open_after(ctx, hello(), pb.ERROR_CODE_MALFORMED_MESSAGE, "a second Hello")


@check("handshake.empty_message", "agent_service.proto ConnectRequest 'Exactly one is set'; ErrorCode MALFORMED_MESSAGE",
       "a ConnectRequest with nothing set -> in-band Error MALFORMED_MESSAGE, the stream stays open")
async def empty_message(ctx: Context) -> str:
    return await _stays_open_after(ctx, pb.ConnectRequest(), pb.ERROR_CODE_MALFORMED_MESSAGE, "an empty ConnectRequest")


@check("handshake.heartbeat", "agent_service.proto ConnectRequest.heartbeat 'the server answers with its own Heartbeat'",
       "Heartbeat -> a Heartbeat carrying the server's clock")
async def heartbeat(ctx: Context) -> str:
    async with ctx.session() as stream:
        for _ in range(2):
            await stream.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
            answer = (await stream.next(lambda m: kind(m) == "heartbeat", ctx.timeout, "a Heartbeat answer")).heartbeat
            require(answer.time.seconds > 0, "the Heartbeat answer carries no time")
        if stream.errors():
            raise Fail(f"Heartbeats were answered with an Error: {stream.errors()[0].message!r}")
        return f"two Heartbeats answered; server time {answer.time.ToJsonString()}"
