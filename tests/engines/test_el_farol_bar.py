"""El Farol Bar: the capacity rule (exact, no rounding), payoffs and returns, what each information mode
shows, hidden information (resampling, rebuilding from a view), parsing, parameters, presets and the
GAMA-Bench score."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.el_farol_bar import gamabench_history, gamabench_score

GAME = "el_farol_bar"
STAY, GO = 0, 1


def make(players=3, rounds=3, **parameters):
    return load_game(GAME, {"rounds": rounds, **parameters}, num_players=players).new_initial_state()


def play(rounds_of_decisions, rounds=None, **parameters):
    players = len(rounds_of_decisions[0])
    state = make(players, rounds or len(rounds_of_decisions), **parameters)
    for joint in rounds_of_decisions:
        state.apply_actions(list(joint))
    return state


def goers(count, players):
    return [GO] * count + [STAY] * (players - count)


def last_round(state):
    return state.result_details()["rounds"][-1]


def reference_payoffs(joint, capacity_percent, high=10, low=0, home=5):
    """One round's payoffs, independently of the engine: going pays `high` iff the share of goers is
    at most the capacity, in exact fractions."""
    crowded = Fraction(joint.count(GO), len(joint)) > Fraction(capacity_percent, 100)
    return [(low if crowded else high) if a == GO else home for a in joint]


# ---- the rule --------------------------------------------------------------------------------------
def test_paper_setting_six_of_ten_is_not_crowded_seven_is():
    state = play([goers(6, 10), goers(7, 10)], capacity_percent=60)
    first, second = state.result_details()["rounds"]
    assert (first["went"], first["stayed"], first["crowded"]) == (6, 4, False)
    assert first["payoffs"] == [10] * 6 + [5] * 4
    assert (second["went"], second["crowded"]) == (7, True)
    assert second["payoffs"] == [0] * 7 + [5] * 3
    assert state.returns() == [10.0] * 6 + [5.0] + [10.0] * 3     # seat 6 went into the crowd


@pytest.mark.parametrize("players,capacity,fine,crowded", [
    (3, 60, 1, 2),          # 1.8 seats: 1/3 = 33% fits, 2/3 = 67% does not
    (7, 60, 4, 5),          # 4.2 seats
    (5, 60, 3, 4),          # exactly 3 seats: at R is not crowded
    (100, 29, 29, 30),      # 0.29 * 100 is 28.999999999999996 in floating point
    (10, 0, 0, 1),          # R = 0: a single goer is a crowd
    (2, 50, 1, 2),
])
def test_going_pays_max_iff_the_share_of_goers_is_at_most_r_exactly(players, capacity, fine, crowded):
    for count, is_crowded in ((fine, False), (crowded, True)):
        state = play([goers(count, players)], capacity_percent=capacity)
        assert last_round(state)["crowded"] is is_crowded
        expected = reference_payoffs(goers(count, players), capacity)
        assert last_round(state)["payoffs"] == expected and state.returns() == [float(p) for p in expected]


def test_at_full_capacity_the_bar_is_never_crowded():
    state = play([goers(4, 4)], capacity_percent=100)
    assert not last_round(state)["crowded"] and state.returns() == [10.0] * 4


def test_nobody_going_gives_everyone_home():
    state = play([[STAY] * 4], capacity_percent=0)
    assert last_round(state)["went"] == 0 and state.returns() == [5.0] * 4


def test_custom_payoffs_and_utility_bounds():
    state = play([[GO, GO, STAY], [GO, STAY, STAY]], max_payoff=7, min_payoff=-3, home_payoff=2)
    assert state.returns() == [-3.0 + 7.0, -3.0 + 2.0, 4.0]
    assert state.game.utility_bounds() == (-6.0, 14.0)
    assert load_game(GAME, preset="gamabench").utility_bounds() == (0.0, 200.0)


def test_moves_are_simultaneous_and_refused_when_illegal_or_after_the_end():
    state = make(3, 1)
    assert state.is_simultaneous_node() and state.current_player() == SIMULTANEOUS
    assert state.current_players() == [0, 1, 2] and state.legal_actions(1) == [STAY, GO]
    assert [state.action_to_string(0, a) for a in (STAY, GO)] == ["stay", "go"]
    with pytest.raises(IllegalActionError):
        state.apply_action(GO)
    for bad in ([2, 0, 0], [0, -1, 1], [0, 1]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    assert state.history() == [] and state.move_number == 0
    state.apply_actions([GO, STAY, GO])
    assert state.is_terminal() and state.current_players() == [] and state.legal_actions(0) == []
    assert state.history() == [(SIMULTANEOUS, (GO, STAY, GO))]
    with pytest.raises(IllegalActionError):
        state.apply_actions([GO, STAY, GO])


def test_default_action_is_stay_while_the_seat_acts():
    state = make(3, 1)
    assert [state.default_action(seat) for seat in range(3)] == [STAY] * 3
    state.apply_actions([GO, GO, GO])
    assert state.default_action(0) is None


# ---- what each seat sees ---------------------------------------------------------------------------
def test_implicit_mode_goers_see_the_attendance_and_stayers_only_their_payoff():
    state = play([[GO, GO, STAY]], rounds=2)
    goer, stayer = state.observation_string(0), state.observation_string(2)
    assert ("Round 1: 2 of 3 players went to the bar and 1 stayed home; more than 60% went, so the bar was "
            "crowded and those who went got 0. You went and gained 0.") in goer
    assert ("Round 1: you stayed home and gained 5; those who stay home do not learn how many went.") in stayer
    assert "2 of 3" not in stayer and "crowded" not in stayer.split("\n", 1)[1]
    assert state.observation_dict(0)["past_rounds"] == [
        {"round": 1, "my_decision": "go", "my_payoff": 0, "result_seen": True, "went": 2, "stayed": 1,
         "crowded": True}]
    assert state.observation_dict(2)["past_rounds"] == [
        {"round": 1, "my_decision": "stay", "my_payoff": 5, "result_seen": False, "went": None, "stayed": None,
         "crowded": None}]


def test_explicit_mode_everyone_sees_the_attendance():
    state = play([[GO, STAY, STAY]], rounds=2, mode="explicit")
    for seat, own in ((0, "You went and gained 10."), (2, "You stayed home and gained 5.")):
        assert ("Round 1: 1 of 3 players went to the bar and 2 stayed home; at most 60% went, so the bar was "
                f"not crowded and those who went got 10. {own}") in state.observation_string(seat)
        past = state.observation_dict(seat)["past_rounds"][0]
        assert past["result_seen"] and (past["went"], past["stayed"], past["crowded"]) == (1, 2, False)
    assert "After each round everyone learns how many went." in state.observation_string(1)


def test_observation_dict_contents_and_the_end():
    state = play([[GO, STAY]], rounds=2, capacity_percent=50)
    assert state.observation_dict(1) == {
        "round": 2, "rounds": 2, "players": 2, "mode": "implicit", "capacity_percent": 50, "max_payoff": 10,
        "min_payoff": 0, "home_payoff": 5,
        "past_rounds": [{"round": 1, "my_decision": "stay", "my_payoff": 5, "result_seen": False, "went": None,
                         "stayed": None, "crowded": None}],
        "total_payoff": 5, "finished": False,
    }
    assert state.observation_string(0).endswith("Round 2 of 2: go to the bar or stay home? (your total so far: 10)")
    state.apply_actions([GO, GO])                   # 2 of 2 is more than 50%: a crowd
    final = state.observation_dict(0)
    assert final["finished"] is True and final["round"] is None and final["total_payoff"] == 10
    assert json.loads(json.dumps(final)) == final
    assert state.observation_string(0).endswith("The game is over. Your total is 10.")


def test_rules_text_states_the_capacity_as_a_share_and_a_count():
    text = make(10, 20).observation_string(4)
    assert "If at most 60% of the players go (6 of 10 or fewer), everyone who went gets 10" in text
    assert "only those who went learn how many went" in text


def _seat_views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def test_implicit_views_do_not_depend_on_what_the_seat_could_not_see():
    # Seat 0 stays in round 1 (it sees nothing there) and goes in round 2 (it sees the count, not who).
    first = play([[STAY, GO, GO, STAY], [GO, GO, STAY, STAY]], rounds=3)
    second = play([[STAY, STAY, STAY, STAY], [GO, STAY, GO, STAY]], rounds=3)
    assert _seat_views(first, 0) == _seat_views(second, 0)
    # The views are not trivially constant: seat 1 went in round 1 in one game only.
    assert first.observation_dict(1) != second.observation_dict(1)
    assert first.returns()[0] == second.returns()[0] and first.returns() != second.returns()


def test_explicit_views_show_counts_but_not_who():
    first = play([[STAY, GO, GO, STAY]], rounds=2, mode="explicit")
    second = play([[STAY, STAY, GO, GO]], rounds=2, mode="explicit")
    assert _seat_views(first, 0) == _seat_views(second, 0)
    third = play([[STAY, GO, GO, GO]], rounds=2, mode="explicit")
    assert _seat_views(third, 0) != _seat_views(first, 0)


def test_public_history_has_the_attendance_only_in_explicit_mode():
    assert play([[GO, GO, STAY], [STAY] * 3]).public_history() == [
        (-1, -1, "Round 1 was played; only those who went learn how many did."),
        (-1, -1, "Round 2 was played; only those who went learn how many did."),
    ]
    assert play([[GO, GO, STAY]], mode="explicit").public_history() == [
        (-1, -1, "Round 1: 2 of 3 players went to the bar and 1 stayed home; more than 60% went, so the bar "
                 "was crowded and those who went got 0."),
    ]


def test_result_details_reveal_every_decision_and_the_summary_names_the_leaders():
    state = play([[GO, STAY, GO], [STAY, STAY, GO]])
    details = state.result_details()
    assert details["mode"] == "implicit" and details["totals"] == [5, 10, 10]
    assert details["rounds"] == [
        {"round": 1, "decisions": ["go", "stay", "go"], "went": 2, "stayed": 1, "crowded": True,
         "payoffs": [0, 5, 0]},
        {"round": 2, "decisions": ["stay", "stay", "go"], "went": 1, "stayed": 2, "crowded": False,
         "payoffs": [5, 5, 10]},
    ]
    # |2/3 - 0.6| + |1/3 - 0.6| = 1/15 + 4/15; S2 = 1/6; score = (0.6 - 1/6) / 0.6 = 72.22
    assert details["gamabench"] == {"S2": pytest.approx(1 / 6), "score": pytest.approx(65 / 0.9)}
    assert json.loads(json.dumps(details)) == details
    assert state.result_summary() == ("highest total 10: seats 1, 2; mean attendance 50.0% for a capacity of 60%; "
                                      "GAMA-Bench score 72.22")
    assert make().result_summary() == "game in progress"
    assert make().result_details() == {"mode": "implicit", "rounds": [], "totals": [0, 0, 0]}     # no score yet


def test_explicit_summary_marks_the_score_as_a_diagnostic():
    assert play([[GO, GO, GO]], mode="explicit").result_summary().endswith(
        "GAMA-Bench formula 33.33 (explicit mode: a diagnostic; the paper scores implicit runs)")


# ---- parsing -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ("go", GO),
    ("stay", STAY),
    ("  Stay\n", STAY),
    ('{"decision": "go"}', GO),
    ('{"decision": "stay"}', STAY),
    ('{"decision": "GO"}', GO),                          # the released code lower-cases the value
    ('{"decision": " stay "}', STAY),
    ('I think many will go tonight. {"decision": "stay"} Let us see.', STAY),
    ('```json\n{\n  "decision": "go"\n}\n```', GO),
    ('{"explanation": "last round was crowded", "decision": "stay"}', STAY),
    ('{"decision": "go"} or maybe {"decision": "stay"}', GO),    # the first JSON answer counts
    ("{'decision': 'go'}", GO),                          # not JSON, still the GAMA-Bench key
    ('{"decision": "stay",}', STAY),                     # trailing comma
    ("My decision: go", GO),
])
def test_parser_reads_the_gamabench_json_answer_and_the_bare_word(text, action):
    assert make().parse_action(0, text) == action


@pytest.mark.parametrize("text,fragment", [
    ('{"decision": "go_or_stay"}', '"go_or_stay" is not a decision'),
    ('{"decision": "maybe"}', '"maybe" is not a decision'),
    ('{"decision": 1}', "1 is not a decision"),
    ('{"decision": null}', "null is not a decision"),
    ("I will go to the bar", "could not read a decision"),
    ('{"choice": "go"}', "could not read a decision"),
    ("yes", "could not read a decision"),
    ("", "could not read a decision"),
])
def test_parser_refuses_anything_else_with_the_expected_format(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        make().parse_action(0, text)
    assert fragment in str(refused.value) and '{"decision": "go"}' in str(refused.value)


def test_text_action_spec():
    assert make().text_action_spec(0) == {"description": 'go or stay, e.g. {"decision": "go"}', "max_length": 4000,
                                          "forbidden_words": []}
    assert game_spec(GAME).accepts_text_actions


# ---- parameters and presets ------------------------------------------------------------------------
VANILLA = {"players": 10, "rounds": 20, "mode": "implicit", "capacity_percent": 60, "max_payoff": 10,
           "min_payoff": 0, "home_payoff": 5}


def test_presets_are_the_vanilla_setting_explicit_mode_and_table9_capacities():
    spec = game_spec(GAME)
    assert spec.dynamics == "simultaneous" and spec.information == "imperfect" and spec.chance == "deterministic"
    assert spec.defaults() == VANILLA
    presets = {p.name: p for p in spec.presets}
    assert list(presets) == ["gamabench", "gamabench_explicit", "gamabench_r0", "gamabench_r20", "gamabench_r40",
                             "gamabench_r80", "gamabench_r100"]
    assert presets["gamabench"].values == VANILLA
    assert presets["gamabench_explicit"].values == {**VANILLA, "mode": "explicit"}
    for percent, score in ((0, "53.5"), (20, "61.3"), (40, "63.3"), (80, "68.1"), (100, "60.0")):
        preset = presets[f"gamabench_r{percent}"]
        assert preset.values == {**VANILLA, "capacity_percent": percent}
        assert "Table 9" in preset.description and f"{percent}%" in preset.description and score in preset.description
    game = load_game(GAME, preset="gamabench")
    assert game.num_players == 10 and len(game.new_initial_state().current_players()) == 10


@pytest.mark.parametrize("parameters,players", [
    ({"rounds": 0}, 3),
    ({"rounds": 101}, 3),
    ({"rounds": 2.5}, 3),
    ({"capacity_percent": -1}, 3),
    ({"capacity_percent": 101}, 3),
    ({"capacity_percent": 0.6}, 3),
    ({"mode": "hidden"}, 3),
    ({"max_payoff": 1001}, 3),
    ({"home_payoff": -1001}, 3),
    ({}, 1),
    ({}, 101),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)


# ---- the GAMA-Bench score --------------------------------------------------------------------------
def score_of(counts, players=10, capacity=60):
    return gamabench_score({"players": players, "capacity_percent": capacity},
                           {"rounds": [{"went": c} for c in counts]})


def test_gamabench_score_hand_worked():
    # R = 0.6: deviations 0.4, 0.6, 0.2 -> S2 = 0.4; score = (0.6 - 0.4) / 0.6 = 33.33
    assert score_of([10, 0, 4]) == {"S2": pytest.approx(0.4), "score": pytest.approx(100 / 3)}
    # Attendance exactly at R every round is the best score.
    assert score_of([6] * 20) == {"S2": 0.0, "score": 100.0}
    # The worst: everyone stays (0.6 away) at R = 0.6; m = max(R, 1 - R).
    assert score_of([0, 0]) == {"S2": pytest.approx(0.6), "score": pytest.approx(0.0)}
    assert score_of([10], capacity=20) == {"S2": pytest.approx(0.8), "score": pytest.approx(0.0)}
    # R = 0 and R = 100%: m = 1.
    assert score_of([5, 0], capacity=0) == {"S2": 0.25, "score": 75.0}
    assert score_of([5, 10], capacity=100) == {"S2": 0.25, "score": 75.0}
    with pytest.raises(ValueError):
        score_of([])


def test_gamabench_score_ignores_the_other_games_switches():
    parameters, details = {"players": 10, "capacity_percent": 60}, {"rounds": [{"went": 4}]}
    assert gamabench_score(parameters, details, dollar_clip="eq1_unclipped", auction_metric="relative") == \
        gamabench_score(parameters, details) == {"S2": pytest.approx(0.2), "score": pytest.approx(200 / 3)}


def test_the_state_score_is_the_function_of_its_parameters_and_details():
    state = play([goers(2, 5), goers(5, 5), goers(3, 5)], capacity_percent=40)
    details = state.result_details()
    assert details["gamabench"] == gamabench_score(state.game.parameters, details)
    assert details["gamabench"]["S2"] == pytest.approx((0 + 0.6 + 0.2) / 3)


def test_gamabench_history_of_a_small_synthetic_log():
    run = {"meta": {"player_num": 2, "min": 0, "max": 10, "home": 5, "ratio": 0.4, "ratio_str": "40%",
                    "mode": "explicit"},
           "round_records": [{}, {}],
           "player_data": [{"id": "player_0", "records": ["go", "Stay"]},
                           {"id": "player_1", "records": ["stay", "go"]}]}
    parameters, history = gamabench_history(run)
    assert parameters == {"players": 2, "rounds": 2, "mode": "explicit", "capacity_percent": 40, "max_payoff": 10,
                          "min_payoff": 0, "home_payoff": 5}
    assert history == [(SIMULTANEOUS, (GO, STAY)), (SIMULTANEOUS, (STAY, GO))]
    with pytest.raises(ValueError, match="player_num"):
        gamabench_history({**run, "meta": {**run["meta"], "player_num": 3}})


# ---- random playouts against an independent re-implementation --------------------------------------
def random_playout(seed):
    rng = random.Random(seed)
    players, rounds = rng.randint(2, 12), rng.randint(1, 8)
    parameters = {"capacity_percent": rng.choice([0, 20, 33, 50, 60, 67, 100, rng.randint(0, 100)]),
                  "mode": rng.choice(["implicit", "explicit"]), "max_payoff": rng.randint(-5, 15),
                  "min_payoff": rng.randint(-5, 15), "home_payoff": rng.randint(-5, 15)}
    state = make(players, rounds, **parameters)
    joints = []
    for _ in range(rounds):
        joints.append([GO if rng.random() < rng.random() else STAY for _ in range(players)])
        state.apply_actions(joints[-1])
    return state, parameters, joints


@pytest.mark.parametrize("seed", range(60))
def test_random_playouts_agree_with_a_plain_reimplementation(seed):
    state, p, joints = random_playout(seed)
    players = len(joints[0])
    totals = [0] * players
    for r, joint in enumerate(joints):
        payoffs = reference_payoffs(joint, p["capacity_percent"], p["max_payoff"], p["min_payoff"], p["home_payoff"])
        totals = [t + x for t, x in zip(totals, payoffs)]
        ours = state.result_details()["rounds"][r]
        assert ours["payoffs"] == payoffs and ours["went"] == joint.count(GO)
        for seat in range(players):
            past = state.observation_dict(seat)["past_rounds"][r]
            sees = p["mode"] == "explicit" or joint[seat] == GO
            assert past["result_seen"] is sees and past["my_payoff"] == payoffs[seat]
            assert past["went"] == (joint.count(GO) if sees else None)
    assert state.is_terminal() and state.returns() == [float(t) for t in totals]
    ratio = Fraction(p["capacity_percent"], 100)
    s2 = sum(abs(Fraction(j.count(GO), players) - ratio) for j in joints) / len(joints)
    assert state.result_details()["gamabench"]["S2"] == pytest.approx(float(s2))


def test_clones_play_on_independently():
    state = play([[GO, STAY, GO]], rounds=3)
    copy = state.clone()
    copy.apply_actions([GO, GO, GO])
    assert state.move_number == 1 and copy.move_number == 2
    assert state.result_details()["rounds"] == copy.result_details()["rounds"][:1]
    state.apply_actions([STAY, STAY, STAY])
    assert copy.result_details()["rounds"][1]["went"] == 3 and state.result_details()["rounds"][1]["went"] == 0


# ---- hidden information: resampling and rebuilding --------------------------------------------------
ROUNDS = [[GO, STAY, GO, GO, STAY], [STAY, GO, GO, STAY, GO], [GO, GO, GO, GO, GO], [STAY] * 5,
          [STAY, STAY, GO, STAY, STAY]]


@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_resampling_keeps_everything_the_seat_observed_and_redraws_the_rest(mode):
    state = play(ROUNDS, rounds=6, mode=mode)
    original = state.result_details()
    for seat in range(5):
        redrawn_unseen, who_went = set(), set()
        for seed in range(40):
            copy = state.resample_hidden(seat, seed)
            assert _seat_views(copy, seat) == _seat_views(state, seat)
            assert copy.returns()[seat] == state.returns()[seat]
            details = copy.result_details()
            for r, (ours, truth) in enumerate(zip(details["rounds"], original["rounds"])):
                assert ours["decisions"][seat] == truth["decisions"][seat]
                # A consistent round of the game: the payoffs follow from the redrawn decisions.
                joint = [GO if d == "go" else STAY for d in ours["decisions"]]
                assert ours["payoffs"] == reference_payoffs(joint, 60) and ours["went"] == joint.count(GO)
                if mode == "explicit" or ROUNDS[r][seat] == GO:
                    assert ours["went"] == truth["went"]
                else:
                    redrawn_unseen.add((r, ours["went"]))
            assert copy.returns() == [float(t) for t in details["totals"]]
            who_went.add(tuple(tuple(r["decisions"]) for r in details["rounds"]))
            copy.apply_actions([GO] * 5)            # the copy plays on independently
            assert state.move_number == 5
        assert len(who_went) > 10
        # Rounds the seat did not see (it stayed home, implicit mode) get other attendances.
        if mode == "implicit":
            assert len({went for _, went in redrawn_unseen}) > 2
        else:
            assert not redrawn_unseen
    assert state.result_details() == original


def test_resampling_redraws_who_went_but_never_reads_the_hidden_decisions():
    # Two games that seat 0 cannot tell apart resample identically from the same seed.
    first = play([[STAY, GO, GO, STAY], [GO, GO, STAY, STAY]], rounds=3)
    second = play([[STAY, STAY, STAY, STAY], [GO, STAY, GO, STAY]], rounds=3)
    seen = set()
    for seed in range(30):
        a, b = first.resample_hidden(0, seed), second.resample_hidden(0, seed)
        assert a.result_details() == b.result_details()
        seen.add(tuple(tuple(r["decisions"]) for r in a.result_details()["rounds"]))
    assert len(seen) > 10


@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_state_from_view_rebuilds_a_state_consistent_with_what_the_seat_saw(mode):
    state = play(ROUNDS[:3], rounds=5, mode=mode)
    game = state.game
    for seat in range(5):
        view = state.observation_dict(seat)
        rebuilt = game.state_from_view(seat, view)
        assert _seat_views(rebuilt, seat) == _seat_views(state, seat)
        assert rebuilt.returns()[seat] == state.returns()[seat]
        assert rebuilt.move_number == 3 and rebuilt.current_players() == list(range(5))
        assert game.state_from_view(seat, view).result_details() == rebuilt.result_details()     # deterministic
        rebuilt.apply_actions([GO] * 5)
        rebuilt.apply_actions([STAY] * 5)
        assert rebuilt.is_terminal()
    fresh = game.new_initial_state()
    assert game.state_from_view(2, fresh.observation_dict(2)).observation_dict(2) == fresh.observation_dict(2)


def test_state_from_view_refuses_views_that_do_not_fit_the_game():
    state = play([[GO, STAY, GO]], rounds=1)
    game = state.game
    view = state.observation_dict(0)
    with pytest.raises(ValueError):
        game.state_from_view(3, view)
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=view["past_rounds"] * 2))
    impossible = dict(view["past_rounds"][0], went=0)          # it went itself, so at least 1 went
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=[impossible]))
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=[dict(view["past_rounds"][0], my_decision="dance")]))
