"""The web front: people watch live matches, step through finished ones, read the leaderboards and play,
in a browser, served by the same process and event loop as the gRPC services (see app.py).

    app.py       the HTTP app: routes, sign-in and scopes, CSRF, limits, WebSockets
    security.py  sign-in sessions over the API keys, CSRF tokens, per-client limits
    seat.py      a person's seat: an AgentSession in the lobby, fed over a WebSocket
    views.py     what pages show: public positions, replays, leaderboards, agents' records
    boards.py    boards drawn from seats' structured views
    pages.py     the HTML
    static/      stylesheet, scripts and icon, all served by the app itself
"""

from .app import WebFront

__all__ = ["WebFront"]
