"""House agent for Pit: a greedy collector.

It reads its own hand from the request's observation data and collects the commodity it holds most of
(ties: the more valuable one). On its turn it accepts the largest opposing offer of that commodity,
paying one card of its least useful kind; otherwise it offers its least useful cards (up to four of one
kind) to draw the opponents into trading. The least useful kind is the Bear when held (it costs points
when cornering), else the commodity other than its target that it holds fewest of (ties: the less
valuable one); it never gives away its target commodity or the Bull, and passes when it has nothing
else to spare."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy

VALUES = {"Barley": 85, "Corn": 75, "Soyabeans": 55, "Wheat": 100}
# There is one Bear, so offering four is always legal and never made: the only way to pass a turn.
PASS = "Offer_Bear_4"


def target_commodity(hand: dict[str, int]) -> str:
    """The commodity the hand holds most of; ties go to the more valuable one."""
    return max(VALUES, key=lambda c: (hand[c], VALUES[c]))


def junk_kind(hand: dict[str, int], target: str) -> str | None:
    """The kind of card the hand can best spare: the Bear, else the fewest-held other commodity."""
    if hand["Bear"]:
        return "Bear"
    spare = [c for c in VALUES if c != target and hand[c] > 0]
    return min(spare, key=lambda c: (hand[c], VALUES[c])) if spare else None


class GreedyCollectorPolicy(HousePolicy):
    """Collects its most-held commodity: takes opposing offers of it for one spare card, else offers
    its spare cards."""

    games = frozenset({"pit"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        by_text = {action.text: action.id for action in request.legal_actions}
        hand = view["hand"]
        target = target_commodity(hand)
        junk = junk_kind(hand, target)
        if junk is not None:
            wanted = [o for o in view["pending_offers"] if o["acceptable"] and o["commodity"] == target]
            for offer in sorted(wanted, key=lambda o: -o["quantity"]):
                action = by_text.get(f"Accept_{offer['trade']}_{junk}_1")
                if action is not None:
                    return action
            action = by_text.get(f"Offer_{junk}_{min(hand[junk], 4)}")
            if action is not None:
                return action
        # Nothing to spare (only the target and the Bull): pass, with an offer no hand can cover.
        return by_text[PASS]


POLICIES = {
    "pit_collector": ("Pit: greedy collector -- takes opposing offers of the commodity it holds most of, paying one "
                      "spare card (the Bear first), else offers its spare cards; never gives its target or the Bull",
                      GreedyCollectorPolicy),
}
