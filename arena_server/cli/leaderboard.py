"""`arena-server leaderboard`: ratings from a running server (or the database file), with CSV, PNG and
HTML exports.

One snapshot per command: the console table, the CSV, the plot and the HTML report all come from
one leaderboard. Without --html (and without --local) that is the server's GetLeaderboard answer.
With --html the report needs the match records too, so the command fetches them once (ListMatches)
and computes the leaderboard from those same records with the server's code; with --local it reads
them once from the database file."""

from __future__ import annotations

import os
import sys

from .common import add_client_args, stubs


def add_parsers(sub) -> None:
    board = sub.add_parser("leaderboard", help="print a leaderboard from a running server (or, with --local, "
                                               "from the database file)")
    add_client_args(board)
    board.add_argument("--local", action="store_true",
                       help="compute from the database file --db directly, without a server")
    board.add_argument("--game", default="", help="only this game (default: all games pooled)")
    board.add_argument("--tournament", default="", help="only this tournament")
    board.add_argument("--suite", default="", help="only this suite's games: " + ", ".join(SUITE_NAMES))
    board.add_argument("--method", choices=sorted(METHOD_CHOICES), default=None,
                       help="rating method (default: the preset's, else trueskill)")
    board.add_argument("--preset", default="", help="a benchmark's procedure: gamebench, gamebench_code "
                       "(exact seeded replication of the paper's Table 2), llmarena, gtbench")
    board.add_argument("--agents", default="", help="comma-separated agent pool (default: everyone)")
    board.add_argument("--weighting", choices=["game", "match"], default="game",
                       help="pooled games: each game counts equally (default) or each match does")
    board.add_argument("--ties", choices=["drop", "half"], default=None,
                       help="ties in paired comparisons (default: bradley-terry drops, elo counts half)")
    board.add_argument("--scoring", choices=["rank", "share"], default="rank",
                       help="a match's outcome: by rank, or by share of non-negative returns")
    bt = board.add_argument_group("bradley-terry")
    bt.add_argument("--resamples", type=int, default=None,
                    help="bootstrap resamples of bradley-terry and elo (default 1000; elo: 0 = no interval)")
    bt.add_argument("--level", type=float, default=0.0,
                    help="confidence level of the interval (default: bradley-terry 0.90, elo 0.95)")
    bt.add_argument("--seed", type=int, default=0, help="bootstrap seed (and random-order seed)")
    bt.add_argument("--anchor", default="", help="agent whose rating is fixed at --anchor-rating")
    bt.add_argument("--anchor-rating", type=float, default=0.0)
    bt.add_argument("--scale", type=float, default=0.0,
                    help="multiplier of log-strengths (e.g. 173.72 = 400/ln 10 for an Elo-like scale)")
    bt.add_argument("--prior", type=float, default=None,
                    help="pseudo-wins and as many pseudo-losses of every agent against a reference agent "
                         "(default 1; 0 = none, maximum likelihood)")
    bt.add_argument("--alpha", type=float, default=None,
                    help="ILSR regularisation (default 0 with a prior, 0.001 without)")
    bt.add_argument("--point", choices=["mle", "mean"], default=None,
                    help="rating = the full-data fit (default: the posterior mode; without a prior the maximum "
                         "likelihood) or the mean of the resamples")
    other = board.add_argument_group("trueskill, elo, nra")
    other.add_argument("--orders", type=int, default=0, help="trueskill: average over this many random orders")
    other.add_argument("--k-factor", type=float, default=0.0, help="elo: K (default 32)")
    other.add_argument("--initial-rating", type=float, default=None, help="elo: initial rating (default 1500)")
    other.add_argument("--opponent", default="", help="nra: against this agent only")
    other.add_argument("--nra-variant", choices=["sum_abs", "abs_sum"], default="sum_abs")
    out = board.add_argument_group("exports")
    out.add_argument("--csv", metavar="PATH", help="write the leaderboard as CSV")
    out.add_argument("--plot", metavar="PATH", help="write a PNG plot of ratings with intervals (for "
                                                  "--suite magic: the radar of its seven abilities)")
    out.add_argument("--html", metavar="PATH", help="write a static HTML report (leaderboard, pairwise win "
                     "matrix, per-game tables)")
    out.add_argument("--title", default="", help="title of the plot and report")
    costs = out.add_mutually_exclusive_group()
    costs.add_argument("--costs", dest="costs", action="store_true", default=None,
                       help="add the cost-and-completion table per agent (tokens and cost per match and per "
                            "decision, the shares of decisions re-asked and played by the failure policy) to the "
                            "console, CSV and HTML; it reads every match's log (over RPC one GetMatch per match). "
                            "Default: with --local only")
    costs.add_argument("--no-costs", dest="costs", action="store_false", help="leave the cost table out")
    board.set_defaults(run=_leaderboard)


METHOD_CHOICES = {"trueskill": "trueskill", "bradley-terry": "bradley_terry", "elo": "elo", "nra": "nra",
                  "suite-score": "suite_score"}
SUITE_NAMES = ("gamebench", "gamabench", "gtbench", "llmarena", "magic")


def _leaderboard_request(args):
    from arena.v1 import arena_service_pb2 as pb

    from ..service.arena import RATING_METHODS

    request = pb.GetLeaderboardRequest(
        game_id=args.game, tournament_id=args.tournament, suite=args.suite, preset=args.preset,
        method=RATING_METHODS[METHOD_CHOICES[args.method]] if args.method else pb.RATING_METHOD_UNSPECIFIED,
        agents=[a.strip() for a in args.agents.split(",") if a.strip()],
        weighting=pb.MATCH_WEIGHTING_PER_MATCH if args.weighting == "match" else pb.MATCH_WEIGHTING_PER_GAME,
        ties={"drop": pb.TIE_POLICY_DROP, "half": pb.TIE_POLICY_HALF}.get(args.ties, pb.TIE_POLICY_UNSPECIFIED),
        scoring=pb.OUTCOME_SCORING_RETURN_SHARE if args.scoring == "share" else pb.OUTCOME_SCORING_RANK,
        bradley_terry=pb.BradleyTerryOptions(
            resamples=args.resamples or 0, confidence_level=args.level, seed=args.seed, anchor_agent=args.anchor,
            anchor_rating=args.anchor_rating, scale=args.scale,
            point={"mle": pb.BRADLEY_TERRY_POINT_MAXIMUM_LIKELIHOOD,
                   "mean": pb.BRADLEY_TERRY_POINT_BOOTSTRAP_MEAN}.get(args.point, pb.BRADLEY_TERRY_POINT_UNSPECIFIED)),
        trueskill=pb.TrueSkillOptions(orders=args.orders, seed=args.seed),
        elo=pb.EloOptions(k_factor=args.k_factor, confidence_level=args.level, seed=args.seed),
        nra=pb.NraOptions(opponent=args.opponent, variant=pb.NRA_VARIANT_ABSOLUTE_OF_SUM
                          if args.nra_variant == "abs_sum" else pb.NRA_VARIANT_SUM_OF_ABSOLUTE),
    )
    if args.alpha is not None:
        request.bradley_terry.regularization = args.alpha
    if args.prior is not None:
        request.bradley_terry.prior = args.prior
    if args.resamples is not None:
        request.elo.resamples = args.resamples
    if args.initial_rating is not None:
        request.elo.initial_rating = args.initial_rating
    return request


def _leaderboard(args) -> int:
    request = _leaderboard_request(args)
    records = logs = None
    selected = []       # the selection's match records, whose logs give the costs
    if args.local:
        from ..store import Store

        if not os.path.exists(args.db):
            print(f"error: no database file {args.db}", file=sys.stderr)
            return 2
        store = Store(args.db)
        try:
            records = list(store.finished_matches(tournament_id=args.tournament))
            if args.costs is not False:
                selected = _selected(records, request)
                logs = [store.read_log(r.match_id) for r in selected]
        finally:
            store.close()
    else:
        stub, md = stubs(args)
        if args.html or args.costs:     # the records: fetched once, everything computed from them
            records = _fetch_matches(stub, md, args.tournament)
            if args.costs:
                selected = _selected(records, request)
                logs = _fetch_logs(stub, md, selected)
        if not args.html:      # the ratings stay the server's own answer
            records = None
    if records is not None:
        from ..ratings import compute_leaderboard
        from ..service.arena import leaderboard_query, leaderboard_response

        try:
            computed = compute_leaderboard(records, leaderboard_query(request))
        except (KeyError, LookupError, ValueError) as e:
            print(f"error: {e.args[0]}", file=sys.stderr)
            return 2
        board = leaderboard_response(computed)
    else:
        computed, board = None, stub.GetLeaderboard(request, metadata=md)
    print_board(board)
    if board.method == SUITE_SCORE_METHOD and args.suite in SUITE_TABLES:
        SUITE_TABLES[args.suite](board)
    costs = None
    if logs is not None:
        from ..ratings.report import agent_costs, cost_table

        agents = [e.agent_name for e in board.entries]
        costs = {name: cost for name, cost in agent_costs(zip(selected, logs)).items() if name in agents}
        print("Cost and completion")
        for line in cost_table(costs, agents):
            print("  " + line)
    rows = _rows(board)
    if args.csv:
        from ..ratings.report import write_csv

        write_csv(rows, args.csv, has_interval=board.has_interval, costs=costs)
        print(f"wrote {args.csv}")
    if args.plot:
        from ..ratings.report import has_abilities, plot_radar, plot_ratings

        if has_abilities(rows):       # MAgIC's table: its plot is the radar of the seven abilities
            plot_radar(rows, args.plot, title=args.title or _title(args))
        else:
            plot_ratings(rows, args.plot, title=args.title or _title(args), xlabel=_method_label(board),
                         has_interval=board.has_interval)
        print(f"wrote {args.plot}")
    if args.html:
        from ..ratings.report import html_report
        from ..service.arena import leaderboard_query

        html_report(records, args.html, title=args.title or _title(args), query=leaderboard_query(request),
                    board=computed, costs=costs)
        print(f"wrote {args.html}")
    return 0


def _selected(records, request):
    """The records of the leaderboard's selection (its game or suite; the agent pool is applied to
    the table's rows)."""
    from ..ratings.leaderboard import select
    from ..service.arena import leaderboard_query

    try:
        return select(records, leaderboard_query(request).resolved())
    except (KeyError, LookupError, ValueError):
        return []       # the leaderboard itself reports the bad query


def _fetch_logs(stub, md, records) -> list:
    """Each record's whole log (GetMatch), as lists of dicts with "kind" and "data"."""
    from arena.v1 import arena_service_pb2 as pb

    from ..convert import from_struct

    return [[{"kind": e.kind, "data": from_struct(e.data)}
             for e in stub.GetMatch(pb.GetMatchRequest(match_id=r.match_id), metadata=md).log] for r in records]


def _title(args) -> str:
    scope = args.game or (f"suite {args.suite}" if args.suite else "all games")
    return f"Leaderboard: {scope}" + (f", tournament {args.tournament}" if args.tournament else "")


def _method_label(board) -> str:
    from arena.v1 import arena_service_pb2 as pb

    return pb.RatingMethod.Name(board.method).removeprefix("RATING_METHOD_").replace("_", " ").lower()


def _rows(board):
    from ..ratings import LeaderboardRow

    return [LeaderboardRow(e.agent_name, e.rating, e.lower, e.upper, e.matches, e.wins, e.draws, e.losses, e.rank,
                           dict(e.details), e.provisional) for e in board.entries]


def _fetch_matches(stub, md, tournament_id: str):
    """Every finished match of the tournament (or server), oldest end first, as store records."""
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from ..convert import END_REASONS, from_struct, probes_from_result
    from ..store import MatchRecord

    reasons = {value: name for name, value in END_REASONS.items()}
    records, token = [], ""
    while True:
        page = stub.ListMatches(pb.ListMatchesRequest(tournament_id=tournament_id, page_size=1000, page_token=token,
                                                      status=match_pb2.MATCH_STATUS_FINISHED), metadata=md)
        for m in page.matches:
            ended = m.ended_at.ToNanoseconds() / 1e9
            records.append(MatchRecord(
                match_id=m.match_id, tournament_id=m.tournament_id, game_id=m.game_id, rules_version=m.rules_version,
                parameters=from_struct(m.parameters),
                players=[{"seat": p.seat, "agent_name": p.agent_name, "team": p.team, "house_agent": p.house_agent}
                         for p in m.players],
                seed=m.seed, time_control={}, failure_policy={}, status="finished",
                result={"reason": reasons.get(m.result.reason, "normal"), "returns": list(m.result.returns),
                        "ranks": list(m.result.ranks),
                        "details": from_struct(m.result.details), "probes": probes_from_result(m.result)},
                created_at=m.created_at.ToNanoseconds() / 1e9, ended_at=ended))
        token = page.next_page_token
        if not token:
            break
    records.sort(key=lambda r: (r.ended_at, r.match_id))
    return records


METHOD_TITLES = {0: "TrueSkill", 1: "TrueSkill", 2: "Bradley–Terry", 3: "Elo", 4: "NRA", 5: "Suite-score"}


def _gamabench_table(board) -> None:
    """GAMA-Bench's table: each game's score ± std over runs and the Overall, per agent."""
    from ..ratings.gamabench_scores import GAMES

    print(f"{'agent':<24} " + " ".join(f"{g[:14]:>14}" for g in GAMES) + f" {'Overall':>14}")
    for e in board.entries:
        cells = [f"{e.details[g]:6.2f}±{e.details[g + '_std']:<6.2f}" if g in e.details else "-" for g in GAMES]
        overall = f"{e.details['overall']:6.2f}±{e.details['overall_std']:<6.2f}" if "overall" in e.details else "-"
        print(f"{e.agent_name:<24} " + " ".join(f"{c:>14}" for c in cells) + f" {overall:>14}")


def _llmarena_table(board) -> None:
    from ..ratings.llmarena_scores import ENVIRONMENTS
    from .suites import print_normalised_table

    print_normalised_table(board, ENVIRONMENTS)


def _magic_table(board) -> None:
    from .suites import print_magic_table

    print_magic_table(board)


# The per-game tables of suites whose own score has one (`--method suite-score --suite NAME`).
SUITE_TABLES = {"gamabench": _gamabench_table, "llmarena": _llmarena_table, "magic": _magic_table}
SUITE_SCORE_METHOD = 5      # arena.v1.RATING_METHOD_SUITE_SCORE (the stubs load only when a command runs)


def print_board(board) -> None:
    """The table: rank, agent, rating with its matches beside it ("?" marks a provisional rating),
    the interval columns only when the method has an interval, W-D-L."""
    print(f"{METHOD_TITLES.get(board.method, 'Rating')} leaderboard ({board.matches_counted} matches)")
    if board.description:
        print(f"  {board.description}")
    interval = f" {'lower':>9} {'upper':>9}" if board.has_interval else ""
    print(f"{'rank':>4}  {'agent':<24} {'rating':>9}  {'matches':>7}{interval} {'W-D-L':>11}")
    for e in board.entries:
        wdl = f"{e.wins}-{e.draws}-{e.losses}"
        rating = f"{e.rating:9.2f}" if e.matches else f"{'N/A':>9}"
        mark = "?" if e.provisional else " "
        bounds = f" {e.lower:9.2f} {e.upper:9.2f}" if board.has_interval else ""
        print(f"{e.rank:>4}  {e.agent_name:<24} {rating}{mark} {e.matches:7d}{bounds} {wdl:>11}")
    if any(e.provisional for e in board.entries):
        print(f"  ? provisional: fewer than {board.provisional_matches or 10} matches in this selection")
