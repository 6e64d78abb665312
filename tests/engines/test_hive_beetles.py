"""Hive with Beetles (preset `standard`): hand-worked positions for climbing, moving on top of the
hive, dropping down between two pieces, covered pieces, a gate, placement next to a stack topped by
the enemy and a Queen surrounded under a Beetle; the action-id layout and parser; seeded random games
checked move by move against an independent statement of the rules with stacks; and, where OpenSpiel
is installed, the same random games played move for move against OpenSpiel's hive."""

from __future__ import annotations

import random
import re

import pytest
from arena_engines import game_spec, load_game
from arena_engines.core import IllegalActionError

# The independent statement of the ground rules is test_hive's; the stacks are added here.
from .test_hive import DIRECTIONS, connected, neighbours
from .test_hive import destinations as ground_destinations

SLOTS = 52                                  # frontier slots with Beetles
QUEEN_MOVES = range(4 * SLOTS, 5 * SLOTS)   # move ids of the Queen (piece 0)
PASS = 14 * SLOTS
BEETLE_PLACE = PASS + 1
BEETLE_MOVE = BEETLE_PLACE + SLOTS
CLIMB = BEETLE_MOVE + 2 * SLOTS


# ---- helpers --------------------------------------------------------------------------------------
def new_state(**parameters):
    return load_game("hive", parameters or None, preset="standard").new_initial_state()


def texts(state, seat=None) -> list[str]:
    seat = state.current_player() if seat is None else seat
    return [state.action_to_string(seat, a) for a in state.legal_actions(seat)]


def play(moves, state=None):
    """The state after `moves`, each given by its canonical text and checked to be legal."""
    state = new_state() if state is None else state
    for move in moves:
        legal = texts(state)
        assert move in legal, (move, state.observation_string(state.current_player()))
        state.apply_action(state.legal_actions()[legal.index(move)])
    return state


def moves_of(state, cell) -> set[str]:
    return {t for t in texts(state) if t.startswith(f"move_{cell}_")}


def targets(state, cell) -> set[tuple[int, int]]:
    return {tuple(int(x) for x in re.findall(r"-?\d+", t)[2:]) for t in moves_of(state, cell)}


def stack_at(state, q, r):
    return next((s["pieces"] for s in state.observation_dict(0)["stacks"] if (s["q"], s["r"]) == (q, r)), None)


# Blue's Beetle climbs onto its own Queen; Green's Beetle onto Green's Queen; Blue's two Beetles then
# stack up on (0,-1), next to Blue's bare Queen on (0,0) and Green's stack on (1,0).
GATE = ["place_(0,0)_Queen", "place_(1,0)_Queen", "place_(-1,0)_Beetle", "place_(2,-1)_Beetle",
        "place_(-1,1)_Beetle", "place_(2,0)_Beetle",
        "move_(-1,0)_(0,-1)", "move_(2,-1)_(1,-1)", "move_(-1,1)_(-1,0)", "move_(2,0)_(1,0)",
        "move_(-1,0)_(0,-1)"]
# Blue's Queen on (0,0) hemmed in by its Ant, Spider and a Grasshopper with Blue's Beetle on top;
# Green's Beetle climbs onto Blue's Queen, Green's Ant fills (0,1) and Green's other Beetle walks round
# to (1,-1), the last free cell next to Blue's Queen.
SURROUND = ["place_(0,0)_Queen", "place_(1,0)_Queen", "place_(0,-1)_Ant", "place_(2,-1)_Beetle",
            "place_(-1,0)_Beetle", "place_(2,0)_Beetle", "place_(-1,1)_Hopper", "place_(1,1)_Ant",
            "move_(-1,0)_(-1,1)", "move_(2,-1)_(1,-1)", "place_(-1,0)_Spider", "move_(1,-1)_(0,0)",
            "place_(-2,1)_Ant", "move_(1,1)_(0,1)", "place_(-3,1)_Ant", "move_(2,0)_(2,-1)",
            "place_(-4,1)_Hopper", "move_(2,-1)_(1,-1)"]


# ---- spec and ids -----------------------------------------------------------------------------------
def test_standard_preset_is_the_base_game_and_beetles_default_to_none():
    presets = {p.name: p.values for p in game_spec("hive").presets}
    assert presets["standard"] == {"spiders": 2, "grasshoppers": 3, "ants": 3, "beetles": 2, "max_turns": 250,
                                   "both_surrounded_score": 0.5}
    assert "beetles" not in load_game("hive", preset="gamebench").parameters
    assert load_game("hive", {"beetles": 1}, preset="gamebench").parameters["beetles"] == 1
    state = new_state()
    assert texts(state) == ["place_(0,0)_Queen", "place_(0,0)_Spider", "place_(0,0)_Hopper", "place_(0,0)_Ant",
                            "place_(0,0)_Beetle"]
    assert state.legal_actions() == [0, SLOTS, 2 * SLOTS, 3 * SLOTS, BEETLE_PLACE]
    assert state.observation_dict(0)["in_hand"][0] == {"Queen": 1, "Spider": 2, "Hopper": 3, "Ant": 3, "Beetle": 2}


@pytest.mark.parametrize("beetles", [3, -1, True, "2"])
def test_bad_beetle_counts_are_refused(beetles):
    with pytest.raises(ValueError, match="beetles"):
        load_game("hive", {"beetles": beetles}, preset="standard")


def test_ids_of_beetle_moves_on_the_ground_and_onto_the_hive():
    state = play(GATE[:6])                  # Blue to move; its Beetle on (-1,0) is next to its Queen
    legal = dict(zip(texts(state), state.legal_actions()))
    # Onto the hive: Beetle 0 (the first placed), direction 0 (east) from (-1,0) to the Queen on (0,0).
    assert legal["move_(-1,0)_(0,0)"] == CLIMB + 0
    frontier = [tuple(c) for c in state.observation_dict(0)["frontier"]]
    assert legal["move_(-1,0)_(0,-1)"] == BEETLE_MOVE + frontier.index((0, -1))
    # Blue's second Beetle, on (-1,1): direction 2 (north-west) to (-1,0), 1 (north-east) to (0,0).
    assert legal["move_(-1,1)_(0,0)"] == CLIMB + 6 + 1
    assert legal["move_(-1,1)_(-1,0)"] == CLIMB + 6 + 2
    assert state.legal_actions() == sorted(state.legal_actions()) and max(state.legal_actions()) < 1024
    for text, action in legal.items():
        assert state.parse_action(0, text) == action
        assert state.parse_action(0, f'{{"action": "{text}"}}') == action


# ---- hand-worked positions ----------------------------------------------------------------------------
def test_a_beetle_climbs_onto_the_hive_and_covers_the_piece_below():
    state = play(GATE[:6])
    # Onto its Queen (east) and onto Blue's other Beetle (south-east); on the ground to (0,-1) and (-2,1),
    # where one cell beside the step is occupied.
    assert targets(state, "(-1,0)") == {(0, 0), (-1, 1), (0, -1), (-2, 1)}
    state = play(["move_(-1,0)_(0,0)"], state)
    assert stack_at(state, 0, 0) == [{"owner": 0, "type": "Queen"}, {"owner": 0, "type": "Beetle"}]
    pieces = state.observation_dict(0)["pieces"]
    assert {"owner": 0, "colour": "Blue", "type": "Queen", "q": 0, "r": 0, "level": 0} in pieces
    assert {"owner": 0, "colour": "Blue", "type": "Beetle", "q": 0, "r": 0, "level": 1} in pieces
    text = state.observation_string(0)
    assert "bB2" in text and "Queen Bee (0,0) (covered)" in text and "Beetle (0,0) (on top of a stack of 2)" in text
    state = play(["move_(2,0)_(3,-1)"], state)
    # Blue's Queen is covered: it cannot move, and moves from (0,0) are the Beetle's, which may step down
    # to any cell next to the hive around it or onto Blue's other Beetle.
    assert not set(state.legal_actions()) & set(QUEEN_MOVES)
    assert targets(state, "(0,0)") == {(1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1), (1, 0)}


def test_a_beetle_moves_on_top_of_the_hive_and_drops_down_between_two_pieces():
    state = play(SURROUND[:15])             # Green to move; its Beetle stands on Blue's Queen at (0,0)
    assert stack_at(state, 0, 0) == [{"owner": 0, "type": "Queen"}, {"owner": 1, "type": "Beetle"}]
    # On top it reaches every neighbour: onto Green's Queen, Green's Ant, Blue's Spider, Blue's stack on
    # (-1,1) and Blue's Ant, and down to (1,-1) between Green's Queen and Blue's Ant, a gap too narrow
    # for a piece sliding on the ground.
    assert targets(state, "(0,0)") == {(1, 0), (0, 1), (-1, 0), (-1, 1), (0, -1), (1, -1)}
    on_top = play(["move_(0,0)_(-1,1)"], state.clone())
    assert [p["type"] for p in stack_at(on_top, -1, 1)] == ["Hopper", "Beetle", "Beetle"]
    assert stack_at(on_top, 0, 0) is None and "bQ" in on_top.observation_string(1)
    down = play(["move_(0,0)_(1,-1)"], state.clone())
    assert {"owner": 1, "colour": "Green", "type": "Beetle", "q": 1, "r": -1, "level": 0} in \
        down.observation_dict(1)["pieces"]


def test_a_gate_of_two_higher_stacks_blocks_a_climbing_beetle():
    state = play(GATE)
    # Green's Beetle on (1,-1) would climb south-west onto Blue's Queen (height 1) between Blue's
    # stack on (0,-1) and Green's on (1,0), both two high: a gate (see the next test for the open one).
    assert targets(state, "(1,-1)") == {(2, -1), (1, -2), (0, -1), (1, 0)}
    assert "move_(1,-1)_(0,0)" not in texts(state)
    with pytest.raises(IllegalActionError):
        state.apply_action(CLIMB + 4)       # its direction 4 (south-west) from (1,-1)


def test_the_gate_opens_when_a_side_stack_is_low_enough():
    state = play(GATE[:9] + ["move_(2,0)_(1,0)"])
    # Blue now moves elsewhere: (0,-1) stays one piece high, and Green's Beetle may climb onto the Queen.
    state = play(["place_(-1,1)_Ant"], state)
    assert (0, 0) in targets(state, "(1,-1)")


def test_placement_reads_the_colour_on_top_of_a_stack():
    state = play(GATE)                      # Green to move
    assert "place_(-1,-1)_Ant" not in texts(state)      # next to Blue's stack
    state = play(["move_(1,-1)_(0,-1)"], state)           # Green's Beetle tops Blue's two Beetles
    assert [p["owner"] for p in stack_at(state, 0, -1)] == [0, 0, 1]
    # (-1,-1) touches only the stack on (0,-1): Blue's pieces lie beneath, but its top is Green's.
    assert not any(t.startswith("place_(-1,-1)_") for t in texts(state))
    assert any(t.startswith("place_(-1,1)_") for t in texts(state))
    state = play(["place_(-1,1)_Ant", "place_(-1,-1)_Ant", "place_(-2,1)_Ant"], state)
    # Green's Ant on (-1,-1) touches nothing but the stack on (0,-1), which therefore holds the hive
    # together; the Beetle on top may still leave it, since the stack stays (One Hive counts the cell).
    occupied = {(p["q"], p["r"]) for p in state.observation_dict(1)["pieces"]}
    assert [c for c in neighbours((-1, -1)) if c in occupied] == [(0, -1)]
    assert targets(state, "(0,-1)") == {(1, -1), (1, -2), (0, -2), (-1, -1), (-1, 0), (0, 0)}


def test_a_queen_under_a_beetle_with_a_stack_beside_it_is_surrounded():
    state = play(SURROUND[:-1])
    assert not state.is_terminal()
    state = play(SURROUND[-1:], state)
    assert state.is_terminal() and state.returns() == [0.0, 1.0]
    assert state.result_details()["reason"] == "surrounded"
    assert "Blue's Queen Bee at (0,0) is surrounded" in state.result_summary()


def test_parser_reads_beetle_answers_and_gamebench_refuses_them():
    state = play(GATE[:6])
    assert state.parse_action(0, "place (-2,0) Beetle") == BEETLE_PLACE + [
        tuple(c) for c in state.observation_dict(0)["frontier"]].index((-2, 0))
    assert state.parse_action(0, "Move the Beetle at (-1,0) to (0,0).") == CLIMB
    with pytest.raises(Exception, match="one cell"):
        state.parse_action(0, "move_(-1,0)_(1,0)")
    gamebench = load_game("hive", preset="gamebench").new_initial_state()
    with pytest.raises(Exception, match="could not read"):
        gamebench.parse_action(0, "place_(0,0)_Beetle")


def test_image_shows_the_top_piece_and_the_height():
    state = play(GATE)
    kind, png = state.observation_image(0)
    assert kind == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"


# ---- random games: properties and an independent statement of the rules -----------------------------
def destinations(board, cell):
    """Where the top piece of `cell` may go; `board` maps cells to stacks [(seat, type)] bottom first."""
    kind = board[cell][-1][1]
    height = {c: len(s) for c, s in board.items()}
    if kind == "Beetle":
        own, out = height[cell] - 1, set()
        for d, (dq, dr) in enumerate(DIRECTIONS):
            target = (cell[0] + dq, cell[1] + dr)
            beside = [(cell[0] + DIRECTIONS[e % 6][0], cell[1] + DIRECTIONS[e % 6][1]) for e in (d - 1, d + 1)]
            sides = [height.get(c, 0) for c in beside]
            if own == 0 and target not in board:
                if (sides[0] > 0) != (sides[1] > 0):
                    out.add(target)
            elif min(sides) <= max(own, height.get(target, 0)):
                out.add(target)
        return out
    # Other pieces never stand on a stack: the ground rules apply to the top pieces.
    return ground_destinations({c: stack[-1] for c, stack in board.items()}, cell)


def reference_legal(board, hand, turns, seat) -> set[str]:
    queen_down = any((seat, "Queen") in stack for stack in board.values())
    kinds = [k for k, n in hand[seat].items() if n]
    if not queen_down and turns[seat] >= 3:
        kinds = [k for k in kinds if k == "Queen"]
    cells = {n for c in board for n in neighbours(c) if n not in board} if board else {(0, 0)}
    out = set()
    for cell in cells:
        owners = {board[n][-1][0] for n in neighbours(cell) if n in board}
        if sum(map(len, board.values())) < 2 or owners == {seat}:
            out.update(f"place_({cell[0]},{cell[1]})_{kind}" for kind in kinds)
    if queen_down:
        for cell, stack in board.items():
            if stack[-1][0] == seat and (len(stack) > 1 or connected(set(board) - {cell})):
                out.update(f"move_({cell[0]},{cell[1]})_({d[0]},{d[1]})" for d in destinations(board, cell))
    return out or {"pass"}


def surrounded(board, seat) -> bool:
    return any((seat, "Queen") in stack and all(n in board for n in neighbours(cell)) for cell, stack in board.items())


_PLACE = re.compile(r"place_\((-?\d+),(-?\d+)\)_(\w+)")
_MOVE = re.compile(r"move_\((-?\d+),(-?\d+)\)_\((-?\d+),(-?\d+)\)")


@pytest.mark.parametrize("parameters,seeds", [
    ({"max_turns": 120}, range(3)),
    ({"beetles": 1, "spiders": 1, "grasshoppers": 1, "ants": 1, "max_turns": 60}, range(6)),
    ({"spiders": 0, "grasshoppers": 0, "ants": 0, "max_turns": 80}, range(6)),
])
def test_random_games_follow_the_reference_rules(parameters, seeds):
    game = load_game("hive", parameters, preset="standard")
    p = game.parameters
    counts = {"Queen": 1, "Spider": p["spiders"], "Hopper": p["grasshoppers"], "Ant": p["ants"], "Beetle": p["beetles"]}
    for seed in seeds:
        rng, state = random.Random(seed), game.new_initial_state()
        board, hand, turns = {}, [dict(counts), dict(counts)], [0, 0]
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            legal_texts = [state.action_to_string(seat, a) for a in legal]
            assert legal == sorted(legal) and legal[-1] < 1024 and len(set(legal_texts)) == len(legal)
            assert set(legal_texts) == reference_legal(board, hand, turns, seat), (seed, state.move_number)
            assert len(state.observation_dict(seat)["frontier"]) <= SLOTS
            # Every legal action applies, and a clone is independent of its original.
            before = state.observation_string(seat)
            for action in legal:
                state.clone().apply_action(action)
            assert state.observation_string(seat) == before
            action = rng.choice(legal)
            text = state.action_to_string(seat, action)
            assert state.parse_action(seat, text) == action
            state.apply_action(action)
            turns[seat] += 1
            if placed := _PLACE.fullmatch(text):
                board[(int(placed[1]), int(placed[2]))] = [(seat, placed[3])]
                hand[seat][placed[3]] -= 1
            elif moved := _MOVE.fullmatch(text):
                start, end = (int(moved[1]), int(moved[2])), (int(moved[3]), int(moved[4]))
                piece = board[start].pop()
                if not board[start]:
                    del board[start]
                board.setdefault(end, []).append(piece)
        lost = [surrounded(board, seat) for seat in (0, 1)]
        expected = [0.5, 0.5] if all(lost) or not any(lost) else [0.0, 1.0] if lost[0] else [1.0, 0.0]
        assert state.returns() == expected and all(0.0 <= v <= 1.0 for v in state.returns())
        assert any(lost) or max(turns) == p["max_turns"]
        view = state.observation_dict(0)
        assert {(s["q"], s["r"]): [(x["owner"], x["type"]) for x in s["pieces"]] for s in view["stacks"]} == {
            cell: stack for cell, stack in board.items() if len(stack) > 1}
        rebuilt = game.state_from_view(1, state.observation_dict(1))
        assert rebuilt.observation_string(1) == state.observation_string(1)


def test_full_length_random_games_of_the_standard_preset():
    game = load_game("hive", preset="standard")
    for seed in range(6):
        rng, state = random.Random(seed), game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert state.move_number <= 499 and sum(state.returns()) == 1.0


# ---- OpenSpiel's hive, move for move ------------------------------------------------------------------
UHP_AFTER = {"-": (1, 0), "/": (1, -1), "\\": (0, 1)}       # "wQ-" east of wQ, "wQ/" north-east, "wQ\" south-east
UHP_BEFORE = {"-": (-1, 0), "/": (-1, 1), "\\": (0, -1)}    # "-wQ" west, "/wQ" south-west, "\wQ" north-west
UHP_TYPES = {"Q": "Queen", "S": "Spider", "G": "Hopper", "A": "Ant", "B": "Beetle"}


def uhp_move(move: str, where: dict):
    """(tile, target cell) of a UHP move string, given the cells of the tiles in play."""
    tile, _, reference = move.partition(" ")
    if not reference:
        return tile, (0, 0)
    step = (0, 0)                           # a bare reference tile: on top of it
    if reference[0] in UHP_BEFORE:
        step, reference = UHP_BEFORE[reference[0]], reference[1:]
    elif reference[-1] in UHP_AFTER:
        step, reference = UHP_AFTER[reference[-1]], reference[:-1]
    q, r = where[reference]
    return tile, (q + step[0], r + step[1])


def canonical(text: str, where: dict | None = None):
    """A move as ("place", type, cell) / ("move", from, to) / "pass", from our text or (with `where`)
    OpenSpiel's UHP string: OpenSpiel names each copy of a piece (wA1, wA2) and each reference tile, so
    several of its actions can be one of ours."""
    if text == "pass":
        return "pass"
    if where is not None:
        tile, target = uhp_move(text, where)
        return ("move", where[tile], target) if tile in where else ("place", UHP_TYPES[tile[1]], target)
    if placed := _PLACE.fullmatch(text):
        return "place", placed[3], (int(placed[1]), int(placed[2]))
    moved = _MOVE.fullmatch(text)
    return "move", (int(moved[1]), int(moved[2])), (int(moved[3]), int(moved[4]))


@pytest.mark.parametrize("seed", range(6))
def test_random_games_match_openspiel_move_for_move(seed):
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("hive", {"uses_mosquito": False, "uses_ladybug": False, "uses_pillbug": False,
                                        "board_size": 14}).new_initial_state()
    ours = load_game("hive", preset="standard").new_initial_state()
    rng, where = random.Random(seed), {}
    while not theirs.is_terminal() and not ours.is_terminal():
        seat = ours.current_player()
        their_moves = {}
        for action in theirs.legal_actions():
            their_moves.setdefault(canonical(theirs.action_to_string(action), where), action)
        our_moves = {canonical(ours.action_to_string(seat, a)): a for a in ours.legal_actions()}
        assert len(our_moves) == len(ours.legal_actions())
        ours_only, theirs_only = set(our_moves) - set(their_moves), set(their_moves) - set(our_moves)
        if ours.move_number < 2:
            # OpenSpiel forbids the Queen on the first turn (the tournament opening); the rules allow it.
            ours_only = {m for m in ours_only if m[:2] != ("place", "Queen")}
        if "wQ" not in where:
            # OpenSpiel's One Hive search starts from the White Queen: while it is in hand nothing is
            # pinned there and Black may split the hive. Its moves then include all of ours.
            theirs_only = set()
        assert not ours_only and not theirs_only, (seed, ours.move_number, sorted(ours_only), sorted(theirs_only))
        move = rng.choice(sorted(set(our_moves) & set(their_moves), key=str))
        text = theirs.action_to_string(their_moves[move])
        if text != "pass":
            tile, target = uhp_move(text, where)
            where[tile] = target
        theirs.apply_action(their_moves[move])
        ours.apply_action(our_moves[move])
    if ours.is_terminal() and not theirs.is_terminal():
        # Our cap: the first player's 250th turn (move 499); OpenSpiel's one move later, at 500.
        assert ours.move_number == 499 and ours.returns() == [0.5, 0.5]
    else:
        assert theirs.is_terminal() and ours.is_terminal()
        assert [0.5 + value / 2 for value in theirs.returns()] == ours.returns()
