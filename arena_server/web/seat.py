"""A person playing in the browser, as an ordinary agent.

The player's seat is the one every remote agent has: an `AgentSession` in the lobby, held by the
referee through `RemoteSeat` (service/agent.py). The ladder and tournaments seat it exactly as they
seat a gRPC agent; its decision requests, deadlines, failure policy, stale-decision and resignation
rules, rate limit, match log and ratings are the same code. Only the transport differs: instead of a
gRPC stream, the session's outbox is pumped into the browser's WebSocket as JSON (`to_browser`), and
the browser's JSON is turned back into the same `Decision` and `Resign` messages (`from_browser`).

A closed socket (a reload, a lost connection) detaches the session as a dropped stream does: its
seats and pending requests wait `resume_grace` seconds, clocks running, and a new socket of the same
signed-in browser takes the session over with a snapshot of its matches (`AgentSession.attach`).

On the ladder a person plays one match per request ("Play"): when it ends the session leaves the
ladder, so the next match starts only when asked for. Waiting for a tournament keeps the session
available for the game until the person leaves.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
from dataclasses import dataclass
from typing import Any

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import match_pb2
from google.protobuf import json_format

from .. import convert
from ..limits import RateLimiter
from ..service.agent import AgentSession
from .boards import board_view
from .views import event_dict

MAX_TEXT = 10_000     # longest text or message taken from the browser (games set lower limits of their own)
MESSAGE_MODES = {1: "optional", 2: "required"}


class BrowserSession(AgentSession):
    """An AgentSession whose ladder membership lasts one match when asked for one."""

    one_match = False

    def send(self, message: pb.ConnectResponse) -> None:
        if self.one_match and message.WhichOneof("message") == "match_ended":
            # Synchronously, before the matchmaker wakes for the freed seat: no second match unasked.
            self.join_ladder = False
            self.games = {}
            self.one_match = False
        super().send(message)


@dataclass
class Player:
    """One signed-in browser's seat-holder (one per sign-in and agent)."""

    session: BrowserSession
    key: str                 # the API key, for the rate limit shared with gRPC
    socket: Any = None       # the WebSocket attached now, if any


class BrowserPlayers:
    def __init__(self, lobby, limiter: RateLimiter, resume_grace: float):
        self.lobby = lobby
        self.limiter = limiter
        self.resume_grace = resume_grace
        self._players: dict[str, Player] = {}     # web session token -> player

    def player(self, token: str, agent_name: str, key: str) -> Player:
        player = self._players.get(token)
        if player is None or player.session.abandoned or player.session.agent_name != agent_name:
            player = self._players[token] = Player(BrowserSession("s_" + secrets.token_hex(8), agent_name), key)
            player.session.capacity = 1
            player.session.images = True          # Hive's board picture, shown with the view
        return player

    def existing(self, token: str) -> Player | None:
        return self._players.get(token)

    def join(self, player: Player, game_id: str, preset: str | None, *, ladder: bool) -> None:
        """Offers the game: on the ladder for one match, or to tournaments until `leave`."""
        session = player.session
        session.games = {game_id: preset}
        session.join_ladder = ladder
        session.one_match = ladder
        self.lobby.notify_change()

    def leave(self, player: Player) -> None:
        session = player.session
        session.games = {}
        session.join_ladder = session.one_match = False
        self.lobby.notify_change()

    def forget(self, token: str) -> None:
        """Sign-out: the seats are left to the grace window and then the failure policy."""
        player = self._players.pop(token, None)
        if player is not None:
            self.leave(player)
            if player.socket is not None:
                asyncio.ensure_future(player.socket.close())

    # ---- the socket ----------------------------------------------------------------------------------
    def attach(self, player: Player, socket) -> tuple[int, asyncio.Queue]:
        """The socket takes the session (a previous socket of the same browser is closed); returns the
        stream epoch and the outbox to pump, whose first messages are the snapshot."""
        previous = player.socket
        player.socket = socket
        if previous is not None and not previous.closed:
            asyncio.ensure_future(previous.close(message=b"the game was opened in another tab"))
        epoch = player.session.attach()
        self.lobby.add(player.session)
        return epoch, player.session.outbox

    def detach(self, player: Player, epoch: int, socket) -> None:
        session = player.session
        if player.socket is socket:
            player.socket = None
        if session.stream_epoch != epoch:
            return        # another socket took over
        session.detach()
        self.lobby.remove(session)
        if self.resume_grace > 0:
            asyncio.get_running_loop().call_later(self.resume_grace, self._expire, player, epoch)
        else:
            self._expire(player, epoch)

    def _expire(self, player: Player, epoch: int) -> None:
        session = player.session
        if session.alive or session.stream_epoch != epoch:
            return
        session.abandon()
        self.lobby.forget(session)
        for token, held in list(self._players.items()):
            if held is player:
                del self._players[token]

    def receive(self, player: Player, data: Any) -> dict[str, Any] | None:
        """Handles one message from the browser; returns an error to send back, if any."""
        message = from_browser(data)
        if isinstance(message, str):
            return {"type": "error", "code": "MALFORMED_MESSAGE", "message": message}
        refused = self.limiter.refuse_message(player.key, message)
        if refused is None:
            kind = message.WhichOneof("message")
            refused = (player.session.on_decision(message.decision) if kind == "decision"
                       else player.session.on_resign(message.resign))
        return error_dict(refused) if refused is not None else None


def from_browser(data: Any) -> pb.ConnectRequest | str:
    """The ConnectRequest a browser's JSON stands for, or why it stands for none."""
    if not isinstance(data, dict):
        return "send a JSON object"
    kind = data.get("type")
    match_id = data.get("match_id")
    if not isinstance(match_id, str) or len(match_id) > 100:
        return "match_id must be a string"
    if kind == "decision":
        decision_id = data.get("decision_id")
        if not isinstance(decision_id, int) or isinstance(decision_id, bool) or not 0 <= decision_id < 2 ** 63:
            return "decision_id must be a whole number"
        decision = pb.Decision(match_id=match_id, decision_id=decision_id)
        action_id, text, message = data.get("action_id"), data.get("text"), data.get("message")
        if isinstance(action_id, int) and not isinstance(action_id, bool) and -2 ** 63 <= action_id < 2 ** 63:
            decision.action_id = action_id
        elif isinstance(text, str) and len(text) <= MAX_TEXT:
            decision.text = text
        elif action_id is not None or text is not None:
            return "action_id must be a whole number, or text a string"
        if message is not None:
            if not isinstance(message, str) or len(message) > MAX_TEXT:
                return "message must be a string"
            decision.message = message
        return pb.ConnectRequest(decision=decision)
    if kind == "resign":
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 2 ** 31:
            return "seat must be a whole number"
        return pb.ConnectRequest(resign=pb.Resign(match_id=match_id, seat=seat))
    return "unknown message type (decision or resign)"


def error_dict(error: pb.Error) -> dict[str, Any]:
    return {"type": "error", "code": pb.ErrorCode.Name(error.code).removeprefix("ERROR_CODE_"),
            "message": error.message, "match_id": error.match_id, "decision_id": error.decision_id}


def to_browser(message: pb.ConnectResponse, session: AgentSession) -> dict[str, Any] | None:
    """A message of the session's outbox as the play page takes it (None: nothing to show)."""
    kind = message.WhichOneof("message")
    if kind == "match_started":
        started = message.match_started
        info = json_format.MessageToDict(started.match, preserving_proto_field_name=True)
        return {"type": "match_started", "match_id": started.match.match_id, "seat": started.seat,
                "game_id": started.game.game_id, "game_name": started.game.display_name,
                "description": started.game.description, "dialogue": started.game.dialogue,
                "players": [{"seat": p.seat, "agent_name": p.agent_name} for p in started.match.players],
                "per_decision": info.get("time_control", {}).get("per_decision", "")}
    if kind == "decision_request":
        return decision_dict(message.decision_request, session)
    if kind == "event":
        return {"type": "event", "match_id": message.event.match_id, **event_dict(message.event)}
    if kind == "error":
        return error_dict(message.error)
    if kind == "match_ended":
        ended = message.match_ended
        result = ended.match.result
        return {"type": "match_ended", "match_id": ended.match.match_id, "seat": ended.seat,
                "summary": result.summary, "returns": list(result.returns), "ranks": list(result.ranks),
                "reason": match_pb2.EndReason.Name(result.reason).removeprefix("END_REASON_").lower()}
    return None      # heartbeats; probes are not asked of browser sessions


def decision_dict(request: pb.DecisionRequest, session: AgentSession) -> dict[str, Any]:
    held = session.matches.get(request.match_id)
    game_id = held[0].record.game_id if held else ""
    legal = [(a.id, a.text) for a in request.legal_actions]
    observation = request.observation
    text_action = None
    if request.HasField("text_action"):
        spec = request.text_action
        text_action = {"description": spec.description, "max_length": spec.max_length,
                       "forbidden_words": list(spec.forbidden_words), "message": MESSAGE_MODES.get(spec.message),
                       "example": spec.example, "audience": list(spec.audience)}
    return {
        "type": "decision", "match_id": request.match_id, "decision_id": request.decision_id, "seat": request.seat,
        "seconds_left": request.time_remaining.ToNanoseconds() / 1e9, "text": observation.text,
        "legal": [{"id": i, "text": t} for i, t in legal], "text_action": text_action, "attempt": request.attempt,
        "feedback": request.feedback,
        "board": board_view(game_id, convert.from_struct(observation.data), legal) if game_id else None,
        "conversation": [{"seat": u.seat, "text": u.text, "to": list(u.audience)} for u in observation.conversation],
        "images": [f"data:{image.mime_type};base64,{base64.b64encode(image.data).decode()}"
                   for image in observation.images if image.mime_type in ("image/png", "image/jpeg")],
    }
