"""Pit (GameBench, reference gamebench.md section 2.6): the deal, offers and trades, corners worked by hand
(bull corner, double bull, Bear penalty, a jump past six, two corners in one trade, a corner dealt by
chance), the end at the target or the turn cap and the points shares, the parser, what each seat sees,
determinization, and random playouts checked against a plain re-implementation of the rules."""

from __future__ import annotations

import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

KINDS = ["Barley", "Corn", "Soyabeans", "Wheat", "Bull", "Bear"]
VALUES = {"Barley": 85, "Corn": 75, "Soyabeans": 55, "Wheat": 100}
TOTAL = {"Barley": 9, "Corn": 9, "Soyabeans": 9, "Wheat": 9, "Bull": 1, "Bear": 1}
TURN_ORDER = [0, 2, 1, 3]
PASS = "Offer_Bear_4"           # one Bear exists: this offer is never covered, so it only spends the turn


def game(**overrides):
    return load_game("pit", overrides, preset="gamebench")


def action(text: str) -> int:
    """The id of a GameBench action id text (ids do not depend on the state)."""
    if text.startswith("Offer_"):
        _, kind, qty = text.split("_")
        return 4 * KINDS.index(kind) + int(qty) - 1
    _, trade, kind, qty = text.split("_")
    return 24 + 54 * (int(trade) - 1) + 9 * KINDS.index(kind) + int(qty) - 1


def hands_from(*specs: str) -> list[dict]:
    """Hands from "5 Wheat, 2 Barley" strings, one per seat."""
    hands = []
    for spec in specs:
        hand = dict.fromkeys(KINDS, 0)
        for part in spec.split(","):
            count, kind = part.split()
            hand[kind] += int(count)
        hands.append(hand)
    return hands


def deal(state, hands: list[dict]) -> None:
    """Plays the chance nodes of one deal so that seat i gets hands[i] (the k-th card goes to seat k % 4)."""
    queues = [[kind for kind in KINDS for _ in range(hand[kind])] for hand in hands]
    assert [len(q) for q in queues] == [10, 10, 9, 9]
    for k in range(38):
        assert state.is_chance_node()
        state.apply_action(KINDS.index(queues[k % 4].pop(0)))


def play(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(action(text))


def hand(state, seat: int) -> dict:
    return state.observation_dict(seat)["hand"]


# Seat 0 five Wheat short of a corner; seat 1 the Bull, seat 3 the Bear.
STANDARD = hands_from("5 Wheat, 2 Barley, 2 Corn, 1 Soyabeans",
                      "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans, 1 Bull",
                      "1 Wheat, 2 Barley, 3 Corn, 3 Soyabeans",
                      "1 Wheat, 2 Barley, 2 Corn, 3 Soyabeans, 1 Bear")


def standard(**overrides):
    state = game(**overrides).new_initial_state()
    deal(state, STANDARD)
    return state


# ---- spec, deal, turns ----------------------------------------------------------------------------
def test_spec_preset_and_sides():
    spec = game_spec("pit")
    assert (spec.min_players, spec.max_players, spec.information, spec.utility) == (4, 4, "imperfect", "constant_sum")
    assert (spec.min_utility, spec.max_utility, spec.dialogue, spec.accepts_text_actions) == (0.0, 1.0, False, True)
    assert spec.preset("gamebench").values == {"corner_size": 6, "winning_score": 500, "max_turns": 1000}
    assert game().seat_sides() == [0, 0, 1, 1]


@pytest.mark.parametrize("bad", [{"corner_size": 4}, {"corner_size": 10}, {"winning_score": 0}, {"max_turns": 0},
                                 {"max_turns": 10001}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        game(**bad)


def test_the_deal_is_round_robin_with_undealt_proportions():
    state = game().new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, pytest.approx(n / 38)) for k, n in enumerate([9, 9, 9, 9, 1, 1])]
    state.apply_action(4)                                      # the Bull to seat 0
    assert [k for k, _ in state.chance_outcomes()] == [0, 1, 2, 3, 5]
    assert state.chance_outcomes()[0][1] == pytest.approx(9 / 37)
    assert state.action_to_string(-1, 3) == "Wheat to seat 1"
    assert hand(state, 0)["Bull"] == 1
    state = standard()
    assert state.observation_dict(0)["hand_sizes"] == [10, 10, 9, 9]
    assert [hand(state, s) for s in range(4)] == STANDARD
    assert state.current_player() == 0
    assert state.public_history() == [(-1, -1, "Deal 1: all 38 cards are shuffled and dealt, 10 to seats 0 and 1 "
                                                "and 9 to seats 2 and 3")]


def test_seats_move_in_the_order_0_2_1_3_and_the_sides_alternate():
    state = standard()
    seen = []
    for _ in range(8):
        seen.append(state.current_player())
        assert state.legal_actions() == list(range(24))        # no offer pending: the 24 offers
        state.apply_action(action(PASS))
    assert seen == TURN_ORDER * 2


# ---- offers and trades ----------------------------------------------------------------------------
def test_an_offer_needs_the_cards_and_replaces_the_seats_earlier_offer():
    state = standard()
    play(state, "Offer_Wheat_4")                            # seat 0 holds 5 Wheat
    play(state, "Offer_Wheat_2")                            # seat 2 holds 1 Wheat: nothing happens
    play(state, "Offer_Barley_2", "Offer_Soyabeans_3")      # seats 1 and 3
    offers = [(o["trade"], o["seat"], o["commodity"], o["quantity"]) for o in state.observation_dict(2)["pending_offers"]]
    assert offers == [(1, 0, "Wheat", 4), (2, 1, "Barley", 2), (3, 3, "Soyabeans", 3)]
    play(state, "Offer_Corn_1")                             # seat 0 again: its offer moves to the end
    offers = [(o["trade"], o["seat"], o["commodity"], o["quantity"]) for o in state.observation_dict(2)["pending_offers"]]
    assert offers == [(1, 1, "Barley", 2), (2, 3, "Soyabeans", 3), (3, 0, "Corn", 1)]
    play(state, "Offer_Bull_1")                             # seat 2 has no Bull: seat 0's offer stays
    assert len(state.observation_dict(2)["pending_offers"]) == 3
    assert [h for h in (hand(state, s) for s in range(4))] == STANDARD   # offers move no card
    public = state.public_history()[1:]
    assert public[0] == (0, action("Offer_Wheat_4"), "Offer_Wheat_4")
    assert public[1] == (2, -1, "an offer of cards it does not hold (no effect)")


def test_a_trade_moves_the_offer_one_way_and_the_chosen_cards_back():
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3")
    # Seat 0 may accept trades 1 (seat 2) and 3 (seat 3), not trade 2 of its teammate.
    accepts = [a for a in state.legal_actions(0) if a >= 24]
    assert {(a - 24) // 54 + 1 for a in accepts} == {1, 3}
    # 2 Barley, 2 Corn, 1 Soyabeans, 5 Wheat: one id per kind and number held, for each acceptable trade.
    assert len(accepts) == 2 * 10
    play(state, "Accept_3_Barley_1")
    assert hand(state, 0) == {**STANDARD[0], "Soyabeans": 4, "Barley": 1}
    assert hand(state, 3) == {**STANDARD[3], "Soyabeans": 0, "Barley": 3}
    assert state.observation_dict(0)["hand_sizes"] == [12, 10, 9, 7]
    offers = [(o["trade"], o["seat"]) for o in state.observation_dict(2)["pending_offers"]]
    assert offers == [(1, 2), (2, 1)]                       # trade 3 used up; later trades renumbered
    # Seat 2 may accept only its opponent's trade 2.
    assert {(a - 24) // 54 + 1 for a in state.legal_actions(2) if a >= 24} == {2}
    assert state.public_history()[-1] == (0, -1, "Accept trade 3 (seat 3's offer of 3 Soyabeans), giving back 1 card")


def test_accepting_withdraws_the_acceptors_own_offer():
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", PASS, PASS, PASS)
    assert state.current_player() == 1
    play(state, "Accept_1_Bull_1")                          # seat 1 takes seat 2's Wheat for the Bull
    assert state.observation_dict(0)["pending_offers"] == []
    assert hand(state, 1)["Wheat"] == 3 and hand(state, 1)["Bull"] == 0 and hand(state, 2)["Bull"] == 1


@pytest.mark.parametrize("text", ["Accept_2_Barley_1",      # seat 0's teammate's offer
                                  "Accept_1_Barley_3",      # seat 0 holds 2 Barley
                                  "Accept_1_Bull_1",        # seat 0 holds no Bull
                                  "Accept_4_Corn_1"])       # there is no trade 4
def test_accepts_that_are_not_listed_are_illegal(text):
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3")
    before = state.observation_string(0)
    with pytest.raises(IllegalActionError):
        state.apply_action(action(text))
    assert state.observation_string(0) == before


def test_only_the_seat_to_move_acts_and_chance_outcomes_are_checked():
    state = game().new_initial_state()
    assert state.legal_actions(0) == []
    with pytest.raises(IllegalActionError):
        state.apply_action(6)                               # not a kind
    state = standard()
    assert state.legal_actions(2) == [] and state.text_action_spec(2) is None
    assert state.text_action_spec(0)["max_length"] == 4000 and "message" not in state.text_action_spec(0)
    assert state.default_action(0) is None


# ---- corners ----------------------------------------------------------------------------------------
def test_a_corner_scores_its_value_and_the_cards_are_dealt_again():
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3", "Accept_1_Corn_2")
    assert state.observation_dict(0)["points"] == [100, 0, 0, 0]
    assert state.is_chance_node()
    view = state.observation_dict(1)
    assert (view["deal"], view["cards_dealt"], view["pending_offers"], view["phase"]) == (2, 0, [], "dealing")
    assert state.public_history()[-1] == (-1, -1, "Seat 0 cornered Wheat with 6 Wheat: +100 points (side 0 now has 100).")
    deal(state, STANDARD)
    assert state.current_player() == TURN_ORDER[5 % 4]      # turns go on from where they were
    assert state.public_history()[-1][2].startswith("Deal 2:")


@pytest.mark.parametrize("hands,trade,points", [
    # 4 Wheat and the Bull take 2 Wheat: a double bull, 2 x 100; the Bear costs 20.
    (("4 Wheat, 1 Bull, 1 Bear, 2 Barley, 1 Corn, 1 Soyabeans", "1 Wheat, 3 Barley, 3 Corn, 3 Soyabeans",
      "3 Wheat, 2 Barley, 2 Corn, 2 Soyabeans", "1 Wheat, 2 Barley, 3 Corn, 3 Soyabeans"), 2, [180, 0, 0, 0]),
    # 3 Corn and the Bull take 2 Corn: a bull corner, 75.
    (("3 Corn, 1 Bull, 3 Barley, 3 Soyabeans", "3 Wheat, 2 Barley, 2 Corn, 3 Soyabeans",
      "3 Wheat, 2 Barley, 2 Corn, 2 Soyabeans", "3 Wheat, 2 Barley, 2 Corn, 1 Soyabeans, 1 Bear"), None, [75, 0, 0, 0]),
    # 5 Wheat jump to 7: "6 or more" corners it.
    (("5 Wheat, 2 Barley, 2 Corn, 1 Soyabeans", "2 Barley, 3 Corn, 4 Soyabeans, 1 Bull",
      "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans", "2 Wheat, 2 Barley, 2 Corn, 2 Soyabeans, 1 Bear"), 2, [100, 0, 0, 0]),
])
def test_bull_corner_double_bull_bear_penalty_and_a_jump_past_six(hands, trade, points):
    state = game().new_initial_state()
    deal(state, hands_from(*hands))
    commodity = "Corn" if trade is None else "Wheat"
    play(state, PASS, f"Offer_{commodity}_{trade or 2}", PASS, PASS, "Accept_1_Barley_1")
    assert state.observation_dict(0)["points"] == points
    corner = [e for e in state.result_details()["events"] if e["kind"] == "corner"]
    assert [(e["seat"], e["commodity"], e["points"]) for e in corner] == [(0, commodity, points[0])]
    assert corner[0]["double"] == (points[0] == 180)


def test_both_traders_corner_in_one_trade_and_both_score():
    state = game().new_initial_state()
    deal(state, hands_from("5 Wheat, 3 Corn, 1 Barley, 1 Soyabeans", "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans, 1 Bull",
                           "1 Wheat, 3 Corn, 3 Barley, 2 Soyabeans", "1 Wheat, 2 Barley, 1 Corn, 4 Soyabeans, 1 Bear"))
    play(state, PASS, "Offer_Wheat_1", PASS, PASS, "Accept_1_Corn_3")
    view = state.observation_dict(3)
    assert view["points"] == [100, 0, 75, 0] and view["side_points"] == [100, 75]
    assert [e["kind"] for e in view["recent"]][-2:] == ["corner", "corner"]


def test_a_corner_dealt_by_chance_scores_before_anyone_acts():
    state = game().new_initial_state()
    deal(state, hands_from("5 Wheat, 1 Bull, 1 Bear, 1 Barley, 1 Corn, 1 Soyabeans",
                           "1 Wheat, 3 Barley, 3 Corn, 3 Soyabeans", "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans",
                           "1 Wheat, 2 Barley, 3 Corn, 3 Soyabeans"))
    assert state.observation_dict(0)["points"] == [80, 0, 0, 0]     # 5 + Bull: 100, minus 20 for the Bear
    assert state.is_chance_node() and state.observation_dict(0)["deal"] == 2
    assert [e["kind"] for e in state.result_details()["events"]] == ["deal", "corner"]


# ---- the end and the returns ----------------------------------------------------------------------
def test_reaching_the_winning_score_ends_the_game_and_the_side_takes_everything():
    state = standard(winning_score=100)
    play(state, PASS, "Offer_Wheat_1", PASS, PASS, "Accept_1_Corn_2")
    assert state.is_terminal()
    assert state.returns() == [1.0, 1.0, 0.0, 0.0]
    assert state.observation_dict(2)["result"] == {"reason": "winning score", "shares": [1.0, 0.0], "winner": 0}
    assert state.public_history()[-1] == (-1, -1, "The game is over: a side reached the winning score (side 0 100, side 1 0).")


def test_the_turn_cap_ends_the_game_with_points_shares_or_halves():
    state = standard(max_turns=3)
    play(state, PASS, PASS, PASS)
    assert state.is_terminal() and state.returns() == [0.5] * 4
    assert "turn limit" in state.result_summary()
    state = game(max_turns=5).new_initial_state()
    deal(state, hands_from("5 Wheat, 3 Corn, 1 Barley, 1 Soyabeans", "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans, 1 Bull",
                           "1 Wheat, 3 Corn, 3 Barley, 2 Soyabeans", "1 Wheat, 2 Barley, 1 Corn, 4 Soyabeans, 1 Bear"))
    play(state, PASS, "Offer_Wheat_1", PASS, PASS, "Accept_1_Corn_3")
    assert state.is_terminal()                              # no redeal after the last turn's corners
    assert state.returns() == pytest.approx([100 / 175, 100 / 175, 75 / 175, 75 / 175])
    assert state.result_details()["result"]["reason"] == "turn limit"


# ---- parsing --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ('{"action": "Offer_Wheat_2", "openended_response": null}', "Offer_Wheat_2"),
    ("Offer_Wheat_2", "Offer_Wheat_2"),
    ("offer wheat 2", "Offer_Wheat_2"),
    ("Offer 2 Wheat", "Offer_Wheat_2"),
    ("I hold five. Offer_Corn_1? No: Offer_Soybeans_3.", "Offer_Soyabeans_3"),
    ('{"action": "Accept_1_Corn_2"}', "Accept_1_Corn_2"),
    ("Accept trade 3, offering 1 Barley", "Accept_3_Barley_1"),
    ('Thinking of Offer_Bull_1... {"action": "accept_1_wheat_5"}', "Accept_1_Wheat_5"),
])
def test_answers_in_gamebench_formats_parse(text, expected):
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3")
    assert state.parse_action(0, text) == action(expected)


@pytest.mark.parametrize("text,feedback", [
    ("I'll wait", "no action found"),
    ('{"action": "Explain(H1)"}', "no action found"),
    ("Offer_Wheat_5", "no action found"),
    ("Accept_2_Barley_1", "not an opposing pending offer"),
    ("Accept_1_Barley_3", "you hold 2 Barley"),
])
def test_garbage_and_illegal_answers_raise_with_feedback(text, feedback):
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3")
    with pytest.raises(ActionParseError, match=feedback):
        state.parse_action(0, text)
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(1, "Offer_Wheat_1")


def test_every_legal_action_text_and_description_parse_back():
    state = standard()
    play(state, PASS, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3")
    view = state.observation_dict(0)
    for a in state.legal_actions(0):
        text = state.action_to_string(0, a)
        assert state.parse_action(0, text) == a
        assert state.parse_action(0, view["actions"][text]) == a
    assert view["actions"]["Accept_3_Corn_2"] == "Accept trade 3, offering 2 Corn"


# ---- information ----------------------------------------------------------------------------------
def test_returned_cards_are_known_to_the_traders_only():
    state = standard()
    play(state, PASS)
    assert "Turn 1: you tried to offer 4 Bear without holding them: nothing happened." in state.observation_string(0)
    assert "Turn 1: seat 0 (your teammate) made no offer (it named cards it does not hold)." in state.observation_string(1)
    assert "4 Bear" not in state.observation_string(3) + str(state.observation_dict(3)) + str(state.public_history())
    play(state, "Offer_Wheat_1", "Offer_Barley_2", "Offer_Soyabeans_3", "Accept_3_Barley_1")
    lines = {seat: state.observation_string(seat) for seat in range(4)}
    assert "Turn 5: you accepted seat 3's offer of 3 Soyabeans (trade 3), giving back 1 Barley." in lines[0]
    assert "Turn 5: seat 0 accepted your offer of 3 Soyabeans (trade 3), giving back 1 Barley." in lines[3]
    for seat in (1, 2):
        assert "giving back 1 card." in lines[seat] and "1 Barley." not in lines[seat]
        assert state.observation_dict(seat)["recent"][-1]["returned_commodity"] is None


def test_a_seats_view_never_depends_on_what_it_cannot_see():
    rng = random.Random(3)
    state = game().new_initial_state()
    changed = 0
    for step in range(400):
        if state.is_terminal():
            break
        if step % 7 == 0:
            for seat in range(4):
                view = (state.observation_string(seat), state.observation_dict(seat), state.public_history(),
                        state.legal_actions(seat))
                for sample in range(3):
                    other = state.resample_hidden(seat, 100 * step + sample)
                    assert (other.observation_string(seat), other.observation_dict(seat), other.public_history(),
                            other.legal_actions(seat)) == view
                    changed += any(hand(other, s) != hand(state, s) for s in range(4) if s != seat)
        state.step_randomly(rng)
    assert changed > 50


def check_resampled(state, other, seat: int) -> None:
    view = state.observation_dict(seat)
    sizes = view["hand_sizes"]
    hands = [hand(other, s) for s in range(4)]
    assert hands[seat] == view["hand"]
    assert [sum(h.values()) for h in hands] == sizes
    held = {k: sum(h[k] for h in hands) for k in KINDS}
    assert all(held[k] <= TOTAL[k] for k in KINDS)
    if view["phase"] == "trading":
        assert held == TOTAL
        for h in hands:
            for c in VALUES:
                assert h[c] < 6 and not (h[c] == 5 and h["Bull"])
        for offer in view["pending_offers"]:
            assert hands[offer["seat"]][offer["commodity"]] >= offer["quantity"]
    else:
        assert sum(held.values()) == view["cards_dealt"]
        # The undealt cards are the rest of the deck.
        assert sorted(k for k, _ in other.chance_outcomes()) == [i for i, k in enumerate(KINDS) if held[k] < TOTAL[k]]


def test_resampling_keeps_sizes_offers_the_seats_hand_and_leaves_no_corner():
    for seed in range(6):
        rng = random.Random(seed)
        state = game().new_initial_state()
        for step in range(300):
            if state.is_terminal():
                break
            if step % 5 == 0:
                for seat in range(4):
                    check_resampled(state, state.resample_hidden(seat, step), seat)
            state.step_randomly(rng)


def test_state_from_view_rebuilds_each_seats_view_late_in_the_game_and_at_the_end():
    g = game(winning_score=300)
    for seed in range(4):
        rng = random.Random(seed)
        state = g.new_initial_state()
        step = 0
        while True:
            if step % 13 == 0 or state.is_terminal():
                for seat in range(4):
                    view = state.observation_dict(seat)
                    rebuilt = g.state_from_view(seat, view)
                    assert rebuilt.observation_string(seat) == state.observation_string(seat)
                    assert rebuilt.observation_dict(seat) == view
                    assert rebuilt.current_player() == state.current_player()
                    assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                    assert rebuilt.move_number == state.move_number
                    if not state.is_terminal():
                        check_resampled(state, rebuilt, seat)
            if state.is_terminal():
                break
            state.step_randomly(rng)
            step += 1


def test_a_clone_is_independent():
    state = standard()
    before = [state.observation_string(s) for s in range(4)], state.public_history()
    copy = state.clone()
    play(copy, PASS, "Offer_Wheat_1", PASS, PASS, "Accept_1_Corn_2")
    assert copy.is_chance_node()
    assert ([state.observation_string(s) for s in range(4)], state.public_history()) == before
    assert state.current_player() == 0


def test_public_history_only_grows_and_names_no_returned_kind():
    rng = random.Random(11)
    state = game().new_initial_state()
    previous = []
    while not state.is_terminal():
        state.step_randomly(rng)
        public = state.public_history()
        assert public[:len(previous)] == previous
        previous = public
    trades = [e for e in state.result_details()["events"] if e["kind"] == "trade"]
    texts = [text for seat, _, text in previous if text.startswith("Accept trade")]
    assert len(trades) == len(texts) > 0
    for event, text in zip(trades, texts):
        assert text.endswith(f"giving back {event['returned_quantity']} card{'s' if event['returned_quantity'] > 1 else ''}")
    assert all(action < 24 for seat, action, _ in previous if action >= 0)


# ---- random playouts against a plain re-implementation ----------------------------------------------
class Model:
    """The rules written out plainly, fed the same chance outcomes and actions as the engine."""

    def __init__(self, corner_size: int, winning_score: int, max_turns: int):
        self.k, self.target, self.cap = corner_size, winning_score, max_turns
        self.points = [0] * 4
        self.turns = 0
        self.over = False
        self.new_deal()

    def new_deal(self):
        self.hands = [dict.fromkeys(KINDS, 0) for _ in range(4)]
        self.dealt = 0
        self.offers = []                    # [seat, kind, qty], oldest first

    def seat(self):
        return TURN_ORDER[self.turns % 4]

    def legal(self):
        me = self.seat()
        ids = list(range(24))
        for t, (proposer, _, _) in enumerate(self.offers):
            if proposer // 2 != me // 2:
                ids += [24 + 54 * t + 9 * k + q - 1 for k, kind in enumerate(KINDS) for q in range(1, self.hands[me][kind] + 1)]
        return ids

    def corners(self):
        found = False
        for s, h in enumerate(self.hands):
            for c in VALUES:
                if h[c] >= self.k or (h[c] == self.k - 1 and h["Bull"]):
                    self.points[s] += VALUES[c] * (2 if h[c] >= self.k and h["Bull"] else 1) - 20 * h["Bear"]
                    found = True
        return found

    def settle(self, cornered):
        if max(self.points[0] + self.points[1], self.points[2] + self.points[3]) >= self.target:
            self.over = True
        elif self.turns >= self.cap:
            self.over = True
        elif cornered:
            self.new_deal()

    def chance(self, kind: int):
        self.hands[self.dealt % 4][KINDS[kind]] += 1
        self.dealt += 1
        if self.dealt == 38:
            self.settle(self.corners())

    def act(self, a: int):
        me = self.seat()
        cornered = False
        if a < 24:
            kind, qty = KINDS[a // 4], a % 4 + 1
            if self.hands[me][kind] >= qty:
                self.offers = [o for o in self.offers if o[0] != me] + [[me, kind, qty]]
        else:
            t, kind, qty = (a - 24) // 54, KINDS[(a - 24) % 54 // 9], (a - 24) % 9 + 1
            proposer, offered, n = self.offers[t]
            self.hands[proposer][offered] -= n
            self.hands[me][offered] += n
            self.hands[me][kind] -= qty
            self.hands[proposer][kind] += qty
            self.offers = [o for o in self.offers if o[0] not in (proposer, me)]
            cornered = self.corners()
        self.turns += 1
        self.settle(cornered)

    def returns(self):
        a, b = self.points[0] + self.points[1], self.points[2] + self.points[3]
        return [0.5] * 4 if a + b == 0 else [a / (a + b)] * 2 + [b / (a + b)] * 2


@pytest.mark.parametrize("overrides", [{}, {"corner_size": 5, "winning_score": 800}, {"max_turns": 60}])
def test_random_playouts_follow_the_plain_rules(overrides):
    g = game(**overrides)
    for seed in range(12):
        rng = random.Random(seed)
        state = g.new_initial_state()
        model = Model(g.parameters["corner_size"], g.parameters["winning_score"], g.parameters["max_turns"])
        while not state.is_terminal():
            assert not model.over
            if state.is_chance_node():
                kinds = [k for k, _ in state.chance_outcomes()]
                assert kinds == [i for i, k in enumerate(KINDS) if sum(h[k] for h in model.hands) < TOTAL[k]]
                kind = rng.choice(kinds)
                state.apply_action(kind)
                model.chance(kind)
                continue
            seat = state.current_player()
            assert seat == model.seat()
            legal = state.legal_actions()
            assert legal == model.legal()
            view = state.observation_dict(seat)
            assert view["hand"] == model.hands[seat] and view["points"] == model.points
            assert [[o["seat"], o["commodity"], o["quantity"]] for o in view["pending_offers"]] == model.offers
            a = rng.choice(legal)
            state.apply_action(a)
            model.act(a)
        assert model.over
        assert state.result_details()["hands"] == model.hands or model.dealt < 38
        assert state.returns() == pytest.approx(model.returns())
