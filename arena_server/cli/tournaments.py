"""`arena-server tournament run | list | show | follow | cancel`: tournaments on a running server,
over its admin RPCs.

Following a tournament prints its progress and, at once and whenever it changes, every agent it is
waiting for (not connected, or connected for other games only) with the time left before the
tournament's rule for absent agents applies; the server ends such a tournament by that rule, so a
follow never waits on something it cannot see.
"""

from __future__ import annotations

import json
import sys
import time

from ..referee.match import FAILURE_POLICIES
from ..tournaments.runner import ABSENT_RULES, DEFAULT_ABSENT_TIMEOUT
from .common import add_client_args, non_negative_float, non_negative_int, positive_float, positive_int, stubs
from .leaderboard import print_board

STATUS = {1: "running", 2: "finished", 3: "failed", 4: "cancelled"}


def add_parsers(sub) -> None:
    tournament = sub.add_parser("tournament", help="tournaments on a running server")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    run = t_sub.add_parser("run", help="create a tournament, follow it, print its leaderboard")
    add_client_args(run)
    run.add_argument("--game", required=True)
    run.add_argument("--agents", required=True, help="comma-separated agent names (connected agents and house "
                     "agents such as random and mcts)")
    run.add_argument("--format", choices=["round_robin", "gauntlet", "self_play"], default="round_robin",
                     help="round robin; the first agent against each of the others; or one agent in every seat "
                          "(default %(default)s)")
    run.add_argument("--preset", default="")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="game parameter override")
    run.add_argument("--games-per-pairing", type=positive_int, default=1,
                     help="matches per group in each seat rotation (default %(default)s)")
    run.add_argument("--players-per-match", type=non_negative_int, default=0,
                     help="seats per match (default 0: the game's minimum)")
    run.add_argument("--per-decision", type=positive_float, default=30.0,
                     help="seconds allowed per decision (default %(default)g)")
    run.add_argument("--max-retries", type=non_negative_int, default=2,
                     help="re-asks after an illegal or unparseable decision (default %(default)s)")
    run.add_argument("--on-failure", default="random_legal", choices=list(FAILURE_POLICIES),
                     help="after the retries or a timeout (default %(default)s)")
    run.add_argument("--max-replays", type=non_negative_int, default=3,
                     help="void matches a pairing may replay under void_and_replay (default %(default)s)")
    run.add_argument("--absent-timeout", type=positive_float, default=DEFAULT_ABSENT_TIMEOUT, metavar="SECONDS",
                     help="how long to wait for an agent that is not connected for the game (default %(default)g)")
    run.add_argument("--on-absent", choices=ABSENT_RULES, default="fail",
                     help="then: fail the tournament, or play its matches with the failure policy taking its "
                          "seats (default %(default)s)")
    run.add_argument("--seed", type=non_negative_int, default=0)
    run.add_argument("--name", default="")
    run.add_argument("--timeout", type=non_negative_float, default=0,
                     help="stop following after this many seconds; the tournament keeps running (default 0: follow "
                          "to the end, which the server guarantees)")
    run.set_defaults(run=_run)

    listing = t_sub.add_parser("list", help="list tournaments, newest first")
    add_client_args(listing)
    listing.add_argument("--status", choices=sorted(STATUS.values()), help="only tournaments in this state")
    listing.set_defaults(run=_list)

    for name, helptext, handler in (("show", "a tournament's settings, progress and the agents it waits for", _show),
                                    ("follow", "follow a tournament to its end, then print its leaderboard", _follow),
                                    ("cancel", "cancel a running tournament for good (its running matches are "
                                               "aborted; it never resumes)", _cancel)):
        command = t_sub.add_parser(name, help=helptext)
        add_client_args(command)
        command.add_argument("tournament_id")
        if name == "follow":
            command.add_argument("--timeout", type=non_negative_float, default=0,
                                 help="stop following after this many seconds (default 0: to the end)")
        command.set_defaults(run=handler)


def _run(args) -> int:
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from ..convert import FAILURE_ACTIONS, to_struct
    from ..service.arena import ABSENT_RULES as ABSENT_RULE_IDS
    from ..service.arena import FORMATS

    stub, md = stubs(args)
    parameters = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print(f"error: --param {item!r}: expected NAME=VALUE", file=sys.stderr)
            return 2
        try:
            parameters[name] = json.loads(value)
        except json.JSONDecodeError:
            parameters[name] = value
    t = pb.Tournament(
        name=args.name or f"{args.game} {args.format.replace('_', ' ')}", game_id=args.game,
        agents=[a.strip() for a in args.agents.split(",") if a.strip()], parameters=to_struct(parameters),
        format=FORMATS[args.format], games_per_pairing=args.games_per_pairing,
        players_per_match=args.players_per_match, seed=args.seed, on_absent=ABSENT_RULE_IDS[args.on_absent],
        failure_policy=match_pb2.FailurePolicy(max_retries=args.max_retries, on_failure=FAILURE_ACTIONS[args.on_failure],
                                               max_replays=args.max_replays),
    )
    t.time_control.per_decision.FromNanoseconds(int(args.per_decision * 1e9))
    t.absent_timeout.FromNanoseconds(int(args.absent_timeout * 1e9))
    created = stub.CreateTournament(pb.CreateTournamentRequest(tournament=t, preset=args.preset), metadata=md).tournament
    print(f"tournament {created.tournament_id}: {created.matches_total} matches of {created.game_id} "
          f"among {', '.join(created.agents)}", flush=True)
    return follow(stub, md, created.tournament_id, args.timeout)


def follow(stub, md, tournament_id: str, timeout: float) -> int:
    """Prints progress and waits until the tournament ends (or `timeout` seconds pass), then its
    leaderboard; 1 when it failed, was cancelled or the follow timed out."""
    from arena.v1 import arena_service_pb2 as pb

    started, last_progress, last_waiting = time.monotonic(), None, None
    while True:
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id), metadata=md).tournament
        progress = (t.matches_finished, t.matches_void)
        if progress != last_progress:
            print(f"  {t.matches_finished}/{t.matches_total} finished, {t.matches_void} void", flush=True)
            last_progress = progress
        waiting = [(w.reason, round(w.remaining.ToNanoseconds() / 1e9 / 30)) for w in t.waiting]
        if waiting != last_waiting:      # a new wait, or another 30 s gone
            for w in t.waiting:
                print(f"  waiting: {w.reason}; {_absent_rule(t)} in {w.remaining.ToNanoseconds() / 1e9:.0f} s",
                      flush=True)
            last_waiting = waiting
        if t.status != pb.TOURNAMENT_STATUS_RUNNING:
            break
        if timeout and time.monotonic() - started > timeout:
            print("error: timed out following the tournament (it keeps running on the server)", file=sys.stderr)
            return 1
        time.sleep(0.5)
    if t.status in (pb.TOURNAMENT_STATUS_FAILED, pb.TOURNAMENT_STATUS_CANCELLED):
        print(f"error: tournament {STATUS[t.status]}: {t.error}", file=sys.stderr)
        return 1
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(tournament_id=t.tournament_id), metadata=md)
    print_board(board)
    return 0


def _absent_rule(t) -> str:
    return "it fails" if t.on_absent != 2 else "the failure policy takes its seats"


def _list(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    from ..service.arena import TOURNAMENT_STATUS

    stub, md = stubs(args)
    status = TOURNAMENT_STATUS[args.status] if args.status else pb.TOURNAMENT_STATUS_UNSPECIFIED
    tournaments = stub.ListTournaments(pb.ListTournamentsRequest(status=status), metadata=md).tournaments
    if not tournaments:
        print("no tournaments")
        return 0
    print(f"{'id':<16} {'status':<10} {'game':<26} {'progress':>12}  {'created':<19}  name")
    for t in tournaments:
        created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t.created_at.seconds))
        progress = f"{t.matches_finished + t.matches_void}/{t.matches_total}"
        flag = f"  (waiting for {', '.join(w.agent_name for w in t.waiting)})" if t.waiting else ""
        print(f"{t.tournament_id:<16} {STATUS.get(t.status, '?'):<10} {t.game_id:<26} {progress:>12}  {created:<19}  "
              f"{t.name}{flag}")
    return 0


def _show(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    from ..convert import FAILURE_ACTION_NAMES, from_struct

    stub, md = stubs(args)
    t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=args.tournament_id), metadata=md).tournament
    print(f"tournament {t.tournament_id}: {t.name}")
    print(f"  status      {STATUS.get(t.status, '?')}" + (f" ({t.error})" if t.error else ""))
    print(f"  game        {t.game_id} {json.dumps(from_struct(t.parameters), sort_keys=True)}")
    print(f"  agents      {', '.join(t.agents)}" + (f"  (suite {t.suite})" if t.suite else ""))
    print(f"  matches     {t.matches_finished} finished, {t.matches_void} void, of {t.matches_total}")
    print(f"  rules       {t.time_control.per_decision.ToNanoseconds() / 1e9:g} s per decision, "
          f"{t.failure_policy.max_retries} retries, then {FAILURE_ACTION_NAMES.get(t.failure_policy.on_failure, '?')}")
    print(f"  absent      after {t.absent_timeout.ToNanoseconds() / 1e9:g} s {_absent_rule(t)}")
    for w in t.waiting:
        print(f"  waiting     {w.reason}; {_absent_rule(t)} in {w.remaining.ToNanoseconds() / 1e9:.0f} s")
    return 0


def _follow(args) -> int:
    stub, md = stubs(args)
    return follow(stub, md, args.tournament_id, args.timeout)


def _cancel(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = stubs(args)
    t = stub.CancelTournament(pb.CancelTournamentRequest(tournament_id=args.tournament_id), metadata=md).tournament
    print(f"tournament {t.tournament_id} cancelled: {t.matches_finished} matches finished, {t.matches_void} void, "
          f"of {t.matches_total}")
    return 0
