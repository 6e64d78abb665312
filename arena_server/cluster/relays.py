"""Seats across processes: a match's referee holds the seat of an agent connected to another process
in a stand-in session that relays over the bus (service/relay.py has the mechanism and the local
relays).

On the referee's process, the stand-in's messages (MatchStarted, requests, events, errors,
MatchEnded) and its holds and releases go to the process of the agent's session; on that process
the session holds the match as a RoutedMatch whose route sends the agent's answers and its
stream's state back to the stand-in. Bus messages, each addressed to a process:

    to the session's process             to the referee's process
    ["hold", session, match, seat,       ["answer", standin, session, kind, Decision | ProbeAnswer | Resign]
      referee, standin]                  ["state", standin, alive, abandoned]
    ["release", session, match, standin] ["gone", standin]    (no such session here any more)
    ["push", session, standin, ConnectResponse]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.v1 import agent_service_pb2 as pb

from .. import convert
from ..service.agent import AgentSession
from ..service.relay import RoutedMatch, answer, deliver, stream_state
from .bus import Bus, pack, unpack

if TYPE_CHECKING:
    from ..store import Store

ANSWERS = {"decision": pb.Decision, "probe_answer": pb.ProbeAnswer, "resign": pb.Resign}


class BusRelay:
    """A stand-in's relay to session `session_id` on process `server_id`."""

    def __init__(self, relays: "Relays", server_id: str, session_id: str, standin: AgentSession):
        self.relays = relays
        self.server_id = server_id
        self.session_id = session_id
        self.standin = standin

    def push(self, message: pb.ConnectResponse) -> None:
        self.relays.bus.send(self.server_id, ["push", self.session_id, self.standin.session_id, pack(message)])

    def hold(self, match_id: str, seat: int) -> None:
        self.relays.standins[self.standin.session_id] = self.standin
        self.relays.bind_seat(match_id, seat, self.session_id)
        self.relays.bus.send(self.server_id, ["hold", self.session_id, match_id, seat, self.relays.server_id,
                                              self.standin.session_id])

    def release(self, match_id: str) -> None:
        self.relays.bus.send(self.server_id, ["release", self.session_id, match_id, self.standin.session_id])
        if not self.standin.matches:
            self.relays.standins.pop(self.standin.session_id, None)


class BusRoute:
    """The way back from a session here to a stand-in on the referee's process."""

    def __init__(self, bus: Bus, server_id: str, standin_id: str, session_id: str):
        self.bus = bus
        self.server_id = server_id
        self.standin_id = standin_id
        self.session_id = session_id

    def _answer(self, kind: str, message) -> None:
        self.bus.send(self.server_id, ["answer", self.standin_id, self.session_id, kind, pack(message)])

    def decision(self, decision: pb.Decision) -> None:
        self._answer("decision", decision)

    def probe_answer(self, probe_answer: pb.ProbeAnswer) -> None:
        self._answer("probe_answer", probe_answer)

    def resign(self, resign: pb.Resign) -> None:
        self._answer("resign", resign)

    def stream_state(self, alive: bool, abandoned: bool) -> None:
        self.bus.send(self.server_id, ["state", self.standin_id, alive, abandoned])


class Relays:
    """This process's stand-ins (referee side) and its sessions' routed matches (session side).
    `local` is the lobby's registry of this process's sessions; `bind_seat(match, seat, session)`
    records which session holds a seat."""

    def __init__(self, bus: Bus, server_id: str, store: "Store", local: dict[str, AgentSession], bind_seat):
        self.bus = bus
        self.server_id = server_id
        self.store = store
        self.local = local
        self.bind_seat = bind_seat
        self.standins: dict[str, AgentSession] = {}      # stand-in id -> stand-in, while it holds a match

    def standin(self, server_id: str, session_id: str, agent_name: str, *, match_events: bool, images: bool,
                probes: bool) -> AgentSession:
        """The stand-in here of session `session_id` of process `server_id` (one per session)."""
        standin = self.standins.get(session_id)
        if standin is None or standin.relay is None or standin.abandoned:
            standin = AgentSession(session_id, agent_name)
            standin.match_events, standin.images, standin.probes = match_events, images, probes
            standin.alive = True
            standin.relay = BusRelay(self, server_id, session_id, standin)
        return standin

    def relay(self, standin: AgentSession, server_id: str, session_id: str) -> BusRelay:
        """A relay for a placeholder adopted by a fresh session of another process."""
        return BusRelay(self, server_id, session_id, standin)

    def lost(self, dead: set[str]) -> list[AgentSession]:
        """Stand-ins whose sessions were on the dead processes: they lose their relay and are returned,
        to wait for their agents to connect again."""
        orphans = [s for s in self.standins.values() if isinstance(s.relay, BusRelay) and s.relay.server_id in dead]
        for standin in orphans:
            del self.standins[standin.session_id]
            standin.relay_lost()
        return orphans

    def drop_routes(self, session: AgentSession, dead: set[str]) -> None:
        """The session's matches refereed by dead processes and not taken over by a new referee: they
        ended (the agent is sent their end, which the dead referee may not have sent), or their seats
        went to another session of the agent."""
        for match_id, (runner, seats) in list(session.matches.items()):
            if not (isinstance(runner, RoutedMatch) and isinstance(runner.route, BusRoute)
                    and runner.route.server_id in dead):
                continue
            session.release(match_id)
            record = self.store.get_match(match_id)
            if record is not None and record.status in ("finished", "void"):
                info = convert.match_info(record, reveal_seed=True)
                for seat in sorted(seats):
                    session.send(pb.ConnectResponse(match_ended=pb.MatchEnded(match=info, seat=seat)))

    # ---- messages ---------------------------------------------------------------------------------
    def handle(self, sender: str, message: list) -> bool:
        """Handles a relay message; False when `message` is not one."""
        kind = message[0]
        if kind in ("hold", "release", "push"):
            session = self.local.get(message[1])
            if session is None or session.abandoned:
                standin = message[5] if kind == "hold" else message[3] if kind == "release" else message[2]
                self.bus.send(sender, ["gone", standin])
            elif kind == "hold":
                _, session_id, match_id, seat, referee, standin_id = message
                route = self._route(session, referee, standin_id)
                held = session.matches.get(match_id)
                routed = held[0] if held and isinstance(held[0], RoutedMatch) and held[0].route is route else \
                    RoutedMatch(route, match_id, self.store)
                session.hold(match_id, seat, routed)
            elif kind == "release":
                held = session.matches.get(message[2])
                if held is not None and isinstance(held[0], RoutedMatch) and held[0].route.standin_id == message[3]:
                    session.release(message[2])
            else:
                deliver(session, unpack(pb.ConnectResponse, message[3]))
            return True
        if kind in ("answer", "state", "gone"):
            standin = self.standins.get(message[1])
            if kind == "answer":
                answered = unpack(ANSWERS[message[3]], message[4])
                if standin is not None:
                    answer(standin, message[3], answered)
                elif message[3] == "decision":      # the stand-in's matches ended meanwhile
                    self.bus.send(sender, ["push", message[2], message[1], pack(pb.ConnectResponse(error=pb.Error(
                        code=pb.ERROR_CODE_STALE_DECISION, match_id=answered.match_id,
                        decision_id=answered.decision_id, message="the match is over")))])
            elif standin is not None and kind == "state":
                stream_state(standin, message[2], message[3])
            elif standin is not None:
                stream_state(standin, False, True)    # its session expired there: the failure policy
            return True
        return False

    def _route(self, session: AgentSession, referee: str, standin_id: str) -> BusRoute:
        """The session's route to that stand-in: the one its other matches with it use, if any (one
        stream-state message per stand-in, however many matches)."""
        for runner, _ in session.matches.values():
            route = getattr(runner, "route", None)
            if isinstance(route, BusRoute) and route.server_id == referee and route.standin_id == standin_id:
                return route
        return BusRoute(self.bus, referee, standin_id, session.session_id)
