"""Spectating: SpectatorService.Watch replays a finished match's public events in order and ends with
the final MatchInfo; it starts where from_sequence says; and while a hidden-information match runs
(kuhn_poker) a spectator, and GetMatch, see neither seat's private card."""

from __future__ import annotations

import asyncio
import re

import grpc
from google.protobuf import json_format, text_format

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2, spectator_service_pb2 as spb

from .context import Context, first_legal
from .registry import Fail, Skip, check, require
from .wire import match_of, short, status_of

WATCH = "spectator_service.proto SpectatorService.Watch"
CARDS = ("J", "Q", "K")


class Watcher:
    """One Watch call, its messages kept as they arrive."""

    def __init__(self, ctx: Context, match_id: str, from_sequence: int = 0):
        self.messages: list[spb.WatchResponse] = []
        self.status = None
        self.done = asyncio.Event()
        self._call = ctx.spectator.Watch(spb.WatchRequest(match_id=match_id, from_sequence=from_sequence),
                                         metadata=ctx.read)
        self._task = asyncio.ensure_future(self._read())

    async def _read(self):
        try:
            async for message in self._call:
                self.messages.append(message)
            self.status = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as e:
            self.status = status_of(e)
        finally:
            self.done.set()

    async def finish(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.done.wait(), timeout)
        except asyncio.TimeoutError:
            raise Fail(f"the Watch stream did not close within {timeout:g} s of the match's end") from None
        finally:
            self.cancel()

    def cancel(self):
        self._call.cancel()

    def events(self) -> list[match_pb2.MatchEvent]:
        return [m.event for m in self.messages if m.WhichOneof("message") == "event"]


@check("spectating.replay", f"{WATCH}; WatchResponse",
       "Watch of a finished match from 0: every public event in sequence order from 0 (MATCH_STARTED first), "
       "then `ended` with the final MatchInfo, then the stream closes")
async def replay(ctx: Context) -> str:
    match = await ctx.a_finished_match("a finished match to watch")
    watcher = Watcher(ctx, match.match_id)
    await watcher.finish(ctx.timeout)
    require(watcher.status == grpc.StatusCode.OK, f"Watch ended with {watcher.status}")
    events = watcher.events()
    require(events, "Watch sent no event")
    require([e.sequence for e in events] == list(range(len(events))),
            f"event sequences are {[e.sequence for e in events][:12]}, not 0, 1, 2 …")
    require(events[0].kind == match_pb2.EVENT_KIND_MATCH_STARTED, "the first event is not EVENT_KIND_MATCH_STARTED")
    require(all(e.match_id == match.match_id for e in events), "an event names another match")
    last = watcher.messages[-1]
    require(last.WhichOneof("message") == "ended", "the last message is not `ended`")
    require(last.ended.match_id == match.match_id and last.ended.status == match_pb2.MATCH_STATUS_FINISHED,
            f"`ended` is {last.ended.match_id} {match_pb2.MatchStatus.Name(last.ended.status)}")
    require(list(last.ended.result.returns) == list(match.result.returns), "`ended` has other returns than MatchEnded")
    return f"{match.match_id}: {len(events)} events in order, then `ended`, then the stream closed"


@check("spectating.from_sequence", f"{WATCH}; WatchRequest.from_sequence",
       "Watch from_sequence N starts with event N")
async def from_sequence(ctx: Context) -> str:
    match = await ctx.a_finished_match("a finished match to watch")
    full = Watcher(ctx, match.match_id)
    await full.finish(ctx.timeout)
    count = len(full.events())
    if count < 3:
        raise Skip(f"the match has {count} events, too few to start in the middle")
    start = count // 2
    part = Watcher(ctx, match.match_id, start)
    await part.finish(ctx.timeout)
    events = part.events()
    require(events and events[0].sequence == start, f"from_sequence {start} began with "
                                                    f"{events[0].sequence if events else 'no event'}")
    require([e.sequence for e in events] == list(range(start, count)), "the events after it are not the rest, in order")
    return f"from_sequence {start}: events {start}..{count - 1}, then `ended`"


def _mentions(text: str, cards: set[str]) -> list[str]:
    return [c for c in cards if re.search(rf"(?<![A-Za-z]){c}(?![A-Za-z])", text)]


@check("spectating.hidden_information", "spectator_service.proto Watch 'never receives a seat's private observation'; "
       "arena_service.proto GetMatch 'Private information is included only after it ends'",
       "while a kuhn_poker match runs, no Watch message and no GetMatch reply names a dealt card (nor the seed)")
async def hidden_information(ctx: Context) -> str:
    game = await ctx.hidden_game()
    async with ctx.seated(game, purpose="a hidden-information match to watch", per_decision=15.0) as seat:
        started = await seat.match_started()
        match_id = started.match.match_id
        watcher = Watcher(ctx, match_id)
        seen_running: list[str] = []          # what the spectator and GetMatch had while the match awaited us
        own_cards: set[str] = set()
        try:
            while True:
                message = await seat.stream.next(
                    lambda m: match_of(m) == match_id and m.WhichOneof("message") in ("decision_request", "match_ended"),
                    seat.per_decision_wait(), "the next DecisionRequest or MatchEnded")
                if message.WhichOneof("message") == "match_ended":
                    ended = message.match_ended.match
                    break
                request = message.decision_request
                card = json_format.MessageToDict(request.observation.data).get("card")
                if card:
                    own_cards.add(str(card))
                # The match is waiting for this decision: it is running. Let the spectator catch up, then read.
                await asyncio.sleep(0.3)
                running = await ctx.arena.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=ctx.read,
                                                   timeout=ctx.timeout)
                require(running.match.seed == 0, "GetMatch of the running match reveals its seed")
                seen_running.append(text_format.MessageToString(running, as_one_line=True))
                seen_running += [text_format.MessageToString(m, as_one_line=True) for m in watcher.messages]
                passing = [a for a in request.legal_actions if "pass" in a.text.lower()]
                await seat.stream.decide(request, action_id=(passing[0].id if passing else first_legal(request)["action_id"]))
        finally:
            watcher.cancel()
        require(own_cards, "no DecisionRequest named the seat's own card in observation.data['card']")
        details = json_format.MessageToDict(ended.result.details)
        cards = own_cards | {str(c) for c in details.get("cards", []) if c}
        require(watcher.messages, "the spectator received nothing while the match ran")
        leaks = [(c, t) for t in seen_running for c in _mentions(t, cards & set(CARDS))]
        if leaks:
            card, where = leaks[0]
            raise Fail(f"card {card} was visible while the match ran: {short(where, 200)}")
        return (f"{match_id}: cards {sorted(cards)} absent from {len(seen_running)} spectator messages and GetMatch "
                f"replies taken while the match ran")
