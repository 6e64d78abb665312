"""Verified records into the aggregator's store, as finished matches any leaderboard reads.

A record of lab L for its match m becomes the match "L/m" with the record's global agent names, its
parameters, seed, result and times, and a log in the referee's own format (start, the moves, end), so
that `arena-server leaderboard --local --db AGG.db`, `matches show` and the referee's replay work on
it as on a local match. Only the store's existing write methods are used (ensure_agent, add_match,
append_log, finish_match). The import is idempotent: a match left half written by a crash is completed
the next time its record comes, and one already complete is left as it is.
"""

from __future__ import annotations

import json
from typing import Any

from arena.v1 import federation_pb2 as fpb

from .. import convert
from ..store import MatchRecord, Store
from .records import SEAT_STATS, RecordRejected, lab_of

REASON_NAMES = {value: name for name, value in convert.END_REASONS.items()}
FAILURE_NAMES = convert.FAILURE_ACTION_NAMES


def global_match_id(body: fpb.MatchRecordBody) -> str:
    return f"{body.lab}/{body.match_id}"


def match_record(body: fpb.MatchRecordBody) -> MatchRecord:
    """The store's record of a verified body."""
    policy = body.failure_policy
    return MatchRecord(
        match_id=global_match_id(body), tournament_id=f"{body.lab}/{body.tournament_id}" if body.tournament_id else "",
        game_id=body.game_id, rules_version=body.rules_version, parameters=json.loads(body.parameters_json),
        players=[{"seat": s.seat, "agent_name": s.agent_name, "team": s.team, "house_agent": s.house_agent}
                 for s in body.seats],
        seed=body.seed, time_control={"per_decision": body.per_decision.ToNanoseconds() / 1e9},
        failure_policy={"max_retries": policy.max_retries,
                        "on_failure": FAILURE_NAMES.get(policy.on_failure, "random_legal"),
                        "max_replays": policy.max_replays, "auto_play_forced": False,
                        "on_illegal": "forfeit" if policy.illegal_move_forfeits else "retry"},
        status="finished", result=result_dict(body.result), created_at=body.created_at.ToNanoseconds() / 1e9,
        ended_at=body.ended_at.ToNanoseconds() / 1e9,
    )


def result_dict(r: fpb.RecordResult) -> dict[str, Any]:
    result = {
        "reason": REASON_NAMES[r.reason], "returns": list(r.returns), "ranks": list(r.ranks),
        "blamed_seats": list(r.blamed_seats), "summary": r.summary, "details": json.loads(r.details_json or "{}"),
        "seat_stats": [{name: getattr(s, name) for name in SEAT_STATS} for s in r.seat_stats],
    }
    if r.probes:
        result["probes"] = [{"probe_id": p.probe_id, "seat": p.seat, "question": p.question,
                             "data": json.loads(p.data_json or "{}"),
                             "answer": p.answer if p.HasField("answer") else None, "move": p.move, "asked": p.asked}
                            for p in r.probes]
    return result


def log_entries(body: fpb.MatchRecordBody, match: MatchRecord) -> list[tuple[str, dict[str, Any], bool]]:
    """(kind, data, public) of the match log, as the referee writes it (every entry public: the match
    is over)."""
    entries = [("start", {"players": match.players, "parameters": match.parameters}, True)]
    for move in body.moves:
        kind = move.WhichOneof("move")
        if kind == "chance_outcome":
            entries.append(("chance", {"action": move.chance_outcome}, True))
        elif kind == "action":
            data = {"seat": move.action.seat, "action": move.action.action}
            if move.action.HasField("message"):
                data["message"] = move.action.message
            entries.append(("action", data, True))
        else:
            actions, messages = [0] * len(body.seats), [None] * len(body.seats)
            for c in move.joint.choices:
                actions[c.seat] = c.action
                messages[c.seat] = c.message if c.HasField("message") else None
            data = {"actions": actions, "seats": [c.seat for c in move.joint.choices]}
            if any(m is not None for m in messages):
                data["messages"] = messages
            entries.append(("actions", data, True))
    entries.append(("end", match.result, True))
    return entries


def import_record(store: Store, body: fpb.MatchRecordBody) -> str:
    """Writes a verified body into the store as a finished match; returns its global id. Raises
    RecordRejected("conflict") when the store already holds another finished match under that id."""
    match = match_record(body)
    existing = store.get_match(match.match_id)
    if existing is not None and existing.status == "finished":
        if _fingerprint(existing) != _fingerprint(match):
            raise RecordRejected("conflict", f"the aggregate database already holds another match {match.match_id}")
        return match.match_id      # imported before, by a run that stopped before it noted so
    for seat in body.seats:
        store.ensure_agent(seat.agent_name, f"agent of lab {lab_of(seat.agent_name)}")
    if existing is None:
        # Void until its log is whole: a crash in between leaves nothing a leaderboard counts.
        store.add_match(MatchRecord(**{**vars(match), "status": "void", "result": None, "ended_at": None}))
    written = {entry.seq for entry in store.read_log(match.match_id)}
    for seq, (kind, data, public) in enumerate(log_entries(body, match)):
        if seq not in written:
            store.append_log(match.match_id, seq, kind, data, public)
    store.finish_match(match.match_id, "finished", match.result, match.ended_at)
    return match.match_id


def _fingerprint(match: MatchRecord) -> tuple:
    return match.seed, tuple(match.agent_names), tuple((match.result or {}).get("returns", ())), match.game_id
