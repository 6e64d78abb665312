"""House agents for the sealed-bid auction: action id = bid amount; the observation holds the
private valuation."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

class FixedBidPolicy(HousePolicy):
    """Bids a fixed fraction of its private valuation: the highest legal bid not above it."""

    games = frozenset({"sealed_bid_auction"})
    fraction = 1.0

    def choose(self, request: pb.DecisionRequest) -> int:
        value = from_struct(request.observation.data)["my_valuation"]
        target = value * self.fraction
        bids = sorted(a.id for a in request.legal_actions)
        below = [b for b in bids if b <= target]
        return below[-1] if below else bids[0]


class BidHalfValuePolicy(FixedBidPolicy):
    fraction = 0.5


class BidValuePolicy(FixedBidPolicy):
    fraction = 1.0


POLICIES = {
    "bid_half_value": ("sealed-bid auction: bids half its valuation, rounded down", BidHalfValuePolicy),
    "bid_value": ("sealed-bid auction: bids its valuation (the highest legal bid below it when bids must "
                  "stay under the valuation)", BidValuePolicy),
}
