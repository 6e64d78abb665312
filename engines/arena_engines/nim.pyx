"""Nim, as played in GTBench (OpenSpiel's `nim` with its defaults).

Rules. Piles of matches ("piles", default 1, 3, 5, 7). The players alternate, seat 0 first; a move
takes one or more matches from a single pile, at most what the pile holds. When the last match is
taken the game ends: under the misère rule ("misere", default true, as OpenSpiel and GTBench) the
player who took it loses, under normal play it wins (+1 / -1). No draws.

Actions. OpenSpiel's ids: taking `take` matches from pile `p` (0-based) is action
(take - 1) * number_of_piles + p. The action text is GTBench's notation without the angle brackets,
with the 1-based pile: "pile:4, take:3" (OpenSpiel writes "pile:4, take:3;").

Parsing (`parse_action`): the LAST "pile:x, take:y" in the reply (GTBench takes the last match of
"<pile:x, take:y>"); case, spacing, the colons, the comma and the angle brackets may vary. A pile
that does not exist, a take of 0, or a take larger than the largest initial pile (outside the action
space) raises ActionParseError. Any other take is returned as its id even when the pile holds fewer
matches, so the referee can tell an illegal move from an unparseable answer.

Presets. "piles": 1-64 piles of at least one match each, at most 1024 matches in all (so every
take of every pile fits in one decision's legal actions); "misere": bool. Preset "gtbench": piles
1, 3, 5, 7, misère (gtbench.md §2.8), answers "<pile:x, take:y>".

Ambiguities. GTBench's answer regex lists only the takes that fit each pile's initial size (pile 1
take 1, pile 2 take 1-3, ...), so "<pile:1, take:2>" was unparseable there; here it is a well-formed
illegal move, refused by the referee. GTBench's conversion hard-codes four piles; this engine uses
the configured number. Ending the match at a bad answer (GTBench) is the referee's policy.

Observation. As GTBench: the number of matches in each pile ("the 1st pile has 1 match; ..."), then
the opponent's and the agent's own moves so far and the legal moves (separated by semicolons, since
a move's text contains a comma).

Length. Every move removes at least one match, so a game lasts at most as many moves as there are
matches (16 for the GTBench piles); the spec's max_game_length is the 1024-match cap.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset

cdef enum:
    MAX_PILES = 64
    MAX_MATCHES = 1024

SPEC = GameSpec(
    game_id="nim",
    display_name="Nim",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="zero_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=MAX_MATCHES,
    description="Take one or more matches from a single pile; under the misère rule whoever takes the last "
                "match loses, under normal play whoever takes it wins.",
    parameters=(
        Parameter("piles", [1, 3, 5, 7], "matches in each pile: 1-64 piles of at least 1, at most 1024 in all"),
        Parameter("misere", True, "true: taking the last match loses (misère); false: it wins (normal play)"),
    ),
    presets=(
        Preset("gtbench", "GTBench (Duan et al., 2024): piles 1, 3, 5, 7, misère; answer '<pile:x, take:y>' "
               "with the 1-based pile, e.g. '<pile:4, take:3>'.", {"piles": [1, 3, 5, 7], "misere": True}),
    ),
)

_MOVE = re.compile(r"pile\s*:?\s*(\d+)\s*[,;]?\s*take\s*:?\s*(\d+)", re.IGNORECASE)


def _ordinal(int n) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _matches(int n) -> str:
    return f"{n} match" if n == 1 else f"{n} matches"


cdef class NimState(State):
    cdef int num_piles
    cdef int piles[MAX_PILES]
    cdef int max_take        # the largest initial pile: takes run 1..max_take in the action space
    cdef int remaining       # matches left on the table
    cdef bint misere
    cdef int to_move
    cdef int winner          # -1 while matches remain

    def __init__(self, game, piles, bint misere):
        super().__init__(game, 2)
        self.num_piles = len(piles)
        self.max_take = max(piles)
        self.remaining = sum(piles)
        for i, size in enumerate(piles):
            self.piles[i] = size
        self.misere = misere
        self.to_move = 0
        self.winner = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        # Takes in the outer loop and piles in the inner one: ids come out increasing.
        cdef int take, pile, largest = 0, n = 0
        for pile in range(self.num_piles):
            if self.piles[pile] > largest:
                largest = self.piles[pile]
        for take in range(1, largest + 1):
            for pile in range(self.num_piles):
                if self.piles[pile] >= take:
                    out[n] = (take - 1) * self.num_piles + pile
                    n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int take = action // self.num_piles + 1
        self.piles[action % self.num_piles] -= take
        self.remaining -= take
        if self.remaining == 0:
            self.winner = 1 - self.to_move if self.misere else self.to_move
        self.to_move = 1 - self.to_move

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0
            out[1 - self.winner] = -1.0

    cdef State c_clone(self):
        cdef NimState s = NimState.__new__(NimState)
        self._copy_base_into(s)
        s.num_piles = self.num_piles
        memcpy(s.piles, self.piles, sizeof(self.piles))
        s.max_take = self.max_take
        s.remaining = self.remaining
        s.misere = self.misere
        s.to_move = self.to_move
        s.winner = self.winner
        return s

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if not 0 <= action < self.num_piles * self.max_take:
            raise ValueError(f"nim actions here are 0-{self.num_piles * self.max_take - 1}, not {action}")
        return f"pile:{action % self.num_piles + 1}, take:{action // self.num_piles + 1}"

    def parse_action(self, int player, str text) -> int:
        check_seat("nim", player)
        match = last_match(_MOVE, text)
        if match is None:
            raise ActionParseError(f"could not read a move from {text!r}. {self._answer_help()}")
        pile, take = int(match.group(1)), int(match.group(2))
        if not 1 <= pile <= self.num_piles:
            raise ActionParseError(f"there is no pile {pile}: piles are numbered 1-{self.num_piles}. "
                                   + self._answer_help())
        if not 1 <= take <= self.max_take:
            raise ActionParseError(f"cannot take {take}: take at least 1 and at most what the pile holds "
                                   f"(no pile ever held more than {self.max_take}). {self._answer_help()}")
        return (take - 1) * self.num_piles + pile - 1

    def _answer_help(self) -> str:
        return ("Answer '<pile:x, take:y>' to take y matches from the x-th pile (piles numbered from 1), "
                "e.g. '<pile:1, take:1>'.")

    def _pile_sizes(self) -> list:
        return [self.piles[i] for i in range(self.num_piles)]

    def _moves_of(self, int seat) -> list:
        return [self.action_to_string(s, a) for s, a in self._history if s == seat]

    def observation_string(self, int player) -> str:
        check_seat("nim", player)
        rule = "whoever takes the last match loses" if self.misere else "whoever takes the last match wins"
        lines = [f"Nim with {self.num_piles} pile{'s' if self.num_piles > 1 else ''}. On your turn take one or more matches from a single pile; "
                 f"{rule}. {'You move' if player == 0 else 'Your opponent moves'} first.",
                 "Currently, " + ";\n".join(f"the {_ordinal(i + 1)} pile has {_matches(self.piles[i])}"
                                            for i in range(self.num_piles)) + "."]
        opponent_moves, own_moves = self._moves_of(1 - player), self._moves_of(player)
        lines.append(f"Your opponent's moves so far: {'; '.join(opponent_moves)}." if opponent_moves
                     else "Your opponent has not moved yet.")
        lines.append(f"Your moves so far: {'; '.join(own_moves)}." if own_moves else "You have not moved yet.")
        if self.winner >= 0:
            lines.append(f"The game is over: {self._outcome(player)}.")
        elif self.to_move == player:
            legal = "; ".join(self.action_to_string(player, a) for a in self.legal_actions(player))
            lines.append(f"Your move. Legal moves: {legal}")
        else:
            lines.append("Waiting for your opponent to move.")
        return "\n".join(lines)

    def _outcome(self, int player) -> str:
        taker = 1 - self.to_move   # the seat that made the last move
        took = "you took the last match" if taker == player else "your opponent took the last match"
        return f"{took}, so {'you win' if self.winner == player else 'you lose'}"

    def observation_dict(self, int player) -> dict:
        check_seat("nim", player)
        to_play = self.c_current_player()
        return {
            "piles": self._pile_sizes(),
            "misere": bool(self.misere),
            "to_play": to_play if to_play >= 0 else None,
            "legal_moves": [self.action_to_string(player, a) for a in self.legal_actions(player)],
            "opponent_moves": self._moves_of(1 - player),
            "self_moves": self._moves_of(player),
            "history": [[seat, action] for seat, action in self._history],
        }

    def result_summary(self) -> str:
        if self.winner < 0:
            return "game in progress"
        return (f"seat {self.winner} wins: seat {1 - self.to_move} took the last match "
                f"({'misère' if self.misere else 'normal play'})")

    def result_details(self) -> dict:
        return {
            "winner": self.winner if self.winner >= 0 else None,
            "took_last": 1 - self.to_move if self.winner >= 0 else None,
            "misere": bool(self.misere),
            "moves": len(self._history),
        }


def _checked_piles(value) -> list:
    """The pile sizes as a list of ints; integral floats (JSON, protobuf Struct) are accepted."""
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_PILES:
        raise ValueError(f"nim parameter 'piles' must be a list of 1-{MAX_PILES} pile sizes, not {value!r}")
    piles = []
    for size in value:
        if isinstance(size, float) and size.is_integer():
            size = int(size)
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"nim pile sizes must be integers of at least 1, not {size!r}")
        piles.append(size)
    if sum(piles) > MAX_MATCHES:
        raise ValueError(f"nim piles may hold at most {MAX_MATCHES} matches in all, not {sum(piles)}")
    return piles


class Game(GameBase):
    """Nim for two seats with the given piles, misère or normal play."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        self.parameters["piles"] = _checked_piles(self.parameters["piles"])

    def new_initial_state(self) -> NimState:
        return NimState(self, self.parameters["piles"], self.parameters["misere"])

    def state_from_view(self, player: int, view: dict) -> NimState:
        """The state seat `player` observes: a replay of the move history (perfect information)."""
        return self.replay(view["history"])
