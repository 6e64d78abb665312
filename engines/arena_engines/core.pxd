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


# A small, fast random generator (splitmix64) for rollouts and resampling in C-level loops.
cdef struct Rng:
    unsigned long long s

cdef inline unsigned long long rng_next(Rng* r) noexcept nogil:
    cdef unsigned long long z
    r.s += 0x9E3779B97F4A7C15ULL
    z = r.s
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)

# Uniform integer in [0, n), n > 0 (the modulo bias is below 2^-40 for any n used here).
cdef inline int rng_below(Rng* r, int n) noexcept nogil:
    return <int>(rng_next(r) % <unsigned long long>n)

# Uniform double in [0, 1).
cdef inline double rng_uniform(Rng* r) noexcept nogil:
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)


cdef class State:
    cdef readonly object game          # the Game this state belongs to
    cdef readonly int num_players
    cdef readonly int move_number      # decisions applied so far (joint moves count once)
    cdef list _history                 # (player, action) pairs; player -2 for a joint move
    cdef list _messages                # what seats said with their actions (dialogue; see core.pyx)

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
    # Imperfect information: replaces, in place, every hidden quantity `player` cannot see (other
    # seats' cards, dice, valuations; undealt cards) by a random assignment consistent with what
    # `player` has observed. Determinized search calls it on a clone; perfect-information games
    # keep the default, which does nothing.
    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept
    # A deep copy.
    cdef State c_clone(self)
    cdef bint _is_chance_outcome(self, int action)
    # Copies the base-class fields into a freshly allocated clone.
    cdef void _copy_base_into(self, State other)
