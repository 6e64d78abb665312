"""Who is asking, and how much: sign-in sessions over the server's API keys, CSRF tokens, and limits
per client.

A person signs in by posting an API key once (never in a URL). The server keeps the key in memory
behind a random session token that the browser holds in a session cookie (HttpOnly, SameSite=Strict,
Secure over TLS), and checks the key again on every request, so a revoked key stops working at once.
Scopes are the gRPC ones (auth.Principal.allows): `spectate` reads pages and watches, `play` also
plays as its agent, `admin` does both. Scripts may instead send `Authorization: Bearer <key>`, as
gRPC clients do; browsers never send that header by themselves, so it needs no CSRF check.

CSRF: every state-changing request (sign-in included) must come from the server's own pages: its
Origin header, when sent, must be this server; a signed-in form or request also carries the
session's CSRF token. WebSockets are opened only from the server's own origin.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from .. import auth
from ..limits import RateLimiter

COOKIE = "arena_session"
MAX_SESSIONS = 10_000          # signed-in browsers remembered at once; the oldest are forgotten first
SESSION_IDLE = 12 * 3600.0     # seconds without a request after which a sign-in is forgotten


@dataclass
class WebSession:
    token: str
    key: str
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    last_seen: float = field(default_factory=time.monotonic)


class Sessions:
    """Signed-in browsers: session token -> the API key it signed in with."""

    def __init__(self, store, *, max_sessions: int = MAX_SESSIONS, idle: float = SESSION_IDLE):
        self.store = store
        self.max_sessions = max_sessions
        self.idle = idle
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()

    def sign_in(self, key: str) -> tuple[WebSession, auth.Principal] | None:
        principal = auth.authenticate(self.store, key.strip())
        if principal is None:
            return None
        while len(self._sessions) >= self.max_sessions:
            self._sessions.popitem(last=False)
        session = WebSession(secrets.token_urlsafe(32), key.strip())
        self._sessions[session.token] = session
        return session, principal

    def get(self, token: str | None) -> tuple[WebSession, auth.Principal] | None:
        """The session and the principal of its key, checked now; None when signed out, idle too
        long, or the key was revoked."""
        if not token:
            return None
        session = self._sessions.get(token)
        if session is None:
            return None
        now = time.monotonic()
        if now - session.last_seen > self.idle:
            self._sessions.pop(token, None)
            return None
        principal = auth.authenticate(self.store, session.key)
        if principal is None:
            self._sessions.pop(token, None)
            return None
        session.last_seen = now
        self._sessions.move_to_end(token)
        return session, principal

    def sign_out(self, token: str | None) -> WebSession | None:
        return self._sessions.pop(token, None) if token else None


def same_token(given: str | None, expected: str) -> bool:
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())


class ClientLimits:
    """Per client address: a request rate (token bucket) and a cap on open sockets."""

    def __init__(self, *, rate: float, burst: float, max_sockets: int):
        self.requests = RateLimiter(rate, burst)
        self.max_sockets = max_sockets
        self._open: dict[str, int] = {}

    def retry_after(self, client: str) -> float:
        """0.0 when the request may go on, else the seconds to wait."""
        return self.requests.acquire(client)

    def open_socket(self, client: str) -> bool:
        if self._open.get(client, 0) >= self.max_sockets:
            return False
        self._open[client] = self._open.get(client, 0) + 1
        return True

    def close_socket(self, client: str) -> None:
        left = self._open.get(client, 0) - 1
        if left > 0:
            self._open[client] = left
        else:
            self._open.pop(client, None)
