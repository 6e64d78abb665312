"""Sea Battle (GameBench): the setup's chance nodes, hand-worked turns for every rule of GameBench's
resolution (claims, rocks, rams, the turning step, cannon range and blocking, sinking mid-turn, the
order of ships within a step, the quirks: head-on ships passing, ships sharing a square), the scores,
the parser for every answer format, the views, and seeded random games checked turn by turn against an
independent re-implementation of GameBench's rules."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import CHANCE, SIMULTANEOUS, ActionParseError, IllegalActionError

HEADINGS = ["East", "North", "West", "South"]
ORDERS = ["move left then shoot left", "move left then shoot right", "move forward then shoot left",
          "move forward then shoot right", "move right then shoot left", "move right then shoot right",
          "don't move then shoot left", "don't move then shoot right"]
LETTERS = "ABCXYZ"
# Idle ships in column 8 of a 10 x 10 board, facing North: "don't move then shoot right" fires East
# straight into the border rock at x = 9.
IDLE = "don't move then shoot right"


def setup(ships: dict, rocks=(), size: int = 10, **parameters):
    """A state after the setup: `ships` maps a letter to ((x, y), facing); missing ships are parked in
    column 8, facing North."""
    game = load_game("sea_battle", {"board_size": size, "interior_rocks": len(rocks), **parameters},
                     preset="gamebench")
    state = game.new_initial_state()
    parking = iter([(8, 8), (8, 6), (8, 4), (8, 2), (8, 1), (8, 7)])
    for letter in LETTERS:
        (x, y), facing = ships[letter] if letter in ships else (next(parking), "North")
        state.apply_action(y * size + x)
        state.apply_action(HEADINGS.index(facing))
    for x, y in rocks:
        state.apply_action(y * size + x)
    assert state.is_simultaneous_node()
    return state


def play_turn(state, orders: dict):
    """Applies one turn: `orders` maps letters to order texts; other ships afloat stay and fire into
    the rock east of column 8 (see IDLE)."""
    joint = [0] * 6
    for seat in state.current_players():
        joint[seat] = ORDERS.index(orders.get(LETTERS[seat], IDLE))
    state.apply_actions(joint)
    return state


def ship(state, letter: str) -> dict:
    return state.observation_dict(0)["ships"][LETTERS.index(letter)]


def where(state, letter: str):
    s = ship(state, letter)
    return tuple(s["position"]), s["facing"], s["damage"]


# ---- spec, setup -------------------------------------------------------------------------------
def test_spec_preset_and_sides():
    spec = game_spec("sea_battle")
    assert (spec.min_players, spec.max_players, spec.dynamics, spec.chance, spec.information, spec.utility,
            spec.min_utility, spec.max_utility) == (6, 6, "simultaneous", "stochastic", "perfect", "constant_sum",
                                                    0.0, 1.0)
    assert [p.name for p in spec.presets] == ["gamebench"]
    assert spec.resolve("gamebench") == {"board_size": 24, "interior_rocks": 14, "cannon_range": 3, "cannon_damage": 2,
                                         "rock_damage": 1, "ram_damage": 1, "sink_damage": 10, "max_turns": 200}
    game = load_game("sea_battle", preset="gamebench")
    assert game.seat_sides() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError):
        load_game("sea_battle", num_players=2)


@pytest.mark.parametrize("bad", [{"board_size": 6}, {"board_size": 25}, {"interior_rocks": -1},
                                 {"board_size": 7, "interior_rocks": 20}, {"cannon_range": 0}, {"sink_damage": 0},
                                 {"max_turns": 0}, {"max_turns": 1001}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        load_game("sea_battle", bad)


def test_the_setup_draws_ships_headings_then_rocks_uniformly_among_free_interior_squares():
    state = load_game("sea_battle", preset="gamebench").new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 22 * 22 and all(p == pytest.approx(1 / 484) for _, p in outcomes)
    assert {a % 24 for a, _ in outcomes} == set(range(1, 23)) and {a // 24 for a, _ in outcomes} == set(range(1, 23))
    assert state.action_to_string(CHANCE, 5 * 24 + 3) == "ship A at (3, 5)"
    state.apply_action(5 * 24 + 3)
    assert state.chance_outcomes() == [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]
    assert state.action_to_string(CHANCE, 1) == "ship A faces North"
    state.apply_action(1)
    assert len(state.chance_outcomes()) == 483 and (5 * 24 + 3) not in dict(state.chance_outcomes())
    with pytest.raises(IllegalActionError):
        state.apply_action(5 * 24 + 3)              # A's square is taken
    with pytest.raises(IllegalActionError):
        state.apply_action(0)                       # a border square
    for i in range(5):
        state.apply_action(7 * 24 + 2 + i)
        state.apply_action(0)
    assert state.action_to_string(CHANCE, 30) == "rock at (6, 1)"
    rocks = 0
    while state.is_chance_node():
        free = dict(state.chance_outcomes())
        assert len(free) == 484 - 6 - rocks
        state.apply_action(min(free))
        rocks += 1
    assert rocks == 14 and state.is_simultaneous_node() and state.current_players() == list(range(6))
    assert len(state.observation_dict(3)["rocks"]) == 14


# ---- movement ------------------------------------------------------------------------------------
def test_forward_and_turning_moves():
    state = setup({"A": ((4, 4), "North"), "B": ((6, 2), "North"), "C": ((2, 2), "East")})
    play_turn(state, {"A": "move left then shoot right", "B": "move right then shoot right",
                      "C": "move forward then shoot right"})
    assert where(state, "A") == ((3, 5), "West", 0)       # (4, 5), turn West, (3, 5)
    assert where(state, "B") == ((7, 3), "East", 0)       # (6, 3), turn East, (7, 3)
    assert where(state, "C") == ((3, 2), "East", 0)


def test_sailing_into_a_rock_costs_one_damage_on_either_step_and_the_ship_stays():
    state = setup({"A": ((1, 5), "West"), "B": ((1, 3), "North"), "C": ((4, 4), "North")}, rocks=[(4, 5)])
    play_turn(state, {"A": "move forward then shoot right", "B": "move left then shoot left",
                      "C": "move right then shoot left"})
    assert where(state, "A") == ((1, 5), "West", 1)       # the border rock ahead
    assert where(state, "B") == ((1, 4), "West", 1)       # (1, 4), turns West, then the border rock
    assert where(state, "C") == ((5, 4), "East", 1)       # the rock at (4, 5), still turns East, then (5, 4)


def test_two_ships_claiming_one_square_both_stay_and_take_ram_damage():
    state = setup({"A": ((3, 5), "East"), "X": ((5, 5), "West")})
    play_turn(state, {"A": "move forward then shoot left", "X": "move forward then shoot left"})
    assert where(state, "A") == ((3, 5), "East", 1)
    assert where(state, "X") == ((5, 5), "West", 1)


def test_a_ship_that_stays_is_rammed_too():
    state = setup({"A": ((4, 5), "East"), "X": ((5, 5), "West")})
    play_turn(state, {"A": "don't move then shoot left", "X": "move forward then shoot left"})
    assert where(state, "A") == ((4, 5), "East", 1)
    assert where(state, "X") == ((5, 5), "West", 1)


def test_ships_sailing_head_on_pass_through_each_other():
    state = setup({"A": ((4, 5), "East"), "X": ((5, 5), "West")})
    play_turn(state, {"A": "move forward then shoot left", "X": "move forward then shoot left"})
    assert where(state, "A") == ((5, 5), "East", 0)
    assert where(state, "X") == ((4, 5), "West", 0)


def test_a_ship_follows_another_into_the_square_it_could_not_leave_and_they_share_it():
    state = setup({"A": ((1, 5), "West"), "B": ((2, 5), "West"), "X": ((1, 2), "East")})
    play_turn(state, {"A": "move forward then shoot right", "B": "move forward then shoot right",
                      "X": "don't move then shoot right"})
    assert where(state, "A") == ((1, 5), "West", 1)
    assert where(state, "B") == ((1, 5), "West", 0)
    assert state.observation_dict(0)["grid"][10 - 1 - 5][2] == "*"       # row y = 5, column x = 1
    # Ships on one square never collide with each other; a cannonball hits the first of them in seat order.
    play_turn(state, {"A": "don't move then shoot right", "B": "don't move then shoot right",
                      "X": "don't move then shoot left"})                 # X fires North up column 1
    assert where(state, "A") == ((1, 5), "West", 3)
    assert where(state, "B") == ((1, 5), "West", 0)


def test_on_the_second_step_a_shared_claim_only_stops_the_ships():
    state = setup({"A": ((3, 3), "North"), "X": ((5, 3), "North")})
    play_turn(state, {"A": "move right then shoot left", "X": "move left then shoot left"})
    assert where(state, "A") == ((3, 4), "East", 0)
    assert where(state, "X") == ((5, 4), "West", 0)


# ---- cannons ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("targets,rocks,hit", [
    ({"X": ((5, 2), "East")}, [], {"X": 2}),                               # 3 squares away: hit
    ({"X": ((6, 2), "East")}, [], {"X": 0}),                               # 4 squares away: out of range
    ({"X": ((5, 2), "East")}, [(3, 2)], {"X": 0}),                         # a rock stops the ball
    ({"Y": ((4, 2), "East"), "X": ((5, 2), "East")}, [], {"Y": 2, "X": 0}),     # the first ship takes it
])
def test_a_cannonball_flies_three_squares_and_stops_at_the_first_rock_or_ship(targets, rocks, hit):
    # The targets face East: their own idle shots go South into the border.
    state = setup({"A": ((2, 2), "North"), **targets}, rocks=rocks)
    play_turn(state, {"A": "don't move then shoot right"})                 # right of North is East
    for letter, damage in hit.items():
        assert ship(state, letter)["damage"] == damage


def test_shots_leave_the_side_relative_to_the_heading_after_moving():
    # A ends at (3, 5) facing West, so its left side faces South: (3, 4), (3, 3), (3, 2).
    state = setup({"A": ((4, 4), "North"), "X": ((3, 2), "North")})
    play_turn(state, {"A": "move left then shoot left"})
    assert ship(state, "X")["damage"] == 2
    state = setup({"A": ((4, 4), "North"), "X": ((3, 1), "North")})
    play_turn(state, {"A": "move left then shoot left"})
    assert ship(state, "X")["damage"] == 0


# ---- sinking ---------------------------------------------------------------------------------------
def test_a_ship_sinks_at_ten_damage_and_has_no_more_decisions():
    state = setup({"A": ((1, 5), "West")})
    for turn in range(10):
        assert 0 in state.current_players()
        play_turn(state, {"A": "move forward then shoot right"})
    assert ship(state, "A") == {"ship": "A", "seat": 0, "side": 0, "position": [1, 5], "facing": "West",
                                "damage": 10, "sunk": True}
    assert state.current_players() == [1, 2, 3, 4, 5]
    assert state.legal_actions(0) == [] and state.text_action_spec(0) is None
    assert "A" not in "".join(state.observation_dict(0)["grid"])
    # The sunk seat's entry of a joint action is ignored.
    state.apply_actions([99] + [ORDERS.index(IDLE)] * 5)
    assert ship(state, "A")["damage"] == 10


def test_a_ship_sunk_while_moving_does_not_fire():
    state = setup({"A": ((1, 5), "West"), "X": ((1, 3), "North")}, sink_damage=3)
    for _ in range(2):
        play_turn(state, {"A": "move forward then shoot right"})           # North: open water
    play_turn(state, {"A": "move forward then shoot left"})                # South, at X -- but A sinks first
    assert ship(state, "A")["sunk"] and ship(state, "X")["damage"] == 0
    record = state.observation_dict(0)["last_turn"]["ships"][0]
    assert record["shot"] is None and record["sank"]
    assert "sank before firing" in state.observation_string(3)


def test_the_volley_is_fired_by_every_ship_afloat_when_it_starts_and_sunk_ships_stop_no_ball():
    # A sinks X; X, already sunk, still fires back and sinks A; Y's ball then flies over X's square and
    # hits C behind it.
    state = setup({"A": ((3, 5), "North"), "X": ((4, 5), "North"), "C": ((4, 6), "North"), "Y": ((4, 3), "East")},
                  sink_damage=2)
    play_turn(state, {"A": "don't move then shoot right", "X": "don't move then shoot left",
                      "Y": "don't move then shoot left"})
    assert [ship(state, s)["damage"] for s in "ACXY"] == [2, 2, 2, 0]
    assert [ship(state, s)["sunk"] for s in "ABCXYZ"] == [True, False, True, True, False, False]
    shots = {r["ship"]: r["shot"] for r in state.observation_dict(0)["last_turn"]["ships"]}
    assert shots == {"A": "X", "B": "rock", "C": "missed", "X": "A", "Y": "C", "Z": "rock"}


def test_ships_sunk_earlier_in_a_step_drop_out_of_its_collision_checks_in_seat_order():
    # Both claim (4, 5); A, first in seat order, is rammed and sinks, so X no longer collides and sails.
    state = setup({"A": ((3, 5), "East"), "X": ((5, 5), "West")}, sink_damage=1)
    play_turn(state, {"A": "move forward then shoot left", "X": "move forward then shoot left"})
    assert where(state, "A") == ((3, 5), "East", 1) and ship(state, "A")["sunk"]
    assert where(state, "X") == ((4, 5), "West", 0)


# ---- end and scores ----------------------------------------------------------------------------------
def test_side_0_wins_when_every_side_1_ship_has_sunk():
    state = setup({"X": ((1, 5), "West"), "Y": ((1, 3), "West"), "Z": ((3, 1), "South")}, sink_damage=1)
    play_turn(state, {"X": "move forward then shoot left", "Y": "move forward then shoot left",
                      "Z": "move forward then shoot left"})
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert state.observation_dict(4)["winner"] == 0
    assert state.result_summary() == "side 0 (ships A, B, C) wins after 1 turn: every enemy ship has sunk"
    details = state.result_details()
    assert details["scores"] == [1.0, 0.0] and details["result"] == "side 0 won" and len(details["turn_log"]) == 1


def test_side_1_wins_when_every_side_0_ship_has_sunk():
    state = setup({"A": ((1, 5), "West"), "B": ((1, 3), "West"), "C": ((3, 1), "South")}, sink_damage=1)
    play_turn(state, {letter: "move forward then shoot left" for letter in "ABC"})
    assert state.returns() == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]


def test_all_ships_sunk_together_is_a_draw():
    ships = {"A": ((1, 5), "West"), "B": ((1, 3), "West"), "C": ((3, 1), "South"), "X": ((8, 5), "East"),
             "Y": ((8, 3), "East"), "Z": ((5, 8), "North")}
    state = setup(ships, sink_damage=1)
    play_turn(state, {letter: "move forward then shoot left" for letter in LETTERS})
    assert state.is_terminal() and state.returns() == [0.5] * 6
    assert state.result_details()["result"] == "all ships sunk" and state.result_details()["winner"] is None


def test_an_undecided_game_ends_at_the_turn_cap_as_a_draw():
    state = setup({}, max_turns=2)
    play_turn(state, {})
    assert not state.is_terminal() and state.returns() == [0.0] * 6
    play_turn(state, {})
    assert state.is_terminal() and state.returns() == [0.5] * 6
    assert state.result_summary() == "draw: the game was still undecided after 2 turns, the turn limit"


def test_illegal_moves_are_refused_and_leave_the_state_unchanged():
    state = setup({})
    before = state.observation_string(0)
    with pytest.raises(IllegalActionError):
        state.apply_actions([8, 0, 0, 0, 0, 0])
    with pytest.raises(IllegalActionError):
        state.apply_actions([-1, 0, 0, 0, 0, 0])
    with pytest.raises(IllegalActionError):
        state.apply_actions([0] * 5)
    with pytest.raises(IllegalActionError):
        state.apply_action(0)                       # a simultaneous node
    assert state.observation_string(0) == before and state.legal_actions(0) == list(range(8))
    with pytest.raises(ValueError):
        state.action_to_string(0, 8)
    with pytest.raises(ValueError):
        state.observation_string(6)


# ---- answers -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,order", [
    ("move left then shoot left", 0),
    ("Move Right  then  Shoot Left", 4),
    ("don't move then shoot right", 7),
    ("Don’t move, then shoot left", 6),
    ("do not move and shoot right", 7),
    ("dont move then shoot left", 6),
    ('{"action": "move forward then shoot right"}', 3),
    ('I will sail on. {"action": "move right then shoot right", "openended_response": null}', 5),
    ("{'action': 'move left then shoot right'}", 1),
    # GameBench's descriptions of its orders.
    ("Move forward one square, rotate left, move forward another square, then shoot to your right.", 1),
    ("Move forward one square, rotate right, move forward another square, then shoot to your left.", 4),
    ("Move forward one square, then shoot to your left.", 2),
    ("Don't move, then shoot to your right.", 7),
    # The last order counts; a JSON action beats orders in the chatter.
    ("not move left then shoot left but move forward then shoot right", 3),
    ('Maybe "move left then shoot left"? {"action": "don\'t move then shoot left"}', 6),
])
def test_parser_reads_the_action_ids_and_descriptions(text, order):
    state = setup({})
    assert state.parse_action(2, text) == order


@pytest.mark.parametrize("text", ["", "shoot left", "move left", "move up then shoot left", "move left then shoot up",
                                  '{"action": "attack"}', "6", "fire!"])
def test_parser_refuses_anything_else_with_the_expected_format(text):
    state = setup({})
    with pytest.raises(ActionParseError, match="move forward then shoot left"):
        state.parse_action(0, text)


def test_every_order_text_parses_back_and_the_text_spec_describes_it():
    state = setup({})
    for action in range(8):
        assert state.action_to_string(4, action) == ORDERS[action]
        assert state.parse_action(4, ORDERS[action]) == action
    spec = state.text_action_spec(4)
    assert spec["forbidden_words"] == [] and "don't move" in spec["description"]
    assert state.default_action(4) is None


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300))
def test_parser_returns_an_order_or_refuses(text):
    state = setup({})
    try:
        assert 0 <= state.parse_action(1, text) < 8
    except ActionParseError as e:
        assert "Answer with" in str(e)


# ---- views -------------------------------------------------------------------------------------------
def test_every_seat_sees_the_same_board_with_its_own_ship_marked():
    state = setup({"A": ((2, 3), "East"), "Y": ((5, 6), "South")}, rocks=[(4, 4)])
    views = [state.observation_dict(seat) for seat in range(6)]
    personal = {"my_ship", "my_side", "team", "opponents"}
    for seat, view in enumerate(views):
        assert {k: v for k, v in view.items() if k not in personal} == \
            {k: v for k, v in views[0].items() if k not in personal}
        assert view["my_ship"] == LETTERS[seat] and view["my_side"] == seat // 3
    assert views[4]["team"] == ["X", "Y", "Z"] and views[4]["opponents"] == ["A", "B", "C"]
    assert views[0]["rocks"] == [[4, 4]]
    assert views[0]["grid"][0] == "R " * 9 + "R" and views[0]["grid"][10 - 1 - 3] == "R . A . . . . . . R"
    text = state.observation_string(4)
    assert "You command ship Y" in text and "Y (your ship): at (5, 6) facing South, damage 0 of 10" in text
    assert "A (opponent): at (2, 3) facing East" in text and "Rocks inside the border: (4, 4)." in text
    assert "Turn 1 of at most 200: give ship Y its order." in text
    assert json.loads(json.dumps(views[0])) == views[0]


def test_the_last_turn_is_reported_to_every_seat():
    state = setup({"A": ((2, 2), "North"), "X": ((5, 2), "North")})
    play_turn(state, {"A": "don't move then shoot right"})
    last = state.observation_dict(3)["last_turn"]
    assert last["turn"] == 1
    assert last["ships"][0] == {"ship": "A", "order": "don't move then shoot right", "from": [2, 2],
                                "facing_before": "North", "to": [2, 2], "facing": "North", "rock_hits": 0,
                                "rams": 0, "shot": "X", "damage_taken": 0, "sank": False}
    assert last["ships"][3]["damage_taken"] == 2
    assert ("A (don't move then shoot right) stayed at (2, 2), facing North; fired right: hit ship X"
            in state.observation_string(3))


def test_public_history_narrates_the_setup_the_orders_and_each_turn():
    state = setup({"A": ((2, 2), "North"), "X": ((5, 2), "North")})
    play_turn(state, {"A": "don't move then shoot right"})
    history = state.public_history()
    assert history[0] == (CHANCE, 2 * 10 + 2, "ship A at (2, 2)") and history[1] == (CHANCE, 1, "ship A faces North")
    assert history[12] == (0, 7, "ship A: don't move then shoot right")
    assert history[-1][0] == SIMULTANEOUS and history[-1][1] == -1 and history[-1][2].startswith("Turn 1: A (")
    assert len(history) == 12 + 6 + 1


# ---- consistency ---------------------------------------------------------------------------------------
def test_clones_are_independent():
    state = setup({"A": ((2, 2), "North")})
    copy = state.clone()
    play_turn(copy, {"A": "move forward then shoot left"})
    assert where(state, "A") == ((2, 2), "North", 0) and where(copy, "A") == ((2, 3), "North", 0)
    assert state.history() != copy.history() and state.observation_dict(0)["turn"] == 0


def random_states(seeds, parameters=None):
    """(state, rng) at every step of seeded random games."""
    game = load_game("sea_battle", parameters, preset="gamebench")
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            yield game, state, rng
            state.step_randomly(rng)
        yield game, state, rng


def test_state_from_view_rebuilds_every_view_and_plays_on_the_same():
    small = {"board_size": 9, "interior_rocks": 4, "sink_damage": 4}
    for game, state, rng in random_states(range(6), small):
        views = [state.observation_dict(seat) for seat in range(6)]
        rebuilt = game.state_from_view(rng.randrange(6), views[0])
        assert [rebuilt.observation_dict(seat) for seat in range(6)] == views
        assert rebuilt.observation_string(5) == state.observation_string(5)
        assert rebuilt.current_player() == state.current_player() and rebuilt.returns() == state.returns()
        if state.is_simultaneous_node():
            joint = [rng.randrange(8) for _ in range(6)]
            ahead, rebuilt_ahead = state.clone(), rebuilt
            ahead.apply_actions(joint)
            rebuilt_ahead.apply_actions(joint)
            assert rebuilt_ahead.observation_dict(1) == ahead.observation_dict(1)


# ---- an independent re-implementation of GameBench's rules --------------------------------------
class Reference:
    """GameBench's HEAD code restated: positions and headings are complex numbers (x + y i, East = 1,
    North = i), the ships afloat are recomputed at every use, and ships are told apart by position."""

    TURNS = {"move left": 1j, "move right": -1j}

    def __init__(self, view: dict):
        size = view["board_size"]
        self.rocks = {complex(x, y) for x in range(size) for y in range(size)
                      if x in (0, size - 1) or y in (0, size - 1)} | {complex(x, y) for x, y in view["rocks"]}
        self.position = [complex(*s["position"]) for s in view["ships"]]
        self.heading = [{"East": 1, "North": 1j, "West": -1, "South": -1j}[s["facing"]] for s in view["ships"]]
        self.damage = [0] * 6
        self.rules = view["rules"]
        self.turns = 0

    def afloat(self) -> list[int]:
        return [i for i in range(6) if self.damage[i] < self.rules["sink_damage"]]

    def _step(self, plans, claims, damage_on_collision):
        for i in self.afloat():
            if claims[i] in self.rocks:
                self.damage[i] += self.rules["rock_damage"]
            elif any(claims[t] == claims[i] for t in self.afloat() if self.position[t] != self.position[i]):
                self.damage[i] += self.rules["ram_damage"] if damage_on_collision else 0
            else:
                self.position[i] = claims[i]

    def play(self, orders: list[int]) -> None:
        plans = {i: ORDERS[orders[i]].split(" then ") for i in self.afloat()}
        claims = {i: self.position[i] + (self.heading[i] if plans[i][0] != "don't move" else 0) for i in plans}
        self._step(plans, claims, True)
        for i in self.afloat():
            self.heading[i] *= self.TURNS.get(plans[i][0], 1)
        claims = {i: self.position[i] + (self.heading[i] if plans[i][0] in self.TURNS else 0) for i in self.afloat()}
        self._step(plans, claims, False)
        for i in self.afloat():
            side = 1j if plans[i][1] == "shoot left" else -1j
            target = self.position[i]
            for _ in range(self.rules["cannon_range"]):
                target += self.heading[i] * side
                if target in self.rocks:
                    break
                hit = next((t for t in self.afloat() if self.position[t] == target), None)
                if hit is not None:
                    self.damage[hit] += self.rules["cannon_damage"]
                    break
        self.turns += 1

    def scores(self):
        sides = {i // 3 for i in self.afloat()}
        if not sides:
            return [0.5] * 6
        if sides == {0}:
            return [1.0] * 3 + [0.0] * 3
        if sides == {1}:
            return [0.0] * 3 + [1.0] * 3
        return [0.5] * 6 if self.turns >= self.rules["max_turns"] else None

    def ships(self) -> list:
        names = {1: "East", 1j: "North", -1: "West", -1j: "South"}
        return [([int(p.real), int(p.imag)], names[h], d) for p, h, d in zip(self.position, self.heading, self.damage)]


@pytest.mark.parametrize("parameters,games,crowded", [
    (None, 25, False),                                                           # GameBench's board
    ({"board_size": 7, "interior_rocks": 4, "sink_damage": 8}, 60, True),        # rams, shared squares
    ({"board_size": 12, "cannon_range": 5, "cannon_damage": 3, "ram_damage": 2, "max_turns": 15}, 30, False),
])
def test_random_games_follow_the_reference_rules(parameters, games, crowded):
    game = load_game("sea_battle", parameters, preset="gamebench")
    seen = {"ram": 0, "shared": 0, "hit": 0, "sunk_mid_turn": 0}
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.step_randomly(rng)
        reference = Reference(state.observation_dict(0))
        while not state.is_terminal():
            assert state.current_players() == reference.afloat()
            orders = [rng.randrange(8) for _ in range(6)]
            state.apply_actions(orders)
            reference.play(orders)
            view = state.observation_dict(0)
            assert [(s["position"], s["facing"], s["damage"]) for s in view["ships"]] == reference.ships(), seed
            assert state.is_terminal() == (reference.scores() is not None)
            for record in view["last_turn"]["ships"]:
                seen["ram"] += record["rams"] > 0
                seen["hit"] += record["shot"] in list(LETTERS)
                seen["sunk_mid_turn"] += record["sank"]
            positions = [tuple(s["position"]) for s in view["ships"] if not s["sunk"]]
            seen["shared"] += len(positions) != len(set(positions))
        assert state.returns() == reference.scores()
    # The random games went through the rules' corners (ships sharing a square need a crowded board).
    assert min(seen.values()) > 0 or not crowded and min(v for k, v in seen.items() if k != "shared") > 0, seen
