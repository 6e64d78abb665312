"""`arena-agent human` in a pseudo-terminal against a real server: read the screen, type, play.

The agent runs as a separate process whose standard input and output are a pty, so it sees a
terminal as a person's shell would give it; the test reads what it prints and types lines (and
Ctrl-D) into it. Each test sets the process's SIGINT disposition itself, whatever this test run
inherited (a shell starts its background jobs with SIGINT ignored): Ctrl-C is tested with SIGINT
handled as in a foreground job, Ctrl-D with SIGINT ignored, to show it needs no signal.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

PROMPT = re.compile(r"\[match (\d+)\] your choice, (\d+) s left: $")
# `arena-agent` with SIGINT handled by Python (a KeyboardInterrupt), as in a foreground job, or ignored.
SIGINT_SETUPS = {"handled": "signal.default_int_handler", "ignored": "signal.SIG_IGN"}
AGENT_WITH_SIGINT = ("import signal, sys; signal.signal(signal.SIGINT, {}); "
                     "from arena_client.cli import main; sys.exit(main())")
MENU_ITEM = re.compile(r"^\s+(\d+)\) (.+?)\s*$", re.MULTILINE)


class Terminal:
    """An `arena-agent human` process on a pty, and everything it has printed so far."""

    def __init__(self, server, name: str, *args: str, sigint: str = "handled"):
        self._master, slave = os.openpty()
        env = dict(os.environ, ARENA_API_KEY=server.create_key(name))
        self.process = subprocess.Popen(
            [sys.executable, "-c", AGENT_WITH_SIGINT.format(SIGINT_SETUPS[sigint]), "human", "--server",
             server.address, "--game", "tic_tac_toe", *args],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.screen = ""
        self._seen = 0                        # expect() looks only at output after this position

    def expect(self, pattern: str | re.Pattern, timeout: float = 30.0) -> re.Match:
        """Waits for `pattern` in the output not yet consumed, and consumes it up to the match's end."""
        pattern = re.compile(pattern, re.MULTILINE) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            found = pattern.search(self.screen, self._seen)
            if found:
                self._seen = found.end()
                return found
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{pattern.pattern!r} did not appear; the screen after what was read:\n"
                                     + self.screen[self._seen:][-3000:])

    def type(self, text: str) -> None:
        os.write(self._master, text.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        while self._read(0.1):                 # what is left in the pty after the exit
            pass
        return self.process.wait(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self._master)

    def _read(self, timeout: float) -> bool:
        """Reads what is available within `timeout`; False once the process closed the pty."""
        ready, _, _ = select.select([self._master], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            data = os.read(self._master, 65536)
        except OSError:                        # EIO: the other end is closed
            return False
        self.screen += data.decode(errors="replace").replace("\r\n", "\n")
        return bool(data)


def question(terminal: Terminal) -> tuple[list[str], re.Match]:
    """Waits for the next question; returns its numbered actions and its prompt."""
    start = terminal.expect(r"^\[match 1\] Your move as seat \d \(decision \d+\):$")
    prompt = terminal.expect(PROMPT)
    menu = terminal.screen[start.end():prompt.start()]
    return [text for _, text in MENU_ITEM.findall(menu)], prompt


def test_a_person_plays_a_whole_match_by_number_and_by_text_with_an_invalid_entry_re_asked(server):
    terminal = Terminal(server, "alice", "--matches", "1")
    try:
        terminal.expect(rf"^connected to {re.escape(server.address)} as alice, playing tic_tac_toe$")
        started = terminal.expect(r"^\[match 1\] tic_tac_toe \((m_\w+)\) started: you are seat (\d), "
                                  r"against random \(seat \d\); 5 s per decision\.$")
        match_id, seat = started.group(1), int(started.group(2))
        mark = "XO"[seat]

        # First question: an entry that is neither a number on the menu nor an action is re-asked
        # on the spot (nothing reaches the server), then a number chooses that line of the menu.
        actions, _ = question(terminal)
        assert len(actions) == 9 - seat and all(a.startswith(f"{mark}: (") for a in actions)
        assert f"{mark}: (" in terminal.screen and "| _ |" in terminal.screen    # the board is shown
        terminal.type("banana\n")
        terminal.expect(r"^\[match 1\] 'banana' is not a number from 1 to \d or one of the actions' texts\.$")
        terminal.expect(PROMPT)
        terminal.type("3\n")
        terminal.expect(rf"^\[match 1\] Sent: {re.escape(actions[2])}$")
        terminal.expect(rf"^\[match 1\] seat {seat} plays {re.escape(actions[2])}  \(you\)$")

        # Second question: the action's text, typed as a person would (other case, other spacing).
        actions, _ = question(terminal)
        typed = actions[-1].lower().replace(" ", "")
        terminal.type(typed + "\n")
        terminal.expect(rf"^\[match 1\] Sent: {re.escape(actions[-1])}$")
        terminal.expect(rf"^\[match 1\] seat {seat} plays {re.escape(actions[-1])}  \(you\)$")

        # Then numbers until the end; the opponent's moves are shown as they happen.
        while not terminal.expect(rf"^(\[match 1\] Your move as seat {seat}|{match_id}  tic_tac_toe  seat {seat} "
                                  r"against random  returns \[.*\]  normal)").group(0).startswith(match_id):
            terminal.expect(PROMPT)
            terminal.type("1\n")
        assert re.search(rf"^\[match 1\] seat {1 - seat} plays {'XO'[1 - seat]}: \(\d, \d\)  \(random\)$",
                         terminal.screen, re.MULTILINE)
        outcome = terminal.expect(r"^\[match 1\] (You won|You lost|Draw) \(normal\): .+\. Returns: .+\.$").group(1)
        terminal.expect(r"^1 matches finished, 1 scored")
        assert terminal.wait() == 0
    finally:
        terminal.close()

    recorded = server.arena_stub().ListMatches(apb.ListMatchesRequest(agent_name="alice"),
                                               metadata=server.metadata()).matches
    assert [m.match_id for m in recorded] == [match_id]
    match = recorded[0]
    assert match.status == match_pb2.MATCH_STATUS_FINISHED
    assert [p.agent_name for p in match.players][seat] == "alice"
    my_return = match.result.returns[seat]
    assert {"You won": my_return == 1, "You lost": my_return == -1, "Draw": my_return == 0}[outcome]
    assert match.result.seat_stats[seat].illegal_actions == 0          # the invalid entry never left the terminal


def test_a_lapsed_deadline_is_said_and_play_goes_on_then_ctrl_d_leaves(server_factory):
    server = server_factory("--per-decision", "1.5", "--house-delay", "0.2")
    terminal = Terminal(server, "bob", sigint="ignored")      # Ctrl-D needs no signal
    try:
        _, prompt = question(terminal)
        assert int(prompt.group(2)) <= 2
        terminal.expect(r"^\[match 1\] Time is up: no move sent; the server applies its failure policy\.$")
        terminal.expect(r"WARNING arena_client.session: server error timeout for match m_\w+ decision \d+: "
                        r"no decision within 1.5 s$")
        terminal.expect(r"^\[match 1\] seat \d: the decision timed out; a random legal action was played  \(you\)$")
        terminal.expect(r"^\[match 1\] (Your move as seat|You won|You lost|Draw)")     # the match goes on
        terminal.type("\x04")                  # Ctrl-D: end of input
        terminal.expect(r"^End of input: leaving the arena\.$")
        terminal.expect(r"^\d+ matches finished")
        assert terminal.wait() == 130
        assert "Traceback" not in terminal.screen
    finally:
        terminal.close()


def test_ctrl_c_while_a_question_is_open_leaves_cleanly(server):
    terminal = Terminal(server, "carol")
    try:
        question(terminal)
        terminal.process.send_signal(signal.SIGINT)     # what the terminal sends for Ctrl-C
        terminal.expect(r"^0 matches finished$")
        assert terminal.wait() == 130
        assert "Traceback" not in terminal.screen
    finally:
        terminal.close()
