"""Guess 2/3 of the Average: winners and ties, returns, hidden information, parsing, parameters, the
documented fallback, the GAMA-Bench score and the released-log converter."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.guess_two_thirds_average import gamabench_history, gamabench_score, score_choices

GAME = "guess_two_thirds_average"


def make(players=3, rounds=3, **parameters):
    return load_game(GAME, {"rounds": rounds, **parameters}, num_players=players).new_initial_state()


def play(rounds_of_choices, rounds=None, **parameters):
    players = len(rounds_of_choices[0])
    state = make(players, rounds or len(rounds_of_choices), **parameters)
    for choices in rounds_of_choices:
        state.apply_actions(list(choices))
    return state


def last_round(state):
    return state.result_details()["rounds"][-1]


def reference_winners(choices, ratio=Fraction(2, 3)):
    """Target and winning seats of one round, in exact arithmetic, independently of the engine."""
    target = ratio * Fraction(sum(choices), len(choices))
    best = min(abs(c - target) for c in choices)
    return target, [i for i, c in enumerate(choices) if abs(c - target) == best]


def test_the_number_closest_to_two_thirds_of_the_mean_wins():
    state = play([[10, 50, 90]])            # mean 50, target 33.33: 50 is 16.67 away, 10 is 23.33
    r = last_round(state)
    assert r["mean"] == 50 and r["target"] == pytest.approx(100 / 3)
    assert r["winning_numbers"] == [50] and r["winners"] == [1]
    assert state.returns() == [0.0, 1.0, 0.0]


def test_every_seat_that_chose_the_winning_number_wins():
    state = play([[10, 10, 20, 30]])        # mean 17.5, target 11.67: 10 is closest
    assert last_round(state)["winners"] == [0, 1]
    assert state.returns() == [1.0, 1.0, 0.0, 0.0]


def test_two_different_numbers_equally_close_to_the_target_both_win():
    state = play([[20, 40, 60, 60]])        # mean 45, target exactly 30: 20 and 40 both 10 away
    r = last_round(state)
    assert r["target"] == 30
    assert r["winning_numbers"] == [20, 40] and r["winners"] == [0, 1]
    assert state.returns() == [1.0, 1.0, 0.0, 0.0]
    for seat, won in [(0, True), (1, True), (2, False)]:
        past = state.observation_dict(seat)["past_rounds"][0]
        assert past["winning_numbers"] == [20, 40] and past["winning_number"] == 20
        assert past["won"] is won
    assert "winning numbers 20 and 40 (equally close)" in state.observation_string(2)


def test_equal_distance_is_decided_exactly_not_in_floating_point():
    # In both games the target lies exactly half-way between two picks (3.5 between 0 and 7; 31.5
    # between 24 and 39), but computing it as (num / den) * (sum / n) in floating point misses the
    # tie and makes only the higher number win.
    state = play([[0, 0, 0, 7, 14]], ratio_numerator=5, ratio_denominator=6)
    assert last_round(state)["winning_numbers"] == [0, 7] and last_round(state)["winners"] == [0, 1, 2, 3]
    state = play([[18, 24, 39]], ratio_numerator=7, ratio_denominator=6)
    assert last_round(state)["winning_numbers"] == [24, 39] and last_round(state)["winners"] == [1, 2]
    # Without a tie the nearer number wins alone: target 2/9, 0 is 2/9 away and 1 is 7/9.
    assert last_round(play([[1, 0, 0]]))["winners"] == [1, 2]


def test_everyone_wins_when_all_choose_the_same_number():
    assert play([[42, 42, 42]]).returns() == [1.0, 1.0, 1.0]


def test_ratio_above_one_and_ratio_zero():
    state = play([[10, 60, 100]], ratio_numerator=4, ratio_denominator=3)    # target 75.56
    assert last_round(state)["winners"] == [1]
    state = play([[10, 60, 100]], ratio_numerator=0, ratio_denominator=1)    # target 0
    assert last_round(state)["winners"] == [0] and state.observation_dict(0)["ratio"] == "0"


def test_returns_count_the_rounds_each_seat_won():
    state = make(3, 4)
    script = [
        ([0, 50, 100], [1]),     # mean 50, target 33.33
        ([30, 30, 0], [2]),      # mean 20, target 13.33: 0 is 13.33 away, 30 is 16.67
        ([10, 20, 30], [0]),     # mean 20, target 13.33
        ([5, 5, 50], [0, 1]),    # mean 20, target 13.33
    ]
    for choices, winners in script:
        assert not state.is_terminal()
        state.apply_actions(choices)
        assert last_round(state)["winners"] == winners
    assert state.is_terminal() and state.move_number == 4
    assert state.returns() == [2.0, 2.0, 1.0]
    assert state.result_details()["rounds_won"] == [2, 2, 1]


def test_moves_are_simultaneous_and_refused_when_out_of_range_or_after_the_end():
    state = make(3, 1, min_value=5, max_value=10)
    assert state.is_simultaneous_node() and state.current_player() == -2
    assert state.current_players() == [0, 1, 2]
    assert state.legal_actions(1) == list(range(5, 11))
    with pytest.raises(IllegalActionError):
        state.apply_action(7)
    for bad in ([4, 7, 7], [7, 11, 7], [7, 7, -1]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    with pytest.raises(IllegalActionError):
        state.apply_actions([7, 7])
    assert state.history() == [] and state.move_number == 0
    state.apply_actions([5, 6, 7])
    assert state.is_terminal() and state.current_players() == [] and state.legal_actions(0) == []
    with pytest.raises(IllegalActionError):
        state.apply_actions([5, 6, 7])


def test_observation_shows_the_round_report_but_not_other_seats_choices():
    state = play([[0, 97, 98]], rounds=2)           # mean 65, target 43.33, winning number 0
    text = state.observation_string(0)
    assert "Round 1: average 65, target 43.33, winning number 0. You chose 0 and won." in text
    assert "Round 2 of 2: choose your number" in text
    assert "97" not in text and "98" not in text
    data = json.dumps(state.observation_dict(0))
    assert "97" not in data and "98" not in data
    assert all("97" not in entry[2] and "98" not in entry[2] for entry in state.public_history())


def _seat_views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def test_a_seat_views_do_not_depend_on_other_seats_choices_beyond_the_public_outcome():
    # Seat 0's picks are the same in both games; the others differ but give the same sums (hence
    # mean and target) and the same winning numbers, so seat 0 must see exactly the same thing.
    first = play([[30, 40, 50], [12, 80, 0], [66, 66, 9]], rounds=4)
    second = play([[30, 45, 45], [12, 70, 10], [66, 66, 9]], rounds=4)
    assert [r["winning_numbers"] for r in first.result_details()["rounds"]] == \
        [r["winning_numbers"] for r in second.result_details()["rounds"]]
    assert _seat_views(first, 0) == _seat_views(second, 0)
    # The views are not trivially constant: seat 1's own picks differ, and it sees them.
    assert first.observation_dict(1) != second.observation_dict(1)


def test_public_history_has_one_summary_per_round_with_no_seat_and_no_action():
    state = play([[10, 50, 90], [20, 20, 20]], rounds=3)
    assert state.public_history() == [
        (-1, -1, "Round 1: average 50, target 33.33, winning number 50."),
        (-1, -1, "Round 2: average 20, target 13.33, winning number 20."),
    ]


def test_observation_dict_contents():
    state = play([[0, 1, 1]], rounds=2)
    data = state.observation_dict(1)
    assert data == {
        "round": 2, "rounds": 2, "players": 3, "min": 0, "max": 100, "ratio": "2/3",
        "past_rounds": [{"round": 1, "mean": pytest.approx(2 / 3), "target": 0.44, "winning_number": 0,
                         "winning_numbers": [0], "my_choice": 1, "won": False}],
        "rounds_won": 0, "finished": False,
    }
    state.apply_actions([3, 3, 3])
    final = state.observation_dict(0)
    assert final["finished"] is True and final["round"] is None and final["rounds_won"] == 2
    assert json.loads(json.dumps(final)) == final
    assert state.observation_string(0).endswith("The game is over. You won 2 of 2 rounds.")
    assert "average 0.6667, target 0.44" in state.observation_string(0)


def test_result_details_reveal_every_choice_at_the_end():
    state = play([[10, 50, 90], [20, 20, 20]])
    details = state.result_details()
    assert details["rounds"] == [
        {"round": 1, "mean": 50.0, "target": pytest.approx(100 / 3), "winning_numbers": [50],
         "winners": [1], "choices": [10, 50, 90]},
        {"round": 2, "mean": 20.0, "target": pytest.approx(40 / 3), "winning_numbers": [20],
         "winners": [0, 1, 2], "choices": [20, 20, 20]},
    ]
    assert details["rounds_won"] == [1, 2, 1]
    assert details["gamabench"] == score_choices([[10, 20], [50, 20], [90, 20]], 0, 100, Fraction(2, 3))
    assert json.loads(json.dumps(details)) == details
    assert state.result_summary() == "most rounds won: seat 1 (2 of 2); GAMA-Bench score 65.00"


def test_result_summary_names_every_leader_on_a_tie():
    assert play([[10, 10, 90]]).result_summary().startswith("most rounds won: seats 0, 1 (1 of 1 each)")
    assert make().result_summary() == "game in progress"


@pytest.mark.parametrize("text,number", [
    ("34", 34),
    ("  7\n", 7),
    ("+5", 5),
    ('{"chosen_number": "34"}', 34),
    ('{"chosen_number": 34}', 34),
    ('{"chosen_number": 34.0}', 34),
    ('{"chosen_number": " 0 "}', 0),
    ('Sure! Here is my answer: {"chosen_number": "100"} Good luck everyone.', 100),
    ('```json\n{\n  "chosen_number": "21"\n}\n```', 21),
    ('{"explanation": "2/3 of 30 is 20", "chosen_number": "20"}', 20),
    ("{'chosen_number': '13'}", 13),                   # not JSON, still the GAMA-Bench key
    ('{"chosen_number": "12",}', 12),                  # trailing comma
])
def test_parser_reads_bare_integers_and_the_gamabench_json_answer(text, number):
    assert make().parse_action(0, text) == number


@pytest.mark.parametrize("text,fragment", [
    ("34.5", '"34.5" is not an integer'),
    ('{"chosen_number": 12.5}', "12.5 is not an integer"),
    ('{"chosen_number": "thirty"}', '"thirty" is not an integer'),
    ('{"chosen_number": true}', "true is not an integer"),
    ('{"chosen_number": null}', "null is not an integer"),
    ("101", "101 is outside the allowed range"),
    ("-1", "-1 is outside the allowed range"),
    ('{"chosen_number": "250"}', "250 is outside the allowed range"),
    ("I pick 34", "could not read a number"),
    ('{"number": 34}', "could not read a number"),
    ("", "could not read a number"),
])
def test_parser_refuses_non_integers_and_out_of_range_numbers(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        make().parse_action(0, text)
    assert fragment in str(refused.value)
    assert 'integer from 0 to 100' in str(refused.value) and '{"chosen_number": "34"}' in str(refused.value)


def test_parser_and_text_spec_follow_the_configured_range():
    state = make(min_value=10, max_value=20)
    assert state.parse_action(0, "20") == 20
    with pytest.raises(ActionParseError):
        state.parse_action(0, "9")
    assert state.text_action_spec(0) == {"description": "an integer from 10 to 20", "max_length": 200,
                                         "forbidden_words": []}
    assert state.action_to_string(0, 15) == "15"


def test_spec_and_gamabench_preset():
    spec = game_spec(GAME)
    assert spec.accepts_text_actions and spec.dynamics == "simultaneous" and spec.information == "imperfect"
    assert spec.preset("gamabench").values == {"players": 10, "rounds": 20, "min_value": 0, "max_value": 100,
                                               "ratio_numerator": 2, "ratio_denominator": 3}
    game = load_game(GAME, preset="gamabench")
    assert game.num_players == 10
    state = game.new_initial_state()
    assert len(state.current_players()) == 10 and state.observation_dict(0)["rounds"] == 20


@pytest.mark.parametrize("parameters,players", [
    ({"rounds": 0}, 3),
    ({"rounds": 101}, 3),
    ({"min_value": 50, "max_value": 50}, 3),
    ({"min_value": -1}, 3),
    ({"min_value": 0, "max_value": 1024}, 3),          # more than 1024 action ids
    ({"ratio_denominator": 0}, 3),
    ({"ratio_numerator": -1}, 3),
    ({"rounds": 2.5}, 3),
    ({}, 1),
    ({}, 101),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)


def test_ratio_text_is_reduced():
    assert make(ratio_numerator=4, ratio_denominator=6).observation_dict(0)["ratio"] == "2/3"
    assert make(ratio_numerator=3, ratio_denominator=3).observation_dict(0)["ratio"] == "1"


def test_score_formulas_for_each_ratio_branch():
    choices = [[50, 40], [30, 20]]                      # S1 = 35
    assert score_choices(choices, 0, 100, Fraction(2, 3)) == {"S1": 35.0, "score": 65.0}
    assert score_choices(choices, 0, 100, 1) == {"S1": 35.0, "score": 30.0}
    assert score_choices(choices, 0, 100, 1.5) == {"S1": 35.0, "score": 35.0}
    # MIN > 0: S1 subtracts MIN, the R < 1 branch keeps the paper's unfixed MAX - S1.
    assert score_choices([[110, 130]], 100, 200, 0.5) == {"S1": 20.0, "score": 180.0}
    with pytest.raises(ValueError):
        score_choices([], 0, 100, 0.5)
    with pytest.raises(ValueError):
        score_choices([[1, 2], [3]], 0, 100, 0.5)


def test_score_switches_change_only_their_own_branch():
    choices = [[50, 40], [30, 20]]                      # S1 = 35
    # R = 1: the later code's 100 - |2*S1 - 100| = 100 - 30.
    assert score_choices(choices, 0, 100, 1, r1_formula="later") == {"S1": 35.0, "score": 70.0}
    assert score_choices(choices, 0, 100, 0.5, r1_formula="later") == score_choices(choices, 0, 100, 0.5)
    # MIN > 0, R < 1: the fix gives (MAX - MIN - S1) / (MAX - MIN) = (100 - 20) / 100.
    assert score_choices([[110, 130]], 100, 200, 0.5, min_fix=True) == {"S1": 20.0, "score": 80.0}
    assert score_choices([[110, 130]], 100, 200, 1.5, min_fix=True) == score_choices([[110, 130]], 100, 200, 1.5)
    # With MIN = 0 the fix changes nothing.
    assert score_choices(choices, 0, 100, 0.5, min_fix=True) == score_choices(choices, 0, 100, 0.5)
    with pytest.raises(ValueError):
        score_choices(choices, 0, 100, 1, r1_formula="newest")


def test_gamabench_score_reads_the_finished_match_and_takes_the_switches():
    state = play([[10, 50, 90], [20, 20, 20], [0, 1, 2]])
    parameters, details = state.game.parameters, state.result_details()
    expected = score_choices([[10, 20, 0], [50, 20, 1], [90, 20, 2]], 0, 100, Fraction(2, 3))
    assert gamabench_score(parameters, details) == details["gamabench"] == expected
    # S1 = 210 / 6 = 35; at R = 1 the two formulas give |70 - 100| = 30 and 100 - 30.
    state = play([[10, 50, 90], [20, 20, 20]], ratio_numerator=1, ratio_denominator=1)
    details = state.result_details()
    assert gamabench_score(state.game.parameters, details) == {"S1": 35.0, "score": 30.0}
    assert gamabench_score(state.game.parameters, details, guess_r1_formula="later") == {"S1": 35.0, "score": 70.0}
    state = play([[10, 50, 90]], min_value=5)                    # S1 = 45
    details = state.result_details()
    assert gamabench_score(state.game.parameters, details) == {"S1": 45.0, "score": pytest.approx(100 * 55 / 95)}
    assert gamabench_score(state.game.parameters, details, guess_min_fix=True) == \
        {"S1": 45.0, "score": pytest.approx(100 * 50 / 95)}
    with pytest.raises(TypeError):
        gamabench_score(state.game.parameters, details, dollar_clip="per_run")
    # Before any round there is nothing to score.
    fresh = make()
    assert "gamabench" not in fresh.result_details()
    with pytest.raises(ValueError):
        gamabench_score(fresh.game.parameters, fresh.result_details())


def test_default_action_is_the_previous_target_rounded_or_the_middle_in_round_one():
    state = make(3, 4)
    assert state.default_action(0) == 50                         # (0 + 100) / 2
    state.apply_actions([10, 50, 90])                            # target 33.33
    assert [state.default_action(seat) for seat in range(3)] == [33, 33, 33]
    state.apply_actions([0, 1, 0])                               # target 2/9 = 0.22
    assert state.default_action(1) == 0
    state.apply_actions([1, 2, 1])                               # target 8/9 = 0.89
    assert state.default_action(2) == 1
    state.apply_actions([1, 2, 3])
    assert state.default_action(0) is None                       # the game is over
    # A half goes up: (0 + 5) / 2 = 2.5, and a target of 3/2 * 4.5 = 6.75 -> 7.
    state = make(2, 2, min_value=0, max_value=5)
    assert state.default_action(0) == 3
    state = make(2, 2, ratio_numerator=3, ratio_denominator=2)
    state.apply_actions([4, 5])
    assert state.default_action(0) == 7
    # A target beyond MAX (R > 1) or below MIN (R < 1 with MIN > 0) is clamped to a legal pick.
    state = make(2, 2, ratio_numerator=2, ratio_denominator=1)
    state.apply_actions([90, 100])
    assert state.default_action(1) == 100 and 100 in state.legal_actions(1)
    state = make(2, 2, min_value=10, max_value=20)
    state.apply_actions([10, 11])
    assert state.default_action(0) == 10
    assert make().text_action_spec(0)["forbidden_words"] == []


def _log(picks_by_player, ratio, ratio_str, low=0, high=100):
    """A minimal log in the released files' layout (only what the converter reads)."""
    return {"meta": {"player_num": len(picks_by_player), "min": low, "max": high, "ratio": ratio,
                     "ratio_str": ratio_str},
            "round_records": [{} for _ in picks_by_player[0]],
            "player_data": [{"records": list(picks)} for picks in picks_by_player]}


def test_gamabench_history_reads_the_setting_and_the_picks_in_player_order():
    parameters, history = gamabench_history(_log([[50, 30], [40, 20], [60, 10]], 2 / 3, "2/3"))
    assert parameters == {"players": 3, "rounds": 2, "min_value": 0, "max_value": 100,
                          "ratio_numerator": 2, "ratio_denominator": 3}
    assert history == [(SIMULTANEOUS, (50, 40, 60)), (SIMULTANEOUS, (30, 20, 10))]
    state = load_game(GAME, parameters).new_initial_state()
    for _, picks in history:
        state.apply_actions(list(picks))
    assert state.is_terminal() and state.history() == history
    # R = 0, 1 and 2 are logged as percentages.
    for ratio, text, fraction in [(0.0, "0.0%", (0, 1)), (1.0, "100.0%", (1, 1)), (2.0, "200.0%", (2, 1)),
                                  (0.8333333333333334, "5/6", (5, 6))]:
        parameters, _ = gamabench_history(_log([[1], [2]], ratio, text))
        assert (parameters["ratio_numerator"], parameters["ratio_denominator"]) == fraction


@pytest.mark.parametrize("log", [
    _log([[1], [2]], 0.5, "2/3"),                                 # the two forms of R disagree
    _log([[1], [2]], 0.0001, "0.01%"),                            # R = 1/10000: too fine for the engine
    dict(_log([[1], [2]], 0.5, "1/2"), meta={"player_num": 3, "min": 0, "max": 100, "ratio": 0.5,
                                             "ratio_str": "1/2"}),
])
def test_gamabench_history_refuses_logs_it_cannot_read_faithfully(log):
    with pytest.raises(ValueError):
        gamabench_history(log)


def test_resampling_hidden_picks_keeps_everything_the_seat_observed():
    state = play([[10, 20, 30, 40, 50], [0, 0, 100, 100, 7], [33, 33, 33, 33, 33], [5, 90, 12, 60, 1]],
                 rounds=6)
    original = state.result_details()
    changed = set()
    for seat in range(5):
        for seed in range(40):
            copy = state.resample_hidden(seat, seed)
            assert _seat_views(copy, seat) == _seat_views(state, seat)
            assert copy.returns()[seat] == state.returns()[seat]
            rounds = copy.result_details()["rounds"]
            for ours, theirs in zip(rounds, original["rounds"]):
                assert ours["choices"][seat] == theirs["choices"][seat]
                assert (ours["mean"], ours["target"], ours["winning_numbers"]) == \
                    (theirs["mean"], theirs["target"], theirs["winning_numbers"])
                # The resampled picks are a real round of the game with the same outcome.
                _, winners = reference_winners(ours["choices"])
                assert sorted({ours["choices"][i] for i in winners}) == theirs["winning_numbers"]
                assert ours["winners"] == winners
            assert copy.returns() == [float(sum(i in r["winners"] for r in rounds)) for i in range(5)]
            changed.add(tuple(tuple(r["choices"]) for r in rounds))
            # The copy plays on independently of the original.
            copy.apply_actions([1, 2, 3, 4, 5])
            assert state.move_number == 4
    assert len(changed) > 100          # the other seats' picks really are redrawn
    assert state.result_details() == original


def test_with_two_players_the_hidden_pick_follows_from_the_average():
    state = play([[10, 70], [50, 50], [0, 100]])
    for seed in range(10):
        assert state.resample_hidden(0, seed).result_details() == state.result_details()


def test_state_from_view_rebuilds_a_state_consistent_with_what_the_seat_saw():
    state = play([[10, 20, 30, 40, 50], [0, 0, 100, 100, 7], [33, 33, 33, 33, 33]], rounds=5)
    game = state.game
    for seat in range(5):
        view = state.observation_dict(seat)
        rebuilt = game.state_from_view(seat, view)
        assert _seat_views(rebuilt, seat) == _seat_views(state, seat)
        assert rebuilt.returns()[seat] == state.returns()[seat]
        assert rebuilt.move_number == 3 and rebuilt.current_players() == list(range(5))
        for ours, truth in zip(rebuilt.result_details()["rounds"], state.result_details()["rounds"]):
            assert sum(ours["choices"]) == sum(truth["choices"])
            _, winners = reference_winners(ours["choices"])
            assert sorted({ours["choices"][i] for i in winners}) == truth["winning_numbers"]
        # Deterministic, and it plays on like any state.
        assert game.state_from_view(seat, view).result_details() == rebuilt.result_details()
        rebuilt.apply_actions([1, 2, 3, 4, 5])
        rebuilt.apply_actions([1, 2, 3, 4, 5])
        assert rebuilt.is_terminal()
    fresh = game.new_initial_state()
    assert game.state_from_view(2, fresh.observation_dict(2)).observation_dict(2) == fresh.observation_dict(2)


def test_state_from_view_refuses_views_that_do_not_fit_the_game():
    state = play([[1, 2, 3]], rounds=1)
    game = state.game
    view = state.observation_dict(0)
    with pytest.raises(ValueError):
        game.state_from_view(3, view)
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=view["past_rounds"] * 2))
