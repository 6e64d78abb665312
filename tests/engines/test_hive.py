"""Hive (GameBench): action ids and GameBench's texts, hand-worked positions for each bug's movement,
Freedom to Move (a gap too narrow, losing touch with the hive), One Hive, the Queen by the fourth turn,
passing, surround wins, a double surround under both presets, the turn cap, the parser for every
answer format, the views and image, and seeded random games checked move by move against an
independent re-implementation of the rules below."""

from __future__ import annotations

import io
import random
import re

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError
from arena_engines.mcts import MCTSBot

PASS = 616
FIRST_MOVE_ID = 176


# ---- an independent statement of the rules, on a dict board {(q, r): (seat, type)} ----------------
DIRECTIONS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]     # in order around a hexagon


def neighbours(cell):
    return [(cell[0] + dq, cell[1] + dr) for dq, dr in DIRECTIONS]


def connected(cells) -> bool:
    cells = set(cells)
    if not cells:
        return True
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        for n in neighbours(todo.pop()):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cells


def slides(occupied, cell):
    """Cells one slide from `cell`: empty, and exactly one of the two cells beside the step occupied."""
    out = []
    for d, (dq, dr) in enumerate(DIRECTIONS):
        target = (cell[0] + dq, cell[1] + dr)
        left = (cell[0] + DIRECTIONS[d - 1][0], cell[1] + DIRECTIONS[d - 1][1])
        right = (cell[0] + DIRECTIONS[(d + 1) % 6][0], cell[1] + DIRECTIONS[(d + 1) % 6][1])
        if target not in occupied and (left in occupied) != (right in occupied):
            out.append(target)
    return out


def destinations(board, cell):
    kind, rest = board[cell][1], set(board) - {cell}
    if kind == "Hopper":
        out = set()
        for dq, dr in DIRECTIONS:
            c = (cell[0] + dq, cell[1] + dr)
            if c in rest:
                while c in rest:
                    c = (c[0] + dq, c[1] + dr)
                out.add(c)
        return out
    if kind == "Queen":
        return set(slides(rest, cell))
    if kind == "Spider":
        paths = [[cell]]
        for _ in range(3):
            paths = [p + [n] for p in paths for n in slides(rest, p[-1]) if n not in p]
        return {p[-1] for p in paths}
    seen, todo = {cell}, [cell]
    while todo:
        for n in slides(rest, todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen - {cell}


def at(cell) -> str:
    return f"({cell[0]},{cell[1]})"


def reference_legal(board, hand, turns, seat) -> set[str]:
    queen_down = (seat, "Queen") in board.values()
    kinds = [k for k, n in hand[seat].items() if n]
    if not queen_down and turns[seat] >= 3:
        kinds = [k for k in kinds if k == "Queen"]
    cells = {n for c in board for n in neighbours(c) if n not in board} if board else {(0, 0)}
    out = set()
    for cell in cells:
        owners = {board[n][0] for n in neighbours(cell) if n in board}
        if len(board) < 2 or owners == {seat}:
            out.update(f"place_{at(cell)}_{kind}" for kind in kinds)
    if queen_down:
        for cell, (owner, _) in board.items():
            if owner == seat and connected(set(board) - {cell}):
                out.update(f"move_{at(cell)}_{at(d)}" for d in destinations(board, cell))
    return out or {"pass"}


def surrounded(board, seat) -> bool:
    return any(piece == (seat, "Queen") and all(n in board for n in neighbours(cell)) for cell, piece in board.items())


# ---- helpers --------------------------------------------------------------------------------------
def new_state(preset="gamebench", **parameters):
    return load_game("hive", parameters or None, preset=preset).new_initial_state()


def texts(state, seat=None) -> list[str]:
    seat = state.current_player() if seat is None else seat
    return [state.action_to_string(seat, a) for a in state.legal_actions(seat)]


def play(moves, preset="gamebench", **parameters):
    """The state after `moves`, each given by its canonical text and checked to be legal."""
    state = new_state(preset, **parameters)
    for move in moves:
        legal = texts(state)
        assert move in legal, (move, state.observation_string(state.current_player()))
        state.apply_action(state.legal_actions()[legal.index(move)])
    return state


def moves_of(state, cell) -> set[str]:
    return {t for t in texts(state) if t.startswith(f"move_{cell}_")}


QUEENS = ["place_(0,0)_Queen", "place_(1,0)_Queen"]
# Blue's piece on (-1,0), west of its Queen, Green's Spider on (2,0): a line of four, Blue to move.
def line_with(blue_piece: str):
    return play(QUEENS + [f"place_(-1,0)_{blue_piece}", "place_(2,0)_Spider"])


# Both Queens side by side, each with four neighbours filled; Blue's Ant then fills (1,-1) and Green's
# Ant (0,1), the two cells both Queens share.
BOTH_SURROUNDED = QUEENS + [
    "place_(-1,0)_Spider", "place_(2,0)_Spider", "place_(-1,1)_Spider", "place_(2,-1)_Spider",
    "place_(0,-1)_Hopper", "place_(1,1)_Hopper", "place_(-2,0)_Ant", "place_(3,0)_Ant",
    "move_(-2,0)_(1,-1)", "move_(3,0)_(0,1)"]
# Green's Queen closed in on five sides; Blue's Ant slides into the sixth, (0,1).
BLUE_WINS = QUEENS + [
    "place_(-1,0)_Ant", "place_(2,0)_Spider", "place_(-1,1)_Ant", "place_(2,-1)_Spider",
    "move_(-1,0)_(1,-1)", "place_(1,1)_Hopper", "move_(-1,1)_(0,1)"]
# Green's Queen between Blue's Queen and Blue's Spider: it holds the hive together, and every cell
# next to it touches a Blue piece, so Green has nothing to do but pass.
GREEN_PASSES = ["place_(0,0)_Queen", "place_(1,-1)_Queen", "place_(-1,1)_Spider", "move_(1,-1)_(1,0)",
                "move_(-1,1)_(2,0)"]


# ---- spec, presets, ids -----------------------------------------------------------------------------
def test_spec_and_presets():
    spec = game_spec("hive")
    assert (spec.min_players, spec.max_players, spec.utility, spec.min_utility, spec.max_utility) == (
        2, 2, "constant_sum", 0.0, 1.0)
    assert spec.information == "perfect" and spec.chance == "deterministic" and spec.max_game_length == 499
    assert [p.name for p in spec.presets] == ["gamebench", "gamebench_code", "standard"]
    assert spec.preset("gamebench").values == {"spiders": 2, "grasshoppers": 3, "ants": 3, "max_turns": 250,
                                               "both_surrounded_score": 0.5}
    assert spec.preset("gamebench_code").values["both_surrounded_score"] == 0.0


@pytest.mark.parametrize("parameters", [{"spiders": 4}, {"ants": -1}, {"grasshoppers": 1.5}, {"max_turns": 0},
                                        {"max_turns": 251}, {"both_surrounded_score": 1.5},
                                        {"both_surrounded_score": True}])
def test_bad_parameters_are_refused(parameters):
    with pytest.raises(ValueError):
        load_game("hive", parameters)


def test_a_score_read_back_from_json_as_an_integer_is_accepted():
    assert load_game("hive", {"both_surrounded_score": 0}).parameters["both_surrounded_score"] == 0.0


def test_first_placement_is_on_the_origin_and_the_second_next_to_it():
    state = new_state()
    assert state.legal_actions() == [0, 44, 88, 132]
    assert texts(state) == ["place_(0,0)_Queen", "place_(0,0)_Spider", "place_(0,0)_Hopper", "place_(0,0)_Ant"]
    state = play(["place_(0,0)_Ant"])
    # The six neighbours of (0,0), sorted by r then q, each with the four types.
    cells = ["(0,-1)", "(1,-1)", "(-1,0)", "(1,0)", "(-1,1)", "(0,1)"]
    assert texts(state) == [f"place_{c}_{k}" for k in ("Queen", "Spider", "Hopper", "Ant") for c in cells]
    assert state.legal_actions()[:6] == list(range(6)) and state.legal_actions()[6] == 44


def test_later_pieces_touch_their_own_side_only():
    state = play(QUEENS)
    # Blue may place only on the three cells next to its Queen and away from Green's.
    assert {t.split("_")[1] for t in texts(state) if t.startswith("place")} == {"(0,-1)", "(-1,0)", "(-1,1)"}


def test_ids_stay_below_1024_and_texts_name_cells():
    state = line_with("Ant")
    assert all(0 <= a < 1024 for a in state.legal_actions())
    ant_moves = [a for a in state.legal_actions() if a >= FIRST_MOVE_ID]
    # The Blue Ant is piece 7 of its owner: ids 176 + 44 * 7 + frontier slot.
    assert all((a - FIRST_MOVE_ID) // 44 == 7 for a in ant_moves)
    assert state.action_to_string(0, PASS) == "pass"
    for bad in (-1, 617):
        with pytest.raises(ValueError):
            state.action_to_string(0, bad)
    with pytest.raises(ValueError, match="frontier"):
        state.action_to_string(0, 43)                       # a frontier slot the position does not have
    with pytest.raises(ValueError, match="not on the board"):
        state.action_to_string(0, FIRST_MOVE_ID + 44 * 9)   # Blue's third Ant is in hand


# ---- movement, hand-worked ------------------------------------------------------------------------
def test_queen_slides_one_cell_and_keeps_touching_the_hive():
    state = play(QUEENS)
    # Around Green's Queen only: west would leave the hive (neither cell beside the step is occupied).
    assert moves_of(state, "(0,0)") == {"move_(0,0)_(1,-1)", "move_(0,0)_(0,1)"}


def test_spider_moves_exactly_three_cells():
    # Around the line (0,0), (1,0), (2,0): three steps either way from (-1,0).
    assert moves_of(line_with("Spider"), "(-1,0)") == {"move_(-1,0)_(2,-1)", "move_(-1,0)_(1,1)"}


def test_ant_reaches_every_cell_around_the_hive():
    ring = ["(0,-1)", "(1,-1)", "(2,-1)", "(3,-1)", "(3,0)", "(2,1)", "(1,1)", "(0,1)", "(-1,1)"]
    assert moves_of(line_with("Ant"), "(-1,0)") == {f"move_(-1,0)_{c}" for c in ring}


def test_grasshopper_jumps_over_the_line_to_the_first_empty_cell():
    assert moves_of(line_with("Hopper"), "(-1,0)") == {"move_(-1,0)_(3,0)"}


def test_one_hive_a_piece_holding_the_hive_together_cannot_move():
    # Blue's Queen links its Spider to the rest; sliding it to (0,-1) would be a valid step (its
    # Spider beside the step) but would cut the Spider off.
    state = line_with("Spider")
    assert moves_of(state, "(0,0)") == set()
    assert "move_(0,0)_(0,-1)" not in texts(state)


def test_freedom_to_move_no_sliding_through_a_gap():
    # Green to move after Blue's Ant filled (1,-1): Green's Queen on (1,0) has one empty neighbour,
    # (0,1), but the cells beside that step, (0,0) and (1,1), are both occupied. It is no cut piece
    # (its five neighbours are one arc), yet it cannot slide; Green's Ant reaches (0,1) from the south.
    state = play(BOTH_SURROUNDED[:-1])
    assert moves_of(state, "(1,0)") == set()
    assert "move_(3,0)_(0,1)" in texts(state)


def test_no_moves_before_the_queen_and_the_queen_by_the_fourth_turn():
    opening = ["place_(0,0)_Ant", "place_(1,0)_Ant", "place_(-1,0)_Spider", "place_(2,0)_Spider",
               "place_(-2,0)_Hopper", "place_(3,0)_Hopper"]
    for n in (2, 4):
        assert not any(t.startswith("move") for t in texts(play(opening[:n])))
    state = play(opening)
    assert state.observation_dict(0)["must_place_queen"] and not state.observation_dict(1)["must_place_queen"]
    assert texts(state) == [f"place_{c}_Queen" for c in
                            ["(-2,-1)", "(-1,-1)", "(0,-1)", "(-3,0)", "(-3,1)", "(-2,1)", "(-1,1)"]]
    assert "you must place it this turn" in state.observation_string(0)
    # Once placed, pieces may move.
    state = play(opening + ["place_(-1,-1)_Queen", "place_(4,0)_Queen"])
    assert any(t.startswith("move") for t in texts(state))


def test_a_player_without_any_legal_action_passes():
    state = play(GREEN_PASSES)
    assert state.current_player() == 1 and state.legal_actions() == [PASS] and texts(state) == ["pass"]
    assert "you pass" in state.observation_string(1)
    state.apply_action(PASS)
    assert state.current_player() == 0 and state.observation_dict(0)["turns"] == [3, 3]
    assert state.public_history()[-1] == (1, PASS, "Green passed")


# ---- endings ---------------------------------------------------------------------------------------
def test_surrounding_the_enemy_queen_wins():
    state = play(BLUE_WINS)
    assert state.is_terminal() and state.returns() == [1.0, 0.0]
    assert state.result_summary() == "Blue wins: Green's Queen Bee at (1,0) is surrounded"
    details = state.result_details()
    assert details["winner"] == 0 and details["reason"] == "surrounded" and details["turns"] == [5, 4]
    assert details["moves"][-1] == "Blue moved the Soldier Ant from (-1,1) to (0,1)"
    assert state.legal_actions(0) == state.legal_actions(1) == []
    with pytest.raises(IllegalActionError):
        state.apply_action(PASS)


@pytest.mark.parametrize("preset,score", [("gamebench", 0.5), ("gamebench_code", 0.0)])
def test_both_queens_surrounded_at_once(preset, score):
    state = play(BOTH_SURROUNDED, preset=preset)
    assert state.is_terminal() and state.returns() == [score, score]
    assert state.result_details()["reason"] == "both_surrounded" and state.result_details()["winner"] is None
    assert play(BOTH_SURROUNDED, both_surrounded_score=0.25).returns() == [0.25, 0.25]


def test_the_turn_cap_is_a_draw_counted_in_turns_per_player():
    state = play(["place_(0,0)_Queen", "place_(1,0)_Queen", "move_(0,0)_(1,-1)", "move_(1,0)_(0,0)"], max_turns=3)
    assert not state.is_terminal() and state.observation_dict(1)["turns_left"] == 1
    state.apply_action(state.legal_actions()[0])        # Blue's third turn
    assert state.is_terminal() and state.returns() == [0.5, 0.5]
    assert state.result_details()["reason"] == "turn_cap" and state.result_details()["turns"] == [3, 2]


def test_a_full_length_game_ends_after_499_decisions():
    game = load_game("hive", preset="gamebench")
    for seed in range(20):
        rng, state = random.Random(seed), game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        if state.result_details()["reason"] == "turn_cap":
            assert state.move_number == 499 and state.result_details()["turns"] == [250, 249]
            assert state.returns() == [0.5, 0.5]
            return
    pytest.fail("no random game reached the cap")


def test_illegal_actions_are_refused_and_change_nothing():
    state = line_with("Spider")
    before = state.observation_dict(0)
    illegal = [a for a in range(617) if a not in state.legal_actions()]
    for action in illegal[::25] + [PASS, -1, 617]:
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    assert state.observation_dict(0) == before


# ---- parsing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer,expected", [
    ("move_(-1,0)_(2,-1)", "move_(-1,0)_(2,-1)"),
    ('{"action": "move_(-1,0)_(2,-1)"}', "move_(-1,0)_(2,-1)"),
    ("{'action': 'move_(-1,0)_(1,1)'}", "move_(-1,0)_(1,1)"),
    ('I thought of "move_(-1,0)_(1,1)" but {"action": "move_(-1,0)_(2,-1)"}', "move_(-1,0)_(2,-1)"),
    ("Move the Spider at (-1,0) to (2,-1).", "move_(-1,0)_(2,-1)"),
    ("move spider from (-1, 0) to (2, -1)", "move_(-1,0)_(2,-1)"),
    ("move_Spider_(-1,0)_(2,-1)", "move_(-1,0)_(2,-1)"),
    ("from (-1,0) to (1,1)", "move_(-1,0)_(1,1)"),
    ("place_(-1,1)_Ant", "place_(-1,1)_Ant"),
    ("Place an Ant at (-1,1).", "place_(-1,1)_Ant"),
    ("PLACE (-1, 1) Soldier Ant", "place_(-1,1)_Ant"),
    ("place_(0,-1)_Grasshopper", "place_(0,-1)_Hopper"),
    ("I won't pass: place_(0,-1)_Hopper", "place_(0,-1)_Hopper"),
    ("place a Queen Bee at (-1,1)", "place_(-1,1)_Queen"),     # read, though illegal: the referee says so
    ("Pass the turn.", "pass"),
])
def test_answers(answer, expected):
    state = line_with("Spider")
    assert state.action_to_string(0, state.parse_action(0, answer)) == expected


@pytest.mark.parametrize("answer,message", [
    ("", "could not read"),
    ("bypass the hive", "could not read"),
    ("place_(-1,1)_Beetle", "could not read"),
    ("list_place_Queen", "list_place_"),
    ("list_move_Spider_(-1,0)", "list_place_"),
    ("move_Ant_(-1,0)_(2,-1)", "is a Spider, not an Ant"),
    ("move_(1,0)_(1,-1)", "no piece of yours"),
    ("place_(5,5)_Ant", "not an empty cell next to the hive"),
    ("move_(-1,0)_(0,0)", "not an empty cell next to the hive"),
])
def test_unreadable_answers_explain_the_format(answer, message):
    with pytest.raises(ActionParseError, match=re.escape(message)) as error:
        line_with("Spider").parse_action(0, answer)
    assert "place_(q,r)_<Type>" in str(error.value)


def test_text_action_spec_only_for_the_seat_to_play():
    state = line_with("Spider")
    assert state.text_action_spec(1) is None
    spec = state.text_action_spec(0)
    assert spec["max_length"] == 4000 and spec["forbidden_words"] == [] and "move_(q,r)_(q,r)" in spec["description"]
    assert state.default_action(0) is None


# ---- views -----------------------------------------------------------------------------------------
def test_text_view_draws_the_board_and_lists_the_pieces():
    state = line_with("Spider")
    text = state.observation_string(0)
    assert "You are Blue (player 1)" in text and "Surround the enemy Queen Bee" in text
    assert "Turns: Blue has taken 2, Green 2; 248 turns left." in text
    rows = [line for line in text.splitlines() if line.rstrip().endswith(("r=-1, q=-1..3", "r=0, q=-2..3", "r=1, q=-2..2"))]
    assert [row.split("   r=")[0].rstrip() for row in rows] == [
        "   .   .   .   .   .",
        " .  bS  bQ  gQ  gS   .",
        "   .   .   .   .   .",
    ]
    assert "Blue pieces on the board: Spider (-1,0), Queen Bee (0,0)." in text
    assert "Green in hand: Spider 1, Grasshopper 3, Soldier Ant 3." in text
    assert "Last move: Green placed a Spider at (2,0)." in text
    assert "Waiting for Blue to play." in state.observation_string(1)


def test_data_view():
    state = line_with("Spider")
    view = state.observation_dict(0)
    assert view["player"] == 1 and view["colour"] == "Blue" and view["to_play"] == 0
    assert view["pieces"] == [{"owner": 0, "colour": "Blue", "type": "Spider", "q": -1, "r": 0},
                              {"owner": 0, "colour": "Blue", "type": "Queen", "q": 0, "r": 0},
                              {"owner": 1, "colour": "Green", "type": "Queen", "q": 1, "r": 0},
                              {"owner": 1, "colour": "Green", "type": "Spider", "q": 2, "r": 0}]
    assert view["in_hand"][0] == {"Queen": 0, "Spider": 1, "Hopper": 3, "Ant": 3}
    assert view["queen_placed"] == [True, True] and view["turns"] == [2, 2] and view["turns_left"] == 248
    assert view["frontier"][:2] == [[-1, -1], [0, -1]] and len(view["frontier"]) == 12
    assert view["actions"]["move_(-1,0)_(2,-1)"] == "Move the Spider at (-1,0) to (2,-1)."
    assert view["actions"]["place_(-1,1)_Ant"] == "Place an Ant at (-1,1)."
    assert len(view["actions"]) == len(state.legal_actions())
    assert view["history"] == [list(step) for step in state.history()]
    other = state.observation_dict(1)
    assert other["actions"] == {} and other["pieces"] == view["pieces"] and other["player"] == 2


def test_image_is_a_png_of_the_board():
    from PIL import Image

    mime, data = play(BOTH_SURROUNDED[:-1]).observation_image(1)
    assert mime == "image/png" and data.startswith(b"\x89PNG")
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (512, 512)
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 16)}
    assert (173, 216, 230) in colours and (144, 238, 144) in colours     # Blue's and Green's pieces


def test_clones_are_independent_and_views_rebuild_from_history():
    state = line_with("Ant")
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[-1])
    assert state.observation_dict(0)["history"] != copy.observation_dict(0)["history"]
    assert state.legal_actions() != copy.legal_actions()
    game = load_game("hive", preset="gamebench")
    for seat in (0, 1):
        rebuilt = game.state_from_view(seat, copy.observation_dict(seat))
        assert rebuilt.observation_string(seat) == copy.observation_string(seat)
        assert rebuilt.legal_actions() == copy.legal_actions()


def test_mcts_takes_the_surrounding_move():
    state = play(BLUE_WINS[:-1])
    bot = MCTSBot(state.game, simulations=200, seed=0)
    assert state.action_to_string(0, bot.step(state)) == "move_(-1,1)_(0,1)"


# ---- random games against the reference rules -------------------------------------------------------
_PLACE = re.compile(r"place_\((-?\d+),(-?\d+)\)_(\w+)")
_MOVE = re.compile(r"move_\((-?\d+),(-?\d+)\)_\((-?\d+),(-?\d+)\)")


@pytest.mark.parametrize("parameters,seeds", [
    ({}, range(4)),
    ({"spiders": 1, "grasshoppers": 1, "ants": 1, "max_turns": 40}, range(10)),
    ({"spiders": 3, "grasshoppers": 0, "ants": 3, "max_turns": 60}, range(4)),
])
def test_random_games_follow_the_reference_rules(parameters, seeds):
    game = load_game("hive", parameters, preset="gamebench")
    counts = {"Queen": 1, "Spider": game.parameters["spiders"], "Hopper": game.parameters["grasshoppers"],
              "Ant": game.parameters["ants"]}
    for seed in seeds:
        rng, state = random.Random(seed), game.new_initial_state()
        board, hand, turns = {}, [dict(counts), dict(counts)], [0, 0]
        while not state.is_terminal():
            seat = state.current_player()
            assert seat == state.move_number % 2
            legal = state.legal_actions()
            legal_texts = [state.action_to_string(seat, a) for a in legal]
            assert legal == sorted(legal) and legal[-1] < 1024
            assert set(legal_texts) == reference_legal(board, hand, turns, seat), (seed, state.move_number)
            assert len(state.observation_dict(seat)["frontier"]) <= 44
            action = rng.choice(legal)
            text = state.action_to_string(seat, action)
            assert state.parse_action(seat, text) == action
            state.apply_action(action)
            turns[seat] += 1
            if placed := _PLACE.fullmatch(text):
                board[(int(placed[1]), int(placed[2]))] = (seat, placed[3])
                hand[seat][placed[3]] -= 1
            elif moved := _MOVE.fullmatch(text):
                board[(int(moved[3]), int(moved[4]))] = board.pop((int(moved[1]), int(moved[2])))
        lost = [surrounded(board, seat) for seat in (0, 1)]
        expected = ([0.5, 0.5] if all(lost) or not any(lost) else [0.0, 1.0] if lost[0] else [1.0, 0.0])
        assert state.returns() == expected
        assert any(lost) or max(turns) == game.parameters["max_turns"]
        assert [p for p in state.observation_dict(0)["pieces"]] == [
            {"owner": s, "colour": ("Blue", "Green")[s], "type": k, "q": q, "r": r}
            for (q, r), (s, k) in sorted(board.items(), key=lambda item: (item[0][1], item[0][0]))]
