"""What a check is: an id, the area it belongs to, the part of the proto it tests and the rule it holds
the server to, and a coroutine that passes (returns a one-line reason), fails (raises Fail) or skips
(raises Skip: for what the operator did not give, or what the server does not offer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import Context

# The order the runner goes through them: the rate-limit checks drain the key's bucket, so limits last.
AREAS = ("handshake", "decisions", "resume", "spectating", "reads", "federation", "limits")


class Fail(Exception):
    """The server broke the rule; the message says what it did instead, in one line."""


class Skip(Exception):
    """The check could not run: the message says what is missing (an admin key, a game, a service)."""


@dataclass(frozen=True)
class Check:
    id: str            # "area.name"
    section: str       # the proto service, RPC or message, and where the rule is written
    rule: str          # the rule, in one line: "Hello with an unknown protocol major -> FAILED_PRECONDITION"
    run: Callable[["Context"], Awaitable[str]]
    background: bool = False    # slow and independent of the others: started with the run, reported in its place

    @property
    def area(self) -> str:
        return self.id.split(".", 1)[0]


CHECKS: list[Check] = []


def check(check_id: str, section: str, rule: str, *, background: bool = False):
    """Registers the decorated coroutine `run(ctx) -> reason` as a check."""
    if check_id.split(".", 1)[0] not in AREAS:
        raise ValueError(f"unknown area in {check_id!r}")

    def register(run):
        if any(c.id == check_id for c in CHECKS):
            raise ValueError(f"duplicate check id {check_id!r}")
        CHECKS.append(Check(check_id, section, rule, run, background))
        return run
    return register


def require(condition: object, reason: str) -> None:
    """Fails the running check with `reason` unless `condition` holds."""
    if not condition:
        raise Fail(reason)


def all_checks() -> list[Check]:
    """Every check, area by area in AREAS order, each area's in the order its module defines them."""
    from . import decisions, federation, handshake, limits, reads, resume, spectating  # noqa: F401  (they register)

    return sorted(CHECKS, key=lambda c: AREAS.index(c.area))
