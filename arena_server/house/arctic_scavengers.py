"""House agent for Arctic Scavengers: a greedy one-ply baseline.

Legal action texts are GameBench's lists (["HIRE", ["Pills"], "Saboteur"], ["SNIPER", "Brawler"], ...)
or, when keeping a dug card, the card's title; the observation data holds the seat's hand, FOOD, the
round and the actions it has used (arena_engines.arctic_scavengers)."""

from __future__ import annotations

import json

from arena.v1 import agent_service_pb2 as pb
from arena_engines.arctic_scavengers import card_info

from ..convert import from_struct
from .base import HousePolicy


def card_value(name: str) -> float:
    """A rough worth of owning a card: tribe members count most (they score at the end and break skirmish
    ties), then FIGHT, then the other actions and medicine."""
    info = card_info(name)
    actions = info["actions"]
    worth = 1.5 * info["tribe_members"] + actions.get("FIGHT", {"value": 0})["value"]
    worth += 0.25 * sum(actions.get(s, {"value": 0})["value"] for s in ("DIG", "DRAW", "HUNT"))
    return worth + 0.5 * actions.get("MEDICINE", {"value": 0})["value"]


def fight_of(cards: list) -> int:
    return sum(card_info(c)["actions"].get("FIGHT", {"value": 0})["value"] for c in cards)


class GreedyPolicy(HousePolicy):
    """Keeps its hand strong for the skirmish and buys tribe members when it can:
    - gathering: hires the most valuable mercenary it can pay for (fewest medicine cards); otherwise hunts
      when the FOOD would pay for a mercenary with the medicine in hand (losing the least FIGHT);
      otherwise trashes its Junk; then stops. In the last round it stops at once (the final hand scores);
    - a dug card: keeps the most valuable;
    - interrupts and skirmish: targets the opponent's most valuable card it may (interrupting, which
      costs its own card, only before the last round)."""

    games = frozenset({"arctic_scavengers"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        actions = {a.id: a.text for a in request.legal_actions}
        decision = view["decision"]
        if decision == "keep":
            return max(actions, key=lambda a: (card_value(actions[a]), -a))
        parsed = {a: json.loads(text) for a, text in actions.items()}
        stop = next(a for a, items in parsed.items() if items[0] == "STOP")
        last_round = view["round"] == view["rounds"]
        if decision in ("respond", "skirmish"):
            if decision == "respond" and last_round:
                return stop
            targets = [a for a, items in parsed.items() if items[0] != "STOP"]
            return max(targets, key=lambda a: (card_value(parsed[a][1]), -a)) if targets else stop
        if last_round:
            return stop
        return self._gather(view, parsed, stop)

    def _gather(self, view: dict, parsed: dict, stop: int) -> int:
        hires = [a for a, items in parsed.items() if items[0] == "HIRE"]
        if hires:
            return max(hires, key=lambda a: (card_value(parsed[a][2]), -len(parsed[a][1]), -a))
        if "HIRE" not in view["actions_used"]:
            medicine = sum(card_info(c)["actions"].get("MEDICINE", {"value": 0})["value"] for c in view["hand"])
            best = None
            for a, items in parsed.items():
                if items[0] != "HUNT":
                    continue
                food = view["food"] + sum(card_info(c)["actions"]["HUNT"]["value"] for c in items[1])
                affordable = [m["card"] for m in view["mercenaries"]
                              if m["left"] and m["food"] <= food and m["medicine"] <= medicine]
                if affordable:
                    key = (max(card_value(m) for m in affordable), -fight_of(items[1]), -a)
                    best = max(best, (key, a)) if best else (key, a)
            if best:
                return best[1]
        junk = view["hand"].count("Junk")
        for a, items in parsed.items():
            if items[0] == "TRASH" and junk and items[1] == ["Junk"] * junk:
                return a
        return stop


POLICIES = {
    "arctic_greedy": ("Arctic Scavengers: hires the best mercenary it can pay for (hunting for it when that "
                      "pays), trashes Junk, keeps its hand for the skirmish and stops at once in the last round; "
                      "keeps the best dug card; snipes and sabotages the opponent's best card", GreedyPolicy),
}
