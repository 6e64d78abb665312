"""`arena-agent`: play a ready-made agent on an Arena server.

Each kind of agent is a subcommand sharing the session options; a new kind is one more function in
AGENT_KINDS that adds its parser and sets `make_agent`.

It plays as the API key's agent unless --name says otherwise, and every game the kind can play
that the server offers unless --game names some.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections import Counter

import grpc

from .agent import ResultView, WelcomeView
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


def _add_human(subparsers, common: argparse.ArgumentParser) -> None:
    subparsers.add_parser(
        "human", parents=[common], help="play yourself at this terminal",
        description="Play yourself: each decision shows your view and a numbered menu; type a number or an "
                    "action's text. With --concurrency N, questions from N matches take turns. Ctrl-D or Ctrl-C "
                    "leaves.").set_defaults(make_agent=_make_human, play=_play_human)


def _make_human(args: argparse.Namespace):
    from .agents.human_agent import HumanAgent

    return HumanAgent()


class _LeftTheArena(Exception):
    """The player ended the input (Ctrl-D): the run ends as Ctrl-C ends it."""


async def _play_human(session: Session) -> list[ResultView]:
    results = await session.agent.play(session)
    if session.agent.input_ended:
        raise _LeftTheArena
    return results


def _add_llm(subparsers, common: argparse.ArgumentParser) -> None:
    from .agents.llm_agent import DEFAULT_MAX_CONCURRENCY, HTTP_CLIENTS, REASONING_MODES
    from .prompts import AUTO, STYLES

    parser = subparsers.add_parser(
        "llm", parents=[common], help="a language model over an OpenAI-compatible API (needs openai)",
        description="Ask a language model for every decision through any OpenAI-compatible chat endpoint, hosted or "
                    "local, with prompts in the style of a benchmark suite; needs the openai package "
                    "(pip install 'arena[llm]').")
    parser.add_argument("--model", required=True, help="model name the endpoint serves")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"),
                        help="endpoint, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI's)")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                        help="environment variable holding the endpoint's key (default %(default)s)")
    parser.add_argument("--style", default=AUTO, choices=[AUTO, *STYLES],
                        help="prompt style (default %(default)s: the --preset's suite where it covers the game, "
                             "else the only suite that played the game (gamebench: only by its presets), else "
                             "generic)")
    parser.add_argument("--reasoning", default="plain", choices=REASONING_MODES,
                        help="answer only, think step by step first, or a majority vote over --samples "
                             "step-by-step replies (default %(default)s)")
    parser.add_argument("--samples", type=int, help="replies per decision for self-consistency (default 5)")
    parser.add_argument("--temperature", type=float,
                        help="sampling temperature (default: the suite's, gtbench 0.2, llmarena 0, gamabench 1; "
                             "generic and gamebench: the endpoint's)")
    parser.add_argument("--max-tokens", type=int, help="reply length limit (default: gtbench and gamabench 1024)")
    parser.add_argument("--seed", type=int, help="sampling seed sent to the endpoint")
    parser.add_argument("--max-reasks", type=int, default=2, metavar="N",
                        help="re-ask the model with feedback after an unreadable or illegal answer, N times "
                             "(default %(default)s)")
    parser.add_argument("--max-attempts", type=int, default=None, metavar="N",
                        help="tries per request on rate limits, server errors and timeouts (default: as many as the "
                             "decision's deadline allows)")
    parser.add_argument("--retry-delay", type=float, default=1.0, metavar="SECONDS",
                        help="first back-off delay, doubled on each retry, unless the endpoint sends Retry-After "
                             "(default %(default)g)")
    parser.add_argument("--request-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="limit per request, within the decision's own deadline (default %(default)g)")
    parser.add_argument("--max-concurrency", type=int, default=None, metavar="N",
                        help="requests to the model endpoint in flight at most (more wait their turn), and the size "
                             "of the connection pool (default: --concurrency x the samples per decision, at least "
                             f"{DEFAULT_MAX_CONCURRENCY})")
    parser.add_argument("--http-client", choices=HTTP_CLIENTS, default="auto",
                        help="the openai package's transport: aiohttp (openai's aiohttp extra; less CPU per request), "
                             "httpx, or auto: aiohttp where it is installed, else httpx (default %(default)s)")
    parser.add_argument("--prices", metavar="JSON", default=os.environ.get("ARENA_LLM_PRICES"),
                        help="price table for the cost logged with each decision: a JSON file mapping model names "
                             '(or their prefixes) to US dollars per million tokens, {"MODEL": {"input": 2.5, '
                             '"cached_input": 1.25, "output": 10}} (default: $ARENA_LLM_PRICES)')
    parser.add_argument("--price-per-1k-input", type=float, default=0.0, metavar="USD",
                        help="price of 1000 prompt tokens, for the cost logged with each decision (overrides the "
                             "table's input price)")
    parser.add_argument("--price-per-1k-output", type=float, default=0.0, metavar="USD",
                        help="price of 1000 completion tokens (overrides the table's output price)")
    parser.add_argument("--no-log-prompts", action="store_true",
                        help="keep the prompts out of the decision metadata logged with the match")
    parser.add_argument("--vision", action="store_true",
                        help="the model reads images: ask the server for pictures of the view (Hive's board) and "
                             "send them with the prompt")
    parser.add_argument("--no-probes", action="store_true",
                        help="leave the metric questions some games ask during a match (MAgIC's chameleon and "
                             "undercover) unanswered: the agent does not offer to answer them, so none are asked "
                             "(the default when none of the --game given asks them)")
    parser.add_argument("--pgm", action="store_true",
                        help="MAgIC's PGM-aware agent in its games (chameleon, undercover, cost_sharing, "
                             "iterated_prisoners_dilemma, public_goods): before deciding, the model writes a private "
                             "analysis of what each player believes, which goes into the decision prompt and the "
                             "decision's metadata; other games are played as without it")
    # Each game costs model calls: the games are named, never every game the server offers.
    parser.set_defaults(make_agent=_make_llm, play=_play_llm, games_required=True)


def _make_llm(args: argparse.Namespace):
    from .agents.llm_agent import DEFAULT_MAX_CONCURRENCY, LLMAgent
    from .prompts import probe as probe_prompts

    key = os.environ.get(args.api_key_env, "")
    if not key and not args.base_url:
        raise SystemExit(f"arena-agent: set ${args.api_key_env} to the endpoint's key (or name another variable "
                         "with --api-key-env)")
    samples = (args.samples or 5) if args.reasoning == "self-consistency" else 1
    # A match may ask several seats of the agent at once (self-play, simultaneous moves): by default the
    # cap leaves room for them.
    max_concurrency = args.max_concurrency or max(DEFAULT_MAX_CONCURRENCY, args.concurrency * samples)
    try:
        return LLMAgent(
            args.model, base_url=args.base_url, api_key=key or "none", style=args.style, preset=args.preset,
            reasoning=args.reasoning, samples=args.samples, temperature=args.temperature, max_tokens=args.max_tokens,
            seed=args.seed, max_reasks=args.max_reasks, max_attempts=args.max_attempts, retry_delay=args.retry_delay,
            request_timeout=args.request_timeout, max_concurrency=max_concurrency, http_client=args.http_client,
            prices=args.prices, price_per_1k_input=args.price_per_1k_input,
            price_per_1k_output=args.price_per_1k_output, log_prompts=not args.no_log_prompts, vision=args.vision,
            probes=not args.no_probes and (args.game is None or not probe_prompts.GAMES.isdisjoint(args.game)),
            pgm=args.pgm)
    except ValueError as e:
        raise SystemExit(f"arena-agent: {e}") from None


async def _play_llm(session: Session) -> list[ResultView]:
    """Checks the model endpoint before connecting and stops when it fails for good."""
    from .agents.llm_agent import ModelUnavailable

    try:
        return await session.agent.play(session)
    except ModelUnavailable as e:
        raise SessionError(str(e)) from None


AGENT_KINDS = [_add_random, _add_mcts, _add_human, _add_llm]


def _session_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default="localhost:50051",
                        help="host:port, or several comma-separated (servers sharing one database: the agent moves "
                             "to the next when the one it is on cannot be reached) (default %(default)s)")
    common.add_argument("--game", action="append", metavar="GAME_ID",
                        help="a game to play; repeat for several (default: every game the server offers that "
                             "this kind of agent can play; llm: required)")
    common.add_argument("--preset", default="",
                        help="parameter preset asked for every game (default: the game's); without --game, only "
                             "the games that have this preset are played")
    common.add_argument("--key", help="API key (default: $ARENA_API_KEY)")
    common.add_argument("--name", default="",
                        help="agent name the key was issued for (default: the key's agent, which the server knows)")
    common.add_argument("--matches", type=int, metavar="N",
                        help="stop after N matches ended (default: run until stopped)")
    common.add_argument("--concurrency", type=int, default=1, metavar="N", help="matches played at once (default 1)")
    common.add_argument("--no-ladder", action="store_true", help="only tournament matches, no ladder pairing")
    common.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="give up when the server is unreachable this long (default %(default)g)")
    common.add_argument("--tls", action="store_true", help="connect over TLS with the system's root certificates")
    common.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    common.add_argument("--client-cert", metavar="PEM", help="mutual TLS: present this certificate chain")
    common.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")
    common.add_argument("--max-reconnect-attempts", type=int, default=10, metavar="N",
                        help="after a dropped stream, reconnect (resuming the session) up to N failed attempts in a "
                             "row; 0 ends the session instead (default %(default)s)")
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
    if args.game is None and getattr(args, "games_required", False):
        parser.error(f"arena-agent {args.kind} needs the games to play: --game GAME_ID (repeat for several)")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    session = Session(args.make_agent(args), args.server, key, args.game, preset=args.preset,
                      name=args.name, max_concurrent_matches=args.concurrency, join_ladder=not args.no_ladder,
                      max_matches=args.matches, secure=args.tls, root_certificates=args.root_certificates,
                      client_certificate=args.client_cert, client_key=args.client_key,
                      connect_timeout=args.connect_timeout, on_result=_print_result,
                      on_welcome=lambda welcome: _print_connected(session, welcome),
                      reconnect=args.max_reconnect_attempts > 0, max_reconnect_attempts=args.max_reconnect_attempts)
    play = getattr(args, "play", Session.run)      # a kind may supervise its session (llm: its model endpoint)
    try:
        asyncio.run(play(session))
    except SessionError as e:
        hint = ("" if session.secure or e.code != grpc.StatusCode.UNAVAILABLE
                else " (this client speaks plaintext: if the server uses TLS, add --tls or --root-certificates)")
        print(f"arena-agent: {e}{hint}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, _LeftTheArena):
        print(_summary(session.results), flush=True)
        return 130
    print(_summary(session.results), flush=True)
    return 0


def _print_connected(session: Session, welcome: WelcomeView) -> None:
    if session.reconnects:
        print(f"reconnected to {session.server} as {welcome.agent_name} (session {welcome.session_id})", flush=True)
        return
    games = ", ".join(welcome.accepted_games)
    print(f"connected to {session.server} as {welcome.agent_name}, playing {games}", flush=True)


def _print_result(result: ResultView) -> None:
    returns = ", ".join(f"{r:g}" for r in result.returns)
    summary = f"  {result.summary}" if result.summary else ""
    against = f" against {_names(result.opponents)}" if result.opponents else ""
    print(f"{result.match_id}  {result.game_id}  seat {result.seat}{against}  returns [{returns}]  "
          f"{result.reason}{summary}", flush=True)


def _names(names: list[str]) -> str:
    """Names in order of first appearance, a repeated one counted: "random ×9, mcts"."""
    counts = Counter(names)
    return ", ".join(name if counts[name] == 1 else f"{name} ×{counts[name]}" for name in counts)


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
