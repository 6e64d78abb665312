"""MCTS over the arena's own game engines: rebuilds the state from each observation and searches it.

It needs the `arena_engines` package (installed with the arena project). The package is imported
when the agent is created, never when the SDK is, so the SDK stays usable without it.
"""

from __future__ import annotations

import random

from ..agent import Agent, Choice, DecisionView, GameView, MatchView, ResultView


class MCTSAgent(Agent):
    """UCT with random rollouts (OpenSpiel's MCTSBot, as GTBench's opponent) over the local engine.

    Perfect-information games are searched from the position in the observation; imperfect-information
    games from determinizations consistent with the seat's own view (see arena_engines.mcts). `seed`
    makes a run reproducible: each match's search gets its own seed drawn from it in match order.
    It plays the games whose engine is installed here and that have no dialogue: it cannot write.
    """

    description = "MCTS with random rollouts over the arena engines"

    def __init__(self, simulations: int = 1000, uct_c: float = 2.0, seed: int | None = None):
        if simulations < 1 or uct_c < 0:
            raise ValueError(f"MCTS needs at least 1 simulation and a non-negative uct_c "
                             f"(got {simulations} and {uct_c:g})")
        try:
            from arena_engines import game_ids, load_game
            from arena_engines.mcts import MCTSBot
        except ImportError as e:
            raise RuntimeError("the MCTS agent needs the arena game engines (arena_engines): install the "
                               "arena project, e.g. `pip install -e .` in its source tree") from e
        self._load_game = load_game
        self._local_games = set(game_ids())
        self._bot_class = MCTSBot
        self.simulations = simulations
        self.uct_c = uct_c
        self._seeds = random.Random(seed)
        self._bots: dict[tuple[str, int], object] = {}      # (match id, seat) -> MCTSBot

    def can_play(self, game: GameView) -> bool:
        return game.game_id in self._local_games and not game.dialogue

    def on_match_start(self, match: MatchView) -> None:
        game = self._load_game(match.game_id, match.parameters, num_players=len(match.players))
        self._bots[match.match_id, match.seat] = self._bot_class(
            game, simulations=self.simulations, uct_c=self.uct_c, seed=self._seeds.getrandbits(63))

    def on_match_end(self, result: ResultView) -> None:
        self._bots.pop((result.match_id, result.seat), None)

    def decide(self, request: DecisionView) -> Choice:
        bot = self._bots.get((request.match_id, request.seat))
        if bot is None:
            raise ValueError(f"MCTSAgent has no search for match {request.match_id} seat {request.seat}: "
                             "its start was never announced")
        if not request.legal_actions:
            raise ValueError(f"MCTSAgent cannot answer match {request.match_id} decision {request.decision_id}: "
                             "it only accepts free text")
        return Choice(action_id=bot.step_from_view(request.seat, request.observation_data))
