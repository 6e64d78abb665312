"""`arena-agent`: play a ready-made agent on an Arena server.

Each kind of agent is a subcommand sharing the session options; a new kind is one more function in
AGENT_KINDS that adds its parser and sets `make_agent`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections import Counter

from .agent import ResultView
from .agents import RandomAgent
from .session import Session, SessionError


def _add_random(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("random", parents=[common], help="uniformly random legal actions",
                                   description="Play uniformly random legal actions.")
    parser.add_argument("--seed", type=int, help="random seed")
    parser.set_defaults(make_agent=lambda args: RandomAgent(args.seed))


def _add_mcts(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser(
        "mcts", parents=[common], help="MCTS over the local game engines (needs arena_engines)",
        description="Search every decision with MCTS (UCT, random rollouts, as OpenSpiel's MCTSBot) over the "
                    "arena's own game engines, rebuilt from each observation; needs arena_engines installed.")
    parser.add_argument("--simulations", type=int, default=1000, help="simulations per decision (default %(default)s)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant (default %(default)g)")
    parser.add_argument("--seed", type=int, help="random seed")
    parser.set_defaults(make_agent=_make_mcts)


def _make_mcts(args: argparse.Namespace):
    from .agents.mcts_agent import MCTSAgent

    try:
        return MCTSAgent(args.simulations, args.uct_c, args.seed)
    except (RuntimeError, ValueError) as e:
        raise SystemExit(f"arena-agent: {e}") from None


AGENT_KINDS = [_add_random, _add_mcts]


def _session_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default="localhost:50051", help="host:port (default %(default)s)")
    common.add_argument("--game", action="append", required=True, metavar="GAME_ID",
                        help="a game to play; repeat for several")
    common.add_argument("--preset", default="", help="parameter preset asked for every game (default: the game's)")
    common.add_argument("--key", help="API key (default: $ARENA_API_KEY)")
    common.add_argument("--name", help="agent name the key was issued for (default: the agent kind's)")
    common.add_argument("--matches", type=int, metavar="N",
                        help="stop after N matches ended (default: run until stopped)")
    common.add_argument("--concurrency", type=int, default=1, metavar="N", help="matches played at once (default 1)")
    common.add_argument("--no-ladder", action="store_true", help="only tournament matches, no ladder pairing")
    common.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="give up when the server is unreachable this long (default %(default)g)")
    common.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    common.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    common.add_argument("-v", "--verbose", action="store_true", help="log the session's progress to stderr")
    return common


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-agent", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="kind", required=True, metavar="AGENT")
    common = _session_options()
    for add in AGENT_KINDS:
        add(subparsers, common)
    args = parser.parse_args(argv)
    key = args.key or os.environ.get("ARENA_API_KEY")
    if not key:
        parser.error("an API key is needed: --key KEY or the ARENA_API_KEY environment variable")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    session = Session(args.make_agent(args), args.server, key, [(g, args.preset) for g in args.game],
                      name=args.name, max_concurrent_matches=args.concurrency, join_ladder=not args.no_ladder,
                      max_matches=args.matches, secure=args.tls, root_certificates=args.root_certificates,
                      connect_timeout=args.connect_timeout, on_result=_print_result)
    try:
        asyncio.run(session.run())
    except SessionError as e:
        print(f"arena-agent: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_summary(session.results), flush=True)
        return 130
    print(_summary(session.results), flush=True)
    return 0


def _print_result(result: ResultView) -> None:
    returns = ", ".join(f"{r:g}" for r in result.returns)
    summary = f"  {result.summary}" if result.summary else ""
    print(f"{result.match_id}  {result.game_id}  seat {result.seat}  returns [{returns}]  {result.reason}{summary}",
          flush=True)


def _summary(results: list[ResultView]) -> str:
    scored = [r for r in results if r.my_return is not None]
    line = f"{len(results)} matches finished"
    if scored:
        outcomes = Counter(_outcome(r) for r in scored)
        mean = sum(r.my_return for r in scored) / len(scored)
        line += (f", {len(scored)} scored: mean return {mean:.3f}, "
                 f"{outcomes['win']} won, {outcomes['draw']} drawn, {outcomes['loss']} lost")
    return line


def _outcome(result: ResultView) -> str:
    if len(set(result.returns)) == 1:
        return "draw"
    return "win" if result.my_return == max(result.returns) else "loss"


if __name__ == "__main__":
    sys.exit(main())
