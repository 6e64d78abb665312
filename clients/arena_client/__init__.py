"""Python SDK for Arena agents: subclass Agent, implement decide, run it with Session or run_agent.

Depends only on grpcio, protobuf and the generated arena.v1 stubs, so an agent never needs the
server's dependencies.
"""

from .agent import (Agent, Choice, DecisionView, ErrorView, EventView, GameView, LegalAction, MatchView, ProbeView,
                    PublicMove, ResultView, TextActionSpec, WelcomeView)
from .agents import RandomAgent
from .session import Session, SessionError, run_agent

__all__ = [
    "Agent", "Choice", "DecisionView", "ErrorView", "EventView", "GameView", "LegalAction", "MatchView", "ProbeView",
    "PublicMove", "RandomAgent", "ResultView", "Session", "SessionError", "TextActionSpec", "WelcomeView",
    "run_agent",
]
