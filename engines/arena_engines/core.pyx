"""Python-level API shared by every game, written once over the C-level interface in core.pxd.

Vocabulary follows OpenSpiel: a `Game` makes states; a `State` has a current player (a seat,
SIMULTANEOUS_PLAYER, CHANCE_PLAYER or TERMINAL_PLAYER), legal actions per seat, `apply_action`
for sequential and chance nodes, `apply_actions` for simultaneous nodes, returns, and per-seat
observations as text and as JSON-compatible data.
"""

from libc.stdlib cimport malloc, free

CHANCE = CHANCE_PLAYER
SIMULTANEOUS = SIMULTANEOUS_PLAYER
INVALID = INVALID_PLAYER
TERMINAL = TERMINAL_PLAYER


class IllegalActionError(ValueError):
    """An action id that is not legal for the seat in this state."""


class ActionParseError(ValueError):
    """Text that the game cannot turn into an action. The message is feedback for the agent."""


cdef class State:
    """Base class of every game state; subclasses implement the c_* methods and the views."""

    def __init__(self, game, int num_players):
        self.game = game
        self.num_players = num_players
        self.move_number = 0
        self._history = []

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

    def apply_action(self, int action):
        """Applies the current seat's action, or a chance outcome. Raises IllegalActionError."""
        cdef int p = self.c_current_player()
        if p == SIMULTANEOUS_PLAYER:
            raise IllegalActionError("simultaneous node: use apply_actions")
        if p == TERMINAL_PLAYER:
            raise IllegalActionError("the game is over")
        if p == CHANCE_PLAYER:
            if not self._is_chance_outcome(action):
                raise IllegalActionError(f"{action} is not a chance outcome here")
        elif not self.is_legal(p, action):
            raise IllegalActionError(f"action {action} is not legal for seat {p}")
        self._history.append((p, action))
        self.c_apply_action(action)
        self.move_number += 1

    def apply_actions(self, actions):
        """Applies one action per seat at a simultaneous node. Entries of non-acting seats are
        ignored (pass 0). Raises IllegalActionError naming the first offending seat."""
        if self.c_current_player() != SIMULTANEOUS_PLAYER:
            raise IllegalActionError("not a simultaneous node")
        if len(actions) != self.num_players:
            raise IllegalActionError(f"expected {self.num_players} actions, got {len(actions)}")
        cdef int i
        for i in range(self.num_players):
            if self.c_is_acting(i) and not self.is_legal(i, actions[i]):
                raise IllegalActionError(f"action {actions[i]} is not legal for seat {i}")
        cdef int* buf = <int*>malloc(self.num_players * sizeof(int))
        try:
            for i in range(self.num_players):
                buf[i] = actions[i] if self.c_is_acting(i) else 0
            self._history.append((SIMULTANEOUS_PLAYER, tuple(actions)))
            self.c_apply_joint(buf)
        finally:
            free(buf)
        self.move_number += 1

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
        """None, or {"description", "max_length", "forbidden_words"} for free-text actions."""
        return None

    def observation_string(self, int player) -> str:
        raise NotImplementedError

    def observation_dict(self, int player) -> dict:
        raise NotImplementedError

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
