"""House agent for Codenames: clues and guesses by the themes of the word list.

Every word of the game's list belongs to one theme (codenames_words.THEMES, e.g. "fruit": apple,
pear, ...), and every theme word is a legal clue on any board. The spymaster names a theme that covers
its team's words; the operative guesses the board words of the theme it was given. It reads only its
seat's observation data: the key when it is the spymaster, the revealed colours when it is the
operative."""

from __future__ import annotations

from arena.v1 import agent_service_pb2 as pb
from arena_engines.codenames import clue_problem
from arena_engines.codenames_words import THEMES

from ..convert import from_struct
from .base import HousePolicy, random_message, wants_message

_THEME_OF = {word.upper(): theme for theme, words in THEMES.items() for word in words}


class ThemePolicy(HousePolicy):
    """Spymaster: the theme holding the most of its team's unrevealed words and no other unrevealed
    word, with that count; failing that, the theme with the best count of its words less the others'
    (never one with the assassin); failing that, a neutral word for 0, which its operative passes on.
    Ties at random. Operative: the unrevealed words of the clue's theme, in random order, as many as
    the clue's number (all of them for 0), then it ends the turn; a clue that is no theme ends the turn
    at once (a guess at random would risk the assassin)."""

    games = frozenset({"codenames"})

    def choose(self, request: pb.DecisionRequest) -> int | tuple[int, str]:
        view = from_struct(request.observation.data)
        if wants_message(request):
            return self._clue(view, request)
        return self._guess(view, request)

    def _clue(self, view: dict, request: pb.DecisionRequest) -> tuple[int, str]:
        team = view["team"]
        board = [card["word"] for card in view["board"]]
        scored = []
        for theme in sorted(THEMES):
            colours = [card["colour"] for card in view["board"]
                       if not card["revealed"] and _THEME_OF.get(card["word"]) == theme]
            own = colours.count(team)
            if own == 0 or "assassin" in colours or clue_problem(theme, board):
                continue
            pure = own == len(colours)
            scored.append(((pure, own if pure else own - (len(colours) - own)), own, theme))
        if not scored:
            return 0, random_message(request, self.rng)
        best = max(key for key, _, _ in scored)
        _, own, theme = self.rng.choice([entry for entry in scored if entry[0] == best])
        return own, theme

    def _guess(self, view: dict, request: pb.DecisionRequest) -> int:
        end_turn = len(view["board"])
        clue = view["clue"]
        theme = clue["word"].lower()
        wanted = [card["index"] for card in view["board"]
                  if not card["revealed"] and _THEME_OF.get(card["word"]) == theme]
        number = clue["number"] or len(wanted)
        legal = {action.id for action in request.legal_actions}
        if view["guesses_made"] >= number or not wanted:
            return end_turn
        choice = self.rng.choice(wanted)
        return choice if choice in legal else end_turn


POLICIES = {
    "codenames_themes": ("codenames: the spymaster names the theme (fruit, vehicle, ...) that covers most of its "
                         "team's words and no other; the operative guesses that theme's words, as many as the "
                         "clue's number", ThemePolicy),
}
