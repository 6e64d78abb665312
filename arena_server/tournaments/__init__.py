"""Tournaments: schedules (who meets whom, in which seats) and the runner that plays them."""

from .round_robin import round_robin
from .runner import TournamentConfig, TournamentRunner

__all__ = ["TournamentConfig", "TournamentRunner", "round_robin"]
