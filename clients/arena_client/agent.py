"""What an agent implements, and the plain views of protocol messages it receives.

Agents never see protobuf: every message is converted (arena_client.convert) into the frozen
dataclasses below, so an agent is ordinary Python that is easy to unit-test without a server.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Awaitable, NamedTuple


class _LegalActionFields(NamedTuple):
    action_id: int
    text: str


class LegalAction(_LegalActionFields):
    """An action the seat may choose now: answer with `Choice(action_id=action.action_id)`.

    The field was called `id` before; `id` still reads (and `LegalAction(id=..., text=...)` still
    builds one) with a DeprecationWarning, and will be removed in a later major version.
    """

    __slots__ = ()

    def __new__(cls, action_id: int | None = None, text: str = "", *, id: int | None = None):  # noqa: A002
        if id is not None:
            warnings.warn("LegalAction(id=...) is deprecated: use action_id", DeprecationWarning, stacklevel=2)
            action_id = id
        if action_id is None:
            raise TypeError("LegalAction needs an action_id")
        return super().__new__(cls, action_id, text)

    @property
    def id(self) -> int:
        """Deprecated name of `action_id`."""
        warnings.warn("LegalAction.id is deprecated: use action_id, the name Choice takes", DeprecationWarning,
                      stacklevel=2)
        return self.action_id


class PublicMove(NamedTuple):
    """A past action every seat may know about; seat is -1 for a chance event."""

    move_number: int
    seat: int
    action_id: int
    text: str


class Utterance(NamedTuple):
    """Something a seat said, as this seat heard it (audience empty: every seat heard it)."""

    move_number: int
    seat: int
    text: str
    audience: tuple[int, ...] = ()


@dataclass(frozen=True)
class TextActionSpec:
    """Limits on free text, when the game accepts it: a typed answer, or a message said with the
    action (`message` is "optional" or "required"; None when the decision carries none)."""

    description: str
    max_length: int
    forbidden_words: tuple[str, ...] = ()
    message: str | None = None
    example: str = ""                  # an acceptable message, when the game gives one
    audience: tuple[int, ...] = ()     # seats that will read the message; empty: every seat


@dataclass(frozen=True)
class DecisionView:
    """One decision the arena asks for: the seat's observation and what it may do."""

    match_id: str
    decision_id: int
    seat: int
    game_id: str
    observation_text: str
    observation_data: dict[str, Any]
    history: list[PublicMove]
    legal_actions: list[LegalAction]
    text_action: TextActionSpec | None
    deadline: datetime | None          # server clock, UTC; None when the server sets no limit
    time_remaining: float | None       # seconds left when the request was sent
    attempt: int                       # 0 on the first ask, n on the n-th retry
    feedback: str                      # why the previous attempt was refused
    parameters: dict[str, Any]         # the match's game parameters
    conversation: list[Utterance] = field(default_factory=list)   # what this seat has heard, in order
    images: list[tuple[str, bytes]] = field(default_factory=list)  # (mime type, data): pictures of the view,
                                                                   # sent when the agent's wants_images is set

    @property
    def message_wanted(self) -> str | None:
        """"required" or "optional" when this decision carries a message; None otherwise."""
        return self.text_action.message if self.text_action else None


@dataclass(frozen=True)
class Choice:
    """An agent's answer: an action id or free text, and a message when the decision carries one
    (a clue, bargaining talk); plus optional metadata. With a single legal action a message alone
    is a complete answer. Free text in `text` is read by the game: with a message wanted and no
    `message` given, the game splits the reply into the action and the message.

    The metadata is logged with the match and never shown to opponents while it runs.
    """

    action_id: int | None = None
    text: str | None = None
    message: str | None = None
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.action_id is not None and self.text is not None:
            raise ValueError("a Choice has an action_id or text, not both")
        if self.action_id is None and self.text is None and self.message is None:
            raise ValueError("a Choice needs an action_id, text or a message")


@dataclass(frozen=True)
class MatchView:
    """A match the agent was seated in."""

    match_id: str
    game_id: str
    seat: int
    players: list[str]                 # agent names, indexed by seat
    parameters: dict[str, Any]
    tournament_id: str                 # empty for ladder matches
    per_decision: float | None         # seconds allowed per decision, when limited


@dataclass(frozen=True)
class EventView:
    """Something public happened in one of the agent's matches."""

    match_id: str
    sequence: int
    kind: str                          # "move", "round_resolved", "message", "penalty", ...
    seats: list[int]
    text: str
    data: dict[str, Any]


@dataclass(frozen=True)
class ErrorView:
    """A recoverable problem with something the agent sent; the session stays open."""

    code: str                          # "illegal_action", "unparseable_text", "timeout", ...
    message: str
    match_id: str
    decision_id: int


@dataclass(frozen=True)
class ProbeView:
    """A metrics question; the answer never affects the game."""

    match_id: str
    probe_id: str
    seat: int
    question: str
    choices: list[str]                 # allowed answers; empty for free text
    data: dict[str, Any]
    deadline: datetime | None
    observation_text: str = ""         # the seat's own view when asked (empty from older servers)
    observation_data: dict[str, Any] = field(default_factory=dict)
    conversation: list[Utterance] = field(default_factory=list)


@dataclass(frozen=True)
class ResultView:
    """How one of the agent's matches ended."""

    match_id: str
    game_id: str
    seat: int
    reason: str                        # "normal", "forfeit_timeout", "voided", ...
    returns: list[float]               # per seat; empty when void or aborted
    ranks: list[int]                   # per seat, 1 = best
    summary: str
    players: list[str] = field(default_factory=list)   # agent names, indexed by seat

    @property
    def my_return(self) -> float | None:
        return self.returns[self.seat] if self.seat < len(self.returns) else None

    @property
    def opponents(self) -> list[str]:
        """The names in the other seats, in seat order."""
        return [name for seat, name in enumerate(self.players) if seat != self.seat]


@dataclass(frozen=True)
class WelcomeView:
    """The server's answer to the handshake."""

    session_id: str
    resume_token: str                  # secret for resuming this session after a disconnect
    protocol_version: str
    server_id: str
    heartbeat_interval: float          # seconds; 0 when the server asks for no heartbeats
    accepted_games: list[str]
    rejected_games: dict[str, str]     # game id -> reason
    agent_name: str = ""               # the name the session plays as (the key's agent unless one was named)


@dataclass(frozen=True)
class GameView:
    """A game the server offers, as listed before connecting (see Agent.can_play)."""

    game_id: str
    display_name: str
    description: str
    min_players: int
    max_players: int
    presets: tuple[str, ...]           # preset names
    accepts_text_actions: bool         # seats may answer in free text
    dialogue: bool                     # some decisions carry a message other seats read


class Agent(ABC):
    """Base class of an agent: implement `decide`; override the hooks only when useful.

    `decide` and `answer_probe` may be plain or `async def`. Plain ones run in a worker thread, so
    a slow agent never delays heartbeats or its other matches; async ones run on the session's
    event loop and must not block it. Each runs once per request, concurrently across matches, so
    an agent playing several matches at once must keep per-match state keyed by match_id.

    The notification hooks (on_match_start, on_event, on_match_end, on_error) run on the event loop
    in the order the server sent the messages; keep them quick. They too may be `async def`.
    """

    # Sent in Hello unless the Session is given others. An empty name plays as the API key's agent
    # (the server fills it in); a name given must be that agent's.
    name = ""
    version = ""
    # True: the server sends pictures of the view where a game renders one (DecisionView.images).
    wants_images = False
    description = ""

    @abstractmethod
    def decide(self, request: DecisionView) -> Choice | Awaitable[Choice]:
        """The answer to one decision request. If it raises or overruns the deadline, nothing is
        sent and the server's failure policy applies."""

    def on_match_start(self, match: MatchView) -> None | Awaitable[None]:
        pass

    def on_event(self, event: EventView) -> None | Awaitable[None]:
        pass

    def on_match_end(self, result: ResultView) -> None | Awaitable[None]:
        pass

    def on_error(self, error: ErrorView) -> None | Awaitable[None]:
        """Something the agent sent was refused. A refused decision ("illegal_action",
        "unparseable_text", ...) is asked again in a new request (attempt > 0) if the failure policy
        allows; one the rate limit dropped ("rate_limited") is sent again by the session itself."""

    def can_play(self, game: GameView) -> bool:
        """Whether to offer `game` when the Session is given no games and offers every game the
        server lists; all of them by default."""
        return True

    def answer_probe(self, probe: ProbeView) -> str | None | Awaitable[str | None]:
        """The answer to a metrics question, or None to leave it unanswered."""
        return None
