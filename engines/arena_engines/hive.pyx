"""Hive, as GameBench plays it (reference gamebench.md section 2.5): the base game without Beetles; and,
with the "beetles" parameter, the base game of the published Hive rules (preset `standard`).

Rules. Two players, Blue (player 1, seat 0, moves first) and Green (player 2, seat 1), play on an
unbounded grid of hexagonal cells. Each has a Queen Bee, 2 Spiders, 3 Grasshoppers and 3 Soldier Ants
(GameBench's counts; no Beetles), plus 2 Beetles in the `standard` preset. A turn is one of:
  - place a piece from the hand on an empty cell. The first piece of the game goes on (0,0); the second
    player's first piece goes next to it; every later piece must touch a piece of its owner and no
    enemy piece (with Beetles: a stack counts as the colour of its top piece);
  - move one of one's pieces on the board, allowed only once one's own Queen Bee is placed:
      Queen Bee: slides one cell;
      Spider: slides exactly three cells, never entering a cell twice (its start included);
      Soldier Ant: slides any number of cells (to any cell it can reach by sliding);
      Grasshopper: jumps in a straight line over one or more adjacent pieces and lands on the first
      empty cell (it does not slide);
      Beetle: moves one cell, onto an empty cell or onto the hive (on top of the piece or stack there);
      on top it moves one cell at a time over the hive and may drop down into an empty cell. A piece
      with a Beetle on top cannot move (only the top piece of a stack moves), and a stack counts as its
      top piece's colour for placement.
    One Hive: the pieces must stay one connected group, so a piece whose removal would split the hive
    cannot move (a stack is one cell of the hive: a Beetle leaving the top of a stack never splits it).
    Freedom to Move: a slide from one cell to the next is possible only when exactly one of the two
    cells beside that step is occupied: both occupied is a gap too narrow to slide through, both empty
    would lose contact with the hive (the moving piece is lifted while its path is traced). A Beetle
    climbing, moving on top or dropping down is blocked by a gate instead: the two cells beside the
    step both hold stacks higher than both the Beetle's start (without it) and its target, i.e. both
    at least as high as the higher of the start and the target with the Beetle counted on each
    (Mzinga's and OpenSpiel's formulation); on the ground it slides as above.
  - pass, only when no placement or move is legal (GameBench's "pass").
The Queen Bee must be placed by the player's fourth turn: from the fourth turn on, while it is in hand,
the only legal placements are the Queen's. Turns are counted per player and passes count.
A Queen Bee is captured when all six cells around it are occupied, by pieces of either player: its
owner loses; a Queen with a Beetle on top is surrounded the same way (its six neighbouring cells).
The game ends at once when a Queen is surrounded, or as a draw when a player has taken
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
onto an empty cell is a frontier cell (a moved piece must end touching another piece), and a
frontier of n occupied cells has at most 2n + 4 cells (each cell added to a connected group adds at
most two), so S slots suffice: S = 44 without Beetles (20 pieces), S = 52 with them (24 pieces):
  - placement: id = S * type + slot, types 0 Queen, 1 Spider, 2 Grasshopper, 3 Ant (ids 0 to 4S-1);
  - move to an empty cell: id = 4S + S * piece + slot, where piece is the mover's index among its
    owner's pieces: 0 the Queen, 1-3 its Spiders, 4-6 its Grasshoppers, 7-9 its Ants, in the order they
    were placed (ids 4S to 14S-1);
  - pass: id 14S.
  With Beetles, after the pass:
  - Beetle placement: id = 14S + 1 + slot;
  - Beetle move to an empty cell (a step on the ground or down from the hive): id = 15S + 1 + S * b +
    slot, b = 0 or 1 the Beetle in the order placed;
  - Beetle move onto the hive (the target is occupied, so it has no frontier slot): id = 17S + 1 +
    6 * b + d, with d the direction of the step (0 east, 1 north-east, 2 north-west, 3 west,
    4 south-west, 5 south-east).
Without Beetles this is GameBench's layout (ids 0-616, pass 616); with them ids run 0-896 (pass 728).
So every decision has fewer than 1024 ids, and the ids of one state are listed in increasing order.
Texts are GameBench's action ids for the concrete actions: "place_(q,r)_<Type>" with GameBench's type
names Queen, Spider, Hopper (the Grasshopper), Ant, and Beetle (GameBench's style: the type's name);
"move_(q,r)_(q,r)" (from, to; a Beetle's target may be occupied); "pass". GameBench asked for each
action in two steps (first "list_place_<Type>" or
"list_move_<Type>_<hex>", then the concrete action); here a single decision names the concrete
action, and `observation_dict` gives each a description ("Place an Ant at (1,0).", "Move the Ant at
(0,0) to (2,-1).", "Pass the turn.").

Parsing (`parse_action`). GameBench's agents answered JSON {"action": "<action id>"}: when the reply
holds an "action" value the last one is read, otherwise the whole reply; within it the last answer
counts. Accepted: the action ids above (case, spaces and underscores free, e.g. "place (1, 0) Ant",
"move_Ant_(0,0)_(1,-1)" with GameBench's type naming the piece), the descriptions ("Place an Ant at
(1,0)", "Move the Ant at (0,0) to (2,-1)", "from (0,0) to (2,-1)"), type names Queen, Queen Bee, Bee,
Spider, Grasshopper, Hopper, Ant, Soldier Ant (and Beetle when the game has Beetles), and "pass". A
move names the top piece of its start cell. An answer naming a frontier cell (or, for a Beetle, an
occupied cell next to it) is returned even when illegal, so the referee can say so; a cell that is
not next to the hive, a move
from a cell without a piece of the seat, GameBench's first-step "list_..." ids, or no answer raise
ActionParseError with the expected format. `default_action` is None: GameBench replaced an invalid
answer by a uniformly random legal action, the referee's failure policy.

Observation (both seats see everything). The text: the seat's colour, a summary of the rules in this
engine's words (GameBench showed its summary and expandable rule sections at each decision), the
turns left (GameBench's "You have N turns left": 250 minus the larger turn count), a text drawing of
the board (rows of hexagons, "bQ" a Blue Queen, "gA" a Green Ant, "." an empty cell next to the
hive; with Beetles a stack shows its top piece and its height, "gB2" a Green Beetle on a stack of two),
every piece with its cell (a covered piece or the top of a stack says so), the pieces in hand, the
last move and what to do now.
`observation_dict`: "player" (1 or 2), "colour", "opponent_colour", "pieces" ([{"owner" seat,
"colour", "type", "q", "r"}]), "in_hand" (per seat, counts by type), "queen_placed", "turns" (per
seat), "max_turns", "turns_left", "frontier" ([q, r] in slot order), "must_place_queen", "to_play",
"actions" (action id -> description for the seat to play, empty otherwise), "last_move", "history"
(every [seat, action id]; `state_from_view` replays it), "winner", "both_surrounded_score"; with Beetles
also each piece's "level" (0 on the ground) and "stacks" ([{"q", "r", "height", "pieces" from the
bottom up}] for every cell holding two pieces or more); "in_hand" then counts Beetles too.
`observation_image` draws the board as a PNG (GameBench sent an image: Blue pieces light blue, Green
light green, each hexagon with its bug and cell, the empty cells around the hive in white with their
cells in red; a stack is drawn as its top piece with "xN", its height).

Presets. "gamebench": GameBench's setting: Queen 1, Spider 2, Grasshopper 3, Ant 3, 250 turns, a
double surround scores 0.5 each. "gamebench_code": the same with a double surround scored 0 each, as
GameBench's code did (this breaks the constant sum of 1 in that one case). "standard": the base game of
the published Hive rules: Queen 1, Beetle 2, Spider 2, Grasshopper 3, Ant 3; a double surround is a
draw (0.5 each, as the rules and OpenSpiel have it). Turn cap: 250 turns each, then a draw (0.5 each),
OpenSpiel's cap. The published rules have no cap (their other draw, two players stuck repeating the
same moves by agreement, is not modelled), but the engine needs a bounded game (MCTS, the referee
and the move log are sized by it), and OpenSpiel's hive, the benchmark's peer, ends as a draw after
500 moves; this engine stops at the first player's 250th turn (move 499), one move earlier, as in
GameBench's presets (see the OpenSpiel ambiguity below). Parameters: "spiders",
"grasshoppers", "ants" (0-3 each; the Queen is always one), "beetles" (0-2, default 0 so GameBench's
presets are unchanged; with 0 it is left out of the game's parameters, which read as they did before
it existed), "max_turns" (1-250), "both_surrounded_score" (0-1).

Ambiguities (gamebench.md section 6 and the card):
  - Piece counts, beetle (item 9): the code's counts, Beetles 0, counts configurable; the `standard`
    preset adds the published rules' 2 Beetles (not GameBench's game: for play against OpenSpiel and
    Hive players).
  - Beetle gates: the published rules say a Beetle cannot pass through a gate on top of the hive;
    the usual formulation (Mzinga, Boardspace, OpenSpiel) is followed: both side stacks higher than
    the higher of the Beetle's start (without it) and its target.
  - OpenSpiel's hive (the benchmark's peer, tests/engines/test_hive_beetles.py plays both move for
    move): the same rules on random games, with three differences. It forbids the Queen on a
    player's first turn (the tournament opening rule; the published base rules allow it, so this
    engine does); it ends the game as a draw after 500 moves, one move later than this engine's
    250-turn cap (the first player's 250th turn); and its One Hive search starts from the White Queen,
    so while White's Queen is in hand it pins nothing and lets Black's pieces split the hive (a bug
    there; this engine applies One Hive always). It is also played on a bounded board (radius 8 by
    default, 14 at most) and ends a game as a draw when a piece would leave it.
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
    BEETLE = 4
    BUG_TYPES = 5
    GAMEBENCH_TYPES = 4         # Queen, Spider, Grasshopper, Ant: placement ids type * slots + slot
    PIECES_PER_SEAT = 12        # piece index: 0 Queen, 1-3 Spiders, 4-6 Grasshoppers, 7-9 Ants, 10-11 Beetles
    FIRST_BEETLE = 10
    MAX_PIECES = 24             # piece id = seat * PIECES_PER_SEAT + piece index
    GAMEBENCH_SLOTS = 44        # frontier slots without Beetles: 2 * 20 pieces + 4
    MAX_SLOTS = 52              # with Beetles: 2 * 24 pieces + 4
    GAMEBENCH_PIECES = 10       # pieces 0-9, whose move ids are 4 * slots + slots * piece + slot
    QUEEN_DEADLINE = 3          # turn index (from 0) from which the Queen must be placed: the fourth turn
    MAX_TURNS_CAP = 250
    MAX_PLIES = 499             # 2 * MAX_TURNS_CAP - 1
    # Cells live on a 32 x 32 torus indexed by (q mod 32, r mod 32): a connected hive of at most 24
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
    description="Hexagonal-grid bug game: Queen Bee, 2 Spiders, 3 Grasshoppers and 3 Soldier Ants each, plus 2 "
                "Beetles in the standard preset; place pieces next to your own, Queen by your fourth turn, then "
                "move them (One Hive, Freedom to Move). Surround the enemy Queen to win; a draw once a player has "
                "taken 250 turns. GameBench's Hive (no Beetles) and the published base game.",
    parameters=(
        Parameter("spiders", 2, "Spiders per player (0-3; GameBench: 2)"),
        Parameter("grasshoppers", 3, "Grasshoppers per player (0-3; GameBench: 3)"),
        Parameter("ants", 3, "Soldier Ants per player (0-3; GameBench: 3)"),
        Parameter("beetles", 0, "Beetles per player (0-2; GameBench: 0, the published base game: 2)"),
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
        Preset("standard", "The base game of the published Hive rules: Queen 1, Beetle 2, Spider 2, Grasshopper 3, "
               "Ant 3, Queen by the fourth turn; both Queens surrounded at once is a draw (0.5/0.5), and, as in "
               "OpenSpiel's hive, a game still open after 250 turns each is a draw.",
               {"spiders": 2, "grasshoppers": 3, "ants": 3, "beetles": 2, "max_turns": 250,
                "both_surrounded_score": 0.5}),
    ),
    accepts_text_actions=True,
)

# A game cut at 14 turns each: the placements, the Queen deadline and a few moves, short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"max_turns": 14}}

TYPE_IDS = ("Queen", "Spider", "Hopper", "Ant", "Beetle")       # GameBench's type names in action ids
TYPE_NAMES = ("Queen Bee", "Spider", "Grasshopper", "Soldier Ant", "Beetle")
TYPE_LETTERS = "QSGAB"
COLOURS = ("Blue", "Green")

cdef int FIRST_INDEX[BUG_TYPES]             # first piece index of each type
cdef int TYPE_OF_INDEX[PIECES_PER_SEAT]
FIRST_INDEX[:] = [0, 1, 4, 7, FIRST_BEETLE]
TYPE_OF_INDEX[:] = [QUEEN, SPIDER, SPIDER, SPIDER, GRASSHOPPER, GRASSHOPPER, GRASSHOPPER, ANT, ANT, ANT, BEETLE, BEETLE]

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
_GAMEBENCH_TYPE_NAMES = r"queen[\s_]*bee|queen|bee|spider|grasshopper|hopper|soldier[\s_]*ant|ant"


def _type(str name, str names) -> str:
    return r"(?<![a-z])(?P<" + name + r">" + names + r")(?![a-z])"


def _coord(str name) -> str:
    return r"\(\s*(?P<" + name + r"_q>[+-]?\d{1,6})\s*,\s*(?P<" + name + r"_r>[+-]?\d{1,6})\s*\)"


def _answer_pattern(str names):
    """Every answer form, naming pieces by `names`; the last match in a reply is the answer."""
    return re.compile(
        r"(?P<list>(?<![a-z])list_(?:place|move))"
        r"|(?P<place_id>(?<![a-z])place[\s_]*" + _coord("id_cell") + r"[\s_]*" + _type("id_type", names) + r")"
        r"|(?P<place>(?<![a-z])place[\s_]+(?:(?:an?|the|my|your|one)\s+)?" + _type("place_type", names) +
        r"(?:[\s_]+piece)?[\s_]*(?:(?:at|on|onto|in|to)\s*)?" + _coord("place_cell") + r")"
        r"|(?P<move>(?:(?<![a-z])move[\s_]*(?:(?:the|my|your|an?)\s+)?(?:" + _type("move_type", names) + r"[\s_]*)?"
        r"(?:piece[\s_]*)?(?:(?:at|from|on)\s*)?|(?<![a-z])from\s*)" + _coord("start") + r"[\s_]*(?:(?:to|->|-)[\s_]*)?"
        + _coord("end") + r")"
        r"|(?P<pass>(?<![a-z])pass(?![a-z]))",
        re.IGNORECASE)


# GameBench's game knows no Beetle; with Beetles the type name is read too.
_ANSWER = _answer_pattern(_GAMEBENCH_TYPE_NAMES)
_ANSWER_WITH_BEETLES = _answer_pattern(_GAMEBENCH_TYPE_NAMES + "|beetle")


def _type_of(str name) -> int:
    word = re.sub(r"[\s_]+", "", name.lower())
    return {"queen": QUEEN, "queenbee": QUEEN, "bee": QUEEN, "spider": SPIDER, "grasshopper": GRASSHOPPER,
            "hopper": GRASSHOPPER, "ant": ANT, "soldierant": ANT, "beetle": BEETLE}[word]


# The axial steps in direction order, for the Beetles' climb ids.
DIRECTIONS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def _at(q, r) -> str:
    return f"({q},{r})"


def _article(str word) -> str:
    return ("an " if word[0] in "AEIOU" else "a ") + word


cdef class HiveState(State):
    cdef int pieces_of_type[BUG_TYPES]      # pieces of each type per seat (parameters)
    cdef int max_turns
    cdef double both_score
    # The action-id layout (see the module docstring): `slots` ids per frontier range, and where each
    # range starts.
    cdef int slots
    cdef int move_base
    cdef int pass_action
    cdef int beetle_place_base
    cdef int beetle_move_base
    cdef int climb_base
    cdef int num_ids
    cdef int total_pieces                   # of both seats
    cdef signed char grid[GRID_CELLS]       # id + 1 of the piece on top of each torus cell, 0 when empty
    cdef unsigned char height[GRID_CELLS]   # pieces stacked on each cell
    cdef signed char below[MAX_PIECES]      # the piece a piece stands on, -1 on the ground
    # Kept up to date with the grid, so the move generator reads one byte where it would look at six
    # cells: AROUND[cell] has bit d set when the neighbour in direction d is occupied; touching[seat]
    # counts the seat's stacks (by their top piece) next to each cell.
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
    cdef int frontier_cell[MAX_SLOTS]
    cdef int frontier_q[MAX_SLOTS]
    cdef int frontier_r[MAX_SLOTS]
    # What each decision did (for the views; the search never reads it).
    cdef short log[MAX_PLIES][LOG_FIELDS]

    def __init__(self, game, spiders, grasshoppers, ants, int max_turns, double both_score, int beetles=0):
        super().__init__(game, 2)
        self.pieces_of_type[QUEEN] = 1
        self.pieces_of_type[SPIDER] = spiders
        self.pieces_of_type[GRASSHOPPER] = grasshoppers
        self.pieces_of_type[ANT] = ants
        self.pieces_of_type[BEETLE] = beetles
        self.max_turns = max_turns
        self.both_score = both_score
        # Without Beetles the frontier holds at most 44 cells and the layout is GameBench's original one.
        self.slots = MAX_SLOTS if beetles else GAMEBENCH_SLOTS
        self.move_base = GAMEBENCH_TYPES * self.slots
        self.pass_action = self.move_base + GAMEBENCH_PIECES * self.slots
        self.beetle_place_base = self.pass_action + 1
        self.beetle_move_base = self.beetle_place_base + self.slots
        self.climb_base = self.beetle_move_base + 2 * self.slots
        self.num_ids = self.climb_base + 12 if beetles else self.pass_action + 1
        self.total_pieces = 2 * (1 + spiders + grasshoppers + ants + beetles)
        memset(self.grid, 0, sizeof(self.grid))
        memset(self.height, 0, sizeof(self.height))
        memset(self.around, 0, sizeof(self.around))
        memset(self.touching, 0, sizeof(self.touching))
        cdef int i
        for i in range(MAX_PIECES):
            self.placed[i] = False
            self.below[i] = -1
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
        """Puts `piece` on the (empty) frontier cell of `slot`."""
        cdef int d, next_to, seat = piece // PIECES_PER_SEAT
        cdef int cell = self.frontier_cell[slot], q = self.frontier_q[slot], r = self.frontier_r[slot]
        self.placed[piece] = True
        self.piece_q[piece], self.piece_r[piece], self.piece_cell[piece] = q, r, cell
        self.grid[cell] = piece + 1
        self.height[cell] = 1
        self.below[piece] = -1
        self._frontier_remove(cell)
        for d in range(6):
            next_to = NEIGHBOR[cell * 6 + d]
            if not self.grid[next_to] and not self.around[next_to]:
                self._frontier_add(next_to, q + DQ[d], r + DR[d])
            self.around[next_to] |= 1 << ((d + 3) % 6)
            self.touching[seat][next_to] += 1

    cdef void _lift(self, int piece) noexcept:
        """Takes the placed `piece`, alone on its cell, off the board (to move it)."""
        cdef int d, next_to, seat = piece // PIECES_PER_SEAT, cell = self.piece_cell[piece]
        self.grid[cell] = 0
        self.height[cell] = 0
        for d in range(6):
            next_to = NEIGHBOR[cell * 6 + d]
            self.around[next_to] &= ~(1 << ((d + 3) % 6))
            self.touching[seat][next_to] -= 1
            if not self.grid[next_to] and not self.around[next_to]:
                self._frontier_remove(next_to)
        # The cell it leaves touches the rest of the hive (One Hive), so it joins the frontier.
        self._frontier_add(cell, self.piece_q[piece], self.piece_r[piece])

    cdef void _recolour(self, int cell, int old_seat, int new_seat) noexcept:
        """The top of the stack on `cell` changed owner: placement reads the top colours."""
        cdef int d, next_to
        if old_seat == new_seat:
            return
        for d in range(6):
            next_to = NEIGHBOR[cell * 6 + d]
            self.touching[old_seat][next_to] -= 1
            self.touching[new_seat][next_to] += 1

    cdef void _climb_onto(self, int beetle, int cell, int q, int r) noexcept:
        """Puts `beetle` (off the board) on top of the occupied `cell`; the frontier does not change."""
        cdef int under = self.grid[cell] - 1
        self.placed[beetle] = True
        self.piece_q[beetle], self.piece_r[beetle], self.piece_cell[beetle] = q, r, cell
        self.below[beetle] = under
        self.grid[cell] = beetle + 1
        self.height[cell] += 1
        self._recolour(cell, under // PIECES_PER_SEAT, beetle // PIECES_PER_SEAT)

    cdef void _climb_off(self, int beetle) noexcept:
        """Takes `beetle` off the top of a stack of two or more; the frontier does not change."""
        cdef int cell = self.piece_cell[beetle], under = self.below[beetle]
        self.grid[cell] = under + 1
        self.height[cell] -= 1
        self.below[beetle] = -1
        self._recolour(cell, beetle // PIECES_PER_SEAT, under // PIECES_PER_SEAT)

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
        the game, then touching a stack topped by an own piece and none topped by an enemy piece."""
        return self.on_board < 2 or (self.touching[player][cell] > 0 and self.touching[1 - player][cell] == 0)

    cdef void _find_cut_pieces(self, int piece, int parent, int* order, int* low, int* clock, bint* cut) noexcept:
        """Tarjan's articulation points over the stacks touching each other, each named by its top piece:
        a cut stack holds the hive together (One Hive)."""
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
        """Frontier slots (as bits; `slot_of` maps frontier cells to their slots) the placed ground piece
        `piece` (not a Beetle) can move to, ignoring One Hive (checked by the caller). Sliding pieces are
        lifted from the board while their paths are traced; every cell they reach touches another piece,
        so it is a frontier cell."""
        cdef int start = self.piece_cell[piece], kind = TYPE_OF_INDEX[piece % PIECES_PER_SEAT]
        cdef unsigned long long found = 0
        cdef int d, a, b, c, head, tail
        cdef unsigned int ways, ways2, ways3
        cdef int queue[MAX_SLOTS]
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

    cdef unsigned int _beetle_steps(self, int beetle) noexcept:
        """The directions (as bits) the top-of-stack `beetle` can step in, ignoring One Hive. With h the
        height of its stack without it and t the target's, the step is blocked by a gate when both cells
        beside it are higher than max(h, t); on the ground (h = t = 0) that is the usual slide, which
        must also keep touching the hive (exactly one of the two cells beside the step occupied)."""
        cdef int start = self.piece_cell[beetle], d, side_left, side_right, low_side, top
        cdef int own = self.height[start] - 1
        cdef unsigned int steps = 0
        for d in range(6):
            side_left = self.height[NEIGHBOR[start * 6 + (d + 5) % 6]]
            side_right = self.height[NEIGHBOR[start * 6 + (d + 1) % 6]]
            top = self.height[NEIGHBOR[start * 6 + d]]
            if own == 0 and top == 0:
                if (side_left > 0) != (side_right > 0):
                    steps |= 1 << d
                continue
            low_side = side_left if side_left < side_right else side_right
            if low_side <= (own if own > top else top):
                steps |= 1 << d
        return steps

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

    cdef inline int _placements(self, int base, bint* placeable, int* out, int n) noexcept:
        cdef int slot
        for slot in range(self.frontier_size):
            if placeable[slot]:
                out[n] = base + slot
                n += 1
        return n

    # ---- C-level interface ---------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.ending != ONGOING:
            return TERMINAL_PLAYER
        return self.to_move

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef bint placeable[MAX_SLOTS]
        cdef signed char slot_of[GRID_CELLS]       # only the frontier cells' entries are written and read
        cdef int order[MAX_PIECES]
        cdef int low[MAX_PIECES]
        cdef bint cut[MAX_PIECES]
        cdef int n = 0, slot, kind, i, piece, cell, target, clock = 0
        cdef bint must_queen, may_cut = False, can_move
        cdef unsigned long long found
        cdef unsigned int beetle_steps[2]
        if self.ending != ONGOING or player != self.to_move:
            return 0
        must_queen = self._must_place_queen(player)
        if self.on_board < self.total_pieces:       # once every piece is down, no placement to look for
            for slot in range(self.frontier_size):
                placeable[slot] = self._placeable(player, self.frontier_cell[slot])
        # Ids in increasing order: placements of GameBench's four types, their moves, then the Beetles'.
        for kind in range(GAMEBENCH_TYPES):
            if (must_queen and kind != QUEEN) or self._in_hand(player, kind) == 0:
                continue
            n = self._placements(kind * self.slots, placeable, out, n)
        can_move = self.placed[player * PIECES_PER_SEAT]
        if can_move:
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
                # The hive is connected, so one search from the stack of the mover's Queen reaches every stack.
                self._find_cut_pieces(self.grid[self.piece_cell[player * PIECES_PER_SEAT]] - 1, -1, order, low,
                                      &clock, cut)
            for i in range(GAMEBENCH_PIECES):
                piece = player * PIECES_PER_SEAT + i
                # A covered piece cannot move; a ground piece cannot when it holds the hive together.
                if not self.placed[piece] or cut[piece] or self.grid[self.piece_cell[piece]] != piece + 1:
                    continue
                found = self._destinations(piece, slot_of)
                while found:
                    out[n] = self.move_base + i * self.slots + lowest_bit_64(found)
                    n += 1
                    found &= found - 1
        if self.pieces_of_type[BEETLE] and not must_queen and self._in_hand(player, BEETLE):
            n = self._placements(self.beetle_place_base, placeable, out, n)
        if can_move:
            # Beetles: steps to empty cells (frontier slots), then onto the hive (directions).
            for i in range(self.pieces_of_type[BEETLE]):
                piece = player * PIECES_PER_SEAT + FIRST_BEETLE + i
                cell = self.piece_cell[piece]
                beetle_steps[i] = 0
                if not self.placed[piece] or self.grid[cell] != piece + 1 or (self.height[cell] == 1 and cut[piece]):
                    continue
                beetle_steps[i] = self._beetle_steps(piece)
                found = 0
                for slot in range(6):
                    target = NEIGHBOR[cell * 6 + slot]
                    if beetle_steps[i] >> slot & 1 and not self.grid[target]:
                        found |= 1ULL << slot_of[target]
                while found:
                    out[n] = self.beetle_move_base + i * self.slots + lowest_bit_64(found)
                    n += 1
                    found &= found - 1
            for i in range(self.pieces_of_type[BEETLE]):
                cell = self.piece_cell[player * PIECES_PER_SEAT + FIRST_BEETLE + i]
                for slot in range(6):
                    if beetle_steps[i] >> slot & 1 and self.grid[NEIGHBOR[cell * 6 + slot]]:
                        out[n] = self.climb_base + 6 * i + slot
                        n += 1
        if n == 0:
            out[0] = self.pass_action
            n = 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int player = self.to_move, slot, kind, i, d, piece = -1
        cdef short* entry = self.log[self.plies]
        cdef bint lost0, lost1
        cdef int to_cell, q, r
        entry[LOG_PIECE] = -1
        if action != self.pass_action:
            if action < self.move_base or self.beetle_place_base <= action < self.beetle_move_base:
                if action < self.move_base:
                    kind, slot = action // self.slots, action % self.slots
                else:
                    kind, slot = BEETLE, action - self.beetle_place_base
                for i in range(FIRST_INDEX[kind], FIRST_INDEX[kind] + self.pieces_of_type[kind]):
                    if not self.placed[player * PIECES_PER_SEAT + i]:
                        piece = player * PIECES_PER_SEAT + i
                        break
                self.on_board += 1
                entry[LOG_PLACED] = 1
                self._put(piece, slot)
            else:
                if action < self.pass_action:
                    i, slot = (action - self.move_base) // self.slots, (action - self.move_base) % self.slots
                elif action < self.climb_base:
                    i = FIRST_BEETLE + (action - self.beetle_move_base) // self.slots
                    slot = (action - self.beetle_move_base) % self.slots
                else:
                    i, slot = FIRST_BEETLE + (action - self.climb_base) // 6, -1
                piece = player * PIECES_PER_SEAT + i
                entry[LOG_PLACED] = 0
                entry[LOG_FROM_Q] = <short>self.piece_q[piece]
                entry[LOG_FROM_R] = <short>self.piece_r[piece]
                if slot < 0:
                    # Onto the hive: the stack one step away in direction d.
                    d = (action - self.climb_base) % 6
                    to_cell = NEIGHBOR[self.piece_cell[piece] * 6 + d]
                    q, r = self.piece_q[piece] + DQ[d], self.piece_r[piece] + DR[d]
                    if self.height[self.piece_cell[piece]] > 1:
                        self._climb_off(piece)
                    else:
                        self._lift(piece)
                    self._climb_onto(piece, to_cell, q, r)
                elif self.height[self.piece_cell[piece]] > 1:
                    # Down from a stack: the frontier is unchanged, the slot still names the target.
                    self._climb_off(piece)
                    self._put(piece, slot)
                else:
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
        s.slots, s.move_base, s.pass_action = self.slots, self.move_base, self.pass_action
        s.beetle_place_base, s.beetle_move_base = self.beetle_place_base, self.beetle_move_base
        s.climb_base, s.num_ids, s.total_pieces = self.climb_base, self.num_ids, self.total_pieces
        memcpy(s.grid, self.grid, sizeof(self.grid))
        memcpy(s.height, self.height, sizeof(self.height))
        memcpy(s.below, self.below, sizeof(self.below))
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

    def _kinds(self) -> range:
        """The piece types of this game's views: Beetles only when the game has them."""
        return range(BUG_TYPES if self.pieces_of_type[BEETLE] else GAMEBENCH_TYPES)

    def _level(self, int piece) -> int:
        """How many pieces `piece` stands on (0 on the ground)."""
        cdef int level = 0, p = self.below[piece]
        while p >= 0:
            level += 1
            p = self.below[p]
        return level

    def _pieces_with_ids(self) -> list:
        """Every placed piece as (piece id, (seat, type, q, r)), sorted by cell (r, then q), then from the
        bottom of its stack up."""
        found = [(p, (p // PIECES_PER_SEAT, TYPE_OF_INDEX[p % PIECES_PER_SEAT], self.piece_q[p], self.piece_r[p]))
                 for p in range(MAX_PIECES) if self.placed[p]]
        return sorted(found, key=lambda item: (item[1][3], item[1][2], self._level(item[0])))

    def _pieces(self) -> list:
        """Every placed piece as (seat, type, q, r), in the order of _pieces_with_ids."""
        return [piece for _, piece in self._pieces_with_ids()]

    def _stack_note(self, int piece) -> str:
        """How a piece in a stack stands, for the text view ("" on a cell of its own)."""
        if self.height[self.piece_cell[piece]] == 1:
            return ""
        if self.grid[self.piece_cell[piece]] != piece + 1:
            return " (covered)"
        return f" (on top of a stack of {self.height[self.piece_cell[piece]]})"

    def _top(self, int q, int r):
        """The piece id on top of (q, r), or -1 when the cell is empty."""
        cdef int p = self.grid[_cell(q, r)] - 1
        if p >= 0 and self.piece_q[p] == q and self.piece_r[p] == r:
            return p
        return -1

    def _stacks(self) -> list:
        """The cells holding two pieces or more, as (q, r, [(seat, type) from the bottom up])."""
        stacks = []
        for p in range(MAX_PIECES):
            if self.placed[p] and self.grid[self.piece_cell[p]] == p + 1 and self.height[self.piece_cell[p]] > 1:
                column, below = [], p
                while below >= 0:
                    column.append((below // PIECES_PER_SEAT, TYPE_OF_INDEX[below % PIECES_PER_SEAT]))
                    below = self.below[below]
                stacks.append((self.piece_q[p], self.piece_r[p], column[::-1]))
        return sorted(stacks, key=lambda stack: (stack[1], stack[0]))

    def _piece_at(self, int q, int r):
        """(seat, piece index) of the piece on top of (q, r), or None."""
        p = self._top(q, r)
        return None if p < 0 else (p // PIECES_PER_SEAT, p % PIECES_PER_SEAT)

    def _hand(self, int player) -> dict:
        return {TYPE_IDS[k]: self._in_hand(player, k) for k in self._kinds()}

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
        if not 0 <= action < self.num_ids:
            raise ValueError(f"hive actions are 0-{self.num_ids - 1}, not {action}")
        if action == self.pass_action:
            return ("pass",)
        frontier = self._frontier_cells()
        if action >= self.climb_base:
            index, d = FIRST_BEETLE + (action - self.climb_base) // 6, (action - self.climb_base) % 6
            piece = player * PIECES_PER_SEAT + index
            if not self.placed[piece]:
                raise ValueError(f"action {action} moves a Beetle that is not on the board")
            start = (self.piece_q[piece], self.piece_r[piece])
            end = (start[0] + DQ[d], start[1] + DR[d])
            if self._top(*end) < 0:
                raise ValueError(f"action {action} climbs onto {_at(*end)}, which is empty")
            return ("move", index, start, end)
        if action < self.move_base:
            index, slot = divmod(action, self.slots)
        elif action < self.pass_action:
            index, slot = divmod(action - self.move_base, self.slots)
        elif action < self.beetle_move_base:
            index, slot = BEETLE, action - self.beetle_place_base
        else:
            index, slot = divmod(action - self.beetle_move_base, self.slots)
            index += FIRST_BEETLE
        if slot >= len(frontier):
            raise ValueError(f"action {action} names frontier cell {slot}, but the frontier has {len(frontier)} cells")
        if action < self.move_base or self.beetle_place_base <= action < self.beetle_move_base:
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
        match = last_match(_ANSWER_WITH_BEETLES if self.pieces_of_type[BEETLE] else _ANSWER, answer)
        if match is None:
            raise ActionParseError(f"could not read an action from {answer[:200]!r}. {self._answer_help()}")
        if match.group("list"):
            raise ActionParseError("GameBench's list_place_/list_move_ steps are not used here: name the concrete "
                                   f"action in one answer. {self._answer_help()}")
        if match.group("pass"):
            return self.pass_action
        frontier = self._frontier_cells()
        if match.group("move"):
            start = (int(match.group("start_q")), int(match.group("start_r")))
            end = (int(match.group("end_q")), int(match.group("end_r")))
            found = self._piece_at(*start)
            if found is None or found[0] != player:
                raise ActionParseError(f"there is no piece of yours at {_at(*start)}. {self._answer_help()}")
            named, actual = match.group("move_type"), TYPE_OF_INDEX[found[1]]
            if named is not None and _type_of(named) != actual:
                raise ActionParseError(f"the piece at {_at(*start)} is {_article(TYPE_IDS[actual])}, not "
                                       f"{_article(TYPE_IDS[_type_of(named)])}. {self._answer_help()}")
            if actual != BEETLE:
                return self.move_base + found[1] * self.slots + self._slot(frontier, *end)
            beetle = found[1] - FIRST_BEETLE
            if self._top(*end) >= 0:
                step = (end[0] - start[0], end[1] - start[1])
                if step not in DIRECTIONS:
                    raise ActionParseError(f"a Beetle moves one cell, and {_at(*end)} is not next to {_at(*start)}. "
                                           f"{self._answer_help()}")
                return self.climb_base + 6 * beetle + DIRECTIONS.index(step)
            return self.beetle_move_base + beetle * self.slots + self._slot(frontier, *end)
        prefix = "id" if match.group("place_id") else "place"
        kind = _type_of(match.group(prefix + "_type"))
        slot = self._slot(frontier, int(match.group(prefix + "_cell_q")), int(match.group(prefix + "_cell_r")))
        return kind * self.slots + slot if kind != BEETLE else self.beetle_place_base + slot

    def _slot(self, list frontier, int q, int r) -> int:
        if (q, r) not in frontier:
            raise ActionParseError(f"{_at(q, r)} is not an empty cell next to the hive, so nothing can be placed or "
                                   f"moved there. {self._answer_help()}")
        return frontier.index((q, r))

    def _answer_help(self) -> str:
        if not self.pieces_of_type[BEETLE]:
            return ('Answer with one action id: "place_(q,r)_<Type>" to place a piece from your hand (types Queen, '
                    'Spider, Hopper, Ant), "move_(q,r)_(q,r)" to move your piece from the first cell to the second, '
                    'or "pass" when nothing else is legal; cells are axial coordinates (q,r), e.g. "place_(1,0)_Ant" '
                    'or {"action": "move_(0,0)_(1,-1)"}.')
        return ('Answer with one action id: "place_(q,r)_<Type>" to place a piece from your hand (types Queen, '
                'Spider, Hopper, Ant, Beetle), "move_(q,r)_(q,r)" to move your piece (the top piece of a stack) '
                'from the first cell to the second, which for a Beetle may be an occupied cell, or "pass" when '
                'nothing else is legal; cells are axial coordinates (q,r), e.g. "place_(1,0)_Beetle" or '
                '{"action": "move_(0,0)_(1,-1)"}.')

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
        beetles = self.pieces_of_type[BEETLE] > 0
        return ("Rules: Hive is played on an unbounded grid of hexagonal cells. Each player has " + counts +
                ("" if beetles else " (no Beetles)") + ". On your turn you either place a piece from your hand on an "
                "empty cell or move one of your pieces on the board. The first piece of the game goes on (0,0) and "
                "the second player's first piece next to it; after that a new piece must touch one of your pieces "
                "and no enemy piece" + (" (a stack counts as the colour of its top piece)" if beetles else "") +
                ". Your Queen Bee must be placed by your fourth turn, and none of your pieces may move before it "
                "is placed. Queen Bee: slides one cell. Spider: slides exactly three cells without entering a "
                "cell twice. Soldier Ant: slides any number of cells around the hive. Grasshopper (Hopper): jumps "
                "in a straight line over one or more adjacent pieces and lands on the first empty cell. " +
                ("Beetle: moves one cell, and may climb onto the hive, move on top of it and drop down into an "
                 "empty cell; a piece with a Beetle on top cannot move, and a stack counts as the colour of its "
                 "top piece. " if beetles else "") +
                "One Hive: the pieces must always form one connected group, so a piece whose removal would split "
                "them cannot move. Freedom to Move: a sliding piece passes from a cell to the next only if exactly "
                "one of the two cells beside that step is occupied (it cannot squeeze between two pieces or lose "
                "touch with the hive)" + ("; a Beetle climbing, moving on top of the hive or dropping down cannot "
                "pass between two stacks that are both higher than its start (without it) and its target" if beetles
                else "") + ". If you have no legal action, you pass. A Queen Bee whose six neighbouring "
                "cells are all occupied, by pieces of either player, is captured and its owner loses; if both "
                f"are surrounded at once, each player scores {self.both_score:g}. When a player has taken {self.max_turns} turns without a "
                "surrounded Queen Bee, the game is a draw.")

    def _board_drawing(self) -> list:
        """Rows of hexagons: each row r is shifted half a cell from the next, so neighbours touch."""
        # The top piece of each cell (pieces are listed from the bottom of their stack up), then the
        # height of a stack of two or more.
        shown = {(q, r): f"{COLOURS[seat][0].lower()}{TYPE_LETTERS[kind]}" for seat, kind, q, r in self._pieces()}
        for q, r, column in self._stacks():
            shown[(q, r)] += str(len(column))
        for q, r in self._frontier_cells():
            shown[(q, r)] = " ."
        rows = sorted({r for _, r in shown})
        column = {cell: 2 * (2 * cell[0] + cell[1]) for cell in shown}
        left = min(column.values())
        lines = []
        for r in rows:
            cells = sorted(q for q, rr in shown if rr == r)
            line = [" "] * (max(column[(q, r)] + len(shown[(q, r)]) for q in cells) - left)
            for q in cells:
                x = column[(q, r)] - left
                line[x:x + len(shown[(q, r)])] = shown[(q, r)]
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
                 "a Green Soldier Ant (Q Queen Bee, S Spider, G Grasshopper, A Soldier Ant" +
                 (", B Beetle; a number after a piece is the height of its stack, e.g. \"gB2\" a Green Beetle on "
                  "top of another piece" if self.pieces_of_type[BEETLE] else "") +
                 "), \".\" an empty cell next to the hive.",
                 ""]
        if self.on_board:
            lines += self._board_drawing()
        else:
            lines.append("(empty: the first piece goes on (0,0))")
        lines.append("")
        for seat in (0, 1):
            mine = [f"{TYPE_NAMES[kind]} {_at(q, r)}{self._stack_note(p)}" for p, (s, kind, q, r)
                    in self._pieces_with_ids() if s == seat]
            lines.append(f"{COLOURS[seat]} pieces on the board: {', '.join(mine) if mine else 'none'}.")
        for seat in (0, 1):
            hand = [f"{TYPE_NAMES[k]} {self._in_hand(seat, k)}" for k in self._kinds() if self._in_hand(seat, k)]
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
        if legal == [self.pass_action]:
            return f"Your turn {turn}: you have no legal placement or move, so you pass. Answer \"pass\"."
        parts = [f"Your turn {turn}."]
        if self._must_place_queen(player):
            parts.append("Your Queen Bee is still in hand: you must place it this turn.")
        elif not self.placed[player * PIECES_PER_SEAT]:
            parts.append(f"Your Queen Bee is still in hand; place it by your fourth turn (you cannot move pieces "
                         f"until it is placed).")
        parts.append(self._answer_help())
        return " ".join(parts)

    def _piece_dicts(self, bint colour) -> list:
        """The placed pieces for the data views; with Beetles each also says its "level" (0 on the ground,
        1 on top of one piece, ...)."""
        pieces = []
        for p, (seat, kind, q, r) in self._pieces_with_ids():
            piece = {"owner": seat, "colour": COLOURS[seat]} if colour else {"owner": seat}
            piece.update({"type": TYPE_IDS[kind], "q": q, "r": r})
            if self.pieces_of_type[BEETLE]:
                piece["level"] = self._level(p)
            pieces.append(piece)
        return pieces

    def observation_dict(self, int player) -> dict:
        check_seat("hive", player)
        to_play = self.c_current_player()
        view = {
            "player": player + 1,
            "colour": COLOURS[player],
            "opponent_colour": COLOURS[1 - player],
            "pieces": self._piece_dicts(colour=True),
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
        if self.pieces_of_type[BEETLE]:
            # Each stack of two or more, its pieces from the bottom up (the top one is the stack's colour).
            view["stacks"] = [{"q": q, "r": r, "height": len(column),
                               "pieces": [{"owner": seat, "type": TYPE_IDS[kind]} for seat, kind in column]}
                              for q, r, column in self._stacks()]
        return view

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
        draw.text((margin, size - footer), "Q Queen Bee, S Spider, G Grasshopper (Hopper), A Soldier Ant" +
                  (", B Beetle; xN: a stack of N, its top piece shown" if self.pieces_of_type[BEETLE] else "") + ".\n"
                  "Blue pieces light blue, Green light green; white: empty cells next to the hive.",
                  fill="black", font=small)
        # The top piece of each cell, with its stack's height.
        cells = [(q, r, seat, kind) for p, (seat, kind, q, r) in self._pieces_with_ids()
                 if self.grid[self.piece_cell[p]] == p + 1]
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
            stack = self.height[_cell(q, r)]
            draw.text((x, y + radius * 0.45), f"{TYPE_IDS[kind]} {_at(q, r)}" + (f" x{stack}" if stack > 1 else ""),
                      fill="black", font=label_font, anchor="mm")
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
            "pieces": self._piece_dicts(colour=False),
            "moves": [self._narrate(ply) for ply in range(self.plies)],
        }


class Game(GameBase):
    """Two-player Hive: GameBench's rules without Beetles, or the base game with them."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        for name in ("spiders", "grasshoppers", "ants"):
            checked_int(self.parameters, name, 0, 3)
        checked_int(self.parameters, "beetles", 0, 2)
        if self.parameters["beetles"] == 0:
            # Without Beetles the parameters read as they did before the parameter existed, so GameBench's
            # recorded matches and playthroughs keep their exact parameter sets.
            del self.parameters["beetles"]
        checked_int(self.parameters, "max_turns", 1, MAX_TURNS_CAP)
        score = self.parameters["both_surrounded_score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            raise ValueError(f"parameter 'both_surrounded_score' must be a number in 0..1, not {score!r}")
        self.parameters["both_surrounded_score"] = float(score)

    def new_initial_state(self) -> HiveState:
        p = self.parameters
        return HiveState(self, p["spiders"], p["grasshoppers"], p["ants"], p["max_turns"], p["both_surrounded_score"],
                         p.get("beetles", 0))

    def state_from_view(self, int player, dict view) -> HiveState:
        """The state seat `player` observes: a replay of the move history (perfect information)."""
        check_seat("hive", player)
        return self.replay(view["history"])
