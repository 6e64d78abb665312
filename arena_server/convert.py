"""Conversions between the server's records and the arena.v1 protobuf messages."""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import json_format, struct_pb2, timestamp_pb2

from arena.v1 import game_pb2, match_pb2
import arena_engines
from arena_engines import GameSpec

from .struct_wire import encode_struct

DYNAMICS = {"sequential": game_pb2.DYNAMICS_SEQUENTIAL, "simultaneous": game_pb2.DYNAMICS_SIMULTANEOUS}
CHANCE = {"deterministic": game_pb2.CHANCE_MODE_DETERMINISTIC, "stochastic": game_pb2.CHANCE_MODE_EXPLICIT_STOCHASTIC}
INFORMATION = {"perfect": game_pb2.INFORMATION_PERFECT, "imperfect": game_pb2.INFORMATION_IMPERFECT}
UTILITY = {
    "zero_sum": game_pb2.UTILITY_ZERO_SUM, "constant_sum": game_pb2.UTILITY_CONSTANT_SUM,
    "general_sum": game_pb2.UTILITY_GENERAL_SUM, "identical": game_pb2.UTILITY_IDENTICAL,
}
MATCH_STATUS = {
    "pending": match_pb2.MATCH_STATUS_PENDING, "running": match_pb2.MATCH_STATUS_RUNNING,
    "finished": match_pb2.MATCH_STATUS_FINISHED, "void": match_pb2.MATCH_STATUS_VOID,
}
MATCH_STATUS_NAMES = {v: k for k, v in MATCH_STATUS.items()}
FAILURE_ACTIONS = {
    "random_legal": match_pb2.FAILURE_ACTION_RANDOM_LEGAL, "forfeit": match_pb2.FAILURE_ACTION_FORFEIT,
    "void_and_replay": match_pb2.FAILURE_ACTION_VOID_AND_REPLAY, "game_default": match_pb2.FAILURE_ACTION_GAME_DEFAULT,
}
FAILURE_ACTION_NAMES = {v: k for k, v in FAILURE_ACTIONS.items()}
END_REASONS = {
    "normal": match_pb2.END_REASON_NORMAL, "resignation": match_pb2.END_REASON_RESIGNATION,
    "forfeit_illegal": match_pb2.END_REASON_FORFEIT_ILLEGAL, "forfeit_timeout": match_pb2.END_REASON_FORFEIT_TIMEOUT,
    "forfeit_disconnect": match_pb2.END_REASON_FORFEIT_DISCONNECT, "voided": match_pb2.END_REASON_VOIDED,
    "aborted": match_pb2.END_REASON_ABORTED,
}


def to_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    """Struct from JSON-compatible data: what Struct.update builds, several times faster (it runs
    for every observation the referee sends). ValueError for data that is not JSON-compatible."""
    return struct_pb2.Struct.FromString(encode_struct(data))


def to_value(value: Any) -> struct_pb2.Value:
    v = struct_pb2.Value()
    json_format.ParseDict(value, v)
    return v


def from_struct(s: struct_pb2.Struct) -> dict[str, Any]:
    """Struct to dict, with integral floats turned back into ints (Struct stores only doubles)."""
    return _ints(json_format.MessageToDict(s))


def _ints(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return value


def timestamp(seconds: float | None) -> timestamp_pb2.Timestamp | None:
    if seconds is None:
        return None
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(int(seconds * 1e9))
    return ts


def game_spec(spec: GameSpec) -> game_pb2.GameSpec:
    """The spec as a message; built once per spec (every MatchStarted carries it). Do not modify."""
    cached = _GAME_SPECS.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = _GAME_SPECS[id(spec)] = (spec, _game_spec(spec))
    return cached[1]


_GAME_SPECS: dict[int, tuple[GameSpec, game_pb2.GameSpec]] = {}


def _game_spec(spec: GameSpec) -> game_pb2.GameSpec:
    return game_pb2.GameSpec(
        game_id=spec.game_id, display_name=spec.display_name, rules_version=spec.rules_version,
        min_players=spec.min_players, max_players=spec.max_players, dynamics=DYNAMICS[spec.dynamics],
        chance=CHANCE[spec.chance], information=INFORMATION[spec.information], utility=UTILITY[spec.utility],
        min_utility=spec.min_utility, max_utility=spec.max_utility, max_game_length=spec.max_game_length,
        description=spec.description, accepts_text_actions=spec.accepts_text_actions, dialogue=spec.dialogue,
        parameters=[
            game_pb2.ParameterSpec(name=p.name, description=p.description, default_value=to_value(p.default),
                                   secret=p.secret)
            for p in spec.parameters
        ],
        presets=[
            game_pb2.Preset(name=p.name, description=p.description, parameters=to_struct(p.values))
            for p in spec.presets
        ],
    )


MESSAGE_MODES = {None: game_pb2.MESSAGE_MODE_UNSPECIFIED, "optional": game_pb2.MESSAGE_MODE_OPTIONAL,
                 "required": game_pb2.MESSAGE_MODE_REQUIRED}


def text_action_spec(spec: dict[str, Any]) -> game_pb2.TextActionSpec:
    """A game's text_action_spec dict as the message a DecisionRequest carries."""
    return game_pb2.TextActionSpec(
        description=spec["description"], max_length=spec["max_length"],
        forbidden_words=spec.get("forbidden_words", []), message=MESSAGE_MODES[spec.get("message")],
        example=spec.get("example", ""), audience=spec.get("audience") or [],
    )


def utterances(conversation: list[dict[str, Any]]) -> list[game_pb2.Utterance]:
    """A seat's conversation (State.conversation) as Utterance messages."""
    return [game_pb2.Utterance(move_number=m["move"], seat=m["seat"], text=m["text"], audience=m.get("to") or [])
            for m in conversation]


def _known_games() -> set[str]:
    """Games this server runs (imported logs may hold others, shown as recorded)."""
    return set(arena_engines.game_ids())


def match_info(m, *, reveal_seed: bool) -> match_pb2.MatchInfo:
    """MatchInfo from a store MatchRecord. The seed determines hidden chance, so it is shown only
    once the match is over; so are the game's secret parameters (hidden setup)."""
    ended = m.status in ("finished", "void")
    parameters = m.parameters if ended or m.game_id not in _known_games() else \
        arena_engines.game_spec(m.game_id).public(m.parameters)
    info = match_pb2.MatchInfo(
        match_id=m.match_id, game_id=m.game_id, rules_version=m.rules_version,
        parameters=to_struct(parameters), tournament_id=m.tournament_id, status=MATCH_STATUS[m.status],
        players=[match_pb2.Player(**p) for p in m.players],
        created_at=timestamp(m.created_at), ended_at=timestamp(m.ended_at),
        failure_policy=match_pb2.FailurePolicy(
            max_retries=m.failure_policy.get("max_retries", 0),
            on_failure=FAILURE_ACTIONS.get(m.failure_policy.get("on_failure", "random_legal")),
            max_replays=m.failure_policy.get("max_replays", 0),
            illegal_move_forfeits=m.failure_policy.get("on_illegal") == "forfeit",
        ),
    )
    info.time_control.per_decision.FromNanoseconds(int(m.time_control.get("per_decision", 0) * 1e9))
    if m.result is not None:
        info.result.CopyFrom(match_result(m.result))
    if reveal_seed and m.status in ("finished", "void"):
        info.seed = m.seed
    return info


def match_result(r: dict[str, Any]) -> match_pb2.MatchResult:
    return match_pb2.MatchResult(
        reason=END_REASONS[r["reason"]], returns=r.get("returns", []), ranks=r.get("ranks", []),
        blamed_seats=r.get("blamed_seats", []), summary=r.get("summary", ""),
        seat_stats=[match_pb2.SeatStats(**s) for s in r.get("seat_stats", [])],
        details=to_struct(r.get("details", {})),
        probes=[match_pb2.ProbeRecord(probe_id=p["probe_id"], seat=p["seat"], question=p["question"],
                                      data=to_struct(p.get("data", {})), answer=p.get("answer"), move=p["move"],
                                      asked=p.get("asked", True))
                for p in r.get("probes", [])],
    )


def probes_from_result(result: match_pb2.MatchResult) -> list[dict[str, Any]]:
    """The result's probe answers as the referee logged them (answer None when not given)."""
    return [{"probe_id": p.probe_id, "seat": p.seat, "question": p.question, "data": from_struct(p.data),
             "answer": p.answer if p.HasField("answer") else None, "move": p.move, "asked": p.asked}
            for p in result.probes]


def event_from_log(match_id: str, entry) -> match_pb2.MatchEvent:
    """A public MatchEvent from its match-log entry (kind 'event')."""
    d = entry.data
    return match_pb2.MatchEvent(match_id=match_id, sequence=d["sequence"], kind=d["kind"], seats=d["seats"],
                                text=d["text"], data=to_struct(d["data"]), time=timestamp(entry.time))
