"""A person at a terminal plays: each decision shows the seat's view and a numbered menu, and the
typed answer is sent.

Several matches may run at once, but the terminal asks one question at a time: decisions wait
their turn in order of arrival, with their clocks running. Input is read by a thread (standard
input cannot be awaited portably), so the session's event loop never blocks and heartbeats and
the other matches go on while the player thinks. End of input (Ctrl-D) leaves the arena the way
Ctrl-C does, without any signal: `HumanAgent.play` ends the session when the input ends (a program
started in the background may have SIGINT ignored, and Ctrl-D must work there too).
"""

from __future__ import annotations

import asyncio
import codecs
import os
import re
import sys
import threading
from typing import Callable, TextIO

from ..agent import Agent, Choice, DecisionView, EventView, LegalAction, MatchView, ResultView

# The answer still has to reach the server before its deadline, so the terminal stops waiting a
# little earlier than the request's own time allows.
TRANSIT_MARGIN = 0.25
# A one-line warning this long before the deadline, for decisions allowed at least twice as long.
REMINDER = 10.0
# Menus longer than this are laid out in columns.
ONE_PER_LINE = 12
SCREEN_WIDTH = 100


def parse_entry(entry: str, request: DecisionView) -> Choice:
    """The Choice a typed line stands for; ValueError says why it stands for none.

    In order: an action's text (ignoring case and spaces), its menu number, a fragment found in a
    single action's text, then, when the request accepts free text, the line itself as text.
    """
    entry = entry.strip()
    actions = request.legal_actions
    if not entry:
        raise ValueError(f"type {_what_to_type(request)}")
    key = _normalized(entry)
    for action in actions:
        if _normalized(action.text) == key:
            return Choice(action_id=action.action_id)
    if _numbered(actions) and entry.isascii() and entry.isdigit():
        number = int(entry)
        if 1 <= number <= len(actions):
            return Choice(action_id=actions[number - 1].action_id)
        raise ValueError(f"there is no action {number}: choose from 1 to {len(actions)}")
    containing = [a for a in actions if key in _normalized(a.text)]
    if len(containing) == 1:
        return Choice(action_id=containing[0].action_id)
    spec = request.text_action
    if spec is not None:
        if spec.max_length and len(entry) > spec.max_length:
            raise ValueError(f"the answer is {len(entry)} characters long; at most {spec.max_length} are accepted")
        for word in spec.forbidden_words:
            if re.search(rf"\b{re.escape(word)}\b", entry, re.IGNORECASE):
                raise ValueError(f"the answer must not contain {word!r}")
        return Choice(text=entry)
    if containing:
        shown = ", ".join(a.text for a in containing[:4]) + (", ..." if len(containing) > 4 else "")
        raise ValueError(f"{entry!r} matches {len(containing)} actions ({shown}); be more precise")
    raise ValueError(f"{entry!r} is not {_what_to_type(request)}")


def menu_lines(actions: list[LegalAction]) -> list[str]:
    """The legal actions as the player sees them: numbered, unless their texts are numbers."""
    if not _numbered(actions):
        texts = [a.text for a in actions]
        if len(texts) > 20:
            texts = texts[:5] + ["..."] + texts[-3:]
        return [f"  {', '.join(texts)}  ({len(actions)} choices)"]
    items = [f"{number:>{len(str(len(actions)))}}) {a.text}" for number, a in enumerate(actions, 1)]
    if len(items) <= ONE_PER_LINE:
        return ["  " + item for item in items]
    width = max(map(len, items)) + 3
    columns = max(1, (SCREEN_WIDTH - 2) // width)
    rows = -(-len(items) // columns)
    return ["  " + "".join(items[row + rows * col].ljust(width) for col in range(columns)
                          if row + rows * col < len(items)).rstrip() for row in range(rows)]


def _numbered(actions: list[LegalAction]) -> bool:
    """Menu numbers would be mistaken for the actions themselves when the actions are numbers."""
    return bool(actions) and not any(a.text.strip().lstrip("-").isdigit() for a in actions)


def _what_to_type(request: DecisionView) -> str:
    options = []
    if request.legal_actions:
        if _numbered(request.legal_actions):
            options.append(f"a number from 1 to {len(request.legal_actions)}")
        options.append("one of the actions' texts")
    if request.text_action is not None:
        options.append(request.text_action.description or "free text")
    return " or ".join(options)


def _normalized(text: str) -> str:
    return "".join(text.split()).lower()


class Terminal:
    """The player's terminal: lines out at any time, and one question at a time.

    Holding `floor` (a lock) gives the terminal to one question; the others queue in arrival order.
    `read_line()` answers with the next line typed while a question holds the floor; lines typed when
    nothing is asked are ignored with a note, so a late answer never lands on the next question.
    """

    def __init__(self, input_fd: int, output: TextIO, on_end_of_input: Callable[[], None]):
        self._input_fd = input_fd
        self._output = output
        self._on_end_of_input = on_end_of_input
        self.floor = asyncio.Lock()
        self._waiting: asyncio.Future[str] | None = None
        self._prompt = ""                 # shown while a read is pending, re-shown after interruptions
        self._mid_line = False            # the cursor ends a prompt, so the next output starts a new line
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Starts reading input; call from the event loop. Later calls do nothing."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            threading.Thread(target=self._read_input, name="terminal-input", daemon=True).start()

    def say(self, *lines: str) -> None:
        if self._mid_line:
            self._output.write("\n")
        for line in lines:
            self._output.write(line + "\n")
        self._mid_line = False
        if self._prompt:
            self._write_prompt()
        self._output.flush()

    async def read_line(self, prompt: str) -> str:
        """The next line typed; the caller must hold the floor."""
        self._waiting = self._loop.create_future()
        self._prompt = prompt
        self._write_prompt()
        self._output.flush()
        try:
            return await self._waiting
        finally:
            self._waiting = None
            self._prompt = ""
            if self._mid_line:            # not answered (deadline, Ctrl-C): whatever follows starts a new line
                self._output.write("\n")
                self._output.flush()
                self._mid_line = False

    def _write_prompt(self) -> None:
        self._output.write(self._prompt)
        self._mid_line = True

    def _on_line(self, line: str) -> None:
        self._mid_line = False            # the player's Enter ended the line
        if self._waiting is not None and not self._waiting.done():
            self._prompt = ""
            self._waiting.set_result(line)
        elif line.strip():
            self.say(f"(nothing is being asked now; ignored {line.strip()!r})")

    def _on_eof(self) -> None:
        self.say("", "End of input: leaving the arena.")
        self._on_end_of_input()

    def _read_input(self) -> None:
        """Runs in the reader thread. os.read, not sys.stdin: a daemon thread blocked inside a
        buffered reader can abort the interpreter at exit."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while True:
            try:
                chunk = os.read(self._input_fd, 4096)
            except OSError:
                chunk = b""
            pending += decoder.decode(chunk, final=not chunk)
            *lines, pending = pending.split("\n")
            if not chunk and pending:
                lines.append(pending)
            try:
                for line in lines:
                    self._loop.call_soon_threadsafe(self._on_line, line.rstrip("\r"))
                if not chunk:
                    self._loop.call_soon_threadsafe(self._on_eof)
                    return
            except RuntimeError:          # the event loop is closed: the program is ending
                return


class HumanAgent(Agent):
    """Asks a person at a terminal for every decision (see the module docstring).

    input_fd and output default to standard input and output. When the input ends, `input_ended`
    is set, a session run by `play` ends, and on_end_of_input runs if given.
    """

    description = "a person at a terminal"

    def __init__(self, input_fd: int | None = None, output: TextIO | None = None,
                 on_end_of_input: Callable[[], None] | None = None):
        self.input_ended = False
        self._left = asyncio.Event()
        self._on_end_of_input = on_end_of_input
        self.terminal = Terminal(sys.stdin.fileno() if input_fd is None else input_fd, output or sys.stdout,
                                 self._end_of_input)
        self._matches: dict[str, tuple[int, MatchView]] = {}       # match id -> (number shown, view)
        self._count = 0

    async def play(self, session) -> list[ResultView]:
        """Runs `session` (a Session with this agent) until it ends or the input ends, and returns
        the finished matches; `input_ended` then tells which."""
        self.terminal.start()             # Ctrl-D leaves even while waiting for the first match
        run = asyncio.ensure_future(session.run())
        left = asyncio.ensure_future(self._left.wait())
        try:
            await asyncio.wait({run, left}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            left.cancel()
            if not run.done():
                run.cancel()
            await asyncio.gather(run, return_exceptions=True)
        return session.results if run.cancelled() else run.result()

    def _end_of_input(self) -> None:
        self.input_ended = True
        self._left.set()
        if self._on_end_of_input is not None:
            self._on_end_of_input()

    async def on_match_start(self, match: MatchView) -> None:
        self.terminal.start()
        if match.match_id not in self._matches:
            self._count += 1
        number = self._matches.get(match.match_id, (self._count,))[0]     # a second seat keeps the number
        self._matches[match.match_id] = (number, match)
        opponents = ", ".join(f"{name} (seat {seat})" for seat, name in enumerate(match.players) if seat != match.seat)
        clock = f"; {match.per_decision:g} s per decision" if match.per_decision else ""
        self.terminal.say("", f"{self._label(match.match_id)} {match.game_id} ({match.match_id}) started: you are "
                              f"seat {match.seat}, against {opponents or 'yourself'}{clock}.")

    async def decide(self, request: DecisionView) -> Choice:
        self.terminal.start()
        label = self._label(request.match_id)
        loop = asyncio.get_running_loop()
        deadline = None if request.time_remaining is None else loop.time() + request.time_remaining - TRANSIT_MARGIN
        shown = False
        try:
            async with asyncio.timeout_at(deadline):
                async with self.terminal.floor:
                    shown = True
                    return await self._ask(request, label, deadline)
        except TimeoutError:
            when = "" if shown else " while another question was on the screen"
            self.terminal.say(f"{label} Time is up{when}: no move sent; the server applies its failure policy.")
            # Abandon the decision the way the session abandons a cancelled one: quietly, sending nothing.
            raise asyncio.CancelledError from None

    async def _ask(self, request: DecisionView, label: str, deadline: float | None) -> Choice:
        loop = asyncio.get_running_loop()
        lines = ["", f"{label} Your move as seat {request.seat} (decision {request.decision_id}):",
                 request.observation_text.rstrip()]
        if request.feedback:
            lines.append(f"Your previous answer was refused: {request.feedback}")
        if request.legal_actions:
            lines += ["Legal actions:", *menu_lines(request.legal_actions)]
        if request.text_action is not None:
            spec = request.text_action
            limit = f", at most {spec.max_length} characters" if spec.max_length else ""
            lines.append(f"Or answer in free text: {spec.description}{limit}.")
        lines.append(f"Type {_what_to_type(request)}.")
        self.terminal.say(*lines)
        reminder = None
        if deadline is not None and deadline - loop.time() >= 2 * REMINDER:
            reminder = loop.call_at(deadline - REMINDER, self.terminal.say, f"{label} {REMINDER:g} s left.")
        try:
            while True:
                left = "" if deadline is None else f", {max(0.0, deadline - loop.time()):.0f} s left"
                entry = await self.terminal.read_line(f"{label} your choice{left}: ")
                try:
                    choice = parse_entry(entry, request)
                except ValueError as problem:
                    self.terminal.say(f"{label} {problem}.")
                    continue
                sent = next((a.text for a in request.legal_actions if a.action_id == choice.action_id), choice.text)
                self.terminal.say(f"{label} Sent: {sent}")
                return choice
        finally:
            if reminder is not None:
                reminder.cancel()

    async def on_event(self, event: EventView) -> None:
        if event.kind in ("match_started", "match_ended"):
            return                        # the start and the result have their own lines
        held = self._matches.get(event.match_id)
        who = ""
        if held is not None and len(event.seats) == 1:
            seat = event.seats[0]
            players = held[1].players
            who = "  (you)" if seat == held[1].seat else f"  ({players[seat]})" if seat < len(players) else ""
        self.terminal.say(f"{self._label(event.match_id)} {event.text}{who}")

    async def on_match_end(self, result: ResultView) -> None:
        label = self._label(result.match_id)
        held = self._matches.pop(result.match_id, None)
        players = held[1].players if held else []
        if not result.returns:
            self.terminal.say(f"{label} Match void ({result.reason}): {result.summary}")
            return
        returns = ", ".join(f"{'you' if seat == result.seat else players[seat] if seat < len(players) else seat} "
                            f"{value:g}" for seat, value in enumerate(result.returns))
        self.terminal.say(f"{label} {_outcome(result)} ({result.reason}): {result.summary}. Returns: {returns}.")

    def _label(self, match_id: str) -> str:
        held = self._matches.get(match_id)
        return f"[match {held[0]}]" if held else f"[{match_id}]"


def _outcome(result: ResultView) -> str:
    ranks = result.ranks
    mine = ranks[result.seat] if result.seat < len(ranks) else None
    if mine is None or len(set(ranks)) == 1:
        return "Draw"
    if mine == 1:
        return "You won" if ranks.count(1) == 1 else "You tied for first"
    return "You lost" if len(ranks) == 2 else f"You finished with rank {mine} of {len(ranks)}"
