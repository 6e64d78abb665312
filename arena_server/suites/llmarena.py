"""LLMArena (Chen et al., ACL 2024; reference: llmarena.md §3-4): seven environments, each played by
the agent under evaluation against opponents the operator names (any connected or house agents),
paired at random with random seats, as the paper paired its fourteen models.

- TicTacToe, ConnectFour, Texas Hold'em and Bargain: TrueSkill (the `trueskill` defaults) over at
  least 50 matches, then batches of 10 until the agent's μ moved less than 0.1 over the last batch
  (§6 item 3), at most 200;
- Undercover: 100 games as the undercover against four civilians drawn from the opponents (the
  paper: four GPT-3.5 players); its seat is secret to everyone;
- Bid: 50 matches, mean reward; Hanabi: 50 games of two copies of the agent, mean team score.
Invalid answers (§6 item 6): 3 re-asks (Hanabi 1), then a random legal move; an answer naming an
illegal move ends the game at once, the offender losing. Scores: `arena-server leaderboard --suite
llmarena` prints the normalised table (each environment's best = 100).
"""

from dataclasses import replace

from ..referee import Rules
from .base import Suite, SuiteGame

RULES = Rules(per_decision=120.0, max_retries=3, on_failure="random_legal", on_illegal="forfeit")
CONVERGENCE = {"batch": 10, "threshold": 0.1, "max_matches": 200}


def _trueskill(game_id: str, preset: str) -> SuiteGame:
    return SuiteGame(game_id, preset, (), "trueskill", matches=50, convergence=CONVERGENCE)


LLMARENA = Suite(
    name="llmarena",
    description=__doc__.split("\n\n")[0].replace("\n", " "),
    games=(
        _trueskill("tic_tac_toe", "llmarena"),
        _trueskill("connect_four", "llmarena"),
        _trueskill("texas_holdem_no_limit", "llmarena"),
        SuiteGame("sealed_bid_auction", "llmarena_bid", (), "mean_return", matches=50),
        _trueskill("negotiation", "llmarena_bargain"),
        SuiteGame("undercover", "llmarena", (), "undercover_win_rate", players=5, matches=100,
                  challenger_seat_parameter="undercover_seat"),
        SuiteGame("hanabi", "llmarena_small", (), "mean_return", matches=50, format="self_play",
                  rules=replace(RULES, max_retries=1)),
    ),
    matches_per_pairing=50,
    rules=RULES,
    format="sampled",
    needs_pool=True,
)
