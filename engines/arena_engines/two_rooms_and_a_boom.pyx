"""Two Rooms and a Boom, as GameBench plays it (reference gamebench.md section 2.8): a social deduction
game of two teams spread over two rooms, where Red wants its Bomber in the President's room at the end
and Blue wants them apart.

Players and sides. "players" cards (6), numbered 1 to 6 as GameBench numbered them; player k sits at
seat k - 1. Players 1..n (n = players / 2) are Team Blue, players n+1..2n Team Red; one agent holds every
seat of a team (`Game.seat_sides()` is [0]*n + [1]*n; GameBench's Blue agent was its side 1, section
3.2). Each room holds n players.

Setup (chance, GameBench's order). Room 0 starts with the Blue players in order 1..n, room 1 with the
Red players n+1..2n. Then: the President is drawn uniformly among the Blue players; the Bomber among the
Red players; "setup_swaps" (20) random swaps follow, each taking a uniformly random player of room 0 and
a uniformly random player of room 1 (n * n outcomes, outcome id = room-0 player * 16 + room-1 player)
and exchanging them; finally a Leader is drawn uniformly in room 0, then in room 1. Every exchange of
rooms (setup swaps and hostages alike) is GameBench's `trade_card`: each player leaves its room's list
and joins the end of the other room's list. A room's list is its speaking order.

Rounds ("rounds", 3). First every player of room 0, in list order, then every player of room 1 holds one
exchange: it chooses a roommate (an action: the roommate's number), asks one question (its REQUIRED
message) and the roommate answers (the roommate's REQUIRED message). Only the two of them hear it
(`message_audience`), but when the asker is not the Leader of its room and is on the Leader's team, the
exchange (whom it chose, the question, the answer) is reported to that Leader once it is complete: the
Leader's view lists it under "reports". Then the Leader of room 0, and after it the Leader of room 1,
chooses a hostage among the other players of its room (an action: the player's number), neither seeing
the other's choice; the two hostages swap rooms. Leaders never move, since they cannot choose
themselves.

End and score (preset "gamebench"). After the last round, Red wins if the President and the Bomber are
in the same room, otherwise Blue wins; each seat's return is its team's GameBench score: 1 for the
winning team, 0 for the other (constant sum; the two sides' scores sum to 1).

Decisions. After the setup every decision is a simultaneous node at which only the seat due to act is
acting (to choose a roommate, to ask, to answer or to choose a hostage), so that no view has to show
whom a seat is answering, which GameBench kept between the two speakers, nor whether the first Leader
has chosen its hostage. Action ids: k in 1..2n chooses player k (text: GameBench's predefined
description, the number itself, e.g. "5"), a roommate to question or the hostage; 0 speaks (text "ask
your question" or "answer the question"), the one action of a question or answer turn, which carries
the message.

Answers. `parse_action` reads a player number as GameBench's predefined id ("5"), also inside a JSON
"action" field ({"action": "5"}), or "player 5" / "card 5" (the last such mention in a longer reply).
`read_reply` on a question or answer turn takes the JSON "openended_response" field when the reply has
one (GameBench's open-ended answer format), else the whole reply, stripped. Messages are free text of
at most 1000 characters; an empty one is accepted, as GameBench accepted its random agent's empty
responses.

Fallbacks (section 2.10). The reference's canned answer "I can't answer that right now." is
`default_message` of an answer turn (GameBench's code said it when the agent's call failed outright; an
agent out of attempts left the text "None"); a roommate or hostage that could not be read became a
uniformly random legal choice (`default_action` None: the referee's random legal action). GameBench had
no fallback question: `default_message` is None there and the referee says a `random_message`, a
question from a fixed pool (section 6 item 15's "random sentence from a fixed pool" variant; answers
come from a pool too).

Information. A seat knows its own player number and team, with preset "gamebench" its own role
(President, Bomber or neither) as well, and whether it is a Leader; nobody is told anything of another
player's team or role, nor who the Leaders are (GameBench told only the Leader). Public: the setup swaps
and so the rooms' lists at every moment (every player sees its roommates, hence both rooms), who is
questioning a roommate now (the lists give the order), and the hostages once exchanged. Private: the
President, the Bomber, the Leaders, whom a player chose to question, every question and answer (heard by
the two speakers, and by the Leader through a report), and the Leaders' choices until the swap. At the end every view shows the
President and the Bomber; `result_details` shows everything. observation_string has the rules, the
seat's identity, the setup, the rooms round by round, the seat's exchanges, its reports (a Leader),
then what happens now. observation_dict holds the same: "seat", "player", "players", "team", "role"
(null when not told), "leader_of", "phase" ("setup", "talk", "hostages", "over"), "setup_step",
"setup_steps", "setup_swaps" ([room-0 player, room-1 player] per swap so far), "round", "rounds",
"start_rooms" (the lists when round 1 began), "hostages" ([from room 0, from room 1] per round done),
"rooms" (now), "room", "exchanges" and "reports" ([{round, room, asker, target, question, answer}]),
"current" (the exchange in progress: round, room, asker, and what the seat knows of its target and
question), "hostage_chosen" (the Leader of room 0's choice, in its own view until the swap), "to_act"
("choose_roommate", "ask", "answer", "choose_hostage" or null), "conversation", and at the end
"president", "bomber", "winner" and "scores". `public_history` has the setup draws (the swaps in full,
the others as secret draws), one line per exchange once it is over ("player 2 questioned a roommate"),
and each round's hostage swap.

Presets. "gamebench": 6 players, 3 rounds, 20 setup swaps, each player told its own role (the paper:
"nobody starts knowing others' teams or roles"). "gamebench_code": the same, but nobody is told its
role, as GameBench's code did (a card's context only said "I am on Team Blue.").

Ambiguities (gamebench.md section 6 and the card):
  - Player count and talk structure (item 9): the code's, configurable: "players" (even, 4-10), "rounds",
    "setup_swaps"; one exchange per player per round, room 0 first, in each room's list order.
  - Own role (item 9, the card): the paper says nobody knows *others'* roles; GameBench's code told no
    card its role. "gamebench" follows the paper (each seat knows its own card), "gamebench_code" the
    code.
  - Teammates: the rules tell nobody another player's team, and the views never state one. In the arena
    one agent holds every seat of its team and `seat_sides` is public, so an agent knows which players
    are its teammates, as GameBench's fixed numbering (1..n Blue) would have told anyone who knew it.
  - Who hears what: GameBench kept each exchange between its two speakers and relayed, to the Leader of
    the room, the exchanges its non-leader teammates started (the relay happens only from teammates and
    only for exchanges they started, not those they answered). Both are kept exactly; the relay is shown
    to the Leader as a report, not as a message it heard, so nobody learns who the Leader is from a
    message's audience.
  - Illegal answers (item 12, section 2.10): three attempts with feedback then a random legal action is
    the referee's policy; the canned answer is `default_message`.
  - Random agent's empty texts (item 15): empty messages are accepted; random play here says sentences
    from fixed pools (the recommended variant).
  - Side and role (item 18): Blue is side 0 (seats 0..n-1); which agent gets Blue is the scheduler's
    coin flip.

Determinization (`resample_hidden`) redraws the President (among the Blue players a seat cannot rule
out), the Bomber, the Leaders (among the players of each room who have never been hostages, never the
seat itself unless it leads), the target of an exchange in progress the seat is not part of, and the
hostage the Leader of room 0 chose while the Leader of room 1 is choosing (unless the seat chose it). Past
exchanges between other players are left as they were: they no longer bear on the game, and the words
said in them are the base class's record.
"""

from libc.string cimport memcpy

import json
import random as _random
import re

from arena_engines.core cimport CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError, TextRejectedError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MIN_PLAYERS = 4
    MAX_PLAYERS = 10
    MAX_PER_ROOM = 5
    MAX_ROUNDS = 10
    MAX_SWAPS = 50
    MAX_EXCHANGES = MAX_ROUNDS * MAX_PLAYERS
    SWAP_CODE = 16          # a setup swap's outcome id: room-0 player * SWAP_CODE + room-1 player
    SPEAK = 0               # the one action of a question or answer turn
    SETUP_DRAWS = 4         # President, Bomber, and the two Leaders, around the swaps

cdef enum:
    BLUE = 0
    RED = 1

cdef enum:
    SETUP = 0
    PICK = 1                # the asker chooses a roommate
    ASK = 2                 # the asker says its question
    ANSWER = 3              # the roommate says its answer
    HOSTAGE_0 = 4           # the Leader of room 0 chooses its hostage
    HOSTAGE_1 = 5           # then the Leader of room 1
    OVER = 6

MESSAGE_LIMIT = 1000
CANNED_ANSWER = "I can't answer that right now."     # the reference's answer when an agent gave none
TEAM_NAMES = ("Blue", "Red")
# Random play's sentences (gamebench.md section 6 item 15: a random sentence from a fixed pool).
QUESTIONS = ("Which team are you on?", "Are you the President?", "Are you the Bomber?",
             "Who do you think leads this room?", "Whom do you trust in this room?", "What have you learned so far?")
ANSWERS = ("I would rather not say yet.", "I am on your side.", "I have nothing to hide.",
           "Ask me again next round.", "I think we can work together.", "I have not learned much yet.")

_GAMEBENCH = {"players": 6, "rounds": 3, "setup_swaps": 20, "own_role_known": True}

SPEC = GameSpec(
    game_id="two_rooms_and_a_boom",
    display_name="Two Rooms and a Boom",
    rules_version="1",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    # The setup, then per round one exchange (choose, ask, answer) per player and the two Leaders' hostages.
    max_game_length=SETUP_DRAWS + MAX_SWAPS + MAX_ROUNDS * (3 * MAX_PLAYERS + 2),
    description="Team Blue (with the President) against Team Red (with the Bomber), mixed over two rooms. Each "
                "round every player questions a roommate in private, then each room's secret Leader sends a "
                "hostage to the other room. After the last round Red wins if the President and the Bomber share "
                "a room, Blue if they do not. GameBench's 6-player, 3-round game.",
    parameters=(
        Parameter("players", 6, f"players, half Blue and half Red, half in each room: an even number, "
                                f"{MIN_PLAYERS}-{MAX_PLAYERS}"),
        Parameter("rounds", 3, f"rounds of talk and hostage exchange, 1-{MAX_ROUNDS}"),
        Parameter("setup_swaps", 20, f"random swaps between the rooms at the setup, 0-{MAX_SWAPS}"),
        Parameter("own_role_known", True, "whether each player is told its own role (President, Bomber or "
                                          "neither); its team is always told"),
    ),
    presets=(
        Preset("gamebench", "GameBench (gamebench.md section 2.8): 6 players (3 Blue with the President, 3 Red with "
               "the Bomber), 20 setup swaps, a secret Leader per room, 3 rounds of private questions and hostage "
               "exchanges; each player knows its own card, as the paper says; score 1/0.", _GAMEBENCH),
        Preset("gamebench_code", "GameBench's released code: as 'gamebench', but nobody is told its own role "
               "(a card's context only named its team).", {**_GAMEBENCH, "own_role_known": False}),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# Three setup swaps and two rounds keep a playthrough readable; the rooms and the talk are as in play.
PLAYTHROUGH_OVERRIDES = {None: {"setup_swaps": 3, "rounds": 2}}

_JSON_FIELD = re.compile(r'"(action|openended_response)"\s*:\s*("(?:[^"\\\n]|\\.){0,2000}"|-?\d{1,6})', re.IGNORECASE)
_PLAYER_ONLY = re.compile(r"\W*(?:(?:player|card)\s*#?\s*)?(\d{1,3})\W*", re.IGNORECASE)
_PLAYER_MENTION = re.compile(r"(?<![A-Za-z])(?:player|card)\s*#?\s*(?<!\d)(\d{1,3})(?!\d)", re.IGNORECASE)


def _json_field(str text, str key):
    """The last value of JSON field `key` in `text` (a string, unescaped), or None."""
    value = None
    for found in _JSON_FIELD.finditer(text):
        if found.group(1).lower() == key:
            value = found.group(2)
    if value is None or not value.startswith('"'):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value[1:-1]


def _quote(str text) -> str:
    """A message as one quoted line (quotes and line breaks escaped), so it never splits a view's lines."""
    return json.dumps(text, ensure_ascii=False)


def _players(cards) -> str:
    cards = list(cards)
    if len(cards) == 1:
        return f"player {cards[0]}"
    return "players " + ", ".join(map(str, cards[:-1])) + f" and {cards[-1]}"


cdef class TwoRoomsState(State):
    cdef int n                          # players per team and per room
    cdef int num_cards, rounds, setup_swaps
    cdef bint own_role_known
    cdef int phase, setup_step, round_index
    cdef int talk_room, talk_pos        # the asker now: roster[talk_room][talk_pos]
    cdef int president, bomber          # player numbers; 0 before the draw
    cdef int leader[2]                  # 0 before the draw
    cdef int roster[2][MAX_PER_ROOM]    # each room's list (its speaking order)
    cdef int room_of[MAX_PLAYERS + 1]
    cdef int was_hostage[MAX_PLAYERS + 1]
    cdef int num_exchanges              # begun so far; the last is in progress in ASK and ANSWER
    cdef int ex_asker[MAX_EXCHANGES]
    cdef int ex_target[MAX_EXCHANGES]
    cdef int first_roster[2][MAX_PER_ROOM]  # the lists when round 1 begins
    cdef int hostage[MAX_ROUNDS][2]     # [from room 0, from room 1] per round (room 0's once its Leader chose)
    cdef int swap_card[MAX_SWAPS][2]    # [from room 0, from room 1] of each setup swap

    def __init__(self, game, dict parameters):
        super().__init__(game, parameters["players"])
        cdef int i
        self.n = parameters["players"] // 2
        self.num_cards = 2 * self.n
        self.rounds = parameters["rounds"]
        self.setup_swaps = parameters["setup_swaps"]
        self.own_role_known = parameters["own_role_known"]
        self.phase = SETUP
        self.setup_step = 0
        self.round_index = 0
        self.talk_room = self.talk_pos = 0
        self.president = self.bomber = 0
        self.leader[0] = self.leader[1] = 0
        self.num_exchanges = 0
        for i in range(MAX_PLAYERS + 1):
            self.room_of[i] = -1
            self.was_hostage[i] = 0
        for i in range(self.n):
            self.roster[0][i] = i + 1
            self.roster[1][i] = self.n + i + 1
            self.room_of[i + 1] = 0
            self.room_of[self.n + i + 1] = 1

    # ---- C-level interface --------------------------------------------------------------------
    cdef inline int _setup_length(self) noexcept:
        return self.setup_swaps + SETUP_DRAWS

    cdef inline int _team(self, int card) noexcept:
        return BLUE if card <= self.n else RED

    cdef inline int _asker(self) noexcept:
        return self.roster[self.talk_room][self.talk_pos]

    cdef inline int _target(self) noexcept:
        return self.ex_target[self.num_exchanges - 1]

    cdef int c_current_player(self) noexcept:
        if self.phase == SETUP:
            return CHANCE_PLAYER
        if self.phase == OVER:
            return TERMINAL_PLAYER
        return SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        cdef int card = player + 1
        if self.phase == PICK or self.phase == ASK:
            return card == self._asker()
        if self.phase == ANSWER:
            return card == self._target()
        if self.phase == HOSTAGE_0:
            return card == self.leader[0]
        if self.phase == HOSTAGE_1:
            return card == self.leader[1]
        return False

    cdef int _others_in_room(self, int room, int excluded, int* out) noexcept:
        """The players of `room` but `excluded`, in increasing order; returns their count."""
        cdef int i, j, card, count = 0
        for i in range(self.n):
            card = self.roster[room][i]
            if card == excluded:
                continue
            j = count
            while j > 0 and out[j - 1] > card:
                out[j] = out[j - 1]
                j -= 1
            out[j] = card
            count += 1
        return count

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if player < 0 or player >= self.num_cards or not self.c_is_acting(player):
            return 0
        if self.phase == PICK:
            return self._others_in_room(self.talk_room, player + 1, out)
        if self.phase == HOSTAGE_0 or self.phase == HOSTAGE_1:
            return self._others_in_room(self.room_of[player + 1], player + 1, out)
        out[0] = SPEAK
        return 1

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int i, j, k = 0, room
        if self.phase != SETUP:
            return 0
        if self.setup_step < 2:                 # the President among Blue, then the Bomber among Red
            for i in range(self.n):
                actions[i] = self.setup_step * self.n + i + 1
                probs[i] = 1.0 / self.n
            return self.n
        if self.setup_step < 2 + self.setup_swaps:
            for i in range(self.n):
                for j in range(self.n):
                    actions[k] = self.roster[0][i] * SWAP_CODE + self.roster[1][j]
                    probs[k] = 1.0 / (self.n * self.n)
                    k += 1
            return k
        room = self.setup_step - 2 - self.setup_swaps
        for i in range(self.n):
            actions[i] = self.roster[room][i]
            probs[i] = 1.0 / self.n
        return self.n

    cdef void _trade(self, int from_room_0, int from_room_1) noexcept:
        """GameBench's trade_card: each player leaves its room's list and joins the end of the other's."""
        self._leave(0, from_room_0)
        self._leave(1, from_room_1)
        self.roster[0][self.n - 1] = from_room_1
        self.roster[1][self.n - 1] = from_room_0
        self.room_of[from_room_1] = 0
        self.room_of[from_room_0] = 1

    cdef void _leave(self, int room, int card) noexcept:
        cdef int i, j = 0
        for i in range(self.n):
            if self.roster[room][i] != card:
                self.roster[room][j] = self.roster[room][i]
                j += 1

    cdef void _begin_round(self) noexcept:
        self.talk_room = self.talk_pos = 0
        self.phase = PICK

    cdef void c_apply_action(self, int action) noexcept:
        cdef int swap
        if self.phase != SETUP:
            return
        if self.setup_step == 0:
            self.president = action
        elif self.setup_step == 1:
            self.bomber = action
        elif self.setup_step < 2 + self.setup_swaps:
            swap = self.setup_step - 2
            self.swap_card[swap][0] = action // SWAP_CODE
            self.swap_card[swap][1] = action % SWAP_CODE
            self._trade(action // SWAP_CODE, action % SWAP_CODE)
        else:
            self.leader[self.setup_step - 2 - self.setup_swaps] = action
        self.setup_step += 1
        if self.setup_step == self._setup_length():
            memcpy(self.first_roster, self.roster, sizeof(self.roster))
            self._begin_round()

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int asker, h0, h1
        if self.phase == PICK:
            asker = self._asker()
            self.ex_asker[self.num_exchanges] = asker
            self.ex_target[self.num_exchanges] = actions[asker - 1]
            self.num_exchanges += 1
            self.phase = ASK
        elif self.phase == ASK:
            self.phase = ANSWER
        elif self.phase == ANSWER:
            self.talk_pos += 1
            if self.talk_pos == self.n:
                self.talk_pos = 0
                self.talk_room += 1
            self.phase = HOSTAGE_0 if self.talk_room == 2 else PICK
        elif self.phase == HOSTAGE_0:
            self.hostage[self.round_index][0] = actions[self.leader[0] - 1]
            self.phase = HOSTAGE_1
        elif self.phase == HOSTAGE_1:
            h0 = self.hostage[self.round_index][0]
            h1 = actions[self.leader[1] - 1]
            self.hostage[self.round_index][1] = h1
            self.was_hostage[h0] = self.was_hostage[h1] = 1
            self._trade(h0, h1)
            self.round_index += 1
            if self.round_index == self.rounds:
                self.phase = OVER
            else:
                self._begin_round()

    cdef bint _red_wins(self) noexcept:
        return self.room_of[self.president] == self.room_of[self.bomber]

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        cdef double blue
        if self.phase != OVER:
            for seat in range(self.num_cards):
                out[seat] = 0.0
            return
        blue = 0.0 if self._red_wins() else 1.0
        for seat in range(self.num_cards):
            out[seat] = blue if self._team(seat + 1) == BLUE else 1.0 - blue

    cdef bint _roles_told(self) noexcept:
        """Whether each seat knows its own role now: from the end of the setup, in games that tell it."""
        return self.phase != SETUP and self.own_role_known

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int card = player + 1
        cdef int candidates[MAX_PLAYERS]
        cdef int count, i, c, room, asker
        cdef bint shown_roles = self.phase == OVER
        # The President among the Blue players: kept when the seat is told it is the President, never the
        # seat when it is told it is not; likewise the Bomber among the Red players.
        if self.president and not shown_roles:
            if not (self._roles_told() and card == self.president):
                count = 0
                for c in range(1, self.n + 1):
                    if not (self._roles_told() and c == card):
                        candidates[count] = c
                        count += 1
                self.president = candidates[rng_below(rng, count)]
        if self.bomber and not shown_roles:
            if not (self._roles_told() and card == self.bomber):
                count = 0
                for c in range(self.n + 1, self.num_cards + 1):
                    if not (self._roles_told() and c == card):
                        candidates[count] = c
                        count += 1
                self.bomber = candidates[rng_below(rng, count)]
        # The Leaders: each in its room since the setup (never a hostage); a seat knows only whether it leads.
        for room in range(2):
            if not self.leader[room] or (self.phase != SETUP and card == self.leader[room]):
                continue
            count = 0
            for i in range(self.n):
                c = self.roster[room][i]
                if not self.was_hostage[c] and not (self.phase != SETUP and c == card):
                    candidates[count] = c
                    count += 1
            self.leader[room] = candidates[rng_below(rng, count)]
        # The hostage the first Leader chose, while the second chooses.
        if self.phase == HOSTAGE_1 and card != self.leader[0]:
            count = self._others_in_room(0, self.leader[0], candidates)
            self.hostage[self.round_index][0] = candidates[rng_below(rng, count)]
        # The roommate questioned now: unknown to all but the asker, and to the roommate until it is asked.
        if self.phase == ASK or self.phase == ANSWER:
            asker = self._asker()
            if card != asker and not (self.phase == ANSWER and card == self._target()):
                count = 0
                for i in range(self.n):
                    c = self.roster[self.talk_room][i]
                    if c != asker and not (self.phase == ANSWER and c == card):
                        candidates[count] = c
                        count += 1
                if count > 0:
                    self.ex_target[self.num_exchanges - 1] = candidates[rng_below(rng, count)]

    cdef State c_clone(self):
        cdef TwoRoomsState s = TwoRoomsState.__new__(TwoRoomsState)
        self._copy_base_into(s)
        s.n = self.n
        s.num_cards = self.num_cards
        s.rounds = self.rounds
        s.setup_swaps = self.setup_swaps
        s.own_role_known = self.own_role_known
        s.phase = self.phase
        s.setup_step = self.setup_step
        s.round_index = self.round_index
        s.talk_room = self.talk_room
        s.talk_pos = self.talk_pos
        s.president = self.president
        s.bomber = self.bomber
        memcpy(s.leader, self.leader, sizeof(self.leader))
        memcpy(s.roster, self.roster, sizeof(self.roster))
        memcpy(s.room_of, self.room_of, sizeof(self.room_of))
        memcpy(s.was_hostage, self.was_hostage, sizeof(self.was_hostage))
        s.num_exchanges = self.num_exchanges
        memcpy(s.ex_asker, self.ex_asker, self.num_exchanges * sizeof(int))
        memcpy(s.ex_target, self.ex_target, self.num_exchanges * sizeof(int))
        memcpy(s.first_roster, self.first_roster, sizeof(self.first_roster))
        memcpy(s.hostage, self.hostage, sizeof(self.hostage))
        memcpy(s.swap_card, self.swap_card, sizeof(self.swap_card))
        return s

    # ---- reading the state --------------------------------------------------------------------
    def _room_list(self, int room) -> list:
        return [self.roster[room][i] for i in range(self.n)]

    def _first_rooms(self) -> list:
        return [[self.first_roster[room][i] for i in range(self.n)] for room in range(2)]

    def _exchange_move(self, int e) -> int:
        """The move number of exchange e's choice of roommate (its question and answer follow it): the
        moves come in a fixed order: the setup, then per round 3 per exchange and the two Leaders' choices."""
        cdef int per_round = 3 * self.num_cards + 2
        return self._setup_length() + (e // self.num_cards) * per_round + 3 * (e % self.num_cards)

    def _exchange(self, int e, dict said) -> dict:
        move = self._exchange_move(e)
        k = e % self.num_cards
        return {"round": e // self.num_cards + 1, "room": k // self.n, "asker": self.ex_asker[e],
                "target": self.ex_target[e], "question": said.get(move + 1), "answer": said.get(move + 2)}

    def _completed_exchanges(self) -> list:
        said = {move: text for move, _, text, _ in self._messages}
        done = self.num_exchanges - (1 if self.phase in (ASK, ANSWER) else 0)
        return [self._exchange(e, said) for e in range(done)]

    def _reported_to(self, dict exchange):
        """The Leader an exchange was reported to (GameBench: a non-leader's own exchange goes to its
        room's Leader when the Leader is on its team), or None."""
        leader = self.leader[exchange["room"]]
        asker = exchange["asker"]
        if asker != leader and self._team(asker) == self._team(leader):
            return leader
        return None

    def _leads(self, int card):
        """The room `card` leads, or None."""
        for room in range(2):
            if self.leader[room] == card:
                return room
        return None

    def _to_act(self, int player):
        if not self.c_is_acting(player):
            return None
        return {PICK: "choose_roommate", ASK: "ask", ANSWER: "answer", HOSTAGE_0: "choose_hostage",
                HOSTAGE_1: "choose_hostage"}[self.phase]

    def _role(self, int card):
        if self.phase != OVER and not self._roles_told():
            return None
        if card == self.president:
            return "president"
        return "bomber" if card == self.bomber else "none"

    # ---- dialogue -----------------------------------------------------------------------------
    def _speaking(self, int player) -> bool:
        return self.phase in (ASK, ANSWER) and self.c_is_acting(player)

    def check_message(self, int player, str text) -> str:
        """The question or answer to store (surrounding spaces dropped), or TextRejectedError."""
        if not self._speaking(player):
            raise TextRejectedError("only a player asking or answering a question speaks now")
        return State.check_message(self, player, text.strip())

    def message_audience(self, int player):
        """The two speakers of the exchange in progress; a report to the Leader is not a message."""
        if self.phase not in (ASK, ANSWER):
            return None
        return sorted([self._asker() - 1, self._target() - 1])

    def default_message(self, int player):
        return CANNED_ANSWER if self.phase == ANSWER and self._speaking(player) else None

    def random_message(self, int player, rng=None) -> str:
        rng = rng or _random.Random(0)
        return rng.choice(ANSWERS if self.phase == ANSWER else QUESTIONS)

    def read_reply(self, int player, str text) -> tuple:
        """(0, the question or answer) on a question or answer turn: the JSON "openended_response" field
        when the reply has one (GameBench's format), else the whole reply, stripped."""
        if not self._speaking(player):
            return State.read_reply(self, player, text)
        said = _json_field(text, "openended_response")
        return SPEAK, (text if said is None else said).strip()

    def text_action_spec(self, int player):
        to_act = self._to_act(player)
        if to_act is None:
            return None
        if to_act in ("ask", "answer"):
            other = self._target() if to_act == "ask" else self._asker()
            what = "your question to" if to_act == "ask" else "your answer to"
            pool = QUESTIONS if to_act == "ask" else ANSWERS
            return {"description": f"{what} player {other}, as your message; only you and player {other} hear it "
                                   f"(in GameBench's format: {{\"action\": \"openended\", \"openended_response\": "
                                   f"\"...\"}})",
                    "max_length": MESSAGE_LIMIT, "forbidden_words": [], "message": "required",
                    "example": pool[self.move_number % len(pool)], "audience": self.message_audience(player)}
        return {"description": self._choice_help(player), "max_length": MESSAGE_LIMIT, "forbidden_words": []}

    def _choice_help(self, int player) -> str:
        options = _players(self.legal_actions(player))
        if self.phase == PICK:
            return f"the roommate to question: {options}; answer with the number (e.g. {self.legal_actions(player)[0]})"
        return (f"the hostage you send to the other room: {options}; answer with the number "
                f"(e.g. {self.legal_actions(player)[0]})")

    # ---- actions ------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            return self._chance_text(action)
        check_seat("two rooms and a boom", player, self.num_cards)
        if action == SPEAK:
            if self._speaking(player):
                return "ask your question" if self.phase == ASK else "answer the question"
            return "speak (ask or answer a question)"
        if 1 <= action <= self.num_cards:
            return str(action)          # GameBench's predefined description is the player's number
        raise ValueError(f"actions are {SPEAK} (speak) and 1-{self.num_cards} (a player), not {action}")

    def _chance_text(self, int action) -> str:
        step = self.setup_step if self.phase == SETUP else -1
        if step == 0:
            return f"player {action} is the President"
        if step == 1:
            return f"player {action} is the Bomber"
        if 2 <= step < 2 + self.setup_swaps:
            return f"player {action // SWAP_CODE} (room 0) and player {action % SWAP_CODE} (room 1) swap rooms"
        if step >= 0:
            return f"player {action} leads room {step - 2 - self.setup_swaps}"
        return str(action)

    def parse_action(self, int player, str text) -> int:
        if self._speaking(player):
            return SPEAK                # the turn's one action; its words are the message
        if self._to_act(player) is None:
            raise ActionParseError("you have no decision to make now")
        answer = _json_field(text, "action")
        if answer is None:
            answer = text
        found = _PLAYER_ONLY.fullmatch(answer) or last_match(_PLAYER_MENTION, answer)
        if found is None:
            raise ActionParseError(f"could not read a player from {text[:200]!r}. "
                                   f"Answer with {self._choice_help(player)}.")
        card = int(found.group(1))
        if not 1 <= card <= self.num_cards:
            raise ActionParseError(f"there is no player {card}. Answer with {self._choice_help(player)}.")
        return card

    def default_action(self, int player):
        """The question or answer turn's one action (its words are default_message); None when choosing a
        roommate or a hostage: GameBench then took a uniformly random one (the referee's random legal)."""
        return SPEAK if self._speaking(player) else None

    # ---- views --------------------------------------------------------------------------------
    def _current(self, int card):
        """The exchange in progress as `card` knows it, or None outside the talk."""
        if self.phase not in (PICK, ASK, ANSWER):
            return None
        asker = self._asker()
        knows_target = self.phase != PICK and (card == asker or (self.phase == ANSWER and card == self._target()))
        said = {move: text for move, _, text, _ in self._messages}
        question = None
        if knows_target and self.phase == ANSWER:
            question = said.get(self._exchange_move(self.num_exchanges - 1) + 1)
        return {"round": self.round_index + 1, "room": self.talk_room, "asker": asker,
                "target": self._target() if knows_target else None, "question": question}

    def observation_dict(self, int player) -> dict:
        check_seat("two rooms and a boom", player, self.num_cards)
        card = player + 1
        dealt = self.phase != SETUP
        exchanges = self._completed_exchanges() if dealt else []
        leads = self._leads(card) if dealt else None
        over = self.phase == OVER
        view = {
            "seat": player,
            "player": card,
            "players": self.num_cards,
            "team": TEAM_NAMES[self._team(card)].lower(),
            "role": self._role(card) if dealt else None,
            "leader_of": leads,
            "phase": ("setup", "talk", "talk", "talk", "hostages", "hostages", "over")[self.phase],
            "setup_step": self.setup_step,
            "setup_steps": self._setup_length(),
            "setup_swaps": [[self.swap_card[i][0], self.swap_card[i][1]]
                            for i in range(min(max(self.setup_step - 2, 0), self.setup_swaps))],
            "round": min(self.round_index + 1, self.rounds) if dealt else None,
            "rounds": self.rounds,
            "start_rooms": self._first_rooms() if dealt else None,
            "hostages": [[self.hostage[r][0], self.hostage[r][1]] for r in range(self.round_index)],
            "rooms": [self._room_list(0), self._room_list(1)],
            "room": self.room_of[card],
            "exchanges": [e for e in exchanges if card in (e["asker"], e["target"])],
            "reports": [e for e in exchanges if leads is not None and self._reported_to(e) == card],
            "current": self._current(card),
            "hostage_chosen": self.hostage[self.round_index][0] if self.phase == HOSTAGE_1 and leads == 0 else None,
            "to_act": self._to_act(player),
            "conversation": self.conversation(player),
            "president": self.president if over else None,
            "bomber": self.bomber if over else None,
            "winner": ("red" if self._red_wins() else "blue") if over else None,
            "scores": self._scores(),
        }
        return view

    def _scores(self):
        if self.phase != OVER:
            return None
        blue = 0.0 if self._red_wins() else 1.0
        return {"blue": blue, "red": 1.0 - blue}

    def observation_string(self, int player) -> str:
        view = self.observation_dict(player)
        card = view["player"]
        lines = [self._rules_text(), f"You are player {card} (seat {player}), on Team {view['team'].capitalize()}"
                 + self._role_text(view["role"]) + "."]
        if view["phase"] == "setup":
            lines.append(f"The game is being set up ({view['setup_step']} of {view['setup_steps']} steps done).")
            if view["setup_swaps"]:
                lines.append(self._swaps_text(view["setup_swaps"]))
            return "\n".join(lines)
        if view["leader_of"] is not None:
            lines.append(f"You are the Leader of room {view['leader_of']}.")
        if view["setup_swaps"]:
            lines.append(self._swaps_text(view["setup_swaps"]))
        start = view["start_rooms"]
        lines.append(f"Round 1 began with room 0: {_players(start[0])}; room 1: {_players(start[1])} (lists in "
                     f"speaking order).")
        for r, (h0, h1) in enumerate(view["hostages"], 1):
            lines.append(f"After round {r} the hostages changed rooms: player {h0} from room 0 to room 1, "
                         f"player {h1} from room 1 to room 0.")
        rooms = view["rooms"]
        lines.append(f"Now room 0: {_players(rooms[0])}; room 1: {_players(rooms[1])}. You are in room {view['room']}.")
        if view["exchanges"]:
            lines.append("Your exchanges:")
            lines += ["  " + self._exchange_text(e, card) for e in view["exchanges"]]
        if view["reports"]:
            lines.append(f"Reports to you, the Leader of room {view['leader_of']}, from your teammates:")
            lines += ["  " + self._exchange_text(e, card) for e in view["reports"]]
        lines.append(self._status_text(view, player))
        return "\n".join(lines)

    def _role_text(self, role) -> str:
        if role is None:
            return ""
        if role == "none":
            return "; you are neither the President nor the Bomber"
        return f"; you are the {role.capitalize()}"

    def _swaps_text(self, swaps) -> str:
        listed = ", ".join(f"{a}<->{b}" for a, b in swaps)
        so_far = " so far" if self.phase == SETUP else ""
        return f"Setup swaps{so_far} (room-0 player <-> room-1 player): {listed}."

    def _exchange_text(self, dict e, int card) -> str:
        where = f"Round {e['round']}, room {e['room']}: "
        question, answer = _quote(e["question"] or ""), _quote(e["answer"] or "")
        if e["asker"] == card:
            return f"{where}you asked player {e['target']} {question}; player {e['target']} answered {answer}."
        if e["target"] == card:
            return f"{where}player {e['asker']} asked you {question}; you answered {answer}."
        return (f"{where}player {e['asker']} asked player {e['target']} {question}; player {e['target']} answered "
                f"{answer}.")

    def _status_text(self, dict view, int player) -> str:
        if view["phase"] == "over":
            return self._outcome_text()
        to_act = view["to_act"]
        if view["phase"] == "hostages":
            where = f"Round {view['round']} of {self.rounds}: "
            if view["hostage_chosen"] is not None:
                return (f"{where}you chose player {view['hostage_chosen']} as your hostage; the Leader of room 1 is "
                        f"choosing its own.")
            if to_act is None:
                return where + "the Leaders are choosing their hostages."
            return f"{where}your move: choose {self._choice_help(player)}."
        now = view["current"]
        where = f"Round {now['round']} of {self.rounds}, room {now['room']}: "
        if to_act == "choose_roommate":
            return f"{where}your move: choose {self._choice_help(player)}."
        if to_act == "ask":
            return (f"{where}you chose to question player {now['target']}. Your move: ask your question (your "
                    f"message; only you and player {now['target']} hear it).")
        if to_act == "answer":
            return (f"{where}player {now['asker']} asks you {_quote(now['question'] or '')}. Your move: answer "
                    f"(your message; only you and player {now['asker']} hear it).")
        if now["asker"] == view["player"] and now["question"] is not None:
            return f"{where}you asked player {now['target']} {_quote(now['question'])}; waiting for the answer."
        return f"{where}player {now['asker']} is questioning a roommate."

    def _outcome_text(self) -> str:
        scores = self._scores()
        return (f"Game over after {self.rounds} round{'s' if self.rounds != 1 else ''}: the President (player "
                f"{self.president}) is in room {self.room_of[self.president]} and the Bomber (player {self.bomber}) "
                f"in room {self.room_of[self.bomber]}, so {'Red' if self._red_wins() else 'Blue'} wins; scores: "
                f"Blue {scores['blue']:g}, Red {scores['red']:g}.")

    def _rules_text(self) -> str:
        n, told = self.n, ("its own team and role" if self.own_role_known else "its own team (not its role)")
        return (f"Two Rooms and a Boom. Team Blue and Team Red, {n} players each (players 1 to {2 * n}; player k "
                f"sits at seat k - 1), are spread over two rooms, {n} to a room. One Blue player is the President "
                f"and one Red player is the Bomber. After {self.rounds} round{'s' if self.rounds != 1 else ''}, Red "
                f"wins if the President and the Bomber are in the same room; otherwise Blue wins. Each room has a "
                f"Leader, drawn at random at the start and known only to itself. In each round the players of room "
                f"0, then those of room 1, take turns in their room's order: each chooses a roommate, asks one "
                f"question and hears the answer. Only the two of them hear it, except that the exchanges a player "
                f"starts are reported to the Leader of its room when that Leader is on its team. Then the Leader of "
                f"room 0, and after it the Leader of room 1, picks another player of its room as a hostage without "
                f"seeing the other's choice, and the two hostages change rooms. Each player is told {told}; nobody "
                f"is told another player's team or role.")

    def public_history(self) -> list:
        """The setup (the President, the Bomber and the Leaders as secret draws, the swaps in full), who
        questioned a roommate once each exchange is over, and each round's hostages once exchanged."""
        out = []
        setup = self._setup_length()
        per_round = 3 * self.num_cards + 2
        for i, (seat, action) in enumerate(self._history):
            if i < setup:
                if i == 0:
                    out.append((CHANCE_PLAYER, -1, "the President is drawn in secret among Team Blue"))
                elif i == 1:
                    out.append((CHANCE_PLAYER, -1, "the Bomber is drawn in secret among Team Red"))
                elif i < 2 + self.setup_swaps:
                    out.append((CHANCE_PLAYER, action, f"setup swap {i - 1}: player {action // SWAP_CODE} (room 0) "
                                                       f"and player {action % SWAP_CODE} (room 1) change rooms"))
                else:
                    out.append((CHANCE_PLAYER, -1, f"a Leader is drawn in secret in room {i - 2 - self.setup_swaps}"))
                continue
            r, k = divmod(i - setup, per_round)
            if k == per_round - 2:
                continue                # the first Leader's choice stays secret until the swap
            if k == per_round - 1:
                out.append((SIMULTANEOUS_PLAYER, -1, f"round {r + 1}: the Leaders exchange hostages: player "
                            f"{self.hostage[r][0]} goes from room 0 to room 1, player {self.hostage[r][1]} from "
                            f"room 1 to room 0"))
            elif k % 3 == 2:            # once an exchange is over; whom it was with stays private
                e = r * self.num_cards + k // 3
                out.append((SIMULTANEOUS_PLAYER, -1, f"round {r + 1}, room {(k // 3) // self.n}: player "
                            f"{self.ex_asker[e]} questioned a roommate"))
        return out

    def result_summary(self) -> str:
        return self._outcome_text() if self.phase == OVER else "game in progress"

    def result_details(self) -> dict:
        if self.phase == SETUP:
            return {}
        said = {move: text for move, _, text, _ in self._messages}
        exchanges = [self._exchange(e, said) for e in range(self.num_exchanges)]
        for e in exchanges:
            e["reported_to"] = self._reported_to(e)
        details = {
            "president": self.president,
            "bomber": self.bomber,
            "leaders": [self.leader[0], self.leader[1]],
            "setup_swaps": [[self.swap_card[i][0], self.swap_card[i][1]] for i in range(self.setup_swaps)],
            "start_rooms": self._first_rooms(),
            "hostages": [[self.hostage[r][0], self.hostage[r][1]] for r in range(self.round_index)],
            "rooms": [self._room_list(0), self._room_list(1)],
            "exchanges": exchanges,
        }
        if self.phase == OVER:
            details["winner"] = "red" if self._red_wins() else "blue"
            details["scores"] = self._scores()
        return details

    # ---- rebuilding from a view ---------------------------------------------------------------
    def _rebuild(self, int player, dict view):
        """Plays this fresh state forward to a state consistent with seat `player`'s view (see
        Game.state_from_view)."""
        card = player + 1
        n = self.n
        over = view["phase"] == "over"
        role = view["role"]
        blue, red = list(range(1, n + 1)), list(range(n + 1, 2 * n + 1))
        president = view["president"] if over else (card if role == "president" else
                                                    next(c for c in blue if role is None or c != card))
        bomber = view["bomber"] if over else (card if role == "bomber" else
                                             next(c for c in red if role is None or c != card))
        hostages = view["hostages"]
        moved = {c for pair in hostages for c in pair}
        draws = [president, bomber] + [a * SWAP_CODE + b for a, b in view["setup_swaps"]]
        for action in draws[:view["setup_step"]]:
            self.apply_action(action)
        for room in range(2):
            if self.setup_step >= view["setup_step"]:
                return
            # A Leader never moves: one of the room's players now (after the swaps) who is never a hostage.
            leader = card if view["leader_of"] == room else next(
                c for c in self._room_list(room) if c not in moved and c != card)
            self.apply_action(leader)
        known = {(e["round"], e["asker"]): e for e in view["exchanges"] + view["reports"]}
        current = view["current"]
        while self.phase != OVER:
            if self.phase == HOSTAGE_0:
                if self.round_index < len(hostages):
                    self._play({self.leader[0]: hostages[self.round_index][0]})
                    self._play({self.leader[1]: hostages[self.round_index][1]})
                    continue
                # The Leader of room 1 to choose: the other Leader has chosen, whom only it knows.
                if view["hostage_chosen"] is not None or (view["to_act"] and view["leader_of"] == 1):
                    self._play({self.leader[0]: view["hostage_chosen"] or self.legal_actions(self.leader[0] - 1)[0]})
                return
            asker, r = self._asker(), self.round_index + 1
            if current is not None and (current["round"], current["asker"]) == (r, asker):
                if current["target"] is not None:
                    self._play({asker: current["target"]})
                    if current["question"] is not None:
                        self._play({asker: SPEAK}, current["question"])
                return
            exchange = known.get((r, asker))
            if exchange is None:        # not heard by the seat: any other roommate, placeholder words
                others = [c for c in self._room_list(self.talk_room) if c not in (asker, card)]
                exchange = {"target": others[0], "question": "", "answer": ""}
            self._play({asker: exchange["target"]})
            self._play({asker: SPEAK}, exchange["question"])
            self._play({exchange["target"]: SPEAK}, exchange["answer"])

    def _play(self, dict choices, message=None):
        """Applies the simultaneous node's choices ({player: action}), with `message` from the speaker."""
        actions = [0] * self.num_cards
        messages = [None] * self.num_cards
        for card, action in choices.items():
            actions[card - 1] = action
            messages[card - 1] = message
        self.apply_actions(actions, messages if message is not None else None)


class Game(GameBase):
    """Two Rooms and a Boom: an even number of seats, the first half Team Blue, the second Team Red."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        if num_players % 2:
            raise ValueError(f"two_rooms_and_a_boom takes an even number of players, not {num_players}")
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_int(values, "setup_swaps", 0, MAX_SWAPS)
        if not isinstance(values["own_role_known"], bool):
            raise ValueError(f"parameter 'own_role_known' is true or false, not {values['own_role_known']!r}")

    def seat_sides(self) -> list:
        return [0 if seat < self.num_players // 2 else 1 for seat in range(self.num_players)]

    def new_initial_state(self) -> TwoRoomsState:
        return TwoRoomsState(self, self.parameters)

    def state_from_view(self, int player, dict view) -> TwoRoomsState:
        """A state consistent with seat `player`'s view, played from the start: the President and the
        Bomber where the view puts them (the seat itself, or another player of the right team), the
        setup swaps of the view, the Leaders (the seat when it leads, else a player of the room who was
        never a hostage), every exchange the seat took part in or was told of as it was, the others with
        another roommate and empty words, and the hostages of the view."""
        check_seat("two rooms and a boom", player, self.num_players)
        state = self.new_initial_state()
        state._rebuild(player, view)
        return state
