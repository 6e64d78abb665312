"""LLMArena's scores (reference llmarena.md §4) and its normalised table (§4.6, Table 1).

Only matches played under LLMArena's presets count (ENVIRONMENTS), however they were scheduled.
Raw score per environment:
- TicTacToe, ConnectFour, Texas Hold'em, Bargain: TrueSkill μ over the environment's matches in the
  order they ended, with LLMArena's settings (the `trueskill` defaults; the sides with the largest
  return win against all others; equal returns draw): TRUESKILL_PRESETS["llmarena"];
- Undercover: the win rate, in percent, of the games the agent played as the undercover;
- Bid, Hanabi: the agent's mean return per game (Hanabi's team score; the paper's own aggregation of
  these two is unexplained, §6 item 11).
Normalised score: raw ÷ the best raw score of the table's agents in that environment × 100 (not
min-max); an agent's Average is the plain mean of its seven normalised scores.
"""

from __future__ import annotations

import statistics
from typing import Sequence

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally
from .suites import played_under, register_suite_score
from .trueskill_board import TRUESKILL_PRESETS, TrueSkillBoard

#: (game id, the paper's environment name, how it is scored, the presets whose matches count), in
#: Table 1's order.
ENVIRONMENTS = (
    ("tic_tac_toe", "TicTacToe", "trueskill", ("llmarena",)),
    ("connect_four", "ConnectFour", "trueskill", ("llmarena",)),
    ("texas_holdem_no_limit", "Texas Hold'em", "trueskill", ("llmarena", "llmarena_code")),
    ("sealed_bid_auction", "Bid", "mean_return", ("llmarena_bid",)),
    ("negotiation", "Bargain", "trueskill", ("llmarena_bargain",)),
    ("undercover", "Undercover", "undercover_win_rate", ("llmarena",)),
    ("hanabi", "Hanabi", "mean_return", ("llmarena_small",)),
)


def raw_scores(matches: Sequence[MatchRecord]) -> dict[str, dict[str, float]]:
    """agent -> game id -> raw score, for the environments the agent played."""
    found: dict[str, dict[str, float]] = {}
    for game_id, _, metric, presets in ENVIRONMENTS:
        played = [m for m in matches if m.result and m.result.get("returns") and played_under(m, game_id, presets)]
        for agent, value in _SCORERS[metric](played).items():
            found.setdefault(agent, {})[game_id] = value
    return found


def _trueskill_mu(matches: Sequence[MatchRecord]) -> dict[str, float]:
    board = TrueSkillBoard(TRUESKILL_PRESETS["llmarena"])
    for match in matches:
        board.update(match)
    return {name: rating.mu for name, rating in board.ratings.items()}


def _mean_return(matches: Sequence[MatchRecord]) -> dict[str, float]:
    """Per agent, the mean over its matches of its seats' mean return (a self-play Hanabi match is one
    game of the team, whose seats share the score)."""
    per_agent: dict[str, list[float]] = {}
    for match in matches:
        returns = match.result["returns"]
        seats: dict[str, list[float]] = {}
        for player in match.players:
            seats.setdefault(player["agent_name"], []).append(float(returns[player["seat"]]))
        for name, values in seats.items():
            per_agent.setdefault(name, []).append(statistics.mean(values))
    return {name: statistics.mean(values) for name, values in per_agent.items()}


def _undercover_win_rate(matches: Sequence[MatchRecord]) -> dict[str, float]:
    """Per agent, the percentage of its games as the undercover that it won (ranked first)."""
    games: dict[str, list[bool]] = {}
    for match in matches:
        seat = undercover_seat(match)
        if seat is None:
            continue
        agent = match.players[seat]["agent_name"]
        games.setdefault(agent, []).append(match.result["ranks"][seat] == 1)
    return {name: 100.0 * sum(won) / len(won) for name, won in games.items()}


def undercover_seat(match: MatchRecord) -> int | None:
    """The undercover's seat, from the roles the engine reveals in its result details."""
    roles = (match.result.get("details") or {}).get("roles")
    if not roles:
        return None
    return next((seat for seat, role in enumerate(roles) if role == "undercover"), None)


_SCORERS = {"trueskill": _trueskill_mu, "mean_return": _mean_return, "undercover_win_rate": _undercover_win_rate}


def normalised_table(raw: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """agent -> game id -> raw ÷ the best raw score of that game × 100; and "average" when the agent
    has all seven. Where the best raw score is 0 or below (nobody earned anything, e.g. Hanabi games
    all lost), every agent's normalised score there is 0: the paper's ratio is undefined."""
    best = {g: max((scores[g] for scores in raw.values() if g in scores), default=None) for g, *_ in ENVIRONMENTS}
    table: dict[str, dict[str, float]] = {}
    for agent, scores in raw.items():
        row = {g: 100.0 * v / best[g] if best[g] > 0 else 0.0 for g, v in scores.items()}
        if len(row) == len(ENVIRONMENTS):
            row["average"] = statistics.mean(row[g] for g, *_ in ENVIRONMENTS)
        table[agent] = row
    return table


def llmarena_rows(matches: Sequence[MatchRecord]) -> list[LeaderboardRow]:
    """One row per agent: rating = Average normalised score (the mean over the environments it has
    when it lacks some, ranked after complete rows); details: raw and normalised per environment."""
    raw = raw_scores(matches)
    table = normalised_table(raw)
    counts: dict[str, LeaderboardRow] = {}
    tally(matches, counts)
    rows = []
    for agent, scores in raw.items():
        normalised = table[agent]
        values = [normalised[g] for g, *_ in ENVIRONMENTS if g in normalised]
        rating = normalised.get("average", statistics.mean(values) if values else 0.0)
        details = {g: v for g, v in scores.items()}
        details.update({f"{g}_normalised": v for g, v in normalised.items() if g != "average"})
        if "average" in normalised:
            details["average"] = normalised["average"]
        played = sum(1 for m in matches if agent in m.agent_names)
        row = LeaderboardRow(agent, rating, rating, rating, matches=played, extra=details)
        if agent in counts:
            row.wins, row.draws, row.losses = counts[agent].wins, counts[agent].draws, counts[agent].losses
        rows.append(row)
    return rank_by_position(sorted(rows, key=lambda r: (-("average" in r.extra), -r.rating, r.agent_name)))


DESCRIPTION = ("LLMArena normalised scores (Table 1): per environment raw ÷ best × 100 (TrueSkill μ; Undercover "
               "win rate as the undercover; Bid and Hanabi mean return); Average = mean of the seven")

register_suite_score("llmarena", llmarena_rows, DESCRIPTION)
