"""House agent for Hanabi: a simple rule-based teammate that reads only its observation data (its
knowledge of its own cards, the partner's cards and what the partner knows of them, fireworks,
tokens)."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb

from ..convert import from_struct
from .base import HousePolicy


def _action_ids(view: dict) -> dict:
    """Action ids by meaning, from the hand size and the deck's colours and ranks (the engine's
    order: discards, plays, colour reveals, rank reveals)."""
    hand, colours = view["hand_size"], view["colours"]
    return {
        "discard": lambda position: position,
        "play": lambda position: hand + position,
        "colour": lambda colour: 2 * hand + colours.index(colour),
        "rank": lambda rank: 2 * hand + len(colours) + rank - 1,
    }


def _playable(colour: str, rank: int, view: dict) -> bool:
    return view["fireworks"][view["colours"].index(colour)] == rank - 1


def _known_playable(knowledge: dict, view: dict) -> bool:
    """Every card the knowledge still allows would fit its firework now."""
    return all(_playable(colour, rank, view)
               for colour in knowledge["possible_colours"] for rank in knowledge["possible_ranks"])


def _known_useless(knowledge: dict, view: dict) -> bool:
    """Every card the knowledge still allows is already in its firework."""
    return all(view["fireworks"][view["colours"].index(colour)] >= rank
               for colour in knowledge["possible_colours"] for rank in knowledge["possible_ranks"])


class SimpleHanabiPolicy(HousePolicy):
    """Plays a card known to be playable; else, with an information token, reveals the rank (or,
    when the rank is known, the colour) of a partner's card that is playable but not yet known to
    be; else discards (a card known to be useless first, else the oldest card that no reveal has
    touched, else the oldest). When nothing of that is legal (discarding with every token
    available) it reveals whatever tells the partner something new."""

    games = frozenset({"hanabi"})

    def choose(self, request: pb.DecisionRequest) -> int:
        view = from_struct(request.observation.data)
        legal = {a.id for a in request.legal_actions}
        ids = _action_ids(view)
        mine = view["my_knowledge"]
        for position, knowledge in enumerate(mine):
            if _known_playable(knowledge, view):
                return ids["play"](position)
        if view["information_tokens"] > 0:
            hint = self._useful_hint(view, ids)
            if hint is not None:
                return hint
        useless = [p for p, k in enumerate(mine) if _known_useless(k, view)]
        untouched = [p for p, k in enumerate(mine) if k["colour"] is None and k["rank"] is None]
        for position in useless + untouched + list(range(len(mine))):
            if ids["discard"](position) in legal:
                return ids["discard"](position)
        news = self._new_information(view, ids)
        return news if news in legal else min(legal)

    def _useful_hint(self, view: dict, ids: dict):
        """A reveal that teaches the partner about one of its playable cards, or None."""
        for card, knowledge in zip(view["partner_hand"], view["partner_knowledge"]):
            if not _playable(card["colour"], card["rank"], view) or _known_playable(knowledge, view):
                continue
            if knowledge["rank"] is None:
                return ids["rank"](card["rank"])
            return ids["colour"](card["colour"])
        return None

    def _new_information(self, view: dict, ids: dict):
        """A reveal that narrows what the partner knows of some card (rank reveals first), or None."""
        cards = list(zip(view["partner_hand"], view["partner_knowledge"]))
        for card, knowledge in cards:
            if knowledge["rank"] is None:
                return ids["rank"](card["rank"])
        for card, knowledge in cards:
            if knowledge["colour"] is None:
                return ids["colour"](card["colour"])
        return None


POLICIES = {
    "hanabi_simple": ("hanabi: plays a card known to be playable, else reveals a playable partner card when a "
                      "token is left, else discards", SimpleHanabiPolicy),
}
