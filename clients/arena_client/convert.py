"""Conversions between arena.v1 messages and the SDK's plain views; the only place that knows both."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2, match_pb2

from .agent import (Choice, DecisionView, ErrorView, EventView, GameView, LegalAction, MatchView, ProbeView,
                    PublicMove, ResultView, TextActionSpec, Utterance, WelcomeView)

MESSAGE_MODES = {game_pb2.MESSAGE_MODE_OPTIONAL: "optional", game_pb2.MESSAGE_MODE_REQUIRED: "required"}

PROTOCOL_VERSION = "1.0"
# Hello capability: the server sends no MatchEvent (moves still arrive in each request's history).
NO_MATCH_EVENTS = "no_match_events"
IMAGES = "images"
PROBES = "probes"


def hello(name: str, version: str, description: str, games: Iterable[tuple[str, str]], max_concurrent_matches: int,
          join_ladder: bool, capabilities: Iterable[str], resume_token: str = "") -> pb.ConnectRequest:
    return pb.ConnectRequest(hello=pb.Hello(
        protocol_version=PROTOCOL_VERSION,
        agent=pb.AgentInfo(name=name, version=version, description=description),
        capabilities=list(capabilities),
        games=[pb.GameOffer(game_id=game_id, preset=preset) for game_id, preset in games],
        max_concurrent_matches=max_concurrent_matches,
        join_ladder=join_ladder,
        resume_token=resume_token,
    ))


def welcome(message: pb.Welcome, hello_name: str) -> WelcomeView:
    """`hello_name` stands in for Welcome.agent_name, which servers before it did not send."""
    return WelcomeView(
        session_id=message.session_id,
        resume_token=message.resume_token,
        protocol_version=message.protocol_version,
        server_id=message.server_id,
        heartbeat_interval=message.heartbeat_interval.ToNanoseconds() / 1e9,
        accepted_games=list(message.accepted_games),
        rejected_games={r.game_id: r.reason for r in message.rejected_games},
        agent_name=message.agent_name or hello_name,
    )


def game(spec: game_pb2.GameSpec) -> GameView:
    return GameView(
        game_id=spec.game_id,
        display_name=spec.display_name,
        description=spec.description,
        min_players=spec.min_players,
        max_players=spec.max_players,
        presets=tuple(p.name for p in spec.presets),
        accepts_text_actions=spec.accepts_text_actions,
        dialogue=spec.dialogue,
    )


def match_started(message: pb.MatchStarted) -> MatchView:
    info = message.match
    per_decision = info.time_control.per_decision
    return MatchView(
        match_id=info.match_id,
        game_id=info.game_id,
        seat=message.seat,
        players=[p.agent_name for p in sorted(info.players, key=lambda p: p.seat)],
        parameters=struct_to_dict(info.parameters),
        tournament_id=info.tournament_id,
        per_decision=per_decision.ToNanoseconds() / 1e9 if info.time_control.HasField("per_decision") else None,
    )


def decision_request(message: pb.DecisionRequest, match: MatchView | None) -> DecisionView:
    """`match` supplies the game id and parameters, which the request itself does not repeat."""
    observation = message.observation
    text_action = None
    if message.HasField("text_action"):
        spec = message.text_action
        text_action = TextActionSpec(spec.description, spec.max_length, tuple(spec.forbidden_words),
                                     MESSAGE_MODES.get(spec.message), spec.example, tuple(spec.audience))
    return DecisionView(
        match_id=message.match_id,
        decision_id=message.decision_id,
        seat=message.seat,
        game_id=match.game_id if match else "",
        observation_text=observation.text,
        observation_data=struct_to_dict(observation.data),
        history=[PublicMove(m.move_number, m.seat, m.action_id, m.text) for m in observation.history],
        legal_actions=[LegalAction(a.id, a.text) for a in message.legal_actions],
        text_action=text_action,
        deadline=_datetime(message.deadline) if message.HasField("deadline") else None,
        time_remaining=message.time_remaining.ToNanoseconds() / 1e9 if message.HasField("time_remaining") else None,
        attempt=message.attempt,
        feedback=message.feedback,
        parameters=dict(match.parameters) if match else {},
        conversation=[Utterance(u.move_number, u.seat, u.text, tuple(u.audience)) for u in observation.conversation],
        images=[(image.mime_type, image.data) for image in observation.images],
    )


def decision(request: DecisionView, choice: Choice, latency: float) -> pb.ConnectRequest:
    """The Decision answering `request`; `latency` is the time the agent took, as the SDK measured it."""
    metadata = pb.DecisionMetadata(reasoning=choice.reasoning, prompt_tokens=choice.prompt_tokens,
                                   completion_tokens=choice.completion_tokens, cost_usd=choice.cost_usd,
                                   latency=_duration(latency), extra=_struct(choice.extra))
    message = pb.Decision(match_id=request.match_id, decision_id=request.decision_id, metadata=metadata)
    if choice.action_id is not None:
        message.action_id = choice.action_id
    elif choice.text is not None:
        message.text = choice.text
    if choice.message is not None:
        message.message = choice.message
    return pb.ConnectRequest(decision=message)


def event(message: match_pb2.MatchEvent) -> EventView:
    return EventView(
        match_id=message.match_id,
        sequence=message.sequence,
        kind=_enum_name(match_pb2.EventKind, message.kind, "EVENT_KIND_"),
        seats=list(message.seats),
        text=message.text,
        data=struct_to_dict(message.data),
    )


def error(message: pb.Error) -> ErrorView:
    return ErrorView(code=_enum_name(pb.ErrorCode, message.code, "ERROR_CODE_"), message=message.message,
                     match_id=message.match_id, decision_id=message.decision_id)


def probe(message: pb.Probe) -> ProbeView:
    return ProbeView(
        match_id=message.match_id,
        probe_id=message.probe_id,
        seat=message.seat,
        question=message.question,
        choices=list(message.choices),
        data=struct_to_dict(message.data),
        deadline=_datetime(message.deadline) if message.HasField("deadline") else None,
        observation_text=message.observation.text,
        observation_data=struct_to_dict(message.observation.data),
        conversation=[Utterance(u.move_number, u.seat, u.text, tuple(u.audience))
                      for u in message.observation.conversation],
    )


def probe_answer(probe: ProbeView, text: str) -> pb.ConnectRequest:
    return pb.ConnectRequest(probe_answer=pb.ProbeAnswer(match_id=probe.match_id, probe_id=probe.probe_id, text=text))


def match_ended(message: pb.MatchEnded) -> ResultView:
    info = message.match
    return ResultView(
        match_id=info.match_id,
        game_id=info.game_id,
        seat=message.seat,
        reason=_enum_name(match_pb2.EndReason, info.result.reason, "END_REASON_"),
        returns=list(info.result.returns),
        ranks=list(info.result.ranks),
        summary=info.result.summary,
        players=[p.agent_name for p in sorted(info.players, key=lambda p: p.seat)],
    )


def heartbeat() -> pb.ConnectRequest:
    now = timestamp_pb2.Timestamp()
    now.GetCurrentTime()
    return pb.ConnectRequest(heartbeat=pb.Heartbeat(time=now))


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Struct numbers are doubles on the wire; integral values are turned back into ints, so a
    board cell or a round number reads as 5, not 5.0. The same as MessageToDict, in about half its
    time; non-finite numbers, which MessageToDict refuses, read as "NaN", "Infinity", "-Infinity"."""
    return {key: _value(value) for key, value in struct.fields.items()}


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = value.number_value
        if number.is_integer():
            return int(number)
        if number != number:
            return "NaN"
        if number in (_INFINITY, -_INFINITY):
            return "Infinity" if number > 0 else "-Infinity"
        return number
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return {key: _value(v) for key, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_value(v) for v in value.list_value.values]
    if kind == "bool_value":
        return value.bool_value
    return None


_INFINITY = float("inf")


def _struct(values: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(seconds * 1e9))
    return duration


def _datetime(timestamp: timestamp_pb2.Timestamp) -> datetime:
    return timestamp.ToDatetime(tzinfo=timezone.utc)


def _enum_name(enum, value: int, prefix: str) -> str:
    """Lower-case name without the prefix ("END_REASON_NORMAL" -> "normal"); the number for values
    newer than these stubs."""
    try:
        return enum.Name(value).removeprefix(prefix).lower()
    except ValueError:
        return str(value)
