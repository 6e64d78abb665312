"""Several server processes on one PostgreSQL database.

Processes are interchangeable: an agent connects to any of them, and the ladder and tournaments
pair agents wherever they are connected. Each match is refereed by one process, the one that
started it (`matches.referee`); a seat whose agent is connected to another process is held in a
stand-in session that relays over PostgreSQL's LISTEN/NOTIFY (bus.py, relays.py). Seats are
claimed in the transaction that writes their match, with row locks (lobby.py). Each process holds
a lease (members.py); when one dies, another takes its matches and tournaments over from their
logs, and its agents' seats wait for them to connect again, anywhere.

node.py wires it together; docs/operations.md explains the choices to operators.
"""

from .node import ClusterNode

__all__ = ["ClusterNode"]
