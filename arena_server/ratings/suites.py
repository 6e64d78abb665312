"""Suites: which games each reproduced benchmark pools, and the place its own scores plug into.

A suite's leaderboard can be any rating method over the suite's games pooled (per-game weighting
by default), or the suite's own score (`RATING_METHOD_SUITE_SCORE`): GAMA-Bench's 0–100 game
scores, MAgIC's ability metrics and so on, computed by the scorer the suite registers here with
`register_suite_score`. A scorer takes the suite's finished match records (in end order) and
returns leaderboard rows. GameBench's own score (Table 3, average score) is built in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally

#: Games of each suite (the reference index, /work/shared/reference/README.md).
SUITES: dict[str, tuple[str, ...]] = {
    "llmarena": ("tic_tac_toe", "connect_four", "texas_holdem_no_limit", "undercover", "negotiation",
                 "sealed_bid_auction", "hanabi"),
    "gamabench": ("sealed_bid_auction", "guess_two_thirds_average", "el_farol_bar", "divide_the_dollar",
                  "public_goods", "diners_dilemma", "battle_royale", "pirate_game"),
    "magic": ("undercover", "public_goods", "chameleon", "cost_sharing", "iterated_prisoners_dilemma"),
    "gtbench": ("tic_tac_toe", "connect_four", "negotiation", "sealed_bid_auction", "iterated_prisoners_dilemma",
                "kuhn_poker", "breakthrough", "liars_dice", "nim", "pig"),
    "gamebench": ("air_land_sea", "arctic_scavengers", "are_you_the_traitor", "codenames", "hive", "pit",
                  "santorini", "two_rooms_and_a_boom", "sea_battle"),
}

SuiteScorer = Callable[[Sequence[MatchRecord]], list[LeaderboardRow]]


@dataclass(frozen=True)
class SuiteScore:
    scorer: SuiteScorer
    description: str
    has_interval: bool = False          # whether the scorer's rows carry an interval in lower/upper


_SCORES: dict[str, SuiteScore] = {}


def suite_games(suite: str) -> tuple[str, ...]:
    try:
        return SUITES[suite]
    except KeyError:
        raise KeyError(f"unknown suite {suite!r} (known: {', '.join(sorted(SUITES))})") from None


def register_suite_score(suite: str, scorer: SuiteScorer, description: str, *, has_interval: bool = False) -> None:
    """Makes `scorer` the suite's own score (replacing any earlier one). `has_interval`: its rows'
    lower/upper are an interval (otherwise they equal the rating and are not shown)."""
    suite_games(suite)
    _SCORES[suite] = SuiteScore(scorer, description, has_interval)


def suite_score(suite: str) -> SuiteScore:
    suite_games(suite)
    if suite not in _SCORES:
        raise LookupError(f"suite {suite!r} has no suite score registered yet")
    return _SCORES[suite]


def has_suite_score(suite: str) -> bool:
    return suite in _SCORES


def played_under(match: MatchRecord, game_id: str, presets: Sequence[str]) -> bool:
    """Whether the match was played at `game_id` under one of `presets` (its parameters are the
    preset's, secret setup parameters aside, the seat count as the match had it): a suite's own
    score counts the matches played under the paper's settings, however they were scheduled."""
    import arena_engines

    if match.game_id != game_id:
        return False
    spec = arena_engines.game_spec(game_id)
    played = spec.public(match.parameters)
    for preset in presets:
        wanted = spec.public(spec.resolve(preset))
        if "players" in wanted:
            wanted["players"] = played.get("players", wanted["players"])
        if played == wanted:
            return True
    return False


def _gamebench_average_score(matches: Sequence[MatchRecord]) -> list[LeaderboardRow]:
    from .gamebench import average_scores

    rows: dict[str, LeaderboardRow] = {}
    tally(matches, rows)
    for name, per_game in average_scores(matches).items():
        row = rows[name]
        row.rating = row.lower = row.upper = per_game["overall"][0]
        row.extra = {g: v for g, (v, _) in sorted(per_game.items()) if g != "overall"}
    return rank_by_position(sorted(rows.values(), key=lambda r: (-r.rating, r.agent_name)))


register_suite_score("gamebench", _gamebench_average_score,
                     "GameBench average score (Table 3): total return share ÷ matches played; draws ½")
