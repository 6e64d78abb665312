"""The referee: drives one match between seat endpoints under a failure policy and a deadline."""

from .endpoint import RESIGNED, SeatEndpoint
from .match import MatchRunner, Rules, match_status, rank_returns
from .replay import ReplayMismatch, replay_match

__all__ = ["RESIGNED", "MatchRunner", "ReplayMismatch", "Rules", "SeatEndpoint", "match_status", "rank_returns",
           "replay_match"]
