"""Fixtures of the web front's tests: one `arena-server serve --http-port` process per test module,
one headless Chromium (Debian's chromium and chromium-driver, driven by Selenium; nothing is
downloaded) per module, slow remote agents that keep matches running long enough to be watched,
and the directory the screenshots are written to (printed; tests/artifacts/web/, ignored by git)."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import ROOT, RunningServer, start_server

ARTIFACTS = ROOT / "tests" / "artifacts" / "web"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# Without the background-networking flags Chromium's own connections are refused by a closed network
# and slow every page down; a fresh profile per browser keeps runs independent.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1200,1000")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class WebServer:
    server: RunningServer
    url: str          # http://127.0.0.1:PORT/

    def page(self, path: str) -> str:
        return self.url.rstrip("/") + path


def start_web_server(tmp: Path, *extra: str) -> WebServer:
    server = start_server(tmp, "--http-port", str(free_port()), *extra)
    line = server.process.stdout.readline()        # printed right after the gRPC address
    found = re.search(r"web front at (\S+)", line)
    if found is None:
        server.stop()
        raise RuntimeError(f"the server printed no web address: {line!r}\n" + server.log_path.read_text()[-3000:])
    return WebServer(server, found.group(1))


@pytest.fixture(scope="module")
def web(tmp_path_factory) -> WebServer:
    running = start_web_server(tmp_path_factory.mktemp("web"), "--per-decision", "20", "--house-delay", "0.3")
    yield running
    running.server.stop()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of the web front: {ARTIFACTS}")
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser():
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: install Debian's chromium and chromium-driver (scripts/test-tools.sh does)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def sign_in(driver, web: WebServer, key: str, next_path: str = "/") -> None:
    from selenium.webdriver.common.by import By

    driver.get(web.page("/signin?next=" + next_path))
    field = driver.find_element(By.ID, "key")
    field.send_keys(key)
    field.submit()


class SlowAgent:
    """Plays random legal moves after `delay` seconds, so that a match lasts long enough to watch."""

    def __new__(cls, delay: float):
        from arena_client import Agent, Choice

        class _Slow(Agent):
            async def decide(self, request):
                await asyncio.sleep(delay)
                return Choice(action_id=random.choice(request.legal_actions).action_id)

        return _Slow()


def run_agents_in_background(web: WebServer, names: list[str], game: str, *, delay: float,
                             matches: int = 2) -> list[threading.Thread]:
    """Each named agent (a play key is issued for it) plays `matches` matches of `game` over gRPC in a
    thread of its own, off the ladder (so only a tournament seats it). A round robin of two agents
    plays 2 matches per `games_per_pairing` (seats swapped)."""
    from arena_client import run_agent

    threads = []
    for name in names:
        key = web.server.create_key(name)
        thread = threading.Thread(
            target=run_agent, args=(SlowAgent(delay), web.server.address, key, [game]),
            kwargs={"join_ladder": False, "max_matches": matches}, daemon=True, name=f"agent-{name}")
        thread.start()
        threads.append(thread)
    return threads


def pytest_terminal_summary(terminalreporter):
    """Says where the screenshots are, at the end of every run that made some."""
    shots = sorted(ARTIFACTS.glob("*.png")) if ARTIFACTS.is_dir() else []
    if shots:
        terminalreporter.write_line(f"web front screenshots ({len(shots)}): {ARTIFACTS}: "
                                    + ", ".join(p.name for p in shots))
