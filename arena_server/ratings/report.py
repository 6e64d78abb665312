"""Leaderboard exports: CSV, a PNG plot of ratings with intervals (matplotlib), and a small static
HTML report of a tournament (leaderboard, pairwise win matrix, per-game tables)."""

from __future__ import annotations

import base64
import csv
import html
import io
import time
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Sequence

from ..store import MatchRecord
from .board import LeaderboardRow
from .leaderboard import Leaderboard, LeaderboardQuery, compute_leaderboard
from .outcomes import comparisons

CSV_COLUMNS = ["rank", "agent", "rating", "lower", "upper", "matches", "wins", "draws", "losses"]


def write_csv(rows: Sequence[LeaderboardRow], path: str | Path | io.TextIOBase) -> None:
    """One line per agent, best first; method-specific values (`extra`) as further columns."""
    extras = sorted({k for r in rows for k in r.extra})
    own = not hasattr(path, "write")
    f = open(path, "w", newline="") if own else path
    try:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS + extras)
        for r in rows:
            w.writerow([r.rank, r.agent_name, f"{r.rating:.6g}", f"{r.lower:.6g}", f"{r.upper:.6g}", r.matches,
                        r.wins, r.draws, r.losses] + [_fmt(r.extra.get(k)) for k in extras])
    finally:
        if own:
            f.close()


def _fmt(v) -> str:
    return "" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)


def plot_ratings(rows: Sequence[LeaderboardRow], path: str | Path | io.BytesIO, *, title: str = "",
                 xlabel: str = "rating") -> None:
    """A horizontal dot-and-whisker plot of ratings and intervals, best at the top (PNG)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ordered = list(rows)
    height = max(2.0, 0.35 * len(ordered) + 1.2)
    fig, ax = plt.subplots(figsize=(7.0, height), dpi=110)
    try:
        y = list(range(len(ordered)))[::-1]
        x = [r.rating for r in ordered]
        err = [[max(0.0, r.rating - r.lower) for r in ordered], [max(0.0, r.upper - r.rating) for r in ordered]]
        ax.errorbar(x, y, xerr=err, fmt="o", color="#1f4e79", ecolor="#7f9fbf", elinewidth=2, capsize=3)
        ax.set_yticks(y)
        ax.set_yticklabels([f"{r.rank}. {r.agent_name}" for r in ordered])
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
        if title:
            ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


def pairwise_scores(matches: Iterable[MatchRecord], scoring: str = "rank") -> dict[tuple[str, str], tuple[float, float]]:
    """(row agent, column agent) → (mean score of row against column, comparisons), ties ½."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for m in matches:
        for c in comparisons(m, scoring):
            for a, b, s in ((c.a, c.b, c.score), (c.b, c.a, 1 - c.score)):
                acc[(a, b)][0] += s * c.weight
                acc[(a, b)][1] += c.weight
    return {k: (v[0] / v[1], v[1]) for k, v in acc.items() if v[1] > 0}


def _board_table(board: Leaderboard) -> str:
    head = "<tr><th>rank</th><th>agent</th><th>rating</th><th>interval</th><th>matches</th><th>W-D-L</th></tr>"
    body = []
    for r in board.rows:
        interval = f"[{r.lower:.2f}, {r.upper:.2f}]" if r.lower != r.upper else "–"
        rating = f"{r.rating:.2f}"
        if not r.matches:       # no match in this selection: the value is an artefact of regularisation
            rating, interval = f"N/A <span class='dim'>({rating})</span>", f"<span class='dim'>{interval}</span>"
        body.append(f"<tr><td>{r.rank}</td><td>{html.escape(r.agent_name)}</td><td>{rating}</td><td>{interval}</td>"
                    f"<td>{r.matches}</td><td>{r.wins}-{r.draws}-{r.losses}</td></tr>")
    return f"<table>{head}{''.join(body)}</table>"


def _png_data_uri(rows: Sequence[LeaderboardRow], title: str) -> str:
    buf = io.BytesIO()
    plot_ratings(rows, buf, title=title)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def html_report(matches: Sequence[MatchRecord], path: str | Path, *, title: str = "Tournament report",
                query: LeaderboardQuery | None = None) -> str:
    """Writes a self-contained HTML page (the plot is embedded) and returns its text.

    Sections: the pooled leaderboard with its plot (Bradley–Terry by default; `query` chooses the
    method and settings), the pairwise win matrix (mean score of the row agent against the column
    agent in their direct meetings, ties ½, with the number of comparisons), and one table per
    game (the same method on that game alone)."""
    import dataclasses

    query = query or LeaderboardQuery(method="bradley_terry")
    finished = [m for m in matches if m.status == "finished"]
    overall = compute_leaderboard(finished, dataclasses.replace(query, game_id=""))
    games = overall.games
    agents = [r.agent_name for r in overall.rows]
    scoring = overall_scoring(query)
    scores = pairwise_scores(finished, scoring)
    meaning = "share of the points (ties ½)" if scoring == "share" else "score (win 1, draw ½, loss 0)"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;"
        "margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}td:nth-child(2),"
        "th:nth-child(2){text-align:left}.dim{color:#999}.matrix td{text-align:center}caption{text-align:left;"
        "font-style:italic;color:#555}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{overall.matches_counted} finished matches, {len(agents)} agents, {len(games)} game(s): "
        f"{html.escape(', '.join(games))}. Generated {time.strftime('%Y-%m-%d %H:%M:%S %Z')} from the match log.</p>",
        "<h2>Leaderboard</h2>",
        f"<p class='dim'>{html.escape(overall.description)}</p>",
        _board_table(overall),
    ]
    if overall.rows:
        parts.append(f"<img alt='ratings with intervals' src='{_png_data_uri(overall.rows, 'Ratings')}'>")
    parts.append("<h2>Pairwise win matrix</h2><table class='matrix'><caption>Mean " + meaning + " of the row "
                 "agent against the column agent in their direct meetings; comparisons in brackets."
                 "</caption><tr><th></th>" + "".join(f"<th>{html.escape(a)}</th>" for a in agents) + "</tr>")
    for a in agents:
        cells = []
        for b in agents:
            if a == b:
                cells.append("<td class='dim'>–</td>")
            elif (a, b) in scores:
                s, n = scores[(a, b)]
                cells.append(f"<td>{s:.2f} <span class='dim'>({n:g})</span></td>")
            else:
                cells.append("<td class='dim'>·</td>")
        parts.append(f"<tr><th>{html.escape(a)}</th>{''.join(cells)}</tr>")
    parts.append("</table>")
    if len(games) > 1 or query.game_id:
        parts.append("<h2>Per game</h2>")
        for g in games:
            board = compute_leaderboard(finished, dataclasses.replace(query, game_id=g, suite=""))
            parts.append(f"<h3>{html.escape(g)}</h3><p class='dim'>{board.matches_counted} matches</p>")
            parts.append(_board_table(board))
    parts.append("</body></html>")
    text = "\n".join(parts)
    Path(path).write_text(text, encoding="utf-8")
    return text


def overall_scoring(query: LeaderboardQuery) -> str:
    return "share" if query.preset.startswith("gamebench") else query.scoring
