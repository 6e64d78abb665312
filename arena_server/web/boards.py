"""Boards for the browser, drawn from a seat's structured view (`State.observation_dict`) and the legal
actions the referee sent, never from a second copy of the rules.

A board is a grid the page draws as it is told:

    {"rows": R, "cols": C, "cells": [[{"t": text, "c": css class}, ...], ...],
     "row_labels": [...], "col_labels": [...], "caption": "...",
     "moves": [{"id": action id, "text": action text, "path": [[row, col], ...]}, ...]}

`moves` is there only when legal actions are given (a player's decision): clicking the cells of a
move's `path` in order plays it (a `row` of None means any cell of that column). Which cells a move
clicks is read from the action's own text or the view's description of it — the game's canonical
rendering — so the page never decides what is legal; the legal-action buttons beside the board
offer the same moves. A game without an adapter here gets the generic view (text, events, chat).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

Legal = list[tuple[int, str]]
_PAIR = re.compile(r"\((\d+),\s*(\d+)\)")


def board_view(game_id: str, data: dict[str, Any], legal: Legal | None = None) -> dict[str, Any] | None:
    """The board of `game_id` in the view `data`, with the clickable `moves` of `legal`; None for a
    game drawn by the generic view, or a view the adapter does not recognise."""
    adapter = ADAPTERS.get(game_id)
    if adapter is None:
        return None
    try:
        return adapter(data, legal)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def has_board(game_id: str) -> bool:
    return game_id in ADAPTERS


def _cell(text: str, css: str = "") -> dict[str, str]:
    return {"t": text, "c": css}


def _grid(cells, *, row_labels=None, col_labels=None, caption="", moves=None) -> dict[str, Any]:
    board = {"rows": len(cells), "cols": max((len(r) for r in cells), default=0), "cells": cells,
             "row_labels": row_labels or [], "col_labels": col_labels or [], "caption": caption}
    if moves is not None:
        board["moves"] = moves
    return board


def tic_tac_toe(data, legal: Legal | None):
    cells = [[_cell(mark, mark.lower()) for mark in row] for row in data["board"]]
    moves = None
    if legal is not None:      # "X: (2, 1)": row and column from 1
        moves = []
        for action_id, text in legal:
            found = _PAIR.search(text)
            if found:
                moves.append({"id": action_id, "text": text,
                              "path": [[int(found.group(1)) - 1, int(found.group(2)) - 1]]})
    return _grid(cells, row_labels=[str(i + 1) for i in range(len(cells))],
                 col_labels=[str(i + 1) for i in range(len(cells[0]))], moves=moves)


def connect_four(data, legal: Legal | None):
    cells = [[_cell("●" if mark else "", mark.lower()) for mark in row] for row in data["board"]]
    moves = None
    if legal is not None:      # "X: 4": a column from 1; a click anywhere in the column drops there
        moves = []
        for action_id, text in legal:
            found = re.search(r"(\d+)\s*$", text)
            if found:
                moves.append({"id": action_id, "text": text, "path": [[None, int(found.group(1)) - 1]]})
    return _grid(cells, col_labels=[str(i + 1) for i in range(len(cells[0]))],
                 caption="X red, O blue; a piece drops to the lowest free cell of the column clicked", moves=moves)


def breakthrough(data, legal: Legal | None):
    rows, columns = int(data["rows"]), int(data["columns"])
    lines = [line.lstrip(string.digits) for line in data["board"]]      # "8bbb.": the row number first
    pieces = {"b": ("●", "black"), "w": ("○", "white")}
    cells = [[_cell(*pieces.get(ch, ("", ""))) for ch in line[:columns]] for line in lines]
    letters = string.ascii_lowercase[:columns]

    def square(name: str) -> list[int]:      # "c3": column c, row 3 counted from the bottom
        return [rows - int(name[1:]), letters.index(name[0])]

    moves = None
    if legal is not None:      # "a2->a3", "d4->e3*" (a capture)
        moves = []
        for action_id, text in legal:
            found = re.fullmatch(r"\s*([a-z]\d+)\s*->\s*([a-z]\d+)\*?\s*", text)
            if found:
                moves.append({"id": action_id, "text": text, "path": [square(found.group(1)), square(found.group(2))]})
    return _grid(cells, row_labels=[str(rows - i) for i in range(rows)], col_labels=list(letters),
                 caption="click a pawn, then the square it moves to", moves=moves)


def nim(data, legal: Legal | None):
    piles = [int(p) for p in data["piles"]]
    width = max(piles + [1])
    cells = [[_cell("|", "match") if i < n else _cell("") for i in range(width)] for n in piles]
    moves = None
    if legal is not None:      # "pile:2, take:3": clicking a match takes it and every match right of it
        moves = []
        for action_id, text in legal:
            found = re.search(r"pile:\s*(\d+),\s*take:\s*(\d+)", text)
            if found:
                pile, take = int(found.group(1)) - 1, int(found.group(2))
                moves.append({"id": action_id, "text": text, "path": [[pile, piles[pile] - take]]})
    misere = "whoever takes the last match loses" if data.get("misere") else "whoever takes the last match wins"
    return _grid(cells, row_labels=[f"pile {i + 1}" for i in range(len(piles))],
                 caption=f"{misere}; click a match to take it and all to its right", moves=moves)


def santorini(data, legal: Legal | None):
    levels = data["levels"]
    at = {tuple(square): name for name, square in data.get("pawns", {}).items() if square is not None}
    mine = set(data.get("my_pawns", []))
    cells = []
    for r, row in enumerate(levels):
        line = []
        for c, level in enumerate(row):
            pawn = at.get((r, c), "")
            side = (" mine" if pawn in mine else " theirs") if pawn else ""
            line.append(_cell(f"{pawn}{level}" if pawn else str(level), f"level{level}{side}"))
        cells.append(line)
    moves = None
    if legal is not None:      # each action's description names its squares in order: from, to, build
        described = data.get("actions", {})
        moves = []
        for action_id, text in legal:
            squares = [[int(r), int(c)] for r, c in _PAIR.findall(described.get(text, text))]
            if squares:
                moves.append({"id": action_id, "text": text, "path": squares})
    return _grid(cells, row_labels=[str(i) for i in range(len(levels))],
                 col_labels=[str(i) for i in range(len(levels[0]))],
                 caption="numbers are levels (4 is a dome), letters pawns; click your pawn, where it moves, then "
                         "where it builds", moves=moves)


ADAPTERS: dict[str, Callable[[dict[str, Any], Legal | None], dict[str, Any]]] = {
    "tic_tac_toe": tic_tac_toe,
    "connect_four": connect_four,
    "breakthrough": breakthrough,
    "nim": nim,
    "santorini": santorini,
}
