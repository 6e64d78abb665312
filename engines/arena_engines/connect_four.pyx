"""Connect Four, as played in LLMArena and GTBench.

Rules. A vertical grid of 6 rows and 7 columns; X (seat 0) moves first, then the players alternate,
each dropping a piece into a column that is not full; the piece falls to the lowest empty cell. Four of
one's pieces in a line (horizontal, vertical or either diagonal) wins (+1 / -1); a full board without
such a line is a draw (0, 0). A full column, or any move after the end, is illegal.

Actions. Action id = column, 0-6 from the left, as in OpenSpiel. The canonical action text is
LLMArena's answer format with the acting seat's mark and the 1-based column: "X: 4" is action 3.

Parsing (`parse_action`) tries, in order:
  1. LLMArena's answer "X: 4" (mark, colon, column number): the first match;
  2. GTBench's answers "<C4>" and "column 4" ("column" followed within 3 characters by the number):
     the LAST match of either, as GTBench's parser takes the last match in a reply.
Chatter around the answer is ignored. A full column is returned as parsed, so that the referee can
tell an unparseable answer (ActionParseError) from an illegal move (`is_legal` is False).

Observation. As LLMArena: the agent's mark, a header line with the column numbers 1-7, then the six
rows as "| _ | X | ... |" with the top row first, then the available columns.

Presets. Neither preset changes a rule; each names the answer format its suite uses (the arena shows
every agent the same observation and accepts both formats):
  - "llmarena": answers "X: 4" (1-based column), the board rendered as text;
  - "gtbench": answers "<C4>"; GTBench shows only the move histories.

Ambiguities and choices.
  - The mark written in an answer is not checked, as in LLMArena's parser.
  - A column number outside 1-7 is refused with ActionParseError; GTBench's parser would clamp it to
    column 7, turning a nonsense answer into a move.
  - What happens after an unparseable or illegal answer (LLMArena: retries, then the offender loses;
    GTBench: the match is void and replayed) is the referee's policy, not the engine's.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import last_match
from arena_engines.spec import GameBase, GameSpec, Preset

cdef enum:
    ROWS = 6
    COLS = 7
    CELLS = 42

SPEC = GameSpec(
    game_id="connect_four",
    display_name="Connect Four",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="zero_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=CELLS,
    description="6 rows x 7 columns, pieces drop to the lowest empty cell, X moves first, four in a row "
                "in any direction wins; a full board without a line is a draw.",
    parameters=(),
    presets=(
        Preset("llmarena", "LLMArena (Chen et al., ACL 2024): answer with your mark and the column as "
               "'X: 4' (columns 1-7 from the left); the board is rendered as text.", {}),
        Preset("gtbench", "GTBench (Duan et al., 2024): answer '<C4>' (columns 1-7 from the left); "
               "'column 4' is read as well.", {}),
    ),
)

MARKS = ("X", "O")

# The four line directions as (row step, column step); each is also walked backwards.
cdef int DIRECTIONS[4][2]
DIRECTIONS[:] = [[0, 1], [1, 0], [1, 1], [1, -1]]

_CANONICAL = re.compile(r"\b([XO])\s*:\s*(\d+)", re.IGNORECASE)
_GTBENCH = re.compile(r"<\s*C\s*(\d+)\s*>|\bcolumn\D{0,3}?(\d+)", re.IGNORECASE)


def _mark(int player) -> str:
    if player != 0 and player != 1:
        raise ValueError(f"connect four has seats 0 and 1, not {player}")
    return MARKS[player]


cdef class ConnectFourState(State):
    cdef int cells[CELLS]     # row-major from the bottom row: cells[row * COLS + col]; 0 empty, 1 X, 2 O
    cdef int heights[COLS]    # pieces in each column
    cdef int to_move
    cdef int filled
    cdef int winner           # -1 while no line is complete

    def __init__(self, game):
        super().__init__(game, 2)
        self.to_move = 0
        self.filled = 0
        self.winner = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0 or self.filled == CELLS:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int col, n = 0
        if self.winner >= 0:
            return 0
        for col in range(COLS):
            if self.heights[col] < ROWS:
                out[n] = col
                n += 1
        return n

    cdef int _run(self, int row, int col, int dr, int dc, int mark) noexcept:
        """Pieces of `mark` next to (row, col) walking in direction (dr, dc), excluding the cell."""
        cdef int n = 0
        row += dr
        col += dc
        while 0 <= row < ROWS and 0 <= col < COLS and self.cells[row * COLS + col] == mark:
            n += 1
            row += dr
            col += dc
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int mark = self.to_move + 1
        cdef int row = self.heights[action]
        cdef int d, dr, dc
        self.cells[row * COLS + action] = mark
        self.heights[action] += 1
        self.filled += 1
        # Only lines through the new piece can be new.
        for d in range(4):
            dr = DIRECTIONS[d][0]
            dc = DIRECTIONS[d][1]
            if 1 + self._run(row, action, dr, dc, mark) + self._run(row, action, -dr, -dc, mark) >= 4:
                self.winner = self.to_move
                break
        self.to_move = 1 - self.to_move

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0
            out[1 - self.winner] = -1.0

    cdef State c_clone(self):
        cdef ConnectFourState s = ConnectFourState.__new__(ConnectFourState)
        self._copy_base_into(s)
        memcpy(s.cells, self.cells, sizeof(self.cells))
        memcpy(s.heights, self.heights, sizeof(self.heights))
        s.to_move = self.to_move
        s.filled = self.filled
        s.winner = self.winner
        return s

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if not 0 <= action < COLS:
            raise ValueError(f"connect four actions are 0-6, not {action}")
        return f"{_mark(player)}: {action + 1}"

    def parse_action(self, int player, str text) -> int:
        match = _CANONICAL.search(text)
        if match:
            column = int(match.group(2))
        else:
            match = last_match(_GTBENCH, text)
            if match is None:
                raise ActionParseError(f"could not read a column from {text!r}. {self._answer_help(player)}")
            column = int(match.group(1) or match.group(2))
        if not 1 <= column <= COLS:
            raise ActionParseError(f"there is no column {column}: columns are 1-7. {self._answer_help(player)}")
        return column - 1

    def _answer_help(self, int player) -> str:
        mark = _mark(player)
        return (f"Answer with your mark and a column number from 1 to 7 (left to right) as '{mark}: 4', "
                f"or as '<C4>'.")

    cdef str _cell_text(self, int row, int col):
        cdef int v = self.cells[row * COLS + col]
        return MARKS[v - 1] if v else ""

    def observation_string(self, int player) -> str:
        mark = _mark(player)
        lines = [f"Connect Four. You play {mark}; X moves first. Pieces drop to the lowest empty cell "
                 "of the chosen column.",
                 "Board (top row first; _ is empty):",
                 "  " + "   ".join(str(c + 1) for c in range(COLS))]
        for row in reversed(range(ROWS)):
            lines.append("| " + " | ".join(self._cell_text(row, c) or "_" for c in range(COLS)) + " |")
        if self.is_terminal():
            lines.append(f"The game is over: {self.result_summary()}.")
        elif self.to_move == player:
            columns = ", ".join(str(a + 1) for a in self.legal_actions(player))
            lines.append(f"Your move. Available columns: {columns}")
        else:
            lines.append(f"Waiting for {MARKS[self.to_move]} to move.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        to_play = self.c_current_player()
        return {
            "board": [[self._cell_text(row, c) for c in range(COLS)] for row in reversed(range(ROWS))],
            "mark": _mark(player),
            "to_play": to_play if to_play >= 0 else None,
            "legal_columns": [a + 1 for a in self.legal_actions()],
        }

    def result_summary(self) -> str:
        if self.winner >= 0:
            return f"{MARKS[self.winner]} wins"
        if self.filled == CELLS:
            return "draw"
        return "game in progress"

    def result_details(self) -> dict:
        return {"winner": self.winner if self.winner >= 0 else None, "moves": self.filled}


class Game(GameBase):
    """Connect Four for exactly two seats; it has no rule parameters."""

    spec = SPEC

    def new_initial_state(self) -> ConnectFourState:
        return ConnectFourState(self)

    def state_from_view(self, int player, dict view) -> ConnectFourState:
        """The position shown in `view` (an observation_dict): the board is the whole state. The
        order of the moves is not shown, so the rebuilt state has an empty history()."""
        return _state_from_board(self, view["board"])


cdef ConnectFourState _state_from_board(game, list board):
    cdef ConnectFourState s = ConnectFourState(game)
    cdef int row, col, d, mark
    for row in range(ROWS):
        for col in range(COLS):
            text = board[ROWS - 1 - row][col]     # the view lists the top row first
            if text:
                s.cells[row * COLS + col] = MARKS.index(text) + 1
                s.heights[col] += 1
                s.filled += 1
    s.to_move = s.filled % 2
    s.move_number = s.filled
    for row in range(ROWS):
        for col in range(COLS):
            mark = s.cells[row * COLS + col]
            if not mark:
                continue
            for d in range(4):
                if 1 + s._run(row, col, DIRECTIONS[d][0], DIRECTIONS[d][1], mark) >= 4:
                    s.winner = mark - 1
    return s
