"""Heads-up no-limit Texas Hold'em, one hand, as played in LLMArena (RLCard's `no-limit-holdem`
through PettingZoo's `texas_holdem_no_limit_v6`).

Rules. Two players start with "chips_0" and "chips_1" chips (100 each). Chance first picks the dealer
(either seat, 1/2 each). The dealer posts the small blind ("small_blind", 1) and the other seat the big
blind ("big_blind", 2). Each seat gets two private hole cards; then come four betting rounds: pre-flop,
then after the flop (3 community cards), the turn (1) and the river (1). Pre-flop the dealer (small
blind) acts first; on the flop, turn and river the other seat (big blind) acts first, as in standard
heads-up play. A betting round ends when both players have acted since the last raise with their bets
matched (the big blind gets its option when the small blind only calls), or a player has no chips left.
A fold ends the hand: the other player takes the pot. When a player is all in and the bets are settled,
the remaining community cards are dealt with no more betting. At showdown the best five-card hand of
each player's seven cards (two hole cards and five community cards) wins the pot; equal hands split it.
Hands rank, highest first: straight flush (a royal flush is the ace-high one), four of a kind, full
house, flush, straight, three of a kind, two pair, one pair, high card; within a category the ranks of
the five cards decide in the order the reference lists (quad rank then kicker; triple then pair; cards
from the highest down for flushes and high cards; the top card of a straight, A-2-3-4-5 being 5-high;
pair, then kickers from the highest down; higher pair, lower pair, kicker). Suits never break ties.

Actions (RLCard's abstraction, ids as in RLCard; each text is LLMArena's exact label):
  0 "Fold"            give up the hand. Always legal, even when checking costs nothing (RLCard).
  1 "Check and Call"  put in what matches the opponent's bet this round (nothing: a check); a player
                      short of chips calls with what it has left (all in).
  2 "Raise Half Pot"  put in floor(pot / 2) chips, pot = every chip committed so far by both players.
  3 "Raise Full Pot"  put in pot chips.
  4 "All in"          put in every chip left.
Legality, as in RLCard: when calling would take all of a player's chips, only Fold and Check and Call
are legal. Otherwise "Raise Full Pot" needs pot <= chips left; "Raise Half Pot" needs floor(pot / 2) <=
chips left and must exceed the amount to call (it must raise the bet); "All in" is legal. No other
minimum-raise rule applies: a raise of any size above the current bet is allowed. A raise amount is the
chips put in, not "call, then raise by the pot": pre-flop with blinds 1/2 the small blind's "Raise
Full Pot" puts in 3 chips (pot 3), bringing its bet to 4; "Raise Half Pot" would put in 1, which only
calls, so it is not legal there. Returns are chips won or lost (zero-sum): a fold costs the folder what
it put in; at showdown the loser pays the winner min(chips put in by each), a split pot pays nobody.

Chance. First the dealer (outcome = seat). Then one card per chance node, uniform over the cards not
yet dealt: hole cards to seat 0, seat 1, seat 0, seat 1 (RLCard's order), then the flop, turn and
river cards when their betting round is due. Card id = 13 * suit + rank, suits Spades, Hearts,
Diamonds, Clubs (RLCard's order), ranks 2, 3, ..., 10, J, Q, K, A; cards render as LLMArena's
"Spades A", "Hearts 10".

Parsing (`parse_action`): LLMArena's answer "Action: Check and Call": the FIRST "action:" followed by
one of the five labels, case-insensitive, with text before and after (the released parser's
`re.findall(...)[0]`). Leniencies: any whitespace inside a label, "all-in" for "All in"; a reply that
is only a label is read as that label. A label that is not legal now is still returned, so the referee
applies its illegal-move policy (LLMArena: the offender loses); no label raises ActionParseError.
`default_action` is None: LLMArena's fallback after three unreadable replies is a random legal action,
a referee policy.

Information. A seat sees its own hole cards, the dealer and the blinds, the community cards, both
players' chips left and put in, every betting action with its amount, and how many cards have been
dealt; the other seat's hole cards only once a showdown shows both hands to both seats. A folded hand
stays hidden from the views and the public history; `result_details` reveals every card at the end.
`public_history` holds the dealer, the blinds, one summary per hole card dealt ("a hole card is dealt
to seat 1"), every betting action with its amount, each community card and, after a showdown, both
hands.

Preset "llmarena": LLMArena's Hold'em with RLCard's defaults (reference llmarena.md section 2.3):
heads-up, 100 chips each, blinds 1/2, random dealer, one hand; answer "Action: <label>"; standard
heads-up seating (below). Preset "llmarena_code": the same with RLCard's seating, as the released code
played it.

Where this engine differs from RLCard, and why:
  - Seating. RLCard posts the blinds to the two seats after the dealer, which with two players puts
    the big blind on the dealer; its small blind then acts first in every betting round. Here the
    dealer posts the small blind and acts first pre-flop only, the heads-up rule of real play (the
    paper states the game as Texas Hold'em and says nothing of RLCard's seating). "rlcard_seating"
    true reproduces RLCard: the dealer posts the big blind and the other seat acts first on every
    street (after the flop the non-dealer acts first in both conventions).
  - Unequal stacks ("chips_0" != "chips_1"; RLCard's configuration gives every seat the same chips):
    RLCard lets the covering player raise an opponent who is all in (the raise goes uncalled and comes
    back, so it plays like a call); here only Fold and Check and Call are legal then, as in real play.
    With equal stacks this cannot arise, and the two engines agree at every decision
    (tests/engines/test_texas_holdem_no_limit_rlcard.py plays thousands of hands in both).
  - RLCard pays an odd chip of a split pot to a random winner; heads-up no such chip exists (both
    players contest the same amount), so no chance node is needed.

Ambiguities (llmarena.md section 6 and the card, section 2.3):
  - Blinds, button and number of hands (item 19): RLCard's defaults, 100 chips, blinds 1/2, random
    dealer (a chance node), one hand per game.
  - Reward scale (section 2.3, parameters): chips won or lost, RLCard's payoffs; the winner for
    TrueSkill is the seat with the larger return, equal returns a draw (item 5).
  - Illegal answers (item 6): a parsed label that is not legal is returned for the referee's policy
    (game over, offender -1, in the llmarena suite); unreadable answers are retried by the referee.
  - The released prompt omits the opponent's last action (section 2.3, observation); betting actions
    are public in poker and this engine's views carry them (state_from_view needs them); a prompt
    builder reproducing LLMArena's prompt leaves them out.
  - Monte Carlo equity samples for the risk analysis (item 19): `hand_equity` defaults to 10,000.
  - Random pairing and random seats (item 4) are the scheduler's; the random dealer is this engine's
    first chance node, so a seat's position changes from hand to hand even with fixed seats.
  - Seating is not in the reference's list; see "Where this engine differs from RLCard" above.

Bounds. Over all parameter values a hand lasts at most 43 moves: 10 chance nodes (dealer, 9 cards)
and at most 8 + R decisions with R raises, each betting round holding at most two actions that do not
raise. Every Half Pot or Full Pot raise multiplies the pot by at least 4/3 and the pot stays within
the 2 * 1000 chips of both stacks, starting from at least 2, so at most 24 of them happen, plus one
All in (after an all-in nobody raises). (An exhaustive search of the betting finds at most 25
decisions, with 1000 chips each and blinds 1/1; 18 in the llmarena preset.)
"""

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    FOLD = 0
    CHECK_CALL = 1
    RAISE_HALF_POT = 2
    RAISE_FULL_POT = 3
    ALL_IN = 4
    NUM_ACTIONS = 5

cdef enum:
    NUM_CARDS = 52
    NUM_RANKS = 13
    HOLE_DEALS = 4          # hole cards: deal i goes to seat i % 2
    TOTAL_DEALS = 9         # the hole cards, then the five community cards
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    MAX_BETS = 48           # capacity of the betting log (33 decisions at most, see the docstring)

# Hand categories, the high bits of a hand value (hand_value).
cdef enum:
    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    CATEGORY_SHIFT = 20     # five 4-bit ranks below the category

MAX_CHIPS = 1000
MAX_GAME_LENGTH = 43
DEFAULT_EQUITY_SAMPLES = 10_000

SUITS = ("Spades", "Hearts", "Diamonds", "Clubs")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ACTION_LABELS = ("Fold", "Check and Call", "Raise Half Pot", "Raise Full Pot", "All in")
STAGE_NAMES = ("pre-flop", "flop", "turn", "river")
CATEGORY_NAMES = ("high card", "one pair", "two pair", "three of a kind", "straight", "flush", "full house",
                  "four of a kind", "straight flush")

_LLMARENA = {"chips_0": 100, "chips_1": 100, "small_blind": 1, "big_blind": 2, "rlcard_seating": False}

SPEC = GameSpec(
    game_id="texas_holdem_no_limit",
    display_name="Texas Hold'em (No Limit, Heads-Up)",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="zero_sum",
    min_utility=-float(MAX_CHIPS),
    max_utility=float(MAX_CHIPS),
    max_game_length=MAX_GAME_LENGTH,
    description="One hand of heads-up no-limit Texas Hold'em with blinds and a random dealer; each decision "
                "is Fold, Check and Call, Raise Half Pot, Raise Full Pot or All in. The best five-card hand "
                "at showdown wins the pot; returns are chips won or lost.",
    parameters=(
        Parameter("chips_0", 100, f"seat 0's chips at the start of the hand, big_blind + 1 to {MAX_CHIPS}"),
        Parameter("chips_1", 100, f"seat 1's chips at the start of the hand, big_blind + 1 to {MAX_CHIPS}"),
        Parameter("small_blind", 1, "chips the small blind posts before the deal, 1 to big_blind"),
        Parameter("big_blind", 2, f"chips the big blind posts before the deal, small_blind to {MAX_CHIPS - 1}"),
        Parameter("rlcard_seating", False, "RLCard's two-player seating: the dealer posts the big blind and "
                                           "the other seat acts first in every betting round"),
    ),
    presets=(
        Preset("llmarena", "LLMArena (Chen et al., ACL 2024) Texas Hold'em with RLCard's defaults: heads-up, "
               "100 chips each, blinds 1/2, random dealer, one hand; answer 'Action: Check and Call'.",
               _LLMARENA),
        Preset("llmarena_code", "LLMArena's Hold'em as its released code played it: the llmarena preset with "
               "RLCard's two-player seating (the dealer posts the big blind; the other seat acts first in every "
               "betting round).", {**_LLMARENA, "rlcard_seating": True}),
    ),
    accepts_text_actions=True,
)

# One hand is already short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {}}

# Deal indices of the community cards of each stage, and the stage of each community deal.
_BOARD_DEALS = ((), (4, 5, 6), (7,), (8,))
_STAGE_OF_DEAL = {i: stage for stage, deals in enumerate(_BOARD_DEALS) for i in deals}

_LABEL = r"(fold|check\s+and\s+call|raise\s+half\s+pot|raise\s+full\s+pot|all(?:\s+|-)in)\b"
_ACTION_LINE = re.compile(r"action\s*:\s*" + _LABEL, re.IGNORECASE)
_BARE_LABEL = re.compile(_LABEL + r"\s*\.?", re.IGNORECASE)


# ---- cards and hand values (C) ----------------------------------------------------------------------
cdef inline int _straight_top(int mask) noexcept nogil:
    """Rank of the top card of the highest straight in a 13-bit rank mask, -1 if none; the wheel
    A-2-3-4-5 counts as 5-high (rank 3)."""
    cdef int top
    for top in range(12, 3, -1):
        if (mask >> (top - 4)) & 0x1F == 0x1F:
            return top
    if mask & 0x100F == 0x100F:         # A, 2, 3, 4, 5
        return 3
    return -1


cdef inline int _pack(int category, int r0, int r1, int r2, int r3, int r4) noexcept nogil:
    return (category << CATEGORY_SHIFT) | (r0 << 16) | (r1 << 12) | (r2 << 8) | (r3 << 4) | r4


cdef inline int _top_ranks(int mask, int count, int* out) noexcept nogil:
    """Writes the `count` highest ranks of a rank mask into out (highest first); returns how many."""
    cdef int r, n = 0
    for r in range(12, -1, -1):
        if n == count:
            break
        if mask & (1 << r):
            out[n] = r
            n += 1
    return n


cdef int hand_value(const int* cards, int n) noexcept nogil:
    """Value of the best five-card hand among n (5 to 7) cards: the category in the high bits, then the
    ranks that break ties, in order, four bits each. A larger value is a better hand; equal values
    split the pot."""
    cdef int counts[NUM_RANKS]
    cdef int suit_count[4]
    cdef int suit_mask[4]
    cdef int ranks_mask = 0, i, r, s, top, flush_suit = -1
    cdef int quad = -1, n_trips = 0, n_pairs = 0
    cdef int trips[2]
    cdef int pairs[3]
    cdef int kick[5]
    for r in range(NUM_RANKS):
        counts[r] = 0
    for i in range(5):
        kick[i] = 0
    for s in range(4):
        suit_count[s] = 0
        suit_mask[s] = 0
    for i in range(n):
        r = cards[i] % NUM_RANKS
        s = cards[i] // NUM_RANKS
        counts[r] += 1
        suit_count[s] += 1
        suit_mask[s] |= 1 << r
        ranks_mask |= 1 << r
    for s in range(4):
        if suit_count[s] >= 5:
            flush_suit = s
            top = _straight_top(suit_mask[s])
            if top >= 0:
                return _pack(STRAIGHT_FLUSH, top, 0, 0, 0, 0)
    for r in range(12, -1, -1):
        if counts[r] == 4:
            quad = r
        elif counts[r] == 3:
            if n_trips < 2:
                trips[n_trips] = r
                n_trips += 1
        elif counts[r] == 2:
            if n_pairs < 3:
                pairs[n_pairs] = r
                n_pairs += 1
    if quad >= 0:
        _top_ranks(ranks_mask & ~(1 << quad), 1, kick)
        return _pack(FOUR_OF_A_KIND, quad, kick[0], 0, 0, 0)
    if n_trips == 2:
        # Two triples: the lower one gives the pair, unless a pair ranks higher.
        return _pack(FULL_HOUSE, trips[0], trips[1] if n_pairs == 0 or trips[1] > pairs[0] else pairs[0],
                     0, 0, 0)
    if n_trips == 1 and n_pairs > 0:
        return _pack(FULL_HOUSE, trips[0], pairs[0], 0, 0, 0)
    if flush_suit >= 0:
        _top_ranks(suit_mask[flush_suit], 5, kick)
        return _pack(FLUSH, kick[0], kick[1], kick[2], kick[3], kick[4])
    top = _straight_top(ranks_mask)
    if top >= 0:
        return _pack(STRAIGHT, top, 0, 0, 0, 0)
    if n_trips == 1:
        _top_ranks(ranks_mask & ~(1 << trips[0]), 2, kick)
        return _pack(THREE_OF_A_KIND, trips[0], kick[0], kick[1], 0, 0)
    if n_pairs >= 2:
        # A third pair's rank can be the kicker.
        _top_ranks(ranks_mask & ~(1 << pairs[0]) & ~(1 << pairs[1]), 1, kick)
        return _pack(TWO_PAIR, pairs[0], pairs[1], kick[0], 0, 0)
    if n_pairs == 1:
        _top_ranks(ranks_mask & ~(1 << pairs[0]), 3, kick)
        return _pack(ONE_PAIR, pairs[0], kick[0], kick[1], kick[2], 0)
    _top_ranks(ranks_mask, 5, kick)
    return _pack(HIGH_CARD, kick[0], kick[1], kick[2], kick[3], kick[4])


cdef double _equity(const int* hole, const int* board, int n_board, int samples, Rng* rng) noexcept nogil:
    """Share of the pot a hand wins on average against one uniformly random opponent hand, with the
    missing community cards drawn at random (ties count half)."""
    cdef int deck[NUM_CARDS]
    cdef int mine[7]
    cdef int theirs[7]
    cdef int n_deck = 0, c, i, j, k, tmp, missing = 5 - n_board, mine_value, their_value
    cdef unsigned long long used = 0
    cdef double won = 0.0
    for i in range(2):
        used |= 1ULL << hole[i]
        mine[i] = hole[i]
    for i in range(n_board):
        used |= 1ULL << board[i]
        mine[2 + i] = board[i]
        theirs[2 + i] = board[i]
    for c in range(NUM_CARDS):
        if not (used >> c) & 1:
            deck[n_deck] = c
            n_deck += 1
    for k in range(samples):
        # A partial Fisher-Yates shuffle draws the opponent's two cards, then the missing board.
        for i in range(2 + missing):
            j = i + rng_below(rng, n_deck - i)
            tmp = deck[i]
            deck[i] = deck[j]
            deck[j] = tmp
        theirs[0] = deck[0]
        theirs[1] = deck[1]
        for i in range(missing):
            mine[2 + n_board + i] = deck[2 + i]
            theirs[2 + n_board + i] = deck[2 + i]
        mine_value = hand_value(mine, 7)
        their_value = hand_value(theirs, 7)
        if mine_value > their_value:
            won += 1.0
        elif mine_value == their_value:
            won += 0.5
    return won / samples if samples > 0 else 0.0


# ---- cards and hands (Python) -----------------------------------------------------------------------
def card_name(int card) -> str:
    """LLMArena's rendering of a card id: "Spades A", "Hearts 10"."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card ids are 0-51, not {card}")
    return f"{SUITS[card // NUM_RANKS]} {RANKS[card % NUM_RANKS]}"


CARD_IDS = {card_name(c).lower(): c for c in range(NUM_CARDS)}


def card_id(str name) -> int:
    """The id of a card written as card_name writes it (case-insensitive)."""
    try:
        return CARD_IDS[" ".join(name.split()).lower()]
    except KeyError:
        raise ValueError(f"{name!r} is not a card (e.g. 'Spades A', 'Hearts 10')") from None


def _ids(cards) -> list:
    return [card_id(c) if isinstance(c, str) else int(c) for c in cards]


def evaluate_hand(cards) -> int:
    """Value of the best five-card hand among 5 to 7 cards (names or ids); larger is better."""
    cdef int buf[7]
    ids = _ids(cards)
    if not 5 <= len(ids) <= 7 or len(set(ids)) != len(ids) or not all(0 <= c < NUM_CARDS for c in ids):
        raise ValueError(f"a hand is 5 to 7 distinct cards, not {cards!r}")
    for i, c in enumerate(ids):
        buf[i] = c
    return hand_value(buf, len(ids))


def hand_category(int value) -> str:
    """The category name of a hand value; "royal flush" for the ace-high straight flush."""
    category = value >> CATEGORY_SHIFT
    if category == STRAIGHT_FLUSH and (value >> 16) & 0xF == 12:
        return "royal flush"
    return CATEGORY_NAMES[category]


def best_five_ranks(int value) -> list:
    """The ranks of the five cards a hand value stands for, in the order they compare."""
    category = value >> CATEGORY_SHIFT
    r = [(value >> shift) & 0xF for shift in (16, 12, 8, 4, 0)]
    if category in (STRAIGHT, STRAIGHT_FLUSH):
        ranks = [r[0] - i for i in range(4)] + [r[0] - 4 if r[0] > 3 else 12]    # the wheel ends with A
    elif category == FOUR_OF_A_KIND:
        ranks = [r[0]] * 4 + [r[1]]
    elif category == FULL_HOUSE:
        ranks = [r[0]] * 3 + [r[1]] * 2
    elif category == THREE_OF_A_KIND:
        ranks = [r[0]] * 3 + r[1:3]
    elif category == TWO_PAIR:
        ranks = [r[0]] * 2 + [r[1]] * 2 + [r[2]]
    elif category == ONE_PAIR:
        ranks = [r[0]] * 2 + r[1:4]
    else:
        ranks = r
    return [RANKS[x] for x in ranks]


def describe_hand(int value) -> str:
    """E.g. "two pair (K K 7 7 4)"."""
    return f"{hand_category(value)} ({' '.join(best_five_ranks(value))})"


def hand_equity(hole, board=(), int samples=DEFAULT_EQUITY_SAMPLES, seed=0) -> float:
    """Monte Carlo share of the pot that two hole cards win against one random hand, given 0 to 5
    community cards (names or ids): wins plus half the ties, over `samples` random deals."""
    cdef int hole_buf[2]
    cdef int board_buf[5]
    cdef Rng rng
    hole_ids, board_ids = _ids(hole), _ids(board)
    every = hole_ids + board_ids
    if len(hole_ids) != 2 or len(board_ids) > 5 or len(set(every)) != len(every) \
            or not all(0 <= c < NUM_CARDS for c in every):
        raise ValueError("hand_equity takes 2 hole cards and 0 to 5 community cards, all distinct")
    if samples < 1:
        raise ValueError(f"samples must be positive, not {samples}")
    for i in range(2):
        hole_buf[i] = hole_ids[i]
    for i, c in enumerate(board_ids):
        board_buf[i] = c
    rng.s = <unsigned long long>(seed & 0xFFFFFFFFFFFFFFFF)
    return _equity(hole_buf, board_buf, len(board_ids), samples, &rng)


def _chips(int n) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"


# ---- the state --------------------------------------------------------------------------------------
cdef class HoldemState(State):
    cdef int start_chips[2]
    cdef int small_blind, big_blind
    cdef bint rlcard_seating
    cdef int dealer                 # -1 until chance picks it
    cdef int deals[TOTAL_DEALS]     # card ids in dealing order (hole cards, then the board)
    cdef int num_deals
    cdef int deal_target            # cards that must be dealt before the next decision
    cdef int stage                  # betting round: PREFLOP .. RIVER
    cdef int committed[2]           # chips each seat has put in this hand
    cdef int round_bet[2]           # chips each seat has put in this betting round
    cdef bint needs_to_act[2]       # whether a seat must still act in this betting round
    cdef int to_act
    cdef int folded                 # the seat that folded, -1 if none
    cdef bint running_out           # a player is all in: the board is dealt out without betting
    cdef bint finished
    cdef int values[2]              # hand values at showdown
    cdef int bet_seat[MAX_BETS]     # the betting log
    cdef int bet_action[MAX_BETS]
    cdef int bet_stage[MAX_BETS]
    cdef int bet_chips[MAX_BETS]    # chips each action put in
    cdef int num_bets

    def __init__(self, game):
        super().__init__(game, 2)
        parameters = game.parameters
        self.start_chips[0] = parameters["chips_0"]
        self.start_chips[1] = parameters["chips_1"]
        self.small_blind = parameters["small_blind"]
        self.big_blind = parameters["big_blind"]
        self.rlcard_seating = parameters["rlcard_seating"]
        self.dealer = -1
        self.folded = -1
        self.to_act = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef inline int _stack(self, int seat) noexcept:
        return self.start_chips[seat] - self.committed[seat]

    cdef inline int _pot(self) noexcept:
        return self.committed[0] + self.committed[1]

    cdef inline int _small_blind_seat(self) noexcept:
        return 1 - self.dealer if self.rlcard_seating else self.dealer

    cdef int c_current_player(self) noexcept:
        if self.finished:
            return TERMINAL_PLAYER
        if self.dealer < 0 or self.num_deals < self.deal_target:
            return CHANCE_PLAYER
        return self.to_act

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int other = 1 - player, to_call, stack, pot, n = 2
        if self.c_current_player() != player:
            return 0
        out[0] = FOLD
        out[1] = CHECK_CALL
        to_call = self.round_bet[other] - self.round_bet[player]
        stack = self._stack(player)
        if (to_call > 0 and to_call >= stack) or self._stack(other) == 0:
            return 2
        pot = self._pot()
        if pot // 2 <= stack and pot // 2 > to_call:
            out[n] = RAISE_HALF_POT
            n += 1
        if pot <= stack:
            out[n] = RAISE_FULL_POT
            n += 1
        out[n] = ALL_IN
        return n + 1

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int card, i, n = 0
        cdef unsigned long long dealt = 0
        if self.dealer < 0:
            actions[0] = 0
            actions[1] = 1
            probs[0] = 0.5
            probs[1] = 0.5
            return 2
        for i in range(self.num_deals):
            dealt |= 1ULL << self.deals[i]
        for card in range(NUM_CARDS):
            if not (dealt >> card) & 1:
                actions[n] = card
                n += 1
        for i in range(n):
            probs[i] = 1.0 / n
        return n

    cdef void _put_in(self, int seat, int chips) noexcept:
        self.committed[seat] += chips
        self.round_bet[seat] += chips

    cdef void c_apply_action(self, int action) noexcept:
        if self.dealer < 0:
            self.dealer = action
            self._put_in(self._small_blind_seat(), self.small_blind)
            self._put_in(1 - self._small_blind_seat(), self.big_blind)
            self.deal_target = HOLE_DEALS
            self.needs_to_act[0] = True
            self.needs_to_act[1] = True
            self.to_act = self._small_blind_seat()
        elif self.num_deals < self.deal_target:
            self.deals[self.num_deals] = action
            self.num_deals += 1
            if self.running_out and self.num_deals == TOTAL_DEALS:
                self._showdown()
        else:
            self._bet(action)

    cdef void _bet(self, int action) noexcept:
        cdef int seat = self.to_act, other = 1 - self.to_act
        cdef int chips = 0, to_call = self.round_bet[other] - self.round_bet[seat], stack = self._stack(seat)
        if action == CHECK_CALL:
            chips = to_call if to_call < stack else stack
        elif action == RAISE_HALF_POT:
            chips = self._pot() // 2
        elif action == RAISE_FULL_POT:
            chips = self._pot()
        elif action == ALL_IN:
            chips = stack
        self.bet_seat[self.num_bets] = seat
        self.bet_action[self.num_bets] = action
        self.bet_stage[self.num_bets] = self.stage
        self.bet_chips[self.num_bets] = chips
        self.num_bets += 1
        if action == FOLD:
            self.folded = seat
            self.finished = True
            return
        self._put_in(seat, chips)
        self.needs_to_act[seat] = False
        if self.round_bet[seat] > self.round_bet[other]:
            self.needs_to_act[other] = self._stack(other) > 0
        if self.needs_to_act[other]:
            self.to_act = other
        else:
            self._end_betting_round()

    cdef void _end_betting_round(self) noexcept:
        if self.stage == RIVER:
            self._showdown()
            return
        self.round_bet[0] = 0
        self.round_bet[1] = 0
        if self._stack(0) == 0 or self._stack(1) == 0:
            self.running_out = True
            self.stage = RIVER
            self.deal_target = TOTAL_DEALS
            return
        self.stage += 1
        self.deal_target = HOLE_DEALS + 2 + self.stage     # flop 7, turn 8, river 9
        self.needs_to_act[0] = True
        self.needs_to_act[1] = True
        self.to_act = 1 - self.dealer

    cdef void _showdown(self) noexcept:
        cdef int cards[7]
        cdef int seat, i
        for seat in range(2):
            cards[0] = self.deals[seat]
            cards[1] = self.deals[seat + 2]
            for i in range(5):
                cards[2 + i] = self.deals[HOLE_DEALS + i]
            self.values[seat] = hand_value(cards, 7)
        self.finished = True

    cdef void c_returns(self, double* out) noexcept:
        cdef int winner, amount
        out[0] = 0.0
        out[1] = 0.0
        if not self.finished:
            return
        if self.folded >= 0:
            out[self.folded] = -self.committed[self.folded]
            out[1 - self.folded] = self.committed[self.folded]
        elif self.values[0] != self.values[1]:
            winner = 0 if self.values[0] > self.values[1] else 1
            # Chips one player put in beyond what the other could match go back to it.
            amount = self.committed[0] if self.committed[0] < self.committed[1] else self.committed[1]
            out[winner] = amount
            out[1 - winner] = -amount

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int other = 1 - player, i, j, n_pool = 0, card
        cdef int pool[NUM_CARDS]
        cdef unsigned long long seen = 0
        if self.finished and self.folded < 0:
            return                                  # both hands were shown
        for i in range(self.num_deals):
            if i >= HOLE_DEALS or i % 2 == player:
                seen |= 1ULL << self.deals[i]
        # Built from what `player` saw only, in card order, so the draw depends on nothing hidden.
        for card in range(NUM_CARDS):
            if not (seen >> card) & 1:
                pool[n_pool] = card
                n_pool += 1
        for i in range(other, self.num_deals if self.num_deals < HOLE_DEALS else HOLE_DEALS, 2):
            j = rng_below(rng, n_pool)
            self.deals[i] = pool[j]
            n_pool -= 1
            pool[j] = pool[n_pool]

    cdef State c_clone(self):
        cdef HoldemState s = HoldemState.__new__(HoldemState)
        self._copy_base_into(s)
        s.start_chips = self.start_chips
        s.small_blind = self.small_blind
        s.big_blind = self.big_blind
        s.rlcard_seating = self.rlcard_seating
        s.dealer = self.dealer
        s.deals = self.deals
        s.num_deals = self.num_deals
        s.deal_target = self.deal_target
        s.stage = self.stage
        s.committed = self.committed
        s.round_bet = self.round_bet
        s.needs_to_act = self.needs_to_act
        s.to_act = self.to_act
        s.folded = self.folded
        s.running_out = self.running_out
        s.finished = self.finished
        s.values = self.values
        s.bet_seat = self.bet_seat
        s.bet_action = self.bet_action
        s.bet_stage = self.bet_stage
        s.bet_chips = self.bet_chips
        s.num_bets = self.num_bets
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _hole(self, int seat) -> list:
        return [card_name(self.deals[i]) for i in (seat, seat + 2) if i < self.num_deals]

    def _board(self) -> list:
        return [card_name(self.deals[i]) for i in range(HOLE_DEALS, self.num_deals)]

    def _showed_down(self) -> bool:
        return self.finished and self.folded < 0

    def _to_call(self, int seat) -> int:
        return min(max(self.round_bet[1 - seat] - self.round_bet[seat], 0), self._stack(seat))

    def _chips_for(self, int seat, int action) -> int:
        """Chips `action` would put in for `seat` now."""
        if action == FOLD:
            return 0
        if action == CHECK_CALL:
            return self._to_call(seat)
        if action == RAISE_HALF_POT:
            return self._pot() // 2
        if action == RAISE_FULL_POT:
            return self._pot()
        return self._stack(seat)

    def _bet_text(self, int i) -> str:
        """Betting action i with what it put in, e.g. "Check and Call (call, 1 chip)"."""
        action, chips = self.bet_action[i], self.bet_chips[i]
        if action == FOLD:
            effect = "fold"
        elif action == CHECK_CALL:
            effect = "check" if chips == 0 else f"call, {_chips(chips)}"
        else:
            effect = _chips(chips)
        return f"{ACTION_LABELS[action]} ({effect})"

    def _option_text(self, int seat, int action) -> str:
        chips = self._chips_for(seat, action)
        if action == FOLD:
            effect = "give up the hand"
        elif action == CHECK_CALL:
            effect = "check" if chips == 0 else (f"call {_chips(chips)}" if chips < self._stack(seat)
                                                 else f"call with your last {_chips(chips)}")
        elif action == ALL_IN:
            effect = f"put in all your {_chips(chips)}"
        else:
            effect = f"put in {_chips(chips)}"
        return f"{ACTION_LABELS[action]} ({effect})"

    def _winner(self):
        """The winning seat, -1 for a split pot, None before the end."""
        if not self.finished:
            return None
        if self.folded >= 0:
            return 1 - self.folded
        if self.values[0] == self.values[1]:
            return -1
        return 0 if self.values[0] > self.values[1] else 1

    def _blind_seats(self) -> tuple:
        small = self._small_blind_seat()
        return small, 1 - small

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.dealer < 0:
                return f"seat {action} is the dealer"
            return f"deal {card_name(action)}"
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"hold'em actions are 0-4 ({', '.join(ACTION_LABELS)}), not {action}")
        return ACTION_LABELS[action]

    def parse_action(self, int player, str text) -> int:
        found = _ACTION_LINE.search(text)
        if found is None:
            found = _BARE_LABEL.fullmatch(text.strip())
        if found is None:
            raise ActionParseError(
                f"no action found in {text[:80]!r}. End your answer with a line 'Action: <action>', naming "
                f"one of: {', '.join(ACTION_LABELS)}; for example 'Action: Check and Call'.")
        label = " ".join(found.group(1).replace("-", " ").split()).lower()
        return [a.lower() for a in ACTION_LABELS].index(label)

    def text_action_spec(self, int player):
        if self.c_current_player() != player:
            return None
        legal = ", ".join(ACTION_LABELS[a] for a in self.legal_actions(player))
        return {"description": f"reasoning if you like, then a line 'Action: <action>' with one of: {legal}",
                "max_length": 4000, "forbidden_words": []}

    def _rules_text(self) -> str:
        if self.start_chips[0] == self.start_chips[1]:
            stacks = f"both players start with {_chips(self.start_chips[0])}"
        else:
            stacks = f"seat 0 starts with {_chips(self.start_chips[0])}, seat 1 with {_chips(self.start_chips[1])}"
        return (
            f"Texas Hold'em, no limit, heads-up, one hand: {stacks}; blinds {self.small_blind}/{self.big_blind}. "
            f"Each player holds two private cards; five community cards come in three stages (flop 3, turn 1, "
            f"river 1), with a betting round before the flop and after each stage. The best five-card hand "
            f"made from a player's two cards and the community cards wins the pot; equal hands split it. "
            f"Actions: Fold; Check and Call; Raise Half Pot (put in half the pot); Raise Full Pot (put in the "
            f"whole pot); All in (put in every chip you have left).")

    def _who(self, int seat, int player) -> str:
        return "you" if seat == player else "your opponent"

    def observation_string(self, int player) -> str:
        check_seat("hold'em", player)
        other = 1 - player
        lines = [self._rules_text()]
        if self.dealer < 0:
            lines.append(f"You are seat {player}. The dealer has not been chosen yet.")
        else:
            small, big = self._blind_seats()
            lines.append(
                f"You are seat {player}. The dealer is {self._who(self.dealer, player)} (seat {self.dealer}). "
                f"{self._who(small, player).capitalize()} posted the small blind ({_chips(self.small_blind)}), "
                f"{self._who(big, player)} the big blind ({_chips(self.big_blind)}).")
        hole = self._hole(player)
        lines.append(f"Your hole cards: {', '.join(hole)}." if hole else "Your hole cards: not dealt yet.")
        board = self._board()
        lines.append(f"Community cards: {', '.join(board)}." if board else "Community cards: none yet.")
        lines.append(f"Chips: you have {self._stack(player)} left and have put {self.committed[player]} in; "
                     f"your opponent has {self._stack(other)} left and has put {self.committed[other]} in. "
                     f"Pot: {_chips(self._pot())}.")
        for stage in range(RIVER + 1):
            moves = [f"{self._who(self.bet_seat[i], player)}: {self._bet_text(i)}"
                     for i in range(self.num_bets) if self.bet_stage[i] == stage]
            if moves:
                lines.append(f"Betting {STAGE_NAMES[stage]}: " + "; ".join(moves) + ".")
        lines.append(self._status_text(player))
        return "\n".join(lines)

    def _status_text(self, int player) -> str:
        to_play = self.c_current_player()
        if self.finished:
            returns = self.returns()
            mine = int(returns[player])
            outcome = (f"you win {_chips(mine)}" if mine > 0 else f"you lose {_chips(-mine)}" if mine < 0
                       else "nobody wins or loses chips")
            if self.folded >= 0:
                return f"The hand is over: {self._who(self.folded, player)} folded; {outcome}."
            other = 1 - player
            return (f"Showdown: your opponent shows {', '.join(self._hole(other))}. Your hand: "
                    f"{describe_hand(self.values[player])}; your opponent's: {describe_hand(self.values[other])}. "
                    f"The hand is over: " + ("the pot is split" if self._winner() < 0 else outcome) + ".")
        if to_play == CHANCE_PLAYER:
            return "The dealer is being chosen." if self.dealer < 0 else "Cards are being dealt."
        if to_play != player:
            return "Waiting for your opponent."
        to_call = self._to_call(player)
        owed = f"{_chips(to_call)} to call" if to_call else "nothing to call"
        options = "; ".join(self._option_text(player, a) for a in self.legal_actions(player))
        return f"Your move in the {STAGE_NAMES[self.stage]} betting ({owed}). Legal actions: {options}."

    def _betting_data(self) -> list:
        return [{"seat": self.bet_seat[i], "stage": STAGE_NAMES[self.bet_stage[i]], "action": self.bet_action[i],
                 "text": ACTION_LABELS[self.bet_action[i]], "chips": self.bet_chips[i]}
                for i in range(self.num_bets)]

    def observation_dict(self, int player) -> dict:
        check_seat("hold'em", player)
        to_play = self.c_current_player()
        small, big = self._blind_seats() if self.dealer >= 0 else (None, None)
        return {
            "seat": player,
            "dealer": self.dealer if self.dealer >= 0 else None,
            "small_blind_seat": small,
            "big_blind_seat": big,
            "blinds": [self.small_blind, self.big_blind],
            "starting_chips": [self.start_chips[0], self.start_chips[1]],
            "hole_cards": self._hole(player),
            "cards_dealt": self.num_deals,
            "board": self._board(),
            "stage": STAGE_NAMES[self.stage],
            "chips_left": [self._stack(0), self._stack(1)],
            "chips_in": [self.committed[0], self.committed[1]],
            "round_bets": [self.round_bet[0], self.round_bet[1]],
            "pot": self._pot(),
            "to_call": self._to_call(player),
            "betting": self._betting_data(),
            "to_play": to_play if to_play >= 0 else None,
            "legal_actions": self.legal_actions(player),
            "options": [{"action": a, "text": ACTION_LABELS[a], "chips": self._chips_for(player, a)}
                        for a in self.legal_actions(player)],
            "opponent_hole_cards": self._hole(1 - player) if self._showed_down() else None,
            "finished": bool(self.finished),
            "returns": self.returns(),
        }

    def public_history(self) -> list:
        """The dealer and blinds, hole cards as summaries, betting actions with their amounts, each
        community card, and both hands after a showdown; chronological and append-only."""
        if self.dealer < 0:
            return []
        small, big = self._blind_seats()
        out = [(-1, self.dealer, f"seat {self.dealer} is the dealer"),
               (-1, -1, f"seat {small} posts the small blind ({_chips(self.small_blind)})"),
               (-1, -1, f"seat {big} posts the big blind ({_chips(self.big_blind)})")]
        out += [(-1, -1, f"a hole card is dealt to seat {i % 2}") for i in range(min(self.num_deals, HOLE_DEALS))]
        for stage in range(RIVER + 1):
            # The community cards of a stage come before its betting (all of them after an all-in).
            for i in _BOARD_DEALS[stage]:
                if i < self.num_deals:
                    out.append((-1, self.deals[i], f"{STAGE_NAMES[_STAGE_OF_DEAL[i]]}: {card_name(self.deals[i])}"))
            out += [(self.bet_seat[i], self.bet_action[i], self._bet_text(i))
                    for i in range(self.num_bets) if self.bet_stage[i] == stage]
        if self._showed_down():
            shown = "; ".join(f"seat {seat} shows {', '.join(self._hole(seat))}: {describe_hand(self.values[seat])}"
                              for seat in (0, 1))
            out.append((-1, -1, f"showdown: {shown}"))
        return out

    def result_summary(self) -> str:
        winner = self._winner()
        if winner is None:
            return "game in progress"
        if self.folded >= 0:
            return f"seat {winner} wins {_chips(self.committed[self.folded])}: seat {self.folded} folded"
        if winner < 0:
            return f"split pot: both seats hold {describe_hand(self.values[0])}"
        return (f"seat {winner} wins {_chips(int(self.returns()[winner]))} at showdown "
                f"({describe_hand(self.values[winner])} beats {describe_hand(self.values[1 - winner])})")

    def result_details(self) -> dict:
        winner = self._winner()
        small, big = self._blind_seats() if self.dealer >= 0 else (None, None)
        return {
            "dealer": self.dealer if self.dealer >= 0 else None,
            "small_blind_seat": small,
            "big_blind_seat": big,
            "hole_cards": [self._hole(0), self._hole(1)],
            "board": self._board(),
            "betting": self._betting_data(),
            "chips_in": [self.committed[0], self.committed[1]],
            "folded": self.folded if self.folded >= 0 else None,
            "showdown": self._showed_down(),
            "hands": [describe_hand(self.values[0]), describe_hand(self.values[1])] if self._showed_down() else None,
            "winners": None if winner is None else ([0, 1] if winner < 0 else [winner]),
            "returns": self.returns(),
        }


class Game(GameBase):
    """One hand of heads-up no-limit hold'em with validated stacks and blinds."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        big = checked_int(values, "big_blind", 1, MAX_CHIPS - 1)
        checked_int(values, "small_blind", 1, big)
        # More chips than the big blind: nobody is all in from the blinds alone.
        checked_int(values, "chips_0", big + 1, MAX_CHIPS)
        checked_int(values, "chips_1", big + 1, MAX_CHIPS)
        if not isinstance(values["rlcard_seating"], bool):
            raise ValueError(f"parameter 'rlcard_seating' must be true or false, not {values['rlcard_seating']!r}")

    def utility_bounds(self) -> tuple:
        """(min, max) return: nobody can lose more than the smaller stack."""
        stake = float(min(self.parameters["chips_0"], self.parameters["chips_1"]))
        return -stake, stake

    def new_initial_state(self) -> HoldemState:
        return HoldemState(self)

    def state_from_view(self, int player, dict view) -> HoldemState:
        """A state consistent with `view` (seat `player`'s observation_dict). Hidden opponent hole
        cards become the lowest cards the player has not seen; the rest replays as it happened."""
        check_seat("hold'em", player)
        state = self.new_initial_state()
        if view["dealer"] is None:
            return state
        own = _ids(view["hole_cards"])
        board = _ids(view["board"])
        shown = _ids(view["opponent_hole_cards"] or [])
        unseen = iter(c for c in range(NUM_CARDS) if c not in own and c not in board)
        deals = []
        for i in range(view["cards_dealt"]):
            if i >= HOLE_DEALS:
                deals.append(board[i - HOLE_DEALS])
            elif i % 2 == player:
                deals.append(own[i // 2])
            else:
                deals.append(shown[i // 2] if shown else next(unseen))
        actions = [move["action"] for move in view["betting"]]
        state.apply_action(view["dealer"])
        while not state.is_terminal():
            if state.is_chance_node():
                if not deals:
                    break
                state.apply_action(deals.pop(0))
            elif actions:
                state.apply_action(actions.pop(0))
            else:
                break
        return state
