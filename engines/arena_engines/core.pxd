# The common interface of every game core.
#
# Search code (MCTS, random rollouts) drives a state only through the cdef methods below, which
# are typed C-level calls with no Python objects in the loop. The Python-level API (core.pyx)
# is written once on top of them, so a game implements only the c_* methods plus its text views.

# Player ids with a special meaning, as in OpenSpiel.
cdef enum:
    CHANCE_PLAYER = -1
    SIMULTANEOUS_PLAYER = -2
    INVALID_PLAYER = -3
    TERMINAL_PLAYER = -4
    MAX_ACTIONS = 1024   # upper bound on the number of distinct action ids of one decision


cdef class State:
    cdef readonly object game          # the Game this state belongs to
    cdef readonly int num_players
    cdef readonly int move_number      # decisions applied so far (joint moves count once)
    cdef list _history                 # (player, action) pairs; player -2 for a joint move

    # Who acts: a seat, SIMULTANEOUS_PLAYER, CHANCE_PLAYER or TERMINAL_PLAYER.
    cdef int c_current_player(self) noexcept
    # In simultaneous states: whether `player` must act now (False for eliminated seats).
    cdef bint c_is_acting(self, int player) noexcept
    # Writes the legal action ids of `player` in increasing order into `out`; returns their count.
    cdef int c_legal_actions(self, int player, int* out) noexcept
    # Applies one action of the current player (or a chance outcome).
    cdef void c_apply_action(self, int action) noexcept
    # Applies one action per seat at a simultaneous node (non-acting seats' entries are ignored).
    cdef void c_apply_joint(self, int* actions) noexcept
    # Writes the per-seat returns into `out`; meaningful once terminal (zeros before).
    cdef void c_returns(self, double* out) noexcept
    # Chance outcomes at a chance node: writes ids and probabilities, returns their count.
    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept
    # A deep copy.
    cdef State c_clone(self)
    # Copies the base-class fields into a freshly allocated clone.
    cdef void _copy_base_into(self, State other)
