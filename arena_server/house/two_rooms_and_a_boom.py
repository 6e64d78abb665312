"""House agent for Two Rooms and a Boom: honest with teammates, silent with opponents, and a Leader that
sends the hostage which best serves its team one swap ahead.

Teammates are known from the seat layout (`Game.seat_sides()`, public in the arena: one agent holds
every seat of a team). A player questions a roommate of its team it has not yet heard about, telling
its own standing ("I am not the President.") and asking theirs; it answers a teammate the truth about
its role and an opponent nothing. A Leader reads what its teammates said about their roles in its own
exchanges and in the reports it receives, so it may know where its team's special card (the President
for Blue, the Bomber for Red) is; the other team's special card it takes as equally likely to be any
opponent. It then picks the hostage whose swap gives its team the best chance that the President and
the Bomber end apart (Blue) or together (Red), the other room sending any of its players with equal
chance."""

from __future__ import annotations

import re

from arena.v1 import agent_service_pb2 as pb
from arena_engines import load_game

from ..convert import from_struct
from .base import HousePolicy

SPECIAL = {"blue": "President", "red": "Bomber"}
_STATEMENT = re.compile(r"\bI am (not )?the (President|Bomber)\b", re.IGNORECASE)
NO_COMMENT = "I would rather not say."
TEAM_QUESTION = "Which team are you on?"


class TeamPlayPolicy(HousePolicy):
    """Truthful to teammates, a one-swap-ahead Leader (see the module's docstring)."""

    games = frozenset({"two_rooms_and_a_boom"})

    def __init__(self, seed: int):
        super().__init__(seed)
        self.teammates: set[int] = set()     # player numbers of the seat's team, itself included

    def start(self, started: pb.MatchStarted) -> None:
        match = started.match
        sides = load_game(match.game_id, from_struct(match.parameters), num_players=len(match.players)).seat_sides()
        mine = sides[started.seat]
        self.teammates = {seat + 1 for seat, side in enumerate(sides) if side == mine}

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        legal = [action.id for action in request.legal_actions]
        to_act = view["to_act"]
        if to_act == "choose_roommate":
            return self._roommate(view, legal)
        if to_act == "ask":
            target = view["current"]["target"]
            return legal[0], (self._standing(view) + f" Are you the {SPECIAL[view['team']]}?"
                              if target in self.teammates else TEAM_QUESTION)
        if to_act == "answer":
            return legal[0], self._standing(view) if view["current"]["asker"] in self.teammates else NO_COMMENT
        return self._hostage(view, legal)

    def _standing(self, view: dict) -> str:
        special = SPECIAL[view["team"]]
        if view["role"] is None:
            return "Nobody told me my role."
        return f"I am {'' if view['role'] == special.lower() else 'not '}the {special}."

    def _roommate(self, view: dict, legal: list[int]) -> int:
        known = self._known_roles(view)
        for wanted in ([c for c in legal if c in self.teammates and c not in known],
                       [c for c in legal if c in self.teammates], legal):
            if wanted:
                return self.rng.choice(wanted)
        raise ValueError("no roommate to choose")

    def _known_roles(self, view: dict) -> dict[int, bool]:
        """{teammate: whether it is the team's special card}, from what teammates said of themselves in
        the seat's exchanges and reports (the seat's own role included when it is told)."""
        special = SPECIAL[view["team"]].lower()
        known: dict[int, bool] = {}
        if view["role"] is not None:
            known[view["player"]] = view["role"] == special
        for exchange in view["exchanges"] + view["reports"]:
            for speaker, text in ((exchange["asker"], exchange["question"]), (exchange["target"], exchange["answer"])):
                if speaker not in self.teammates or not text:
                    continue
                for found in _STATEMENT.finditer(text):
                    if found.group(2).lower() == special:
                        known[speaker] = found.group(1) is None
        return known

    def _hostage(self, view: dict, legal: list[int]) -> int:
        here = view["room"]
        rooms = view["rooms"]
        known = self._known_roles(view)
        ours = [c for c, special in known.items() if special]
        if not ours:
            ours = [c for c in self.teammates if known.get(c) is not False] or sorted(self.teammates)
        theirs = [c for c in range(1, view["players"] + 1) if c not in self.teammates]
        blue = view["team"] == "blue"
        scored = []
        for hostage in legal:
            wins = 0.0
            for incoming in rooms[1 - here]:
                room_of = {c: here for c in rooms[here] if c != hostage} | {c: 1 - here for c in rooms[1 - here]
                                                                             if c != incoming}
                room_of[incoming], room_of[hostage] = here, 1 - here
                together = sum(room_of[a] == room_of[b] for a in ours for b in theirs) / (len(ours) * len(theirs))
                wins += (1.0 - together) if blue else together
            scored.append((wins, hostage))
        best = max(score for score, _ in scored)
        return self.rng.choice([hostage for score, hostage in scored if score == best])


POLICIES = {
    "trb_teamplay": (("two_rooms_and_a_boom: tells teammates the truth about its role and opponents nothing; a "
                      "Leader sends the hostage that gives its team the best odds one swap ahead, from what its "
                      "teammates said"), TeamPlayPolicy),
}
