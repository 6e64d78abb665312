"""Heads-up no-limit hold'em: the deal, blinds and acting order, the abstraction's raise rules, all-ins
and run-outs, hand ranking with kickers and split pots, the parser, hidden information (leak test,
resampling, rebuilding from a view), equity, and seeded random playouts checked against a simple
re-implementation of the rules written here."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError
from arena_engines.texas_holdem_no_limit import (card_id, card_name, describe_hand, evaluate_hand, hand_category,
                                                 hand_equity)

GAME = "texas_holdem_no_limit"
FOLD, CALL, HALF, POT, ALL_IN = range(5)
LABELS = ["Fold", "Check and Call", "Raise Half Pot", "Raise Full Pot", "All in"]
SUIT_LETTERS = {"s": "Spades", "h": "Hearts", "d": "Diamonds", "c": "Clubs"}


def c(short: str) -> int:
    """A card id from shorthand: "As" Spades A, "Td" Diamonds 10, "7c" Clubs 7."""
    rank = "10" if short[0] == "T" else short[0]
    return card_id(f"{SUIT_LETTERS[short[1]]} {rank}")


def cs(shorthand: str) -> list[int]:
    return [c(s) for s in shorthand.split()]


def new_state(**parameters):
    return load_game(GAME, parameters).new_initial_state()


def start(dealer: int, hole0: str, hole1: str, **parameters):
    """A hand with `dealer` and the given hole cards, dealt seat 0, seat 1, seat 0, seat 1."""
    state = new_state(**parameters)
    state.apply_action(dealer)
    (a0, b0), (a1, b1) = cs(hole0), cs(hole1)
    for card in (a0, a1, b0, b1):
        assert state.is_chance_node()
        state.apply_action(card)
    return state


def advance(state, actions=(), board=""):
    """Applies betting `actions` and deals `board` cards whenever the state asks for them."""
    actions, cards = list(actions), cs(board)
    while not state.is_terminal() and (actions or (cards and state.is_chance_node())):
        if state.is_chance_node():
            state.apply_action(cards.pop(0))
        else:
            state.apply_action(actions.pop(0))
    assert not actions, "the hand ended before every action was played"
    return state


def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


# ---- the deal -------------------------------------------------------------------------------------
def test_the_dealer_then_one_card_per_chance_node():
    state = new_state()
    assert state.current_player() == -1 and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.observation_dict(0)["dealer"] is None and state.public_history() == []
    state.apply_action(1)
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(52)) and all(p == pytest.approx(1 / 52) for _, p in outcomes)
    state.apply_action(c("As"))
    assert c("As") not in [a for a, _ in state.chance_outcomes()] and len(state.chance_outcomes()) == 51
    with pytest.raises(IllegalActionError):
        state.apply_action(c("As"))
    for card in cs("Kd Ah Kc"):
        state.apply_action(card)
    assert not state.is_chance_node()
    assert state.observation_dict(0)["hole_cards"] == ["Spades A", "Hearts A"]
    assert state.observation_dict(1)["hole_cards"] == ["Diamonds K", "Clubs K"]


def test_card_names_are_llmarenas():
    assert [card_name(i) for i in (0, 8, 12, 13, 51)] == ["Spades 2", "Spades 10", "Spades A", "Hearts 2", "Clubs A"]
    assert all(card_id(card_name(i)) == i for i in range(52))
    with pytest.raises(ValueError):
        card_id("Spades 1")


# ---- blinds and acting order ------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", [0, 1])
def test_the_dealer_posts_the_small_blind_and_acts_first_pre_flop_only(dealer):
    other = 1 - dealer
    state = start(dealer, "As Ks", "2d 7c")
    view = state.observation_dict(0)
    assert (view["dealer"], view["small_blind_seat"], view["big_blind_seat"]) == (dealer, dealer, other)
    assert view["chips_in"][dealer] == 1 and view["chips_in"][other] == 2 and view["pot"] == 3
    assert view["chips_left"][dealer] == 99 and view["chips_left"][other] == 98
    assert state.current_player() == dealer and state.observation_dict(dealer)["to_call"] == 1
    state.apply_action(CALL)                        # the small blind completes
    # The big blind has its option: check, or raise.
    assert state.current_player() == other and state.legal_actions() == [FOLD, CALL, HALF, POT, ALL_IN]
    state.apply_action(CALL)                        # a check ends the pre-flop round
    for _ in range(3):
        assert state.is_chance_node()
        state.apply_action(state.chance_outcomes()[0][0])
    for street in ("flop", "turn", "river"):
        assert state.observation_dict(0)["stage"] == street
        assert state.current_player() == other      # the big blind acts first after the flop
        state.apply_action(CALL)
        assert state.current_player() == dealer
        state.apply_action(CALL)
        if street != "river":
            assert state.is_chance_node()
            state.apply_action(state.chance_outcomes()[0][0])
    assert state.is_terminal()


@pytest.mark.parametrize("dealer", [0, 1])
def test_rlcard_seating_puts_the_big_blind_on_the_dealer_and_the_small_blind_first_everywhere(dealer):
    other = 1 - dealer
    state = start(dealer, "As Ks", "2d 7c", rlcard_seating=True)
    view = state.observation_dict(0)
    assert (view["small_blind_seat"], view["big_blind_seat"]) == (other, dealer)
    assert view["chips_in"][other] == 1 and view["chips_in"][dealer] == 2
    assert state.current_player() == other
    advance(state, [CALL, CALL], "2s 3s 4h")
    assert state.current_player() == other          # the seat after the dealer starts the flop
    advance(state, [CALL, CALL], "5h")
    assert state.current_player() == other


def test_blind_parameters():
    state = start(0, "As Ks", "2d 7c", small_blind=5, big_blind=10, chips_0=300, chips_1=200)
    view = state.observation_dict(1)
    assert view["chips_in"] == [5, 10] and view["chips_left"] == [295, 190] and view["blinds"] == [5, 10]
    assert "seat 0 starts with 300 chips, seat 1 with 200 chips; blinds 5/10" in state.observation_string(1)


# ---- the raise rules of the abstraction ---------------------------------------------------------
def test_raise_amounts_and_the_minimum_raise_rule_worked_by_hand():
    state = start(0, "As Ks", "2d 7c")
    # Pot 3, seat 0 owes 1: half the pot (1) would only call, so it is not a raise and not legal.
    assert state.legal_actions() == [FOLD, CALL, POT, ALL_IN]
    options = {o["text"]: o["chips"] for o in state.observation_dict(0)["options"]}
    assert options == {"Fold": 0, "Check and Call": 1, "Raise Full Pot": 3, "All in": 99}
    state.apply_action(CALL)                        # pot 4, bets 2/2
    # Nothing to call: half the pot (2) raises.
    assert state.legal_actions() == [FOLD, CALL, HALF, POT, ALL_IN]
    state.apply_action(HALF)                        # seat 1 puts in 2: bets 2/4, pot 6
    assert state.observation_dict(0)["round_bets"] == [2, 4] and state.observation_dict(0)["to_call"] == 2
    # Seat 0 owes 2; half the pot is 3 > 2, a raise of just 1 over the bet: no other minimum applies.
    assert state.legal_actions() == [FOLD, CALL, HALF, POT, ALL_IN]
    state.apply_action(HALF)                        # seat 0 puts in 3: bets 5/4, pot 9
    assert state.observation_dict(0)["chips_in"] == [5, 4] and state.observation_dict(0)["pot"] == 9
    state.apply_action(POT)                         # seat 1 puts in 9: bets 5/13, pot 18
    assert state.observation_dict(0)["chips_in"] == [5, 13]
    state.apply_action(CALL)                        # seat 0 calls 8
    assert state.observation_dict(0)["chips_in"] == [13, 13] and state.is_chance_node()


def test_raises_need_the_chips_and_a_call_of_everything_leaves_fold_or_call():
    state = start(0, "As Ks", "2d 7c", chips_0=10, chips_1=10)
    state.apply_action(POT)                         # seat 0 puts in 3: bets 4/2, pot 6
    assert state.legal_actions() == [FOLD, CALL, HALF, POT, ALL_IN]
    state.apply_action(POT)                         # seat 1 puts in 6: bets 4/8, pot 12, 2 left
    view = state.observation_dict(0)
    assert view["chips_left"] == [6, 2] and view["to_call"] == 4
    # Seat 0 has 6: half the pot (6) fits, the full pot (12) does not.
    assert state.legal_actions() == [FOLD, CALL, HALF, ALL_IN]
    state.apply_action(ALL_IN)                      # 6 in: bets 10/8
    # Seat 1 would need 2 to call and has exactly 2: it calls or folds.
    assert state.legal_actions() == [FOLD, CALL]
    assert "Check and Call (call with your last 2 chips)" in state.observation_string(1)


def test_fold_is_legal_even_when_checking_is_free():
    state = advance(start(0, "As Ks", "2d 7c"), [CALL])
    assert state.observation_dict(1)["to_call"] == 0 and FOLD in state.legal_actions()
    state.apply_action(FOLD)
    assert state.returns() == [2.0, -2.0]


@pytest.mark.parametrize("actions,returns,summary", [
    ([FOLD], [-1.0, 1.0], "seat 1 wins 1 chip: seat 0 folded"),             # the small blind gives up
    ([POT, FOLD], [2.0, -2.0], "seat 0 wins 2 chips: seat 1 folded"),       # the big blind folds to a raise
    ([CALL, CALL, HALF, FOLD], [-2.0, 2.0], "seat 1 wins 2 chips: seat 0 folded"),
])
def test_folds_cost_what_the_folder_put_in(actions, returns, summary):
    state = advance(start(0, "As Ks", "2d 7c"), actions, "2s 3s 4h")
    assert state.is_terminal() and state.returns() == returns and state.result_summary() == summary
    details = state.result_details()
    assert details["showdown"] is False and details["winners"] == [0 if returns[0] > 0 else 1]
    assert details["hands"] is None


def test_a_full_hand_worked_by_hand():
    # Dealer 1 posts the small blind and opens; seat 0 is the big blind.
    state = start(1, "Kh Kd", "Qs Js")
    state.apply_action(POT)                         # seat 1 puts in 3: bets 2/4, pot 6
    state.apply_action(CALL)                        # seat 0 calls 2: pot 8
    advance(state, [], "Ks 7s 2c")
    assert state.current_player() == 0             # the big blind opens the flop
    state.apply_action(HALF)                        # 4 in: pot 12
    state.apply_action(CALL)                        # pot 16
    advance(state, [], "3d")
    state.apply_action(CALL)                        # check
    state.apply_action(POT)                         # seat 1 puts in 16: pot 32
    state.apply_action(CALL)                        # seat 0 calls 16: pot 48
    advance(state, [], "9s")                        # seat 1 makes a spade flush on the river
    state.apply_action(CALL)
    state.apply_action(CALL)
    assert state.is_terminal()
    assert state.observation_dict(0)["chips_in"] == [24, 24]
    assert state.returns() == [-24.0, 24.0]
    assert state.result_details()["hands"] == ["three of a kind (K K K 9 7)", "flush (K Q J 9 7)"]
    assert state.result_summary() == "seat 1 wins 24 chips at showdown (flush (K Q J 9 7) beats three of a " \
                                     "kind (K K K 9 7))"
    text = state.observation_string(0)
    assert "Betting flop: you: Raise Half Pot (4 chips); your opponent: Check and Call (call, 4 chips)." in text
    assert "Showdown: your opponent shows Spades Q, Spades J." in text and "you lose 24 chips" in text


def test_split_pot_when_both_play_the_board():
    state = advance(start(0, "2c 3d", "2d 3c"), [CALL] * 8, "As Ks Qs Js Ts")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.result_details()["winners"] == [0, 1]
    assert state.result_summary() == "split pot: both seats hold royal flush (A K Q J 10)"
    assert "the pot is split" in state.observation_string(1)


# ---- all in -------------------------------------------------------------------------------------
def test_all_in_called_before_the_flop_deals_the_whole_board_without_betting():
    state = start(0, "As Ad", "Kc Kh")
    state.apply_action(ALL_IN)
    assert state.legal_actions() == [FOLD, CALL]
    state.apply_action(CALL)
    for expected_board in range(5):
        assert state.is_chance_node() and len(state.observation_dict(0)["board"]) == expected_board
        state.apply_action(cs("2s 7h 9d Jc 3h")[expected_board])
    assert state.is_terminal() and state.returns() == [100.0, -100.0]


def test_all_in_on_the_turn_deals_the_river():
    state = advance(start(1, "9h 9d", "Ac Kc"), [CALL, CALL], "9s 4c 2c")
    advance(state, [CALL, CALL], "Jd")
    advance(state, [ALL_IN, CALL])                 # seat 0 (big blind) shoves the turn, seat 1 calls
    assert state.is_chance_node()
    advance(state, [], "Qc")                       # the river makes seat 1's club flush
    assert state.is_terminal() and state.returns() == [-100.0, 100.0]


@pytest.mark.parametrize("board,returns", [
    ("2s 7h 9d Jc 3h", [40.0, -40.0]),     # seat 0's aces hold: it wins only what seat 1 could match
    ("Kd 7h 9d Jc 3h", [-40.0, 40.0]),     # seat 1's set of kings: it wins its 40, not 100
])
def test_an_all_in_caller_with_fewer_chips(board, returns):
    state = start(0, "As Ad", "Kc Kh", chips_0=100, chips_1=40)
    state.apply_action(ALL_IN)                      # seat 0 puts in 99: 100 in
    # Seat 1 owes 98 and has 38: calling is all it can do (or fold).
    assert state.legal_actions() == [FOLD, CALL]
    state.apply_action(CALL)
    assert state.observation_dict(0)["chips_in"] == [100, 40]
    assert state.observation_dict(1)["betting"][-1] == {"seat": 1, "stage": "pre-flop", "action": CALL,
                                                        "text": "Check and Call", "chips": 38}
    advance(state, [], board)
    assert state.is_terminal() and state.returns() == returns


def test_nobody_raises_an_all_in_opponent():
    state = start(0, "As Ad", "Kc Kh", chips_0=100, chips_1=40)
    advance(state, [CALL, ALL_IN])                  # the short stack shoves 38 more: bets 2/40
    view = state.observation_dict(0)
    assert view["to_call"] == 38 and view["chips_left"] == [98, 0]
    assert state.legal_actions() == [FOLD, CALL]   # seat 0 could afford raises, but seat 1 cannot answer


# ---- hand ranking ---------------------------------------------------------------------------------
RANKED = [   # strongest first, each worked by hand
    ("As Ks Qs Js Ts 2d 3c", "royal flush (A K Q J 10)"),
    ("9h 8h 7h 6h 5h Ah Ad", "straight flush (9 8 7 6 5)"),
    ("6c 2c 3c 4c 5c Kd Kh", "straight flush (6 5 4 3 2)"),
    ("Ac 2c 3c 4c 5c Kd Kh", "straight flush (5 4 3 2 A)"),        # the steel wheel is the lowest
    ("Qs Qh Qd Qc As 2h 3d", "four of a kind (Q Q Q Q A)"),
    ("Qs Qh Qd Qc 9s 9h 2d", "four of a kind (Q Q Q Q 9)"),        # a pair cannot beat the kicker
    ("Js Jh Jd 4c 4d Ah Ad", "full house (J J J A A)"),
    ("Jh Jd Js 4c 4d 4h 2s", "full house (J J J 4 4)"),            # two triples: the lower is the pair
    ("Th Td Ts Ac Ad 2h 3s", "full house (10 10 10 A A)"),
    ("Kd Jd 9d 6d 4d 2d Ac", "flush (K J 9 6 4)"),                 # six diamonds: the best five
    ("Kd Jd 9d 6d 3d 2d Ac", "flush (K J 9 6 3)"),
    ("Ah Kd Qc Js Th 2d 2c", "straight (A K Q J 10)"),
    ("Ts 9h 8d 7c 6s 5h 2d", "straight (10 9 8 7 6)"),
    ("6s 2h 3d 4c 5s Ah Kd", "straight (6 5 4 3 2)"),
    ("Ah 2d 3c 4s 5h 9d Kc", "straight (5 4 3 2 A)"),              # the wheel is the lowest straight
    ("7s 7h 7d Ac Qd 4s 2h", "three of a kind (7 7 7 A Q)"),
    ("7s 7h 7d Ac Jd 4s 2h", "three of a kind (7 7 7 A J)"),
    ("Ks Kh 8d 8c 5s 5h Qd", "two pair (K K 8 8 Q)"),
    ("Ks Kh 8d 8c 5s 5h 2d", "two pair (K K 8 8 5)"),              # a third pair gives the kicker
    ("Ks Kh 7d 7c Qs 5h 2d", "two pair (K K 7 7 Q)"),              # lower second pair
    ("9s 9h Ad Jc 6s 4h 2d", "one pair (9 9 A J 6)"),
    ("9s 9h Ad Jc 5s 4h 2d", "one pair (9 9 A J 5)"),              # third kicker
    ("8s 8h Ad Kc Qs 4h 2d", "one pair (8 8 A K Q)"),
    ("As Qh 9d 7c 5s 3h 2d", "high card (A Q 9 7 5)"),
    ("As Qh 9d 7c 4s 3h 2d", "high card (A Q 9 7 4)"),             # the fifth card decides
    ("Ks Qh Jd 9c 7s 3h 2d", "high card (K Q J 9 7)"),
]


def test_every_category_and_kicker_ranks_as_the_reference_lists():
    values = [evaluate_hand(cs(hand)) for hand, _ in RANKED]
    assert [describe_hand(v) for v in values] == [text for _, text in RANKED]
    assert all(a > b for a, b in pairwise(values)), "each hand beats the next"
    assert hand_category(values[0]) == "royal flush" and hand_category(values[1]) == "straight flush"


@pytest.mark.parametrize("first,second", [
    ("As Kd 7h 7c 2s", "Ah Kc 7d 7s 2h"),             # suits never break ties
    ("2c 3d Ks Kh 9d 9c Ac", "4h 5h Ks Kh 9d 9c Ac"),  # both play the two pair and the ace on the board
    ("Ah Kh 2c 3c 4d 5d 6s", "Ad Qd 2c 3c 4d 5d 6s"),  # both play the board's straight
    ("2c 2d 8h 8s 8d 8c Ks", "3c 3d 8h 8s 8d 8c Ks"),  # quads on board, king kicker for both
])
def test_equal_hands_tie(first, second):
    assert evaluate_hand(cs(first)) == evaluate_hand(cs(second))


def test_evaluator_refuses_impossible_hands():
    for bad in (cs("As Ks Qs Js"), cs("As Ks Qs Js Ts 9s 8s 7s"), cs("As As Qs Js Ts")):
        with pytest.raises(ValueError):
            evaluate_hand(bad)


# ---- equity ---------------------------------------------------------------------------------------
def test_monte_carlo_equity_matches_known_values():
    # Pre-flop equities against one random hand: aces about 85%, seven-deuce offsuit about 35%.
    assert hand_equity(["Spades A", "Hearts A"], samples=10_000, seed=1) == pytest.approx(0.852, abs=0.015)
    assert hand_equity(cs("7c 2d"), samples=10_000, seed=1) == pytest.approx(0.346, abs=0.015)
    assert hand_equity(cs("As Ks"), cs("Qs Js Ts"), samples=500) == 1.0         # a made royal flush
    assert hand_equity(cs("2c 3d"), cs("As Ks Qs Js Ts"), samples=500) == 0.5    # the board ties everyone
    assert hand_equity(cs("7c 2d"), samples=2000, seed=4) == hand_equity(cs("7c 2d"), samples=2000, seed=4)
    with pytest.raises(ValueError):
        hand_equity(cs("7c 7c"))


# ---- parsing --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ("Action: Check and Call", CALL),
    ("action: fold", FOLD),
    ("ACTION:RAISE HALF POT", HALF),
    ("I hold aces, so I will raise.\nAction: Raise Full Pot\nThis builds the pot.", POT),
    ("Action: All in", ALL_IN),
    ("Action: all-in", ALL_IN),
    ("Action:  Check   and  Call", CALL),
    ("Action: Fold, no wait. Action: All in", FOLD),                 # the first action line, as LLMArena
    ("Options: Fold or Raise Full Pot. Action: Check and Call", CALL),
    ("Check and Call", CALL),                                         # the canonical text alone
    ("  raise full pot. ", POT),
])
def test_parser_reads_llmarenas_action_line(text, action):
    assert start(0, "As Ks", "2d 7c").parse_action(0, text) == action


def test_a_label_that_is_not_legal_now_is_still_read_for_the_referee():
    state = start(0, "As Ks", "2d 7c")
    assert HALF not in state.legal_actions()
    assert state.parse_action(0, "Action: Raise Half Pot") == HALF


@pytest.mark.parametrize("text", ["", "I call.", "Action: raise", "Action: Check", "Fold or call?",
                                  "Action: all inclusive", "Check and Call because I can"])
def test_parser_refuses_answers_without_an_action_line(text):
    with pytest.raises(ActionParseError) as refused:
        start(0, "As Ks", "2d 7c").parse_action(0, text)
    assert "Action: Check and Call" in str(refused.value)


@settings(max_examples=100, deadline=None)
@given(text=st.one_of(st.text(max_size=80), st.text(alphabet="Action: FoldCheckandCallRaiseHalfPotFullAllin-\n",
                                                    max_size=60)))
def test_parser_returns_an_action_id_or_refuses(text):
    try:
        action = start(0, "As Ks", "2d 7c").parse_action(0, text)
    except ActionParseError:
        return
    assert action in range(5)


def test_texts_spec_and_default():
    state = start(0, "As Ks", "2d 7c")
    assert [state.action_to_string(0, a) for a in range(5)] == LABELS
    with pytest.raises(ValueError):
        state.action_to_string(0, 5)
    spec = state.text_action_spec(0)
    assert spec["forbidden_words"] == [] and spec["max_length"] >= 1000
    assert "Fold, Check and Call, Raise Full Pot, All in" in spec["description"]
    assert state.text_action_spec(1) is None
    assert state.default_action(0) is None
    assert game_spec(GAME).accepts_text_actions


# ---- information ----------------------------------------------------------------------------------
SCRIPTS = [          # (actions, board): hands that end in every way, and unfinished ones
    ([], ""),
    ([CALL], ""),
    ([POT, FOLD], ""),
    ([CALL, CALL], "2s 3s"),
    ([CALL, CALL, HALF, CALL], "2s 3s 9h 4c"),
    ([CALL, CALL, CALL, POT, FOLD], "2s 3s 9h"),
    ([ALL_IN, CALL], "2s 3s 9h 4c"),
]


@pytest.mark.parametrize("actions,board", SCRIPTS)
def test_leak_a_seat_views_do_not_depend_on_the_opponent_hole_cards(actions, board):
    # Seat 0 holds the same cards in both hands; only seat 1's differ.
    first = advance(start(1, "As Ks", "Qd Qc"), actions, board)
    second = advance(start(1, "As Ks", "7h 2c"), actions, board)
    assert views(first, 0) == views(second, 0)
    assert first.legal_actions(0) == second.legal_actions(0)
    assert views(first, 1) != views(second, 1)
    # And seat 1's views when only seat 0's cards differ.
    assert views(advance(start(1, "As Ks", "Qd Qc"), actions, board), 1) == \
        views(advance(start(1, "Ah 8d", "Qd Qc"), actions, board), 1)


def test_leak_during_the_deal():
    first, second = new_state(), new_state()
    for state, card in ((first, c("As")), (second, c("2d"))):
        state.apply_action(0)
        state.apply_action(card)
    assert views(first, 1) == views(second, 1) and views(first, 0) != views(second, 0)
    assert first.public_history()[-1] == (-1, -1, "a hole card is dealt to seat 0")


def test_showdown_shows_both_hands_and_a_fold_shows_none():
    shown = advance(start(0, "As Ks", "Qd Qc"), [ALL_IN, CALL], "2s 3s 9h 4c 5d")
    assert shown.observation_dict(0)["opponent_hole_cards"] == ["Diamonds Q", "Clubs Q"]
    assert shown.observation_dict(1)["opponent_hole_cards"] == ["Spades A", "Spades K"]
    assert shown.public_history()[-1] == (-1, -1, "showdown: seat 0 shows Spades A, Spades K: straight (5 4 3 2 A); "
                                                  "seat 1 shows Diamonds Q, Clubs Q: one pair (Q Q 9 5 4)")
    assert shown.returns() == [100.0, -100.0]                   # the wheel beats the queens
    folded = advance(start(0, "As Ks", "Qd Qc"), [POT, FOLD])
    assert folded.observation_dict(0)["opponent_hole_cards"] is None
    assert "Qd" not in json.dumps(folded.public_history()) and "Diamonds Q" not in folded.observation_string(0)
    assert folded.result_details()["hole_cards"] == [["Spades A", "Spades K"], ["Diamonds Q", "Clubs Q"]]


def test_public_history_is_the_public_record_in_order():
    state = advance(start(1, "As Ks", "Qd Qc"), [CALL, CALL, HALF, CALL], "2s 3s 9h 4c")
    assert state.public_history() == [
        (-1, 1, "seat 1 is the dealer"),
        (-1, -1, "seat 1 posts the small blind (1 chip)"),
        (-1, -1, "seat 0 posts the big blind (2 chips)"),
        (-1, -1, "a hole card is dealt to seat 0"),
        (-1, -1, "a hole card is dealt to seat 1"),
        (-1, -1, "a hole card is dealt to seat 0"),
        (-1, -1, "a hole card is dealt to seat 1"),
        (1, CALL, "Check and Call (call, 1 chip)"),
        (0, CALL, "Check and Call (check)"),
        (-1, c("2s"), "flop: Spades 2"),
        (-1, c("3s"), "flop: Spades 3"),
        (-1, c("9h"), "flop: Hearts 9"),
        (0, HALF, "Raise Half Pot (2 chips)"),
        (1, CALL, "Check and Call (call, 2 chips)"),
        (-1, c("4c"), "turn: Clubs 4"),
    ]


def test_resample_hidden_redraws_only_the_opponent_hole_cards():
    state = advance(start(0, "As Ks", "Qd Qc"), [CALL, CALL], "2s 3s 9h")
    seen = Counter()
    for seed in range(200):
        copy = state.resample_hidden(0, seed)
        details = copy.result_details()
        assert details["hole_cards"][0] == ["Spades A", "Spades K"]
        assert details["board"] == ["Spades 2", "Spades 3", "Hearts 9"]
        opponent = details["hole_cards"][1]
        assert len(set(opponent)) == 2 and not set(opponent) & {"Spades A", "Spades K", "Spades 2", "Spades 3",
                                                                   "Hearts 9"}
        assert views(copy, 0) == views(state, 0) and copy.legal_actions() == state.legal_actions()
        seen.update(opponent)
    assert len(seen) > 40                                       # drawn from the 47 unseen cards
    assert state.result_details()["hole_cards"][1] == ["Diamonds Q", "Clubs Q"]   # the original is untouched


def test_resample_hidden_before_the_seat_has_cards_and_after_a_showdown():
    state = new_state()
    state.apply_action(1)
    state.apply_action(c("As"))                                 # seat 0's first card; seat 1 has none
    drawn = set()
    for seed in range(60):
        copy = state.resample_hidden(1, seed)
        assert views(copy, 1) == views(state, 1) and copy.is_chance_node()
        drawn.update(copy.result_details()["hole_cards"][0])
    assert len(drawn) > 30                                      # any of the 52 cards
    shown = advance(start(0, "As Ks", "Qd Qc"), [ALL_IN, CALL], "2s 3s 9h 4c 5d")
    for seed in range(10):
        assert shown.resample_hidden(0, seed).result_details() == shown.result_details()


# ---- random playouts against a re-implementation of the rules -------------------------------------
def five_card_key(cards: list[int]) -> tuple:
    """The strength of exactly five cards, written independently of the engine's evaluator."""
    ranks = sorted((card % 13 for card in cards), reverse=True)
    counts = Counter(ranks)
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({card // 13 for card in cards}) == 1
    straight_top = None
    if len(counts) == 5 and ranks[0] - ranks[4] == 4:
        straight_top = ranks[0]
    elif ranks == [12, 3, 2, 1, 0]:
        straight_top = 3
    if straight_top is not None and flush:
        return (8, straight_top)
    if shape == [4, 1]:
        return (7, *by_count)
    if shape == [3, 2]:
        return (6, *by_count)
    if flush:
        return (5, *ranks)
    if straight_top is not None:
        return (4, straight_top)
    if shape == [3, 1, 1]:
        return (3, *by_count)
    if shape == [2, 2, 1]:
        return (2, *by_count)
    if shape == [2, 1, 1, 1]:
        return (1, *by_count)
    return (0, *ranks)


def best_key(seven: list[int]) -> tuple:
    return max(five_card_key(list(five)) for five in combinations(seven, 5))


class Model:
    """The betting rules as the docstring states them, kept as simple as possible."""

    def __init__(self, chips, small_blind, big_blind, dealer, rlcard_seating):
        self.left, self.put, self.bet = list(chips), [0, 0], [0, 0]
        small = 1 - dealer if rlcard_seating else dealer
        self._pay(small, small_blind)
        self._pay(1 - small, big_blind)
        self.dealer, self.turn, self.street = dealer, small, 0
        self.acted, self.folded, self.done = set(), None, False

    def _pay(self, seat, chips):
        self.left[seat] -= chips
        self.put[seat] += chips
        self.bet[seat] += chips

    def legal(self):
        me, them = self.turn, 1 - self.turn
        owed, pot = self.bet[them] - self.bet[me], sum(self.put)
        if (owed > 0 and owed >= self.left[me]) or self.left[them] == 0:
            return [FOLD, CALL]
        raises = [HALF] if owed < pot // 2 <= self.left[me] else []
        raises += [POT] if pot <= self.left[me] else []
        return [FOLD, CALL] + raises + [ALL_IN]

    def act(self, action):
        me, them = self.turn, 1 - self.turn
        pot = sum(self.put)
        if action == FOLD:
            self.folded, self.done = me, True
            return
        chips = {CALL: min(self.bet[them] - self.bet[me], self.left[me]), HALF: pot // 2, POT: pot,
                 ALL_IN: self.left[me]}[action]
        self._pay(me, chips)
        self.acted = {me} if self.bet[me] > self.bet[them] else self.acted | {me}
        low = 0 if self.bet[0] < self.bet[1] else 1
        settled = self.bet[0] == self.bet[1] or self.left[low] == 0
        if settled and (len(self.acted) == 2 or 0 in self.left):
            if self.street == 3 or 0 in self.left:
                self.done = True             # showdown, after the rest of the board
            else:
                self.street += 1
                self.bet, self.acted, self.turn = [0, 0], set(), 1 - self.dealer
        else:
            self.turn = them

    def returns(self, hole, board):
        if self.folded is not None:
            loss = self.put[self.folded]
            return [loss, -loss] if self.folded == 1 else [-loss, loss]
        keys = [best_key(hole[seat] + board) for seat in (0, 1)]
        if keys[0] == keys[1]:
            return [0, 0]
        stake = min(self.put)
        return [stake, -stake] if keys[0] > keys[1] else [-stake, stake]


def test_random_playouts_follow_the_rules_written_again_here():
    spec = game_spec(GAME)
    endings = Counter()
    for seed in range(400):
        rng = random.Random(seed)
        small_blind = rng.choice([1, 1, 2, 5])
        big_blind = small_blind * rng.choice([1, 2, 2, 3])
        chips = (rng.choice([big_blind + 1, 20, 100, 1000]), rng.choice([big_blind + 2, 30, 100, 1000]))
        seating = rng.random() < 0.3
        state = load_game(GAME, {"chips_0": chips[0], "chips_1": chips[1], "small_blind": small_blind,
                                 "big_blind": big_blind, "rlcard_seating": seating}).new_initial_state()
        dealer = rng.randrange(2)
        state.apply_action(dealer)
        model = Model(chips, small_blind, big_blind, dealer, seating)
        deal = rng.sample(range(52), 9)
        cards = iter(deal)
        previous_history = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(next(cards))
            else:
                assert not model.done and state.current_player() == model.turn
                assert state.legal_actions() == model.legal()
                assert state.observation_dict(0)["chips_in"] == model.put
                action = rng.choice(model.legal())
                state.apply_action(action)
                model.act(action)
            history = state.public_history()
            assert history[:len(previous_history)] == previous_history        # append-only
            previous_history = history
            assert state.move_number <= spec.max_game_length
        assert model.done
        hole, board = [[deal[0], deal[2]], [deal[1], deal[3]]], deal[4:]
        assert state.returns() == model.returns(hole, board)
        low, high = state.game.utility_bounds()
        assert low <= state.returns()[0] <= high and sum(state.returns()) == 0
        json.dumps([state.observation_dict(0), state.observation_dict(1), state.result_details()])
        endings["fold" if state.result_details()["folded"] is not None else "showdown"] += 1
    assert endings["fold"] > 50 and endings["showdown"] > 50


def test_the_longest_raising_war_fits_the_length_bound():
    # The smallest raise each time makes the most decisions: big stacks, smallest blinds.
    state = load_game(GAME, {"chips_0": 1000, "chips_1": 1000, "small_blind": 1, "big_blind": 1}).new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            legal = state.legal_actions()
            state.apply_action(HALF if HALF in legal else POT if POT in legal else CALL)
    assert 30 <= state.move_number <= game_spec(GAME).max_game_length


def test_clones_are_independent():
    for seed in range(100):
        rng = random.Random(seed)
        state = new_state()
        for _ in range(rng.randrange(20)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        before = (state.history(), views(state, 0), views(state, 1), state.returns())
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert (state.history(), views(state, 0), views(state, 1), state.returns()) == before


def test_state_from_view_rebuilds_what_the_seat_sees():
    game = load_game(GAME, preset="llmarena")
    for seed in range(150):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in (0, 1):
                rebuilt = game.state_from_view(seat, json.loads(json.dumps(state.observation_dict(seat))))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.public_history() == state.public_history()
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


# ---- spec and parameters --------------------------------------------------------------------------
def test_spec_and_llmarena_preset():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("sequential", "stochastic", "imperfect", "zero_sum")
    assert [p.name for p in spec.presets] == ["llmarena", "llmarena_code"]
    game = load_game(GAME, preset="llmarena")
    assert game.parameters == {"chips_0": 100, "chips_1": 100, "small_blind": 1, "big_blind": 2,
                               "rlcard_seating": False}
    assert load_game(GAME, preset="llmarena_code").parameters == {**game.parameters, "rlcard_seating": True}
    assert game.utility_bounds() == (-100.0, 100.0)
    assert load_game(GAME, {"chips_1": 40}).utility_bounds() == (-40.0, 40.0)


@pytest.mark.parametrize("parameters,players", [
    ({"chips_0": 2}, 2),                        # no more chips than the big blind
    ({"chips_1": 1001}, 2),
    ({"small_blind": 3}, 2),                    # above the big blind
    ({"big_blind": 0}, 2),
    ({"chips_0": 100.5}, 2),
    ({"rlcard_seating": 1}, 2),
    ({}, 3),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
