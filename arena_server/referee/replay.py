"""Replays a match from its log: (game, parameters, seat count) plus the logged chance outcomes
and decisions, in order. Used to audit results and to resume matches after a restart."""

from __future__ import annotations

import arena_engines

from ..store import Store
from ..store import LogEntry


class ReplayMismatch(AssertionError):
    pass


def apply_logged_move(state, entry: LogEntry) -> None:
    """Applies a log entry's move (chance outcome, action, simultaneous actions) with the messages
    said with it; other entries change nothing."""
    if entry.kind in ("chance", "action"):
        state.apply_action(entry.data["action"], entry.data.get("message"))
    elif entry.kind == "actions":
        state.apply_actions(entry.data["actions"], entry.data.get("messages"))


def rebuild_state(store: Store, match_id: str):
    """The engine state after every logged move of the match."""
    record = store.get_match(match_id)
    if record is None:
        raise KeyError(f"unknown match {match_id!r}")
    game = arena_engines.load_game(record.game_id, record.parameters, num_players=len(record.players))
    state = game.new_initial_state()
    for entry in store.read_log(match_id):
        apply_logged_move(state, entry)
    return record, state


def replay_match(store: Store, match_id: str) -> list[float]:
    """Replays a finished match and checks that it reaches the recorded result; returns the returns."""
    record, state = rebuild_state(store, match_id)
    if record.result is None:
        raise ReplayMismatch(f"match {match_id} has no result to compare with")
    if record.result["reason"] != "normal":
        return record.result["returns"]   # forfeits and voids are decided by the referee, not the game
    if not state.is_terminal():
        raise ReplayMismatch(f"match {match_id}: the logged moves do not reach a terminal state")
    returns = [float(r) for r in state.returns()]
    if returns != record.result["returns"]:
        raise ReplayMismatch(f"match {match_id}: replay gives {returns}, the log recorded {record.result['returns']}")
    return returns
