"""`arena-server suite`: a paper's evaluation protocol (suite) for one connected agent."""

from __future__ import annotations

import sys
import time

from ..tournaments.runner import ABSENT_RULES, DEFAULT_ABSENT_TIMEOUT
from .common import add_client_args, non_negative_float, non_negative_int, positive_float, stubs


def add_parsers(sub) -> None:
    suite = sub.add_parser("suite", help="run a paper's evaluation protocol (suite) for one agent")
    suite_sub = suite.add_subparsers(dest="suite_command", required=True)
    suite_list = suite_sub.add_parser("list", help="list the suites and the games each needs")
    add_client_args(suite_list)
    suite_run = suite_sub.add_parser("run", help="run a suite for a connected agent and report it per pairing")
    add_client_args(suite_run)
    suite_run.add_argument("suite", help="suite name, e.g. gtbench")
    suite_run.add_argument("--agent", required=True, help="the agent to evaluate (it must be connected)")
    suite_run.add_argument("--opponents", "--defenders", dest="opponents", default="",
                           help="comma-separated opponents, for suites that pair the agent with agents you name "
                                "(llmarena and gamebench: a pool; magic: the one defender)")
    suite_run.add_argument("--matches-per-pairing", type=non_negative_int, default=0,
                           help="override the suite's count (even)")
    suite_run.add_argument("--seed", type=non_negative_int, default=0)
    suite_run.add_argument("--max-retries", type=non_negative_int, default=None,
                           help="re-asks after an invalid answer (default: the suite's, e.g. 10 for gamabench)")
    suite_run.add_argument("--absent-timeout", type=positive_float, default=DEFAULT_ABSENT_TIMEOUT, metavar="SECONDS",
                           help="how long each tournament waits for an agent that is not connected for its game "
                                "(default %(default)g)")
    suite_run.add_argument("--on-absent", choices=ABSENT_RULES, default="fail",
                           help="then: fail the tournament, or let the failure policy take the agent's seats "
                                "(default %(default)s)")
    suite_run.add_argument("--timeout", type=non_negative_float, default=0,
                           help="stop following after this many seconds; the suite keeps running (default 0: to the "
                                "end, which the server guarantees)")
    suite_run.add_argument("--plot", metavar="PATH",
                           help="magic: write the radar plot of the seven abilities of every agent in its table (PNG)")
    suite_run.add_argument("--no-costs", action="store_true",
                           help="leave out the closing cost-and-completion table (tokens, cost and the shares of "
                                "decisions re-asked or played by the failure policy, per agent), which reads every "
                                "match's log")
    suite_list.set_defaults(run=_suite_list)
    suite_run.set_defaults(run=_suite_run)


def _suite_list(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = stubs(args)
    for suite in stub.ListSuites(pb.ListSuitesRequest(), metadata=md).suites:
        missing = f"  (this server lacks: {', '.join(suite.missing_games)})" if suite.missing_games else ""
        print(f"{suite.name}: {len(suite.games)} games, {suite.matches_per_pairing} matches per pairing{missing}")
        for g in suite.games:
            against = (f"vs {', '.join(g.opponents)}" if g.opponents else "self-play" if g.format == "self_play"
                       else "vs --opponents")
            print(f"  {g.game_id:<28} {g.preset or '-':<16} {against:<23} {g.scoring}")
    return 0


def _suite_run(args) -> int:
    """Starts the suite's tournaments, follows them, then prints the suite's report: per pairing for
    suites against opponents, the suite's own scores for self-play suites."""
    from arena.v1 import arena_service_pb2 as pb

    from ..service.arena import ABSENT_RULES as ABSENT_RULE_IDS

    if args.plot and args.suite != "magic":
        print(f"error: --plot draws MAgIC's radar; the {args.suite} suite has none", file=sys.stderr)
        return 2
    stub, md = stubs(args)
    request = pb.RunSuiteRequest(suite=args.suite, agent_name=args.agent, matches_per_pairing=args.matches_per_pairing,
                                 seed=args.seed, on_absent=ABSENT_RULE_IDS[args.on_absent],
                                 opponents=[a.strip() for a in args.opponents.split(",") if a.strip()])
    request.absent_timeout.FromNanoseconds(int(args.absent_timeout * 1e9))
    if args.max_retries is not None:
        request.max_retries = args.max_retries
    started = stub.RunSuite(request, metadata=md).tournaments
    print(f"suite {args.suite} for {args.agent}: {len(started)} tournaments, "
          f"{sum(t.matches_total for t in started)} matches scheduled", flush=True)
    deadline = time.monotonic() + args.timeout if args.timeout else None
    pending = {t.tournament_id for t in started}
    reported: dict[str, str] = {}
    failed = []
    while pending:
        for tid in sorted(pending):
            t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid), metadata=md).tournament
            waiting = "; ".join(w.reason for w in t.waiting)
            if waiting and reported.get(tid) != waiting:
                print(f"  {t.game_id}: waiting: {waiting} (the tournament gives up after "
                      f"{t.absent_timeout.ToNanoseconds() / 1e9:g} s)", flush=True)
            reported[tid] = waiting
            if t.status != pb.TOURNAMENT_STATUS_RUNNING:
                pending.discard(tid)
                if t.status != pb.TOURNAMENT_STATUS_FINISHED:
                    failed.append(t)
                    print(f"error: {t.game_id}: tournament {t.tournament_id} ended early: {t.error}", file=sys.stderr,
                          flush=True)
                print(f"  {t.game_id}: {t.matches_finished} counted, {t.matches_void} void", flush=True)
        if deadline and time.monotonic() > deadline:
            print("error: timed out following the suite (it keeps running on the server)", file=sys.stderr)
            return 1
        time.sleep(0.5)
    if not args.no_costs:
        _cost_report(stub, md, args, started)
    REPORTS.get(args.suite, _pairing_report)(stub, md, args, started)
    return 1 if failed else 0


def _cost_report(stub, md, args, started) -> None:
    """What the run cost and how clean it was, per agent, over this run's ended matches (counted and
    void): matches, decisions, tokens and cost in all, per match and per decision, and the shares of
    decisions re-asked and played by the failure policy (the completion rate, generalised)."""
    from types import SimpleNamespace

    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from ..convert import from_struct
    from ..ratings.report import agent_costs, cost_table

    ended = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_VOID)
    pairs = []
    for t in started:
        token = ""
        while True:
            page = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.tournament_id, page_size=1000,
                                                          page_token=token), metadata=md)
            for m in page.matches:
                if m.status not in ended:
                    continue
                log = stub.GetMatch(pb.GetMatchRequest(match_id=m.match_id), metadata=md).log
                players = [{"seat": p.seat, "agent_name": p.agent_name} for p in m.players]
                pairs.append((SimpleNamespace(match_id=m.match_id, players=players),
                              [{"kind": e.kind, "data": from_struct(e.data)} for e in log]))
            token = page.next_page_token
            if not token:
                break
    costs = agent_costs(pairs)
    print("Cost and completion (tokens and cost as the agents report them; re-asked: decisions that needed a "
          "re-ask; fallback: decisions the failure policy played)")
    for line in cost_table(costs, [args.agent] + sorted(set(costs) - {args.agent})):
        print("  " + line)
    print()


def _pairing_report(stub, md, args, started) -> None:
    """One row per pairing: counted and played matches, completion rate, the agent's wins-draws-losses
    and its NRA (GTBench's table)."""
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

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


def _self_play_report(stub, md, args, started) -> None:
    """The suite's own scores of this run's matches, one line per game (score ± sample std over its
    runs) and the Overall per run with its mean and std (GAMA-Bench's Table 5 row)."""
    from arena.v1 import arena_service_pb2 as pb

    from ..ratings.gamabench_scores import runs_of, summary

    per_game = {}
    for t in started:
        board = stub.GetLeaderboard(pb.GetLeaderboardRequest(
            tournament_id=t.tournament_id, suite=args.suite, method=pb.RATING_METHOD_SUITE_SCORE,
            agents=[args.agent]), metadata=md)
        row = next((e for e in board.entries if e.agent_name == args.agent), None)
        per_game[t.game_id] = runs_of(dict(row.details), t.game_id) if row else []
    table = summary(per_game)
    print(f"{'game':<28} {'runs':>4} {'score':>7} {'± std':>7}  per run")
    for t in started:
        runs = per_game[t.game_id]
        if not runs:
            print(f"{t.game_id:<28} {0:>4} {'-':>7} {'-':>7}")
            continue
        print(f"{t.game_id:<28} {len(runs):>4} {table[t.game_id]:>7.2f} {table[t.game_id + '_std']:>7.2f}  "
              + " ".join(f"{r:.2f}" for r in runs))
    if "overall" in table:
        overall = [table[f"overall_run_{i}"] for i in range(1, int(table["overall_runs"]) + 1)]
        print(f"{'Overall':<28} {len(overall):>4} {table['overall']:>7.2f} {table['overall_std']:>7.2f}  "
              + " ".join(f"{r:.2f}" for r in overall))
    else:
        print("Overall: needs at least one scored run of every game")


def _normalised_report(stub, md, args, started) -> None:
    """LLMArena's Table 1 over every agent with matches under its settings: raw and normalised score
    per environment (best = 100) and the Average."""
    from arena.v1 import arena_service_pb2 as pb

    from ..ratings.llmarena_scores import ENVIRONMENTS

    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(suite=args.suite, method=pb.RATING_METHOD_SUITE_SCORE),
                                metadata=md)
    print_normalised_table(board, ENVIRONMENTS)


def print_normalised_table(board, environments) -> None:
    """One line per agent: each environment's normalised score (raw in brackets), then the Average."""
    names = [name for _, name, *_ in environments]
    print(f"{'agent':<24} " + " ".join(f"{n:>16}" for n in names) + f" {'Average':>8}")
    for e in board.entries:
        cells = []
        for game_id, *_ in environments:
            raw, normalised = e.details.get(game_id), e.details.get(f"{game_id}_normalised")
            if raw is None:
                cells.append("-")
            else:     # no normalised score when the environment's best raw score is 0 or below
                cells.append(f"{normalised:7.2f} ({raw:6.2f})" if normalised is not None else f"- ({raw:6.2f})")
        average = f"{e.details['average']:8.2f}" if "average" in e.details else f"{'-':>8}"
        print(f"{e.agent_name:<24} " + " ".join(f"{c:>16}" for c in cells) + f" {average}")


def _magic_report(stub, md, args, started) -> None:
    """MAgIC's tables over every agent with matches in its seatings on the server: Table 1 (win rate
    and the seven abilities), the role win rates and Table 2 (side statistics)."""
    from arena.v1 import arena_service_pb2 as pb

    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(suite=args.suite, method=pb.RATING_METHOD_SUITE_SCORE),
                                metadata=md)
    print_magic_table(board)
    if args.plot:
        from ..ratings.report import plot_radar
        from .leaderboard import _rows

        plot_radar(_rows(board), args.plot, title="MAgIC abilities (x100)")
        print(f"wrote {args.plot}")


MAGIC_COLUMNS = (("win_rate", "Win Rate"), ("judgement", "Judge."), ("reasoning", "Reason."),
                 ("deception", "Decept."), ("self_awareness", "Self-aw."), ("cooperation", "Cooper."),
                 ("coordination", "Coord."), ("rationality", "Rational."))
MAGIC_ROLES = (("chameleon", "Chameleon"), ("non-chameleon", "Non-cham."), ("undercover", "Undercover"),
               ("civilian", "Civilian"), ("cost_sharing", "CostShare"), ("prisoners_dilemma", "Prisoner"),
               ("public_good", "PublicGood"))
MAGIC_SIDE = (("cost", "Cost"), ("score", "Score"), ("payback", "Payback"))


def print_magic_table(board) -> None:
    """MAgIC's Table 1 (×100; "-" where an agent lacks the games a metric needs), the role win rates with
    their game counts, and Table 2's side statistics, one line per agent."""
    def cell(details, key, width):
        return f"{details[key]:>{width}.2f}" if key in details else f"{'-':>{width}}"

    print("MAgIC abilities (Table 1, x100)")
    print(f"{'agent':<24} " + " ".join(f"{title:>9}" for _, title in MAGIC_COLUMNS))
    for e in board.entries:
        print(f"{e.agent_name:<24} " + " ".join(cell(e.details, key, 9) for key, _ in MAGIC_COLUMNS))
    print("Role win rates (x100; games)")
    print(f"{'agent':<24} " + " ".join(f"{title:>16}" for _, title in MAGIC_ROLES))
    for e in board.entries:
        cells = [f"{cell(e.details, 'wr_' + role, 7)} ({int(e.details.get('games_' + role, 0)):>3})"
                 for role, _ in MAGIC_ROLES]
        print(f"{e.agent_name:<24} " + " ".join(f"{c:>16}" for c in cells))
    print("Side statistics (Table 2)")
    print(f"{'agent':<24} " + " ".join(f"{title:>9}" for _, title in MAGIC_SIDE))
    for e in board.entries:
        print(f"{e.agent_name:<24} " + " ".join(cell(e.details, key, 9) for key, _ in MAGIC_SIDE))


def _gamebench_report(stub, md, args, started) -> None:
    """GameBench's tables over every agent with matches of its games: the average score per game and
    overall (Table 3), then the Bradley-Terry ratings of GameBench's procedure (Table 2)."""
    from arena.v1 import arena_service_pb2 as pb

    from ..ratings.suites import suite_games
    from .leaderboard import print_board

    games = suite_games(args.suite)
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(suite=args.suite, method=pb.RATING_METHOD_SUITE_SCORE),
                                metadata=md)
    print(f"{'agent':<24} " + " ".join(f"{g[:10]:>10}" for g in games) + f" {'overall':>8}")
    for e in board.entries:
        cells = [f"{e.details[g]:10.3f}" if g in e.details else f"{'-':>10}" for g in games]
        print(f"{e.agent_name:<24} " + " ".join(cells) + f" {e.rating:8.3f}")
    print_board(stub.GetLeaderboard(pb.GetLeaderboardRequest(suite=args.suite, preset="gamebench"), metadata=md))


REPORTS = {"gamabench": _self_play_report, "llmarena": _normalised_report, "magic": _magic_report,
           "gamebench": _gamebench_report}
