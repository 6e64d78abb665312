"""Monte Carlo tree search over the C-level game interface (core.pxd), at native speed.

The search follows OpenSpiel's MCTSBot with a random-rollout evaluator, as GTBench used it: UCT with
exploration constant c (default 2), one uniformly random rollout per new leaf, optional MCTS-Solver
(proven wins and losses are backed up and preferred), the final move being the proven best or else
the most visited. Chance nodes are descended by sampling the game's own chance probabilities.

The tree lives in C arrays (nodes, edges, per-slot edge ranges, joint actions) addressed by index;
the select/expand/rollout/backup loop calls only the typed c_* methods of a State and the core Rng.
Each simulation starts from a clone of the root; a tree is built per move and then dropped.

Statistics sit on edges: an edge holds the visits and the summed returns of the seat that chose it,
so a seat maximises its own return (max^n, which is minimax in two-player zero-sum games).

Imperfect information: determinization with one shared tree (single-observer information-set MCTS,
Cowling, Powley & Whitehouse 2012). `step` first rebuilds the state from the seat's own observation
(`Game.state_from_view(seat, state.observation_dict(seat))`), so the search never reads hidden
state; each simulation then descends from a fresh `c_resample_hidden(seat)` of that rebuilt root.
Because the legal actions below the root may differ between determinizations (an opponent's bids
depend on its hidden valuation), edges are added as they become legal and UCT counts, for each
edge, the parent visits in which it was available instead of all parent visits. The solver is off in
this mode: an outcome proven in one determinization says nothing about the others. Passing
`determinize=False` searches the given state as it is, hidden information included: GTBench's
clairvoyant MCTS opponent, usable only in-process where the true state is at hand.

Simultaneous nodes: decoupled UCT (Lanctot, Lisy & Winands 2013; Tak, Lanctot & Winands 2014). Each
acting seat keeps its own edges and chooses by UCT over them with its own returns, not seeing the
others' choices; the joint action leads to a child node keyed by the whole joint action. At a
simultaneous root the seat plays its most visited action (DUCT "max"). The solver does not reason
through simultaneous nodes (a pure-strategy proof does not exist in general).

Returns on other scales than a win/loss game's: the exploration constant is multiplied by half the
spread of the returns seen in the search when that spread exceeds 2 (see `_note_returns`), so that
c = 2 means the same in a prisoner's dilemma paying tens of points as in tic-tac-toe; in games whose
returns lie in [-1, 1] the search is exactly OpenSpiel's.

Rollouts end at a terminal state or after `max_rollout_steps` moves, chance outcomes included (None:
no limit; the game's max_game_length bounds it); a cut rollout scores the state's returns as they
stand (zeros before the end for most games).
"""

from libc.math cimport INFINITY, log, sqrt
from libc.stdlib cimport free, malloc, realloc

from arena_engines.core cimport (CHANCE_PLAYER, MAX_ACTIONS, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng,
                                 State, rng_below, rng_uniform)

cdef enum:
    NOT_EXPANDED = -100     # Node.player before the node is expanded
    ROOT = 0                # index of the root node


cdef struct Edge:
    int action
    int child               # node reached through this edge; -1 until first taken (simultaneous: unused)
    int visits
    int available           # determinized search: parent visits in which the action was legal
    double total            # sum of the returns, to the seat that chose the edge, of simulations through it


cdef struct Node:
    int player              # who acts here (seat, CHANCE, SIMULTANEOUS, TERMINAL) or NOT_EXPANDED
    int visits              # simulations that passed through the node
    int ranges              # offset in the range pool: per slot (start edge, edge count)
    int first_child         # simultaneous node: head of its list of children, -1 when none
    int next_sibling        # child of a simultaneous node: the next child of the same parent
    int joint               # child of a simultaneous node: offset of its joint action in the joint pool
    bint solved             # the solver proved the node's outcome (stored in the outcome pool)


cdef struct Step:
    int node
    int edge                # -1 for a chance step
    int seat                # the seat credited on the edge


cdef int _grow(void** pool, int* capacity, int needed, size_t item) except -1:
    """Makes `*pool` hold at least `needed` items, doubling its capacity (indices stay valid)."""
    cdef int new_capacity = capacity[0] if capacity[0] > 0 else 64
    cdef void* grown
    if needed <= capacity[0]:
        return 0
    while new_capacity < needed:
        new_capacity *= 2
    grown = realloc(pool[0], new_capacity * item)
    if grown == NULL:
        raise MemoryError("MCTS tree")
    pool[0] = grown
    capacity[0] = new_capacity
    return 0


cdef int _sample_chance(State s, Rng* rng, int* actions, double* probs) noexcept:
    """Index (into `actions`) of a chance outcome drawn by its probability; -1 when there is none."""
    cdef int n = s.c_chance_outcomes(actions, probs)
    cdef double u, acc = 0.0
    cdef int i
    if n <= 0:
        return -1
    u = rng_uniform(rng)
    for i in range(n - 1):
        acc += probs[i]
        if u < acc:
            return i
    return n - 1


cdef void _playout(State s, Rng* rng, long max_steps, int* actions, double* probs, int* joint,
                   double* returns) noexcept:
    """Plays uniformly random legal actions (chance by its probabilities) from `s`, in place, and
    writes the returns. Stops early after `max_steps` moves (< 0: no limit)."""
    cdef long steps = 0
    cdef int p, n, i, seat
    while max_steps < 0 or steps < max_steps:
        p = s.c_current_player()
        if p == TERMINAL_PLAYER:
            break
        if p == CHANCE_PLAYER:
            i = _sample_chance(s, rng, actions, probs)
            if i < 0:
                break
            s.c_apply_action(actions[i])
        elif p == SIMULTANEOUS_PLAYER:
            for seat in range(s.num_players):
                joint[seat] = 0
                if s.c_is_acting(seat):
                    n = s.c_legal_actions(seat, actions)
                    if n > 0:
                        joint[seat] = actions[rng_below(rng, n)]
            s.c_apply_joint(joint)
        else:
            n = s.c_legal_actions(p, actions)
            if n <= 0:
                break
            s.c_apply_action(actions[rng_below(rng, n)])
        steps += 1
    s.c_returns(returns)


def random_playouts(State state, int count, seed=0) -> list:
    """Mean returns per seat of `count` uniformly random playouts from `state` (left unchanged),
    run entirely at C level: the evaluator MCTS uses, exposed for tests and benchmarks."""
    cdef Rng rng
    cdef int n = state.num_players
    cdef int* actions = <int*>malloc(MAX_ACTIONS * sizeof(int))
    cdef double* probs = <double*>malloc(MAX_ACTIONS * sizeof(double))
    cdef int* joint = <int*>malloc(n * sizeof(int))
    cdef double* returns = <double*>malloc(n * sizeof(double))
    cdef double* sums = <double*>malloc(n * sizeof(double))
    cdef int i, p
    cdef State s
    rng.s = <unsigned long long>(seed & 0xFFFFFFFFFFFFFFFF)
    try:
        if actions == NULL or probs == NULL or joint == NULL or returns == NULL or sums == NULL:
            raise MemoryError()
        for p in range(n):
            sums[p] = 0.0
        for i in range(count):
            s = state.c_clone()
            _playout(s, &rng, -1, actions, probs, joint, returns)
            for p in range(n):
                sums[p] += returns[p]
        return [sums[p] / count if count > 0 else 0.0 for p in range(n)]
    finally:
        free(actions)
        free(probs)
        free(joint)
        free(returns)
        free(sums)


cdef class MCTSBot:
    """UCT search with random rollouts over one game.

        bot = MCTSBot(game, simulations=1000, uct_c=2.0, seed=0)
        action = bot.step(state, seat)

    `seed` fixes the bot's random stream: two bots built alike and asked the same questions in the
    same order answer alike. `solve` enables MCTS-Solver (perfect-information search only).
    `determinize` defaults to True exactly for imperfect-information games (see the module doc).
    """

    cdef readonly object game
    cdef readonly int simulations
    cdef readonly double uct_c
    cdef readonly bint solve
    cdef readonly bint determinize
    cdef readonly object max_rollout_steps
    cdef long rollout_limit          # max_rollout_steps as a C value, -1 for none
    cdef int num_players
    cdef double max_utility
    cdef Rng rng

    # The tree: pools addressed by index, reused from move to move.
    cdef Node* nodes
    cdef int n_nodes, cap_nodes
    cdef Edge* edges
    cdef int n_edges, cap_edges
    cdef int* ranges
    cdef int n_ranges, cap_ranges
    cdef int* joints
    cdef int n_joints, cap_joints
    cdef double* outcomes            # num_players per node, meaningful when the node is solved
    cdef int cap_outcomes

    # The current simulation's path: one entry per edge taken (several at a simultaneous node).
    cdef Step* path
    cdef int n_path, cap_path
    cdef int root_slot               # the searching seat's edge slot at the root
    cdef double low, high            # the lowest and highest return seen in this search
    cdef double explore              # uct_c scaled to the spread of the returns (see _note_returns)

    # Scratch buffers.
    cdef int actions[MAX_ACTIONS]
    cdef double probs[MAX_ACTIONS]
    cdef int avail[MAX_ACTIONS]      # determinized search: edges legal in this determinization
    cdef int* joint
    cdef double* returns

    def __init__(self, game, int simulations=1000, double uct_c=2.0, seed=0, bint solve=True,
                 max_rollout_steps=None, determinize=None):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        if uct_c < 0:
            raise ValueError(f"uct_c must be non-negative, not {uct_c}")
        if max_rollout_steps is not None and max_rollout_steps < 0:
            raise ValueError(f"max_rollout_steps must be non-negative, not {max_rollout_steps}")
        self.game = game
        self.simulations = simulations
        self.uct_c = uct_c
        self.determinize = (game.spec.information == "imperfect") if determinize is None else bool(determinize)
        self.solve = solve and not self.determinize
        self.max_rollout_steps = max_rollout_steps
        self.rollout_limit = -1 if max_rollout_steps is None else max_rollout_steps
        self.num_players = game.num_players
        self.max_utility = game.spec.max_utility
        self.rng.s = <unsigned long long>(seed & 0xFFFFFFFFFFFFFFFF)
        self.joint = <int*>malloc(self.num_players * sizeof(int))
        self.returns = <double*>malloc(self.num_players * sizeof(double))
        if self.joint == NULL or self.returns == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)
        free(self.ranges)
        free(self.joints)
        free(self.outcomes)
        free(self.path)
        free(self.joint)
        free(self.returns)

    # ---- Python API -------------------------------------------------------------------------------
    def step(self, State state, int seat=-1) -> int:
        """The action the search picks for `seat` (default: the seat to move) in `state`.

        In determinized mode the search starts from the seat's own view of `state`, never from its
        hidden information. Raises ValueError at chance and terminal states, or when `seat` does not
        act now."""
        seat = self._acting_seat(state, seat)
        if self.determinize:
            return self.step_from_view(seat, state.observation_dict(seat))
        return self._best_action(state, seat)

    def step_from_view(self, int seat, dict view) -> int:
        """The action for `seat` given only its observation (`observation_dict(seat)`), as a remote
        agent or a house agent receives it: the state is rebuilt with `Game.state_from_view`."""
        cdef State state = self.game.state_from_view(seat, view)
        return self._best_action(state, self._acting_seat(state, seat))

    def root_statistics(self) -> list:
        """(action, visits, mean return) of the searching seat's root edges after the last step."""
        if self.n_nodes == 0 or self.nodes[ROOT].player == NOT_EXPANDED:
            return []
        cdef int slot = self.root_slot
        cdef int r = self.nodes[ROOT].ranges + 2 * slot
        cdef int i
        cdef Edge* e
        out = []
        for i in range(self.ranges[r], self.ranges[r] + self.ranges[r + 1]):
            e = &self.edges[i]
            out.append((e.action, e.visits, e.total / e.visits if e.visits else 0.0))
        return out

    cdef int _acting_seat(self, State state, int seat) except -1:
        cdef int p = state.c_current_player()
        if p == TERMINAL_PLAYER or p == CHANCE_PLAYER:
            raise ValueError("MCTS decides only at decision nodes (this is a "
                             + ("terminal" if p == TERMINAL_PLAYER else "chance") + " state)")
        if p == SIMULTANEOUS_PLAYER:
            if not (0 <= seat < state.num_players and state.c_is_acting(seat)):
                raise ValueError(f"seat {seat} does not act at this simultaneous node")
            return seat
        if seat >= 0 and seat != p:
            raise ValueError(f"seat {seat} does not act now (seat {p} does)")
        return p

    cdef int _best_action(self, State root, int seat) except -1:
        cdef int n = root.c_legal_actions(seat, self.actions)
        if n == 0:
            raise ValueError(f"seat {seat} has no legal action")
        if n == 1:
            self.n_nodes = 0
            return self.actions[0]      # nothing to search
        self._search(root, seat)
        return self._final_choice(root, seat)

    # ---- search -----------------------------------------------------------------------------------
    cdef int _search(self, State root, int seat) except -1:
        cdef int i
        cdef State s
        self.n_nodes = self.n_edges = self.n_ranges = self.n_joints = 0
        self.low, self.high = INFINITY, -INFINITY
        self.explore = self.uct_c
        self._new_node()
        self.root_slot = seat if root.c_current_player() == SIMULTANEOUS_PLAYER else 0
        for i in range(self.simulations):
            s = root.c_clone()
            if self.determinize:
                s.c_resample_hidden(seat, &self.rng)
            self._simulate(s)
            if self.nodes[ROOT].solved:
                break
        return 0

    cdef int _simulate(self, State s) except -1:
        """One simulation: descend by UCT to a new leaf, evaluate it, back the returns up."""
        cdef int node = ROOT
        cdef int p
        cdef bint reached_terminal = False
        self.n_path = 0
        while True:
            p = s.c_current_player()
            if p == TERMINAL_PLAYER:
                s.c_returns(self.returns)
                reached_terminal = True
                if self.nodes[node].player == NOT_EXPANDED:
                    self.nodes[node].player = TERMINAL_PLAYER
                    if self.solve:
                        self._set_outcome(node, self.returns)
                self.nodes[node].visits += 1
                break
            if self.nodes[node].player == NOT_EXPANDED:
                if self.nodes[node].visits == 0 and node != ROOT:
                    # A new leaf: one random rollout estimates its value.
                    self.nodes[node].visits = 1
                    _playout(s, &self.rng, self.rollout_limit, self.actions, self.probs, self.joint, self.returns)
                    break
                if not self._expand(node, p, s):
                    self.nodes[node].visits += 1
                    s.c_returns(self.returns)
                    break
            elif self.nodes[node].player != p:
                # This determinization disagrees about who acts here: evaluate without descending.
                self.nodes[node].visits += 1
                _playout(s, &self.rng, self.rollout_limit, self.actions, self.probs, self.joint, self.returns)
                break
            if p == CHANCE_PLAYER:
                node = self._descend_chance(node, s)
            elif p == SIMULTANEOUS_PLAYER:
                node = self._descend_simultaneous(node, s)
            else:
                node = self._descend_decision(node, p, s)
            if node < 0:     # nothing to choose from (a game without a legal action here)
                s.c_returns(self.returns)
                break
        self._backpropagate(reached_terminal and self.solve)
        return 0

    cdef bint _expand(self, int node, int p, State s) except -1:
        """Creates the node's edges for the state's legal actions (per acting seat at a simultaneous
        node, the chance outcomes at a chance node). False when there is nothing to expand."""
        cdef int slots = self.num_players if p == SIMULTANEOUS_PLAYER else 1
        cdef int slot, n, r
        r = self._alloc_ranges(2 * slots)
        self.nodes[node].ranges = r
        self.nodes[node].player = p
        for slot in range(slots):
            if p == CHANCE_PLAYER:
                n = s.c_chance_outcomes(self.actions, self.probs)
            elif p == SIMULTANEOUS_PLAYER:
                n = s.c_legal_actions(slot, self.actions) if s.c_is_acting(slot) else 0
            else:
                n = s.c_legal_actions(p, self.actions)
            self.ranges[r + 2 * slot] = self._new_edges(self.actions, n)
            self.ranges[r + 2 * slot + 1] = n
            if n == 0 and p != SIMULTANEOUS_PLAYER:
                return False
        return True

    cdef int _descend_decision(self, int node, int p, State s) except -2:
        cdef int r = self.nodes[node].ranges
        cdef int start = self.ranges[r], count = self.ranges[r + 1]
        cdef int e, child, n
        if self.determinize:
            n = s.c_legal_actions(p, self.actions)
            count = self._available_edges(node, 0, self.actions, n)
            e = self._select(0, count, self.avail, p, 0.0)
            self._count_available(count)
        else:
            e = self._select(start, count, NULL, p, log(<double>self.nodes[node].visits))
        if e < 0:
            return -1
        self.nodes[node].visits += 1
        s.c_apply_action(self.edges[e].action)
        self._push_path(node, e, p)
        child = self.edges[e].child
        if child < 0:
            child = self._new_node()
            self.edges[e].child = child
        return child

    cdef int _descend_chance(self, int node, State s) except -2:
        cdef int i = _sample_chance(s, &self.rng, self.actions, self.probs)
        cdef int e, child
        if i < 0:
            return -1
        if self.determinize:
            # The outcomes may differ between determinizations: find (or add) the drawn one.
            e = self._edge_for(node, self.actions[i])
        else:
            e = self.ranges[self.nodes[node].ranges] + i
        self.nodes[node].visits += 1
        s.c_apply_action(self.edges[e].action)
        self._push_path(node, -1, CHANCE_PLAYER)
        child = self.edges[e].child
        if child < 0:
            child = self._new_node()
            self.edges[e].child = child
        return child

    cdef int _descend_simultaneous(self, int node, State s) except -2:
        """Decoupled UCT: each acting seat picks from its own edges; the joint action selects the child."""
        cdef int seat, r, n, count, e, child, k
        cdef double log_visits = log(<double>self.nodes[node].visits)
        for seat in range(self.num_players):
            self.joint[seat] = 0
            if not s.c_is_acting(seat):
                continue
            r = self.nodes[node].ranges + 2 * seat
            if self.determinize:
                n = s.c_legal_actions(seat, self.actions)
                count = self._available_edges(node, seat, self.actions, n)
                e = self._select(0, count, self.avail, seat, 0.0)
                self._count_available(count)
            else:
                e = self._select(self.ranges[r], self.ranges[r + 1], NULL, seat, log_visits)
            if e < 0:
                return -1
            self.joint[seat] = self.edges[e].action
            self._push_path(node, e, seat)
        self.nodes[node].visits += 1
        s.c_apply_joint(self.joint)
        child = self.nodes[node].first_child
        while child >= 0:
            if self._same_joint(self.nodes[child].joint):
                return child
            child = self.nodes[child].next_sibling
        k = self._alloc_joints(self.num_players)
        for seat in range(self.num_players):
            self.joints[k + seat] = self.joint[seat]
        child = self._new_node()
        self.nodes[child].joint = k
        self.nodes[child].next_sibling = self.nodes[node].first_child
        self.nodes[node].first_child = child
        return child

    cdef bint _same_joint(self, int k) noexcept:
        cdef int seat
        for seat in range(self.num_players):
            if self.joints[k + seat] != self.joint[seat]:
                return False
        return True

    cdef int _select(self, int start, int count, int* indices, int seat, double log_parent) noexcept:
        """The UCT choice among `count` edges: edges start.. when `indices` is NULL (log_parent is
        the log of the parent's visits), else the edges listed in `indices` (determinized search:
        each edge's own availability count replaces the parent's visits). Untried edges come
        first, in random order; a solved edge is worth its proven outcome."""
        cdef int i, e, best = -1, untried = 0
        cdef double value, best_value = -INFINITY
        cdef Edge* edge
        for i in range(count):
            e = indices[i] if indices != NULL else start + i
            edge = &self.edges[e]
            if edge.visits == 0:
                untried += 1
                if rng_below(&self.rng, untried) == 0:
                    best = e
            elif untried == 0:
                if edge.child >= 0 and self.nodes[edge.child].solved:
                    value = self.outcomes[edge.child * self.num_players + seat]
                elif indices != NULL:
                    value = edge.total / edge.visits + self.explore * sqrt(log(<double>edge.available) / edge.visits)
                else:
                    value = edge.total / edge.visits + self.explore * sqrt(log_parent / edge.visits)
                if value > best_value:
                    best_value = value
                    best = e
        return best

    cdef int _available_edges(self, int node, int slot, int* legal, int n) except -1:
        """Determinized search: adds edges for the actions of `legal` (increasing) the node lacks,
        then lists in self.avail the node's edges that are legal now; returns how many."""
        cdef int r = self.nodes[node].ranges + 2 * slot
        cdef int start = self.ranges[r], count = self.ranges[r + 1]
        cdef int i = 0, j = 0, k, m = 0, missing = 0, merged
        while j < n:
            if i < count and self.edges[start + i].action < legal[j]:
                i += 1
            elif i < count and self.edges[start + i].action == legal[j]:
                i += 1
                j += 1
            else:
                missing += 1
                j += 1
        if missing:
            # Move the range to the end of the edge pool, merged in action order.
            merged = self._alloc_edges(count + missing)
            i = j = k = 0
            while i < count or j < n:
                if j >= n or (i < count and self.edges[start + i].action < legal[j]):
                    self.edges[merged + k] = self.edges[start + i]
                    i += 1
                elif i < count and self.edges[start + i].action == legal[j]:
                    self.edges[merged + k] = self.edges[start + i]
                    i += 1
                    j += 1
                else:
                    self._init_edge(merged + k, legal[j])
                    j += 1
                k += 1
            start = merged
            count = count + missing
            self.ranges[r] = start
            self.ranges[r + 1] = count
        i = j = 0
        while i < count and j < n:
            if self.edges[start + i].action < legal[j]:
                i += 1
            elif self.edges[start + i].action == legal[j]:
                self.avail[m] = start + i
                m += 1
                i += 1
                j += 1
            else:
                j += 1
        return m

    cdef void _count_available(self, int count) noexcept:
        cdef int i
        for i in range(count):
            self.edges[self.avail[i]].available += 1

    cdef int _edge_for(self, int node, int action) except -1:
        """The edge of `action` at a chance node, added when this determinization first draws it."""
        cdef int r = self.nodes[node].ranges
        cdef int start = self.ranges[r], count = self.ranges[r + 1]
        cdef int i, moved
        for i in range(start, start + count):
            if self.edges[i].action == action:
                return i
        moved = self._alloc_edges(count + 1)
        for i in range(count):
            self.edges[moved + i] = self.edges[start + i]
        self._init_edge(moved + count, action)
        self.ranges[r] = moved
        self.ranges[r + 1] = count + 1
        return moved + count

    cdef void _backpropagate(self, bint solved) noexcept:
        """Credits each edge taken with the returns of the seat that chose it; with the solver, walks
        the proof up from a terminal leaf while the nodes on the path become proven."""
        cdef int i, e, node, last = -1
        self._note_returns()
        for i in range(self.n_path):
            e = self.path[i].edge
            if e >= 0:
                self.edges[e].visits += 1
                self.edges[e].total += self.returns[self.path[i].seat]
        i = self.n_path - 1
        while solved and i >= 0:
            node = self.path[i].node
            i -= 1
            if node != last:
                last = node
                solved = self._try_solve(node)

    cdef void _note_returns(self) noexcept:
        """UCT's exploration term assumes returns on the scale of a win/loss game ([-1, 1]). Games
        that pay more (prisoner's dilemma totals, auction surpluses) would make c = 2 negligible and
        the search greedy, so the constant is scaled by half the spread of the returns seen so far
        whenever that spread exceeds 2; win/loss games keep exactly uct_c."""
        cdef int k
        for k in range(self.num_players):
            if self.returns[k] < self.low:
                self.low = self.returns[k]
            if self.returns[k] > self.high:
                self.high = self.returns[k]
        if self.high - self.low > 2.0:
            self.explore = self.uct_c * (self.high - self.low) / 2.0

    cdef bint _try_solve(self, int node) noexcept:
        """MCTS-Solver at a node whose child was just proven (as OpenSpiel's MCTSBot): a decision
        node is proven when a child gives its seat the maximal utility or every child is proven (it
        then takes its seat's best child outcome); a chance node when every outcome is proven equal."""
        cdef int p = self.nodes[node].player
        cdef int r = self.nodes[node].ranges
        cdef int start = self.ranges[r], count = self.ranges[r + 1]
        cdef int i, k, child, best = -1
        cdef bint all_solved = True
        cdef double* a
        cdef double* b
        if p == SIMULTANEOUS_PLAYER:
            return False
        for i in range(start, start + count):
            child = self.edges[i].child
            if child < 0 or not self.nodes[child].solved:
                all_solved = False
                if p == CHANCE_PLAYER:
                    return False
                continue
            if p == CHANCE_PLAYER:
                if best >= 0:
                    a = &self.outcomes[best * self.num_players]
                    b = &self.outcomes[child * self.num_players]
                    for k in range(self.num_players):
                        if a[k] != b[k]:
                            return False
                best = child
            elif best < 0 or (self.outcomes[child * self.num_players + p]
                              > self.outcomes[best * self.num_players + p]):
                best = child
        if best < 0:
            return False
        if not (all_solved or self.outcomes[best * self.num_players + p] >= self.max_utility):
            return False
        self._set_outcome(node, &self.outcomes[best * self.num_players])
        return True

    cdef void _set_outcome(self, int node, double* outcome) noexcept:
        cdef int k
        for k in range(self.num_players):
            self.outcomes[node * self.num_players + k] = outcome[k]
        self.nodes[node].solved = True

    cdef int _final_choice(self, State root, int seat) except -1:
        """Among the seat's legal root actions: a proven outcome first (best for the seat), then the
        most visits, then the highest total return (OpenSpiel's ordering)."""
        cdef int n = root.c_legal_actions(seat, self.actions)
        cdef int r = self.nodes[ROOT].ranges + 2 * self.root_slot
        cdef int start = self.ranges[r], count = self.ranges[r + 1]
        cdef int i = 0, j = 0, best = -1
        cdef double proven, best_proven = 0.0
        cdef Edge* e
        cdef Edge* b
        while i < count and j < n:
            e = &self.edges[start + i]
            if e.action < self.actions[j]:
                i += 1
                continue
            if e.action > self.actions[j]:
                j += 1
                continue
            proven = 0.0
            if e.child >= 0 and self.nodes[e.child].solved:
                proven = self.outcomes[e.child * self.num_players + seat]
            if best < 0:
                best, best_proven = start + i, proven
            else:
                b = &self.edges[best]
                if (proven > best_proven or (proven == best_proven and (e.visits > b.visits or (
                        e.visits == b.visits and e.total > b.total)))):
                    best, best_proven = start + i, proven
            i += 1
            j += 1
        if best < 0:
            return self.actions[0]
        return self.edges[best].action

    # ---- pools ------------------------------------------------------------------------------------
    cdef int _new_node(self) except -1:
        cdef int i = self.n_nodes
        _grow(<void**>&self.nodes, &self.cap_nodes, i + 1, sizeof(Node))
        _grow(<void**>&self.outcomes, &self.cap_outcomes, (i + 1) * self.num_players, sizeof(double))
        self.n_nodes = i + 1
        self.nodes[i].player = NOT_EXPANDED
        self.nodes[i].visits = 0
        self.nodes[i].ranges = -1
        self.nodes[i].first_child = -1
        self.nodes[i].next_sibling = -1
        self.nodes[i].joint = -1
        self.nodes[i].solved = False
        return i

    cdef int _alloc_edges(self, int count) except -1:
        cdef int start = self.n_edges
        _grow(<void**>&self.edges, &self.cap_edges, start + count, sizeof(Edge))
        self.n_edges = start + count
        return start

    cdef void _init_edge(self, int e, int action) noexcept:
        self.edges[e].action = action
        self.edges[e].child = -1
        self.edges[e].visits = 0
        self.edges[e].available = 0
        self.edges[e].total = 0.0

    cdef int _new_edges(self, int* actions, int n) except -1:
        cdef int start = self._alloc_edges(n)
        cdef int i
        for i in range(n):
            self._init_edge(start + i, actions[i])
        return start

    cdef int _alloc_ranges(self, int count) except -1:
        cdef int start = self.n_ranges
        _grow(<void**>&self.ranges, &self.cap_ranges, start + count, sizeof(int))
        self.n_ranges = start + count
        return start

    cdef int _alloc_joints(self, int count) except -1:
        cdef int start = self.n_joints
        _grow(<void**>&self.joints, &self.cap_joints, start + count, sizeof(int))
        self.n_joints = start + count
        return start

    cdef int _push_path(self, int node, int edge, int seat) except -1:
        cdef int i = self.n_path
        _grow(<void**>&self.path, &self.cap_path, i + 1, sizeof(Step))
        self.path[i].node = node
        self.path[i].edge = edge
        self.path[i].seat = seat
        self.n_path = i + 1
        return 0
