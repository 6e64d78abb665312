"""MAgIC (Xu, Hu et al., 2024; reference magic.md §3): the agent under evaluation (the challenger)
against one defender agent the operator names (`--opponents`; the paper's defenders are GPT-4, e.g. an
`arena-agent llm`), which holds every seat the challenger does not, in five three-player games:

- Chameleon: the 20 competitions of chameleon_settings.COMPETITIONS, each twice: the challenger as
  the chameleon (against two defender seats), and as both non-chameleons (against a defender
  chameleon); the chameleon's seat is the record's. Defender seats that speak before the
  challenger's first turn say the record's first clue (§2.1 "Pre-recorded defender moves", §6 A14):
  the game's secret "recorded_clues" is the challenger's first seat.
- Undercover: 20 competitions, each twice: the challenger as the undercover, and as both civilians;
  the undercover's seat rotates over the three seats. MAgIC's 20 word pairs are unpublished (§6
  A21; its recommended calibration, 200 all-GPT-4 games to pick 20 balanced pairs, needs GPT-4 and
  is not done here): competition k deals the first pair of the k-th triangle of undercover_words.WORD_PAIRS (20
  different topics), the civilians' side alternating, the same in both role runs (the game's secret
  "deal"). MAgIC's recorded first clues are unpublished too, so no clue is pre-recorded.
- Cost Sharing: 7 groups of cost_sharing_settings × the challenger in each of the 3 seats (21); the
  defenders' round-1 proposals are the group's recorded ones ("challenger_seat").
- Prisoner's Dilemma: 7 payoff settings × 3 seats (21); the settings are §6 A6's reading,
  (cooperate, one_defect, two_defect) in PAYOFF_SETTINGS with defect 1, set through the game's
  "payoffs" table.
- Public Good: the 7 multipliers 1, 1.2, 1.5, 1.8, 2, 2.5, 3 × 3 seats (21).

Every match is played once (temperature 0 is the agents' business). Invalid answers (§2.6): the
released code never re-asked, so neither does the suite; the game's documented fallback is played
(a vote abstains, a clue or guess is empty, a proposal repeats the last one, a contribution is 0).
Forced moves (the recorded clues and proposals) are played without asking. `--matches-per-pairing k`
takes the first k settings of each game (k competitions × 2 roles in Chameleon and Undercover).
Scores: `arena-server leaderboard --method suite-score --suite magic` (Table 1's seven abilities and
win rate, the role win rates, Table 2's side statistics; arena_server/ratings/magic_scores.py).

The challenger holds two seats when it plays the non-chameleons or the civilians, as the paper's
challenger model did in two conversations: each seat gets its own view and decisions, and an agent
should keep them apart (the match's player list shows which seats an agent holds).
"""

from __future__ import annotations

from typing import Any

from arena_engines.chameleon_settings import COMPETITIONS, setting_index
from arena_engines.cost_sharing_settings import GROUPS
from arena_engines.iterated_prisoners_dilemma import magic_payoffs
from arena_engines.public_goods import MAGIC_MULTIPLIERS

from ..referee import Rules
from .base import Suite, SuiteGame

RULES = Rules(per_decision=120.0, max_retries=0, on_failure="game_default", auto_play_forced=True)
SEATS = 3
CHALLENGER, DEFENDER = 0, 1            # indices into a listed tournament's agents
UNDERCOVER_COMPETITIONS = 20
# (cooperate, one_defect, two_defect); defect (all three defect) is 1 (magic.md §6 A6).
PAYOFF_SETTINGS = ((3, 5, 2), (3, 10, 2), (3, 20, 2), (3, 5, 3), (3, 5, 4), (3, 5, 5), (5, 5, 3))


def _seats(challenger_seats) -> list[int]:
    return [CHALLENGER if seat in challenger_seats else DEFENDER for seat in range(SEATS)]


def _both_roles(lone_seat: int, parameters_alone: dict[str, Any], parameters_rest: dict[str, Any]) -> list[dict]:
    """The challenger in the lone role's seat, then in every other seat."""
    rest = [s for s in range(SEATS) if s != lone_seat]
    return [{"seats": _seats({lone_seat}), "parameters": parameters_alone},
            {"seats": _seats(set(rest)), "parameters": parameters_rest}]


def chameleon_matches(limit: int | None = None) -> list[dict[str, Any]]:
    matches = []
    for record in COMPETITIONS[:limit]:
        setting = {"setting": setting_index(record.topic, record.word), "chameleon_seat": record.chameleon}
        first_other = 1 if record.chameleon == 0 else 0          # the non-chameleons' first seat
        matches += _both_roles(record.chameleon, {**setting, "recorded_clues": record.chameleon},
                               {**setting, "recorded_clues": first_other})
    return matches


def undercover_deal(k: int) -> int:
    """Competition k's words: pair 3k (WORD_PAIRS comes in triangles of three pairs on one topic), the
    civilians on its word k mod 2."""
    return 2 * (3 * k) + k % 2


def undercover_matches(limit: int | None = None) -> list[dict[str, Any]]:
    matches = []
    for k in range(min(UNDERCOVER_COMPETITIONS, UNDERCOVER_COMPETITIONS if limit is None else limit)):
        setting = {"undercover_seat": k % SEATS, "deal": undercover_deal(k)}
        matches += _both_roles(k % SEATS, setting, setting)
    return matches


def _one_seat_each(settings: list[dict[str, Any]], limit: int | None, seat_parameter: str = "") -> list[dict]:
    """Each setting with the challenger in seat 0, 1, 2 (in that order), the first `limit` of them."""
    matches = [{"seats": _seats({seat}), "parameters": {**setting, **({seat_parameter: seat} if seat_parameter else {})}}
               for setting in settings for seat in range(SEATS)]
    return matches[:limit]


def cost_sharing_matches(limit: int | None = None) -> list[dict[str, Any]]:
    return _one_seat_each([{"setting": g} for g in range(len(GROUPS))], limit, "challenger_seat")


def dilemma_matches(limit: int | None = None) -> list[dict[str, Any]]:
    return _one_seat_each([{"payoffs": magic_payoffs(cooperate=c, defect=1, one_defect=one, two_defect=two)}
                           for c, one, two in PAYOFF_SETTINGS], limit)


def public_good_matches(limit: int | None = None) -> list[dict[str, Any]]:
    return _one_seat_each([{"multiplier": float(m)} for m in MAGIC_MULTIPLIERS], limit)


def _game(game_id: str, preset: str, listed) -> SuiteGame:
    return SuiteGame(game_id, preset, (), "magic", players=SEATS, listed=listed)


MAGIC = Suite(
    name="magic",
    description=__doc__.split("\n\n")[0].replace("\n", " "),
    games=(
        _game("chameleon", "magic", chameleon_matches),
        _game("undercover", "magic", undercover_matches),
        _game("cost_sharing", "magic", cost_sharing_matches),
        _game("iterated_prisoners_dilemma", "magic_3p", dilemma_matches),
        _game("public_goods", "magic", public_good_matches),
    ),
    matches_per_pairing=21,
    rules=RULES,
    format="listed",
    needs_pool=True,
)
