"""House agent for Cost Sharing (MAgIC's airport fee allocation): proposes the split that follows the
airlines' usage and votes to reach an agreement, since an agreement is every seat's win.

It reads the usage profiles, the round's proposals and the votes cast so far from the observation
data; a replayed round-1 proposal (its only legal action) is played as it is."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines.cost_sharing import SPLIT_ID, SPLITS, VOTE_ACTIONS

from ..convert import from_struct
from .base import HousePolicy, wants_message

# An earlier voter's split is joined when no airline's share in it is further than this from the
# agent's own split (in percentage points).
JOIN_TOLERANCE = 10


def usage_weights(usage: list[dict]) -> list[float]:
    """Each airline's use of the airport in percent: the mean of its shares of the flights, of the
    passengers and of the flight hours (flights times average duration)."""
    measures = [[u["flights_per_month"] for u in usage], [u["passengers_per_month"] for u in usage],
                [u["flights_per_month"] * u["average_flight_hours"] for u in usage]]
    return [100 * sum(m[i] / sum(m) for m in measures) / len(measures) for i in range(len(usage))]


def usage_split(usage: list[dict]) -> tuple[int, int, int]:
    """The split in 5 % steps nearest (least squares) to the usage weights among those that give
    airlines of equal use equal shares (ties: the lowest action id)."""
    weights = usage_weights(usage)
    same = [(i, j) for i in range(3) for j in range(i + 1, 3) if abs(weights[i] - weights[j]) < 1e-9]
    fair = [s for s in SPLITS if all(s[i] == s[j] for i, j in same)]
    return min(fair, key=lambda s: sum((s[i] - weights[i]) ** 2 for i in range(3)))


class UsageSplitPolicy(HousePolicy):
    """Proposes usage_split, saying that it follows usage. Votes for the split every earlier voter of
    the round chose when it is within JOIN_TOLERANCE points of its own for each airline, or whatever
    it is when this vote completes the round (joining then is the agreement); otherwise for the
    proposal nearest its own split (the lowest seat among equally near ones)."""

    games = frozenset({"cost_sharing"})

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        legal = [a.id for a in request.legal_actions]
        if len(legal) == 1:
            return legal[0]                      # the setting's replayed proposal
        view = from_struct(request.observation.data)
        own = usage_split(view["usage"])
        if view["phase"] == "proposal":
            action = SPLIT_ID[own]
            if wants_message(request):
                return action, (f"{view['name']} proposes shares that follow each airline's flights, passengers "
                                f"and flight hours.")
            return action
        return VOTE_ACTIONS[self._vote(view["rounds"][-1], own)]

    def _vote(self, record: dict, own: tuple) -> int:
        proposals = [tuple(p) for p in record["proposals"]]
        earlier = [v for v in record["votes"] if v is not None]
        if earlier and "abstain" not in earlier and len({proposals[v] for v in earlier}) == 1:
            common = proposals[earlier[0]]
            deciding = len(earlier) == len(proposals) - 1
            if deciding or max(abs(a - b) for a, b in zip(common, own)) <= JOIN_TOLERANCE:
                return earlier[0]
        return min(range(len(proposals)), key=lambda s: (sum((a - b) ** 2 for a, b in zip(proposals[s], own)), s))


POLICIES = {
    "cost_sharing_usage": ("cost sharing: proposes the split that follows the airlines' flights, passengers and "
                           "flight hours; votes with the earlier voters when their split is close to its own (or "
                           "its vote completes the agreement), else for the nearest proposal", UsageSplitPolicy),
}
