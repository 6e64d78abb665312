"""Cost Sharing (MAgIC's Airport Fee Allocation, magic.md §2.3): the settings, hand-worked games on the
released sample, the agreement test, replayed round-1 proposals, the fallbacks, the answer parsers and
talk, random playouts against a separate implementation of the rules, clones and rebuilt views."""

from __future__ import annotations

import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import CHANCE, ActionParseError, IllegalActionError, TextRejectedError
from arena_engines.cost_sharing import SPLIT_ID, SPLITS, opening_default, split_text
from arena_engines.cost_sharing_settings import FEE, GROUPS, PROFILES

GAME = "cost_sharing"
VOTE = {0: 231, 1: 232, 2: 233}          # vote for seat k's proposal
ABSTAIN = 234


def new_state(**overrides):
    return load_game(GAME, overrides, preset="magic").new_initial_state()


def in_setting(setting=0, **overrides):
    state = new_state(**overrides)
    state.apply_action(setting)
    return state


def propose(state, *splits):
    for split in splits:
        state.apply_action(SPLIT_ID[tuple(split)])


def vote(state, *targets):
    for target in targets:
        state.apply_action(ABSTAIN if target is None else VOTE[target])


def failed_round(state):
    """A round whose votes go to different splits."""
    propose(state, (40, 30, 30), (50, 25, 25), (35, 35, 30))
    vote(state, 0, 1, 2)


# ---- settings and actions -----------------------------------------------------------------------
def test_the_preset_is_the_papers_game():
    spec = game_spec(GAME)
    assert [p.name for p in spec.presets] == ["magic"]
    game = load_game(GAME, preset="magic")
    assert game.num_players == 3
    assert game.parameters == {"rounds": 5, "fee": 1_000_000, "setting": -1, "challenger_seat": -1}
    assert (spec.dynamics, spec.information, spec.utility) == ("sequential", "perfect", "identical")


@pytest.mark.parametrize("overrides,name", [
    ({"rounds": 0}, "rounds"), ({"rounds": 21}, "rounds"), ({"fee": 0}, "fee"), ({"setting": 7}, "setting"),
    ({"setting": -2}, "setting"), ({"challenger_seat": 3}, "challenger_seat"), ({"rounds": 2.5}, "rounds"),
])
def test_bad_parameters_are_refused(overrides, name):
    with pytest.raises(ValueError, match=name):
        load_game(GAME, overrides, preset="magic")


def test_the_actions_are_the_231_splits_in_5_percent_steps_then_the_votes():
    expected = [(a, b, 100 - a - b) for a in range(0, 101, 5) for b in range(0, 101 - a, 5)]
    assert list(SPLITS) == expected and len(SPLITS) == 231
    state = in_setting()
    assert state.legal_actions(0) == list(range(231))
    assert state.action_to_string(0, 0) == "Airline A: 0%, Airline B: 0%, Airline C: 100%"
    assert state.action_to_string(0, 230) == "Airline A: 100%, Airline B: 0%, Airline C: 0%"
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    assert state.legal_actions(0) == [231, 232, 233, 234]
    assert [state.action_to_string(0, a) for a in state.legal_actions(0)] == [
        "I vote for Player 1", "I vote for Player 2", "I vote for Player 3", "abstain"]


def test_the_settings_are_20_profiles_in_7_groups_and_group_0_is_the_released_sample():
    assert len(PROFILES) == 20 and len(GROUPS) == 7 and FEE == 1_000_000
    assert {p for profiles, _ in GROUPS for p in profiles} == set(range(20))
    assert len({profile[4] for profile in PROFILES}) == 20          # every note is its own
    profiles, recorded = GROUPS[0]
    assert [PROFILES[p][:4] for p in profiles] == [(90, 7000, 1.75, "small and medium"), (50, 7500, 1.5, "small"),
                                                    (50, 7500, 1.5, "small")]
    assert recorded == ((40, 30, 30), (50, 25, 25), (50, 25, 25))
    for _, recorded in GROUPS:
        assert all(sum(split) == 100 and all(v % 5 == 0 for v in split) for split in recorded)


def test_the_setting_is_drawn_uniformly_or_pinned():
    state = new_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 7)) for k in range(7)]
    assert state.action_to_string(CHANCE, 4) == "setting 4"
    assert new_state(setting=5).chance_outcomes() == [(5, 1.0)]
    with pytest.raises(IllegalActionError):
        new_state(setting=5).apply_action(4)


def test_every_seat_sees_the_three_airlines_usage():
    state = in_setting(3)
    for seat in range(3):
        view = state.observation_dict(seat)
        assert [u["profile"] for u in view["usage"]] == [8, 9, 10]
        assert view["usage"][0]["flights_per_month"] == 150 and view["usage"][2]["passengers_per_month"] == 8400
        text = state.observation_string(seat)
        assert "Airline A flies about 150 flights a month carrying about 30,000 passengers" in text
        assert "$1,000,000" in text and f"You are Player {seat + 1}, representing Airline {'ABC'[seat]}." in text


# ---- hand-worked games on the released sample ----------------------------------------------------
def test_the_released_sample_agrees_when_votes_go_to_identical_values_from_different_proposers():
    state = in_setting(0)
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    vote(state, 1, 2, 1)       # Player 2's and Player 3's proposals hold the same numbers
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 1.0]
    details = state.result_details()
    assert details["outcome"] == "agreed" and details["success"] is True
    assert details["agreed_split"] == [50, 25, 25] and details["agreed_round"] == 1
    assert details["agreed_proposers"] == [1, 2]
    assert details["cost_shares"] == [50, 25, 25] and details["costs"] == [500_000, 250_000, 250_000]
    assert details["rounds"] == [{"round": 1, "proposals": [[40, 30, 30], [50, 25, 25], [50, 25, 25]],
                                  "talk": [None, None, None], "votes": [1, 2, 1]}]
    assert state.result_summary() == "Agreement in round 1 on A 50%, B 25%, C 25%: the negotiation succeeded"


def test_votes_for_different_values_or_an_abstention_start_a_new_round():
    state = in_setting(0)
    failed_round(state)
    assert not state.is_terminal() and state.observation_dict(0)["round"] == 2
    assert state.current_player() == 0 and state.legal_actions(0) == list(range(231))
    propose(state, (45, 30, 25), (45, 30, 25), (45, 30, 25))
    vote(state, 0, 1, None)     # identical values, but one abstention counts for nobody
    assert not state.is_terminal() and state.observation_dict(2)["round"] == 3
    propose(state, (45, 30, 25), (50, 25, 25), (45, 30, 25))
    vote(state, 2, 2, 0)
    details = state.result_details()
    assert state.returns() == [1.0] * 3 and details["agreed_round"] == 3 and details["agreed_split"] == [45, 30, 25]
    assert details["agreed_proposers"] == [0, 2] and details["latest_proposals"] == [[45, 30, 25], [50, 25, 25], [45, 30, 25]]
    assert details["rounds_played"] == 3 and [r["votes"] for r in details["rounds"]] == [[0, 1, 2], [0, 1, "abstain"], [2, 2, 0]]


def test_no_agreement_after_the_last_round_is_a_failure_for_everyone():
    state = in_setting(2)
    for _ in range(5):
        assert not state.is_terminal()
        failed_round(state)
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]
    details = state.result_details()
    assert details["outcome"] == "failed" and details["success"] is False and details["rounds_played"] == 5
    assert details["agreed_split"] is None and details["costs"] is None and details["agreed_proposers"] == []
    assert state.result_summary() == "No agreement after 5 rounds: the negotiation failed"
    short = in_setting(2, rounds=1)
    failed_round(short)
    assert short.is_terminal() and short.returns() == [0.0] * 3


def test_every_seat_may_vote_for_its_own_proposal_and_unanimity_on_one_proposer_agrees():
    state = in_setting(1)
    propose(state, (50, 25, 25), (55, 20, 25), (55, 25, 20))
    vote(state, 2, 2, 2)
    assert state.result_details()["agreed_split"] == [55, 25, 20]
    assert state.result_details()["costs"] == [550_000, 250_000, 200_000]


def test_costs_follow_the_fee_parameter():
    state = in_setting(0, fee=999)
    propose(state, (35, 35, 30), (35, 35, 30), (35, 35, 30))
    vote(state, 0, 0, 0)
    assert state.result_details()["costs"] == [pytest.approx(349.65), pytest.approx(349.65), pytest.approx(299.7)]


def test_proposals_then_votes_go_in_seat_order_and_everything_is_public_at_once():
    state = in_setting(0)
    order = []
    for _ in range(6):
        order.append(state.current_player())
        state.apply_action(SPLIT_ID[(40, 30, 30)] if len(order) <= 3 else VOTE[0] + (len(order) == 4))
        # The move just made is in every seat's view right away.
        views = [state.observation_dict(seat)["rounds"] for seat in range(3)]
        assert views[0] == views[1] == views[2]
    assert order == [0, 1, 2, 0, 1, 2]
    assert "Player 1 voted for Player 2's proposal" in state.observation_string(2)


def test_illegal_actions_are_refused_and_leave_the_state_unchanged():
    state = in_setting(0)
    before = state.observation_dict(0)
    for action in (231, 234, 235, -1):
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    with pytest.raises(IllegalActionError):
        state.apply_action(SPLIT_ID[(40, 30, 30)])
    assert state.observation_dict(0)["rounds"][0]["votes"] == [None] * 3
    assert before["rounds"] == [] and state.legal_actions(1) == []
    vote(state, 1, 1, 1)
    with pytest.raises(IllegalActionError):
        state.apply_action(231)


# ---- replayed round-1 proposals ------------------------------------------------------------------
@pytest.mark.parametrize("challenger", [0, 1, 2])
def test_defenders_replay_the_settings_round_1_proposals(challenger):
    state = in_setting(4, challenger_seat=challenger)
    recorded = GROUPS[4][1]
    for seat in range(3):
        legal = state.legal_actions(seat)
        if seat == challenger:
            assert legal == list(range(231))
            assert state.text_action_spec(seat)["message"] == "optional"
            state.apply_action(SPLIT_ID[(30, 40, 30)])
        else:
            assert legal == [SPLIT_ID[recorded[seat]]]
            assert state.default_action(seat) == legal[0]
            spec = state.text_action_spec(seat)
            assert "message" not in spec and "recorded" in spec["description"]
            assert "recorded" in state.observation_string(seat)
            with pytest.raises(IllegalActionError):
                state.apply_action(SPLIT_ID[(30, 40, 30)])
            state.apply_action(legal[0])
    vote(state, 0, 1, 2)
    assert state.legal_actions(state.current_player()) == list(range(231))    # round 2 is free for all
    assert state.result_details()["challenger_seat"] == challenger


# ---- fallbacks -------------------------------------------------------------------------------------
def test_fallbacks_are_the_references_recommendations():
    assert [opening_default(seat) for seat in range(3)] == [(35, 35, 30), (30, 35, 35), (35, 30, 35)]
    state = in_setting(0)
    for seat in range(3):
        assert state.default_action(seat) == SPLIT_ID[opening_default(seat)]
        assert state.default_action((seat + 1) % 3) is None          # not its turn
        assert state.default_message(seat) == ""                     # no talk
        state.apply_action(state.default_action(seat), state.default_message(seat))
    assert state.observation_dict(0)["rounds"][0]["talk"] == [None, None, None]   # empty talk shows as none
    assert state.default_action(0) == ABSTAIN and state.default_message(0) is None
    vote(state, 1, 0, 2)
    assert state.default_action(0) == SPLIT_ID[(35, 35, 30)]
    propose(state, (60, 20, 20))
    assert state.default_action(1) == SPLIT_ID[(30, 35, 35)]         # its own proposal of round 1


# ---- answers ---------------------------------------------------------------------------------------
TEMPLATE = ("Player 3, representing Airline C, proposes the following distribution:\n"
            "Airline A: 50%\nAirline B: 25%\nAirline C: 25%")


@pytest.mark.parametrize("text,split", [
    (TEMPLATE, (50, 25, 25)),
    ("Airline A: 40%\nAirline B: 30%\nAirline C: 30%", (40, 30, 30)),
    ("airline a : 40 %, airline b: 30 %, airline c: 30 %", (40, 30, 30)),
    ("Airline C: 10%\nAirline A: 60%\nAirline B: 30%", (60, 30, 10)),
    ("Earlier Airline A: 20% was offered.\n" + TEMPLATE, (50, 25, 25)),      # the last line of each airline
    ("Airline A: 45.0%\nAirline B: 30%\nAirline C: 25%", (45, 30, 25)),
    ("I propose [40, 30, 30].", (40, 30, 30)),
    ("Was [50,25,25], now [55, 20, 25]", (55, 20, 25)),
    ("Airline A: 100%\nAirline B: 0%\nAirline C: 0%", (100, 0, 0)),
])
def test_proposals_are_read_from_the_template_and_the_bracketed_form(text, split):
    state = in_setting(0)
    assert SPLITS[state.parse_action(0, text)] == split


@pytest.mark.parametrize("text,problem", [
    ("Airline A: 40%\nAirline B: 40%\nAirline C: 30%", "add up to 110%"),
    ("Airline A: 42%\nAirline B: 28%\nAirline C: 30%", "multiple of 5"),
    ("Airline A: 33.3%\nAirline B: 33.3%\nAirline C: 33.4%", "multiple of 5"),
    ("Airline A: 120%\nAirline B: 0%\nAirline C: 0%", "multiple of 5"),
    ("Airline A: 40%\nAirline B: 60%", "could not read"),
    ("Airline A: 40 flights\nAirline B: 30\nAirline C: 30", "could not read"),
    ("I think we should split it fairly.", "could not read"),
    ("[" + "9" * 5000 + ", 0, 0]", "multiple of 5"),
])
def test_unreadable_or_invalid_proposals_raise_with_the_template(text, problem):
    state = in_setting(0)
    with pytest.raises(ActionParseError, match=problem) as error:
        state.parse_action(0, text)
    assert "Airline A: 40%" in str(error.value)


@pytest.mark.parametrize("text,action", [
    ("I vote for Player 2's proposal", 232),
    ("I vote for Player 3's proposal.", 233),
    ("i vote for player 1's proposal", 231),
    ("Player 3's proposal is close, but I vote for Player 1's proposal", 231),
    ("I vote for Player 2's proposal, not Player 3's", 232),      # the first "vote for Player N"
    ("abstain", 234),
    (" Abstain. ", 234),
    ("Player 2", 232),
    ("I vote for Player 2's proposal\nI vote for Player 3's proposal", 232),
])
def test_votes_are_read_from_the_papers_template(text, action):
    state = in_setting(0)
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    assert state.parse_action(0, text) == action


@pytest.mark.parametrize("text", ["I vote for Player 4's proposal", "Player 1 or Player 2?", "yes", "",
                                  "vote for player 0"])
def test_unreadable_votes_raise_with_the_template(text):
    state = in_setting(0)
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    with pytest.raises(ActionParseError, match="I vote for Player 2's proposal"):
        state.parse_action(0, text)


def test_a_seat_not_to_act_has_nothing_to_parse_and_every_action_text_parses_back():
    state = in_setting(0)
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(1, TEMPLATE)
    assert all(state.parse_action(0, split_text(split)) == k for k, split in enumerate(SPLITS))
    propose(state, (40, 30, 30), (50, 25, 25), (50, 25, 25))
    assert all(state.parse_action(0, state.action_to_string(0, a)) == a for a in state.legal_actions(0))


def test_read_reply_keeps_the_talk_around_the_template():
    state = in_setting(0)
    reply = "Airline A flies the most, so it should pay more.\n" + TEMPLATE + "\nI hope you agree."
    assert state.read_reply(0, reply) == (SPLIT_ID[(50, 25, 25)], "Airline A flies the most, so it should pay more.\n"
                                                                  "I hope you agree.")
    assert state.read_reply(0, TEMPLATE) == (SPLIT_ID[(50, 25, 25)], None)
    assert state.read_reply(0, split_text((50, 25, 25))) == (SPLIT_ID[(50, 25, 25)], None)
    assert state.read_reply(0, "Fair enough: [40, 30, 30]\r\nThanks") == (SPLIT_ID[(40, 30, 30)], "Thanks")
    state.apply_action(*state.read_reply(0, reply))
    view = state.observation_dict(1)
    assert view["rounds"][0]["talk"][0] == "Airline A flies the most, so it should pay more.\nI hope you agree."
    assert view["conversation"] == [{"move": 1, "seat": 0, "text": view["rounds"][0]["talk"][0]}]
    assert "Player 1 said: Airline A flies the most" in state.observation_string(2)
    propose(state, (50, 25, 25), (50, 25, 25))
    assert state.read_reply(0, "I vote for Player 2's proposal") == (232, None)


def test_talk_goes_only_with_free_proposals_and_within_its_limit():
    state = in_setting(0)
    with pytest.raises(TextRejectedError, match="limit"):
        state.apply_action(SPLIT_ID[(40, 30, 30)], "x" * 2001)
    state.apply_action(SPLIT_ID[(40, 30, 30)], "  fair  ")
    assert state.messages() == [{"move": 1, "seat": 0, "text": "fair", "to": None}]
    propose(state, (50, 25, 25), (50, 25, 25))
    with pytest.raises(TextRejectedError, match="no message"):
        state.apply_action(232, "because")
    replayed = in_setting(0, challenger_seat=2)
    with pytest.raises(TextRejectedError, match="no message"):
        replayed.apply_action(replayed.legal_actions(0)[0], "hello")


# ---- random playouts against a separate implementation -------------------------------------------
def reference_outcome(history, rounds: int):
    """(agreed split or None, rounds played) from a history, by the rules as the reference states them."""
    splits = [(a, b, 100 - a - b) for a in range(0, 101, 5) for b in range(0, 101 - a, 5)]
    moves = [action for _, action in history[1:]]
    played = 0
    for start in range(0, len(moves), 6):
        played += 1
        proposals = [splits[a] for a in moves[start:start + 3]]
        votes = [a - 231 for a in moves[start + 3:start + 6]]
        if 3 not in votes and len({proposals[v] for v in votes}) == 1:
            return list(proposals[votes[0]]), played
    assert played == rounds
    return None, played


@pytest.mark.parametrize("overrides", [{}, {"rounds": 2}, {"challenger_seat": 1, "setting": 6}])
def test_random_playouts_follow_the_rules(overrides):
    agreements = 0
    for seed in range(150):
        rng = random.Random(seed)
        state = new_state(**overrides)
        while not state.is_terminal():
            # Votes lean towards Player 1's proposal so that agreements happen often enough to check.
            if state.current_player() >= 0 and state.legal_actions()[0] == 231 and rng.random() < 0.6:
                state.apply_action(231)
            else:
                state.step_randomly(rng)
        rounds = state.game.parameters["rounds"]
        agreed, played = reference_outcome(state.history(), rounds)
        details = state.result_details()
        assert details["agreed_split"] == agreed and details["rounds_played"] == played
        assert state.returns() == [1.0 if agreed else 0.0] * 3
        assert len(state.history()) == 1 + 6 * played
        agreements += agreed is not None
        if agreed:
            last = details["rounds"][-1]["proposals"]
            assert details["agreed_proposers"] == [s for s in range(3) if last[s] == agreed]
            assert details["costs"] == [1_000_000 * share // 100 for share in agreed]
    assert 20 <= agreements <= 140


def test_a_clone_is_independent():
    state = in_setting(0)
    propose(state, (40, 30, 30))
    copy = state.clone()
    propose(copy, (50, 25, 25), (50, 25, 25))
    vote(copy, 1, 1, 1)
    assert copy.is_terminal() and not state.is_terminal()
    assert state.current_player() == 1 and state.observation_dict(0)["rounds"][0]["proposals"][1] is None
    assert state.history() == copy.history()[:2]


def test_a_match_with_talk_replays_exactly_from_its_history_and_messages():
    rng = random.Random(7)
    state = new_state()
    while not state.is_terminal():
        state.step_randomly(rng)
    said = {m["move"]: m["text"] for m in state.messages()}
    replay = new_state()
    for move, (_, action) in enumerate(state.history()):
        replay.apply_action(action, said.get(move))
    assert replay.result_details() == state.result_details()
    assert [replay.observation_string(s) for s in range(3)] == [state.observation_string(s) for s in range(3)]


@pytest.mark.parametrize("overrides", [{}, {"challenger_seat": 0}])
def test_state_from_view_rebuilds_every_view_with_its_talk(overrides):
    game = load_game(GAME, overrides, preset="magic")
    for seed in range(10):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in range(3):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert [rebuilt.observation_dict(s) for s in range(3)] == [state.observation_dict(s) for s in range(3)]
                assert rebuilt.legal_actions() == state.legal_actions()
            if state.is_terminal():
                break
            state.step_randomly(rng)


def test_views_hold_nothing_seat_specific_but_the_seat_itself():
    # Perfect information: no seat has a secret, so the views differ only in who the seat is.
    state = in_setting(5)
    state.apply_action(SPLIT_ID[(20, 50, 30)], "talk")
    views = [state.observation_dict(seat) for seat in range(3)]
    personal = {"seat", "name", "airline", "my_last_proposal"}
    for view in views[1:]:
        assert {k: v for k, v in view.items() if k not in personal} == \
               {k: v for k, v in views[0].items() if k not in personal}
    assert [v["my_last_proposal"] for v in views] == [[20, 50, 30], None, None]
