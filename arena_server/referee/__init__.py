"""The referee: drives one match between seat endpoints under a failure policy and a deadline."""

from .endpoint import RESIGNED, SeatEndpoint
from .match import MatchRunner, Rules, rank_returns
from .replay import replay_match

__all__ = ["RESIGNED", "MatchRunner", "Rules", "SeatEndpoint", "rank_returns", "replay_match"]
