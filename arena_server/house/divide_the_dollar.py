"""House agents for Divide the Dollar (action id = bid; the observation data holds G and the bid limit)."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

DOMINANT_BID = 91       # GAMA-Bench's fixed player (reference gamabench.md section 3.3)


class FixedBidPolicy(HousePolicy):
    """Bids the same amount every round, held to the legal range (strict_ranges caps bids at G)."""

    games = frozenset({"divide_the_dollar"})

    def bid(self, view: dict) -> int:
        raise NotImplementedError

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        return min(max(self.bid(view), 0), view["max_bid"])


class DominantBidderPolicy(FixedBidPolicy):
    """Always bids 91: with 100 golds and 10 players the others must bid 1 each to keep the sum
    within G. The paper's experiment pits it against 9 LLM agents (raw run score 64.6)."""

    def bid(self, view: dict) -> int:
        return DOMINANT_BID


class FairSharePolicy(FixedBidPolicy):
    """Always bids G / N rounded down: the equilibrium, and the sum stays within G if all do so."""

    def bid(self, view: dict) -> int:
        return view["golds"] // view["players"]


POLICIES = {
    "dollar_dominant_bidder": ("divide the dollar: always bids 91 (GAMA-Bench's fixed 'dominant bidder'; the "
                               "largest legal bid when strict ranges cap bids below 91)", DominantBidderPolicy),
    "dollar_fair_share": ("divide the dollar: always bids G / N rounded down, the equilibrium share",
                          FairSharePolicy),
}
