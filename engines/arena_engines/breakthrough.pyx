"""Breakthrough, as played in GTBench (OpenSpiel's `breakthrough` with 3 columns).

Rules (OpenSpiel's). A board of "rows" x "columns" squares, columns lettered a, b, ... from the left
and rows numbered 1 at the bottom up to "rows" at the top. Black (seat 0) starts on the two top rows
and moves first, down the board; white (seat 1) starts on the two bottom rows and moves up. Boards of
fewer than 6 rows start with one row of pawns each. A move takes one pawn one square forward,
straight or diagonally, onto an empty square; a diagonal move may also capture an opponent's pawn
on its destination (at most one, and capturing is never forced). A pawn never captures straight
ahead, so a pawn facing any pawn straight ahead is blocked in that direction. The first player to
put a pawn on the far row (row 1 for black, the top row for white), or to capture every opponent
pawn, wins (+1 / -1). There are no draws: the most advanced pawn of the side to move always has a
diagonal move, so a side with pawns always has a move.

Actions. OpenSpiel's ids: action = ((r * columns + c) * 6 + direction) * 2 + capture, where (r, c) is
the source square with r counted from the TOP row (r = 0 is row "rows"), direction 0-2 are black's
moves (down-left, down, down-right) and 3-5 white's (up-left, up, up-right), and capture is 1 when
the destination holds an opponent's pawn. The action text is GTBench's notation without the angle
brackets: source, "->", destination, and "*" for a capture, e.g. "a7->a6", "b7->a6*".

Parsing (`parse_action`): the LAST move in the reply (GTBench takes the last match), written as two
squares joined by "->" (GTBench's "<a7->a6>"), by a single dash ("a7-a6", the paper's examples) or
by nothing (OpenSpiel's "a7a6"); case and angle brackets do not matter. The capture flag is not
trusted: the capture bit is read from the board (set when the destination holds a pawn of the other
side). The result is an in-range id even when the move is illegal (wrong pawn, occupied square,
straight capture, backward step), so the referee can tell an illegal move from an unparseable
answer. A square off the board, or two squares that are not one step apart, raises ActionParseError.

Presets. "rows" (2-26) and "columns" (2-26) default to OpenSpiel's 8 x 8. Preset "gtbench": 8 rows x
3 columns (gtbench.md §2.4), answers "<a7->a6>".

Ambiguities (gtbench.md §6 item 11 and §2.4):
  - The paper's "3*8" board is 3 columns (a-c, as in its examples) by 8 rows (OpenSpiel's default,
    which GTBench's code keeps while setting columns = 3).
  - Black (seat 0, top rows) moves first, as in OpenSpiel.
  - GTBench's parser accepts only "a7->a6" with lower-case a-c and rows 1-8, so the paper's own
    single-dash examples were unparseable there; the recommended resolution accepts both forms in
    the arena parser, which this parser does (plus OpenSpiel's "a7a6" and any case).
  - A mis-stated capture flag is corrected, as GTBench's parser does (it retries with the flag
    flipped); reading the flag from the board gives the same id whenever either attempt is legal.
  - Ending the match at an unparseable or illegal move (GTBench) is the referee's policy.

Observation. As GTBench: the board as rows of "b", "w" and "." with the row number in front (top
row first, OpenSpiel's rendering; `observation_dict` "board" is GTBench's list of row strings), the
opponent's and the agent's own moves so far, and the legal moves.

Length. Every move advances one pawn one row, and a pawn can make at most (its distance to the far
row) - 1 moves before the move that wins, so a game lasts at most 2 * columns * D + 1 moves, where
D = (rows - 2) + (rows - 3) with two rows of pawns and rows - 2 with one (67 moves for 8 x 3, 177
for 8 x 8; OpenSpiel's looser bound is 2 * (2 * rows - 3) * columns + 1). The spec's
max_game_length is this bound for the largest board, 26 x 26.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_SIDE = 26
    MAX_CELLS = MAX_SIDE * MAX_SIDE
    DIRECTIONS = 6
    EMPTY = 0          # a cell holds EMPTY or seat + 1
    FULL_SETUP_ROWS = 6  # boards with at least this many rows start with two rows of pawns each


def max_game_length(int rows, int columns) -> int:
    """The most moves a game on this board can last (see the module docstring)."""
    cdef int per_column = rows - 2
    if rows >= FULL_SETUP_ROWS:
        per_column += rows - 3
    return 2 * columns * per_column + 1


SPEC = GameSpec(
    game_id="breakthrough",
    display_name="Breakthrough",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="zero_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=max_game_length(MAX_SIDE, MAX_SIDE),
    description="Pawns move one square forward, straight or diagonally; diagonal moves may capture. "
                "First to reach the far row, or to capture every opponent pawn, wins.",
    parameters=(
        Parameter("rows", 8, "number of rows, 2-26 (two rows of pawns each from 6 rows up)"),
        Parameter("columns", 8, "number of columns, 2-26"),
    ),
    presets=(
        Preset("gtbench", "GTBench (Duan et al., 2024): 8 rows x 3 columns; answer '<a7->a6>' (source, "
               "'->', destination; '*' marks a capture, e.g. '<b7->a6*>').", {"rows": 8, "columns": 3}),
    ),
)

COLORS = ("black", "white")
PAWNS = ".bw"   # cell value -> board letter

# Step of each direction: black's three (down the board, r increasing), then white's three.
cdef int DIR_ROW[DIRECTIONS]
cdef int DIR_COL[DIRECTIONS]
DIR_ROW[:] = [1, 1, 1, -1, -1, -1]
DIR_COL[:] = [-1, 0, 1, -1, 0, 1]

# Two squares joined by "->" or "-" (spaces allowed around it) or written together: "a7->a6", "a7 - a6",
# "a7a6"; an optional "*". Two squares separated only by a space ("b6 c5") are prose, not a move.
_MOVE = re.compile(r"(?<![a-z0-9])([a-z])(\d+)(?:\s*(?:->|-)\s*)?([a-z])(\d+)(?!\d)\s*(\*)?", re.IGNORECASE)


def _color(int player) -> str:
    if player != 0 and player != 1:
        raise ValueError(f"breakthrough has seats 0 and 1, not {player}")
    return COLORS[player]


cdef class BreakthroughState(State):
    cdef int rows
    cdef int cols
    cdef int board[MAX_CELLS]   # board[r * cols + c], r = 0 the top row; EMPTY or seat + 1
    cdef int pawns[2]           # pawns left per seat
    cdef int to_move
    cdef int winner             # -1 while the game is on

    def __init__(self, game, int rows, int cols):
        super().__init__(game, 2)
        cdef int r, c, setup_rows = 2 if rows >= FULL_SETUP_ROWS else 1
        self.rows = rows
        self.cols = cols
        for r in range(rows):
            for c in range(cols):
                if r < setup_rows:
                    self.board[r * cols + c] = 1
                elif r >= rows - setup_rows:
                    self.board[r * cols + c] = 2
                else:
                    self.board[r * cols + c] = EMPTY
        self.pawns[0] = setup_rows * cols
        self.pawns[1] = setup_rows * cols
        self.to_move = 0
        self.winner = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        # Squares in row-major order, then directions in increasing order: ids come out increasing.
        cdef int r, c, d, r2, c2, target, n = 0
        cdef int own = player + 1
        if self.winner >= 0:
            return 0
        for r in range(self.rows):
            for c in range(self.cols):
                if self.board[r * self.cols + c] != own:
                    continue
                for d in range(3 * player, 3 * player + 3):
                    r2 = r + DIR_ROW[d]
                    c2 = c + DIR_COL[d]
                    if r2 < 0 or r2 >= self.rows or c2 < 0 or c2 >= self.cols:
                        continue
                    target = self.board[r2 * self.cols + c2]
                    if target == EMPTY:
                        out[n] = ((r * self.cols + c) * DIRECTIONS + d) * 2
                        n += 1
                    elif target != own and DIR_COL[d] != 0:
                        out[n] = ((r * self.cols + c) * DIRECTIONS + d) * 2 + 1
                        n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int square = action // (DIRECTIONS * 2)
        cdef int d = (action // 2) % DIRECTIONS
        cdef int r2 = square // self.cols + DIR_ROW[d]
        cdef int c2 = square % self.cols + DIR_COL[d]
        cdef int opponent = 1 - self.to_move
        if self.board[r2 * self.cols + c2] == opponent + 1:
            self.pawns[opponent] -= 1
        self.board[r2 * self.cols + c2] = self.to_move + 1
        self.board[square] = EMPTY
        if (self.to_move == 0 and r2 == self.rows - 1) or (self.to_move == 1 and r2 == 0) \
                or self.pawns[opponent] == 0:
            self.winner = self.to_move
        self.to_move = opponent

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0
            out[1 - self.winner] = -1.0

    cdef State c_clone(self):
        cdef BreakthroughState s = BreakthroughState.__new__(BreakthroughState)
        self._copy_base_into(s)
        s.rows = self.rows
        s.cols = self.cols
        memcpy(s.board, self.board, sizeof(self.board))
        memcpy(s.pawns, self.pawns, sizeof(self.pawns))
        s.to_move = self.to_move
        s.winner = self.winner
        return s

    # ---- views --------------------------------------------------------------------------------
    def _square(self, int r, int c) -> str:
        return f"{chr(ord('a') + c)}{self.rows - r}"

    def action_to_string(self, int player, int action) -> str:
        if not 0 <= action < self.rows * self.cols * DIRECTIONS * 2:
            raise ValueError(f"breakthrough actions on this board are "
                             f"0-{self.rows * self.cols * DIRECTIONS * 2 - 1}, not {action}")
        square, d = action // (DIRECTIONS * 2), (action // 2) % DIRECTIONS
        r, c = square // self.cols, square % self.cols
        r2, c2 = r + DIR_ROW[d], c + DIR_COL[d]
        if not (0 <= r2 < self.rows and 0 <= c2 < self.cols):
            raise ValueError(f"action {action} moves off the board")
        return f"{self._square(r, c)}->{self._square(r2, c2)}" + ("*" if action % 2 else "")

    def parse_action(self, int player, str text) -> int:
        _color(player)
        match = last_match(_MOVE, text)
        if match is None:
            raise ActionParseError(f"could not read a move from {text!r}. {self._answer_help()}")
        r1, c1 = self._parse_square(match.group(1), match.group(2))
        r2, c2 = self._parse_square(match.group(3), match.group(4))
        for d in range(DIRECTIONS):
            if r2 - r1 == DIR_ROW[d] and c2 - c1 == DIR_COL[d]:
                break
        else:
            raise ActionParseError(
                f"{self._square(r1, c1)} to {self._square(r2, c2)} is not a move: a pawn moves one "
                f"square forward, straight or diagonally. {self._answer_help()}")
        # GTBench corrects a mis-stated capture flag; the board says whether the move captures.
        capture = 1 if self.board[r2 * self.cols + c2] == 2 - player else 0
        return ((r1 * self.cols + c1) * DIRECTIONS + d) * 2 + capture

    def _parse_square(self, str letter, str digits):
        c, row = ord(letter.lower()) - ord("a"), int(digits)
        if not (0 <= c < self.cols and 1 <= row <= self.rows):
            raise ActionParseError(
                f"{letter}{digits} is off the board: columns are a-{chr(ord('a') + self.cols - 1)}, rows "
                f"1-{self.rows}. {self._answer_help()}")
        return self.rows - row, c

    def _answer_help(self) -> str:
        return ("Answer with the source square, '->' and the destination square in angle brackets, e.g. "
                "'<a7->a6>'; mark a capture with '*', e.g. '<b7->a6*>'.")

    def _board_rows(self) -> list:
        width = len(str(self.rows))
        return [str(self.rows - r).rjust(width)
                + "".join(PAWNS[self.board[r * self.cols + c]] for c in range(self.cols))
                for r in range(self.rows)]

    def _moves_of(self, int seat) -> list:
        return [self.action_to_string(s, a) for s, a in self._history if s == seat]

    def observation_string(self, int player) -> str:
        color = _color(player)
        goal = "down the board, toward row 1" if player == 0 else f"up the board, toward row {self.rows}"
        lines = [f"Breakthrough on {self.rows} rows x {self.cols} columns. You play {color} "
                 f"({PAWNS[player + 1]}): your pawns move {goal}. Black moves first.",
                 "Board (b black, w white, . empty; row numbers on the left, columns lettered below):"]
        lines += self._board_rows()
        lines.append(" " * len(str(self.rows)) + "".join(chr(ord("a") + c) for c in range(self.cols)))
        opponent_moves, own_moves = self._moves_of(1 - player), self._moves_of(player)
        lines.append(f"Your opponent's moves so far: {', '.join(opponent_moves)}." if opponent_moves
                     else "Your opponent has not moved yet.")
        lines.append(f"Your moves so far: {', '.join(own_moves)}." if own_moves else "You have not moved yet.")
        if self.winner >= 0:
            lines.append(f"The game is over: {self.result_summary()}.")
        elif self.to_move == player:
            legal = ", ".join(self.action_to_string(player, a) for a in self.legal_actions(player))
            lines.append(f"Your move. Legal moves: {legal}")
        else:
            lines.append(f"Waiting for {COLORS[self.to_move]} to move.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        to_play = self.c_current_player()
        return {
            "rows": self.rows,
            "columns": self.cols,
            "color": _color(player),
            "board": self._board_rows(),
            "to_play": to_play if to_play >= 0 else None,
            "legal_moves": [self.action_to_string(player, a) for a in self.legal_actions(player)],
            "opponent_moves": self._moves_of(1 - player),
            "self_moves": self._moves_of(player),
            "history": [[seat, action] for seat, action in self._history],
        }

    def _win_reason(self) -> str:
        return "captured every opponent pawn" if self.pawns[1 - self.winner] == 0 else "reached the far row"

    def result_summary(self) -> str:
        if self.winner < 0:
            return "game in progress"
        return f"{COLORS[self.winner]} wins ({self._win_reason()})"

    def result_details(self) -> dict:
        return {
            "winner": self.winner if self.winner >= 0 else None,
            "reason": self._win_reason() if self.winner >= 0 else None,
            "pawns_left": [self.pawns[0], self.pawns[1]],
            "moves": len(self._history),
        }


class Game(GameBase):
    """Breakthrough for two seats on a rows x columns board."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        self.rows = checked_int(self.parameters, "rows", 2, MAX_SIDE)
        self.columns = checked_int(self.parameters, "columns", 2, MAX_SIDE)

    def new_initial_state(self) -> BreakthroughState:
        return BreakthroughState(self, self.rows, self.columns)

    def state_from_view(self, player: int, view: dict) -> BreakthroughState:
        """The state seat `player` observes: a replay of the move history (perfect information)."""
        return self.replay(view["history"])
