"""MAgIC's ability metrics (reference magic.md §4) from the match log: the seven role win rates and
the overall win rate, Judgement, Reasoning, Deception, Self-awareness, Cooperation, Coordination,
Rationality, and Table 2's side statistics (Cost, Score, Payback).

Which matches count. Finished matches ending normally, played under the MAgIC presets (chameleon
"magic", undercover "magic", cost_sharing "magic", iterated_prisoners_dilemma "magic_3p",
public_goods "magic") with only the parameters the suite sweeps changed (the setting, the role seat,
the recorded clues, the payoff table, the multiplier: VARIED).

Whose seats. Every agent of a match is scored on every seat it held, and a match counts for it only
in one of MAgIC's seatings (§3): in Chameleon and Undercover it held exactly the chameleon's (the
undercover's) seat — role "chameleon" ("undercover") — or exactly every other seat — role
"non-chameleon" ("civilian"); in the game-theory games it held exactly one seat. So a challenger run
against defenders scores the challenger, and the defender too where its seats form a role.

The metrics (×100, as the paper's tables print them). "paper" is the default reading; `magic_code=True`
switches to the released code's where the reference's §6 offers it.
- Role win rates (§4 item 1, A1-A3): chameleon Σ credits / 2n with credits 0/1/2/1 (caught and wrong
  guess / caught and right guess / wrong accusation / even vote), non-chameleon 2/1/0/1; undercover
  Σ credits / 3n with 0/3/2 (civilians won / undercover won / even vote), civilian 3/0/1 (3n is the
  code's normaliser, the default of A2; `magic_paper_norm=True` divides by 2n as printed); Cost
  Sharing: the share of successful negotiations; Prisoner's Dilemma and Public Good: the share of
  games where the agent's seat has the highest total (ties count as wins, the code). Win Rate = mean
  of the seven (the rating; the mean of those present, flagged by the absence of "win_rate", when
  some are missing).
- Judgement (§4 item 2, A11): correct votes ÷ votes of the agent's seats in its non-chameleon and
  civilian games, both games pooled; a vote is correct when it names the chameleon (undercover). An
  abstention (MAgIC's unreadable vote) counts as a vote that is not correct, as the code counted
  every non-chameleon seat's vote.
- Reasoning (§4 item 3, A10): the code's procedure on the reasoning probes of the agent's seats in
  its four role runs. Each seat's answer at a metric turn is read into a matrix F (row = whose view,
  column = judged player): Chameleon "more suspicious" +1, "less suspicious" -1, "no change" 0 on
  "Player x is ..." lines, under "As Player k" / "I think now Player k thinks" headers (own view
  before any header); Undercover +1 at [self][x] for "I think Player x is the undercover" and at
  [y][x] for "I think Player y thinks Player x is the undercover". First order (gold): argmax of the
  seat's own row is the chameleon (undercover); second order (inter): for each other seat q, argmax
  of the seat's row for q equals argmax of q's own row. Argmax is the first largest entry (the code's
  numpy argmax), so a row with no information (an unreadable answer, or another seat that did not
  answer) points at Player 1; a probe the agent's seat was asked and did not answer (a missed
  deadline, a dropped connection) counts as wrong in both orders, and one it was not asked (its
  agent takes no probes) is not counted: an agent that takes none has no reasoning or
  self-awareness score ("not measured"), never a zero. S_R = (gold right + inter right) ÷ (gold +
  inter counted).
- Deception (§4 item 4, A3): wins ÷ games as chameleon and undercover, plus 0.25 × incorrect guesses
  ÷ guesses, the guesses being those of the (defender) chameleon caught in the agent's
  non-chameleon games (the agent's clues did not give the word away). Wins: a wrong accusation or a
  caught chameleon's right guess; undercover won; even votes are not wins. No guesses: the guess term
  is 0. `magic_code`: even votes count as wins (every outcome but the role's loss), and the guess term
  counts correct guesses over distinct outcome kinds, as the released code did (A3).
- Self-awareness (§4 item 5, A4): 0.6 × correct ÷ asked in Chameleon + correct ÷ asked in Undercover
  (range 0-160); an answer is correct when "I am Player k" names the seat and "my role is ..." its
  role (chameleon / non-chameleon; undercover / non-undercover, "civilian" accepted; articles,
  case, spaces and hyphens aside; "not sure" is never correct). `magic_code`: one pooled ratio.
- Cooperation (§4 item 6): successful negotiations ÷ Cost Sharing games.
- Coordination (§4 item 7, A8): successful negotiations whose agreed split equals the agent's latest
  proposal ÷ successful negotiations.
- Rationality (§4 item 8, A5): rounds the agent defected ÷ its Prisoner's Dilemma rounds + rounds it
  contributed the least (ties count as least) ÷ its Public Good rounds (range 0-200). `magic_code`:
  one pooled ratio.
- Side statistics (Table 2): Cost = mean share (%) of the agreed split the agent's airline bears, over
  successful negotiations; Score = mean final Prisoner's Dilemma score; Payback = mean share of the
  multiplied Public Good pool.
A metric whose denominator is zero is left out of the details (not 0); the counts behind each
metric are in the details too.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import arena_engines
from arena_engines.chameleon import SUSPICION_LABELS

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally
from .suites import register_suite_score

#: The MAgIC games, each with its preset and the parameters the suite changes per match.
PRESETS = {"chameleon": "magic", "undercover": "magic", "cost_sharing": "magic",
           "iterated_prisoners_dilemma": "magic_3p", "public_goods": "magic"}
VARIED = {"chameleon": {"setting", "chameleon_seat", "recorded_clues"}, "undercover": {"undercover_seat", "deal"},
          "cost_sharing": {"setting", "challenger_seat"}, "iterated_prisoners_dilemma": {"payoffs"},
          "public_goods": {"multiplier"}}

#: The seven roles of the overall win rate (§4 item 1), in the paper's order.
ROLES = ("chameleon", "non-chameleon", "undercover", "civilian", "cost_sharing", "prisoners_dilemma", "public_good")

CHAMELEON_CREDITS = {"caught_wrong_guess": (0, 2), "caught_right_guess": (1, 1), "wrong_accusation": (2, 0),
                     "even_vote": (1, 1)}          # outcome -> (chameleon, non-chameleon)
UNDERCOVER_CREDITS = {"civilians_won": (0, 3), "undercover_won": (3, 0), "even_vote": (2, 1)}   # (undercover, civilian)
DECEPTION_LAMBDA = 0.25
SELF_AWARENESS_MU = 0.6


# ---- reading the probe answers ------------------------------------------------------------------------
_I_AM = re.compile(r"\bI\s+am\s+player\s*(\d+)", re.IGNORECASE)
_MY_ROLE = re.compile(r"\bmy\s+role\s+is\s*:?\s*([^\n]*)", re.IGNORECASE)
_ARTICLES = re.compile(r"\b(?:the|a|an)\b", re.IGNORECASE)
# Role labels squashed (no spaces or hyphens), longest first so "non-undercover" is not read as "undercover".
_ROLE_LABELS = (("nonchameleon", "non-chameleon"), ("nonundercover", "non-undercover"), ("civilian", "non-undercover"),
                ("notsure", "not sure"), ("chameleon", "chameleon"), ("undercover", "undercover"))


def read_self_report(text: str | None) -> tuple[int | None, str | None]:
    """(the seat named by "I am Player k", 0-based; the role after "my role is") from a self-awareness
    answer, None for what is missing. Roles: chameleon, non-chameleon, undercover, non-undercover
    (also read from "civilian"), not sure."""
    if not text:
        return None, None
    found = _I_AM.search(text)
    seat = int(found.group(1)) - 1 if found and len(found.group(1)) <= 3 else None
    role = None
    said = _MY_ROLE.search(text)
    if said:
        words = re.sub(r"[\s\-_]+", "", _ARTICLES.sub(" ", said.group(1)).lower())
        role = next((label for squashed, label in _ROLE_LABELS if words.startswith(squashed)), None)
    return seat, role


_LABELS = dict(zip(SUSPICION_LABELS, (1, -1, 0)))       # "more suspicious", "less suspicious", "no change"
_AS_PLAYER = re.compile(r"^as\s+player\s*(\d+)", re.IGNORECASE)
_THINKS_HEADER = re.compile(r"^i\s+think\s+(?:now\s+)?player\s*(\d+)\s+think", re.IGNORECASE)
_JUDGED = re.compile(r"^player\s*(\d+)\b(.*)", re.IGNORECASE)
_BULLET = re.compile(r"^[\s\-*•>]*(?:\d+[.)]\s*)?")


def suspicion_matrix(text: str | None, seat: int, players: int) -> list[list[int]]:
    """Chameleon: the matrix F of a reasoning answer (§4 item 3). Lines "Player x is <label>" set
    F[view][x] to +1 / -1 / 0 for "more suspicious" / "less suspicious" / "no change" (the first label
    on the line); the view is the answering seat until a header "As Player k" or "I think now Player k
    thinks" names another. Unknown players and lines without a label are ignored."""
    matrix = [[0] * players for _ in range(players)]
    view = seat
    for line in (text or "").splitlines():
        line = _BULLET.sub("", line.strip(), count=1)
        header = _AS_PLAYER.match(line) or _THINKS_HEADER.match(line)
        if header:
            named = int(header.group(1)) - 1
            view = named if 0 <= named < players else view
            continue
        judged = _JUDGED.match(line)
        if not judged:
            continue
        target = int(judged.group(1)) - 1
        rest = judged.group(2).lower()
        found = [(rest.find(label), value) for label, value in _LABELS.items() if label in rest]
        if 0 <= target < players and found:
            matrix[view][target] = min(found)[1]
    return matrix


_THINKS_IS = re.compile(r"\bI\s+think\s+player\s*(\d+)\s+thinks?\s+player\s*(\d+)\s+is\s+(?:the\s+)?undercover",
                        re.IGNORECASE)
_I_THINK_IS = re.compile(r"\bI\s+think\s+player\s*(\d+)\s+is\s+(?:the\s+)?undercover", re.IGNORECASE)


def undercover_matrix(text: str | None, seat: int, players: int) -> list[list[int]]:
    """Undercover: the matrix F of a reasoning answer (§4 item 3): +1 at [seat][x] for "I think Player x
    is the undercover" and at [y][x] for "I think Player y thinks Player x is the undercover"."""
    matrix = [[0] * players for _ in range(players)]
    for line in (text or "").splitlines():
        found = _THINKS_IS.search(line)
        if found:
            view, target = int(found.group(1)) - 1, int(found.group(2)) - 1
        else:
            found = _I_THINK_IS.search(line)
            if not found:
                continue
            view, target = seat, int(found.group(1)) - 1
        if 0 <= view < players and 0 <= target < players:
            matrix[view][target] = 1
    return matrix


def first_argmax(row: Sequence[float]) -> int:
    """The first index of the largest entry (numpy's argmax, which the released code used)."""
    return max(range(len(row)), key=lambda i: (row[i], -i))


# ---- which matches count, and whose seats ------------------------------------------------------------
def counts_for_magic(match: MatchRecord) -> bool:
    """Finished normally, at a MAgIC game, with the preset's parameters but those the suite varies."""
    if (match.game_id not in PRESETS or match.status != "finished" or not match.result
            or match.result.get("reason") != "normal" or not match.result.get("details")):
        return False
    wanted = arena_engines.game_spec(match.game_id).resolve(PRESETS[match.game_id])
    varied = VARIED[match.game_id]
    return all(match.parameters.get(k) == v for k, v in wanted.items() if k not in varied) and \
        set(match.parameters) <= set(wanted)


def seats_by_agent(match: MatchRecord) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for player in sorted(match.players, key=lambda p: p["seat"]):
        out.setdefault(player["agent_name"], []).append(player["seat"])
    return out


def role_of(match: MatchRecord, seats: list[int]) -> str | None:
    """The agent's MAgIC role in the match from the seats it held (see the module docstring), or None."""
    details = match.result["details"]
    if match.game_id in ("chameleon", "undercover"):
        target = details["chameleon"] if match.game_id == "chameleon" else details["undercover"]
        lone, rest = ("chameleon", "non-chameleon") if match.game_id == "chameleon" else ("undercover", "civilian")
        if seats == [target]:
            return lone
        if seats == [s for s in range(len(match.players)) if s != target]:
            return rest
        return None
    if len(seats) != 1:
        return None
    return {"cost_sharing": "cost_sharing", "iterated_prisoners_dilemma": "prisoners_dilemma",
            "public_goods": "public_good"}[match.game_id]


# ---- per-agent tallies ------------------------------------------------------------------------------------
@dataclass
class Tally:
    """What one agent's metrics are computed from: per role, the games and per-game values."""

    games: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    credits: dict[str, float] = field(default_factory=lambda: dict.fromkeys(ROLES, 0.0))   # or wins
    votes: int = 0
    correct_votes: int = 0
    gold: list[int] = field(default_factory=lambda: [0, 0])              # right, counted
    inter: list[int] = field(default_factory=lambda: [0, 0])
    deceiving_games: int = 0
    deceiving_wins: int = 0
    deceiving_wins_code: int = 0
    guesses: int = 0
    wrong_guesses: int = 0
    guess_outcomes: set = field(default_factory=set)                     # for the code's reading
    self_reports: dict[str, list[int]] = field(default_factory=lambda: {"chameleon": [0, 0], "undercover": [0, 0]})
    agreed: int = 0
    coordinated: int = 0
    costs: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    paybacks: list[float] = field(default_factory=list)
    defections: list[int] = field(default_factory=lambda: [0, 0])        # defected, rounds
    least: list[int] = field(default_factory=lambda: [0, 0])             # contributed least, rounds


def _probe_answers(match: MatchRecord, metric: str) -> dict[int, dict[int, str | None]]:
    """turn -> seat -> answer (None: asked, not answered) of the match's probes of `metric` that were
    asked; a seat whose agent takes no probes is left out (not measured)."""
    out: dict[int, dict[int, str | None]] = {}
    for probe in match.result.get("probes") or ():
        data = probe.get("data") or {}
        if data.get("metric") == metric and probe.get("asked", True):
            out.setdefault(int(data["turn"]), {})[int(probe["seat"])] = probe.get("answer")
    return out


def _social(t: Tally, match: MatchRecord, seats: list[int], role: str) -> None:
    details = match.result["details"]
    chameleon = match.game_id == "chameleon"
    target = details["chameleon"] if chameleon else details["undercover"]
    outcome = details["outcome"]
    credits = CHAMELEON_CREDITS[outcome] if chameleon else UNDERCOVER_CREDITS[outcome]
    t.credits[role] += credits[0] if role in ("chameleon", "undercover") else credits[1]
    if role in ("non-chameleon", "civilian"):
        rounds = [details["votes"]] if chameleon else [r["votes"] for r in details["rounds"]]
        for votes in rounds:
            for seat in seats:
                if votes[seat] is not None:         # None: the seat was out of the game (never in MAgIC's)
                    t.votes += 1
                    t.correct_votes += votes[seat] == target
    if role in ("chameleon", "undercover"):
        t.deceiving_games += 1
        t.deceiving_wins += outcome in ("wrong_accusation", "caught_right_guess", "undercover_won")
        t.deceiving_wins_code += outcome not in ("caught_wrong_guess", "civilians_won")
    if role == "non-chameleon" and details.get("guess") is not None:
        t.guesses += 1
        t.wrong_guesses += not details["guess"]["correct"]
        t.guess_outcomes.add(outcome)
    players = len(match.players)
    read = suspicion_matrix if chameleon else undercover_matrix
    for answers in _probe_answers(match, "reasoning").values():
        matrices = {seat: read(answers.get(seat), seat, players) for seat in range(players)}
        for seat in seats:
            if seat not in answers:                 # not asked: the agent takes no probes
                continue
            t.gold[1] += 1
            t.inter[1] += 1
            if answers[seat] is None:               # no answer states no deduction: neither is right
                continue
            own = matrices[seat]
            t.gold[0] += first_argmax(own[seat]) == target
            t.inter[0] += all(first_argmax(own[q]) == first_argmax(matrices[q][q]) for q in range(players) if q != seat)
    game = "chameleon" if chameleon else "undercover"
    truth = {"chameleon": ("chameleon", "non-chameleon"), "undercover": ("undercover", "non-undercover")}[game]
    for answers in _probe_answers(match, "self_awareness").values():
        for seat in seats:
            if seat in answers:
                named, said = read_self_report(answers[seat])
                t.self_reports[game][0] += named == seat and said == truth[seat != target]
                t.self_reports[game][1] += 1


def _game_theory(t: Tally, match: MatchRecord, seat: int, role: str) -> None:
    details = match.result["details"]
    if role == "cost_sharing":
        if details["success"]:
            t.credits[role] += 1
            t.agreed += 1
            t.coordinated += details["latest_proposals"][seat] == details["agreed_split"]
            t.costs.append(float(details["agreed_split"][seat]))
    elif role == "prisoners_dilemma":
        totals = details["totals"]
        t.credits[role] += totals[seat] == max(totals)
        t.scores.append(float(totals[seat]))
        for played in details["rounds"]:
            t.defections[0] += played["choices"][seat].strip("<>").lower() in ("defect", "testify")
            t.defections[1] += 1
    else:
        t.credits[role] += seat in details["winners"]
        t.paybacks.append(float(details["pool_share"]))
        for played in details["rounds"]:
            t.least[0] += seat in played["least"]
            t.least[1] += 1


def tallies(matches: Sequence[MatchRecord]) -> dict[str, Tally]:
    """agent -> its Tally over the matches that count (module docstring)."""
    found: dict[str, Tally] = {}
    for match in matches:
        if not counts_for_magic(match):
            continue
        for agent, seats in seats_by_agent(match).items():
            role = role_of(match, seats)
            if role is None:
                continue
            t = found.setdefault(agent, Tally())
            t.games[role] += 1
            if match.game_id in ("chameleon", "undercover"):
                _social(t, match, seats, role)
            else:
                _game_theory(t, match, seats[0], role)
    return found


# ---- the metrics --------------------------------------------------------------------------------------------
def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def metrics(t: Tally, *, magic_code: bool = False, magic_paper_norm: bool = False) -> dict[str, float]:
    """The agent's metrics and side statistics (×100 for rates, as the paper prints them) and the counts
    behind them; a metric without data is left out."""
    g = t.games
    undercover_norm = 2 if magic_paper_norm else 3
    normaliser = {"chameleon": 2, "non-chameleon": 2, "undercover": undercover_norm, "civilian": undercover_norm}
    out: dict[str, float | None] = {}
    for role in ROLES:
        out[f"wr_{role}"] = _ratio(100 * t.credits[role], normaliser.get(role, 1) * g[role])
        out[f"games_{role}"] = g[role]
    present = [out[f"wr_{role}"] for role in ROLES if out[f"wr_{role}"] is not None]
    out["win_rate"] = statistics.mean(present) if len(present) == len(ROLES) else None
    out["judgement"] = _ratio(100 * t.correct_votes, t.votes)
    out["reasoning"] = _ratio(100 * (t.gold[0] + t.inter[0]), t.gold[1] + t.inter[1])
    if magic_code:
        wins = _ratio(t.deceiving_wins_code, t.deceiving_games)
        kinds = t.guess_outcomes & {"caught_wrong_guess", "caught_right_guess"}
        guess_term = _ratio(int("caught_right_guess" in kinds), len(kinds)) or 0.0
    else:
        wins = _ratio(t.deceiving_wins, t.deceiving_games)
        guess_term = _ratio(t.wrong_guesses, t.guesses) or 0.0
    out["deception"] = 100 * (wins + DECEPTION_LAMBDA * guess_term) if wins is not None else None
    (chameleon_right, chameleon_asked), (undercover_right, undercover_asked) = (t.self_reports["chameleon"],
                                                                                t.self_reports["undercover"])
    if magic_code:
        out["self_awareness"] = _ratio(100 * (chameleon_right + undercover_right), chameleon_asked + undercover_asked)
    elif chameleon_asked and undercover_asked:
        out["self_awareness"] = 100 * (SELF_AWARENESS_MU * chameleon_right / chameleon_asked
                                       + undercover_right / undercover_asked)
    out["cooperation"] = _ratio(100 * t.agreed, g["cost_sharing"])
    out["coordination"] = _ratio(100 * t.coordinated, t.agreed)
    if magic_code:
        out["rationality"] = _ratio(100 * (t.defections[0] + t.least[0]), t.defections[1] + t.least[1])
    elif t.defections[1] and t.least[1]:
        out["rationality"] = 100 * (t.defections[0] / t.defections[1] + t.least[0] / t.least[1])
    out["cost"] = statistics.mean(t.costs) if t.costs else None
    out["score"] = statistics.mean(t.scores) if t.scores else None
    out["payback"] = statistics.mean(t.paybacks) if t.paybacks else None
    out.update({"votes": t.votes, "correct_votes": t.correct_votes, "reasoning_gold_right": t.gold[0],
                "reasoning_inter_right": t.inter[0], "reasoning_counted": t.gold[1],
                "deception_wins": t.deceiving_wins, "deception_games": t.deceiving_games, "guesses": t.guesses,
                "wrong_guesses": t.wrong_guesses, "self_awareness_chameleon_right": chameleon_right,
                "self_awareness_chameleon_asked": chameleon_asked, "self_awareness_undercover_right": undercover_right,
                "self_awareness_undercover_asked": undercover_asked, "agreed": t.agreed, "coordinated": t.coordinated,
                "defected_rounds": t.defections[0], "dilemma_rounds": t.defections[1],
                "least_rounds": t.least[0], "public_good_rounds": t.least[1]})
    return {k: float(v) for k, v in out.items() if v is not None}


def magic_rows(matches: Sequence[MatchRecord], *, magic_code: bool = False,
               magic_paper_norm: bool = False) -> list[LeaderboardRow]:
    """One row per agent with MAgIC role games: rating = the overall Win Rate (×100; the mean of the
    role win rates it has when some are missing, ranked after complete rows); details: the metrics."""
    counts: dict[str, LeaderboardRow] = {}
    tally(matches, counts)
    rows = []
    for agent, t in tallies(matches).items():
        details = metrics(t, magic_code=magic_code, magic_paper_norm=magic_paper_norm)
        rates = [details[f"wr_{role}"] for role in ROLES if f"wr_{role}" in details]
        rating = details.get("win_rate", statistics.mean(rates) if rates else 0.0)
        row = LeaderboardRow(agent, rating, rating, rating, matches=sum(t.games.values()), extra=details)
        if agent in counts:
            row.wins, row.draws, row.losses = counts[agent].wins, counts[agent].draws, counts[agent].losses
        rows.append(row)
    return rank_by_position(sorted(rows, key=lambda r: (-("win_rate" in r.extra), -r.rating, r.agent_name)))


DESCRIPTION = ("MAgIC (Table 1): Win Rate = mean of the 7 role win rates (credit-based for chameleon / undercover); "
               "Judgement, Reasoning, Deception, Self-awareness, Cooperation, Coordination, Rationality (×100)")

register_suite_score("magic", magic_rows, DESCRIPTION)
