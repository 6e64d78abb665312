"""Air, Land, and Sea, the two-player card game of GameBench (reference gamebench.md section 2.1).

Two Supreme Commanders fight a series of battles over three theaters, Air, Land and Sea, laid out in a
row (neighbouring theaters are "adjacent"). The first player to reach "target_vp" victory points (VPs,
12) wins the game.

Cards. An 18-card deck, six cards per theater type with strengths 1 to 6 (GameBench's deck, section 2.1,
"Implementation"); the texts are the card's:
  Air  1 Support (Ongoing: +3 Strength in each adjacent theater), 2 Air Drop (Instant: your next card
       may be played face up to a non-matching theater), 3 Maneuver (Instant: flip an uncovered card in
       an adjacent theater), 4 Aerodrome (Ongoing: you may play cards of Strength 3 or less face up to
       non-matching theaters), 5 Containment (Ongoing: any card played face down, by either player, is
       destroyed), 6 Heavy Bombers (no ability).
  Land 1 Reinforce (Instant: draw 1 card and play it face down to an adjacent theater), 2 Ambush
       (Instant: flip any uncovered card), 3 Maneuver, 4 Cover Fire (Ongoing: all cards covered by this
       card are Strength 4), 5 Disrupt (Ongoing: starting with you, both players choose and flip 1 of
       their own uncovered cards), 6 Heavy Tanks (no ability).
  Sea  1 Transport (Instant: you may move 1 of your cards to a different theater), 2 Escalation
       (Ongoing: your face-down cards are Strength 4), 3 Maneuver, 4 Redeploy (Instant: you may return 1
       of your face-down cards to your hand; if you do, play a card), 5 Blockade (Ongoing: a card played
       to an adjacent theater already holding 3 or more other cards is destroyed), 6 Super Battleship.
Card id = 6 * type + strength - 1 with types Air 0, Land 1, Sea 2; a card is named "Maneuver (Air 3)".

A battle. Chance deals "hand_size" (6) cards to seat 0, then to seat 1, one card per chance node drawn
uniformly from the cards left; the other cards stay in the deck. The holder of the 1st Player Supreme
Commander card plays first; then the players alternate, each turn one of:
  Deploy     play a card face up, on your own side, to the theater of its type;
  Improvise  play a card face down (Strength 2, no ability) to any theater;
  Withdraw   give up the battle: the opponent wins it and scores VPs by the cards left in your hand
             (5 or more / 4 / 3 / 2 / 1 / 0 cards: 2/3/3/4/6/6 VPs for the 1st player, 2/2/3/3/4/6 for
             the 2nd, the reference's Supreme Commander table).
A played card covers the cards already on its owner's side of that theater; the last one is uncovered.
A card played face up, or flipped face up, uses its ability. Instant abilities resolve once, at once,
and fully; abilities revealed at the same time resolve in the order they were revealed (a queue). An
ability is mandatory unless it says "may" and is skipped when it is impossible. Ongoing abilities act
while their card is face up. Flipping turns a card over (face up or face down), any card unless the
text says otherwise; a flipped-up card's identity is public from then on. Destroyed cards go face down
to the bottom of the deck and use no ability; Reinforce draws from the top (the shuffled undealt cards,
then the destroyed cards in the order they arrived). Moved cards stay on their owner's side and cover
the target theater's cards. A battle ends on a withdrawal, or when both hands are empty: a player
controls a theater with a higher total Strength there (ties and empty theaters go to the 1st player);
controlling two theaters wins the battle and 6 VPs. Then, if the winner has "target_vp" VPs the game
ends; otherwise the cards are reshuffled, the theaters rotate (the rightmost moves to the far left),
the Supreme Commander cards are swapped and a new battle is dealt. Before the first battle chance lays
out the theaters (6 orders) and gives the 1st Player card to a seat (1/2 each), as GameBench does.

Returns: GameBench's match score, each seat's share of the VPs, vp / (vp_0 + vp_1) (section 2.1: "Match
score = VP share"), so the scores lie in [0, 1] and sum to 1 ("constant_sum").

Actions. Ids are GameBench's, per decision (section 2.1, "Action ids"). A turn with h cards in hand:
0 .. h-1 play hand card i face up to its own theater ("Play Support (Air 1; Ongoing: ...) face up to
Air. Deploy."), h .. 2h-1 face down to Air, 2h .. 3h-1 face down to Land, 3h .. 4h-1 face down to Sea
("... face down to Land. Improvise."), 4h Withdraw. When Air Drop or Aerodrome allows it, 4h+1+2i+j
plays hand card i face up to the j-th non-matching theater (in the order Air, Land, Sea). The hand keeps
the deal order; a card returned by Redeploy goes to its end. The abilities' own decisions number their
options 0, 1, ... in GameBench's order: flips (Maneuver, Ambush, Disrupt) list the uncovered cards by
theater from left to right, seat 0's before seat 1's; Transport lists each target theater from left to
right, then each of your cards from the left and from the bottom, then "Do not move any card." last;
Redeploy lists your face-down cards the same way, then "Do not return any card."; Reinforce lists the
adjacent theaters from left to right. Redeploy's play has the turn's options without Withdraw.

Parsing (`parse_action`): GameBench's answer, a JSON object {"action": "<id>"} (its agents' required
reply, section 3.1; the last "action" key in the text counts), a bare id, or an action's text (case and
spacing aside). An id that is not an option now raises ActionParseError listing the options, as
GameBench's agents were told (section 2.10). `default_action` is None: GameBench's fallback after three
failed attempts, a uniformly random option, is the referee's failure policy.

Information. A seat sees its hand, both sides of the board with each card's strength (the opponent's
face-down cards as "a face-down card", unless their identity is public because they were face up
before), both players' VPs, hand sizes, the deck size, which abilities are in effect or waiting, whose
decision it is, this battle's moves as it saw them and the previous battles' results. Hidden: the
opponent's hand and face-down cards, the card Reinforce draws for the opponent, the deck's order, and
face-down cards destroyed by Containment or Blockade. `public_history` shows face-down plays, hidden
moves and returns without the card (action -1); `result_details` reveals every battle's final board and
hands at the end. (GameBench's observation held the hand, the Supreme Commander card, the seat's own
VPs, both hand sizes and the board, with no history; the opponent's VPs and this battle's moves are
public and shown here too, so that an agent need not remember them.)

Preset "gamebench": GameBench's game, 6-card hands and 12 VPs (section 2.1; the reference's ambiguity
9 asks for the code's parameters, configurable: "target_vp" 1-30, "hand_size" 1-9).

Where GameBench's code and the published rules differ (the reference's card follows the rules and does
not discuss these; this engine follows the rules and the card):
  - The code rotates the theaters leftwards (leftmost to the far right); the rules and the card say the
    rightmost moves to the far left, as here.
  - The code does not let Containment or Blockade destroy the card Reinforce plays, nor does it return
    destroyed cards to the deck; here Reinforce's play is a play like any other (the card's definition
    of "Play"), and destroyed cards go to the bottom of the deck.
  - In the code the Disrupt player also chooses the opponent's flip; here each player chooses its own
    ("both players choose").
  - The code's Escalation and Cover Fire take no effect when their card is in the leftmost theater (a
    bug); here they always do.
  - The code resolves an ability revealed by another ability at once, inside the revealing ability
    (depth first); here revealed abilities wait in a queue in the order they were revealed ("resolve the
    instant abilities in the order they happened"). Both agree whenever a flip is an ability's last step.
  - An ability with nothing to act on is skipped here; the code asked its agent to pick the only option
    ("Do not return any cards.") when Redeploy had no face-down card to return.
  - Disrupt is labelled Ongoing on the card (GameBench's card text); its flips happen once, when it is
    revealed, as in the code.
  - Air Drop's permission lasts until its player's next Deploy/Improvise choice (a turn or Redeploy's
    play), as in the code; the card Reinforce plays face down does not use it up.
  - The ids of face-up plays to non-matching theaters: the code numbered Aerodrome's over the eligible
    cards only and Air Drop's after them (a card then had two ids for one play); here each pair of a hand
    card and a theater has one id, 4h+1+2i+j, whichever ability allows it. The card does not give these.
Safety cap: at most 64 abilities trigger in one turn; a card revealed after that uses no ability. Ability
chains are short in practice (in 1,500 random games no turn triggered more than 6; the tests check that
random playouts never reach the cap); the cap bounds the game length: at most target_vp battles, each with 2h deals and 2h turns of at most
1 + 2 * 64 further moves.

Ambiguities (gamebench.md section 6):
  - Item 9 (incomplete rules): the code's 18 cards and abilities (section 2.1) with the rules' wording
    where the code's texts are terse; parameters configurable.
  - Item 10 (match score): the code's VP share, vp_i / (vp_0 + vp_1); never 0/0, since the winner has at
    least target_vp >= 1 VPs.
  - Item 12 (illegal answers): GameBench's ALS re-asked its agent up to 3 times, then played a uniformly
    random option (section 2.10); that is the referee's failure policy here, and this engine only refuses
    what is not an option (ActionParseError with the options listed).
  - Item 18 (who moves first): chance gives the first battle's 1st Player card to either seat with 1/2
    each (GameBench's random first Supreme Commander); seats swap it every battle.
  - Items 13 and 20 (prompts, limits) belong to the client and the arena, not to the engine.
"""

import re

cimport cython
from libc.string cimport memcpy

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_CARDS = 18
    NUM_THEATERS = 3
    MAX_HAND = 10           # a 9-card hand plus a card returned by Redeploy during the opponent's turn
    MAX_TRIGGERS = 64       # abilities triggered in one turn (the safety cap)
    MAX_EVENTS = 128        # events of one step
    EVENT_FIELDS = 7

# Card ids: 6 * type + strength - 1.
cdef enum:
    AIR = 0
    LAND = 1
    SEA = 2
    SUPPORT = 0
    AIR_DROP = 1
    AERODROME = 3
    CONTAINMENT = 4
    REINFORCE = 6
    AMBUSH = 7
    COVER_FIRE = 9
    DISRUPT = 10
    TRANSPORT = 12
    ESCALATION = 13
    REDEPLOY = 15
    BLOCKADE = 16

cdef enum:
    PHASE_THEATERS = 0      # chance lays out the theaters
    PHASE_COMMANDER = 1     # chance gives the 1st Player card
    PHASE_DEAL = 2          # chance deals the hands
    PHASE_DRAW = 3          # chance draws Reinforce's card
    PHASE_DECIDE = 4        # a seat decides
    PHASE_OVER = 5

# What the deciding seat decides.
cdef enum:
    NO_DECISION = 0
    D_PLAY = 1              # a turn: Deploy, Improvise or Withdraw
    D_REDEPLOY_PLAY = 2     # Redeploy's play: Deploy or Improvise
    D_MANEUVER = 3
    D_AMBUSH = 4
    D_DISRUPT = 5
    D_TRANSPORT = 6
    D_REDEPLOY = 7
    D_REINFORCE = 8

cdef enum:
    LOC_DECK = 0            # undealt, in the shuffled part of the deck
    LOC_HAND = 1
    LOC_BOARD = 2
    LOC_BOTTOM = 3          # destroyed: at the bottom of the deck
    LOC_DRAWN = 4           # drawn by Reinforce, about to be played

# What a moved card showed (event field).
cdef enum:
    MOVED_FACE_UP = 0
    MOVED_FACE_DOWN_PUBLIC = 1
    MOVED_FACE_DOWN_HIDDEN = 2

# How a card was played (event field).
cdef enum:
    VIA_TURN = 0
    VIA_REDEPLOY = 1
    VIA_REINFORCE = 2

# Events of one step, read by the Python views: (kind, seat, card, x, y, z, w).
cdef enum:
    EV_THEATERS = 0         # x, y, z: theater types left to right
    EV_BATTLE = 1           # seat: 1st player; x, y, z: theater types
    EV_DEALT = 2            # x: cards per hand
    EV_PLAY = 3             # seat, card, x: theater type, y: face up, z: VIA_*
    EV_DESTROY = 4          # seat: owner, card, x: theater type, y: played face up, z: destroying card
    EV_WITHDRAW = 5         # seat, x: cards left
    EV_FLIP = 6             # seat: decider, card, x: owner, y: theater type, z: now face up, w: ability card
    EV_NO_FLIP = 7          # seat: without an uncovered card for Disrupt, card: Disrupt
    EV_MOVE = 8             # seat, card, x: from type, y: to type, z: MOVED_*, w: Transport
    EV_STAY = 9             # seat, card: Transport
    EV_RETURN = 10          # seat, card, x: from type, z: identity hidden, w: Redeploy
    EV_KEEP = 11            # seat, card: Redeploy
    EV_DRAW = 12            # seat, card (seen by the seat only)
    EV_AIR_DROP = 13        # seat
    EV_IGNORED = 14         # seat: owner, card: the ability's card
    EV_CAPPED = 15          # seat: owner, card
    EV_BATTLE_END = 16      # seat: winner, x: reason (0 theaters, 1 withdrawal), y: VPs, z: cards left
    EV_GAME_END = 17        # seat: winner

TYPE_NAMES = ("Air", "Land", "Sea")
CARD_NAMES = ("Support", "Air Drop", "Maneuver", "Aerodrome", "Containment", "Heavy Bombers",
              "Reinforce", "Ambush", "Maneuver", "Cover Fire", "Disrupt", "Heavy Tanks",
              "Transport", "Escalation", "Maneuver", "Redeploy", "Blockade", "Super Battleship")
_MANEUVER = ("Instant", "flip an uncovered card in an adjacent theater")
ABILITIES = (
    ("Ongoing", "+3 Strength in each adjacent theater"),
    ("Instant", "your next card may be played face up to a non-matching theater"),
    _MANEUVER,
    ("Ongoing", "you may play cards of Strength 3 or less face up to non-matching theaters"),
    ("Ongoing", "any card played face down (by either player) is destroyed"),
    None,
    ("Instant", "draw 1 card and play it face down to an adjacent theater"),
    ("Instant", "flip any uncovered card"),
    _MANEUVER,
    ("Ongoing", "all cards covered by this card are Strength 4"),
    ("Ongoing", "starting with you, both players choose and flip 1 of their own uncovered cards"),
    None,
    ("Instant", "you may move 1 of your cards to a different theater"),
    ("Ongoing", "your face-down cards are Strength 4"),
    _MANEUVER,
    ("Instant", "you may return 1 of your face-down cards to your hand; if you do, play a card"),
    ("Ongoing", "a card played to an adjacent theater already holding 3 or more other cards is destroyed"),
    None,
)
DECISION_NAMES = {D_PLAY: "play", D_REDEPLOY_PLAY: "redeploy_play", D_MANEUVER: "maneuver", D_AMBUSH: "ambush",
                  D_DISRUPT: "disrupt", D_TRANSPORT: "transport", D_REDEPLOY: "redeploy", D_REINFORCE: "reinforce"}
DECISION_KINDS = {name: kind for kind, name in DECISION_NAMES.items()}
PHASE_NAMES = ("theaters", "commander", "deal", "draw", "decide", "over")
# VPs a withdrawal gives the winner, by the cards left in the withdrawing hand (0, 1, 2, 3, 4, 5+).
WITHDRAWAL_VP = ((6, 6, 4, 3, 3, 2), (6, 4, 3, 3, 2, 2))
MAX_TARGET_VP = 30
MAX_HAND_SIZE = 9
TRIGGER_CAP = MAX_TRIGGERS


def card_label(int card) -> str:
    """A card's short name, unique in the deck: "Maneuver (Air 3)"."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card ids are 0-17, not {card}")
    return f"{CARD_NAMES[card]} ({TYPE_NAMES[card // 6]} {card % 6 + 1})"


def card_text(int card) -> str:
    """A card with its ability: "Support (Air 1; Ongoing: +3 Strength in each adjacent theater)"."""
    ability = ABILITIES[card]
    detail = f"{ability[0]}: {ability[1]}" if ability else "no ability"
    return f"{CARD_NAMES[card]} ({TYPE_NAMES[card // 6]} {card % 6 + 1}; {detail})"


CARD_IDS = {card_label(c).lower(): c for c in range(NUM_CARDS)}


def card_id(str label) -> int:
    """The id of a card written as card_label writes it (case-insensitive)."""
    try:
        return CARD_IDS[" ".join(label.split()).lower()]
    except KeyError:
        raise ValueError(f"{label!r} is not a card (e.g. 'Maneuver (Air 3)')") from None


def withdrawal_vp(bint first_player, int cards_left) -> int:
    """VPs the winner of a battle scores when its opponent withdraws with `cards_left` cards."""
    return WITHDRAWAL_VP[0 if first_player else 1][min(max(cards_left, 0), 5)]


def max_game_length(int target_vp, int hand_size) -> int:
    """Moves (chance included) a game can last: the layout and commander draws, then at most target_vp
    battles (each gives 2 VPs or more to someone), each of 2h deals and 2h turns of at most 1 + 2 * 64
    moves (a decision, and per triggered ability at most two more: a flip each for Disrupt, a return and
    a play for Redeploy, a draw and a play for Reinforce)."""
    return 2 + target_vp * 2 * hand_size * (2 + 2 * MAX_TRIGGERS)


_GAMEBENCH = {"target_vp": 12, "hand_size": 6}

SPEC = GameSpec(
    game_id="air_land_sea",
    display_name="Air, Land, and Sea",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=max_game_length(MAX_TARGET_VP, MAX_HAND_SIZE),
    description="GameBench's Air, Land, and Sea: battles over three theaters with an 18-card deck and 6-card "
                "hands; each turn deploy a card face up to its theater, improvise one face down anywhere, or "
                "withdraw. Card abilities flip, move, destroy and strengthen cards. A battle gives 6 VPs to "
                "whoever controls two theaters (fewer after a withdrawal); the first to 12 VPs wins. Each "
                "seat's return is its share of the VPs.",
    parameters=(
        Parameter("target_vp", 12, f"victory points that win the game, 1 to {MAX_TARGET_VP}"),
        Parameter("hand_size", 6, f"cards dealt to each player every battle, 1 to {MAX_HAND_SIZE}"),
    ),
    presets=(
        Preset("gamebench", "GameBench (Costarelli et al., 2024) Air, Land, and Sea: the code's 18-card deck, "
               "6-card hands, battles to 12 VPs; the match score is each seat's share of the VPs.", _GAMEBENCH),
    ),
    accepts_text_actions=True,
)

# One battle is usually enough to reach 6 VPs.
PLAYTHROUGH_OVERRIDES = {None: {"target_vp": 6}}


cdef inline int _type_of(int card) noexcept nogil:
    return card // 6


cdef inline bint _is_maneuver(int card) noexcept nogil:
    return card % 6 == 2


cdef inline bint _has_instant(int card) noexcept nogil:
    """Whether revealing the card triggers something to resolve (Disrupt included, see the docstring)."""
    return (card == AIR_DROP or card == REINFORCE or card == AMBUSH or card == DISRUPT or card == TRANSPORT
            or card == REDEPLOY or _is_maneuver(card))


cdef inline void _permutation(int index, int* out) noexcept nogil:
    """The index-th ordering of the three theater types, in lexicographic order."""
    cdef int head = index // 2, a, b
    a = 1 if head == 0 else 0
    b = 1 if head == 2 else 2
    out[0] = head
    if index % 2 == 0:
        out[1] = a
        out[2] = b
    else:
        out[1] = b
        out[2] = a


cdef inline int _non_matching(int card_type, int j) noexcept nogil:
    """The j-th (0 or 1) theater type other than card_type, in the order Air, Land, Sea."""
    cdef int t, k = 0
    for t in range(NUM_THEATERS):
        if t != card_type:
            if k == j:
                return t
            k += 1
    return -1


@cython.auto_pickle(False)
cdef class AirLandSeaState(State):
    cdef int target_vp, hand_size
    cdef int phase
    cdef int order[NUM_THEATERS]            # theater type at each position, left to right
    cdef int first                          # seat holding the 1st Player card; -1 before chance gives it
    cdef int vp[2]
    cdef int battle                         # battles begun
    cdef int dealt                          # cards dealt this battle
    cdef int loc[NUM_CARDS]
    cdef int owner[NUM_CARDS]               # hand, board, drawn or destroyed card: whose it is
    cdef int cpos[NUM_CARDS]                # board card: its position
    cdef bint up[NUM_CARDS]                 # board card: face up
    cdef bint seen[NUM_CARDS]               # identity public (face up since it last left a hand)
    cdef int hand[2][MAX_HAND]
    cdef int hand_n[2]
    cdef int stack[2][NUM_THEATERS][NUM_CARDS]   # each side of each position, bottom to top
    cdef int stack_n[2][NUM_THEATERS]
    cdef int bottom[NUM_CARDS]              # destroyed cards, the first destroyed nearest the top
    cdef int bottom_n
    cdef int to_move                        # whose turn it is
    cdef bint air_drop[2]                   # Air Drop's permission, until the seat's next play choice
    cdef int dkind, dseat, dsource, dpos, dstep, drawn   # the pending decision
    cdef int queue[MAX_TRIGGERS]            # abilities triggered this turn; [q_head, q_tail) wait
    cdef int q_head, q_tail
    cdef int ev[MAX_EVENTS][EVENT_FIELDS]   # events of the last step
    cdef int ev_n
    # A battle's end as it was, for result_details (filled when a battle ends, before the next deal).
    cdef int end_stack[2][NUM_THEATERS][NUM_CARDS]
    cdef int end_stack_n[2][NUM_THEATERS]
    cdef bint end_up[NUM_CARDS]
    cdef int end_total[2][NUM_THEATERS]
    cdef int end_hand[2][MAX_HAND]
    cdef int end_hand_n[2]
    # Python-level record (immutable tuples, shared by clones): every event, the battles' results and,
    # in a state rebuilt from a view, the log lines that seat saw.
    cdef tuple _events
    cdef tuple _battles
    cdef tuple _frozen_log                  # (seat, battle, lines)

    def __init__(self, game):
        super().__init__(game, 2)
        self.target_vp = game.parameters["target_vp"]
        self.hand_size = game.parameters["hand_size"]
        self.phase = PHASE_THEATERS
        self.first = -1
        self.to_move = -1
        self.drawn = -1
        for i in range(NUM_THEATERS):
            self.order[i] = -1
        self._clear_cards()
        self._events = ()
        self._battles = ()
        self._frozen_log = (-1, -1, ())

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == PHASE_OVER:
            return TERMINAL_PLAYER
        if self.phase == PHASE_DECIDE:
            return self.dseat
        return CHANCE_PLAYER

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int n = 0, c, i
        if self.phase == PHASE_THEATERS:
            n = 6
            for i in range(n):
                actions[i] = i
        elif self.phase == PHASE_COMMANDER:
            n = 2
            actions[0] = 0
            actions[1] = 1
        elif self.phase == PHASE_DEAL or self.phase == PHASE_DRAW:
            for c in range(NUM_CARDS):
                if self.loc[c] == LOC_DECK:
                    actions[n] = c
                    n += 1
        for i in range(n):
            probs[i] = 1.0 / n
        return n

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int n = 0, h, i, j, k
        cdef int seats[2 * NUM_THEATERS]
        cdef int positions[2 * NUM_CARDS]
        cdef int cards[2 * NUM_CARDS]
        if self.phase != PHASE_DECIDE or player != self.dseat:
            return 0
        if self.dkind == D_PLAY or self.dkind == D_REDEPLOY_PLAY:
            h = self.hand_n[player]
            for i in range(4 * h):
                out[n] = i
                n += 1
            if self.dkind == D_PLAY:
                out[n] = 4 * h
                n += 1
            for i in range(h):
                if self._may_play_anywhere(player, self.hand[player][i]):
                    for j in range(2):
                        out[n] = 4 * h + 1 + 2 * i + j
                        n += 1
            return n
        if self.dkind == D_MANEUVER or self.dkind == D_AMBUSH or self.dkind == D_DISRUPT:
            k = self._flip_targets(self.dkind, seats, positions)
        elif self.dkind == D_TRANSPORT:
            k = self._transport_moves(cards, positions) + 1
        elif self.dkind == D_REDEPLOY:
            k = self._returnable(cards, positions) + 1
        else:
            k = self._adjacent(self.dpos, positions)
        for i in range(k):
            out[i] = i
        return k

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat, card
        self.ev_n = 0
        if self.phase == PHASE_THEATERS:
            _permutation(action, self.order)
            self._emit(EV_THEATERS, -1, -1, self.order[0], self.order[1], self.order[2], 0)
            self.phase = PHASE_COMMANDER
        elif self.phase == PHASE_COMMANDER:
            self.first = action
            self._start_battle()
        elif self.phase == PHASE_DEAL:
            seat = 0 if self.dealt < self.hand_size else 1
            self._to_hand(seat, action)
            self.dealt += 1
            if self.dealt == 2 * self.hand_size:
                self._emit(EV_DEALT, -1, -1, self.hand_size, 0, 0, 0)
                self.phase = PHASE_DECIDE
                self.to_move = self.first
                self._begin_turn()
        elif self.phase == PHASE_DRAW:
            self._give_drawn(action)
        else:
            self._decide(action)

    cdef void c_returns(self, double* out) noexcept:
        cdef int total = self.vp[0] + self.vp[1]
        out[0] = 0.0
        out[1] = 0.0
        if self.phase == PHASE_OVER and total > 0:
            out[0] = self.vp[0] / <double>total
            out[1] = self.vp[1] / <double>total

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Slots `player` cannot see into: the opponent's hand, its face-down cards whose identity is not
        # public, its face-down cards destroyed, the card it drew for Reinforce, and the undealt deck.
        # Their cards are dealt again at random among the same slots, starting from the cards in id order
        # so that the draw depends on nothing hidden.
        cdef int other = 1 - player, n = 0, i, j, p, c, tmp
        cdef int cards[NUM_CARDS]
        cdef int* slot[NUM_CARDS]               # where the slot's card id is written (NULL: undealt)
        cdef int slot_loc[NUM_CARDS]
        cdef int slot_owner[NUM_CARDS]
        cdef int slot_pos[NUM_CARDS]
        cdef bint slot_up[NUM_CARDS]
        cdef bint slot_seen[NUM_CARDS]
        for i in range(self.hand_n[other]):
            cards[n] = self.hand[other][i]
            slot[n] = &self.hand[other][i]
            n += 1
        for p in range(NUM_THEATERS):
            for i in range(self.stack_n[other][p]):
                c = self.stack[other][p][i]
                if not self.up[c] and not self.seen[c]:
                    cards[n] = c
                    slot[n] = &self.stack[other][p][i]
                    n += 1
        for i in range(self.bottom_n):
            c = self.bottom[i]
            if self.owner[c] == other and not self.seen[c]:
                cards[n] = c
                slot[n] = &self.bottom[i]
                n += 1
        if self.drawn >= 0 and self.owner[self.drawn] == other:
            cards[n] = self.drawn
            slot[n] = &self.drawn
            n += 1
        for c in range(NUM_CARDS):
            if self.loc[c] == LOC_DECK:
                cards[n] = c
                slot[n] = NULL
                n += 1
        for i in range(n):
            c = cards[i]
            slot_loc[i] = self.loc[c]
            slot_owner[i] = self.owner[c]
            slot_pos[i] = self.cpos[c]
            slot_up[i] = self.up[c]
            slot_seen[i] = self.seen[c]
        for i in range(1, n):
            j = i
            while j > 0 and cards[j - 1] > cards[j]:
                tmp = cards[j]
                cards[j] = cards[j - 1]
                cards[j - 1] = tmp
                j -= 1
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            tmp = cards[i]
            cards[i] = cards[j]
            cards[j] = tmp
        for i in range(n):
            c = cards[i]
            if slot[i] != NULL:
                slot[i][0] = c
            self.loc[c] = slot_loc[i]
            self.owner[c] = slot_owner[i]
            self.cpos[c] = slot_pos[i]
            self.up[c] = slot_up[i]
            self.seen[c] = slot_seen[i]

    cdef State c_clone(self):
        cdef AirLandSeaState s = AirLandSeaState.__new__(AirLandSeaState)
        self._copy_base_into(s)
        s.target_vp = self.target_vp
        s.hand_size = self.hand_size
        s.phase = self.phase
        s.order = self.order
        s.first = self.first
        s.vp = self.vp
        s.battle = self.battle
        s.dealt = self.dealt
        s.loc = self.loc
        s.owner = self.owner
        s.cpos = self.cpos
        s.up = self.up
        s.seen = self.seen
        memcpy(s.hand, self.hand, sizeof(self.hand))
        s.hand_n = self.hand_n
        memcpy(s.stack, self.stack, sizeof(self.stack))
        memcpy(s.stack_n, self.stack_n, sizeof(self.stack_n))
        s.bottom = self.bottom
        s.bottom_n = self.bottom_n
        s.to_move = self.to_move
        s.air_drop = self.air_drop
        s.dkind = self.dkind
        s.dseat = self.dseat
        s.dsource = self.dsource
        s.dpos = self.dpos
        s.dstep = self.dstep
        s.drawn = self.drawn
        s.queue = self.queue
        s.q_head = self.q_head
        s.q_tail = self.q_tail
        s._events = self._events
        s._battles = self._battles
        s._frozen_log = self._frozen_log
        return s

    # ---- rules (C) ----------------------------------------------------------------------------
    cdef void _emit(self, int kind, int seat, int card, int x, int y, int z, int w) noexcept:
        cdef int* e
        if self.ev_n < MAX_EVENTS:
            e = self.ev[self.ev_n]
            e[0] = kind
            e[1] = seat
            e[2] = card
            e[3] = x
            e[4] = y
            e[5] = z
            e[6] = w
            self.ev_n += 1

    cdef void _clear_cards(self) noexcept:
        cdef int c, s, p
        for c in range(NUM_CARDS):
            self.loc[c] = LOC_DECK
            self.owner[c] = -1
            self.cpos[c] = -1
            self.up[c] = False
            self.seen[c] = False
        for s in range(2):
            self.hand_n[s] = 0
            self.air_drop[s] = False
            for p in range(NUM_THEATERS):
                self.stack_n[s][p] = 0
        self.bottom_n = 0
        self.drawn = -1
        self.q_head = 0
        self.q_tail = 0
        self.dkind = NO_DECISION

    cdef void _start_battle(self) noexcept:
        self.battle += 1
        self._clear_cards()
        self.dealt = 0
        self.phase = PHASE_DEAL
        self._emit(EV_BATTLE, self.first, -1, self.order[0], self.order[1], self.order[2], 0)

    cdef void _to_hand(self, int seat, int card) noexcept:
        self.hand[seat][self.hand_n[seat]] = card
        self.hand_n[seat] += 1
        self.loc[card] = LOC_HAND
        self.owner[card] = seat
        self.cpos[card] = -1
        self.up[card] = False
        self.seen[card] = False

    cdef int _take_from_hand(self, int seat, int index) noexcept:
        cdef int card = self.hand[seat][index], i
        for i in range(index, self.hand_n[seat] - 1):
            self.hand[seat][i] = self.hand[seat][i + 1]
        self.hand_n[seat] -= 1
        return card

    cdef void _begin_turn(self) noexcept:
        self.q_head = 0
        self.q_tail = 0
        self.dkind = D_PLAY
        self.dseat = self.to_move

    cdef int _position_of_type(self, int card_type) noexcept:
        cdef int p
        for p in range(NUM_THEATERS):
            if self.order[p] == card_type:
                return p
        return -1

    cdef inline bint _face_up_on_board(self, int card) noexcept:
        return self.loc[card] == LOC_BOARD and self.up[card]

    cdef inline bint _active_for(self, int card, int seat) noexcept:
        return self._face_up_on_board(card) and self.owner[card] == seat

    cdef bint _may_play_anywhere(self, int seat, int card) noexcept:
        """Whether `card` may be played face up to a non-matching theater now (Air Drop, Aerodrome)."""
        return self.air_drop[seat] or (self._active_for(AERODROME, seat) and card % 6 + 1 <= 3)

    cdef int _adjacent(self, int pos, int* out) noexcept:
        cdef int p, n = 0
        for p in range(NUM_THEATERS):
            if p == pos - 1 or p == pos + 1:
                out[n] = p
                n += 1
        return n

    cdef int _uncovered(self, int seat, int pos) noexcept:
        cdef int n = self.stack_n[seat][pos]
        return self.stack[seat][pos][n - 1] if n > 0 else -1

    cdef int _card_strength(self, int seat, int pos, int index) noexcept:
        cdef int card = self.stack[seat][pos][index], j
        for j in range(index + 1, self.stack_n[seat][pos]):
            if self.stack[seat][pos][j] == COVER_FIRE and self.up[COVER_FIRE]:
                return 4
        if not self.up[card]:
            return 4 if self._active_for(ESCALATION, seat) else 2
        return card % 6 + 1

    cdef int _total(self, int seat, int pos) noexcept:
        cdef int total = 0, i
        for i in range(self.stack_n[seat][pos]):
            total += self._card_strength(seat, pos, i)
        if self._active_for(SUPPORT, seat) and (self.cpos[SUPPORT] == pos - 1 or self.cpos[SUPPORT] == pos + 1):
            total += 3
        return total

    cdef int _controller(self, int pos) noexcept:
        """Who controls a position now: the 1st player on ties and empty theaters."""
        cdef int second = 1 - self.first
        return second if self._total(second, pos) > self._total(self.first, pos) else self.first

    cdef int _flip_targets(self, int kind, int* seats, int* positions) noexcept:
        """Cards a flip of `kind` may turn: (seat, position) of uncovered cards, left to right, seat 0
        first; Maneuver: adjacent theaters only; Disrupt: the deciding seat's own cards only."""
        cdef int n = 0, p, s
        for p in range(NUM_THEATERS):
            if kind == D_MANEUVER and p != self.dpos - 1 and p != self.dpos + 1:
                continue
            for s in range(2):
                if kind == D_DISRUPT and s != self.dseat:
                    continue
                if self.stack_n[s][p] > 0:
                    seats[n] = s
                    positions[n] = p
                    n += 1
        return n

    cdef int _transport_moves(self, int* cards, int* targets) noexcept:
        """Transport's moves: each target position, then each of the seat's cards elsewhere."""
        cdef int n = 0, target, p, i, seat = self.dseat
        for target in range(NUM_THEATERS):
            for p in range(NUM_THEATERS):
                if p == target:
                    continue
                for i in range(self.stack_n[seat][p]):
                    cards[n] = self.stack[seat][p][i]
                    targets[n] = target
                    n += 1
        return n

    cdef int _returnable(self, int* cards, int* positions) noexcept:
        """Redeploy's options: the seat's face-down cards, left to right, bottom to top."""
        cdef int n = 0, p, i, c, seat = self.dseat
        for p in range(NUM_THEATERS):
            for i in range(self.stack_n[seat][p]):
                c = self.stack[seat][p][i]
                if not self.up[c]:
                    cards[n] = c
                    positions[n] = p
                    n += 1
        return n

    cdef void _remove_from_board(self, int card) noexcept:
        cdef int seat = self.owner[card], pos = self.cpos[card], i, k = 0
        for i in range(self.stack_n[seat][pos]):
            if self.stack[seat][pos][i] != card:
                self.stack[seat][pos][k] = self.stack[seat][pos][i]
                k += 1
        self.stack_n[seat][pos] = k
        self.cpos[card] = -1

    cdef void _put_on_top(self, int seat, int card, int pos) noexcept:
        self.stack[seat][pos][self.stack_n[seat][pos]] = card
        self.stack_n[seat][pos] += 1
        self.loc[card] = LOC_BOARD
        self.owner[card] = seat
        self.cpos[card] = pos

    cdef void _enqueue(self, int card) noexcept:
        if self.q_tail < MAX_TRIGGERS:
            self.queue[self.q_tail] = card
            self.q_tail += 1
        else:
            self._emit(EV_CAPPED, self.owner[card], card, 0, 0, 0, 0)

    cdef void _place(self, int seat, int card, int pos, bint face_up, int via) noexcept:
        """Plays `card` to `pos`: destroyed at once by Containment (face down) or Blockade (a crowded
        theater next to it), else put on top and, face up, its ability triggers."""
        cdef int destroyer = -1, b
        self._emit(EV_PLAY, seat, card, self.order[pos], face_up, via, 0)
        if not face_up and self._face_up_on_board(CONTAINMENT):
            destroyer = CONTAINMENT
        elif self._face_up_on_board(BLOCKADE):
            b = self.cpos[BLOCKADE]
            if (b == pos - 1 or b == pos + 1) and self.stack_n[0][pos] + self.stack_n[1][pos] >= 3:
                destroyer = BLOCKADE
        if destroyer >= 0:
            self.loc[card] = LOC_BOTTOM
            self.owner[card] = seat
            self.cpos[card] = -1
            self.up[card] = False
            self.seen[card] = face_up
            self.bottom[self.bottom_n] = card
            self.bottom_n += 1
            self._emit(EV_DESTROY, seat, card, self.order[pos], face_up, destroyer, 0)
            return
        self._put_on_top(seat, card, pos)
        self.up[card] = face_up
        self.seen[card] = face_up
        if face_up and _has_instant(card):
            self._enqueue(card)

    cdef void _decide(self, int action) noexcept:
        cdef int kind = self.dkind
        self.dkind = NO_DECISION
        if kind == D_PLAY or kind == D_REDEPLOY_PLAY:
            self._play(action, kind)
        elif kind == D_MANEUVER or kind == D_AMBUSH or kind == D_DISRUPT:
            self._flip(action, kind)
        elif kind == D_TRANSPORT:
            self._transport(action)
        elif kind == D_REDEPLOY:
            self._redeploy(action)
        else:
            self._reinforce(action)
        self._advance()

    cdef void _play(self, int action, int kind) noexcept:
        cdef int seat = self.dseat, h = self.hand_n[seat], index, card_type, card, k
        cdef bint face_up = True
        if action == 4 * h:
            self._emit(EV_WITHDRAW, seat, -1, h, 0, 0, 0)
            self._finish_battle(1 - seat, 1, withdrawal_vp(seat != self.first, h), h)
            return
        if action < h:
            index = action
            card_type = _type_of(self.hand[seat][index])
        elif action < 4 * h:
            index = action % h
            card_type = action // h - 1
            face_up = False
        else:
            k = action - 4 * h - 1
            index = k // 2
            card_type = _non_matching(_type_of(self.hand[seat][index]), k % 2)
        self.air_drop[seat] = False
        card = self._take_from_hand(seat, index)
        self._place(seat, card, self._position_of_type(card_type), face_up,
                    VIA_REDEPLOY if kind == D_REDEPLOY_PLAY else VIA_TURN)

    cdef void _flip(self, int action, int kind) noexcept:
        cdef int seats[2 * NUM_THEATERS]
        cdef int positions[2 * NUM_THEATERS]
        cdef int seat, pos, card
        self._flip_targets(kind, seats, positions)
        seat = seats[action]
        pos = positions[action]
        card = self._uncovered(seat, pos)
        self.up[card] = not self.up[card]
        self.seen[card] = True
        self._emit(EV_FLIP, self.dseat, card, seat, self.order[pos], self.up[card], self.dsource)
        if self.up[card] and _has_instant(card):
            self._enqueue(card)
        if kind == D_DISRUPT and self.dstep == 0:
            self._disrupt_step(1 - self.dseat, 1)

    cdef void _disrupt_step(self, int seat, int step) noexcept:
        """Disrupt's flip by `seat` (step 0: Disrupt's owner, 1: the other), or the next step when the
        seat has no uncovered card."""
        cdef int seats[2 * NUM_THEATERS]
        cdef int positions[2 * NUM_THEATERS]
        self.dkind = D_DISRUPT
        self.dseat = seat
        self.dstep = step
        if self._flip_targets(D_DISRUPT, seats, positions) > 0:
            return
        self.dkind = NO_DECISION
        self._emit(EV_NO_FLIP, seat, DISRUPT, 0, 0, 0, 0)
        if step == 0:
            self._disrupt_step(1 - seat, 1)

    cdef void _transport(self, int action) noexcept:
        cdef int cards[2 * NUM_CARDS]
        cdef int targets[2 * NUM_CARDS]
        cdef int seat = self.dseat, n, card, origin
        n = self._transport_moves(cards, targets)
        if action == n:
            self._emit(EV_STAY, seat, self.dsource, 0, 0, 0, 0)
            return
        card = cards[action]
        origin = self.cpos[card]
        self._emit(EV_MOVE, seat, card, self.order[origin], self.order[targets[action]],
                   MOVED_FACE_UP if self.up[card] else (MOVED_FACE_DOWN_PUBLIC if self.seen[card]
                                                        else MOVED_FACE_DOWN_HIDDEN), self.dsource)
        self._remove_from_board(card)
        self._put_on_top(seat, card, targets[action])

    cdef void _redeploy(self, int action) noexcept:
        cdef int cards[NUM_CARDS]
        cdef int positions[NUM_CARDS]
        cdef int seat = self.dseat, n, card
        n = self._returnable(cards, positions)
        if action == n:
            self._emit(EV_KEEP, seat, self.dsource, 0, 0, 0, 0)
            return
        card = cards[action]
        self._emit(EV_RETURN, seat, card, self.order[positions[action]], 0, not self.seen[card], self.dsource)
        self._remove_from_board(card)
        self._to_hand(seat, card)
        self.dkind = D_REDEPLOY_PLAY

    cdef void _reinforce(self, int action) noexcept:
        cdef int positions[2]
        cdef int card = self.drawn
        self._adjacent(self.dpos, positions)
        self.drawn = -1
        self._place(self.dseat, card, positions[action], False, VIA_REINFORCE)

    cdef void _give_drawn(self, int card) noexcept:
        """Reinforce's draw is `card`: its owner now chooses where to play it face down."""
        self.drawn = card
        self.loc[card] = LOC_DRAWN
        self.owner[card] = self.dseat
        self._emit(EV_DRAW, self.dseat, card, 0, 0, 0, 0)
        self.phase = PHASE_DECIDE
        self.dkind = D_REINFORCE

    cdef void _advance(self) noexcept:
        """Resolves waiting abilities until one needs a decision or a draw; then ends the turn."""
        cdef int card
        while self.phase == PHASE_DECIDE and self.dkind == NO_DECISION:
            if self.q_head < self.q_tail:
                card = self.queue[self.q_head]
                self.q_head += 1
                self._resolve(card)
            elif self.hand_n[0] == 0 and self.hand_n[1] == 0:
                self._end_by_control()
            else:
                self.to_move = 1 - self.to_move
                self._begin_turn()

    cdef void _resolve(self, int card) noexcept:
        cdef int seat = self.owner[card], i, c
        cdef int seats[2 * NUM_THEATERS]
        cdef int positions[2 * NUM_CARDS]
        cdef int cards[2 * NUM_CARDS]
        self.dseat = seat
        self.dsource = card
        self.dpos = self.cpos[card] if self.loc[card] == LOC_BOARD else -1
        if card == AIR_DROP:
            self.air_drop[seat] = True
            self._emit(EV_AIR_DROP, seat, card, 0, 0, 0, 0)
            return
        if card == DISRUPT:
            self._disrupt_step(seat, 0)
            return
        if _is_maneuver(card):
            self.dkind = D_MANEUVER
            if self.dpos < 0 or self._flip_targets(D_MANEUVER, seats, positions) == 0:
                self.dkind = NO_DECISION
        elif card == AMBUSH:
            self.dkind = D_AMBUSH
            if self._flip_targets(D_AMBUSH, seats, positions) == 0:
                self.dkind = NO_DECISION
        elif card == TRANSPORT:
            self.dkind = D_TRANSPORT
            if self._transport_moves(cards, positions) == 0:
                self.dkind = NO_DECISION
        elif card == REDEPLOY:
            self.dkind = D_REDEPLOY
            if self._returnable(cards, positions) == 0:
                self.dkind = NO_DECISION
        elif card == REINFORCE and self.dpos >= 0:
            for c in range(NUM_CARDS):
                if self.loc[c] == LOC_DECK:
                    self.dkind = D_REINFORCE
                    self.phase = PHASE_DRAW
                    return
            if self.bottom_n > 0:
                c = self.bottom[0]
                for i in range(self.bottom_n - 1):
                    self.bottom[i] = self.bottom[i + 1]
                self.bottom_n -= 1
                self._give_drawn(c)
                return
        if self.dkind == NO_DECISION:
            self._emit(EV_IGNORED, seat, card, 0, 0, 0, 0)

    cdef void _end_by_control(self) noexcept:
        cdef int p, won = 0
        for p in range(NUM_THEATERS):
            if self._controller(p) == self.first:
                won += 1
        self._finish_battle(self.first if won >= 2 else 1 - self.first, 0, 6, 0)

    cdef void _finish_battle(self, int winner, int reason, int points, int cards_left) noexcept:
        cdef int s, p, rightmost
        for s in range(2):
            for p in range(NUM_THEATERS):
                self.end_total[s][p] = self._total(s, p)
        memcpy(self.end_stack, self.stack, sizeof(self.stack))
        memcpy(self.end_stack_n, self.stack_n, sizeof(self.stack_n))
        self.end_up = self.up
        memcpy(self.end_hand, self.hand, sizeof(self.hand))
        self.end_hand_n = self.hand_n
        self.vp[winner] += points
        self.dkind = NO_DECISION
        self._emit(EV_BATTLE_END, winner, -1, reason, points, cards_left, 0)
        if self.vp[winner] >= self.target_vp:
            self.phase = PHASE_OVER
            self._emit(EV_GAME_END, winner, -1, 0, 0, 0, 0)
            return
        self.first = 1 - self.first
        rightmost = self.order[2]
        self.order[2] = self.order[1]
        self.order[1] = self.order[0]
        self.order[0] = rightmost
        self._start_battle()

    # ---- Python-level record ------------------------------------------------------------------
    def apply_action(self, int action, message=None):
        """Applies the action (core.State.apply_action) and records what happened for the views."""
        cdef int seat = self.c_current_player()
        State.apply_action(self, action, message)
        self._record(seat, action)

    def _record(self, int seat, int action):
        """Turns the last step's C events into the Python record: (battle, kind, seat, card, x, y, z,
        w, actor, action id or -1, extra)."""
        events = []
        battles = list(self._battles)
        steps = [tuple(self.ev[i][k] for k in range(EVENT_FIELDS)) for i in range(self.ev_n)]
        # Events before a battle that begins in this step belong to the one before.
        battle = self.battle - sum(1 for e in steps if e[0] == EV_BATTLE)
        for i, (kind, who, card, x, y, z, w) in enumerate(steps):
            if kind == EV_BATTLE:
                battle += 1
            actor, shown = -1, -1
            if i == 0 and seat >= 0:
                actor = seat
                shown = -1 if _hides_card(kind, y, z) else action
            elif i == 0 and kind in (EV_THEATERS, EV_BATTLE):
                shown = action
            extra = None
            if kind == EV_BATTLE_END:
                extra = self._battle_result(battle, who, x, y, z)
                battles.append(extra)
            events.append((battle, kind, who, card, x, y, z, w, actor, shown, extra))
        self._events = self._events + tuple(events)
        self._battles = tuple(battles)

    def _battle_result(self, int battle, int winner, int reason, int points, int cards_left) -> dict:
        """A battle's result: its public part and, under "final", what only the end reveals."""
        first = self.first if self.phase == PHASE_OVER else 1 - self.first
        order = [self.order[p] for p in range(NUM_THEATERS)]
        if self.phase != PHASE_OVER:        # the theaters have rotated already
            order = order[1:] + order[:1]
        final = {
            "board": [{"theater": TYPE_NAMES[order[p]],
                       "cards": [[{"card": card_label(c), "face_up": bool(self.end_up[c])}
                                  for c in (self.end_stack[s][p][i] for i in range(self.end_stack_n[s][p]))]
                                 for s in range(2)]}
                      for p in range(NUM_THEATERS)],
            "hands": [[card_label(self.end_hand[s][i]) for i in range(self.end_hand_n[s])] for s in range(2)],
        }
        return {
            "battle": battle,
            "first_player": first,
            "theaters": [TYPE_NAMES[t] for t in order],
            "winner": winner,
            "reason": "withdrawal" if reason else "theaters",
            "victory_points": points,
            "cards_left": cards_left if reason else None,
            "strength": [[self.end_total[s][p] for p in range(NUM_THEATERS)] for s in range(2)],
            "final": final,
        }

    # ---- views --------------------------------------------------------------------------------
    def _label(self, int card) -> str:
        return card_label(card) if card >= 0 else "a card"

    def _theater(self, int pos) -> str:
        return TYPE_NAMES[self.order[pos]]

    def _who(self, int seat, viewer, bint capital=False) -> str:
        if viewer is None:
            text = f"seat {seat}"
        else:
            text = "you" if seat == viewer else "your opponent"
        return text[0].upper() + text[1:] if capital else text

    def _whose(self, int seat, viewer) -> str:
        if viewer is None:
            return f"seat {seat}'s"
        return "your" if seat == viewer else "your opponent's"

    def _event_text(self, event, viewer) -> str:
        """An event as `viewer` (a seat, or None: the public) sees it. Moves of a seat read as what it
        plays ("Support (Air 1) face up to Air"); other events are sentences."""
        battle, kind, seat, card, x, y, z, w, actor, shown, extra = event
        hidden = viewer != seat
        if kind == EV_THEATERS:
            return "the theaters are laid out, left to right: " + ", ".join(TYPE_NAMES[t] for t in (x, y, z))
        if kind == EV_BATTLE:
            return (f"battle {battle} begins: {self._who(seat, viewer)} {'hold' if seat == viewer else 'holds'} the "
                    f"1st Player Supreme Commander card; theaters left to right: "
                    + ", ".join(TYPE_NAMES[t] for t in (x, y, z)))
        if kind == EV_DEALT:
            return f"each player is dealt {x} cards"
        if kind == EV_PLAY:
            if z == VIA_REINFORCE:
                drawn = "the card drawn by Reinforce" + ("" if hidden else f", {card_label(card)},")
                return f"{drawn} face down to {TYPE_NAMES[x]}"
            if y:
                text = f"{self._label(card)} face up to {TYPE_NAMES[x]}"
                if _type_of(card) != x:
                    text += " (a non-matching theater)"
            else:
                text = f"{self._label(card) if not hidden else 'a card'} face down to {TYPE_NAMES[x]}"
            return text + (", the play of Redeploy" if z == VIA_REDEPLOY else "")
        if kind == EV_DESTROY:
            named = self._label(card) if y or not hidden else "the card"
            return (f"{named} is destroyed by {card_label(z)} and goes face down to the bottom of the deck")
        if kind == EV_WITHDRAW:
            return f"Withdraw, with {x} card{'s' if x != 1 else ''} left in hand"
        if kind == EV_FLIP:
            whose = ("your" if viewer == seat else "its") if x == seat else self._whose(x, viewer)
            return f"{card_label(w)}: flip {whose} {card_label(card)} in {TYPE_NAMES[y]} face {'up' if z else 'down'}"
        if kind == EV_NO_FLIP:
            return f"Disrupt: {self._who(seat, viewer)} {'have' if seat == viewer else 'has'} no uncovered card to flip"
        if kind == EV_MOVE:
            if z == MOVED_FACE_UP:
                named = card_label(card)
            else:
                hide = z == MOVED_FACE_DOWN_HIDDEN and hidden
                named = "a face-down card" if hide else f"face-down {card_label(card)}"
            return f"{card_label(w)}: move {named} from {TYPE_NAMES[x]} to {TYPE_NAMES[y]}"
        if kind == EV_STAY:
            return f"{card_label(card)}: move no card"
        if kind == EV_RETURN:
            named = "a face-down card" if z and hidden else f"face-down {card_label(card)}"
            return f"{card_label(w)}: return {named} from {TYPE_NAMES[x]} to hand"
        if kind == EV_KEEP:
            return f"{card_label(card)}: return no card"
        if kind == EV_DRAW:
            return (f"Reinforce: {self._who(seat, viewer)} {'draw' if seat == viewer else 'draws'} "
                    f"{self._label(card) if not hidden else 'a card'} from the deck")
        if kind == EV_AIR_DROP:
            return f"Air Drop: {self._whose(seat, viewer)} next card may be played face up to a non-matching theater"
        if kind == EV_IGNORED:
            return f"{card_label(card)} of {self._who(seat, viewer)} has nothing to act on: its ability is skipped"
        if kind == EV_CAPPED:
            return (f"{card_label(card)} of {self._who(seat, viewer)}: no effect, {MAX_TRIGGERS} abilities already "
                    f"triggered this turn")
        if kind == EV_BATTLE_END:
            winner = self._who(seat, viewer, capital=True)
            verb = "win" if seat == viewer else "wins"
            if x:
                how = f"after a withdrawal with {z} card{'s' if z != 1 else ''} left"
            else:
                held = [f"{extra['theaters'][p]} ({extra['strength'][seat][p]} to {extra['strength'][1 - seat][p]})"
                        for p in range(NUM_THEATERS) if _controlled(extra, p) == seat]
                how = "controlling " + " and ".join(held)
            return f"{winner} {verb} battle {battle}, {how}: +{y} VPs"
        # EV_GAME_END
        return (f"{self._who(seat, viewer, capital=True)} {'win' if seat == viewer else 'wins'} the game, "
                f"{self.vp[seat]} VPs to {self.vp[1 - seat]}")

    def public_history(self) -> list:
        """Every event, chronologically: seats' moves as (seat, action id, text), with action -1 when
        the move hides its card (a face-down play, move or return), and chance and automatic events as
        (-1, outcome or -1, text). Hidden deals and draws appear without their cards."""
        return [(e[8], e[9], self._event_text(e, None)) for e in self._events]

    def _log_lines(self, int viewer) -> list:
        """This battle's events as `viewer` saw them."""
        lines = []
        frozen_seat, frozen_battle, frozen = self._frozen_log
        if frozen_seat == viewer and frozen_battle == self.battle:
            lines += list(frozen)
        for event in self._events:
            if event[0] != self.battle or event[1] in (EV_THEATERS, EV_BATTLE):
                continue
            text = self._event_text(event, viewer)
            actor = event[8]
            if actor >= 0:
                lines.append(f"{self._who(actor, viewer, capital=True)}: {text}")
            else:
                lines.append(text[0].upper() + text[1:])
        return lines

    def _card_view(self, int seat, int pos, int index, int viewer) -> dict:
        cdef int card = self.stack[seat][pos][index]
        known = seat == viewer or self.up[card] or self.seen[card]
        return {"card": card_label(card) if known else None, "face_up": bool(self.up[card]),
                "strength": self._card_strength(seat, pos, index), "public": bool(self.up[card] or self.seen[card])}

    def _board_view(self, int viewer) -> list:
        if self.order[0] < 0:
            return []
        board = []
        for p in range(NUM_THEATERS):
            board.append({
                "theater": self._theater(p),
                "cards": [[self._card_view(s, p, i, viewer) for i in range(self.stack_n[s][p])] for s in range(2)],
                "strength": [self._total(0, p), self._total(1, p)],
                "controller": self._controller(p) if self.first >= 0 else None,
            })
        return board

    def _decision_view(self, int viewer):
        if self.phase not in (PHASE_DECIDE, PHASE_DRAW):
            return None
        source = self.dsource if self.dkind not in (D_PLAY, D_REDEPLOY_PLAY) else -1
        return {
            "kind": DECISION_NAMES[self.dkind],
            "seat": self.dseat,
            "source": card_label(source) if source >= 0 else None,
            "theater": self._theater(self.dpos) if source >= 0 and self.dpos >= 0 else None,
            "step": self.dstep if self.dkind == D_DISRUPT else None,
            "drawn": card_label(self.drawn) if self.drawn >= 0 and self.dseat == viewer else None,
            "card_drawn": self.drawn >= 0,
        }

    def _destroyed_view(self, int viewer) -> list:
        return [{"card": card_label(c) if self.seen[c] or self.owner[c] == viewer else None,
                 "seat": self.owner[c], "public": bool(self.seen[c])}
                for c in (self.bottom[i] for i in range(self.bottom_n))]

    def _undealt(self) -> int:
        return sum(1 for c in range(NUM_CARDS) if self.loc[c] == LOC_DECK)

    def observation_dict(self, int player) -> dict:
        check_seat("air_land_sea", player)
        to_play = self.c_current_player()
        return {
            "seat": player,
            "target_vp": self.target_vp,
            "hand_size": self.hand_size,
            "phase": PHASE_NAMES[self.phase],
            "battle": self.battle,
            "theaters": [self._theater(p) for p in range(NUM_THEATERS)] if self.order[0] >= 0 else None,
            "first_player": self.first if self.first >= 0 else None,
            "victory_points": [self.vp[0], self.vp[1]],
            "to_move": self.to_move if self.phase in (PHASE_DECIDE, PHASE_DRAW) else None,
            "decision": self._decision_view(player),
            "to_play": to_play if to_play >= 0 else None,
            "board": self._board_view(player),
            "hand": [card_label(self.hand[player][i]) for i in range(self.hand_n[player])],
            "hand_sizes": [self.hand_n[0], self.hand_n[1]],
            "deck": {"undealt": self._undealt(), "destroyed": self._destroyed_view(player)},
            "air_drop": [bool(self.air_drop[0]), bool(self.air_drop[1])],
            "pending_abilities": [card_label(self.queue[i]) for i in range(self.q_head, self.q_tail)],
            "abilities_this_turn": self.q_tail,
            "log": self._log_lines(player),
            "battles": [{k: v for k, v in b.items() if k != "final"} for b in self._battles],
            "legal_actions": self.legal_actions(player),
            "finished": self.phase == PHASE_OVER,
            "returns": self.returns(),
        }

    def _rules_text(self) -> str:
        h = self.hand_size
        return (
            f"Air, Land, and Sea. Two Supreme Commanders fight battles over three theaters (Air, Land, Sea) laid out "
            f"in a row; neighbouring theaters are adjacent. The 18-card deck has six cards per theater type, "
            f"strengths 1 to 6. Each battle both players are dealt {h} cards and take turns. On your turn, do one "
            f"thing: Deploy (play a card face up, on your side, to the theater of its type), Improvise (play a card "
            f"face down to any theater: strength 2, no ability) or Withdraw (your opponent wins the battle and scores "
            f"VPs by the cards left in your hand). A new card covers your cards already in that theater. A card "
            f"played or flipped face up uses its ability: an Instant one resolves at once, an Ongoing one lasts "
            f"while the card is face up; abilities are mandatory unless they say 'may' and are skipped when "
            f"impossible. Destroyed cards go to the bottom of the deck. When both hands are empty, you control a "
            f"theater where your total strength is higher (ties and empty theaters go to the 1st player); "
            f"controlling two theaters wins the battle and 6 VPs. A withdrawal scores the winner, for 5+/4/3/2/1/0 "
            f"cards left in the withdrawing hand, 2/3/3/4/6/6 VPs if the winner is the 1st player and 2/2/3/3/4/6 "
            f"if the 2nd. The first to {self.target_vp} VPs wins the game; after each battle the deck is reshuffled, "
            f"the theaters rotate (the rightmost moves to the far left) and the players swap Supreme Commander "
            f"cards. Your score is your share of all VPs.")

    def _side_text(self, int seat, int pos, int viewer) -> str:
        cards = []
        for i in range(self.stack_n[seat][pos]):
            view = self._card_view(seat, pos, i, viewer)
            if view["face_up"]:
                text = f"{view['card']} face up"
            elif view["card"] is None:
                text = "a face-down card"
            elif seat == viewer:
                text = f"{view['card']} face down ({'known to' if view['public'] else 'unknown to'} your opponent)"
            else:
                text = f"{view['card']} face down"
            cards.append(f"{text}, strength {view['strength']}")
        return "; ".join(cards) if cards else "no cards"

    def _board_lines(self, int viewer) -> list:
        other = 1 - viewer
        lines = [f"Theaters, left to right: {', '.join(self._theater(p) for p in range(NUM_THEATERS))}. "
                 f"Cards are listed bottom to top; the last card on a side is uncovered."]
        for p in range(NUM_THEATERS):
            line = f"{self._theater(p)}: you {self._total(viewer, p)}, your opponent {self._total(other, p)}"
            if self.first >= 0:         # control needs the 1st player, who wins ties
                line += " (you control it)" if self._controller(p) == viewer else " (your opponent controls it)"
            lines.append(line + ".")
            lines.append(f"  Yours: {self._side_text(viewer, p, viewer)}.")
            lines.append(f"  Your opponent's: {self._side_text(other, p, viewer)}.")
        return lines

    def _effects_text(self, int viewer) -> list:
        lines = []
        active = [f"{self._whose(self.owner[c], viewer)} {card_label(c)} ({ABILITIES[c][1]})"
                  for c in (SUPPORT, AERODROME, CONTAINMENT, COVER_FIRE, ESCALATION, BLOCKADE)
                  if self._face_up_on_board(c)]
        if active:
            lines.append("Ongoing abilities in effect: " + "; ".join(active) + ".")
        for s in range(2):
            if self.air_drop[s]:
                lines.append(f"Air Drop: {self._whose(s, viewer)} next card may be played face up to a "
                             f"non-matching theater.")
        waiting = [f"{self._whose(self.owner[self.queue[i]], viewer)} {card_label(self.queue[i])}"
                   for i in range(self.q_head, self.q_tail)]
        if waiting:
            lines.append("Abilities waiting to resolve, in order: " + ", ".join(waiting) + ".")
        return lines

    def _status_text(self, int viewer) -> str:
        if self.phase == PHASE_OVER:
            share = self.returns()[viewer]
            result = "you won" if self.vp[viewer] > self.vp[1 - viewer] else "your opponent won"
            return (f"The game is over: {result}, {self.vp[viewer]} VPs to {self.vp[1 - viewer]}; your score "
                    f"(your share of the VPs) is {share:.4g}.")
        if self.phase == PHASE_THEATERS:
            return "The theaters are being laid out."
        if self.phase == PHASE_COMMANDER:
            return "The 1st Player Supreme Commander card is being given out."
        if self.phase == PHASE_DEAL:
            return "The cards are being dealt."
        if self.phase == PHASE_DRAW:
            return f"Reinforce: {self._who(self.dseat, viewer)} {'draw' if self.dseat == viewer else 'draws'} a card."
        if self.dseat != viewer:
            if self.dkind == D_DISRUPT and self.dstep == 1:
                return "Disrupt: waiting for your opponent to flip one of its uncovered cards."
            return "Waiting for your opponent."
        return self._prompt_text()

    def _prompt_text(self) -> str:
        source = card_label(self.dsource) if self.dkind not in (D_PLAY, D_REDEPLOY_PLAY) else ""
        if self.dkind == D_PLAY:
            return "Your turn: Deploy, Improvise or Withdraw."
        if self.dkind == D_REDEPLOY_PLAY:
            return "Redeploy: play a card from your hand (Deploy or Improvise)."
        if self.dkind == D_MANEUVER:
            return f"{source} in {self._theater(self.dpos)}: choose an uncovered card in an adjacent theater to flip."
        if self.dkind == D_AMBUSH:
            return f"{source}: choose any uncovered card to flip."
        if self.dkind == D_DISRUPT:
            return ("Disrupt: choose one of your uncovered cards to flip"
                    + (" (your opponent flips one of its own next)." if self.dstep == 0 else "."))
        if self.dkind == D_TRANSPORT:
            return f"{source}: you may move one of your cards to a different theater."
        if self.dkind == D_REDEPLOY:
            return f"{source}: you may return one of your face-down cards to your hand, then play a card."
        return (f"{source} in {self._theater(self.dpos)}: play the drawn card, {card_label(self.drawn)}, face down "
                f"to an adjacent theater.")

    def observation_string(self, int player) -> str:
        check_seat("air_land_sea", player)
        other = 1 - player
        lines = [self._rules_text(),
                 f"You are seat {player}; your opponent is seat {other}. Victory points: you {self.vp[player]}, "
                 f"your opponent {self.vp[other]} (the first to {self.target_vp} wins)."]
        if self.first >= 0:
            holder = "You hold" if self.first == player else "Your opponent holds"
            lines.append(f"Battle {self.battle}. {holder} the 1st Player Supreme Commander card: "
                         + ("you play first and win tied and empty theaters." if self.first == player
                            else "you are the 2nd player and lose tied and empty theaters."))
        if self.order[0] >= 0:
            lines += self._board_lines(player)
        hand = [card_text(self.hand[player][i]) for i in range(self.hand_n[player])]
        lines.append(f"Your hand ({len(hand)} card{'s' if len(hand) != 1 else ''}):" if hand else "Your hand: empty.")
        lines += [f"  {text}" for text in hand]
        destroyed = self._destroyed_view(player)
        deck = f"Deck: {self._undealt() + self.bottom_n} cards"
        if destroyed:
            deck += " (destroyed, at the bottom: " + ", ".join(d["card"] or "a face-down card" for d in destroyed) + ")"
        lines.append(f"Your opponent's hand: {self.hand_n[other]} cards. {deck}.")
        lines += self._effects_text(player)
        log = self._log_lines(player)
        if log:
            lines.append("This battle so far:")
            lines += [f"  {line}." for line in log]
        for b in self._battles:
            left = b["cards_left"]
            lines.append(f"Battle {b['battle']}: {self._who(b['winner'], player)} won it "
                         + (f"after a withdrawal with {left} card{'s' if left != 1 else ''} left"
                            if b["reason"] == "withdrawal" else "on theaters")
                         + f", +{b['victory_points']} VPs.")
        lines.append(self._status_text(player))
        return "\n".join(lines)

    # ---- actions --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.phase == PHASE_THEATERS:
                return "theaters left to right: " + ", ".join(TYPE_NAMES[t] for t in _python_permutation(action))
            if self.phase == PHASE_COMMANDER:
                return f"seat {action} holds the 1st Player Supreme Commander card"
            return f"{'deal' if self.phase == PHASE_DEAL else 'draw'} {card_label(action)}"
        if self.phase != PHASE_DECIDE or player != self.dseat:
            raise ValueError(f"seat {player} has no decision now")
        texts = self._option_texts()
        if not 0 <= action < len(texts) or texts[action] is None:
            raise ValueError(f"{action} is not an option of seat {player} now")
        return texts[action]

    def _option_texts(self) -> list:
        """The texts of the pending decision's options, indexed by action id (None: not an option)."""
        seat = self.dseat
        if self.dkind in (D_PLAY, D_REDEPLOY_PLAY):
            h = self.hand_n[seat]
            hand = [self.hand[seat][i] for i in range(h)]
            texts = [f"Play {card_text(c)} face up to {TYPE_NAMES[_type_of(c)]}. Deploy." for c in hand]
            for t in range(NUM_THEATERS):
                texts += [f"Play {card_text(c)} face down to {TYPE_NAMES[t]}. Improvise." for c in hand]
            if self.dkind == D_PLAY:
                points = withdrawal_vp(1 - seat == self.first, h)
                texts.append(f"Withdraw from the battle. Your opponent wins it and scores {points} VPs "
                             f"({h} card{'s' if h != 1 else ''} left in your hand).")
            else:
                texts.append(None)
            for c in hand:
                for j in range(2):
                    texts.append(f"Play {card_text(c)} face up to {TYPE_NAMES[_non_matching(_type_of(c), j)]}, "
                                 f"a non-matching theater. Deploy." if self._may_play_anywhere(seat, c) else None)
            return texts
        if self.dkind in (D_MANEUVER, D_AMBUSH, D_DISRUPT):
            return [self._flip_text(a) for a in self.legal_actions(seat)]
        if self.dkind == D_TRANSPORT:
            return self._transport_texts()
        if self.dkind == D_REDEPLOY:
            return self._redeploy_texts()
        return [f"Play the drawn {card_label(self.drawn)} face down to {self._theater(p)}."
                for p in range(NUM_THEATERS) if p == self.dpos - 1 or p == self.dpos + 1]

    def _flip_text(self, int action) -> str:
        cdef int seats[2 * NUM_THEATERS]
        cdef int positions[2 * NUM_THEATERS]
        self._flip_targets(self.dkind, seats, positions)
        seat, pos = seats[action], positions[action]
        card = self._uncovered(seat, pos)
        whose = "your" if seat == self.dseat else "your opponent's"
        if self.up[card]:
            return f"Flip {whose} {card_label(card)} in {self._theater(pos)} face down."
        if seat == self.dseat or self.seen[card]:
            return f"Flip {whose} face-down {card_label(card)} in {self._theater(pos)} face up."
        return f"Flip {whose} face-down card in {self._theater(pos)} face up."

    def _transport_texts(self) -> list:
        cdef int cards[2 * NUM_CARDS]
        cdef int targets[2 * NUM_CARDS]
        n = self._transport_moves(cards, targets)
        texts = []
        for i in range(n):
            card = cards[i]
            named = card_label(card) if self.up[card] else f"face-down {card_label(card)}"
            texts.append(f"Move your {named} from {self._theater(self.cpos[card])} to {self._theater(targets[i])}.")
        return texts + ["Do not move any card."]

    def _redeploy_texts(self) -> list:
        cdef int cards[NUM_CARDS]
        cdef int positions[NUM_CARDS]
        n = self._returnable(cards, positions)
        return [f"Return your face-down {card_label(cards[i])} in {self._theater(positions[i])} to your hand, "
                f"then play a card." for i in range(n)] + ["Do not return any card."]

    def parse_action(self, int player, str text) -> int:
        if self.phase != PHASE_DECIDE or player != self.dseat:
            raise ActionParseError(f"seat {player} has no decision to make now")
        legal = self.legal_actions(player)
        wanted = _normalized(text)
        by_text = {_normalized(self.action_to_string(player, a)): a for a in legal}
        if wanted in by_text:
            return by_text[wanted]
        found = last_match(_JSON_ACTION, text)
        if found is not None:
            value = found.group(1) if found.group(1) is not None else found.group(2)
            if _normalized(value) in by_text:
                return by_text[_normalized(value)]
            chosen = _as_id(value)
        else:
            chosen = _as_id(text)
        if chosen is None:
            raise ActionParseError(
                f"no action found in {text[:80]!r}. Answer with the id of one of the listed actions as JSON, "
                f"e.g. {{\"action\": \"{legal[0]}\"}}, or with the action's text.")
        if chosen not in legal:
            raise ActionParseError(
                f"{chosen} is not one of the available actions now; choose one of the ids "
                f"{', '.join(map(str, legal))}, e.g. {{\"action\": \"{legal[0]}\"}}.")
        return chosen

    def text_action_spec(self, int player):
        if self.phase != PHASE_DECIDE or player != self.dseat:
            return None
        return {"description": 'the id of one of the listed actions, as GameBench asked: {"action": "<id>"} '
                               "(or the action's text)",
                "max_length": 4000, "forbidden_words": []}

    # ---- results --------------------------------------------------------------------------------
    def result_summary(self) -> str:
        if self.phase != PHASE_OVER:
            return "game in progress"
        winner = 0 if self.vp[0] > self.vp[1] else 1
        shares = self.returns()
        return (f"seat {winner} wins {self.vp[winner]} VPs to {self.vp[1 - winner]} after {self.battle} "
                f"battle{'s' if self.battle != 1 else ''} (VP shares {shares[0]:.4g} and {shares[1]:.4g})")

    def result_details(self) -> dict:
        return {
            "victory_points": [self.vp[0], self.vp[1]],
            "winner": (0 if self.vp[0] > self.vp[1] else 1) if self.phase == PHASE_OVER else None,
            "battles": [dict(b) for b in self._battles],
            "returns": self.returns(),
        }

    # ---- rebuilding from a view ---------------------------------------------------------------
    def _load_view(self, int player, dict view):
        """Sets this fresh state to one consistent with `view`, seat `player`'s observation_dict: what
        the seat sees as it is; each card it cannot see is the lowest unseen card id, in the order:
        the opponent's hand, its unknown face-down cards, its unknown destroyed cards, a card it drew for
        Reinforce, then the undealt deck."""
        other = 1 - player
        self.phase = PHASE_NAMES.index(view["phase"])
        self.battle = view["battle"]
        self.vp[0], self.vp[1] = view["victory_points"]
        self.first = -1 if view["first_player"] is None else view["first_player"]
        if view["theaters"] is not None:
            for p, name in enumerate(view["theaters"]):
                self.order[p] = TYPE_NAMES.index(name)
        known = set()
        for label in view["hand"]:
            known.add(card_id(label))
        for theater in view["board"]:
            for side in theater["cards"]:
                known.update(card_id(c["card"]) for c in side if c["card"] is not None)
        known.update(card_id(d["card"]) for d in view["deck"]["destroyed"] if d["card"] is not None)
        decision = view["decision"]
        if decision is not None and decision["drawn"] is not None:
            known.add(card_id(decision["drawn"]))
        unseen = iter(c for c in range(NUM_CARDS) if c not in known)
        for label in view["hand"]:
            self._to_hand(player, card_id(label))
        for _ in range(view["hand_sizes"][other]):
            self._to_hand(other, next(unseen))
        for p, theater in enumerate(view["board"]):
            for s, side in enumerate(theater["cards"]):
                for c in side:
                    card = card_id(c["card"]) if c["card"] is not None else next(unseen)
                    self._put_on_top(s, card, p)
                    self.up[card] = c["face_up"]
                    self.seen[card] = c["public"]
        for d in view["deck"]["destroyed"]:
            card = card_id(d["card"]) if d["card"] is not None else next(unseen)
            self.loc[card] = LOC_BOTTOM
            self.owner[card] = d["seat"]
            self.seen[card] = d["public"]
            self.bottom[self.bottom_n] = card
            self.bottom_n += 1
        if decision is not None:
            self.dkind = DECISION_KINDS[decision["kind"]]
            self.dseat = decision["seat"]
            self.dsource = card_id(decision["source"]) if decision["source"] is not None else -1
            self.dpos = view["theaters"].index(decision["theater"]) if decision["theater"] is not None else -1
            self.dstep = decision["step"] or 0
            if decision["card_drawn"]:
                card = card_id(decision["drawn"]) if decision["drawn"] is not None else next(unseen)
                self.drawn = card
                self.loc[card] = LOC_DRAWN
                self.owner[card] = self.dseat
        if view["to_move"] is not None:
            self.to_move = view["to_move"]
        self.dealt = self.hand_n[0] + self.hand_n[1] if self.phase == PHASE_DEAL else 2 * self.hand_size
        for s in range(2):
            self.air_drop[s] = view["air_drop"][s]
        pending = view["pending_abilities"]
        self.q_tail = view["abilities_this_turn"]
        self.q_head = self.q_tail - len(pending)
        for i, label in enumerate(pending):
            self.queue[self.q_head + i] = card_id(label)
        self._battles = tuple(view["battles"])
        self._frozen_log = (player, self.battle, tuple(view["log"]))


cdef inline bint _hides_card(int kind, int y, int z) noexcept:
    """Whether a seat's move keeps its card from the other seat (its public history shows action -1)."""
    return (kind == EV_PLAY and not y) or (kind == EV_MOVE and z == MOVED_FACE_DOWN_HIDDEN) or (kind == EV_RETURN and z)


def _python_permutation(int index) -> list:
    cdef int out[3]
    _permutation(index, out)
    return [out[0], out[1], out[2]]


def _controlled(dict result, int pos) -> int:
    """Who controlled position `pos` at the end of a battle (the 1st player on ties)."""
    first = result["first_player"]
    return 1 - first if result["strength"][1 - first][pos] > result["strength"][first][pos] else first


_JSON_ACTION = re.compile(r'"action"\s*:\s*(?:"([^"\n]{0,400})"|(-?\d+))', re.IGNORECASE)
_ID = re.compile(r'"?(\d{1,6})"?\.?')


def _normalized(str text) -> str:
    return " ".join(text.split()).rstrip(".").lower()


def _as_id(str text):
    found = _ID.fullmatch(text.strip())
    return int(found.group(1)) if found else None


class Game(GameBase):
    """GameBench's Air, Land, and Sea with validated parameters."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "target_vp", 1, MAX_TARGET_VP)
        checked_int(self.parameters, "hand_size", 1, MAX_HAND_SIZE)

    def new_initial_state(self) -> AirLandSeaState:
        return AirLandSeaState(self)

    def state_from_view(self, int player, dict view) -> AirLandSeaState:
        """A state consistent with `view` (seat `player`'s observation_dict); see _load_view."""
        check_seat("air_land_sea", player)
        state = self.new_initial_state()
        state._load_view(player, view)
        return state
