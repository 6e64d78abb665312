"""GAMA-Bench (Huang et al., 2024; reference: gamabench.md §3): eight games, each played by ten
copies of the agent under evaluation (one session may hold every seat; each seat has its own view and
history), five runs of each, twenty rounds where the game has rounds. Scores: the 0-100 rescaled
score of each run, a game's mean ± sample standard deviation over runs, and the Overall score (the
mean of the eight), as the paper's tables (`arena-server leaderboard --suite gamabench`).

Invalid answers: the released code re-asked forever; the suite re-asks with the refusal's feedback
up to a cap (10, §2.9's recommendation; the operator may set another), every re-ask recorded in the
match log, then plays the game's documented fallback (Guess: the last target; El Farol: stay;
Dollar: G/N; Public Goods: 0; Diner: cheap; Auction: 0; Battle Royale: an intentional miss; Pirate:
an equal split, a reject).
"""

from ..referee import Rules
from .base import Suite, SuiteGame

RULES = Rules(per_decision=120.0, max_retries=10, on_failure="game_default")
RUNS = 5
PLAYERS = 10


def _game(game_id: str) -> SuiteGame:
    return SuiteGame(game_id, "gamabench", (), "gamabench", players=PLAYERS)


GAMABENCH = Suite(
    name="gamabench",
    description=__doc__.split("\n\n")[0].replace("\n", " "),
    games=tuple(_game(g) for g in ("guess_two_thirds_average", "el_farol_bar", "divide_the_dollar", "public_goods",
                                   "diners_dilemma", "sealed_bid_auction", "battle_royale", "pirate_game")),
    matches_per_pairing=RUNS,
    rules=RULES,
    format="self_play",
)
