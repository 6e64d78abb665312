"""`arena-server export`: matches as trajectories, one JSON line per decision (or a Parquet table).

Reads a running server through its RPCs (ListMatches, GetMatch, ListTournaments) or, with --local,
the database file. Each match's log is replayed with the game's engine, so every decision line can
carry what the seat saw (observation text and structured view, legal actions) beside what it did
(the parsed action, the message, the prompt and raw reply where the agent logged them) and how the
match ended. The schema is documented in docs/export.md; `read_export` reads a file back and
`replay_export` replays its matches from it alone.

Matches still running are left out unless --include-running; their lines then carry only what a
spectator may see (the public log: no seed, no chance outcomes, no observations, prompts or private
moves) unless --reveal-running (with --local) asks for everything.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator

from .common import add_client_args, stubs

SCHEMA_VERSION = 1
FORMATS = ("jsonl", "parquet", "gamebench")
# Decision metadata fields copied onto a decision line (DecisionMetadata as the log keeps it).
TOKEN_FIELDS = (("promptTokens", "prompt_tokens"), ("completionTokens", "completion_tokens"))
EXTRA_FIELDS = ("reasoning_tokens", "cached_tokens", "calls", "retries", "reasks", "model_seconds", "model", "style")


def add_parsers(sub) -> None:
    p = sub.add_parser("export", help="write matches as JSONL (one line per decision) or Parquet, for training and "
                                      "analysis (schema: docs/export.md)")
    add_client_args(p)
    p.add_argument("--local", action="store_true", help="read the database file --db directly, without a server")
    p.add_argument("--out", "-o", default="-", help="output file (default: standard output; Parquet needs a file)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="jsonl (default) or parquet (needs pyarrow: pip install 'arena[parquet]'), by default "
                        "taken from --out's extension; or gamebench: GameBench's released dataset format (one "
                        "entry per finished two-sided match, each agent's points share), so runs here and "
                        "GameBench's can be rated together")
    p.add_argument("--tournament", action="append", default=[], help="only this tournament (repeatable)")
    p.add_argument("--suite", default="", help="only the tournaments of this suite's runs (e.g. gtbench)")
    p.add_argument("--game", default="", help="only this game")
    p.add_argument("--agent", default="", help="only matches this agent played")
    p.add_argument("--since", type=_date, default=None, metavar="DATE",
                   help="only matches created at or after this ISO date or time (UTC unless it says otherwise)")
    p.add_argument("--until", type=_date, default=None, metavar="DATE",
                   help="only matches created before this ISO date or time")
    p.add_argument("--include-running", action="store_true",
                   help="also export matches still running (by default only their public information)")
    p.add_argument("--reveal-running", action="store_true",
                   help="with --local and --include-running: running matches in full, hidden information included")
    p.add_argument("--anonymise", "--anonymize", dest="anonymise", action="store_true",
                   help="replace agent names by agent-1, agent-2, ... (in order of first appearance), also in "
                        "prompts and replies")
    p.add_argument("--no-prompts", action="store_true", help="leave out the prompts and raw replies")
    p.set_defaults(run=_export)


def _date(text: str) -> float:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"not an ISO date or time: {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


# ---- reading the matches ---------------------------------------------------------------------------------

class _Match:
    """A match as the export needs it: its record's fields and its log as (kind, data, public)."""

    def __init__(self, match_id, tournament_id, game_id, rules_version, parameters, players, seed, status,
                 created_at, ended_at, log):
        self.match_id, self.tournament_id, self.game_id = match_id, tournament_id, game_id
        self.rules_version, self.parameters, self.players, self.seed = rules_version, parameters, players, seed
        self.status, self.created_at, self.ended_at, self.log = status, created_at, ended_at, log


def _wanted(status: str, created_at: float, args) -> bool:
    if status not in ("finished", "void") and not (args.include_running and status == "running"):
        return False
    if args.since is not None and created_at < args.since:
        return False
    return args.until is None or created_at < args.until


def _local_matches(args) -> Iterator[_Match]:
    from ..store import Store

    store = Store(args.db)
    try:
        tournaments = list(args.tournament)
        if args.suite:
            suite_runs = [t["tournament_id"] for t in store.list_tournaments()
                          if json.loads(t["config"]).get("suite") == args.suite]
            tournaments = [t for t in tournaments if t in suite_runs] if tournaments else suite_runs
            if not tournaments:
                return
        records = []
        for tid in tournaments or [""]:
            before = None
            while True:
                page = store.list_matches(tournament_id=tid, game_id=args.game, agent_name=args.agent, limit=1000,
                                          before=before)
                records += page
                if len(page) < 1000:
                    break
                before = (page[-1].created_at, page[-1].match_id)
        for r in sorted(records, key=lambda r: (r.created_at, r.match_id)):
            if not _wanted(r.status, r.created_at, args):
                continue
            hide = r.status == "running" and not args.reveal_running
            log = [(e.kind, e.data, e.public) for e in store.read_log(r.match_id, public_only=hide)]
            yield _Match(r.match_id, r.tournament_id, r.game_id, r.rules_version, r.parameters, r.players,
                         None if hide else r.seed, r.status, r.created_at, r.ended_at, log)
    finally:
        store.close()


def _remote_matches(args) -> Iterator[_Match]:
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from ..convert import from_struct

    stub, md = stubs(args)
    statuses = {match_pb2.MATCH_STATUS_FINISHED: "finished", match_pb2.MATCH_STATUS_VOID: "void",
                match_pb2.MATCH_STATUS_RUNNING: "running", match_pb2.MATCH_STATUS_PENDING: "pending"}
    tournaments = list(args.tournament)
    if args.suite:
        listed = stub.ListTournaments(pb.ListTournamentsRequest(), metadata=md).tournaments
        suite_runs = [t.tournament_id for t in listed if t.suite == args.suite]
        tournaments = [t for t in tournaments if t in suite_runs] if tournaments else suite_runs
        if not tournaments:
            return
    infos = []
    for tid in tournaments or [""]:
        token = ""
        while True:
            page = stub.ListMatches(pb.ListMatchesRequest(tournament_id=tid, game_id=args.game, agent_name=args.agent,
                                                          page_size=1000, page_token=token), metadata=md)
            infos += page.matches
            token = page.next_page_token
            if not token:
                break
    infos.sort(key=lambda m: (m.created_at.ToNanoseconds(), m.match_id))
    for m in infos:
        status, created = statuses.get(m.status, "pending"), m.created_at.ToNanoseconds() / 1e9
        if not _wanted(status, created, args):
            continue
        got = stub.GetMatch(pb.GetMatchRequest(match_id=m.match_id), metadata=md)
        # A running match's log holds its public entries only: the server keeps the rest until the end.
        log = [(e.kind, from_struct(e.data), status != "running") for e in got.log]
        players = [{"seat": p.seat, "agent_name": p.agent_name, "team": p.team, "house_agent": p.house_agent}
                   for p in m.players]
        yield _Match(m.match_id, m.tournament_id, m.game_id, m.rules_version, from_struct(m.parameters), players,
                     None if status == "running" else int(got.match.seed), status, created,
                     m.ended_at.ToNanoseconds() / 1e9 if m.HasField("ended_at") else None, log)


# ---- lines -------------------------------------------------------------------------------------------------

class _Names:
    """Agent names as exported: themselves, or agent-1, agent-2, ... in order of first appearance."""

    def __init__(self, anonymise: bool):
        self.anonymise = anonymise
        self.names: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if not self.anonymise:
            return name
        return self.names.setdefault(name, f"agent-{len(self.names) + 1}")

    def scrub(self, value):
        """`value` (text, or lists and dicts of it) with every known agent name replaced."""
        if not self.anonymise or not self.names:
            return value
        if isinstance(value, str):
            for name in sorted(self.names, key=len, reverse=True):
                value = value.replace(name, self.names[name])
            return value
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        return value


def match_lines(match: _Match, names: _Names, prompts: bool = True) -> Iterator[dict[str, Any]]:
    """The export's lines of one match: a "match" line, then its moves in order ("chance" lines and
    "decision" lines, numbered by `step`; a simultaneous round's decisions share a step)."""
    seats = {p["seat"]: names(p["agent_name"]) for p in match.players}
    end = next((data for kind, data, _ in match.log if kind == "end"), None)
    hidden = match.status == "running" and not all(public for _, _, public in match.log)
    hidden = hidden or (match.status == "running" and match.seed is None)
    result = None
    if end is not None:
        result = {"reason": end.get("reason"), "returns": end.get("returns"), "ranks": end.get("ranks"),
                  "blamed_seats": end.get("blamed_seats", []), "summary": end.get("summary", "")}
    yield {"type": "match", "schema": SCHEMA_VERSION, "match_id": match.match_id, "tournament_id": match.tournament_id,
           "game_id": match.game_id, "rules_version": match.rules_version, "parameters": match.parameters,
           "seed": match.seed, "status": match.status, "hidden_information_removed": hidden,
           "players": [{"seat": p["seat"], "agent": seats[p["seat"]], "team": p.get("team", 0),
                        "house_agent": bool(p.get("house_agent", False))} for p in match.players],
           "created_at": _iso(match.created_at), "ended_at": _iso(match.ended_at), "result": result}
    if hidden:
        yield from _public_lines(match, seats, result)
        return
    yield from _replayed_lines(match, seats, names, result, prompts)


def _outcome(result, seat: int) -> dict[str, Any]:
    if result is None:
        return {"return": None, "rank": None, "reason": None}
    returns, ranks = result.get("returns") or [], result.get("ranks") or []
    return {"return": returns[seat] if seat < len(returns) else None,
            "rank": ranks[seat] if seat < len(ranks) else None, "reason": result.get("reason")}


def _public_lines(match: _Match, seats: dict, result) -> Iterator[dict[str, Any]]:
    """A running match's public moves only, without views (the game state cannot be rebuilt)."""
    step = 0
    for kind, data, _ in match.log:
        if kind == "action":
            yield {"type": "decision", "match_id": match.match_id, "step": step, "seat": data["seat"],
                   "agent": seats.get(data["seat"]), "action": {"id": data["action"]},
                   "message": data.get("message"), "outcome": _outcome(result, data["seat"])}
            step += 1
        elif kind == "actions":
            for seat in data.get("seats", []):
                messages = data.get("messages") or []
                yield {"type": "decision", "match_id": match.match_id, "step": step, "seat": seat,
                       "agent": seats.get(seat), "action": {"id": data["actions"][seat]},
                       "message": messages[seat] if seat < len(messages) else None, "outcome": _outcome(result, seat)}
            step += 1


def _replayed_lines(match: _Match, seats: dict, names: _Names, result, prompts: bool) -> Iterator[dict[str, Any]]:
    import arena_engines

    game = arena_engines.load_game(match.game_id, match.parameters, num_players=len(match.players))
    state = game.new_initial_state()
    meta: dict[int, dict] = {}         # seat -> its latest accepted decision's metadata
    refused: dict[int, list] = {}      # seat -> the problems of its refused attempts
    substituted: dict[int, dict] = {}  # seat -> the failure policy's penalty entry
    round_views: dict[int, dict] = {}  # seat -> its view at the current simultaneous round
    step = 0

    def view(seat: int) -> dict[str, Any]:
        legal = state.legal_actions(seat)
        return {"observation_text": state.observation_string(seat), "observation": state.observation_dict(seat),
                "legal_actions": [{"id": a, "text": state.action_to_string(seat, a)} for a in legal]}

    def decision(seat: int, action: int, message, seen: dict) -> dict[str, Any]:
        line = {"type": "decision", "match_id": match.match_id, "step": step, "move_number": state.move_number,
                "seat": seat, "agent": seats.get(seat), **seen,
                "action": {"id": action, "text": _action_text(seat, action, seen)}, "message": message}
        m = meta.pop(seat, None)
        penalty = substituted.pop(seat, None)
        line["substituted"] = penalty is not None
        if penalty is not None:
            line["substitute_reason"] = penalty.get("problem", "")
        line["refused_attempts"] = refused.pop(seat, [])
        line["agent_metadata"] = _metadata(m, names, prompts) if m is not None else None
        line["outcome"] = _outcome(result, seat)
        return line

    def _action_text(seat: int, action: int, seen: dict) -> str:
        return next((a["text"] for a in seen.get("legal_actions", []) if a["id"] == action), "")

    for kind, data, _ in match.log:
        if kind == "decision_meta":
            meta[data["seat"]] = data.get("metadata") or {}
        elif kind == "penalty":
            if data.get("substituted"):
                substituted[data["seat"]] = data
            elif data.get("seat") is not None:
                refused.setdefault(data["seat"], []).append(data.get("problem", ""))
        elif kind == "chance":
            yield {"type": "chance", "match_id": match.match_id, "step": step, "action": data["action"]}
            state.apply_action(data["action"])
            step += 1
        elif kind == "choice":
            if state.is_simultaneous_node() and data["seat"] not in round_views:
                round_views[data["seat"]] = view(data["seat"])
        elif kind == "action":
            seat = data["seat"]
            line = decision(seat, data["action"], data.get("message"), view(seat))
            state.apply_action(data["action"], data.get("message"))
            yield line
            step += 1
        elif kind == "actions":
            messages = data.get("messages") or [None] * len(data["actions"])
            lines = [decision(seat, data["actions"][seat], messages[seat], round_views.pop(seat, None) or view(seat))
                     for seat in data.get("seats", [])]
            round_views.clear()
            state.apply_actions(data["actions"], data.get("messages"))
            yield from lines
            step += 1


def _metadata(meta: dict, names: _Names, prompts: bool) -> dict[str, Any]:
    """What the agent sent with its decision: token counts, cost, latency, and the prompt and raw
    reply where it logged them."""
    extra = meta.get("extra") or {}
    out: dict[str, Any] = {}
    for camel, snake in TOKEN_FIELDS:
        value = meta.get(camel, meta.get(snake))
        if value is not None:
            out[snake] = int(float(value))
    if meta.get("costUsd", meta.get("cost_usd")) is not None:
        out["cost_usd"] = float(meta.get("costUsd", meta.get("cost_usd")))
    if meta.get("latency"):
        out["latency_s"] = float(str(meta["latency"]).rstrip("s") or 0)
    for key in EXTRA_FIELDS:
        if key in extra:      # counts come back from the log's JSON as floats
            value = extra[key]
            out[key] = int(value) if isinstance(value, float) and value.is_integer() and key != "model_seconds" \
                else value
    if extra.get("forced"):
        out["forced"] = True
    if prompts:
        if "prompt" in extra:
            out["prompt"] = names.scrub(extra["prompt"])
        reply = meta.get("reasoning") or (extra.get("responses") or [None])[-1]
        if reply is not None:
            out["reply"] = names.scrub(reply)
        if "responses" in extra:
            out["responses"] = names.scrub(extra["responses"])
    return out


def _iso(seconds: float | None) -> str | None:
    if not seconds:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---- writing, reading back, replaying ------------------------------------------------------------------------

def _export(args) -> int:
    fmt = args.format or ("parquet" if args.out.endswith(".parquet") else "jsonl")
    if fmt == "parquet" and args.out == "-":
        print("error: Parquet needs a file: pass --out PATH", file=sys.stderr)
        return 2
    if args.reveal_running and not args.local:
        print("error: --reveal-running needs --local (the server withholds a running match's hidden information)",
              file=sys.stderr)
        return 2
    if args.local and not os.path.exists(args.db):
        print(f"error: no database file {args.db}", file=sys.stderr)
        return 2
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print("error: Parquet needs pyarrow: pip install 'arena[parquet]'", file=sys.stderr)
            return 2
    names = _Names(args.anonymise)
    matches = _local_matches(args) if args.local else _remote_matches(args)
    if fmt == "gamebench":
        return _export_gamebench(matches, names, args.out)
    lines = (line for match in matches for line in match_lines(match, names, prompts=not args.no_prompts))
    counts = write(lines, args.out, fmt)
    where = "standard output" if args.out == "-" else args.out
    print(f"exported {counts['match']} matches, {counts['decision']} decisions to {where}", file=sys.stderr)
    return 0


def _export_gamebench(matches: Iterable[_Match], names: _Names, path: str) -> int:
    """GameBench's matches.json: a JSON list of {"game", agent: score, other agent: score}."""
    from types import SimpleNamespace

    from ..ratings.gamebench import gamebench_entries

    def record(match: _Match):
        end = next((data for kind, data, _ in match.log if kind == "end"), None) or {}
        players = [{**p, "agent_name": names(p["agent_name"])} for p in match.players]
        return SimpleNamespace(game_id=match.game_id, status=match.status, players=players,
                               result={"returns": end.get("returns"), "ranks": end.get("ranks")})

    entries = gamebench_entries(record(m) for m in matches)
    text = json.dumps(entries, indent=4) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    where = "standard output" if path == "-" else path
    print(f"exported {len(entries)} matches in GameBench's format to {where} (only finished matches of two "
          "sides, one agent each)", file=sys.stderr)
    return 0


def write(lines: Iterable[dict[str, Any]], path: str, fmt: str = "jsonl") -> dict[str, int]:
    """Writes the lines as JSONL (path "-": standard output) or Parquet; returns the count per type."""
    counts = {"match": 0, "decision": 0, "chance": 0}
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = []
        for line in lines:
            counts[line["type"]] += 1
            rows.append(_flat(line))
        columns = sorted({k for row in rows for k in row})
        table = pa.table({c: pa.array([row.get(c) for row in rows], type=_arrow_type(c)) for c in columns}
                         if rows else {"type": pa.array([], pa.string())})
        pq.write_table(table, path)
        return counts
    out = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")
    try:
        for line in lines:
            counts[line["type"]] += 1
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return counts


# Parquet columns: scalars as such, anything nested as JSON text (a game's views differ in shape).
_SCALARS = {"type": "string", "schema": "int64", "match_id": "string", "tournament_id": "string",
            "game_id": "string", "rules_version": "string", "seed": "int64", "status": "string",
            "hidden_information_removed": "bool", "created_at": "string", "ended_at": "string", "step": "int64",
            "move_number": "int64", "seat": "int64", "agent": "string", "observation_text": "string",
            "message": "string", "substituted": "bool", "substitute_reason": "string"}


def _arrow_type(column: str):
    import pyarrow as pa

    return {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_()}.get(_SCALARS.get(column), pa.string())


def _flat(line: dict[str, Any]) -> dict[str, Any]:
    row = {}
    for key, value in line.items():
        if key in _SCALARS:
            row[key] = value
        elif key == "action" and line["type"] == "chance":
            row["action"] = json.dumps({"id": value})
        else:
            row[key] = json.dumps(value, ensure_ascii=False)
    return row


def read_export(path: str) -> list[dict[str, Any]]:
    """The lines of an export file, JSONL or Parquet (by extension), as written."""
    if not path.endswith(".parquet"):
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    import pyarrow.parquet as pq

    lines = []
    for row in pq.read_table(path).to_pylist():
        line = {}
        for key, value in row.items():
            if value is None and key not in _SCALARS:
                continue
            if key in _SCALARS:
                if value is not None or key in ("seed", "message", "ended_at"):
                    line[key] = value
            else:
                line[key] = json.loads(value)
        if line.get("type") == "chance":
            line["action"] = line["action"]["id"]
        lines.append(line)
    return lines


def replay_export(lines: Iterable[dict[str, Any]]) -> dict[str, list[float]]:
    """Replays every finished, normally ended match of an export from its lines alone (the game, its
    parameters, the chance outcomes and the decisions' actions, step by step) and checks that each
    reaches the returns the export records; returns them per match id. Raises AssertionError on a
    mismatch."""
    import arena_engines

    matches: dict[str, dict] = {}
    moves: dict[str, dict[int, list[dict]]] = {}
    for line in lines:
        if line["type"] == "match":
            matches[line["match_id"]] = line
        else:
            moves.setdefault(line["match_id"], {}).setdefault(line["step"], []).append(line)
    replayed = {}
    for match_id, match in matches.items():
        result = match.get("result") or {}
        if match["status"] != "finished" or result.get("reason") != "normal":
            continue
        game = arena_engines.load_game(match["game_id"], match["parameters"], num_players=len(match["players"]))
        state = game.new_initial_state()
        for step in sorted(moves.get(match_id, {})):
            group = moves[match_id][step]
            if group[0]["type"] == "chance":
                state.apply_action(group[0]["action"])
            elif len(group) == 1 and not state.is_simultaneous_node():
                state.apply_action(group[0]["action"]["id"], group[0].get("message"))
            else:
                actions = [0] * state.num_players
                messages = [None] * state.num_players
                for line in group:
                    actions[line["seat"]], messages[line["seat"]] = line["action"]["id"], line.get("message")
                state.apply_actions(actions, messages if any(m is not None for m in messages) else None)
        assert state.is_terminal(), f"match {match_id}: the exported moves do not end the game"
        returns = [float(r) for r in state.returns()]
        assert returns == [float(r) for r in result["returns"]], \
            f"match {match_id}: replay gives {returns}, the export records {result['returns']}"
        replayed[match_id] = returns
    return replayed
