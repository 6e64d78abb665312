"""Seats held through another session: the agent's stream is attached to one session, and the seats
of some of its matches are held by another session object that relays to it.

Two cases, one mechanism:
- After a restart or a takeover, a match's seat waits in a placeholder session for its agent. When
  the agent connects afresh, the placeholder relays to the new session (here: LocalRelay; on
  another process: cluster/relays.py), and the new session holds the match as a RoutedMatch.
- A match refereed on one process with a seat whose agent is connected to another: the referee's
  process holds the seat in a stand-in session that relays over the cluster bus.

The session holding the stream (the target) sends what the stand-in pushes, lists the match in its
snapshots, and routes the agent's answers for it (decisions, probe answers, resignations) back to
the stand-in, whose pending requests they answer, exactly as they would have on the stand-in's own
stream. The target tells the stand-in when its stream drops, returns or is abandoned, so the
stand-in's seats count disconnects and resend their pending requests as a session's own would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from arena.v1 import agent_service_pb2 as pb

from .. import convert

if TYPE_CHECKING:
    from ..store import Store
    from .agent import AgentSession


class Relay(Protocol):
    """A stand-in's way to the session that holds the stream."""

    def push(self, message: pb.ConnectResponse) -> None: ...
    def hold(self, match_id: str, seat: int) -> None: ...
    def release(self, match_id: str) -> None: ...


class Route(Protocol):
    """The way back, from the session holding the stream to the stand-in of a match."""

    def decision(self, decision: pb.Decision) -> None: ...
    def probe_answer(self, answer: pb.ProbeAnswer) -> None: ...
    def resign(self, resign: pb.Resign) -> None: ...
    def stream_state(self, alive: bool, abandoned: bool) -> None: ...


class RoutedMatch:
    """What a session holds for a match whose requests are another session's: the match as a snapshot
    shows it (MatchStarted per seat, as last relayed; public events from the store) and the route
    back. It stands where a MatchRunner stands in AgentSession.matches."""

    def __init__(self, route: Route, match_id: str, store: "Store"):
        self.route = route
        self.match_id = match_id
        self.store = store
        self.started: dict[int, pb.ConnectResponse] = {}     # seat -> MatchStarted relayed
        self._record = None

    @property
    def record(self):
        if self._record is None:
            self._record = self.store.get_match(self.match_id)
        return self._record

    def match_started(self, seat: int) -> pb.ConnectResponse:
        return self.started[seat]

    def public_events(self) -> list:
        return [convert.event_from_log(self.match_id, entry)
                for entry in self.store.read_log(self.match_id, public_only=True) if entry.kind == "event"]

    def noted(self, message: pb.ConnectResponse) -> None:
        """Keeps the MatchStarted of each seat for the snapshots of a stream that resumes."""
        if message.WhichOneof("message") == "match_started":
            self.started[message.match_started.seat] = message


def deliver(target: "AgentSession", message: pb.ConnectResponse) -> None:
    """A relayed message, sent on the target session's stream."""
    kind = message.WhichOneof("message")
    if kind == "match_started":
        held = target.matches.get(message.match_started.match.match_id)
        if held is not None and isinstance(held[0], RoutedMatch):
            held[0].noted(message)
    target.send(message)


def answer(standin: "AgentSession", kind: str, message: Any) -> None:
    """An answer routed back to the stand-in, handled as its own stream's would be: a problem goes
    back to the agent as an in-band error."""
    handle = {"decision": standin.on_decision, "probe_answer": standin.on_probe_answer,
              "resign": standin.on_resign}[kind]
    error = handle(message)
    if error is not None:
        standin.send(pb.ConnectResponse(error=error))


def stream_state(standin: "AgentSession", alive: bool, abandoned: bool) -> None:
    """The target's stream dropped, came back, or was abandoned: the stand-in follows."""
    if abandoned:
        standin.alive = False
        standin.abandon()
    elif alive and not standin.alive:
        standin.alive = True
        standin.resend_pending()
    else:
        standin.alive = alive


class LocalRelay:
    """A placeholder relaying to a session of the same process."""

    def __init__(self, standin: "AgentSession", target: "AgentSession", store: "Store"):
        self.standin = standin
        self.target = target
        self.store = store
        self.route = LocalRoute(standin)

    def push(self, message: pb.ConnectResponse) -> None:
        deliver(self.target, message)

    def hold(self, match_id: str, seat: int) -> None:
        held = self.target.matches.get(match_id)
        routed = held[0] if held is not None and isinstance(held[0], RoutedMatch) else RoutedMatch(
            self.route, match_id, self.store)
        self.target.hold(match_id, seat, routed)

    def release(self, match_id: str) -> None:
        held = self.target.matches.get(match_id)
        if held is not None and isinstance(held[0], RoutedMatch) and held[0].route is self.route:
            self.target.release(match_id)


class LocalRoute:
    def __init__(self, standin: "AgentSession"):
        self.standin = standin

    def decision(self, decision: pb.Decision) -> None:
        answer(self.standin, "decision", decision)

    def probe_answer(self, probe_answer: pb.ProbeAnswer) -> None:
        answer(self.standin, "probe_answer", probe_answer)

    def resign(self, resign: pb.Resign) -> None:
        answer(self.standin, "resign", resign)

    def stream_state(self, alive: bool, abandoned: bool) -> None:
        stream_state(self.standin, alive, abandoned)
