"""Pit, the commodity-trading game of GameBench (reference gamebench.md section 2.6): traders swap cards
to gather one commodity and "corner the market".

Cards. Nine cards each of four commodities worth Barley 85, Corn 75, Soyabeans 55 and Wheat 100
points, plus the Bull and the Bear: 38 cards (GameBench's deck; this order of the six kinds is the
code's and numbers them 0-5).

Seats and sides. Four seats, GameBench's four "virtual players": seats 0 and 1 form side 0 (GameBench's
agent 1), seats 2 and 3 side 1. `Game.seat_sides()` is [0, 0, 1, 1]: one agent holds both seats of its
side, each seat with its own hand and its own decisions.

Deal (chance). The 38 cards are dealt one chance node at a time, round-robin from seat 0 (seats 0 and 1
get 10 cards, seats 2 and 3 get 9, as GameBench's deal): each node draws a kind with probability
proportional to its undealt cards. Outcome id = kind (0 Barley, 1 Corn, 2 Soyabeans, 3 Wheat, 4 Bull,
5 Bear). A deal happens at the start and again after every corner.

Turns. Seats act one at a time in the order 0, 2, 1, 3, 0, 2, ... (GameBench let its two agents act in
turn, agent 1 first; here the sides alternate the same way and each side's two seats take its turns in
order). A turn is one action:
  Offer_<Commodity>_<q>   ids 0-23: id = 4 * kind + q - 1, q = 1..4, for all six kinds. If the seat
      holds q cards of that kind, the offer becomes the seat's pending offer, replacing its earlier one,
      and goes to the end of the list of pending offers. Otherwise nothing happens and the turn is
      spent (GameBench listed all 24 offers every turn and ignored one the hand could not cover).
  Accept_<t>_<Commodity>_<q>   ids 24-239: id = 24 + 54 * (t - 1) + 9 * kind + q - 1: accept pending
      offer number t (its position in the list, 1-4, oldest first, as GameBench numbered its trades),
      giving back q cards (1 up to what the seat holds) of one kind of the acceptor's choice, any kind.
      Only offers by the other side's seats can be accepted (GameBench's agent could not accept its own
      offers; its two virtual players were one agent). The offered cards move to the acceptor, the
      returned cards to the proposer; the offer is used up, and the acceptor's own pending offer is
      withdrawn (its hand changed).
All 24 offers are legal on every turn; the legal accepts are listed for each opposing pending offer and
each kind and number of cards the seat holds.

Corners. After every trade and every deal, each seat holding "corner_size" (6) or more cards of one
commodity, or one fewer and the Bull, corners it and scores its value, doubled when it holds
"corner_size" or more and the Bull (a double bull), minus 20 when it holds the Bear: e.g. 6 Wheat with
the Bull and the Bear score 2 x 100 - 20 = 180, 5 Corn with the Bull 75. A seat cornering two
commodities at once scores both. Then, unless the game is over, the cards are collected and dealt
again (pending offers lapse). A corner dealt by chance scores at once, before anyone acts (GameBench's
code scored it at its next check).

End and returns. The game ends as soon as a side's points (the sum of its two seats') reach
"winning_score" (500), or after "max_turns" (1000) turns, an arena limit (GameBench had none): at the
cap the game ends with the points as they stand. Returns are GameBench's match score: each side's share
of all points scored, side / (side 0 + side 1), 0.5 each when no corner was scored; every seat gets its
side's share ("constant_sum", 0 to 1). Corner points are at least 55 - 20 = 35, so a share is never
negative.

Information. A seat sees its own hand (not its teammate's), every seat's number of cards, the pending
offers (who offered how many of what), all points, the turn, and the events of the last four turns:
offers made; trades, with the kind of the returned cards shown only to the two traders (others see
how many cards went back); corners with the cornering hand's commodity count, Bull and Bear; deals. An
offer of cards the seat does not hold is shown to the others without its cards. Public history: each
offer made (its action id), each trade and failed offer as a summary (action -1), each deal, corner and
the end (seat -1). `result_details` reveals everything at the end: the final hands and every event with
its returned cards.

Parsing (`parse_action`). GameBench's agents answered JSON {"action": "<action id>"}: the last "action"
value in the reply is read when there is one, else the whole reply; in it the last action counts. Accepted:
the action id ("Offer_Wheat_2", "Accept_1_Corn_3"; case, spaces for underscores and "Soybeans" free) and
GameBench's descriptions ("Offer 2 Wheat", "Accept trade 1, offering 3 Corn"). An action that is not
legal now is refused with the reason (no such opposing offer, too few cards). `default_action` is None:
GameBench replaced an invalid answer by a uniformly random listed action, the referee's failure policy.

Parameters (section 6 item 9: the code's values, configurable): corner_size 6 (5-9; GameBench's
"max_possible", noted "actual value: 9" in its code), winning_score 500 (1-5000), max_turns 1000
(1-10000).

Preset "gamebench": GameBench's released code, corners at 6 (or 5 + Bull), target 500; the turn cap is
the arena's.

Ambiguities (gamebench.md section 6 and the card):
  - Deck, corner, Bull and Bear, target (item 9): the code's values above, configurable.
  - Match score (item 10): the code's points share; 0.5 / 0.5 when both sides have 0 (only possible at
    the turn cap; the code divided by zero there, but it had no cap).
  - Illegal answers (item 12, section 2.10): three attempts with feedback, then a uniformly random legal
    action, is the referee's policy; this engine parses and lists the legal actions.
  - Sides (item 18): seats 0 and 1 are GameBench's agent 1, which moved first; which agent takes side
    0 is the scheduler's coin flip, as in GameBench.
  - No turn cap in GameBench (item 20): "max_turns" ends the game with the points as they stand.
  - Turn order (the reference is silent): the simplest order faithful to the code, sides alternating
    one action at a time, each side's seats in turn: 0, 2, 1, 3.
  - Pit is tagged Language Communication (section 1), but the code's trading is predefined offers and
    accepts only (the reference lists no free-text messages): there is no message channel here.
Where GameBench's code cannot be followed literally, because each virtual player here is a seat with
its own hand and cards must be conserved:
  - The code let its agent act with its first virtual player's hand and applied every trade to both of
    an agent's virtual players (cards appeared and went negative). Here a trade moves cards between the
    two trading seats only.
  - The code kept offers across a redeal and did not check that the proposer still held the cards when
    an offer was accepted. Here an offer always stays covered: it lapses at a redeal and is withdrawn
    when its proposer accepts another offer, the only other way its hand changes.
  - The code tested "exactly 6" (its max_possible, written for 9, where exactly and at least agree);
    here "6 or more", so a trade that jumps from 5 to 7 corners too.
  - The code scanned the virtual players in order and redealt at the first corner, so a second seat
    cornering in the same trade lost it; here every seat holding a corner scores.
  - The code never showed scores or past trades; here the points, hand sizes and recent events are
    shown (all public but the returned cards' kind), so that agents need not remember them.
"""

import re

cimport cython
from libc.string cimport memcpy, memset

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_SEATS = 4
    NUM_KINDS = 6               # Barley, Corn, Soyabeans, Wheat, Bull, Bear (GameBench's order)
    NUM_COMMODITIES = 4
    BULL = 4
    BEAR = 5
    PER_COMMODITY = 9
    DECK_SIZE = 38
    MAX_OFFER = 4
    MAX_GIVE = 9                # no seat holds more than the 9 cards of one kind
    NUM_OFFERS = NUM_KINDS * MAX_OFFER                  # 24
    ACCEPTS_PER_TRADE = NUM_KINDS * MAX_GIVE            # 54
    NUM_ACTIONS = NUM_OFFERS + NUM_SEATS * ACCEPTS_PER_TRADE
    BEAR_PENALTY = 20
    MIN_CORNER_POINTS = 55 - BEAR_PENALTY
    MAX_WINNING_SCORE = 5000
    MAX_TURN_CAP = 10000
    RESAMPLE_TRIES = 200

cdef enum:
    PLAYING = 0
    TARGET_REACHED = 1
    TURN_LIMIT = 2

cdef int VALUE[NUM_COMMODITIES]
VALUE[:] = [85, 75, 55, 100]
cdef int TOTAL[NUM_KINDS]
TOTAL[:] = [9, 9, 9, 9, 1, 1]
# Seats in turn order: the sides alternate, each side's seats in turn.
cdef int ORDER[NUM_SEATS]
ORDER[:] = [0, 2, 1, 3]

KINDS = ("Barley", "Corn", "Soyabeans", "Wheat", "Bull", "Bear")
VALUES = {"Barley": 85, "Corn": 75, "Soyabeans": 55, "Wheat": 100}
TURN_ORDER = (0, 2, 1, 3)
OUTCOME_NAMES = {PLAYING: None, TARGET_REACHED: "winning score", TURN_LIMIT: "turn limit"}

SPEC = GameSpec(
    game_id="pit",
    display_name="Pit",
    rules_version="1",
    min_players=NUM_SEATS,
    max_players=NUM_SEATS,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    # Every scoring check adds at least MIN_CORNER_POINTS while both sides are below the target, and
    # each one brings a deal of DECK_SIZE chance moves.
    max_game_length=MAX_TURN_CAP + DECK_SIZE * (2 * MAX_WINNING_SCORE // MIN_CORNER_POINTS + 2),
    description="Commodity trading in two sides of two: offer 1-4 cards of one kind, or take an opponent's "
                "offer and give back any cards of one kind. Six of a commodity (or five and the Bull) corner it "
                "for its value (doubled with the Bull, -20 with the Bear); the cards are then dealt again. First "
                "side to 500 points; each side scores its share of the points.",
    parameters=(
        Parameter("corner_size", 6, "cards of one commodity that corner it (one fewer with the Bull), 5-9"),
        Parameter("winning_score", 500, f"side points that end the game, 1-{MAX_WINNING_SCORE}"),
        Parameter("max_turns", 1000, f"turns after which the game ends with the points as they stand "
                                     f"(1-{MAX_TURN_CAP}; GameBench has no cap)"),
    ),
    presets=(
        Preset("gamebench", "GameBench's code (gamebench.md section 2.6): 4 commodities x 9 cards + Bull + Bear "
               "dealt to 4 seats, 2 per side; Offer_<Commodity>_<1..4> and Accept_<trade>_<Commodity>_<qty>; "
               "corners at 6 (or 5 + Bull), double bull, -20 for the Bear, redeal after each corner; first "
               "side to 500; scores = points shares; an arena cap of 1000 turns.",
               {"corner_size": 6, "winning_score": 500, "max_turns": 1000}),
    ),
    accepts_text_actions=True,
)

# A low target keeps a playthrough (and the e2e leak test's matches) short but with a corner or two.
PLAYTHROUGH_OVERRIDES = {None: {"winning_score": 150, "max_turns": 40}}


cdef inline int _side(int seat) noexcept:
    return seat // 2


# Pickling is not used (states are cloned), and Cython's generated pickling of 2-D arrays warns.
@cython.auto_pickle(False)
cdef class PitState(State):
    cdef int corner_size, winning_score, max_turns
    cdef int hand[NUM_SEATS][NUM_KINDS]
    cdef int deck[NUM_KINDS]            # undealt cards of each kind during a deal
    cdef int dealt                      # cards dealt in the current deal (DECK_SIZE once it is done)
    cdef int deals                      # deals started
    cdef int offer_kind[NUM_SEATS]      # each seat's pending offer (-1: none)
    cdef int offer_qty[NUM_SEATS]
    cdef int pending[NUM_SEATS]         # seats with a pending offer, oldest first
    cdef int n_pending
    cdef int points[NUM_SEATS]
    cdef int turns
    cdef int outcome
    # What the last move did, for the event log kept by the Python layer (apply_action).
    cdef bint offer_made                # an offer move was covered by the hand
    cdef int trade_proposer             # the accepted offer: proposer, kind, count
    cdef int trade_kind, trade_qty
    cdef bint deal_completed
    cdef int corner_points[NUM_SEATS][NUM_COMMODITIES]   # scored by the last check (0: no corner)
    cdef int corner_hand[NUM_SEATS][NUM_KINDS]           # the cornering hands, as they were
    cdef bint cornered
    cdef list _log                      # events (dicts, full information), appended by apply_action
    cdef list _public                   # public_history entries, appended with the events

    def __init__(self, game):
        super().__init__(game, NUM_SEATS)
        values = game.parameters
        self.corner_size = values["corner_size"]
        self.winning_score = values["winning_score"]
        self.max_turns = values["max_turns"]
        memset(self.points, 0, sizeof(self.points))
        self.turns = 0
        self.outcome = PLAYING
        self.deals = 0
        self._start_deal()
        self._clear_move_record()
        self._log = []
        self._public = []

    # ---- rules in C ------------------------------------------------------------------------------
    cdef void _start_deal(self) noexcept:
        cdef int k
        memset(self.hand, 0, sizeof(self.hand))
        for k in range(NUM_KINDS):
            self.deck[k] = TOTAL[k]
        self.dealt = 0
        self.deals += 1
        self.n_pending = 0
        for k in range(NUM_SEATS):
            self.offer_kind[k] = -1
            self.offer_qty[k] = 0

    cdef void _clear_move_record(self) noexcept:
        self.offer_made = False
        self.trade_proposer = -1
        self.trade_kind = -1
        self.trade_qty = 0
        self.deal_completed = False
        self.cornered = False

    cdef inline int _to_move(self) noexcept:
        return ORDER[self.turns % NUM_SEATS]

    cdef void _withdraw(self, int seat) noexcept:
        cdef int i, j = 0
        if self.offer_kind[seat] < 0:
            return
        for i in range(self.n_pending):
            if self.pending[i] != seat:
                self.pending[j] = self.pending[i]
                j += 1
        self.n_pending = j
        self.offer_kind[seat] = -1
        self.offer_qty[seat] = 0

    cdef bint _check_corners(self) noexcept:
        """Scores every corner held now; True if there was one."""
        cdef int s, c, n, score
        cdef bint bull, found = False
        memset(self.corner_points, 0, sizeof(self.corner_points))
        for s in range(NUM_SEATS):
            bull = self.hand[s][BULL] > 0
            for c in range(NUM_COMMODITIES):
                n = self.hand[s][c]
                if n >= self.corner_size or (n == self.corner_size - 1 and bull):
                    score = VALUE[c] * (2 if n >= self.corner_size and bull else 1) - BEAR_PENALTY * self.hand[s][BEAR]
                    self.corner_points[s][c] = score
                    self.points[s] += score
                    found = True
        if found:
            memcpy(&self.corner_hand[0][0], &self.hand[0][0], sizeof(self.hand))
        self.cornered = found
        return found

    cdef int _side_points(self, int side) noexcept:
        return self.points[2 * side] + self.points[2 * side + 1]

    cdef void _settle(self, bint cornered) noexcept:
        """After a trade or a completed deal: the end of the game, or a redeal after a corner."""
        if self._side_points(0) >= self.winning_score or self._side_points(1) >= self.winning_score:
            self.outcome = TARGET_REACHED
        elif self.turns >= self.max_turns:
            self.outcome = TURN_LIMIT
        elif cornered:
            self._start_deal()

    cdef void _trade(self, int seat, int action) noexcept:
        cdef int k = action - NUM_OFFERS
        cdef int proposer = self.pending[k // ACCEPTS_PER_TRADE]
        cdef int give_kind = (k % ACCEPTS_PER_TRADE) // MAX_GIVE
        cdef int give_qty = k % MAX_GIVE + 1
        cdef int kind = self.offer_kind[proposer], qty = self.offer_qty[proposer]
        self.hand[proposer][kind] -= qty
        self.hand[seat][kind] += qty
        self.hand[seat][give_kind] -= give_qty
        self.hand[proposer][give_kind] += give_qty
        self.trade_proposer = proposer
        self.trade_kind = kind
        self.trade_qty = qty
        self._withdraw(proposer)
        self._withdraw(seat)

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.outcome != PLAYING:
            return TERMINAL_PLAYER
        if self.dealt < DECK_SIZE:
            return CHANCE_PLAYER
        return self._to_move()

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int n = 0, a, i, k, q
        if self.c_current_player() != player or player < 0:
            return 0
        for a in range(NUM_OFFERS):
            out[n] = a
            n += 1
        for i in range(self.n_pending):
            if _side(self.pending[i]) == _side(player):
                continue
            for k in range(NUM_KINDS):
                for q in range(1, self.hand[player][k] + 1):
                    out[n] = NUM_OFFERS + ACCEPTS_PER_TRADE * i + MAX_GIVE * k + q - 1
                    n += 1
        return n

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int n = 0, k
        cdef double left = DECK_SIZE - self.dealt
        if self.c_current_player() != CHANCE_PLAYER:
            return 0
        for k in range(NUM_KINDS):
            if self.deck[k] > 0:
                actions[n] = k
                probs[n] = self.deck[k] / left
                n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat, kind, qty
        self._clear_move_record()
        if self.dealt < DECK_SIZE:
            self.hand[self.dealt % NUM_SEATS][action] += 1
            self.deck[action] -= 1
            self.dealt += 1
            if self.dealt == DECK_SIZE:
                self.deal_completed = True
                self._settle(self._check_corners())
            return
        seat = self._to_move()
        if action < NUM_OFFERS:
            kind = action // MAX_OFFER
            qty = action % MAX_OFFER + 1
            self.offer_made = self.hand[seat][kind] >= qty
            if self.offer_made:
                self._withdraw(seat)
                self.offer_kind[seat] = kind
                self.offer_qty[seat] = qty
                self.pending[self.n_pending] = seat
                self.n_pending += 1
            self.turns += 1
            self._settle(False)
            return
        self._trade(seat, action)
        self.turns += 1
        self._settle(self._check_corners())

    cdef void c_returns(self, double* out) noexcept:
        cdef int s
        cdef double side0 = self._side_points(0), side1 = self._side_points(1)
        for s in range(NUM_SEATS):
            out[s] = 0.0
        if self.outcome == PLAYING:
            return
        for s in range(NUM_SEATS):
            if side0 + side1 == 0:
                out[s] = 0.5
            else:
                out[s] = (side0 if _side(s) == 0 else side1) / (side0 + side1)

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Hidden from `player`: the other three hands and, during a deal, the undealt cards. They are
        # redrawn from the cards `player` does not hold, keeping each hand's size and the cards of each
        # pending offer (a seat can only offer what it holds); once the deal is complete no hand may
        # hold a corner (it would have been scored). If no such draw turns up, nothing changes.
        cdef int saved[NUM_SEATS][NUM_KINDS]
        cdef int pool[NUM_KINDS]
        cdef int size[NUM_SEATS]
        cdef int s, k, c, left, pick, attempt
        cdef bint corner
        if self.outcome != PLAYING:
            return
        memcpy(&saved[0][0], &self.hand[0][0], sizeof(self.hand))
        for s in range(NUM_SEATS):
            size[s] = 0
            for k in range(NUM_KINDS):
                size[s] += self.hand[s][k]
        for attempt in range(RESAMPLE_TRIES):
            for k in range(NUM_KINDS):
                pool[k] = TOTAL[k] - self.hand[player][k]
            left = DECK_SIZE - size[player]
            for s in range(NUM_SEATS):
                if s == player:
                    continue
                for k in range(NUM_KINDS):
                    self.hand[s][k] = 0
                if self.offer_kind[s] >= 0:
                    self.hand[s][self.offer_kind[s]] = self.offer_qty[s]
                    pool[self.offer_kind[s]] -= self.offer_qty[s]
                    left -= self.offer_qty[s]
            for s in range(NUM_SEATS):
                if s == player:
                    continue
                for c in range(size[s] - (self.offer_qty[s] if self.offer_kind[s] >= 0 else 0)):
                    pick = rng_below(rng, left)
                    k = 0
                    while pick >= pool[k]:
                        pick -= pool[k]
                        k += 1
                    pool[k] -= 1
                    left -= 1
                    self.hand[s][k] += 1
            if self.dealt < DECK_SIZE:
                memcpy(self.deck, pool, sizeof(pool))
                return
            corner = False
            for s in range(NUM_SEATS):
                for c in range(NUM_COMMODITIES):
                    if self.hand[s][c] >= self.corner_size or (self.hand[s][c] == self.corner_size - 1
                                                               and self.hand[s][BULL] > 0):
                        corner = True
            if not corner:
                return
        memcpy(&self.hand[0][0], &saved[0][0], sizeof(self.hand))

    cdef State c_clone(self):
        cdef PitState s = PitState.__new__(PitState)
        self._copy_base_into(s)
        s.corner_size = self.corner_size
        s.winning_score = self.winning_score
        s.max_turns = self.max_turns
        memcpy(&s.hand[0][0], &self.hand[0][0], sizeof(self.hand))
        memcpy(s.deck, self.deck, sizeof(self.deck))
        s.dealt = self.dealt
        s.deals = self.deals
        memcpy(s.offer_kind, self.offer_kind, sizeof(self.offer_kind))
        memcpy(s.offer_qty, self.offer_qty, sizeof(self.offer_qty))
        memcpy(s.pending, self.pending, sizeof(self.pending))
        s.n_pending = self.n_pending
        memcpy(s.points, self.points, sizeof(self.points))
        s.turns = self.turns
        s.outcome = self.outcome
        s.offer_made = self.offer_made
        s.trade_proposer = self.trade_proposer
        s.trade_kind = self.trade_kind
        s.trade_qty = self.trade_qty
        s.deal_completed = self.deal_completed
        memcpy(&s.corner_points[0][0], &self.corner_points[0][0], sizeof(self.corner_points))
        memcpy(&s.corner_hand[0][0], &self.corner_hand[0][0], sizeof(self.corner_hand))
        s.cornered = self.cornered
        s._log = list(self._log)            # entries are never changed in place
        s._public = list(self._public)
        return s

    # ---- the event log (Python level: search never reads it) ----------------------------------
    def apply_action(self, int action, message=None):
        """As State.apply_action, then records what the move did for the views."""
        cdef int seat = self.c_current_player()
        cdef int deal = self.deals
        State.apply_action(self, action, message)
        if seat == CHANCE_PLAYER:
            if self.deal_completed:
                self._add_event({"kind": "deal", "turn": self.turns, "deal": deal})
        elif action < NUM_OFFERS:
            self._add_event({"kind": "offer", "turn": self.turns, "seat": seat, "commodity": KINDS[action // MAX_OFFER],
                             "quantity": action % MAX_OFFER + 1, "made": bool(self.offer_made)}, action)
        else:
            k = action - NUM_OFFERS
            self._add_event({"kind": "trade", "turn": self.turns, "seat": seat, "trade": k // ACCEPTS_PER_TRADE + 1,
                             "proposer": self.trade_proposer, "commodity": KINDS[self.trade_kind],
                             "quantity": self.trade_qty, "returned_commodity": KINDS[(k % ACCEPTS_PER_TRADE) // MAX_GIVE],
                             "returned_quantity": k % MAX_GIVE + 1})
        if self.cornered:
            # Side totals before this check, so that each corner shows the total it brought.
            totals = [self._side_points(side) - sum(self.corner_points[2 * side + i][c] for i in range(2)
                                                    for c in range(NUM_COMMODITIES)) for side in range(2)]
            for s in range(NUM_SEATS):
                for c in range(NUM_COMMODITIES):
                    if self.corner_points[s][c]:
                        count = self.corner_hand[s][c]
                        bull = self.corner_hand[s][BULL] > 0
                        totals[s // 2] += self.corner_points[s][c]
                        self._add_event({"kind": "corner", "turn": self.turns, "seat": s, "commodity": KINDS[c],
                                         "count": count, "bull": bull, "double": bull and count >= self.corner_size,
                                         "bear": self.corner_hand[s][BEAR] > 0, "points": self.corner_points[s][c],
                                         "side_points": totals[s // 2]})
        if self.outcome != PLAYING:
            self._add_event({"kind": "end", "turn": self.turns, "reason": OUTCOME_NAMES[self.outcome],
                             "side_points": [self._side_points(0), self._side_points(1)]})

    def _add_event(self, dict event, int action=-1):
        self._log.append(event)
        seat = event.get("seat", -1) if event["kind"] in ("offer", "trade") else -1
        public = _visible(event, None)
        self._public.append((seat, action if event.get("made") else -1, _event_text(public, None, public=True)))

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if not 0 <= action < NUM_KINDS:
                raise ValueError(f"pit deals card kinds 0-{NUM_KINDS - 1}, not {action}")
            return f"{KINDS[action]} to seat {self.dealt % NUM_SEATS}"
        return action_id_text(action)

    def parse_action(self, int player, str text) -> int:
        legal = self.legal_actions(player)
        if not legal:
            raise ActionParseError(f"seat {player} has no decision to make now")
        found = last_match(_JSON_ACTION, text)
        answer = found.group(1) if found is not None else text
        action = _read_action(answer)
        if action is None:
            raise ActionParseError(
                f"no action found in {text[:80]!r}. Answer with one listed action id as JSON, e.g. "
                f'{{"action": "Offer_{KINDS[0]}_1"}} or {{"action": "Accept_1_Corn_2"}} (or its description, '
                f'"Offer 1 Barley").')
        if action not in legal:
            raise ActionParseError(self._why_not(player, action))
        return action

    def _why_not(self, int player, int action) -> str:
        """Feedback for an action that is not legal now (offers always are)."""
        k = action - NUM_OFFERS
        trade, kind, qty = k // ACCEPTS_PER_TRADE, (k % ACCEPTS_PER_TRADE) // MAX_GIVE, k % MAX_GIVE + 1
        acceptable = [i + 1 for i in range(self.n_pending) if _side(self.pending[i]) != _side(player)]
        if trade + 1 not in acceptable:
            offers = (f"the opposing offers you can accept are trade {' and '.join(map(str, acceptable))}"
                      if acceptable else "there is no opposing offer to accept now")
            return f"{action_id_text(action)}: trade {trade + 1} is not an opposing pending offer; {offers}."
        return (f"{action_id_text(action)}: you hold {self.hand[player][kind]} {KINDS[kind]}, so you cannot give "
                f"{qty}.")

    def default_action(self, int player):
        return None

    def text_action_spec(self, int player):
        if self.c_current_player() != player or player < 0:
            return None
        return {"description": _ANSWER_HELP, "max_length": 4000, "forbidden_words": []}

    def _phase(self) -> str:
        if self.outcome != PLAYING:
            return "over"
        return "dealing" if self.dealt < DECK_SIZE else "trading"

    def _hand(self, int seat) -> dict:
        return {KINDS[k]: self.hand[seat][k] for k in range(NUM_KINDS)}

    def _hand_sizes(self) -> list:
        return [sum(self.hand[s][k] for k in range(NUM_KINDS)) for s in range(NUM_SEATS)]

    def _pending_view(self, int viewer) -> list:
        return [{"trade": i + 1, "seat": self.pending[i], "commodity": KINDS[self.offer_kind[self.pending[i]]],
                 "quantity": self.offer_qty[self.pending[i]],
                 "acceptable": _side(self.pending[i]) != _side(viewer)} for i in range(self.n_pending)]

    def _recent(self, int viewer) -> list:
        """The events of the last four turns (and what followed them), as `viewer` saw them."""
        start = len(self._log)
        while start > 0 and self._log[start - 1]["turn"] > self.turns - NUM_SEATS:
            start -= 1
        return [_visible(e, viewer) for e in self._log[start:]]

    def _result(self):
        if self.outcome == PLAYING:
            return None
        returns = self.returns()
        side_points = [self._side_points(0), self._side_points(1)]
        return {"reason": OUTCOME_NAMES[self.outcome], "shares": [returns[0], returns[2]],
                "winner": None if side_points[0] == side_points[1] else int(side_points[1] > side_points[0])}

    def observation_dict(self, int player) -> dict:
        check_seat("pit", player, NUM_SEATS)
        to_move = self.c_current_player()
        acting = to_move == player
        return {
            "seat": player,
            "side": player // 2,
            "teammate": player ^ 1,
            "opponents": [s for s in range(NUM_SEATS) if s // 2 != player // 2],
            "turn_order": list(TURN_ORDER),
            "rules": {"values": dict(VALUES), "corner_size": self.corner_size, "bear_penalty": BEAR_PENALTY,
                      "winning_score": self.winning_score, "max_turns": self.max_turns},
            "phase": self._phase(),
            "deal": self.deals,
            "cards_dealt": self.dealt,
            "turn": self.turns,
            "to_move": to_move if to_move >= 0 else None,
            "hand": self._hand(player),
            "hand_sizes": self._hand_sizes(),
            "pending_offers": self._pending_view(player),
            "points": [self.points[s] for s in range(NUM_SEATS)],
            "side_points": [self._side_points(0), self._side_points(1)],
            "recent": self._recent(player),
            # GameBench's predefined actions: action id -> description, for the seat to move.
            "actions": {action_id_text(a): action_description(a) for a in self.legal_actions(player)} if acting else {},
            "result": self._result(),
        }

    def observation_string(self, int player) -> str:
        check_seat("pit", player, NUM_SEATS)
        view = self.observation_dict(player)
        lines = [f"Pit. You are seat {player}, on side {player // 2} with your teammate seat {player ^ 1}; your "
                 f"opponents are seats {' and '.join(map(str, view['opponents']))}.",
                 self._rules_text()]
        sizes = view["hand_sizes"]
        points, sides = view["points"], view["side_points"]
        lines.append(f"Points: side 0 {sides[0]} (seat 0 {points[0]}, seat 1 {points[1]}); side 1 {sides[1]} "
                     f"(seat 2 {points[2]}, seat 3 {points[3]}); {self.winning_score} wins.")
        if view["phase"] == "dealing":
            lines.append(f"Deal {self.deals}: the cards are being dealt ({self.dealt} of {DECK_SIZE} so far).")
        else:
            lines.append(f"Deal {self.deals}, {self.turns} turn{'' if self.turns == 1 else 's'} played of at most "
                         f"{self.max_turns}.")
        lines.append(f"Your hand ({sizes[player]} card{'' if sizes[player] == 1 else 's'}): {_hand_text(view['hand'])}.")
        lines.append("Cards held: " + ", ".join(f"seat {s} {sizes[s]}" for s in range(NUM_SEATS)) + ".")
        if view["pending_offers"]:
            offers = [f"trade {o['trade']}: {_who(o['seat'], player)} offers {o['quantity']} {o['commodity']}"
                      + (" (you may accept)" if o["acceptable"] else "") for o in view["pending_offers"]]
            lines.append("Pending offers: " + "; ".join(offers) + ".")
        elif view["phase"] == "trading":
            lines.append("Pending offers: none.")
        if view["recent"]:
            lines.append("Recent events:")
            lines += ["  " + _event_text(e, player) for e in view["recent"]]
        lines.append(self._status(player, view))
        return "\n".join(lines)

    def _rules_text(self) -> str:
        k = self.corner_size
        return (f"Rules: the deck has 9 cards each of Barley (85 points), Corn (75), Soyabeans (55) and Wheat (100), "
                f"plus the Bull and the Bear; each deal gives 10 cards to seats 0 and 1 and 9 to seats 2 and 3. Seats "
                f"take turns in the order 0, 2, 1, 3. On your turn, either offer 1 to 4 cards of one kind from your "
                f"hand (Offer_<Commodity>_<number>; it replaces your earlier offer; offering cards you do not hold "
                f"wastes the turn), or accept an opponent's pending offer (Accept_<trade>_<Commodity>_<number>): you "
                f"take the offered cards and give back any number of cards of one kind of your hand, your choice; "
                f"accepting withdraws your own offer. Teammates do not trade with each other. Holding {k} or more "
                f"cards of a commodity, or {k - 1} and the Bull, corners it: its value is scored, doubled with {k} or "
                f"more and the Bull (double bull), minus {BEAR_PENALTY} when holding the Bear; then every card is "
                f"dealt again. The game ends when a side reaches {self.winning_score} points, or after "
                f"{self.max_turns} turns; each side scores its share of all points.")

    def _status(self, int player, dict view) -> str:
        if view["phase"] == "over":
            return f"The game is over: {self.result_summary()}."
        if view["phase"] == "dealing":
            return "Wait for the deal."
        to_move = view["to_move"]
        if to_move != player:
            return f"Turn {self.turns + 1}: seat {to_move} to move."
        return f"Turn {self.turns + 1}: your move. {_ANSWER_HELP}"

    def public_history(self) -> list:
        """Offers made (their action id); trades and failed offers as summaries (action -1, the kind of
        the returned cards left out); each completed deal, corner and the end (seat -1)."""
        return list(self._public)

    def result_summary(self) -> str:
        if self.outcome == PLAYING:
            return "game in progress"
        a, b = self._side_points(0), self._side_points(1)
        returns = self.returns()
        played = f"after {self.turns} turn{'' if self.turns == 1 else 's'} and {self.deals} deal{'' if self.deals == 1 else 's'}"
        shares = f"shares {returns[0]:.4g} and {returns[2]:.4g}"
        why = "a side reached the winning score" if self.outcome == TARGET_REACHED else "the turn limit was reached"
        if a == b:
            return f"a tie at {a} points each: {why} {played} ({shares})"
        winner = 0 if a > b else 1
        return (f"side {winner} (seats {2 * winner} and {2 * winner + 1}) wins, {max(a, b)} points to {min(a, b)}: "
                f"{why} {played} ({shares})")

    def result_details(self) -> dict:
        return {
            "result": self._result(),
            "points": [self.points[s] for s in range(NUM_SEATS)],
            "side_points": [self._side_points(0), self._side_points(1)],
            "turns": self.turns,
            "deals": self.deals,
            "hands": [self._hand(s) for s in range(NUM_SEATS)],
            "events": list(self._log),
        }

    cdef void _load_view(self, int player, dict view):
        """Sets everything `view` (seat `player`'s observation_dict) shows; the hidden hands are drawn
        by c_resample_hidden with a fixed seed, so the same view always gives the same state."""
        cdef int s, k, left
        cdef Rng rng
        self.deals = view["deal"]
        self.dealt = view["cards_dealt"]
        self.turns = view["turn"]
        for s in range(NUM_SEATS):
            self.points[s] = view["points"][s]
        for k, name in enumerate(KINDS):
            self.hand[player][k] = view["hand"][name]
        for offer in view["pending_offers"]:
            s = offer["seat"]
            self.offer_kind[s] = KINDS.index(offer["commodity"])
            self.offer_qty[s] = offer["quantity"]
            self.pending[self.n_pending] = s
            self.n_pending += 1
        # Placeholder hands of the right sizes holding their pending offers (any cards `player` does
        # not hold), then a redraw.
        for k in range(NUM_KINDS):
            self.deck[k] = TOTAL[k] - self.hand[player][k]
        for s in range(NUM_SEATS):
            if s != player and self.offer_kind[s] >= 0:
                self.hand[s][self.offer_kind[s]] = self.offer_qty[s]
                self.deck[self.offer_kind[s]] -= self.offer_qty[s]
        for s in range(NUM_SEATS):
            if s == player:
                continue
            left = view["hand_sizes"][s] - (self.offer_qty[s] if self.offer_kind[s] >= 0 else 0)
            for k in range(NUM_KINDS):
                while left > 0 and self.deck[k] > 0:
                    self.hand[s][k] += 1
                    self.deck[k] -= 1
                    left -= 1
        result = view["result"]
        if result is not None:
            self.outcome = TARGET_REACHED if result["reason"] == OUTCOME_NAMES[TARGET_REACHED] else TURN_LIMIT
        rng.s = 0x5EED
        self.c_resample_hidden(player, &rng)
        self._log = [dict(e) for e in view["recent"]]
        self.move_number = DECK_SIZE * (self.deals - 1) + self.dealt + self.turns


cdef dict _visible(dict event, object viewer):
    """`event` as `viewer` saw it (None: a spectator): the kind of cards returned in a trade is known to
    the two traders only, and a failed offer's cards to its maker only."""
    kind = event["kind"]
    if kind == "trade" and viewer not in (event["seat"], event["proposer"]):
        return {**event, "returned_commodity": None}
    if kind == "offer" and not event["made"] and viewer != event["seat"]:
        return {**event, "commodity": None, "quantity": None}
    return event


def _who(int seat, object viewer) -> str:
    if viewer is None:
        return f"seat {seat}"
    if seat == viewer:
        return "you"
    return f"seat {seat} (your teammate)" if seat // 2 == viewer // 2 else f"seat {seat}"


def _event_text(dict e, object viewer, bint public=False) -> str:
    """One event as text for `viewer`; `public` leaves out the turn and the actor, who head the
    public history entry."""
    kind = e["kind"]
    head = "" if public else f"Turn {e['turn']}: "
    if kind == "deal":
        dealt = f"all {DECK_SIZE} cards are shuffled and dealt, 10 to seats 0 and 1 and 9 to seats 2 and 3"
        if public:
            return f"Deal {e['deal']}: {dealt}"
        return f"Deal {e['deal']} {'at the start' if e['turn'] == 0 else 'after turn ' + str(e['turn'])}: {dealt}."
    if kind == "corner":
        bull = " and the Bull" if e["bull"] else ""
        double = " (double bull)" if e["double"] else ""
        bear = f", holding the Bear (-{BEAR_PENALTY})" if e["bear"] else ""
        who = _who(e["seat"], viewer)
        if public:
            who = who.capitalize()
        return (f"{head}{who} cornered {e['commodity']} with {e['count']} {e['commodity']}{bull}"
                f"{double}{bear}: +{e['points']} points (side {e['seat'] // 2} now has {e['side_points']}).")
    if kind == "end":
        why = "a side reached the winning score" if e["reason"] == OUTCOME_NAMES[TARGET_REACHED] else "the turn limit was reached"
        return f"{head}{'The' if public else 'the'} game is over: {why} (side 0 {e['side_points'][0]}, side 1 {e['side_points'][1]})."
    actor = "" if public else _who(e["seat"], viewer) + " "
    if kind == "offer":
        if public:
            return action_id_text(4 * KINDS.index(e["commodity"]) + e["quantity"] - 1) if e["made"] else \
                "an offer of cards it does not hold (no effect)"
        if e["made"]:
            return f"{head}{actor}offered {e['quantity']} {e['commodity']}."
        if e["commodity"] is None:
            return f"{head}{actor}made no offer (it named cards it does not hold)."
        return f"{head}{actor}tried to offer {e['quantity']} {e['commodity']} without holding them: nothing happened."
    # A trade.
    returned = (f"{e['returned_quantity']} {e['returned_commodity']}" if e["returned_commodity"] is not None
                else f"{e['returned_quantity']} card{'' if e['returned_quantity'] == 1 else 's'}")
    if public:
        return (f"Accept trade {e['trade']} (seat {e['proposer']}'s offer of {e['quantity']} {e['commodity']}), "
                f"giving back {returned}")
    proposer = "your" if e["proposer"] == viewer else f"seat {e['proposer']}'s"
    return (f"{head}{actor}accepted {proposer} offer of {e['quantity']} {e['commodity']} (trade {e['trade']}), "
            f"giving back {returned}.")


def _hand_text(dict hand) -> str:
    held = [f"{n} {kind}" for kind, n in hand.items() if n > 0]
    return ", ".join(held) if held else "no cards"


def action_id_text(int action) -> str:
    """GameBench's action id of `action`: Offer_<Commodity>_<q> or Accept_<trade>_<Commodity>_<q>."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"pit action ids are 0-{NUM_ACTIONS - 1}, not {action}")
    if action < NUM_OFFERS:
        return f"Offer_{KINDS[action // MAX_OFFER]}_{action % MAX_OFFER + 1}"
    k = action - NUM_OFFERS
    return f"Accept_{k // ACCEPTS_PER_TRADE + 1}_{KINDS[(k % ACCEPTS_PER_TRADE) // MAX_GIVE]}_{k % MAX_GIVE + 1}"


def action_description(int action) -> str:
    """GameBench's description of `action`: "Offer 2 Wheat" or "Accept trade 1, offering 3 Corn"."""
    if action < NUM_OFFERS:
        return f"Offer {action % MAX_OFFER + 1} {KINDS[action // MAX_OFFER]}"
    k = action - NUM_OFFERS
    return f"Accept trade {k // ACCEPTS_PER_TRADE + 1}, offering {k % MAX_GIVE + 1} {KINDS[(k % ACCEPTS_PER_TRADE) // MAX_GIVE]}"


_ANSWER_HELP = ('Answer with one action id, as GameBench asked: {"action": "Offer_Wheat_2"} to offer 2 Wheat, or '
                '{"action": "Accept_1_Corn_3"} to accept trade 1 giving back 3 Corn (the description, "Offer 2 '
                'Wheat" or "Accept trade 1, offering 3 Corn", also works).')
_KIND = r"(barley|corn|soy[a]?beans?|wheat|bull|bear)"
# Action ids (underscores or spaces) and GameBench's descriptions; the last one in an answer counts.
_ACTION = re.compile(
    r"\b(?:offer[\s_]*" + _KIND + r"[\s_]*(\d+)"
    r"|accept[\s_]*(\d+)[\s_]*" + _KIND + r"[\s_]*(\d+)"
    r"|offer\s+(\d+)\s+" + _KIND +
    r"|accept\s+trade\s+(\d+)\s*,?\s*offering\s+(\d+)\s+" + _KIND + r")\b", re.IGNORECASE)
_JSON_ACTION = re.compile(r"""["']action["']\s*:\s*["']([^"'\n]{0,200})["']""", re.IGNORECASE)


def _kind_of(str name) -> int:
    lowered = name.lower()
    return 2 if lowered.startswith("soy") else [k.lower() for k in KINDS].index(lowered)


def _read_action(str text):
    """The action id of the last action written in `text`, or None."""
    found = last_match(_ACTION, text)
    if found is None:
        return None
    g = found.groups()
    if g[0] is not None:
        kind, qty, trade = _kind_of(g[0]), int(g[1]), 0
    elif g[2] is not None:
        trade, kind, qty = int(g[2]), _kind_of(g[3]), int(g[4])
    elif g[5] is not None:
        qty, kind, trade = int(g[5]), _kind_of(g[6]), 0
    else:
        trade, qty, kind = int(g[7]), int(g[8]), _kind_of(g[9])
    if trade == 0:
        return MAX_OFFER * kind + qty - 1 if 1 <= qty <= MAX_OFFER else None
    if not (1 <= trade <= NUM_SEATS and 1 <= qty <= MAX_GIVE):
        return None
    return NUM_OFFERS + ACCEPTS_PER_TRADE * (trade - 1) + MAX_GIVE * kind + qty - 1


class Game(GameBase):
    """GameBench's Pit: four seats, two per side."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "corner_size", 5, PER_COMMODITY)
        checked_int(self.parameters, "winning_score", 1, MAX_WINNING_SCORE)
        checked_int(self.parameters, "max_turns", 1, MAX_TURN_CAP)

    def seat_sides(self) -> list:
        return [0, 0, 1, 1]

    def new_initial_state(self) -> PitState:
        return PitState(self)

    def state_from_view(self, int player, dict view) -> PitState:
        """A state consistent with `view` (seat `player`'s observation_dict): the public state and the
        seat's hand as shown, the other hands drawn at random (fixed seed) with their sizes and pending
        offers kept, and the recent events as the seat saw them (no earlier history)."""
        check_seat("pit", player, NUM_SEATS)
        cdef PitState state = PitState(self)
        state._load_view(player, view)
        return state
