"""What a suite is: games, opponents, match counts and rules, turned into tournaments.

Each game of a suite is played in one of these formats:
- "gauntlet": the agent against each fixed opponent, seats alternating evenly (GTBench);
- "self_play": the agent in every seat of each run (GAMA-Bench; LLMArena's Hanabi);
- "sampled": each match against opponents drawn at random from the operator's pool, in random
  seats (LLMArena's random pairing), optionally until the agent's TrueSkill converges; with a
  `challenger_seat_parameter`, the agent's seat is passed to the game in that (secret) parameter,
  e.g. to make it Undercover's undercover;
- "listed": the matches one by one, as the game's `listed(k)` gives them for its first k settings
  (all when k is None): each names who sits where (0 = the agent, 1... = the opponents in order)
  and the match's own parameters (MAgIC: a setting and the challenger's role seat per match).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import arena_engines

from ..referee import Rules
from ..tournaments import TournamentConfig


@dataclass(frozen=True)
class SuiteGame:
    game_id: str
    preset: str | None
    opponents: tuple[str, ...]    # fixed opponents (gauntlet); empty: the operator's pool ("sampled")
    scoring: str                  # how the suite scores a match: "beat_the_opponent" | "earn_rewards" | ...
    players: int = 2              # seats per match
    format: str | None = None     # overrides the suite's format for this game
    matches: int | None = None    # overrides the suite's match count for this game
    rules: Rules | None = None    # overrides the suite's rules for this game (e.g. fewer re-asks)
    convergence: dict[str, float] | None = None    # "sampled": play batches until TrueSkill settles
    challenger_seat_parameter: str = ""            # "sampled": the game parameter that gets the agent's seat
    listed: Callable[[int | None], list[dict[str, Any]]] | None = None   # "listed": the matches of the first k settings


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    games: tuple[SuiteGame, ...]
    matches_per_pairing: int      # counted (valid) matches per agent-opponent pairing; self-play: runs per game
    rules: Rules
    format: str = "gauntlet"      # the games' format unless a game says otherwise (see the module docstring)
    needs_pool: bool = False      # the operator names the opponents (RunSuite's opponents)
    # Games whose tournaments start before the others', in this order: those with the longest matches.
    # A match's decisions are sequential, so its length bounds the run's; started first, the longest
    # matches run while the short ones fill the agent's other slots.
    start_first: tuple[str, ...] = ()

    def missing_games(self) -> list[str]:
        known = set(arena_engines.game_ids())
        return [g.game_id for g in self.games if g.game_id not in known]

    def tournaments(self, agent: str, *, matches_per_pairing: int | None = None, seed: int = 0,
                    max_retries: int | None = None, opponents: tuple[str, ...] = ()) -> list[TournamentConfig]:
        """One tournament per game for `agent`, in the order to start them (`start_first`, then the
        suite's order; each game's seed follows its place in `games`). `matches_per_pairing` scales
        every game's count (the suite's count for games without their own; for "listed" games, how
        many settings are taken); `max_retries` replaces every game's cap on re-asks; `opponents` is
        the operator's pool for "sampled" and "listed" games."""
        missing = self.missing_games()
        if missing:
            raise ValueError(f"suite {self.name!r} needs games this server lacks: {', '.join(missing)}")
        if self.needs_pool and not opponents:
            raise ValueError(f"suite {self.name!r} plays its agent against opponents you name: give at least one")
        if agent in opponents:
            raise ValueError("the agent under evaluation cannot also be one of its opponents")
        configs = []
        for index, g in enumerate(self.games):
            rules = g.rules or self.rules
            if max_retries is not None:
                rules = dataclasses.replace(rules, max_retries=max_retries)
            matches = matches_per_pairing or g.matches or self.matches_per_pairing
            form = g.format or self.format
            common = dict(name=f"{self.name}: {agent} at {g.game_id}", game_id=g.game_id, preset=g.preset,
                          players_per_match=g.players, rules=rules, seed=seed + index if seed else 0, suite=self.name)
            if form == "self_play":
                config = TournamentConfig(agents=[agent], games_per_pairing=matches, format="self_play", **common)
            elif form == "listed":
                agents = [agent, *(g.opponents or opponents)]
                listed = g.listed(matches_per_pairing)
                seated = {i for match in listed for i in match["seats"]}
                if len(agents) > len(seated):
                    raise ValueError(f"{g.game_id} seats {len(seated) - 1} opponent(s); {len(agents) - 1} given")
                config = TournamentConfig(agents=agents, games_per_pairing=len(listed), format="listed",
                                          listed=listed, **common)
            elif form == "sampled":
                convergence = g.convergence
                if convergence and matches_per_pairing:      # a shortened run keeps the rule, scaled down
                    batch = min(convergence["batch"], matches)
                    convergence = {**convergence, "batch": batch, "max_matches": matches + batch}
                config = TournamentConfig(agents=[agent, *(g.opponents or opponents)], games_per_pairing=matches,
                                          format="sampled", convergence=convergence,
                                          challenger_seat_parameter=g.challenger_seat_parameter, **common)
            else:
                if matches % 2:
                    raise ValueError("matches per pairing must be even, so seats alternate evenly")
                config = TournamentConfig(agents=[agent, *g.opponents], games_per_pairing=matches // 2,
                                          format="gauntlet", **common)
            configs.append(config.validate())
        first = {game_id: place for place, game_id in enumerate(self.start_first)}
        return sorted(configs, key=lambda c: first.get(c.game_id, len(first)))
