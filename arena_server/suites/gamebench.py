"""GameBench (reference: gamebench.md §3-4): nine games, each played by the agent under evaluation
against opponents the operator names (GameBench's baseline is the random agent), the sides drawn by a
coin flip per match; team seats (Codenames, Sea Battle, Pit, the social-deduction games) are held by
one agent per side. Invalid answers: three attempts with corrective feedback, then a uniformly random
legal action (§2.10). Scores: each match's two scores in [0, 1] summing to one; the suite's table is
the average score per game (Table 3), and `arena-server leaderboard --suite gamebench --preset
gamebench` fits GameBench's Bradley-Terry ratings with its weighted bootstrap (Table 2).
"""

from ..referee import Rules
from .base import Suite, SuiteGame

RULES = Rules(per_decision=120.0, max_retries=2, on_failure="random_legal")
MATCHES = 10        # per game: GameBench collected 17-49 per game over all its pairs

GAMEBENCH = Suite(
    name="gamebench",
    description=__doc__.split("\n\n")[0].replace("\n", " "),
    games=tuple(SuiteGame(game_id, "gamebench", (), "score_share", players=players) for game_id, players in (
        ("air_land_sea", 2), ("arctic_scavengers", 2), ("are_you_the_traitor", 5), ("codenames", 4), ("hive", 2),
        ("pit", 4), ("santorini", 2), ("two_rooms_and_a_boom", 6), ("sea_battle", 6))),
    matches_per_pairing=MATCHES,
    rules=RULES,
    format="sampled",
    needs_pool=True,
)
