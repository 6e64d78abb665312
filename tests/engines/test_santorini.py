"""Santorini (GameBench): action ids and GameBench's texts, hand-worked games (a climb to level 3, a
pawn to play boxed in, height and dome limits), the parser for every answer format, the views, and
seeded random games checked against an independent re-implementation of the rules, with forced pawn
alternation and without."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

DIRECTIONS = ["northwest", "north", "northeast", "west", "east", "southwest", "south", "southeast"]
STEPS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def new_state(forced: bool = True):
    return load_game("santorini", {"forced_alternation": forced}, preset="gamebench").new_initial_state()


def texts(state) -> list[str]:
    seat = state.current_player()
    return [state.action_to_string(seat, a) for a in state.legal_actions()]


def play(moves, forced: bool = True):
    """A state after `moves`, each given by its canonical text and checked to be legal."""
    state = new_state(forced)
    for move in moves:
        assert move in texts(state), (move, state.observation_string(state.current_player()))
        state.apply_action(state.legal_actions()[texts(state).index(move)])
    return state


def levels(state):
    return state.observation_dict(0)["levels"]


# Pawns A (player 1) and X, B, Y placed; then turns A, X, B, Y, ... A climbs 0 -> 1 -> 2 while B
# raises (2, 2) to level 3 next to it; X and Y shuffle in the top corners.
PLACEMENTS = ["(2, 2)", "(0, 0)", "(3, 3)", "(0, 4)"]
CLIMB = PLACEMENTS + [
    "Move west, build east",            # A (2,2) -> (2,1), (2,2) = 1
    "Move east, build west",            # X (0,0) -> (0,1), (0,0) = 1
    "Move west, build west",            # B (3,3) -> (3,2), (3,1) = 1
    "Move west, build east",            # Y (0,4) -> (0,3), (0,4) = 1
    "Move east, build west",            # A (2,1) -> (2,2) up to level 1, (2,1) = 1
    "Move west, build east",            # X (0,1) -> (0,0) level 1, (0,1) = 1
    "Move south, build northwest",      # B (3,2) -> (4,2), (3,1) = 2
    "Move east, build west",            # Y (0,3) -> (0,4) level 1, (0,3) = 1
    "Move southwest, build northeast",  # A (2,2) -> (3,1) up to level 2, (2,2) = 2
    "Move east, build west",            # X (0,0) -> (0,1), (0,0) = 2
    "Move north, build north",          # B (4,2) -> (3,2), (2,2) = 3
    "Move west, build east",            # Y (0,4) -> (0,3), (0,4) = 2
]


# ---- spec, ids, texts ------------------------------------------------------------------------------
def test_spec_and_preset():
    spec = game_spec("santorini")
    assert (spec.min_players, spec.max_players, spec.utility, spec.min_utility, spec.max_utility) == (
        2, 2, "constant_sum", 0.0, 1.0)
    assert spec.information == "perfect" and spec.chance == "deterministic"
    assert [p.name for p in spec.presets] == ["gamebench"]
    assert spec.preset("gamebench").values == {"forced_alternation": True}
    assert spec.max_game_length == 4 + 21 * 4 + 4 * 2 + 1
    with pytest.raises(ValueError, match="forced_alternation"):
        load_game("santorini", {"forced_alternation": 1})


def test_placements_are_position_tuples_in_row_major_order():
    state = new_state()
    assert state.current_player() == 0
    assert state.legal_actions() == list(range(25))
    assert texts(state)[:3] == ["(0, 0)", "(0, 1)", "(0, 2)"] and texts(state)[13] == "(2, 3)"
    state.apply_action(13)
    assert state.current_player() == 1
    assert 13 not in state.legal_actions() and len(state.legal_actions()) == 24
    assert state.observation_dict(1)["pawns"]["A"] == [2, 3]


def test_turn_ids_are_25_plus_8_move_plus_build_with_gamebench_texts():
    state = play(PLACEMENTS)
    # Pawn A on (2, 2), no block anywhere: every move that is not onto a pawn, then every build.
    for action, text in zip(state.legal_actions(), texts(state)):
        move, build = divmod(action - 25, 8)
        assert text == f"Move {DIRECTIONS[move]}, build {DIRECTIONS[build]}"
    assert state.action_to_string(0, 25 + 8 * 1 + 4) == "Move north, build east"
    # (3, 3) holds B: no move southeast. A may build on (2, 2), the square it leaves.
    assert "Move southeast, build north" not in texts(state)
    assert "Move northwest, build southeast" in texts(state)
    # Seven moves; after each, the squares around the new one except those of X (0, 0), B and Y (0, 4).
    assert len(state.legal_actions()) == 7 + 8 + 7 + 8 + 7 + 8 + 7


def test_action_ids_out_of_range_are_refused():
    state = new_state()
    with pytest.raises(ValueError):
        state.action_to_string(0, 89)
    with pytest.raises(ValueError):
        new_state(False).action_to_string(0, 153)
    assert new_state(False).action_to_string(1, 25 + 64 + 8 * 6 + 1) == "Move pawn Y south, build north"


# ---- hand-worked games -----------------------------------------------------------------------------
def test_climbing_onto_level_3_wins_before_the_build():
    state = play(CLIMB)
    assert levels(state)[2][2] == 3 and levels(state)[3][1] == 2
    assert state.observation_dict(0)["pawn_to_play"] == "A"
    # From (3, 1) at level 2: up to level 3 at (2, 2), down two levels to (3, 0).
    wins = [t for t in texts(state) if t.startswith("Move northeast,")]
    # Builds around (2, 2): all but (3, 2), where B stands; (3, 1), which A leaves, is free.
    assert wins == ["Move northeast, build " + d for d in
                    ["northwest", "north", "northeast", "west", "east", "southwest", "southeast"]]
    assert "Move west, build east" in texts(state)
    before = levels(state)
    state = play(CLIMB + ["Move northeast, build north"])
    assert state.is_terminal() and state.returns() == [1.0, 0.0]
    assert levels(state) == before                   # no build after the winning move
    assert state.result_summary() == "player 1 wins (pawn A moved up onto level 3)"
    details = state.result_details()
    assert details["winner"] == 0 and details["reason"] == "climbed" and details["scores"] == [1.0, 0.0]
    assert details["turns"] == 13 and details["pawns"]["A"] == [2, 2]
    assert details["moves"][-1] == "Player 1 moved pawn A from (3, 1) up to (2, 2), level 3"
    assert state.legal_actions(0) == state.legal_actions(1) == []


def test_a_pawn_climbs_at_most_one_level_and_builds_only_on_free_squares():
    # A climbs down to (1, 2) and raises (2, 2) to level 2 instead; B on (4, 2), at level 0, is next.
    state = play(CLIMB[:12] + ["Move north, build south", "Move east, build west"])
    assert state.observation_dict(0)["pawn_to_play"] == "B" and levels(state)[3][1] == 2
    assert not any(t.startswith("Move northwest,") for t in texts(state))      # (3, 1): two levels up
    assert "Move north, build northwest" in texts(state)                       # building there is fine
    # B's first turn: it may not build on A's square (2, 1), but may on (3, 3), the square it leaves.
    first = play(CLIMB[:6])
    assert "Move west, build northwest" not in texts(first) and "Move west, build east" in texts(first)


def test_a_dome_is_never_entered_or_built_on():
    # A climbs down to (2, 1) and domes (2, 2); X moves; B on (3, 2) is next to the dome.
    state = play(CLIMB + ["Move north, build east", "Move east, build west"])
    assert levels(state)[2][2] == 4
    assert state.observation_dict(1)["board"][2] == "0. 1A 4. 0. 0."
    assert state.observation_dict(0)["pawn_to_play"] == "B"
    assert not any(t.startswith("Move north,") for t in texts(state))
    assert "Move east, build northwest" not in texts(state) and "Move east, build north" in texts(state)


def test_pawn_to_play_boxed_in_loses_even_when_the_other_pawn_could_move():
    # X in the corner (0, 0); Y on (1, 0), B on (1, 1); A steps onto (0, 1), its last free neighbour.
    moves = ["(0, 2)", "(0, 0)", "(1, 1)", "(1, 0)", "Move west, build east"]
    state = play(moves)
    assert state.is_terminal() and state.returns() == [1.0, 0.0]
    assert state.result_details()["reason"] == "stuck"
    assert state.result_summary() == "player 1 wins (player 2's pawn X cannot move)"
    # With the choice of pawn, player 2 plays Y instead and the game goes on.
    free = play(["(0, 2)", "(0, 0)", "(1, 1)", "(1, 0)", "Move pawn A west, build east"], forced=False)
    assert not free.is_terminal() and free.current_player() == 1
    assert all(t.startswith("Move pawn Y ") for t in texts(free))


def test_boxed_in_right_after_placement():
    state = play(["(0, 0)", "(0, 1)", "(1, 0)", "(1, 1)"])
    assert state.is_terminal() and state.returns() == [0.0, 1.0]
    assert state.result_summary() == "player 2 wins (player 1's pawn A cannot move)"


def test_illegal_actions_are_refused_and_change_nothing():
    state = play(PLACEMENTS)
    before = state.observation_dict(0)
    for action in [0, 25 + 8 * 7 + 0, 89, -1]:        # a placement, a move onto B, out of range
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    assert state.observation_dict(0) == before
    placing = play(["(2, 2)"])
    with pytest.raises(IllegalActionError):
        placing.apply_action(12)                      # (2, 2) is taken
    with pytest.raises(IllegalActionError):
        play(CLIMB + ["Move northeast, build north"]).apply_action(25)


# ---- parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", [
    "Move north, build east",
    '{"action": "Move north, build east"}',
    "{'action': 'Move north, build east'}",
    'I considered "Move south, build west" but {"action": "move NORTH, build East"} is better.',
    "Move north-east, build... no. Move north, build east",
    "move pawn A north and then build a block east",
    "Move pawn A from (2, 2) to (1, 2) and then build a block on (1, 3).",
    "Move pawn A from (2, 2) to ((1, 2), (1, 3)) and then build a block on (1, 3).",   # GameBench's own
])
def test_turn_answers(answer):
    state = play(PLACEMENTS)
    assert state.parse_action(0, answer) == 25 + 8 * 1 + 4


@pytest.mark.parametrize("answer", ["(2, 3)", '{"action": "(2, 3)"}', "Place pawn A at (2, 3).",
                                    "(0, 0) is a corner; I choose (2,3)"])
def test_placement_answers(answer):
    assert new_state().parse_action(0, answer) == 13


def test_a_parsed_play_may_be_illegal_for_the_referee_to_refuse():
    state = play(PLACEMENTS)
    action = state.parse_action(0, "Move southeast, build north")      # onto B
    assert action == 25 + 8 * 7 + 1 and action not in state.legal_actions()
    assert state.parse_action(0, "Move north east, build south-west") == 25 + 8 * 2 + 5


@pytest.mark.parametrize("answer,message", [
    ("", "Move north, build east"),
    ("north", "Move north, build east"),
    ("(2, 3)", "Move north, build east"),                            # a placement during the turns
    ("Move pawn B north, build east", "you play pawn A"),
    ("Move up, build east", "could not read a move"),
    ("Move north, build up", "two directions"),
    ("Move pawn A from (2, 2) to (0, 2) and then build a block on (0, 3).", "one square"),
    ("Move pawn A from (4, 4) to (4, 3) and then build a block on (3, 3).", "no pawn"),
    ("Move pawn A from (2, 2) to (1, 2) and then build a block on (9, 9).", "off the board"),
])
def test_unreadable_turn_answers_explain_the_format(answer, message):
    with pytest.raises(ActionParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        play(PLACEMENTS).parse_action(0, answer)


@pytest.mark.parametrize("answer,message", [("Move north, build east", "row, column"),
                                            ("(5, 0)", "off the board"), ("two three", "row, column")])
def test_unreadable_placements_explain_the_format(answer, message):
    with pytest.raises(ActionParseError, match=message):
        new_state().parse_action(0, answer)


def test_free_choice_answers_name_the_pawn():
    state = play(PLACEMENTS, forced=False)
    assert state.parse_action(0, "Move pawn B north, build east") == 25 + 64 + 8 * 1 + 4
    assert state.parse_action(0, "Move A north, build east") == 25 + 8 * 1 + 4
    assert state.parse_action(0, "Move pawn B from (3, 3) to (2, 3) and then build a block on (1, 3).") == \
        25 + 64 + 8 * 1 + 1
    with pytest.raises(ActionParseError, match="name the pawn"):
        state.parse_action(0, "Move north, build east")
    with pytest.raises(ActionParseError, match="not yours"):
        state.parse_action(0, "Move pawn X north, build east")


def test_text_action_spec_and_no_default_action():
    state = new_state()
    spec = state.text_action_spec(0)
    assert "(2, 3)" in spec["description"] and spec["forbidden_words"] == []
    assert state.text_action_spec(1) is None
    assert "Move north, build east" in play(PLACEMENTS).text_action_spec(0)["description"]
    assert state.default_action(0) is None


# ---- views -------------------------------------------------------------------------------------
def test_views_show_gamebench_board_and_whose_turn():
    state = play(CLIMB)
    text = state.observation_string(0)
    assert "You are player 1 and control pawns A and B" in text
    assert "\n2. 1X 0. 1Y 2.\n0. 0. 0. 0. 0.\n0. 1. 3. 0. 0.\n0. 2A 0B 0. 0.\n0. 0. 0. 0. 0.\n" in text
    assert "Last move: Player 2 moved pawn Y from (0, 4) to (0, 3) and built on (0, 4)." in text
    assert "you play pawn A" in text
    assert "Waiting for player 1 to play pawn A." in state.observation_string(1)
    view = state.observation_dict(1)
    assert view["player"] == 2 and view["my_pawns"] == ["X", "Y"] and view["opponent_pawns"] == ["A", "B"]
    assert view["phase"] == "play" and view["to_play"] == 0 and view["actions"] == {}
    assert view["pawns"] == {"A": [3, 1], "B": [3, 2], "X": [0, 1], "Y": [0, 3]}
    mine = state.observation_dict(0)["actions"]
    assert list(mine) == texts(state)
    assert mine["Move northeast, build north"] == \
        "Move pawn A from (3, 1) to (2, 2) and then build a block on (1, 2)."
    json.dumps(view)


def test_public_history_narrates_every_move():
    state = play(PLACEMENTS + ["Move west, build east"])
    assert [text for _, _, text in state.public_history()] == [
        "Player 1 placed pawn A at (2, 2)", "Player 2 placed pawn X at (0, 0)", "Player 1 placed pawn B at (3, 3)",
        "Player 2 placed pawn Y at (0, 4)", "Player 1 moved pawn A from (2, 2) to (2, 1) and built on (2, 2)"]


def test_clones_are_independent_and_views_rebuild_the_state():
    state = play(CLIMB)
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert state.observation_dict(0)["history"] != copy.observation_dict(0)["history"]
    assert not state.is_terminal() and len(state.history()) == len(CLIMB)
    game = load_game("santorini", preset="gamebench")
    for seat in (0, 1):
        rebuilt = game.state_from_view(seat, state.observation_dict(seat))
        assert rebuilt.observation_string(seat) == state.observation_string(seat)
        assert rebuilt.legal_actions() == state.legal_actions()


# ---- random games against an independent model of the rules -------------------------------------
class Model:
    """The rules written plainly: squares (row, column), pawns by letter, one list of turns."""

    def __init__(self, forced: bool):
        self.forced = forced
        self.level = {(r, c): 0 for r in range(5) for c in range(5)}
        self.at = {}                    # letter -> square
        self.decisions = 0
        self.winner = None

    def pawns_of(self, seat):
        return ("A", "B") if seat == 0 else ("X", "Y")

    def pawns_to_play(self):
        if self.forced or self.decisions < 4:
            return ["AXBY"[self.decisions % 4]]
        return list(self.pawns_of(self.decisions % 2))

    def empty(self, square, ignoring=None):
        return square in self.level and all(s != square for p, s in self.at.items() if p != ignoring)

    def moves(self, pawn):
        (r, c) = self.at[pawn]
        return [(d, (r + dr, c + dc)) for d, (dr, dc) in zip(DIRECTIONS, STEPS)
                if self.empty((r + dr, c + dc)) and self.level[(r + dr, c + dc)] < 4
                and self.level[(r + dr, c + dc)] <= self.level[(r, c)] + 1]

    def legal(self):
        if self.winner is not None:
            return []
        if self.decisions < 4:
            return [f"({r}, {c})" for (r, c) in sorted(self.level) if self.empty((r, c))]
        out = []
        for pawn in self.pawns_to_play():
            for move, (r, c) in self.moves(pawn):
                for build, (dr, dc) in zip(DIRECTIONS, STEPS):
                    square = (r + dr, c + dc)
                    if self.empty(square, ignoring=pawn) and self.level[square] < 4:
                        named = "" if self.forced else f"pawn {pawn} "
                        out.append((f"Move {named}{move}, build {build}", pawn, (r, c), square))
        return out

    def apply(self, choice):
        seat = self.decisions % 2
        self.decisions += 1
        if isinstance(choice, str):
            self.at["AXBY"[(self.decisions - 1) % 4]] = tuple(int(x) for x in choice.strip("()").split(", "))
        else:
            _, pawn, square, build = choice
            self.at[pawn] = square
            if self.level[square] == 3:
                self.winner = seat
                return
            self.level[build] += 1
        if self.decisions >= 4 and not any(self.moves(p) for p in self.pawns_to_play()):
            self.winner = seat


def texts_of(model_choices):
    return [c if isinstance(c, str) else c[0] for c in model_choices]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), forced=st.booleans())
def test_random_games_follow_the_model(seed, forced):
    rng = random.Random(seed)
    state, model = new_state(forced), Model(forced)
    while not state.is_terminal():
        choices = model.legal()
        assert texts(state) == texts_of(choices)
        assert state.observation_dict(0)["levels"] == [[model.level[(r, c)] for c in range(5)] for r in range(5)]
        index = rng.randrange(len(choices))
        seat = state.current_player()
        action = state.legal_actions()[index]
        assert state.parse_action(seat, state.action_to_string(seat, action)) == action
        state.apply_action(action)
        model.apply(choices[index])
        assert len(state.history()) <= game_spec("santorini").max_game_length
    assert model.winner is not None and model.legal() == []
    assert state.returns() == [1.0 if seat == model.winner else 0.0 for seat in (0, 1)]
    assert sum(state.returns()) == 1.0
