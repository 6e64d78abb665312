"""Runs the checks against one server and collects one result per check: the server is first reached
(an address that answers nothing is one clear error, not a list of failures), then the checks run one
after the other, area by area, except the slow independent ones (`background`), which start at once
and are reported in their place."""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field

import grpc

from .context import Context, Settings
from .registry import AREAS, Check, Fail, Skip, all_checks
from .wire import short

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


class Unreachable(Exception):
    """The server under test could not be reached at all."""


@dataclass
class Result:
    id: str
    area: str
    section: str
    rule: str
    outcome: str        # PASS, FAIL or SKIP
    reason: str         # one line
    seconds: float


@dataclass
class Report:
    server: str
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        return sum(r.outcome == outcome for r in self.results)

    @property
    def ok(self) -> bool:
        return self.count(FAIL) == 0

    def summary(self) -> str:
        return (f"{self.count(PASS)} passed, {self.count(FAIL)} failed, {self.count(SKIP)} skipped "
                f"of {len(self.results)} checks against {self.server} in {self.seconds:.1f} s")

    def as_dict(self) -> dict:
        return {"server": self.server, "ok": self.ok, "passed": self.count(PASS), "failed": self.count(FAIL),
                "skipped": self.count(SKIP), "seconds": round(self.seconds, 3),
                "checks": [asdict(r) | {"seconds": round(r.seconds, 3)} for r in self.results]}


def select(areas: list[str] | None = None, ids: list[str] | None = None) -> list[Check]:
    """The checks of `areas` (all when None), or exactly those named in `ids`."""
    unknown = set(areas or ()) - set(AREAS)
    if unknown:
        raise ValueError(f"unknown area {', '.join(sorted(unknown))} (areas: {', '.join(AREAS)})")
    checks = all_checks()
    if ids:
        known = {c.id for c in checks}
        missing = [i for i in ids if i not in known]
        if missing:
            raise ValueError(f"unknown check {', '.join(missing)}")
        return [c for c in checks if c.id in ids]
    return [c for c in checks if not areas or c.area in areas]


async def _one(check: Check, ctx: Context) -> Result:
    started = time.monotonic()
    try:
        reason = await asyncio.wait_for(check.run(ctx), ctx.settings.check_timeout)
        outcome = PASS
    except Fail as e:
        outcome, reason = FAIL, str(e)
    except Skip as e:
        outcome, reason = SKIP, str(e)
    except asyncio.TimeoutError:
        outcome, reason = FAIL, f"the check did not finish within {ctx.settings.check_timeout:g} s"
    except grpc.aio.AioRpcError as e:
        outcome, reason = FAIL, f"an unexpected refusal: {e.code().name} ({e.details()})"
    except Exception as e:      # noqa: BLE001  (whatever the server sent that the check could not read)
        outcome, reason = FAIL, f"{type(e).__name__}: {e}"
    return Result(check.id, check.area, check.section, check.rule, outcome, short(reason or "", 300),
                  time.monotonic() - started)


async def reach(ctx: Context, timeout: float) -> None:
    try:
        await asyncio.wait_for(ctx.channel.channel_ready(), timeout)
    except (asyncio.TimeoutError, grpc.aio.AioRpcError, grpc.RpcError) as e:
        raise Unreachable(f"cannot reach {ctx.settings.endpoint.address} within {timeout:g} s"
                          f"{'' if isinstance(e, asyncio.TimeoutError) else f' ({e})'}") from None


async def run_async(settings: Settings, checks: list[Check] | None = None, *, on_result=None,
                    connect_timeout: float | None = None) -> Report:
    """Runs `checks` (default: all) against the server of `settings`; on_result(result) is called as
    each result is known, in report order. Raises Unreachable when the server cannot be reached."""
    checks = all_checks() if checks is None else checks
    report = Report(settings.endpoint.address)
    started = time.monotonic()
    ctx = Context(settings)
    try:
        await reach(ctx, connect_timeout or max(settings.reply_timeout, 1.0))
        background = {c.id: asyncio.ensure_future(_one(c, ctx)) for c in checks if c.background}
        for c in checks:
            result = await background[c.id] if c.id in background else await _one(c, ctx)
            report.results.append(result)
            if on_result:
                on_result(result)
    finally:
        for task in locals().get("background", {}).values():
            task.cancel()
        await ctx.close()
    report.seconds = time.monotonic() - started
    return report


def run(settings: Settings, checks: list[Check] | None = None, **kw) -> Report:
    return asyncio.run(run_async(settings, checks, **kw))
