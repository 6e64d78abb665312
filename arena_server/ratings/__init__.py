"""Ratings, computed from the match log alone so they can always be recomputed and audited.

- `outcomes`: match records → sides and weighted pairwise comparisons, outcome classes.
- `bradley_terry`: Bradley–Terry fit (choix ILSR), fast bootstrap, intervals, separation ranks.
- `gamebench`: GameBench's data format, Table 2 (incl. the exact seeded replication), Table 3.
- `trueskill_board`: TrueSkill (two-player, multiplayer, teams, draws; LLMArena preset; live;
  order-robust).
- `elo`, `nra`: Elo; GTBench's Normalized Relative Advantage.
- `suites`: suite game lists and the registry of suites' own scores.
- `gamabench_scores`: GAMA-Bench's 0-100 game scores and Overall (the gamabench suite score).
- `llmarena_scores`: LLMArena's raw and normalised scores per environment (the llmarena suite score).
- `leaderboard`: one entry point (query → leaderboard) for the RPC, the CLI and reports.
- `report`: CSV, PNG plot, static HTML report.
"""

from . import gamabench_scores, llmarena_scores  # noqa: F401  (they register their suites' scores)
from . import magic_scores  # noqa: F401  (registers the magic suite's score)
from .board import LeaderboardRow
from .bradley_terry import BTOptions, BTResult, bradley_terry, bradley_terry_leaderboard, fit, fit_batch
from .elo import EloBoard, EloOptions, elo_leaderboard
from .leaderboard import METHODS, PRESETS, Leaderboard, LeaderboardQuery, compute_leaderboard
from .nra import nra, nra_leaderboard, nra_table
from .outcomes import PairwiseData, comparisons, pairwise_data, sides
from .suites import SUITES, register_suite_score
from .trueskill_board import TRUESKILL_PRESETS, TrueSkillBoard, TrueSkillSettings, trueskill_leaderboard

__all__ = [
    "BTOptions", "BTResult", "EloBoard", "EloOptions", "Leaderboard", "LeaderboardQuery", "LeaderboardRow",
    "METHODS", "PRESETS", "PairwiseData", "SUITES", "TRUESKILL_PRESETS", "TrueSkillBoard", "TrueSkillSettings",
    "bradley_terry", "bradley_terry_leaderboard", "comparisons", "compute_leaderboard", "elo_leaderboard", "fit",
    "fit_batch", "nra", "nra_leaderboard", "nra_table", "pairwise_data", "register_suite_score", "sides",
    "trueskill_leaderboard",
]
