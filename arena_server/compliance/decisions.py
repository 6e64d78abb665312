"""Decisions: a legal answer is taken, and every recoverable problem (an illegal action, a stale or
duplicated decision id, a decision for no match of the agent's, an empty choice, over-long text) is
answered in-band with the ErrorCode the proto documents while the stream stays open; bytes that are
not a ConnectRequest end the call. The legal actions are read from each DecisionRequest."""

from __future__ import annotations

import secrets

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import match_pb2

from .context import Context, first_legal, reason_name
from .registry import Fail, Skip, check, require
from .wire import CONNECT, kind, match_of, raw_stream

FAILURE_MODES = "docs/protocol.md, Failure modes"


def _code(code: int) -> str:
    return pb.ErrorCode.Name(code) if code in pb.ErrorCode.values() else str(code)


async def _error_for(seat, match_id: str, decision_id: int, expected: int, what: str):
    """The in-band Error about (match_id, decision_id), wherever it comes among the other messages
    (the cursor does not move): Fail unless it comes, with `expected`."""
    message = await seat.stream.expect(
        lambda m: kind(m) == "error" and m.error.match_id == match_id and m.error.decision_id == decision_id,
        seat.timeout, f"an Error for {what}")
    error = message.error
    require(error.code == expected, f"{what} got {_code(error.code)} ({error.message!r}), expected {_code(expected)}")
    return error


async def _reasked(seat, match_id: str, before: pb.DecisionRequest, policy: match_pb2.FailurePolicy, what: str) -> str:
    """After a refused decision: a new DecisionRequest with a higher id, attempt + 1 and feedback
    while retries last; else the failure policy (a penalty event, or the match's end)."""
    if before.attempt < policy.max_retries:
        again = await seat.request(match_id)
        require(again.decision_id > before.decision_id,
                f"the re-ask reuses decision_id {again.decision_id} (it must be new and higher than {before.decision_id})")
        require(again.attempt == before.attempt + 1, f"the re-ask has attempt {again.attempt}, expected {before.attempt + 1}")
        require(again.feedback, "the re-ask carries no feedback")
        require(len(again.legal_actions) == len(before.legal_actions), "the re-ask offers other legal actions")
        return f"re-asked as decision {again.decision_id}, attempt {again.attempt}, feedback {again.feedback[:60]!r}"
    message = await seat.stream.next(lambda m: match_of(m) == match_id and kind(m) in ("decision_request", "match_ended"),
                                     seat.per_decision_wait(), "the failure policy's effect")
    return f"no retries left: the failure policy applied ({kind(message)})"


async def _first_request(seat) -> tuple[pb.MatchStarted, pb.DecisionRequest]:
    started = await seat.match_started()
    request = await seat.request(started.match.match_id)
    return started, request


@check("decisions.legal_move", "agent_service.proto DecisionRequest, Decision, MatchEnded",
       "a Decision with an action id from legal_actions is taken (no Error); decision ids increase; the match "
       "ends with MatchEnded (FINISHED, one return per seat)")
async def legal_move(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a match to play") as seat:
        started = await seat.match_started()
        match = started.match
        require(match.match_id and match.game_id == game, f"MatchStarted names match {match.match_id!r} of {match.game_id!r}")
        ids = []

        def choose(request):
            require(request.time_remaining.ToNanoseconds() > 0, f"decision {request.decision_id} has no time_remaining")
            require(not ids or request.decision_id > ids[-1], f"decision_id {request.decision_id} after {ids[-1] if ids else 0}")
            ids.append(request.decision_id)
            return first_legal(request)

        ended = await seat.play_out(match.match_id, choose)
        errors = seat.our_errors(match.match_id)
        if errors:
            raise Fail(f"a legal decision was refused: {_code(errors[0].code)} {errors[0].message!r}")
        info = ended.match
        require(info.status == match_pb2.MATCH_STATUS_FINISHED, f"the match ended {match_pb2.MatchStatus.Name(info.status)}")
        require(len(info.result.returns) == len(match.players),
                f"MatchEnded has {len(info.result.returns)} returns for {len(match.players)} players")
        require(ids, "the match ended before the agent was asked anything")
        return f"{match.match_id}: {len(ids)} decisions taken, ended {reason_name(info)}, returns {list(info.result.returns)}"


@check("decisions.text_action", "agent_service.proto Decision.text; docs/protocol.md 5",
       "a Decision whose text is a legal action's own text is taken like its id")
async def text_action(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a decision to answer with text") as seat:
        started, request = await _first_request(seat)
        match_id = started.match.match_id
        text = request.legal_actions[0].text if request.legal_actions else ""
        if not text:
            raise Skip("the first legal action has no text")
        await seat.stream.decide(request, text=text)
        following = await seat.stream.next(
            lambda m: match_of(m) == match_id and kind(m) in ("decision_request", "match_ended", "error"),
            seat.per_decision_wait(), "what follows the decision")
        if kind(following) == "error":
            raise Fail(f"the action's own text {text!r} was refused: {_code(following.error.code)} {following.error.message!r}")
        if kind(following) == "decision_request":
            require(following.decision_request.attempt == 0,
                    f"the text decision was re-asked: {following.decision_request.feedback!r}")
        return f"text {text!r} taken; next: {kind(following)}"


@check("decisions.illegal_action", "agent_service.proto ErrorCode ILLEGAL_ACTION; docs/protocol.md 3",
       "an action id not among legal_actions -> in-band Error ILLEGAL_ACTION naming the match and decision, "
       "then a re-ask with a new decision_id, attempt + 1 and feedback (or the failure policy)")
async def illegal_action(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a decision to answer illegally") as seat:
        started, request = await _first_request(seat)
        match_id = started.match.match_id
        bad = max((a.id for a in request.legal_actions), default=0) + 1000
        await seat.stream.decide(request, action_id=bad)
        error = await _error_for(seat, match_id, request.decision_id, pb.ERROR_CODE_ILLEGAL_ACTION, f"action id {bad}")
        after = await _reasked(seat, match_id, request, started.match.failure_policy, "an illegal action")
        require(seat.stream.status is None, f"the stream ended: {seat.stream.status}")
        return f"ILLEGAL_ACTION ({error.message[:60]!r}); {after}"


@check("decisions.stale_decision", "agent_service.proto ErrorCode STALE_DECISION; docs/protocol.md 4",
       "a decision_id answered twice (a duplicate) -> in-band Error STALE_DECISION; the match goes on")
async def stale_decision(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a decision to answer twice") as seat:
        started, request = await _first_request(seat)
        match_id = started.match.match_id
        await seat.stream.decide(request, **first_legal(request))
        await seat.stream.decide(request, **first_legal(request))
        error = await _error_for(seat, match_id, request.decision_id, pb.ERROR_CODE_STALE_DECISION,
                                 f"decision {request.decision_id} sent again")
        following = await seat.stream.next(
            lambda m: match_of(m) == match_id and kind(m) in ("decision_request", "match_ended"),
            seat.per_decision_wait(), "the match going on")
        if kind(following) == "decision_request":
            require(following.decision_request.attempt == 0,
                    "the duplicate counted against the seat: the next request is a re-ask")
        return f"STALE_DECISION ({error.message[:60]!r}); the match went on"


@check("decisions.unknown_match", "agent_service.proto ErrorCode UNKNOWN_MATCH; docs/protocol.md recoverable table",
       "a Decision for a match the agent holds no seat in -> in-band Error UNKNOWN_MATCH, the stream stays open")
async def unknown_match(ctx: Context) -> str:
    match_id = f"m_compliance_{secrets.token_hex(4)}"
    async with ctx.session() as stream:
        await stream.send(pb.ConnectRequest(decision=pb.Decision(match_id=match_id, decision_id=1, action_id=0)))
        error = (await stream.next(lambda m: kind(m) == "error", ctx.timeout, "an Error for the unknown match")).error
        require(error.code == pb.ERROR_CODE_UNKNOWN_MATCH, f"got {_code(error.code)} ({error.message!r})")
        require(error.match_id == match_id, f"the Error names match {error.match_id!r}, not {match_id!r}")
        await stream.send(pb.ConnectRequest(heartbeat=pb.Heartbeat()))
        await stream.next(lambda m: kind(m) == "heartbeat", ctx.timeout, "a Heartbeat showing the stream is open")
        return f"UNKNOWN_MATCH ({error.message[:60]!r}); the stream stays open"


@check("decisions.empty_choice", "agent_service.proto Decision.choice; docs/protocol.md recoverable table",
       "a Decision with neither action_id nor text -> in-band Error MALFORMED_MESSAGE, counted as illegal and re-asked")
async def empty_choice(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a decision to answer with nothing") as seat:
        started, request = await _first_request(seat)
        match_id = started.match.match_id
        await seat.stream.send(pb.ConnectRequest(decision=pb.Decision(match_id=match_id, decision_id=request.decision_id)))
        error = await _error_for(seat, match_id, request.decision_id, pb.ERROR_CODE_MALFORMED_MESSAGE, "an empty choice")
        after = await _reasked(seat, match_id, request, started.match.failure_policy, "an empty choice")
        return f"MALFORMED_MESSAGE ({error.message[:50]!r}); {after}"


@check("decisions.text_too_long", "agent_service.proto ErrorCode TEXT_REJECTED, TextActionSpec.max_length",
       "text longer than text_action.max_length (1000 without a spec) -> in-band Error TEXT_REJECTED, re-asked")
async def text_too_long(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a decision to answer with over-long text") as seat:
        started, request = await _first_request(seat)
        match_id = started.match.match_id
        limit = request.text_action.max_length if request.HasField("text_action") and request.text_action.max_length else 1000
        await seat.stream.decide(request, text="x" * (limit + 1))
        error = await _error_for(seat, match_id, request.decision_id, pb.ERROR_CODE_TEXT_REJECTED,
                                 f"{limit + 1} characters of text")
        after = await _reasked(seat, match_id, request, started.match.failure_policy, "over-long text")
        return f"TEXT_REJECTED at {limit + 1} characters; {after}"


@check("decisions.resign", "agent_service.proto Resign; docs/protocol.md failure policy",
       "Resign ends the match at once: END_REASON_RESIGNATION, the resigning seat blamed with the lowest return")
async def resign(ctx: Context) -> str:
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a match to resign") as seat:
        started = await seat.match_started()
        match_id, me = started.match.match_id, started.seat
        await seat.stream.send(pb.ConnectRequest(resign=pb.Resign(match_id=match_id, seat=me)))
        ended = (await seat.stream.next(lambda m: kind(m) == "match_ended" and match_of(m) == match_id,
                                        seat.per_decision_wait(), "MatchEnded after Resign")).match_ended.match
        result = ended.result
        require(result.reason == match_pb2.END_REASON_RESIGNATION, f"the match ended {reason_name(ended)}")
        require(me in result.blamed_seats, f"blamed_seats {list(result.blamed_seats)} does not name seat {me}")
        require(len(result.returns) > me and result.returns[me] == min(result.returns),
                f"the resigning seat's return is not the lowest: {list(result.returns)}")
        return f"{match_id} ended END_REASON_RESIGNATION, returns {list(result.returns)}"


@check("decisions.undecodable_bytes", "docs/protocol.md fatal table; AgentService.Connect",
       "bytes that do not decode as a ConnectRequest -> the call ends with INVALID_ARGUMENT")
async def undecodable_bytes(ctx: Context) -> str:
    # Field 1 (hello) as a length-delimited field whose length runs past the end: no protobuf library decodes it.
    replies, status = await raw_stream(ctx.channel, CONNECT, [b"\x0a\xff\xff\xff\x0f\x01"], ctx.settings.key, ctx.timeout)
    if status is None:
        raise Fail(f"the call was still open {ctx.timeout:g} s later")
    require(status.code == grpc.StatusCode.INVALID_ARGUMENT, f"ended with {status}, expected INVALID_ARGUMENT")
    return f"INVALID_ARGUMENT: {status.details[:80]}"
