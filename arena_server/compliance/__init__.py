"""The arena.v1 compliance suite: the protocol's rules checked over the wire against any server address,
so that another implementation of arena.v1 (or a lab's own server) can prove it speaks the protocol.

One module per area (handshake, decisions, resume, spectating, reads, federation, limits), each a list
of checks written against the generated stubs and grpc alone; `runner` runs them and reports.
`arena-server compliance --server ADDR --key KEY` is the command (arena_server/cli/compliance.py)."""

from .context import Settings
from .registry import AREAS, Check, all_checks
from .runner import Report, Result, Unreachable, run
from .wire import Endpoint

__all__ = ["AREAS", "Check", "Endpoint", "Report", "Result", "Settings", "Unreachable", "all_checks", "run"]
