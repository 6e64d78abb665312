"""`arena-server suite`: a paper's evaluation protocol (suite) for one connected agent."""

from __future__ import annotations

import sys
import time

from .common import add_client_args, stubs


def add_parsers(sub) -> None:
    suite = sub.add_parser("suite", help="run a paper's evaluation protocol (suite) for one agent")
    suite_sub = suite.add_subparsers(dest="suite_command", required=True)
    suite_list = suite_sub.add_parser("list", help="list the suites and the games each needs")
    add_client_args(suite_list)
    suite_run = suite_sub.add_parser("run", help="run a suite for a connected agent and report it per pairing")
    add_client_args(suite_run)
    suite_run.add_argument("suite", help="suite name, e.g. gtbench")
    suite_run.add_argument("--agent", required=True, help="the agent to evaluate (it must be connected)")
    suite_run.add_argument("--matches-per-pairing", type=int, default=0, help="override the suite's count (even)")
    suite_run.add_argument("--seed", type=int, default=0)
    suite_run.add_argument("--timeout", type=float, default=0, help="give up following after this many seconds")
    suite_list.set_defaults(run=_suite_list)
    suite_run.set_defaults(run=_suite_run)


def _suite_list(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = stubs(args)
    for suite in stub.ListSuites(pb.ListSuitesRequest(), metadata=md).suites:
        missing = f"  (this server lacks: {', '.join(suite.missing_games)})" if suite.missing_games else ""
        print(f"{suite.name}: {len(suite.games)} games, {suite.matches_per_pairing} matches per pairing{missing}")
        for g in suite.games:
            print(f"  {g.game_id:<28} {g.preset or '-':<16} vs {', '.join(g.opponents):<20} {g.scoring}")
    return 0


def _suite_run(args) -> int:
    """Starts the suite's tournaments, follows them, then prints one row per pairing: counted and
    played matches, completion rate, the agent's wins-draws-losses and its NRA."""
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    stub, md = stubs(args)
    started = stub.RunSuite(pb.RunSuiteRequest(suite=args.suite, agent_name=args.agent,
                                               matches_per_pairing=args.matches_per_pairing, seed=args.seed),
                            metadata=md).tournaments
    print(f"suite {args.suite} for {args.agent}: {len(started)} tournaments, "
          f"{sum(t.matches_total for t in started)} matches scheduled", flush=True)
    deadline = time.monotonic() + args.timeout if args.timeout else None
    pending = {t.tournament_id for t in started}
    while pending:
        for tid in sorted(pending):
            t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid), metadata=md).tournament
            if t.status != pb.TOURNAMENT_STATUS_RUNNING:
                pending.discard(tid)
                print(f"  {t.game_id}: {t.matches_finished} counted, {t.matches_void} void", flush=True)
        if deadline and time.monotonic() > deadline:
            print("error: timed out following the suite (it keeps running on the server)", file=sys.stderr)
            return 1
        time.sleep(0.5)
    print(f"{'game':<28} {'opponent':<14} {'counted':>7} {'played':>6} {'completion':>10} {'W-D-L':>9} {'NRA':>7}")
    for t in started:
        matches = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.tournament_id, page_size=1000),
                                   metadata=md).matches
        for opponent in t.agents[1:]:
            pairing = [m for m in matches if opponent in {p.agent_name for p in m.players}]
            counted = [m for m in pairing if m.status == match_pb2.MATCH_STATUS_FINISHED]
            wins = draws = losses = 0
            for m in counted:
                seat = next(p.seat for p in m.players if p.agent_name == args.agent)
                best = min(m.result.ranks)
                if m.result.ranks[seat] != best:
                    losses += 1
                elif list(m.result.ranks).count(best) > 1:
                    draws += 1
                else:
                    wins += 1
            board = stub.GetLeaderboard(pb.GetLeaderboardRequest(
                tournament_id=t.tournament_id, method=pb.RATING_METHOD_NRA, agents=[args.agent, opponent],
                nra=pb.NraOptions(opponent=opponent)), metadata=md)
            nra = next((e.rating for e in board.entries if e.agent_name == args.agent), float("nan"))
            completion = len(counted) / len(pairing) if pairing else float("nan")
            print(f"{t.game_id:<28} {opponent:<14} {len(counted):>7} {len(pairing):>6} {completion:>10.0%} "
                  f"{f'{wins}-{draws}-{losses}':>9} {nra:>7.3f}")
    return 0
