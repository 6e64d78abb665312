"""GAMA-Bench's scores (reference gamabench.md §4): each run of a game gets a 0-100 score, a game's
score is the mean (± sample standard deviation) over runs, and the Overall score is the mean of the
eight game scores, run by run.

A run is one match whose every seat an agent held (GAMA-Bench's ten copies of one model), played
under the game's `gamabench` preset (the vanilla setting; Table 9's variants are other experiments,
scored by the engines' scorers but not pooled here). Each game's engine scores a run from the match's parameters and result details
(`gamabench_score(parameters, details, **switches)`), so the arena's own matches and GAMA-Bench's
released logs (read into the same form by each engine's `gamabench_history`) are scored by the same
code. The `gamabench` presets are the paper's scored settings (El Farol's implicit mode, the
first-price auction: §3.1, §6 item 10). Runs are taken in the order they ended; run i's Overall is the mean of the
games' i-th runs, over as many runs as every game has.

Switches of §4.3 (e.g. pirate_voter_denominator="legacy_bug") pass through to the games whose
scorer takes them.
"""

from __future__ import annotations

import inspect
import statistics
from typing import Any, Iterable, Sequence

from arena_engines import game_module

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position
from .suites import played_under, register_suite_score

#: The eight games, in the order of the paper's tables.
GAMES = ("guess_two_thirds_average", "el_farol_bar", "divide_the_dollar", "public_goods", "diners_dilemma",
         "sealed_bid_auction", "battle_royale", "pirate_game")


def run_score(game_id: str, parameters: dict[str, Any], details: dict[str, Any], **switches) -> dict[str, Any]:
    """The engine's score of one run: the raw score ("S1" ... "S8") and "score" (0-100). Switches the
    game's scorer does not take are left out."""
    scorer = game_module(game_id).gamabench_score
    accepted = inspect.signature(scorer).parameters
    wanted = {k: v for k, v in switches.items() if k in accepted}
    return scorer(parameters, details, **wanted)


def self_play_agent(match: MatchRecord) -> str | None:
    """The agent that held every seat of the match, or None when several agents played."""
    names = set(match.agent_names)
    return names.pop() if len(names) == 1 else None


def scores_by_agent(matches: Iterable[MatchRecord], **switches) -> dict[str, dict[str, list[float]]]:
    """agent -> game -> the 0-100 scores of its runs, in the order the matches are given (end order)."""
    found: dict[str, dict[str, list[float]]] = {}
    for match in matches:
        agent = self_play_agent(match)
        if (agent is None or match.status != "finished" or not match.result or match.result.get("reason") != "normal"
                or not played_under(match, match.game_id, ("gamabench",))):
            continue
        score = run_score(match.game_id, match.parameters, match.result["details"], **switches)["score"]
        found.setdefault(agent, {}).setdefault(match.game_id, []).append(score)
    return found


def summary(per_game: dict[str, list[float]]) -> dict[str, float]:
    """Per game: each run's score, the mean and sample std over runs (std 0 for a single run) and the
    run count; and, when every game has runs, the Overall per run (as many runs as every game has)
    with its mean and std. `runs_of(summary, game)` reads a game's runs back."""
    out: dict[str, float] = {}
    for game in GAMES:
        runs = per_game.get(game)
        if runs:
            out[game] = statistics.mean(runs)
            out[f"{game}_std"] = statistics.stdev(runs) if len(runs) > 1 else 0.0
            out[f"{game}_runs"] = len(runs)
            for i, value in enumerate(runs, start=1):
                out[f"{game}_run_{i}"] = value
    common = min((len(per_game.get(g, ())) for g in GAMES), default=0)
    if common:
        overall = [statistics.mean(per_game[g][i] for g in GAMES) for i in range(common)]
        for i, value in enumerate(overall, start=1):
            out[f"overall_run_{i}"] = value
        out["overall"] = statistics.mean(overall)
        out["overall_std"] = statistics.stdev(overall) if len(overall) > 1 else 0.0
        out["overall_runs"] = common
    return out


def runs_of(details: dict[str, float], game: str) -> list[float]:
    """A game's run scores from a `summary` (e.g. a leaderboard row's details)."""
    return [details[f"{game}_run_{i}"] for i in range(1, int(details.get(f"{game}_runs", 0)) + 1)]


def gamabench_rows(matches: Sequence[MatchRecord], **switches) -> list[LeaderboardRow]:
    """One row per agent with runs: rating = Overall (the mean of the games it played when it has not
    played all eight, marked by the absence of "overall" in the details), the details per game."""
    rows = []
    for agent, per_game in scores_by_agent(matches, **switches).items():
        details = summary(per_game)
        rating = details.get("overall", statistics.mean(details[g] for g in GAMES if g in details))
        runs = sum(len(v) for v in per_game.values())
        rows.append(LeaderboardRow(agent, rating, rating, rating, matches=runs, extra=details))
    return rank_by_position(sorted(rows, key=lambda r: (-("overall" in r.extra), -r.rating, r.agent_name)))


DESCRIPTION = ("GAMA-Bench scores (0-100, higher is better): each game's mean over runs of the agent holding "
               "every seat; Overall = mean of the eight games, run by run")


register_suite_score("gamabench", gamabench_rows, DESCRIPTION)
