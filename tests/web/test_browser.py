"""The web front in a real browser (headless Chromium): a person plays a whole match by clicking, a
spectator watches a live match change without reloading, and a replay of a hidden-information game
shows the hands only once it has ended. Screenshots go to tests/artifacts/web/."""

from __future__ import annotations

import re
import time

import arena_engines
import pytest
from arena.v1 import arena_service_pb2 as apb
from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import Select, WebDriverWait

from arena_server.referee.replay import rebuild_state

from ..e2e.helpers import create_tournament, wait_connected, wait_tournament
from .conftest import run_agents_in_background, sign_in

pytestmark = pytest.mark.timeout(240)
DEALT = re.compile(r"Your card: [JQK]")


def wait_for(driver, condition, timeout: float = 30.0, message: str = ""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def match_of(web, tournament_id: str, timeout: float = 20.0) -> str:
    stub = web.server.arena_stub()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = stub.ListMatches(apb.ListMatchesRequest(tournament_id=tournament_id),
                                 metadata=web.server.metadata()).matches
        if found:
            return found[0].match_id
        time.sleep(0.05)
    raise AssertionError(f"tournament {tournament_id} started no match")


def test_a_person_signs_in_and_plays_tic_tac_toe_against_the_house_agent_by_clicking(web, browser, artifacts):
    key = web.server.create_key("web-player")
    sign_in(browser, web, key, "/play")
    assert browser.current_url.endswith("/play")
    Select(browser.find_element(By.ID, "game")).select_by_value("tic_tac_toe")
    browser.find_element(By.CSS_SELECTOR, "button[value=ladder]").click()

    clicks = 0
    deadline = time.monotonic() + 90
    while not browser.find_elements(By.CSS_SELECTOR, "article.match[data-ended]"):
        assert time.monotonic() < deadline, "the match did not end"
        targets = browser.find_elements(By.CSS_SELECTOR, "article.match[data-turn] table.grid button.target")
        if targets:
            if clicks == 0:      # the deadline shows as a running clock
                wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "article.match .clock").text.endswith("s left"))
                browser.save_screenshot(str(artifacts / "play.png"))
            targets[0].click()
            clicks += 1
            # The board is drawn anew by the next request, or by the end of the match.
            wait_for(browser, staleness_of(targets[0]), 30, "the click was not answered")
        time.sleep(0.05)
    result = browser.find_element(By.CSS_SELECTOR, "article.match .result").text
    browser.save_screenshot(str(artifacts / "play-ended.png"))
    assert clicks >= 2
    assert "Replay" in result

    # The server recorded a match of the person against the house agent, every move the person's own.
    store = web.server.store()
    finished = store.list_matches(agent_name="web-player", status="finished")
    assert len(finished) == 1
    record = finished[0]
    assert record.game_id == "tic_tac_toe" and sorted(record.agent_names) == ["random", "web-player"]
    seat = record.agent_names.index("web-player")
    assert record.result["seat_stats"][seat]["substituted_actions"] == 0
    moves = [e for e in store.read_log(record.match_id) if e.kind == "action" and e.data["seat"] == seat]
    assert len(moves) == clicks

    # ... and the result is on the leaderboard page.
    browser.get(web.page("/leaderboards/tic_tac_toe"))
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "table.board tbody tr")]
    assert any("web-player" in row for row in rows), rows
    assert any(row.startswith(("1 ", "2 ")) for row in rows)
    browser.save_screenshot(str(artifacts / "leaderboard.png"))


def test_a_spectator_sees_the_moves_of_a_live_match_between_two_remote_agents(web, browser, artifacts):
    threads = run_agents_in_background(web, ["slow-red", "slow-yellow"], "connect_four", delay=0.35)
    wait_connected(web.server, "slow-red", "slow-yellow")
    tournament = create_tournament(web.server, "connect_four", ["slow-red", "slow-yellow"], per_decision=10)
    match_id = match_of(web, tournament)

    sign_in(browser, web, web.server.create_key("watcher", "spectate"), f"/matches/{match_id}")
    # A mark on this document's window: a reload would make a new window without it. (Comparing
    # performance.timeOrigin is no such witness: on CI it read 120 ms apart on one page.)
    browser.execute_script("window.arenaTestMark = 'same page'")
    board = browser.find_element(By.ID, "board")
    wait_for(browser, lambda d: int(board.get_attribute("data-moves") or 0) >= 2, 30, "no move shown")
    seen = int(board.get_attribute("data-moves"))
    pieces = len(browser.find_elements(By.CSS_SELECTOR, "#board td .x, #board td .o"))
    wait_for(browser, lambda d: int(board.get_attribute("data-moves")) > seen, 30, "the page did not follow the match")
    assert browser.execute_script("return window.arenaTestMark") == "same page", "the page reloaded"
    browser.save_screenshot(str(artifacts / "watch.png"))
    later = len(browser.find_elements(By.CSS_SELECTOR, "#board td .x, #board td .o"))
    assert 2 <= pieces < later
    events = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#events li")]
    assert any(text.startswith("seat 0 plays") for text in events) and any(text.startswith("seat 1 plays") for text in events)

    assert wait_tournament(web.server, tournament, 120).status == apb.TOURNAMENT_STATUS_FINISHED
    wait_for(browser, lambda d: d.find_elements(By.ID, "replay"), 20, "the page did not turn into the replay")
    for thread in threads:
        thread.join(10)


def test_a_replay_steps_through_a_finished_kuhn_poker_match_and_shows_the_hands_only_after_the_end(
        web, browser, artifacts):
    threads = run_agents_in_background(web, ["poker-a", "poker-b"], "kuhn_poker", delay=1.0)
    wait_connected(web.server, "poker-a", "poker-b")
    tournament = create_tournament(web.server, "kuhn_poker", ["poker-a", "poker-b"], per_decision=10)
    match_id = match_of(web, tournament)

    # While the match runs, its page shows the public events only.
    sign_in(browser, web, web.server.create_key("poker-watcher", "spectate"), f"/matches/{match_id}")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#events li")) >= 3, 20)
    running = browser.find_element(By.TAG_NAME, "body").text
    assert not DEALT.search(running) and "seed" not in running
    assert not DEALT.search(browser.page_source)

    assert wait_tournament(web.server, tournament, 120).status == apb.TOURNAMENT_STATUS_FINISHED
    for thread in threads:
        thread.join(10)
    record, state = rebuild_state(web.server.store(), match_id)
    cards = [state.observation_dict(seat)["card"] for seat in range(2)]

    browser.get(web.page(f"/matches/{match_id}"))
    assert browser.find_element(By.ID, "where").text.startswith("0 / ")
    start = [v.text for v in browser.find_elements(By.CSS_SELECTOR, "#views pre")]
    assert len(start) == 2 and not any(DEALT.search(v) for v in start)      # nothing dealt yet
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    after_deal = [v.text for v in browser.find_elements(By.CSS_SELECTOR, "#views pre")]
    assert [f"Your card: {cards[seat]}" in after_deal[seat] for seat in range(2)] == [True, True], after_deal
    browser.find_element(By.ID, "last").click()
    last = int(browser.find_element(By.ID, "step").get_attribute("max"))
    assert browser.find_element(By.ID, "where").text == f"{last} / {last}"
    move = browser.find_element(By.ID, "move").text
    assert "seat" in move and " s" in move       # who moved, what, and how long it took
    browser.find_element(By.ID, "prev").click()
    assert browser.find_element(By.ID, "where").text == f"{last - 1} / {last}"
    facts = browser.find_element(By.CSS_SELECTOR, "dl.facts").text
    assert "seed" in facts and str(record.seed) in facts
    assert arena_engines.game_spec("kuhn_poker").information == "imperfect"
    browser.save_screenshot(str(artifacts / "replay.png"))
