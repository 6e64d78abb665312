"""Tic-tac-toe, as played in LLMArena and GTBench.

Rules. A 3x3 grid; X (seat 0) moves first, then the players alternate, each marking one empty cell.
Three of one's marks in a row, column or diagonal wins (+1 for the winner, -1 for the loser); a full
board without such a line is a draw (0, 0). An occupied cell, or any move after the end, is illegal.

Actions. Action id = row * 3 + col, 0-based and row-major, as in OpenSpiel (0 top-left, 8
bottom-right). The canonical action text is LLMArena's answer format with the acting seat's mark and
1-based (row, column): "X: (1, 3)" is action 2.

Parsing (`parse_action`) tries, in order:
  1. LLMArena's canonical answer "X: (r, c)" (mark, colon, parenthesised pair): the first match;
  2. GTBench's "<CxRy>" (column x, row y; the angle brackets may be missing): the LAST match, as
     GTBench's parser takes the last match in a reply;
  3. any parenthesised pair "(r, c)" without a mark (LLMArena's own parser): the first match.
Chatter around the answer is ignored. An in-range cell is returned even if it is occupied, so that
the referee can tell an unparseable answer (ActionParseError) from an illegal move (`is_legal` is
False).

Observation. As LLMArena: the agent's mark, the board rows as "| X | _ | O |" with the top row first,
then the legal cells as comma-joined "(r, c)".

Presets. Neither preset changes a rule; each names the answer format and observation style its suite
uses (the arena shows every agent the same observation and accepts both formats):
  - "llmarena": answers "X: (r, c)" (1-based row, column), the board rendered as text;
  - "gtbench": answers "<CxRy>" (1-based column x, row y); GTBench shows only the move histories.

Ambiguities and choices.
  - The mark written in an answer is not checked: LLMArena's parser reads only the digits.
  - A pair or tag with a number outside 1-3 is refused with ActionParseError rather than skipped or
    clamped.
  - A reply holding both formats is read in the order above; the papers never mix them.
  - GTBench ends a match at the first unparseable or illegal move and LLMArena ends it at a
    parsed-illegal move (after retries for unparseable ones); such policies belong to the referee,
    not to this engine.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import last_match
from arena_engines.spec import GameBase, GameSpec, Preset

SPEC = GameSpec(
    game_id="tic_tac_toe",
    display_name="Tic-tac-toe",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="zero_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=9,
    description="3x3 grid, X moves first, three in a row wins; a full board without a line is a draw.",
    parameters=(),
    presets=(
        Preset("llmarena", "LLMArena (Chen et al., ACL 2024): answer with your mark and the cell as "
               "'X: (row, column)', 1-based, e.g. 'X: (1, 3)'; the board is rendered as text.", {}),
        Preset("gtbench", "GTBench (Duan et al., 2024): answer '<CxRy>' with 1-based column x and row y, "
               "e.g. '<C3R1>'.", {}),
    ),
)

MARKS = ("X", "O")

# The eight lines of three cells: rows, columns, diagonals.
cdef int LINES[8][3]
LINES[:] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]

_CANONICAL = re.compile(r"\b([XO])\s*:\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)", re.IGNORECASE)
_GTBENCH = re.compile(r"\bC\s*(\d+)\s*R\s*(\d+)", re.IGNORECASE)
_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def _mark(int player) -> str:
    if player != 0 and player != 1:
        raise ValueError(f"tic-tac-toe has seats 0 and 1, not {player}")
    return MARKS[player]


cdef class TicTacToeState(State):
    cdef int board[9]      # 0 empty, 1 X, 2 O
    cdef int to_move       # seat to move while the game is on
    cdef int filled        # number of marked cells
    cdef int winner        # -1 while no line is complete
    cdef int win_line      # index into LINES of the completed line, or -1

    def __init__(self, game):
        super().__init__(game, 2)
        self.to_move = 0
        self.filled = 0
        self.winner = -1
        self.win_line = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0 or self.filled == 9:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int cell, n = 0
        if self.winner >= 0:
            return 0
        for cell in range(9):
            if self.board[cell] == 0:
                out[n] = cell
                n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int mark = self.to_move + 1
        cdef int i
        self.board[action] = mark
        self.filled += 1
        for i in range(8):
            if (self.board[LINES[i][0]] == mark and self.board[LINES[i][1]] == mark
                    and self.board[LINES[i][2]] == mark):
                self.winner = self.to_move
                self.win_line = i
                break
        self.to_move = 1 - self.to_move

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0
            out[1 - self.winner] = -1.0

    cdef State c_clone(self):
        cdef TicTacToeState s = TicTacToeState.__new__(TicTacToeState)
        self._copy_base_into(s)
        memcpy(s.board, self.board, sizeof(self.board))
        s.to_move = self.to_move
        s.filled = self.filled
        s.winner = self.winner
        s.win_line = self.win_line
        return s

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if not 0 <= action < 9:
            raise ValueError(f"tic-tac-toe actions are 0-8, not {action}")
        return f"{_mark(player)}: ({action // 3 + 1}, {action % 3 + 1})"

    def parse_action(self, int player, str text) -> int:
        match = _CANONICAL.search(text)
        if match:
            row, col = int(match.group(2)), int(match.group(3))
        else:
            tag = last_match(_GTBENCH, text)
            if tag is not None:
                col, row = int(tag.group(1)), int(tag.group(2))
            else:
                match = _PAIR.search(text)
                if not match:
                    raise ActionParseError(
                        f"could not read a cell from {text!r}. {self._answer_help(player)}")
                row, col = int(match.group(1)), int(match.group(2))
        if not (1 <= row <= 3 and 1 <= col <= 3):
            raise ActionParseError(
                f"row {row}, column {col} is off the board: rows and columns are 1-3. "
                + self._answer_help(player))
        return (row - 1) * 3 + (col - 1)

    def _answer_help(self, int player) -> str:
        mark = _mark(player)
        return (f"Answer with your mark and the cell as '{mark}: (row, column)', e.g. '{mark}: (1, 3)' "
                f"for the top-right cell, or as '<CxRy>' with column x and row y, e.g. '<C3R1>'.")

    cdef str _cell_text(self, int cell):
        return MARKS[self.board[cell] - 1] if self.board[cell] else ""

    def _board_rows(self) -> list:
        return ["| " + " | ".join(self._cell_text(r * 3 + c) or "_" for c in range(3)) + " |"
                for r in range(3)]

    def observation_string(self, int player) -> str:
        mark = _mark(player)
        lines = [f"Tic-tac-toe. You play {mark}; X moves first.",
                 "Board (row 1 at the top, column 1 at the left; _ is empty):"]
        lines += self._board_rows()
        if self.is_terminal():
            lines.append(f"The game is over: {self.result_summary()}.")
        elif self.to_move == player:
            cells = ", ".join(f"({a // 3 + 1}, {a % 3 + 1})" for a in self.legal_actions(player))
            lines.append(f"Your move. Legal cells (row, column): {cells}")
        else:
            lines.append(f"Waiting for {MARKS[self.to_move]} to move.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        to_play = self.c_current_player()
        return {
            "board": [[self._cell_text(r * 3 + c) for c in range(3)] for r in range(3)],
            "mark": _mark(player),
            "to_play": to_play if to_play >= 0 else None,
            "legal_cells": [[a // 3 + 1, a % 3 + 1] for a in self.legal_actions()],
        }

    def result_summary(self) -> str:
        if self.winner >= 0:
            return f"{MARKS[self.winner]} wins"
        if self.filled == 9:
            return "draw"
        return "game in progress"

    def result_details(self) -> dict:
        line = None
        if self.win_line >= 0:
            line = [[LINES[self.win_line][i] // 3 + 1, LINES[self.win_line][i] % 3 + 1] for i in range(3)]
        return {
            "winner": self.winner if self.winner >= 0 else None,
            "winning_line": line,
            "moves": self.filled,
        }


class Game(GameBase):
    """Tic-tac-toe for exactly two seats; it has no rule parameters."""

    spec = SPEC

    def new_initial_state(self) -> TicTacToeState:
        return TicTacToeState(self)

    def state_from_view(self, int player, dict view) -> TicTacToeState:
        """The position shown in `view` (an observation_dict): the board is the whole state. The
        order of the moves is not shown, so the rebuilt state has an empty history()."""
        return _state_from_board(self, view["board"])


cdef TicTacToeState _state_from_board(game, list board):
    cdef TicTacToeState s = TicTacToeState(game)
    cdef int cell, i, mark
    for cell in range(9):
        text = board[cell // 3][cell % 3]
        if text:
            s.board[cell] = MARKS.index(text) + 1
            s.filled += 1
    s.to_move = s.filled % 2
    s.move_number = s.filled
    for i in range(8):
        mark = s.board[LINES[i][0]]
        if mark and s.board[LINES[i][1]] == mark and s.board[LINES[i][2]] == mark:
            s.winner = mark - 1
            s.win_line = i
    return s
