"""Air, Land, and Sea (GameBench): the deal, GameBench's action ids, every card's ability worked by
hand, battles won on theaters and by withdrawal (the Supreme Commander table), the rotation between
battles, the VP-share score, the parser, hidden information (leak test, resampling, rebuilding from a
view), GameBench's released ALS scores, and seeded random playouts checked against rules written
again here."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.air_land_sea import (CARD_NAMES, TRIGGER_CAP, card_id, card_label, card_text, max_game_length,
                                        withdrawal_vp)
from arena_engines.core import ActionParseError, IllegalActionError
from arena_engines.mcts import MCTSBot

GAME = "air_land_sea"
ORDERS = ["Air Land Sea", "Air Sea Land", "Land Air Sea", "Land Sea Air", "Sea Air Land", "Sea Land Air"]
TYPES = ["Air", "Land", "Sea"]
MATCHES = Path(__file__).resolve().parents[1] / "data" / "gamebench" / "matches.json"


def start(hand0, hand1, first=0, order="Air Land Sea", **parameters):
    """A battle dealt by hand: the theater layout, the 1st player, then seat 0's and seat 1's cards."""
    state = load_game(GAME, {"hand_size": len(hand0), **parameters}).new_initial_state()
    state.apply_action(ORDERS.index(order))
    state.apply_action(first)
    for label in list(hand0) + list(hand1):
        assert state.is_chance_node()
        state.apply_action(card_id(label))
    return state


def hand(state, seat=None):
    seat = state.current_player() if seat is None else seat
    return state.observation_dict(seat)["hand"]


def deploy(state, label):
    state.apply_action(hand(state).index(label))


def improvise(state, label, theater):
    cards = hand(state)
    state.apply_action(len(cards) * (1 + TYPES.index(theater)) + cards.index(label))


def options(state) -> dict:
    seat = state.current_player()
    return {a: state.action_to_string(seat, a) for a in state.legal_actions()}


def pick(state, fragment):
    """Plays the one option whose text contains `fragment`."""
    found = [a for a, text in options(state).items() if fragment in text]
    assert len(found) == 1, (fragment, options(state))
    state.apply_action(found[0])


def board(state, viewer=0) -> dict:
    return {t["theater"]: t for t in state.observation_dict(viewer)["board"]}


def side(state, theater, seat, viewer=0) -> list:
    return [(c["card"], c["face_up"], c["strength"]) for c in board(state, viewer)[theater]["cards"][seat]]


def strength(state, theater) -> list:
    return board(state)[theater]["strength"]


def decision(state):
    view = state.observation_dict(0)["decision"]
    return None if view is None else (view["seat"], view["kind"])


# ---- cards and the deal ------------------------------------------------------------------------
def test_the_deck_is_gamebenchs_eighteen_cards():
    assert [card_label(c) for c in range(18)][:7] == [
        "Support (Air 1)", "Air Drop (Air 2)", "Maneuver (Air 3)", "Aerodrome (Air 4)", "Containment (Air 5)",
        "Heavy Bombers (Air 6)", "Reinforce (Land 1)"]
    assert CARD_NAMES.count("Maneuver") == 3
    assert all(card_id(card_label(c)) == c for c in range(18))
    assert card_id("  maneuver   (sea 3) ") == 14
    assert card_text(0) == "Support (Air 1; Ongoing: +3 Strength in each adjacent theater)"
    assert card_text(11) == "Heavy Tanks (Land 6; no ability)"
    assert card_text(10).startswith("Disrupt (Land 5; Ongoing: starting with you, both players choose and flip")
    with pytest.raises(ValueError):
        card_id("Joker (Air 7)")


def test_layout_commander_and_deal_are_chance_nodes():
    state = load_game(GAME, preset="gamebench").new_initial_state()
    assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
    assert state.action_to_string(-1, 4) == "theaters left to right: Sea, Air, Land"
    state.apply_action(4)
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    state.apply_action(1)
    for dealt in range(12):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 18 - dealt and all(p == pytest.approx(1 / (18 - dealt)) for _, p in outcomes)
        state.apply_action(outcomes[-1][0])        # the highest card left each time
    assert hand(state, 0) == [card_label(c) for c in range(17, 11, -1)]
    assert hand(state, 1) == [card_label(c) for c in range(11, 5, -1)]
    assert state.current_player() == 1 and decision(state) == (1, "play")
    assert state.observation_dict(0)["theaters"] == ["Sea", "Air", "Land"]
    assert state.observation_dict(0)["deck"] == {"undealt": 6, "destroyed": []}
    with pytest.raises(IllegalActionError):
        state.apply_action(25)


def test_turn_action_ids_and_texts_are_gamebenchs():
    cards = ["Support (Air 1)", "Heavy Tanks (Land 6)", "Transport (Sea 1)", "Escalation (Sea 2)",
             "Cover Fire (Land 4)", "Containment (Air 5)"]
    state = start(cards, ["Air Drop (Air 2)", "Maneuver (Air 3)", "Aerodrome (Air 4)", "Heavy Bombers (Air 6)",
                          "Reinforce (Land 1)", "Ambush (Land 2)"])
    texts = options(state)
    assert list(texts) == list(range(25))
    assert texts[0] == "Play Support (Air 1; Ongoing: +3 Strength in each adjacent theater) face up to Air. Deploy."
    assert texts[1] == "Play Heavy Tanks (Land 6; no ability) face up to Land. Deploy."
    assert texts[6 + 1] == "Play Heavy Tanks (Land 6; no ability) face down to Air. Improvise."
    assert texts[12 + 2].startswith("Play Transport (Sea 1; Instant: ")
    assert texts[14].endswith("face down to Land. Improvise.")
    assert texts[18 + 5].endswith("face down to Sea. Improvise.") and "Containment" in texts[23]
    # Seat 0 holds the 1st Player card: the 2nd player scores 2 VPs for a withdrawal with 6 cards left.
    assert texts[24] == "Withdraw from the battle. Your opponent wins it and scores 2 VPs (6 cards left in your hand)."
    with pytest.raises(ValueError):
        state.action_to_string(0, 25)
    with pytest.raises(ValueError):
        state.action_to_string(1, 0)       # not seat 1's decision


# ---- ending battles -------------------------------------------------------------------------------
BORING = ["Heavy Bombers (Air 6)", "Heavy Tanks (Land 6)", "Super Battleship (Sea 6)", "Support (Air 1)",
          "Reinforce (Land 1)", "Transport (Sea 1)"]
OTHERS = ["Air Drop (Air 2)", "Ambush (Land 2)", "Escalation (Sea 2)", "Maneuver (Air 3)", "Maneuver (Land 3)",
          "Maneuver (Sea 3)"]


def play_face_down(state, plan0, plan1):
    """Both seats improvise their hands in order, alternating from the 1st player: plan[i] is the
    theater of the seat's i-th card (always its first card left)."""
    plans = [list(plan0), list(plan1)]
    while not state.is_chance_node() and not state.is_terminal():
        seat = state.current_player()
        improvise(state, hand(state)[0], plans[seat].pop(0))


@pytest.mark.parametrize("first,winner", [(0, 0), (1, 1)])
def test_tied_theaters_go_to_the_1st_player(first, winner):
    state = start(BORING, OTHERS, first=first, target_vp=6)
    play_face_down(state, ["Air"] * 3 + ["Land"] * 3, ["Air"] * 3 + ["Sea"] * 3)
    result = state.result_details()["battles"][0]
    assert result["strength"] == [[6, 6, 0], [6, 0, 6]]      # Air tied, Land seat 0, Sea seat 1
    assert result["winner"] == winner and result["reason"] == "theaters" and result["victory_points"] == 6
    assert state.returns() == ([1.0, 0.0] if winner == 0 else [0.0, 1.0])


@pytest.mark.parametrize("first", [0, 1])
def test_an_empty_theater_goes_to_the_1st_player(first):
    state = start(BORING, OTHERS, first=first, target_vp=6)
    play_face_down(state, ["Air"] * 6, ["Land"] * 6)           # Sea stays empty
    assert state.result_details()["winner"] == first
    assert f"seat {first} wins 6 VPs to 0" in state.result_summary()


def test_a_battle_ends_then_commanders_swap_theaters_rotate_and_a_new_deal_starts():
    state = start(BORING, OTHERS, first=0, order="Air Land Sea")
    play_face_down(state, ["Air"] * 3 + ["Land"] * 3, ["Air"] * 3 + ["Sea"] * 3)
    view = state.observation_dict(1)
    assert view["victory_points"] == [6, 0] and view["battle"] == 2 and view["phase"] == "deal"
    assert view["first_player"] == 1 and view["theaters"] == ["Sea", "Air", "Land"]   # rightmost to far left
    assert view["hand"] == [] and all(t["cards"] == [[], []] for t in view["board"])
    assert len(state.chance_outcomes()) == 18 and state.returns() == [0.0, 0.0]
    assert view["battles"] == [{"battle": 1, "first_player": 0, "theaters": ["Air", "Land", "Sea"], "winner": 0,
                                "reason": "theaters", "victory_points": 6, "cards_left": None,
                                "strength": [[6, 6, 0], [6, 0, 6]]}]
    for card in range(12):
        state.apply_action(card)
    assert decision(state) == (1, "play")


# The Supreme Commander cards: VPs for the winner by cards left in the withdrawing hand (reference 2.1).
FIRST_GAINS = {6: 2, 5: 2, 4: 3, 3: 3, 2: 4, 1: 6}
SECOND_GAINS = {6: 2, 5: 2, 4: 2, 3: 3, 2: 3, 1: 4}


@pytest.mark.parametrize("left", [6, 5, 4, 3, 2, 1])
@pytest.mark.parametrize("withdrawer", ["1st", "2nd"])
def test_withdrawal_scores_the_supreme_commander_table(withdrawer, left):
    state = start(BORING, OTHERS, first=0)
    seat = 0 if withdrawer == "1st" else 1
    while len(hand(state, seat)) > left or state.current_player() != seat:
        improvise(state, hand(state)[0], "Air")
    h = len(hand(state))
    assert options(state)[4 * h].startswith("Withdraw from the battle.")
    state.apply_action(4 * h)
    gained = (SECOND_GAINS if withdrawer == "1st" else FIRST_GAINS)[left]
    assert state.observation_dict(0)["victory_points"][1 - seat] == gained
    assert withdrawal_vp(withdrawer == "2nd", left) == gained
    result = state.result_details()["battles"][0]
    assert (result["winner"], result["reason"], result["cards_left"]) == (1 - seat, "withdrawal", left)
    assert state.public_history()[-3][:2] == (seat, 4 * h)     # withdraw, battle end, next battle begins
    assert withdrawal_vp(True, 0) == withdrawal_vp(False, 0) == 6


def test_the_game_ends_at_the_target_and_returns_are_vp_shares():
    state = start(BORING, OTHERS, first=0, target_vp=4)
    state.apply_action(24)                                     # the 1st player withdraws: seat 1 +2
    for card in range(12):
        state.apply_action(card)
    state.apply_action(24)                                     # seat 1 (now 1st) withdraws: seat 0 +2
    for card in range(12):
        state.apply_action(card)
    play_face_down(state, ["Air"] * 6, ["Land"] * 6)           # seat 0 is 1st again: Air and empty Sea
    assert state.is_terminal()
    assert state.result_details()["victory_points"] == [8, 2]
    assert state.returns() == [0.8, 0.2]
    assert state.result_summary() == "seat 0 wins 8 VPs to 2 after 3 battles (VP shares 0.8 and 0.2)"
    assert "your score (your share of the VPs) is 0.2" in state.observation_string(1)
    assert state.legal_actions(0) == state.legal_actions(1) == []


# ---- abilities ----------------------------------------------------------------------------------------
def test_support_adds_3_to_each_adjacent_theater():
    state = start(["Support (Air 1)", "Heavy Tanks (Land 6)"], ["Super Battleship (Sea 6)", "Ambush (Land 2)"],
                  order="Air Land Sea")
    deploy(state, "Support (Air 1)")
    assert [strength(state, t)[0] for t in TYPES] == [1, 3, 0]          # Air is leftmost: Land only
    state = start(["Support (Air 1)", "Heavy Tanks (Land 6)"], ["Super Battleship (Sea 6)", "Ambush (Land 2)"],
                  order="Land Air Sea")
    deploy(state, "Support (Air 1)")
    assert [strength(state, t)[0] for t in TYPES] == [1, 3, 3]          # Air in the middle: both
    improvise(state, "Ambush (Land 2)", "Land")
    assert strength(state, "Land") == [3, 2]                            # only its owner gains


def test_escalation_makes_its_owners_face_down_cards_4():
    state = start(["Escalation (Sea 2)", "Heavy Bombers (Air 6)"], ["Heavy Tanks (Land 6)", "Super Battleship (Sea 6)"])
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    improvise(state, "Heavy Tanks (Land 6)", "Land")
    assert strength(state, "Land") == [2, 2]
    deploy(state, "Escalation (Sea 2)")
    assert strength(state, "Land") == [4, 2] and strength(state, "Sea") == [2, 0]


def test_escalation_face_down_again_loses_its_effect():
    state = start(["Escalation (Sea 2)", "Heavy Bombers (Air 6)", "Super Battleship (Sea 6)"],
                  ["Ambush (Land 2)", "Heavy Tanks (Land 6)", "Support (Air 1)"], first=0)
    improvise(state, "Heavy Bombers (Air 6)", "Air")
    improvise(state, "Heavy Tanks (Land 6)", "Air")
    deploy(state, "Escalation (Sea 2)")
    assert strength(state, "Air") == [4, 2]
    deploy(state, "Ambush (Land 2)")
    pick(state, "Flip your opponent's Escalation (Sea 2) in Sea face down")
    assert strength(state, "Air") == [2, 2] and strength(state, "Sea") == [2, 0]


def test_cover_fire_makes_the_cards_it_covers_4():
    state = start(["Heavy Tanks (Land 6)", "Heavy Bombers (Air 6)", "Cover Fire (Land 4)", "Super Battleship (Sea 6)"],
                  ["Support (Air 1)", "Reinforce (Land 1)", "Transport (Sea 1)", "Ambush (Land 2)"])
    deploy(state, "Heavy Tanks (Land 6)")
    improvise(state, "Support (Air 1)", "Sea")
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    improvise(state, "Reinforce (Land 1)", "Sea")
    assert strength(state, "Land") == [8, 0]
    deploy(state, "Cover Fire (Land 4)")
    assert [s for _, _, s in side(state, "Land", 0)] == [4, 4, 4]      # even Heavy Tanks drops to 4
    improvise(state, "Transport (Sea 1)", "Sea")
    improvise(state, "Super Battleship (Sea 6)", "Land")               # on top of Cover Fire: not covered by it
    assert [s for _, _, s in side(state, "Land", 0)] == [4, 4, 4, 2]


def test_maneuver_flips_an_uncovered_card_next_door_and_a_revealed_instant_resolves_for_its_owner():
    state = start(["Maneuver (Air 3)", "Heavy Bombers (Air 6)", "Heavy Tanks (Land 6)"],
                  ["Transport (Sea 1)", "Ambush (Land 2)", "Super Battleship (Sea 6)"], order="Air Land Sea")
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    improvise(state, "Transport (Sea 1)", "Land")
    improvise(state, "Heavy Tanks (Land 6)", "Sea")                     # Sea is not next to Air
    improvise(state, "Ambush (Land 2)", "Land")                         # covers Transport
    deploy(state, "Maneuver (Air 3)")
    assert decision(state) == (0, "maneuver")
    assert list(options(state).values()) == ["Flip your face-down Heavy Bombers (Air 6) in Land face up.",
                                             "Flip your opponent's face-down card in Land face up."]
    pick(state, "your opponent's face-down card")
    # Ambush is revealed: its owner flips any uncovered card.
    assert decision(state) == (1, "ambush")
    assert side(state, "Land", 1, viewer=0) == [(None, False, 2), ("Ambush (Land 2)", True, 2)]
    assert list(options(state).values()) == [
        "Flip your opponent's Maneuver (Air 3) in Air face down.",
        "Flip your opponent's face-down card in Land face up.",      # Heavy Bombers was never seen
        "Flip your Ambush (Land 2) in Land face down.",
        "Flip your opponent's face-down card in Sea face up."]
    pick(state, "Ambush (Land 2) in Land face down")
    assert decision(state) == (1, "play")


def test_maneuver_with_nothing_next_door_is_skipped():
    state = start(["Maneuver (Sea 3)", "Heavy Tanks (Land 6)"], ["Heavy Bombers (Air 6)", "Ambush (Land 2)"],
                  order="Air Land Sea")
    improvise(state, "Heavy Tanks (Land 6)", "Air")
    improvise(state, "Heavy Bombers (Air 6)", "Air")
    deploy(state, "Maneuver (Sea 3)")                                 # Land, next to Sea, is empty
    assert decision(state) == (1, "play")
    assert state.public_history()[-1] == (
        -1, -1, "Maneuver (Sea 3) of seat 0 has nothing to act on: its ability is skipped")


def test_ambush_flips_any_uncovered_card_even_itself():
    state = start(["Ambush (Land 2)"], ["Heavy Tanks (Land 6)"], first=1, target_vp=6)
    deploy(state, "Heavy Tanks (Land 6)")
    deploy(state, "Ambush (Land 2)")
    assert list(options(state).values()) == ["Flip your Ambush (Land 2) in Land face down.",
                                             "Flip your opponent's Heavy Tanks (Land 6) in Land face down."]
    pick(state, "Heavy Tanks")
    # Land 2-2 is a tie for the 1st player (seat 1), who also holds the empty Air and Sea.
    result = state.result_details()["battles"][0]
    assert result["strength"] == [[0, 2, 0], [0, 2, 0]] and result["winner"] == 1


def test_air_drop_opens_non_matching_theaters_for_the_next_play_only():
    state = start(["Air Drop (Air 2)", "Heavy Tanks (Land 6)", "Super Battleship (Sea 6)"],
                  ["Heavy Bombers (Air 6)", "Ambush (Land 2)", "Support (Air 1)"])
    deploy(state, "Air Drop (Air 2)")
    assert decision(state) == (1, "play") and len(options(state)) == 13       # not for the opponent
    improvise(state, "Heavy Bombers (Air 6)", "Sea")
    assert state.observation_dict(0)["air_drop"] == [True, False]
    texts = options(state)
    assert list(texts) == list(range(9)) + [9, 10, 11, 12]
    assert texts[9] == "Play Heavy Tanks (Land 6; no ability) face up to Air, a non-matching theater. Deploy."
    assert texts[12] == "Play Super Battleship (Sea 6; no ability) face up to Land, a non-matching theater. Deploy."
    state.apply_action(10)                                            # Heavy Tanks face up to Sea
    assert side(state, "Sea", 0) == [("Heavy Tanks (Land 6)", True, 6)]
    assert state.observation_dict(0)["air_drop"] == [False, False]
    improvise(state, "Ambush (Land 2)", "Sea")
    assert len(options(state)) == 5                                    # permission used up


def test_aerodrome_opens_non_matching_theaters_to_strength_3_or_less():
    state = start(["Aerodrome (Air 4)", "Escalation (Sea 2)", "Heavy Tanks (Land 6)"],
                  ["Heavy Bombers (Air 6)", "Ambush (Land 2)", "Support (Air 1)"])
    deploy(state, "Aerodrome (Air 4)")
    improvise(state, "Heavy Bombers (Air 6)", "Sea")
    texts = options(state)
    assert list(texts)[-2:] == [9, 10] and len(texts) == 11           # Escalation (index 0) only
    assert texts[9].startswith("Play Escalation (Sea 2;")
    assert texts[9].endswith("face up to Air, a non-matching theater. Deploy.")
    state.apply_action(10)                                            # Escalation face up to Land
    assert side(state, "Land", 0) == [("Escalation (Sea 2)", True, 2)]
    improvise(state, "Ambush (Land 2)", "Sea")
    assert len(options(state)) == 5                                   # Heavy Tanks is too strong


def test_containment_destroys_face_down_plays_of_both_players():
    state = start(["Containment (Air 5)", "Heavy Tanks (Land 6)"],
                  ["Heavy Bombers (Air 6)", "Super Battleship (Sea 6)"], target_vp=6)
    deploy(state, "Containment (Air 5)")
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    assert side(state, "Land", 1) == [] and hand(state, 1) == ["Super Battleship (Sea 6)"]
    assert state.observation_dict(0)["deck"] == {"undealt": 14,
                                                 "destroyed": [{"card": None, "seat": 1, "public": False}]}
    assert state.observation_dict(1)["deck"]["destroyed"] == [
        {"card": "Heavy Bombers (Air 6)", "seat": 1, "public": False}]
    assert state.public_history()[-2:] == [
        (1, -1, "a card face down to Land"),
        (-1, -1, "the card is destroyed by Containment (Air 5) and goes face down to the bottom of the deck")]
    improvise(state, "Heavy Tanks (Land 6)", "Sea")                     # its owner's too
    deploy(state, "Super Battleship (Sea 6)")                           # face up: safe
    result = state.result_details()["battles"][0]
    assert result["strength"] == [[5, 0, 0], [0, 0, 6]] and result["winner"] == 0


def test_blockade_destroys_a_card_played_next_door_to_a_crowded_theater():
    state = start(["Heavy Bombers (Air 6)", "Maneuver (Air 3)", "Blockade (Sea 5)", "Heavy Tanks (Land 6)"],
                  ["Super Battleship (Sea 6)", "Disrupt (Land 5)", "Cover Fire (Land 4)", "Ambush (Land 2)"],
                  order="Air Land Sea")
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    improvise(state, "Super Battleship (Sea 6)", "Land")
    improvise(state, "Maneuver (Air 3)", "Land")                        # Land holds 3 cards
    improvise(state, "Disrupt (Land 5)", "Air")                         # Air is not next to Sea
    deploy(state, "Blockade (Sea 5)")
    improvise(state, "Cover Fire (Land 4)", "Land")
    assert len(side(state, "Land", 1)) == 1                             # destroyed
    deploy(state, "Heavy Tanks (Land 6)")
    assert len(side(state, "Land", 0)) == 2                             # face up too, and by its own Blockade
    assert [d["card"] for d in state.observation_dict(1)["deck"]["destroyed"]] == ["Cover Fire (Land 4)",
                                                                                   "Heavy Tanks (Land 6)"]
    improvise(state, "Ambush (Land 2)", "Sea")                          # Blockade's own theater is safe
    final = state.result_details()["battles"][0]["final"]["board"]
    assert [c["card"] for c in final[2]["cards"][1]] == ["Ambush (Land 2)"]


def test_transport_may_move_one_of_your_cards_on_top_of_another_theater():
    state = start(["Heavy Tanks (Land 6)", "Transport (Sea 1)"], ["Heavy Bombers (Air 6)", "Ambush (Land 2)"],
                  order="Air Land Sea")
    improvise(state, "Heavy Tanks (Land 6)", "Air")
    improvise(state, "Heavy Bombers (Air 6)", "Sea")
    deploy(state, "Transport (Sea 1)")
    assert list(options(state).values()) == [
        "Move your Transport (Sea 1) from Sea to Air.", "Move your face-down Heavy Tanks (Land 6) from Air to Land.",
        "Move your Transport (Sea 1) from Sea to Land.", "Move your face-down Heavy Tanks (Land 6) from Air to Sea.",
        "Do not move any card."]
    pick(state, "Heavy Tanks (Land 6) from Air to Sea")
    assert side(state, "Sea", 0) == [("Transport (Sea 1)", True, 1), ("Heavy Tanks (Land 6)", False, 2)]
    assert state.public_history()[-1] == (0, -1, "Transport (Sea 1): move a face-down card from Air to Sea")
    assert ("You: Transport (Sea 1): move face-down Heavy Tanks (Land 6) from Air to Sea"
            in state.observation_dict(0)["log"])
    assert decision(state) == (1, "play")


def test_transport_may_move_nothing():
    state = start(["Transport (Sea 1)"], ["Heavy Bombers (Air 6)"], target_vp=6)
    deploy(state, "Transport (Sea 1)")
    pick(state, "Do not move any card.")
    assert side(state, "Sea", 0) == [("Transport (Sea 1)", True, 1)]
    assert state.public_history()[-1] == (0, 2, "Transport (Sea 1): move no card")


def test_redeploy_returns_a_face_down_card_then_plays_a_card_without_withdrawing():
    state = start(["Heavy Bombers (Air 6)", "Redeploy (Sea 4)", "Heavy Tanks (Land 6)"],
                  ["Super Battleship (Sea 6)", "Ambush (Land 2)", "Support (Air 1)"])
    improvise(state, "Heavy Bombers (Air 6)", "Sea")
    improvise(state, "Super Battleship (Sea 6)", "Air")
    deploy(state, "Redeploy (Sea 4)")
    assert list(options(state).values()) == [
        "Return your face-down Heavy Bombers (Air 6) in Sea to your hand, then play a card.", "Do not return any card."]
    pick(state, "Return your face-down Heavy Bombers")
    assert decision(state) == (0, "redeploy_play")
    assert hand(state) == ["Heavy Tanks (Land 6)", "Heavy Bombers (Air 6)"]   # the returned card goes last
    assert list(options(state)) == list(range(8))                           # no Withdraw
    deploy(state, "Heavy Bombers (Air 6)")
    assert side(state, "Air", 0) == [("Heavy Bombers (Air 6)", True, 6)]
    assert side(state, "Sea", 0) == [("Redeploy (Sea 4)", True, 4)]
    assert decision(state) == (1, "play") and state.observation_dict(1)["hand_sizes"] == [1, 2]
    assert [text for seat, _, text in state.public_history()[-3:]] == [
        "Redeploy (Sea 4) face up to Sea", "Redeploy (Sea 4): return a face-down card from Sea to hand",
        "Heavy Bombers (Air 6) face up to Air, the play of Redeploy"]


def test_redeploy_without_face_down_cards_is_skipped():
    state = start(["Redeploy (Sea 4)", "Heavy Tanks (Land 6)"], ["Super Battleship (Sea 6)", "Ambush (Land 2)"])
    deploy(state, "Redeploy (Sea 4)")
    assert decision(state) == (1, "play")
    assert state.public_history()[-1][2] == "Redeploy (Sea 4) of seat 0 has nothing to act on: its ability is skipped"


def test_reinforce_draws_a_hidden_card_and_plays_it_face_down_next_door():
    hand0 = ["Reinforce (Land 1)", "Heavy Tanks (Land 6)", "Transport (Sea 1)", "Escalation (Sea 2)",
             "Cover Fire (Land 4)", "Containment (Air 5)"]
    hand1 = ["Air Drop (Air 2)", "Maneuver (Air 3)", "Aerodrome (Air 4)", "Heavy Bombers (Air 6)",
             "Ambush (Land 2)", "Support (Air 1)"]
    state = start(hand0, hand1, order="Sea Land Air")
    deploy(state, "Reinforce (Land 1)")
    undealt = ["Maneuver (Land 3)", "Disrupt (Land 5)", "Maneuver (Sea 3)", "Redeploy (Sea 4)", "Blockade (Sea 5)",
               "Super Battleship (Sea 6)"]
    assert state.chance_outcomes() == [(card_id(c), pytest.approx(1 / 6)) for c in undealt]
    assert state.observation_dict(1)["decision"]["kind"] == "reinforce"
    state.apply_action(card_id("Blockade (Sea 5)"))
    assert decision(state) == (0, "reinforce")
    assert list(options(state).values()) == ["Play the drawn Blockade (Sea 5) face down to Sea.",
                                             "Play the drawn Blockade (Sea 5) face down to Air."]
    assert state.observation_dict(0)["decision"]["drawn"] == "Blockade (Sea 5)"
    assert state.observation_dict(1)["decision"]["drawn"] is None
    assert "Blockade" not in state.observation_string(1)
    pick(state, "face down to Air")
    assert side(state, "Air", 0) == [("Blockade (Sea 5)", False, 2)]
    assert side(state, "Air", 0, viewer=1) == [(None, False, 2)]
    assert state.observation_dict(1)["deck"]["undealt"] == 5 and state.observation_dict(1)["hand_sizes"] == [5, 6]
    assert [h[:2] for h in state.public_history()[-3:]] == [(0, 0), (-1, -1), (0, -1)]
    assert state.public_history()[-2][2] == "Reinforce: seat 0 draws a card from the deck"


def test_containment_destroys_the_card_reinforce_plays():
    state = start(["Containment (Air 5)", "Heavy Tanks (Land 6)"], ["Reinforce (Land 1)", "Heavy Bombers (Air 6)"])
    deploy(state, "Containment (Air 5)")
    deploy(state, "Reinforce (Land 1)")
    state.apply_action(card_id("Super Battleship (Sea 6)"))
    pick(state, "face down to Air")
    assert side(state, "Air", 1) == []
    assert state.observation_dict(1)["deck"]["destroyed"] == [{"card": "Super Battleship (Sea 6)", "seat": 1,
                                                               "public": False}]


def test_reinforce_draws_destroyed_cards_once_the_deck_is_used_up():
    # All 18 cards dealt (hands of 9): the deck is only the destroyed cards, first destroyed on top.
    hand0 = ["Containment (Air 5)", "Heavy Tanks (Land 6)", "Super Battleship (Sea 6)", "Support (Air 1)",
             "Air Drop (Air 2)", "Maneuver (Air 3)", "Aerodrome (Air 4)", "Heavy Bombers (Air 6)", "Ambush (Land 2)"]
    hand1 = ["Reinforce (Land 1)", "Maneuver (Land 3)", "Cover Fire (Land 4)", "Disrupt (Land 5)", "Transport (Sea 1)",
             "Escalation (Sea 2)", "Maneuver (Sea 3)", "Redeploy (Sea 4)", "Blockade (Sea 5)"]
    state = start(hand0, hand1, order="Air Land Sea")
    deploy(state, "Containment (Air 5)")
    improvise(state, "Cover Fire (Land 4)", "Air")                   # destroyed: the bottom of the deck
    improvise(state, "Heavy Tanks (Land 6)", "Sea")                  # destroyed below it
    deploy(state, "Reinforce (Land 1)")
    assert not state.is_chance_node() and decision(state) == (1, "reinforce")
    assert state.observation_dict(1)["decision"]["drawn"] == "Cover Fire (Land 4)"
    pick(state, "face down to Sea")                                   # destroyed again by Containment
    assert [d["card"] for d in state.observation_dict(1)["deck"]["destroyed"]] == [None, "Cover Fire (Land 4)"]


def test_disrupt_flips_one_own_card_each_starting_with_its_owner_then_reveals_resolve_in_order():
    state = start(["Maneuver (Air 3)", "Disrupt (Land 5)", "Heavy Bombers (Air 6)"],
                  ["Transport (Sea 1)", "Heavy Tanks (Land 6)", "Super Battleship (Sea 6)"], order="Air Land Sea")
    improvise(state, "Maneuver (Air 3)", "Sea")
    improvise(state, "Transport (Sea 1)", "Air")
    deploy(state, "Disrupt (Land 5)")
    assert decision(state) == (0, "disrupt")
    assert list(options(state).values()) == ["Flip your Disrupt (Land 5) in Land face down.",
                                             "Flip your face-down Maneuver (Air 3) in Sea face up."]
    pick(state, "Maneuver (Air 3) in Sea face up")
    assert decision(state) == (1, "disrupt")
    assert list(options(state).values()) == ["Flip your face-down Transport (Sea 1) in Air face up."]
    pick(state, "Transport")
    # Both reveals wait for Disrupt to finish, then resolve in the order they happened.
    assert decision(state) == (0, "maneuver")
    assert state.observation_dict(0)["pending_abilities"] == ["Transport (Sea 1)"]
    pick(state, "Flip your Disrupt (Land 5) in Land face down.")
    assert decision(state) == (1, "transport")
    pick(state, "Do not move")
    assert decision(state) == (1, "play")


def test_disrupt_skips_a_player_without_uncovered_cards():
    state = start(["Disrupt (Land 5)", "Heavy Tanks (Land 6)"], ["Heavy Bombers (Air 6)", "Ambush (Land 2)"], first=0)
    deploy(state, "Disrupt (Land 5)")
    pick(state, "Disrupt (Land 5) in Land face down")                  # seat 1 has no card in play
    assert decision(state) == (1, "play")
    assert state.public_history()[-1][2] == "Disrupt: seat 1 has no uncovered card to flip"


def test_a_destroyed_card_uses_no_ability():
    state = start(["Heavy Bombers (Air 6)", "Maneuver (Air 3)", "Blockade (Sea 5)", "Ambush (Land 2)"],
                  ["Super Battleship (Sea 6)", "Heavy Tanks (Land 6)", "Support (Air 1)", "Transport (Sea 1)"],
                  order="Air Land Sea")
    improvise(state, "Heavy Bombers (Air 6)", "Land")
    improvise(state, "Super Battleship (Sea 6)", "Land")
    improvise(state, "Maneuver (Air 3)", "Land")
    improvise(state, "Heavy Tanks (Land 6)", "Air")
    deploy(state, "Blockade (Sea 5)")
    improvise(state, "Support (Air 1)", "Air")
    deploy(state, "Ambush (Land 2)")                                    # into the crowded Land: destroyed
    assert decision(state) == (1, "play")


# ---- the parser --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def opening():
    return start(BORING, OTHERS)


@pytest.mark.parametrize("text,action", [
    ('{"action": "3"}', 3),
    ('{"action": "24", "openended_response": null}', 24),
    ('I would rather keep my cards. {"action": "7"}', 7),
    ('{"action": "1"} on second thought {"action": "2"}', 2),        # the last answer counts
    ('{"action": 5}', 5),
    ("12", 12),
    (' "4". ', 4),
    ("play heavy tanks (land 6; no ability)   face up to land. deploy", 1),
    ("Play Heavy Tanks (Land 6; no ability) face down to Air. Improvise.", 7),
    ('{"action": "Withdraw from the battle. Your opponent wins it and scores 2 VPs (6 cards left in your hand)."}', 24),
])
def test_parser_reads_gamebench_answers_ids_and_texts(opening, text, action):
    assert opening.parse_action(0, text) == action


@pytest.mark.parametrize("text,message", [
    ("", "no action found"),
    ("deploy something", "no action found"),
    ('{"action": "25"}', "25 is not one of the available actions"),
    ("99", "choose one of the ids 0, 1, 2"),
    ('{"move": "3"}', "no action found"),
])
def test_parser_refuses_what_is_not_an_option_with_the_expected_format(opening, text, message):
    with pytest.raises(ActionParseError, match=message) as refused:
        opening.parse_action(0, text)
    assert '{"action": "0"}' in str(refused.value)


def test_parser_refuses_a_seat_that_has_no_decision(opening):
    with pytest.raises(ActionParseError, match="no decision"):
        opening.parse_action(1, '{"action": "0"}')


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=60))
def test_parser_returns_an_option_or_refuses(text):
    state = start(BORING, OTHERS)
    try:
        assert state.parse_action(0, text) in state.legal_actions(0)
    except ActionParseError as e:
        assert str(e)


def test_text_spec_and_no_default_action(opening):
    spec = opening.text_action_spec(0)
    assert '{"action": "<id>"}' in spec["description"] and spec["forbidden_words"] == []
    assert opening.text_action_spec(1) is None
    assert opening.default_action(0) is None


# ---- hidden information ---------------------------------------------------------------------------
def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def test_leak_a_seat_view_does_not_depend_on_the_opponents_cards():
    mine = ["Heavy Bombers (Air 6)", "Heavy Tanks (Land 6)", "Super Battleship (Sea 6)", "Support (Air 1)",
            "Reinforce (Land 1)", "Transport (Sea 1)"]
    theirs_a = ["Air Drop (Air 2)", "Ambush (Land 2)", "Escalation (Sea 2)", "Maneuver (Air 3)", "Maneuver (Land 3)",
                "Maneuver (Sea 3)"]
    theirs_b = ["Aerodrome (Air 4)", "Cover Fire (Land 4)", "Redeploy (Sea 4)", "Containment (Air 5)",
                "Disrupt (Land 5)", "Blockade (Sea 5)"]
    a, b = start(mine, theirs_a), start(mine, theirs_b)
    assert views(a, 0) == views(b, 0) and views(a, 1) != views(b, 1)
    for state in (a, b):
        improvise(state, "Heavy Bombers (Air 6)", "Air")
        state.apply_action(6 + 2)                      # seat 1's third card face down to Air
        deploy(state, "Support (Air 1)")
    assert views(a, 0) == views(b, 0)
    assert side(a, "Air", 1, viewer=1) != side(b, "Air", 1, viewer=1)
    assert "Escalation" not in "\n".join(map(str, views(a, 0))) and "Redeploy" not in "\n".join(map(str, views(b, 0)))
    # A determinization for seat 0 depends on what seat 0 knows only.
    for seed in range(5):
        redrawn = [state.resample_hidden(0, seed).observation_dict(1) for state in (a, b)]
        assert [(v["hand"], v["board"]) for v in redrawn] == [(redrawn[0]["hand"], redrawn[0]["board"])] * 2


def random_states(seed, parameters=None):
    """Every state of one seeded random game (chance by its probabilities)."""
    rng = random.Random(seed)
    state = load_game(GAME, parameters or {}, preset="gamebench").new_initial_state()
    while not state.is_terminal():
        yield state
        state.step_randomly(rng)
    yield state


def test_resample_hidden_redraws_only_what_the_seat_cannot_see():
    changed = 0
    for seed in range(6):
        for state in random_states(seed):
            if state.is_chance_node():
                continue
            for seat in (0, 1):
                before = (views(state, seat), state.legal_actions(seat))
                redrawn = state.resample_hidden(seat, seed)
                assert (views(redrawn, seat), redrawn.legal_actions(seat)) == before
                assert views(state, seat) == before[0]            # the original is untouched
                changed += redrawn.observation_dict(1 - seat)["hand"] != state.observation_dict(1 - seat)["hand"]
    assert changed > 100


def test_state_from_view_rebuilds_the_seats_view_and_plays_on_like_the_real_state():
    game = load_game(GAME, preset="gamebench")
    checked = 0
    for seed in range(8):
        for state in random_states(seed):
            if state.is_terminal():
                break
            for seat in (0, 1):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.current_player() == state.current_player()
                # The seat's own turn reveals nothing it does not know: both states play on alike.
                if state.current_player() == seat and state.observation_dict(seat)["decision"]["kind"] == "play":
                    for action in state.legal_actions(seat)[:3]:
                        real, copy = state.clone(), rebuilt.clone()
                        real.apply_action(action)
                        copy.apply_action(action)
                        assert copy.observation_dict(seat) == real.observation_dict(seat)
                        checked += 1
    assert checked > 300


def test_clones_are_independent():
    state = start(BORING, OTHERS)
    copy = state.clone()
    before = views(state, 0)
    copy.apply_action(0)
    assert views(state, 0) == before and views(copy, 0) != before
    assert state.legal_actions() == list(range(25))


# ---- GameBench's released scores -----------------------------------------------------------------
def reachable_vps(target: int) -> set[int]:
    """VP totals a player can hold before the last battle: sums of battle awards (2, 3, 4 or 6)."""
    totals = {0}
    for _ in range(target):
        totals |= {t + award for t in totals for award in (2, 3, 4, 6) if t + award < target}
    return totals


def test_every_released_als_score_is_a_vp_share_the_engine_can_end_with():
    records = [m for m in json.loads(MATCHES.read_text()) if m["game"] == GAME]
    assert len(records) == 18
    losers = reachable_vps(12)
    shares = {Fraction(w, w + l) for w in range(12, 18) for l in losers}     # the last battle adds at most 6
    shares |= {1 - s for s in shares}
    fractional = 0
    for record in records:
        scores = [v for k, v in record.items() if k != "game"]
        assert sum(scores) == pytest.approx(1)
        assert any(abs(float(s) - scores[0]) < 1e-12 for s in shares), record
        fractional += 0 < scores[0] < 1
    assert fractional == 7


# ---- random playouts checked against the rules written again here ----------------------------------------
STRENGTH = {card_label(c): c % 6 + 1 for c in range(18)}
GAINS = {"1st": {5: 2, 4: 3, 3: 3, 2: 4, 1: 6, 0: 6}, "2nd": {5: 2, 4: 2, 3: 3, 2: 3, 1: 4, 0: 6}}   # 5: 5 or more


def final_strengths(final: dict) -> list[list[int]]:
    """Each seat's total per theater from a board: a battle's revealed final board, or a seat's view
    (a face-down card's strength never depends on what it is)."""
    totals = [[0, 0, 0], [0, 0, 0]]
    for seat in (0, 1):
        stacks = [t["cards"][seat] for t in final["board"]]
        up = [(c["card"], c["face_up"]) for stack in stacks for c in stack]
        escalation = ("Escalation (Sea 2)", True) in up
        for p, stack in enumerate(stacks):
            for i, c in enumerate(stack):
                covered = any(d["card"] == "Cover Fire (Land 4)" and d["face_up"] for d in stack[i + 1:])
                totals[seat][p] += 4 if covered else (STRENGTH[c["card"]] if c["face_up"] else (4 if escalation else 2))
            if any(abs(p - q) == 1 and any(c["card"] == "Support (Air 1)" and c["face_up"] for c in other)
                   for q, other in enumerate(stacks)):
                totals[seat][p] += 3
    return totals


def check_playout(seed, parameters):
    target, size = parameters["target_vp"], parameters["hand_size"]
    for state in random_states(seed, parameters):
        if state.is_chance_node() or state.is_terminal():
            continue
        seat = state.current_player()
        view = state.observation_dict(seat)
        for viewer in (0, 1):
            seen = state.observation_dict(viewer)
            totals = final_strengths(seen)
            assert [t["strength"] for t in seen["board"]] == [[totals[0][p], totals[1][p]] for p in range(3)]
            first = seen["first_player"]
            assert [t["controller"] for t in seen["board"]] == [
                1 - first if totals[1 - first][p] > totals[first][p] else first for p in range(3)]
        # Every card is somewhere: hands, board, deck (undealt or destroyed), or just drawn.
        on_board = sum(len(side) for t in view["board"] for side in t["cards"])
        held = sum(view["hand_sizes"]) + on_board + view["deck"]["undealt"] + len(view["deck"]["destroyed"])
        assert held + view["decision"]["card_drawn"] == 18
        if view["decision"]["kind"] in ("play", "redeploy_play"):
            h = len(view["hand"])
            aerodrome = any(c["card"] == "Aerodrome (Air 4)" and c["face_up"] for t in view["board"]
                            for c in t["cards"][seat])
            anywhere = sum(1 for card in view["hand"] if view["air_drop"][seat] or (aerodrome and STRENGTH[card] <= 3))
            assert len(state.legal_actions()) == 4 * h + (view["decision"]["kind"] == "play") + 2 * anywhere
            assert abs(view["hand_sizes"][0] - view["hand_sizes"][1]) <= 1
    end = state
    details = end.result_details()
    vps = [0, 0]
    first, order = None, None
    for result in details["battles"]:
        if first is not None:
            assert result["first_player"] == 1 - first
            assert result["theaters"] == order[2:] + order[:2]            # the rightmost moved to the far left
        first, order = result["first_player"], result["theaters"]
        assert result["strength"] == final_strengths(result["final"])
        if result["reason"] == "theaters":
            held = sum(1 for p in range(3) if (result["strength"][first][p] >= result["strength"][1 - first][p]))
            assert result["winner"] == (first if held >= 2 else 1 - first) and result["victory_points"] == 6
            assert all(cards == [] for cards in result["final"]["hands"])
        else:
            loser = 1 - result["winner"]
            assert len(result["final"]["hands"][loser]) == result["cards_left"]
            table = GAINS["1st" if result["winner"] == first else "2nd"]
            assert result["victory_points"] == table[min(result["cards_left"], 5)]
        vps[result["winner"]] += result["victory_points"]
        shown = sum(len(s) for t in result["final"]["board"] for s in t["cards"])
        assert shown + sum(map(len, result["final"]["hands"])) <= 18
    assert details["victory_points"] == vps and max(vps) >= target
    assert sum(1 for v in vps if v >= target) == 1
    assert end.returns() == [v / sum(vps) for v in vps]
    assert end.move_number <= max_game_length(target, size)
    assert not any(f"{TRIGGER_CAP} abilities already triggered" in text for _, _, text in end.public_history())
    return len(details["battles"])


@pytest.mark.parametrize("parameters", [{"target_vp": 12, "hand_size": 6}, {"target_vp": 6, "hand_size": 9},
                                        {"target_vp": 3, "hand_size": 2}])
def test_random_playouts_follow_the_rules_written_again_here(parameters):
    battles = sum(check_playout(seed, parameters) for seed in range(25))
    assert battles >= 25


# ---- search --------------------------------------------------------------------------------------------
def test_determinized_mcts_beats_random_play_by_far():
    game = load_game(GAME, {"target_vp": 6}, preset="gamebench")
    total = 0.0
    for seed in range(8):
        seat, rng = seed % 2, random.Random(100 + seed)
        bot = MCTSBot(game, simulations=300, seed=seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                seat_to_move = state.current_player()
                state.apply_action(bot.step(state, seat) if seat_to_move == seat else rng.choice(state.legal_actions()))
        total += state.returns()[seat]
    assert total / 8 > 0.8, total


# ---- the spec --------------------------------------------------------------------------------------------
def test_spec_and_gamebench_preset():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.dynamics, spec.chance, spec.information, spec.utility) == (
        2, 2, "sequential", "stochastic", "imperfect", "constant_sum")
    assert (spec.min_utility, spec.max_utility) == (0.0, 1.0) and spec.accepts_text_actions
    assert [p.name for p in spec.presets] == ["gamebench"]
    assert spec.preset("gamebench").values == {"target_vp": 12, "hand_size": 6}
    assert spec.max_game_length == max_game_length(30, 9)


@pytest.mark.parametrize("parameters,players", [
    ({"target_vp": 0}, 2), ({"target_vp": 31}, 2), ({"hand_size": 0}, 2), ({"hand_size": 10}, 2),
    ({"hand_size": 2.5}, 2), ({}, 3),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
