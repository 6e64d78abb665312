"""The pages, as plain HTML: readable without JavaScript, on a phone, with the keyboard. Scripts only
add what needs them (live updates, stepping through a replay, playing); they are served from
/static, and a page hands them its data as JSON in a non-executed <script type="application/json">.

Everything taken from the store or a client is escaped (`e`), and JSON embedded in a page has its
'<' escaped, so no text of an agent's can close the element it sits in.
"""

from __future__ import annotations

import html
import json
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

import arena_engines

from ..store import MatchRecord
from .views import METHODS, display_name


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def when(seconds: float | None) -> str:
    if not seconds:
        return "–"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def page(title: str, body: str, *, who=None, csrf: str = "", script: str = "", data: Any = None,
         live: str = "") -> str:
    """A whole page. `who`: the signed-in principal (None: signed out); `script`: the page's own
    script under /static; `live`: "feed" to refresh the page's main part when matches start or end."""
    if who is None:
        account = "<a href='/signin'>Sign in</a>"
    else:
        name = who.agent_name or "admin"
        account = (f"<span class='who'>{e(name)} <span class='dim'>({e(', '.join(sorted(who.scopes)))})</span></span>"
                   f"<form method='post' action='/signout' class='inline'><input type='hidden' name='csrf' "
                   f"value='{e(csrf)}'><button type='submit' class='link'>Sign out</button></form>")
    scripts = "<script src='/static/arena.js'></script>" + (f"<script src='/static/{e(script)}'></script>" if script else "")
    payload = f"<script type='application/json' id='page-data'>{_json(data)}</script>" if data is not None else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='csrf' content='{e(csrf)}'><title>{e(title)} · Arena</title>"
        "<link rel='stylesheet' href='/static/arena.css'><link rel='icon' href='/static/favicon.svg'></head>"
        f"<body data-live='{e(live)}'><a class='skip' href='#main'>Skip to the content</a>"
        "<header><nav aria-label='site'><a href='/' class='brand'>Arena</a><a href='/matches'>Matches</a>"
        f"<a href='/play'>Play</a><span class='spacer'></span>{account}</nav></header>"
        f"<main id='main'>{body}</main>{payload}{scripts}</body></html>"
    )


def table(head: Iterable[str], rows: Iterable[Iterable[str]], *, caption: str = "", css: str = "",
          empty: str = "Nothing yet.") -> str:
    """Cells are HTML already (escape what you put in them); `empty` is said when there is no row."""
    rows = list(rows)
    if not rows:
        return f"<p class='dim'>{e(empty)}</p>"
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    return (f"<div class='scroll'><table class='{e(css)}'>{cap}<thead><tr>" + "".join(f"<th scope='col'>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
            + "</tbody></table></div>")


def agent_link(name: str) -> str:
    return f"<a href='/agents/{quote(name, safe='')}'>{e(name)}</a>"


def match_link(match_id: str, text: str | None = None) -> str:
    return f"<a href='/matches/{quote(match_id, safe='')}'>{e(text or match_id)}</a>"


def players(m: MatchRecord) -> str:
    return ", ".join(agent_link(p["agent_name"]) for p in sorted(m.players, key=lambda p: p["seat"]))


def result_text(m: MatchRecord) -> str:
    if m.result is None:
        return "<span class='dim'>running</span>" if m.status == "running" else e(m.status)
    returns = ", ".join(f"{r:g}" for r in m.result.get("returns", []))
    return f"{e(m.result.get('summary', ''))} <span class='dim'>[{e(returns)}]</span>"


def matches_table(matches: list[MatchRecord], *, empty: str = "No match.", show_result: bool = True) -> str:
    head = ["match", "game", "players", "result" if show_result else "started", "ended" if show_result else "status"]
    rows = []
    for m in matches:
        rows.append([match_link(m.match_id), e(m.game_id), players(m),
                     result_text(m) if show_result else e(when(m.created_at)),
                     e(when(m.ended_at)) if show_result else e(m.status)])
    return table(head, rows, empty=empty)


def board_table(board, game_id: str, *, limit: int | None = None) -> str:
    rows = []
    for r in board.rows[:limit]:
        rating = f"{r.rating:.2f}" + ("<sup title='provisional: few matches'>?</sup>" if r.provisional else "")
        cells = [str(r.rank), agent_link(r.agent_name), rating]
        if board.has_interval:
            cells.append(f"[{r.lower:.2f}, {r.upper:.2f}]")
        cells += [str(r.matches), f"{r.wins}-{r.draws}-{r.losses}"]
        rows.append(cells)
    head = ["rank", "agent", "rating"] + (["interval"] if board.has_interval else []) + ["matches", "W-D-L"]
    return table(head, rows, css="board", empty="No rated match yet.")


# ---- pages ----------------------------------------------------------------------------------------------
def signin(next_path: str, error: str = "") -> str:
    problem = f"<p class='error' role='alert'>{e(error)}</p>" if error else ""
    body = (
        "<h1>Sign in</h1>" + problem +
        "<form method='post' action='/signin' class='card'>"
        f"<input type='hidden' name='next' value='{e(next_path)}'>"
        "<label for='key'>API key</label>"
        "<input id='key' name='key' type='password' autocomplete='off' required autofocus size='48'>"
        "<button type='submit'>Sign in</button></form>"
        "<p>Use a key of this server: a <b>spectate</b> key watches matches and reads the leaderboards; a "
        "<b>play</b> key does that too and plays as its agent, in the same rating pool as the bots. The key "
        "stays in this browser session only. An operator issues one with</p>"
        "<pre>arena-server keys create --agent YOUR_NAME              # play\n"
        "arena-server keys create --agent YOUR_NAME --scopes spectate</pre>"
    )
    return page("Sign in", body)


def error_page(status: int, title: str, text: str, *, who=None, csrf: str = "") -> str:
    return page(title, f"<h1>{e(title)}</h1><p class='error'>{e(text)}</p><p><a href='/'>Home</a></p>", who=who, csrf=csrf)


def home(*, who, csrf: str, live: list[MatchRecord], latest: list[MatchRecord], boards: list[tuple[str, Any]]) -> str:
    games = []
    for game_id in arena_engines.game_ids():
        spec = arena_engines.game_spec(game_id)
        players_text = f"{spec.min_players}" if spec.min_players == spec.max_players else \
            f"{spec.min_players}–{spec.max_players}"
        games.append([f"<a href='/leaderboards/{e(game_id)}'>{e(spec.display_name)}</a> <span class='dim'>"
                      f"{e(game_id)}</span>", e(players_text), e(spec.dynamics), e(spec.information),
                      f"<a href='/play?game={quote(game_id)}'>play</a>"])
    parts = ["<h1>Arena</h1>", "<section aria-labelledby='live-h'><h2 id='live-h'>Live matches</h2>",
             matches_table(live, empty="No match is running.", show_result=False), "</section>",
             "<section aria-labelledby='latest-h'><h2 id='latest-h'>Latest results</h2>",
             matches_table(latest, empty="No match has finished yet."), "<p><a href='/matches'>All matches</a></p></section>",
             "<section aria-labelledby='boards-h'><h2 id='boards-h'>Leaderboards</h2>"]
    if not boards:
        parts.append("<p class='dim'>No finished match yet.</p>")
    for game_id, board in boards:
        parts.append(f"<h3><a href='/leaderboards/{e(game_id)}'>{e(display_name(game_id))}</a></h3>"
                     f"<p class='dim'>{e(board.description)}</p>" + board_table(board, game_id, limit=10))
    parts.append("</section><section aria-labelledby='games-h'><h2 id='games-h'>Games</h2>")
    parts.append(table(["game", "players", "moves", "information", ""], games))
    parts.append("</section>")
    return page("Home", "".join(parts), who=who, csrf=csrf, live="feed")


def matches_page(*, who, csrf: str, matches: list[MatchRecord], game: str, agent: str, status: str) -> str:
    options = "".join(f"<option value='{e(g)}'{' selected' if g == game else ''}>{e(g)}</option>"
                      for g in [""] + arena_engines.game_ids())
    statuses = "".join(f"<option value='{s}'{' selected' if s == status else ''}>{s or 'any'}</option>"
                       for s in ("", "running", "finished", "void", "pending"))
    form = ("<form method='get' action='/matches' class='filters'><label>game <select name='game'>" + options +
            "</select></label><label>agent <input name='agent' value='" + e(agent) + "' size='16'></label>"
            "<label>status <select name='status'>" + statuses + "</select></label><button type='submit'>Show</button></form>")
    return page("Matches", "<h1>Matches</h1>" + form + matches_table(matches), who=who,
                csrf=csrf, live="feed")


def match_page(*, who, csrf: str, info: dict[str, Any], record: MatchRecord, live_data: dict | None,
               replay_data: dict | None) -> str:
    ended = replay_data is not None
    facts = [("game", f"{e(info['game_name'])} <span class='dim'>{e(record.game_id)}</span>"),
             ("players", "; ".join(f"seat {p['seat']}: {agent_link(p['agent_name'])}" for p in record.players)),
             ("status", f"<span id='status'>{e(record.status)}</span>"), ("created", e(when(record.created_at)))]
    if record.tournament_id:
        facts.append(("tournament", e(record.tournament_id)))
    per_decision = record.time_control.get("per_decision")
    if per_decision:
        facts.append(("time per decision", f"{per_decision:g} s"))
    parameters = info.get("parameters") or {}
    if parameters:
        facts.append(("parameters", e(json.dumps(parameters, sort_keys=True))))
    if ended:
        facts += [("ended", e(when(record.ended_at))), ("result", result_text(record)), ("seed", e(info.get("seed", 0)))]
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    title = f"{info['game_name']} {record.match_id}"
    head = f"<h1>{e(info['game_name'])} <span class='dim'>{e(record.match_id)}</span></h1><dl class='facts'>{dl}</dl>"
    if not ended:
        body = (head + "<p class='note'>Live: spectators see public information only until the match ends; "
                "then this page becomes its replay.</p>"
                "<div class='play-area'><div><div id='board' class='board-wrap' aria-live='polite'></div>"
                "<p id='view-note' class='dim' hidden>The view of the seat to move: every move of this game is public.</p><pre id='view' class='view' hidden></pre></div>"
                "<div><h2>Events</h2><ol id='events' class='events' aria-live='polite'></ol>"
                + ("<h2>Chat</h2><ol id='chat' class='chat'></ol>" if _dialogue(record.game_id) else "")
                + "</div></div>")
        return page(title, body, who=who, csrf=csrf, script="watch.js", data=live_data)
    frames = replay_data["frames"]
    moves = []
    for i, frame in enumerate(frames[1:], 1):
        moves.append(f"<li value='{i}'>{e(_move_text(frame['move'], replay_data['seats']))}</li>")
    body = (head +
            f"<p><a href='/matches/{quote(record.match_id, safe='')}/log.jsonl' download>Download the log (JSON Lines)</a></p>"
            "<div id='replay' class='replay'>"
            "<div class='controls' role='group' aria-label='replay controls'>"
            "<button type='button' id='first' aria-label='first position'>« first</button>"
            "<button type='button' id='prev' aria-label='previous move'>‹ back</button>"
            "<button type='button' id='next' aria-label='next move'>next ›</button>"
            "<button type='button' id='last' aria-label='last position'>last »</button>"
            f"<input type='range' id='step' min='0' max='{len(frames) - 1}' value='0' aria-label='move'>"
            f"<output id='where' aria-live='polite'>0 / {len(frames) - 1}</output></div>"
            "<div class='play-area'><div><div id='board' class='board-wrap'></div><div id='move' class='move'></div></div>"
            "<div><h2>Every seat's view</h2><div id='views'></div><h2>Events</h2><ol id='events' class='events'></ol></div>"
            "</div></div>"
            "<h2>Moves</h2><ol class='moves'>" + "".join(moves) + "</ol>")
    return page(title, body, who=who, csrf=csrf, script="replay.js", data=replay_data)


def _dialogue(game_id: str) -> bool:
    try:
        return arena_engines.game_spec(game_id).dialogue
    except KeyError:
        return True


def _move_text(move: dict | None, seats: list[str]) -> str:
    if move is None:
        return "start"
    if move["kind"] == "chance":
        return f"chance: {move['text']}"
    if move["kind"] == "action":
        said = f" — says: {move['message']}" if move.get("message") else ""
        return f"seat {move['seat']} ({seats[move['seat']]}): {move['text']}{said}"
    return "round: " + "; ".join(f"seat {c['seat']}: {c['text']}" + (f" (says: {c['message']})" if c.get("message") else "")
                                 for c in move["choices"])


def leaderboard_page(*, who, csrf: str, game_id: str, method: str, board, matrix: dict) -> str:
    tabs = " ".join(
        f"<a href='/leaderboards/{e(game_id)}?{urlencode({'method': m})}'"
        + (" aria-current='page' class='current'" if m == method else "") + f">{e(name)}</a>"
        for m, name in METHODS.items())
    body = [f"<h1>{e(display_name(game_id))} <span class='dim'>{e(game_id)}</span></h1>",
            f"<nav class='tabs' aria-label='rating method'>{tabs}</nav>",
            f"<p class='dim'>{e(board.description)}</p>", f"<p>{board.matches_counted} finished matches.</p>",
            board_table(board, game_id)]
    if board.rows:
        body.append(f"<img class='plot' alt='ratings of {e(game_id)} by {e(METHODS[method])}, with their intervals' "
                    f"src='/leaderboards/{e(game_id)}/plot.png?{urlencode({'method': method, 'n': board.matches_counted})}'>")
        agents = [r.agent_name for r in board.rows]
        rows = []
        for a in agents:
            cells = [agent_link(a)]
            for b in agents:
                if a == b:
                    cells.append("<span class='dim'>–</span>")
                elif (a, b) in matrix:
                    s, n = matrix[(a, b)]
                    cells.append(f"{s:.2f} <span class='dim'>({n:g})</span>")
                else:
                    cells.append("<span class='dim'>·</span>")
            rows.append(cells)
        body.append("<h2>Pairwise</h2>" + table([""] + [e(a) for a in agents], rows, css="matrix",
                                                caption="mean score of the row agent against the column agent "
                                                        "(win 1, draw ½, loss 0); comparisons in brackets"))
    body.append(f"<p><a href='/matches?game={quote(game_id)}'>Matches of this game</a> · "
                f"<a href='/play?game={quote(game_id)}'>Play it</a></p>")
    return page(f"{game_id} leaderboard", "".join(body), who=who, csrf=csrf, live="feed")


def agent_page(*, who, csrf: str, name: str, row, connected: bool, record: dict, matches: list[MatchRecord]) -> str:
    kind = "house agent (runs inside the server)" if row["house"] else "agent"
    games = [[f"<a href='/leaderboards/{e(g)}'>{e(g)}</a>", str(r.matches), f"{r.wins}-{r.draws}-{r.losses}"]
             for g, r in sorted(record["per_game"].items())]
    body = [f"<h1>{e(name)}</h1>",
            f"<p>{e(kind)}{' · connected now' if connected else ''}"
            f"{(' · ' + e(row['description'])) if row['description'] else ''}</p>",
            "<h2>Record</h2>", table(["game", "matches", "W-D-L"], games, empty="No finished match yet.")]
    if record["history"]:
        body.append(f"<img class='plot' alt='Elo rating history of {e(name)} per game' "
                    f"src='/agents/{quote(name, safe='')}/history.png?n={sum(len(v) for v in record['history'].values())}'>")
    body += ["<h2>Matches</h2>", matches_table(matches)]
    return page(name, "".join(body), who=who, csrf=csrf, live="feed")


def play_page(*, who, csrf: str, game: str, joined: dict, tournaments: list[tuple[str, str, str]]) -> str:
    options = []
    for game_id in arena_engines.game_ids():
        spec = arena_engines.game_spec(game_id)
        values = [(game_id, f"{spec.display_name}")] + [(f"{game_id}|{p.name}", f"{spec.display_name} — preset {p.name}")
                                                        for p in spec.presets]
        for value, label in values:
            selected = " selected" if value == game else ""
            options.append(f"<option value='{e(value)}'{selected}>{e(label)}</option>")
    waiting = ""
    if joined.get("games"):
        what = "on the ladder (one match)" if joined.get("ladder") else "for tournament matches"
        waiting = (f"<div id='joined'>Waiting {e(what)}: {e(', '.join(joined['games']))}. "
                   "<form method='post' action='/play/leave' class='inline'>"
                   f"<input type='hidden' name='csrf' value='{e(csrf)}'><button type='submit'>Leave</button></form></div>")
    named = ""
    if tournaments:
        items = "".join(
            f"<li>{e(name)} <span class='dim'>{e(tid)}</span>: {e(game_id)} "
            f"<form method='post' action='/play/join' class='inline'><input type='hidden' name='csrf' value='{e(csrf)}'>"
            f"<input type='hidden' name='game' value='{e(game_id)}'><input type='hidden' name='mode' value='tournament'>"
            f"<button type='submit'>Be available</button></form></li>" for tid, name, game_id in tournaments)
        named = f"<h2>Tournaments that name you</h2><ul>{items}</ul>"
    body = (
        f"<h1>Play as {e(who.agent_name)}</h1>"
        "<form method='post' action='/play/join' class='card' id='join'>"
        f"<input type='hidden' name='csrf' value='{e(csrf)}'>"
        "<label for='game'>Game</label><select id='game' name='game'>" + "".join(options) + "</select>"
        "<div class='buttons'><button type='submit' name='mode' value='ladder'>Play on the ladder</button>"
        "<button type='submit' name='mode' value='tournament'>Wait for tournament matches</button></div>"
        "<p class='dim'>The ladder pairs you with a connected agent, or a house agent after a short wait. You play "
        "under the same rules as every agent: the clock runs, and when it runs out the match's failure policy "
        "plays for you.</p></form>" + waiting + named +
        "<section id='game-area' aria-live='polite'>"
        "<p id='connection' class='dim'>connecting…</p>"
        "<div id='matches'></div></section>"
        "<template id='match-template'><article class='match'>"
        "<h2 class='title'></h2><p class='players'></p>"
        "<p class='status' role='status'></p><p class='clock' aria-live='off'></p>"
        "<p class='feedback error' role='alert' hidden></p>"
        "<div class='play-area'><div><div class='board-wrap'></div><div class='images'></div>"
        "<div class='legal' role='group' aria-label='legal actions'></div>"
        "<form class='textform' hidden><label class='textlabel'></label><textarea rows='2' cols='40'></textarea>"
        "<button type='submit'>Send</button></form>"
        "<button type='button' class='resign'>Resign</button></div>"
        "<div><details open><summary>Your view</summary><pre class='view'></pre></details>"
        "<h3>Events</h3><ol class='events'></ol><h3 class='chat-title'>Chat</h3><ol class='chat'></ol></div></div>"
        "<p class='result'></p></article></template>"
    )
    return page("Play", body, who=who, csrf=csrf, script="play.js", data={"agent": who.agent_name})
