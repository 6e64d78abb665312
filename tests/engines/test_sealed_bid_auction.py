"""Sealed-bid auction: first and second price, ties, bid limits, multi-round accumulation, the
valuation draws, what bidders see, resampling and rebuilding hidden information, parsing, the
fallback bid, presets, and GAMA-Bench's scorer and released-log converter."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import CHANCE, SIMULTANEOUS, ActionParseError, IllegalActionError
from arena_engines.sealed_bid_auction import gamabench_history, gamabench_score

GAME = "sealed_bid_auction"
PRESETS = [p.name for p in game_spec(GAME).presets]
# The Table 9 presets differ from "gamabench" in valuation_max alone (test_presets_carry_each_papers_
# setting); the widest range stands for them in the slower property tests.
RULE_PRESETS = [p for p in PRESETS if not p.startswith("gamabench_v") or p == "gamabench_v800"]


def make(preset="gtbench_blind", players=None, **parameters):
    return load_game(GAME, parameters, preset=preset, num_players=players).new_initial_state()


def play_round(state, values, bids, tie_winner=None):
    """Draws `values` (seat order), applies the joint `bids`, then the tie-break if there is one."""
    for value in values:
        assert state.is_chance_node()
        state.apply_action(value)
    state.apply_actions(bids)
    if tie_winner is not None:
        assert state.is_chance_node()
        state.apply_action(tie_winner)
    return state


def sample_chance(state, rng):
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]


def random_playout(state, rng, low_bids=False, on_step=None):
    """Plays to the end with chance by its probabilities and uniform (or, to provoke ties, low)
    legal bids; calls on_step(state) after every move."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            bids = []
            for seat in range(state.num_players):
                legal = state.legal_actions(seat)
                bids.append(rng.choice(legal[:3] if low_bids else legal))
            state.apply_actions(bids)
        if on_step:
            on_step(state)
    return state


def check_round_is_consistent_with_the_rules(state, details_round):
    """A round of result_details obeys the rules of the state's game."""
    p = state.game.parameters
    values, bids = details_round["valuations"], details_round["bids"]
    grid = range(p["valuation_min"], p["valuation_max"] + 1, p["valuation_step"])
    assert all(v in grid for v in values)
    if p["valuation_draw"] == "distinct":
        assert len(set(values)) == len(values)
    for v, b in zip(values, bids):
        cap = {"valuation": v, "below_valuation": v - 1, "none": p["max_bid"]}[p["bid_limit"]]
        assert 0 <= b <= min(cap, p["max_bid"])
    top = max(bids)
    tops = [i for i, b in enumerate(bids) if b == top]
    assert details_round["winning_bid"] == top
    second = top if len(tops) > 1 else max(b for i, b in enumerate(bids) if i not in tops)
    assert details_round["price"] == (top if p["price_rule"] == "first" else second)
    if p["tie_rule"] == "split":
        assert details_round["winners"] == tops
    else:
        assert len(details_round["winners"]) == 1 and details_round["winners"][0] in tops


# ---- rules ---------------------------------------------------------------------------------------
def test_first_price_the_highest_bidder_pays_its_bid():
    state = play_round(make(), [7, 4], [5, 3])
    assert state.is_terminal()
    assert state.returns() == [2.0, 0.0]                   # 7 - 5 for the winner, 0 for the loser
    assert state.result_summary() == "bidder 0 wins at 5; returns 2, 0"
    assert state.result_details()["rounds"] == [{
        "round": 1, "valuations": [7, 4], "bids": [5, 3], "winning_bid": 5, "price": 5, "winners": [0],
        "utilities": [2.0, 0.0]}]


def test_second_price_the_winner_pays_the_second_highest_bid():
    state = play_round(make(players=3, price_rule="second"), [8, 6, 5], [7, 4, 5])
    assert state.returns() == [3.0, 0.0, 0.0]              # 8 - 5
    assert state.result_details()["rounds"][0]["price"] == 5


def test_a_random_tie_break_is_a_chance_node_over_the_tied_bidders():
    state = make(players=3)
    play_round(state, [9, 7, 8], [6, 6, 2])
    assert state.is_chance_node() and not state.is_terminal()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.action_to_string(-1, 1) == "bidder 1 wins the tie"
    state.apply_action(1)
    assert state.is_terminal() and state.returns() == [0.0, 1.0, 0.0]
    with pytest.raises(IllegalActionError):
        play_round(make(players=3), [9, 7, 8], [6, 6, 2], tie_winner=2)   # not a tied bidder


def test_a_tie_under_second_price_pays_the_tied_bid():
    state = play_round(make(players=3, price_rule="second"), [9, 7, 8], [6, 6, 2], tie_winner=0)
    assert state.returns() == [3.0, 0.0, 0.0]


def test_a_split_tie_shares_each_top_bidders_surplus_without_chance():
    state = play_round(make(players=3, tie_rule="split"), [9, 8, 10], [5, 5, 1])
    assert state.is_terminal()
    assert state.returns() == [2.0, 1.5, 0.0]              # (9 - 5)/2 and (8 - 5)/2
    assert state.result_details()["rounds"][0]["winners"] == [0, 1]
    assert "shared the item with 1 other(s)" in state.observation_string(0)
    assert state.public_history() == [(-1, -1, "Round 1: winning bid 5, price paid 5, shared by 2 top bidders.")]
    assert state.result_summary() == "2 bidders share the item at 5; returns 2, 1.5, 0"


def test_everyone_bidding_zero_still_sells_the_item():
    state = play_round(make(players=2), [3, 10], [0, 0], tie_winner=1)
    assert state.returns() == [0.0, 10.0]


@pytest.mark.parametrize("preset,value,legal", [
    ("gtbench_blind", 6, list(range(7))),              # 0..v, the paper
    ("gtbench_code", 6, list(range(6))),               # 0..v-1, OpenSpiel
    ("gamabench", 60, list(range(1001))),              # overbids accepted
])
def test_legal_bids_follow_the_bid_limit(preset, value, legal):
    state = make(preset)
    state.apply_action(value)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    assert state.is_simultaneous_node()
    assert state.legal_actions(0) == legal
    assert state.is_legal(0, legal[-1]) and not state.is_legal(0, legal[-1] + 1) and not state.is_legal(0, -1)


def test_an_overbid_is_refused_where_the_limit_forbids_it_and_costs_money_where_it_does_not():
    state = make()
    state.apply_action(6)
    state.apply_action(3)
    with pytest.raises(IllegalActionError):
        state.apply_actions([7, 0])
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 4])
    assert state.is_simultaneous_node() and state.history() == [(-1, 6), (-1, 3)]
    overbid = make(players=2, bid_limit="none", max_bid=20)
    play_round(overbid, [6, 3], [9, 2])
    assert overbid.returns() == [-3.0, 0.0]
    with pytest.raises(IllegalActionError):
        play_round(make(players=2, bid_limit="none", max_bid=20), [6, 3], [21, 2])


def test_rounds_accumulate_and_valuations_are_redrawn_every_round():
    state = make(players=3, rounds=3, valuation_max=20, max_bid=20)
    play_round(state, [10, 20, 5], [4, 9, 1])              # seat 1 wins 20 - 9 = 11
    assert not state.is_terminal() and state.is_chance_node()
    assert state.returns() == [0.0, 11.0, 0.0]
    play_round(state, [15, 2, 12], [8, 2, 8], tie_winner=2)  # seat 2 wins the tie: 12 - 8 = 4
    play_round(state, [3, 6, 9], [3, 5, 0])                # seat 1 wins 6 - 5 = 1
    assert state.is_terminal() and state.move_number == 3 * 3 + 3 + 1
    assert state.returns() == [0.0, 12.0, 4.0]
    assert state.result_summary() == "highest total utility: bidder 1 (12)"
    past = state.observation_dict(1)["past_rounds"]
    assert [r["my_valuation"] for r in past] == [20, 2, 6] and [r["utility"] for r in past] == [11.0, 0.0, 1.0]
    assert state.observation_dict(1)["total_utility"] == 12.0


def test_bid_deviation_reward_scores_every_bidder_and_zero_for_a_zero_valuation():
    state = make("llmarena_bid_code")
    play_round(state, [500, 0], [250, 0])
    assert state.returns() == [0.0, 0.0]                   # (250 - 250)/250; v = 0 scores 0
    state = make("llmarena_bid_code")
    play_round(state, [400, 800], [400, 200])
    assert state.returns() == pytest.approx([1.0, -0.5])   # the winner and the loser both score


def test_llmarena_amounts_are_cents_and_returns_are_dollars():
    state = make("llmarena_bid")
    play_round(state, [457, 1000], [123, 122])
    assert state.returns() == pytest.approx([3.34, 0.0])
    assert state.action_to_string(0, 123) == "$1.23"
    assert "Round 1: winning bid $1.23, price paid $1.23." in state.observation_string(1)
    assert "Your valuation was $10.00, you bid $1.22 and lost (utility 0.00)" in state.observation_string(1)


# ---- chance --------------------------------------------------------------------------------------
def test_gtbench_valuations_are_uniform_on_one_to_ten():
    state = make()
    assert state.chance_outcomes() == [(v, pytest.approx(0.1)) for v in range(1, 11)]
    assert state.action_to_string(-1, 7) == "valuation 7 for bidder 0"


def test_llmarena_valuations_are_a_uniform_draw_rounded_to_the_cent():
    outcomes = dict(make("llmarena_bid").chance_outcomes())
    assert sorted(outcomes) == list(range(1001))
    assert outcomes[0] == pytest.approx(1 / 2000) and outcomes[1000] == pytest.approx(1 / 2000)
    assert outcomes[1] == pytest.approx(1 / 1000) and outcomes[537] == pytest.approx(1 / 1000)
    assert sum(outcomes.values()) == pytest.approx(1.0)


def test_gamabench_valuations_are_distinct_multiples_of_ten():
    state = make("gamabench")
    assert state.chance_outcomes() == [(v, pytest.approx(1 / 21)) for v in range(0, 201, 10)]
    state.apply_action(120)
    state.apply_action(0)
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [v for v in range(0, 201, 10) if v not in (0, 120)]
    assert all(p == pytest.approx(1 / 19) for _, p in outcomes)
    with pytest.raises(IllegalActionError):
        state.apply_action(120)


# ---- information ---------------------------------------------------------------------------------
def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def test_a_bidder_sees_its_own_valuation_but_not_the_others_before_or_after_the_round():
    first, second = make(players=2, rounds=2), make(players=2, rounds=2)
    first.apply_action(6)
    second.apply_action(6)
    first.apply_action(9)
    second.apply_action(2)
    assert views(first, 0) == views(second, 0)             # only seat 1's valuation differs
    assert views(first, 1) != views(second, 1)
    assert "your valuation is 6" in first.observation_string(0)
    # Two rounds with different hidden valuations and losing bids but the same public outcome.
    first.apply_actions([5, 4])
    second.apply_actions([5, 1])
    assert views(first, 0) == views(second, 0)
    assert "Round 1: winning bid 5, price paid 5." in first.observation_string(0)
    assert "you bid 5 and won (utility 1)" in first.observation_string(0)


def test_while_a_tie_is_broken_a_bidder_sees_only_its_own_bid():
    first, second = make(players=3), make(players=3)
    play_round(first, [8, 9, 7], [4, 6, 6])
    play_round(second, [8, 7, 9], [4, 5, 5])
    assert first.is_chance_node() and second.is_chance_node()
    assert views(first, 0) == views(second, 0)
    data = first.observation_dict(0)
    assert data["phase"] == "tie_break" and data["my_bid"] == 4 and data["my_valuation"] == 8


def test_the_round_report_shows_the_winning_bid_and_price_but_no_other_bid():
    state = play_round(make(players=3, price_rule="second", valuation_max=20, max_bid=20),
                       [18, 13, 15], [17, 11, 14])
    text = state.observation_string(2)
    assert "Round 1: winning bid 17, price paid 14." in text
    assert "11" not in text and "13" not in text and "18" not in text
    data = json.dumps(state.observation_dict(2))
    assert "11" not in data and "13" not in data and "18" not in data
    assert state.public_history() == [(-1, -1, "Round 1: winning bid 17, price paid 14.")]


def test_the_random_tie_winner_is_not_revealed_to_losers():
    first = play_round(make(players=3), [9, 7, 8], [6, 6, 2], tie_winner=0)
    second = play_round(make(players=3), [9, 7, 8], [6, 6, 2], tie_winner=1)
    assert views(first, 2) == views(second, 2)
    assert views(first, 1) != views(second, 1)             # seat 1 learns it lost or won


def test_result_details_reveal_everything_at_the_end():
    state = play_round(make(players=2), [7, 4], [5, 3])
    assert state.result_details()["rounds"][0]["valuations"] == [7, 4]
    assert json.loads(json.dumps(state.result_details())) == state.result_details()


@pytest.mark.parametrize("preset", RULE_PRESETS)
def test_resample_hidden_keeps_the_view_and_redraws_the_others_consistently(preset):
    overrides = {"players": 4, "rounds": 3} if preset.startswith("gamabench") else {"players": 3, "rounds": 2}
    changed = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = make(preset, **overrides)
        checked = []

        def check(s):
            for seat in range(s.num_players):
                before = (s.observation_string(seat), s.observation_dict(seat), s.public_history(),
                          s.current_player(), s.legal_actions(seat), s.returns()[seat])
                copies = [s.resample_hidden(seat, k) for k in range(3)]
                for copy in copies:
                    assert (copy.observation_string(seat), copy.observation_dict(seat), copy.public_history(),
                            copy.current_player(), copy.legal_actions(seat), copy.returns()[seat]) == before
                    for r in copy.result_details()["rounds"]:
                        check_round_is_consistent_with_the_rules(copy, r)
                checked.append([c.result_details()["rounds"] for c in copies])
        random_playout(state, rng, low_bids=seed % 2 == 0, on_step=check)
        changed += sum(1 for details in checked if details[0] != details[1] or details[1] != details[2])
    assert changed > 0      # hidden valuations and bids do change across seeds


def test_resample_hidden_redraws_the_other_valuations_of_the_current_round():
    state = make("gamabench")
    for value in range(0, 100, 10):
        state.apply_action(value)
    seen = {tuple(state.resample_hidden(3, seed).observation_dict(s)["my_valuation"] for s in (0, 5))
            for seed in range(20)}
    assert len(seen) > 1
    for seed in range(20):
        copy = state.resample_hidden(3, seed)
        values = [copy.observation_dict(s)["my_valuation"] for s in range(10)]
        assert values[3] == 30 and len(set(values)) == 10 and all(v % 10 == 0 and 0 <= v <= 200 for v in values)


@pytest.mark.parametrize("preset", RULE_PRESETS)
def test_state_from_view_rebuilds_what_the_seat_sees(preset):
    game = load_game(GAME, {"players": 3, "rounds": 2} if preset.startswith("gamabench") else {}, preset=preset)
    for seed in range(60):

        def check(s):
            for seat in range(s.num_players):
                rebuilt = game.state_from_view(seat, s.observation_dict(seat))
                assert rebuilt.observation_string(seat) == s.observation_string(seat)
                assert rebuilt.observation_dict(seat) == s.observation_dict(seat)
                assert rebuilt.legal_actions(seat) == s.legal_actions(seat)
                assert rebuilt.current_player() == s.current_player()
        random_playout(game.new_initial_state(), random.Random(seed), low_bids=seed % 3 == 0, on_step=check)


# ---- random playouts -----------------------------------------------------------------------------
@pytest.mark.parametrize("preset", RULE_PRESETS)
def test_random_playouts_follow_the_rules_and_end_in_time(preset):
    spec = game_spec(GAME)
    for seed in range(200):
        rng = random.Random(seed)
        overrides = {"players": rng.randint(2, 5), "rounds": rng.randint(1, 3)}
        if preset.startswith("gamabench") and seed % 10 == 0:
            overrides = {}
        if seed % 7 == 0:
            overrides["tie_rule"] = "split"
        game = load_game(GAME, overrides, preset=preset)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0) and all(p > 0 for _, p in outcomes)
                state.apply_action(sample_chance(state, rng))
                continue
            assert state.is_simultaneous_node() and state.current_players() == list(range(game.num_players))
            bids = []
            for seat in range(game.num_players):
                legal = state.legal_actions(seat)
                assert legal == list(range(len(legal)))
                for bad in (-1, len(legal)):
                    joint = [0] * game.num_players
                    joint[seat] = bad
                    with pytest.raises(IllegalActionError):
                        state.clone().apply_actions(joint)
                bids.append(rng.choice(legal[:2] if seed % 2 else legal))
            state.apply_actions(bids)
            assert state.move_number <= spec.max_game_length
        details = state.result_details()
        assert len(details["rounds"]) == game.parameters["rounds"]
        for r in details["rounds"]:
            check_round_is_consistent_with_the_rules(state, r)
        totals = [sum(r["utilities"][i] for r in details["rounds"]) for i in range(game.num_players)]
        assert state.returns() == pytest.approx(totals)
        assert all(spec.min_utility <= x <= spec.max_utility for x in state.returns())
        assert state.legal_actions(0) == [] and state.current_players() == []
        with pytest.raises(IllegalActionError):
            state.apply_actions([0] * game.num_players)


def test_clones_are_independent_and_replays_are_deterministic():
    for seed in range(200):
        rng = random.Random(seed)
        state = make("gamabench", players=4, rounds=3)
        for _ in range(rng.randrange(12)):
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_actions([rng.choice(state.legal_actions(s)) for s in range(4)])
        before = (state.history(), state.observation_string(0), state.observation_dict(1), state.returns())
        clone = random_playout(state.clone(), rng)
        assert (state.history(), state.observation_string(0), state.observation_dict(1), state.returns()) == before
        replay = make("gamabench", players=4, rounds=3)
        for seat, action in clone.history():
            if seat == -2:
                replay.apply_actions(list(action))
            else:
                replay.apply_action(action)
        assert replay.returns() == clone.returns() and replay.result_details() == clone.result_details()


# ---- parsing -------------------------------------------------------------------------------------
def bidding_state(preset="gtbench_blind", values=(7, 4), **parameters):
    state = make(preset, **parameters)
    for value in values:
        state.apply_action(value)
    return state


@pytest.mark.parametrize("text,bid", [
    ("<4>", 4),
    ("Action: <5>", 5),
    ("Thought: I could bid <7> but <3> is safer.\nAction: <3>", 3),      # GTBench: the last tag
    ('{"bid": "6"}', 6),
    ('{"bid": 2}', 2),
    ('{"explanation": "shade below 7", "bid": "5"}', 5),
    ("Sure. {'bid': '1'}", 1),
    ("player_0: $4", 4),
    ("  0 ", 0),
    ("7", 7),
    ("<9>", 9),                                 # above the valuation: parsed, then illegal
])
def test_parser_reads_each_papers_answer_format(text, bid):
    state = bidding_state()
    assert state.parse_action(0, text) == bid
    assert state.is_legal(0, bid) == (bid <= 7)


@pytest.mark.parametrize("text,cents", [
    ("player_0: $1.08", 108),
    ("I think v/2 is right.\nplayer_1: $2.50", 250),
    ("My valuation is $4.57, so I bid $2.28.", 228),       # the last dollar amount
    ("$3", 300),
    ("<1.5>", 150),
    ('{"bid": "0.99"}', 99),
    ("10.00", 1000),
])
def test_llmarena_answers_are_read_in_dollars(text, cents):
    assert bidding_state("llmarena_bid", (457, 300)).parse_action(0, text) == cents


@pytest.mark.parametrize("preset,values,text,fragment", [
    ("gtbench_blind", (7, 4), "I bid four", "could not read a bid"),
    ("gtbench_blind", (7, 4), "", "could not read a bid"),
    ("gtbench_blind", (7, 4), "<4.5>", "bids are in whole numbers"),
    ("gtbench_blind", (7, 4), "<-2>", "cannot be negative"),
    ("gtbench_blind", (7, 4), "<11>", "above the largest possible bid, 10"),
    ("gtbench_blind", (7, 4), '{"bid": "lots"}', "is not an amount"),
    ("gtbench_blind", (7, 4), '{"bid": true}', "true is not an amount"),
    ("llmarena_bid", (457, 300), "player_0: $1.085", "whole cents"),
    ("llmarena_bid", (457, 300), "$10.01", "above the largest possible bid, $10.00"),
])
def test_parser_refuses_unreadable_or_impossible_bids_with_the_expected_format(preset, values, text, fragment):
    state = bidding_state(preset, values)
    with pytest.raises(ActionParseError) as refused:
        state.parse_action(0, text)
    assert fragment in str(refused.value)
    assert "Answer with a bid from" in str(refused.value)


def test_gtbench_code_snaps_out_of_range_bids_to_the_nearest_legal_bid():
    state = bidding_state("gtbench_code", (7, 4))
    assert state.parse_action(0, "<9>") == 6           # bids are 0..v-1
    assert state.parse_action(1, "<50>") == 3
    assert state.parse_action(0, "<-2>") == 0
    assert state.parse_action(0, "<5>") == 5
    assert state.is_legal(0, state.parse_action(0, "<9>"))


def test_canonical_texts_parse_back_and_the_text_spec_names_the_range():
    states = [bidding_state("gtbench_blind", (7, 4)), bidding_state("llmarena_bid", (457, 300)),
              bidding_state("gamabench", (0, 10, 20), players=3)]
    for state in states:
        for bid in state.legal_actions(0):
            assert state.parse_action(0, state.action_to_string(0, bid)) == bid
    state = bidding_state("llmarena_bid", (457, 300))
    assert state.text_action_spec(0)["description"] == "your bid, from $0.00 to $4.57"
    assert make().text_action_spec(0) is None          # nobody bids while valuations are drawn


ANSWERY = st.text(alphabet=st.sampled_from(list("<>{}[]\"':$.,-+ 0123456789bidplayer_eEnaNAction")), max_size=40)


@pytest.mark.parametrize("preset,values", [("gtbench_blind", (7, 4)), ("gtbench_code", (7, 4)),
                                           ("llmarena_bid", (457, 300))])
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), ANSWERY, st.integers(-10**6, 10**6).map(str)))
def test_any_text_parses_to_an_in_range_bid_or_is_refused(preset, values, text):
    state = bidding_state(preset, values)
    try:
        bid = state.parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= bid <= state.game.parameters["max_bid"]
    if preset == "gtbench_code":
        assert state.is_legal(0, bid)


def test_huge_numbers_are_refused_cleanly():
    state = bidding_state()
    for text in ("<" + "9" * 5000 + ">", '{"bid": "1e999999999"}', '{"bid": "NaN"}', '{"bid": 1e400}'):
        with pytest.raises(ActionParseError):
            state.parse_action(0, text)


# ---- fallback ------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_the_fallback_is_a_legal_bid_of_zero_while_bidding_and_none_otherwise(preset):
    state = make(preset)
    assert state.is_chance_node() and state.default_action(0) is None
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    for seat in range(state.num_players):
        assert state.default_action(seat) == 0 and 0 in state.legal_actions(seat)
    state.apply_actions([state.default_action(seat) for seat in range(state.num_players)])
    # Every fallback bid ties at 0: the tie-break is chance's, and no seat has a fallback then.
    assert state.is_chance_node() and state.default_action(0) is None


# ---- GAMA-Bench score and released logs ----------------------------------------------------------
def test_gamabench_score_is_the_mean_surplus_over_the_valuation_range():
    game = load_game(GAME, {"players": 3, "rounds": 2}, preset="gamabench")
    state = game.new_initial_state()
    play_round(state, [200, 100, 0], [150, 100, 0])      # v - b: 50, 0, 0
    play_round(state, [40, 60, 10], [30, 60, 20])        # v - b: 10, 0, -10 (an overbid counts)
    details = state.result_details()
    # S6 = (50 + 0 + 0 + 10 + 0 - 10) / 6 = 25 / 3; score = 100 * S6 / 200.
    assert gamabench_score(game.parameters, details) == {"S6": pytest.approx(25 / 3), "score": pytest.approx(25 / 6)}
    # Relative: max(0, (v - b) / max(v, 1)) = 1/4, 0, 0 (v = 0: 0 / 1), 1/4, 0, 0 (the overbid clipped).
    assert gamabench_score(game.parameters, details, auction_metric="relative") == \
        {"S6": pytest.approx(1 / 12), "score": pytest.approx(100 / 12)}
    # The rescaling divides by the valuation_max parameter, not by the largest valuation drawn.
    wide = load_game(GAME, {"players": 3, "rounds": 2}, preset="gamabench_v800")
    assert gamabench_score(wide.parameters, details)["score"] == pytest.approx(100 * (25 / 3) / 800)
    with pytest.raises(ValueError):
        gamabench_score(game.parameters, details, auction_metric="later")
    with pytest.raises(TypeError):
        gamabench_score(game.parameters, details, guess_r1_formula="later")
    with pytest.raises(ValueError):
        gamabench_score(game.parameters, game.new_initial_state().result_details())


def test_bidding_nothing_maximises_the_paper_metric():
    # gamabench.md §6 item 12: S6 rewards any underbidding, so all-zero bids score 100 * mean v / max.
    game = load_game(GAME, {"players": 2, "rounds": 1}, preset="gamabench")
    state = play_round(game.new_initial_state(), [200, 100], [0, 0], tie_winner=0)
    assert gamabench_score(game.parameters, state.result_details())["score"] == pytest.approx(75.0)


def _auction_log(rounds, low=0, high=200, mode="highest bid"):
    """A minimal log in the released files' layout, with only what the converter reads: rounds of
    (valuations, bids, winner)."""
    players = len(rounds[0][0])
    return {"meta": {"player_num": players, "valuation_min": low, "valuation_max": high, "interval": 10,
                     "mode": mode, "round_id": len(rounds)},
            "round_records": [{"valuations": list(v), "responses": list(b), "bid_winner": f"player_{w}"}
                              for v, b, w in rounds],
            "player_data": [{} for _ in range(players)]}


def test_gamabench_history_draws_valuations_then_bids_then_a_tie_break_only_on_a_tie():
    log = _auction_log([([200, 30, 0], [150, 25, 0], 0),
                        ([10, 90, 40], [60, 60, 25], 1)], high=200)
    parameters, history = gamabench_history(log)
    assert parameters == {**game_spec(GAME).preset("gamabench").values, "players": 3, "rounds": 2}
    assert history == [(CHANCE, 200), (CHANCE, 30), (CHANCE, 0), (SIMULTANEOUS, (150, 25, 0)),
                       (CHANCE, 10), (CHANCE, 90), (CHANCE, 40), (SIMULTANEOUS, (60, 60, 25)), (CHANCE, 1)]
    state = load_game(GAME, parameters).new_initial_state()
    for seat, action in history:
        if seat == SIMULTANEOUS:
            state.apply_actions(list(action))
        else:
            state.apply_action(action)
    assert state.is_terminal() and state.history() == history
    assert [r["winners"] for r in state.result_details()["rounds"]] == [[0], [1]]
    assert state.returns() == [50.0, 30.0, 0.0]
    assert gamabench_history(_auction_log([([0, 10], [0, 0], 1)], high=100))[0]["valuation_max"] == 100


@pytest.mark.parametrize("log", [
    _auction_log([([200, 30], [150, 25], 0)], mode="second-highest bid"),   # not scored, none released
    _auction_log([([200, 30], [150, 150], 2)]),                             # the winner is not a seat
    _auction_log([([200, 30, 20], [150, 150, 10], 2)]),                     # the winner did not bid the top
    _auction_log([([200, 30, 20], [150, 10], 0)]),                          # a bid is missing
    dict(_auction_log([([200, 30], [150, 25], 0)]), player_data=[{}]),    # player_num says 2
])
def test_gamabench_history_refuses_logs_it_cannot_replay_faithfully(log):
    with pytest.raises(ValueError):
        gamabench_history(log)


# ---- presets and parameters ----------------------------------------------------------------------
def test_presets_carry_each_papers_setting():
    spec = game_spec(GAME)
    assert PRESETS == ["gtbench_blind", "gtbench_code", "llmarena_bid", "llmarena_bid_code", "gamabench",
                       "gamabench_second_price", "gamabench_v100", "gamabench_v400", "gamabench_v800"]
    assert spec.dynamics == "simultaneous" and spec.information == "imperfect" and spec.chance == "stochastic"
    gama = load_game(GAME, preset="gamabench")
    assert gama.num_players == 10 and gama.parameters["rounds"] == 20
    assert load_game(GAME, preset="gamabench_second_price").parameters["price_rule"] == "second"
    # Table 9's valuation ranges differ from the vanilla preset in valuation_max alone.
    for high in (100, 400, 800):
        variant = load_game(GAME, preset=f"gamabench_v{high}").parameters
        assert variant == {**gama.parameters, "valuation_max": high}
        assert "Table 9" in spec.preset(f"gamabench_v{high}").description
    blind = load_game(GAME, preset="gtbench_blind").parameters
    assert (blind["valuation_min"], blind["valuation_max"], blind["bid_limit"]) == (1, 10, "valuation")
    assert load_game(GAME, preset="gtbench_code").parameters["bid_limit"] == "below_valuation"
    bid = load_game(GAME, preset="llmarena_bid").parameters
    assert (bid["decimals"], bid["valuation_draw"], bid["reward"]) == (2, "rounded", "surplus")
    assert load_game(GAME, preset="llmarena_bid_code").parameters["reward"] == "bid_deviation"


@pytest.mark.parametrize("parameters,players", [
    ({}, 1),
    ({}, 21),
    ({"rounds": 0}, 2),
    ({"price_rule": "third"}, 2),
    ({"valuation_min": 5, "valuation_max": 4}, 2),
    ({"valuation_min": 0, "valuation_max": 15, "valuation_step": 10}, 2),
    ({"valuation_draw": "distinct", "valuation_min": 1, "valuation_max": 3}, 4),
    ({"bid_limit": "below_valuation", "valuation_min": 0}, 2),
    ({"max_bid": 1024}, 2),
    ({"tie_rule": "coin"}, 2),
    ({"decimals": 1}, 2),
    ({"reward": "regret"}, 2),
    ({"rounds": 2.5}, 2),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, preset="gtbench_blind", num_players=players)
