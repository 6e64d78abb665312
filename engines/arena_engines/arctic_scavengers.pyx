"""Arctic Scavengers for two players, as GameBench played it (gamebench.md section 2.2; the authors'
code, Joshuaclymer/GameBench at 2968355, games/arctic_scavengers, supplies what the paper leaves out).

Cards (the code's card definitions). Tribe members, then the action symbols with their values; an
action marked "+" is a modifier (it only adds to a standard card of the same action):
  Refugee 1: DIG 0, HUNT 0                      Junk: nothing
  Scavenger 1: DRAW 1, DIG 1, HUNT 1, FIGHT 1   Multitool: DIG +1, HUNT +1, FIGHT +1
  Brawler 1: DIG 1, FIGHT 2                     Net: HUNT +2, FIGHT +1
  Hunter 1: HUNT 2, FIGHT 1                     Spear: HUNT +1, FIGHT +2
  Saboteur 1: DIG 1, FIGHT 1 (SABOTEUR)         Pickaxe: DIG +1, FIGHT +2
  Scout 1: DRAW 2, FIGHT 2                      Shovel: DIG +2, FIGHT +1
  Group Leaders 2: DRAW +2, DIG +2, HUNT +2,    Medkit: MEDICINE 2
                   FIGHT +2                     Pills: MEDICINE 1
  Sniper Team 2: no action (SNIPER)             Wolf Pack: HUNT +3, FIGHT +2
  Thug 3: DIG 1, FIGHT 3                        Grenade: FIGHT +3
  Sled Team 2: DRAW 2, FIGHT 1                  Field Crew 4: DIG 2, HUNT 2, FIGHT 2
  Tribe Family 5: HUNT 0, FIGHT 0
Hire costs (FOOD, MEDICINE): Scavenger 1/0, Brawler 2/0, Hunter 0/1, Saboteur 1/1, Scout 2/1, Group
Leaders 2/2, Sniper Team 2/2, Thug 6/0. A card without tribe members is a tool (SABOTEUR's target);
a card with some is a tribe member (SNIPER's target).

Setup [C]. Each player's deck: Refugee x4, Scavenger x3, Brawler, Spear, Shovel (10 cards). The
junkyard (42): Junk x7, Multitool x4, Net x4, Spear x4, Pickaxe x4, Shovel x4, Medkit x6, Pills x9.
Eight mercenary piles (61), face up: Brawler 8, Hunter 8, Saboteur 8, Scout 8, Group Leaders 5,
Sniper Team 5, Thug 5, Scavenger 14. The contested resources (5), shuffled: Wolf Pack, Grenade, Sled
Team, Field Crew, Tribe Family.

Rounds [P/C]. One round per contested resource. Seat r % 2 is the round's first player (the code's
initiator; seat 0 in round 1). A round:
  1. Each player (seat 0 first) shuffles all its cards into one deck and draws 5 (fewer if it owns
     fewer). FOOD and the record of actions used start again from nothing.
  2. Resource gathering, the first player completely, then the other. The gathering player either
     stops, or announces one of its unused actions with cards from its hand:
       DIG   cards that all have DIG, at least one as a standard action: turn over as many cards from
             the top of the junkyard as their DIG values add up to, keep one in the deck, put the others
             at the bottom of the junkyard in the order they came;
       DRAW  the same with DRAW: draw that many cards from the deck into the hand;
       HUNT  the same with HUNT: gain that much FOOD (it lasts to the end of the round);
       HIRE  a non-empty mercenary pile and medicine cards from the hand: the FOOD gathered must cover
             the mercenary's FOOD cost (it is spent) and the MEDICINE values of the cards its MEDICINE
             cost; the mercenary goes to the deck;
       TRASH any cards of the hand: they go into the junkyard, which is shuffled.
     Played cards (medicine included) go to the bottom of the player's deck, out of the hand for the
     round. Before the action happens, the opponent may interrupt it: SNIPER (holding a Sniper Team)
     on a tribe-member card the action uses, or SABOTEUR (holding a Saboteur) on a tool card it uses;
     the target and the interrupting card go to the bottoms of their owners' decks and the action does
     not happen (it stays unused). Gathering ends when the player stops, has no card left in hand or
     has used all five actions.
  3. Skirmish. Both hands are shown. The first player, then the other, may use SNIPER (holding a
     Sniper Team) on a tribe member of the opponent's hand and SABOTEUR (holding a Saboteur) on a tool
     of it, each if not yet used this round; the target goes to the bottom of its owner's deck and the
     interrupting card stays in hand. The hand with the larger sum of FIGHT values (modifiers
     included) wins, a tie goes to the hand with more tribe members; the winner puts the top
     contested resource at the bottom of its deck. A full tie shuffles that card into the junkyard.
  SNIPER and SABOTEUR can each be used once per round by each player (interrupt or skirmish).
The game ends when the contested resources are gone (1 / 0 scoring [P]): the player whose current
hand (the one from the last skirmish) holds more tribe members scores 1, the other 0; with equal
counts seat 1 scores 1 (the code's `(1, 0) if tribe_0 > tribe_1 else (0, 1)`), or each 0.5 with
"tie_rule" "split".

Chance. Every card drawn from a shuffled pile is one chance node, outcome = card type id (0-21 in the
table order above) with probability proportional to the copies left: the 5 cards of each deal, each
card drawn by DRAW, each card turned over by DIG, the contested resource of each skirmish. A deck
holds a shuffled part (everything at the round's start) and, below it, the cards added during the
round in order; the junkyard likewise holds a shuffled part and, below it, the cards dug and put
back. A draw takes from the shuffled part while it lasts, then from the ordered bottom without a
chance node. Trashing (and a tied contested resource) shuffles the whole junkyard again.

Actions (ids; every text is GameBench's open-ended answer, a list, or for a dug card its title):
  0                      ["STOP", []]                   stop gathering
  1024 + s, 2048 + s,    ["DIG", [cards]], ["DRAW", ...], ["HUNT", ...]
  3072 + s
  4096 + 1024 p + s      ["HIRE", [medicine cards], "<mercenary>"], pile p in the order above
  12288 + s              ["TRASH", [cards]]
  16384                  ["STOP", ""]                   let the announced action happen
  16416 + t, 16448 + t   ["SNIPER", "<card>"], ["SABOTEUR", "<card>"]   interrupt it
  16512 + t              "<card>"                      the dug card to keep
  16640                  ["STOP", ""]                   end one's skirmish actions
  16672 + t, 16704 + t   ["SNIPER", "<card>"], ["SABOTEUR", "<card>"]   in the skirmish
where t is a card type id and s selects cards of the current hand: with c_u copies of type u in hand,
s = sum over the types in hand, in id order, of k_u * prod over earlier types of (c_v + 1), k_u
copies of u being used. A hand has at most 10 cards (5, plus at most one card per card played to one
DRAW), so s < 1024 and a decision has at most 1024 legal actions; the one exception (a ten-card hand of
ten different cards, whose trash sets alone number 1023) keeps the smallest trash sets that fit.
parse_action reads GameBench's reply {"action": ..., "openended_response": ...} (JSON, with text
around it) and the bare lists, with single or double quotes as the code's ast.literal_eval did, the
last readable answer counting; a dug card's title; "STOP".

Information. A seat sees its own hand, deck (the shuffled part as counts, the bottom in order), FOOD,
its dug cards and what it keeps; the opponent's hand size, the cards the opponent has shown (announced
or interrupted cards; the whole hand at the skirmish), its deck size and bottom (the card it kept from
a dig is unseen), its FOOD and actions; the junkyard's size and the cards it put back itself; the
contested pile's size and what was won; the mercenary piles. Every announcement, interrupt and
skirmish result is public; cards drawn, dug and kept are private. The view also states what the seat
can deduce: which of the opponent's cards it knows, how many it has not seen, which cards of the
junkyard it knows, and the cards whose place it does not know ("unlocated"). Those summaries make
resample_hidden and state_from_view exact for the present: the unlocated cards are shared out at
random among the opponent's unseen cards, the junkyard and the opponent's digs. (A determinization does
not use when the opponent dug, so it may give the opponent a card the seat saw in the junkyard later;
nothing the seat sees changes.)

Preset "gamebench" (section 2.2 and 6, item 9): 5 contested resources, so 5 rounds; ties of the
final count to seat 1. These are the defaults. Parameters: "contested_resources" (1-5; a game of n
rounds draws n of the five), "tie_rule" ("second_seat_wins" | "split").

Ambiguities (gamebench.md section 6 and the 2.2 card).
  - "6 rounds" (paper) vs "until the contested resources are gone" (code), item 9: the game ends when
    the 5 contested resources are gone, so 5 rounds; the count is the parameter "contested_resources".
  - Final count over the current hand, ties (0, 1) (card, flagged odd): kept as the card gives it for
    the preset; "tie_rule" "split" gives 0.5 / 0.5 (item 10's draw rule for binary games).
  - Illegal answers (section 2.10, item 12): the referee's failure policy (3 attempts, then a uniformly
    random legal action); the game has no default action. The code's own fallback (a random action
    with one random card) is not reproduced.
  - Open-ended actions become predefined ones (the brief): one id per distinct card multiset, so cards
    of the same title are interchangeable and an empty card list is not offered (it would use up the
    action for nothing).
  The code has bugs that this engine does not reproduce, following the card's description instead:
  - SNIPER checks for a card titled "Sniper" while the card is "Sniper Team", so nobody can snipe in
    the code; here a Sniper Team allows it.
  - An interrupt during gathering crashes the code (it reads a second list element the answer does
    not have); here it works as the code's comments describe (target and interrupting card discarded
    to the deck, action cancelled). The interrupter names a card of the announced action, the only
    cards of that hand it can see (the code accepted any title and skipped interrupts that missed).
  - The code never counts SNIPER and SABOTEUR as used, so a skirmish could repeat them until the
    opponent's hand is empty; here its per-round action record (which lists both) limits each to once
    a round.
  - HIRE checks the cost of a card of that title in the opponent's hand (usually none), so any hire
    passed and FOOD could go negative; here FOOD and MEDICINE must cover the cost ("You must have
    gathered enough FOOD"). Overpaying with medicine is allowed, as the code's >= check intends.
  - The code's "the MODIFIER card must be combined with a STANDARD card" counts every action of every
    card; here a card set for DIG, DRAW or HUNT needs one card with that action as a standard one.
  - A deck emptied into the hand loses the hand at the next deal in the code; here the hand is always
    shuffled back. Digging an empty junkyard (a crash in the code) turns over nothing.
  - Trashing inserts each card at a random position in the code; the action text says the junkyard
    "is shuffled after each new card added", which this engine does (likewise for a tied resource,
    "shuffled in the junkyard pile").
  - A dug card must be kept (the code offers only the dug titles), although the rules say "a maximum
    of one".
  - Forced decisions are skipped only where that reveals nothing: gathering ends by itself with an
    empty hand or all actions used, and a skirmish turn with nothing to use passes; the opponent is
    always asked to respond (skipping would show it holds no Sniper Team or Saboteur) and a dig
    always asks which card to keep.
"""

import ast
import json
import re

cimport cython
from libc.string cimport memcpy

from arena_engines.core cimport CHANCE_PLAYER, MAX_ACTIONS, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int

cdef enum:
    NUM_TYPES = 22
    NUM_SYMBOLS = 5
    NUM_PILES = 8
    NUM_CONTESTED = 5
    HAND_DEAL = 5
    MAX_HAND = 10           # 5 dealt + at most one card more per card played to the round's one DRAW
    MAX_TAIL = 64           # cards added to a deck in one round: at most 15 from the hand + 3
    ALL_CARDS = 128         # 20 + 42 + 61 + 5
    MAX_DIG = 32            # at most 10 cards of DIG 2
    # Moves per round: 10 deals, 2 x 15 gathering decisions and responses (5 actions, 2 interrupted
    # announcements, a stop), 2 x 10 drawn cards, 2 x 20 dug cards, 2 keeps, 6 skirmish decisions, 1
    # award.
    MOVES_PER_ROUND = 109
    MAX_LOG = MOVES_PER_ROUND * NUM_CONTESTED

    # the card types that rules name (ids are indices into CARD_NAMES)
    SABOTEUR_CARD = 4
    GROUP_LEADERS = 6
    SNIPER_TEAM = 7
    MEDKIT = 15
    PILLS = 16

    # action symbols
    SYM_DIG = 0
    SYM_DRAW = 1
    SYM_HUNT = 2
    SYM_FIGHT = 3
    SYM_MEDICINE = 4

    # gathering actions
    G_STOP = 0
    G_DIG = 1
    G_DRAW = 2
    G_HUNT = 3
    G_HIRE = 4
    G_TRASH = 5

    # the per-round action record
    USED_DIG = 1
    USED_DRAW = 2
    USED_HUNT = 4
    USED_HIRE = 8
    USED_TRASH = 16
    USED_SNIPER = 32
    USED_SABOTEUR = 64
    USED_ALL_GATHERING = 31

    # action ids
    STOP_ID = 0
    DIG_BASE = 1024
    DRAW_BASE = 2048
    HUNT_BASE = 3072
    HIRE_BASE = 4096
    TRASH_BASE = 12288
    RESPONSE_BASE = 16384
    KEEP_BASE = 16512
    SKIRMISH_BASE = 16640
    SNIPE_OFFSET = 32
    SABOTAGE_OFFSET = 64
    SELECTIONS = 1024

    # interrupts
    I_NONE = 0
    I_SNIPER = 1
    I_SABOTEUR = 2

    # phases
    PH_DEAL = 0
    PH_GATHER = 1
    PH_RESPOND = 2
    PH_DRAWCARDS = 3
    PH_DIGCARDS = 4
    PH_KEEP = 5
    PH_SKIRMISH = 6
    PH_AWARD = 7
    PH_END = 8

    # log records, one per move
    REC_DEAL = 0
    REC_DRAW = 1
    REC_GATHER = 2
    REC_RESPONSE = 3
    REC_DIG = 4
    REC_KEEP = 5
    REC_SKIRMISH = 6
    REC_AWARD = 7


cdef struct Record:
    int round
    int kind
    int seat            # who moved, or who drew for a chance move
    int action          # the public action id; -1 when only the record's summary is public
    int card            # private to `seat` for deals, draws, digs and keeps; -1 when none or unknown
    int v[6]            # kind-specific public numbers (see _record_text)
    int ncards
    int cards[MAX_HAND] # an announcement's cards


# ---- the cards ---------------------------------------------------------------------------------
CARD_NAMES = ("Refugee", "Scavenger", "Brawler", "Hunter", "Saboteur", "Scout", "Group Leaders",
              "Sniper Team", "Thug", "Junk", "Multitool", "Net", "Spear", "Pickaxe", "Shovel", "Medkit",
              "Pills", "Wolf Pack", "Grenade", "Sled Team", "Field Crew", "Tribe Family")
SYMBOL_NAMES = ("DIG", "DRAW", "HUNT", "FIGHT", "MEDICINE")
# Per card: tribe members, {symbol: (value, modifier)}, (FOOD, MEDICINE) hire cost or None.
CARDS = (
    (1, {"DIG": (0, False), "HUNT": (0, False)}, None),
    (1, {"DRAW": (1, False), "DIG": (1, False), "HUNT": (1, False), "FIGHT": (1, False)}, (1, 0)),
    (1, {"DIG": (1, False), "FIGHT": (2, False)}, (2, 0)),
    (1, {"HUNT": (2, False), "FIGHT": (1, False)}, (0, 1)),
    (1, {"DIG": (1, False), "FIGHT": (1, False)}, (1, 1)),
    (1, {"DRAW": (2, False), "FIGHT": (2, False)}, (2, 1)),
    (2, {"DRAW": (2, True), "DIG": (2, True), "HUNT": (2, True), "FIGHT": (2, True)}, (2, 2)),
    (2, {}, (2, 2)),
    (3, {"DIG": (1, False), "FIGHT": (3, False)}, (6, 0)),
    (0, {}, None),
    (0, {"DIG": (1, True), "HUNT": (1, True), "FIGHT": (1, True)}, None),
    (0, {"HUNT": (2, True), "FIGHT": (1, True)}, None),
    (0, {"HUNT": (1, True), "FIGHT": (2, True)}, None),
    (0, {"DIG": (1, True), "FIGHT": (2, True)}, None),
    (0, {"DIG": (2, True), "FIGHT": (1, True)}, None),
    (0, {"MEDICINE": (2, False)}, None),
    (0, {"MEDICINE": (1, False)}, None),
    (0, {"HUNT": (3, True), "FIGHT": (2, True)}, None),
    (0, {"FIGHT": (3, True)}, None),
    (2, {"DRAW": (2, False), "FIGHT": (1, False)}, None),
    (4, {"DIG": (2, False), "HUNT": (2, False), "FIGHT": (2, False)}, None),
    (5, {"HUNT": (0, False), "FIGHT": (0, False)}, None),
)
SPECIAL = {"Saboteur": "SABOTEUR: disarm one tool card, forcing it to be discarded",
           "Sniper Team": "SNIPER: snipe one tribe member, forcing it to be discarded",
           "Group Leaders": "any action may be enhanced by both Group Leaders and a tool"}
STARTING_DECK = {"Refugee": 4, "Scavenger": 3, "Brawler": 1, "Spear": 1, "Shovel": 1}
JUNKYARD = {"Junk": 7, "Multitool": 4, "Net": 4, "Spear": 4, "Pickaxe": 4, "Shovel": 4, "Medkit": 6, "Pills": 9}
MERCENARY_PILES = (("Brawler", 8), ("Hunter", 8), ("Saboteur", 8), ("Scout", 8), ("Group Leaders", 5),
                   ("Sniper Team", 5), ("Thug", 5), ("Scavenger", 14))
CONTESTED_RESOURCES = ("Wolf Pack", "Grenade", "Sled Team", "Field Crew", "Tribe Family")
GATHER_NAMES = ("STOP", "DIG", "DRAW", "HUNT", "HIRE", "TRASH")
GATHER_DESCRIPTIONS = {
    "DIG": "turn over as many cards from the top of the junkyard as the DIG values of the cards you play add "
           "up to; keep one of them in your deck and put the others at the bottom of the junkyard",
    "DRAW": "draw into your hand as many cards from your deck as the DRAW values of the cards you play add up to",
    "HUNT": "gain FOOD equal to the HUNT values of the cards you play (it lasts until the end of the round); "
            "FOOD pays for hiring",
    "HIRE": "put the top card of a mercenary pile into your deck, paying its FOOD cost from your FOOD and its "
            "MEDICINE cost with medicine cards from your hand",
    "TRASH": "put cards from your hand into the junkyard for good; the junkyard is then shuffled",
    "STOP": "stop gathering: the cards left in your hand go to the skirmish",
}
PHASE_NAMES = ("deal", "gathering", "response", "drawing", "digging", "keeping", "skirmish", "award", "end")
TIE_RULES = ("second_seat_wins", "split")

PLAYTHROUGH_OVERRIDES = {None: {"contested_resources": 2}}

cdef int TRIBE[NUM_TYPES]
cdef int HAS[NUM_SYMBOLS][NUM_TYPES]       # 0 no such action, 1 standard, 2 modifier
cdef int VALUE[NUM_SYMBOLS][NUM_TYPES]
cdef int FOOD_COST[NUM_TYPES]
cdef int MED_COST[NUM_TYPES]
cdef int PILE_CARD[NUM_PILES]
cdef int PILE_SIZE[NUM_PILES]
cdef int START_DECK[NUM_TYPES]
cdef int JUNK_START[NUM_TYPES]
cdef int CONTESTED_START[NUM_TYPES]
cdef int GATHER_BASE[6]
cdef int GATHER_SYMBOL[6]
cdef int GATHER_USED[6]


def _fill_tables():
    cdef int t, s
    for t, (tribe, actions, cost) in enumerate(CARDS):
        TRIBE[t] = tribe
        for s, symbol in enumerate(SYMBOL_NAMES):
            value, modifier = actions.get(symbol, (0, None))
            HAS[s][t] = 0 if modifier is None else (2 if modifier else 1)
            VALUE[s][t] = value
        FOOD_COST[t], MED_COST[t] = cost if cost else (0, 0)
        START_DECK[t] = STARTING_DECK.get(CARD_NAMES[t], 0)
        JUNK_START[t] = JUNKYARD.get(CARD_NAMES[t], 0)
        CONTESTED_START[t] = 1 if CARD_NAMES[t] in CONTESTED_RESOURCES else 0
    for t, (name, size) in enumerate(MERCENARY_PILES):
        PILE_CARD[t] = CARD_NAMES.index(name)
        PILE_SIZE[t] = size
    for t, (base, symbol, used) in enumerate(((STOP_ID, -1, 0), (DIG_BASE, SYM_DIG, USED_DIG),
                                              (DRAW_BASE, SYM_DRAW, USED_DRAW), (HUNT_BASE, SYM_HUNT, USED_HUNT),
                                              (HIRE_BASE, -1, USED_HIRE), (TRASH_BASE, -1, USED_TRASH))):
        GATHER_BASE[t], GATHER_SYMBOL[t], GATHER_USED[t] = base, symbol, used


_fill_tables()


def card_info(name: str) -> dict:
    """A card's data: tribe members, actions {symbol: {"value", "modifier"}}, hire cost or None."""
    tribe, actions, cost = CARDS[CARD_NAMES.index(name)]
    return {"name": name, "tribe_members": tribe,
            "actions": {s: {"value": v, "modifier": m} for s, (v, m) in actions.items()},
            "cost": {"FOOD": cost[0], "MEDICINE": cost[1]} if cost else None}


def _card_text(int t) -> str:
    tribe, actions, cost = CARDS[t]
    parts = [f"{tribe} tribe member{'s' if tribe != 1 else ''}" if tribe else "tool"]
    if actions:
        parts.append(", ".join(f"{s} {'+' if m else ''}{v}" + (" (modifier)" if m else "")
                               for s, (v, m) in actions.items()))
    if CARD_NAMES[t] in SPECIAL:
        parts.append(SPECIAL[CARD_NAMES[t]])
    if cost:
        parts.append(f"hire cost {cost[0]} FOOD, {cost[1]} MEDICINE")
    return f"{CARD_NAMES[t]}: " + "; ".join(parts)


CARD_REFERENCE = "\n".join("  " + _card_text(t) for t in range(NUM_TYPES))
RULES = (
    "Arctic Scavengers for two. You lead a tribe of survivors: a deck of cards of which you hold 5 each round. "
    "There is one round per contested resource. At the start of a round each player shuffles all its cards and "
    "draws 5. Then comes resource gathering, the round's first player first: you may take each of the actions "
    "DIG, DRAW, HUNT, HIRE and TRASH once, playing cards from your hand, and then STOP. Cards played go to the "
    "bottom of your deck, out of your hand for the round. A card set for DIG, DRAW or HUNT must hold at least "
    "one card with that action as a standard action; modifiers (+) only add to it. Before an action happens "
    "the opponent may interrupt it: SNIPER (with a Sniper Team in hand) on a tribe member the action uses, or "
    "SABOTEUR (with a Saboteur) on a tool it uses; both cards go to the bottoms of their owners' decks and the "
    "action does not happen. Then the skirmish: both hands are shown and each player, the first player first, "
    "may SNIPER a tribe member or SABOTEUR a tool of the opponent's hand (the card used stays in hand). SNIPER "
    "and SABOTEUR can each be used once per round. The hand with more FIGHT (every FIGHT value counts) wins "
    "the skirmish, or on equal FIGHT the one with more tribe members, and puts the top contested resource at "
    "the bottom of its deck; if both are equal the resource is shuffled into the junkyard. When the contested "
    "resources are gone, the player whose hand holds more tribe members wins."
)


cdef inline int _total(int* counts) noexcept:
    cdef int t, n = 0
    for t in range(NUM_TYPES):
        n += counts[t]
    return n


@cython.auto_pickle(False)
cdef class ArcticState(State):
    cdef int n_contested
    cdef bint split_ties
    cdef int round, awards, initiator, phase
    cdef int active             # the gathering seat (also the drawer, digger and keeper)
    cdef int gather_step, skirmish_step, skirmish_seat
    cdef int deal_seat, draws_left
    cdef int pend_kind, pend_pile
    cdef int pend_cards[NUM_TYPES]
    cdef int food[2]
    cdef int used[2]
    # Each seat's cards: the hand (counts, and how many of each the opponent has seen), the shuffled
    # part of the deck (counts) and its bottom (in order, each card seen by the opponent or not).
    cdef int hcnt[2][NUM_TYPES]
    cdef int hseen[2][NUM_TYPES]
    cdef int pool[2][NUM_TYPES]
    cdef int tail[2][MAX_TAIL]
    cdef int tail_seen[2][MAX_TAIL]
    cdef int tail_len[2]
    # The junkyard: shuffled part and bottom (with a bit per seat that knows the card).
    cdef int jpool[NUM_TYPES]
    cdef int jtail[ALL_CARDS]
    cdef int jtail_seen[ALL_CARDS]
    cdef int jtail_len
    cdef int dig[MAX_DIG]       # cards turned over by the current DIG
    cdef int dig_len
    cdef int cpool[NUM_TYPES]   # contested resources left
    cdef int merc[NUM_PILES]
    # What seat s knows: the opponent's cards it can account for (kcoll) and how many of the
    # opponent's cards came from the junkyard unseen (kunknown); cards it knows to be in the shuffled
    # junkyard (kjunk); the cards whose place it does not know (unloc). Invariant, as multisets:
    # unloc[s] = (opponent's cards - kcoll[s]) + opponent's dig + junkyard bottom unseen by s
    #            + (shuffled junkyard - kjunk[s]), and kunknown[s] = |opponent's cards - kcoll[s]|.
    cdef int kcoll[2][NUM_TYPES]
    cdef int kunknown[2]
    cdef int kjunk[2][NUM_TYPES]
    cdef int unloc[2][NUM_TYPES]
    cdef Record log[MAX_LOG]
    cdef int log_len

    def __init__(self, game):
        super().__init__(game, 2)
        cdef int s, t
        self.n_contested = game.parameters["contested_resources"]
        self.split_ties = game.parameters["tie_rule"] == "split"
        for t in range(NUM_TYPES):
            self.jpool[t] = JUNK_START[t]
            self.cpool[t] = CONTESTED_START[t]
            for s in range(2):
                self.pool[s][t] = START_DECK[t]
                self.kcoll[s][t] = START_DECK[t]
                self.kjunk[s][t] = JUNK_START[t]
        for t in range(NUM_PILES):
            self.merc[t] = PILE_SIZE[t]
        self._start_round()
        self._advance()

    # ---- flow ----------------------------------------------------------------------------------
    cdef void _start_round(self) noexcept:
        cdef int s, t, i
        self.initiator = self.round % 2
        for s in range(2):
            for t in range(NUM_TYPES):
                self.pool[s][t] += self.hcnt[s][t]
                self.hcnt[s][t] = 0
                self.hseen[s][t] = 0
            for i in range(self.tail_len[s]):
                self.pool[s][self.tail[s][i]] += 1
            self.tail_len[s] = 0
            self.food[s] = 0
            self.used[s] = 0
        self.phase = PH_DEAL
        self.deal_seat = 0
        self.draws_left = min(HAND_DEAL, _total(self.pool[0]))

    cdef void _advance(self) noexcept:
        """Moves on through everything that needs no decision and no chance outcome."""
        cdef int p
        while True:
            if self.phase == PH_DEAL:
                if self.draws_left > 0 and _total(self.pool[self.deal_seat]) > 0:
                    return
                if self.deal_seat == 0:
                    self.deal_seat = 1
                    self.draws_left = min(HAND_DEAL, _total(self.pool[1]))
                else:
                    self.phase = PH_GATHER
                    self.gather_step = 0
                    self.active = self.initiator
            elif self.phase == PH_GATHER:
                p = self.active
                if _total(self.hcnt[p]) > 0 and (self.used[p] & USED_ALL_GATHERING) != USED_ALL_GATHERING:
                    return
                self._end_gathering()
            elif self.phase == PH_DRAWCARDS:
                p = self.active
                if self.draws_left > 0 and _total(self.pool[p]) > 0:
                    return
                if self.draws_left > 0 and self.tail_len[p] > 0:
                    self._draw_from_tail(p)
                else:
                    self.draws_left = 0
                    self.phase = PH_GATHER
            elif self.phase == PH_DIGCARDS:
                if self.draws_left > 0 and _total(self.jpool) > 0:
                    return
                if self.draws_left > 0 and self.jtail_len > 0:
                    self._dig_from_tail()
                else:
                    self.draws_left = 0
                    if self.dig_len > 0:
                        self.phase = PH_KEEP
                        return
                    self.phase = PH_GATHER
            elif self.phase == PH_SKIRMISH:
                if self._interrupts(self.skirmish_seat, self.hcnt[1 - self.skirmish_seat], SKIRMISH_BASE, NULL) > 1:
                    return
                self._next_skirmish_seat()
            else:
                return

    cdef void _end_gathering(self) noexcept:
        cdef int s, t
        if self.gather_step == 0:
            self.gather_step = 1
            self.active = 1 - self.initiator
            return
        # The skirmish: both hands are shown.
        for s in range(2):
            for t in range(NUM_TYPES):
                if self.hseen[s][t] < self.hcnt[s][t]:
                    self.hseen[s][t] = self.hcnt[s][t]
                    self._resolve(1 - s, t)
        self.phase = PH_SKIRMISH
        self.skirmish_step = 0
        self.skirmish_seat = self.initiator

    cdef void _next_skirmish_seat(self) noexcept:
        if self.skirmish_step == 0:
            self.skirmish_step = 1
            self.skirmish_seat = 1 - self.initiator
        else:
            self.phase = PH_AWARD

    # ---- C-level interface ---------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == PH_END:
            return TERMINAL_PLAYER
        if self.phase == PH_GATHER or self.phase == PH_KEEP:
            return self.active
        if self.phase == PH_RESPOND:
            return 1 - self.active
        if self.phase == PH_SKIRMISH:
            return self.skirmish_seat
        return CHANCE_PLAYER

    cdef int* _chance_counts(self) noexcept:
        if self.phase == PH_DEAL:
            return self.pool[self.deal_seat]
        if self.phase == PH_DRAWCARDS:
            return self.pool[self.active]
        if self.phase == PH_DIGCARDS:
            return self.jpool
        return self.cpool

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int t, n = 0
        cdef int* counts
        cdef double total
        if self.c_current_player() != CHANCE_PLAYER:
            return 0
        counts = self._chance_counts()
        total = _total(counts)
        for t in range(NUM_TYPES):
            if counts[t] > 0:
                actions[n] = t
                probs[n] = counts[t] / total
                n += 1
        return n

    cdef int _weight(self, int p, int t) noexcept:
        """The place value of card type t in p's selection numbers."""
        cdef int u, w = 1
        for u in range(t):
            w *= self.hcnt[p][u] + 1
        return w

    cdef bint _decode(self, int p, int selection, int* k) noexcept:
        """The cards (copies per type) that `selection` takes from p's hand; False if out of range."""
        cdef int t, radix
        for t in range(NUM_TYPES):
            radix = self.hcnt[p][t] + 1
            k[t] = selection % radix
            selection //= radix
        return selection == 0

    cdef int _gather_legal(self, int p, int* out) noexcept:
        cdef int n = 1, g, selection, t, symbol, fits, standard, size, pile, card, kp, km, limit, room, taken
        cdef int total = self._weight(p, NUM_TYPES)
        cdef int k[NUM_TYPES]
        cdef int by_size[MAX_HAND + 1]
        out[0] = STOP_ID
        for g in range(G_DIG, G_HUNT + 1):
            if self.used[p] & GATHER_USED[g]:
                continue
            symbol = GATHER_SYMBOL[g]
            for selection in range(1, total):
                self._decode(p, selection, k)
                fits = 1
                standard = 0
                for t in range(NUM_TYPES):
                    if k[t]:
                        if HAS[symbol][t] == 0:
                            fits = 0
                            break
                        if HAS[symbol][t] == 1:
                            standard = 1
                if fits and standard:
                    out[n] = GATHER_BASE[g] + selection
                    n += 1
        if not self.used[p] & USED_HIRE:
            for pile in range(NUM_PILES):
                card = PILE_CARD[pile]
                if self.merc[pile] == 0 or self.food[p] < FOOD_COST[card]:
                    continue
                for kp in range(self.hcnt[p][PILLS] + 1):
                    for km in range(self.hcnt[p][MEDKIT] + 1):
                        if VALUE[SYM_MEDICINE][MEDKIT] * km + VALUE[SYM_MEDICINE][PILLS] * kp >= MED_COST[card]:
                            out[n] = HIRE_BASE + SELECTIONS * pile + kp * self._weight(p, PILLS) \
                                + km * self._weight(p, MEDKIT)
                            n += 1
        if not self.used[p] & USED_TRASH:
            # Every non-empty card set, smallest sets first when they would not all fit.
            for size in range(MAX_HAND + 1):
                by_size[size] = 0
            for selection in range(1, total):
                self._decode(p, selection, k)
                by_size[_total(k)] += 1
            room = MAX_ACTIONS - n
            limit = 0
            taken = 0
            for size in range(1, MAX_HAND + 1):
                if taken + by_size[size] > room:
                    break
                taken += by_size[size]
                limit = size
            for selection in range(1, total):
                self._decode(p, selection, k)
                if _total(k) <= limit:
                    out[n] = TRASH_BASE + selection
                    n += 1
        return n

    cdef int _interrupts(self, int p, int* targets, int base, int* out) noexcept:
        """Stop plus p's SNIPER and SABOTEUR options against `targets` (copies per type); writes
        them to `out` unless it is NULL. Returns their count."""
        cdef int t, n = 1
        if out != NULL:
            out[0] = base
        if self.hcnt[p][SNIPER_TEAM] > 0 and not self.used[p] & USED_SNIPER:
            for t in range(NUM_TYPES):
                if targets[t] > 0 and TRIBE[t] > 0:
                    if out != NULL:
                        out[n] = base + SNIPE_OFFSET + t
                    n += 1
        if self.hcnt[p][SABOTEUR_CARD] > 0 and not self.used[p] & USED_SABOTEUR:
            for t in range(NUM_TYPES):
                if targets[t] > 0 and TRIBE[t] == 0:
                    if out != NULL:
                        out[n] = base + SABOTAGE_OFFSET + t
                    n += 1
        return n

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int t, n = 0
        cdef int kept[NUM_TYPES]
        if self.c_current_player() != player:
            return 0
        if self.phase == PH_GATHER:
            return self._gather_legal(player, out)
        if self.phase == PH_RESPOND:
            return self._interrupts(player, self.pend_cards, RESPONSE_BASE, out)
        if self.phase == PH_SKIRMISH:
            return self._interrupts(player, self.hcnt[1 - player], SKIRMISH_BASE, out)
        if self.phase == PH_KEEP:
            for t in range(NUM_TYPES):
                kept[t] = 0
            for t in range(self.dig_len):
                kept[self.dig[t]] = 1
            for t in range(NUM_TYPES):
                if kept[t]:
                    out[n] = KEEP_BASE + t
                    n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int phase = self.phase
        if phase == PH_DEAL or phase == PH_DRAWCARDS:
            self._draw_to_hand(action)
        elif phase == PH_DIGCARDS:
            self._dig_from_pool(action)
        elif phase == PH_AWARD:
            self._award(action)
        elif phase == PH_GATHER:
            self._gather(action)
        elif phase == PH_RESPOND:
            self._respond(action)
        elif phase == PH_KEEP:
            self._keep(action)
        elif phase == PH_SKIRMISH:
            self._skirmish(action)
        self._advance()

    cdef Record* _record(self, int kind, int seat, int action, int card) noexcept:
        cdef Record* r = &self.log[self.log_len]
        cdef int i
        self.log_len += 1
        r.round = self.round
        r.kind = kind
        r.seat = seat
        r.action = action
        r.card = card
        for i in range(6):
            r.v[i] = 0
        r.ncards = 0
        return r

    # ---- moving cards and what each seat knows ----------------------------------------------------
    cdef void _resolve(self, int s, int t) noexcept:
        """Seat s has just seen a card t of the opponent: if it sees more t's there than it can account
        for, one of the opponent's unseen junkyard cards was a t."""
        cdef int o = 1 - s, i
        cdef int located = self.hseen[o][t]
        for i in range(self.tail_len[o]):
            if self.tail[o][i] == t and self.tail_seen[o][i]:
                located += 1
        while located > self.kcoll[s][t] and self.kunknown[s] > 0:
            self.kcoll[s][t] += 1
            self.kunknown[s] -= 1
            self.unloc[s][t] -= 1

    cdef void _reveal(self, int p, int t, int count) noexcept:
        """p's hand is shown to hold at least `count` cards t."""
        if self.hseen[p][t] < count:
            self.hseen[p][t] = count
            self._resolve(1 - p, t)

    cdef void _to_tail(self, int p, int t, int seen) noexcept:
        self.tail[p][self.tail_len[p]] = t
        self.tail_seen[p][self.tail_len[p]] = seen
        self.tail_len[p] += 1

    cdef void _hand_to_tail(self, int p, int t, int count) noexcept:
        """Shown cards leave the hand for the bottom of the deck."""
        cdef int i
        for i in range(count):
            self.hcnt[p][t] -= 1
            self.hseen[p][t] -= 1
            self._to_tail(p, t, 1)

    cdef void _draw_to_hand(self, int t) noexcept:
        cdef int p = self.deal_seat if self.phase == PH_DEAL else self.active
        self.pool[p][t] -= 1
        self.hcnt[p][t] += 1
        self.draws_left -= 1
        self._record(REC_DEAL if self.phase == PH_DEAL else REC_DRAW, p, -1, t)

    cdef void _draw_from_tail(self, int p) noexcept:
        cdef int t = self.tail[p][0], seen = self.tail_seen[p][0], i
        for i in range(1, self.tail_len[p]):
            self.tail[p][i - 1] = self.tail[p][i]
            self.tail_seen[p][i - 1] = self.tail_seen[p][i]
        self.tail_len[p] -= 1
        self.hcnt[p][t] += 1
        self.hseen[p][t] += seen
        self.draws_left -= 1

    cdef void _dig_from_pool(self, int t) noexcept:
        cdef int p = self.active, q = 1 - p, u
        self.jpool[t] -= 1
        if self.kjunk[p][t] > 0:
            self.kjunk[p][t] -= 1
        else:
            self.unloc[p][t] -= 1
        # The opponent no longer knows which cards are left in the shuffled junkyard.
        for u in range(NUM_TYPES):
            self.unloc[q][u] += self.kjunk[q][u]
            self.kjunk[q][u] = 0
        self.dig[self.dig_len] = t
        self.dig_len += 1
        self.draws_left -= 1
        self._record(REC_DIG, p, -1, t)

    cdef void _dig_from_tail(self) noexcept:
        cdef int p = self.active, q = 1 - p, i
        cdef int t = self.jtail[0], seen = self.jtail_seen[0]
        for i in range(1, self.jtail_len):
            self.jtail[i - 1] = self.jtail[i]
            self.jtail_seen[i - 1] = self.jtail_seen[i]
        self.jtail_len -= 1
        if not seen & (1 << p):
            self.unloc[p][t] -= 1
        if seen & (1 << q):
            self.unloc[q][t] += 1
        self.dig[self.dig_len] = t
        self.dig_len += 1
        self.draws_left -= 1

    cdef void _into_junkyard(self, int t) noexcept:
        """A card everybody sees goes into the junkyard, which is then shuffled."""
        cdef int s, i
        self.jpool[t] += 1
        for s in range(2):
            self.kjunk[s][t] += 1
        for i in range(self.jtail_len):
            self.jpool[self.jtail[i]] += 1
            for s in range(2):
                if self.jtail_seen[i] & (1 << s):
                    self.kjunk[s][self.jtail[i]] += 1
        self.jtail_len = 0

    # ---- moves -----------------------------------------------------------------------------------
    cdef void _gather(self, int action) noexcept:
        cdef int p = self.active, t, g, selection, i
        cdef Record* r
        if action == STOP_ID:
            r = self._record(REC_GATHER, p, STOP_ID, -1)
            r.v[0] = G_STOP
            r.v[1] = -1
            self._end_gathering()
            return
        self.pend_pile = -1
        if action >= TRASH_BASE:
            g, selection = G_TRASH, action - TRASH_BASE
        elif action >= HIRE_BASE:
            g = G_HIRE
            self.pend_pile = (action - HIRE_BASE) // SELECTIONS
            selection = (action - HIRE_BASE) % SELECTIONS
        else:
            g, selection = action // SELECTIONS, action % SELECTIONS
        self.pend_kind = g
        self._decode(p, selection, self.pend_cards)
        # The hand-relative id says nothing public; the record carries the announced cards.
        r = self._record(REC_GATHER, p, -1, -1)
        r.v[0] = g
        r.v[1] = self.pend_pile
        for t in range(NUM_TYPES):
            if self.pend_cards[t]:
                self._reveal(p, t, self.pend_cards[t])
                for i in range(self.pend_cards[t]):
                    r.cards[r.ncards] = t
                    r.ncards += 1
        self.phase = PH_RESPOND

    cdef void _interrupt(self, int p, int kind, int t, bint discard_own) noexcept:
        """p's SNIPER or SABOTEUR sends the opponent's (shown) card t to the bottom of its deck."""
        cdef int card = SNIPER_TEAM if kind == I_SNIPER else SABOTEUR_CARD
        self._hand_to_tail(1 - p, t, 1)
        self.used[p] |= USED_SNIPER if kind == I_SNIPER else USED_SABOTEUR
        if discard_own:
            self._reveal(p, card, 1)
            self._hand_to_tail(p, card, 1)

    cdef void _respond(self, int action) noexcept:
        cdef int p = self.active, b = 1 - p
        cdef int kind = I_NONE, target = -1
        cdef Record* r
        if action != RESPONSE_BASE:
            kind = I_SNIPER if action < RESPONSE_BASE + SABOTAGE_OFFSET else I_SABOTEUR
            target = action - RESPONSE_BASE - (SNIPE_OFFSET if kind == I_SNIPER else SABOTAGE_OFFSET)
        r = self._record(REC_RESPONSE, b, action, target)
        r.v[0] = kind
        r.v[1] = self.pend_kind
        if kind != I_NONE:
            self._interrupt(b, kind, target, True)
            self.phase = PH_GATHER
            return
        self._execute(p, r)

    cdef void _execute(self, int p, Record* r) noexcept:
        """Carries out p's announced action; the record gets its public outcome."""
        cdef int q = 1 - p, t, i, value = 0, g = self.pend_kind, card
        for t in range(NUM_TYPES):
            if g == G_DIG or g == G_DRAW or g == G_HUNT:
                value += self.pend_cards[t] * VALUE[GATHER_SYMBOL[g]][t]
            if self.pend_cards[t] and g != G_TRASH:
                self._hand_to_tail(p, t, self.pend_cards[t])
        self.used[p] |= GATHER_USED[g]
        self.phase = PH_GATHER
        if g == G_DIG:
            self.dig_len = 0
            self.draws_left = min(value, _total(self.jpool) + self.jtail_len)
            self.phase = PH_DIGCARDS
            r.v[2] = self.draws_left
        elif g == G_DRAW:
            self.draws_left = min(value, _total(self.pool[p]) + self.tail_len[p])
            self.phase = PH_DRAWCARDS
            r.v[2] = self.draws_left
        elif g == G_HUNT:
            self.food[p] += value
            r.v[2] = value
        elif g == G_HIRE:
            card = PILE_CARD[self.pend_pile]
            self.food[p] -= FOOD_COST[card]
            self.merc[self.pend_pile] -= 1
            self._to_tail(p, card, 1)
            self.kcoll[q][card] += 1
            r.v[2] = card
        else:
            for t in range(NUM_TYPES):
                for i in range(self.pend_cards[t]):
                    self.hcnt[p][t] -= 1
                    self.hseen[p][t] -= 1
                    self.kcoll[q][t] -= 1
                    self._into_junkyard(t)
        r.v[3] = self.food[p]

    cdef void _keep(self, int action) noexcept:
        cdef int p = self.active, t = action - KEEP_BASE, i, kept = -1
        cdef Record* r = self._record(REC_KEEP, p, -1, t)
        self._to_tail(p, t, 0)
        self.kunknown[1 - p] += 1
        for i in range(self.dig_len):
            if self.dig[i] == t and kept < 0:
                kept = i
                continue
            self.jtail[self.jtail_len] = self.dig[i]
            self.jtail_seen[self.jtail_len] = 1 << p
            self.jtail_len += 1
        r.v[0] = self.dig_len - 1
        self.dig_len = 0
        self.phase = PH_GATHER

    cdef void _skirmish(self, int action) noexcept:
        cdef int p = self.skirmish_seat, kind = I_NONE, target = -1
        cdef Record* r
        if action != SKIRMISH_BASE:
            kind = I_SNIPER if action < SKIRMISH_BASE + SABOTAGE_OFFSET else I_SABOTEUR
            target = action - SKIRMISH_BASE - (SNIPE_OFFSET if kind == I_SNIPER else SABOTAGE_OFFSET)
        r = self._record(REC_SKIRMISH, p, action, target)
        r.v[0] = kind
        if kind == I_NONE:
            self._next_skirmish_seat()
        else:
            self._interrupt(p, kind, target, False)

    cdef int _sum(self, int p, int symbol) noexcept:
        cdef int t, n = 0
        for t in range(NUM_TYPES):
            n += self.hcnt[p][t] * (VALUE[symbol][t] if symbol >= 0 else TRIBE[t])
        return n

    cdef void _award(self, int t) noexcept:
        cdef int f0 = self._sum(0, SYM_FIGHT), f1 = self._sum(1, SYM_FIGHT)
        cdef int m0 = self._sum(0, -1), m1 = self._sum(1, -1), winner = -1
        cdef Record* r = self._record(REC_AWARD, -1, t, t)
        if f0 != f1:
            winner = 0 if f0 > f1 else 1
        elif m0 != m1:
            winner = 0 if m0 > m1 else 1
        r.v[0] = winner
        r.v[1] = f0
        r.v[2] = f1
        r.v[3] = m0
        r.v[4] = m1
        self.cpool[t] -= 1
        if winner >= 0:
            self._to_tail(winner, t, 1)
            self.kcoll[1 - winner][t] += 1
        else:
            self._into_junkyard(t)
        self.awards += 1
        if self.awards >= self.n_contested:
            self.phase = PH_END
        else:
            self.round += 1
            self._start_round()

    cdef void c_returns(self, double* out) noexcept:
        cdef int m0, m1
        out[0] = 0.0
        out[1] = 0.0
        if self.phase != PH_END:
            return
        m0 = self._sum(0, -1)
        m1 = self._sum(1, -1)
        if m0 == m1 and self.split_ties:
            out[0] = 0.5
            out[1] = 0.5
        elif m0 > m1:
            out[0] = 1.0
        else:
            out[1] = 1.0

    # ---- determinization -------------------------------------------------------------------------
    cdef void _shuffle(self, int* items, int n, Rng* rng) noexcept:
        cdef int i, j, swap
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            swap = items[i]
            items[i] = items[j]
            items[j] = swap

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Everything seat s cannot place is in unloc[s]: shared out at random among the opponent's
        # dig, the junkyard bottom it has not seen, the opponent's cards from the junkyard it has not
        # seen, and the shuffled junkyard. The opponent's cards (those s knows plus those drawn) then
        # fill its unseen hand, its unseen deck-bottom cards (junkyard cards first: they were dug) and
        # the shuffled part of its deck. Only counts s sees are used, so equal views draw alike.
        cdef int s = player, o = 1 - player, t, i, n = 0, at = 0, pick
        cdef int items[ALL_CARDS]
        cdef int dug[NUM_TYPES]
        cdef int owned[NUM_TYPES]
        cdef int hand_unseen = 0, deck_shuffled = _total(self.pool[o]), dug_count = 0
        cdef bint opponent_digging = (self.phase == PH_DIGCARDS or self.phase == PH_KEEP) and self.active == o
        for t in range(NUM_TYPES):
            for i in range(self.unloc[s][t]):
                items[n] = t
                n += 1
        self._shuffle(items, n, rng)
        if opponent_digging:
            for i in range(self.dig_len):
                self.dig[i] = items[at]
                at += 1
        for i in range(self.jtail_len):
            if not self.jtail_seen[i] & (1 << s):
                self.jtail[i] = items[at]
                at += 1
        for t in range(NUM_TYPES):
            dug[t] = 0
        for i in range(self.kunknown[s]):
            dug[items[at]] += 1
            at += 1
            dug_count += 1
        for t in range(NUM_TYPES):
            self.jpool[t] = self.kjunk[s][t]
        while at < n:
            self.jpool[items[at]] += 1
            at += 1
        # The opponent's cards that s has not seen where they are.
        for t in range(NUM_TYPES):
            owned[t] = self.kcoll[s][t] + dug[t] - self.hseen[o][t]
            hand_unseen += self.hcnt[o][t] - self.hseen[o][t]
        for i in range(self.tail_len[o]):
            if self.tail_seen[o][i]:
                owned[self.tail[o][i]] -= 1
        for i in range(self.tail_len[o]):
            if not self.tail_seen[o][i]:
                if dug_count > 0:
                    pick = rng_below(rng, dug_count)
                    t = 0
                    while pick >= dug[t]:
                        pick -= dug[t]
                        t += 1
                    dug[t] -= 1
                    dug_count -= 1
                else:
                    pick = rng_below(rng, _total(owned))
                    t = 0
                    while pick >= owned[t]:
                        pick -= owned[t]
                        t += 1
                owned[t] -= 1
                self.tail[o][i] = t
        n = 0
        for t in range(NUM_TYPES):
            for i in range(owned[t]):
                items[n] = t
                n += 1
        self._shuffle(items, n, rng)
        for t in range(NUM_TYPES):
            self.hcnt[o][t] = self.hseen[o][t]
            self.pool[o][t] = 0
        for i in range(n):
            if i < hand_unseen:
                self.hcnt[o][items[i]] += 1
            else:
                self.pool[o][items[i]] += 1
        # The opponent's own knowledge of the junkyard no longer matches it: it is reset to the
        # coarsest knowledge consistent with what the opponent sees (nothing known of the junkyard).
        for t in range(NUM_TYPES):
            owned[t] = self.hcnt[s][t] + self.pool[s][t] - self.kcoll[o][t]
        for i in range(self.tail_len[s]):
            owned[self.tail[s][i]] += 1
        for t in range(NUM_TYPES):
            self.unloc[o][t] = owned[t] + self.jpool[t]
            self.kjunk[o][t] = 0
        if (self.phase == PH_DIGCARDS or self.phase == PH_KEEP) and self.active == s:
            for i in range(self.dig_len):
                self.unloc[o][self.dig[i]] += 1
        for i in range(self.jtail_len):
            self.jtail_seen[i] &= ~(1 << o)
            self.unloc[o][self.jtail[i]] += 1

    cdef State c_clone(self):
        cdef ArcticState s = ArcticState.__new__(ArcticState)
        self._copy_base_into(s)
        s.n_contested = self.n_contested
        s.split_ties = self.split_ties
        s.round = self.round
        s.awards = self.awards
        s.initiator = self.initiator
        s.phase = self.phase
        s.active = self.active
        s.gather_step = self.gather_step
        s.skirmish_step = self.skirmish_step
        s.skirmish_seat = self.skirmish_seat
        s.deal_seat = self.deal_seat
        s.draws_left = self.draws_left
        s.pend_kind = self.pend_kind
        s.pend_pile = self.pend_pile
        s.jtail_len = self.jtail_len
        s.dig_len = self.dig_len
        # memcpy rather than array assignment: Cython mixes up 2-D arrays of different widths.
        memcpy(s.pend_cards, self.pend_cards, sizeof(self.pend_cards))
        memcpy(s.food, self.food, sizeof(self.food))
        memcpy(s.used, self.used, sizeof(self.used))
        memcpy(s.hcnt, self.hcnt, sizeof(self.hcnt))
        memcpy(s.hseen, self.hseen, sizeof(self.hseen))
        memcpy(s.pool, self.pool, sizeof(self.pool))
        memcpy(s.tail, self.tail, sizeof(self.tail))
        memcpy(s.tail_seen, self.tail_seen, sizeof(self.tail_seen))
        memcpy(s.tail_len, self.tail_len, sizeof(self.tail_len))
        memcpy(s.jpool, self.jpool, sizeof(self.jpool))
        memcpy(s.jtail, self.jtail, sizeof(self.jtail))
        memcpy(s.jtail_seen, self.jtail_seen, sizeof(self.jtail_seen))
        memcpy(s.dig, self.dig, sizeof(self.dig))
        memcpy(s.cpool, self.cpool, sizeof(self.cpool))
        memcpy(s.merc, self.merc, sizeof(self.merc))
        memcpy(s.kcoll, self.kcoll, sizeof(self.kcoll))
        memcpy(s.kunknown, self.kunknown, sizeof(self.kunknown))
        memcpy(s.kjunk, self.kjunk, sizeof(self.kjunk))
        memcpy(s.unloc, self.unloc, sizeof(self.unloc))
        memcpy(s.log, self.log, self.log_len * sizeof(Record))
        s.log_len = self.log_len
        return s

    # ---- Python-level helpers --------------------------------------------------------------------
    cdef list _row(self, int* counts):
        return [counts[t] for t in range(NUM_TYPES)]

    cdef list _tail_view(self, int p, int viewer):
        """p's deck bottom as `viewer` sees it: card names, None for a card it has not seen."""
        return [CARD_NAMES[self.tail[p][i]] if viewer == p or self.tail_seen[p][i] else None
                for i in range(self.tail_len[p])]

    def _decision(self, int player):
        """"gather", "respond", "keep" or "skirmish" when `player` must decide now, else None."""
        if self.c_current_player() != player:
            return None
        return {PH_GATHER: "gather", PH_RESPOND: "respond", PH_KEEP: "keep", PH_SKIRMISH: "skirmish"}[self.phase]

    def _digging(self, int seat) -> bool:
        return (self.phase == PH_DIGCARDS or self.phase == PH_KEEP) and self.active == seat

    def _selection_cards(self, int player, int selection) -> list:
        """The card names (in type order) that `selection` takes from `player`'s hand."""
        cdef int k[NUM_TYPES]
        if not 0 <= selection < SELECTIONS or not self._decode(player, selection, k):
            raise ValueError(f"selection {selection} does not fit seat {player}'s hand")
        return [CARD_NAMES[t] for t in range(NUM_TYPES) for _ in range(k[t])]

    def _selection_of(self, int player, list types) -> int:
        """The selection number of the cards `types` (type ids) from `player`'s hand."""
        counts = [0] * NUM_TYPES
        for t in types:
            counts[t] += 1
        selection, weight = 0, 1
        for t in range(NUM_TYPES):
            if counts[t] > self.hcnt[player][t]:
                held = self.hcnt[player][t]
                raise ActionParseError(
                    f"you hold {held} {CARD_NAMES[t]} card{'s' if held != 1 else ''}, not {counts[t]}; your hand: "
                    f"{_count_text(self._row(self.hcnt[player]))}")
            selection += counts[t] * weight
            weight *= self.hcnt[player][t] + 1
        return selection

    cdef dict _entry(self, int i, int viewer):
        """Log record i as `viewer` (a seat, or -1 for the public) sees it."""
        cdef Record* r = &self.log[i]
        private = r.kind in (REC_DEAL, REC_DRAW, REC_DIG, REC_KEEP)
        return {
            "round": r.round + 1,
            "kind": RECORD_KINDS[r.kind],
            "seat": r.seat,
            "action": r.action,
            "card": None if r.card < 0 or (private and viewer != r.seat) else CARD_NAMES[r.card],
            "values": [r.v[j] for j in range(6)],
            "cards": [CARD_NAMES[r.cards[j]] for j in range(r.ncards)],
        }

    # ---- views ---------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if not 0 <= action < NUM_TYPES:
                raise ValueError(f"arctic_scavengers chance outcomes are card types 0-{NUM_TYPES - 1}, not {action}")
            verb = {PH_DEAL: "deal", PH_DRAWCARDS: "draw", PH_DIGCARDS: "turn over"}.get(self.phase, "contested resource")
            return f"{verb} {CARD_NAMES[action]}"
        check_seat("arctic_scavengers", player)
        if action == STOP_ID:
            return _list_text(["STOP", []])
        if DIG_BASE <= action < TRASH_BASE + SELECTIONS:
            kind, pile, selection = _split_gather(action)
            cards = self._selection_cards(player, selection)
            if kind == G_HIRE:
                return _list_text(["HIRE", cards, MERCENARY_PILES[pile][0]])
            return _list_text([GATHER_NAMES[kind], cards])
        if KEEP_BASE <= action < KEEP_BASE + NUM_TYPES:
            return CARD_NAMES[action - KEEP_BASE]
        for base in (RESPONSE_BASE, SKIRMISH_BASE):
            if action == base:
                return _list_text(["STOP", ""])
            if base + SNIPE_OFFSET <= action < base + SNIPE_OFFSET + NUM_TYPES:
                return _list_text(["SNIPER", CARD_NAMES[action - base - SNIPE_OFFSET]])
            if base + SABOTAGE_OFFSET <= action < base + SABOTAGE_OFFSET + NUM_TYPES:
                return _list_text(["SABOTEUR", CARD_NAMES[action - base - SABOTAGE_OFFSET]])
        raise ValueError(f"{action} is not an arctic_scavengers action id")

    def parse_action(self, int player, str text) -> int:
        check_seat("arctic_scavengers", player)
        decision = self._decision(player)
        if decision is None:
            raise ActionParseError("it is not your turn to act")
        problem = None
        for answer in reversed(_answers(text)):
            try:
                return self._interpret(player, decision, answer)
            except ActionParseError as e:
                problem = problem or e
        bare = text.strip().strip("\"'`*.").strip()
        if len(bare) <= 40:
            try:
                return self._interpret(player, decision, ("list", [bare]))
            except ActionParseError as e:
                problem = problem or e
        raise ActionParseError(f"{str(problem) + ' ' if problem else ''}Expected {ANSWER_FORMATS[decision]}.")

    def _interpret(self, int player, str decision, tuple answer) -> int:
        """An action id from one answer: ("list", [...]) or ("object", action, openended_response)."""
        if answer[0] == "object":
            word, response = answer[1], answer[2]
            if isinstance(response, str) and response.strip()[:1] in ("[", "("):
                response = _literal(response.strip())
            if isinstance(response, (list, tuple)) and response and _word(response[0]) in ACTION_WORDS:
                items = list(response)
            elif decision == "gather":
                if isinstance(response, (list, tuple)) and response and isinstance(response[0], (list, tuple)):
                    items = [word] + list(response)        # [cards, mercenary]
                else:
                    items = [word, response if response is not None else []]
            elif decision == "keep":
                items = [word if _card_type(word) is not None else response]
            else:
                items = [word, response]
        else:
            items = answer[1]
        if not items:
            raise ActionParseError("the answer is an empty list.")
        if decision == "keep":
            names = [x for x in items if isinstance(x, str) and _card_type(x) is not None]
            if not names:
                raise ActionParseError("name one of the cards you turned over.")
            return KEEP_BASE + _card_type(names[-1])
        word = _word(items[0])
        if decision == "gather":
            return self._gather_id(player, word, items)
        if word == "STOP":
            return RESPONSE_BASE if decision == "respond" else SKIRMISH_BASE
        if word not in ("SNIPER", "SABOTEUR"):
            raise ActionParseError(f"{items[0]!r} is not SNIPER, SABOTEUR or STOP.")
        target = items[1] if len(items) > 1 else None
        if isinstance(target, (list, tuple)) and len(target) == 1:
            target = target[0]
        t = _card_type(target)
        if t is None:
            raise ActionParseError(f"name the opponent's card to target with {word}, e.g. [\"{word}\", \"Brawler\"].")
        base = RESPONSE_BASE if decision == "respond" else SKIRMISH_BASE
        return base + (SNIPE_OFFSET if word == "SNIPER" else SABOTAGE_OFFSET) + t

    def _gather_id(self, int player, str word, list items) -> int:
        if word == "STOP":
            return STOP_ID
        if word not in GATHER_NAMES:
            raise ActionParseError(f"{items[0]!r} is not DIG, DRAW, HUNT, HIRE, TRASH or STOP.")
        cards = items[1] if len(items) > 1 else []
        if isinstance(cards, str):
            cards = [cards] if cards.strip() else []
        if not isinstance(cards, (list, tuple)):
            raise ActionParseError("give the cards you play as a list of card titles.")
        if not cards and word != "HIRE":
            raise ActionParseError(f"name the cards you play for {word}, e.g. [\"{word}\", [\"Scavenger\"]].")
        types = [_card_type(c) for c in cards]
        if None in types:
            raise ActionParseError(f"unknown card title {cards[types.index(None)]!r}.")
        selection = self._selection_of(player, types)
        kind = GATHER_NAMES.index(word)
        if kind != G_HIRE:
            return GATHER_BASE[kind] + selection
        mercenary = _card_type(items[2]) if len(items) > 2 else None
        piles = [PILE_CARD[p] for p in range(NUM_PILES)]
        if mercenary not in piles:
            raise ActionParseError("HIRE names the mercenary to hire, e.g. [\"HIRE\", [\"Pills\"], \"Saboteur\"].")
        return HIRE_BASE + SELECTIONS * piles.index(mercenary) + selection

    def text_action_spec(self, int player):
        decision = self._decision(player)
        if decision is None:
            return None
        return {"description": ANSWER_FORMATS[decision], "max_length": 4000, "forbidden_words": []}

    def observation_dict(self, int player) -> dict:
        check_seat("arctic_scavengers", player)
        cdef int s = player, o = 1 - player, cp = self.c_current_player()
        finished = self.phase == PH_END
        shown_hands = self.phase in (PH_SKIRMISH, PH_AWARD, PH_END)
        announced = None
        if self.phase == PH_RESPOND:
            announced = {"seat": self.active, "action": GATHER_NAMES[self.pend_kind],
                         "cards": [CARD_NAMES[t] for t in range(NUM_TYPES) for _ in range(self.pend_cards[t])],
                         "mercenary": MERCENARY_PILES[self.pend_pile][0] if self.pend_kind == G_HIRE else None}
        return {
            "seat": s,
            "round": self.round + 1,
            "rounds": self.n_contested,
            "first_player": self.initiator,
            "phase": PHASE_NAMES[self.phase],
            "to_play": cp if cp >= 0 else None,
            "decision": self._decision(s),
            "hand": _card_list(self._row(self.hcnt[s])),
            "hand_shown": _named(self._row(self.hseen[s])),
            "food": self.food[s],
            "actions_used": _used_names(self.used[s]),
            "deck_shuffled": _named(self._row(self.pool[s])),
            "deck_bottom": [{"card": CARD_NAMES[self.tail[s][i]], "shown": bool(self.tail_seen[s][i])}
                            for i in range(self.tail_len[s])],
            "digging": [CARD_NAMES[self.dig[i]] for i in range(self.dig_len)] if self._digging(s) else [],
            "opponent": {
                "hand_size": _total(self.hcnt[o]),
                "hand_seen": _named(self._row(self.hseen[o])),
                "food": self.food[o],
                "actions_used": _used_names(self.used[o]),
                "deck_shuffled_size": _total(self.pool[o]),
                "deck_bottom": self._tail_view(o, s),
                "digging": self.dig_len if self._digging(o) else 0,
                "cards_known": _named(self._row(self.kcoll[s])),
                "cards_unseen": self.kunknown[s],
            },
            "opponent_knows": {"cards_known": _named(self._row(self.kcoll[o])), "cards_unseen": self.kunknown[o]},
            "junkyard": {
                "shuffled_size": _total(self.jpool),
                "shuffled_known": _named(self._row(self.kjunk[s])),
                "bottom": [CARD_NAMES[self.jtail[i]] if self.jtail_seen[i] & (1 << s) else None
                           for i in range(self.jtail_len)],
            },
            "unlocated": _named(self._row(self.unloc[s])),
            "contested": {"left": self.n_contested - self.awards, "pile": _named(self._row(self.cpool))},
            "mercenaries": [{"card": name, "left": self.merc[p], "food": FOOD_COST[PILE_CARD[p]],
                             "medicine": MED_COST[PILE_CARD[p]]} for p, (name, _) in enumerate(MERCENARY_PILES)],
            "announced": announced,
            "skirmish": {"fight": [self._sum(0, SYM_FIGHT), self._sum(1, SYM_FIGHT)],
                         "tribe": [self._sum(0, -1), self._sum(1, -1)]} if shown_hands else None,
            "turn": {"active": self.active, "gather_step": self.gather_step, "skirmish_step": self.skirmish_step,
                     "skirmish_seat": self.skirmish_seat, "deal_seat": self.deal_seat,
                     "draws_left": self.draws_left, "awards": self.awards},
            "log": [self._entry(i, s) for i in range(self.log_len)],
            "result": {"returns": self.returns(), "tribe": [self._sum(0, -1), self._sum(1, -1)]} if finished else None,
        }

    def observation_string(self, int player) -> str:
        return _render(self.observation_dict(player))

    def public_history(self) -> list:
        """One entry per move: decisions with their public text (gathering announcements with action
        -1, their ids being relative to the hand), chance draws as summaries, skirmish results in full."""
        out = []
        for i in range(self.log_len):
            entry = self._entry(i, -1)
            decision = entry["kind"] not in ("deal", "draw", "dig", "award")
            out.append((entry["seat"] if decision else -1, entry["action"], _entry_text(entry)))
        return out

    def hidden_state(self) -> dict:
        """Everything, hidden parts included (for the end of the match and for tests)."""
        return {
            "hands": [_card_list(self._row(self.hcnt[p])) for p in range(2)],
            "decks": [{"shuffled": _named(self._row(self.pool[p])), "bottom": self._tail_view(p, p)}
                      for p in range(2)],
            "junkyard": {"shuffled": _named(self._row(self.jpool)),
                         "bottom": [CARD_NAMES[self.jtail[i]] for i in range(self.jtail_len)]},
            "digging": [CARD_NAMES[self.dig[i]] for i in range(self.dig_len)],
            "contested": _named(self._row(self.cpool)),
            "mercenaries": {name: self.merc[p] for p, (name, _) in enumerate(MERCENARY_PILES)},
            "food": [self.food[0], self.food[1]],
            "actions_used": [_used_names(self.used[0]), _used_names(self.used[1])],
        }

    def knowledge(self, int seat) -> dict:
        """What `seat` can account for (the summaries its view shows), as type-indexed lists."""
        check_seat("arctic_scavengers", seat)
        return {"opponent_known": self._row(self.kcoll[seat]), "opponent_unseen": self.kunknown[seat],
                "junkyard_known": self._row(self.kjunk[seat]), "unlocated": self._row(self.unloc[seat])}

    def result_summary(self) -> str:
        if self.phase != PH_END:
            return "game in progress"
        tribes = [self._sum(0, -1), self._sum(1, -1)]
        returns = self.returns()
        if returns[0] == returns[1]:
            return f"a tie at {tribes[0]} tribe members each: 0.5 each"
        winner = 0 if returns[0] > returns[1] else 1
        tie = " (a tie goes to seat 1)" if tribes[0] == tribes[1] else ""
        return f"seat {winner} wins with {tribes[winner]} tribe members in hand against {tribes[1 - winner]}{tie}"

    def result_details(self) -> dict:
        finished = self.phase == PH_END
        returns = self.returns()
        awards = [self._entry(i, -1) for i in range(self.log_len) if self.log[i].kind == REC_AWARD]
        return {
            "winner": returns.index(1.0) if finished and 1.0 in returns else None,
            "tribe_members": [self._sum(0, -1), self._sum(1, -1)],
            "skirmishes": [{"round": a["round"], "fight": a["values"][1:3], "tribe_members": a["values"][3:5],
                            "winner": a["values"][0] if a["values"][0] >= 0 else None, "contested_resource": a["card"]}
                           for a in awards],
            # Once the game is over: every card's place and every move with its private card.
            "final": self.hidden_state() if finished else None,
            "moves": [_entry_text(self._entry(i, self.log[i].seat)) for i in range(self.log_len)] if finished else None,
        }


# ---- module helpers ------------------------------------------------------------------------------
RECORD_KINDS = ("deal", "draw", "announce", "response", "dig", "keep", "skirmish", "award")
ACTION_WORDS = {"STOP", "DIG", "DRAW", "HUNT", "HIRE", "TRASH", "SNIPER", "SABOTEUR"}
_WORD_SYNONYMS = {"SNIPE": "SNIPER", "SABOTAGE": "SABOTEUR", "PASS": "STOP"}
_CARD_KEYS = {re.sub(r"[^a-z]", "", name.lower()): t for t, name in enumerate(CARD_NAMES)}
_CARD_KEYS.update({"sniper": SNIPER_TEAM, "groupleader": GROUP_LEADERS, "sniperteams": SNIPER_TEAM})
ANSWER_FORMATS = {
    "gather": 'one action as a list: ["DIG", ["Brawler", "Shovel"]], ["DRAW", ["Scout"]], ["HUNT", ["Hunter", '
              '"Net"]], ["HIRE", ["Pills"], "Saboteur"], ["TRASH", ["Junk"]] or ["STOP", []] (GameBench\'s reply '
              '{"action": "DIG", "openended_response": "[\\"DIG\\", [\\"Brawler\\"]]"} is also read)',
    "respond": '["SNIPER", "<card of the announced action>"], ["SABOTEUR", "<card of the announced action>"] or '
               '["STOP", ""]',
    "keep": 'the title of the card to keep, e.g. Shovel',
    "skirmish": '["SNIPER", "<card in the opponent\'s hand>"], ["SABOTEUR", "<card in the opponent\'s hand>"] or '
                '["STOP", ""]',
}
# Where GameBench's answers are found: balanced {...} and [...] segments of at most this length.
MAX_SEGMENT = 2000


def _split_gather(int action) -> tuple:
    """(gathering action, mercenary pile or -1, selection) of a gathering action id."""
    if action >= TRASH_BASE:
        return G_TRASH, -1, action - TRASH_BASE
    if action >= HIRE_BASE:
        return G_HIRE, (action - HIRE_BASE) // SELECTIONS, (action - HIRE_BASE) % SELECTIONS
    return action // SELECTIONS, -1, action % SELECTIONS


def _list_text(items: list) -> str:
    return json.dumps(items)


def _word(value) -> str | None:
    if not isinstance(value, str):
        return None
    word = value.strip().upper()
    return _WORD_SYNONYMS.get(word, word)


def _card_type(value):
    if not isinstance(value, str):
        return None
    return _CARD_KEYS.get(re.sub(r"[^a-z]", "", value.lower()))


def _literal(text: str):
    """The Python or JSON value written in `text`, or None."""
    if len(text) > MAX_SEGMENT:
        return None
    for load in (json.loads, ast.literal_eval):
        try:
            return load(text)
        except Exception:       # any malformed answer (syntax, nesting depth, type) is just not an answer
            continue
    return None


def _segments(str text, str opening, str closing) -> list:
    """(start, end) of each outermost balanced opening...closing segment of `text`."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == opening:
            if depth == 0:
                start = i
            depth += 1
        elif char == closing and depth > 0:
            depth -= 1
            if depth == 0:
                found.append((start, i + 1))
    return found


def _answers(str text) -> list:
    """Every readable answer in `text`, in order: ("object", action, openended_response) for GameBench's
    JSON reply, ("list", [...]) for a bare list."""
    found = []
    objects = []
    for start, end in _segments(text, "{", "}"):
        value = _literal(text[start:end])
        if isinstance(value, dict) and "action" in value:
            found.append((start, ("object", value["action"], value.get("openended_response"))))
            objects.append((start, end))
    for start, end in _segments(text, "[", "]"):
        if any(a <= start < b for a, b in objects):
            continue
        value = _literal(text[start:end])
        if isinstance(value, (list, tuple)):
            found.append((start, ("list", list(value))))
    return [answer for _, answer in sorted(found, key=lambda item: item[0])]


def _named(counts: list) -> dict:
    return {CARD_NAMES[t]: c for t, c in enumerate(counts) if c}


def _card_list(counts: list) -> list:
    return [CARD_NAMES[t] for t, c in enumerate(counts) for _ in range(c)]


def _used_names(int used) -> list:
    names = [(USED_DIG, "DIG"), (USED_DRAW, "DRAW"), (USED_HUNT, "HUNT"), (USED_HIRE, "HIRE"),
             (USED_TRASH, "TRASH"), (USED_SNIPER, "SNIPER"), (USED_SABOTEUR, "SABOTEUR")]
    return [name for bit, name in names if used & bit]


def _count_text(counts) -> str:
    """"Refugee x4, Brawler" from a type-indexed list or a {name: count} dict."""
    items = counts.items() if isinstance(counts, dict) else ((CARD_NAMES[t], c) for t, c in enumerate(counts))
    parts = [name if c == 1 else f"{name} x{c}" for name, c in items if c]
    return ", ".join(parts) if parts else "none"


def _names_text(names: list) -> str:
    return ", ".join(name if name is not None else "(a card you have not seen)" for name in names) or "nothing"


def _plural(int n, str word) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _entry_text(dict entry) -> str:
    """A log entry as text: a sentence for chance moves, the action and its effect for decisions."""
    kind, seat, card, v = entry["kind"], entry["seat"], entry["card"], entry["values"]
    seen = f": {card}" if card else ""
    if kind == "deal":
        return f"seat {seat} draws a card{seen}"
    if kind == "draw":
        return f"seat {seat} draws a card from its deck{seen}"
    if kind == "dig":
        return f"seat {seat} turns over a card of the junkyard{seen}"
    if kind == "award":
        head = f"skirmish of round {entry['round']}: FIGHT {v[1]} to {v[2]}, tribe members {v[3]} to {v[4]}"
        if v[0] < 0:
            return f"{head}: a tie, the contested resource {card} is shuffled into the junkyard"
        return f"{head}: seat {v[0]} wins and takes the contested resource {card}"
    if kind == "announce":
        if v[0] == G_STOP:
            return _list_text(["STOP", []]) + " (stops gathering)"
        items = [GATHER_NAMES[v[0]], entry["cards"]] + ([MERCENARY_PILES[v[1]][0]] if v[0] == G_HIRE else [])
        return _list_text(items) + " (announced)"
    if kind == "keep":
        return f"{card or 'one card'} kept from the dig, {_plural(v[0], 'card')} put back at the bottom of the junkyard"
    other = 1 - seat
    if kind == "response":
        action = GATHER_NAMES[v[1]]
        if v[0] == I_NONE:
            if v[1] == G_DIG:
                effect = f"seat {other} turns over {_plural(v[2], 'card')} of the junkyard"
            elif v[1] == G_DRAW:
                effect = f"seat {other} draws {_plural(v[2], 'card')}"
            elif v[1] == G_HUNT:
                effect = f"seat {other} gains {v[2]} FOOD (now {v[3]})"
            elif v[1] == G_HIRE:
                effect = f"seat {other} hires a {CARD_NAMES[v[2]]} (FOOD left {v[3]})"
            else:
                effect = "the cards go into the junkyard, which is shuffled"
            return _list_text(["STOP", ""]) + f" (lets the {action} happen: {effect})"
        word, own = ("SNIPER", "Sniper Team") if v[0] == I_SNIPER else ("SABOTEUR", "Saboteur")
        return (_list_text([word, card]) + f" (interrupts: seat {other}'s {card} and seat {seat}'s {own} go to the "
                f"bottoms of their decks; the {action} does not happen)")
    if v[0] == I_NONE:
        return _list_text(["STOP", ""]) + " (ends its skirmish actions)"
    word = "SNIPER" if v[0] == I_SNIPER else "SABOTEUR"
    return _list_text([word, card]) + f" (seat {other}'s {card} goes to the bottom of its deck)"


def _log_line(dict entry) -> str:
    text = _entry_text(entry)
    return text if entry["kind"] in ("deal", "draw", "dig", "award") else f"seat {entry['seat']}: {text}"


def _render(dict view) -> str:
    """The seat's view as text (everything in it comes from the view data)."""
    s, o = view["seat"], 1 - view["seat"]
    opp, junk = view["opponent"], view["junkyard"]
    lines = [RULES, "Cards (tribe members; actions, + for modifiers; hire cost):", CARD_REFERENCE,
             f"You are seat {s}. Round {view['round']} of {view['rounds']}; seat {view['first_player']} is the first "
             f"player this round. Phase: {view['phase']}."]
    hand = view["hand"]
    lines.append(f"Your hand ({len(hand)}): {_names_text(hand)}. Seen by the opponent: "
                 f"{_count_text(view['hand_shown'])}.")
    lines.append(f"Your FOOD: {view['food']}. Actions you have used this round: "
                 f"{', '.join(view['actions_used']) or 'none'}.")
    bottom = [b["card"] for b in view["deck_bottom"]]
    shuffled = view["deck_shuffled"]
    lines.append(f"Your deck ({sum(shuffled.values()) + len(bottom)} cards): shuffled {_count_text(shuffled)}; "
                 f"at the bottom, in order: {_names_text(bottom)}.")
    if view["digging"]:
        lines.append(f"You turned over from the junkyard: {_names_text(view['digging'])}.")
    lines.append(f"Opponent's hand: {_plural(opp['hand_size'], 'card')}; seen: {_count_text(opp['hand_seen'])}.")
    lines.append(f"Opponent's FOOD: {opp['food']}. Actions the opponent has used this round: "
                 f"{', '.join(opp['actions_used']) or 'none'}.")
    lines.append(f"Opponent's deck ({opp['deck_shuffled_size'] + len(opp['deck_bottom'])} cards): "
                 f"{opp['deck_shuffled_size']} shuffled; at the bottom, in order: {_names_text(opp['deck_bottom'])}.")
    if opp["digging"]:
        lines.append(f"The opponent turned over {_plural(opp['digging'], 'card')} from the junkyard.")
    lines.append(f"The opponent's cards you can account for: {_count_text(opp['cards_known'])}; plus "
                 f"{_plural(opp['cards_unseen'], 'card')} it took from the junkyard that you have not seen.")
    knows = view["opponent_knows"]
    lines.append(f"Your cards the opponent can account for: {_count_text(knows['cards_known'])}; plus "
                 f"{_plural(knows['cards_unseen'], 'card')} you took from the junkyard that it has not seen.")
    lines.append(f"Junkyard ({junk['shuffled_size'] + len(junk['bottom'])} cards): {junk['shuffled_size']} "
                 f"shuffled, among them for sure: {_count_text(junk['shuffled_known'])}; at the bottom, in order: "
                 f"{_names_text(junk['bottom'])}.")
    lines.append("Cards whose place you do not know (in the junkyard or among the opponent's unseen cards): "
                 f"{_count_text(view['unlocated'])}.")
    contested = view["contested"]
    lines.append(f"Contested resources left: {contested['left']} (drawn at random from "
                 f"{_count_text(contested['pile'])}).")
    lines.append("Mercenary piles: " + ", ".join(
        f"{m['card']} {m['left']} left ({m['food']} FOOD, {m['medicine']} MEDICINE)" for m in view["mercenaries"]) + ".")
    if view["skirmish"]:
        sk = view["skirmish"]
        lines.append(f"Skirmish hands: yours FIGHT {sk['fight'][s]}, tribe members {sk['tribe'][s]}; the opponent's "
                     f"FIGHT {sk['fight'][o]}, tribe members {sk['tribe'][o]}.")
    log = view["log"]
    earlier = [_entry_text(e) for e in log if e["kind"] == "award" and e["round"] < view["round"]]
    if earlier:
        lines.append("Earlier skirmishes:")
        lines += [f"  - {line}" for line in earlier]
    lines.append("This round so far:")
    lines += [f"  - {_log_line(e)}" for e in log if e["round"] == view["round"]] or ["  - nothing yet"]
    lines.append(_instructions(view))
    return "\n".join(lines)


def _instructions(dict view) -> str:
    s, decision = view["seat"], view["decision"]
    if view["result"]:
        result = view["result"]
        return (f"The game is over. Tribe members in the final hands: seat 0 {result['tribe'][0]}, seat 1 "
                f"{result['tribe'][1]}. You score {result['returns'][s]:g}.")
    if decision == "gather":
        unused = [a for a in ("DIG", "DRAW", "HUNT", "HIRE", "TRASH") if a not in view["actions_used"]]
        return ("It is your turn to gather. Announce one of the actions you have not used ("
                + ", ".join(unused) + ") with the cards of your hand it uses, or stop. "
                + " ".join(f"{a}: {GATHER_DESCRIPTIONS[a]}." for a in unused + ["STOP"])
                + f" Answer with {ANSWER_FORMATS['gather']}.")
    if decision == "respond":
        a = view["announced"]
        items = [a["action"], a["cards"]] + ([a["mercenary"]] if a["mercenary"] else [])
        return (f"Seat {a['seat']} announces {_list_text(items)}. You may interrupt it before it happens: SNIPER "
                "(with a Sniper Team in your hand) on a tribe member it uses, or SABOTEUR (with a Saboteur) on a tool "
                "it uses; the target and your card go to the bottoms of their decks and the action does not happen. "
                f"Answer with {ANSWER_FORMATS['respond']}.")
    if decision == "keep":
        return (f"Choose the card to keep in your deck from those you turned over ({_names_text(view['digging'])}); "
                f"the others go to the bottom of the junkyard. Answer with {ANSWER_FORMATS['keep']}.")
    if decision == "skirmish":
        return ("Skirmish: both hands are shown. You may use SNIPER (with a Sniper Team) on a tribe member or "
                "SABOTEUR (with a Saboteur) on a tool of the opponent's hand; it goes to the bottom of the "
                "opponent's deck and your card stays in your hand. "
                f"Answer with {ANSWER_FORMATS['skirmish']}.")
    if view["to_play"] is None:
        return "Cards are being drawn."
    return f"Waiting for seat {view['to_play']}."


SPEC = GameSpec(
    game_id="arctic_scavengers",
    display_name="Arctic Scavengers",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=MAX_LOG,
    description="GameBench's Arctic Scavengers: a deck-building duel over five contested resources; each round "
                "players dig, draw, hunt, hire and trash with their hands, interrupt each other with snipers and "
                "saboteurs, and fight a skirmish; the larger tribe in the final hand wins.",
    parameters=(
        Parameter("contested_resources", NUM_CONTESTED, f"contested resources played for, one round each, "
                                                        f"1-{NUM_CONTESTED}"),
        Parameter("tie_rule", "second_seat_wins", "equal final tribe counts: 'second_seat_wins' (GameBench's code, "
                                                  "(0, 1)) or 'split' (0.5 each)"),
    ),
    presets=(
        Preset("gamebench", "GameBench (section 2.2): the code's decks, junkyard and mercenary piles, 5 contested "
               "resources (so 5 rounds), 1 / 0 scoring on the final hand's tribe members, ties to seat 1; answers "
               "as GameBench's open-ended lists, e.g. [\"DIG\", [\"Brawler\", \"Shovel\"]].",
               {"contested_resources": NUM_CONTESTED, "tie_rule": "second_seat_wins"}),
    ),
    accepts_text_actions=True,
)


class Game(GameBase):
    """Two-player Arctic Scavengers with a validated number of contested resources and tie rule."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "contested_resources", 1, NUM_CONTESTED)
        checked_choice(self.parameters, "tie_rule", TIE_RULES)

    def utility_bounds(self) -> tuple:
        return 0.0, 1.0

    def new_initial_state(self) -> ArcticState:
        return ArcticState(self)

    def state_from_view(self, int player, dict view) -> ArcticState:
        """A state consistent with `view` (seat `player`'s observation_dict): everything the seat sees is
        as in the view; what it does not see is one determinization of its view (a fixed seed), so
        equal views give equal states."""
        check_seat("arctic_scavengers", player)
        cdef ArcticState st = self.new_initial_state()
        cdef int s = player, o = 1 - player, t, i
        cdef Rng rng
        cdef Record* r
        index = {name: t for t, name in enumerate(CARD_NAMES)}
        turn, opp, junk = view["turn"], view["opponent"], view["junkyard"]
        st.round = view["round"] - 1
        st.initiator = view["first_player"]
        st.phase = PHASE_NAMES.index(view["phase"])
        st.active = turn["active"]
        st.gather_step = turn["gather_step"]
        st.skirmish_step = turn["skirmish_step"]
        st.skirmish_seat = turn["skirmish_seat"]
        st.deal_seat = turn["deal_seat"]
        st.draws_left = turn["draws_left"]
        st.awards = turn["awards"]
        announced = view["announced"]
        for t in range(NUM_TYPES):
            st.pend_cards[t] = 0
        if announced:
            st.pend_kind = GATHER_NAMES.index(announced["action"])
            st.pend_pile = [name for name, _ in MERCENARY_PILES].index(announced["mercenary"]) \
                if announced["mercenary"] else -1
            for name in announced["cards"]:
                st.pend_cards[index[name]] += 1
        # The seat's own cards, and what the opponent has seen of them.
        _fill_counts(st.hcnt[s], {})
        for name in view["hand"]:
            st.hcnt[s][index[name]] += 1
        _fill_counts(st.hseen[s], view["hand_shown"])
        _fill_counts(st.pool[s], view["deck_shuffled"])
        st.tail_len[s] = 0
        for entry in view["deck_bottom"]:
            st._to_tail(s, index[entry["card"]], 1 if entry["shown"] else 0)
        st.food[s], st.food[o] = view["food"], opp["food"]
        st.used[s] = _used_bits(view["actions_used"])
        st.used[o] = _used_bits(opp["actions_used"])
        st.dig_len = 0
        for name in view["digging"]:
            st.dig[st.dig_len] = index[name]
            st.dig_len += 1
        # The opponent's cards: seen ones as seen, the others as placeholders the determinization replaces.
        _fill_counts(st.hseen[o], opp["hand_seen"])
        _fill_counts(st.hcnt[o], opp["hand_seen"])
        st.hcnt[o][0] += opp["hand_size"] - _total(st.hseen[o])
        _fill_counts(st.pool[o], {})
        st.pool[o][0] = opp["deck_shuffled_size"]
        st.tail_len[o] = 0
        for name in opp["deck_bottom"]:
            st._to_tail(o, index[name] if name is not None else 0, 1 if name is not None else 0)
        for i in range(opp["digging"]):
            st.dig[st.dig_len] = 0
            st.dig_len += 1
        # What each seat can account for.
        _fill_counts(st.kcoll[s], opp["cards_known"])
        st.kunknown[s] = opp["cards_unseen"]
        _fill_counts(st.kcoll[o], view["opponent_knows"]["cards_known"])
        st.kunknown[o] = view["opponent_knows"]["cards_unseen"]
        _fill_counts(st.kjunk[s], junk["shuffled_known"])
        _fill_counts(st.unloc[s], view["unlocated"])
        st.jtail_len = 0
        for name in junk["bottom"]:
            st.jtail[st.jtail_len] = index[name] if name is not None else 0
            st.jtail_seen[st.jtail_len] = 1 << (s if name is not None else o)
            st.jtail_len += 1
        _fill_counts(st.jpool, {})
        _fill_counts(st.cpool, view["contested"]["pile"])
        for i, pile in enumerate(view["mercenaries"]):
            st.merc[i] = pile["left"]
        st.log_len = 0
        for entry in view["log"]:
            r = &st.log[st.log_len]
            st.log_len += 1
            r.round = entry["round"] - 1
            r.kind = RECORD_KINDS.index(entry["kind"])
            r.seat = entry["seat"]
            r.action = entry["action"]
            r.card = index[entry["card"]] if entry["card"] is not None else -1
            for i in range(6):
                r.v[i] = entry["values"][i]
            r.ncards = len(entry["cards"])
            for i, name in enumerate(entry["cards"]):
                r.cards[i] = index[name]
        rng.s = 0x5EED
        st.c_resample_hidden(s, &rng)
        return st


cdef void _fill_counts(int* row, dict counts):
    """row = the {card name: count} map as a type-indexed array."""
    cdef int t
    for t in range(NUM_TYPES):
        row[t] = 0
    for name, count in counts.items():
        row[CARD_NAMES.index(name)] = count


def _used_bits(names: list) -> int:
    bits = {"DIG": USED_DIG, "DRAW": USED_DRAW, "HUNT": USED_HUNT, "HIRE": USED_HIRE, "TRASH": USED_TRASH,
            "SNIPER": USED_SNIPER, "SABOTEUR": USED_SABOTEUR}
    return sum(bits[name] for name in names)
