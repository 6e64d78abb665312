"""Divide the Dollar: payoffs at and around G, returns, the bid range and strict_ranges, hidden bids,
parsing, the fallback, parameters and the GAMA-Bench score."""

from __future__ import annotations

import json
import random
import statistics

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.divide_the_dollar import gamabench_history, gamabench_score

GAME = "divide_the_dollar"


def make(players=3, rounds=3, **parameters):
    return load_game(GAME, {"rounds": rounds, **parameters}, num_players=players).new_initial_state()


def play(rounds_of_bids, rounds=None, **parameters):
    state = make(len(rounds_of_bids[0]), rounds or len(rounds_of_bids), **parameters)
    for bids in rounds_of_bids:
        state.apply_actions(list(bids))
    return state


def reference_match(rounds_of_bids, golds):
    """Per-round (total, received) and the totals received, computed independently of the engine."""
    per_round, totals = [], [0] * len(rounds_of_bids[0])
    for bids in rounds_of_bids:
        total = sum(bids)
        received = list(bids) if total <= golds else [0] * len(bids)
        totals = [t + r for t, r in zip(totals, received)]
        per_round.append((total, received))
    return per_round, totals


def _seat_views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


# ---- rules --------------------------------------------------------------------------------------
def test_bids_within_g_are_paid_and_a_sum_above_g_pays_nobody():
    state = play([[10] * 10, [20] * 9 + [25]], rounds=3, golds=100)
    first, second = state.result_details()["rounds"]
    assert first == {"round": 1, "total": 100, "exceeded": False, "bids": [10] * 10, "received": [10] * 10}
    assert second["total"] == 205 and second["exceeded"] and second["received"] == [0] * 10
    assert state.returns() == [10.0] * 10


def test_the_boundary_is_inclusive_at_g():
    assert play([[50, 30, 20]]).returns() == [50.0, 30.0, 20.0]       # exactly G = 100
    assert play([[50, 30, 21]]).returns() == [0.0, 0.0, 0.0]          # G + 1
    assert play([[0, 0, 0]]).returns() == [0.0, 0.0, 0.0]
    assert play([[100, 0, 0]]).returns() == [100.0, 0.0, 0.0]


def test_returns_add_up_the_golds_received_over_the_rounds():
    state = make(3, 4, golds=60)
    script = [([20, 20, 20], [20, 20, 20]), ([30, 30, 1], [0, 0, 0]), ([0, 59, 1], [0, 59, 1]),
              ([5, 5, 5], [5, 5, 5])]
    for bids, received in script:
        assert not state.is_terminal()
        state.apply_actions(bids)
        assert state.result_details()["rounds"][-1]["received"] == received
    assert state.is_terminal() and state.move_number == 4
    assert state.returns() == [25.0, 84.0, 26.0]
    assert state.result_details()["total_received"] == [25, 84, 26]


def test_bids_run_to_1023_by_default_and_to_g_with_strict_ranges():
    loose = make(golds=100)
    assert loose.legal_actions(0) == list(range(1024))
    assert play([[1023, 0, 0]]).result_details()["rounds"][0]["total"] == 1023
    strict = make(golds=100, strict_ranges=True)
    assert strict.legal_actions(2) == list(range(101))
    with pytest.raises(IllegalActionError):
        strict.apply_actions([101, 0, 0])
    strict.apply_actions([100, 0, 0])
    assert strict.returns() == [100.0, 0.0, 0.0]


def test_moves_are_simultaneous_and_illegal_ones_are_refused():
    state = make(3, 1)
    assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2]
    with pytest.raises(IllegalActionError):
        state.apply_action(10)
    for bad in ([1024, 0, 0], [0, -1, 0], [0, 0]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    assert state.history() == [] and state.move_number == 0
    state.apply_actions([1, 2, 3])
    assert state.is_terminal() and state.current_players() == [] and state.legal_actions(0) == []
    with pytest.raises(IllegalActionError):
        state.apply_actions([1, 2, 3])


def test_random_playouts_agree_with_an_independent_implementation():
    rng = random.Random(2024)
    outcomes = set()
    for _ in range(150):
        players, rounds = rng.randint(2, 12), rng.randint(1, 8)
        golds, strict = rng.randint(1, 900), rng.random() < 0.5
        cap = golds if strict else 1023
        # Bids around the fair share, so that both outcomes occur; now and then a wild one.
        script = [[min(cap, rng.randint(0, 2 * golds // players + 1) if rng.random() < 0.9 else rng.randint(0, cap))
                   for _ in range(players)] for _ in range(rounds)]
        state = play(script, golds=golds, strict_ranges=strict)
        per_round, totals = reference_match(script, golds)
        details = state.result_details()
        assert state.returns() == [float(t) for t in totals]
        for ours, (total, received), bids in zip(details["rounds"], per_round, script):
            assert (ours["total"], ours["received"], ours["bids"]) == (total, received, bids)
            assert ours["exceeded"] == (total > golds)
            outcomes.add(ours["exceeded"])
        for seat in range(players):
            view = state.observation_dict(seat)
            assert [(p["total"], p["my_bid"], p["received"]) for p in view["past_rounds"]] == \
                [(total, bids[seat], received[seat]) for (total, received), bids in zip(per_round, script)]
            assert view["total_received"] == totals[seat]
        deviation = sum(abs(total - golds) for total, _ in per_round) / rounds
        assert details["gamabench"]["S3"] == pytest.approx(deviation)
        assert details["gamabench"]["score"] == pytest.approx(max(0.0, 100 * (golds - deviation) / golds))
    assert outcomes == {True, False}


def test_clones_play_on_independently():
    state = play([[10, 20, 30]], rounds=3)
    copy = state.clone()
    copy.apply_actions([90, 5, 5])
    assert state.move_number == 1 and copy.move_number == 2
    assert state.returns() == [10.0, 20.0, 30.0] and copy.returns() == [100.0, 25.0, 35.0]
    state.apply_actions([500, 0, 0])
    assert copy.result_details()["rounds"][1]["bids"] == [90, 5, 5]
    assert state.result_details()["rounds"][1]["bids"] == [500, 0, 0]


# ---- what each seat sees ------------------------------------------------------------------------
def test_only_the_sum_of_the_bids_is_revealed():
    # Seat 0 bids the same in both games; the others bid differently but to the same sums.
    first = play([[10, 40, 50], [30, 200, 7], [5, 5, 5]], rounds=4)
    second = play([[10, 45, 45], [30, 0, 207], [5, 9, 1]], rounds=4)
    assert _seat_views(first, 0) == _seat_views(second, 0)
    for secret in ("40", "45", "200", "207"):
        assert secret not in first.observation_string(0) and secret not in json.dumps(first.observation_dict(0))
        assert all(secret not in text for _, _, text in first.public_history())
    # The views are not trivially constant: seat 1 sees its own, different bids.
    assert first.observation_dict(1) != second.observation_dict(1)
    assert "You bid 40 and received 40." in first.observation_string(1)


def test_observation_text_reports_the_sum_the_outcome_and_the_own_bid():
    state = play([[10, 40, 50], [60, 30, 20]], rounds=3)
    assert state.observation_string(2).splitlines()[1:] == [
        "Round 1: the bids add up to 100, which does not exceed 100: every player received its bid. "
        "You bid 50 and received 50.",
        "Round 2: the bids add up to 110, which exceeds 100: nobody received anything. You bid 20 and received 0.",
        "Round 3 of 3: make your bid (you have received 50 golds so far).",
    ]
    assert "from 0 to 1023 (a bid above 100 is allowed but sinks the round)" in state.observation_string(0)
    assert "from 0 to 100. If" in make(strict_ranges=True).observation_string(0)


def test_observation_dict_contents():
    state = play([[10, 40, 50]], rounds=2, golds=120)
    assert state.observation_dict(1) == {
        "round": 2, "rounds": 2, "players": 3, "golds": 120, "max_bid": 1023,
        "past_rounds": [{"round": 1, "total": 100, "exceeded": False, "my_bid": 40, "received": 40}],
        "total_received": 40, "finished": False,
    }
    state.apply_actions([100, 100, 100])
    final = state.observation_dict(0)
    assert final["finished"] is True and final["round"] is None and final["total_received"] == 10
    assert final["past_rounds"][1] == {"round": 2, "total": 300, "exceeded": True, "my_bid": 100, "received": 0}
    assert json.loads(json.dumps(final)) == final
    assert state.observation_string(0).endswith("The game is over. You received 10 golds in total.")


def test_public_history_has_one_summary_per_round():
    state = play([[10, 40, 50], [60, 30, 20]], rounds=3)
    assert state.public_history() == [
        (-1, -1, "Round 1: the bids add up to 100, which does not exceed 100: every player received its bid."),
        (-1, -1, "Round 2: the bids add up to 110, which exceeds 100: nobody received anything."),
    ]


def test_result_details_reveal_every_bid_and_the_score():
    state = play([[10, 40, 50], [60, 30, 20]])
    details = state.result_details()
    assert details == {
        "rounds": [
            {"round": 1, "total": 100, "exceeded": False, "bids": [10, 40, 50], "received": [10, 40, 50]},
            {"round": 2, "total": 110, "exceeded": True, "bids": [60, 30, 20], "received": [0, 0, 0]},
        ],
        "total_received": [10, 40, 50],
        "gamabench": {"S3": 5.0, "score": 95.0},
    }
    assert json.loads(json.dumps(details)) == details
    assert state.result_summary() == ("the sum stayed within 100 in 1 of 2 rounds; most received: seat 2 (50 golds); "
                                      "GAMA-Bench score 95.00")
    assert make().result_summary() == "game in progress"
    assert "gamabench" not in make().result_details()


def test_result_summary_names_every_leader_on_a_tie():
    assert "most received: seats 0, 1 (30 golds)" in play([[30, 30, 20]]).result_summary()
    assert play([[300, 0, 0]]).result_summary() == ("the sum stayed within 100 in 0 of 1 rounds; nobody received "
                                                    "any golds; GAMA-Bench score 0.00")


# ---- answers ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,bid", [
    ("10", 10),
    ("  7\n", 7),
    ("+5", 5),
    ('{"bid_amount": "10"}', 10),
    ('{"bid_amount": 12}', 12),
    ('{"bid_amount": 12.0}', 12),
    ('{"bid_amount": " 0 "}', 0),
    ('I will be fair. {"bid_amount": "10"} Good luck!', 10),
    ('```json\n{\n  "bid_amount": "9"\n}\n```', 9),
    ('{"explanation": "ten each keeps the sum at 100", "bid_amount": "10"}', 10),
    ('{"note": "no bid here"} then {"bid_amount": "11"} and {"bid_amount": "99"}', 11),   # the first answer
    ("{'bid_amount': '13'}", 13),                   # not JSON, still the GAMA-Bench key
    ('{"bid_amount": "14",}', 14),                  # trailing comma
    ('{"bid_amount": "500"}', 500),                 # above G: the code checks no range
    ("1023", 1023),
])
def test_parser_reads_bare_integers_and_the_gamabench_json_answer(text, bid):
    assert make().parse_action(0, text) == bid


@pytest.mark.parametrize("text,fragment", [
    ("10.5", '"10.5" is not a whole number'),
    ('{"bid_amount": 12.5}', "12.5 is not a whole number"),
    ('{"bid_amount": "ten"}', '"ten" is not a whole number'),
    ('{"bid_amount": true}', "true is not a whole number"),
    ('{"bid_amount": null}', "null is not a whole number"),
    ("-1", "a bid cannot be negative (-1)"),
    ('{"bid_amount": "-5"}', "a bid cannot be negative (-5)"),
    ("1024", "1024 is above the largest bid allowed, 1023"),
    ("I bid 10", "could not read a bid"),
    ('{"bid": 10}', "could not read a bid"),
    ("", "could not read a bid"),
])
def test_parser_refuses_what_is_not_a_bid(text, fragment):
    with pytest.raises(ActionParseError) as refused:
        make().parse_action(0, text)
    assert fragment in str(refused.value)
    assert "from 0 to 1023" in str(refused.value) and '{"bid_amount": "10"}' in str(refused.value)


def test_strict_ranges_refuse_answers_above_g():
    state = make(golds=50, strict_ranges=True)
    assert state.parse_action(1, '{"bid_amount": "50"}') == 50
    with pytest.raises(ActionParseError, match="51 is above the largest bid allowed, 50"):
        state.parse_action(1, '{"bid_amount": "51"}')
    assert state.text_action_spec(0) == {"description": "your bid, a whole number of golds from 0 to 50",
                                         "max_length": 4000, "forbidden_words": []}
    assert state.action_to_string(0, 15) == "15"


def test_the_fallback_is_g_over_n_rounded_down():
    assert load_game(GAME, preset="gamabench").new_initial_state().default_action(3) == 10
    assert load_game(GAME, preset="gamabench_g50").new_initial_state().default_action(0) == 5
    state = make(3, 1, golds=7, strict_ranges=True)
    assert state.default_action(2) == 2 and state.default_action(2) in state.legal_actions(2)
    state.apply_actions([2, 2, 2])          # three fallbacks never exceed G
    assert state.returns() == [2.0, 2.0, 2.0]
    assert state.default_action(0) is None  # nobody acts once the game is over


# ---- hidden information for search --------------------------------------------------------------
def test_resampling_redraws_the_other_bids_to_the_same_sums():
    script = [[10, 20, 30, 40, 0], [0, 0, 100, 100, 7], [20, 20, 20, 20, 20], [5, 90, 12, 60, 1]]
    state = play(script, rounds=6)
    original = state.result_details()
    redrawn = set()
    for seat in range(5):
        for seed in range(30):
            copy = state.resample_hidden(seat, seed)
            assert _seat_views(copy, seat) == _seat_views(state, seat)
            assert copy.returns()[seat] == state.returns()[seat]
            rounds = copy.result_details()["rounds"]
            for ours, truth in zip(rounds, original["rounds"]):
                assert ours["bids"][seat] == truth["bids"][seat]
                assert sum(ours["bids"]) == ours["total"] == truth["total"]
                assert all(0 <= b <= 1023 for b in ours["bids"])
            # What every seat received follows from the redrawn bids.
            _, totals = reference_match([r["bids"] for r in rounds], 100)
            assert copy.returns() == [float(t) for t in totals]
            redrawn.add(tuple(tuple(r["bids"]) for r in rounds))
            copy.apply_actions([1, 2, 3, 4, 5])
            assert state.move_number == 4
    assert len(redrawn) > 100
    assert state.result_details() == original


def test_resampling_respects_strict_ranges_and_a_single_other_seat():
    state = play([[100, 0, 0], [60, 50, 40]], rounds=2, strict_ranges=True)
    for seed in range(20):
        copy = state.resample_hidden(0, seed)
        assert [r["bids"][0] for r in copy.result_details()["rounds"]] == [100, 60]
        assert all(b <= 100 for r in copy.result_details()["rounds"] for b in r["bids"])
        assert copy.result_details()["rounds"][0]["bids"] == [100, 0, 0]     # the only way to sum 100
    pair = play([[10, 70], [50, 50]])
    for seed in range(5):
        assert pair.resample_hidden(1, seed).result_details() == pair.result_details()


def test_state_from_view_rebuilds_what_the_seat_saw():
    state = play([[10, 20, 30, 40, 0], [0, 0, 100, 100, 7], [20, 20, 20, 20, 20]], rounds=5)
    game = state.game
    for seat in range(5):
        view = state.observation_dict(seat)
        rebuilt = game.state_from_view(seat, view)
        assert _seat_views(rebuilt, seat) == _seat_views(state, seat)
        assert rebuilt.returns()[seat] == state.returns()[seat]
        assert rebuilt.move_number == 3 and rebuilt.current_players() == list(range(5))
        for ours, truth in zip(rebuilt.result_details()["rounds"], state.result_details()["rounds"]):
            assert sum(ours["bids"]) == truth["total"]
        assert game.state_from_view(seat, view).result_details() == rebuilt.result_details()   # deterministic
        rebuilt.apply_actions([1, 2, 3, 4, 5])
        rebuilt.apply_actions([1, 2, 3, 4, 5])
        assert rebuilt.is_terminal()
    fresh = game.new_initial_state()
    assert game.state_from_view(2, fresh.observation_dict(2)).observation_dict(2) == fresh.observation_dict(2)


def test_state_from_view_refuses_views_that_do_not_fit_the_game():
    state = play([[1, 2, 3]], rounds=1)
    game = state.game
    view = state.observation_dict(0)
    past = view["past_rounds"][0]
    with pytest.raises(ValueError):
        game.state_from_view(3, view)
    with pytest.raises(ValueError):
        game.state_from_view(0, dict(view, past_rounds=view["past_rounds"] * 2))
    for impossible in ({"total": 0}, {"total": 1 + 2 * 1023 + 1}, {"my_bid": 1024, "total": 1024}):
        with pytest.raises(ValueError, match="impossible"):
            game.state_from_view(0, dict(view, past_rounds=[{**past, **impossible}]))


# ---- spec, presets and parameters ---------------------------------------------------------------
def test_spec_and_presets_follow_the_paper():
    spec = game_spec(GAME)
    assert spec.accepts_text_actions and spec.dynamics == "simultaneous" and spec.information == "imperfect"
    assert spec.defaults() == {"players": 10, "rounds": 20, "golds": 100, "strict_ranges": False}
    assert [p.name for p in spec.presets] == ["gamabench", "gamabench_g50", "gamabench_g200", "gamabench_g400",
                                              "gamabench_g800"]
    for preset, golds in [("gamabench", 100), ("gamabench_g50", 50), ("gamabench_g200", 200),
                          ("gamabench_g400", 400), ("gamabench_g800", 800)]:
        assert spec.preset(preset).values == {"players": 10, "rounds": 20, "golds": golds, "strict_ranges": False}
        game = load_game(GAME, preset=preset)
        assert game.num_players == 10 and game.utility_bounds() == (0.0, 20.0 * golds)
        if preset != "gamabench":
            assert "Table 9" in spec.preset(preset).description and f"G = {golds}" in spec.preset(preset).description


@pytest.mark.parametrize("parameters,players", [
    ({"rounds": 0}, 3),
    ({"rounds": 101}, 3),
    ({"golds": 0}, 3),
    ({"golds": 1024}, 3),
    ({"golds": 2.5}, 3),
    ({"strict_ranges": 1}, 3),
    ({}, 1),
    ({}, 101),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)


# ---- GAMA-Bench scoring and logs -----------------------------------------------------------------
def details_with_totals(*totals):
    return {"rounds": [{"total": t} for t in totals]}


def test_score_is_one_minus_the_mean_distance_of_the_sum_from_g():
    assert gamabench_score({"golds": 100}, details_with_totals(100, 205, 155)) == \
        {"S3": pytest.approx(160 / 3), "score": pytest.approx(100 - 160 / 3)}
    assert gamabench_score({"golds": 100}, details_with_totals(100, 100)) == {"S3": 0.0, "score": 100.0}
    # Below G counts as much as above: |80 - 100| = |120 - 100|.
    assert gamabench_score({"golds": 100}, details_with_totals(80)) == gamabench_score({"golds": 100},
                                                                                       details_with_totals(120))
    assert gamabench_score({"golds": 50}, details_with_totals(60, 40))["score"] == pytest.approx(80.0)


def test_score_is_clipped_at_zero_per_run_unless_asked_for_eq1_as_printed():
    assert gamabench_score({"golds": 100}, details_with_totals(300, 0)) == {"S3": 150.0, "score": 0.0}
    assert gamabench_score({"golds": 100}, details_with_totals(300, 0), dollar_clip="eq1_unclipped") == \
        {"S3": 150.0, "score": -50.0}
    with pytest.raises(ValueError, match="dollar_clip"):
        gamabench_score({"golds": 100}, details_with_totals(100), dollar_clip="never")
    with pytest.raises(ValueError):
        gamabench_score({"golds": 100}, details_with_totals())


def test_clipping_per_run_reproduces_the_published_mixtral_row():
    # The reference's unclipped per-run scores of Mixtral-8x7B (6.2, -38.1, -36.0, -15.6, -36.4), as
    # one-round runs at G = 1000: Table 2 prints 1.2 +- 2.8, the unclipped mean would be -24.0.
    runs = [details_with_totals(1000 + round(10 * (100 - s))) for s in (6.2, -38.1, -36.0, -15.6, -36.4)]
    clipped = [gamabench_score({"golds": 1000}, d)["score"] for d in runs]
    unclipped = [gamabench_score({"golds": 1000}, d, dollar_clip="eq1_unclipped")["score"] for d in runs]
    assert unclipped == pytest.approx([6.2, -38.1, -36.0, -15.6, -36.4])
    assert round(statistics.mean(clipped), 1) == 1.2 and round(statistics.stdev(clipped), 1) == 2.8
    assert round(statistics.mean(unclipped), 1) == -24.0


def test_gamabench_history_reads_bids_in_player_order_from_a_log():
    # A made-up two-round log in the released layout (responses shuffled, as upstream).
    run = {"meta": {"player_num": 3, "golds": 60, "round_id": 2},
           "round_records": [{"responses": [30, 10, 20], "total_proposal": 60},
                             {"responses": [5, 50, 25], "total_proposal": 80}],
           "player_data": [{"records": [10, 25], "utility": [10, 0]}, {"records": [20, 5], "utility": [20, 0]},
                           {"records": [30, 50], "utility": [30, 0]}]}
    parameters, history = gamabench_history(run)
    assert parameters == {"players": 3, "rounds": 2, "golds": 60}
    assert history == [(SIMULTANEOUS, (10, 20, 30)), (SIMULTANEOUS, (25, 5, 50))]
    state = load_game(GAME, parameters).new_initial_state()
    for seat, bids in history:
        assert seat == SIMULTANEOUS
        state.apply_actions(list(bids))
    assert state.history() == history and state.returns() == [10.0, 20.0, 30.0]
    assert gamabench_score(parameters, state.result_details())["S3"] == 10.0


def test_determinized_search_ignores_the_hidden_bids_a_clairvoyant_one_reads():
    # The registry-wide MCTS test plays random bids, which always overshoot G, so the hidden bids
    # never pay anyone there. Here round 1 was paid, so the other seats' hidden bids set their
    # returns, and with them the spread of returns that scales the search's exploration.
    from arena_engines.mcts import MCTSBot

    state = play([[1, 4, 5]], rounds=3, golds=10, strict_ranges=True)
    game = state.game
    compared = clairvoyant_differs = 0
    for seed in range(6):
        other = state.resample_hidden(0, seed)
        if other.returns() == state.returns():
            continue
        bots = [MCTSBot(game, simulations=200, seed=seed) for _ in range(2)]
        assert bots[0].step(state, 0) == bots[1].step(other, 0)
        assert bots[0].root_statistics() == bots[1].root_statistics()
        compared += 1
        seers = [MCTSBot(game, simulations=200, seed=seed, determinize=False) for _ in range(2)]
        seers[0].step(state, 0)
        seers[1].step(other, 0)
        clairvoyant_differs += seers[0].root_statistics() != seers[1].root_statistics()
    assert compared >= 4 and clairvoyant_differs >= 1
