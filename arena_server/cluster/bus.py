"""Messages between server processes over PostgreSQL's LISTEN/NOTIFY.

Each process listens on its own channel ("arena.<server id>") and on the cluster's ("arena.cluster").
A message is a JSON list, [kind, field, ...]; protobuf messages travel base64-encoded (`pack`).

`send` and `broadcast` queue; the queue is flushed once per turn of the event loop. All of a turn's
messages for one channel are joined in one payload, cut into parts that fit a notification
(PostgreSQL takes at most 8,000 bytes), and notified in one statement: one transaction, so they
arrive whole and in order. When the store has a batch of writes open, the statement joins it and
the batch commits: PostgreSQL delivers the messages at that commit, so a message never reports a
write that is not durable yet, at no round trip of its own. Otherwise the bus's own connection
sends it, committing asynchronously (synchronous_commit off): a notification needs no durability,
only the ordering of its commit.

Delivery needs the receiver to be listening when the notification commits: messages to a process
that died are lost, which the takeover of its work (members.py) makes good. A process that loses
either of its bus connections exits (status 75), as it does when the store's connection is lost.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import os
from typing import Any, Callable

import psycopg
import structlog

from .. import metrics
from ..store.postgres import EXIT_STATUS_LOST_COMMIT, redact

log = structlog.get_logger("arena.cluster")

CLUSTER_CHANNEL = "arena.cluster"
PART_SIZE = 7_900        # characters of payload per notification, under PostgreSQL's 8,000 bytes with the header
NOTIFY = "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS t(c, p)"


def channel_of(server_id: str) -> str:
    return f"arena.{server_id}"


def pack(message) -> str:
    """A protobuf message as it travels in a bus message."""
    return base64.b64encode(message.SerializeToString()).decode("ascii")


def unpack(cls, text: str):
    message = cls()
    message.ParseFromString(base64.b64decode(text))
    return message


class Bus:
    """`on_message(sender_server_id, message)` is called on the event loop for every message received,
    broadcasts from this process excepted."""

    def __init__(self, url: str, server_id: str, on_message: Callable[[str, list[Any]], None],
                 commit_with: Callable[[str, tuple], bool] = lambda sql, args: False):
        """`commit_with(sql, args)`: the store's (postgres.py): commits its open batch with the
        statement in it, or says there is none."""
        self.server_id = server_id
        self.on_message = on_message
        self.commit_with = commit_with
        self._queued: dict[str, list[list[Any]]] = {}       # channel -> messages of this turn
        self._flush_scheduled = False
        self._batch = 0
        self._parts: dict[tuple[str, int], list[str]] = {}   # (sender, batch) -> parts received so far
        self.sent = self.received = 0
        self._listener = psycopg.connect(url, autocommit=True, application_name=f"arena-bus {server_id}")
        self._listener.execute(f'LISTEN "{channel_of(server_id)}"')
        self._listener.execute(f'LISTEN "{CLUSTER_CHANNEL}"')
        self._sender = psycopg.connect(url, autocommit=True, application_name=f"arena-bus {server_id}")
        self._sender.execute("SET synchronous_commit = off")
        self._url = redact(url)
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Starts reading on the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._listener.fileno(), self._readable)

    def close(self) -> None:
        if self._loop is not None and not self._listener.closed:
            self._loop.remove_reader(self._listener.fileno())
        self._flush()
        for connection in (self._listener, self._sender):
            connection.close()

    # ---- sending ----------------------------------------------------------------------------------
    def send(self, server_id: str, message: list[Any]) -> None:
        """Queues `message` for the process `server_id`; this process's own are handled on the loop."""
        if server_id == self.server_id:
            asyncio.get_running_loop().call_soon(self.on_message, self.server_id, message, context=contextvars.Context())
            return
        self._queue(channel_of(server_id), message)

    def broadcast(self, message: list[Any]) -> None:
        """Queues `message` for every other process (once per turn: the same message twice in a row
        says nothing more)."""
        queued = self._queued.get(CLUSTER_CHANNEL)
        if not queued or queued[-1] != message:
            self._queue(CLUSTER_CHANNEL, message)

    def _queue(self, channel: str, message: list[Any]) -> None:
        self._queued.setdefault(channel, []).append(message)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            try:
                asyncio.get_running_loop().call_soon(self._flush, context=contextvars.Context())
            except RuntimeError:      # off a loop (shutting down): at once
                self._flush()

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._queued:
            return
        channels, payloads = [], []
        for channel, messages in self._queued.items():
            self._batch += 1
            text = json.dumps(messages, separators=(",", ":"))
            parts = [text[i:i + PART_SIZE] for i in range(0, len(text), PART_SIZE)] or [""]
            for index, part in enumerate(parts):
                channels.append(channel)
                payloads.append(f"{self.server_id} {self._batch} {index} {len(parts)} {part}")
            self.sent += len(messages)
            metrics.CLUSTER_MESSAGES.labels("sent").inc(len(messages))
        self._queued = {}
        if self.commit_with(NOTIFY, (channels, payloads)):
            return
        try:
            self._sender.execute(NOTIFY, (channels, payloads))
        except psycopg.Error as e:
            self._lost(e)

    # ---- receiving --------------------------------------------------------------------------------
    def _readable(self) -> None:
        connection = self._listener.pgconn
        try:
            connection.consume_input()
        except psycopg.Error as e:
            self._lost(e)
            return
        while (notification := connection.notifies()) is not None:
            self._part(notification.extra.decode())

    def _part(self, payload: str) -> None:
        sender, batch, index, count, part = payload.split(" ", 4)
        if sender == self.server_id:
            return                  # this process's own broadcast
        key = (sender, int(batch))
        parts = self._parts.setdefault(key, [])
        parts.append(part)
        if len(parts) < int(count):
            return
        del self._parts[key]
        for message in json.loads("".join(parts)):
            self.received += 1
            try:
                self.on_message(sender, message)
            except Exception:
                log.exception("a cluster message could not be handled", sender=sender, kind=message[0])

    def _lost(self, error: Exception) -> None:
        log.critical("the cluster bus lost its PostgreSQL connection; exiting so that the other processes take "
                     "this one's matches over", database=self._url, error=str(error).strip(),
                     exit_status=EXIT_STATUS_LOST_COMMIT)
        os._exit(EXIT_STATUS_LOST_COMMIT)
