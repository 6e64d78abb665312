"""Diner's Dilemma: payoffs worked by hand (vanilla and every Table 9 preset), the bill split,
illegal moves, parsing, hidden orders, determinization, parameters and the GAMA-Bench score."""

from __future__ import annotations

import itertools
import json
import random
import re
from fractions import Fraction

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.diners_dilemma import gamabench_history, gamabench_score

GAME = "diners_dilemma"
CHEAP, COSTLY = 0, 1


def make(players=3, rounds=3, **parameters):
    return load_game(GAME, {"rounds": rounds, **parameters}, num_players=players).new_initial_state()


def play(rounds_of_orders, rounds=None, **parameters):
    state = make(len(rounds_of_orders[0]), rounds or len(rounds_of_orders), **parameters)
    for orders in rounds_of_orders:
        state.apply_actions(list(orders))
    return state


def reference_round(orders, cheap_price, cheap_utility, costly_price, costly_utility):
    """(bill, exact utilities) of one round, independently of the engine: U(own dish) - bill / N."""
    bill = sum(costly_price if o == COSTLY else cheap_price for o in orders)
    share = Fraction(bill, len(orders))
    return bill, [(costly_utility if o == COSTLY else cheap_utility) - share for o in orders]


def _views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


# ---- payoffs ---------------------------------------------------------------------------------------
def test_vanilla_payoffs_worked_by_hand():
    game = load_game(GAME, preset="gamabench")
    assert game.num_players == 10
    state = game.new_initial_state()
    state.apply_actions([CHEAP] * 10)                 # bill 100, share 10: 15 - 10
    state.apply_actions([COSTLY] * 10)                # bill 200, share 20: 20 - 20
    state.apply_actions([COSTLY] + [CHEAP] * 9)       # bill 110, share 11: costly 9, cheap 4
    rounds = state.result_details()["rounds"]
    assert [r["total_cost"] for r in rounds] == [100, 200, 110]
    assert [r["share"] for r in rounds] == [10.0, 20.0, 11.0]
    assert rounds[0]["utilities"] == [5.0] * 10 and rounds[1]["utilities"] == [0.0] * 10
    assert rounds[2]["utilities"] == [9.0] + [4.0] * 9
    # Welfare: all cheap N(b - y) = 50, all costly (the NE) N(a - x) = 0.
    assert sum(rounds[0]["utilities"]) == 50 and sum(rounds[1]["utilities"]) == 0
    assert state.returns() == [14.0] + [9.0] * 9


TABLE9 = {   # preset: (P_l, U_l, P_h, U_h), Table 9 order
    "gamabench": (10, 15, 20, 20),
    "gamabench_p2": (11, 5, 20, 7),
    "gamabench_p3": (4, 19, 9, 20),
    "gamabench_p4": (1, 8, 19, 12),
    "gamabench_p5": (4, 5, 17, 7),
    "gamabench_p6": (2, 11, 8, 13),
}
# (preset, one costly diner's utility, the nine cheap ones' utility) with 1 costly and 9 cheap orders,
# worked by hand: bill = P_h + 9 P_l, share = bill / 10.
ONE_DEFECTOR = [
    ("gamabench", 20 - 11.0, 15 - 11.0),        # bill 110
    ("gamabench_p2", 7 - 11.9, 5 - 11.9),       # bill 119
    ("gamabench_p3", 20 - 4.5, 19 - 4.5),       # bill 45
    ("gamabench_p4", 12 - 2.8, 8 - 2.8),        # bill 28
    ("gamabench_p5", 7 - 5.3, 5 - 5.3),         # bill 53
    ("gamabench_p6", 13 - 2.6, 11 - 2.6),       # bill 26
]


def test_presets_are_the_vanilla_setting_and_the_table9_tuples():
    spec = game_spec(GAME)
    assert [p.name for p in spec.presets] == list(TABLE9)
    for name, (cheap_price, cheap_utility, costly_price, costly_utility) in TABLE9.items():
        preset = spec.preset(name)
        assert preset.values == {"players": 10, "rounds": 20, "cheap_price": cheap_price,
                                 "cheap_utility": cheap_utility, "costly_price": costly_price,
                                 "costly_utility": costly_utility}
        if name != "gamabench":
            assert "Table 9" in preset.description and f"({cheap_price}, {cheap_utility}, " in preset.description
        # Both dilemma conditions of §2.5 hold at N = 10: alone, cheap is better; sharing, costly is.
        a, x, b, y = costly_utility, costly_price, cheap_utility, cheap_price
        assert a - x < b - y and a - Fraction(x, 10) > b - Fraction(y, 10)


@pytest.mark.parametrize("preset,costly,cheap", ONE_DEFECTOR)
def test_table9_presets_pay_a_lone_costly_order_by_hand(preset, costly, cheap):
    state = load_game(GAME, preset=preset).new_initial_state()
    state.apply_actions([CHEAP] * 4 + [COSTLY] + [CHEAP] * 5)
    utilities = state.result_details()["rounds"][0]["utilities"]
    assert utilities[4] == pytest.approx(costly) and utilities[:4] + utilities[5:] == pytest.approx([cheap] * 9)
    # Costly beats cheap for the one who defects, given the others' orders (condition 2).
    assert costly > cheap


@pytest.mark.parametrize("preset", list(TABLE9))
def test_every_preset_follows_the_payoff_rule_on_random_rounds(preset):
    cheap_price, cheap_utility, costly_price, costly_utility = TABLE9[preset]
    rng = random.Random(preset)
    state = load_game(GAME, preset=preset).new_initial_state()
    while not state.is_terminal():
        orders = [rng.randint(0, 1) for _ in range(10)]
        state.apply_actions(orders)
        bill, exact = reference_round(orders, cheap_price, cheap_utility, costly_price, costly_utility)
        last = state.result_details()["rounds"][-1]
        assert last["total_cost"] == bill and last["utilities"] == pytest.approx([float(u) for u in exact])


def test_a_share_that_is_not_whole_is_shown_with_two_decimals():
    state = play([[COSTLY, CHEAP, CHEAP]], rounds=2)     # bill 40, share 13.33
    assert state.result_details()["rounds"][0]["share"] == pytest.approx(40 / 3)
    assert state.returns() == pytest.approx([20 - 40 / 3, 15 - 40 / 3, 15 - 40 / 3])
    assert ("Round 1: 1 ordered the costly dish and 2 the cheap one; bill 1 * 20 + 2 * 10 = 40, a share of 13.33 each. "
            "You ordered costly: utility 20 - 40/3 = 6.67.") in state.observation_string(0)
    assert "You ordered cheap: utility 15 - 40/3 = 1.67." in state.observation_string(1)


def test_two_players_and_a_free_lunch():
    state = play([[COSTLY, CHEAP]], cheap_price=0, costly_price=1, cheap_utility=0, costly_utility=1)
    assert state.returns() == [0.5, -0.5]


def test_returns_are_exact_sums_not_accumulated_rounding():
    # Shares of 40/3 every round: the returns are (N * dish utilities - bills) / N.
    state = play([[COSTLY, CHEAP, CHEAP]] * 3)
    assert state.returns() == [(3 * 60 - 120) / 3, (3 * 45 - 120) / 3, (3 * 45 - 120) / 3]


def test_utility_bounds_are_attained_by_some_joint_orders():
    for players, preset in [(2, "gamabench"), (3, "gamabench_p2"), (4, "gamabench_p4")]:
        game = load_game(GAME, {"rounds": 2}, preset=preset, num_players=players)
        cheap_price, cheap_utility, costly_price, costly_utility = TABLE9[preset]
        values = [float(u) for orders in itertools.product((CHEAP, COSTLY), repeat=players)
                  for u in reference_round(orders, cheap_price, cheap_utility, costly_price, costly_utility)[1]]
        low, high = game.utility_bounds()
        assert (low, high) == pytest.approx((2 * min(values), 2 * max(values)))
        spec = game_spec(GAME)
        assert spec.min_utility <= low < high <= spec.max_utility


# ---- moves -----------------------------------------------------------------------------------------
def test_moves_are_simultaneous_and_illegal_ones_are_refused():
    state = make(3, 1)
    assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2]
    assert state.legal_actions(1) == [CHEAP, COSTLY]
    assert [state.action_to_string(0, a) for a in (CHEAP, COSTLY)] == ["cheap", "costly"]
    with pytest.raises(IllegalActionError):
        state.apply_action(CHEAP)
    for bad in ([0, 2, 0], [0, 0, -1], [0, 1]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    assert state.history() == [] and state.move_number == 0
    state.apply_actions([0, 1, 0])
    assert state.is_terminal() and state.current_players() == [] and state.legal_actions(0) == []
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 1, 0])
    with pytest.raises(ValueError):
        state.action_to_string(0, 2)


def test_default_action_is_cheap_while_the_game_runs():
    state = make(3, 1)
    assert [state.default_action(seat) for seat in range(3)] == [CHEAP] * 3
    state.apply_actions([1, 1, 1])
    assert state.default_action(0) is None


def test_clones_are_independent():
    state = play([[0, 1, 1]], rounds=3)
    copy = state.clone()
    copy.apply_actions([1, 1, 1])
    assert state.move_number == 1 and copy.move_number == 2
    assert len(state.result_details()["rounds"]) == 1
    state.apply_actions([0, 0, 0])
    assert copy.result_details()["rounds"][1]["choices"] == ["costly"] * 3
    assert state.result_details()["rounds"][1]["choices"] == ["cheap"] * 3


# ---- property test against an independent re-implementation ---------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_random_playouts_match_a_simple_reimplementation(seed):
    rng = random.Random(seed)
    players, rounds = rng.randint(2, 12), rng.randint(1, 8)
    cheap_price, cheap_utility = rng.randint(0, 50), rng.randint(0, 50)
    costly_price, costly_utility = cheap_price + rng.randint(1, 50), cheap_utility + rng.randint(1, 50)
    prices = dict(cheap_price=cheap_price, cheap_utility=cheap_utility, costly_price=costly_price,
                  costly_utility=costly_utility)
    state = make(players, rounds, **prices)
    totals = [Fraction(0)] * players
    cheap_orders = 0
    for r in range(rounds):
        orders = [rng.randint(0, 1) for _ in range(players)]
        state.apply_actions(orders)
        bill, exact = reference_round(orders, cheap_price, cheap_utility, costly_price, costly_utility)
        totals = [t + u for t, u in zip(totals, exact)]
        cheap_orders += orders.count(CHEAP)
        for seat in range(players):
            past = state.observation_dict(seat)["past_rounds"][r]
            assert (past["costly_count"], past["cheap_count"], past["total_cost"]) == \
                (orders.count(COSTLY), orders.count(CHEAP), bill)
            assert past["my_choice"] == ("costly" if orders[seat] else "cheap")
            assert past["my_utility"] == pytest.approx(float(exact[seat]))
    assert state.is_terminal()
    assert state.returns() == pytest.approx([float(t) for t in totals], abs=1e-9)
    details = state.result_details()
    assert details["gamabench"]["S5"] == pytest.approx(cheap_orders / (players * rounds))
    assert sum(details["cheap_orders"]) == cheap_orders


# ---- hidden information ----------------------------------------------------------------------------
def test_a_seat_sees_the_counts_and_its_own_orders_never_who_ordered_what():
    # Seat 0 orders the same in both games and every round has the same counts; who else ordered
    # costly differs, so every seat but 0 sees something else, and seat 0 exactly the same.
    first = play([[0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]], rounds=4)
    second = play([[0, 0, 0, 1], [1, 0, 1, 1], [0, 0, 0, 0]], rounds=4)
    assert _views(first, 0) == _views(second, 0)
    assert first.observation_dict(1) != second.observation_dict(1)
    assert first.result_details() != second.result_details()


def test_observation_and_public_history_name_no_other_seat():
    state = play([[0, 1, 0]], rounds=2)
    for seat in range(3):
        assert re.findall(r"seat \d+", state.observation_string(seat)) == [f"seat {seat}"]
        data = state.observation_dict(seat)
        assert set(data["past_rounds"][0]) == {"round", "costly_count", "cheap_count", "total_cost", "share",
                                               "my_choice", "my_utility"}
    assert state.public_history() == [
        (-1, -1, "Round 1: 1 ordered the costly dish and 2 the cheap one; bill 1 * 20 + 2 * 10 = 40, a share of 13.33 each.")]


def test_observation_contents():
    state = play([[0, 1, 0]], rounds=2)
    assert state.observation_dict(1) == {
        "seat": 1, "players": 3, "rounds": 2, "round": 2, "finished": False,
        "cheap_price": 10, "cheap_utility": 15, "costly_price": 20, "costly_utility": 20,
        "past_rounds": [{"round": 1, "costly_count": 1, "cheap_count": 2, "total_cost": 40,
                         "share": pytest.approx(40 / 3), "my_choice": "costly", "my_utility": pytest.approx(20 - 40 / 3)}],
        "my_total_utility": pytest.approx(20 - 40 / 3),
    }
    assert state.observation_string(1).splitlines() == [
        "Diner's Dilemma: 3 players, 2 rounds. You are seat 1.",
        "Every round each player orders one dish without seeing the others' orders: the costly dish (price 20, "
        "utility 20) or the cheap dish (price 10, utility 15).",
        "The bill for all the dishes is split equally among the 3 players: your utility for a round is the "
        "utility of your own dish minus the bill divided by 3.",
        "The costly dish is tastier, but for someone paying alone it is not worth its price: 20 - 20 < 15 - 10.",
        "After each round you learn how many players ordered each dish and the bill, not who ordered what.",
        "Round 1: 1 ordered the costly dish and 2 the cheap one; bill 1 * 20 + 2 * 10 = 40, a share of 13.33 each. You ordered "
        "costly: utility 20 - 40/3 = 6.67.",
        "Round 2 of 2: order the cheap or the costly dish (your total utility so far: 6.67).",
    ]
    state.apply_actions([1, 1, 1])
    final = state.observation_dict(0)
    assert final["finished"] is True and final["round"] is None
    assert json.loads(json.dumps(final)) == final
    assert state.observation_string(0).endswith("The game is over. Your total utility is 1.67.")


def test_the_dining_alone_rule_is_stated_only_when_it_holds():
    # 30 - 20 > 15 - 10: the costly dish is the better deal even alone.
    text = make(cheap_price=10, cheap_utility=15, costly_price=20, costly_utility=30).observation_string(0)
    assert "paying alone" not in text
    assert "paying alone" in make().observation_string(0)


def test_resample_hidden_keeps_what_the_seat_saw_and_redraws_the_rest():
    state = play([[0, 1, 0, 1, 1], [1, 1, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 0]], rounds=6)
    original = state.result_details()
    for seat in range(5):
        redrawn_orders = set()
        for seed in range(40):
            copy = state.resample_hidden(seat, seed)
            assert _views(copy, seat) == _views(state, seat)
            details = copy.result_details()
            for ours, truth in zip(details["rounds"], original["rounds"]):
                assert ours["choices"][seat] == truth["choices"][seat]
                assert ours["costly_count"] == truth["costly_count"] == ours["choices"].count("costly")
                assert ours["total_cost"] == truth["total_cost"]
            # Every seat's return follows from its (redrawn) orders.
            for other in range(5):
                assert copy.returns()[other] == pytest.approx(sum(r["utilities"][other] for r in details["rounds"]))
            redrawn_orders.add(tuple(tuple(r["choices"]) for r in details["rounds"]))
            copy.apply_actions([1] * 5)
            assert state.move_number == 4
        assert len(redrawn_orders) > 10
    assert state.result_details() == original


def test_state_from_view_rebuilds_a_state_consistent_with_the_view():
    state = play([[0, 1, 0, 1, 1], [1, 1, 0, 0, 0], [0, 0, 0, 0, 0]], rounds=5)
    game = state.game
    for seat in range(5):
        view = state.observation_dict(seat)
        rebuilt = game.state_from_view(seat, view)
        assert _views(rebuilt, seat) == _views(state, seat)
        assert rebuilt.returns()[seat] == state.returns()[seat]
        assert rebuilt.move_number == 3 and rebuilt.current_players() == list(range(5))
        assert game.state_from_view(seat, view).result_details() == rebuilt.result_details()
        rebuilt.apply_actions([0] * 5)
        rebuilt.apply_actions([0] * 5)
        assert rebuilt.is_terminal()
    fresh = game.new_initial_state()
    assert game.state_from_view(2, fresh.observation_dict(2)).observation_dict(2) == fresh.observation_dict(2)


def test_state_from_view_refuses_views_that_do_not_fit_the_game():
    state = play([[1, 1, 1]], rounds=1)
    game = state.game
    view = state.observation_dict(0)
    with pytest.raises(ValueError):
        game.state_from_view(3, view)
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=view["past_rounds"] * 2))
    impossible = dict(view["past_rounds"][0], my_choice="cheap")      # 3 costly orders, yet seat 0 cheap
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=[impossible]))


# ---- parsing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ("cheap", CHEAP),
    ("Costly", COSTLY),
    ("  **cheap**.\n", CHEAP),
    ('{"chosen_dish": "cheap"}', CHEAP),
    ('{"chosen_dish": "costly"}', COSTLY),
    ('{"chosen_dish": " CHEAP "}', CHEAP),
    ('I will cooperate. {"chosen_dish": "cheap"} Bon appetit!', CHEAP),
    ('```json\n{\n  "chosen_dish": "costly"\n}\n```', COSTLY),
    ('{"explanation": "the bill is shared", "chosen_dish": "cheap"}', CHEAP),
    ("{'chosen_dish': 'cheap'}", CHEAP),                       # not JSON, still the GAMA-Bench key
    ('{"chosen_dish": "cheap",}', CHEAP),                      # trailing comma
    ('{"chosen_dish": "cheap"} {"chosen_dish": "costly"}', CHEAP),   # the first answer, as the code
    # The released code counts every value other than "cheap" as costly.
    ('{"chosen_dish": "costly_or_cheap"}', COSTLY),
    ('{"chosen_dish": "the cheap one"}', COSTLY),
    ('{"chosen_dish": ""}', COSTLY),
])
def test_parser_reads_the_gamabench_answer_and_the_canonical_text(text, action):
    assert make().parse_action(0, text) == action


@pytest.mark.parametrize("text,fragment", [
    ("I choose the cheap dish", "could not read a dish"),
    ("cheap or costly", "could not read a dish"),
    ('{"dish": "cheap"}', "could not read a dish"),
    ("", "could not read a dish"),
    ('{"chosen_dish": 1}', "1 is not a dish"),
    ('{"chosen_dish": null}', "null is not a dish"),
    ('{"chosen_dish": ["cheap"]}', '["cheap"] is not a dish'),
])
def test_parser_refuses_other_answers_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        make().parse_action(0, text)
    assert fragment in str(refused.value)
    assert '"cheap" or "costly"' in str(refused.value) and '{"chosen_dish": "cheap"}' in str(refused.value)


def test_strict_answers_accept_only_the_two_dishes():
    state = make(strict_answers=True)
    assert state.parse_action(0, '{"chosen_dish": "Costly"}') == COSTLY
    assert state.parse_action(0, '{"chosen_dish": "cheap"}') == CHEAP
    for text in ('{"chosen_dish": "costly_or_cheap"}', '{"chosen_dish": "expensive"}'):
        with pytest.raises(ActionParseError, match="is not a dish"):
            state.parse_action(0, text)


def test_text_action_spec():
    assert make().text_action_spec(0) == {
        "description": 'the dish to order: "cheap" or "costly" (or JSON {"chosen_dish": "cheap"})',
        "max_length": 4000, "forbidden_words": []}
    assert game_spec(GAME).accepts_text_actions


# ---- parameters ------------------------------------------------------------------------------------
@pytest.mark.parametrize("parameters,players", [
    ({"rounds": 0}, 3),
    ({"rounds": 101}, 3),
    ({"cheap_price": 20, "costly_price": 20}, 3),
    ({"cheap_utility": 25}, 3),
    ({"cheap_price": -1}, 3),
    ({"costly_utility": 1001}, 3),
    ({"costly_price": 20.5}, 3),
    ({"strict_answers": "yes"}, 3),
    ({}, 1),
    ({}, 101),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)


def test_spec():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("simultaneous", "deterministic", "imperfect", "general_sum")
    assert spec.defaults() == {"players": 10, "rounds": 20, "cheap_price": 10, "cheap_utility": 15,
                               "costly_price": 20, "costly_utility": 20, "strict_answers": False}


# ---- results and the GAMA-Bench score --------------------------------------------------------------
def test_result_details_reveal_every_order_at_the_end():
    state = play([[0, 1, 0], [1, 1, 0]])
    details = state.result_details()
    assert [r["choices"] for r in details["rounds"]] == [["cheap", "costly", "cheap"], ["costly", "costly", "cheap"]]
    assert [r["total_cost"] for r in details["rounds"]] == [40, 50]
    assert details["cheap_orders"] == [1, 0, 2]
    assert details["returns"] == state.returns()
    assert details["gamabench"] == {"S5": 0.5, "score": 50.0}
    assert json.loads(json.dumps(details)) == details
    state = play([[0, 1, 0], [1, 1, 0], [1, 1, 1]])
    assert state.result_summary() == ("3 of 9 orders were cheap; total utilities "
                                      + ", ".join(f"{u:.2f}" for u in state.returns())
                                      + "; GAMA-Bench score 66.67")
    assert make().result_summary() == "game in progress"


def test_gamabench_score_formula_and_seats():
    parameters = {"players": 4}
    details = {"rounds": [{"round": 1, "choices": ["cheap", "cheap", "costly", "cheap"]},
                          {"round": 2, "choices": ["cheap", "costly", "costly", "cheap"]}]}
    assert gamabench_score(parameters, details) == {"S5": 5 / 8, "score": 100 * (1 - 5 / 8)}
    # Only some seats counted, e.g. leaving out a fixed-strategy seat: seat 2 always ordered costly.
    assert gamabench_score(parameters, details, seats=[0, 1, 3]) == {"S5": 5 / 6, "score": 100 * (1 - 5 / 6)}
    all_costly = {"rounds": [{"round": 1, "choices": ["costly"] * 4}]}
    assert gamabench_score(parameters, all_costly) == {"S5": 0.0, "score": 100.0}
    with pytest.raises(ValueError):
        gamabench_score(parameters, {"rounds": []})
    with pytest.raises(ValueError):
        gamabench_score(parameters, details, seats=[4])
    with pytest.raises(ValueError):
        gamabench_score({"players": 3}, details)


def test_gamabench_history_reads_a_log_shaped_run():
    run = {
        "meta": {"player_num": 3, "cheap_cost": 4, "cheap_utility": 5, "exp_cost": 17, "exp_utility": 7,
                 "round_id": 2},
        "round_records": [{}, {}],
        "player_data": [{"records": ["cheap", "costly"]}, {"records": ["costly", "costly"]},
                        {"records": ["cheap", "expensive"]}],     # the code counts non-"cheap" as costly
    }
    parameters, history = gamabench_history(run)
    assert parameters == {"players": 3, "rounds": 2, "cheap_price": 4, "cheap_utility": 5, "costly_price": 17,
                          "costly_utility": 7}
    assert history == [(SIMULTANEOUS, (CHEAP, COSTLY, CHEAP)), (SIMULTANEOUS, (COSTLY, COSTLY, COSTLY))]
    state = load_game(GAME, parameters).new_initial_state()
    for _, joint in history:
        state.apply_actions(list(joint))
    assert state.history() == history and state.is_terminal()
    with pytest.raises(ValueError):
        gamabench_history(dict(run, round_records=[{}]))
