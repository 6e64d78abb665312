"""Public Goods Game (GAMA-Bench and MAgIC): payoffs in both endowment modes and both payout timings,
budget enforcement, winners and MAgIC's metrics data, views, parsing, parameters, the GAMA-Bench
score and history reader, state_from_view and random playouts against an independent re-implementation."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.public_goods import MAGIC_MULTIPLIERS, gamabench_history, gamabench_score

GAME = "public_goods"


def make(players=3, preset="gamabench", **parameters):
    return load_game(GAME, parameters, preset=preset, num_players=players).new_initial_state()


def play(rounds_of_contributions, preset="gamabench", **parameters):
    players = len(rounds_of_contributions[0])
    parameters.setdefault("rounds", len(rounds_of_contributions))
    state = make(players, preset, **parameters)
    for contributions in rounds_of_contributions:
        state.apply_actions(list(contributions))
    return state


def reference_points(parameters: dict, players: int, rounds_of_contributions) -> list[list[float]]:
    """Every seat's points after each round and, last, at the end, from the rules alone."""
    endowment, ratio = parameters["endowment"], parameters["multiplier"]
    per_round = parameters["endowment_mode"] == "per_round"
    each_round = parameters["payout"] == "each_round"
    points = [0.0 if per_round else float(endowment)] * players
    pool, history = 0, []
    for contributions in rounds_of_contributions:
        pot = sum(contributions)
        pool += pot
        points = [p + (endowment if per_round else 0) - c + (ratio * pot / players if each_round else 0)
                  for p, c in zip(points, contributions)]
        history.append(points)
    final = points if each_round else [p + ratio * pool / players for p in points]
    return history + [final]


def reference_limit(parameters: dict, held: float) -> int:
    """The largest legal contribution, for a seat holding `held` (its points now in whole-game mode)."""
    if not parameters["enforce_budget"]:
        return parameters["max_contribution"]
    if parameters["endowment_mode"] == "per_round":
        held = parameters["endowment"]
    return max(0, min(parameters["max_contribution"], math.floor(held + 1e-9)))


# ---- payoffs ------------------------------------------------------------------------------------
def test_gamabench_round_payoff_is_kept_tokens_plus_an_equal_share_of_the_doubled_pot():
    # 10 players, 20 tokens, R = 2: seat 0 alone gives 10; the pot of 10 becomes 20, 2 to each.
    state = play([[10] + [0] * 9], rounds=1)
    assert state.returns() == [12.0] + [22.0] * 9
    # Each contributed token returns R/N = 0.2: a net -0.8, the reference's -80 %.
    assert state.returns()[0] - 20 == pytest.approx(10 * (2 / 10 - 1))
    r = state.result_details()["rounds"][0]
    assert (r["pot"], r["share"], r["payoffs"][:2]) == (10, 2.0, [12.0, 22.0])


def test_gamabench_tokens_are_refilled_every_round_and_points_add_up_over_rounds():
    state = play([[20, 20, 20], [0, 10, 20]])          # 3 players, R = 2
    # Round 1: pot 60 -> 40 each: 20 - 20 + 40 = 40. Round 2: pot 30 -> 20 each: 40, 30, 20.
    assert state.result_details()["rounds"][1]["payoffs"] == [40.0, 30.0, 20.0]
    assert state.returns() == [80.0, 70.0, 60.0]
    assert [r["points_after"] for r in state.result_details()["rounds"]] == [[40.0] * 3, [80.0, 70.0, 60.0]]


def test_magic_final_points_are_the_points_left_plus_a_third_of_the_multiplied_pool():
    # 100 points each, multiplier 2, paid at the end: pool 10+20+30 + 0+20+30 = 110 -> 73.33 each.
    state = play([[10, 20, 30], [0, 20, 30]], preset="magic")
    share = 2 * 110 / 3
    assert state.returns() == pytest.approx([90 + share, 60 + share, 40 + share])
    details = state.result_details()
    assert details["pool_total"] == 110 and details["pool_share"] == pytest.approx(share)
    assert details["contributed"] == [10, 40, 60] and details["winners"] == [0]
    # Before the end nothing is paid: points after each round are what is left.
    assert [r["points_after"] for r in details["rounds"]] == [[90.0, 80.0, 70.0], [90.0, 60.0, 40.0]]
    assert all(not r["share_paid"] for r in details["rounds"])


def test_ties_for_the_most_points_all_win():
    state = play([[10, 30, 20], [30, 10, 0]], preset="magic")    # totals 40, 40, 20
    assert state.result_details()["winners"] == [2]
    state = play([[10, 30, 20], [30, 10, 20]], preset="magic")   # totals 40, 40, 40
    assert state.result_details()["winners"] == [0, 1, 2]
    assert state.returns()[0] == state.returns()[1] == state.returns()[2]
    # With per-round shares the tie is exact too (the shares are the same for everyone).
    state = play([[5, 10, 3], [10, 5, 3]], multiplier=0.7)
    assert state.result_details()["winners"] == [2]
    assert state.returns()[0] == state.returns()[1]


@pytest.mark.parametrize("mode", ["per_round", "whole_game"])
def test_payout_timing_changes_what_is_held_but_not_the_final_points(mode):
    rounds = [[10, 0, 5], [3, 3, 3], [0, 20, 1]]
    each = play(rounds, endowment_mode=mode, endowment=20, payout="each_round", multiplier=1.5)
    end = play(rounds, endowment_mode=mode, endowment=20, payout="end", multiplier=1.5)
    assert each.returns() == pytest.approx(end.returns())
    first_each = each.result_details()["rounds"][0]["points_after"]
    first_end = end.result_details()["rounds"][0]["points_after"]
    assert [a - b for a, b in zip(first_each, first_end)] == pytest.approx([1.5 * 15 / 3] * 3)


def test_multiplier_zero_returns_nothing_from_the_pool():
    state = play([[20, 0, 5]], multiplier=0)
    assert state.returns() == [0.0, 20.0, 15.0]


# ---- budget -------------------------------------------------------------------------------------
def test_without_budget_enforcement_any_contribution_up_to_the_cap_is_legal_and_points_go_negative():
    state = make(3, "magic", rounds=2)
    assert state.legal_actions(0) == list(range(101))
    state.apply_actions([100, 100, 0])
    state.apply_actions([100, 0, 0])                 # seat 0 had nothing left, contributes 100 again
    assert state.result_details()["rounds"][1]["points_after"][0] == -100.0
    assert state.result_details()["contributed"] == [200, 100, 0]
    gama = make(3, rounds=1)
    assert gama.legal_actions(0)[-1] == 100          # the code checks no range: above the 20 tokens too
    gama.apply_actions([100, 0, 0])
    assert gama.returns() == [20 - 100 + 2 * 100 / 3, 20 + 2 * 100 / 3, 20 + 2 * 100 / 3]


def test_an_enforced_whole_game_budget_limits_contributions_to_what_is_held():
    state = make(3, "magic", rounds=3, enforce_budget=True)
    state.apply_actions([60, 100, 0])
    assert state.legal_actions(0) == list(range(41)) and state.legal_actions(1) == [0]
    with pytest.raises(IllegalActionError):
        state.apply_actions([41, 0, 0])
    assert state.observation_dict(0)["holding"] == 40 and state.observation_dict(0)["max_allowed"] == 40
    # Paid each round, the shares add to what may be contributed: 0 + 160 / 3 = 53.33 -> 0..53.
    state = make(3, "magic", rounds=3, enforce_budget=True, payout="each_round", multiplier=1.0)
    state.apply_actions([60, 100, 0])
    assert state.legal_actions(1) == list(range(54)) and state.legal_actions(0) == list(range(94))
    assert state.observation_dict(1)["holding"] == pytest.approx(160 / 3)


def test_an_enforced_per_round_budget_is_the_round_s_tokens():
    state = make(3, enforce_budget=True)
    assert state.legal_actions(0) == list(range(21))
    state.apply_actions([20, 20, 20])
    assert state.legal_actions(0) == list(range(21))
    with pytest.raises(IllegalActionError):
        state.apply_actions([21, 0, 0])
    with pytest.raises(ActionParseError, match="0 to 20"):
        state.parse_action(0, '{"tokens_contributed": "21"}')


def test_a_held_amount_a_hair_below_an_integer_still_allows_that_integer():
    # 10 players with 1 point each give it in turn; every pot of 1 pays 0.1 to each, and ten shares of
    # 0.1 add up to 0.9999999999999999 in floating point, which must still allow contributing 1.
    state = make(10, "magic", rounds=11, enforce_budget=True, payout="each_round", endowment=1, multiplier=1.0)
    for giver in range(10):
        state.apply_actions([int(seat == giver) for seat in range(10)])
    held = state.observation_dict(0)["holding"]
    assert held < 1 and held == pytest.approx(1)
    assert state.legal_actions(0) == [0, 1]


# ---- actions and the end ------------------------------------------------------------------------
def test_moves_are_simultaneous_and_refused_out_of_range_or_after_the_end():
    state = make(3, rounds=1)
    assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2]
    for bad in ([101, 0, 0], [-1, 0, 0], [0, 0]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    with pytest.raises(IllegalActionError):
        state.apply_action(0)
    state.apply_actions([1, 2, 3])
    assert state.is_terminal() and state.legal_actions(0) == []
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 0, 0])
    with pytest.raises(ActionParseError):
        state.parse_action(0, "5")


def test_default_action_is_zero_and_legal():
    for preset in ("gamabench", "magic"):
        state = make(3, preset, enforce_budget=True)
        state.apply_actions([20, 20, 20])
        assert state.default_action(1) == 0 and 0 in state.legal_actions(1)


def test_clones_are_independent():
    state = play([[1, 2, 3]], rounds=3)
    copy = state.clone()
    copy.apply_actions([20, 20, 20])
    assert len(state.result_details()["rounds"]) == 1 and len(copy.result_details()["rounds"]) == 2
    assert state.observation_dict(0)["points"] != copy.observation_dict(0)["points"]
    state.apply_actions([0, 0, 0])
    assert copy.result_details()["rounds"][1]["contributions"] == [20, 20, 20]
    assert state.history() != copy.history()


# ---- views --------------------------------------------------------------------------------------
def test_every_seat_sees_every_past_contribution_and_the_same_data():
    state = play([[0, 10, 20], [5, 5, 5]], rounds=3)
    views = [state.observation_dict(seat) for seat in range(3)]
    assert views[1] == {
        "seat": 1, "players": 3, "rounds": 3, "round": 3, "endowment": 20, "endowment_mode": "per_round",
        "multiplier": 2.0, "payout": "each_round", "enforce_budget": False, "max_contribution": 100,
        "past_rounds": [
            {"round": 1, "contributions": [0, 10, 20], "pot": 30, "share": 20.0, "share_paid": True,
             "points_after": [40.0, 30.0, 20.0]},
            {"round": 2, "contributions": [5, 5, 5], "pot": 15, "share": 10.0, "share_paid": True,
             "points_after": [65.0, 55.0, 45.0]},
        ],
        "pool_unpaid": 0, "points": [65.0, 55.0, 45.0], "holding": 20.0, "max_allowed": 100, "finished": False,
    }
    assert all({**view, "seat": 1} == views[1] for view in views)
    text = state.observation_string(0)
    assert ("Round 1: contributions: you 0, seat 1 10, seat 2 20; pool 30, times 2 = 60, 20 to each player. "
            "Tokens after the round: you 40, seat 1 30, seat 2 20.") in text
    assert text.endswith("Round 3 of 3: you hold 20; choose your contribution, 0 to 100.")
    assert "seat 0 0, you 10, seat 2 20" in state.observation_string(1)


def test_magic_views_announce_the_end_payout():
    state = play([[10, 20, 30]], preset="magic", rounds=2)
    view = state.observation_dict(2)
    assert view["pool_unpaid"] == 60 and view["holding"] == 70 and view["past_rounds"][0]["share_paid"] is False
    text = state.observation_string(2)
    assert "starts with 100 points for the whole game" in text and "multiplied by 2 and shared at the end" in text
    state.apply_actions([0, 0, 0])
    text = state.observation_string(2)
    assert "The pool of 60 times 2 = 120 is shared: 40 to each player." in text
    assert text.endswith("Final points: seat 0 130, seat 1 120, you 110.")
    assert state.observation_dict(2)["pool_unpaid"] == 0 and state.observation_dict(2)["holding"] is None


def test_public_history_lists_every_contribution_of_finished_rounds():
    state = play([[1, 2, 3], [4, 5, 6]])
    assert state.public_history() == [
        (0, 1, "round 1: seat 0 contributes 1"), (1, 2, "round 1: seat 1 contributes 2"),
        (2, 3, "round 1: seat 2 contributes 3"), (0, 4, "round 2: seat 0 contributes 4"),
        (1, 5, "round 2: seat 1 contributes 5"), (2, 6, "round 2: seat 2 contributes 6")]


def test_result_details_carry_magic_s_rationality_and_payback_data():
    state = play([[10, 10, 30], [0, 20, 0], [5, 5, 5]], preset="magic")
    details = state.result_details()
    assert [r["least"] for r in details["rounds"]] == [[0, 1], [0, 2], [0, 1, 2]]    # ties count as least
    assert details["least_investment_rounds"] == [3, 2, 2]
    assert details["multiplier"] == 2.0 and details["payout"] == "end"
    assert details["pool_share"] == pytest.approx(2 * 85 / 3)
    assert details["final_points"] == pytest.approx([85 + 2 * 85 / 3, 65 + 2 * 85 / 3, 65 + 2 * 85 / 3])
    assert details["contributed"] == [15, 35, 35] and details["winners"] == [0]
    assert "gamabench" not in details
    assert state.result_summary() == "final points 141.67, 121.67, 121.67; highest: seat 0"


def test_result_summary_and_details_of_a_gamabench_game():
    state = play([[0, 10, 20], [10, 0, 0]])           # shares 20 and 6.67
    assert state.result_details()["gamabench"] == {"S4": 40 / 6, "score": 100 * (20 - 40 / 6) / 20}
    assert state.result_summary() == "final tokens 56.67, 56.67, 46.67; highest: seats 0, 1; GAMA-Bench score 66.67"
    assert make(3).result_summary() == "game in progress"


# ---- parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,number", [
    ('{"tokens_contributed": "8"}', 8),
    ('{"tokens_contributed": 8}', 8),
    ('{"tokens_contributed": 8.0}', 8),
    ('Sure! {"tokens_contributed": "12"} is my answer.', 12),
    ('{"explanation": "others gave 3 and 4", "tokens_contributed": "5"}', 5),
    ("{'tokens_contributed': '6'}", 6),
    ('```json\n{"tokens_contributed": "0"}\n```', 0),
    ("I contribute 30", 30),
    ("Player 2: after round 3 I contribute 17.", 17),
    ("I CONTRIBUTE 4 points <EOS>", 4),
    ("8", 8),
    (" 20 \n", 20),
    ("My contribution is 11.", 11),
])
def test_parser_reads_the_papers_answers_and_the_canonical_text(text, number):
    assert make(3).parse_action(0, text) == number


@pytest.mark.parametrize("text,fragment", [
    ("", "no number"),
    ("nothing at all", "no number"),
    ("Out of 20 tokens I give 5", "several numbers"),
    ('{"tokens_contributed": "ten"}', "not a whole number"),
    ('{"tokens_contributed": "2.5"}', "not a whole number"),
    ("2.5", "not a whole number"),
    ("I contribute -3", "outside the allowed range"),
    ("-3", "outside the allowed range"),
    ("101", "outside the allowed range"),
    ('{"tokens_contributed": true}', "not a whole number"),
])
def test_parser_refuses_garbage_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError, match=fragment) as error:
        make(3).parse_action(0, text)
    assert '{"tokens_contributed": "8"}' in str(error.value) and "I contribute 8" in str(error.value)


def test_parser_reads_the_first_json_answer_and_every_legal_text_parses_back():
    state = make(3)
    assert state.parse_action(0, '{"tokens_contributed": "3"} {"tokens_contributed": "9"}') == 3
    assert all(state.parse_action(1, state.action_to_string(1, a)) == a for a in state.legal_actions(1))
    assert state.text_action_spec(0) == {"description": "a whole number from 0 to 100, your contribution this round",
                                         "max_length": 4000, "forbidden_words": []}


# ---- the GAMA-Bench score and history reader ----------------------------------------------------
def test_gamabench_score_is_the_rescaled_mean_contribution():
    parameters = load_game(GAME, preset="gamabench").parameters
    rounds = lambda rows: {"rounds": [{"contributions": row} for row in rows]}
    assert gamabench_score(parameters, rounds([[0] * 10, [0] * 10])) == {"S4": 0.0, "score": 100.0}
    assert gamabench_score(parameters, rounds([[20] * 10])) == {"S4": 20.0, "score": 0.0}
    assert gamabench_score(parameters, rounds([[0, 10] * 5, [5] * 10])) == {"S4": 5.0, "score": 75.0}
    # Over-contributing (the code checks no range) leaves [0, 100]; the score is not clipped.
    assert gamabench_score(parameters, rounds([[40] * 10]))["score"] == -100.0
    with pytest.raises(ValueError):
        gamabench_score(parameters, {"rounds": []})
    with pytest.raises(ValueError):
        gamabench_score(load_game(GAME, preset="magic").parameters, rounds([[0, 0, 0]]))


def test_gamabench_history_reads_a_log_in_player_order():
    run = {"meta": {"player_num": 3, "tokens": 20, "ratio": 0.5, "token_initialization": "fixed", "reset": True},
           "round_records": [{"responses": [1, 2, 3]}, {"responses": [4, 5, 6]}],
           "player_data": [{"records": [1, 4]}, {"records": [2, 5]}, {"records": [3, 6]}]}
    parameters, history = gamabench_history(run)
    assert history == [(SIMULTANEOUS, (1, 2, 3)), (SIMULTANEOUS, (4, 5, 6))]
    game = load_game(GAME, parameters)
    assert (game.num_players, game.parameters["rounds"], game.parameters["multiplier"]) == (3, 2, 0.5)
    assert {k: v for k, v in game.parameters.items() if k not in ("players", "rounds", "multiplier")} == \
        {k: v for k, v in load_game(GAME, preset="gamabench").parameters.items()
         if k not in ("players", "rounds", "multiplier")}
    with pytest.raises(ValueError, match="refilled"):
        gamabench_history({**run, "meta": {**run["meta"], "reset": False}})


# ---- parameters and presets ---------------------------------------------------------------------
def test_spec_and_presets():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.information, spec.chance, spec.utility) == \
        ("simultaneous", "perfect", "deterministic", "general_sum")
    assert [p.name for p in spec.presets] == ["gamabench", "gamabench_r0", "gamabench_r0_5", "gamabench_r1",
                                              "gamabench_r4", "magic", "magic_code"]
    gama = load_game(GAME, preset="gamabench")
    assert (gama.num_players, gama.parameters) == (10, {
        "players": 10, "rounds": 20, "endowment": 20, "endowment_mode": "per_round", "multiplier": 2.0,
        "payout": "each_round", "enforce_budget": False, "max_contribution": 100})
    assert load_game(GAME).parameters == gama.parameters                   # the defaults are GAMA-Bench's
    for name, ratio in [("gamabench_r0", 0.0), ("gamabench_r0_5", 0.5), ("gamabench_r1", 1.0), ("gamabench_r4", 4.0)]:
        assert load_game(GAME, preset=name).parameters == {**gama.parameters, "multiplier": ratio}
        assert "Table 9" in spec.preset(name).description
    magic = load_game(GAME, preset="magic")
    assert (magic.num_players, magic.parameters) == (3, {
        "players": 3, "rounds": 5, "endowment": 100, "endowment_mode": "whole_game", "multiplier": 2.0,
        "payout": "end", "enforce_budget": False, "max_contribution": 100})
    assert MAGIC_MULTIPLIERS == (1, 1.2, 1.5, 1.8, 2, 2.5, 3) and magic.parameters["multiplier"] in MAGIC_MULTIPLIERS
    assert load_game(GAME, preset="magic_code").parameters == {**magic.parameters, "multiplier": 3.5}


@pytest.mark.parametrize("parameters,players", [
    ({"rounds": 0}, 3), ({"rounds": 101}, 3), ({"endowment": 0}, 3), ({"max_contribution": 0}, 3),
    ({"max_contribution": 1024}, 3), ({"multiplier": -0.5}, 3), ({"multiplier": 101}, 3),
    ({"multiplier": float("nan")}, 3), ({"multiplier": True}, 3), ({"endowment_mode": "daily"}, 3),
    ({"payout": "never"}, 3), ({"enforce_budget": 1}, 3), ({}, 1), ({}, 101),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)


def test_utility_bounds_are_attained_by_the_extreme_plays():
    game = load_game(GAME, {"rounds": 2}, num_players=3)
    low, high = game.utility_bounds()
    assert (low, high) == pytest.approx((40 - 2 * 100 / 3, 40 + 2 * 2 * 2 * 100 / 3))
    state = game.new_initial_state()
    for _ in range(2):
        state.apply_actions([100, 0, 0])
    assert state.returns()[0] == pytest.approx(low)
    state = game.new_initial_state()
    for _ in range(2):
        state.apply_actions([0, 100, 100])
    assert state.returns()[0] == pytest.approx(high)
    # R > N: contributing pays, so the best play gives everything.
    rich = load_game(GAME, {"rounds": 1, "multiplier": 4.0, "max_contribution": 10}, num_players=2)
    state = rich.new_initial_state()
    state.apply_actions([10, 10])
    assert rich.utility_bounds()[1] == pytest.approx(state.returns()[0])


# ---- random playouts against the reference ------------------------------------------------------
def random_parameters(rng: random.Random) -> dict:
    return {"rounds": rng.randint(1, 5), "endowment": rng.randint(1, 50),
            "endowment_mode": rng.choice(["per_round", "whole_game"]), "payout": rng.choice(["each_round", "end"]),
            "enforce_budget": rng.random() < 0.5, "max_contribution": rng.randint(1, 60),
            "multiplier": rng.choice([0.0, 0.5, 1.0, 1.2, 2.0, 3.5, 7.0])}


def test_random_playouts_match_the_reference_rules():
    for seed in range(150):
        rng = random.Random(seed)
        parameters, players = random_parameters(rng), rng.randint(2, 6)
        game = load_game(GAME, parameters, num_players=players)
        state = game.new_initial_state()
        played, low, high = [], *game.utility_bounds()
        while not state.is_terminal():
            # What each seat holds: its points after the last round (before any end payout).
            held = reference_points(game.parameters, players, played)[-2] if played else \
                [0.0 if parameters["endowment_mode"] == "per_round" else float(parameters["endowment"])] * players
            limits = [reference_limit(game.parameters, held[i]) for i in range(players)]
            assert [state.legal_actions(i) for i in range(players)] == [list(range(m + 1)) for m in limits], seed
            contributions = [rng.randint(0, m) for m in limits]
            state.apply_actions(contributions)
            played.append(contributions)
        expected = reference_points(game.parameters, players, played)
        details = state.result_details()
        for ours, theirs in zip([r["points_after"] for r in details["rounds"]], expected[:-1], strict=True):
            assert ours == pytest.approx(theirs), seed
        assert state.returns() == pytest.approx(expected[-1]), seed
        assert all(low - 1e-9 <= r <= high + 1e-9 for r in state.returns()), seed
        best = max(expected[-1])
        assert details["winners"] == [i for i, p in enumerate(expected[-1]) if p == pytest.approx(best)], seed
        assert details["contributed"] == [sum(row[i] for row in played) for i in range(players)]


@pytest.mark.parametrize("preset", [p.name for p in game_spec(GAME).presets])
def test_state_from_view_rebuilds_the_state_of_every_seat(preset):
    game = load_game(GAME, {"rounds": 4}, preset=preset, num_players=3)
    rng = random.Random(preset)
    state = game.new_initial_state()
    while True:
        for seat in range(3):
            view = state.observation_dict(seat)
            rebuilt = game.state_from_view(seat, json.loads(json.dumps(view)))
            assert rebuilt.observation_dict(seat) == view and rebuilt.history() == state.history()
        if state.is_terminal():
            break
        state.apply_actions([rng.choice(state.legal_actions(i)) for i in range(3)])
    assert rebuilt.returns() == state.returns()
    with pytest.raises(ValueError):
        game.state_from_view(3, state.observation_dict(0))
    with pytest.raises(ValueError):
        load_game(GAME, {"rounds": 2}, preset=preset, num_players=3).state_from_view(0, state.observation_dict(0))
