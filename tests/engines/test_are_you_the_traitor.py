"""Are You the Traitor? (GameBench, gamebench.md section 2.3): hand-worked exchanges, rounds, treasure and
magic rings, the end and its ties, the exchange limit, messages and answer parsers, replay of a match
with its dialogue, random playouts against a separate implementation of the rules, and no seat ever
seeing another seat's role, briefing, cards or STOP call."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.are_you_the_traitor import ANSWERS, KIND_IDS, QUESTIONS, ROLE_IDS, briefing
from arena_engines.core import CHANCE, ActionParseError, IllegalActionError, TextRejectedError

GAME = "are_you_the_traitor"
TALK, ASK, ANSWER, STOP, PASS, ACCUSE = 0, 5, 6, 7, 8, 10
HEARD, NOBODY, DRAWN, NO_THEFT, THEFT = 20, 25, 30, 99, 100
POINTS = dict(zip(KIND_IDS, (5, 4, 3, 2, 1, 1, 0)))
DECK = dict(zip(KIND_IDS, (2, 5, 12, 11, 5, 5, 2)))
TEAM = ["evil", "evil", "good", "good", "good"]


def new_state(**overrides):
    return load_game(GAME, overrides, preset="gamebench").new_initial_state()


def exchange(state, asker, target, question="Who is the Traitor?", answer="Not me.", callers=(), heard=None):
    """One exchange up to the caller heard (or nobody): the calls are STOP for `callers`, else Pass."""
    state.apply_action(asker)
    state.apply_action(TALK + target)
    state.apply_action(ASK, question)
    state.apply_action(ANSWER, answer)
    call(state, *[STOP if seat in callers else PASS for seat in range(5)])
    state.apply_action(NOBODY if heard is None else HEARD + heard)


def call(state, *calls):
    """The STOP calls of seats 0-4, in seat order (the Traitor's is always Pass)."""
    for seat, action in enumerate(calls):
        assert state.current_player() == seat
        state.apply_action(action)


def round_won(state, caller, accused, *cards, asker=3, target=4):
    """An exchange in which `caller` alone calls STOP and accuses `accused`, then the draws `cards` and
    the ring steps where no ring is used, up to the first theft if any."""
    exchange(state, asker, target, callers=(caller,), heard=caller)
    state.apply_action(ACCUSE + accused)
    for card in cards:
        state.apply_action(DRAWN + KIND_IDS.index(card))
    quiet_ring_steps(state)


def quiet_ring_steps(state):
    """Plays the ring steps at which no ring is used, up to a theft or the end of the round."""
    while state.chance_outcomes() == [(NO_THEFT, 1.0)]:
        state.apply_action(NO_THEFT)


def steal(state, victim, card):
    state.apply_action(theft(victim, card))
    quiet_ring_steps(state)


def theft(victim, card):
    return THEFT + 10 * victim + KIND_IDS.index(card)


# ---- spec, parameters, the deal ------------------------------------------------------------------
def test_spec_preset_and_seat_sides():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.dynamics, spec.chance, spec.information, spec.utility,
            spec.min_utility, spec.max_utility, spec.dialogue, spec.accepts_text_actions) == (
        5, 5, "sequential", "stochastic", "imperfect", "constant_sum", 0.0, 1.0, True, True)
    assert [p.name for p in spec.presets] == ["gamebench"]
    game = load_game(GAME, preset="gamebench")
    assert game.parameters == {"winning_points": 10, "max_exchanges": 50}
    assert spec.defaults() == game.parameters
    assert game.seat_sides() == [0, 0, 1, 1, 1]


@pytest.mark.parametrize("overrides", [{"winning_points": 0}, {"winning_points": 11}, {"max_exchanges": 0},
                                       {"max_exchanges": 201}])
def test_bad_parameters_are_refused(overrides):
    with pytest.raises(ValueError, match=next(iter(overrides))):
        load_game(GAME, overrides)
    with pytest.raises(ValueError):
        load_game(GAME, num_players=4)


def test_gamebench_deal_roles_targets_and_briefings():
    state = new_state()
    for seat, role in enumerate(ROLE_IDS):
        view = state.observation_dict(seat)
        assert (view["role"], view["team"], view["wizards"]) == (role, TEAM[seat], [1, 2])
        assert view["target"] == [None, "key_holder", "traitor", "good_wizard", "traitor"][seat]
        assert view["briefing"] == briefing(seat, seat) and view["briefing"].startswith(f"I am player {seat}.")
    assert "As the Traitor you never call STOP." in state.observation_string(0)
    assert "Your target is the Key Holder" in state.observation_string(1)


def test_an_exchange_a_random_asker_picks_a_target_asks_and_is_answered():
    state = new_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(seat, 0.2) for seat in range(5)]   # the Traitor may ask too
    state.apply_action(0)
    assert state.current_player() == 0
    assert state.legal_actions() == [1, 2, 3, 4]
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == [
        "talk to player 1", "talk to player 2", "talk to player 3", "talk to player 4"]
    state.apply_action(TALK + 3)
    assert state.legal_actions() == [ASK] and state.action_to_string(0, ASK) == "ask a question"
    state.apply_action(ASK, "  Which wizard do you trust?  ")
    assert state.current_player() == 3 and state.legal_actions() == [ANSWER]
    state.apply_action(ANSWER, "Neither, yet.")
    # The calls, in seat order: the Traitor can only pass.
    assert state.current_player() == 0 and state.legal_actions() == [PASS]
    assert "Your move: Pass: as the Traitor you never call STOP." in state.observation_string(0)
    assert state.legal_actions(2) == []
    state.apply_action(PASS)
    assert state.current_player() == 1 and state.legal_actions() == [STOP, PASS]
    expected = [{"move": 2, "seat": 0, "text": "Which wizard do you trust?"},
                {"move": 3, "seat": 3, "text": "Neither, yet."}]
    for seat in range(5):
        assert state.conversation(seat) == expected
        assert state.observation_dict(seat)["exchanges"] == [{
            "round": 1, "asker": 0, "target": 3, "question": "Which wizard do you trust?", "skipped": False,
            "answer": "Neither, yet.", "calls_settled": False, "caller": None, "accused": None}]
    assert 'Round 1, exchange 1: player 0 asked player 3: "Which wizard do you trust?"' in state.observation_string(4)


def test_nobody_calling_stop_starts_another_exchange_in_the_same_round():
    state = new_state()
    state.apply_action(1)
    state.apply_action(TALK + 2)
    state.apply_action(ASK, "skip")
    state.apply_action(ANSWER, "")
    call(state, PASS, PASS, PASS, PASS, PASS)
    assert state.chance_outcomes() == [(NOBODY, 1.0)]
    state.apply_action(NOBODY)
    assert state.current_player() == CHANCE and state.chance_outcomes()[0] == (0, 0.2)
    view = state.observation_dict(3)
    assert view["round"] == 1 and view["exchanges_begun"] == 1 and view["rounds"] == []
    assert view["exchanges"][0]["skipped"] and view["exchanges"][0]["question"] is None
    text = state.observation_string(3)
    assert "player 1 chose player 2 and asked nothing." in text and "Nobody called STOP." in text


def test_the_caller_heard_is_drawn_among_those_who_called():
    state = new_state()
    state.apply_action(2)
    state.apply_action(TALK + 0)
    state.apply_action(ASK, "Q")
    state.apply_action(ANSWER, "A")
    call(state, PASS, STOP, PASS)
    # The calls are secret: seat 3 is told only that it is its turn; seat 1 knows its own call.
    assert state.observation_dict(3)["my_call"] is None and state.observation_dict(1)["my_call"] == "STOP"
    assert "Player 3 is deciding whether to call STOP (each player's call is secret). You called STOP." in \
        state.observation_string(1)
    assert state.public_history()[-1] == (0, ANSWER, "answer")
    state.apply_action(STOP)
    state.apply_action(STOP)
    assert state.public_history()[-1] == (0, ANSWER, "answer")
    assert state.chance_outcomes() == [(HEARD + 1, pytest.approx(1 / 3)), (HEARD + 3, pytest.approx(1 / 3)),
                                       (HEARD + 4, pytest.approx(1 / 3))]
    assert state.observation_dict(1)["my_call"] == "STOP" and state.observation_dict(2)["my_call"] == "Pass"
    assert state.observation_dict(0)["my_call"] == "Pass"                  # the Traitor's forced pass
    assert "You passed." in state.observation_string(2)
    state.apply_action(HEARD + 3)
    assert state.current_player() == 3
    assert state.legal_actions() == [ACCUSE + s for s in (0, 1, 2, 4)]
    assert state.action_to_string(3, ACCUSE + 2) == "accuse player 2"
    assert state.observation_dict(1)["my_call"] is None                    # settled: nothing more to show


@pytest.mark.parametrize("caller,accused,winner", [
    (2, 0, "good"), (2, 4, "evil"),         # the Good Wizard seeks the Traitor
    (4, 0, "good"), (4, 3, "evil"),         # so does the Guard
    (3, 2, "good"), (3, 1, "evil"),         # the Key Holder seeks the Good Wizard
    (1, 3, "evil"), (1, 4, "good"), (1, 0, "good"),   # the Evil Wizard seeks the Key Holder
])
def test_the_round_goes_to_the_callers_team_only_when_the_accused_is_its_target(caller, accused, winner):
    state = new_state()
    round_won(state, caller, accused)
    assert state.observation_dict(0)["rounds"] == [{"round": 1, "caller": caller, "accused": accused,
                                                    "winner": winner, "treasure_settled": False}]
    drawers = [s for s in range(5) if TEAM[s] == winner]
    for card in ("bags_of_gold", "silver_goblets", "chest_of_copper")[:len(drawers)]:
        assert state.is_chance_node()
        state.apply_action(DRAWN + KIND_IDS.index(card))
    for _ in range(5):                      # one ring step per seat, none used
        assert state.chance_outcomes() == [(NO_THEFT, 1.0)]
        state.apply_action(NO_THEFT)
    assert state.chance_outcomes() == [(s, 0.2) for s in range(5)]        # the next round's first exchange
    hands = [state.observation_dict(s)["treasure"] for s in range(5)]
    assert [bool(h) for h in hands] == [TEAM[s] == winner for s in range(5)]


def test_a_hand_worked_round_deal_views_and_public_history():
    state = new_state()
    round_won(state, 4, 0, asker=1, target=0)
    # Good wins: seats 2, 3, 4 draw in seat order from the full deck.
    assert state.chance_outcomes() == [(DRAWN + k, DECK[kind] / 42) for k, kind in enumerate(KIND_IDS)]
    state.apply_action(DRAWN + KIND_IDS.index("crown_jewels"))
    # The treasure shows only once the round's treasure is all handed out.
    assert state.observation_dict(2)["treasure"] == [] and "Round 1's treasure is being handed out." in \
        state.observation_string(2)
    state.apply_action(DRAWN + KIND_IDS.index("crown_jewels"))
    # Both crown jewels are gone: the third draw is from the 40 cards left.
    assert state.chance_outcomes() == [(DRAWN + k, DECK[kind] / 40) for k, kind in enumerate(KIND_IDS) if k > 0]
    state.apply_action(DRAWN + KIND_IDS.index("silver_goblets"))
    quiet_ring_steps(state)
    views = [state.observation_dict(s) for s in range(5)]
    assert [v["treasure"] for v in views] == [[], [], ["crown_jewels"], ["crown_jewels"], ["silver_goblets"]]
    assert [v["points"] for v in views] == [0, 0, 5, 5, 2]
    assert views[4]["treasure_log"] == [{"round": 1, "event": "drew", "card": "silver_goblets"}]
    text = state.observation_string(4)
    assert "Your treasure: silver goblets (2 points); 2 points in all." in text
    assert "Round 1: you drew silver goblets (2 points)." in text
    assert "Player 4 called STOP and accused player 0: the Good team wins round 1." in text
    assert state.public_history() == [
        (CHANCE, 1, "player 1 asks the next question"), (1, 0, "talk to player 0"), (1, ASK, "ask a question"),
        (0, ANSWER, "answer"), (CHANCE, HEARD + 4, "player 4 calls STOP and is heard"),
        (4, ACCUSE, "accuse player 0"), (CHANCE, -1, "round 1 goes to the Good team")]


# ---- magic rings and the gilded statue ------------------------------------------------------------
def test_a_ring_waits_while_no_opponent_has_cards_then_takes_the_gilded_statue_first():
    state = new_state()
    round_won(state, 2, 0, "magic_ring", "bags_of_gold", "silver_goblets")     # Good: 2, 3, 4 draw
    assert state.chance_outcomes()[0][0] == 0                                  # no Evil cards: the ring waits
    round_won(state, 3, 1, "gilded_statue", "chest_of_copper")                  # Evil: 0, 1 draw
    # Seat 2's ring: victims are Evil players holding cards, alike; seat 0 holds the statue.
    assert state.chance_outcomes() == [(theft(0, "gilded_statue"), 0.5), (theft(1, "chest_of_copper"), 0.5)]
    steal(state, 0, "gilded_statue")
    views = [state.observation_dict(s) for s in range(5)]
    assert views[2]["treasure"] == ["gilded_statue"] and views[0]["treasure"] == []
    assert views[2]["treasure_log"] == [{"round": 1, "event": "drew", "card": "magic_ring"},
                                        {"round": 2, "event": "used", "card": "magic_ring"},
                                        {"round": 2, "event": "took", "card": "gilded_statue"}]
    assert views[0]["treasure_log"][-1] == {"round": 2, "event": "lost", "card": "gilded_statue"}
    assert "an opponent's magic ring took your gilded statue (0 points)." in state.observation_string(0)
    assert "your magic ring took gilded statue (0 points) from an opponent." in state.observation_string(2)
    # Nobody else learns of the theft.
    for seat in (1, 3, 4):
        assert "magic_ring" not in json.dumps(views[seat]["treasure_log"])
        assert "magic ring took" not in state.observation_string(seat)


def test_a_victim_without_a_statue_loses_a_random_card_by_its_count():
    state = new_state()
    round_won(state, 1, 3, "bags_of_gold", "bags_of_gold")                      # Evil: 0 and 1
    round_won(state, 1, 3, "silver_goblets", "bags_of_gold")                    # Evil again
    round_won(state, 2, 0, "magic_ring", "chest_of_copper", "crown_jewels")     # Good: 2 uses its ring at once
    assert state.chance_outcomes() == [(theft(0, "bags_of_gold"), 0.25), (theft(0, "silver_goblets"), 0.25),
                                       (theft(1, "bags_of_gold"), 0.5)]
    steal(state, 1, "bags_of_gold")
    assert state.observation_dict(1)["treasure"] == ["bags_of_gold"]
    assert state.observation_dict(2)["treasure"] == ["bags_of_gold"]          # the ring is spent


def test_each_holder_uses_one_ring_in_seat_order_and_a_ring_taken_by_a_ring_waits():
    state = new_state()
    round_won(state, 2, 0, "magic_ring", "magic_ring", "silver_goblets")        # Good: 2 and 3 hold rings
    round_won(state, 1, 3, "magic_ring", "chest_of_copper")                     # Evil: 0 draws a ring too
    # Holders in seat order: 0, 2, 3. Seat 0 first, among the Good players holding cards.
    assert state.chance_outcomes() == [(theft(2, "magic_ring"), pytest.approx(1 / 3)),
                                       (theft(3, "magic_ring"), pytest.approx(1 / 3)),
                                       (theft(4, "silver_goblets"), pytest.approx(1 / 3))]
    steal(state, 3, "magic_ring")
    # Seat 1 holds no ring; seat 2 next (seat 0 does not go again with the ring it took).
    assert state.chance_outcomes() == [(theft(0, "magic_ring"), 0.5), (theft(1, "chest_of_copper"), 0.5)]
    state.apply_action(theft(0, "magic_ring"))
    # Seat 3 lost its ring: no ring used at its step; seat 2's new ring waits for the next round.
    assert state.chance_outcomes() == [(NO_THEFT, 1.0)]
    quiet_ring_steps(state)
    assert state.chance_outcomes()[0][0] == 0
    assert [state.observation_dict(s)["treasure"] for s in range(5)] == [
        [], ["chest_of_copper"], ["magic_ring"], [], ["silver_goblets"]]


def test_a_player_holding_two_rings_uses_only_one_per_round():
    state = new_state()
    round_won(state, 2, 0, "magic_ring", "bags_of_gold", "silver_goblets")      # Good; nothing to take yet
    round_won(state, 4, 0, "magic_ring", "bags_of_gold", "silver_goblets")      # seat 2 holds two rings
    assert state.observation_dict(2)["treasure"] == ["magic_ring", "magic_ring"]
    round_won(state, 3, 1, "bags_of_gold", "silver_goblets")                    # Evil: 0 and 1 get cards
    assert state.chance_outcomes() == [(theft(0, "bags_of_gold"), 0.5), (theft(1, "silver_goblets"), 0.5)]
    steal(state, 1, "silver_goblets")
    assert state.chance_outcomes()[0][0] == 0                                   # one theft, then round 4
    assert state.observation_dict(2)["treasure"] == ["silver_goblets", "magic_ring"]


# ---- the end ------------------------------------------------------------------------------------
def test_the_first_player_to_the_winning_points_wins_for_its_team():
    state = new_state()
    round_won(state, 1, 3, "crown_jewels", "platinum_pyramids")                  # 0: 5, 1: 4
    round_won(state, 4, 0, "bags_of_gold", "bags_of_gold", "bags_of_gold")       # 2, 3, 4: 3 each
    round_won(state, 1, 3, "crown_jewels", "chest_of_copper")                    # 0: 10
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert state.result_summary() == "player 0 has 10 points: the Evil team wins."
    details = state.result_details()
    assert details["winner"] == "evil" and details["ending"] == "points" and details["points"] == [10, 5, 3, 3, 3]
    assert details["roles"] == list(ROLE_IDS)
    view = state.observation_dict(4)
    assert view["roles"] == list(ROLE_IDS) and view["all_points"] == [10, 5, 3, 3, 3] and view["winner"] == "evil"
    assert state.public_history()[-1] == (CHANCE, -1, "game over: player 0 has 10 points: the Evil team wins.")
    assert "Roles: player 0 the Traitor; player 1 the Evil Wizard; player 2 the Good Wizard; player 3 the Key " \
           "Holder; player 4 a Guard." in state.observation_string(3)


def test_good_wins_when_one_of_its_players_reaches_the_goal():
    state = new_state(winning_points=3)
    round_won(state, 2, 0, "bags_of_gold", "silver_goblets", "silver_goblets")
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 1.0, 1.0, 1.0]


def test_when_both_teams_reach_the_goal_in_one_round_the_first_seat_decides():
    # winning_points 3. Round 1: Evil; seat 0 draws a ring that waits. Round 2: Good; seat 2 reaches 5,
    # then seat 0's ring takes seat 4's bags of gold: seat 0 has 3 too and comes first in seat order.
    state = new_state(winning_points=3)
    round_won(state, 1, 3, "magic_ring", "chest_of_copper")
    round_won(state, 4, 0, "crown_jewels", "platinum_pyramids", "bags_of_gold")
    steal(state, 4, "bags_of_gold")
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert state.result_details()["points"] == [3, 1, 5, 4, 0]


def test_the_exchange_limit_ends_the_game_in_a_draw():
    state = new_state(max_exchanges=2)
    exchange(state, 0, 1)
    exchange(state, 1, 0)
    assert state.is_terminal() and state.returns() == [0.5] * 5
    assert state.result_details()["ending"] == "exchange_limit" and state.result_details()["winner"] == "draw"
    assert state.result_summary() == "the limit of 2 exchanges was reached with no winner: a draw."
    # The limit also holds right after a round.
    state = new_state(max_exchanges=1)
    round_won(state, 1, 3, "chest_of_copper", "chest_of_copper")
    assert state.is_terminal() and state.returns() == [0.5] * 5


# ---- illegal moves and messages ------------------------------------------------------------------
def test_illegal_actions_and_missing_messages_are_refused_and_leave_the_state_unchanged():
    state = new_state()

    def refused(error, apply, *args, match=None):
        before = (state.history(), state.messages(), [state.observation_dict(s) for s in range(5)])
        with pytest.raises(error, match=match):
            apply(*args)
        assert (state.history(), state.messages(), [state.observation_dict(s) for s in range(5)]) == before

    refused(TextRejectedError, state.apply_action, 2, "hello", match="no message")
    state.apply_action(2)
    for bad in (TALK + 2, ASK, STOP, ACCUSE + 0, 9, 99):
        refused(IllegalActionError, state.apply_action, bad)
    state.apply_action(TALK + 0)
    refused(TextRejectedError, state.apply_action, ASK, match="needs a message")
    refused(TextRejectedError, state.apply_action, ASK, "x" * 1001, match="limit is 1000")
    state.apply_action(ASK, "Q")
    refused(TextRejectedError, state.apply_action, ANSWER, match="needs a message")
    state.apply_action(ANSWER, "A")
    refused(IllegalActionError, state.apply_action, STOP)                 # the Traitor's turn
    refused(TextRejectedError, state.apply_action, PASS, "hi", match="takes no message")
    refused(IllegalActionError, state.apply_actions, [PASS] * 5, match="not a simultaneous node")
    call(state, PASS, PASS, STOP, PASS, PASS)
    state.apply_action(HEARD + 2)
    refused(IllegalActionError, state.apply_action, ACCUSE + 2)           # not oneself
    refused(IllegalActionError, state.apply_action, TALK + 0)


def test_check_message_trims_stores_skip_canonically_and_allows_empty_texts():
    state = new_state()
    state.apply_action(0)
    state.apply_action(TALK + 1)
    assert state.check_message(0, "  SKIP ") == "skip"
    assert state.check_message(0, " Skip? ") == "Skip?"            # a question, not a skip
    assert state.check_message(0, "") == ""
    with pytest.raises(TextRejectedError, match="asking or answering"):
        state.check_message(1, "hello")
    state.apply_action(ASK, "SKIP")
    assert state.messages()[0]["text"] == "skip" and state.observation_dict(1)["exchanges"][0]["skipped"]
    assert state.check_message(1, "  I would rather not.  ") == "I would rather not."


def test_fallbacks_are_the_cards_and_the_codes():
    state = new_state()
    state.apply_action(0)
    assert state.default_action(0) is None                          # a random target (the referee's)
    state.apply_action(TALK + 4)
    assert (state.default_action(0), state.default_message(0)) == (ASK, "skip")
    state.apply_action(ASK, "Q")
    assert (state.default_action(4), state.default_message(4)) == (ANSWER, "I can't answer that right now.")
    assert state.default_message(0) is None
    state.apply_action(ANSWER, "I can't answer that right now.")
    assert [state.default_action(s) for s in range(5)] == [PASS, None, None, None, None]
    state.apply_action(PASS)
    assert [state.default_action(s) for s in range(5)] == [None, PASS, None, None, None]
    for action in (STOP, PASS, PASS, PASS):
        state.apply_action(action)
    state.apply_action(HEARD + 1)
    assert state.default_action(1) is None                          # a random accusation


def test_text_action_specs_examples_and_random_messages():
    state = new_state()
    state.apply_action(3)
    spec = state.text_action_spec(3)
    assert "message" not in spec and "talk to" in spec["description"] and state.text_action_spec(0) is None
    state.apply_action(TALK + 1)
    spec = state.text_action_spec(3)
    assert spec["message"] == "required" and spec["example"] in QUESTIONS and "skip" in spec["description"]
    assert spec["max_length"] == 1000 and spec["forbidden_words"] == []
    rng = random.Random(3)
    assert {state.random_message(3, rng) for _ in range(50)} <= set(QUESTIONS)
    state.apply_action(ASK, spec["example"])
    spec = state.text_action_spec(1)
    assert spec["message"] == "required" and spec["example"] in ANSWERS
    assert state.random_message(1, rng) in ANSWERS
    state.apply_action(ANSWER, spec["example"])
    assert state.text_action_spec(0) == {"description": "Pass: as the Traitor you never call STOP.",
                                         "max_length": 1000, "forbidden_words": []}
    state.apply_action(PASS)
    assert state.text_action_spec(0) is None
    assert state.text_action_spec(1) == {
        "description": "Call STOP or Pass, in secret. If several players call STOP, one of them drawn at random is "
                       "heard and accuses a player.", "max_length": 1000, "forbidden_words": []}


@pytest.mark.parametrize("reply,expected", [
    ('{"action": "openended", "openended_response": "Are you the Key Holder?"}', "Are you the Key Holder?"),
    ('Thinking... {"action": "skip", "openended_response": null}', "skip"),
    ('{"action": "skip"}', "skip"),
    ('{"action": "openended", "openended_response": "{nested} \\"quotes\\""}', '{nested} "quotes"'),
    ("Do you trust player 2?", "Do you trust player 2?"),
    ("skip", "skip"),
])
def test_read_reply_takes_a_question_from_gamebenchs_json_or_the_whole_reply(reply, expected):
    state = new_state()
    state.apply_action(0)
    state.apply_action(TALK + 1)
    action, message = state.read_reply(0, reply)
    assert action == ASK and state.check_message(0, message) == expected


def test_read_reply_takes_an_answer_and_refuses_json_without_one():
    state = new_state()
    state.apply_action(0)
    state.apply_action(TALK + 1)
    with pytest.raises(ActionParseError, match="openended_response"):
        state.read_reply(0, '{"action": "openended"}')
    state.apply_action(ASK, "Q")
    assert state.read_reply(1, '{"action": "openended", "openended_response": ""}') == (ANSWER, "")
    assert state.read_reply(1, "No comment.") == (ANSWER, "No comment.")
    with pytest.raises(ActionParseError, match="your answer"):
        state.read_reply(1, '{"action": "skip"}')


@pytest.mark.parametrize("text,expected", [
    ("3", 3), (" 3. ", 3), ("talk to player 3", 3), ("Player 3", 3), ("player_3", 3),
    ('{"action": "3"}', 3), ('{"action": 4}', 4), ("I want to talk to player 4 now.", 4),
    ("1", 1),     # the asker itself: read, then refused as illegal by the referee
])
def test_targets_are_read_from_gamebenchs_ids_and_texts(text, expected):
    state = new_state()
    state.apply_action(1)
    assert state.parse_action(1, text) == TALK + expected


@pytest.mark.parametrize("text", ["", "nobody", "player 2 or player 3", "7", "player 12", "-1", "talk to everyone"])
def test_unreadable_targets_raise_with_the_expected_format(text):
    state = new_state()
    state.apply_action(1)
    with pytest.raises(ActionParseError, match="number of the player to talk to"):
        state.parse_action(1, text)


@pytest.mark.parametrize("text,expected", [("STOP", STOP), ("Pass", PASS), ("pass", PASS), ("STOP!", STOP),
                                           ('{"action": "STOP"}', STOP), ('{"action": "Pass"}', PASS),
                                           ("I will pass for now.", PASS)])
def test_calls_are_read_from_either_word(text, expected):
    state = new_state()
    exchange_until_calls(state, passes=2)
    assert state.parse_action(2, text) == expected


@pytest.mark.parametrize("text", ["", "STOP or Pass?", "maybe", '{"action": "wait"}'])
def test_unreadable_calls_raise(text):
    state = new_state()
    exchange_until_calls(state, passes=2)
    with pytest.raises(ActionParseError, match="STOP"):
        state.parse_action(2, text)


def exchange_until_calls(state, passes=0):
    """An exchange up to the calls, then `passes` seats (from seat 0) pass."""
    state.apply_action(0)
    state.apply_action(TALK + 1)
    state.apply_action(ASK, "Q")
    state.apply_action(ANSWER, "A")
    call(state, *[PASS] * passes)


def test_accusations_are_read_like_targets_and_other_turns_refuse_actions_in_text():
    state = new_state()
    exchange_until_calls(state)
    assert state.parse_action(0, "Pass") == PASS
    assert state.parse_action(0, "STOP") == STOP                       # read, then refused as illegal
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(2, "STOP")                                  # not its turn
    call(state, PASS, PASS, STOP, PASS, PASS)
    state.apply_action(HEARD + 2)
    assert state.parse_action(2, "accuse player 0") == ACCUSE + 0
    assert state.parse_action(2, '{"action": "0"}') == ACCUSE + 0
    with pytest.raises(ActionParseError, match="number of the player to accuse"):
        state.parse_action(2, "the traitor")
    fresh = new_state()
    fresh.apply_action(0)
    fresh.apply_action(TALK + 1)
    assert fresh.parse_action(0, "ask a question") == ASK
    with pytest.raises(ActionParseError, match="your question to player 1"):
        fresh.parse_action(0, "Who are you?")


# ---- replay and clones ---------------------------------------------------------------------------
def play_randomly(seed: int, **overrides):
    state = new_state(**overrides)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.step_randomly(rng)
    return state


def test_a_match_with_dialogue_replays_exactly_from_its_history_and_messages():
    played = play_randomly(4)
    said = {m["move"]: m["text"] for m in played.messages()}
    replay = new_state()
    for move, (seat, action) in enumerate(played.history()):
        replay.apply_action(action, said.get(move))
    assert replay.returns() == played.returns()
    assert replay.result_details() == played.result_details()
    assert replay.messages() == played.messages()
    assert all(replay.observation_string(s) == played.observation_string(s) for s in range(5))


def test_the_public_history_never_holds_a_call_or_a_treasure_move():
    for seed in range(10):
        state = play_randomly(seed)
        public = state.public_history()
        assert all(not (seat >= 0 and action in (STOP, PASS)) for seat, action, _ in public)
        assert all(not (seat == CHANCE and action >= DRAWN) for seat, action, _ in public)
        heard = [a for seat, a in state.history() if seat == CHANCE and HEARD <= a < HEARD + 5]
        assert [a for seat, a, _ in public if seat == CHANCE and HEARD <= a < HEARD + 5] == heard
        assert sum(text.startswith("round ") for _, _, text in public) == len(state.result_details()["rounds"])


def test_a_rounds_treasure_takes_as_many_moves_with_or_without_a_ring():
    quiet, ringed = new_state(), new_state()
    round_won(quiet, 3, 1, "bags_of_gold", "silver_goblets")
    round_won(ringed, 3, 1, "bags_of_gold", "silver_goblets")
    round_won(quiet, 2, 0, "chest_of_copper", "silver_goblets", "bags_of_gold")
    round_won(ringed, 2, 0, "magic_ring", "silver_goblets", "bags_of_gold")
    steal(ringed, 0, "bags_of_gold")
    assert len(quiet.history()) == len(ringed.history())
    for state in (quiet, ringed):
        state.apply_action(1)
        state.apply_action(TALK + 0)
        state.apply_action(ASK, "Did anyone lose a card?")
    assert quiet.messages()[-1] == ringed.messages()[-1]       # the same move number for everyone


def test_a_clone_is_independent():
    rng = random.Random(2)
    state = new_state()
    for _ in range(30):
        state.step_randomly(rng)
    views = [state.observation_string(s) for s in range(5)]
    clone = state.clone()
    while not clone.is_terminal():
        clone.step_randomly(rng)
    assert [state.observation_string(s) for s in range(5)] == views
    assert not state.is_terminal()


# ---- random playouts against a separate implementation of the rules --------------------------------
class Reference:
    """The rules as the card and GameBench's code state them, written separately: GameBench's fixed
    deal, hands as lists of card names."""

    TARGETS = {1: 3, 2: 0, 3: 2, 4: 0}

    def __init__(self, winning_points=10, max_exchanges=50):
        self.goal, self.limit = winning_points, max_exchanges
        self.deck = dict(DECK)
        self.hands = [[] for _ in range(5)]
        self.exchanges = 0
        self.step = "asker"
        self.winner = None

    def expected(self):
        """("chance", {outcome: p}) | ("seat", seat, legal) | ("over", winner)."""
        if self.step == "asker":
            return "chance", {s: 0.2 for s in range(5)}
        if self.step == "target":
            return "seat", self.asker, [TALK + s for s in range(5) if s != self.asker]
        if self.step == "question":
            return "seat", self.asker, [ASK]
        if self.step == "answer":
            return "seat", self.target, [ANSWER]
        if self.step == "calls":
            seat = len(self.calls)
            return "seat", seat, [PASS] if seat == 0 else [STOP, PASS]
        if self.step == "hear":
            callers = [s for s in range(1, 5) if self.calls[s] == STOP]
            return "chance", {HEARD + s: 1 / len(callers) for s in callers} if callers else {NOBODY: 1.0}
        if self.step == "accuse":
            return "seat", self.caller, [ACCUSE + s for s in range(5) if s != self.caller]
        if self.step == "deal":
            total = sum(self.deck.values())
            return "chance", {DRAWN + KIND_IDS.index(k): n / total for k, n in self.deck.items() if n}
        if self.step == "ring":
            user = self.ring_seat
            victims = [v for v in range(5) if TEAM[v] != TEAM[user] and self.hands[v]]
            if user not in self.ring_holders or "magic_ring" not in self.hands[user] or not victims:
                return "chance", {NO_THEFT: 1.0}
            out = {}
            for v in victims:
                cards = ["gilded_statue"] if "gilded_statue" in self.hands[v] else self.hands[v]
                for card in cards:
                    key = THEFT + 10 * v + KIND_IDS.index(card)
                    out[key] = out.get(key, 0) + 1 / len(victims) / len(cards)
            return "chance", out
        return "over", self.winner

    def apply(self, action):
        if self.step == "asker":
            self.asker, self.step = action, "target"
            self.exchanges += 1
        elif self.step == "target":
            self.target, self.step = action - TALK, "question"
        elif self.step == "question":
            self.step = "answer"
        elif self.step == "answer":
            self.calls, self.step = [], "calls"
        elif self.step == "calls":
            self.calls.append(action)
            if len(self.calls) == 5:
                self.step = "hear"
        elif self.step == "hear":
            if action == NOBODY:
                self.next_exchange()
            else:
                self.caller, self.step = action - HEARD, "accuse"
        elif self.step == "accuse":
            caller_team = TEAM[self.caller]
            won = caller_team if self.TARGETS[self.caller] == action - ACCUSE else \
                ("good" if caller_team == "evil" else "evil")
            self.drawers = [s for s in range(5) if TEAM[s] == won]
            self.step = "deal"
        elif self.step == "deal":
            card = KIND_IDS[action - DRAWN]
            self.deck[card] -= 1
            self.hands[self.drawers.pop(0)].append(card)
            if not self.drawers:
                self.ring_holders = [s for s in range(5) if "magic_ring" in self.hands[s]]
                self.ring_seat, self.step = 0, "ring"
        elif self.step == "ring":
            if action != NO_THEFT:
                victim, card = (action - THEFT) // 10, KIND_IDS[(action - THEFT) % 10]
                self.hands[self.ring_seat].remove("magic_ring")
                self.hands[victim].remove(card)
                self.hands[self.ring_seat].append(card)
            self.ring_seat += 1
            if self.ring_seat == 5:
                self.end_round()

    def end_round(self):
        for seat in range(5):
            if sum(POINTS[c] for c in self.hands[seat]) >= self.goal:
                self.winner, self.step = TEAM[seat], "over"
                return
        self.next_exchange()

    def next_exchange(self):
        if self.exchanges >= self.limit:
            self.winner, self.step = "draw", "over"
        else:
            self.step = "asker"


@pytest.mark.parametrize("overrides", [{}, {"winning_points": 5}, {"max_exchanges": 6}])
def test_random_playouts_follow_the_reference_rules(overrides):
    rings = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = new_state(**overrides)
        reference = Reference(**overrides)
        while True:
            expected = reference.expected()
            if expected[0] == "over":
                break
            if expected[0] == "chance":
                assert dict(state.chance_outcomes()) == pytest.approx(expected[1])
                rings += reference.step == "ring" and NO_THEFT not in expected[1]
            else:
                assert state.current_player() == expected[1] and state.legal_actions() == expected[2]
            before = len(state.history())
            state.step_randomly(rng)
            assert len(state.history()) == before + 1
            reference.apply(state.history()[-1][1])
            if state.current_player() != CHANCE and not state.is_terminal():
                # At decisions each seat sees its own cards as the reference holds them.
                for seat in range(5):
                    assert sorted(state.observation_dict(seat)["treasure"]) == sorted(reference.hands[seat])
        assert state.is_terminal()
        winner = reference.winner
        assert state.returns() == ([0.5] * 5 if winner == "draw" else [float(TEAM[s] == winner) for s in range(5)])
        assert sorted(map(sorted, state.result_details()["hands"])) == sorted(map(sorted, reference.hands))
        assert sum(state.returns()[:2]) / 2 + sum(state.returns()[2:]) / 3 == pytest.approx(1.0)
    if not overrides:
        assert rings > 0


# ---- information ---------------------------------------------------------------------------------
def decision_states(seed: int, **overrides):
    """(state, acting seats) before every decision of a random game."""
    rng = random.Random(seed)
    state = new_state(**overrides)
    out = []
    while not state.is_terminal():
        if not state.is_chance_node():
            out.append(state.clone())
        state.step_randomly(rng)
    return out


def test_no_view_holds_another_seats_role_briefing_cards_or_call():
    for seed in range(10):
        for state in decision_states(seed):
            for seat in range(5):
                text = state.observation_string(seat)
                data = json.dumps(state.observation_dict(seat))
                for other in range(5):
                    if other == seat:
                        continue
                    assert briefing(other, other) not in text and briefing(other, other) not in data
                    assert f"You are player {other}" not in text
                    assert f"I am player {other}." not in text + data
                assert state.observation_dict(seat)["roles"] is None and state.observation_dict(seat)["hands"] is None


def test_a_view_is_unchanged_when_what_it_cannot_see_is_redrawn():
    changed = 0
    for seed in range(8):
        for state in decision_states(seed):
            for seat in range(5):
                mine = (state.observation_string(seat), state.observation_dict(seat), state.public_history(),
                        state.legal_actions(seat))
                for sample in range(3):
                    other = state.resample_hidden(seat, 100 * seed + sample)
                    assert (other.observation_string(seat), other.observation_dict(seat), other.public_history(),
                            other.legal_actions(seat)) == mine
                    changed += any(other.observation_dict(s) != state.observation_dict(s)
                                   for s in range(5) if s != seat)
    assert changed > 100


def roles_after_resampling(state, seat, samples=200):
    return {tuple(state.resample_hidden(seat, k).observation_dict(s)["role"] for s in range(5)) for k in range(samples)}


def test_resampled_roles_fit_the_seats_view():
    state = new_state()
    # At the start the Traitor knows only that 1 and 2 are the wizards: four deals.
    assert roles_after_resampling(state, 0) == {
        ("traitor", w1, w2, a, b) for w1, w2 in itertools.permutations(("evil_wizard", "good_wizard"))
        for a, b in itertools.permutations(("key_holder", "guard"))}
    # The Evil Wizard: the Good Wizard is player 2; 0, 3, 4 share the other three roles.
    assert len(roles_after_resampling(state, 1)) == 6
    # Player 4 calls STOP and accuses player 0; Good wins. Player 4 is not the Traitor; to the Key
    # Holder (seat 3) then: 4 a Guard, 0 the Traitor (the only deals where Good wins), wizards either way.
    round_won(state, 4, 0, "chest_of_copper", "chest_of_copper", "chest_of_copper")
    assert roles_after_resampling(state, 3) == {
        ("traitor", "evil_wizard", "good_wizard", "key_holder", "guard"),
        ("traitor", "good_wizard", "evil_wizard", "key_holder", "guard")}


def test_resampled_cards_keep_the_seats_own_and_never_give_another_the_winning_points():
    for seed in range(6):
        for state in decision_states(seed, winning_points=8):
            for seat in range(5):
                mine = state.observation_dict(seat)["treasure"]
                for k in range(3):
                    other = state.resample_hidden(seat, k)
                    assert other.observation_dict(seat)["treasure"] == mine
                    details = other.result_details()
                    assert all(points < 8 for s, points in enumerate(details["points"]) if s != seat)


def test_resampling_redraws_the_calls_other_seats_made():
    state = new_state()
    exchange_until_calls(state)
    call(state, PASS, STOP, PASS, PASS, PASS)
    outcomes = {tuple(a for a, _ in state.resample_hidden(2, k).chance_outcomes()) for k in range(40)}
    assert len(outcomes) > 3 and all(HEARD + 2 not in o for o in outcomes)   # seat 2's own Pass is kept
    assert state.resample_hidden(2, 0).observation_dict(2) == state.observation_dict(2)
    # Mid-way through the calls: seat 1's STOP is hidden from seat 3, whose turn it is.
    state = new_state()
    exchange_until_calls(state)
    call(state, PASS, STOP, STOP)
    redrawn = [state.resample_hidden(3, k) for k in range(40)]
    assert {other.observation_dict(1)["my_call"] for other in redrawn} == {"STOP", "Pass"}
    # Seat 0 made the Traitor's forced Pass; where the redrawn deal makes it the Guard, its call is redrawn too.
    assert {(other.observation_dict(0)["role"], other.observation_dict(0)["my_call"]) for other in redrawn} == {
        ("traitor", "Pass"), ("guard", "Pass"), ("guard", "STOP")}


def test_views_during_the_treasure_hide_the_draws_until_the_round_is_settled():
    state = new_state()
    round_won(state, 2, 0)
    before = [state.observation_string(s) for s in range(5)]
    state.apply_action(DRAWN + KIND_IDS.index("crown_jewels"))
    state.apply_action(DRAWN + KIND_IDS.index("magic_ring"))
    assert [state.observation_string(s) for s in range(5)] == before


def test_state_from_view_rebuilds_every_view_through_whole_games():
    game = load_game(GAME, {"winning_points": 8}, preset="gamebench")
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in range(5):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.observation_dict(seat) == state.observation_dict(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.conversation(seat) == state.conversation(seat)
            if state.is_terminal():
                break
            state.step_randomly(rng)


def test_state_from_view_refuses_a_view_of_another_role():
    game = load_game(GAME, preset="gamebench")
    view = game.new_initial_state().observation_dict(2)
    view["role"] = "traitor"
    with pytest.raises(ValueError, match="good_wizard"):
        game.state_from_view(2, view)
