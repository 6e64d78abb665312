"""MatchRunner: asks the seats that must act, validates, logs ahead, applies, and ends the match.

Sequential nodes ask one seat; simultaneous nodes ask every acting seat at once and reveal the
choices together. Every accepted decision is appended to the match log before it is applied, so
the log alone replays the match, and a runner built after a restart continues from it (`restore`).
Problems are answered in-band and handled by the failure policy: up to `max_retries` re-asks with
feedback after an illegal or unparseable decision or a refused message, then the policy's action
(random legal move, the game's documented default, forfeit, or void). A timeout goes straight to
the policy's action: the seat had its time. So does a disconnect, once the request's deadline or
the agent's grace window for resuming has passed (the seat endpoint waits for a resume until then).

Dialogue: a decision may carry a message (the game's text_action_spec says when). It is checked by
the game, logged exactly with its action (the log entry's "message"), applied with it, and, when
every seat hears it, published as a MESSAGE event; each seat's requests carry the conversation it
has heard. A private message reaches only its audience until the match ends.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

import structlog
from google.protobuf import duration_pb2, json_format

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2, match_pb2
from arena_engines.core import ActionParseError, TextRejectedError

from .. import convert, metrics
from ..store import LogEntry, MatchRecord, Store
from .endpoint import RESIGNED, SeatEndpoint
from .replay import ReplayMismatch, apply_logged_move


DEFAULT_TEXT_LIMIT = 1000    # longest text or message where a game sets no limit

# What the referee does for a seat that exhausted its retries or its time (match.proto FailureAction).
FAILURE_POLICIES = ("random_legal", "forfeit", "void_and_replay", "game_default")


@dataclass(frozen=True)
class Rules:
    """Time control and failure policy of a match."""

    per_decision: float = 30.0
    max_retries: int = 2
    on_failure: str = "random_legal"      # one of FAILURE_POLICIES
    max_replays: int = 3                  # void matches a pairing may replay (void_and_replay)
    auto_play_forced: bool = False        # play a seat's only legal action without asking (GTBench)
    # "forfeit": a decision that names an illegal move ends the match at once, the offender losing
    # (LLMArena); unreadable answers are still re-asked. "retry" (default): re-asked like the rest.
    on_illegal: str = "retry"

    def time_control(self) -> dict[str, Any]:
        return {"per_decision": self.per_decision}

    def failure_policy(self) -> dict[str, Any]:
        return {"max_retries": self.max_retries, "on_failure": self.on_failure, "max_replays": self.max_replays,
                "auto_play_forced": self.auto_play_forced, "on_illegal": self.on_illegal}

    @classmethod
    def of_match(cls, record: MatchRecord) -> "Rules":
        """The rules a recorded match was started with."""
        return cls(per_decision=record.time_control["per_decision"], **record.failure_policy)


def match_status(reason: str) -> str:
    """The stored status of a match that ended for `reason`: void ones are not counted."""
    return "void" if reason in ("voided", "aborted") else "finished"


class MatchOver(Exception):
    """Raised inside the match loop when the failure policy or a resignation ends the match."""

    def __init__(self, reason: str, blamed: list[int]):
        super().__init__(reason)
        self.reason = reason
        self.blamed = blamed


def rank_returns(returns: list[float]) -> list[int]:
    """1 = best; equal returns share a rank."""
    return [1 + sum(other > mine for other in returns) for mine in returns]


@dataclass
class SeatStats:
    seat: int
    illegal_actions: int = 0
    parse_failures: int = 0
    timeouts: int = 0
    disconnects: int = 0
    substituted_actions: int = 0

    def count(self, failure: str) -> None:
        """Adds one to the counter named `failure` (a field name; logged in penalty entries)."""
        setattr(self, failure, getattr(self, failure) + 1)


class MatchRunner:
    def __init__(self, store: Store, record: MatchRecord, game, endpoints: list[SeatEndpoint],
                 rules: Rules, publish: Callable[[match_pb2.MatchEvent], None] | None = None,
                 watched: Callable[[str], bool] | None = None):
        self.store = store
        self.record = record
        self.game = game
        self.spec = game.spec
        self.endpoints = endpoints
        self.rules = rules
        self.publish = publish or (lambda event: None)
        self.watched = watched or (lambda match_id: False)     # has spectators now
        self.state = game.new_initial_state()
        self.log = structlog.get_logger("arena.referee").bind(match_id=record.match_id, game_id=record.game_id)
        self.metrics = metrics.for_game(record.game_id)
        self._waiting: dict[int, float] = {}     # seat -> seconds its current decision waited for the agent
        # Chance outcomes and substituted moves use their own streams, both derived from the seed.
        self._chance_rng = random.Random(record.seed)
        self._policy_rng = random.Random(record.seed ^ 0x5DEECE66D)
        self._log_seq = 0
        self._event_seq = 0
        self._decision_id = 0
        self._public_history: list[game_pb2.PublicMove] = []
        self._messages_seen = 0     # state messages already published (public ones) or passed over
        self.stats = [SeatStats(seat) for seat in range(len(endpoints))]
        self._resigned: list[int] = []
        self._resumed = False
        self._started_info: match_pb2.MatchInfo | None = None
        # Decisions a previous process left half made: choices (action, message) already logged in the
        # current simultaneous round, and refused attempts of the decision each seat was retrying.
        self._round_choices: dict[int, tuple[int, str | None]] = {}
        self._refused: dict[int, tuple[int, str]] = {}       # seat -> (attempts refused, last problem)
        self.abort_reason: str | None = None                  # set before the match task is cancelled to abort it
        self._probes_asked: set[str] = set()                  # probe ids already asked (and logged)
        self._probe_answers: list[dict[str, Any]] = []         # what each probe was answered, for the result
        self.finished = asyncio.get_running_loop().create_future()

    # ---- public entry points -----------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        # Every log line of the match carries its id, whoever logs it (store, services, house agents).
        with structlog.contextvars.bound_contextvars(match_id=self.record.match_id, game_id=self.record.game_id):
            self.metrics.running.inc()
            try:
                return await self._run()
            finally:
                self.metrics.running.dec()

    async def _run(self) -> dict[str, Any]:
        if self._resumed:
            for seat, endpoint in enumerate(self.endpoints):
                endpoint.notify(self.match_started(seat))
            self._publish_new_messages()       # events a crash cut off after their move was logged
            self._publish_new_public_moves()
            self.log.info("match resumed from its log", decisions_issued=self._decision_id)
        else:
            self.store.set_match_status(self.record.match_id, "running")
            self._append("start", {"players": self.record.players, "parameters": self.record.parameters},
                         public=True)
            for seat, endpoint in enumerate(self.endpoints):
                endpoint.notify(self.match_started(seat))
            self._event(match_pb2.EVENT_KIND_MATCH_STARTED, [], f"{self.record.game_id} match started",
                        {"players": [p["agent_name"] for p in self.record.players]})
            # One info line per match, at its end; this one is for debugging.
            self.log.debug("match started", players=[p["agent_name"] for p in self.record.players])
        try:
            await self._play()
            result = self._normal_result()
        except MatchOver as over:
            result = self._abnormal_result(over.reason, over.blamed)
        self._finish(result)
        return result

    def abort(self) -> None:
        """Ends the match as void for `abort_reason` (its task was cancelled to stop it)."""
        self._finish({"reason": "aborted", "returns": [], "ranks": [], "blamed_seats": [],
                      "summary": f"aborted: {self.abort_reason}", "details": {}})

    def resign(self, seat: int) -> None:
        if seat not in self._resigned:
            self._resigned.append(seat)

    def match_started(self, seat: int) -> pb.ConnectResponse:
        """The MatchStarted a seat receives: at the start, and again in a resumed session's snapshot."""
        if self._started_info is None:     # the same for every seat
            self._started_info = convert.match_info(self.record, reveal_seed=False)
            self._started_info.status = match_pb2.MATCH_STATUS_RUNNING
        return pb.ConnectResponse(match_started=pb.MatchStarted(match=self._started_info, seat=seat,
                                                                game=convert.game_spec(self.spec)))

    def public_events(self) -> list[match_pb2.MatchEvent]:
        """Every public event of the match so far, from its log."""
        return [convert.event_from_log(self.record.match_id, entry)
                for entry in self.store.read_log(self.record.match_id, public_only=True) if entry.kind == "event"]

    def restore(self, entries: list[LogEntry]) -> None:
        """Continues from the write-ahead log of a previous process: the state after every logged
        move, both random streams past the draws already made, the decision id counter, the log and
        event sequences, the seat stats, the public history, and the decisions left half made (the
        choices of an unfinished simultaneous round are not asked again; a seat that was being
        re-asked keeps its attempt count). An empty log (the match never started) leaves the runner
        to start from the beginning. Raises ReplayMismatch when the log contradicts the seed."""
        if not entries:
            return
        state = self.state
        published_moves = published_messages = 0
        for entry in entries:
            data = entry.data
            if entry.kind in ("chance", "action", "actions"):
                if entry.kind == "chance" and self._draw_chance(state) != data["action"]:
                    raise ReplayMismatch(f"match {self.record.match_id}: chance outcome {data['action']} at log "
                                         f"entry {entry.seq} is not the seed's")
                self._round_choices.clear()
                self._refused.clear()
            elif entry.kind == "choice":
                self._round_choices[data["seat"]] = (data["action"], data.get("message"))
                self._refused.pop(data["seat"], None)
            elif entry.kind == "penalty":
                seat, stats = data["seat"], self.stats[data["seat"]]
                if data.get("substituted"):
                    self._substitute(state, seat, data.get("policy", "random_legal"))   # redraws what picked it
                    stats.substituted_actions += 1
                    if data.get("failure"):
                        stats.count(data["failure"])
                    self._refused.pop(seat, None)
                else:
                    stats.count(data.get("failure", "illegal_actions"))
                    self._refused[seat] = (self._refused.get(seat, (0, ""))[0] + 1, data["problem"])
            elif entry.kind == "probe":
                self._probes_asked.add(data["probe_id"])
                self._probe_answers.append(data)
            elif entry.kind == "event":
                self._event_seq = data["sequence"] + 1
                published_moves += data["kind"] in (match_pb2.EVENT_KIND_MOVE, match_pb2.EVENT_KIND_ROUND_RESOLVED)
                published_messages += data["kind"] == match_pb2.EVENT_KIND_MESSAGE
            # A request in flight when the process died was never logged: its id is issued again,
            # for the same decision.
            self._decision_id = max(self._decision_id, data.get("decision_id", 0), data.get("last_decision_id", 0))
            apply_logged_move(state, entry)
        self._log_seq = entries[-1].seq + 1
        self._public_history = [
            game_pb2.PublicMove(move_number=number, seat=seat, action_id=action, text=text)
            for number, (seat, action, text) in enumerate(state.public_history()[:published_moves])
        ]
        # Messages up to the last published public one were handled before the restart.
        for index, said in enumerate(state.messages()):
            if published_messages == 0:
                break
            self._messages_seen = index + 1
            published_messages -= said["to"] is None
        self._resumed = True

    # ---- the match loop ------------------------------------------------------------------------
    async def _play(self) -> None:
        state = self.state
        while not state.is_terminal():
            self._check_resignations()
            await self._ask_probes()
            if state.is_chance_node():
                action = self._draw_chance(state)
                self._append("chance", {"action": action}, public=False)
                state.apply_action(action)
            elif state.is_simultaneous_node():
                seats = state.current_players()
                chosen, self._round_choices = self._round_choices, {}
                waiting = [seat for seat in seats if seat not in chosen]
                tasks = [asyncio.ensure_future(self._choose_in_round(seat)) for seat in waiting]
                try:
                    chosen.update(zip(waiting, await asyncio.gather(*tasks)))
                except BaseException:
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    raise
                actions = [0] * state.num_players
                messages = [None] * state.num_players
                for seat in seats:
                    actions[seat], messages[seat] = chosen[seat]
                entry = {"actions": actions, "seats": seats, "last_decision_id": self._decision_id}
                if any(m is not None for m in messages):
                    entry["messages"] = messages
                self._append("actions", entry, public=self._moves_public(
                    [seat for seat in seats if messages[seat] is not None]))
                self.metrics.decisions.inc(len(seats))
                state.apply_actions(actions, entry.get("messages"))
            else:
                seat = state.current_player()
                action, message = await self._decide(seat)
                entry = {"seat": seat, "action": action, "last_decision_id": self._decision_id}
                if message is not None:
                    entry["message"] = message
                self._append("action", entry, public=self._moves_public([seat] if message is not None else []))
                self.metrics.decisions.inc()
                state.apply_action(action, message)
            self._publish_new_messages()
            self._publish_new_public_moves()

    def _moves_public(self, speakers: list[int]) -> bool:
        """Whether a move's log entry may be public while the match runs: in perfect-information
        games, unless one of its messages (said by `speakers`) is for some seats only."""
        if self.spec.information != "perfect":
            return False
        return all(self.state.message_audience(seat) is None for seat in speakers)

    async def _choose_in_round(self, seat: int) -> tuple[int, str | None]:
        """A seat's choice in a simultaneous round, logged (hidden) as soon as it is settled."""
        action, message = await self._decide(seat)
        entry = {"seat": seat, "action": action, "last_decision_id": self._decision_id}
        if message is not None:
            entry["message"] = message
        self._append("choice", entry, public=False)
        return action, message

    async def _ask_probes(self) -> None:
        """Asks the seats the game's probes that are due and not asked yet, all at once, and logs each
        answer (privately, until the end); the game goes on whatever they say. A seat whose agent takes
        no probes is not asked: its entry says so ("asked": false), so that a score counts the probe as
        not measured rather than unanswered."""
        due = [p for p in self.state.probes() if p["probe_id"] not in self._probes_asked]
        if not due:
            return
        deadline = convert.timestamp(time.time() + self.rules.per_decision)

        async def ask(spec):
            seat = spec["seat"]
            if not self.endpoints[seat].takes_probes():
                return None
            view = game_pb2.Observation(text=self.state.observation_string(seat),
                                        data=convert.to_struct(self.state.observation_dict(seat)),
                                        history=self._public_history,
                                        conversation=convert.utterances(self.state.conversation(seat)))
            probe = pb.Probe(match_id=self.record.match_id, probe_id=spec["probe_id"], seat=seat,
                             question=spec["question"], choices=spec.get("choices", []),
                             data=convert.to_struct(spec.get("data", {})), deadline=deadline, observation=view)
            return await self.endpoints[spec["seat"]].probe(probe, self.rules.per_decision)

        answers = await asyncio.gather(*(ask(spec) for spec in due))
        for spec, answer in zip(due, answers):
            self._probes_asked.add(spec["probe_id"])
            entry = {"probe_id": spec["probe_id"], "seat": spec["seat"], "question": spec["question"],
                     "data": spec.get("data", {}), "answer": answer, "move": self.state.move_number,
                     "asked": self.endpoints[spec["seat"]].takes_probes()}
            self._probe_answers.append(entry)
            self._append("probe", entry, public=False)

    def _draw_chance(self, state) -> int:
        outcomes = state.chance_outcomes()
        return self._chance_rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]

    def _check_resignations(self) -> None:
        if self._resigned:
            raise MatchOver("resignation", list(self._resigned))

    async def _decide(self, seat: int) -> tuple[int, str | None]:
        """A legal action for `seat` and its message (None without one): the agent's, or the failure
        policy's. The referee's own time for it (the agent's excluded) is measured."""
        started = time.perf_counter()
        self._waiting[seat] = 0.0
        choice = await self._decide_seat(seat)
        self.metrics.server_seconds.observe(time.perf_counter() - started - self._waiting.pop(seat))
        return choice

    async def _decide_seat(self, seat: int) -> tuple[int, str | None]:
        state = self.state
        endpoint = self.endpoints[seat]
        stats = self.stats[seat]
        legal = state.legal_actions(seat)
        text_spec = state.text_action_spec(seat)
        if self.rules.auto_play_forced and len(legal) == 1 and not (text_spec and text_spec.get("message")):
            return legal[0], None
        legal_pb = [game_pb2.LegalAction(id=a, text=state.action_to_string(seat, a)) for a in legal]
        observation = game_pb2.Observation(
            text=state.observation_string(seat), data=convert.to_struct(state.observation_dict(seat)),
            history=self._public_history, conversation=convert.utterances(state.conversation(seat)),
        )
        if endpoint.wants_images():
            image = state.observation_image(seat)
            if image is not None:
                observation.images.add(mime_type=image[0], data=image[1])
        text_pb = convert.text_action_spec(text_spec) if text_spec is not None else None
        time_allowed = duration_pb2.Duration()
        time_allowed.FromNanoseconds(int(self.rules.per_decision * 1e9))
        refused, problem = self._refused.pop(seat, (0, ""))   # attempts refused before a restart
        feedback = self._feedback(problem, refused - 1) if refused else ""
        decision_id = self._decision_id
        for attempt in range(refused, self.rules.max_retries + 1):
            self._decision_id += 1
            decision_id = self._decision_id
            request = pb.DecisionRequest(
                match_id=self.record.match_id, decision_id=decision_id, seat=seat,
                deadline=convert.timestamp(time.time() + self.rules.per_decision), time_remaining=time_allowed,
                observation=observation, legal_actions=legal_pb, text_action=text_pb, attempt=attempt,
                feedback=feedback,
            )
            asked = time.perf_counter()
            answer = await endpoint.ask(request, self.rules.per_decision)
            thought = time.perf_counter() - asked
            self._waiting[seat] += thought
            if answer is RESIGNED:
                self.resign(seat)
                raise MatchOver("resignation", [seat])
            if answer is None:
                if not endpoint.connected():
                    return self._fail(seat, "forfeit_disconnect", "the agent is disconnected", decision_id,
                                      failure="disconnects")
                self.metrics.timeouts.inc()
                self._error(endpoint, pb.ERROR_CODE_TIMEOUT, decision_id,
                            f"no decision within {self.rules.per_decision:g} s")
                return self._fail(seat, "forfeit_timeout", "the decision timed out", decision_id, failure="timeouts")
            self.metrics.think_seconds.observe(thought)
            action, message, code, problem = self._validate(seat, answer, legal, text_spec)
            if code == 0:
                if answer.HasField("metadata"):
                    self._append("decision_meta", {"seat": seat, "decision_id": decision_id,
                                                   "metadata": _metadata_dict(answer.metadata)}, public=False)
                return action, message
            failure = "parse_failures" if code == pb.ERROR_CODE_UNPARSEABLE_TEXT else "illegal_actions"
            stats.count(failure)
            (self.metrics.unparseable if failure == "parse_failures" else self.metrics.illegal).inc()
            if code == pb.ERROR_CODE_ILLEGAL_ACTION and self.rules.on_illegal == "forfeit":
                self._error(endpoint, code, decision_id, problem + " (an illegal move loses the match)")
                self._append("penalty", {"seat": seat, "decision_id": decision_id, "problem": problem,
                                         "failure": failure}, public=True)
                raise MatchOver("forfeit_illegal", [seat])
            feedback = self._feedback(problem, attempt)
            self._error(endpoint, code, decision_id, feedback)
            self._append("penalty", {"seat": seat, "decision_id": decision_id, "problem": problem, "failure": failure},
                         public=True)
        return self._fail(seat, "forfeit_illegal", "retries exhausted", decision_id)

    def _feedback(self, problem: str, attempt: int) -> str:
        """What a refused attempt is told, with the retries left after it."""
        retries_left = self.rules.max_retries - attempt
        return problem + (f" ({retries_left} retr{'y' if retries_left == 1 else 'ies'} left)"
                          if retries_left else " (no retries left)")

    def _validate(self, seat: int, decision: pb.Decision, legal: list[int],
                  text_spec) -> tuple[int | None, str | None, int, str]:
        """(action, message, 0, "") when acceptable, else (None, None, error code, feedback)."""
        kind = decision.WhichOneof("choice")
        message = decision.message if decision.HasField("message") else None
        takes_message = bool(text_spec and text_spec.get("message"))
        limit = text_spec["max_length"] if text_spec else DEFAULT_TEXT_LIMIT
        for text in (decision.text if kind == "text" else None, message):
            if text is not None and len(text) > limit:
                return None, None, pb.ERROR_CODE_TEXT_REJECTED, (
                    f"text of {len(text)} characters exceeds the limit of {limit}")
        if kind == "action_id":
            if decision.action_id not in legal:
                return None, None, pb.ERROR_CODE_ILLEGAL_ACTION, (
                    f"action id {decision.action_id} is not among the legal actions")
            action = decision.action_id
        elif kind == "text":
            try:
                if takes_message and message is None:
                    action, message = self.state.read_reply(seat, decision.text)
                else:
                    action = self.state.parse_action(seat, decision.text)
            except ActionParseError as e:
                return None, None, pb.ERROR_CODE_UNPARSEABLE_TEXT, str(e)
            if action not in legal:
                return None, None, pb.ERROR_CODE_ILLEGAL_ACTION, (
                    f"{self.state.action_to_string(seat, action)!r} is not a legal move now")
        elif message is not None and takes_message and len(legal) == 1:
            action = legal[0]      # a message alone answers a decision with one legal action
        else:
            return None, None, pb.ERROR_CODE_MALFORMED_MESSAGE, "the decision has neither action_id nor text"
        try:
            message = self.state._accepted_message(seat, message)
        except TextRejectedError as e:
            return None, None, pb.ERROR_CODE_TEXT_REJECTED, str(e)
        return action, message, 0, ""

    def _fail(self, seat: int, forfeit_reason: str, why: str, decision_id: int, *,
              failure: str = "") -> tuple[int, str | None]:
        """Applies the failure policy for `seat`: a substitute action (and message), or the end of
        the match. `failure` names the seat's counter to add one to (timeouts, disconnects)."""
        if failure:
            self.stats[seat].count(failure)
        policy = self.rules.on_failure
        self.log.info("failure policy", seat=seat, why=why, policy=policy)
        if policy == "forfeit":
            raise MatchOver(forfeit_reason, [seat])
        if policy == "void_and_replay":
            raise MatchOver("voided", [seat])
        action, message = self._substitute(self.state, seat, policy)
        self.stats[seat].substituted_actions += 1
        entry = {"seat": seat, "decision_id": decision_id, "problem": why, "substituted": True, "failure": failure}
        if policy != "random_legal":
            entry["policy"] = policy
        self._append("penalty", entry, public=True)
        what = "the game's default was played" if policy == "game_default" else "a random legal action was played"
        self._event(match_pb2.EVENT_KIND_PENALTY, [seat], f"seat {seat}: {why}; {what}", {"problem": why})
        return action, message

    def _substitute(self, state, seat: int, policy: str) -> tuple[int, str | None]:
        """The failure policy's move for `seat`: the game's default action under "game_default" when
        it has one, else a random legal action from the policy's stream; with the game's default
        message, else a random acceptable one, when the decision carries a message. A restored
        runner calls it again for each logged substitution, to advance the stream the same way."""
        action = state.default_action(seat) if policy == "game_default" else None
        if action is None:
            action = self._policy_rng.choice(state.legal_actions(seat))
        spec = state.text_action_spec(seat)
        if not (spec and spec.get("message")):
            return action, None
        message = state.default_message(seat)
        if message is None:
            message = state.random_message(seat, self._policy_rng)
        return action, message

    # ---- results ----------------------------------------------------------------------------------
    def _normal_result(self) -> dict[str, Any]:
        returns = [float(r) for r in self.state.returns()]
        return {
            "reason": "normal", "returns": returns, "ranks": rank_returns(returns), "blamed_seats": [],
            "summary": self.state.result_summary(), "details": self.state.result_details(),
        }

    def _abnormal_result(self, reason: str, blamed: list[int]) -> dict[str, Any]:
        if reason == "voided":
            return {"reason": reason, "returns": [], "ranks": [], "blamed_seats": blamed,
                    "summary": f"void: seat(s) {', '.join(map(str, blamed))} failed", "details": {}}
        bounds = getattr(self.game, "utility_bounds", None)
        low, high = bounds() if bounds else (self.spec.min_utility, self.spec.max_utility)
        returns = [low if seat in blamed else high for seat in range(len(self.endpoints))]
        what = "resigned" if reason == "resignation" else "forfeited"
        return {"reason": reason, "returns": returns, "ranks": rank_returns(returns), "blamed_seats": blamed,
                "summary": f"seat(s) {', '.join(map(str, blamed))} {what}", "details": {}}

    def _finish(self, result: dict[str, Any]) -> None:
        result["seat_stats"] = [vars(s) for s in self.stats]
        if self._probe_answers:      # metrics read them with the result (MAgIC's judgement, reasoning, ...)
            result["probes"] = self._probe_answers
        status = match_status(result["reason"])
        self._append("end", result, public=True)
        ended_at = time.time()
        self.store.finish_match(self.record.match_id, status, result, ended_at)
        self.record.status, self.record.result, self.record.ended_at = status, result, ended_at
        self._event(match_pb2.EVENT_KIND_MATCH_ENDED, [], result["summary"], {"reason": result["reason"]})
        info = convert.match_info(self.record, reveal_seed=True)
        for seat, endpoint in enumerate(self.endpoints):
            endpoint.notify(pb.ConnectResponse(match_ended=pb.MatchEnded(match=info, seat=seat)))
        self.log.info("match ended", players=[p["agent_name"] for p in self.record.players], reason=result["reason"],
                      returns=result["returns"], status=status)
        if not self.finished.done():
            self.finished.set_result(result)

    # ---- log and events ---------------------------------------------------------------------------
    def _append(self, kind: str, data: dict[str, Any], public: bool) -> float:
        seq = self._log_seq
        self._log_seq += 1
        return self.store.append_log(self.record.match_id, seq, kind, data, public)

    def _event(self, kind: int, seats: list[int], text: str, data: dict[str, Any]) -> None:
        sequence = self._event_seq
        self._event_seq += 1
        at = self._append("event", {"sequence": sequence, "kind": kind, "seats": seats, "text": text,
                                    "data": data}, public=True)
        # An agent holding several seats (self-play) receives each event once.
        recipients = {e.connection_key(): e for e in self.endpoints if e.wants_events()}
        watched = self.watched(self.record.match_id)
        if not recipients and not watched:
            return      # logged; nobody to build the message for
        event = match_pb2.MatchEvent(
            match_id=self.record.match_id, sequence=sequence, kind=kind, seats=seats, text=text,
            data=convert.to_struct(data), time=convert.timestamp(at),
        )
        if recipients:
            message = pb.ConnectResponse(event=event)
            for endpoint in recipients.values():
                endpoint.notify(message)
        if watched:
            self.publish(event)

    def _error(self, endpoint: SeatEndpoint, code: int, decision_id: int, message: str) -> None:
        endpoint.notify(pb.ConnectResponse(error=pb.Error(
            code=code, message=message, match_id=self.record.match_id, decision_id=decision_id)))

    def _publish_new_messages(self) -> None:
        """A MESSAGE event for each new message that every seat heard; private ones wait for the end
        (they are in the log and in the seats' conversations)."""
        said = self.state.messages()
        for message in said[self._messages_seen:]:
            if message["to"] is None:
                self._event(match_pb2.EVENT_KIND_MESSAGE, [message["seat"]], f"seat {message['seat']} says: {message['text']}",
                            {"move": message["move"], "text": message["text"]})
        self._messages_seen = len(said)

    def _publish_new_public_moves(self) -> None:
        public = self.state.public_history()
        for seat, action, text in public[len(self._public_history):]:
            move = game_pb2.PublicMove(move_number=len(self._public_history), seat=seat, action_id=action, text=text)
            self._public_history.append(move)
            kind = match_pb2.EVENT_KIND_MOVE if seat >= 0 else match_pb2.EVENT_KIND_ROUND_RESOLVED
            who = f"seat {seat} plays " if seat >= 0 else ""
            self._event(kind, [seat] if seat >= 0 else [], who + text, {"action_id": action})


def _metadata_dict(metadata: pb.DecisionMetadata) -> dict[str, Any]:
    return json_format.MessageToDict(metadata)
