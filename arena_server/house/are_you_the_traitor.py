"""House agent for Are You the Traitor?: plain talk, and accusations from what the public round results
prove about the roles.

It reads its own role and target, the wizards and every round's accusation and result from the
observation data, never anything else. Each role deal that fits them (its own role, players 1 and 2
the wizards, no STOP caller the Traitor, each round won by the team the accusation implies) is taken as
equally likely."""

from __future__ import annotations

import itertools

from arena.v1 import agent_service_pb2 as pb
from arena_engines.are_you_the_traitor import ANSWERS, QUESTIONS, ROLE_IDS

from ..convert import from_struct
from .base import HousePolicy

TEAMS = {"traitor": "evil", "evil_wizard": "evil", "good_wizard": "good", "key_holder": "good", "guard": "good"}
TARGETS = {"evil_wizard": "key_holder", "good_wizard": "traitor", "key_holder": "good_wizard", "guard": "traitor"}
WIZARDS = {"evil_wizard", "good_wizard"}
# A coin-flip accusation is made only once a round has gone on this long, so that a table of these
# agents keeps playing rounds instead of talking until the exchange limit.
PATIENCE = 3


def fitting_deals(view: dict) -> list[tuple[str, ...]]:
    """Every assignment of the five roles to seats 0-4 that fits what the view shows."""
    seat = view["seat"]
    deals = []
    for deal in itertools.permutations(ROLE_IDS):
        if deal[seat] != view["role"] or {deal[w] for w in view["wizards"]} != WIZARDS:
            continue
        if all(_fits_round(deal, r["caller"], r["accused"], r["winner"]) for r in view["rounds"]) and \
                all(ex["caller"] is None or deal[ex["caller"]] != "traitor" for ex in view["exchanges"]):
            deals.append(deal)
    return deals


def _fits_round(deal: tuple[str, ...], caller: int, accused: int, winner: str) -> bool:
    role = deal[caller]
    if role == "traitor":
        return False
    team = TEAMS[role]
    won = team if TARGETS[role] == deal[accused] else ("good" if team == "evil" else "evil")
    return won == winner


def target_chances(view: dict) -> dict[int, float]:
    """For each other seat, the share of fitting deals in which it holds this seat's target."""
    deals = fitting_deals(view)
    target = view["target"]
    return {s: sum(d[s] == target for d in deals) / len(deals) for s in range(5) if s != view["seat"]}


class DeductionPolicy(HousePolicy):
    """Talks to a random player with this project's stock questions and answers. Calls STOP when some
    player is its target in more than half of the role deals that fit the public round results (in
    exactly half, once the round has lasted PATIENCE exchanges), and then accuses the most likely one
    (ties at random)."""

    games = frozenset({"are_you_the_traitor"})

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        by_text = {a.text: a.id for a in request.legal_actions}
        phase = view["phase"]
        if phase == "question":
            return by_text["ask a question"], self.rng.choice(QUESTIONS)
        if phase == "answer":
            return by_text["answer"], self.rng.choice(ANSWERS)
        if phase == "calls":
            return by_text["STOP" if self._confident(view) else "Pass"]
        if phase == "accuse":
            chances = target_chances(view)
            best = max(chances.values())
            seat = self.rng.choice(sorted(s for s, p in chances.items() if p == best))
            return by_text[f"accuse player {seat}"]
        return self.rng.choice(request.legal_actions).id          # whom to talk to

    def _confident(self, view: dict) -> bool:
        best = max(target_chances(view).values())
        this_round = sum(ex["round"] == view["round"] for ex in view["exchanges"])
        return best > 0.5 or (best == 0.5 and this_round >= PATIENCE)


POLICIES = {
    "ayt_deduction": (("are_you_the_traitor: stock questions and answers; calls STOP and accuses when the public "
                       "round results make its target more likely than not (or even odds in a long round)"),
                      DeductionPolicy),
}
