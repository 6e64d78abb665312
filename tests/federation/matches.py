"""Seeded matches written into a store the way the referee logs them (start, chance outcomes drawn from
the seed, actions and simultaneous rounds with their messages, end), without a server: the records of
the unit tests and of the golden vectors. The end-to-end tests use real servers instead."""

from __future__ import annotations

import random

import arena_engines

from arena_server.referee.match import rank_returns
from arena_server.store import MatchRecord, Store


def play_into_store(store: Store, match_id: str, game_id: str, agents: list[str], *, seed: int,
                    preset: str | None = None, parameters: dict | None = None, forfeit_after: int | None = None,
                    probes: list[dict] | None = None, created_at: float = 1_767_225_600.0) -> MatchRecord:
    """Plays uniformly random legal moves (and messages) from `seed`; with `forfeit_after`, the seat to
    act after that many moves forfeits on time instead. Returns the stored record."""
    game = arena_engines.load_game(game_id, parameters, preset=preset, num_players=len(agents))
    record = MatchRecord(
        match_id=match_id, tournament_id="t_vectors", game_id=game_id, rules_version=game.spec.rules_version,
        parameters=dict(game.parameters),
        players=[{"seat": i, "agent_name": a, "team": i, "house_agent": a == "random"} for i, a in enumerate(agents)],
        seed=seed, time_control={"per_decision": 5.0},
        failure_policy={"max_retries": 2, "on_failure": "random_legal", "max_replays": 3, "auto_play_forced": False,
                        "on_illegal": "retry"},
        status="running", result=None, created_at=created_at, ended_at=None)
    store.add_match(record)
    log = [("start", {"players": record.players, "parameters": record.parameters})]
    state = game.new_initial_state()
    chance, choices = random.Random(seed), random.Random(seed + 1)
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = chance.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
            log.append(("chance", {"action": action}))
            state.apply_action(action)
            continue
        if forfeit_after is not None and moves == forfeit_after:
            blamed = state.current_players()[:1]
            low, high = (game.utility_bounds() if hasattr(game, "utility_bounds")
                         else (game.spec.min_utility, game.spec.max_utility))
            returns = [low if seat in blamed else high for seat in range(len(agents))]
            result = {"reason": "forfeit_timeout", "returns": returns, "ranks": rank_returns(returns),
                      "blamed_seats": blamed, "summary": f"seat(s) {blamed[0]} forfeited", "details": {}}
            break
        if state.is_simultaneous_node():
            seats = state.current_players()
            actions, messages = [0] * len(agents), [None] * len(agents)
            for seat in seats:
                actions[seat], messages[seat] = state.random_decision(seat, choices)
            entry = {"actions": actions, "seats": seats, "last_decision_id": moves + 1}
            if any(m is not None for m in messages):
                entry["messages"] = messages
            log.append(("actions", entry))
            state.apply_actions(actions, entry.get("messages"))
        else:
            seat = state.current_player()
            action, message = state.random_decision(seat, choices)
            entry = {"seat": seat, "action": action, "last_decision_id": moves + 1}
            if message is not None:
                entry["message"] = message
            log.append(("action", entry))
            state.apply_action(action, message)
        moves += 1
    else:
        returns = [float(r) for r in state.returns()]
        result = {"reason": "normal", "returns": returns, "ranks": rank_returns(returns), "blamed_seats": [],
                  "summary": state.result_summary(), "details": state.result_details()}
    result["seat_stats"] = [{"seat": i, "illegal_actions": 0, "parse_failures": 0, "timeouts": 0, "disconnects": 0,
                             "substituted_actions": 0} for i in range(len(agents))]
    if probes:
        result["probes"] = probes
    log.append(("end", result))
    for seq, (kind, data) in enumerate(log):
        store.append_log(match_id, seq, kind, data, public=True)
    ended_at = created_at + 1.5 + len(log) / 1000
    store.finish_match(match_id, "finished", result, ended_at)
    return store.get_match(match_id)
