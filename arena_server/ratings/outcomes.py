"""Match records → pairwise outcomes: the input of the paired-comparison methods.

A finished match is split into *sides*: the seats of one team (`players[i]["team"]`; equal to the
seat in games without teams), holding the distinct agents of that team and the team's best rank.
An agent that holds seats on several teams (self-play, house agents filling seats) is kept on its
best-ranked team only; a match with fewer than two sides left carries no comparison.

Sides are compared pairwise:
- two sides → one comparison per match; a side of several distinct agents spreads that one
  comparison evenly over its agents (weight 1/(|A|·|B|) per agent pair), so a team game is one
  comparison per match whatever the team sizes;
- k > 2 sides (n-player games ranked by returns) → every pair of sides, each with weight
  1/(k − 1), so each agent carries a total weight of one comparison per match.

The score of side A against side B is 1 / ½ / 0 from the ranks (`scoring="rank"`), or the share of
non-negative returns r_A / (r_A + r_B) (`scoring="share"`, GameBench's points share; it falls back
to ranks when a return is negative or both are zero). A score of exactly ½ is a tie: dropped
(`ties="drop"`, GameBench's code) or counted as half a win each way (`ties="half"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..store import MatchRecord

SCORINGS = ("rank", "share")
TIES = ("drop", "half")
WEIGHTINGS = ("game", "match")


@dataclass(frozen=True)
class Side:
    agents: tuple[str, ...]
    rank: int
    value: float            # mean return over the side's seats


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    score: float            # a's score against b, in [0, 1]; b's is 1 - score
    weight: float


def sides(match: MatchRecord, pool: Iterable[str] | None = None) -> list[Side]:
    """The sides of a finished match, best first; agents outside `pool` (when given) are left out."""
    result = match.result or {}
    ranks, returns = result.get("ranks") or [], result.get("returns") or []
    if len(ranks) != len(match.players):
        return []
    allowed = set(pool) if pool is not None else None
    teams: dict[int, dict] = {}
    for seat, (player, rank) in enumerate(zip(match.players, ranks)):
        team = teams.setdefault(player.get("team", seat), {"rank": rank, "returns": [], "agents": []})
        team["rank"] = min(team["rank"], rank)
        if seat < len(returns):
            team["returns"].append(float(returns[seat]))
        team["agents"].append(player["agent_name"])
    home: dict[str, int] = {}           # agent -> its best-ranked team
    for key, team in sorted(teams.items(), key=lambda kv: (kv[1]["rank"], kv[0])):
        for name in team["agents"]:
            home.setdefault(name, key)
    out = []
    for key, team in sorted(teams.items(), key=lambda kv: (kv[1]["rank"], kv[0])):
        agents = tuple(sorted({n for n in team["agents"] if home[n] == key and (allowed is None or n in allowed)}))
        if agents:
            value = sum(team["returns"]) / len(team["returns"]) if team["returns"] else 0.0
            out.append(Side(agents, team["rank"], value))
    return out if len(out) >= 2 else []


def side_score(a: Side, b: Side, scoring: str = "rank") -> float:
    """A's score against B in [0, 1]."""
    if scoring == "share" and a.value >= 0 and b.value >= 0 and a.value + b.value > 0:
        return a.value / (a.value + b.value)
    if scoring not in SCORINGS:
        raise ValueError(f"unknown scoring {scoring!r} (known: {', '.join(SCORINGS)})")
    return 1.0 if a.rank < b.rank else 0.5 if a.rank == b.rank else 0.0


def comparisons(match: MatchRecord, scoring: str = "rank", pool: Iterable[str] | None = None) -> list[Comparison]:
    """The weighted pairwise comparisons of one match (ties included, score ½)."""
    ss = sides(match, pool)
    if not ss:
        return []
    pair_weight = 1.0 / (len(ss) - 1)
    out = []
    for x in range(len(ss)):
        for y in range(x + 1, len(ss)):
            a, b = ss[x], ss[y]
            score = side_score(a, b, scoring)
            w = pair_weight / (len(a.agents) * len(b.agents))
            out.extend(Comparison(i, j, score, w) for i in a.agents for j in b.agents)
    return out


@dataclass
class PairwiseData:
    """Matches as outcome classes, ready for fitting and for resampling by counts.

    Matches with identical contributions share a class, so a resample of matches is a multinomial
    draw of class counts (probabilities ∝ the summed weights of the class's matches), and the
    comparison matrix of a resample is one weighted bincount over the class entries:
    s[i, j] = Σ_entries count[class] · value for entry cell i·n + j ("i earned value against j").
    """

    agents: list[str]
    games: list[str]
    match_game: np.ndarray      # (M,) game index of each match
    match_class: np.ndarray     # (M,) outcome class of each match
    entry_class: np.ndarray     # (E,) class of each entry
    entry_cell: np.ndarray      # (E,) i * n + j
    entry_value: np.ndarray     # (E,) score i earned against j (weight included)
    num_classes: int

    @property
    def n(self) -> int:
        return len(self.agents)

    @property
    def num_matches(self) -> int:
        return len(self.match_class)

    def match_weights(self, weighting: str = "game") -> np.ndarray:
        """Per-match resampling weights: 1/N_game (`"game"`) or uniform (`"match"`), scaled to sum
        to the number of matches."""
        if weighting not in WEIGHTINGS:
            raise ValueError(f"unknown weighting {weighting!r} (known: {', '.join(WEIGHTINGS)})")
        m = self.num_matches
        if weighting == "match" or m == 0:
            return np.ones(m)
        per_game = np.bincount(self.match_game, minlength=len(self.games)).astype(float)
        w = 1.0 / per_game[self.match_game]
        return w * (m / w.sum())

    def class_probabilities(self, weighting: str = "game") -> np.ndarray:
        """Probability of drawing each class in one draw of a resample."""
        w = np.bincount(self.match_class, weights=self.match_weights(weighting), minlength=self.num_classes)
        return w / w.sum()

    def matrix(self, class_counts: np.ndarray) -> np.ndarray:
        """The n×n matrix s (s[i, j] = score i earned against j) for the given class counts."""
        n = self.n
        s = np.bincount(self.entry_cell, weights=class_counts[self.entry_class] * self.entry_value, minlength=n * n)
        return s.reshape(n, n)

    def expected_matrix(self, weighting: str = "game") -> np.ndarray:
        """The weighted matrix of the whole data set: the mean of the resample matrices."""
        return self.matrix(self.num_matches * self.class_probabilities(weighting))

    def match_matrix(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        """The matrix of a list of matches given by index (repeats count again)."""
        counts = np.bincount(np.asarray(index, dtype=np.int64), minlength=self.num_matches)
        return self.matrix(np.bincount(self.match_class, weights=counts, minlength=self.num_classes))

    def class_agents(self) -> np.ndarray:
        """(classes, n) booleans: which agents a match of each class compares."""
        out = np.zeros((self.num_classes, self.n), dtype=bool)
        n = max(1, self.n)
        out[self.entry_class, self.entry_cell // n] = True        # an entry i·n + j compares i and j
        out[self.entry_class, self.entry_cell % n] = True
        return out

    def agent_matches(self) -> np.ndarray:
        """(n,) number of matches in which each agent has a comparison (dropped ties do not count)."""
        per_class = np.bincount(self.match_class, minlength=self.num_classes).astype(float)
        return per_class @ self.class_agents()

    def agent_weights(self, weighting: str = "game") -> np.ndarray:
        """(n,) the largest weight (`match_weights`) among each agent's matches; 1 for an agent
        without any."""
        w = self.match_weights(weighting)
        per_class = np.zeros(self.num_classes)
        np.maximum.at(per_class, self.match_class, w)
        top = (per_class[:, None] * self.class_agents()).max(axis=0) if self.num_classes else np.zeros(self.n)
        return np.where(self.agent_matches() > 0, top, 1.0)

    def cells(self, weighting: str = "game") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The matches grouped by (outcome class, game), ordered by class: (matches in each cell,
        the weight of one of its matches, the first cell of each class). `match_weights` is
        constant within a game, so a cell's matches share one weight."""
        g = max(1, len(self.games))
        w = self.match_weights(weighting)
        per_game = np.zeros(g)
        per_game[self.match_game] = w
        keys, count = np.unique(self.match_class * g + self.match_game, return_counts=True)
        cls = keys // g
        starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if keys.size else np.zeros(0, dtype=np.int64)
        return count.astype(float), per_game[keys % g], starts


def _entries(cs: list[Comparison], index: dict[str, int], ties: str) -> tuple:
    n = len(index)
    acc: dict[int, float] = {}
    for c in cs:
        if c.score == 0.5 and ties == "drop":
            continue
        i, j = index[c.a], index[c.b]
        acc[i * n + j] = acc.get(i * n + j, 0.0) + c.score * c.weight
        acc[j * n + i] = acc.get(j * n + i, 0.0) + (1.0 - c.score) * c.weight
    return tuple(sorted((cell, v) for cell, v in acc.items() if v != 0.0))


def pairwise_data(matches: Iterable[MatchRecord], *, agents: Sequence[str] | None = None, scoring: str = "rank",
                  ties: str = "drop", pool: Iterable[str] | None = None) -> PairwiseData:
    """PairwiseData from match records. Matches without a comparison (one side) are left out;
    matches whose comparisons are all dropped ties stay in (they are drawn, and add nothing).
    `agents` fixes the agent list and order (default: every agent compared, sorted)."""
    if ties not in TIES:
        raise ValueError(f"unknown tie policy {ties!r} (known: {', '.join(TIES)})")
    pool = set(pool) if pool is not None else None
    per_match: list[tuple[str, list[Comparison]]] = []
    for m in matches:
        cs = comparisons(m, scoring, pool)
        if cs:
            per_match.append((m.game_id, cs))
    if agents is None:
        agents = sorted({name for _, cs in per_match for c in cs for name in (c.a, c.b)})
    agents = list(agents)
    index = {a: i for i, a in enumerate(agents)}
    missing = {name for _, cs in per_match for c in cs for name in (c.a, c.b)} - set(index)
    if missing:
        raise ValueError(f"agents missing from the agent list: {', '.join(sorted(missing))}")
    games = sorted({g for g, _ in per_match})
    game_index = {g: i for i, g in enumerate(games)}
    classes: dict[tuple, int] = {}
    match_class = np.empty(len(per_match), dtype=np.int64)
    for k, (_, cs) in enumerate(per_match):
        match_class[k] = classes.setdefault(_entries(cs, index, ties), len(classes))
    entry_class, entry_cell, entry_value = [], [], []
    for key, c in classes.items():
        for cell, v in key:
            entry_class.append(c)
            entry_cell.append(cell)
            entry_value.append(v)
    return PairwiseData(
        agents=agents, games=games,
        match_game=np.array([game_index[g] for g, _ in per_match], dtype=np.int64), match_class=match_class,
        entry_class=np.array(entry_class, dtype=np.int64), entry_cell=np.array(entry_cell, dtype=np.int64),
        entry_value=np.array(entry_value, dtype=float), num_classes=len(classes),
    )


def pairwise_data_from_arrays(agents: Sequence[str], games: Sequence[str], game: np.ndarray, a: np.ndarray,
                              b: np.ndarray, score_a: np.ndarray, *, ties: str = "drop") -> PairwiseData:
    """PairwiseData for two-agent matches given as arrays (agent and game indices, a's score),
    built without a Python loop over matches; equal to `pairwise_data` on the same matches."""
    if ties not in TIES:
        raise ValueError(f"unknown tie policy {ties!r} (known: {', '.join(TIES)})")
    n = len(agents)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    score_a = np.asarray(score_a, dtype=float)
    swap = a > b                                        # canonical order: lower index first
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    s_lo = np.where(swap, 1.0 - score_a, score_a)
    keys = np.stack([lo, hi, s_lo.view(np.int64)], axis=1)
    uniq, match_class = np.unique(keys, axis=0, return_inverse=True)
    match_class = match_class.reshape(-1)
    c_lo, c_hi, c_s = uniq[:, 0], uniq[:, 1], uniq[:, 2].copy().view(float)
    ids = np.arange(len(uniq))
    keep = np.ones(len(uniq), dtype=bool) if ties == "half" else c_s != 0.5
    entry_class = np.concatenate([ids[keep], ids[keep]])
    entry_cell = np.concatenate([c_lo[keep] * n + c_hi[keep], c_hi[keep] * n + c_lo[keep]])
    entry_value = np.concatenate([c_s[keep], 1.0 - c_s[keep]])
    nz = entry_value != 0.0
    return PairwiseData(agents=list(agents), games=list(games), match_game=np.asarray(game, dtype=np.int64),
                        match_class=match_class, entry_class=entry_class[nz], entry_cell=entry_cell[nz],
                        entry_value=entry_value[nz], num_classes=len(uniq))
