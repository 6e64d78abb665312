"""Ratings, computed from the match log alone so they can always be recomputed and audited."""

from .trueskill_board import LeaderboardRow, trueskill_leaderboard

__all__ = ["LeaderboardRow", "trueskill_leaderboard"]
