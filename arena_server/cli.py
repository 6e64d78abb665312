"""`arena-server`: serve, issue keys, run tournaments, print leaderboards.

`serve` and `keys` work on the database file directly; `tournament` and `leaderboard` talk to a
running server over its admin RPCs, so they work against a remote server too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import grpc

from .referee.match import FAILURE_POLICIES

DEFAULT_DB = "arena.db"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-server", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the server on an embedded SQLite file")
    serve.add_argument("--db", default=DEFAULT_DB, help="SQLite database file (created if missing)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=50051)
    serve.add_argument("--per-decision", type=float, default=30.0, help="seconds allowed per decision")
    serve.add_argument("--max-retries", type=int, default=2, help="re-asks after an illegal or unparseable decision")
    serve.add_argument("--on-failure", default="random_legal", choices=list(FAILURE_POLICIES))
    serve.add_argument("--house-delay", type=float, default=1.0,
                       help="seconds a lone ladder agent waits before house agents fill its match")
    serve.add_argument("--log-json", action="store_true", help="JSON log lines instead of console lines")
    serve.add_argument("--resume-grace", type=float, default=30.0, metavar="SECONDS",
                       help="how long a dropped agent's seats wait for it to resume (with its resume token, or "
                            "after a server restart with a new session) before the failure policy takes them "
                            "(default %(default)g)")
    tls = serve.add_argument_group("TLS")
    tls.add_argument("--tls-cert", metavar="PEM", help="serve over TLS with this certificate chain")
    tls.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    tls.add_argument("--tls-client-ca", metavar="PEM",
                     help="mutual TLS: require client certificates signed by these CAs (e.g. server-to-server links)")
    limits = serve.add_argument_group("limits")
    limits.add_argument("--max-message-bytes", type=int, default=4 * 1024 * 1024,
                        help="largest message received or sent; larger ones end the call with RESOURCE_EXHAUSTED "
                             "(default %(default)s)")
    limits.add_argument("--max-concurrent-per-agent", type=int, default=0, metavar="N",
                        help="matches one agent plays at once over all its sessions, whatever its Hellos ask "
                             "(default 0: no cap)")
    limits.add_argument("--rate-limit", type=float, default=500.0, metavar="PER_SECOND",
                        help="calls and agent-stream messages per second per API key; over it a call ends with "
                             "RESOURCE_EXHAUSTED and a retry-after trailer, a stream message is answered with an "
                             "in-band RATE_LIMITED error (default %(default)g; 0 turns it off)")
    limits.add_argument("--rate-burst", type=float, default=1000.0, metavar="N",
                        help="calls and messages a key may send at once after being idle (default %(default)g)")
    limits.add_argument("--max-unread-messages", type=int, default=10_000, metavar="N",
                        help="messages queued for an agent that does not read its stream before the stream is "
                             "closed with RESOURCE_EXHAUSTED; the session stays resumable (default %(default)d)")

    keys = sub.add_parser("keys", help="API keys")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="issue a key (printed once)")
    create.add_argument("--db", default=DEFAULT_DB)
    create.add_argument("--agent", help="agent the key plays as (registered if new); required for the play scope")
    create.add_argument("--scopes", default="play", help="comma-separated: play, spectate, admin")
    create.add_argument("--label", default="")

    tournament = sub.add_parser("tournament", help="tournaments on a running server")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    run = t_sub.add_parser("run", help="create a round-robin tournament, follow it, print its leaderboard")
    _add_client_args(run)
    run.add_argument("--game", required=True)
    run.add_argument("--agents", required=True, help="comma-separated agent names (house agents: random, mcts, "
                     "tit_for_tat, always_defect, bid_half_value, bid_value)")
    run.add_argument("--preset", default="")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="game parameter override")
    run.add_argument("--games-per-pairing", type=int, default=1, help="matches per group in each seat rotation")
    run.add_argument("--players-per-match", type=int, default=0)
    run.add_argument("--per-decision", type=float, default=30.0)
    run.add_argument("--max-retries", type=int, default=2)
    run.add_argument("--on-failure", default="random_legal", choices=list(FAILURE_POLICIES))
    run.add_argument("--max-replays", type=int, default=3)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--name", default="")
    run.add_argument("--timeout", type=float, default=0, help="give up following after this many seconds (0: never)")

    board = sub.add_parser("leaderboard", help="print a leaderboard from a running server (or, with --local, "
                                               "from the database file)")
    _add_client_args(board)
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
    bt.add_argument("--resamples", type=int, default=0, help="bootstrap resamples (default 1000)")
    bt.add_argument("--level", type=float, default=0.0, help="confidence level (default 0.90)")
    bt.add_argument("--seed", type=int, default=0, help="bootstrap seed (and random-order seed)")
    bt.add_argument("--anchor", default="", help="agent whose rating is fixed at --anchor-rating")
    bt.add_argument("--anchor-rating", type=float, default=0.0)
    bt.add_argument("--scale", type=float, default=0.0,
                    help="multiplier of log-strengths (e.g. 173.72 = 400/ln 10 for an Elo-like scale)")
    bt.add_argument("--alpha", type=float, default=None, help="regularisation (default 0.001)")
    bt.add_argument("--point", choices=["mle", "mean"], default=None,
                    help="rating = maximum likelihood (default) or the mean of the resamples")
    other = board.add_argument_group("trueskill, elo, nra")
    other.add_argument("--orders", type=int, default=0, help="trueskill: average over this many random orders")
    other.add_argument("--k-factor", type=float, default=0.0, help="elo: K (default 32)")
    other.add_argument("--initial-rating", type=float, default=None, help="elo: initial rating (default 1500)")
    other.add_argument("--opponent", default="", help="nra: against this agent only")
    other.add_argument("--nra-variant", choices=["sum_abs", "abs_sum"], default="sum_abs")
    out = board.add_argument_group("exports")
    out.add_argument("--csv", metavar="PATH", help="write the leaderboard as CSV")
    out.add_argument("--plot", metavar="PATH", help="write a PNG plot of ratings with intervals")
    out.add_argument("--html", metavar="PATH", help="write a static HTML report (leaderboard, pairwise win "
                     "matrix, per-game tables)")
    out.add_argument("--title", default="", help="title of the plot and report")

    games = sub.add_parser("games", help="list the games a running server offers")
    _add_client_args(games)

    suite = sub.add_parser("suite", help="run a paper's evaluation protocol (suite) for one agent")
    suite_sub = suite.add_subparsers(dest="suite_command", required=True)
    suite_list = suite_sub.add_parser("list", help="list the suites and the games each needs")
    _add_client_args(suite_list)
    suite_run = suite_sub.add_parser("run", help="run a suite for a connected agent and report it per pairing")
    _add_client_args(suite_run)
    suite_run.add_argument("suite", help="suite name, e.g. gtbench")
    suite_run.add_argument("--agent", required=True, help="the agent to evaluate (it must be connected)")
    suite_run.add_argument("--matches-per-pairing", type=int, default=0, help="override the suite's count (even)")
    suite_run.add_argument("--seed", type=int, default=0)
    suite_run.add_argument("--timeout", type=float, default=0, help="give up following after this many seconds")

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "keys":
        return _keys_create(args)
    try:
        if args.command == "tournament":
            return _tournament_run(args)
        if args.command == "suite":
            return _suite_list(args) if args.suite_command == "list" else _suite_run(args)
        if args.command == "leaderboard":
            return _leaderboard(args)
        return _games(args)
    except grpc.RpcError as e:
        plaintext = not (args.tls or args.root_certificates or args.client_cert)
        hint = (" (this client speaks plaintext: if the server uses TLS, add --tls or --root-certificates)"
                if plaintext and e.code() == grpc.StatusCode.UNAVAILABLE else "")
        print(f"error: {e.code().name}: {e.details()}{hint}", file=sys.stderr)
        return 1


def _add_client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051")
    p.add_argument("--key", default=os.environ.get("ARENA_API_KEY", ""),
                   help="API key (default: $ARENA_API_KEY, else the admin key file beside --db)")
    p.add_argument("--db", default=DEFAULT_DB, help="where to find the admin key file when --key is not given")
    p.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    p.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    p.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    p.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")


def _serve(args) -> int:
    from . import logs
    from .server import ArenaServer, ServerConfig, server_credentials

    logs.configure(json=args.log_json)
    config = ServerConfig(database=args.db, host=args.host, port=args.port, per_decision=args.per_decision,
                          max_retries=args.max_retries, on_failure=args.on_failure, house_delay=args.house_delay,
                          tls_cert=args.tls_cert, tls_key=args.tls_key, tls_client_ca=args.tls_client_ca,
                          max_message_bytes=args.max_message_bytes,
                          max_concurrent_per_agent=args.max_concurrent_per_agent, rate_limit=args.rate_limit,
                          rate_burst=args.rate_burst, resume_grace=args.resume_grace,
                          max_unread_messages=args.max_unread_messages)
    try:
        server_credentials(config)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    async def run() -> None:
        server = ArenaServer(config)
        key_file = server.ensure_admin_key()
        port = await server.start()
        if key_file:
            print(f"admin key written to {key_file}", flush=True)
        print(f"arena-server listening on {config.host}:{port} over {server.transport} (database {config.database})",
              flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    asyncio.run(run())
    return 0


def _keys_create(args) -> int:
    from . import auth
    from .store import Store

    store = Store(args.db)
    try:
        key, key_id = auth.create_key(store, agent_name=args.agent, scopes=[s.strip() for s in args.scopes.split(",")],
                                      label=args.label)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(key)
    print(f"key id {key_id}; scopes {args.scopes}" + (f"; agent {args.agent}" if args.agent else ""), file=sys.stderr)
    return 0


def _stubs(args):
    from arena.v1 import arena_service_pb2_grpc

    from .server import admin_key_path

    key = args.key
    if not key:
        path = admin_key_path(args.db)
        if not path.exists():
            raise SystemExit(f"error: no API key: pass --key, set ARENA_API_KEY, or run from beside {path}")
        key = path.read_text().strip()
    return arena_service_pb2_grpc.ArenaServiceStub(_channel(args)), [("authorization", f"Bearer {key}")]


def _channel(args) -> grpc.Channel:
    if not (args.tls or args.root_certificates or args.client_cert):
        return grpc.insecure_channel(args.server)
    if bool(args.client_cert) != bool(args.client_key):
        raise SystemExit("error: mutual TLS needs both --client-cert and --client-key")
    pem = {}
    for name, path in (("root_certificates", args.root_certificates), ("certificate_chain", args.client_cert),
                       ("private_key", args.client_key)):
        try:
            pem[name] = Path(path).read_bytes() if path else None
        except OSError as e:
            raise SystemExit(f"error: cannot read {path}: {e.strerror}") from None
    return grpc.secure_channel(args.server, grpc.ssl_channel_credentials(**pem))


def _suite_list(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = _stubs(args)
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

    stub, md = _stubs(args)
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


def _tournament_run(args) -> int:
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from .convert import FAILURE_ACTIONS, to_struct

    stub, md = _stubs(args)
    parameters = {}
    for item in args.param:
        name, _, value = item.partition("=")
        try:
            parameters[name] = json.loads(value)
        except json.JSONDecodeError:
            parameters[name] = value
    t = pb.Tournament(
        name=args.name or f"{args.game} round robin", game_id=args.game,
        agents=[a.strip() for a in args.agents.split(",") if a.strip()], parameters=to_struct(parameters),
        format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN, games_per_pairing=args.games_per_pairing,
        players_per_match=args.players_per_match, seed=args.seed,
        failure_policy=match_pb2.FailurePolicy(max_retries=args.max_retries, on_failure=FAILURE_ACTIONS[args.on_failure],
                                               max_replays=args.max_replays),
    )
    t.time_control.per_decision.FromNanoseconds(int(args.per_decision * 1e9))
    created = stub.CreateTournament(pb.CreateTournamentRequest(tournament=t, preset=args.preset), metadata=md).tournament
    print(f"tournament {created.tournament_id}: {created.matches_total} matches of {created.game_id} "
          f"among {', '.join(created.agents)}", flush=True)
    started, last = time.monotonic(), None
    while True:
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=created.tournament_id), metadata=md).tournament
        progress = (t.matches_finished, t.matches_void)
        if progress != last:
            print(f"  {t.matches_finished}/{t.matches_total} finished, {t.matches_void} void", flush=True)
            last = progress
        if t.status != pb.TOURNAMENT_STATUS_RUNNING:
            break
        if args.timeout and time.monotonic() - started > args.timeout:
            print("error: timed out following the tournament (it keeps running on the server)", file=sys.stderr)
            return 1
        time.sleep(0.5)
    if t.status == pb.TOURNAMENT_STATUS_FAILED:
        print(f"error: tournament failed: {t.error}", file=sys.stderr)
        return 1
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(tournament_id=t.tournament_id), metadata=md)
    _print_board(board)
    return 0


METHOD_CHOICES = {"trueskill": "trueskill", "bradley-terry": "bradley_terry", "elo": "elo", "nra": "nra",
                  "suite-score": "suite_score"}
SUITE_NAMES = ("gamebench", "gamabench", "gtbench", "llmarena", "magic")


def _leaderboard_request(args):
    from arena.v1 import arena_service_pb2 as pb

    from .service.arena import RATING_METHODS

    request = pb.GetLeaderboardRequest(
        game_id=args.game, tournament_id=args.tournament, suite=args.suite, preset=args.preset,
        method=RATING_METHODS[METHOD_CHOICES[args.method]] if args.method else pb.RATING_METHOD_UNSPECIFIED,
        agents=[a.strip() for a in args.agents.split(",") if a.strip()],
        weighting=pb.MATCH_WEIGHTING_PER_MATCH if args.weighting == "match" else pb.MATCH_WEIGHTING_PER_GAME,
        ties={"drop": pb.TIE_POLICY_DROP, "half": pb.TIE_POLICY_HALF}.get(args.ties, pb.TIE_POLICY_UNSPECIFIED),
        scoring=pb.OUTCOME_SCORING_RETURN_SHARE if args.scoring == "share" else pb.OUTCOME_SCORING_RANK,
        bradley_terry=pb.BradleyTerryOptions(
            resamples=args.resamples, confidence_level=args.level, seed=args.seed, anchor_agent=args.anchor,
            anchor_rating=args.anchor_rating, scale=args.scale,
            point={"mle": pb.BRADLEY_TERRY_POINT_MAXIMUM_LIKELIHOOD,
                   "mean": pb.BRADLEY_TERRY_POINT_BOOTSTRAP_MEAN}.get(args.point, pb.BRADLEY_TERRY_POINT_UNSPECIFIED)),
        trueskill=pb.TrueSkillOptions(orders=args.orders, seed=args.seed),
        elo=pb.EloOptions(k_factor=args.k_factor),
        nra=pb.NraOptions(opponent=args.opponent, variant=pb.NRA_VARIANT_ABSOLUTE_OF_SUM
                          if args.nra_variant == "abs_sum" else pb.NRA_VARIANT_SUM_OF_ABSOLUTE),
    )
    if args.alpha is not None:
        request.bradley_terry.regularization = args.alpha
    if args.initial_rating is not None:
        request.elo.initial_rating = args.initial_rating
    return request


def _leaderboard(args) -> int:
    request = _leaderboard_request(args)
    records = None
    if args.local:
        from .ratings import compute_leaderboard
        from .service.arena import leaderboard_query, leaderboard_response
        from .store import Store

        if not os.path.exists(args.db):
            print(f"error: no database file {args.db}", file=sys.stderr)
            return 2
        store = Store(args.db)
        try:
            records = list(store.finished_matches(tournament_id=args.tournament))
        finally:
            store.close()
        try:
            board = leaderboard_response(compute_leaderboard(records, leaderboard_query(request)))
        except (KeyError, LookupError, ValueError) as e:
            print(f"error: {e.args[0]}", file=sys.stderr)
            return 2
    else:
        stub, md = _stubs(args)
        board = stub.GetLeaderboard(request, metadata=md)
    _print_board(board)
    rows = _rows(board)
    if args.csv:
        from .ratings.report import write_csv

        write_csv(rows, args.csv)
        print(f"wrote {args.csv}")
    if args.plot:
        from .ratings.report import plot_ratings

        plot_ratings(rows, args.plot, title=args.title or _title(args), xlabel=_method_label(board))
        print(f"wrote {args.plot}")
    if args.html:
        from .ratings.report import html_report
        from .service.arena import leaderboard_query

        if records is None:
            records = _fetch_matches(stub, md, args.tournament)
        html_report(records, args.html, title=args.title or _title(args), query=leaderboard_query(request))
        print(f"wrote {args.html}")
    return 0


def _title(args) -> str:
    scope = args.game or (f"suite {args.suite}" if args.suite else "all games")
    return f"Leaderboard: {scope}" + (f", tournament {args.tournament}" if args.tournament else "")


def _method_label(board) -> str:
    from arena.v1 import arena_service_pb2 as pb

    return pb.RatingMethod.Name(board.method).removeprefix("RATING_METHOD_").replace("_", " ").lower()


def _rows(board):
    from .ratings import LeaderboardRow

    return [LeaderboardRow(e.agent_name, e.rating, e.lower, e.upper, e.matches, e.wins, e.draws, e.losses, e.rank,
                           dict(e.details)) for e in board.entries]


def _fetch_matches(stub, md, tournament_id: str):
    """Every finished match of the tournament (or server), oldest end first, as store records."""
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from .store import MatchRecord

    records, token = [], ""
    while True:
        page = stub.ListMatches(pb.ListMatchesRequest(tournament_id=tournament_id, page_size=1000, page_token=token,
                                                      status=match_pb2.MATCH_STATUS_FINISHED), metadata=md)
        for m in page.matches:
            ended = m.ended_at.ToNanoseconds() / 1e9
            records.append(MatchRecord(
                match_id=m.match_id, tournament_id=m.tournament_id, game_id=m.game_id, rules_version=m.rules_version,
                parameters={}, players=[{"seat": p.seat, "agent_name": p.agent_name, "team": p.team,
                                         "house_agent": p.house_agent} for p in m.players],
                seed=m.seed, time_control={}, failure_policy={}, status="finished",
                result={"reason": "normal", "returns": list(m.result.returns), "ranks": list(m.result.ranks)},
                created_at=m.created_at.ToNanoseconds() / 1e9, ended_at=ended))
        token = page.next_page_token
        if not token:
            break
    records.sort(key=lambda r: (r.ended_at, r.match_id))
    return records


METHOD_TITLES = {0: "TrueSkill", 1: "TrueSkill", 2: "Bradley–Terry", 3: "Elo", 4: "NRA", 5: "Suite-score"}


def _print_board(board) -> None:
    print(f"{METHOD_TITLES.get(board.method, 'Rating')} leaderboard ({board.matches_counted} matches)")
    if board.description:
        print(f"  {board.description}")
    print(f"{'rank':>4}  {'agent':<24} {'rating':>9} {'lower':>9} {'upper':>9} {'matches':>7} {'W-D-L':>11}")
    for e in board.entries:
        wdl = f"{e.wins}-{e.draws}-{e.losses}"
        rating = f"{e.rating:9.2f}" if e.matches else f"{'N/A':>9}"
        print(f"{e.rank:>4}  {e.agent_name:<24} {rating} {e.lower:9.2f} {e.upper:9.2f} {e.matches:7d} {wdl:>11}")


def _games(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = _stubs(args)
    for g in stub.ListGames(pb.ListGamesRequest(), metadata=md).games:
        presets = ", ".join(p.name for p in g.presets) or "-"
        print(f"{g.game_id:<28} {g.min_players}-{g.max_players} players  presets: {presets}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
