"""What a suite is: games, opponents, match counts and rules, turned into tournaments."""

from __future__ import annotations

from dataclasses import dataclass

import arena_engines

from ..referee import Rules
from ..tournaments import TournamentConfig


@dataclass(frozen=True)
class SuiteGame:
    game_id: str
    preset: str | None
    opponents: tuple[str, ...]
    scoring: str                  # how the suite scores a match: "beat_the_opponent" | "earn_rewards"


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    games: tuple[SuiteGame, ...]
    matches_per_pairing: int      # counted (valid) matches per agent-opponent pairing
    rules: Rules

    def missing_games(self) -> list[str]:
        known = set(arena_engines.game_ids())
        return [g.game_id for g in self.games if g.game_id not in known]

    def tournaments(self, agent: str, *, matches_per_pairing: int | None = None, seed: int = 0) -> list[TournamentConfig]:
        """One gauntlet per game: `agent` against each opponent, seats alternating evenly."""
        missing = self.missing_games()
        if missing:
            raise ValueError(f"suite {self.name!r} needs games this server lacks: {', '.join(missing)}")
        matches = matches_per_pairing or self.matches_per_pairing
        if matches % 2:
            raise ValueError("matches per pairing must be even, so seats alternate evenly")
        return [
            TournamentConfig(
                name=f"{self.name}: {agent} at {g.game_id}", game_id=g.game_id, agents=[agent, *g.opponents],
                preset=g.preset, games_per_pairing=matches // 2, players_per_match=2, rules=self.rules,
                seed=seed + index if seed else 0, format="gauntlet", suite=self.name,
            ).validate()
            for index, g in enumerate(self.games)
        ]
