"""Santorini, as GameBench plays it (reference gamebench.md section 2.7) on the board of the
`santorinai` package that GameBench wraps.

Rules. A 5 x 5 board of squares, each at a level from 0 to 4; every square starts at level 0. Player 1
(seat 0) has pawns A and B, player 2 (seat 1) pawns X and Y; a square with a pawn on it is occupied.
First the players place their pawns, one at a time, in the order A, X, B, Y, each on any unoccupied
square. Then the players take turns, player 1 first. With forced pawn alternation (GameBench's rule,
the default) the pawn a player plays is not chosen: each player alternates between its two pawns,
starting with its first, so the turns go A, X, B, Y, A, X, ... A turn is a move, then a build:
  - move the pawn one square in one of the 8 directions onto an unoccupied square that is not at
    level 4 and at most one level above the pawn's square (any number of levels down is allowed);
  - build one level on a square adjacent to the pawn's new square that is unoccupied (the square it
    just left counts as unoccupied) and below level 4. A square at level 4 is complete (a dome): no
    pawn enters it and nothing more is built on it.
A player wins at once by moving a pawn onto a level-3 square (no build follows), and wins when the
opponent cannot take its next turn: with forced alternation, when the opponent's pawn to play has no
move, even if the opponent's other pawn could move (GameBench's loop declares the player whose pawn is
stuck the loser; santorinai's "nobody can move" check after a build gives the same winner). This can
happen right after placement, when pawn A is boxed into a corner by the other three. There are no draws.

Length. Every turn but a winning climb adds one block. While the game goes on, the four squares under
the pawns are at level 2 or less (nothing is built under a pawn, and a pawn on level 3 has won) and the
other 21 at most 4, so at most 21 * 4 + 4 * 2 = 92 turns build: a game lasts at most 4 placements and
93 turns (97 decisions).

Returns (preset "gamebench"): GameBench's match scores, 1 for the winner and 0 for the loser.

Actions. Placement: id = 5 * row + column (0-24), text GameBench's action id, the position tuple
"(row, column)", e.g. "(2, 3)"; row 0 is the top row (north), column 0 the left column (west), as in
santorinai and GameBench's text board. A turn with forced alternation: id = 25 + 8 * m + b, where m is
the direction of the move and b the direction of the build seen from the pawn's new square, both
counted in santorinai's order 0 northwest, 1 north, 2 northeast, 3 west, 4 east, 5 southwest, 6 south,
7 southeast (so increasing ids list the plays in santorinai's order); the text is GameBench's action
id "Move <direction>, build <direction>", e.g. "Move north, build east". A move onto level 3 wins
before its build, but each of its builds is still a separate legal action, as in GameBench's list.
With "forced_alternation" false, the player picks the pawn: id = 25 + 64 * s + 8 * m + b with s = 0 for
its first pawn (A or X) and 1 for its second (B or Y), text "Move pawn B north, build east".
GameBench also gave each action a description ("Place pawn A at (2, 3).", "Move pawn A from (1, 2) to
(0, 2) and then build a block on (0, 3).") which `observation_dict` lists with the ids.

Parsing (`parse_action`). GameBench's agents answered JSON {"action": "<action id>"}; when the reply
holds an "action" value, the last one is read, otherwise the whole reply, in which the last match
counts. Accepted: the action id ("(2, 3)", "Move north, build east", case and spacing free, "north
east" or "north-east" for "northeast", an optional pawn letter as in "Move pawn A north, build east"),
or the description, read by its coordinates ("from (1, 2) to (0, 2) ... build ... on (0, 3)", also
GameBench's own description, which printed the (move, build) pair where the destination belongs). A
direction pair is returned even when the play is illegal, so the referee can say so; a placement
answer during the turns, a move answer during placement, a pawn that is not the one to play (forced
alternation), coordinates that are not one step apart, or no answer at all raise ActionParseError
with the expected format. `default_action` is None: GameBench replaced an invalid answer by a
uniformly random legal action, the referee's failure policy.

Observation (both seats see everything; there is no hidden information). The text gives the seat's
player number and pawn letters, a summary of the rules in this engine's words (GameBench showed its
rules summary at every decision), GameBench's text board -- five rows of five cells, each the square's
level followed by the letter of the pawn on it or "." (the first row printed is row 0) -- where each
pawn stands, the last move, and what to do now: the pawn to place or play and the answer format (the
legal actions come with each decision request, so the text does not repeat them).
`observation_dict` holds the same: "player" (GameBench's 1 or 2), "my_pawns", "opponent_pawns",
"forced_alternation", "board" (GameBench's rows), "levels", "pawns" ([row, column] or null), "phase"
("placement", "play", "over"), "to_play", "pawn_to_play", "actions" (GameBench's predefined actions:
action id -> description, for the seat to play; empty otherwise), "last_move", "history" (every
[seat, action id] so far; `state_from_view` replays it) and "winner".

Preset "gamebench": GameBench's setting (section 2.7): forced pawn alternation, scores 1/0. The only
parameter, "forced_alternation" (default true), is the rule section 6 item 9 asks to keep and mark
configurable; false gives standard Santorini's free choice of pawn.

Ambiguities (gamebench.md section 6, item 9, and the card):
  - "Four height levels" against levels 0-4: levels 0-3 plus the dome at level 4, as santorinai (the
    rules' "blocks up to four high" is the dome).
  - Forced pawn alternation: kept, GameBench's rule; a stuck pawn to play loses even when the other
    pawn could move, as GameBench's loop does.
  - No god powers: none, GameBench plays the base game.
  - Who moves first (item 18): player 1 (seat 0) places first and moves first; which agent takes
    seat 0 is the scheduler's coin flip, as in GameBench.
  - Illegal or unparseable answers (item 12, section 2.10): three attempts with feedback, then a
    uniformly random legal action -- the referee's policy; this engine parses and lists legal actions.
  - Board text: GameBench ends every cell with a space, so its rows end with one; the rows here are
    joined by single spaces without the trailing one.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, gamebench_answer, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset

cdef enum:
    SIDE = 5
    CELLS = 25
    PAWNS = 4               # pawn index 0 A, 1 X, 2 B, 3 Y (santorinai's numbers 1-4); player = index % 2
    DIRECTIONS = 8
    DOME = 4
    WINNING_LEVEL = 3
    FIRST_TURN_ID = CELLS   # ids below are placements
    PLAYS_PER_PAWN = DIRECTIONS * DIRECTIONS
    NO_PAWN = -1

# Why the game ended.
cdef enum:
    NOT_OVER = 0
    CLIMBED = 1             # the winner moved a pawn onto level 3
    STUCK = 2               # the loser could not take its turn

# Turns that build (see "Length" above), plus a final climb.
MAX_TURNS = (CELLS - PAWNS) * DOME + PAWNS * (WINNING_LEVEL - 1) + 1

SPEC = GameSpec(
    game_id="santorini",
    display_name="Santorini",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=PAWNS + MAX_TURNS,
    description="5x5 board, two pawns each placed in turn; a turn moves a pawn one square (at most one level "
                "up) and builds a level next to it (level 4 is a dome). Moving up onto level 3 wins, and so "
                "does leaving the opponent's pawn to play without a move. GameBench's forced pawn alternation.",
    parameters=(
        Parameter("forced_alternation", True,
                  "each player alternates between its two pawns (GameBench); false: the player chooses the pawn"),
    ),
    presets=(
        Preset("gamebench", "GameBench (gamebench.md section 2.7): santorinai's board, pawns placed in the order "
               "A, X, B, Y, forced pawn alternation, answers '(2, 3)' and 'Move north, build east', scores 1/0.",
               {"forced_alternation": True}),
    ),
)

# A whole random game is short enough to read: no override.
PLAYTHROUGH_OVERRIDES = {None: {}}

PAWN_LETTERS = "AXBY"
DIRECTION_NAMES = ("northwest", "north", "northeast", "west", "east", "southwest", "south", "southeast")

cdef int DIR_ROW[DIRECTIONS]
cdef int DIR_COL[DIRECTIONS]
DIR_ROW[:] = [-1, -1, -1, 0, 0, 1, 1, 1]
DIR_COL[:] = [-1, 0, 1, -1, 1, -1, 0, 1]

# NEIGHBOR[cell * 8 + d]: the square one step from `cell` in direction d, or -1 off the board.
cdef int NEIGHBOR[CELLS * DIRECTIONS]


cdef void _fill_neighbors():
    cdef int cell, d, r, c
    for cell in range(CELLS):
        for d in range(DIRECTIONS):
            r = cell // SIDE + DIR_ROW[d]
            c = cell % SIDE + DIR_COL[d]
            NEIGHBOR[cell * DIRECTIONS + d] = r * SIDE + c if 0 <= r < SIDE and 0 <= c < SIDE else -1


_fill_neighbors()

_DIRECTION = r"(north|south)?[ \t-]?(east|west)?"
# "Move [pawn] [A] <direction>[,] [and then] build [a block] <direction>"; an empty direction is refused later.
_PLAY = re.compile(r"\bmove\s+(?:pawn\s+)?(?:([abxy])\s+)?(?:to\s+(?:the\s+)?)?\b" + _DIRECTION +
                   r"\b\s*,?\s*(?:and\s+(?:then\s+)?)?build\s+(?:a\s+block\s+)?(?:to\s+(?:the\s+)?)?\b" + _DIRECTION + r"\b",
                   re.IGNORECASE)
_POSITION = r"\(\s*(\d+)\s*,\s*(\d+)\s*\)"
# A description: "from (r, c) to (r, c) ... on (r, c)"; GameBench's printed "to ((r, c), (r, c))".
_DESCRIBED_PLAY = re.compile(r"from\s*" + _POSITION + r"\s*to\s*\(?\s*" + _POSITION + r".{0,200}?\bon\s*" + _POSITION,
                             re.IGNORECASE | re.DOTALL)
_PLACEMENT = re.compile(_POSITION)


def _position(int cell) -> str:
    return f"({cell // SIDE}, {cell % SIDE})"


def _direction_index(north_south, east_west) -> int:
    name = (north_south or "").lower() + (east_west or "").lower()
    if name not in DIRECTION_NAMES:
        return -1
    return DIRECTION_NAMES.index(name)


def _step_direction(int start, int end) -> int:
    """The direction from `start` to the adjacent square `end`, or -1 when they are not adjacent."""
    cdef int d
    for d in range(DIRECTIONS):
        if NEIGHBOR[start * DIRECTIONS + d] == end:
            return d
    return -1


def _narrate(effect) -> str:
    seat, action, pawn, start, end, build = effect
    who = f"Player {seat + 1}"
    if start < 0:
        return f"{who} placed pawn {PAWN_LETTERS[pawn]} at {_position(end)}"
    if build < 0:
        return f"{who} moved pawn {PAWN_LETTERS[pawn]} from {_position(start)} up to {_position(end)}, level 3"
    return f"{who} moved pawn {PAWN_LETTERS[pawn]} from {_position(start)} to {_position(end)} and built on {_position(build)}"


cdef class SantoriniState(State):
    cdef bint forced                    # forced pawn alternation
    cdef int level[CELLS]
    cdef int occupant[CELLS]            # pawn index on the square, or NO_PAWN
    cdef int pawn_cell[PAWNS]           # square of each pawn, or -1 before it is placed
    cdef int decisions                  # placements and turns played; the next is taken by seat decisions % 2
    cdef int winner                     # seat, or -1 while the game is on
    cdef int reason                     # NOT_OVER, CLIMBED or STUCK

    def __init__(self, game, bint forced):
        super().__init__(game, 2)
        cdef int i
        self.forced = forced
        for i in range(CELLS):
            self.level[i] = 0
            self.occupant[i] = NO_PAWN
        for i in range(PAWNS):
            self.pawn_cell[i] = -1
        self.decisions = 0
        self.winner = -1
        self.reason = NOT_OVER

    # ---- rules in C ------------------------------------------------------------------------------
    cdef inline int _forced_pawn(self) noexcept:
        # Placement and forced alternation both cycle A, X, B, Y.
        return self.decisions % PAWNS

    cdef bint _can_enter(self, int start, int end) noexcept:
        return end >= 0 and self.occupant[end] == NO_PAWN and self.level[end] < DOME \
            and self.level[end] - self.level[start] <= 1

    cdef bint _pawn_can_move(self, int pawn) noexcept:
        cdef int start = self.pawn_cell[pawn], d
        for d in range(DIRECTIONS):
            if self._can_enter(start, NEIGHBOR[start * DIRECTIONS + d]):
                return True
        return False

    cdef bint _can_take_turn(self, int player) noexcept:
        if self.forced:
            return self._pawn_can_move(self._forced_pawn())
        return self._pawn_can_move(player) or self._pawn_can_move(player + 2)

    cdef int _pawn_of(self, int player, int action) noexcept:
        if self.forced:
            return self._forced_pawn()
        return player + 2 * ((action - FIRST_TURN_ID) // PLAYS_PER_PAWN)

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0:
            return TERMINAL_PLAYER
        return self.decisions % 2

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int n = 0, cell, slot, pawn, start, m, b, end, build, base
        if self.winner >= 0 or player != self.decisions % 2:
            return 0
        if self.decisions < PAWNS:
            for cell in range(CELLS):
                if self.occupant[cell] == NO_PAWN and self.level[cell] < DOME:
                    out[n] = cell
                    n += 1
            return n
        for slot in range(2):
            pawn = player + 2 * slot
            if self.forced and pawn != self._forced_pawn():
                continue
            base = FIRST_TURN_ID + (0 if self.forced else slot * PLAYS_PER_PAWN)
            start = self.pawn_cell[pawn]
            for m in range(DIRECTIONS):
                end = NEIGHBOR[start * DIRECTIONS + m]
                if not self._can_enter(start, end):
                    continue
                for b in range(DIRECTIONS):
                    build = NEIGHBOR[end * DIRECTIONS + b]
                    # The square the pawn leaves is free to build on.
                    if build < 0 or self.level[build] >= DOME or (self.occupant[build] != NO_PAWN and build != start):
                        continue
                    out[n] = base + m * DIRECTIONS + b
                    n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int player = self.decisions % 2
        cdef int pawn, start, end, play
        if action < FIRST_TURN_ID:
            pawn = self._forced_pawn()
            self.pawn_cell[pawn] = action
            self.occupant[action] = pawn
        else:
            pawn = self._pawn_of(player, action)
            play = (action - FIRST_TURN_ID) % PLAYS_PER_PAWN
            start = self.pawn_cell[pawn]
            end = NEIGHBOR[start * DIRECTIONS + play // DIRECTIONS]
            self.occupant[start] = NO_PAWN
            self.occupant[end] = pawn
            self.pawn_cell[pawn] = end
            if self.level[end] == WINNING_LEVEL:
                self.decisions += 1
                self.winner = player
                self.reason = CLIMBED
                return
            self.level[NEIGHBOR[end * DIRECTIONS + play % DIRECTIONS]] += 1
        self.decisions += 1
        if self.decisions >= PAWNS and not self._can_take_turn(1 - player):
            self.winner = player
            self.reason = STUCK

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0

    cdef State c_clone(self):
        cdef SantoriniState s = SantoriniState.__new__(SantoriniState)
        self._copy_base_into(s)
        s.forced = self.forced
        memcpy(s.level, self.level, sizeof(self.level))
        memcpy(s.occupant, self.occupant, sizeof(self.occupant))
        memcpy(s.pawn_cell, self.pawn_cell, sizeof(self.pawn_cell))
        s.decisions = self.decisions
        s.winner = self.winner
        s.reason = self.reason
        return s

    # ---- views --------------------------------------------------------------------------------
    def _pawn_to_play(self):
        """The pawn index to place or play now, or None (game over; free choice of pawn)."""
        if self.winner >= 0 or (self.decisions >= PAWNS and not self.forced):
            return None
        return self._forced_pawn()

    def action_to_string(self, int player, int action) -> str:
        check_seat("santorini", player)
        last = FIRST_TURN_ID + PLAYS_PER_PAWN * (1 if self.forced else 2)
        if not 0 <= action < last:
            raise ValueError(f"santorini actions are 0-{last - 1}, not {action}")
        if action < FIRST_TURN_ID:
            return _position(action)
        play = (action - FIRST_TURN_ID) % PLAYS_PER_PAWN
        moves = f"{DIRECTION_NAMES[play // DIRECTIONS]}, build {DIRECTION_NAMES[play % DIRECTIONS]}"
        if self.forced:
            return "Move " + moves
        return f"Move pawn {PAWN_LETTERS[player + 2 * ((action - FIRST_TURN_ID) // PLAYS_PER_PAWN)]} " + moves

    def _describe(self, int player, int action) -> str:
        """GameBench's description of a legal action of the seat to play (its destination corrected)."""
        if action < FIRST_TURN_ID:
            return f"Place pawn {PAWN_LETTERS[self._forced_pawn()]} at {_position(action)}."
        pawn = self._pawn_of(player, action)
        play = (action - FIRST_TURN_ID) % PLAYS_PER_PAWN
        start = self.pawn_cell[pawn]
        end = NEIGHBOR[start * DIRECTIONS + play // DIRECTIONS]
        build = NEIGHBOR[end * DIRECTIONS + play % DIRECTIONS]
        return (f"Move pawn {PAWN_LETTERS[pawn]} from {_position(start)} to {_position(end)} and then build a "
                f"block on {_position(build)}.")

    def parse_action(self, int player, str text) -> int:
        check_seat("santorini", player)
        answer = gamebench_answer(text)
        if self.decisions < PAWNS:
            return self._parse_placement(answer)
        return self._parse_play(player, answer)

    def _parse_placement(self, str answer) -> int:
        match = last_match(_PLACEMENT, answer)
        if match is None:
            raise ActionParseError(f"could not read a position from {answer!r}. {self._answer_help()}")
        return self._parsed_cell(match.group(1), match.group(2))

    def _parse_play(self, int player, str answer) -> int:
        match = last_match(_PLAY, answer)
        if match is not None:
            move = _direction_index(match.group(2), match.group(3))
            build = _direction_index(match.group(4), match.group(5))
            if move < 0 or build < 0:
                raise ActionParseError(f"could not read two directions from {match.group(0)!r}. "
                                       f"{self._answer_help()}")
            letter = match.group(1)
            return self._play_id(player, PAWN_LETTERS.index(letter.upper()) if letter else -1, move, build)
        described = last_match(_DESCRIBED_PLAY, answer)
        if described is None:
            raise ActionParseError(f"could not read a move from {answer!r}. {self._answer_help()}")
        start, end, build_cell = (self._parsed_cell(described.group(i), described.group(i + 1)) for i in (1, 3, 5))
        move, build = _step_direction(start, end), _step_direction(end, build_cell)
        if move < 0 or build < 0:
            raise ActionParseError(f"{described.group(0)!r}: a pawn moves one square and builds on a square next "
                                   f"to its new one. {self._answer_help()}")
        pawn = self.occupant[start]
        if pawn == NO_PAWN:
            raise ActionParseError(f"there is no pawn on {_position(start)}. {self._answer_help()}")
        return self._play_id(player, pawn, move, build)

    def _parsed_cell(self, str row_text, str col_text) -> int:
        row, col = int(row_text), int(col_text)
        if not (0 <= row < SIDE and 0 <= col < SIDE):
            raise ActionParseError(f"({row}, {col}) is off the board: rows and columns are 0-4. "
                                   f"{self._answer_help()}")
        return row * SIDE + col

    def _play_id(self, int player, int pawn, int move, int build) -> int:
        """The id of `pawn` (-1: the pawn to play) moving in direction `move` and building in `build`."""
        play = move * DIRECTIONS + build
        if self.forced:
            if pawn >= 0 and pawn != self._forced_pawn():
                raise ActionParseError(f"this turn you play pawn {PAWN_LETTERS[self._forced_pawn()]}, not "
                                       f"{PAWN_LETTERS[pawn]}. {self._answer_help()}")
            return FIRST_TURN_ID + play
        if pawn < 0:
            raise ActionParseError(f"name the pawn you move. {self._answer_help()}")
        if pawn % 2 != player:
            raise ActionParseError(f"pawn {PAWN_LETTERS[pawn]} is not yours. {self._answer_help()}")
        return FIRST_TURN_ID + (pawn // 2) * PLAYS_PER_PAWN + play

    def _answer_help(self) -> str:
        if self.decisions < PAWNS:
            return 'Answer with the position of the square as "(row, column)", rows and columns 0-4, e.g. "(2, 3)".'
        example = "Move north, build east" if self.forced else "Move pawn A north, build east"
        return (f'Answer "{example}": the direction the pawn moves, then the direction from its new square '
                f"to the square you build on; directions are {', '.join(DIRECTION_NAMES)} (north is up).")

    def default_action(self, int player):
        return None     # GameBench plays a uniformly random legal action instead (the referee's policy)

    def text_action_spec(self, int player):
        if not self.legal_actions(player):
            return None
        return {"description": self._answer_help(), "max_length": 4000, "forbidden_words": []}

    # ---- observations -------------------------------------------------------------------------
    def _board_rows(self) -> list:
        """GameBench's text board: each square's level, then its pawn's letter or "."."""
        return [" ".join(f"{self.level[r * SIDE + c]}"
                         f"{PAWN_LETTERS[self.occupant[r * SIDE + c]] if self.occupant[r * SIDE + c] != NO_PAWN else '.'}"
                         for c in range(SIDE)) for r in range(SIDE)]

    def _pawns(self) -> dict:
        return {PAWN_LETTERS[p]: ([self.pawn_cell[p] // SIDE, self.pawn_cell[p] % SIDE] if self.pawn_cell[p] >= 0
                                  else None) for p in (0, 2, 1, 3)}

    def _phase(self) -> str:
        if self.winner >= 0:
            return "over"
        return "placement" if self.decisions < PAWNS else "play"

    def _moves(self) -> list:
        """What each decision so far did: (seat, action, pawn, start square or -1, end square, build
        square or -1), replayed from the start."""
        replay = self.game.new_initial_state()
        out = []
        for seat, action in self._history:
            out.append(replay._effect(seat, action))
            replay.apply_action(action)
        return out

    def _effect(self, int seat, int action) -> tuple:
        if action < FIRST_TURN_ID:
            return seat, action, self._forced_pawn(), -1, action, -1
        pawn = self._pawn_of(seat, action)
        play = (action - FIRST_TURN_ID) % PLAYS_PER_PAWN
        start = self.pawn_cell[pawn]
        end = NEIGHBOR[start * DIRECTIONS + play // DIRECTIONS]
        climbed = self.level[end] == WINNING_LEVEL
        return seat, action, pawn, start, end, -1 if climbed else NEIGHBOR[end * DIRECTIONS + play % DIRECTIONS]

    def _last_move(self):
        if not self._history:
            return None
        return _narrate(self._moves()[-1])

    def _rules_text(self) -> str:
        pawn_rule = ("The pawn you play is not chosen: you alternate between your two pawns, starting with your "
                     "first (turns go A, X, B, Y, A, ...)." if self.forced else
                     "Each turn you choose which of your pawns to play.")
        stuck = ("the pawn your opponent must play next cannot move" if self.forced
                 else "neither of your opponent's pawns can move")
        return ("Rules: the board has 5 x 5 squares, each at a level from 0 to 4, all starting at 0. First the "
                "players place their pawns one at a time, in the order A, X, B, Y, on squares without a pawn. "
                "Then they take turns, player 1 first. " + pawn_rule + " A turn is a move, then a build: move the "
                "pawn one square in any of the 8 directions onto a square with no pawn, not at level 4 and at most "
                "one level higher than the pawn's square (going down any number of levels is fine); then add one "
                "level to a square next to the pawn's new square that has no pawn and is below level 4. A square "
                "at level 4 is complete: no pawn enters it and nothing is built on it. You win at once by moving a "
                "pawn onto a level-3 square, and you win when " + stuck + ".")

    def _pawn_lines(self) -> str:
        parts = []
        for p in (0, 2, 1, 3):
            cell = self.pawn_cell[p]
            where = f"{_position(cell)}, level {self.level[cell]}" if cell >= 0 else "not placed yet"
            parts.append(f"{PAWN_LETTERS[p]} {where}")
        return "Pawns: " + "; ".join(parts) + "."

    def observation_string(self, int player) -> str:
        check_seat("santorini", player)
        mine, theirs = PAWN_LETTERS[player], PAWN_LETTERS[player + 2]
        other, other2 = PAWN_LETTERS[1 - player], PAWN_LETTERS[3 - player]
        lines = [f"Santorini. You are player {player + 1} and control pawns {mine} and {theirs}; your opponent, "
                 f"player {2 - player}, controls pawns {other} and {other2}.",
                 self._rules_text(),
                 "Board (row 0 at the top, column 0 at the left; positions are (row, column), north is up): each "
                 "square shows its level, 0 to 4, then the letter of the pawn on it or \".\" when it has none.",
                 ""]
        lines += self._board_rows()
        lines += ["", self._pawn_lines()]
        last = self._last_move()
        if last:
            lines.append(f"Last move: {last}.")
        lines.append(self._status(player))
        return "\n".join(lines)

    def _status(self, int player) -> str:
        if self.winner >= 0:
            return f"The game is over: {self.result_summary()}."
        to_play = self.decisions % 2
        pawn = self._pawn_to_play()
        if to_play != player:
            doing = "place" if self.decisions < PAWNS else "play"
            which = f"pawn {PAWN_LETTERS[pawn]}" if pawn is not None else "a pawn"
            return f"Waiting for player {to_play + 1} to {doing} {which}."
        # The legal actions come with every decision request; the text does not repeat them.
        if self.decisions < PAWNS:
            return (f"Pawn placement: place pawn {PAWN_LETTERS[pawn]} on a square without a pawn. "
                    f"{self._answer_help()}")
        turn = (self.decisions - PAWNS) // 2 + 1
        which = f"you play pawn {PAWN_LETTERS[pawn]}" if pawn is not None else "choose a pawn"
        return f"Your turn {turn}: {which}, move it and build next to its new square. {self._answer_help()}"

    def observation_dict(self, int player) -> dict:
        check_seat("santorini", player)
        to_play = self.c_current_player()
        pawn = self._pawn_to_play()
        return {
            "player": player + 1,
            "my_pawns": [PAWN_LETTERS[player], PAWN_LETTERS[player + 2]],
            "opponent_pawns": [PAWN_LETTERS[1 - player], PAWN_LETTERS[3 - player]],
            "forced_alternation": bool(self.forced),
            "board": self._board_rows(),
            "levels": [[self.level[r * SIDE + c] for c in range(SIDE)] for r in range(SIDE)],
            "pawns": self._pawns(),
            "phase": self._phase(),
            "to_play": to_play if to_play >= 0 else None,
            "pawn_to_play": PAWN_LETTERS[pawn] if pawn is not None else None,
            # GameBench's predefined actions: action id -> description.
            "actions": {self.action_to_string(player, a): self._describe(player, a) for a in self.legal_actions(player)},
            "last_move": self._last_move(),
            "history": [[seat, action] for seat, action in self._history],
            "winner": self.winner if self.winner >= 0 else None,
        }

    def public_history(self) -> list:
        return [(seat, action, _narrate(effect)) for (seat, action), effect in zip(self._history, self._moves())]

    def _reason_text(self) -> str:
        if self.reason == CLIMBED:
            return f"pawn {PAWN_LETTERS[self._moves()[-1][2]]} moved up onto level 3"
        loser = 1 - self.winner
        if self.forced:
            return f"player {loser + 1}'s pawn {PAWN_LETTERS[self._forced_pawn()]} cannot move"
        return f"neither of player {loser + 1}'s pawns can move"

    def result_summary(self) -> str:
        if self.winner < 0:
            return "game in progress"
        return f"player {self.winner + 1} wins ({self._reason_text()})"

    def result_details(self) -> dict:
        over = self.winner >= 0
        return {
            "winner": self.winner if over else None,
            "reason": ("climbed" if self.reason == CLIMBED else "stuck") if over else None,
            "explanation": self._reason_text() if over else None,
            "scores": self.returns(),
            "turns": max(0, self.decisions - PAWNS),
            "board": self._board_rows(),
            "pawns": self._pawns(),
            "moves": [_narrate(effect) for effect in self._moves()],
        }


class Game(GameBase):
    """Two-player Santorini on santorinai's 5 x 5 board, GameBench's rules."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        if not isinstance(self.parameters["forced_alternation"], bool):
            raise ValueError(f"parameter 'forced_alternation' must be true or false, "
                             f"not {self.parameters['forced_alternation']!r}")

    def new_initial_state(self) -> SantoriniState:
        return SantoriniState(self, self.parameters["forced_alternation"])

    def state_from_view(self, int player, dict view) -> SantoriniState:
        """The state seat `player` observes: a replay of the move history (perfect information)."""
        check_seat("santorini", player)
        return self.replay(view["history"])
