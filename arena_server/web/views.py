"""What the pages show, computed from the store and the engines: a match's position for spectators,
a finished match's replay, leaderboards and agents' records.

Leak rules are the server's own: a match is read with `store.read_log(public_only=not ended)` and
described with `convert.match_info(record, reveal_seed=True)`, which shows the seed and secret
parameters only once the match has ended — exactly what GetMatch and SpectatorService.Watch give. A
running match's position is rebuilt from its public log entries only, and only for games whose every
move is public (perfect information, no chance, no dialogue); any other running match is shown through
its public events alone. Every seat's view is revealed only in the replay of an ended match.
"""

from __future__ import annotations

import asyncio
import io
import threading
from dataclasses import dataclass
from typing import Any

import arena_engines
from arena.v1 import match_pb2
from google.protobuf import json_format

from .. import convert
from ..ratings import LeaderboardQuery, compute_leaderboard
from ..ratings.board import LeaderboardRow, tally
from ..ratings.elo import EloBoard
from ..referee.replay import apply_logged_move
from ..store import MatchRecord
from .boards import board_view

ENDED = ("finished", "void")
MOVE_KINDS = ("chance", "action", "actions")
METHODS = {"bradley_terry": "Bradley–Terry", "elo": "Elo", "trueskill": "TrueSkill", "nra": "NRA (GTBench)"}
EVENT_KINDS = {v: k.removeprefix("EVENT_KIND_").lower() for k, v in match_pb2.EventKind.items()}
# Matplotlib's pyplot keeps global state: one figure at a time, whatever thread draws it.
_PLOT_LOCK = threading.Lock()


def ended(record: MatchRecord) -> bool:
    return record.status in ENDED


def public_info(record: MatchRecord) -> dict[str, Any]:
    """The match as GetMatch describes it to a spectator (no seed, no secret parameter before the end)."""
    info = json_format.MessageToDict(convert.match_info(record, reveal_seed=True), preserving_proto_field_name=True)
    info["status"] = record.status
    info["game_name"] = display_name(record.game_id)
    return info


def display_name(game_id: str) -> str:
    try:
        return arena_engines.game_spec(game_id).display_name
    except KeyError:
        return game_id


def live_position_public(game_id: str) -> bool:
    """Whether a running match's position may be rebuilt from its public log: every move public, and
    no hidden setup (secret parameters) that the rebuilt position could show."""
    try:
        spec = arena_engines.game_spec(game_id)
    except KeyError:
        return False
    return (spec.information == "perfect" and spec.chance == "deterministic" and not spec.dialogue
            and not any(p.secret for p in spec.parameters))


def _new_state(record: MatchRecord):
    game = arena_engines.load_game(record.game_id, record.parameters, num_players=len(record.players))
    return game.new_initial_state()


def _viewer(state) -> int:
    player = state.current_player()
    return max(player, 0)


def event_dict(event) -> dict[str, Any]:
    """A MatchEvent (message) as the pages use it."""
    return {"sequence": event.sequence, "kind": EVENT_KINDS.get(event.kind, str(event.kind)), "seats": list(event.seats),
            "text": event.text, "time": event.time.ToNanoseconds() / 1e9 if event.HasField("time") else None}


def position(record: MatchRecord, entries) -> dict[str, Any] | None:
    """The position after the log `entries` of a running match, for spectators: the board and the
    public text view, or None when the game's position is not public while it runs. `entries` must
    be the public ones (read_log(public_only=True))."""
    if ended(record) or not live_position_public(record.game_id):
        return None
    assert all(e.public for e in entries), "a spectator's position is rebuilt from public entries only"
    try:
        state = _new_state(record)
        for entry in entries:
            apply_logged_move(state, entry)
    except Exception:      # an imported log this server's engine does not follow
        return None
    viewer = _viewer(state)
    return {"board": board_view(record.game_id, state.observation_dict(viewer)),
            "text": state.observation_string(viewer), "moves": len(state.history()),
            "to_play": state.current_player()}


def final_view(record: MatchRecord, entries, seat: int) -> dict[str, Any] | None:
    """Seat `seat`'s view of the last position of an ended match (its whole log), or None."""
    assert ended(record), "the final position may hold hidden information: only after the end"
    try:
        state = _new_state(record)
        for entry in entries:
            apply_logged_move(state, entry)
        return {"board": board_view(record.game_id, state.observation_dict(seat)), "text": state.observation_string(seat)}
    except Exception:
        return None


def replay(record: MatchRecord, entries) -> dict[str, Any]:
    """Frames of an ended match, from its whole log: the position after each move (board, every
    seat's view, the move with its timing, message and logged reasoning and tokens, the events and
    penalties around it). Call only for an ended match."""
    assert ended(record), "a replay shows every seat's view: only after the end"
    seats = len(record.players)
    try:
        state = _new_state(record)
    except KeyError:
        state = None        # a game this server cannot run (an imported log): moves as logged, no views
    frames: list[dict[str, Any]] = []
    meta: dict[int, dict[str, Any]] = {}
    notes: list[str] = []
    round_times: dict[int, float] = {}
    last_move_time = entries[0].time if entries else 0.0

    def snapshot(move: dict[str, Any] | None) -> dict[str, Any]:
        frame: dict[str, Any] = {"move": move, "events": [], "notes": list(notes)}
        notes.clear()
        if state is not None:
            frame["views"] = [state.observation_string(seat) for seat in range(seats)]
            frame["board"] = board_view(record.game_id, state.observation_dict(_viewer(state)))
        return frame

    frames.append(snapshot(None))
    for entry in entries:
        data = entry.data
        if entry.kind == "decision_meta":
            meta[data["seat"]] = _metadata(data.get("metadata", {}))
        elif entry.kind == "choice":
            round_times[data["seat"]] = entry.time - last_move_time
        elif entry.kind == "penalty":
            notes.append(f"seat {data['seat']}: {data.get('problem', '')}"
                         + ("; the failure policy played for it" if data.get("substituted") else "; asked again"))
        elif entry.kind == "probe":
            notes.append(f"probe to seat {data['seat']}: {data['question']} → {data.get('answer')!r}")
        elif entry.kind == "event":
            frames[-1]["events"].append(data["text"])
        elif entry.kind in MOVE_KINDS:
            move = _describe(state, entry, meta, round_times, entry.time - last_move_time)
            if state is not None:
                apply_logged_move(state, entry)
            if entry.kind != "chance":
                last_move_time = entry.time
            meta, round_times = {}, {}
            frames.append(snapshot(move))
    return {"frames": frames, "seats": [p["agent_name"] for p in record.players]}


def _describe(state, entry, meta, round_times, elapsed: float) -> dict[str, Any]:
    data = entry.data
    if entry.kind == "chance":
        return {"kind": "chance", "text": _action_text(state, -1, data["action"], "chance outcome")}
    if entry.kind == "action":
        seat = data["seat"]
        return {"kind": "action", "seat": seat, "text": _action_text(state, seat, data["action"]),
                "message": data.get("message"), "seconds": round(elapsed, 3), "meta": meta.get(seat)}
    choices = []
    for seat in data.get("seats", []):
        messages = data.get("messages") or []
        choices.append({"seat": seat, "text": _action_text(state, seat, data["actions"][seat]),
                        "message": messages[seat] if seat < len(messages) else None,
                        "seconds": round(round_times.get(seat, elapsed), 3), "meta": meta.get(seat)})
    return {"kind": "round", "choices": choices}


def _action_text(state, seat: int, action: int, fallback: str = "action") -> str:
    if state is None:
        return f"{fallback} {action}"
    try:
        return state.action_to_string(seat if seat >= 0 else state.current_player(), action)
    except Exception:
        return f"{fallback} {action}"


def _metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """DecisionMetadata (as logged, in JSON form) for the replay: reasoning, tokens, cost, latency."""
    shown = {}
    for key, label in (("reasoning", "reasoning"), ("promptTokens", "prompt_tokens"),
                       ("completionTokens", "completion_tokens"), ("costUsd", "cost_usd"), ("latency", "latency")):
        if key in metadata:
            shown[label] = metadata[key]
    return shown


# ---- leaderboards and agents ---------------------------------------------------------------------------
@dataclass
class _Cached:
    key: tuple
    board: Any


class Leaderboards:
    """Leaderboards per game and method, recomputed only when the game's finished matches change. The
    fits run in a worker thread (as GetLeaderboard's do); the store is read on the event loop."""

    def __init__(self, store):
        self.store = store
        self._cache: dict[tuple[str, str], _Cached] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def get(self, game_id: str, method: str = "bradley_terry", matches: list[MatchRecord] | None = None):
        """The leaderboard of `game_id` by `method`; `matches`: the game's finished matches in end
        order, when the caller has read them already."""
        if matches is None:
            matches = list(self.store.finished_matches(game_id=game_id))
        key = (len(matches), matches[-1].match_id if matches else "", matches[-1].ended_at if matches else 0)
        lock = self._locks.setdefault((game_id, method), asyncio.Lock())
        async with lock:
            cached = self._cache.get((game_id, method))
            if cached is None or cached.key != key:
                query = LeaderboardQuery(method=method, game_id=game_id)
                board = await asyncio.to_thread(compute_leaderboard, matches, query)
                cached = self._cache[(game_id, method)] = _Cached(key, board)
        return cached.board


def plot_png(rows, title: str, has_interval: bool) -> bytes:
    from ..ratings.report import plot_ratings

    buf = io.BytesIO()
    with _PLOT_LOCK:
        plot_ratings(rows, buf, title=title, has_interval=has_interval)
    return buf.getvalue()


def agent_record(name: str, matches_by_game: dict[str, list[MatchRecord]]) -> dict[str, Any]:
    """An agent's W-D-L per game and its Elo after each of its matches (Elo over each game's whole log,
    in end order, from 1500)."""
    per_game: dict[str, LeaderboardRow] = {}
    history: dict[str, list[tuple[float, float]]] = {}
    for game_id, matches in matches_by_game.items():
        rows: dict[str, LeaderboardRow] = {}
        tally(matches, rows)
        if name in rows:
            per_game[game_id] = rows[name]
        board = EloBoard()
        points = []
        for m in matches:
            if board.update(m) and name in m.agent_names:
                points.append((m.ended_at or 0.0, board.rating(name)))
        if points:
            history[game_id] = points
    return {"per_game": per_game, "history": history}


def history_png(name: str, history: dict[str, list[tuple[float, float]]]) -> bytes:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    with _PLOT_LOCK:
        fig, ax = plt.subplots(figsize=(7.0, 3.2), dpi=100)
        try:
            for game_id, points in sorted(history.items()):
                ax.plot(range(1, len(points) + 1), [r for _, r in points], marker="o", markersize=3, label=game_id)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.axhline(1500, color="#999", linewidth=0.8, linestyle=":")
            ax.set_xlabel("the agent's finished matches of the game, in the order they ended")
            ax.set_ylabel("Elo (K 32, from 1500)")
            ax.set_title(f"{name}: rating history")
            if history:
                ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
        finally:
            plt.close(fig)
    return buf.getvalue()
