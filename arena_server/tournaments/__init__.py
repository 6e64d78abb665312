"""Tournaments: schedules (who meets whom, in which seats) and the runner that plays them."""

from .runner import TournamentConfig, TournamentRunner
from .schedules import SCHEDULES, gauntlet, round_robin

__all__ = ["SCHEDULES", "TournamentConfig", "TournamentRunner", "gauntlet", "round_robin"]
