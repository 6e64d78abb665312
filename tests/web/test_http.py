"""The web front over plain HTTP and WebSockets: every page and endpoint refuses what its scope does
not allow, CSRF and cross-site sockets are refused, a revoked key stops working at once, sockets per
client are capped, and a spectator's socket of a running Kuhn poker match never carries a private card
(nor the seed) before the match ends."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time

import aiohttp
import pytest
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

from arena_server.referee.replay import rebuild_state

from ..e2e.helpers import create_tournament, wait_connected, wait_tournament
from .conftest import WebServer, run_agents_in_background

pytestmark = pytest.mark.timeout(180)

PAGES = ["/", "/matches", "/matches/{match}", "/leaderboards/tic_tac_toe", "/agents/random"]
READ_ENDPOINTS = ["/matches/{match}/log.jsonl", "/leaderboards/tic_tac_toe/plot.png", "/agents/random/history.png"]
READ_SOCKETS = ["/ws/feed", "/ws/matches/{match}"]


@pytest.fixture(scope="module")
def keys(web: WebServer) -> dict[str, str]:
    return {"play": web.server.create_key("http-player"), "spectate": web.server.create_key("http-watcher", "spectate"),
            "admin": web.server.admin_key}


@pytest.fixture(scope="module")
def finished_match(web: WebServer) -> str:
    """A finished match between two house agents."""
    tournament = create_tournament(web.server, "tic_tac_toe", ["random", "mcts"], per_decision=5)
    assert wait_tournament(web.server, tournament, 60).status == apb.TOURNAMENT_STATUS_FINISHED
    return web.server.arena_stub().ListMatches(apb.ListMatchesRequest(tournament_id=tournament),
                                               metadata=web.server.metadata()).matches[0].match_id


def run(coroutine):
    return asyncio.run(coroutine)


async def get(web: WebServer, path: str, key: str | None = None, **headers) -> tuple[int, str, dict]:
    if key:
        headers["Authorization"] = f"Bearer {key}"
    async with aiohttp.ClientSession() as http:
        async with http.get(web.page(path), headers=headers, allow_redirects=False) as response:
            return response.status, await response.text(errors="replace"), dict(response.headers)


async def post(web: WebServer, path: str, data: dict, *, key: str | None = None, session=None, **headers):
    if key:
        headers["Authorization"] = f"Bearer {key}"
    async with (session or aiohttp.ClientSession()) as http:
        async with http.post(web.page(path), data=data, headers=headers, allow_redirects=False) as response:
            return response.status, await response.text(), dict(response.headers)


async def socket_status(web: WebServer, path: str, key: str | None = None, **headers) -> int:
    """101 when the socket opens; else the status the upgrade was refused with."""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(web.page(path), headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status


def test_every_page_and_endpoint_refuses_what_its_scope_does_not_allow(web, keys, finished_match):
    paths = {p.format(match=finished_match) for p in PAGES + READ_ENDPOINTS}
    for path in sorted(paths):
        status, _, headers = run(get(web, path))
        if path in {p.format(match=finished_match) for p in PAGES}:
            assert status == 303 and headers["Location"].startswith("/signin?next="), (path, status)
        else:
            assert status == 401, (path, status)
        assert run(get(web, path, "ak_00000000_not-a-key"))[0] == 401, path
        for scope in ("spectate", "play", "admin"):
            assert run(get(web, path, keys[scope]))[0] == 200, (path, scope)

    # Playing needs the play scope and a key that names its agent.
    assert run(get(web, "/play"))[0] == 303
    assert run(get(web, "/play", keys["spectate"]))[0] == 403
    assert run(get(web, "/play", keys["admin"]))[0] == 403           # an admin key names no agent
    status, body, _ = run(get(web, "/play", keys["play"]))
    assert status == 200 and "Play as http-player" in body
    for key, expected in ((None, 401), (keys["spectate"], 403), (keys["admin"], 403), (keys["play"], 303)):
        assert run(post(web, "/play/join", {"game": "tic_tac_toe", "mode": "tournament"}, key=key))[0] == expected, key
        assert run(post(web, "/play/leave", {}, key=key))[0] == expected, key

    for path in READ_SOCKETS:
        path = path.format(match=finished_match)
        assert run(socket_status(web, path)) == 401, path
        assert run(socket_status(web, path, keys["spectate"])) == 101, path
    assert run(socket_status(web, "/ws/play")) == 401
    assert run(socket_status(web, "/ws/play", keys["spectate"])) == 403
    assert run(socket_status(web, "/ws/play", keys["play"])) == 101

    # Anyone may sign in and load the scripts; nothing else is served without a key.
    assert run(get(web, "/signin"))[0] == 200
    status, script, headers = run(get(web, "/static/arena.js"))
    assert status == 200 and "drawBoard" in script
    assert run(get(web, "/static/../web/app.py"))[0] in (403, 404)


def test_pages_send_a_strict_content_security_policy_and_no_inline_script(web, keys, finished_match):
    status, body, headers = run(get(web, f"/matches/{finished_match}", keys["spectate"]))
    assert status == 200
    assert "script-src 'self'" in headers["Content-Security-Policy"] and "frame-ancestors 'none'" in headers[
        "Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", body, re.DOTALL)
    assert scripts and all("src=" in attrs or "application/json" in attrs for attrs, _ in scripts)
    assert not any("</" in text for _, text in scripts)      # no agent's text can close the data element


async def signed_in(web: WebServer, key: str) -> tuple[aiohttp.ClientSession, str]:
    """A cookie session signed in through the sign-in form, and its CSRF token."""
    http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))    # unsafe: cookies of an IP address
    async with http.post(web.page("/signin"), data={"key": key, "next": "/play"}, allow_redirects=False,
                         headers={"Origin": web.url.rstrip("/")}) as response:
        assert response.status == 303, await response.text()
    async with http.get(web.page("/play"), allow_redirects=False) as response:
        assert response.status == 200
        csrf = re.search(r"<meta name='csrf' content='([^']+)'>", await response.text()).group(1)
    return http, csrf


def test_forms_need_the_sessions_csrf_token_and_this_sites_origin(web, keys):
    async def scenario():
        http, csrf = await signed_in(web, keys["play"])
        origin = web.url.rstrip("/")
        async with http:
            join = {"game": "tic_tac_toe", "mode": "tournament"}
            without = await post(web, "/play/join", join, session=_kept(http), Origin=origin)
            wrong = await post(web, "/play/join", {**join, "csrf": "x" * len(csrf)}, session=_kept(http), Origin=origin)
            elsewhere = await post(web, "/play/join", {**join, "csrf": csrf}, session=_kept(http),
                                   Origin="http://evil.example")
            right = await post(web, "/play/join", {**join, "csrf": csrf}, session=_kept(http), Origin=origin)
            leave = await post(web, "/play/leave", {"csrf": csrf}, session=_kept(http), Origin=origin)
            signout_forged = await post(web, "/signout", {}, session=_kept(http), Origin=origin)
            async with http.get(web.page("/play"), allow_redirects=False) as still:
                still_in = still.status
            return [r[0] for r in (without, wrong, elsewhere, right, leave, signout_forged)], still_in

    statuses, still_in = run(scenario())
    assert statuses == [403, 403, 403, 303, 303, 403]
    assert still_in == 200            # the forged sign-out changed nothing


class _kept:
    """An aiohttp session passed to `post` without being closed by it."""

    def __init__(self, http):
        self.http = http

    async def __aenter__(self):
        return self.http

    async def __aexit__(self, *exc):
        return False


def test_a_wrong_key_is_refused_at_sign_in_and_a_revoked_key_stops_working_at_once(web):
    status, body, _ = run(post(web, "/signin", {"key": "ak_deadbeef_nope", "next": "/"}))
    assert status == 401 and "unknown or revoked" in body
    key = web.server.create_key("soon-revoked")

    async def scenario():
        http, _ = await signed_in(web, key)
        async with http:
            async with http.get(web.page("/matches"), allow_redirects=False) as before:
                first = before.status
            key_id = key.split("_")[1]
            subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "revoke", "--db", str(web.server.db),
                            key_id], check=True, capture_output=True)
            async with http.get(web.page("/matches"), allow_redirects=False) as after:
                return first, after.status, after.headers.get("Location", "")

    first, then, location = run(scenario())
    assert first == 200 and then == 303 and location.startswith("/signin")


def test_sockets_from_another_site_are_refused_and_sockets_per_client_are_capped(web, keys):
    assert run(socket_status(web, "/ws/feed", keys["spectate"], Origin="http://evil.example")) == 403
    assert run(socket_status(web, "/ws/feed", keys["spectate"], Origin=web.url.rstrip("/"))) == 101

    async def scenario():
        headers = {"Authorization": f"Bearer {keys['spectate']}"}
        async with aiohttp.ClientSession() as http:
            opened = []
            try:
                while len(opened) < 40:
                    try:
                        opened.append(await http.ws_connect(web.page("/ws/feed"), headers=headers))
                    except aiohttp.WSServerHandshakeError as refused:
                        refused_status = refused.status
                        break
                else:
                    refused_status = None
                count = len(opened)
                await opened.pop().close()
                await asyncio.sleep(0.2)
                again = await http.ws_connect(web.page("/ws/feed"), headers=headers)
                opened.append(again)
                return count, refused_status
            finally:
                for ws in opened:
                    await ws.close()

    count, refused_status = run(scenario())
    assert refused_status == 429 and count == 16


def test_a_spectator_socket_of_a_running_kuhn_poker_match_never_carries_a_private_card(web, keys):
    threads = run_agents_in_background(web, ["leak-a", "leak-b"], "kuhn_poker", delay=0.6, matches=4)
    wait_connected(web.server, "leak-a", "leak-b")
    tournament = create_tournament(web.server, "kuhn_poker", ["leak-a", "leak-b"], games_per_pairing=2, per_decision=10,
                                   seed=918_273_645_546)      # long enough to be told apart in a text
    stub = web.server.arena_stub()

    async def watch(match_id: str) -> list[tuple[str, str]]:
        """Every message of the match's spectator socket, with what the pages showed mid-match."""
        got = []
        headers = {"Authorization": f"Bearer {keys['spectate']}"}
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(web.page(f"/ws/matches/{match_id}"), headers=headers) as ws:
                async for message in ws:
                    got.append(("socket", message.data))
                    kind = json.loads(message.data)["type"]
                    if kind == "event" and len(got) == 4:        # mid-match: the page and the log too
                        for path in (f"/matches/{match_id}", f"/matches/{match_id}/log.jsonl"):
                            async with http.get(web.page(path), headers=headers) as page:
                                got.append((path, await page.text()))
                    if kind == "ended":
                        break
        return got

    watched = {}
    seen = set()
    while True:
        status = stub.GetTournament(apb.GetTournamentRequest(tournament_id=tournament),
                                    metadata=web.server.metadata()).tournament.status
        matches = stub.ListMatches(apb.ListMatchesRequest(tournament_id=tournament), metadata=web.server.metadata()).matches
        for m in matches:
            if m.match_id not in seen and m.status == match_pb2.MATCH_STATUS_RUNNING:
                seen.add(m.match_id)
                watched[m.match_id] = run(watch(m.match_id))
        if status != apb.TOURNAMENT_STATUS_RUNNING:
            break
        time.sleep(0.02)
    assert wait_tournament(web.server, tournament, 60).status == apb.TOURNAMENT_STATUS_FINISHED
    for thread in threads:
        thread.join(10)
    assert len(watched) >= 2, "too few matches were watched while running"

    store = web.server.store()
    pages_mid_match = 0
    for match_id, messages in watched.items():
        record, state = rebuild_state(store, match_id)
        cards = [state.observation_dict(seat)["card"] for seat in range(2)]
        kinds = [json.loads(text)["type"] for where, text in messages if where == "socket"]
        assert kinds[0] == "match" and kinds[-1] == "ended" and "position" not in kinds
        # Pages read while the match ran (one read just after it ended would rightly show everything).
        pages_read = [(where, text) for where, text in messages if where != "socket" and _running(text)]
        pages_mid_match += len(pages_read)
        before_end = pages_read + [(where, text) for where, text in messages
                                   if where == "socket" and json.loads(text)["type"] != "ended"]
        for where, text in before_end:
            for card in cards:
                assert f"Your card: {card}" not in text and f'"card": "{card}"' not in text, (where, text[:300])
            assert str(record.seed) not in text, (where, "the seed")
            if where == "socket":
                assert "seed" not in _keys(json.loads(text)), text
            if where.endswith(".jsonl"):
                logged = [json.loads(line) for line in text.splitlines()[1:]]
                assert logged and {entry["kind"] for entry in logged} <= {"start", "event", "penalty"}
        # After the end, the replay shows every hand.
        status, page, _ = run(get(web, f"/matches/{match_id}", keys["spectate"]))
        assert status == 200 and all(f"Your card: {card}" in page for card in cards)
    assert pages_mid_match >= 2, "no page was read while its match ran"


def _keys(value) -> set[str]:
    """Every key of a JSON value, however deep."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_the_play_socket_keeps_the_agent_protocol_stale_ids_refusals_retries_and_resuming(web):
    """A browser seat is an ordinary agent: a stale decision id and a malformed message are answered
    in-band, an illegal action is re-asked with feedback (the failure policy's retries), a reload
    resumes the session with a snapshot and the pending request, and the match is logged and rated."""
    key = web.server.create_key("socket-player")
    auth = {"Authorization": f"Bearer {key}"}

    async def next_of(ws, kind: str) -> dict:
        while True:
            message = await ws.receive_json(timeout=30)
            if message["type"] == kind:
                return message

    async def scenario():
        async with aiohttp.ClientSession() as http:
            async with http.post(web.page("/play/join"), data={"game": "tic_tac_toe", "mode": "ladder"}, headers=auth,
                                 allow_redirects=False) as joined:
                assert joined.status == 303
            ws = await http.ws_connect(web.page("/ws/play"), headers=auth)
            welcome = await next_of(ws, "welcome")
            assert welcome["games"] == ["tic_tac_toe"] and welcome["ladder"]
            started = await next_of(ws, "match_started")
            request = await next_of(ws, "decision")
            match_id = started["match_id"]
            assert request["match_id"] == match_id and request["board"]["moves"] and request["seconds_left"] > 0

            await ws.send_json({"type": "decision", "match_id": match_id, "decision_id": request["decision_id"] + 99,
                                "action_id": request["legal"][0]["id"]})
            stale = await next_of(ws, "error")
            await ws.send_str("{not json")
            malformed = await next_of(ws, "error")
            taken = [cell for row in request["board"]["cells"] for cell in row if cell["t"]]
            occupied = 9 - len(request["legal"]) == len(taken)
            illegal = next(a for a in range(100) if a not in {m["id"] for m in request["legal"]})
            await ws.send_json({"type": "decision", "match_id": match_id, "decision_id": request["decision_id"],
                                "action_id": illegal})
            refused = await next_of(ws, "error")
            retry = await next_of(ws, "decision")

            # A reload: the socket closes, a new one resumes the seat with the request still pending.
            await ws.close()
            ws = await http.ws_connect(web.page("/ws/play"), headers=auth)
            again = await next_of(ws, "match_started")
            pending = await next_of(ws, "decision")
            assert again["match_id"] == match_id and pending["decision_id"] == retry["decision_id"]
            assert pending["seconds_left"] <= retry["seconds_left"]

            request = pending
            while True:
                await ws.send_json({"type": "decision", "match_id": match_id, "decision_id": request["decision_id"],
                                    "action_id": request["legal"][0]["id"]})
                message = await ws.receive_json(timeout=30)
                while message["type"] not in ("decision", "match_ended"):
                    message = await ws.receive_json(timeout=30)
                if message["type"] == "match_ended":
                    break
                request = message
            await ws.close()
            return stale, malformed, occupied, refused, retry, message

    stale, malformed, occupied, refused, retry, ended = run(scenario())
    assert stale["code"] == "STALE_DECISION"
    assert malformed["code"] == "MALFORMED_MESSAGE"
    assert occupied
    assert refused["code"] == "ILLEGAL_ACTION" and "not among the legal actions" in refused["message"]
    assert retry["attempt"] == 1 and "retr" in retry["feedback"]
    assert ended["final"]["board"] and ended["reason"] in ("normal",)

    store = web.server.store()
    record = store.get_match(ended["match_id"])
    seat = record.agent_names.index("socket-player")
    assert record.status == "finished" and record.result["seat_stats"][seat]["illegal_actions"] == 1
    # One ladder match per request: the seat left the ladder when the match ended.
    time.sleep(1.0)
    assert len(store.list_matches(agent_name="socket-player")) == 1


def _running(text: str) -> bool:
    """Whether a match page or log was read while its match ran (as the page or the log says)."""
    if text.startswith("{"):
        return json.loads(text.splitlines()[0])["match"]["status"] == "running"
    return "<span id='status'>running</span>" in text
