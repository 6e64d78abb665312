"""GTBench (Duan et al., 2024; reference: gtbench.md §3): ten two-player games, each against
Random and MCTS (1000 simulations, UCT c = 2) — Random is omitted for Negotiation and the
Iterated Prisoner's Dilemma, whose conventional opponent is Tit-for-Tat. 50 valid matches per
pairing, each side first in 25. No retries: the first illegal or unparseable answer voids the
match, which is replayed with the same seats until 50 are valid or 100 were played (the
completion rate reports how many it took). A seat with a single legal action is not asked.

Unlike GTBench's MCTS, which searched the true state of imperfect-information games, the house
MCTS agent determinizes from its own view, so it never sees the opponent's cards or values.
"""

from ..referee import Rules
from .base import Suite, SuiteGame

BEAT = "beat_the_opponent"
EARN = "earn_rewards"

RULES = Rules(per_decision=120.0, max_retries=0, on_failure="void_and_replay", max_replays=50,
              auto_play_forced=True)


BOTH = ("random", "mcts")

GTBENCH = Suite(
    name="gtbench",
    description=__doc__.split("\n\n")[0].replace("\n", " "),
    games=(
        SuiteGame("tic_tac_toe", "gtbench", BOTH, BEAT),
        SuiteGame("connect_four", "gtbench", BOTH, BEAT),
        SuiteGame("kuhn_poker", None, BOTH, EARN),
        SuiteGame("breakthrough", "gtbench", BOTH, BEAT),
        SuiteGame("liars_dice", "gtbench", BOTH, BEAT),
        SuiteGame("sealed_bid_auction", "gtbench_blind", BOTH, EARN),
        SuiteGame("negotiation", "gtbench", ("mcts",), EARN),
        SuiteGame("nim", "gtbench", BOTH, BEAT),
        SuiteGame("pig", "gtbench", BOTH, BEAT),
        SuiteGame("iterated_prisoners_dilemma", "gtbench_2p", ("tit_for_tat",), EARN),
    ),
    matches_per_pairing=50,
    rules=RULES,
    # The agent's decisions per match against the house agents (a 900-match run): Pig 40 on average,
    # up to 88; the dilemma 6, up to 33 (it goes on with probability 0.875 a round); Breakthrough 14,
    # up to 23; Connect Four 9, up to 19; every other game 5 at most.
    start_first=("pig", "iterated_prisoners_dilemma", "breakthrough", "connect_four"),
)
