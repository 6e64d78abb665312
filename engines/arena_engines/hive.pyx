"""Hive, as GameBench plays it (reference gamebench.md section 2.5): the base game without Beetles.

Rules. Two players, Blue (player 1, seat 0, moves first) and Green (player 2, seat 1), play on an
unbounded grid of hexagonal cells. Each has a Queen Bee, 2 Spiders, 3 Grasshoppers and 3 Soldier Ants
(GameBench's counts; no Beetles). A turn is one of:
  - place a piece from the hand on an empty cell. The first piece of the game goes on (0,0); the second
    player's first piece goes next to it; every later piece must touch a piece of its owner and no
    enemy piece;
  - move one of one's pieces on the board, allowed only once one's own Queen Bee is placed:
      Queen Bee: slides one cell;
      Spider: slides exactly three cells, never entering a cell twice (its start included);
      Soldier Ant: slides any number of cells (to any cell it can reach by sliding);
      Grasshopper: jumps in a straight line over one or more adjacent pieces and lands on the first
      empty cell (it does not slide).
    One Hive: the pieces must stay one connected group, so a piece whose removal would split the hive
    cannot move. Freedom to Move: a slide from one cell to the next is possible only when exactly one
    of the two cells beside that step is occupied: both occupied is a gap too narrow to slide through,
    both empty would lose contact with the hive (the moving piece is lifted while its path is traced).
  - pass, only when no placement or move is legal (GameBench's "pass").
The Queen Bee must be placed by the player's fourth turn: from the fourth turn on, while it is in hand,
the only legal placements are the Queen's. Turns are counted per player and passes count.
A Queen Bee is captured when all six cells around it are occupied, by pieces of either player: its
owner loses. The game ends at once when a Queen is surrounded, or as a draw when a player has taken
250 turns (the first player's 250th turn, so at most 499 decisions) with neither Queen surrounded.

Returns: GameBench's match scores. 1 to the winner and 0 to the loser; 0.5 each for the draw at the
turn cap; when one action surrounds both Queens at once, "both_surrounded_score" each (preset
`gamebench`: 0.5, the reference's normalisation; `gamebench_code`: 0, as GameBench's code scored it).

Coordinates. Axial (q, r) with pointy-topped hexagons: q grows to the east, r to the south-east; the
six neighbours of (q, r) are (q+1, r) east, (q+1, r-1) north-east, (q, r-1) north-west, (q-1, r) west,
(q-1, r+1) south-west, (q, r+1) south-east. The first piece stands on (0,0) and coordinates never
shift afterwards (the hive may drift). GameBench printed odd-r offset coordinates "(x,y)" on its
image; this engine uses axial coordinates in the same "(q,r)" form.

Action ids. The hive can drift anywhere, so ids do not name absolute cells: they name a slot in the
frontier, the list of empty cells touching the hive, sorted by r then q (the first placement, on an
empty board, has the single frontier cell (0,0)). Every placement and every destination of a move
is a frontier cell (a moved piece must end touching another piece), and a frontier of n pieces has
at most 2n + 4 cells (each piece added to a connected group adds at most two), so with at most 20
pieces 44 slots suffice:
  - placement: id = 44 * type + slot, types 0 Queen, 1 Spider, 2 Grasshopper, 3 Ant (ids 0-175);
  - move: id = 176 + 44 * piece + slot, where piece is the mover's index among its owner's pieces:
    0 the Queen, 1-3 its Spiders, 4-6 its Grasshoppers, 7-9 its Ants, in the order they were placed
    (ids 176-615);
  - pass: id 616.
So every decision has fewer than 1024 ids, and the ids of one state list placements, then moves,
then pass. Texts are GameBench's action ids for the concrete actions: "place_(q,r)_<Type>" with
GameBench's type names Queen, Spider, Hopper (the Grasshopper), Ant; "move_(q,r)_(q,r)" (from, to);
"pass". GameBench asked for each action in two steps (first "list_place_<Type>" or
"list_move_<Type>_<hex>", then the concrete action); here a single decision names the concrete
action, and `observation_dict` gives each a description ("Place an Ant at (1,0).", "Move the Ant at
(0,0) to (2,-1).", "Pass the turn.").

Parsing (`parse_action`). GameBench's agents answered JSON {"action": "<action id>"}: when the reply
holds an "action" value the last one is read, otherwise the whole reply; within it the last answer
counts. Accepted: the action ids above (case, spaces and underscores free, e.g. "place (1, 0) Ant",
"move_Ant_(0,0)_(1,-1)" with GameBench's type naming the piece), the descriptions ("Place an Ant at
(1,0)", "Move the Ant at (0,0) to (2,-1)", "from (0,0) to (2,-1)"), type names Queen, Queen Bee, Bee,
Spider, Grasshopper, Hopper, Ant, Soldier Ant, and "pass". An answer naming a frontier cell is
returned even when illegal, so the referee can say so; a cell that is not next to the hive, a move
from a cell without a piece of the seat, GameBench's first-step "list_..." ids, or no answer raise
ActionParseError with the expected format. `default_action` is None: GameBench replaced an invalid
answer by a uniformly random legal action, the referee's failure policy.

Observation (both seats see everything). The text: the seat's colour, a summary of the rules in this
engine's words (GameBench showed its summary and expandable rule sections at each decision), the
turns left (GameBench's "You have N turns left": 250 minus the larger turn count), a text drawing of
the board (rows of hexagons, "bQ" a Blue Queen, "gA" a Green Ant, "." an empty cell next to the
hive), every piece with its cell, the pieces in hand, the last move and what to do now.
`observation_dict`: "player" (1 or 2), "colour", "opponent_colour", "pieces" ([{"owner" seat,
"colour", "type", "q", "r"}]), "in_hand" (per seat, counts by type), "queen_placed", "turns" (per
seat), "max_turns", "turns_left", "frontier" ([q, r] in slot order), "must_place_queen", "to_play",
"actions" (action id -> description for the seat to play, empty otherwise), "last_move", "history"
(every [seat, action id]; `state_from_view` replays it), "winner", "both_surrounded_score".
`observation_image` draws the board as a PNG (GameBench sent an image: Blue pieces light blue, Green
light green, each hexagon with its bug and cell, the empty cells around the hive in white with their
cells in red).

Presets. "gamebench": GameBench's setting: Queen 1, Spider 2, Grasshopper 3, Ant 3, 250 turns, a
double surround scores 0.5 each. "gamebench_code": the same with a double surround scored 0 each, as
GameBench's code did (this breaks the constant sum of 1 in that one case). Parameters: "spiders",
"grasshoppers", "ants" (0-3 each; the Queen is always one and Beetles are not implemented),
"max_turns" (1-250), "both_surrounded_score" (0-1).

Ambiguities (gamebench.md section 6 and the card):
  - Piece counts, beetle (item 9): the code's counts, Beetles 0, counts configurable.
  - "Turn" unit (item 9): 250 is a per-player turn count and the game ends when the larger count
    reaches it (the code's max over players), passes included.
  - Both Queens surrounded at once (item 10): (0.5, 0.5) in `gamebench`, (0, 0) in `gamebench_code`.
  - Draw at the cap (item 10): 0.5 each; GameBench's unused "fewer pieces around the Queen" tie-break
    is not applied.
  - Queen by the fourth turn: the rules' "by your fourth turn" holds from the fourth turn on. GameBench's
    code forced the Queen only on turn index 3 exactly; the two differ only when that turn was a pass.
    Placing the Queen on the first turn is allowed, as in GameBench.
  - One Hive and Freedom to Move: the rules as GameBench stated them (the card's rule sections),
    implemented as the standard Hive rules above. GameBench's code approximated Freedom to Move with a
    coarser test (a step was refused when its start or target cell had at most one empty neighbour);
    the card gives the rules, not that test, so the rules are followed here.
  - Two-step choice (section 1.1, 2.5): one decision per turn here; a random fallback is therefore
    uniform over the concrete actions rather than over pieces, then cells.
  - Illegal or unparseable answers (items 12, section 2.10): three attempts with feedback, then a
    uniformly random legal action -- the referee's policy; this engine parses and lists legal actions.
  - Image format (item 19): a fixed-style PNG of the board at each decision plus the deterministic text
    drawing; who moves first (item 18): Blue, seat 0; which agent takes it is the scheduler's coin flip.
"""

from libc.string cimport memcpy, memset

cdef extern from *:
    # Index of the lowest set bit of a non-zero value.
    int lowest_bit "__builtin_ctz"(unsigned int) nogil
    int lowest_bit_64 "__builtin_ctzll"(unsigned long long) nogil

import io
import math
import re

from arena_engines.core cimport State, TERMINAL_PLAYER
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, gamebench_answer, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    QUEEN = 0
    SPIDER = 1
    GRASSHOPPER = 2
    ANT = 3
    BUG_TYPES = 4
    PIECES_PER_SEAT = 10        # piece index: 0 Queen, 1-3 Spiders, 4-6 Grasshoppers, 7-9 Ants
    MAX_PIECES = 20             # piece id = seat * PIECES_PER_SEAT + piece index
    FRONTIER_SLOTS = 44         # 2 * MAX_PIECES + 4
    MOVE_BASE = 176             # BUG_TYPES * FRONTIER_SLOTS
    PASS_ACTION = 616           # MOVE_BASE + PIECES_PER_SEAT * FRONTIER_SLOTS
    QUEEN_DEADLINE = 3          # turn index (from 0) from which the Queen must be placed: the fourth turn
    MAX_TURNS_CAP = 250
    MAX_PLIES = 499             # 2 * MAX_TURNS_CAP - 1
    # Cells live on a 32 x 32 torus indexed by (q mod 32, r mod 32): a connected hive of at most 20
    # pieces with its frontier spans fewer than 32 cells along any axis, so no two cells in play alias.
    GRID_SIDE = 32
    GRID_MASK = 31
    GRID_CELLS = 1024

# How the game ended.
cdef enum:
    ONGOING = 0
    SURROUNDED = 1              # one Queen surrounded: its owner lost
    BOTH_SURROUNDED = 2
    TURN_CAP = 3

# One entry of the move log (see HiveState.log).
cdef enum:
    LOG_PIECE = 0               # piece id, or -1 for a pass
    LOG_PLACED = 1              # 1 for a placement, 0 for a move
    LOG_FROM_Q = 2
    LOG_FROM_R = 3
    LOG_TO_Q = 4
    LOG_TO_R = 5
    LOG_FIELDS = 6

SPEC = GameSpec(
    game_id="hive",
    display_name="Hive",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="deterministic",
    information="perfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=MAX_PLIES,
    description="Hexagonal-grid bug game without Beetles: Queen Bee, 2 Spiders, 3 Grasshoppers and 3 Soldier Ants "
                "each; place pieces next to your own, Queen by your fourth turn, then move them (One Hive, Freedom "
                "to Move). Surround the enemy Queen to win; a draw once a player has taken 250 turns. GameBench's Hive.",
    parameters=(
        Parameter("spiders", 2, "Spiders per player (0-3; GameBench: 2)"),
        Parameter("grasshoppers", 3, "Grasshoppers per player (0-3; GameBench: 3)"),
        Parameter("ants", 3, "Soldier Ants per player (0-3; GameBench: 3)"),
        Parameter("max_turns", 250, "the game is a draw once a player has taken this many turns (1-250; GameBench: 250)"),
        Parameter("both_surrounded_score", 0.5,
                  "each player's score when both Queens are surrounded at once (0.5: the reference's "
                  "normalisation; GameBench's code: 0)"),
    ),
    presets=(
        Preset("gamebench", "GameBench (gamebench.md section 2.5): Queen 1, Spider 2, Grasshopper 3, Ant 3, no Beetle, "
               "Queen by the fourth turn, 250 turns each then a draw (0.5/0.5), wins 1/0, both Queens surrounded "
               "at once 0.5/0.5 (section 6 item 10).",
               {"spiders": 2, "grasshoppers": 3, "ants": 3, "max_turns": 250, "both_surrounded_score": 0.5}),
        Preset("gamebench_code", "As gamebench, with GameBench's code's score 0/0 when both Queens are surrounded "
               "at once.",
               {"spiders": 2, "grasshoppers": 3, "ants": 3, "max_turns": 250, "both_surrounded_score": 0.0}),
    ),
    accepts_text_actions=True,
)

# A game cut at 14 turns each: the placements, the Queen deadline and a few moves, short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"max_turns": 14}}

TYPE_IDS = ("Queen", "Spider", "Hopper", "Ant")                 # GameBench's type names in action ids
TYPE_NAMES = ("Queen Bee", "Spider", "Grasshopper", "Soldier Ant")
TYPE_LETTERS = "QSGA"
COLOURS = ("Blue", "Green")

cdef int FIRST_INDEX[BUG_TYPES]             # first piece index of each type
cdef int TYPE_OF_INDEX[PIECES_PER_SEAT]
FIRST_INDEX[:] = [0, 1, 4, 7]
TYPE_OF_INDEX[:] = [QUEEN, SPIDER, SPIDER, SPIDER, GRASSHOPPER, GRASSHOPPER, GRASSHOPPER, ANT, ANT, ANT]

# Axial directions in order around the hexagon (east, north-east, north-west, west, south-west,
# south-east), so the two cells beside the step in direction d lie in directions d - 1 and d + 1.
cdef int DQ[6]
cdef int DR[6]
DQ[:] = [1, 1, 0, -1, -1, 0]
DR[:] = [0, -1, -1, 0, 1, 1]

# NEIGHBOR[cell * 6 + d]: the torus cell one step from `cell` in direction d.
cdef int NEIGHBOR[GRID_CELLS * 6]


cdef inline int _cell(int q, int r) noexcept:
    return ((q & GRID_MASK) << 5) | (r & GRID_MASK)


cdef void _fill_neighbors():
    cdef int q, r, d
    for q in range(GRID_SIDE):
        for r in range(GRID_SIDE):
            for d in range(6):
                NEIGHBOR[_cell(q, r) * 6 + d] = _cell(q + DQ[d], r + DR[d])


_fill_neighbors()

# SLIDES[occupied]: for a lifted piece whose neighbours in the directions set in `occupied` are
# occupied, the directions it can slide in (Freedom to Move): the target cell is empty and exactly one
# of the two cells beside the step is occupied (both: a gap too narrow; neither: it would leave the hive).
cdef int SLIDES[64]
# ARCS[occupied]: into how many separate arcs the occupied neighbours of a cell fall. A piece whose
# neighbours form a single arc stays connected to all of them through that arc when it leaves.
cdef int ARCS[64]


cdef void _fill_move_tables():
    cdef int occupied, d, left, right
    for occupied in range(64):
        SLIDES[occupied] = 0
        ARCS[occupied] = 0
        for d in range(6):
            left = occupied >> ((d + 5) % 6) & 1
            right = occupied >> ((d + 1) % 6) & 1
            if not occupied >> d & 1 and left != right:
                SLIDES[occupied] |= 1 << d
            if occupied >> d & 1 and not left:
                ARCS[occupied] += 1
        if occupied == 63:
            ARCS[occupied] = 1


_fill_move_tables()

# ---- answer parsing --------------------------------------------------------------------------------
def _type(str name) -> str:
    return r"(?<![a-z])(?P<" + name + r">queen[\s_]*bee|queen|bee|spider|grasshopper|hopper|soldier[\s_]*ant|ant)(?![a-z])"


def _coord(str name) -> str:
    return r"\(\s*(?P<" + name + r"_q>[+-]?\d{1,6})\s*,\s*(?P<" + name + r"_r>[+-]?\d{1,6})\s*\)"


# Every answer form; the last match in a reply is the answer.
_ANSWER = re.compile(
    r"(?P<list>(?<![a-z])list_(?:place|move))"
    r"|(?P<place_id>(?<![a-z])place[\s_]*" + _coord("id_cell") + r"[\s_]*" + _type("id_type") + r")"
    r"|(?P<place>(?<![a-z])place[\s_]+(?:(?:an?|the|my|your|one)\s+)?" + _type("place_type") +
    r"(?:[\s_]+piece)?[\s_]*(?:(?:at|on|onto|in|to)\s*)?" + _coord("place_cell") + r")"
    r"|(?P<move>(?:(?<![a-z])move[\s_]*(?:(?:the|my|your|an?)\s+)?(?:" + _type("move_type") + r"[\s_]*)?"
    r"(?:piece[\s_]*)?(?:(?:at|from|on)\s*)?|(?<![a-z])from\s*)" + _coord("start") + r"[\s_]*(?:(?:to|->|-)[\s_]*)?"
    + _coord("end") + r")"
    r"|(?P<pass>(?<![a-z])pass(?![a-z]))",
    re.IGNORECASE)


def _type_of(str name) -> int:
    word = re.sub(r"[\s_]+", "", name.lower())
    return {"queen": QUEEN, "queenbee": QUEEN, "bee": QUEEN, "spider": SPIDER, "grasshopper": GRASSHOPPER,
            "hopper": GRASSHOPPER, "ant": ANT, "soldierant": ANT}[word]


def _at(q, r) -> str:
    return f"({q},{r})"


def _article(str word) -> str:
    return ("an " if word[0] in "AEIOU" else "a ") + word


cdef class HiveState(State):
    cdef int pieces_of_type[BUG_TYPES]      # pieces of each type per seat (parameters)
    cdef int max_turns
    cdef double both_score
    cdef signed char grid[GRID_CELLS]       # piece id + 1 on each torus cell, 0 when empty
    # Kept up to date with the grid, so the move generator reads one byte where it would look at six
    # cells: AROUND[cell] has bit d set when the neighbour in direction d is occupied; touching[seat]
    # counts the seat's pieces next to each cell.
    cdef unsigned char around[GRID_CELLS]
    cdef unsigned char touching[2][GRID_CELLS]
    cdef bint placed[MAX_PIECES]
    cdef int piece_q[MAX_PIECES]            # absolute axial coordinates of placed pieces
    cdef int piece_r[MAX_PIECES]
    cdef int piece_cell[MAX_PIECES]         # their torus cells
    cdef int on_board                       # pieces placed so far
    cdef int turns[2]                       # turns each seat has taken, passes included
    cdef int to_move
    cdef int ending                         # ONGOING, SURROUNDED, BOTH_SURROUNDED or TURN_CAP
    cdef int winner                         # seat, when ending == SURROUNDED
    cdef int plies
    # The frontier (empty cells touching the hive) sorted by (r, q), kept up to date as pieces are put
    # and lifted; on an empty board the single cell (0,0), where the first piece goes.
    cdef int frontier_size
    cdef int frontier_cell[FRONTIER_SLOTS]
    cdef int frontier_q[FRONTIER_SLOTS]
    cdef int frontier_r[FRONTIER_SLOTS]
    # What each decision did (for the views; the search never reads it).
    cdef short log[MAX_PLIES][LOG_FIELDS]

    def __init__(self, game, spiders, grasshoppers, ants, int max_turns, double both_score):
        super().__init__(game, 2)
        self.pieces_of_type[QUEEN] = 1
        self.pieces_of_type[SPIDER] = spiders
        self.pieces_of_type[GRASSHOPPER] = grasshoppers
        self.pieces_of_type[ANT] = ants
        self.max_turns = max_turns
        self.both_score = both_score
        memset(self.grid, 0, sizeof(self.grid))
        memset(self.around, 0, sizeof(self.around))
        memset(self.touching, 0, sizeof(self.touching))
        cdef int i
        for i in range(MAX_PIECES):
            self.placed[i] = False
        self.on_board = 0
        self.turns[0] = self.turns[1] = 0
        self.to_move = 0
        self.ending = ONGOING
        self.winner = -1
        self.plies = 0
        self.frontier_cell[0] = _cell(0, 0)
        self.frontier_q[0] = self.frontier_r[0] = 0
        self.frontier_size = 1

    # ---- rules in C ----------------------------------------------------------------------------
    cdef void _frontier_add(self, int cell, int q, int r) noexcept:
        cdef int j = self.frontier_size
        while j > 0 and (self.frontier_r[j - 1] > r or (self.frontier_r[j - 1] == r and self.frontier_q[j - 1] > q)):
            self.frontier_cell[j] = self.frontier_cell[j - 1]
            self.frontier_q[j] = self.frontier_q[j - 1]
            self.frontier_r[j] = self.frontier_r[j - 1]
            j -= 1
        self.frontier_cell[j], self.frontier_q[j], self.frontier_r[j] = cell, q, r
        self.frontier_size += 1

    cdef void _frontier_remove(self, int cell) noexcept:
        cdef int j = 0
        while self.frontier_cell[j] != cell:
            j += 1
        self.frontier_size -= 1
        while j < self.frontier_size:
            self.frontier_cell[j] = self.frontier_cell[j + 1]
            self.frontier_q[j] = self.frontier_q[j + 1]
            self.frontier_r[j] = self.frontier_r[j + 1]
            j += 1

    cdef void _put(self, int piece, int slot) noexcept:
        """Puts `piece` on the frontier cell of `slot`."""
        cdef int d, next_to, seat = piece // PIECES_PER_SEAT
        cdef int cell = self.frontier_cell[slot], q = self.frontier_q[slot], r = self.frontier_r[slot]
        self.placed[piece] = True
        self.piece_q[piece], self.piece_r[piece], self.piece_cell[piece] = q, r, cell
        self.grid[cell] = piece + 1
        self._frontier_remove(cell)
        for d in range(6):
            next_to = NEIGHBOR[cell * 6 + d]
            if not self.grid[next_to] and not self.around[next_to]:
                self._frontier_add(next_to, q + DQ[d], r + DR[d])
            self.around[next_to] |= 1 << ((d + 3) % 6)
            self.touching[seat][next_to] += 1

    cdef void _lift(self, int piece) noexcept:
        """Takes the placed `piece` off the board (to move it)."""
        cdef int d, next_to, seat = piece // PIECES_PER_SEAT, cell = self.piece_cell[piece]
        self.grid[cell] = 0
        for d in range(6):
            next_to = NEIGHBOR[cell * 6 + d]
            self.around[next_to] &= ~(1 << ((d + 3) % 6))
            self.touching[seat][next_to] -= 1
            if not self.grid[next_to] and not self.around[next_to]:
                self._frontier_remove(next_to)
        # The cell it leaves touches the rest of the hive (One Hive), so it joins the frontier.
        self._frontier_add(cell, self.piece_q[piece], self.piece_r[piece])

    # While a sliding piece's paths are traced it is lifted from the occupancy masks alone.
    cdef inline void _hide(self, int cell) noexcept:
        cdef int d
        self.grid[cell] = 0
        for d in range(6):
            self.around[NEIGHBOR[cell * 6 + d]] &= ~(1 << ((d + 3) % 6))

    cdef inline void _unhide(self, int piece, int cell) noexcept:
        cdef int d
        self.grid[cell] = piece + 1
        for d in range(6):
            self.around[NEIGHBOR[cell * 6 + d]] |= 1 << ((d + 3) % 6)

    cdef inline bint _placeable(self, int player, int cell) noexcept:
        """Whether `player` may place on the frontier cell `cell`: anywhere for the first two pieces of
        the game, then touching an own piece and no enemy piece."""
        return self.on_board < 2 or (self.touching[player][cell] > 0 and self.touching[1 - player][cell] == 0)

    cdef void _find_cut_pieces(self, int piece, int parent, int* order, int* low, int* clock, bint* cut) noexcept:
        """Tarjan's articulation points over the pieces touching each other: a cut piece holds the hive
        together (One Hive)."""
        cdef int other, children = 0
        cdef int cell = self.piece_cell[piece]
        cdef unsigned int neighbours = self.around[cell]
        order[piece] = low[piece] = clock[0]
        clock[0] += 1
        while neighbours:
            other = self.grid[NEIGHBOR[cell * 6 + lowest_bit(neighbours)]] - 1
            neighbours &= neighbours - 1
            if order[other] < 0:
                children += 1
                self._find_cut_pieces(other, piece, order, low, clock, cut)
                if low[other] < low[piece]:
                    low[piece] = low[other]
                if parent >= 0 and low[other] >= order[piece]:
                    cut[piece] = True
            elif other != parent and order[other] < low[piece]:
                low[piece] = order[other]
        if parent < 0 and children > 1:
            cut[piece] = True

    cdef unsigned long long _destinations(self, int piece, signed char* slot_of) noexcept:
        """Frontier slots (as bits; `slot_of` maps frontier cells to their slots) the placed `piece` can
        move to, ignoring One Hive (checked by the caller). Sliding pieces are lifted from the board while
        their paths are traced; every cell they reach touches another piece, so it is a frontier cell."""
        cdef int start = self.piece_cell[piece], kind = TYPE_OF_INDEX[piece % PIECES_PER_SEAT]
        cdef unsigned long long found = 0
        cdef int d, a, b, c, head, tail
        cdef unsigned int ways, ways2, ways3
        cdef int queue[FRONTIER_SLOTS]
        if kind == GRASSHOPPER:
            for d in range(6):
                c = NEIGHBOR[start * 6 + d]
                if not self.grid[c]:
                    continue
                while self.grid[c]:
                    c = NEIGHBOR[c * 6 + d]
                found |= 1ULL << slot_of[c]
            return found
        self._hide(start)
        if kind == QUEEN:
            ways = SLIDES[self.around[start]]
            while ways:
                found |= 1ULL << slot_of[NEIGHBOR[start * 6 + lowest_bit(ways)]]
                ways &= ways - 1
        elif kind == SPIDER:
            ways = SLIDES[self.around[start]]
            while ways:
                a = NEIGHBOR[start * 6 + lowest_bit(ways)]
                ways &= ways - 1
                ways2 = SLIDES[self.around[a]]
                while ways2:
                    b = NEIGHBOR[a * 6 + lowest_bit(ways2)]
                    ways2 &= ways2 - 1
                    if b == start:
                        continue
                    ways3 = SLIDES[self.around[b]]
                    while ways3:
                        c = NEIGHBOR[b * 6 + lowest_bit(ways3)]
                        ways3 &= ways3 - 1
                        if c != start and c != a:
                            found |= 1ULL << slot_of[c]
        else:
            # Soldier Ant: every cell reachable by slides. They are frontier cells, so the slots found so
            # far mark the cells already queued, and the queue never holds more than the frontier.
            queue[0] = start
            head, tail = 0, 1
            while head < tail:
                a = queue[head]
                head += 1
                ways = SLIDES[self.around[a]]
                while ways:
                    b = NEIGHBOR[a * 6 + lowest_bit(ways)]
                    ways &= ways - 1
                    if b != start and not found >> slot_of[b] & 1:
                        found |= 1ULL << slot_of[b]
                        queue[tail] = b
                        tail += 1
        self._unhide(piece, start)
        return found

    cdef inline bint _queen_surrounded(self, int player) noexcept:
        cdef int queen = player * PIECES_PER_SEAT
        return self.placed[queen] and self.around[self.piece_cell[queen]] == 63

    cdef int _in_hand(self, int player, int kind) noexcept:
        cdef int i, n = 0
        for i in range(FIRST_INDEX[kind], FIRST_INDEX[kind] + self.pieces_of_type[kind]):
            if not self.placed[player * PIECES_PER_SEAT + i]:
                n += 1
        return n

    cdef bint _must_place_queen(self, int player) noexcept:
        return not self.placed[player * PIECES_PER_SEAT] and self.turns[player] >= QUEEN_DEADLINE

    # ---- C-level interface ---------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.ending != ONGOING:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef bint placeable[FRONTIER_SLOTS]
        cdef signed char slot_of[GRID_CELLS]       # only the frontier cells' entries are written and read
        cdef int order[MAX_PIECES]
        cdef int low[MAX_PIECES]
        cdef bint cut[MAX_PIECES]
        cdef int n = 0, slot, kind, i, piece, clock = 0
        cdef bint must_queen, placeable_known = False, may_cut = False
        cdef unsigned long long found
        if self.ending != ONGOING or player != self.to_move:
            return 0
        must_queen = self._must_place_queen(player)
        for kind in range(BUG_TYPES):
            if (must_queen and kind != QUEEN) or self._in_hand(player, kind) == 0:
                continue
            if not placeable_known:
                for slot in range(self.frontier_size):
                    placeable[slot] = self._placeable(player, self.frontier_cell[slot])
                placeable_known = True
            for slot in range(self.frontier_size):
                if placeable[slot]:
                    out[n] = kind * FRONTIER_SLOTS + slot
                    n += 1
        if self.placed[player * PIECES_PER_SEAT]:
            for slot in range(self.frontier_size):
                slot_of[self.frontier_cell[slot]] = slot
            # A piece whose neighbours form one unbroken arc is never a cut piece; only when some piece
            # has two arcs or more is the whole hive searched.
            for piece in range(MAX_PIECES):
                order[piece] = -1
                cut[piece] = False
                if self.placed[piece] and piece // PIECES_PER_SEAT == player and ARCS[self.around[self.piece_cell[piece]]] > 1:
                    may_cut = True
            if may_cut:
                # The hive is connected, so one search from the mover's own Queen reaches every piece.
                self._find_cut_pieces(player * PIECES_PER_SEAT, -1, order, low, &clock, cut)
            for i in range(PIECES_PER_SEAT):
                piece = player * PIECES_PER_SEAT + i
                if not self.placed[piece] or cut[piece]:
                    continue
                found = self._destinations(piece, slot_of)
                while found:
                    out[n] = MOVE_BASE + i * FRONTIER_SLOTS + lowest_bit_64(found)
                    n += 1
                    found &= found - 1
        if n == 0:
            out[0] = PASS_ACTION
            n = 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int player = self.to_move, slot, kind, i, piece = -1
        cdef short* entry = self.log[self.plies]
        cdef bint lost0, lost1
        cdef int to_cell
        entry[LOG_PIECE] = -1
        if action != PASS_ACTION:
            if action < MOVE_BASE:
                kind, slot = action // FRONTIER_SLOTS, action % FRONTIER_SLOTS
                for i in range(FIRST_INDEX[kind], FIRST_INDEX[kind] + self.pieces_of_type[kind]):
                    if not self.placed[player * PIECES_PER_SEAT + i]:
                        piece = player * PIECES_PER_SEAT + i
                        break
                self.on_board += 1
                entry[LOG_PLACED] = 1
                self._put(piece, slot)
            else:
                i, slot = (action - MOVE_BASE) // FRONTIER_SLOTS, (action - MOVE_BASE) % FRONTIER_SLOTS
                piece = player * PIECES_PER_SEAT + i
                entry[LOG_PLACED] = 0
                entry[LOG_FROM_Q] = <short>self.piece_q[piece]
                entry[LOG_FROM_R] = <short>self.piece_r[piece]
                # Lifting the piece reorders the frontier: find the destination's slot again.
                to_cell = self.frontier_cell[slot]
                self._lift(piece)
                slot = 0
                while self.frontier_cell[slot] != to_cell:
                    slot += 1
                self._put(piece, slot)
            entry[LOG_PIECE] = piece
            entry[LOG_TO_Q] = <short>self.piece_q[piece]
            entry[LOG_TO_R] = <short>self.piece_r[piece]
        self.plies += 1
        self.turns[player] += 1
        self.to_move = 1 - player
        lost0, lost1 = self._queen_surrounded(0), self._queen_surrounded(1)
        if lost0 and lost1:
            self.ending = BOTH_SURROUNDED
        elif lost0 or lost1:
            self.ending = SURROUNDED
            self.winner = 1 if lost0 else 0
        elif self.turns[0] >= self.max_turns or self.turns[1] >= self.max_turns:
            self.ending = TURN_CAP

    cdef void c_returns(self, double* out) noexcept:
        if self.ending == SURROUNDED:
            out[self.winner] = 1.0
            out[1 - self.winner] = 0.0
        elif self.ending == BOTH_SURROUNDED:
            out[0] = out[1] = self.both_score
        elif self.ending == TURN_CAP:
            out[0] = out[1] = 0.5
        else:
            out[0] = out[1] = 0.0

    cdef State c_clone(self):
        cdef HiveState s = HiveState.__new__(HiveState)
        self._copy_base_into(s)
        memcpy(s.pieces_of_type, self.pieces_of_type, sizeof(self.pieces_of_type))
        s.max_turns = self.max_turns
        s.both_score = self.both_score
        memcpy(s.grid, self.grid, sizeof(self.grid))
        memcpy(s.around, self.around, sizeof(self.around))
        memcpy(s.touching, self.touching, sizeof(self.touching))
        memcpy(s.placed, self.placed, sizeof(self.placed))
        memcpy(s.piece_q, self.piece_q, sizeof(self.piece_q))
        memcpy(s.piece_r, self.piece_r, sizeof(self.piece_r))
        memcpy(s.piece_cell, self.piece_cell, sizeof(self.piece_cell))
        s.on_board = self.on_board
        memcpy(s.turns, self.turns, sizeof(self.turns))
        s.to_move = self.to_move
        s.ending = self.ending
        s.winner = self.winner
        s.plies = self.plies
        s.frontier_size = self.frontier_size
        memcpy(s.frontier_cell, self.frontier_cell, sizeof(self.frontier_cell))
        memcpy(s.frontier_q, self.frontier_q, sizeof(self.frontier_q))
        memcpy(s.frontier_r, self.frontier_r, sizeof(self.frontier_r))
        memcpy(s.log, self.log, self.plies * LOG_FIELDS * sizeof(short))
        return s

    # ---- helpers for the views -------------------------------------------------------------------
    def _frontier_cells(self) -> list:
        """The frontier as [(q, r)] in slot order."""
        return [(self.frontier_q[i], self.frontier_r[i]) for i in range(self.frontier_size)]

    def _pieces(self) -> list:
        """Every placed piece as (seat, type, q, r), sorted by cell (r, then q)."""
        found = [(p // PIECES_PER_SEAT, TYPE_OF_INDEX[p % PIECES_PER_SEAT], self.piece_q[p], self.piece_r[p])
                 for p in range(MAX_PIECES) if self.placed[p]]
        return sorted(found, key=lambda piece: (piece[3], piece[2]))

    def _piece_at(self, int q, int r):
        """(seat, piece index) of the piece on (q, r), or None."""
        cdef int p
        for p in range(MAX_PIECES):
            if self.placed[p] and self.piece_q[p] == q and self.piece_r[p] == r:
                return p // PIECES_PER_SEAT, p % PIECES_PER_SEAT
        return None

    def _hand(self, int player) -> dict:
        return {TYPE_IDS[k]: self._in_hand(player, k) for k in range(BUG_TYPES)}

    def _log_entry(self, int ply) -> tuple:
        """(seat, piece type or None for a pass, placed?, from (q, r) or None, to (q, r) or None)."""
        cdef short* e = self.log[ply]
        if e[LOG_PIECE] < 0:
            return ply % 2, None, False, None, None
        kind = TYPE_OF_INDEX[e[LOG_PIECE] % PIECES_PER_SEAT]
        start = None if e[LOG_PLACED] else (e[LOG_FROM_Q], e[LOG_FROM_R])
        return ply % 2, kind, bool(e[LOG_PLACED]), start, (e[LOG_TO_Q], e[LOG_TO_R])

    def _narrate(self, int ply) -> str:
        seat, kind, placed, start, end = self._log_entry(ply)
        who = COLOURS[seat]
        if kind is None:
            return f"{who} passed"
        if placed:
            return f"{who} placed {_article(TYPE_NAMES[kind])} at {_at(*end)}"
        return f"{who} moved the {TYPE_NAMES[kind]} from {_at(*start)} to {_at(*end)}"

    # ---- actions ---------------------------------------------------------------------------------
    def _decode(self, int player, int action):
        """("place", type, cell) / ("move", piece index, from cell, to cell) / ("pass",) for an id of
        `player` in this state; ValueError for an id that names nothing here."""
        if not 0 <= action <= PASS_ACTION:
            raise ValueError(f"hive actions are 0-{PASS_ACTION}, not {action}")
        if action == PASS_ACTION:
            return ("pass",)
        frontier = self._frontier_cells()
        index, slot = divmod(action if action < MOVE_BASE else action - MOVE_BASE, FRONTIER_SLOTS)
        if slot >= len(frontier):
            raise ValueError(f"action {action} names frontier cell {slot}, but the frontier has {len(frontier)} cells")
        if action < MOVE_BASE:
            return ("place", index, frontier[slot])
        piece = player * PIECES_PER_SEAT + index
        if not self.placed[piece]:
            raise ValueError(f"action {action} moves a piece that is not on the board")
        return ("move", index, (self.piece_q[piece], self.piece_r[piece]), frontier[slot])

    def action_to_string(self, int player, int action) -> str:
        check_seat("hive", player)
        decoded = self._decode(player, action)
        if decoded[0] == "pass":
            return "pass"
        if decoded[0] == "place":
            return f"place_{_at(*decoded[2])}_{TYPE_IDS[decoded[1]]}"
        return f"move_{_at(*decoded[2])}_{_at(*decoded[3])}"

    def _describe(self, int player, int action) -> str:
        decoded = self._decode(player, action)
        if decoded[0] == "pass":
            return "Pass the turn."
        if decoded[0] == "place":
            return f"Place {_article(TYPE_IDS[decoded[1]])} at {_at(*decoded[2])}."
        return f"Move the {TYPE_IDS[TYPE_OF_INDEX[decoded[1]]]} at {_at(*decoded[2])} to {_at(*decoded[3])}."

    def parse_action(self, int player, str text) -> int:
        check_seat("hive", player)
        answer = gamebench_answer(text)
        match = last_match(_ANSWER, answer)
        if match is None:
            raise ActionParseError(f"could not read an action from {answer[:200]!r}. {self._answer_help()}")
        if match.group("list"):
            raise ActionParseError("GameBench's list_place_/list_move_ steps are not used here: name the concrete "
                                   f"action in one answer. {self._answer_help()}")
        if match.group("pass"):
            return PASS_ACTION
        frontier = self._frontier_cells()
        if match.group("move"):
            start = (int(match.group("start_q")), int(match.group("start_r")))
            found = self._piece_at(*start)
            if found is None or found[0] != player:
                raise ActionParseError(f"there is no piece of yours at {_at(*start)}. {self._answer_help()}")
            named, actual = match.group("move_type"), TYPE_OF_INDEX[found[1]]
            if named is not None and _type_of(named) != actual:
                raise ActionParseError(f"the piece at {_at(*start)} is {_article(TYPE_IDS[actual])}, not "
                                       f"{_article(TYPE_IDS[_type_of(named)])}. {self._answer_help()}")
            return MOVE_BASE + found[1] * FRONTIER_SLOTS + self._slot(frontier, int(match.group("end_q")),
                                                                       int(match.group("end_r")))
        prefix = "id" if match.group("place_id") else "place"
        return (_type_of(match.group(prefix + "_type")) * FRONTIER_SLOTS
                + self._slot(frontier, int(match.group(prefix + "_cell_q")), int(match.group(prefix + "_cell_r"))))

    def _slot(self, list frontier, int q, int r) -> int:
        if (q, r) not in frontier:
            raise ActionParseError(f"{_at(q, r)} is not an empty cell next to the hive, so nothing can be placed or "
                                   f"moved there. {self._answer_help()}")
        return frontier.index((q, r))

    def _answer_help(self) -> str:
        return ('Answer with one action id: "place_(q,r)_<Type>" to place a piece from your hand (types Queen, '
                'Spider, Hopper, Ant), "move_(q,r)_(q,r)" to move your piece from the first cell to the second, or '
                '"pass" when nothing else is legal; cells are axial coordinates (q,r), e.g. "place_(1,0)_Ant" '
                'or {"action": "move_(0,0)_(1,-1)"}.')

    def default_action(self, int player):
        return None     # GameBench plays a uniformly random legal action instead (the referee's policy)

    def text_action_spec(self, int player):
        if not self.legal_actions(player):
            return None
        return {"description": self._answer_help(), "max_length": 4000, "forbidden_words": []}

    # ---- observations ----------------------------------------------------------------------------
    def _rules_text(self) -> str:
        kinds = [f"{self.pieces_of_type[k]} {TYPE_NAMES[k]}{'s' if self.pieces_of_type[k] != 1 else ''}"
                 for k in range(BUG_TYPES) if self.pieces_of_type[k]]
        counts = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " and " + kinds[-1]
        return ("Rules: Hive is played on an unbounded grid of hexagonal cells. Each player has " + counts +
                " (no Beetles). On your turn you either place a piece from your hand on an empty cell or move one "
                "of your pieces on the board. The first piece of the game goes on (0,0) and the second player's "
                "first piece next to it; after that a new piece must touch one of your pieces and no enemy piece. "
                "Your Queen Bee must be placed by your fourth turn, and none of your pieces may move before it "
                "is placed. Queen Bee: slides one cell. Spider: slides exactly three cells without entering a "
                "cell twice. Soldier Ant: slides any number of cells around the hive. Grasshopper (Hopper): jumps "
                "in a straight line over one or more adjacent pieces and lands on the first empty cell. One Hive: "
                "the pieces must always form one connected group, so a piece whose removal would split them "
                "cannot move. Freedom to Move: a sliding piece passes from a cell to the next only if exactly one "
                "of the two cells beside that step is occupied (it cannot squeeze between two pieces or lose "
                "touch with the hive). If you have no legal action, you pass. A Queen Bee whose six neighbouring "
                "cells are all occupied, by pieces of either player, is captured and its owner loses; if both "
                f"are surrounded at once, each player scores {self.both_score:g}. When a player has taken {self.max_turns} turns without a "
                "surrounded Queen Bee, the game is a draw.")

    def _board_drawing(self) -> list:
        """Rows of hexagons: each row r is shifted half a cell from the next, so neighbours touch."""
        shown = {(q, r): f"{COLOURS[seat][0].lower()}{TYPE_LETTERS[kind]}" for seat, kind, q, r in self._pieces()}
        for q, r in self._frontier_cells():
            shown[(q, r)] = " ."
        rows = sorted({r for _, r in shown})
        column = {cell: 2 * (2 * cell[0] + cell[1]) for cell in shown}
        left = min(column.values())
        lines = []
        for r in rows:
            cells = sorted(q for q, rr in shown if rr == r)
            line = [" "] * (max(column[(q, r)] for q in cells) - left + 2)
            for q in cells:
                x = column[(q, r)] - left
                line[x:x + 2] = shown[(q, r)]
            lines.append(("".join(line), f"r={r}, q={cells[0]}..{cells[-1]}"))
        width = max(len(drawing) for drawing, _ in lines)
        return [f"{drawing.ljust(width)}   {label}" for drawing, label in lines]

    def _turns_left(self) -> int:
        return self.max_turns - max(self.turns[0], self.turns[1])

    def _last_move(self):
        return self._narrate(self.plies - 1) if self.plies else None

    def observation_string(self, int player) -> str:
        check_seat("hive", player)
        lines = [f"Hive. You are {COLOURS[player]} (player {player + 1}); your opponent is {COLOURS[1 - player]} "
                 f"(player {2 - player}). Surround the enemy Queen Bee.",
                 self._rules_text(),
                 f"Turns: {COLOURS[0]} has taken {self.turns[0]}, {COLOURS[1]} {self.turns[1]}; "
                 f"{self._turns_left()} turns left.",
                 "Board, in axial coordinates (q,r): q grows to the east and r to the south-east, so the neighbours "
                 "of (q,r) are (q+1,r), (q+1,r-1), (q,r-1), (q-1,r), (q-1,r+1) and (q,r+1). Each row below is one "
                 "value of r, drawn half a cell to the right of the row above; \"bQ\" is a Blue Queen Bee, \"gA\" "
                 "a Green Soldier Ant (Q Queen Bee, S Spider, G Grasshopper, A Soldier Ant), \".\" an empty cell "
                 "next to the hive.",
                 ""]
        if self.on_board:
            lines += self._board_drawing()
        else:
            lines.append("(empty: the first piece goes on (0,0))")
        lines.append("")
        for seat in (0, 1):
            mine = [f"{TYPE_NAMES[kind]} {_at(q, r)}" for s, kind, q, r in self._pieces() if s == seat]
            lines.append(f"{COLOURS[seat]} pieces on the board: {', '.join(mine) if mine else 'none'}.")
        for seat in (0, 1):
            hand = [f"{TYPE_NAMES[k]} {self._in_hand(seat, k)}" for k in range(BUG_TYPES) if self._in_hand(seat, k)]
            lines.append(f"{COLOURS[seat]} in hand: {', '.join(hand) if hand else 'nothing'}.")
        last = self._last_move()
        if last:
            lines.append(f"Last move: {last}.")
        lines.append(self._status(player))
        return "\n".join(lines)

    def _status(self, int player) -> str:
        if self.ending != ONGOING:
            return f"The game is over: {self.result_summary()}."
        if self.to_move != player:
            return f"Waiting for {COLOURS[self.to_move]} to play."
        turn = self.turns[player] + 1
        legal = self.legal_actions(player)
        if legal == [PASS_ACTION]:
            return f"Your turn {turn}: you have no legal placement or move, so you pass. Answer \"pass\"."
        parts = [f"Your turn {turn}."]
        if self._must_place_queen(player):
            parts.append("Your Queen Bee is still in hand: you must place it this turn.")
        elif not self.placed[player * PIECES_PER_SEAT]:
            parts.append(f"Your Queen Bee is still in hand; place it by your fourth turn (you cannot move pieces "
                         f"until it is placed).")
        parts.append(self._answer_help())
        return " ".join(parts)

    def observation_dict(self, int player) -> dict:
        check_seat("hive", player)
        to_play = self.c_current_player()
        return {
            "player": player + 1,
            "colour": COLOURS[player],
            "opponent_colour": COLOURS[1 - player],
            "pieces": [{"owner": seat, "colour": COLOURS[seat], "type": TYPE_IDS[kind], "q": q, "r": r}
                       for seat, kind, q, r in self._pieces()],
            "in_hand": [self._hand(0), self._hand(1)],
            "queen_placed": [bool(self.placed[0]), bool(self.placed[PIECES_PER_SEAT])],
            "turns": [self.turns[0], self.turns[1]],
            "max_turns": self.max_turns,
            "turns_left": self._turns_left(),
            "frontier": [[q, r] for q, r in self._frontier_cells()],
            "must_place_queen": to_play == player and self._must_place_queen(player),
            "to_play": to_play if to_play >= 0 else None,
            # GameBench's predefined actions: action id -> description.
            "actions": {self.action_to_string(player, a): self._describe(player, a) for a in self.legal_actions(player)},
            "last_move": self._last_move(),
            "history": [[seat, action] for seat, action in self._history],
            "winner": self.winner if self.ending == SURROUNDED else None,
            "both_surrounded_score": self.both_score,
        }

    def observation_image(self, int player):
        """A PNG of the board (GameBench's style): Blue pieces light blue, Green light green, each hexagon
        with its bug's letter and name and its cell; the empty cells next to the hive in white, their
        cells in red."""
        check_seat("hive", player)
        from PIL import Image, ImageDraw, ImageFont

        size, margin, header, footer = 512, 12, 36, 34
        image = Image.new("RGB", (size, size), "white")
        draw = ImageDraw.Draw(image)
        title = f"Hive - you are {COLOURS[player]}; " + (
            f"{COLOURS[self.to_move]} to move, {self._turns_left()} turns left" if self.ending == ONGOING
            else self.result_summary())
        small = ImageFont.load_default(size=12)
        draw.text((margin, 8), title, fill="black", font=ImageFont.load_default(size=14))
        draw.text((margin, size - footer), "Q Queen Bee, S Spider, G Grasshopper (Hopper), A Soldier Ant.\n"
                  "Blue pieces light blue, Green light green; white: empty cells next to the hive.",
                  fill="black", font=small)
        cells = [(q, r, seat, kind) for seat, kind, q, r in self._pieces()]
        cells += [(q, r, None, None) for q, r in self._frontier_cells()]
        root3 = math.sqrt(3.0)
        # Centres for hexagons of radius 1; then scaled to fit below the title.
        centres = [(root3 * (q + r / 2.0), 1.5 * r) for q, r, _, _ in cells]
        xs, ys = [x for x, _ in centres], [y for _, y in centres]
        width, height = max(xs) - min(xs) + root3, max(ys) - min(ys) + 2.0
        radius = min((size - 2 * margin) / width, (size - header - footer) / height, 60.0)
        x0 = (size - width * radius) / 2 - min(xs) * radius + root3 * radius / 2
        y0 = header + (size - header - footer - height * radius) / 2 - min(ys) * radius + radius
        letter_font = ImageFont.load_default(size=max(8, int(radius * 0.7)))
        label_font = ImageFont.load_default(size=max(6, int(radius * 0.24)))
        for (q, r, seat, kind), (cx, cy) in zip(cells, centres):
            x, y = x0 + cx * radius, y0 + cy * radius
            corners = [(x + radius * math.cos(math.radians(30 + 60 * k)), y + radius * math.sin(math.radians(30 + 60 * k)))
                       for k in range(6)]
            fill = "white" if seat is None else ("lightblue" if seat == 0 else "lightgreen")
            draw.polygon(corners, fill=fill, outline="black", width=2 if seat is not None else 1)
            if seat is None:
                draw.text((x, y), _at(q, r), fill="red", font=label_font, anchor="mm")
                continue
            draw.text((x, y - radius * 0.2), TYPE_LETTERS[kind], fill="black", font=letter_font, anchor="mm")
            draw.text((x, y + radius * 0.45), f"{TYPE_IDS[kind]} {_at(q, r)}", fill="black", font=label_font, anchor="mm")
        out = io.BytesIO()
        image.save(out, format="PNG")
        return "image/png", out.getvalue()

    def public_history(self) -> list:
        return [(seat, action, self._narrate(ply)) for ply, (seat, action) in enumerate(self._history)]

    def _ending_text(self) -> str:
        if self.ending == SURROUNDED:
            loser = 1 - self.winner
            queen = loser * PIECES_PER_SEAT
            return (f"{COLOURS[self.winner]} wins: {COLOURS[loser]}'s Queen Bee at "
                    f"{_at(self.piece_q[queen], self.piece_r[queen])} is surrounded")
        if self.ending == BOTH_SURROUNDED:
            return f"both Queen Bees are surrounded at once: {self.both_score:g} each"
        return f"draw: no Queen Bee surrounded after {self.max_turns} turns"

    def result_summary(self) -> str:
        if self.ending == ONGOING:
            return "game in progress"
        return self._ending_text()

    def result_details(self) -> dict:
        over = self.ending != ONGOING
        reasons = {SURROUNDED: "surrounded", BOTH_SURROUNDED: "both_surrounded", TURN_CAP: "turn_cap"}
        return {
            "winner": self.winner if self.ending == SURROUNDED else None,
            "reason": reasons.get(self.ending),
            "explanation": self._ending_text() if over else None,
            "scores": self.returns(),
            "turns": [self.turns[0], self.turns[1]],
            "pieces": [{"owner": seat, "type": TYPE_IDS[kind], "q": q, "r": r} for seat, kind, q, r in self._pieces()],
            "moves": [self._narrate(ply) for ply in range(self.plies)],
        }


class Game(GameBase):
    """Two-player Hive without Beetles, GameBench's rules."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        for name in ("spiders", "grasshoppers", "ants"):
            checked_int(self.parameters, name, 0, 3)
        checked_int(self.parameters, "max_turns", 1, MAX_TURNS_CAP)
        score = self.parameters["both_surrounded_score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            raise ValueError(f"parameter 'both_surrounded_score' must be a number in 0..1, not {score!r}")
        self.parameters["both_surrounded_score"] = float(score)

    def new_initial_state(self) -> HiveState:
        p = self.parameters
        return HiveState(self, p["spiders"], p["grasshoppers"], p["ants"], p["max_turns"], p["both_surrounded_score"])

    def state_from_view(self, int player, dict view) -> HiveState:
        """The state seat `player` observes: a replay of the move history (perfect information)."""
        check_seat("hive", player)
        return self.replay(view["history"])
