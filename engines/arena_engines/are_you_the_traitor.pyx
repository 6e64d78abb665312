"""Are You the Traitor?, as GameBench plays it (reference gamebench.md section 2.3): five roles in two
teams, an open conversation to find out who is who, accusations that win rounds, and treasure.

Seats and roles. Seat 0 the Traitor and seat 1 the Evil Wizard form the Evil team; seat 2 the Good
Wizard, seat 3 the Key Holder and seat 4 a Guard form the Good team (GameBench's fixed deal).
`Game.seat_sides()` is [0, 0, 1, 1, 1]: one agent holds both Evil seats, the other the three Good
seats, each seat with its own view (GameBench duplicated each agent into its team). It is public that
players 1 and 2 are the wizards, not which is which; every other role is known only to its holder.
Each role has a target: the Evil Wizard the Key Holder, the Key Holder the Good Wizard, the Good Wizard
and the Guard the Traitor; the Traitor has none and never calls STOP.

Rules. The game goes in rounds, each a series of exchanges:
  1. a player drawn at random (chance, all five alike) picks another player to talk to;
  2. it asks that player one question (a REQUIRED message; the message "skip" asks nothing) and the
     player answers (a REQUIRED message); every seat hears both;
  3. every player in turn, in seat order and in secret, calls STOP or passes (the Traitor can only
     pass). If nobody called STOP the next exchange begins. Otherwise one of the callers, drawn at
     random (chance), is the one heard and accuses another player: if the accused's role is the
     caller's target the caller's team wins the round, otherwise the other team does;
  4. each member of the winning team, in seat order, draws a treasure card (chance). The deck has 42
     cards: crown jewels 2 x 5 points, platinum pyramids 5 x 4, bags of gold 12 x 3, silver goblets
     11 x 2, chest of copper 5 x 1, magic ring 5 x 1, gilded statue 2 x 0;
  5. then every player who holds a magic ring (those holding one when this step begins, in seat
     order) uses one, if an opponent holds any card: a random opponent among those holding cards
     loses its gilded statue if it has one, else a random one of its cards (chance), to the ring's
     holder, and the ring is discarded;
  6. a player with "winning_points" (10) or more ends the game and its team wins (the first such
     player in seat order, as GameBench's check); otherwise the next round begins.
A game that reaches "max_exchanges" exchanges without a winner ends in a draw (an arena limit: a
table that never calls STOP would talk forever; see Ambiguities).

Returns (preset "gamebench"): GameBench's match scores, 1 for every seat of the winning team and 0 for
the others; 0.5 each after a draw.

Actions. 0-4 "talk to player N" (the exchange's target); 5 "ask a question" (the only action of a
question turn, with the question as the message); 6 "answer" (likewise); 7 "STOP" and 8 "Pass"
(GameBench's predefined ids and texts; the Traitor's turn offers only Pass); 10-14 "accuse player N".
GameBench's ids for a target or an accusation are the bare seat numbers "0"-"4", which `parse_action`
reads too. Chance outcomes: 0-4 the player who asks; 20-24 the caller who is heard, 25 nobody called
STOP; 30-36 the kind of treasure card drawn; at each seat's ring step (five per round, in seat order,
so that the number of moves, which every seat can count, says nothing of the rings) 100 + 10 x victim
+ kind a magic ring's theft, or 99 no ring used.

Answers. `read_reply` reads a question or an answer from GameBench's JSON reply {"action": ...,
"openended_response": ...} (the open-ended response is the message; action "skip" skips the question)
or takes the whole reply as the message. `parse_action` reads a target or an accusation from the
action text, GameBench's bare id, "player N", a JSON "action" field, or a reply naming exactly one
player; STOP or Pass from either word (alone in the reply) or a JSON "action" field.

Fallbacks (section 2.10; the card). A target or an accusation: a random other player (default_action
None, the referee's random legal action). A question: "skip" (GameBench's failing agent returned no
question, so nothing was asked). An answer: "I can't answer that right now." A STOP call: Pass
(GameBench counted anything but STOP as a pass).

Information. A seat sees its own role, team, target and first-person briefing; the public fact about
the wizards; every exchange (who asked whom, the question, the answer); each round's accusation and
which team won it (every seat can tell from its own cards anyway: only winners draw); its own treasure
and how it came and went ("an opponent's magic ring took your ..."), and whose turn it is, but never
another seat's role, briefing or cards, nor another seat's call (only the caller heard is announced),
nor another ring's owner or victim. A round's treasure shows once the round's draws and rings are all
settled. At the end every view shows all roles and cards. `public_history` holds the asker draws, the
moves but the calls, the caller heard, one line per round result and the end; the calls and the
treasure draws and thefts stay out of it.

Hidden information, for search. The roles of the other seats: GameBench always deals them the same
way, but no view says so, so `resample_hidden` redraws them among the deals that fit what the seat has
seen (its own role, the wizards, that no STOP caller was the Traitor, every round's result), treasure
following the role that won it; then the kinds of the cards the seat has not seen (the other roles'
and the deck's), so that no player other than the seat reaches the winning points; and the calls the
other seats made in the exchange under way. `state_from_view` replays the exchanges with GameBench's
deal (the others' calls as passes, the caller heard as STOP; each settled round's treasure with stand-in
draws), then installs the seat's own treasure as its view tells it and the others' invented from the
rounds they won (the real cards at the end).

Preset "gamebench": 10 points to win, at most 50 exchanges.

Ambiguities (gamebench.md section 6 and the card):
  - Players, roles, treasure and targets (item 9): the code's five seats, roles, targets and deck.
  - Illegal answers (item 12, section 2.10): three attempts with feedback then a random legal action
    is the referee's policy; the fallbacks above are `default_action` and `default_message`.
  - Side order and roles (item 18): roles follow sides, Evil is side 1 (seats 0 and 1); which agent
    plays Evil is the scheduler's coin flip.
  - Random agents (item 15): GameBench's random agent answered with empty texts; this engine accepts
    empty questions and answers, and its random_message and example are short sentences of its own.
  - STOP calls: GameBench asked the non-Traitor seats one at a time in a shuffled order and took the
    first STOP. Nobody saw the others' passes, so each seat decided alone; asking every seat in seat
    order, none seeing the others' calls, and hearing one caller drawn at random among those who
    called gives the same outcomes. The Traitor's turn is a forced Pass: whose turn it is is public,
    and a turn order without the Traitor would unmask it.
  - A skipped question: as in GameBench's code, the target still answers.
  - Memory: GameBench's code cleared each seat's notes at every round, calling it "reassigning the
    roles", though it kept the roles; since they stay, earlier talk stays evidence and the views keep
    the whole conversation.
  - Treasure: GameBench showed no seat its cards or the round results; here a seat sees its own
    cards and the results (which its cards tell it), as players see their own treasure at a table.
  - Ring details from the code: a holder of several rings uses one per round; a ring taken by a ring
    waits for the next round; the gilded statue is taken first (the code used a list of statue holders
    made before the rings were used, and crashed when that list was out of date; here the victim's
    holdings at the time decide).
  - Ties: if players of both teams reach the winning points in the same round, the first in seat
    order decides (the code's check), which favours Evil.
  - No limit in GameBench (item 20: arena limits are documented deviations): "max_exchanges" (50)
    ends a game that never gets there, as a draw. Rounds need no limit: each deals at least two cards,
    and some player reaches 10 points before the 42 cards run out (hence "winning_points" <= 10).
"""

cimport cython
from libc.string cimport memcpy, memset

import itertools
import json
import random as _random
import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError, TextRejectedError
from arena_engines.parsing import check_seat
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_SEATS = 5
    NUM_KINDS = 7
    DECK_SIZE = 42
    MAX_EXCHANGES = 200
    MAX_ROUNDS = 21             # each round deals at least 2 of the 42 cards
    MAX_LOG = 48                # treasure events of one role: <= 21 draws, 5 rings (2 events each), 5 thefts
    NUM_DEALS = 120             # permutations of the five roles
    RESAMPLE_TRIES = 64

# Roles (GameBench's deal gives seat i role i), teams, and the outcome of a drawn game.
cdef enum:
    TRAITOR = 0
    EVIL_WIZARD = 1
    GOOD_WIZARD = 2
    KEY_HOLDER = 3
    GUARD = 4
    EVIL = 0
    GOOD = 1
    DRAW = 2

# Treasure kinds, in GameBench's order.
cdef enum:
    CROWN_JEWELS = 0
    PLATINUM_PYRAMIDS = 1
    BAGS_OF_GOLD = 2
    SILVER_GOBLETS = 3
    CHEST_OF_COPPER = 4
    MAGIC_RING = 5
    GILDED_STATUE = 6

# Actions, and chance outcomes (distinct ranges, so a move's text never depends on the phase).
cdef enum:
    TALK_TO = 0                 # 0-4: talk to player N
    ASK = 5
    ANSWER = 6
    STOP = 7
    PASS = 8
    ACCUSE = 10                 # 10-14: accuse player N
    HEARD = 20                  # 20-24: player N's STOP is the one heard
    NOBODY = 25
    DRAWN = 30                  # 30-36: a card of that kind is drawn
    NO_THEFT = 99               # a seat's ring step with no ring used
    THEFT = 100                 # 100 + 10 x victim + kind

cdef enum:
    P_ASKER = 0
    P_TARGET = 1
    P_QUESTION = 2
    P_ANSWER = 3
    P_CALLS = 4
    P_HEAR = 5
    P_ACCUSE = 6
    P_DEAL = 7
    P_RINGS = 8
    P_OVER = 9

# Card owners other than a role.
cdef enum:
    IN_DECK = -1
    DISCARDED = -2

# Treasure events of a role.
cdef enum:
    EV_DREW = 0
    EV_TOOK = 1                 # its ring took this card from an opponent
    EV_USED = 2                 # this ring was spent
    EV_LOST = 3                 # an opponent's ring took this card

cdef enum:
    PLAYING = 0
    BY_POINTS = 1
    BY_LIMIT = 2

POINTS = (5, 4, 3, 2, 1, 1, 0)
DECK = (2, 5, 12, 11, 5, 5, 2)

cdef int ROLE_TEAM[NUM_SEATS]
cdef int ROLE_TARGET[NUM_SEATS]
cdef int KIND_POINTS[NUM_KINDS]
cdef int KIND_COUNT[NUM_KINDS]
for _s, (_team, _target) in enumerate(((EVIL, -1), (EVIL, KEY_HOLDER), (GOOD, TRAITOR), (GOOD, GOOD_WIZARD),
                                       (GOOD, TRAITOR))):
    ROLE_TEAM[_s] = _team
    ROLE_TARGET[_s] = _target
for _s in range(NUM_KINDS):
    KIND_POINTS[_s] = POINTS[_s]
    KIND_COUNT[_s] = DECK[_s]

cdef int DEALS[NUM_DEALS][NUM_SEATS]
for _d, _perm in enumerate(itertools.permutations(range(NUM_SEATS))):
    for _s in range(NUM_SEATS):
        DEALS[_d][_s] = _perm[_s]

ROLE_IDS = ("traitor", "evil_wizard", "good_wizard", "key_holder", "guard")
ROLE_TITLES = ("the Traitor", "the Evil Wizard", "the Good Wizard", "the Key Holder", "a Guard")
TEAM_IDS = ("evil", "good", "draw")
TEAM_TITLES = ("Evil", "Good")
KIND_IDS = ("crown_jewels", "platinum_pyramids", "bags_of_gold", "silver_goblets", "chest_of_copper",
            "magic_ring", "gilded_statue")
KIND_NAMES = tuple(k.replace("_", " ") for k in KIND_IDS)
EVENT_IDS = ("drew", "took", "used", "lost")
PHASE_IDS = ("choose_asker", "choose_target", "question", "answer", "calls", "hear_call", "accuse",
             "treasure", "treasure", "over")
ENDINGS = {BY_POINTS: "points", BY_LIMIT: "exchange_limit"}
WIZARDS = (1, 2)
SKIP = "skip"                                   # GameBench's predefined "skip" (text "SKIP")
CANNED_ANSWER = "I can't answer that right now."
MESSAGE_LIMIT = 1000
# The cards handed to other roles when a view is rebuilt: low values first and never a ring (a ring
# would be used at once), so that the invented holdings stay below the winning points.
_INVENTED_ORDER = (CHEST_OF_COPPER, SILVER_GOBLETS, GILDED_STATUE, BAGS_OF_GOLD, PLATINUM_PYRAMIDS, CROWN_JEWELS)

# Short neutral lines for random play and examples: this project's own.
QUESTIONS = ("Which of the wizards do you trust more, and why?", "Who do you think the Traitor is?",
             "What would you do with the Key if you held it?", "Why did you pick me to talk to?",
             "Whom have you found most suspicious so far?", "Can you tell me something only a good player would know?",
             "Are you the Key Holder?", "What did you make of the last answer you heard?")
ANSWERS = ("I would rather not say yet.", "I trust player 2 more than player 1, for now.",
           "I am on your side, whatever the others say.", "Ask me again after the next round.",
           "I have my doubts about player 0.", "I only want the Key to end up in the right hands.",
           "That is exactly what a Traitor would ask.", "I have nothing to hide.")

_GAMEBENCH = {"winning_points": 10, "max_exchanges": 50}

SPEC = GameSpec(
    game_id="are_you_the_traitor",
    display_name="Are You the Traitor?",
    rules_version="1",
    min_players=NUM_SEATS,
    max_players=NUM_SEATS,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    # Per exchange: asker, target, question, answer, five calls, caller heard, accusation; per round at
    # most three draws and five ring steps.
    max_game_length=11 * MAX_EXCHANGES + 8 * MAX_ROUNDS,
    description="Evil (the Traitor and the Evil Wizard) against Good (the Good Wizard, the Key Holder and a "
                "Guard), roles secret. Players question each other; anyone but the Traitor may call STOP and "
                "accuse someone, and the round goes to the caller's team if the accused is the caller's target. "
                "Round winners draw treasure; 10 points win. GameBench's five seats.",
    parameters=(
        Parameter("winning_points", 10, "treasure points that end the game, 1-10"),
        Parameter("max_exchanges", 50, f"exchanges after which a game without a winner is a draw, 1-{MAX_EXCHANGES}"),
    ),
    presets=(
        Preset("gamebench", "GameBench (gamebench.md section 2.3): Evil = seats 0 (Traitor) and 1 (Evil Wizard), "
               "Good = seats 2 (Good Wizard), 3 (Key Holder), 4 (Guard); open questions and answers, STOP and "
               "accuse; the code's 42-card treasure deck with magic rings; the first player to 10 points wins for its "
               "team; score 1/0 by team (a draw after 50 exchanges: 0.5 each).", _GAMEBENCH),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# A lower goal keeps the playthrough to a few rounds; the game is otherwise played in full.
PLAYTHROUGH_OVERRIDES = {None: {"winning_points": 6}}

_JSON_ACTION = re.compile(r'"action"\s*:\s*(?:"([^"\n]{0,200})"|(-?\d{1,12}))', re.IGNORECASE)
_BARE_SEAT = re.compile(r"\s*(?:player[\s_]{0,3})?(-?\d{1,12})\s*\.?\s*", re.IGNORECASE)
_PLAYER = re.compile(r"player[\s_]{0,3}(\d{1,12})", re.IGNORECASE)
_CALL_WORD = re.compile(r"(?<![A-Za-z])(stop|pass)(?![A-Za-z])", re.IGNORECASE)


def briefing(int seat, int role) -> str:
    """The first-person briefing of `role` played at `seat`: GameBench's role contexts, in this
    project's words."""
    me = f"I am player {seat}."
    if role == TRAITOR:
        return (f"{me} I am the Traitor, secretly on the Evil team. Above all I must not be found out. I want to "
                "work out which wizard is the Evil Wizard and let them know, discreetly, that I am on their "
                "side; if it is safe, I would tell them who the Key Holder is so that they can seize the Key. "
                "My signals must go unnoticed, and I must be sure of the wizards before I trust one: a mistake "
                "could get me caught by the Good Wizard.")
    if role == EVIL_WIZARD:
        return (f"{me} I am the Evil Wizard, on the Evil team. I want the Evil Magic Key, which one of the "
                "players who are not wizards secretly holds. I plan to make the Key Holder believe I am the "
                "Good Wizard so that they hand it to me. A Traitor among the players knows who the Key Holder "
                "is: I must find the Traitor, not mistake them for the Key Holder, and learn from them where "
                "the Key is.")
    if role == GOOD_WIZARD:
        return (f"{me} I am the Good Wizard, on the Good team. I want the Key Holder to trust me and give me the "
                "Evil Magic Key so that I can destroy it; my code of honour forbids me to take it by force. I "
                "also want to find and catch the Evil Traitor, and to show that I am not the lying Evil Wizard.")
    if role == KEY_HOLDER:
        return (f"{me} I am the Key Holder, on the Good team, and I hold the Evil Magic Key. I must give it to "
                "the Good Wizard to have it destroyed, but the two wizards look exactly alike: I have to tell "
                "them apart, and keep my role hidden from the Evil Wizard, who would take the Key by force.")
    return (f"{me} I am a Guard, on the Good team. I am hunting the hidden Traitor. I keep the Key Holder's "
            "identity safe, perhaps by claiming to be the Key Holder to mislead the Evil Wizard, and I try to "
            "work out which wizard is which to help the Key Holder. Most of all I want to expose the Traitor "
            "before they do harm.")


def _points_text(int points) -> str:
    return f"{points} point" + ("" if points == 1 else "s")


def _card_text(int kind) -> str:
    return f"{KIND_NAMES[kind]} ({_points_text(POINTS[kind])})"


# States are copied with clone(); Cython's generated pickling mishandles the two-dimensional arrays.
@cython.auto_pickle(False)
cdef class TraitorState(State):
    cdef int winning_points, max_exchanges
    cdef int role[NUM_SEATS]                    # role of each seat
    cdef int phase, ending, winner              # winner: EVIL, GOOD, DRAW, or -1
    cdef int round_index                        # current round, 0-based
    cdef int rounds_settled                     # rounds whose treasure is all handed out
    cdef int num_exchanges                      # exchanges begun (the current one is the last)
    cdef int ex_round[MAX_EXCHANGES]
    cdef int ex_asker[MAX_EXCHANGES]
    cdef int ex_target[MAX_EXCHANGES]           # -1 until chosen
    cdef int ex_caller[MAX_EXCHANGES]           # the STOP caller heard, -1 (nobody or not yet)
    cdef int ex_accused[MAX_EXCHANGES]          # -1 until accused
    cdef int round_winner[MAX_ROUNDS]           # team, -1 until the accusation
    cdef int calls[NUM_SEATS]                   # the current exchange's calls: STOP, PASS or -1
    cdef int call_seat                          # the seat calling now (seat order)
    # Treasure, by card (0-41) and by role: a role's cards go with it when search redraws the roles.
    cdef int card_kind[DECK_SIZE]
    cdef int card_owner[DECK_SIZE]              # a role, IN_DECK or DISCARDED
    cdef int card_seen[DECK_SIZE]               # bit r: role r has held the card
    cdef int deck_count[NUM_KINDS]
    cdef int deck_total
    cdef int hand_count[NUM_SEATS][NUM_KINDS]   # by role
    cdef int hand_total[NUM_SEATS]
    cdef int hand_points[NUM_SEATS]
    cdef int drew[NUM_SEATS]                    # by role: has drawn in this round's deal
    cdef int held_ring[NUM_SEATS]               # by role: held a ring when the round's rings began
    cdef int ring_seat                          # the seat whose ring step comes next
    cdef bint replaying_view                    # state_from_view at work: rounds end as the view says
    cdef int log_len[NUM_SEATS]                 # treasure events by role
    cdef int log_round[NUM_SEATS][MAX_LOG]
    cdef int log_event[NUM_SEATS][MAX_LOG]
    cdef int log_card[NUM_SEATS][MAX_LOG]

    def __init__(self, game):
        super().__init__(game, NUM_SEATS)
        cdef int i, k, card = 0
        self.winning_points = game.parameters["winning_points"]
        self.max_exchanges = game.parameters["max_exchanges"]
        for i in range(NUM_SEATS):
            self.role[i] = i
            self.calls[i] = -1
        self.phase = P_ASKER
        self.ending = PLAYING
        self.winner = -1
        self.round_index = 0
        self.rounds_settled = 0
        self.num_exchanges = 0
        for i in range(MAX_ROUNDS):
            self.round_winner[i] = -1
        for k in range(NUM_KINDS):
            for i in range(KIND_COUNT[k]):
                self.card_kind[card] = k
                card += 1
        self._clear_treasure()

    cdef void _clear_treasure(self) noexcept:
        cdef int i
        for i in range(DECK_SIZE):
            self.card_owner[i] = IN_DECK
            self.card_seen[i] = 0
        memset(self.log_len, 0, sizeof(self.log_len))
        memset(self.drew, 0, sizeof(self.drew))
        memset(self.held_ring, 0, sizeof(self.held_ring))
        self.ring_seat = 0
        self._recount()

    cdef void _recount(self) noexcept:
        """Deck and hand counts from the cards' owners and kinds."""
        cdef int i, owner, kind
        memset(self.deck_count, 0, sizeof(self.deck_count))
        memset(self.hand_count, 0, sizeof(self.hand_count))
        memset(self.hand_total, 0, sizeof(self.hand_total))
        memset(self.hand_points, 0, sizeof(self.hand_points))
        self.deck_total = 0
        for i in range(DECK_SIZE):
            owner = self.card_owner[i]
            kind = self.card_kind[i]
            if owner == IN_DECK:
                self.deck_count[kind] += 1
                self.deck_total += 1
            elif owner >= 0:
                self.hand_count[owner][kind] += 1
                self.hand_total[owner] += 1
                self.hand_points[owner] += KIND_POINTS[kind]

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        cdef int e = self.num_exchanges - 1
        if self.phase == P_TARGET or self.phase == P_QUESTION:
            return self.ex_asker[e]
        if self.phase == P_ANSWER:
            return self.ex_target[e]
        if self.phase == P_ACCUSE:
            return self.ex_caller[e]
        if self.phase == P_CALLS:
            return self.call_seat
        if self.phase == P_OVER:
            return TERMINAL_PLAYER
        return CHANCE_PLAYER

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int seat, n = 0
        if not (0 <= player < NUM_SEATS) or player != self.c_current_player():
            return 0
        if self.phase == P_TARGET or self.phase == P_ACCUSE:
            for seat in range(NUM_SEATS):
                if seat != player:
                    out[n] = (TALK_TO if self.phase == P_TARGET else ACCUSE) + seat
                    n += 1
            return n
        if self.phase == P_QUESTION:
            out[0] = ASK
            return 1
        if self.phase == P_ANSWER:
            out[0] = ANSWER
            return 1
        if self.role[player] == TRAITOR:
            out[0] = PASS                   # the Traitor never calls STOP
            return 1
        out[0] = STOP
        out[1] = PASS
        return 2

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int seat, kind, n = 0, callers = 0
        cdef int victims[NUM_SEATS]
        cdef int num_victims, user, victim
        if self.phase == P_ASKER:
            for seat in range(NUM_SEATS):
                actions[seat] = seat
                probs[seat] = 1.0 / NUM_SEATS
            return NUM_SEATS
        if self.phase == P_HEAR:
            for seat in range(NUM_SEATS):
                callers += self.calls[seat] == STOP
            if callers == 0:
                actions[0] = NOBODY
                probs[0] = 1.0
                return 1
            for seat in range(NUM_SEATS):
                if self.calls[seat] == STOP:
                    actions[n] = HEARD + seat
                    probs[n] = 1.0 / callers
                    n += 1
            return n
        if self.phase == P_DEAL:
            for kind in range(NUM_KINDS):
                if self.deck_count[kind] > 0:
                    actions[n] = DRAWN + kind
                    probs[n] = <double>self.deck_count[kind] / self.deck_total
                    n += 1
            return n
        if self.phase == P_RINGS:
            user = self.role[self.ring_seat]
            num_victims = self._victims(user, victims) if self._uses_ring(user) else 0
            if num_victims == 0:
                actions[0] = NO_THEFT
                probs[0] = 1.0
                return 1
            for seat in range(num_victims):
                victim = self.role[victims[seat]]
                if self.hand_count[victim][GILDED_STATUE] > 0:
                    actions[n] = THEFT + 10 * victims[seat] + GILDED_STATUE
                    probs[n] = 1.0 / num_victims
                    n += 1
                    continue
                for kind in range(NUM_KINDS):
                    if self.hand_count[victim][kind] > 0:
                        actions[n] = THEFT + 10 * victims[seat] + kind
                        probs[n] = <double>self.hand_count[victim][kind] / self.hand_total[victim] / num_victims
                        n += 1
            return n
        return 0

    cdef int _victims(self, int user, int* out) noexcept:
        """Seats, in seat order, whose role is on the other team than role `user` and holds a card."""
        cdef int seat, n = 0
        for seat in range(NUM_SEATS):
            if ROLE_TEAM[self.role[seat]] != ROLE_TEAM[user] and self.hand_total[self.role[seat]] > 0:
                out[n] = seat
                n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat, e = self.num_exchanges - 1
        if self.phase == P_ASKER:
            e = self.num_exchanges
            self.num_exchanges += 1
            self.ex_round[e] = self.round_index
            self.ex_asker[e] = action
            self.ex_target[e] = self.ex_caller[e] = self.ex_accused[e] = -1
            self.phase = P_TARGET
        elif self.phase == P_TARGET:
            self.ex_target[e] = action - TALK_TO
            self.phase = P_QUESTION
        elif self.phase == P_QUESTION:
            self.phase = P_ANSWER
        elif self.phase == P_ANSWER:
            for seat in range(NUM_SEATS):
                self.calls[seat] = -1
            self.call_seat = 0
            self.phase = P_CALLS
        elif self.phase == P_CALLS:
            self.calls[self.call_seat] = action
            self.call_seat += 1
            if self.call_seat == NUM_SEATS:
                self.phase = P_HEAR
        elif self.phase == P_HEAR:
            if action == NOBODY:
                self._begin_exchange()
            else:
                self.ex_caller[e] = action - HEARD
                self.phase = P_ACCUSE
        elif self.phase == P_ACCUSE:
            self.ex_accused[e] = action - ACCUSE
            self.round_winner[self.round_index] = self._round_winner(self.role, self.ex_caller[e], self.ex_accused[e])
            memset(self.drew, 0, sizeof(self.drew))
            self.phase = P_DEAL
            self._next_draw()
        elif self.phase == P_DEAL:
            self._draw(action - DRAWN)
        elif self.phase == P_RINGS:
            if action != NO_THEFT:
                self._theft((action - THEFT) // 10, (action - THEFT) % 10)
            self.ring_seat += 1
            if self.ring_seat == NUM_SEATS:
                self._end_round()

    cdef int _round_winner(self, int* roles, int caller, int accused) noexcept:
        cdef int team = ROLE_TEAM[roles[caller]]
        return team if ROLE_TARGET[roles[caller]] == roles[accused] else 1 - team

    cdef void _begin_exchange(self) noexcept:
        if self.num_exchanges >= self.max_exchanges:
            self.phase = P_OVER
            self.ending = BY_LIMIT
            self.winner = DRAW
        else:
            self.phase = P_ASKER

    cdef int _drawer(self) noexcept:
        """The next seat of the round's winning team to draw, in seat order, or -1."""
        cdef int seat, r
        for seat in range(NUM_SEATS):
            r = self.role[seat]
            if ROLE_TEAM[r] == self.round_winner[self.round_index] and not self.drew[r]:
                return seat
        return -1

    cdef void _next_draw(self) noexcept:
        if self._drawer() < 0:
            self._start_rings()

    cdef void _log(self, int role, int event, int card, int round_index) noexcept:
        cdef int i = self.log_len[role]
        self.log_round[role][i] = round_index
        self.log_event[role][i] = event
        self.log_card[role][i] = card
        self.log_len[role] = i + 1

    cdef int _card_of(self, int owner, int kind) noexcept:
        """The lowest-numbered card of `kind` held by `owner` (a role or IN_DECK)."""
        cdef int i
        for i in range(DECK_SIZE):
            if self.card_owner[i] == owner and self.card_kind[i] == kind:
                return i
        return -1

    cdef void _move(self, int card, int owner) noexcept:
        """Hands `card` to `owner` (a role, IN_DECK or DISCARDED), keeping the counts."""
        cdef int old = self.card_owner[card]
        cdef int kind = self.card_kind[card]
        if old == IN_DECK:
            self.deck_count[kind] -= 1
            self.deck_total -= 1
        elif old >= 0:
            self.hand_count[old][kind] -= 1
            self.hand_total[old] -= 1
            self.hand_points[old] -= KIND_POINTS[kind]
        if owner == IN_DECK:
            self.deck_count[kind] += 1
            self.deck_total += 1
        elif owner >= 0:
            self.hand_count[owner][kind] += 1
            self.hand_total[owner] += 1
            self.hand_points[owner] += KIND_POINTS[kind]
            self.card_seen[card] |= 1 << owner
        self.card_owner[card] = owner

    cdef void _draw(self, int kind) noexcept:
        cdef int r = self.role[self._drawer()]
        cdef int card = self._card_of(IN_DECK, kind)
        self._move(card, r)
        self._log(r, EV_DREW, card, self.round_index)
        self.drew[r] = 1
        self._next_draw()

    cdef void _start_rings(self) noexcept:
        # One step per seat, in seat order, whether or not a ring is used, so that the number of moves
        # (which every seat can count) tells nothing about the rings.
        cdef int r
        for r in range(NUM_SEATS):
            self.held_ring[r] = self.hand_count[r][MAGIC_RING] > 0
        self.ring_seat = 0
        self.phase = P_RINGS

    cdef bint _uses_ring(self, int role) noexcept:
        """Whether `role` spends a ring at its step: it held one when the rings began (a ring taken by a
        ring waits for the next round) and holds one still."""
        return self.held_ring[role] and self.hand_count[role][MAGIC_RING] > 0

    cdef void _theft(self, int victim_seat, int kind) noexcept:
        cdef int user = self.role[self.ring_seat]
        cdef int victim = self.role[victim_seat]
        cdef int ring = self._card_of(user, MAGIC_RING)
        cdef int card
        # The ring held before the theft is the one spent (GameBench dropped the first ring in the list).
        self._move(ring, DISCARDED)
        self._log(user, EV_USED, ring, self.round_index)
        card = self._card_of(victim, kind)
        self._move(card, user)
        self._log(user, EV_TOOK, card, self.round_index)
        self._log(victim, EV_LOST, card, self.round_index)

    cdef void _end_round(self) noexcept:
        cdef int seat
        self.rounds_settled = self.round_index + 1
        for seat in range(NUM_SEATS):
            if self.hand_points[self.role[seat]] >= self.winning_points and not self.replaying_view:
                self.winner = ROLE_TEAM[self.role[seat]]      # the first such seat decides (GameBench)
                self.ending = BY_POINTS
                self.phase = P_OVER
                return
        self.round_index += 1
        self._begin_exchange()

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        for seat in range(NUM_SEATS):
            if self.phase != P_OVER:
                out[seat] = 0.0
            elif self.winner == DRAW:
                out[seat] = 0.5
            else:
                out[seat] = 1.0 if ROLE_TEAM[self.role[seat]] == self.winner else 0.0

    # ---- hidden information -------------------------------------------------------------------
    cdef int _accusations(self, int* callers, int* accused, int* winners) noexcept:
        """The STOP callers heard so far, with whom they accused and the round's winner (-1 while the
        accusation is pending); returns their count (one per round at most)."""
        cdef int e, n = 0
        for e in range(self.num_exchanges):
            if self.ex_caller[e] >= 0:
                callers[n] = self.ex_caller[e]
                accused[n] = self.ex_accused[e]
                winners[n] = self.round_winner[self.ex_round[e]] if self.ex_accused[e] >= 0 else -1
                n += 1
        return n

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # The other seats' roles: a deal drawn among those that fit what every seat has seen (the
        # seat's own role, the wizards, no STOP caller the Traitor, each round's result).
        cdef int callers[MAX_ROUNDS + 1]
        cdef int accused[MAX_ROUNDS + 1]
        cdef int winners[MAX_ROUNDS + 1]
        cdef int fitting[NUM_DEALS]
        cdef int d, i, seat, num_fitting = 0
        cdef int num_accusations
        cdef int* deal
        cdef bint fits
        if self.phase == P_OVER:
            return                          # everything is shown at the end
        num_accusations = self._accusations(callers, accused, winners)
        for d in range(NUM_DEALS):
            deal = DEALS[d]
            fits = deal[player] == self.role[player] and (deal[1] == EVIL_WIZARD or deal[1] == GOOD_WIZARD) \
                and (deal[2] == EVIL_WIZARD or deal[2] == GOOD_WIZARD)
            i = 0
            while fits and i < num_accusations:
                fits = deal[callers[i]] != TRAITOR and (
                    winners[i] < 0 or self._round_winner(deal, callers[i], accused[i]) == winners[i])
                i += 1
            if fits:
                fitting[num_fitting] = d
                num_fitting += 1
        memcpy(self.role, DEALS[fitting[rng_below(rng, num_fitting)]], sizeof(self.role))
        if self.phase == P_CALLS or self.phase == P_HEAR:
            # The calls other seats have made are hidden: redrawn under the new deal.
            for seat in range(NUM_SEATS):
                if seat != player and self.calls[seat] >= 0:
                    self.calls[seat] = PASS if self.role[seat] == TRAITOR or rng_below(rng, 2) else STOP
        self._redraw_cards(player, rng)

    cdef void _redraw_cards(self, int player, Rng* rng) noexcept:
        """Redeals the kinds of the cards `player`'s role has never held, among those cards (other
        roles' and the deck's; spent rings stay rings), so that no other role reaches the winning points
        while the talk goes on. The kinds are gathered in kind order first, so the result depends only
        on what the seat could know."""
        cdef int pool[DECK_SIZE]
        cdef int kinds[DECK_SIZE]
        cdef int i, j, k, n = 0, tmp, attempt, r
        cdef int mine = self.role[player]
        cdef bint too_rich
        for i in range(DECK_SIZE):
            if self.card_owner[i] != DISCARDED and self.card_owner[i] != mine and not (self.card_seen[i] >> mine) & 1:
                pool[n] = i
                n += 1
        if n == 0:
            return
        j = 0
        for k in range(NUM_KINDS):
            for i in range(n):
                if self.card_kind[pool[i]] == k:
                    kinds[j] = k
                    j += 1
        for attempt in range(RESAMPLE_TRIES):
            for i in range(n - 1, 0, -1):
                j = rng_below(rng, i + 1)
                tmp = kinds[i]
                kinds[i] = kinds[j]
                kinds[j] = tmp
            for i in range(n):
                self.card_kind[pool[i]] = kinds[i]
            self._recount()
            if self.phase == P_DEAL or self.phase == P_RINGS:
                return                      # a player may pass the goal in the round's treasure
            too_rich = False
            for r in range(NUM_SEATS):
                if r != mine and self.hand_points[r] >= self.winning_points:
                    too_rich = True
            if not too_rich:
                return

    cdef State c_clone(self):
        cdef TraitorState s = TraitorState.__new__(TraitorState)
        self._copy_base_into(s)
        s.winning_points = self.winning_points
        s.max_exchanges = self.max_exchanges
        memcpy(s.role, self.role, sizeof(self.role))
        s.phase = self.phase
        s.ending = self.ending
        s.winner = self.winner
        s.round_index = self.round_index
        s.rounds_settled = self.rounds_settled
        s.num_exchanges = self.num_exchanges
        memcpy(s.ex_round, self.ex_round, self.num_exchanges * sizeof(int))
        memcpy(s.ex_asker, self.ex_asker, self.num_exchanges * sizeof(int))
        memcpy(s.ex_target, self.ex_target, self.num_exchanges * sizeof(int))
        memcpy(s.ex_caller, self.ex_caller, self.num_exchanges * sizeof(int))
        memcpy(s.ex_accused, self.ex_accused, self.num_exchanges * sizeof(int))
        memcpy(s.round_winner, self.round_winner, sizeof(self.round_winner))
        memcpy(s.calls, self.calls, sizeof(self.calls))
        s.call_seat = self.call_seat
        memcpy(s.card_kind, self.card_kind, sizeof(self.card_kind))
        memcpy(s.card_owner, self.card_owner, sizeof(self.card_owner))
        memcpy(s.card_seen, self.card_seen, sizeof(self.card_seen))
        memcpy(s.deck_count, self.deck_count, sizeof(self.deck_count))
        s.deck_total = self.deck_total
        memcpy(s.hand_count, self.hand_count, sizeof(self.hand_count))
        memcpy(s.hand_total, self.hand_total, sizeof(self.hand_total))
        memcpy(s.hand_points, self.hand_points, sizeof(self.hand_points))
        memcpy(s.drew, self.drew, sizeof(self.drew))
        memcpy(s.held_ring, self.held_ring, sizeof(self.held_ring))
        s.ring_seat = self.ring_seat
        s.replaying_view = self.replaying_view
        memcpy(s.log_len, self.log_len, sizeof(self.log_len))
        memcpy(s.log_round, self.log_round, sizeof(self.log_round))
        memcpy(s.log_event, self.log_event, sizeof(self.log_event))
        memcpy(s.log_card, self.log_card, sizeof(self.log_card))
        return s

    # ---- rebuilding a state from a view (Game.state_from_view) --------------------------------
    def _replay_view(self, bint on):
        """Switched on while state_from_view replays a view: rounds then end as the view says, since
        the treasure replayed in them is a stand-in."""
        self.replaying_view = on

    def _stand_in_treasure(self):
        """Hands out a settled round's treasure with stand-in draws (low kinds, never a ring, so no ring
        is used): the same number of moves as the real round, whose treasure is installed afterwards."""
        while self.phase == P_DEAL or self.phase == P_RINGS:
            if self.phase == P_RINGS:
                self.apply_action(NO_THEFT)
            else:
                self.apply_action(DRAWN + next(k for k in _INVENTED_ORDER if self.deck_count[k] > 0))

    def _end_by_points(self, int winner):
        if self.phase != P_DEAL:
            raise ValueError("no round's treasure is being handed out")
        self.rounds_settled = self.round_index + 1
        self.winner = winner
        self.ending = BY_POINTS
        self.phase = P_OVER

    def _install_treasure(self, int player, list own_events, hands):
        """Sets the treasure: `player`'s role's events [(round, event, kind)] as its view tells them;
        the other roles' cards as `hands` (by seat, when the view reveals them) or else invented from
        the settled rounds their team won, low kinds first."""
        cdef int mine = self.role[player]
        cdef int seat, r, card, event, kind, rnd, taker = -1
        self._clear_treasure()
        for seat in range(NUM_SEATS):       # who receives the cards the seat lost to a ring
            if ROLE_TEAM[self.role[seat]] != ROLE_TEAM[mine]:
                taker = self.role[seat]
                break
        if hands is not None:
            taker = IN_DECK                 # the revealed hands place them
        for rnd, event, kind in own_events:
            gains = event == EV_DREW or event == EV_TOOK
            card = self._card_of(IN_DECK if gains else mine, kind)
            if card < 0:
                raise ValueError(f"the treasure in seat {player}'s view does not fit the deck")
            self._move(card, mine if gains else DISCARDED if event == EV_USED else taker)
            self._log(mine, event, card, rnd)
        if hands is not None:
            for seat in range(NUM_SEATS):
                if self.role[seat] != mine:
                    for kind in hands[seat]:
                        card = self._card_of(IN_DECK, kind)
                        if card < 0:
                            raise ValueError("the hands in the view do not fit the deck")
                        self._move(card, self.role[seat])
            return
        for rnd in range(self.rounds_settled):
            for seat in range(NUM_SEATS):
                r = self.role[seat]
                if r != mine and ROLE_TEAM[r] == self.round_winner[rnd]:
                    for kind in _INVENTED_ORDER:
                        if self.deck_count[kind] > 0:
                            card = self._card_of(IN_DECK, kind)
                            self._move(card, r)
                            self._log(r, EV_DREW, card, rnd)
                            break

    # ---- dialogue -----------------------------------------------------------------------------
    def _asks(self, int player) -> bool:
        return self.phase == P_QUESTION and player == self.ex_asker[self.num_exchanges - 1]

    def _answers(self, int player) -> bool:
        return self.phase == P_ANSWER and player == self.ex_target[self.num_exchanges - 1]

    def check_message(self, int player, str text) -> str:
        """The question or answer to store, trimmed: a question that is just "skip" (any case) is
        stored as "skip" and asks nothing."""
        if not (self._asks(player) or self._answers(player)):
            raise TextRejectedError("only the player asking or answering says something now")
        said = State.check_message(self, player, text.strip())
        if self._asks(player) and said.lower() == SKIP:
            return SKIP
        return said

    def read_reply(self, int player, str text) -> tuple:
        """(ask or answer, the message) from a reply: the "openended_response" of GameBench's JSON
        answer ({"action": "skip"} skips a question), else the whole reply."""
        if not (self._asks(player) or self._answers(player)):
            return State.read_reply(self, player, text)
        action = ASK if self._asks(player) else ANSWER
        reply = _last_json_object(text)
        if reply is None:
            return action, text
        response = reply.get("openended_response")
        if isinstance(response, str) and (response.strip() or action == ANSWER):
            return action, response
        chosen = reply.get("action")
        if action == ASK and isinstance(chosen, str) and chosen.strip().lower() == SKIP:
            return action, SKIP
        if isinstance(response, str):
            return action, response
        raise ActionParseError(self._message_help(player) + " A JSON answer needs the text in its "
                               "\"openended_response\" field"
                               + (" (or the action \"skip\")." if action == ASK else "."))

    def default_message(self, int player):
        if self._asks(player):
            return SKIP
        if self._answers(player):
            return CANNED_ANSWER
        return None

    def random_message(self, int player, rng=None) -> str:
        """One of this project's neutral questions or answers."""
        rng = rng or _random.Random(0)
        return rng.choice(QUESTIONS if self._asks(player) else ANSWERS)

    def _message_help(self, int player) -> str:
        e = self.num_exchanges - 1
        if self._asks(player):
            return (f"Write your question to player {self.ex_target[e]} as your message, or the message "
                    f"'{SKIP}' to ask nothing.")
        return f"Write your answer to player {self.ex_asker[e]}'s question as your message."

    # ---- actions ------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            return _chance_text(action)
        check_seat("are_you_the_traitor", player, NUM_SEATS)
        if TALK_TO <= action < TALK_TO + NUM_SEATS:
            return f"talk to player {action - TALK_TO}"
        if ACCUSE <= action < ACCUSE + NUM_SEATS:
            return f"accuse player {action - ACCUSE}"
        if action == ASK:
            return "ask a question"
        if action == ANSWER:
            return "answer"
        if action == STOP:
            return "STOP"
        if action == PASS:
            return "Pass"
        raise ValueError(f"are_you_the_traitor actions are 0-8 and 10-14, not {action}")

    def _decides(self, int player) -> bool:
        return 0 <= player < NUM_SEATS and player == self.c_current_player()

    def parse_action(self, int player, str text) -> int:
        if not self._decides(player):
            raise ActionParseError("you have no decision to make now")
        phase = self.phase
        if phase == P_QUESTION or phase == P_ANSWER:
            if text.strip().lower() == self.action_to_string(player, ASK if phase == P_QUESTION else ANSWER):
                return ASK if phase == P_QUESTION else ANSWER
            raise ActionParseError(self._message_help(player))
        answer = _json_action(text)
        if answer is None:
            answer = text
        if phase == P_CALLS:
            said = {m.group(1).lower() for m in _CALL_WORD.finditer(answer)}
            if len(said) == 1:
                return STOP if said.pop() == "stop" else PASS
            raise ActionParseError(f"could not read a call from {text[:200]!r}. {self._call_help(player)}")
        base = TALK_TO if phase == P_TARGET else ACCUSE
        cleaned = answer.strip().lower()
        for seat in range(NUM_SEATS):
            if cleaned == self.action_to_string(player, base + seat):
                return base + seat
        bare = _BARE_SEAT.fullmatch(answer)
        if bare:
            return base + self._seat_number(bare.group(1), player)
        named = {m.group(1) for m in _PLAYER.finditer(answer)}
        if len(named) == 1:
            return base + self._seat_number(named.pop(), player)
        raise ActionParseError(f"could not read a player from {text[:200]!r}. {self._seat_help(player)}")

    def _seat_number(self, str digits, int player) -> int:
        seat = int(digits) if len(digits) <= 3 else -1
        if not 0 <= seat < NUM_SEATS:
            raise ActionParseError(f"there is no player {digits[:12]}; the players are 0-4. {self._seat_help(player)}")
        return seat

    def _seat_help(self, int player) -> str:
        others = [s for s in range(NUM_SEATS) if s != player]
        verb = "talk to" if self.phase == P_TARGET else "accuse"
        return (f"Answer with the number of the player to {verb} ({', '.join(map(str, others))}), e.g. "
                f"'{others[0]}' or '{verb} player {others[0]}'.")

    def _call_help(self, int player) -> str:
        if self.role[player] == TRAITOR:
            return "Pass: as the Traitor you never call STOP."
        return ("Call STOP or Pass, in secret. If several players call STOP, one of them drawn at random is heard "
                "and accuses a player.")

    def default_action(self, int player):
        """The question and answer turns' single action (with default_message); Pass for a STOP call;
        None for a target or an accusation (the referee's random legal action: GameBench's random
        player)."""
        if self._asks(player):
            return ASK
        if self._answers(player):
            return ANSWER
        if self.phase == P_CALLS and player == self.call_seat:
            return PASS
        return None

    def text_action_spec(self, int player):
        if not self._decides(player):
            return None
        if self._asks(player) or self._answers(player):
            return {"description": self._message_help(player), "max_length": MESSAGE_LIMIT,
                    "forbidden_words": [], "message": "required",
                    # An acceptable message now (random agents say it): the same line for a move.
                    "example": self.random_message(player, _random.Random(self.move_number))}
        if self.phase == P_CALLS:
            return {"description": self._call_help(player), "max_length": MESSAGE_LIMIT, "forbidden_words": []}
        return {"description": self._seat_help(player), "max_length": MESSAGE_LIMIT, "forbidden_words": []}

    # ---- views --------------------------------------------------------------------------------
    def _talk(self) -> list:
        """(question, answer) texts of each exchange (None until said): each exchange has exactly one
        question and then one answer."""
        said = [text for _, _, text, _ in self._messages] + [None, None]
        return [(said[2 * e], said[2 * e + 1]) for e in range(self.num_exchanges)]

    def _exchanges(self) -> list:
        out = []
        talk = self._talk()
        for e in range(self.num_exchanges):
            question, answer = talk[e]
            in_progress = e == self.num_exchanges - 1 and P_TARGET <= self.phase <= P_HEAR
            out.append({
                "round": self.ex_round[e] + 1,
                "asker": self.ex_asker[e],
                "target": self.ex_target[e] if self.ex_target[e] >= 0 else None,
                "question": None if question == SKIP else question,
                "skipped": question == SKIP,
                "answer": answer,
                "calls_settled": not in_progress or self.phase == P_ACCUSE,
                "caller": self.ex_caller[e] if self.ex_caller[e] >= 0 else None,
                "accused": self.ex_accused[e] if self.ex_accused[e] >= 0 else None,
            })
        return out

    def _rounds(self) -> list:
        """The resolved rounds: each ends with the one accusation of its last exchange."""
        out = []
        for e in range(self.num_exchanges):
            if self.ex_accused[e] >= 0:
                r = self.ex_round[e]
                out.append({"round": r + 1, "caller": self.ex_caller[e], "accused": self.ex_accused[e],
                            "winner": TEAM_IDS[self.round_winner[r]], "treasure_settled": r < self.rounds_settled})
        return out

    def _events(self, int role, bint settled_only) -> list:
        """(round, event, kind) of a role's treasure events; only those of settled rounds if asked."""
        out = []
        for i in range(self.log_len[role]):
            if not settled_only or self.log_round[role][i] < self.rounds_settled:
                out.append((self.log_round[role][i], self.log_event[role][i],
                            self.card_kind[self.log_card[role][i]]))
        return out

    def _hand(self, int role, bint settled_only) -> list:
        """The kinds a role holds (as of its settled events if asked), in kind order."""
        if not settled_only:
            return [k for k in range(NUM_KINDS) for _ in range(self.hand_count[role][k])]
        held = [0] * NUM_KINDS
        for _, event, kind in self._events(role, True):
            held[kind] += 1 if event in (EV_DREW, EV_TOOK) else -1
        return [k for k in range(NUM_KINDS) for _ in range(held[k])]

    def _to_act(self):
        p = self.c_current_player()
        return p if p >= 0 else None

    def observation_dict(self, int player) -> dict:
        check_seat("are_you_the_traitor", player, NUM_SEATS)
        role = self.role[player]
        over = self.phase == P_OVER
        hand = self._hand(role, True)
        own_call = (self.phase == P_CALLS or self.phase == P_HEAR) and self.calls[player] >= 0
        return {
            "seat": player,
            "role": ROLE_IDS[role],
            "team": TEAM_IDS[ROLE_TEAM[role]],
            "target": ROLE_IDS[ROLE_TARGET[role]] if ROLE_TARGET[role] >= 0 else None,
            "briefing": briefing(player, role),
            "wizards": list(WIZARDS),
            "winning_points": self.winning_points,
            "max_exchanges": self.max_exchanges,
            "phase": PHASE_IDS[self.phase],
            "round": self.round_index + 1,
            "exchanges_begun": self.num_exchanges,
            "to_act": self._to_act(),
            "my_call": ("STOP" if self.calls[player] == STOP else "Pass") if own_call else None,
            "exchanges": self._exchanges(),
            "rounds": self._rounds(),
            "treasure": [KIND_IDS[k] for k in hand],
            "points": sum(POINTS[k] for k in hand),
            "treasure_log": [{"round": rnd + 1, "event": EVENT_IDS[event], "card": KIND_IDS[kind]}
                             for rnd, event, kind in self._events(role, True)],
            "conversation": self.conversation(player),
            "winner": TEAM_IDS[self.winner] if over else None,
            "ending": ENDINGS.get(self.ending),
            "roles": [ROLE_IDS[self.role[s]] for s in range(NUM_SEATS)] if over else None,
            "hands": ([[KIND_IDS[k] for k in self._hand(self.role[s], False)] for s in range(NUM_SEATS)]
                      if over else None),
            "all_points": [self.hand_points[self.role[s]] for s in range(NUM_SEATS)] if over else None,
        }

    def observation_string(self, int player) -> str:
        check_seat("are_you_the_traitor", player, NUM_SEATS)
        role = self.role[player]
        lines = self._rules_lines()
        lines.append(f"You are player {player}: {ROLE_TITLES[role]}, on the {TEAM_TITLES[ROLE_TEAM[role]]} team.")
        if role == TRAITOR:
            lines.append("As the Traitor you never call STOP.")
        else:
            lines.append(f"Your target is {ROLE_TITLES[ROLE_TARGET[role]]}: if you call STOP and accuse the player "
                         f"who is {ROLE_TITLES[ROLE_TARGET[role]]}, your team wins the round; otherwise the other "
                         f"team does.")
        lines.append("Your briefing: " + briefing(player, role))
        lines.append("Public knowledge: players 1 and 2 are the wizards, but not which is the Good Wizard and which "
                     "is the Evil Wizard.")
        hand = self._hand(role, True)
        cards = ", ".join(_card_text(k) for k in hand) or "no cards yet"
        lines.append(f"Your treasure: {cards}; {_points_text(sum(POINTS[k] for k in hand))} in all.")
        for rnd, event, kind in self._events(role, True):
            lines.append(f"Round {rnd + 1}: " + _event_text(event, kind))
        lines += self._talk_lines()
        lines += self._status_lines(player)
        return "\n".join(lines)

    def _rules_lines(self) -> list:
        return [
            "Are You the Traitor? Five players in two teams: Evil (the Traitor and the Evil Wizard) and Good (the "
            "Good Wizard, the Key Holder and a Guard). The Good team wants to destroy an Evil Magic Key and the Evil "
            "team wants to keep it; the Key is destroyed by giving it to the Good Wizard, but the Evil Wizard looks "
            "exactly like him, and a Traitor hides among the Key's guards. Each player knows only its own role.",
            "Rounds are made of exchanges. In each, a player drawn at random asks another player of its choice one "
            "question (or skips) and that player answers; everyone hears both. Then every player in turn, in seat "
            "order, calls STOP or passes, in secret (the Traitor can only pass). If nobody calls STOP another "
            "exchange follows; otherwise one caller, drawn at random among those who called, accuses another "
            "player. If the accused has the caller's target role the caller's team wins the round, otherwise the "
            "other team does. Targets: the Evil Wizard seeks the Key Holder, the Key Holder seeks the Good Wizard, "
            "the Good Wizard and the Guard seek the Traitor.",
            "Each member of the round's winning team draws a treasure card from a deck of 42: crown jewels (5 points, "
            "2 cards), platinum pyramids (4, 5), bags of gold (3, 12), silver goblets (2, 11), chest of copper (1, 5), "
            "magic ring (1, 5), gilded statue (0, 2). Then each holder of a magic ring spends one to take a card from "
            "a random opponent who has any: the opponent's gilded statue if it has one, else a random card. Each "
            "player sees only its own treasure.",
            f"A player with {_points_text(self.winning_points)} or more at the end of a round wins the game for its "
            f"team. After {self.max_exchanges} exchanges without a winner the game is a draw.",
        ]

    def _talk_lines(self) -> list:
        lines = []
        for e, ex in enumerate(self._exchanges()):
            head = f"Round {ex['round']}, exchange {e + 1}: player {ex['asker']}"
            if ex["target"] is None:
                lines.append(head + " was drawn to ask a question.")
                continue
            if ex["skipped"]:
                lines.append(head + f" chose player {ex['target']} and asked nothing.")
            elif ex["question"] is not None:
                lines.append(head + f" asked player {ex['target']}: \"{ex['question']}\"")
            else:
                lines.append(head + f" chose to talk to player {ex['target']}.")
            if ex["answer"] is not None:
                lines.append(f"  Player {ex['target']} answered: \"{ex['answer']}\"")
            if not ex["calls_settled"]:
                continue
            if ex["caller"] is None:
                lines.append("  Nobody called STOP.")
            elif ex["accused"] is None:
                lines.append(f"  Player {ex['caller']} called STOP.")
            else:
                winner = TEAM_TITLES[self.round_winner[ex["round"] - 1]]
                lines.append(f"  Player {ex['caller']} called STOP and accused player {ex['accused']}: the {winner} "
                             f"team wins round {ex['round']}.")
        return lines

    def _status_lines(self, int player) -> list:
        e = self.num_exchanges - 1
        phase = self.phase
        if phase == P_ASKER:
            return [f"Round {self.round_index + 1}: a player is being drawn to ask the next question."]
        if phase == P_TARGET:
            if player == self.ex_asker[e]:
                return ["Your move: you ask the next question. Choose the player you want to talk to."]
            return [f"Player {self.ex_asker[e]} is choosing whom to talk to."]
        if phase == P_QUESTION:
            if player == self.ex_asker[e]:
                return [f"Your move: ask player {self.ex_target[e]} a question (your message), or say '{SKIP}' to "
                        "ask nothing."]
            return [f"Player {self.ex_asker[e]} is asking player {self.ex_target[e]} a question."]
        if phase == P_ANSWER:
            if player == self.ex_target[e]:
                return [f"Your move: answer player {self.ex_asker[e]}'s question (your message)."]
            return [f"Player {self.ex_target[e]} is answering."]
        mine = {STOP: " You called STOP.", PASS: " You passed."}.get(self.calls[player], "")
        if phase == P_CALLS:
            if player == self.call_seat:
                return ["Your move: " + self._call_help(player)]
            return [f"Player {self.call_seat} is deciding whether to call STOP (each player's call is secret)." + mine]
        if phase == P_HEAR:
            return ["The STOP calls are being settled." + mine]
        if phase == P_ACCUSE:
            if player == self.ex_caller[e]:
                return ["Your move: you called STOP and are heard. Accuse a player."]
            return [f"Player {self.ex_caller[e]} called STOP and is choosing whom to accuse."]
        if phase != P_OVER:
            return [f"Round {self.round_index + 1}'s treasure is being handed out."]
        lines = ["Game over: " + self._outcome_text()]
        lines.append("Roles: " + "; ".join(f"player {s} {ROLE_TITLES[self.role[s]]}" for s in range(NUM_SEATS)) + ".")
        for s in range(NUM_SEATS):
            cards = ", ".join(_card_text(k) for k in self._hand(self.role[s], False)) or "no cards"
            lines.append(f"Player {s}'s treasure: {cards}; {_points_text(self.hand_points[self.role[s]])}.")
        return lines

    def _outcome_text(self) -> str:
        if self.ending == BY_LIMIT:
            return f"the limit of {self.max_exchanges} exchanges was reached with no winner: a draw."
        for s in range(NUM_SEATS):
            if self.hand_points[self.role[s]] >= self.winning_points:
                return (f"player {s} has {_points_text(self.hand_points[self.role[s]])}: the "
                        f"{TEAM_TITLES[self.winner]} team wins.")
        return f"the {TEAM_TITLES[self.winner]} team wins."

    def public_history(self) -> list:
        """The asker draws, every move but the secret STOP calls, the caller heard, one line per round
        result, and the end; the treasure draws and thefts stay hidden."""
        out = []
        rnd = 0
        for seat, action in self._history:
            if seat >= 0 and (action == STOP or action == PASS):
                continue                            # the calls are secret
            if seat == CHANCE_PLAYER:
                if action < DRAWN:
                    out.append((seat, action, _chance_text(action)))
                continue
            out.append((seat, action, self.action_to_string(seat, action)))
            if action >= ACCUSE:
                winner = TEAM_TITLES[self.round_winner[rnd]]
                out.append((CHANCE_PLAYER, -1, f"round {rnd + 1} goes to the {winner} team"))
                rnd += 1
        if self.phase == P_OVER:
            out.append((CHANCE_PLAYER, -1, "game over: " + self._outcome_text()))
        return out

    def result_summary(self) -> str:
        return self._outcome_text() if self.phase == P_OVER else "game in progress"

    def result_details(self) -> dict:
        calls = [action for seat, action in self._history if seat >= 0 and (action == STOP or action == PASS)]
        exchanges = self._exchanges()
        for e, ex in enumerate(exchanges):
            made = calls[NUM_SEATS * e:NUM_SEATS * (e + 1)]
            ex["calls"] = [("STOP" if made[s] == STOP else "Pass") if self.role[s] != TRAITOR else None
                           for s in range(len(made))]
        return {
            "roles": [ROLE_IDS[self.role[s]] for s in range(NUM_SEATS)],
            "teams": [TEAM_IDS[ROLE_TEAM[self.role[s]]] for s in range(NUM_SEATS)],
            "exchanges": exchanges,
            "rounds": self._rounds(),
            "treasure_log": [[{"round": rnd + 1, "event": EVENT_IDS[event], "card": KIND_IDS[kind]}
                              for rnd, event, kind in self._events(self.role[s], False)] for s in range(NUM_SEATS)],
            "hands": [[KIND_IDS[k] for k in self._hand(self.role[s], False)] for s in range(NUM_SEATS)],
            "points": [self.hand_points[self.role[s]] for s in range(NUM_SEATS)],
            "winner": TEAM_IDS[self.winner] if self.phase == P_OVER else None,
            "ending": ENDINGS.get(self.ending),
        }


def _chance_text(int action) -> str:
    if 0 <= action < NUM_SEATS:
        return f"player {action} asks the next question"
    if HEARD <= action < HEARD + NUM_SEATS:
        return f"player {action - HEARD} calls STOP and is heard"
    if action == NOBODY:
        return "nobody calls STOP"
    if action == NO_THEFT:
        return "no magic ring is used"
    if DRAWN <= action < DRAWN + NUM_KINDS:
        return f"{KIND_NAMES[action - DRAWN]} is drawn"
    if THEFT <= action < THEFT + 10 * NUM_SEATS and (action - THEFT) % 10 < NUM_KINDS:
        return f"a magic ring takes {KIND_NAMES[(action - THEFT) % 10]} from player {(action - THEFT) // 10}"
    raise ValueError(f"{action} is not a chance outcome of are_you_the_traitor")


def _event_text(int event, int kind) -> str:
    if event == EV_DREW:
        return f"you drew {_card_text(kind)}."
    if event == EV_TOOK:
        return f"your magic ring took {_card_text(kind)} from an opponent."
    if event == EV_USED:
        return "you spent a magic ring."
    return f"an opponent's magic ring took your {_card_text(kind)}."


def _json_action(str text):
    """The last "action" value of a JSON answer in `text`, as text, or None."""
    value = None
    for found in _JSON_ACTION.finditer(text):
        value = found.group(1) if found.group(1) is not None else found.group(2)
    return value


def _last_json_object(str text):
    """The last JSON object in `text` with an "action" or "openended_response" field, or None."""
    decoder = json.JSONDecoder()
    found = None
    start = text.find("{")
    while start >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and ("action" in value or "openended_response" in value):
            found = value
        start = text.find("{", end)
    return found


class Game(GameBase):
    """Are You the Traitor? with validated parameters; always five seats."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "winning_points", 1, 10)
        checked_int(self.parameters, "max_exchanges", 1, MAX_EXCHANGES)

    def new_initial_state(self) -> TraitorState:
        return TraitorState(self)

    def seat_sides(self) -> list:
        return [0, 0, 1, 1, 1]

    def state_from_view(self, int player, dict view) -> TraitorState:
        """A state with GameBench's deal consistent with seat `player`'s view: every exchange replayed
        with its question and answer; the STOP calls as the caller heard and passes (the seat's own
        pending call as it made it); the seat's treasure as its view tells it and the other roles'
        invented from the rounds they won (the real ones at the end). Search redraws the rest."""
        check_seat("are_you_the_traitor", player, NUM_SEATS)
        state = self.new_initial_state()
        state._replay_view(True)
        if view["role"] != ROLE_IDS[player]:
            raise ValueError(f"seat {player} holds {ROLE_IDS[player]} in this game, not {view['role']}")
        phase = view["phase"]
        exchanges = view["exchanges"]
        rounds_left = len(view["rounds"])
        for ex in exchanges:
            state.apply_action(ex["asker"])
            if ex["target"] is None:
                break
            state.apply_action(TALK_TO + ex["target"])
            if ex["question"] is None and not ex["skipped"]:
                break
            state.apply_action(ASK, SKIP if ex["skipped"] else ex["question"])
            if ex["answer"] is None:
                break
            state.apply_action(ANSWER, ex["answer"])
            calls = [PASS] * NUM_SEATS               # the others' calls are not seen: passes
            if ex["caller"] is not None:
                calls[ex["caller"]] = STOP
            if view["my_call"] is not None and not ex["calls_settled"]:
                calls[player] = STOP if view["my_call"] == "STOP" else PASS
            for seat in range(NUM_SEATS if ex["calls_settled"] or phase != "calls" else view["to_act"]):
                state.apply_action(calls[seat])
            if not ex["calls_settled"]:
                break
            state.apply_action(NOBODY if ex["caller"] is None else HEARD + ex["caller"])
            if ex["accused"] is None:
                continue
            state.apply_action(ACCUSE + ex["accused"])
            rounds_left -= 1
            if rounds_left == 0 and phase == "treasure":
                break                               # the view's round is being handed its treasure
            if rounds_left == 0 and phase == "over" and view["ending"] == "points":
                state._end_by_points(TEAM_IDS.index(view["winner"]))
            else:
                state._stand_in_treasure()
        own = [(entry["round"] - 1, EVENT_IDS.index(entry["event"]), KIND_IDS.index(entry["card"]))
               for entry in view["treasure_log"]]
        hands = ([[KIND_IDS.index(k) for k in cards] for cards in view["hands"]]
                 if view["hands"] is not None else None)
        state._install_treasure(player, own, hands)
        state._replay_view(False)
        return state
