"""Sea Battle, as GameBench plays it (reference gamebench.md section 2.9): three ships a side on a rocky
grid; every ship afloat gets one order a turn, and all orders are carried out at once.

Board. A square grid of "board_size" x "board_size" squares (24), positions (x, y) as in GameBench: x
grows to the east, y to the north, (0, 0) is the south-west corner. Every border square is a rock, and
"interior_rocks" (14) more rocks lie inside. Ships face East, North, West or South.

Seats and sides. Seat i commands ship i: ships A, B, C (seats 0-2) form side 0, GameBench's agent 1;
ships X, Y, Z (seats 3-5) form side 1 (the letters of GameBench's first text board). `Game.seat_sides()`
is [0, 0, 0, 1, 1, 1]: one agent holds the three seats of its side (GameBench duplicated each agent into
its team), each seat deciding for its own ship.

Setup (chance nodes, all public). As GameBench's shuffle of the interior squares: ship A's square
(uniform among the free interior squares), then its heading (uniform among the four), then ship B's
square and heading, and so on to Z; then the interior rocks one by one, each uniform among the interior
squares still free. Outcome ids: a square is y * board_size + x; a heading is 0 East, 1 North, 2 West,
3 South.

Orders (a simultaneous node: every ship afloat acts; a sunk ship's seat has no decision). Action id =
2 * move + shot, with move 0 "move left", 1 "move forward", 2 "move right", 3 "don't move" and shot 0
"shoot left", 1 "shoot right"; the text is GameBench's action id "<move> then <shot>":
  0 move left then shoot left      1 move left then shoot right
  2 move forward then shoot left   3 move forward then shoot right
  4 move right then shoot left     5 move right then shoot right
  6 don't move then shoot left     7 don't move then shoot right
All eight are legal for every ship afloat. "move forward" sails one square ahead; "move left" ("move
right") sails one square ahead, turns a quarter to that side and sails one more square ahead.

Resolution (GameBench's code, step by step; "in seat order" means ships A, B, C, X, Y, Z):
  1. Every ship afloat claims a square: the one ahead if it moves, its own if it does not move.
  2. In seat order, each ship that was afloat at step 1: if its claim is a rock, it stays and takes
     "rock_damage" (1); otherwise, if a ship still afloat on another square claims the same square, it
     stays and takes "ram_damage" (1) -- a ship that does not move is rammed too when a ship claims its
     square; otherwise it sails to its claim. Ships are compared by position as GameBench does: two
     ships on the same square never collide with each other, and a ship sunk earlier in this step no
     longer counts.
  3. Every ship afloat that was ordered to move left or right turns a quarter to that side, whether or
     not it sailed in step 2.
  4. Those turning ships claim the square ahead; every other ship afloat claims its own square.
  5. In seat order, each ship afloat: a claim on a rock keeps it in place with "rock_damage"; a claim
     shared with a ship afloat on another square keeps it in place without damage; otherwise it sails.
  6. Every ship afloat at the start of this step fires once, in seat order, from its left or right side
     (relative to its heading after moving): the cannonball flies up to "cannon_range" (3) squares
     straight out and stops at the first rock or ship afloat on its way; a ship hit takes "cannon_damage"
     (2) (the first ship afloat in seat order when two share the square). A ship sunk by an earlier shot
     of the same volley still fires (GameBench fixed the list of shooters first) but no longer stops
     cannonballs.
A ship whose damage reaches "sink_damage" (10) sinks at once and takes no part in what follows, for the
rest of the game. Since only claims are compared, two ships sailing head-on pass through each other, and
a ship can follow another into the square that ship failed to leave: both then share it.

End and returns (GameBench's match scores; each seat gets its side's score). After each turn: if every
ship has sunk, 0.5 / 0.5; if only side-0 ships are afloat, side 0 scores 1 and side 1 scores 0; if only
side-1 ships are afloat, 0 / 1. A game still undecided after "max_turns" (200) turns ends there as a
draw, 0.5 / 0.5 (an arena limit: GameBench has no turn cap).

Observations (perfect information: every seat sees everything). The text gives the seat's ship and
side, a summary of the rules in this engine's words, the board as rows of symbols ("R" rock, "." open
water, a ship's letter, "*" for two ships on one square; sunk ships are gone), every ship's position,
heading, damage and whether it is the seat's own, a teammate or an opponent, the interior rocks, what
each ship was ordered and what happened to it last turn, and what to do now. `observation_dict` holds
the same: "board_size", "my_ship", "my_side", "team", "opponents", "ships" ([{ship, seat, side,
position [x, y], facing, damage, sunk}]), "rocks" (interior rocks [x, y], sorted), "grid" (rows, north
first), "rules" (the damage numbers, range and turn cap), "phase" ("setup", "orders", "over"), "turn"
(turns played), "acting", "last_turn" ({turn, ships: [{ship, order, from, facing_before, to, facing,
rock_hits, rams, shot, damage_taken, sank}]} or null), "actions" (GameBench-style action id ->
description, for a seat that must act), "winner" (the winning side or null) and "result".

Parsing (`parse_action`). GameBench's agents answered JSON {"action": "<action id>"}: when the reply
holds an "action" value, the last one is read, otherwise the whole reply; in it the last order counts.
Accepted: the action id ("move left then shoot right", case and spacing free, "then" optional, "dont
move" / "do not move" for "don't move") and GameBench's longer descriptions ("Move forward one square,
rotate left, move forward another square, then shoot to your left."). Anything else raises
ActionParseError with the expected format. `default_action` is None: GameBench replaced an invalid
answer by a uniformly random order, the referee's failure policy.

Parameters (section 6 item 9: the code's values, configurable): board_size 24 (7-24), interior_rocks
14, cannon_range 3, cannon_damage 2, rock_damage 1, ram_damage 1, sink_damage 10, max_turns 200
(1-1000).

Preset "gamebench": GameBench's released code at HEAD, exactly these defaults; scores 1/0, 0.5/0.5
when every ship sank.

Ambiguities (gamebench.md section 6 and the card):
  - Which version produced the paper's data (item 11): the HEAD version, eight combined "<move> then
    <shot>" orders a turn, as recommended.
  - Damage, movement, range, plan format (item 9): the code's values above, configurable.
  - "Cannot play the rest of the round" (item 9): a sunk ship is out for the rest of the game.
  - No turn cap in GameBench (item 20: arena limits are documented deviations): "max_turns" 200 ends an
    undecided game as a draw, 0.5 / 0.5, GameBench's score when both sides are sunk.
  - Illegal or unparseable answers (item 12, section 2.10): three attempts with feedback, then a
    uniformly random legal order -- the referee's policy; this engine parses and lists legal orders.
  - Sides (item 18): ships A, B, C are side 0 (GameBench's agent 1); which agent takes side 0 is the
    scheduler's coin flip, as in GameBench.
  - GameBench's code quirks are kept, being the rules its matches were played by: a ship that stays
    is rammed (and takes damage) when another ship claims its square; ships on the same square never
    collide with each other; head-on ships pass through each other; a ship may follow another into the
    square it could not leave; ships sunk during a step drop out of that step's checks at once, in seat
    order; a ship sunk during the volley still fires.
  - Views: GameBench's text listed the ships afloat and the seat's own damage only. Everything here is
    public (the orders are shown after each turn), so every ship's damage and last turn are shown, and
    the board is also drawn as a grid.
"""

from libc.string cimport memcpy, memset

import re

from arena_engines.core cimport CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, State
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, gamebench_answer, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_SHIPS = 6
    SHIPS_PER_SIDE = 3
    MAX_SIZE = 24
    MIN_SIZE = 7
    MAX_CELLS = MAX_SIZE * MAX_SIZE
    NUM_ORDERS = 8
    NUM_HEADINGS = 4        # 0 East, 1 North, 2 West, 3 South: counter-clockwise, so a left turn adds one
    MAX_TURN_CAP = 1000
    MAX_INTERIOR_ROCKS = 100

# The move part of an order (action // 2); the shot part is action % 2.
cdef enum:
    MOVE_LEFT = 0
    MOVE_FORWARD = 1
    MOVE_RIGHT = 2
    STAY = 3
    SHOOT_LEFT = 0

# What a ship's cannonball did last turn, besides the seat of the ship it hit.
cdef enum:
    NO_SHOT = -1        # the ship did not fire (sunk before, or while moving)
    SHOT_MISSED = 6     # flew its full range
    SHOT_ROCK = 7       # stopped by a rock

cdef enum:
    PLAYING = 0
    SIDE0_WON = 1
    SIDE1_WON = 2
    ALL_SUNK = 3
    TURN_LIMIT = 4

cdef int DX[NUM_HEADINGS]
cdef int DY[NUM_HEADINGS]
DX[:] = [1, 0, -1, 0]
DY[:] = [0, 1, 0, -1]

SHIP_LETTERS = "ABCXYZ"
HEADING_NAMES = ("East", "North", "West", "South")
MOVE_TEXTS = ("move left", "move forward", "move right", "don't move")
SHOT_TEXTS = ("shoot left", "shoot right")
ORDER_TEXTS = tuple(f"{m} then {s}" for m in MOVE_TEXTS for s in SHOT_TEXTS)
# This engine's descriptions of the orders (GameBench listed each order with one).
_MOVE_DESCRIPTIONS = ("Sail one square ahead, turn a quarter to the left and sail one more square ahead",
                      "Sail one square ahead", "Sail one square ahead, turn a quarter to the right and sail one "
                      "more square ahead", "Stay where you are")
ORDER_DESCRIPTIONS = tuple(f"{m}; then fire your cannon out of your {side} side." for m in _MOVE_DESCRIPTIONS
                           for side in ("left", "right"))
OUTCOME_NAMES = {PLAYING: "playing", SIDE0_WON: "side 0 won", SIDE1_WON: "side 1 won",
                 ALL_SUNK: "all ships sunk", TURN_LIMIT: "turn limit"}

SPEC = GameSpec(
    game_id="sea_battle",
    display_name="Sea Battle",
    rules_version="1",
    min_players=NUM_SHIPS,
    max_players=NUM_SHIPS,
    dynamics="simultaneous",
    chance="stochastic",
    information="perfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=2 * NUM_SHIPS + MAX_INTERIOR_ROCKS + MAX_TURN_CAP,
    description="Three ships a side on a 24 x 24 grid ringed and dotted with rocks. Each turn every ship afloat "
                "is ordered at once to move (left, forward, right or not) and to fire left or right; cannonballs "
                "fly 3 squares. Rocks and collisions damage too; 10 damage sinks a ship. Sink the other side.",
    parameters=(
        Parameter("board_size", 24, f"squares per side of the board, border rocks included ({MIN_SIZE}-{MAX_SIZE})"),
        Parameter("interior_rocks", 14, f"rocks placed at random inside the border (0-{MAX_INTERIOR_ROCKS})"),
        Parameter("cannon_range", 3, "squares a cannonball flies at most"),
        Parameter("cannon_damage", 2, "damage of a cannonball hit"),
        Parameter("rock_damage", 1, "damage for sailing into a rock"),
        Parameter("ram_damage", 1, "damage for claiming the same square as another ship on the first step of a move"),
        Parameter("sink_damage", 10, "damage at which a ship sinks"),
        Parameter("max_turns", 200, f"turns after which an undecided game ends as a draw (1-{MAX_TURN_CAP}; "
                                    "GameBench has no cap)"),
    ),
    presets=(
        Preset("gamebench", "GameBench's code at HEAD (gamebench.md section 2.9): 24 x 24 board, border and 14 "
               "interior rocks, 8 orders '<move> then <shot>', cannon range 3, damage 2 / 1 / 1, sinking at 10, "
               "scores 1/0 (0.5/0.5 when every ship sank); a draw after 200 turns (arena cap).",
               {"board_size": 24, "interior_rocks": 14, "cannon_range": 3, "cannon_damage": 2, "rock_damage": 1,
                "ram_damage": 1, "sink_damage": 10, "max_turns": 200}),
    ),
)

# A small board, weaker ships and a short cap keep a playthrough readable.
PLAYTHROUGH_OVERRIDES = {None: {"board_size": 8, "interior_rocks": 3, "sink_damage": 3, "max_turns": 12}}


cdef class SeaBattleState(State):
    cdef int size, interior_rocks, cannon_range, cannon_damage, rock_damage, ram_damage, sink_damage, max_turns
    cdef int step[NUM_HEADINGS]         # cell offset of one square ahead per heading
    cdef char rock[MAX_CELLS]
    cdef int pos[NUM_SHIPS]             # cell y * size + x, or -1 before the setup places the ship
    cdef int heading[NUM_SHIPS]         # -1 before the setup draws it
    cdef int damage[NUM_SHIPS]
    cdef int setup_step                 # chance outcomes applied so far
    cdef int turn                       # turns resolved
    cdef int outcome
    # The last turn, for the views: each ship's order (-1: it did not act), where it started, rock
    # hits and rams taken while moving, and what its cannonball did.
    cdef int last_order[NUM_SHIPS]
    cdef int last_from[NUM_SHIPS]
    cdef int last_from_heading[NUM_SHIPS]
    cdef int last_rock_hits[NUM_SHIPS]
    cdef int last_rams[NUM_SHIPS]
    cdef int last_shot[NUM_SHIPS]
    cdef list _turn_log                 # one record per resolved turn (Python views only; see apply_actions)

    def __init__(self, game, dict parameters):
        super().__init__(game, NUM_SHIPS)
        cdef int i, x, y
        self.size = parameters["board_size"]
        self.interior_rocks = parameters["interior_rocks"]
        self.cannon_range = parameters["cannon_range"]
        self.cannon_damage = parameters["cannon_damage"]
        self.rock_damage = parameters["rock_damage"]
        self.ram_damage = parameters["ram_damage"]
        self.sink_damage = parameters["sink_damage"]
        self.max_turns = parameters["max_turns"]
        for i in range(NUM_HEADINGS):
            self.step[i] = DX[i] + DY[i] * self.size
        memset(self.rock, 0, sizeof(self.rock))
        for y in range(self.size):
            for x in range(self.size):
                if x == 0 or y == 0 or x == self.size - 1 or y == self.size - 1:
                    self.rock[y * self.size + x] = 1
        for i in range(NUM_SHIPS):
            self.pos[i] = -1
            self.heading[i] = -1
            self.damage[i] = 0
        self.setup_step = 0
        self.turn = 0
        self.outcome = PLAYING
        self._clear_last_turn()
        self._turn_log = []

    cdef void _clear_last_turn(self) noexcept:
        cdef int i
        for i in range(NUM_SHIPS):
            self.last_order[i] = -1
            self.last_from[i] = -1
            self.last_from_heading[i] = -1
            self.last_rock_hits[i] = 0
            self.last_rams[i] = 0
            self.last_shot[i] = NO_SHOT

    # ---- rules in C ------------------------------------------------------------------------------
    cdef inline int _setup_length(self) noexcept:
        return 2 * NUM_SHIPS + self.interior_rocks

    cdef inline bint _afloat(self, int ship) noexcept:
        return self.damage[ship] < self.sink_damage

    cdef inline bint _is_interior(self, int cell) noexcept:
        cdef int x = cell % self.size, y = cell // self.size
        return 0 < x < self.size - 1 and 0 < y < self.size - 1

    cdef bint _ship_at(self, int cell) noexcept:
        cdef int i
        for i in range(NUM_SHIPS):
            if self.pos[i] == cell:
                return True
        return False

    cdef bint _collides(self, int ship, int* claim) noexcept:
        """Whether a ship afloat on another square than `ship` claims the same square (GameBench
        compares ships by position, so ships sharing a square never collide with each other)."""
        cdef int j
        for j in range(NUM_SHIPS):
            if self._afloat(j) and self.pos[j] != self.pos[ship] and claim[j] == claim[ship]:
                return True
        return False

    cdef void _resolve(self, int* orders) noexcept:
        cdef int i, j, k, move, side, cell, direction, hit
        cdef int claim[NUM_SHIPS]
        cdef bint listed[NUM_SHIPS]     # the ships a step goes through, fixed when the step starts
        # 1. Claims: the square ahead for a moving ship, its own square otherwise.
        for i in range(NUM_SHIPS):
            listed[i] = self._afloat(i)
            self.last_order[i] = orders[i] if listed[i] else -1
            self.last_from[i] = self.pos[i]
            self.last_from_heading[i] = self.heading[i]
            self.last_rock_hits[i] = 0
            self.last_rams[i] = 0
            self.last_shot[i] = NO_SHOT
            if listed[i]:
                claim[i] = self.pos[i] + (self.step[self.heading[i]] if orders[i] // 2 != STAY else 0)
        # 2. Rocks and rams; positions change as the loop goes, as in GameBench.
        for i in range(NUM_SHIPS):
            if not listed[i]:
                continue
            if self.rock[claim[i]]:
                self.damage[i] += self.rock_damage
                self.last_rock_hits[i] += 1
            elif self._collides(i, claim):
                self.damage[i] += self.ram_damage
                self.last_rams[i] += 1
            else:
                self.pos[i] = claim[i]
        # 3. Turning ships turn, whether or not they sailed.
        for i in range(NUM_SHIPS):
            if self._afloat(i):
                move = self.last_order[i] // 2
                if move == MOVE_LEFT:
                    self.heading[i] = (self.heading[i] + 1) % NUM_HEADINGS
                elif move == MOVE_RIGHT:
                    self.heading[i] = (self.heading[i] + 3) % NUM_HEADINGS
        # 4. Turning ships claim the square ahead, the others their own.
        for i in range(NUM_SHIPS):
            listed[i] = self._afloat(i)
            if listed[i]:
                move = self.last_order[i] // 2
                claim[i] = self.pos[i] + (self.step[self.heading[i]] if move == MOVE_LEFT or move == MOVE_RIGHT else 0)
        # 5. Rocks still damage; a shared claim only stops the ship.
        for i in range(NUM_SHIPS):
            if not listed[i]:
                continue
            if self.rock[claim[i]]:
                self.damage[i] += self.rock_damage
                self.last_rock_hits[i] += 1
            elif not self._collides(i, claim):
                self.pos[i] = claim[i]
        # 6. The volley: shooters fixed first, targets must still be afloat when the ball arrives.
        for i in range(NUM_SHIPS):
            listed[i] = self._afloat(i)
        for i in range(NUM_SHIPS):
            if not listed[i]:
                continue
            side = self.last_order[i] % 2
            direction = (self.heading[i] + (1 if side == SHOOT_LEFT else 3)) % NUM_HEADINGS
            cell = self.pos[i]
            self.last_shot[i] = SHOT_MISSED
            for k in range(self.cannon_range):
                cell += self.step[direction]
                if self.rock[cell]:
                    self.last_shot[i] = SHOT_ROCK
                    break
                hit = -1
                for j in range(NUM_SHIPS):
                    if self._afloat(j) and self.pos[j] == cell:
                        hit = j
                        break
                if hit >= 0:
                    self.damage[hit] += self.cannon_damage
                    self.last_shot[i] = hit
                    break
        self.turn += 1
        self.outcome = self._outcome()

    cdef int _outcome(self) noexcept:
        cdef int i, afloat0 = 0, afloat1 = 0
        for i in range(NUM_SHIPS):
            if self._afloat(i):
                if i < SHIPS_PER_SIDE:
                    afloat0 += 1
                else:
                    afloat1 += 1
        if afloat0 == 0 and afloat1 == 0:
            return ALL_SUNK
        if afloat1 == 0:
            return SIDE0_WON
        if afloat0 == 0:
            return SIDE1_WON
        if self.turn >= self.max_turns:
            return TURN_LIMIT
        return PLAYING

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.setup_step < self._setup_length():
            return CHANCE_PLAYER
        if self.outcome != PLAYING:
            return TERMINAL_PLAYER
        return SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return (0 <= player < NUM_SHIPS and self.c_current_player() == SIMULTANEOUS_PLAYER
                and self._afloat(player))

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int a
        if not self.c_is_acting(player):
            return 0
        for a in range(NUM_ORDERS):
            out[a] = a
        return NUM_ORDERS

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int n = 0, cell, i
        if self.c_current_player() != CHANCE_PLAYER:
            return 0
        if self.setup_step < 2 * NUM_SHIPS and self.setup_step % 2 == 1:
            for i in range(NUM_HEADINGS):
                actions[i] = i
                probs[i] = 1.0 / NUM_HEADINGS
            return NUM_HEADINGS
        for cell in range(self.size * self.size):
            if self._is_interior(cell) and not self.rock[cell] and not self._ship_at(cell):
                actions[n] = cell
                n += 1
        for i in range(n):
            probs[i] = 1.0 / n
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int s = self.setup_step
        if s < 2 * NUM_SHIPS:
            if s % 2 == 0:
                self.pos[s // 2] = action
            else:
                self.heading[s // 2] = action
        else:
            self.rock[action] = 1
        self.setup_step += 1

    cdef void c_apply_joint(self, int* actions) noexcept:
        self._resolve(actions)

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        cdef double side0 = 0.0
        if self.outcome == SIDE0_WON:
            side0 = 1.0
        elif self.outcome == ALL_SUNK or self.outcome == TURN_LIMIT:
            side0 = 0.5
        elif self.outcome == PLAYING:
            for i in range(NUM_SHIPS):
                out[i] = 0.0
            return
        for i in range(NUM_SHIPS):
            out[i] = side0 if i < SHIPS_PER_SIDE else 1.0 - side0

    cdef State c_clone(self):
        cdef SeaBattleState s = SeaBattleState.__new__(SeaBattleState)
        self._copy_base_into(s)
        s.size = self.size
        s.interior_rocks = self.interior_rocks
        s.cannon_range = self.cannon_range
        s.cannon_damage = self.cannon_damage
        s.rock_damage = self.rock_damage
        s.ram_damage = self.ram_damage
        s.sink_damage = self.sink_damage
        s.max_turns = self.max_turns
        memcpy(s.step, self.step, sizeof(self.step))
        memcpy(s.rock, self.rock, sizeof(self.rock))
        memcpy(s.pos, self.pos, sizeof(self.pos))
        memcpy(s.heading, self.heading, sizeof(self.heading))
        memcpy(s.damage, self.damage, sizeof(self.damage))
        s.setup_step = self.setup_step
        s.turn = self.turn
        s.outcome = self.outcome
        memcpy(s.last_order, self.last_order, sizeof(self.last_order))
        memcpy(s.last_from, self.last_from, sizeof(self.last_from))
        memcpy(s.last_from_heading, self.last_from_heading, sizeof(self.last_from_heading))
        memcpy(s.last_rock_hits, self.last_rock_hits, sizeof(self.last_rock_hits))
        memcpy(s.last_rams, self.last_rams, sizeof(self.last_rams))
        memcpy(s.last_shot, self.last_shot, sizeof(self.last_shot))
        s._turn_log = list(self._turn_log)      # records are never changed in place
        return s

    # ---- Python-level moves -------------------------------------------------------------------
    def apply_actions(self, actions, messages=None):
        """Applies one turn's orders (see State.apply_actions) and keeps its record for the public
        history and the result details. Search applies turns through c_apply_joint and never reads
        the record."""
        State.apply_actions(self, actions, messages)
        self._turn_log.append(self._last_turn_record())

    # ---- positions and names -------------------------------------------------------------------
    def _xy(self, int cell):
        return [cell % self.size, cell // self.size] if cell >= 0 else None

    def _at(self, int cell) -> str:
        return f"({cell % self.size}, {cell // self.size})"

    def _phase(self) -> str:
        cdef int p = self.c_current_player()
        if p == CHANCE_PLAYER:
            return "setup"
        return "over" if p == TERMINAL_PLAYER else "orders"

    def _setup_text(self, int step, int outcome) -> str:
        """The text of chance outcome `outcome` at setup step `step`."""
        if step < 2 * NUM_SHIPS:
            ship = SHIP_LETTERS[step // 2]
            if step % 2 == 0:
                return f"ship {ship} at {self._at(outcome)}"
            return f"ship {ship} faces {HEADING_NAMES[outcome]}"
        return f"rock at {self._at(outcome)}"

    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.setup_step >= self._setup_length():
                raise ValueError("the setup is over: there is no chance node")
            return self._setup_text(self.setup_step, action)
        check_seat("sea battle", player, NUM_SHIPS)
        if not 0 <= action < NUM_ORDERS:
            raise ValueError(f"sea battle orders are 0-{NUM_ORDERS - 1}, not {action}")
        return ORDER_TEXTS[action]

    # ---- answers ------------------------------------------------------------------------------
    def parse_action(self, int player, str text) -> int:
        check_seat("sea battle", player, NUM_SHIPS)
        answer = gamebench_answer(text)
        match = last_match(_ORDER, answer)
        if match is None:
            raise ActionParseError(f"could not read an order from {answer[:200]!r}. {_ANSWER_HELP}")
        return 2 * _move_of(match.group("move")) + SHOT_TEXTS.index("shoot " + match.group("side").lower())

    def default_action(self, int player):
        return None     # GameBench plays a uniformly random order instead (the referee's policy)

    def text_action_spec(self, int player):
        if not self.c_is_acting(player):
            return None
        return {"description": _ANSWER_HELP, "max_length": 4000, "forbidden_words": []}

    # ---- views --------------------------------------------------------------------------------
    def _grid(self) -> list:
        """The board's rows, north first: "R" rock, "." water, a ship's letter, "*" for two ships."""
        ships = {}
        for i in range(NUM_SHIPS):
            if self.pos[i] >= 0 and self._afloat(i):
                ships[self.pos[i]] = "*" if self.pos[i] in ships else SHIP_LETTERS[i]
        return [" ".join("R" if self.rock[y * self.size + x] else ships.get(y * self.size + x, ".")
                         for x in range(self.size)) for y in range(self.size - 1, -1, -1)]

    def _interior_rocks(self) -> list:
        """[x, y] of every rock inside the border, by x then y."""
        return [[x, y] for x in range(1, self.size - 1) for y in range(1, self.size - 1) if self.rock[y * self.size + x]]

    def _relation(self, int seat, int ship) -> str:
        if ship == seat:
            return "you"
        return "teammate" if (ship < SHIPS_PER_SIDE) == (seat < SHIPS_PER_SIDE) else "opponent"

    def _ships(self) -> list:
        return [{"ship": SHIP_LETTERS[i], "seat": i, "side": i // SHIPS_PER_SIDE, "position": self._xy(self.pos[i]),
                 "facing": HEADING_NAMES[self.heading[i]] if self.heading[i] >= 0 else None,
                 "damage": self.damage[i], "sunk": not self._afloat(i)} for i in range(NUM_SHIPS)]

    def _last_turn_record(self):
        """What happened in the last resolved turn (None before the first)."""
        if self.turn == 0:
            return None
        taken = [0] * NUM_SHIPS
        for i in range(NUM_SHIPS):
            if 0 <= self.last_shot[i] < NUM_SHIPS:
                taken[self.last_shot[i]] += self.cannon_damage
        ships = []
        for i in range(NUM_SHIPS):
            if self.last_order[i] < 0:
                continue
            shot = self.last_shot[i]
            taken[i] += self.last_rock_hits[i] * self.rock_damage + self.last_rams[i] * self.ram_damage
            ships.append({
                "ship": SHIP_LETTERS[i], "order": ORDER_TEXTS[self.last_order[i]],
                "from": self._xy(self.last_from[i]), "facing_before": HEADING_NAMES[self.last_from_heading[i]],
                "to": self._xy(self.pos[i]), "facing": HEADING_NAMES[self.heading[i]],
                "rock_hits": self.last_rock_hits[i], "rams": self.last_rams[i],
                "shot": None if shot == NO_SHOT else "missed" if shot == SHOT_MISSED else "rock" if shot == SHOT_ROCK
                else SHIP_LETTERS[shot],
                "damage_taken": taken[i], "sank": not self._afloat(i),
            })
        return {"turn": self.turn, "ships": ships}

    def _narrate_turn(self, record) -> str:
        parts = []
        for ship in record["ships"]:
            x0, y0 = ship["from"]
            x1, y1 = ship["to"]
            where = (f"stayed at ({x0}, {y0})" if ship["from"] == ship["to"] else f"sailed from ({x0}, {y0}) to ({x1}, {y1})")
            turned = f", now facing {ship['facing']}" if ship["facing"] != ship["facing_before"] else f", facing {ship['facing']}"
            events = []
            if ship["rock_hits"]:
                events.append(f"hit a rock{' twice' if ship['rock_hits'] == 2 else ''}")
            if ship["rams"]:
                events.append("collided with another ship")
            side = ship["order"].rsplit(" ", 1)[1]
            shot = ship["shot"]
            if shot is None:
                events.append("sank before firing")
            elif shot == "missed":
                events.append(f"fired {side}: no hit")
            elif shot == "rock":
                events.append(f"fired {side}: the cannonball hit a rock")
            else:
                events.append(f"fired {side}: hit ship {shot}")
            if ship["damage_taken"]:
                events.append(f"took {ship['damage_taken']} damage")
            if ship["sank"] and shot is not None:
                events.append("sank")
            parts.append(f"{ship['ship']} ({ship['order']}) {where}{turned}; " + "; ".join(events))
        return f"Turn {record['turn']}: " + ". ".join(parts) + "."

    def _rules_text(self) -> str:
        return (f"Rules: two sides of three ships on a board of {self.size} x {self.size} squares whose border squares are rocks; "
                f"{self.interior_rocks} more rocks lie inside. Each turn every ship afloat gets one order and all orders "
                "are carried out together: first every ship moves, then every ship fires one cannonball out of its "
                "left or right side. \"move forward\" sails one square ahead; \"move left\" or \"move right\" sails one "
                "square ahead, turns a quarter to that side and sails one more square ahead; \"don't move\" stays. "
                f"Sailing into a rock costs {self.rock_damage} damage and the ship stays put. When ships try to enter "
                f"the same square on the first step of a move, none of them moves and each takes {self.ram_damage} "
                "damage (a ship that stays is hit too when another tries to enter its square); on the second step of "
                f"a turning move they just stay put. A cannonball flies up to {self.cannon_range} squares and hits the "
                f"first ship in its way for {self.cannon_damage} damage; a rock stops it. A ship sinks at "
                f"{self.sink_damage} damage. Your side wins when all enemy ships have sunk and one of yours is afloat; "
                f"it is a draw if the last ships of both sides sink together, or if the game is undecided after "
                f"{self.max_turns} turns.")

    def _ship_line(self, int seat, int ship) -> str:
        who = {"you": "your ship", "teammate": "teammate", "opponent": "opponent"}[self._relation(seat, ship)]
        if self.pos[ship] < 0:
            return f"{SHIP_LETTERS[ship]} ({who}): not placed yet"
        facing = f" facing {HEADING_NAMES[self.heading[ship]]}" if self.heading[ship] >= 0 else ""
        status = (f"sunk at {self._at(self.pos[ship])}" if not self._afloat(ship)
                  else f"at {self._at(self.pos[ship])}{facing}")
        return f"{SHIP_LETTERS[ship]} ({who}): {status}, damage {self.damage[ship]} of {self.sink_damage}"

    def _status(self, int seat) -> str:
        phase = self._phase()
        if phase == "setup":
            return "The board is being set up."
        if phase == "over":
            return f"The game is over: {self.result_summary()}."
        if not self._afloat(seat):
            return f"Turn {self.turn + 1}: your ship has sunk; your teammates fight on."
        return (f"Turn {self.turn + 1} of at most {self.max_turns}: give ship {SHIP_LETTERS[seat]} its order. "
                f"{_ANSWER_HELP}")

    def observation_string(self, int player) -> str:
        check_seat("sea battle", player, NUM_SHIPS)
        side = player // SHIPS_PER_SIDE
        team = SHIP_LETTERS[SHIPS_PER_SIDE * side:SHIPS_PER_SIDE * (side + 1)]
        foes = SHIP_LETTERS[SHIPS_PER_SIDE * (1 - side):SHIPS_PER_SIDE * (2 - side)]
        lines = [f"Sea Battle. You command ship {SHIP_LETTERS[player]}; your side has ships {', '.join(team)}, the "
                 f"opponents ships {', '.join(foes)}.",
                 self._rules_text(),
                 f"Board (row y = {self.size - 1} at the top, column x = 0 at the left; positions are (x, y), North is "
                 "up; R rock, . open water, a letter a ship, * two ships on one square):"]
        width = len(str(self.size - 1))
        for y, row in zip(range(self.size - 1, -1, -1), self._grid()):
            lines.append(f"{y:>{width}} {row}")
        if self.size > 10:
            lines.append(" " * (width + 1) + " ".join(str(x // 10) if x >= 10 else " " for x in range(self.size)))
        lines.append(" " * (width + 1) + " ".join(str(x % 10) for x in range(self.size)))
        lines.append("Ships:")
        lines += ["  " + self._ship_line(player, i) for i in range(NUM_SHIPS)]
        rocks = self._interior_rocks()
        lines.append("Rocks inside the border: " + (", ".join(f"({x}, {y})" for x, y in rocks) if rocks else "none") + ".")
        record = self._last_turn_record()
        if record is not None:
            lines.append("Last turn. " + self._narrate_turn(record))
        lines.append(self._status(player))
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("sea battle", player, NUM_SHIPS)
        side = player // SHIPS_PER_SIDE
        acting = self.c_is_acting(player)
        return {
            "board_size": self.size,
            "my_ship": SHIP_LETTERS[player],
            "my_side": side,
            "team": list(SHIP_LETTERS[SHIPS_PER_SIDE * side:SHIPS_PER_SIDE * (side + 1)]),
            "opponents": list(SHIP_LETTERS[SHIPS_PER_SIDE * (1 - side):SHIPS_PER_SIDE * (2 - side)]),
            "rules": {"cannon_range": self.cannon_range, "cannon_damage": self.cannon_damage,
                      "rock_damage": self.rock_damage, "ram_damage": self.ram_damage,
                      "sink_damage": self.sink_damage, "max_turns": self.max_turns},
            "phase": self._phase(),
            "turn": self.turn,
            "acting": bool(acting),
            "ships": self._ships(),
            "rocks": self._interior_rocks(),
            "grid": self._grid(),
            "last_turn": self._last_turn_record(),
            # GameBench's predefined actions: action id -> description, for a seat that must act.
            "actions": {ORDER_TEXTS[a]: ORDER_DESCRIPTIONS[a] for a in range(NUM_ORDERS)} if acting else {},
            "winner": self._winner(),
            "result": OUTCOME_NAMES[self.outcome] if self._phase() == "over" else None,
        }

    def _winner(self):
        return 0 if self.outcome == SIDE0_WON else 1 if self.outcome == SIDE1_WON else None

    def public_history(self) -> list:
        """Everything is public: the setup draws; then, per turn, each ship's order and a summary of
        what happened (seat SIMULTANEOUS, action -1)."""
        out = []
        turn = 0
        for step, (seat, action) in enumerate(self._history):
            if seat == CHANCE_PLAYER:
                out.append((CHANCE_PLAYER, action, self._setup_text(step, action)))
                continue
            record = self._turn_log[turn] if turn < len(self._turn_log) else None
            turn += 1
            acted = {ship["ship"] for ship in record["ships"]} if record else set()
            out += [(i, a, f"ship {SHIP_LETTERS[i]}: {ORDER_TEXTS[a]}") for i, a in enumerate(action)
                    if SHIP_LETTERS[i] in acted]
            if record is not None:
                out.append((SIMULTANEOUS_PLAYER, -1, self._narrate_turn(record)))
        return out

    def result_summary(self) -> str:
        if self.outcome == PLAYING:
            return "game in progress"
        turns = f"after {self.turn} turn{'' if self.turn == 1 else 's'}"
        if self.outcome == ALL_SUNK:
            return f"draw {turns}: the last ships of both sides sank together"
        if self.outcome == TURN_LIMIT:
            return f"draw: the game was still undecided {turns}, the turn limit"
        winner = self._winner()
        ships = SHIP_LETTERS[SHIPS_PER_SIDE * winner:SHIPS_PER_SIDE * (winner + 1)]
        return f"side {winner} (ships {', '.join(ships)}) wins {turns}: every enemy ship has sunk"

    def result_details(self) -> dict:
        over = self.outcome != PLAYING
        returns = self.returns()
        return {
            "result": OUTCOME_NAMES[self.outcome],
            "winner": self._winner(),
            "scores": [returns[0], returns[SHIPS_PER_SIDE]] if over else None,
            "turns": self.turn,
            "ships": self._ships(),
            "rocks": self._interior_rocks(),
            "turn_log": list(self._turn_log),
        }


def _move_of(str text) -> int:
    lowered = text.lower()
    if "left" in lowered:
        return MOVE_LEFT
    if "right" in lowered:
        return MOVE_RIGHT
    if "forward" in lowered:
        return MOVE_FORWARD
    return STAY


_ANSWER_HELP = ('Answer with one of the eight orders "<move> then <shot>", e.g. "move forward then shoot left": the '
                'move is "move left", "move forward", "move right" or "don\'t move", the shot "shoot left" or '
                '"shoot right".')
# The move: an action id's ("move left", "don't move") or a GameBench description's ("Move forward one
# square, rotate left, move forward another square").
_MOVE = (r"(?P<move>(?:move\s+forward\s+one\s+square\s*(?:,\s*)?)?rotate\s+(?:left|right)"
         r"(?:\s*(?:,\s*)?move\s+forward\s+another\s+square)?"
         r"|move\s+forward\s+one\s+square|move\s+(?:left|forward|right)|do(?:n['’]?t|\s+not)\s+move)")
# The shot, after "then", a comma, "and" or a space: "shoot left", "shoot to your left", "shoot once right".
_SHOT = r"\s*(?:,\s*)?(?:and\s+)?(?:then\s+)?shoot\s+(?:once\s+|one\s+)?(?:to\s+(?:your|the)\s+)?(?P<side>left|right)\b"
_ORDER = re.compile(r"\b" + _MOVE + _SHOT, re.IGNORECASE)


class Game(GameBase):
    """Sea Battle, GameBench's 3 vs 3 naval game: six seats, one ship each, two sides."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        size = checked_int(values, "board_size", MIN_SIZE, MAX_SIZE)
        checked_int(values, "interior_rocks", 0, min(MAX_INTERIOR_ROCKS, (size - 2) ** 2 - NUM_SHIPS))
        checked_int(values, "cannon_range", 1, size)
        for name in ("cannon_damage", "rock_damage", "ram_damage"):
            checked_int(values, name, 0, 1000)
        checked_int(values, "sink_damage", 1, 1000)
        checked_int(values, "max_turns", 1, MAX_TURN_CAP)

    def seat_sides(self) -> list:
        return [i // SHIPS_PER_SIDE for i in range(NUM_SHIPS)]

    def new_initial_state(self) -> SeaBattleState:
        return SeaBattleState(self, self.parameters)

    def state_from_view(self, int player, dict view) -> SeaBattleState:
        """The state of any seat's view (an observation_dict): everything is public, so the board,
        ships, turn count and last turn are set from it directly. The rebuilt state has no log of the
        turns before it (its public history is empty)."""
        check_seat("sea battle", player, NUM_SHIPS)
        return _state_from_view(self, view)


cdef SeaBattleState _state_from_view(game, dict view):
    cdef SeaBattleState s = SeaBattleState(game, game.parameters)
    cdef int i, size = s.size, placed = 0
    if view["board_size"] != size:
        raise ValueError(f"the view's board is {view['board_size']} squares wide; this game's is {size}")
    for x, y in view["rocks"]:
        s.rock[y * size + x] = 1
    for i, ship in enumerate(view["ships"]):
        if ship["position"] is not None:
            s.pos[i] = ship["position"][1] * size + ship["position"][0]
            placed += 1
        if ship["facing"] is not None:
            s.heading[i] = HEADING_NAMES.index(ship["facing"])
            placed += 1
        s.damage[i] = ship["damage"]
    s.setup_step = placed + len(view["rocks"])
    s.turn = view["turn"]
    last = view["last_turn"]
    if last is not None:
        for ship in last["ships"]:
            i = SHIP_LETTERS.index(ship["ship"])
            s.last_order[i] = ORDER_TEXTS.index(ship["order"])
            s.last_from[i] = ship["from"][1] * size + ship["from"][0]
            s.last_from_heading[i] = HEADING_NAMES.index(ship["facing_before"])
            s.last_rock_hits[i] = ship["rock_hits"]
            s.last_rams[i] = ship["rams"]
            shot = ship["shot"]
            s.last_shot[i] = (NO_SHOT if shot is None else SHOT_MISSED if shot == "missed" else SHOT_ROCK
                              if shot == "rock" else SHIP_LETTERS.index(shot))
    s.outcome = s._outcome() if s.setup_step >= s._setup_length() else PLAYING
    s.move_number = s.setup_step + s.turn
    return s
