"""ArenaService reads: the games and their specs, a finished match with its log, match listing by pages,
and the key rules every call follows (no key -> UNAUTHENTICATED, a play key on an admin call ->
PERMISSION_DENIED)."""

from __future__ import annotations

import grpc

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import game_pb2, match_pb2

from .context import Context
from .registry import Fail, Skip, check, require
from .wire import refusal, status_of

ARENA = "arena_service.proto ArenaService"


@check("reads.list_games", f"{ARENA}.ListGames; game.proto GameSpec",
       "ListGames lists every game sorted by id, each with an id, a rules version and 1 <= min_players <= max_players")
async def list_games(ctx: Context) -> str:
    try:
        games = list((await ctx.arena.ListGames(apb.ListGamesRequest(), metadata=ctx.read, timeout=ctx.timeout)).games)
    except grpc.aio.AioRpcError as e:
        raise Fail(f"ListGames was refused: {status_of(e)}") from None
    require(games, "ListGames lists no game")
    ids = [g.game_id for g in games]
    require(ids == sorted(ids), f"the games are not sorted by id: {ids[:6]}")
    require(len(set(ids)) == len(ids), "a game is listed twice")
    for g in games:
        require(g.game_id and g.rules_version, f"a game lacks its id or rules version: {g.game_id!r}")
        require(1 <= g.min_players <= g.max_players, f"{g.game_id}: players {g.min_players}..{g.max_players}")
        require(g.dynamics != game_pb2.DYNAMICS_UNSPECIFIED, f"{g.game_id}: dynamics unspecified")
    return f"{len(games)} games, sorted, each with its spec"


@check("reads.get_match", f"{ARENA}.GetMatch; GetMatchResponse",
       "GetMatch of a finished match: status FINISHED, the seed revealed, its complete log and its public events")
async def get_match(ctx: Context) -> str:
    match = await ctx.a_finished_match("a finished match to read")
    got = await ctx.get_match(match.match_id)
    require(got.match.match_id == match.match_id, f"GetMatch returned {got.match.match_id!r}")
    require(got.match.status == match_pb2.MATCH_STATUS_FINISHED, "the finished match's status is not FINISHED")
    require(got.match.seed != 0 or match.seed == 0, "the ended match's seed is not revealed")
    require(list(got.match.result.returns) == list(match.result.returns), "GetMatch has other returns than MatchEnded")
    require(got.log, "the finished match has no log")
    require([e.sequence for e in got.log] == list(range(len(got.log))), "the log's sequences are not 0, 1, 2 …")
    require(got.events, "the finished match has no public event")
    require(got.events[0].kind == match_pb2.EVENT_KIND_MATCH_STARTED, "the first event is not MATCH_STARTED")
    return f"{match.match_id}: {len(got.log)} log entries ({got.log[0].kind} … {got.log[-1].kind}), {len(got.events)} events"


@check("reads.list_matches_paging", f"{ARENA}.ListMatches; ListMatchesRequest.page_size, page_token",
       "ListMatches pages of page_size 1 follow next_page_token to the end (empty token), newest first, no match twice")
async def list_matches_paging(ctx: Context) -> str:
    agent = "" if ctx.settings.read_only else await ctx.key_agent()     # a read-only key: every match
    pages, seen, token = 0, [], ""
    while pages < 30:
        try:
            page = await ctx.arena.ListMatches(apb.ListMatchesRequest(agent_name=agent, page_size=1, page_token=token),
                                               metadata=ctx.read, timeout=ctx.timeout)
        except grpc.aio.AioRpcError as e:
            raise Fail(f"ListMatches was refused: {status_of(e)}") from None
        pages += 1
        require(len(page.matches) <= 1, f"a page of page_size 1 holds {len(page.matches)} matches")
        seen += list(page.matches)
        token = page.next_page_token
        if not token:
            break
    if len(seen) < 2:
        raise Skip(f"{len(seen)} match(es) listed{f' for {agent!r}' if agent else ''}; paging needs two "
                   "(run the decision checks first)")
    ids = [m.match_id for m in seen]
    require(len(set(ids)) == len(ids), "a match came twice across pages")
    created = [m.created_at.ToNanoseconds() for m in seen]
    require(created == sorted(created, reverse=True), "the pages are not newest first")
    if agent:       # the agent's matches change only when the suite plays (the whole server's may change meanwhile)
        whole = await ctx.arena.ListMatches(apb.ListMatchesRequest(agent_name=agent, page_size=len(ids)),
                                            metadata=ctx.read, timeout=ctx.timeout)
        require([m.match_id for m in whole.matches] == ids, "one page of all the matches differs from the pages of one")
    return f"{len(ids)} matches{f' of {agent!r}' if agent else ''} over {pages} pages of 1, newest first" + \
        ("" if not token else " (stopped after 30 pages)")


@check("reads.no_key", "arena_service.proto: 'Every call needs an API key'",
       "ListGames without an API key -> UNAUTHENTICATED")
async def no_key(ctx: Context) -> str:
    status = await refusal(ctx.arena.ListGames(apb.ListGamesRequest(), timeout=ctx.timeout))
    require(status is not None, "ListGames without a key was answered")
    require(status.code == grpc.StatusCode.UNAUTHENTICATED, f"refused with {status}, expected UNAUTHENTICATED")
    return f"UNAUTHENTICATED: {status.details[:80]}"


@check("reads.admin_scope", "arena_service.proto: 'creating agents, keys and tournaments needs admin'; Scope",
       "CreateApiKey with a play key -> PERMISSION_DENIED")
async def admin_scope(ctx: Context) -> str:
    status = await refusal(ctx.arena.CreateApiKey(apb.CreateApiKeyRequest(scopes=[apb.SCOPE_SPECTATE]),
                                                  metadata=ctx.play, timeout=ctx.timeout))
    require(status is not None, "a play key was given a new API key")
    require(status.code == grpc.StatusCode.PERMISSION_DENIED, f"refused with {status}, expected PERMISSION_DENIED")
    return f"PERMISSION_DENIED: {status.details[:80]}"
