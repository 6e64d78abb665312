"""Arctic Scavengers (GameBench): the code's decks and piles, a round worked by hand (dig, hunt, hire,
trash, skirmish, the next deal), interrupts, skirmish ties and the final count, illegal moves, the
parser of GameBench's answers; hidden information (leaks, what each seat can account for, resampling,
rebuilding from a view); seeded random playouts against an independent re-implementation of the rules
written here."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import product

import pytest

from arena_engines import game_spec, load_game
from arena_engines.arctic_scavengers import CARD_NAMES, card_info
from arena_engines.core import CHANCE, ActionParseError, IllegalActionError

GAME = "arctic_scavengers"

# GameBench's card definitions (games/arctic_scavengers/cards/game_cards.py), written out again here:
# tribe members, {action: (value, modifier)}, (FOOD, MEDICINE) hire cost.
REFERENCE_CARDS = {
    "Refugee": (1, {"DIG": (0, False), "HUNT": (0, False)}, (0, 0)),
    "Scavenger": (1, {"DRAW": (1, False), "DIG": (1, False), "HUNT": (1, False), "FIGHT": (1, False)}, (1, 0)),
    "Brawler": (1, {"DIG": (1, False), "FIGHT": (2, False)}, (2, 0)),
    "Hunter": (1, {"HUNT": (2, False), "FIGHT": (1, False)}, (0, 1)),
    "Saboteur": (1, {"DIG": (1, False), "FIGHT": (1, False)}, (1, 1)),
    "Scout": (1, {"DRAW": (2, False), "FIGHT": (2, False)}, (2, 1)),
    "Group Leaders": (2, {"DRAW": (2, True), "DIG": (2, True), "HUNT": (2, True), "FIGHT": (2, True)}, (2, 2)),
    "Sniper Team": (2, {}, (2, 2)),
    "Thug": (3, {"DIG": (1, False), "FIGHT": (3, False)}, (6, 0)),
    "Junk": (0, {}, None),
    "Multitool": (0, {"DIG": (1, True), "HUNT": (1, True), "FIGHT": (1, True)}, None),
    "Net": (0, {"HUNT": (2, True), "FIGHT": (1, True)}, None),
    "Spear": (0, {"HUNT": (1, True), "FIGHT": (2, True)}, None),
    "Pickaxe": (0, {"DIG": (1, True), "FIGHT": (2, True)}, None),
    "Shovel": (0, {"DIG": (2, True), "FIGHT": (1, True)}, None),
    "Medkit": (0, {"MEDICINE": (2, False)}, None),
    "Pills": (0, {"MEDICINE": (1, False)}, None),
    "Wolf Pack": (0, {"HUNT": (3, True), "FIGHT": (2, True)}, None),
    "Grenade": (0, {"FIGHT": (3, True)}, None),
    "Sled Team": (2, {"DRAW": (2, False), "FIGHT": (1, False)}, None),
    "Field Crew": (4, {"DIG": (2, False), "HUNT": (2, False), "FIGHT": (2, False)}, None),
    "Tribe Family": (5, {"HUNT": (0, False), "FIGHT": (0, False)}, None),
}
START = Counter({"Refugee": 4, "Scavenger": 3, "Brawler": 1, "Spear": 1, "Shovel": 1})
JUNKYARD = Counter({"Junk": 7, "Multitool": 4, "Net": 4, "Spear": 4, "Pickaxe": 4, "Shovel": 4, "Medkit": 6,
                    "Pills": 9})
PILES = {"Brawler": 8, "Hunter": 8, "Saboteur": 8, "Scout": 8, "Group Leaders": 5, "Sniper Team": 5, "Thug": 5,
         "Scavenger": 14}
CONTESTED = Counter(["Wolf Pack", "Grenade", "Sled Team", "Field Crew", "Tribe Family"])
STOP, PASS, SKIRMISH_STOP = 0, 16384, 16640


def value(card: str, action: str) -> int:
    return REFERENCE_CARDS[card][1].get(action, (0, False))[0]


def fight(cards) -> int:
    return sum(value(c, "FIGHT") for c in cards)


def tribe(cards) -> int:
    return sum(REFERENCE_CARDS[c][0] for c in cards)


def new_state(**parameters):
    return load_game(GAME, parameters, preset="gamebench").new_initial_state()


def deal(state, *names):
    for name in names:
        assert state.is_chance_node(), name
        state.apply_action(CARD_NAMES.index(name))


def say(state, text: str):
    """Plays the current seat's answer `text` (read by the game's own parser)."""
    seat = state.current_player()
    action = state.parse_action(seat, text)
    assert action in state.legal_actions(seat), (text, [state.action_to_string(seat, a)
                                                        for a in state.legal_actions(seat)])
    state.apply_action(action)


def legal_texts(state, seat=None) -> list[str]:
    seat = state.current_player() if seat is None else seat
    return [state.action_to_string(seat, a) for a in state.legal_actions(seat)]


def collection(hidden: dict, seat: int) -> Counter:
    deck = hidden["decks"][seat]
    return Counter(hidden["hands"][seat]) + Counter(deck["shuffled"]) + Counter(deck["bottom"])


def as_counter(type_counts: list) -> Counter:
    return Counter({CARD_NAMES[t]: c for t, c in enumerate(type_counts) if c})


def check_knowledge(state) -> None:
    """Every card is somewhere, and what each seat can account for matches the hidden state:
    unlocated = (opponent's cards - those known) + opponent's dig + junkyard bottom unseen
    + (shuffled junkyard - the part known to be there)."""
    hidden = state.hidden_state()
    everything = collection(hidden, 0) + collection(hidden, 1) + Counter(hidden["junkyard"]["shuffled"]) \
        + Counter(hidden["junkyard"]["bottom"]) + Counter(hidden["digging"]) + Counter(hidden["contested"])
    assert sum(everything.values()) + sum(hidden["mercenaries"].values()) == 128
    for seat in range(2):
        view, knowledge = state.observation_dict(seat), state.knowledge(seat)
        known = as_counter(knowledge["opponent_known"])
        theirs = collection(hidden, 1 - seat)
        assert not known - theirs
        assert sum((theirs - known).values()) == knowledge["opponent_unseen"]
        shuffled = Counter(hidden["junkyard"]["shuffled"])
        in_junkyard = as_counter(knowledge["junkyard_known"])
        assert not in_junkyard - shuffled
        their_dig = Counter(hidden["digging"]) if view["opponent"]["digging"] else Counter()
        unseen_bottom = Counter(card for card, seen in zip(hidden["junkyard"]["bottom"], view["junkyard"]["bottom"])
                                if seen is None)
        assert as_counter(knowledge["unlocated"]) == (theirs - known) + their_dig + unseen_bottom \
            + (shuffled - in_junkyard)


# ---- setup ----------------------------------------------------------------------------------------
def test_cards_decks_and_piles_are_gamebenchs():
    for name, (members, actions, cost) in REFERENCE_CARDS.items():
        info = card_info(name)
        assert info["tribe_members"] == members
        assert {s: (a["value"], a["modifier"]) for s, a in info["actions"].items()} == actions
        assert (info["cost"] and (info["cost"]["FOOD"], info["cost"]["MEDICINE"])) == (cost if name != "Refugee"
                                                                                        else None)
    # The card's examples (gamebench.md section 2.2).
    assert card_info("Brawler")["cost"] == {"FOOD": 2, "MEDICINE": 0}
    assert card_info("Thug")["tribe_members"] == 3 and card_info("Thug")["cost"]["FOOD"] == 6
    assert card_info("Tribe Family")["tribe_members"] == 5
    assert card_info("Medkit")["actions"] == {"MEDICINE": {"value": 2, "modifier": False}}
    hidden = new_state().hidden_state()
    for seat in range(2):
        assert collection(hidden, seat) == START and sum(START.values()) == 10
    assert Counter(hidden["junkyard"]["shuffled"]) == JUNKYARD and sum(JUNKYARD.values()) == 42
    assert hidden["mercenaries"] == PILES and sum(PILES.values()) == 61
    assert Counter(hidden["contested"]) == CONTESTED


def test_each_round_starts_with_five_cards_dealt_seat_0_first_as_chance_nodes():
    state = new_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(CARD_NAMES.index(c), n / 10) for c, n in sorted(
        START.items(), key=lambda item: CARD_NAMES.index(item[0]))]
    deal(state, "Refugee", "Refugee", "Refugee", "Refugee")
    assert state.chance_outcomes() == [(CARD_NAMES.index("Scavenger"), 3 / 6)] + [
        (CARD_NAMES.index(c), 1 / 6) for c in ("Brawler", "Spear", "Shovel")]
    deal(state, "Brawler")
    assert state.observation_dict(0)["hand"] == ["Refugee"] * 4 + ["Brawler"]
    deal(state, "Scavenger", "Scavenger", "Spear", "Shovel", "Refugee")
    assert state.current_player() == 0 and state.observation_dict(0)["first_player"] == 0
    assert state.observation_dict(1)["opponent"]["hand_size"] == 5


# ---- a round by hand -----------------------------------------------------------------------------
def opening():
    """Round 1 dealt: seat 0 Refugee, Scavenger x2, Brawler, Shovel; seat 1 Refugee x2, Scavenger, Spear,
    Shovel."""
    state = new_state()
    deal(state, "Brawler", "Shovel", "Scavenger", "Scavenger", "Refugee")
    deal(state, "Refugee", "Refugee", "Scavenger", "Spear", "Shovel")
    return state


def test_a_round_worked_by_hand():
    state = opening()
    texts = legal_texts(state)
    assert '["DIG", ["Scavenger", "Brawler", "Shovel"]]' in texts
    assert '["DIG", ["Shovel"]]' not in texts            # a modifier needs a standard card
    assert '["DRAW", ["Scavenger", "Scavenger"]]' in texts and '["DRAW", ["Brawler"]]' not in texts
    assert not any(t.startswith('["HIRE"') for t in texts)   # no FOOD yet
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    # Seat 1 holds neither a Sniper Team nor a Saboteur, but is asked anyway.
    assert state.current_player() == 1 and legal_texts(state) == ['["STOP", ""]']
    assert state.observation_dict(1)["opponent"]["hand_seen"] == {"Brawler": 1, "Shovel": 1}
    say(state, '["STOP", ""]')
    # DIG 1 + 2: three cards turned over, as chance nodes over the junkyard.
    assert dict(state.chance_outcomes())[CARD_NAMES.index("Pills")] == pytest.approx(9 / 42)
    deal(state, "Pickaxe", "Junk", "Medkit")
    assert legal_texts(state) == ["Junk", "Pickaxe", "Medkit"]
    assert state.observation_dict(0)["digging"] == ["Pickaxe", "Junk", "Medkit"]
    assert state.observation_dict(1)["opponent"]["digging"] == 3
    say(state, "Pickaxe")
    mine, theirs = state.observation_dict(0), state.observation_dict(1)
    assert [b["card"] for b in mine["deck_bottom"]] == ["Brawler", "Shovel", "Pickaxe"]
    assert theirs["opponent"]["deck_bottom"] == ["Brawler", "Shovel", None]
    assert mine["junkyard"]["bottom"] == ["Junk", "Medkit"] and theirs["junkyard"]["bottom"] == [None, None]
    assert theirs["opponent"]["cards_unseen"] == 1
    assert theirs["unlocated"] == dict(JUNKYARD) and theirs["junkyard"]["shuffled_known"] == {}
    assert mine["unlocated"] == {} and Counter(mine["junkyard"]["shuffled_known"]) == JUNKYARD - Counter(
        ["Pickaxe", "Junk", "Medkit"])
    say(state, '["HUNT", ["Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    assert state.observation_dict(0)["food"] == 2
    hires = [t for t in legal_texts(state) if t.startswith('["HIRE"')]
    assert hires == ['["HIRE", [], "Brawler"]', '["HIRE", [], "Scavenger"]']
    say(state, '["HIRE", [], "Brawler"]')
    say(state, '["STOP", ""]')
    assert state.observation_dict(0)["food"] == 0
    assert state.hidden_state()["mercenaries"]["Brawler"] == 7
    assert state.observation_dict(1)["opponent"]["cards_known"]["Brawler"] == 2
    # One card left and four actions used: gathering goes on until seat 0 stops.
    assert state.current_player() == 0 and state.observation_dict(0)["hand"] == ["Refugee"]
    say(state, '["STOP", []]')
    assert state.current_player() == 1
    say(state, '["TRASH", ["Refugee"]]')
    say(state, '["STOP", ""]')
    # Trashing shuffles the junkyard: the bottom joins the shuffled part.
    mine = state.observation_dict(0)
    assert mine["junkyard"]["bottom"] == [] and mine["junkyard"]["shuffled_size"] == 42
    assert Counter(mine["junkyard"]["shuffled_known"]) == JUNKYARD - Counter(["Pickaxe"]) + Counter(["Refugee"])
    assert state.observation_dict(1)["opponent_knows"]["cards_known"]["Refugee"] == 3
    say(state, '["STOP", []]')
    # Skirmish: nobody holds a Sniper Team or a Saboteur, so the contested resource is drawn at once.
    # Seat 0: Refugee (FIGHT 0); seat 1: Refugee, Scavenger, Spear, Shovel (FIGHT 1 + 2 + 1).
    assert state.is_chance_node() and state.observation_dict(0)["skirmish"] == {"fight": [0, 4], "tribe": [1, 2]}
    assert state.observation_dict(0)["opponent"]["hand_seen"] == {"Refugee": 1, "Scavenger": 1, "Spear": 1,
                                                                  "Shovel": 1}
    deal(state, "Tribe Family")
    assert state.public_history()[-1] == (-1, CARD_NAMES.index("Tribe Family"),
                                          "skirmish of round 1: FIGHT 0 to 4, tribe members 1 to 2: seat 1 wins "
                                          "and takes the contested resource Tribe Family")
    assert state.observation_dict(0)["opponent"]["cards_known"]["Tribe Family"] == 1
    # Round 2: everything is shuffled back (seat 1's deck holds 10 - 1 + 1 cards), seat 1 goes first.
    view = state.observation_dict(1)
    assert view["round"] == 2 and view["first_player"] == 1 and view["hand"] == []
    assert Counter(view["deck_shuffled"]) == START - Counter(["Refugee"]) + Counter(["Tribe Family"])
    assert sum(state.observation_dict(0)["deck_shuffled"].values()) == 12      # + Pickaxe, Brawler
    check_knowledge(state)


def test_public_history_keeps_drawn_and_dug_cards_private():
    state = opening()
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    say(state, '["STOP", ""]')
    deal(state, "Pickaxe", "Junk", "Medkit")
    say(state, "Pickaxe")
    history = state.public_history()
    assert history[:2] == [(-1, -1, "seat 0 draws a card")] * 2
    assert history[10] == (0, -1, '["DIG", ["Brawler", "Shovel"]] (announced)')
    assert history[11] == (1, PASS, '["STOP", ""] (lets the DIG happen: seat 0 turns over 3 cards of the junkyard)')
    assert history[12] == (-1, -1, "seat 0 turns over a card of the junkyard")
    assert history[15] == (0, -1, "one card kept from the dig, 2 cards put back at the bottom of the junkyard")
    assert not any(name in text for _, _, text in history for name in ("Pickaxe", "Junk", "Medkit"))
    lines = state.observation_string(0).splitlines()
    assert "  - seat 0 turns over a card of the junkyard: Pickaxe" in lines
    assert "  - seat 0: Pickaxe kept from the dig, 2 cards put back at the bottom of the junkyard" in lines
    assert "Pickaxe kept" not in state.observation_string(1)


def test_draw_takes_the_shuffled_deck_then_its_bottom_in_order():
    state = new_state(contested_resources=1)
    deal(state, "Scavenger", "Scavenger", "Scavenger", "Refugee", "Refugee")
    deal(state, "Refugee", "Refugee", "Scavenger", "Spear", "Shovel")
    say(state, '["TRASH", ["Refugee", "Refugee"]]')
    say(state, '["STOP", ""]')
    say(state, '["HUNT", ["Scavenger"]]')
    say(state, '["STOP", ""]')
    # The deck: 5 shuffled, then Scavenger (hunted) at the bottom; DRAW 2 draws two cards of the five.
    say(state, '["DRAW", ["Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    deal(state, "Brawler", "Spear")
    assert state.current_player() == 0
    assert state.observation_dict(0)["hand"] == ["Brawler", "Spear"]
    assert [b["card"] for b in state.observation_dict(0)["deck_bottom"]] == ["Scavenger"] * 3


def test_a_deck_drawn_past_its_shuffled_part_continues_from_the_bottom_without_chance():
    state = new_state(contested_resources=2)
    # Round 1: seat 0 trashes four cards, keeping Scavenger x3, Brawler, Spear, Shovel (6 cards).
    deal(state, "Refugee", "Refugee", "Refugee", "Refugee", "Scavenger")
    deal(state, *["Refugee"] * 4, "Scavenger")
    say(state, '["TRASH", ["Refugee", "Refugee", "Refugee", "Refugee"]]')
    say(state, '["STOP", ""]')
    say(state, '["STOP", []]')
    say(state, '["STOP", []]')
    deal(state, "Wolf Pack")
    assert state.observation_dict(0)["round"] == 2
    assert "FIGHT 1 to 1, tribe members 1 to 5: seat 1 wins" in state.public_history()[-1][2]
    # Round 2 (seat 1 first): seat 0 owns Scavenger x3, Brawler, Spear, Shovel.
    deal(state, "Scavenger", "Scavenger", "Scavenger", "Brawler", "Spear")
    deal(state, "Refugee", "Refugee", "Refugee", "Refugee", "Scavenger")
    say(state, '["STOP", []]')
    say(state, '["HUNT", ["Scavenger"]]')
    say(state, '["STOP", ""]')
    # DRAW 2 with one shuffled card (Shovel) left: then Scavenger from the bottom, then the DRAW cards.
    say(state, '["DRAW", ["Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    assert state.chance_outcomes() == [(CARD_NAMES.index("Shovel"), 1.0)]
    deal(state, "Shovel")
    assert state.current_player() == 0
    assert state.observation_dict(0)["hand"] == ["Scavenger", "Brawler", "Spear", "Shovel"]
    assert [b["card"] for b in state.observation_dict(0)["deck_bottom"]] == ["Scavenger", "Scavenger"]


# ---- interrupts and the skirmish ------------------------------------------------------------------
def armed(extra_for_seat_1=("Sniper Team", "Saboteur")):
    """Seat 0 to gather with Brawler, Shovel, Scavenger x2, Refugee; seat 1 holds its deal plus the
    `extra_for_seat_1` cards (as if hired before). Built from seat 1's view, with seat 0's hand shown."""
    state = opening()
    view = state.observation_dict(1)
    view["hand"] = sorted(view["hand"] + list(extra_for_seat_1), key=CARD_NAMES.index)
    for pile in view["mercenaries"]:
        pile["left"] -= list(extra_for_seat_1).count(pile["card"])
    known = Counter(view["opponent_knows"]["cards_known"]) + Counter(extra_for_seat_1)
    view["opponent_knows"]["cards_known"] = dict(known)
    view["opponent"]["hand_seen"] = {"Refugee": 1, "Scavenger": 2, "Brawler": 1, "Shovel": 1}
    rebuilt = load_game(GAME, preset="gamebench").state_from_view(1, view)
    assert rebuilt.hidden_state()["hands"][0] == ["Refugee", "Scavenger", "Scavenger", "Brawler", "Shovel"]
    check_knowledge(rebuilt)
    return rebuilt


def test_an_interrupt_discards_the_target_and_the_interrupting_card_and_cancels_the_action():
    state = armed()
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    assert legal_texts(state) == ['["STOP", ""]', '["SNIPER", "Brawler"]', '["SABOTEUR", "Shovel"]']
    say(state, '["SNIPER", "Brawler"]')
    hidden = state.hidden_state()
    assert hidden["hands"][0] == ["Refugee", "Scavenger", "Scavenger", "Shovel"]
    assert hidden["decks"][0]["bottom"] == ["Brawler"] and hidden["decks"][1]["bottom"] == ["Sniper Team"]
    assert state.public_history()[-1] == (1, PASS + 32 + CARD_NAMES.index("Brawler"),
                                          '["SNIPER", "Brawler"] (interrupts: seat 0\'s Brawler and seat 1\'s Sniper '
                                          'Team go to the bottoms of their decks; the DIG does not happen)')
    # The DIG was not used: seat 0 may dig again, and seat 1 has no SNIPER left this round.
    assert state.current_player() == 0 and '["DIG", ["Scavenger", "Shovel"]]' in legal_texts(state)
    assert state.observation_dict(1)["actions_used"] == ["SNIPER"]
    say(state, '["DIG", ["Scavenger", "Shovel"]]')
    assert legal_texts(state) == ['["STOP", ""]', '["SABOTEUR", "Shovel"]']
    say(state, '["SABOTEUR", "Shovel"]')
    assert state.observation_dict(1)["actions_used"] == ["SNIPER", "SABOTEUR"]
    say(state, '["DIG", ["Scavenger"]]')
    assert legal_texts(state) == ['["STOP", ""]']
    check_knowledge(state)


def test_skirmish_interrupts_keep_the_card_and_each_is_used_once_a_round():
    state = armed()
    say(state, '["STOP", []]')
    say(state, '["STOP", []]')
    # Seat 0 has nothing to use, so its skirmish turn passes; seat 1 may snipe or sabotage.
    assert state.current_player() == 1
    texts = legal_texts(state)
    assert texts == ['["STOP", ""]', '["SNIPER", "Refugee"]', '["SNIPER", "Scavenger"]', '["SNIPER", "Brawler"]',
                     '["SABOTEUR", "Shovel"]']
    say(state, '["SNIPER", "Brawler"]')
    assert legal_texts(state) == ['["STOP", ""]', '["SABOTEUR", "Shovel"]']
    say(state, '["SABOTEUR", "Shovel"]')
    # Both used: the skirmish is decided. Seat 0: Refugee, Scavenger x2 (FIGHT 2, 3 members); seat 1 keeps
    # its Sniper Team and Saboteur in hand: FIGHT 1 + 2 + 1 + 1 = 5.
    assert state.is_chance_node()
    assert state.observation_dict(0)["skirmish"] == {"fight": [2, 5], "tribe": [3, 6]}
    assert state.hidden_state()["hands"][1] == ["Refugee", "Refugee", "Scavenger", "Saboteur", "Sniper Team",
                                                "Spear", "Shovel"]


def finish_one_round(hand0, hand1, **parameters):
    """A one-round game in which both seats stop at once with these hands; the contested card is Wolf Pack."""
    state = new_state(contested_resources=1, **parameters)
    deal(state, *hand0, *hand1)
    say(state, '["STOP", []]')
    say(state, '["STOP", []]')
    deal(state, "Wolf Pack")
    assert state.is_terminal()
    return state


def test_skirmish_ties_go_to_the_larger_tribe_then_to_the_junkyard():
    # Equal FIGHT (5), more tribe members for seat 0 (4 to 3): seat 0 wins the contested resource and the game.
    state = finish_one_round(["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"],
                             ["Refugee", "Refugee", "Brawler", "Spear", "Shovel"])
    assert state.result_details()["skirmishes"] == [{"round": 1, "fight": [5, 5], "tribe_members": [4, 3],
                                                      "winner": 0, "contested_resource": "Wolf Pack"}]
    assert state.hidden_state()["decks"][0]["bottom"] == ["Wolf Pack"]
    assert state.returns() == [1.0, 0.0]
    # Equal FIGHT and members: the resource is shuffled into the junkyard; the tie goes to seat 1.
    state = finish_one_round(["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"],
                             ["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"])
    assert Counter(state.hidden_state()["junkyard"]["shuffled"])["Wolf Pack"] == 1
    assert state.result_details()["skirmishes"][0]["winner"] is None
    assert state.returns() == [0.0, 1.0]
    assert state.result_summary() == "seat 1 wins with 4 tribe members in hand against 4 (a tie goes to seat 1)"


def test_the_final_count_is_over_the_hand_and_split_ties_are_an_option():
    state = finish_one_round(["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"],
                             ["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"], tie_rule="split")
    assert state.returns() == [0.5, 0.5]
    # More FIGHT but fewer members: seat 1 takes the resource (into its deck), seat 0 wins the game.
    state = finish_one_round(["Refugee", "Refugee", "Refugee", "Refugee", "Scavenger"],
                             ["Brawler", "Spear", "Shovel", "Scavenger", "Refugee"])
    assert state.result_details()["skirmishes"][0]["winner"] == 1
    assert state.returns() == [1.0, 0.0] and state.result_details()["winner"] == 0
    assert "You score 1." in state.observation_string(0)


# ---- legality ------------------------------------------------------------------------------------
def test_illegal_moves_are_refused_and_leave_the_state_unchanged():
    state = opening()
    before = state.observation_string(0)
    for text in ('["DIG", ["Shovel"]]', '["HIRE", [], "Brawler"]', '["DRAW", ["Brawler"]]'):
        with pytest.raises(IllegalActionError):
            state.apply_action(state.parse_action(0, text))
    with pytest.raises(IllegalActionError):
        state.apply_action(PASS)                # not a response decision
    assert state.observation_string(0) == before
    say(state, '["HUNT", ["Scavenger"]]')
    say(state, '["STOP", ""]')
    with pytest.raises(IllegalActionError):      # each action once a round
        state.apply_action(state.parse_action(0, '["HUNT", ["Scavenger"]]'))
    with pytest.raises(IllegalActionError):      # 1 FOOD does not pay for a Brawler
        state.apply_action(state.parse_action(0, '["HIRE", [], "Brawler"]'))
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    with pytest.raises(IllegalActionError):      # no Sniper Team in seat 1's hand
        state.apply_action(PASS + 32 + CARD_NAMES.index("Brawler"))


def test_medicine_pays_the_medicine_cost_and_may_overpay():
    state = new_state()
    deal(state, "Scavenger", "Scavenger", "Scavenger", "Refugee", "Refugee")
    deal(state, "Refugee", "Refugee", "Scavenger", "Spear", "Shovel")
    state = load_game(GAME, preset="gamebench").state_from_view(0, _with_medicine(state.observation_dict(0)))
    say(state, '["HUNT", ["Scavenger", "Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    hires = [t for t in legal_texts(state) if t.startswith('["HIRE"')]
    # 3 FOOD; Medkit (2) and Pills (1) in hand.
    assert '["HIRE", ["Pills"], "Hunter"]' in hires and '["HIRE", [], "Hunter"]' not in hires
    assert '["HIRE", ["Medkit", "Pills"], "Hunter"]' in hires             # overpaying is allowed
    assert '["HIRE", ["Medkit"], "Group Leaders"]' in hires and '["HIRE", ["Pills"], "Group Leaders"]' not in hires
    assert not any('"Thug"' in t for t in hires)                             # 6 FOOD
    say(state, '["HIRE", ["Medkit", "Pills"], "Sniper Team"]')
    say(state, '["STOP", ""]')
    assert state.observation_dict(0)["food"] == 1
    assert [b["card"] for b in state.observation_dict(0)["deck_bottom"]][-3:] == ["Medkit", "Pills", "Sniper Team"]
    check_knowledge(state)


def _with_medicine(view: dict) -> dict:
    """Seat 0's view with a Medkit and Pills added to its hand, as if dug in an earlier round."""
    view["hand"] += ["Medkit", "Pills"]
    view["unlocated"] = {}
    view["junkyard"]["shuffled_known"] = dict(JUNKYARD - Counter(["Medkit", "Pills"]))
    view["opponent_knows"]["cards_unseen"] = 2
    return view


# ---- the parser ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ('["DIG", ["Brawler", "Shovel"]]', '["DIG", ["Brawler", "Shovel"]]'),
    ("['DIG', ['Shovel', 'Brawler']]", '["DIG", ["Brawler", "Shovel"]]'),
    ('I will dig. ["HUNT", ["Scavenger"]] no wait: ["DIG", ["Brawler", "shovel"]]', '["DIG", ["Brawler", "Shovel"]]'),
    ('{"action": "DIG", "openended_response": "[\\"DIG\\", [\\"Brawler\\", \\"Shovel\\"]]"}',
     '["DIG", ["Brawler", "Shovel"]]'),
    ('Reasoning... {"action": "HUNT", "openended_response": ["Scavenger", "Scavenger"]}',
     '["HUNT", ["Scavenger", "Scavenger"]]'),
    ('{"action": "STOP", "openended_response": null}', '["STOP", []]'),
    ('["STOP", []]', '["STOP", []]'),
    ("STOP", '["STOP", []]'),
    ('["HIRE", [], "brawler"]', '["HIRE", [], "Brawler"]'),
    ('{"action": "HIRE", "openended_response": "[[], \\"Scavenger\\"]"}', '["HIRE", [], "Scavenger"]'),
    ('["TRASH", "Refugee"]', '["TRASH", ["Refugee"]]'),
])
def test_parser_reads_gamebenchs_gathering_answers(text, expected):
    state = opening()
    assert state.action_to_string(0, state.parse_action(0, text)) == expected


@pytest.mark.parametrize("text", ["", "dig", '["DIG", ["Thug"]]', '["DIG", ["Brawler", "Brawler"]]',
                                  '["HIRE", ["Pills"]]', '["FIGHT", []]', '{"action": 3}', '[[[]]]',
                                  '["DIG", ["Unicorn"]]', "[" * 500])
def test_parser_refuses_what_is_not_a_gathering_answer(text):
    with pytest.raises(ActionParseError, match="Expected one action as a list"):
        opening().parse_action(0, text)


def test_parser_reads_responses_dug_cards_and_skirmish_answers():
    state = armed()
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    for text, expected in [('["SNIPER", "Brawler"]', '["SNIPER", "Brawler"]'),
                           ('{"action": "SNIPER", "openended_response": "Brawler"}', '["SNIPER", "Brawler"]'),
                           ('{"action": "SABOTEUR", "openended_response": "[\\"Shovel\\"]"}',
                            '["SABOTEUR", "Shovel"]'),
                           ('["STOP", ""]', '["STOP", ""]'), ("STOP", '["STOP", ""]')]:
        action = state.parse_action(1, text)
        assert action in state.legal_actions(1) and state.action_to_string(1, action) == expected
    with pytest.raises(ActionParseError, match='"SNIPER", "<card of the announced action>"'):
        state.parse_action(1, '["SNIPER"]')
    with pytest.raises(ActionParseError, match="not your turn"):
        state.parse_action(0, '["STOP", []]')
    say(state, '["STOP", ""]')
    deal(state, "Pickaxe", "Junk", "Medkit")
    for text in ("Pickaxe", "pickaxe", '{"action": "Pickaxe", "openended_response": null}', '["Pickaxe"]'):
        assert state.action_to_string(0, state.parse_action(0, text)) == "Pickaxe"
    with pytest.raises(ActionParseError, match="title of the card to keep"):
        state.parse_action(0, "the best one")


def test_text_answers_and_no_default_action():
    state = opening()
    spec = state.text_action_spec(0)
    assert spec["max_length"] == 4000 and '["DIG", ["Brawler", "Shovel"]]' in spec["description"]
    assert state.text_action_spec(1) is None and state.default_action(0) is None


# ---- hidden information --------------------------------------------------------------------------
def random_states(seeds, parameters=None):
    """(state, seat to move) at every decision of seeded random playouts."""
    game = load_game(GAME, parameters or {}, preset="gamebench")
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                yield state, state.current_player()
            state.step_randomly(rng)
        yield state, None


def test_a_seat_never_sees_the_opponents_private_cards():
    for state, _ in random_states(range(4)):
        for seat in range(2):
            view = state.observation_dict(seat)
            for entry in view["log"]:
                if entry["kind"] in ("deal", "draw", "dig", "keep") and entry["seat"] != seat:
                    assert entry["card"] is None
            if view["phase"] not in ("skirmish", "award", "end"):
                assert sum(view["opponent"]["hand_seen"].values()) <= view["opponent"]["hand_size"]


def test_leak_a_seats_view_does_not_change_when_only_what_it_cannot_see_does():
    redrawn = 0
    for state, mover in random_states(range(3)):
        for seat in range(2):
            mine = (state.observation_string(seat), state.observation_dict(seat), state.public_history(),
                    state.legal_actions(seat))
            theirs = state.hidden_state()["hands"][1 - seat]
            for resample in range(3):
                other = state.resample_hidden(seat, resample)
                assert (other.observation_string(seat), other.observation_dict(seat), other.public_history(),
                        other.legal_actions(seat)) == mine
                check_knowledge(other)
                redrawn += other.hidden_state()["hands"][1 - seat] != theirs
    assert redrawn > 100


def test_what_each_seat_accounts_for_matches_the_hidden_state():
    for state, _ in random_states(range(12)):
        check_knowledge(state)


def test_resample_hidden_depends_only_on_the_view_and_keeps_what_the_seat_saw():
    for state, mover in random_states([5]):
        if mover is None:
            continue
        seat = 1 - mover
        view = state.observation_dict(seat)
        rebuilt = load_game(GAME, preset="gamebench").state_from_view(seat, view)
        assert state.resample_hidden(seat, 9).hidden_state() == rebuilt.resample_hidden(seat, 9).hidden_state()
        seen = view["opponent"]["hand_seen"]
        assert not Counter(seen) - Counter(state.resample_hidden(seat, 3).hidden_state()["hands"][1 - seat])


def test_state_from_view_rebuilds_the_seats_view_through_whole_games():
    game = load_game(GAME, preset="gamebench")
    for state, _ in random_states(range(3)):
        for seat in range(2):
            view = state.observation_dict(seat)
            rebuilt = game.state_from_view(seat, view)
            assert rebuilt.observation_dict(seat) == view
            assert rebuilt.observation_string(seat) == state.observation_string(seat)
            assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
            assert rebuilt.current_player() == state.current_player()
            assert rebuilt.public_history() == state.public_history()
            check_knowledge(rebuilt)


# ---- random playouts against a re-implementation ------------------------------------------------
class Reference:
    """GameBench's rules over multisets, written independently of the engine: hands, decks (shuffled
    part and ordered bottom), the junkyard (likewise), FOOD and the actions used."""

    def __init__(self, rounds: int):
        self.rounds, self.round, self.awards = rounds, 0, 0
        self.hands = [Counter(), Counter()]
        self.shuffled = [Counter(START), Counter(START)]
        self.bottom = [[], []]
        self.junk, self.junk_bottom, self.dug = Counter(JUNKYARD), [], []
        self.contested, self.piles = Counter(CONTESTED), dict(PILES)
        self.food, self.used = [0, 0], [set(), set()]
        self.active, self.pending, self.to_draw, self.to_dig = 0, None, 0, 0
        self.dealing = [5, 5]

    def legal_gathering(self, seat: int) -> set[str]:
        hand = self.hands[seat]
        names = sorted(hand, key=CARD_NAMES.index)
        subsets = []
        for counts in product(*(range(hand[n] + 1) for n in names)):
            cards = [n for n, k in zip(names, counts) for _ in range(k)]
            if cards:
                subsets.append(cards)
        out = {'["STOP", []]'}
        for action in ("DIG", "DRAW", "HUNT"):
            if action in self.used[seat]:
                continue
            for cards in subsets:
                kinds = [REFERENCE_CARDS[c][1].get(action) for c in cards]
                if None not in kinds and any(not modifier for _, modifier in kinds):
                    out.add(json.dumps([action, cards]))
        if "HIRE" not in self.used[seat]:
            medicine = [c for c in names if c in ("Medkit", "Pills")]
            for pile, left in self.piles.items():
                food_cost, medicine_cost = REFERENCE_CARDS[pile][2]
                if not left or self.food[seat] < food_cost:
                    continue
                for counts in product(*(range(hand[n] + 1) for n in medicine)):
                    cards = [n for n, k in zip(medicine, counts) for _ in range(k)]
                    if sum(value(c, "MEDICINE") for c in cards) >= medicine_cost:
                        out.add(json.dumps(["HIRE", cards, pile]))
        if "TRASH" not in self.used[seat]:
            out |= {json.dumps(["TRASH", cards]) for cards in subsets}
        return out

    def settle(self) -> None:
        """Draws that need no chance node: from the ordered bottoms once the shuffled parts are empty."""
        while self.to_draw and not self.shuffled[self.active] and self.bottom[self.active]:
            self.hands[self.active][self.bottom[self.active].pop(0)] += 1
            self.to_draw -= 1
        if not self.shuffled[self.active]:
            self.to_draw = 0
        while self.to_dig and not self.junk and self.junk_bottom:
            self.dug.append(self.junk_bottom.pop(0))
            self.to_dig -= 1
        if not self.junk:
            self.to_dig = 0

    def chance(self, text: str, public: str) -> None:
        """A chance outcome by its text ("deal X", "draw X", "turn over X", "contested resource X")."""
        if text.startswith("turn over "):
            card = text[len("turn over "):]
            self.junk[card] -= 1
            self.junk += Counter()
            self.dug.append(card)
            self.to_dig -= 1
        elif text.startswith("contested resource "):
            self.award(text[len("contested resource "):], public)
        else:
            verb, card = text.split(" ", 1)
            seat = (0 if self.dealing[0] else 1) if verb == "deal" else self.active
            if verb == "deal":
                self.dealing[seat] -= 1
            else:
                self.to_draw -= 1
            self.shuffled[seat][card] -= 1
            self.shuffled[seat] += Counter()
            self.hands[seat][card] += 1
        self.settle()

    def award(self, card: str, public: str) -> None:
        fights = [fight(self.hands[s].elements()) for s in range(2)]
        members = [tribe(self.hands[s].elements()) for s in range(2)]
        winner = None if fights[0] == fights[1] and members[0] == members[1] else (
            int(fights[1] > fights[0]) if fights[0] != fights[1] else int(members[1] > members[0]))
        assert f"FIGHT {fights[0]} to {fights[1]}, tribe members {members[0]} to {members[1]}" in public
        assert (f"seat {winner} wins" in public) if winner is not None else ("a tie" in public)
        self.contested[card] -= 1
        self.contested += Counter()
        if winner is None:
            self.junk[card] += 1
            self.shuffle_junkyard()
        else:
            self.bottom[winner].append(card)
        self.awards += 1
        if self.awards < self.rounds:
            self.round += 1
            for s in range(2):
                self.shuffled[s] += self.hands[s] + Counter(self.bottom[s])
                self.hands[s], self.bottom[s] = Counter(), []
                self.food[s], self.used[s] = 0, set()
            self.dealing = [min(5, sum(self.shuffled[s].values())) for s in range(2)]

    def shuffle_junkyard(self) -> None:
        self.junk += Counter(self.junk_bottom)
        self.junk_bottom = []

    def play(self, seat: int, decision: str, text: str) -> None:
        if decision == "keep":
            self.dug.remove(text)
            self.bottom[seat].append(text)
            self.junk_bottom += self.dug
            self.dug = []
            return
        items = json.loads(text)
        if decision == "gather":
            self.active = seat
            if items[0] != "STOP":
                self.pending = items
            return
        word = items[0]
        if decision == "skirmish":
            if word != "STOP":
                self.used[seat].add(word)
                self.hands[1 - seat][items[1]] -= 1
                self.hands[1 - seat] += Counter()
                self.bottom[1 - seat].append(items[1])
            return
        announcer, pending, self.pending = 1 - seat, self.pending, None
        if word != "STOP":
            self.used[seat].add(word)
            own = "Sniper Team" if word == "SNIPER" else "Saboteur"
            for owner, card in ((announcer, items[1]), (seat, own)):
                self.hands[owner][card] -= 1
                self.hands[owner] += Counter()
                self.bottom[owner].append(card)
            return
        action, cards = pending[0], pending[1]
        self.used[announcer].add(action)
        hand = self.hands[announcer]
        hand -= Counter(cards)
        if action == "TRASH":
            self.junk += Counter(cards)
            self.shuffle_junkyard()
            return
        self.bottom[announcer] += cards
        total = sum(value(c, action) for c in cards)
        if action == "DIG":
            self.to_dig = min(total, sum(self.junk.values()) + len(self.junk_bottom))
        elif action == "DRAW":
            self.to_draw = min(total, sum(self.shuffled[announcer].values()) + len(self.bottom[announcer]))
        elif action == "HUNT":
            self.food[announcer] += total
        else:
            mercenary = pending[2]
            self.food[announcer] -= REFERENCE_CARDS[mercenary][2][0]
            self.piles[mercenary] -= 1
            self.bottom[announcer].append(mercenary)
        self.settle()

    def matches(self, hidden: dict) -> bool:
        return (hidden["hands"] == [sorted(self.hands[s].elements(), key=CARD_NAMES.index) for s in range(2)]
                and [Counter(d["shuffled"]) for d in hidden["decks"]] == self.shuffled
                and [d["bottom"] for d in hidden["decks"]] == self.bottom
                and Counter(hidden["junkyard"]["shuffled"]) == self.junk
                and hidden["junkyard"]["bottom"] == self.junk_bottom and hidden["digging"] == self.dug
                and Counter(hidden["contested"]) == self.contested and hidden["mercenaries"] == self.piles
                and hidden["food"] == self.food)


@pytest.mark.parametrize("rounds,seeds", [(5, range(40)), (2, range(40, 60))])
def test_random_playouts_follow_the_reference_rules(rounds, seeds):
    game = load_game(GAME, {"contested_resources": rounds}, preset="gamebench")
    spec = game_spec(GAME)
    for seed in seeds:
        rng = random.Random(seed)
        state, ref = game.new_initial_state(), Reference(rounds)
        while not state.is_terminal():
            assert ref.matches(state.hidden_state()), (seed, state.move_number)
            seat = state.current_player()
            if seat == CHANCE:
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
                text = state.action_to_string(CHANCE, action)
                state.apply_action(action)
                ref.chance(text, state.public_history()[-1][2])
                continue
            decision = state.observation_dict(seat)["decision"]
            if decision == "gather":
                assert set(legal_texts(state)) == ref.legal_gathering(seat)
                assert len(state.hidden_state()["hands"][seat]) <= 10
            action = rng.choice(state.legal_actions())
            ref.play(seat, decision, state.action_to_string(seat, action))
            state.apply_action(action)
        assert ref.matches(state.hidden_state())
        assert state.move_number <= spec.max_game_length
        hands = [ref.hands[s].elements() for s in range(2)]
        members = [tribe(h) for h in hands]
        assert state.returns() == ([1.0, 0.0] if members[0] > members[1] else [0.0, 1.0])


def test_same_seed_same_game_and_clones_are_independent():
    def playout(seed):
        rng, state = random.Random(seed), new_state()
        while not state.is_terminal():
            state.step_randomly(rng)
        return state.history(), state.returns()

    assert playout(3) == playout(3) and playout(3) != playout(4)
    state = opening()
    copy = state.clone()
    say(copy, '["DIG", ["Brawler", "Shovel"]]')
    assert state.current_player() == 0 and state.observation_dict(1)["opponent"]["hand_seen"] == {}
    assert copy.observation_dict(1)["opponent"]["hand_seen"] == {"Brawler": 1, "Shovel": 1}


def test_result_details_reveal_everything_at_the_end():
    state = finish_one_round(["Refugee", "Refugee", "Scavenger", "Brawler", "Spear"],
                             ["Refugee", "Refugee", "Brawler", "Spear", "Shovel"])
    details = state.result_details()
    assert details["tribe_members"] == [4, 3] and details["winner"] == 0
    assert details["final"]["hands"][1] == ["Refugee", "Refugee", "Brawler", "Spear", "Shovel"]
    assert "seat 1 draws a card: Refugee" in details["moves"]


def test_spec_preset_and_parameters():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.utility, spec.min_utility, spec.max_utility) == \
        (2, 2, "constant_sum", 0.0, 1.0)
    assert [p.name for p in spec.presets] == ["gamebench"]
    assert spec.preset("gamebench").values == {"contested_resources": 5, "tie_rule": "second_seat_wins"}
    for bad in ({"contested_resources": 0}, {"contested_resources": 6}, {"tie_rule": "coin"}):
        with pytest.raises(ValueError):
            load_game(GAME, bad)
    with pytest.raises(ValueError):
        load_game(GAME, num_players=3)
