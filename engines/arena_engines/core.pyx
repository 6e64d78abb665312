"""Python-level API shared by every game, written once over the C-level interface in core.pxd.

Vocabulary follows OpenSpiel: a `Game` makes states; a `State` has a current player (a seat,
SIMULTANEOUS_PLAYER, CHANCE_PLAYER or TERMINAL_PLAYER), legal actions per seat, `apply_action`
for sequential and chance nodes, `apply_actions` for simultaneous nodes, returns, and per-seat
observations as text and as JSON-compatible data.

Dialogue. A decision may carry a message: free text said with the action (a clue, bargaining talk,
a proposal written out). The game declares it per decision in `text_action_spec(player)` with
"message": "required" or "optional" (a clue turn is then one legal action, "give a clue", plus a
required message; a bargaining turn is a plan among many actions plus optional talk), validates it
in `check_message` (length, forbidden words, the game's own rules), and decides who hears it with
`message_audience`. The base class stores every message with the move it went with; a game shows
each seat `conversation(seat)` in its views and may read the text in `on_message` (e.g. to store a
parsed proposal). Search never sees messages: the C-level interface has none, so MCTS plays games
without dialogue and is not asked to search text.
"""

import random as _random
import re as _re

from libc.stdlib cimport malloc, free

CHANCE = CHANCE_PLAYER
SIMULTANEOUS = SIMULTANEOUS_PLAYER
INVALID = INVALID_PLAYER
TERMINAL = TERMINAL_PLAYER


class IllegalActionError(ValueError):
    """An action id that is not legal for the seat in this state."""


class ActionParseError(ValueError):
    """Text that the game cannot turn into an action. The message is feedback for the agent."""


class TextRejectedError(ValueError):
    """A message the game refuses (too long, a forbidden word, against the game's rules), or a
    missing required one. The exception's text is the reason, for the agent."""


DEFAULT_MESSAGE_LENGTH = 1000
# Neutral words for random play (house random agent, playthroughs, property tests) in games whose
# messages are free talk.
RANDOM_WORDS = ("blue", "river", "quick", "stone", "garden", "light", "paper", "window", "music",
                 "winter", "circle", "orange", "silver", "forest", "candle", "ocean", "basket", "thunder")


cdef class State:
    """Base class of every game state; subclasses implement the c_* methods and the views."""

    def __init__(self, game, int num_players):
        self.game = game
        self.num_players = num_players
        self.move_number = 0
        self._history = []
        self._messages = []

    # ---- C-level interface: subclasses override ----------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.c_current_player() == SIMULTANEOUS_PLAYER or self.c_current_player() == player

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        return 0

    cdef void c_apply_action(self, int action) noexcept:
        pass

    cdef void c_apply_joint(self, int* actions) noexcept:
        pass

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = 0.0

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        return 0

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        pass

    cdef State c_clone(self):
        raise NotImplementedError

    cdef void _copy_base_into(self, State other):
        other.game = self.game
        other.num_players = self.num_players
        other.move_number = self.move_number
        other._history = list(self._history)
        other._messages = list(self._messages)   # entries are tuples, never changed in place

    # ---- Python-level API ---------------------------------------------------------------------
    def current_player(self) -> int:
        """A seat index, or SIMULTANEOUS / CHANCE / TERMINAL."""
        return self.c_current_player()

    def current_players(self) -> list:
        """Seats that must act now (several at a simultaneous node; empty at chance or end)."""
        cdef int p = self.c_current_player()
        if p >= 0:
            return [p]
        if p == SIMULTANEOUS_PLAYER:
            return [i for i in range(self.num_players) if self.c_is_acting(i)]
        return []

    def is_terminal(self) -> bool:
        return self.c_current_player() == TERMINAL_PLAYER

    def is_chance_node(self) -> bool:
        return self.c_current_player() == CHANCE_PLAYER

    def is_simultaneous_node(self) -> bool:
        return self.c_current_player() == SIMULTANEOUS_PLAYER

    def legal_actions(self, player=None) -> list:
        """Legal action ids of `player` (default: the current player), increasing."""
        cdef int buf[MAX_ACTIONS]
        cdef int p = self.c_current_player() if player is None else player
        if p == CHANCE_PLAYER:
            return [a for a, _ in self.chance_outcomes()]
        if p < 0 or p >= self.num_players or not self.c_is_acting(p):
            return []
        cdef int n = self.c_legal_actions(p, buf)
        return [buf[i] for i in range(n)]

    def is_legal(self, int player, int action) -> bool:
        cdef int buf[MAX_ACTIONS]
        if player < 0 or player >= self.num_players or not self.c_is_acting(player):
            return False
        cdef int n = self.c_legal_actions(player, buf)
        cdef int i
        for i in range(n):
            if buf[i] == action:
                return True
        return False

    cdef bint _is_chance_outcome(self, int action):
        # Checked in C: building the Python list of outcomes dominated the step cost of games
        # with many chance outcomes.
        cdef int actions[MAX_ACTIONS]
        cdef double probs[MAX_ACTIONS]
        cdef int n = self.c_chance_outcomes(actions, probs)
        cdef int i
        for i in range(n):
            if actions[i] == action:
                return True
        return False

    def chance_outcomes(self) -> list:
        """[(action, probability)] at a chance node; empty elsewhere."""
        cdef int actions[MAX_ACTIONS]
        cdef double probs[MAX_ACTIONS]
        if self.c_current_player() != CHANCE_PLAYER:
            return []
        cdef int n = self.c_chance_outcomes(actions, probs)
        return [(actions[i], probs[i]) for i in range(n)]

    def apply_action(self, int action, message=None):
        """Applies the current seat's action, or a chance outcome, with the seat's message if the
        decision carries one. Raises IllegalActionError, or TextRejectedError for a refused or
        missing message; either way the state is unchanged."""
        cdef int p = self.c_current_player()
        if p == SIMULTANEOUS_PLAYER:
            raise IllegalActionError("simultaneous node: use apply_actions")
        if p == TERMINAL_PLAYER:
            raise IllegalActionError("the game is over")
        if p == CHANCE_PLAYER:
            if not self._is_chance_outcome(action):
                raise IllegalActionError(f"{action} is not a chance outcome here")
            if message is not None:
                raise TextRejectedError("chance outcomes carry no message")
        elif not self.is_legal(p, action):
            raise IllegalActionError(f"action {action} is not legal for seat {p}")
        else:
            message = self._accepted_message(p, message)
        if message is not None:
            self._say(p, message)
        self._history.append((p, action))
        self.c_apply_action(action)
        self.move_number += 1

    def apply_actions(self, actions, messages=None):
        """Applies one action per seat at a simultaneous node. Entries of non-acting seats are
        ignored (pass 0). `messages`, when given, holds one entry per seat (None: no message).
        Raises IllegalActionError or TextRejectedError naming the first offending seat."""
        if self.c_current_player() != SIMULTANEOUS_PLAYER:
            raise IllegalActionError("not a simultaneous node")
        if len(actions) != self.num_players:
            raise IllegalActionError(f"expected {self.num_players} actions, got {len(actions)}")
        if messages is not None and len(messages) != self.num_players:
            raise TextRejectedError(f"expected {self.num_players} message entries, got {len(messages)}")
        cdef int i
        for i in range(self.num_players):
            if self.c_is_acting(i) and not self.is_legal(i, actions[i]):
                raise IllegalActionError(f"action {actions[i]} is not legal for seat {i}")
        said = [None] * self.num_players
        for i in range(self.num_players):
            if self.c_is_acting(i):
                try:
                    said[i] = self._accepted_message(i, messages[i] if messages is not None else None)
                except TextRejectedError as e:
                    raise TextRejectedError(f"seat {i}: {e}") from None
        for i in range(self.num_players):
            if said[i] is not None:
                self._say(i, said[i])
        cdef int* buf = <int*>malloc(self.num_players * sizeof(int))
        try:
            for i in range(self.num_players):
                buf[i] = actions[i] if self.c_is_acting(i) else 0
            self._history.append((SIMULTANEOUS_PLAYER, tuple(actions)))
            self.c_apply_joint(buf)
        finally:
            free(buf)
        self.move_number += 1

    # ---- dialogue ------------------------------------------------------------------------------
    def _accepted_message(self, int player, message):
        """The text to store for `player`'s message now (None: no message), or TextRejectedError."""
        spec = self.text_action_spec(player)
        mode = spec.get("message") if spec else None
        if message is None:
            if mode == "required":
                raise TextRejectedError(f"this decision needs a message: {spec['description']}")
            return None
        if mode is None:
            raise TextRejectedError("this decision takes no message")
        if not isinstance(message, str):
            raise TextRejectedError("a message is text")
        return self.check_message(player, message)

    def _say(self, int player, str text):
        audience = self.message_audience(player)
        self.on_message(player, text)
        self._messages.append((self.move_number, player, text, None if audience is None else tuple(audience)))

    def check_message(self, int player, str text) -> str:
        """The text to store for `player`'s message, or TextRejectedError with the reason. The
        default refuses a text longer than the spec's max_length or containing one of its forbidden
        words (whole words, case-insensitive); games add their own rules (one word, no repeats)."""
        spec = self.text_action_spec(player) or {}
        limit = spec.get("max_length", DEFAULT_MESSAGE_LENGTH)
        if len(text) > limit:
            raise TextRejectedError(f"the message has {len(text)} characters; the limit is {limit}")
        for word in spec.get("forbidden_words", ()):
            if _re.search(r"(?<!\w)" + _re.escape(word) + r"(?!\w)", text, _re.IGNORECASE):
                raise TextRejectedError(f"the message may not contain {word!r}")
        return text

    def on_message(self, int player, str text):
        """Called with each accepted message just before its action is applied, for games whose
        rules read the text (a written-out proposal). The base class stores every message anyway."""

    def message_audience(self, int player):
        """Who hears what `player` says now: None for every seat, or a list of seats (a private
        channel; the speaker always hears itself)."""
        return None

    def messages(self) -> list:
        """Every message so far, in order, private ones included (for the referee and the end of
        the match): {"move", "seat", "text", "to"}, "to" None when every seat heard it."""
        return [{"move": move, "seat": seat, "text": text, "to": None if to is None else list(to)}
                for move, seat, text, to in self._messages]

    def conversation(self, int player) -> list:
        """The messages `player` has heard, in order: its own, the public ones and those addressed
        to it; {"move", "seat", "text"} plus "to" (the seats that heard it) for a private one."""
        heard = []
        for move, seat, text, to in self._messages:
            if to is None:
                heard.append({"move": move, "seat": seat, "text": text})
            elif seat == player or player in to:
                heard.append({"move": move, "seat": seat, "text": text, "to": list(to)})
        return heard

    def read_reply(self, int player, str text) -> tuple:
        """(action, message) from one free-text reply when the decision carries a message: with a
        single legal action the whole reply is the message; otherwise the action is read with
        parse_action and the reply is the message. Games with a fixed answer layout (talk, then a
        plan line) override it. Raises ActionParseError."""
        legal = self.legal_actions(player)
        if len(legal) == 1:
            return legal[0], text
        return self.parse_action(player, text), text

    def random_decision(self, int player, rng) -> tuple:
        """(action, message) for random play by `player` now: a uniformly random legal action, with a
        random_message when the decision carries a message (None otherwise). Drivers of random
        playouts use it so that dialogue games are played by the same rules as the others."""
        action = rng.choice(self.legal_actions(player))
        spec = self.text_action_spec(player)
        return action, (self.random_message(player, rng) if spec and spec.get("message") else None)

    def step_randomly(self, rng):
        """Plays one random step: a chance outcome by its probability, or a random_decision of each
        acting seat. For random playouts in tests and tools (search has its own C-level rollouts)."""
        cdef int p = self.c_current_player()
        if p == CHANCE_PLAYER:
            outcomes = self.chance_outcomes()
            self.apply_action(rng.choices([a for a, _ in outcomes], weights=[w for _, w in outcomes])[0])
        elif p == SIMULTANEOUS_PLAYER:
            actions, messages = [0] * self.num_players, [None] * self.num_players
            for seat in self.current_players():
                actions[seat], messages[seat] = self.random_decision(seat, rng)
            self.apply_actions(actions, messages if any(m is not None for m in messages) else None)
        elif p >= 0:
            self.apply_action(*self.random_decision(p, rng))
        else:
            raise IllegalActionError("the game is over")

    def default_message(self, int player):
        """The game's documented fallback message when an agent gave no valid one (LLMArena's
        single-space clue), or None: the referee then uses random_message."""
        return None

    def random_message(self, int player, rng=None) -> str:
        """An acceptable message for random play (house random agent, playthroughs, property tests):
        a few neutral words that pass check_message. Games whose messages have a format override it."""
        rng = rng or _random.Random(0)
        for _ in range(20):
            text = " ".join(rng.sample(RANDOM_WORDS, rng.randint(1, 3)))
            try:
                return self.check_message(player, text)
            except TextRejectedError:
                continue
        raise TextRejectedError("no random message passes this game's rules; the game must override random_message")

    def returns(self) -> list:
        cdef double* buf = <double*>malloc(self.num_players * sizeof(double))
        try:
            self.c_returns(buf)
            return [buf[i] for i in range(self.num_players)]
        finally:
            free(buf)

    def history(self) -> list:
        """Every applied move: (seat, action) or (SIMULTANEOUS, (a0, a1, ...)) or (CHANCE, a)."""
        return list(self._history)

    def clone(self):
        return self.c_clone()

    def resample_hidden(self, int player, seed) -> "State":
        """A copy in which everything `player` cannot see is redrawn at random, consistently with
        its observations (determinization). Equal to a plain clone in perfect-information games."""
        cdef Rng rng
        rng.s = <unsigned long long>(seed & 0xFFFFFFFFFFFFFFFF)
        cdef State copy = self.c_clone()
        copy.c_resample_hidden(player, &rng)
        return copy

    # ---- Views: subclasses override -----------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        return str(action)

    def parse_action(self, int player, str text) -> int:
        """Turns an agent's text into a legal action id of `player`, accepting the canonical
        action text and each paper's answer format. Raises ActionParseError with feedback."""
        cleaned = text.strip()
        for a in self.legal_actions(player):
            if self.action_to_string(player, a).lower() == cleaned.lower():
                return a
        raise ActionParseError(f"could not read an action from {text!r}")

    def default_action(self, int player):
        """The game's documented fallback for `player` when its agent gave no valid answer (e.g.
        GAMA-Bench's "stay" in El Farol), or None when the game has none. The referee plays it under
        the failure policy "game_default"; it must be a legal action of `player` now."""
        return None

    def text_action_spec(self, int player):
        """None, or what free text `player` may send now: {"description", "max_length",
        "forbidden_words"} when the game reads typed answers (a number, a move), plus "message":
        "required" | "optional" when the decision carries a message (dialogue), and optionally
        "example" (an acceptable message) and "audience" (the seats that will hear it)."""
        return None

    def observation_string(self, int player) -> str:
        raise NotImplementedError

    def observation_dict(self, int player) -> dict:
        raise NotImplementedError

    def probes(self) -> list:
        """Questions due now that never affect the game (MAgIC's metric probes): each a dict with
        "probe_id" (unique in the match: the referee asks each once), "seat", "question", and
        optionally "choices" (allowed answers) and "data". None in most games."""
        return []

    def observation_image(self, int player):
        """A picture of `player`'s view as (mime type, bytes), in games that render one; None here.
        It shows nothing the text and data views do not."""
        return None

    def public_history(self) -> list:
        """Public moves as (seat, action, text); action -1 when only a summary is public.
        Default: every move is public (perfect-information sequential games)."""
        out = []
        for seat, action in self._history:
            out.append((seat, action, self.action_to_string(seat, action) if seat >= 0 else str(action)))
        return out

    def result_summary(self) -> str:
        """One line describing the outcome, once terminal."""
        return "returns " + ", ".join(f"{r:g}" for r in self.returns())

    def result_details(self) -> dict:
        """Game-specific outcome data revealed at the end (JSON-compatible)."""
        return {}

    def __str__(self):
        return self.observation_string(0)
