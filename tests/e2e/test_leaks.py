"""Hidden information never leaves the server before a match ends, for every imperfect-information
game in the registry.

Real matches run through the server between raw-stub agents. While each match runs, a spectator
(a `spectate` key) watches it and fetches it with GetMatch at every decision. Afterwards the match
is replayed with the engine from its full log, and everything that was sent is checked against it:

- each DecisionRequest to seat i is exactly seat i's view in the engine (text, data, public history,
  legal actions), and that view is unchanged when everything hidden from seat i is redrawn
  (`resample_hidden`), so it carries nothing of the other seats' private information;
- the lines of other seats' views that do depend on what seat i cannot see (their cards, dice,
  valuations, picks) appear in no message seat i receives before its MatchEnded, nor in anything
  a spectator receives while the match runs;
- events are the public history; GetMatch while running has no private log entry and no seed;
  an agent's private reasoning (DecisionMetadata) reaches nobody else.
"""

from __future__ import annotations

import random
import threading

import grpc
import pytest
from google.protobuf import json_format

import arena_engines
from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import arena_service_pb2_grpc, match_pb2, spectator_service_pb2, spectator_service_pb2_grpc
from arena_engines.playthrough import overrides_for
from arena_server.convert import from_struct, to_struct

from .helpers import matches_of, run_tournament, wait_connected
from .scripted import ScriptedAgent

IMPERFECT = [g for g in arena_engines.game_ids() if arena_engines.game_spec(g).information == "imperfect"]
# Parameters that keep each match short but still several decisions long, and seats per match. A game
# not listed plays its first preset with the overrides that keep its playthrough short.
SETUP = {
    "guess_two_thirds_average": ({"rounds": 3}, 3),
    "sealed_bid_auction": ({"rounds": 2}, 3),
}


def setup_of(game_id: str) -> tuple[dict, int]:
    if game_id in SETUP:
        return SETUP[game_id]
    spec = arena_engines.game_spec(game_id)
    preset = spec.presets[0].name if spec.presets else None
    parameters = spec.resolve(preset, overrides_for(game_id, preset) if preset else {})
    return parameters, arena_engines.load_game(game_id, parameters).num_players
RESAMPLES = 12
PUBLIC_LOG_KINDS = {"start", "event", "penalty"}


def test_every_imperfect_information_game_is_covered():
    assert {"kuhn_poker", "liars_dice", "negotiation", "sealed_bid_auction", "guess_two_thirds_average"} <= set(IMPERFECT)


class Spectator:
    """Watches every match it is told about and snapshots GetMatch on demand, with a spectate key."""

    def __init__(self, server):
        key = server.create_key("leak-spectator", scopes="spectate")
        self.metadata = server.metadata(key)
        self.channel = grpc.insecure_channel(server.address)
        self.arena = arena_service_pb2_grpc.ArenaServiceStub(self.channel)
        self.watcher = spectator_service_pb2_grpc.SpectatorServiceStub(self.channel)
        self.snapshots: dict[str, list[apb.GetMatchResponse]] = {}
        self.watched: dict[str, list[spectator_service_pb2.WatchResponse]] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def during_decision(self, match_id: str) -> None:
        """Called while the match waits for a decision, so the match is surely running."""
        with self._lock:
            first_time = match_id not in self.watched
            if first_time:
                self.watched[match_id] = []
        if first_time:
            thread = threading.Thread(target=self._watch, args=(match_id,), daemon=True)
            thread.start()
            self._threads.append(thread)
        snapshot = self.arena.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=self.metadata)
        self.snapshots.setdefault(match_id, []).append(snapshot)

    def _watch(self, match_id: str) -> None:
        for response in self.watcher.Watch(spectator_service_pb2.WatchRequest(match_id=match_id),
                                           metadata=self.metadata, timeout=120):
            self.watched[match_id].append(response)

    def join(self) -> None:
        for thread in self._threads:
            thread.join(60)
        self.channel.close()


def _random_legal_with_private_reasoning(name: str, spectator: Spectator):
    rng = random.Random(name)

    def policy(request: pb.DecisionRequest) -> pb.Decision:
        spectator.during_decision(request.match_id)
        assert request.legal_actions, "every imperfect-information game offers action ids"
        decision = pb.Decision(match_id=request.match_id, decision_id=request.decision_id,
                               action_id=rng.choice(request.legal_actions).id,
                               metadata=pb.DecisionMetadata(reasoning=_reasoning(name, request)))
        if request.text_action.message:      # a dialogue turn: say the game's example, or a neutral word
            forbidden = {w.lower() for w in request.text_action.forbidden_words}
            decision.message = request.text_action.example or rng.choice(
                [w for w in ("blue", "river", "quick", "stone", "garden") if w not in forbidden])
        return decision
    return policy


def _reasoning(name: str, request: pb.DecisionRequest) -> str:
    return f"private reasoning of {name} for decision {request.decision_id} of {request.match_id}"


@pytest.mark.parametrize("game_id", IMPERFECT)
def test_no_message_reveals_hidden_information_before_the_match_ends(server, game_id):
    parameters, seats = setup_of(game_id)
    # One agent per side: in team games (Codenames) an agent holds every seat of its side.
    sides = len(set(arena_engines.load_game(game_id, parameters, num_players=seats).seat_sides()))
    names = [f"leak-{i}" for i in range(sides)]
    spectator = Spectator(server)
    agents = {name: ScriptedAgent(server.address, server.create_key(name), name, [game_id],
                                  _random_legal_with_private_reasoning(name, spectator), join_ladder=False)
              for name in names}
    try:
        wait_connected(server, *names)
        t = run_tournament(server, game_id, names, players_per_match=seats, parameters=parameters, per_decision=20)
        spectator.join()
        matches = matches_of(server, t.tournament_id)
        assert t.matches_finished == len(matches)
        teeth = 0
        for match in matches:
            teeth += _check_match(server, match, agents, spectator)
        # The check had something to find: other seats' private lines existed in every game.
        assert teeth > 0
        for agent in agents.values():
            assert agent.failure is None and not agent.of_kind("error")
    finally:
        for agent in agents.values():
            agent.close()


def _check_match(server, match: match_pb2.MatchInfo, agents: dict[str, ScriptedAgent], spectator: Spectator) -> int:
    full = server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata())
    decision_states = _replay_decision_states(full)
    final = decision_states.final
    seats_of: dict[str, list[int]] = {}
    for p in match.players:
        seats_of.setdefault(p.agent_name, []).append(p.seat)
    all_seats = [s for seats in seats_of.values() for s in seats]

    secrets_from: dict[int, set[str]] = {seat: set() for seat in all_seats}
    own_lines: dict[int, set[str]] = {seat: set() for seat in all_seats}
    for state, _ in decision_states.points:
        for seat in secrets_from:
            own_lines[seat] |= set(state.observation_string(seat).splitlines())
    for state, _ in decision_states.points:
        for seat in secrets_from:
            hidden_dependent = _lines_depending_on_hidden_information(state, seat)
            secrets_from[seat] |= hidden_dependent - own_lines[seat]

    public_moves = final.public_history()
    for name, seats in seats_of.items():
        received = _before_match_end(agents[name].received, match.match_id)
        requests = [m.decision_request for m in received if m.WhichOneof("message") == "decision_request"]
        # One request per seat of this agent acting at each point (several of its seats may act at one
        # simultaneous node, their requests in any order).
        expected = [(state, sorted(s for s in acting if s in seats)) for state, acting in decision_states.points
                    if any(s in seats for s in acting)]
        assert len(requests) == sum(len(acting) for _, acting in expected)
        position = 0
        for state, acting in expected:
            batch = requests[position:position + len(acting)]
            position += len(acting)
            assert sorted(r.seat for r in batch) == acting
            for request in batch:
                _assert_request_is_the_seat_view(request, state, request.seat)
        seen = set().union(*(own_lines[s] for s in seats))
        agent_secrets = set().union(*(secrets_from[s] for s in seats)) - seen
        dump = "\n".join(_text(m) for m in received)
        for line in agent_secrets:
            assert line not in dump, f"agent {name} was sent another seat's private {line!r}"
        # Per seat: each request holds nothing hidden from its own seat.
        for request in requests:
            text = _text(request)
            for line in secrets_from[request.seat]:
                assert line not in text, f"seat {request.seat} was sent {line!r}"
        for other_name in seats_of:
            if other_name != name:
                assert f"private reasoning of {other_name}" not in dump
        started = [m.match_started for m in received if m.WhichOneof("message") == "match_started"]
        assert len(started) >= 1 and all(s.match.seed == 0 for s in started)
        events = [m.event for m in received if m.WhichOneof("message") == "event"]
        _assert_events_are_public_history(events, public_moves)

    everything_private = set().union(*secrets_from.values())
    for snapshot in spectator.snapshots[match.match_id]:
        assert snapshot.match.status == match_pb2.MATCH_STATUS_RUNNING and snapshot.match.seed == 0
        assert {entry.kind for entry in snapshot.log} <= PUBLIC_LOG_KINDS
        dump = _text(snapshot)
        assert "private reasoning" not in dump
        for line in everything_private:
            assert line not in dump
        _assert_events_are_public_history(snapshot.events, public_moves)
    watched = spectator.watched[match.match_id]
    assert watched[-1].WhichOneof("message") == "ended" and watched[-1].ended.seed == full.match.seed != 0
    live = [w.event for w in watched[:-1]]
    assert all(w.WhichOneof("message") == "event" for w in watched[:-1])
    _assert_events_are_public_history(live, public_moves)
    dump = "\n".join(_text(event) for event in live)
    assert "private reasoning" not in dump
    for line in everything_private:
        assert line not in dump
    # Once the match is over, the full log holds what was hidden: the reasoning, the seed.
    assert any(e.kind == "decision_meta" for e in full.log)
    return sum(map(len, secrets_from.values()))


class _Replay:
    def __init__(self):
        self.points: list[tuple[object, list[int]]] = []   # (state before a decision, acting seats)
        self.final = None


def _replay_decision_states(full: apb.GetMatchResponse) -> _Replay:
    """The engine states at which seats were asked, rebuilt from the match's complete log."""
    info = full.match
    game = arena_engines.load_game(info.game_id, from_struct(info.parameters), num_players=len(info.players))
    state = game.new_initial_state()
    replay = _Replay()
    for entry in full.log:
        data = from_struct(entry.data)
        if entry.kind == "chance":
            state.apply_action(data["action"])
        elif entry.kind in ("action", "actions"):
            replay.points.append((state.clone(), state.current_players()))
            if entry.kind == "action":
                state.apply_action(data["action"], data.get("message"))
            else:
                state.apply_actions(data["actions"], data.get("messages"))
    assert state.is_terminal()
    replay.final = state
    return replay


def _lines_depending_on_hidden_information(state, seat: int) -> set[str]:
    """Lines of the other seats' views that change when what `seat` cannot see is redrawn. Also
    checks that `seat`'s own view, the public history and its legal actions do not change."""
    mine = _view(state, seat)
    others = {other: set(state.observation_string(other).splitlines())
              for other in range(state.num_players) if other != seat}
    dependent: set[str] = set()
    for sample in range(RESAMPLES):
        redrawn = state.resample_hidden(seat, sample)
        assert _view(redrawn, seat) == mine, f"seat {seat}'s view depends on information hidden from it"
        for other, lines in others.items():
            dependent |= lines - set(redrawn.observation_string(other).splitlines())
    return dependent


def _view(state, seat: int):
    return (state.observation_string(seat), state.observation_dict(seat), state.public_history(),
            state.legal_actions(seat))


def _assert_request_is_the_seat_view(request: pb.DecisionRequest, state, seat: int) -> None:
    assert request.seat == seat
    assert request.observation.text == state.observation_string(seat)
    assert from_struct(request.observation.data) == from_struct(to_struct(state.observation_dict(seat)))
    assert [(m.seat, m.action_id, m.text) for m in request.observation.history] == state.public_history()
    assert [(a.id, a.text) for a in request.legal_actions] == [
        (a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)]


def _assert_events_are_public_history(events, public_moves: list[tuple[int, int, str]]) -> None:
    """Move and round events are the public history, in order: its text and action id, nothing more."""
    moves = [e for e in events if e.kind in (match_pb2.EVENT_KIND_MOVE, match_pb2.EVENT_KIND_ROUND_RESOLVED)]
    assert len(moves) <= len(public_moves)
    for event, (seat, action, text) in zip(moves, public_moves):
        assert event.text == (f"seat {seat} plays " if seat >= 0 else "") + text
        assert list(event.seats) == ([seat] if seat >= 0 else [])
        assert from_struct(event.data) == {"action_id": action}


def _before_match_end(received: list[pb.ConnectResponse], match_id: str) -> list[pb.ConnectResponse]:
    out = []
    for message in received:
        kind = message.WhichOneof("message")
        if kind == "match_ended" and message.match_ended.match.match_id == match_id:
            return out
        if _match_id_of(message) == match_id:
            out.append(message)
    raise AssertionError(f"no MatchEnded for {match_id}")


def _match_id_of(message: pb.ConnectResponse) -> str:
    kind = message.WhichOneof("message")
    inner = getattr(message, kind)
    if kind == "match_started":
        return inner.match.match_id
    return getattr(inner, "match_id", "")


def _text(message) -> str:
    """Every string in the message (structured data included), one per line, unescaped."""
    strings: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json_format.MessageToDict(message))
    return "\n".join(strings)
