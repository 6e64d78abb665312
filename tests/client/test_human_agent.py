"""The human agent without a server: what a typed line means, how menus look, and the terminal's
turn-taking, deadlines and end of input, over a real pipe."""

from __future__ import annotations

import asyncio
import io
import os
import signal

import pytest

from arena_client import Choice, DecisionView, LegalAction, MatchView, TextActionSpec
from arena_client.agents.human_agent import HumanAgent, menu_lines, parse_entry

TIC_TAC_TOE = [LegalAction(i, f"X: ({i // 3 + 1}, {i % 3 + 1})") for i in (0, 2, 4, 8)]
NUMBERS = [LegalAction(i, str(i)) for i in range(101)]


def request(legal: list[LegalAction], text_action: TextActionSpec | None = None, *, match_id: str = "m1",
            time_remaining: float | None = None) -> DecisionView:
    return DecisionView(match_id=match_id, decision_id=4, seat=0, game_id="g", observation_text="the board",
                        observation_data={}, history=[], legal_actions=legal, text_action=text_action, deadline=None,
                        time_remaining=time_remaining, attempt=0, feedback="", parameters={})


@pytest.mark.parametrize("typed, action_id", [
    ("2", 2),               # the second line of the menu
    ("X: (3, 3)", 8),       # an action's text
    ("x:(1,3)", 2),         # ... ignoring case and spaces
    ("  (2, 2) ", 4),       # a fragment of exactly one action's text
])
def test_a_line_chooses_by_menu_number_text_or_unique_fragment(typed, action_id):
    assert parse_entry(typed, request(TIC_TAC_TOE)) == Choice(action_id=action_id)


@pytest.mark.parametrize("typed, problem", [
    ("", "type a number from 1 to 4 or one of the actions' texts"),
    ("5", "there is no action 5: choose from 1 to 4"),
    ("banana", "'banana' is not a number from 1 to 4 or one of the actions' texts"),
    ("X: (", r"'X: \(' matches 4 actions \(X: \(1, 1\), X: \(1, 3\), X: \(2, 2\), X: \(3, 3\)\); be more precise"),
])
def test_a_line_that_chooses_nothing_says_why(typed, problem):
    with pytest.raises(ValueError, match=f"^{problem}$"):
        parse_entry(typed, request(TIC_TAC_TOE))


def test_numbers_that_are_the_actions_are_never_menu_numbers():
    assert parse_entry("17", request(NUMBERS)) == Choice(action_id=17)
    assert parse_entry("0", request(NUMBERS)) == Choice(action_id=0)
    assert menu_lines(NUMBERS) == ["  0, 1, 2, 3, 4, ..., 98, 99, 100  (101 choices)"]


def test_free_text_is_sent_as_text_within_the_requests_limits():
    spec = TextActionSpec("a short message", 12, ("deal",))
    assert parse_entry("hello there", request(TIC_TAC_TOE, spec)) == Choice(text="hello there")
    assert parse_entry("1", request(TIC_TAC_TOE, spec)) == Choice(action_id=0)
    with pytest.raises(ValueError, match="at most 12 are accepted"):
        parse_entry("a message far too long", request([], spec))
    with pytest.raises(ValueError, match="must not contain 'deal'"):
        parse_entry("no DEAL", request([], spec))
    assert parse_entry("dealer", request([], spec)) == Choice(text="dealer")      # whole words only


def test_menus_are_numbered_one_per_line_then_in_columns():
    assert menu_lines(TIC_TAC_TOE) == ["  1) X: (1, 1)", "  2) X: (1, 3)", "  3) X: (2, 2)", "  4) X: (3, 3)"]
    long = menu_lines([LegalAction(i, f"Utterance: [{i // 25}, {i // 5 % 5}, {i % 5}]") for i in range(125)])
    assert len(long) < 50 and long[0].startswith("    1) Utterance: [0, 0, 0]")
    assert sum(line.count(")") for line in long) == 125


class Player:
    """A HumanAgent on a real pipe: the test types into `keyboard` and reads `screen`."""

    def __init__(self):
        read_end, self._write_end = os.pipe()
        self.screen = io.StringIO()
        self.input_ended = asyncio.Event()
        self.agent = HumanAgent(read_end, self.screen, self.input_ended.set)

    def type(self, text: str) -> None:
        os.write(self._write_end, text.encode())

    def end_input(self) -> None:
        os.close(self._write_end)

    async def shows(self, text: str, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while text not in self.screen.getvalue():
                await asyncio.sleep(0.01)

    async def start_match(self, match_id: str) -> None:
        await self.agent.on_match_start(MatchView(match_id, "g", 0, ["me", "them"], {}, "", None))


def test_questions_from_several_matches_take_turns_on_the_terminal():
    asyncio.run(questions_take_turns())


async def questions_take_turns():
    player = Player()
    await player.start_match("m1")
    await player.start_match("m2")
    first = asyncio.create_task(player.agent.decide(request(TIC_TAC_TOE, match_id="m1")))
    second = asyncio.create_task(player.agent.decide(request(TIC_TAC_TOE, match_id="m2")))
    await player.shows("[match 1] your choice: ")
    await asyncio.sleep(0.05)
    assert "[match 2] Your move" not in player.screen.getvalue()       # queued behind match 1
    player.type("4\n")
    assert await first == Choice(action_id=8)
    await player.shows("[match 2] your choice: ")
    player.type("X: (1, 1)\n")
    assert await second == Choice(action_id=0)
    screen = player.screen.getvalue()
    assert screen.index("[match 1] Sent: X: (3, 3)") < screen.index("[match 2] Your move")
    player.end_input()
    await asyncio.wait_for(player.input_ended.wait(), 5)
    assert "End of input: leaving the arena." in player.screen.getvalue()


def test_deadlines_lapse_visibly_on_screen_and_in_the_queue():
    asyncio.run(deadlines_lapse())


async def deadlines_lapse():
    player = Player()
    await player.start_match("m1")
    await player.start_match("m2")
    first = asyncio.create_task(player.agent.decide(request(TIC_TAC_TOE, match_id="m1", time_remaining=0.6)))
    second = asyncio.create_task(player.agent.decide(request(TIC_TAC_TOE, match_id="m2", time_remaining=0.5)))
    for task in (first, second):
        with pytest.raises(asyncio.CancelledError):      # nothing is sent: the session drops the decision
            await task
    screen = player.screen.getvalue()
    assert "[match 1] your choice, 0 s left: " in screen
    assert "[match 1] Time is up: no move sent; the server applies its failure policy." in screen
    assert ("[match 2] Time is up while another question was on the screen: no move sent; "
            "the server applies its failure policy.") in screen
    assert "[match 2] Your move" not in screen
    player.type("3\n")                                       # too late: nothing is asked any more
    await player.shows("(nothing is being asked now; ignored '3')")
    player.end_input()


class EndlessSession:
    """Stands in for a Session: runs until cancelled (or fails at once with `failure`)."""

    def __init__(self, failure: Exception | None = None):
        self.results, self.cancelled, self.failure = ["a match played earlier"], False, failure

    async def run(self):
        if self.failure:
            raise self.failure
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled = True
            raise


def test_end_of_input_ends_the_session_without_any_signal():
    # As in a job a shell started in the background: SIGINT ignored, so no signal could do it.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        asyncio.run(end_of_input_ends_the_session())
    finally:
        signal.signal(signal.SIGINT, previous)


async def end_of_input_ends_the_session():
    player, session = Player(), EndlessSession()
    playing = asyncio.create_task(player.agent.play(session))
    await asyncio.sleep(0.1)
    assert not playing.done() and not player.agent.input_ended
    player.end_input()                                  # Ctrl-D before any match started
    assert await asyncio.wait_for(playing, 5) == ["a match played earlier"]
    assert session.cancelled and player.agent.input_ended and player.input_ended.is_set()
    assert "End of input: leaving the arena." in player.screen.getvalue()


def test_play_passes_on_the_failure_of_its_session():
    async def main():
        with pytest.raises(RuntimeError, match="refused"):
            await Player().agent.play(EndlessSession(RuntimeError("refused")))

    asyncio.run(main())
