"""What the referee needs from whoever holds a seat: remote agent sessions and house agents alike."""

from __future__ import annotations

from abc import ABC, abstractmethod

from arena.v1 import agent_service_pb2 as pb

# Returned by `ask` when the seat resigned while the request was pending.
RESIGNED = object()


class SeatEndpoint(ABC):
    """One seat's connection to its agent."""

    agent_name: str
    house_agent: bool = False

    @abstractmethod
    def notify(self, message: pb.ConnectResponse) -> None:
        """Pushes a message (match start, public event, error, match end). Never blocks."""

    @abstractmethod
    async def ask(self, request: pb.DecisionRequest, timeout: float) -> pb.Decision | object | None:
        """The agent's Decision, RESIGNED, or None when it did not answer in time or is gone for good
        (a dropped agent's request waits for it to resume, within its deadline)."""

    def takes_probes(self) -> bool:
        """True when the seat's agent answers probes (its Hello declared "probes"); others are never asked."""
        return False

    async def probe(self, probe: pb.Probe, timeout: float) -> str | None:
        """The agent's answer to a metric question, or None (not answered in time, or gone). Answers
        never affect the game."""
        return None

    def connection_key(self) -> object:
        """Seats sharing a key share one connection; match-wide messages go once per key."""
        return id(self)

    def wants_events(self) -> bool:
        """False when the seat's agent takes no MatchEvent (it sees moves in its requests' history)."""
        return True

    def wants_images(self) -> bool:
        """True when the seat's agent takes Observation.images (its Hello declared "images")."""
        return False

    def connected(self) -> bool:
        """False while the agent has no live connection: an unanswered request then counts as a
        disconnect rather than a timeout."""
        return True
