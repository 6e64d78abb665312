"""structlog configuration: readable console lines by default, JSON lines on request.

Correlation: every line carries the process's `server_id` and `pid` (several server processes may
write to one log store), a call's lines carry its `request_id` and `rpc` method (the caller's
`x-request-id` metadata when it sends one, so a request can be followed across processes; else a new
id), and a match's lines carry its `match_id` (bound by the referee in the match's task).
"""

from __future__ import annotations

import logging
import os
import secrets
import sys

import structlog

REQUEST_ID_METADATA = "x-request-id"
_MAX_REQUEST_ID = 64
_process_fields: dict[str, object] = {"pid": os.getpid()}


def bind_process(**fields: object) -> None:
    """Fields added to every log line of this process (the server id)."""
    _process_fields.update(fields, pid=os.getpid())


def _add_process_fields(logger, method_name, event_dict):
    for key, value in _process_fields.items():
        event_dict.setdefault(key, value)
    return event_dict


def request_fields(handler_call_details) -> dict[str, str]:
    """The log fields of one call: its request id (the caller's x-request-id, cut to 64 characters,
    or a new one) and its method."""
    request_id = ""
    for key, value in handler_call_details.invocation_metadata or ():
        if key == REQUEST_ID_METADATA and isinstance(value, str):
            request_id = value[:_MAX_REQUEST_ID]
            break
    return {"request_id": request_id or "r_" + secrets.token_hex(6), "rpc": handler_call_details.method}


def configure(json: bool = False, level: str = "info") -> None:
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            _add_process_fields,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
