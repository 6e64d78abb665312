"""Leaderboard exports: CSV, a PNG plot of ratings with intervals (matplotlib), a radar plot of
MAgIC's seven abilities, and a small static HTML report of a tournament (leaderboard, pairwise win
matrix, per-game tables, the radar when the board carries the abilities).

Every export shows the number of matches beside each rating and marks provisional ratings (fewer
than `board.PROVISIONAL_MATCHES` matches) with "?"; interval columns appear only for methods that
have an interval (`Leaderboard.has_interval`). One command feeds all its exports from one set of
match records and one computed leaderboard (`html_report(..., board=...)`), so they cannot disagree.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import html
import io
import time
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Sequence

from ..store import MatchRecord
from .board import PROVISIONAL_MATCHES, LeaderboardRow
from .leaderboard import Leaderboard, LeaderboardQuery, compute_leaderboard, select
from .outcomes import comparisons

#: MAgIC's seven abilities (Table 1; keys of a magic suite-score row's details, ×100), the radar's axes.
MAGIC_ABILITIES = (("judgement", "Judgement"), ("reasoning", "Reasoning"), ("deception", "Deception"),
                   ("self_awareness", "Self-awareness"), ("cooperation", "Cooperation"),
                   ("coordination", "Coordination"), ("rationality", "Rationality"))
CSV_COLUMNS = ["rank", "agent", "rating", "matches", "provisional", "lower", "upper", "wins", "draws", "losses"]
INTERVAL_COLUMNS = ("lower", "upper")


def write_csv(rows: Sequence[LeaderboardRow], path: str | Path | io.TextIOBase, *, has_interval: bool = True,
              costs: dict[str, "AgentCost"] | None = None) -> None:
    """One line per agent, best first: the rating with its matches and provisional mark (1/0), the
    interval (only when `has_interval`), W/D/L, then method-specific values (`extra`) as further
    columns, then, given `costs` (agent_costs of the same matches), the COST_COLUMNS."""
    extras = sorted({k for r in rows for k in r.extra} - (set(COST_COLUMNS) if costs is not None else set()))
    columns = [c for c in CSV_COLUMNS if has_interval or c not in INTERVAL_COLUMNS]
    own = not hasattr(path, "write")
    f = open(path, "w", newline="") if own else path
    try:
        w = csv.writer(f)
        w.writerow(columns + extras + (COST_COLUMNS if costs is not None else []))
        for r in rows:
            values = {"rank": r.rank, "agent": r.agent_name, "rating": f"{r.rating:.6g}", "matches": r.matches,
                      "provisional": int(r.provisional), "lower": f"{r.lower:.6g}", "upper": f"{r.upper:.6g}",
                      "wins": r.wins, "draws": r.draws, "losses": r.losses}
            spent = []
            if costs is not None:
                cost = costs.get(r.agent_name)
                spent = [_fmt(cost.columns()[k]) if cost is not None else "" for k in COST_COLUMNS]
            w.writerow([values[c] for c in columns] + [_fmt(r.extra.get(k)) for k in extras] + spent)
    finally:
        if own:
            f.close()


def _fmt(v) -> str:
    return "" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)


def plot_ratings(rows: Sequence[LeaderboardRow], path: str | Path | io.BytesIO, *, title: str = "",
                 xlabel: str = "rating", has_interval: bool = True) -> None:
    """A horizontal dot-and-whisker plot of ratings (whiskers: the intervals, when the method has
    them), best at the top; each label carries the agent's matches and "?" when provisional (PNG)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ordered = list(rows)
    height = max(2.0, 0.35 * len(ordered) + 1.2)
    fig, ax = plt.subplots(figsize=(7.0, height), dpi=110)
    try:
        y = list(range(len(ordered)))[::-1]
        x = [r.rating for r in ordered]
        if has_interval:
            err = [[max(0.0, r.rating - r.lower) for r in ordered], [max(0.0, r.upper - r.rating) for r in ordered]]
            ax.errorbar(x, y, xerr=err, fmt="o", color="#1f4e79", ecolor="#7f9fbf", elinewidth=2, capsize=3)
        else:
            ax.plot(x, y, "o", color="#1f4e79")
        ax.set_yticks(y)
        ax.set_yticklabels([f"{r.rank}. {r.agent_name}{'?' if r.provisional else ''} ({r.matches})" for r in ordered])
        note = f"(n) matches; ? provisional: fewer than {PROVISIONAL_MATCHES}" if any(r.provisional for r in ordered) \
            else "(n) matches"
        ax.set_xlabel(f"{xlabel}\n{note}")
        ax.grid(axis="x", alpha=0.3)
        if title:
            ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


def has_abilities(rows: Sequence[LeaderboardRow]) -> bool:
    return any(key in r.extra for r in rows for key, _ in MAGIC_ABILITIES)


def plot_radar(rows: Sequence[LeaderboardRow], path: str | Path | io.BytesIO, *, title: str = "",
               axes: Sequence[tuple[str, str]] = MAGIC_ABILITIES) -> None:
    """A radar plot of each agent's scores on `axes` (keys of the rows' details), 0 at the centre and
    100 (or the largest score, when one is larger: the paper's Self-awareness and Rationality add two
    rates) at the rim. An ability not measured for an agent leaves a gap in its outline (PNG)."""
    import math

    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    angles = [2 * math.pi * k / len(axes) for k in range(len(axes))]
    values = {r.agent_name: [r.extra.get(key, math.nan) for key, _ in axes] for r in rows}
    rim = max([100.0] + [v for vs in values.values() for v in vs if not math.isnan(v)])
    fig, ax = plt.subplots(figsize=(6.5, 6.5), dpi=110, subplot_kw={"projection": "polar"})
    try:
        for name, scores in values.items():
            closed = scores + scores[:1]
            line, = ax.plot(angles + angles[:1], closed, marker="o", linewidth=1.5, label=name)
            if not any(math.isnan(v) for v in scores):
                ax.fill(angles, scores, color=line.get_color(), alpha=0.12)
        ax.set_xticks(angles)
        ax.set_xticklabels([label for _, label in axes])
        ax.set_ylim(0, rim)
        ax.set_rlabel_position(180 / len(axes))      # between the first two axes, clear of the labels
        ax.legend(loc="upper right", bbox_to_anchor=(1.25, 1.1), fontsize="small")
        if title:
            ax.set_title(title, pad=24)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


def pairwise_scores(matches: Iterable[MatchRecord], scoring: str = "rank",
                    pool: Iterable[str] | None = None) -> dict[tuple[str, str], tuple[float, float]]:
    """(row agent, column agent) → (mean score of row against column, comparisons), ties ½."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for m in matches:
        for c in comparisons(m, scoring, pool):
            for a, b, s in ((c.a, c.b, c.score), (c.b, c.a, 1 - c.score)):
                acc[(a, b)][0] += s * c.weight
                acc[(a, b)][1] += c.weight
    return {k: (v[0] / v[1], v[1]) for k, v in acc.items() if v[1] > 0}


def _board_table(board: Leaderboard) -> str:
    interval_head = "<th>interval</th>" if board.has_interval else ""
    head = f"<tr><th>rank</th><th>agent</th><th>rating</th><th>matches</th>{interval_head}<th>W-D-L</th></tr>"
    body = []
    for r in board.rows:
        interval = f"[{r.lower:.2f}, {r.upper:.2f}]"
        rating = f"{r.rating:.2f}" + ("<sup title='provisional'>?</sup>" if r.provisional else "")
        if not r.matches:       # no match in this selection: the value is an artefact of regularisation or the prior
            rating, interval = f"N/A <span class='dim'>({r.rating:.2f})</span>", f"<span class='dim'>{interval}</span>"
        cell = f"<td>{interval}</td>" if board.has_interval else ""
        body.append(f"<tr><td>{r.rank}</td><td>{html.escape(r.agent_name)}</td><td>{rating}</td><td>{r.matches}</td>"
                    f"{cell}<td>{r.wins}-{r.draws}-{r.losses}</td></tr>")
    note = ""
    if any(r.provisional for r in board.rows):
        note = (f"<caption>? provisional: fewer than {board.provisional_matches} matches in this selection; "
                f"the rating rests mostly on the prior or the initial rating.</caption>")
    return f"<table>{note}{head}{''.join(body)}</table>"


def _png_data_uri(board: Leaderboard, title: str, plot=None) -> str:
    buf = io.BytesIO()
    if plot is None:
        plot_ratings(board.rows, buf, title=title, has_interval=board.has_interval)
    else:
        plot(board.rows, buf, title=title)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def html_report(matches: Sequence[MatchRecord], path: str | Path, *, title: str = "Tournament report",
                query: LeaderboardQuery | None = None, board: Leaderboard | None = None,
                costs: dict[str, "AgentCost"] | None = None) -> str:
    """Writes a self-contained HTML page (the plot is embedded) and returns its text.

    Sections: the leaderboard of `query` (Bradley–Terry over all games by default) with its plot,
    the pairwise win matrix (mean score of the row agent against the column agent in their direct
    meetings, ties ½, with the number of comparisons), and one table per game (the same method on
    that game alone). `board`: the leaderboard already computed from these same `matches` for this
    `query` (the CLI passes the one it printed), so the page and the console cannot disagree.
    `costs` (agent_costs of the same matches) adds the cost-and-completion table per agent."""
    query = query or LeaderboardQuery(method="bradley_terry")
    finished = [m for m in matches if m.status == "finished"]
    overall = board if board is not None else compute_leaderboard(finished, query)
    games = overall.games
    agents = [r.agent_name for r in overall.rows]
    scoring = overall_scoring(query)
    resolved = query.resolved()
    scores = pairwise_scores(select(finished, resolved), scoring, pool=resolved.agents or None)
    meaning = "share of the points (ties ½)" if scoring == "share" else "score (win 1, draw ½, loss 0)"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;"
        "margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}td:nth-child(2),"
        "th:nth-child(2){text-align:left}.dim{color:#999}.matrix td{text-align:center}caption{text-align:left;"
        "font-style:italic;color:#555;caption-side:bottom}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{overall.matches_counted} finished matches, {len(agents)} agents, {len(games)} game(s): "
        f"{html.escape(', '.join(games))}. Generated {time.strftime('%Y-%m-%d %H:%M:%S %Z')} from the match log.</p>",
        "<h2>Leaderboard</h2>",
        f"<p class='dim'>{html.escape(overall.description)}</p>",
        _board_table(overall),
    ]
    if overall.rows:
        parts.append(f"<img alt='ratings with intervals' src='{_png_data_uri(overall, 'Ratings')}'>")
    if has_abilities(overall.rows):
        parts.append("<h2>Abilities</h2><img alt='radar plot of the seven MAgIC abilities' "
                     f"src='{_png_data_uri(overall, 'MAgIC abilities (x100)', plot_radar)}'>")
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
    if costs is not None:
        parts.append(_cost_section(costs, agents))
    if len(games) > 1 or query.game_id:
        parts.append("<h2>Per game</h2>")
        for g in games:
            per_game = compute_leaderboard(finished, dataclasses.replace(query, game_id=g, suite=""))
            parts.append(f"<h3>{html.escape(g)}</h3><p class='dim'>{per_game.matches_counted} matches</p>")
            parts.append(_board_table(per_game))
    parts.append("</body></html>")
    text = "\n".join(parts)
    Path(path).write_text(text, encoding="utf-8")
    return text


def overall_scoring(query: LeaderboardQuery) -> str:
    return "share" if query.preset.startswith("gamebench") else query.scoring


# ---- cost and cleanliness per agent (read from the match log) -------------------------------------------

#: The cost columns every report shows per agent (CSV names; `cost_table` prints them).
COST_COLUMNS = ["decisions", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens",
                "tokens_per_match", "tokens_per_decision", "cost_usd", "cost_per_match", "cost_per_decision",
                "reask_share", "fallback_share"]


@dataclasses.dataclass
class AgentCost:
    """What an agent's matches cost and how clean its decisions were, summed over the match logs.

    decisions: the moves its seats made (action and simultaneous-choice entries), less the forced
    ones its agent reported as such (extra.forced); tokens and cost: the sums of its decisions'
    metadata (DecisionMetadata: prompt_tokens, completion_tokens, cost_usd; extra.reasoning_tokens
    and extra.cached_tokens where the agent reports them); reasked: decisions that needed a re-ask,
    by the agent of its model (extra.reasks > 0) or by the referee (a refused attempt); fallbacks:
    decisions the failure policy played (a random legal move or the game's default)."""

    agent_name: str
    matches: int = 0
    decisions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    api_retries: int = 0
    reasked: int = 0
    fallbacks: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def per_match(self, value: float) -> float:
        return value / self.matches if self.matches else 0.0

    def per_decision(self, value: float) -> float:
        return value / self.decisions if self.decisions else 0.0

    def columns(self) -> dict[str, float]:
        """The COST_COLUMNS values."""
        return {"decisions": self.decisions, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "reasoning_tokens": self.reasoning_tokens,
                "cached_tokens": self.cached_tokens, "tokens_per_match": self.per_match(self.tokens),
                "tokens_per_decision": self.per_decision(self.tokens), "cost_usd": self.cost_usd,
                "cost_per_match": self.per_match(self.cost_usd), "cost_per_decision": self.per_decision(self.cost_usd),
                "reask_share": self.per_decision(self.reasked), "fallback_share": self.per_decision(self.fallbacks)}


def _int(value) -> int:
    """A count from a log (int64 fields arrive as strings through JSON), 0 when absent."""
    try:
        return int(float(value or 0))
    except (TypeError, ValueError):
        return 0


def _float(value) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


def agent_costs(matches: Iterable[tuple[MatchRecord, Sequence]]) -> dict[str, AgentCost]:
    """Per agent name: an AgentCost summed over `matches`, pairs of a match record and its log (the
    store's LogEntry objects, or dicts with "kind" and "data"). A match counts for every agent
    seated in it; house agents too."""
    costs: dict[str, AgentCost] = {}
    for record, log in matches:
        seats = {p["seat"]: p["agent_name"] for p in record.players}
        for name in set(seats.values()):
            costs.setdefault(name, AgentCost(name)).matches += 1
        refused: set[int] = set()            # seats whose current decision had an attempt refused
        reasked: set[int] = set()            # seats whose current decision's agent re-asked its model
        forced: set[int] = set()             # seats whose current decision the agent called forced
        substituted: set[int] = set()        # seats whose next move the failure policy played
        for entry in log:
            kind = entry["kind"] if isinstance(entry, dict) else entry.kind
            data = entry["data"] if isinstance(entry, dict) else entry.data
            seat = data.get("seat") if isinstance(data, dict) else None
            if seat not in seats:
                continue
            cost = costs[seats[seat]]
            if kind == "decision_meta":
                meta = data.get("metadata") or {}
                extra = meta.get("extra") or {}
                cost.prompt_tokens += _int(meta.get("promptTokens", meta.get("prompt_tokens")))
                cost.completion_tokens += _int(meta.get("completionTokens", meta.get("completion_tokens")))
                cost.cost_usd += _float(meta.get("costUsd", meta.get("cost_usd")))
                cost.reasoning_tokens += _int(extra.get("reasoning_tokens"))
                cost.cached_tokens += _int(extra.get("cached_tokens"))
                cost.calls += _int(extra.get("calls"))
                cost.api_retries += _int(extra.get("retries"))
                if _int(extra.get("reasks")) > 0:
                    reasked.add(seat)
                if extra.get("forced"):
                    forced.add(seat)
            elif kind == "penalty":
                if data.get("substituted"):
                    substituted.add(seat)
                elif data.get("failure") in ("parse_failures", "illegal_actions"):
                    refused.add(seat)
            elif kind in ("action", "choice"):
                if seat in substituted:
                    cost.decisions += 1
                    cost.fallbacks += 1
                elif seat not in forced:
                    cost.decisions += 1
                    cost.reasked += seat in refused or seat in reasked
                for pending in (refused, reasked, forced, substituted):
                    pending.discard(seat)
    return costs



def store_costs(store, records: Iterable[MatchRecord]) -> dict[str, AgentCost]:
    """agent_costs of `records`, their logs read from `store` (the whole log: ended matches)."""
    return agent_costs((record, store.read_log(record.match_id)) for record in records)


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def cost_table(costs: dict[str, AgentCost], agents: Sequence[str] | None = None) -> list[str]:
    """The console table: one line per agent (in `agents`' order, else by name) with its matches,
    decisions, tokens (in all, per match, per decision), cost (in all, per match, per decision),
    and the shares of decisions re-asked and played by the failure policy."""
    names = [a for a in agents if a in costs] if agents is not None else sorted(costs)
    lines = [f"{'agent':<24} {'matches':>7} {'decisions':>9} {'tokens':>11} {'tok/match':>10} {'tok/dec':>8} "
             f"{'cost':>10} {'cost/match':>10} {'cost/dec':>9} {'re-asked':>8} {'fallback':>8}"]
    for name in names:
        c = costs[name]
        lines.append(f"{name:<24} {c.matches:>7} {c.decisions:>9} {c.tokens:>11,} {c.per_match(c.tokens):>10,.0f} "
                     f"{c.per_decision(c.tokens):>8,.0f} {_money(c.cost_usd):>10} "
                     f"{_money(c.per_match(c.cost_usd)):>10} "
                     f"{_money(c.per_decision(c.cost_usd)):>9} {c.per_decision(c.reasked):>8.1%} "
                     f"{c.per_decision(c.fallbacks):>8.1%}")
    return lines


def _cost_section(costs: dict[str, AgentCost], agents: Sequence[str]) -> str:
    head = ("<tr><th>agent</th><th>matches</th><th>decisions</th><th>prompt tokens</th><th>completion tokens</th>"
            "<th>reasoning tokens</th><th>cached tokens</th><th>tokens / match</th><th>tokens / decision</th>"
            "<th>cost</th><th>cost / match</th><th>cost / decision</th><th>re-asked</th><th>fallback</th></tr>")
    body = []
    for name in [a for a in agents if a in costs] + sorted(set(costs) - set(agents)):
        c = costs[name]
        body.append(f"<tr><td>{html.escape(name)}</td><td>{c.matches}</td><td>{c.decisions}</td>"
                    f"<td>{c.prompt_tokens:,}</td><td>{c.completion_tokens:,}</td><td>{c.reasoning_tokens:,}</td>"
                    f"<td>{c.cached_tokens:,}</td><td>{c.per_match(c.tokens):,.0f}</td>"
                    f"<td>{c.per_decision(c.tokens):,.0f}</td><td>{_money(c.cost_usd)}</td>"
                    f"<td>{_money(c.per_match(c.cost_usd))}</td><td>{_money(c.per_decision(c.cost_usd))}</td>"
                    f"<td>{c.per_decision(c.reasked):.1%}</td><td>{c.per_decision(c.fallbacks):.1%}</td></tr>")
    caption = ("<caption>Summed from the decisions' metadata in the match log (tokens and cost as the agents "
               "report them; reasoning and cached tokens are part of the completion and prompt tokens). "
               "Re-asked: decisions that needed a re-ask (by the agent of its model, or by the referee); "
               "fallback: decisions the failure policy played.</caption>")
    return f"<h2>Cost and completion</h2><table>{caption}{head}{''.join(body)}</table>"
