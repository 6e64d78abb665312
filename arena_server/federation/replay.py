"""Replays a record's match with this server's engine and checks that its result follows from it.

From the body alone: the game at the record's rules version (a version this server does not have is
a rejection: its engine may play other rules), the parameters and seat count, the seed, and the moves.
Each chance outcome must be the one the seed draws (the referee draws them with
random.Random(seed).choices, as arena_server/referee/match.py does), each action must be legal for
the seat that is to act, and the result must be what the moves give:
- a normal end: the moves reach the end of the game, and the returns, summary and details are the
  engine's;
- a resignation or forfeit: the moves stop before the end, and the blamed seats get the game's lowest
  return, the others its highest (the referee's rule).
Ranks must follow from the returns. What a replay cannot check (which seat really timed out, the probe
answers, the seats' problem counts) rests on the refereeing lab's signature alone.
"""

from __future__ import annotations

import json
import random

import arena_engines
from arena.v1 import federation_pb2 as fpb
from arena.v1 import match_pb2
from arena_engines.core import IllegalActionError, TextRejectedError

from ..referee.match import rank_returns
from .records import RecordRejected, canonical_json

FORFEITS = (match_pb2.END_REASON_RESIGNATION, match_pb2.END_REASON_FORFEIT_ILLEGAL,
            match_pb2.END_REASON_FORFEIT_TIMEOUT, match_pb2.END_REASON_FORFEIT_DISCONNECT)


def replay(body: fpb.MatchRecordBody) -> list[float]:
    """Replays the record; returns its returns, or raises RecordRejected naming the first problem."""
    if body.game_id not in arena_engines.game_ids():
        raise RecordRejected("unknown_game", f"game {body.game_id!r} is not one this server plays")
    spec = arena_engines.game_spec(body.game_id)
    if body.rules_version != spec.rules_version:
        raise RecordRejected("unknown_rules_version", f"{body.game_id} rules version {body.rules_version!r}; this "
                                                      f"server has only {spec.rules_version!r}")
    seats = len(body.seats)
    if [s.seat for s in body.seats] != list(range(seats)):
        raise RecordRejected("malformed", "the seats are not numbered 0, 1, ... in order")
    try:
        parameters = json.loads(body.parameters_json)
        if not isinstance(parameters, dict):
            raise ValueError("the parameters are not a JSON object")
        game = arena_engines.load_game(body.game_id, parameters, num_players=seats)
    except (KeyError, ValueError, TypeError) as e:
        raise RecordRejected("bad_parameters", str(e.args[0] if e.args else e)) from None

    state = game.new_initial_state()
    chance = random.Random(body.seed)
    for number, move in enumerate(body.moves):
        kind = move.WhichOneof("move")
        where = f"move {number}"
        if state.is_terminal():
            raise RecordRejected("illegal_move", f"{where}: the game was already over")
        try:
            if kind == "chance_outcome":
                if not state.is_chance_node():
                    raise RecordRejected("illegal_move", f"{where}: a chance outcome where no chance node is")
                outcomes = state.chance_outcomes()
                drawn = chance.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
                if drawn != move.chance_outcome:
                    raise RecordRejected("chance_mismatch", f"{where}: chance outcome {move.chance_outcome}, the "
                                                            f"seed draws {drawn}")
                state.apply_action(drawn)
            elif kind == "action":
                act = move.action
                if state.is_chance_node() or state.is_simultaneous_node() or act.seat != state.current_player():
                    raise RecordRejected("illegal_move", f"{where}: seat {act.seat} acts out of turn")
                state.apply_action(act.action, act.message if act.HasField("message") else None)
            elif kind == "joint":
                acting = state.current_players() if state.is_simultaneous_node() else []
                choices = move.joint.choices
                if sorted(c.seat for c in choices) != sorted(acting) or len(choices) != len(acting):
                    raise RecordRejected("illegal_move", f"{where}: seats {[c.seat for c in choices]} act, the game "
                                                         f"asks {acting}")
                actions, messages = [0] * seats, [None] * seats
                for c in choices:
                    actions[c.seat] = c.action
                    messages[c.seat] = c.message if c.HasField("message") else None
                state.apply_actions(actions, messages if any(m is not None for m in messages) else None)
            else:
                raise RecordRejected("malformed", f"{where} is empty")
        except (IllegalActionError, TextRejectedError) as e:
            raise RecordRejected("illegal_move", f"{where}: {e}") from None
        except (TypeError, ValueError, IndexError, KeyError, OverflowError) as e:
            # A hostile record must never stop the aggregator: whatever else the engine raises on a move
            # it was given makes that move one the game does not accept.
            raise RecordRejected("illegal_move", f"{where}: the engine refused it ({type(e).__name__}: {e})") from None
    _check_result(body, game, state)
    return list(body.result.returns)


def _check_result(body: fpb.MatchRecordBody, game, state) -> None:
    result = body.result
    returns = list(result.returns)
    if len(returns) != len(body.seats):
        raise RecordRejected("result_mismatch", f"{len(returns)} returns for {len(body.seats)} seats")
    if result.reason == match_pb2.END_REASON_NORMAL:
        if not state.is_terminal():
            raise RecordRejected("result_mismatch", "the match is said to end normally, but its moves do not reach "
                                                    "the end of the game")
        expected = [float(r) for r in state.returns()]
        if returns != expected:
            raise RecordRejected("result_mismatch", f"returns {returns}; the moves give {expected}")
        if result.summary != state.result_summary():
            raise RecordRejected("result_mismatch", f"summary {result.summary!r}; the moves give "
                                                    f"{state.result_summary()!r}")
        if result.details_json != canonical_json(state.result_details()):
            raise RecordRejected("result_mismatch", "the result details are not the ones the moves give")
    elif result.reason in FORFEITS:
        if state.is_terminal():
            raise RecordRejected("result_mismatch", "the match is said to end by resignation or forfeit, but its "
                                                    "moves reach the end of the game")
        blamed = set(result.blamed_seats)
        if not blamed or not blamed <= set(range(len(body.seats))):
            raise RecordRejected("result_mismatch", f"blamed seats {sorted(blamed)} for a forfeit")
        bounds = getattr(game, "utility_bounds", None)
        low, high = bounds() if bounds else (game.spec.min_utility, game.spec.max_utility)
        expected = [float(low if seat in blamed else high) for seat in range(len(body.seats))]
        if returns != expected:
            raise RecordRejected("result_mismatch", f"returns {returns}; a forfeit of seats {sorted(blamed)} gives "
                                                    f"{expected}")
    else:
        reason = {v: k for k, v in match_pb2.EndReason.items()}.get(result.reason, result.reason)
        raise RecordRejected("malformed", f"end reason {reason} has no record")
    if list(result.ranks) != rank_returns(returns):
        raise RecordRejected("result_mismatch", f"ranks {list(result.ranks)} do not follow from returns {returns}")
