"""The HTTP app: routes, sign-in, scopes, CSRF, limits, and the three WebSockets (the feed of matches
starting and ending, a match's public events, a player's seat).

It runs in the server's own event loop (aiohttp), over the objects the gRPC services use: the store
(read on the loop, as the services do), the lobby, the coordinator's spectator feed, the rate limiter.

Routes and the scope each needs (auth.Principal.allows, as over gRPC):
    /signin, /signout, /static/*                      anyone (signing out needs the session's CSRF token)
    /, /matches, /matches/{id}, /matches/{id}/log.jsonl,
    /leaderboards/{game}[/plot.png], /agents/{name}[/history.png],
    /ws/feed, /ws/matches/{id}                        spectate (play and admin include it)
    /play, /play/join, /play/leave, /ws/play          play, with a key that names its agent
A page asked for without a key redirects to /signin; anything else answers 401, and a key without the
scope 403.
"""

from __future__ import annotations

import asyncio
import json
import math
import ssl
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import arena_engines
import structlog
from aiohttp import WSMsgType, web
from arena.v1 import match_pb2

from .. import auth, convert
from ..ratings.report import pairwise_scores
from . import pages, views
from .seat import BrowserPlayers, to_browser
from .security import COOKIE, ClientLimits, Sessions, same_token

log = structlog.get_logger("arena.web")

STATIC = Path(__file__).parent / "static"
MAX_REQUEST_BYTES = 64 * 1024
MAX_SOCKET_MESSAGE = 64 * 1024
# Per client address: requests per second and burst (pages, scripts, plots), and sockets open at once.
REQUEST_RATE, REQUEST_BURST, MAX_SOCKETS = 50.0, 200.0, 16
FEED_INTERVAL = 0.5      # seconds between looks at the set of running matches, for the feed
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


class WebFront:
    """The web front of one ArenaServer: `await start()` (returns the port), `await stop()`."""

    def __init__(self, *, store, lobby, coordinator, limiter, resume_grace: float, host: str, port: int,
                 tls: tuple[str, str] | None = None, arena_service=None, request_rate: float = REQUEST_RATE,
                 request_burst: float = REQUEST_BURST, max_sockets: int = MAX_SOCKETS):
        self.store = store
        self.lobby = lobby
        self.coordinator = coordinator
        self.arena_service = arena_service
        self.host, self.port = host, port
        self.tls = tls
        self.sessions = Sessions(store)
        self.limits = ClientLimits(rate=request_rate, burst=request_burst, max_sockets=max_sockets)
        self.players = BrowserPlayers(lobby, limiter, resume_grace)
        self.leaderboards = views.Leaderboards(store)
        self._sockets: weakref.WeakSet = weakref.WeakSet()
        self._feed: set[asyncio.Queue] = set()
        self._feed_task: asyncio.Task | None = None
        self._runner: web.AppRunner | None = None
        self.app = self._make_app()

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}/"

    async def start(self) -> int:
        """Listens; raises OSError when the address cannot be had."""
        context = None
        if self.tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*self.tls)
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=context, reuse_address=True)
        try:
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            self._runner = None
            raise
        self.port = self._runner.addresses[0][1]
        self._feed_task = asyncio.create_task(self._watch_running(), name="web-feed")
        log.info("web front listening", url=self.url)
        return self.port

    async def stop(self) -> None:
        if self._feed_task is not None:
            self._feed_task.cancel()
            await asyncio.gather(self._feed_task, return_exceptions=True)
        for socket in list(self._sockets):
            await socket.close(code=1001, message=b"the server is shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---- the app ------------------------------------------------------------------------------------
    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_REQUEST_BYTES)
        r = app.router
        r.add_get("/", self.home)
        r.add_get("/signin", self.signin_form)
        r.add_post("/signin", self.signin)
        r.add_post("/signout", self.signout)
        r.add_get("/matches", self.matches)
        r.add_get("/matches/{match_id}", self.match)
        r.add_get("/matches/{match_id}/log.jsonl", self.match_log)
        r.add_get("/leaderboards/{game_id}", self.leaderboard)
        r.add_get("/leaderboards/{game_id}/plot.png", self.leaderboard_plot)
        r.add_get("/agents/{name}", self.agent)
        r.add_get("/agents/{name}/history.png", self.agent_history)
        r.add_get("/play", self.play)
        r.add_post("/play/join", self.play_join)
        r.add_post("/play/leave", self.play_leave)
        r.add_get("/ws/feed", self.ws_feed)
        r.add_get("/ws/matches/{match_id}", self.ws_match)
        r.add_get("/ws/play", self.ws_play)
        r.add_static("/static", STATIC, show_index=False, follow_symlinks=False)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        wait = self.limits.retry_after(request.remote or "?")
        if wait:
            return web.Response(status=429, text=f"too many requests: retry after {wait:.3f} s\n",
                                headers={"Retry-After": str(math.ceil(wait))})
        if request.method not in ("GET", "HEAD", "OPTIONS") and not self._same_origin(request, missing_ok=True):
            return self._refuse(request, 403, "Forbidden", "this request came from another site")
        try:
            response = await handler(request)
        except web.HTTPException as refused:
            response = refused
        if not response.prepared:          # a WebSocket has sent its headers already
            response.headers.setdefault("Content-Security-Policy", CSP)
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("Referrer-Policy", "same-origin")
            response.headers.setdefault("X-Frame-Options", "DENY")
            if not request.path.startswith("/static/"):
                response.headers.setdefault("Cache-Control", "no-store")
        return response

    def _same_origin(self, request: web.Request, *, missing_ok: bool) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:
            return missing_ok
        parts = urlsplit(origin)
        return parts.scheme == request.scheme and parts.netloc == request.host

    # ---- who is asking -------------------------------------------------------------------------------
    def _who(self, request: web.Request):
        """(web session or None, principal or None): from `Authorization: Bearer`, else the cookie."""
        header = request.headers.get("Authorization", "")
        if header[:7].lower() == "bearer ":
            return None, auth.authenticate(self.store, header[7:].strip())
        found = self.sessions.get(request.cookies.get(COOKIE))
        return found if found else (None, None)

    def _require(self, request: web.Request, scope: str, *, page: bool = True):
        session, principal = self._who(request)
        if principal is None:
            if "Authorization" in request.headers:
                raise web.HTTPUnauthorized(text="unknown or revoked API key\n")
            if page and request.method == "GET" and not request.path.startswith("/ws/"):
                raise web.HTTPSeeOther(f"/signin?next={quote(request.path_qs, safe='')}")
            raise web.HTTPUnauthorized(text="sign in with an API key, or send 'Authorization: Bearer <key>'\n")
        if not principal.allows(scope):
            raise self._refuse(request, 403, "Not allowed",
                               f"this API key lacks the '{scope}' scope (it has: {', '.join(sorted(principal.scopes))})",
                               who=principal, session=session, page=page)
        if scope == "play" and not principal.agent_name:
            raise self._refuse(request, 403, "Not allowed", "this key names no agent: play with a key issued for one "
                               "(arena-server keys create --agent NAME)", who=principal, session=session, page=page)
        return session, principal

    def _refuse(self, request, status: int, title: str, text: str, *, who=None, session=None,
                page: bool = True) -> web.HTTPException:
        """The refusal to raise (or return): an HTML page for a browser's page request, else plain text."""
        kind = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden}[status]
        if page and "text/html" in request.headers.get("Accept", ""):
            body = pages.error_page(status, title, text, who=who, csrf=session.csrf if session else "")
            return kind(text=body, content_type="text/html")
        return kind(text=text + "\n")

    async def _check_csrf(self, request: web.Request, session) -> dict:
        """The posted form, once its CSRF token is the session's (bearer-key requests need none)."""
        form = await request.post()
        if session is not None:
            given = form.get("csrf") or request.headers.get("X-CSRF-Token")
            if not isinstance(given, str) or not same_token(given, session.csrf):
                raise self._refuse(request, 403, "Forbidden", "the form is stale or came from another site: "
                                   "reload the page and try again", session=session)
        return form

    def _html(self, text: str, status: int = 200) -> web.Response:
        return web.Response(text=text, content_type="text/html", status=status)

    # ---- sign-in -----------------------------------------------------------------------------------------
    async def signin_form(self, request):
        return self._html(pages.signin(_safe_next(request.query.get("next", "/"))))

    async def signin(self, request):
        form = await request.post()
        key, next_path = form.get("key"), _safe_next(form.get("next", "/"))
        found = self.sessions.sign_in(key) if isinstance(key, str) and len(key) < 200 else None
        if found is None:
            return self._html(pages.signin(next_path, "unknown or revoked API key"), status=401)
        session, principal = found
        response = web.HTTPSeeOther(next_path)
        response.set_cookie(COOKIE, session.token, httponly=True, samesite="Strict", secure=self.tls is not None,
                            path="/")
        log.info("browser signed in", key_id=principal.key_id, agent=principal.agent_name)
        return response

    async def signout(self, request):
        session, _ = self._who(request)
        if session is not None:
            await self._check_csrf(request, session)
            self.sessions.sign_out(session.token)
            self.players.forget(session.token)
        response = web.HTTPSeeOther("/signin")
        response.del_cookie(COOKIE, path="/")
        return response

    # ---- pages -----------------------------------------------------------------------------------------
    async def home(self, request):
        session, who = self._require(request, "spectate")
        live = self.store.list_matches(status="running", limit=50)
        latest = self.store.list_matches(status="finished", limit=15)
        by_game: dict[str, list] = {}
        for m in self.store.finished_matches():
            by_game.setdefault(m.game_id, []).append(m)
        boards = [(g, await self.leaderboards.get(g, "bradley_terry", ms)) for g, ms in sorted(by_game.items())]
        return self._html(pages.home(who=who, csrf=session.csrf if session else "", live=live, latest=latest,
                                     boards=boards))

    async def matches(self, request):
        session, who = self._require(request, "spectate")
        q = request.query
        game, agent, status = q.get("game", ""), q.get("agent", ""), q.get("status", "")
        if status not in ("", "running", "finished", "void", "pending"):
            status = ""
        found = self.store.list_matches(game_id=game[:100], agent_name=agent[:100], status=status, limit=200)
        return self._html(pages.matches_page(who=who, csrf=session.csrf if session else "", matches=found, game=game,
                                             agent=agent, status=status))

    def _record(self, request):
        record = self.store.get_match(request.match_info["match_id"])
        if record is None:
            raise web.HTTPNotFound(text=f"no match {request.match_info['match_id'][:100]!r}\n")
        return record

    async def match(self, request):
        session, who = self._require(request, "spectate")
        record = self._record(request)
        info = views.public_info(record)
        if views.ended(record):
            data = await asyncio.to_thread(views.replay, record, self.store.read_log(record.match_id))
            return self._html(pages.match_page(who=who, csrf=session.csrf if session else "", info=info, record=record,
                                               live_data=None, replay_data=data))
        live = {"match_id": record.match_id, "seats": record.agent_names, "game_id": record.game_id}
        return self._html(pages.match_page(who=who, csrf=session.csrf if session else "", info=info, record=record,
                                           live_data=live, replay_data=None))

    async def match_log(self, request):
        """The match as `arena-server matches export` writes it: the match, then one line per log
        entry (public entries only while it runs)."""
        self._require(request, "spectate", page=False)
        record = self._record(request)
        lines = [json.dumps({"match": views.public_info(record)}, sort_keys=True)]
        lines += [json.dumps({"seq": entry.seq, "kind": entry.kind, "time": entry.time, "data": entry.data},
                             sort_keys=True)
                  for entry in self.store.read_log(record.match_id, public_only=not views.ended(record))]
        return web.Response(text="\n".join(lines) + "\n", content_type="application/x-ndjson",
                            headers={"Content-Disposition": f'attachment; filename="{record.match_id}.jsonl"'})

    def _game(self, request) -> str:
        game_id = request.match_info["game_id"]
        if game_id not in arena_engines.game_ids():
            raise web.HTTPNotFound(text=f"no game {game_id[:100]!r}\n")
        return game_id

    def _method(self, request) -> str:
        method = request.query.get("method", "bradley_terry")
        if method not in views.METHODS:
            raise web.HTTPBadRequest(text=f"unknown method (known: {', '.join(views.METHODS)})\n")
        return method

    async def leaderboard(self, request):
        session, who = self._require(request, "spectate")
        game_id, method = self._game(request), self._method(request)
        matches = list(self.store.finished_matches(game_id=game_id))
        board = await self.leaderboards.get(game_id, method, matches)
        matrix = await asyncio.to_thread(pairwise_scores, matches)
        return self._html(pages.leaderboard_page(who=who, csrf=session.csrf if session else "", game_id=game_id,
                                                 method=method, board=board, matrix=matrix))

    async def leaderboard_plot(self, request):
        self._require(request, "spectate", page=False)
        game_id, method = self._game(request), self._method(request)
        board = await self.leaderboards.get(game_id, method)
        png = await asyncio.to_thread(views.plot_png, board.rows, f"{game_id}: {views.METHODS[method]}",
                                      board.has_interval)
        return web.Response(body=png, content_type="image/png")

    async def _agent_record(self, name: str) -> dict:
        games = sorted({m.game_id for m in self.store.list_matches(agent_name=name, status="finished", limit=100_000)})
        by_game = {g: list(self.store.finished_matches(game_id=g)) for g in games}
        return await asyncio.to_thread(views.agent_record, name, by_game)

    async def agent(self, request):
        session, who = self._require(request, "spectate")
        name = request.match_info["name"]
        row = self.store.get_agent(name)
        if row is None:
            raise web.HTTPNotFound(text=f"no agent {name[:100]!r}\n")
        record = await self._agent_record(name)
        matches = self.store.list_matches(agent_name=name, limit=50)
        return self._html(pages.agent_page(who=who, csrf=session.csrf if session else "", name=name, row=row,
                                           connected=name in self.lobby.connected_agents(), record=record,
                                           matches=matches))

    async def agent_history(self, request):
        self._require(request, "spectate", page=False)
        name = request.match_info["name"]
        if self.store.get_agent(name) is None:
            raise web.HTTPNotFound(text=f"no agent {name[:100]!r}\n")
        record = await self._agent_record(name)
        png = await asyncio.to_thread(views.history_png, name, record["history"])
        return web.Response(body=png, content_type="image/png")

    # ---- playing ---------------------------------------------------------------------------------------------
    def _player_token(self, session, principal) -> str:
        return session.token if session is not None else f"key:{principal.key_id}"

    async def play(self, request):
        session, who = self._require(request, "play")
        player = self.players.existing(self._player_token(session, who))
        joined = {}
        if player is not None and player.session.games:
            joined = {"games": sorted(player.session.games), "ladder": player.session.join_ladder}
        tournaments = []
        for row in self.store.list_tournaments(status="running"):
            config = json.loads(row["config"])
            if who.agent_name in config.get("agents", []):
                tournaments.append((row["tournament_id"], config.get("name", ""), config.get("game_id", "")))
        game = request.query.get("game", "")
        return self._html(pages.play_page(who=who, csrf=session.csrf if session else "", game=game, joined=joined,
                                          tournaments=tournaments))

    async def play_join(self, request):
        session, who = self._require(request, "play", page=False)
        form = await self._check_csrf(request, session)
        game_id, _, preset = str(form.get("game", "")).partition("|")
        mode = form.get("mode", "ladder")
        try:
            spec = arena_engines.game_spec(game_id)
        except KeyError:
            raise web.HTTPBadRequest(text=f"no game {game_id[:100]!r}\n") from None
        if preset and preset not in [p.name for p in spec.presets]:
            raise web.HTTPBadRequest(text=f"game {game_id} has no preset {preset[:100]!r}\n")
        if mode not in ("ladder", "tournament"):
            raise web.HTTPBadRequest(text="mode must be ladder or tournament\n")
        player = self.players.player(self._player_token(session, who), who.agent_name, self._key_of(request, session))
        self.players.join(player, game_id, preset or None, ladder=mode == "ladder")
        log.info("browser player joined", agent=who.agent_name, game=game_id, preset=preset, mode=mode)
        raise web.HTTPSeeOther("/play?" + urlencode({"game": form.get("game", "")}))

    async def play_leave(self, request):
        session, who = self._require(request, "play", page=False)
        await self._check_csrf(request, session)
        player = self.players.existing(self._player_token(session, who))
        if player is not None:
            self.players.leave(player)
        raise web.HTTPSeeOther("/play")

    def _key_of(self, request, session) -> str:
        if session is not None:
            return session.key
        return request.headers.get("Authorization", "")[7:].strip()

    # ---- sockets -------------------------------------------------------------------------------------------
    async def _open_socket(self, request) -> tuple[web.WebSocketResponse, str]:
        if not self._same_origin(request, missing_ok=True):
            raise web.HTTPForbidden(text="WebSockets are opened from this server's own pages only\n")
        client = request.remote or "?"
        if not self.limits.open_socket(client):
            raise web.HTTPTooManyRequests(text=f"at most {self.limits.max_sockets} open sockets per client\n")
        socket = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_SOCKET_MESSAGE)
        try:
            await socket.prepare(request)
        except BaseException:
            self.limits.close_socket(client)
            raise
        self._sockets.add(socket)
        return socket, client

    async def ws_feed(self, request):
        """{"type": "changed"} whenever matches start or end: pages then refresh what they show."""
        self._require(request, "spectate", page=False)
        socket, client = await self._open_socket(request)
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        self._feed.add(queue)
        reader = asyncio.create_task(_drain(socket))
        try:
            while not socket.closed:
                waiter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({waiter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if waiter not in done:
                    waiter.cancel()
                    break
                await socket.send_json({"type": "changed"})
        except (ConnectionError, RuntimeError):
            pass
        finally:
            reader.cancel()
            self._feed.discard(queue)
            self.limits.close_socket(client)
            await socket.close()
        return socket

    async def _watch_running(self) -> None:
        seen = frozenset(self.coordinator.running)
        while True:
            await asyncio.sleep(FEED_INTERVAL)
            now = frozenset(self.coordinator.running)
            if now != seen:
                seen = now
                for queue in list(self._feed):
                    if queue.empty():
                        queue.put_nowait(True)

    async def ws_match(self, request):
        """A match's public events as SpectatorService.Watch sends them (stored, then live), with the
        position after each move for games whose moves are all public; then its end."""
        self._require(request, "spectate", page=False)
        record = self._record(request)
        socket, client = await self._open_socket(request)
        match_id = record.match_id
        queue = self.coordinator.subscribe(match_id)     # before reading the stored events: nothing between
        reader = asyncio.create_task(_drain(socket))
        try:
            await socket.send_json({"type": "match", "info": views.public_info(record)})
            next_sequence = 0
            for entry in self.store.read_log(match_id, public_only=True):
                if entry.kind == "event" and entry.data["sequence"] >= next_sequence:
                    await socket.send_json({"type": "event", **views.event_dict(convert.event_from_log(match_id, entry))})
                    next_sequence = entry.data["sequence"] + 1
            await self._send_position(socket, match_id)
            while queue is not None:
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    return socket
                event = getter.result()
                if event is None:
                    break
                if event.sequence >= next_sequence:
                    await socket.send_json({"type": "event", **views.event_dict(event)})
                    next_sequence = event.sequence + 1
                    if event.kind in (match_pb2.EVENT_KIND_MOVE, match_pb2.EVENT_KIND_ROUND_RESOLVED):
                        await self._send_position(socket, match_id)
            record = self.store.get_match(match_id)
            if views.ended(record):
                result = record.result or {}
                await socket.send_json({"type": "ended", "status": record.status, "summary": result.get("summary", ""),
                                        "returns": result.get("returns", []), "reason": result.get("reason", "")})
        except (ConnectionError, RuntimeError):
            pass
        finally:
            reader.cancel()
            if queue is not None:
                self.coordinator.unsubscribe(match_id, queue)
            self.limits.close_socket(client)
            await socket.close()
        return socket

    async def _send_position(self, socket, match_id: str) -> None:
        record = self.store.get_match(match_id)
        if record is None or views.ended(record) or not views.live_position_public(record.game_id):
            return
        shown = views.position(record, self.store.read_log(match_id, public_only=True))
        if shown is not None:
            await socket.send_json({"type": "position", **shown})

    async def _pump(self, socket: web.WebSocketResponse, outbox: asyncio.Queue, session) -> None:
        """The session's messages to the browser; a match's end comes with the seat's final view."""
        try:
            while True:
                message = await outbox.get()
                shown = to_browser(message, session)
                if shown is None:
                    continue
                if shown["type"] == "match_ended":
                    record = self.store.get_match(shown["match_id"])
                    if record is not None and views.ended(record):
                        shown["final"] = views.final_view(record, self.store.read_log(record.match_id), shown["seat"])
                await socket.send_json(shown)
        except (ConnectionError, RuntimeError):
            await socket.close()

    async def ws_play(self, request):
        """The signed-in player's seat: the session's messages out as JSON, decisions and resignations in."""
        session, who = self._require(request, "play", page=False)
        socket, client = await self._open_socket(request)
        key = self._key_of(request, session)
        player = self.players.player(self._player_token(session, who), who.agent_name, key)
        epoch, outbox = self.players.attach(player, socket)
        pump = asyncio.create_task(self._pump(socket, outbox, player.session))
        try:
            await socket.send_json({"type": "welcome", "agent": who.agent_name, "games": sorted(player.session.games),
                                    "ladder": player.session.join_ladder})
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                if auth.authenticate(self.store, key) is None:
                    await socket.close(code=4001, message=b"the API key was revoked")
                    break
                try:
                    data = json.loads(message.data)
                except ValueError:
                    data = None
                reply = self.players.receive(player, data)
                if reply is not None:
                    await socket.send_json(reply)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            pump.cancel()
            self.players.detach(player, epoch, socket)
            self.limits.close_socket(client)
            await socket.close()
        return socket


async def _drain(socket: web.WebSocketResponse) -> None:
    """Reads (and ignores) what a watching browser sends, so that its close is seen."""
    async for _ in socket:
        pass


def _safe_next(path: Any) -> str:
    """A path on this site to go to after signing in (never another site)."""
    if not isinstance(path, str) or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path[:500]
