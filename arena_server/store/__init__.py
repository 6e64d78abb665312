"""Persistent state: agents, API keys, tournaments, matches and the append-only match log."""

from .sqlite import MatchRecord, Store

__all__ = ["MatchRecord", "Store"]
