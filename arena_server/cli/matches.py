"""`arena-server matches list | show | export`: matches on a running server, over its RPCs.

`export` writes a match as JSON Lines: first the match (game, parameters, seats, seed, result), then
one line per log entry in order (decisions, chance outcomes, messages, events, the end). A running
match shows only its public entries; everything is there once it has ended.
"""

from __future__ import annotations

import json
import sys
import time

from .common import add_client_args, positive_int, stubs

STATUSES = ("pending", "running", "finished", "void")


def add_parsers(sub) -> None:
    matches = sub.add_parser("matches", help="matches on a running server")
    m_sub = matches.add_subparsers(dest="matches_command", required=True)
    listing = m_sub.add_parser("list", help="list matches, newest first")
    add_client_args(listing)
    listing.add_argument("--tournament", default="", help="only this tournament's")
    listing.add_argument("--game", default="", help="only this game's")
    listing.add_argument("--agent", default="", help="only those this agent played")
    listing.add_argument("--status", choices=STATUSES, help="only matches in this state")
    listing.add_argument("--limit", type=positive_int, default=50, help="at most this many (default %(default)s)")
    listing.set_defaults(run=_list)

    show = m_sub.add_parser("show", help="a match: seats, result and its public events")
    add_client_args(show)
    show.add_argument("match_id")
    show.set_defaults(run=_show)

    export = m_sub.add_parser("export", help="a match's full log as JSON Lines")
    add_client_args(export)
    export.add_argument("match_id")
    export.add_argument("--output", "-o", default="-", help="file to write (default: standard output)")
    export.set_defaults(run=_export)


def _list(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    from ..convert import MATCH_STATUS

    stub, md = stubs(args)
    found, token = [], ""
    while len(found) < args.limit:
        page = stub.ListMatches(pb.ListMatchesRequest(
            tournament_id=args.tournament, game_id=args.game, agent_name=args.agent,
            status=MATCH_STATUS[args.status] if args.status else 0, page_size=min(1000, args.limit - len(found)),
            page_token=token), metadata=md)
        found += page.matches
        token = page.next_page_token
        if not token:
            break
    if not found:
        print("no matches")
        return 0
    print(f"{'match id':<18} {'status':<8} {'game':<26} {'created':<19}  players -> returns")
    for m in found:
        print(f"{m.match_id:<18} {_status(m):<8} {m.game_id:<26} {_time(m.created_at):<19}  {_players(m)}")
    return 0


def _show(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    from ..convert import from_struct

    stub, md = stubs(args)
    reply = stub.GetMatch(pb.GetMatchRequest(match_id=args.match_id), metadata=md)
    m = reply.match
    print(f"match {m.match_id}: {m.game_id} (rules {m.rules_version}), {_status(m)}"
          + (f", tournament {m.tournament_id}" if m.tournament_id else ""))
    print(f"  parameters {json.dumps(from_struct(m.parameters), sort_keys=True)}")
    print(f"  created    {_time(m.created_at)}" + (f", ended {_time(m.ended_at)}" if m.HasField("ended_at") else ""))
    print(f"  players    {_players(m)}")
    if m.HasField("result"):
        print(f"  result     {m.result.summary}")
    if m.seed:
        print(f"  seed       {m.seed}")
    for event in reply.events:
        print(f"  [{event.sequence}] {event.text}")
    return 0


def _export(args) -> int:
    from google.protobuf import json_format

    from arena.v1 import arena_service_pb2 as pb

    from ..convert import from_struct

    stub, md = stubs(args)
    reply = stub.GetMatch(pb.GetMatchRequest(match_id=args.match_id), metadata=md)
    lines = [json.dumps({"match": json_format.MessageToDict(reply.match)}, sort_keys=True)]
    lines += [json.dumps({"seq": e.sequence, "kind": e.kind, "time": e.time.ToNanoseconds() / 1e9,
                          "data": from_struct(e.data)}, sort_keys=True) for e in reply.log]
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w") as out:
                out.write(text)
        except OSError as e:
            print(f"error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
            return 2
        print(f"wrote {len(lines) - 1} log entries of {args.match_id} to {args.output}", file=sys.stderr)
    return 0


def _status(m) -> str:
    from ..convert import MATCH_STATUS_NAMES

    return MATCH_STATUS_NAMES.get(m.status, "?")


def _time(ts) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts.seconds)) if ts.seconds else "-"


def _players(m) -> str:
    names = ", ".join(p.agent_name for p in sorted(m.players, key=lambda p: p.seat))
    if m.HasField("result") and m.result.returns:
        return f"{names} -> {', '.join(f'{r:g}' for r in m.result.returns)}"
    return names
