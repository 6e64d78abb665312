"""Pirate Game: the passing threshold, elimination, returns, written proposals (both GAMA-Bench formats,
canonical text, refusals, the fallback), votes, hidden ballots, views and their rebuilding, the
GAMA-Bench score and its switches, parameters and presets."""

from __future__ import annotations

import json
import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS, ActionParseError, IllegalActionError, TextRejectedError
from arena_engines.pirate_game import (ACCEPT, PROPOSE, REJECT, equal_split, gamabench_history, gamabench_score,
                                       optimal_proposal, proposal_text, read_proposal, stewart_accepts)

GAME = "pirate_game"
A, R = ACCEPT, REJECT


def make(players=5, gold=100):
    return load_game(GAME, {"gold": gold}, num_players=players).new_initial_state()


def propose(state, shares):
    """The current proposer says `shares` (proposer first) in the paper's format."""
    proposer = state.current_player()
    state.apply_action(PROPOSE, proposal_text(proposer + 1, shares))


def vote(state, ballots):
    """The voters' ballots, in seat order after the proposer."""
    proposer = state.num_players - len(ballots) - 1
    state.apply_actions([0] * (proposer + 1) + list(ballots))


def play(players, gold, rounds):
    """A match from [(shares, ballots), ...], one pair per round."""
    state = make(players, gold)
    for shares, ballots in rounds:
        propose(state, shares)
        vote(state, ballots)
    return state


def reference_outcome(players, gold, rounds):
    """(returns, rounds played) under the rules of gamabench.md §2.8, computed without the engine."""
    for proposer, (shares, ballots) in enumerate(rounds):
        aboard = players - proposer
        assert len(shares) == aboard and sum(shares) == gold
        if (1 + sum(b == A for b in ballots)) / aboard >= 0.5:
            return [-1.0] * proposer + [float(s) for s in shares], proposer + 1
    raise AssertionError("no plan passed")


# ---- rules --------------------------------------------------------------------------------------
def test_at_least_half_passes_counting_the_proposers_own_accept():
    # Four aboard: the proposer and one voter are half.
    passed = play(4, 100, [([97, 1, 1, 1], [A, R, R])])
    assert passed.is_terminal() and passed.returns() == [97.0, 1.0, 1.0, 1.0]
    failed = play(4, 100, [([97, 1, 1, 1], [R, R, R])])
    assert not failed.is_terminal() and failed.current_player() == 1
    # Five aboard: two accepts are fewer than half, three are enough.
    assert not play(5, 100, [([96, 1, 1, 1, 1], [A, R, R, R])]).is_terminal()
    assert play(5, 100, [([96, 1, 1, 1, 1], [A, A, R, R])]).is_terminal()


def test_a_rejected_proposer_goes_overboard_and_the_next_pirate_proposes():
    state = make(5)
    assert state.current_player() == 0 and state.legal_actions() == [PROPOSE]
    propose(state, [100, 0, 0, 0, 0])
    assert state.is_simultaneous_node() and state.current_players() == [1, 2, 3, 4]
    assert state.legal_actions(2) == [ACCEPT, REJECT] and state.legal_actions(0) == []
    vote(state, [R, R, R, R])
    assert state.current_player() == 1 and state.returns() == [0.0] * 5
    propose(state, [97, 0, 1, 2])
    assert state.current_players() == [2, 3, 4]
    vote(state, [R, A, R])
    assert state.is_terminal() and state.move_number == 4
    assert state.returns() == [-1.0, 97.0, 0.0, 1.0, 2.0]
    assert state.result_details()["overboard"] == [0]
    assert state.result_details()["gold"] == [0, 97, 0, 1, 2]


def test_two_pirates_aboard_always_pass_and_the_game_ends_by_round_n_minus_1():
    state = make(3, 10)
    propose(state, [10, 0, 0])
    vote(state, [R, R])
    propose(state, [10, 0])
    vote(state, [R])
    assert state.is_terminal() and state.returns() == [-1.0, 10.0, 0.0]
    assert load_game(GAME, num_players=2).new_initial_state().num_players == 2


def test_illegal_moves_are_refused_and_leave_the_state_unchanged():
    state = make(4)
    for action in (ACCEPT, REJECT, 3):
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, A, A, A])
    propose(state, [97, 1, 1, 1])
    before = (state.history(), state.messages(), state.observation_string(2))
    with pytest.raises(IllegalActionError):
        state.apply_action(PROPOSE, state.default_message(state.current_player()))
    for bad in ([0, PROPOSE, A, A], [0, A, A], [0, A, 7, A]):
        with pytest.raises(IllegalActionError):
            state.apply_actions(bad)
    assert (state.history(), state.messages(), state.observation_string(2)) == before
    vote(state, [A, A, A])
    with pytest.raises(IllegalActionError):
        state.apply_action(PROPOSE, state.default_message(state.current_player()))


def test_the_papers_sample_game_table_3():
    # gamabench.md §2.8, Table 3 (round 3 rebuilt from the released log): three proposals, 80.5.
    state = play(10, 100, [
        ([100, 0, 0, 0, 0, 0, 0, 0, 0, 0], [R] * 9),
        ([99, 0, 1, 0, 0, 0, 0, 0, 0], [R, A, A, R, R, R, R, A]),
        ([50, 1, 1, 1, 1, 1, 1, 44], [A] * 7),
    ])
    assert state.is_terminal() and state.returns() == [-1.0, -1.0, 50.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 44.0]
    rounds = state.result_details()["rounds"]
    # Per round: L1 from the optimum 8, 6, 94; correct votes 9 of 9, 6 of 8, 4 of 7.
    for r, (distance, correct) in enumerate([(8, 9), (6, 6), (94, 4)]):
        one = gamabench_score({"gold": 100}, {"rounds": [rounds[r]]})
        assert (one["S8P"], one["correct_votes"]) == (distance, correct)
    score = state.result_details()["gamabench"]
    assert score["S8P"] == 36 and (score["correct_votes"], score["votes"]) == (19, 24)
    assert score["score"] == pytest.approx(80.5)      # 41 + 50 * 0.79
    unrounded = gamabench_score({"gold": 100}, state.result_details(), pirate_vote_accuracy_rounding="unrounded")
    assert unrounded["score"] == pytest.approx(41 + 50 * 19 / 24)


def test_random_playouts_agree_with_an_independent_implementation():
    rng = random.Random(7)
    lengths = set()
    for _ in range(200):
        players, gold = rng.randint(2, 12), rng.choice([1, 4, 5, 100, 400, rng.randint(1, 5000)])
        state = make(players, gold)
        script = []
        while not state.is_terminal():
            said = state.random_message(state.current_player(), rng)
            state.apply_action(PROPOSE, said)
            shares = state.observation_dict(0)["proposal"]
            assert [int(v) for v in json.loads(said).values()] == shares
            ballots = [rng.choice([A, R]) for _ in range(len(shares) - 1)]
            script.append((shares, ballots))
            vote(state, ballots)
        returns, rounds = reference_outcome(players, gold, script)
        assert state.returns() == returns
        details = state.result_details()
        assert len(details["rounds"]) == rounds and [r["passed"] for r in details["rounds"]] == [False] * (rounds - 1) + [True]
        for record, (shares, ballots) in zip(details["rounds"], script):
            assert record["proposal"] == shares and sum(shares) == gold
            assert record["votes"] == ["accept"] + ["accept" if b == A else "reject" for b in ballots]
            assert record["accepts"] == 1 + ballots.count(A)
        lengths.add(rounds)
    assert len(lengths) >= 3


def test_clones_play_on_independently():
    state = make(4)
    propose(state, [97, 1, 1, 1])
    copy = state.clone()
    vote(copy, [R, R, R])
    propose(copy, [100, 0, 0])
    vote(state, [A, A, A])
    assert state.is_terminal() and state.returns() == [97.0, 1.0, 1.0, 1.0]
    assert not copy.is_terminal() and copy.current_players() == [2, 3]
    assert len(state.messages()) == 1 and len(copy.messages()) == 2
    vote(copy, [A, R])
    assert copy.returns() == [-1.0, 100.0, 0.0, 0.0]


# ---- proposals ------------------------------------------------------------------------------------
CANONICAL = '{"3": "50", "4": "1", "5": "1", "6": "48"}'


@pytest.mark.parametrize("text", [
    CANONICAL,
    '{"3": 50, "4": 1, "5": 1, "6": 48}',
    '{"3": "50", "4": "1", "5": "1", "6": 48.0}',
    '{"proposal": {"3-th": "50", "4-th": "1", "5-th": "1", "6-th": "48"}}',
    '{"6": "48", "5": "1", "4": "1", "3": "50"}',
    'My plan: {"3rd": "50", "pirate 4": "1", "Pirate_5": " 1 ", "6th": "+48"} Yours truly.',
    "{'proposal': {'3-th': '50', '4-th': '1', '5-th': '1', '6-th': '48'}}",
    '```json\n{"explanation": "keep most", "proposal": {"3-th": "50", "4-th": "1", "5-th": "1", "6-th": "48"}}\n```',
    '{"note": "thinking"} then {"3": "50", "4": "1", "5": "1", "6": "48"} and {"3": "0", "4": "0", "5": "0", "6": "100"}',
])
def test_both_formats_read_to_one_canonical_text(text):
    state = _third_proposer()
    assert state.check_message(2, text) == CANONICAL
    assert state.check_message(2, CANONICAL) == CANONICAL          # canonical text is a fixed point
    assert read_proposal(text, 3, 6, 100) == [50, 1, 1, 48]


def _third_proposer():
    """Six pirates, two thrown overboard: seat 2 (pirate 3) proposes to pirates 3-6."""
    return play(6, 100, [([100, 0, 0, 0, 0, 0], [R] * 5), ([100, 0, 0, 0, 0], [R] * 4)])


@pytest.mark.parametrize("text,reason", [
    ('{"3": "50", "4": "1", "5": "1", "6": "47"}', "add up to 99, not 100"),
    ('{"3": "50", "4": "1", "5": "49"}', "pirate 6 is missing"),
    ('{"2": "0", "3": "50", "4": "1", "5": "1", "6": "48"}', "pirate 2 is not aboard"),
    ('{"3": "50", "4": "1", "5": "1", "6": "48", "7": "0"}', "pirate 7 is not aboard"),
    ('{"3": "102", "4": "-1", "5": "-1", "6": "0"}', "pirate 4's share -1 is negative"),
    ('{"3": 49.5, "4": 1.5, "5": "1", "6": "48"}', "pirate 3's share 49.5 is not a whole number"),
    ('{"3": "fifty", "4": "1", "5": "1", "6": "48"}', 'pirate 3\'s share "fifty" is not a whole number'),
    ('{"3": true, "4": "1", "5": "1", "6": "48"}', "pirate 3's share true is not a whole number"),
    ('{"3": "50", "3-th": "50", "4": "1", "5": "1", "6": "48"}', "pirate 3 is listed twice"),
    ('{"decision": "accept"}', "no proposal found"),
    ("I keep everything.", "no proposal found"),
    ("", "no proposal found"),
])
def test_invalid_proposals_are_refused_with_the_reason_and_the_format(text, reason):
    state = _third_proposer()
    before = (state.history(), state.messages(), state.observation_string(3), state.observation_dict(3))
    with pytest.raises(TextRejectedError) as refused:
        state.apply_action(PROPOSE, text)
    assert reason in str(refused.value)
    assert "pirates 3 to 6" in str(refused.value) and '{"3": "25", "4": "25", "5": "25", "6": "25"}' in str(refused.value)
    assert (state.history(), state.messages(), state.observation_string(3), state.observation_dict(3)) == before
    with pytest.raises(ActionParseError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        state.parse_action(2, text)


def test_overlong_proposals_and_messages_out_of_turn_are_refused():
    state = make(4)
    with pytest.raises(TextRejectedError, match="limit is 8000"):
        state.apply_action(PROPOSE, " " * 8000 + proposal_text(1, [97, 1, 1, 1]))
    with pytest.raises(TextRejectedError, match="no proposal to make now"):
        state.check_message(1, proposal_text(1, [97, 1, 1, 1]))
    propose(state, [97, 1, 1, 1])
    with pytest.raises(TextRejectedError, match="takes no message"):
        state.apply_actions([0, A, A, A], [None, "hello", None, None])
    assert state.messages() == [{"move": 0, "seat": 0, "text": proposal_text(1, [97, 1, 1, 1]), "to": None}]


def test_a_proposal_is_a_public_message_read_into_the_state():
    state = make(4, 10)
    state.apply_action(PROPOSE, '{"proposal": {"1-th": "7", "2-th": "0", "3-th": "3", "4-th": "0"}}')
    assert state.observation_dict(2)["proposal"] == [7, 0, 3, 0] and state.observation_dict(2)["my_share"] == 3
    expected = {"move": 0, "seat": 0, "text": '{"1": "7", "2": "0", "3": "3", "4": "0"}'}
    assert all(state.conversation(seat) == [expected] for seat in range(4))
    assert state.message_audience(0) is None


def test_a_free_text_reply_is_read_as_the_proposal_message():
    # The referee splits an LLM's whole reply with read_reply: the single action plus the reply as message.
    state = make(3, 10)
    reply = 'Let me think. I keep most. {"proposal": {"1-th": "9", "2-th": "0", "3-th": "1"}}'
    action, message = state.read_reply(0, reply)
    assert (action, message) == (PROPOSE, reply)
    state.apply_action(action, message)
    assert state.messages()[0]["text"] == '{"1": "9", "2": "0", "3": "1"}'
    assert state.observation_dict(2)["my_share"] == 1


def test_a_proposal_turn_without_text_is_refused_and_changes_nothing():
    state = make(4, 10)
    with pytest.raises(TextRejectedError, match="this decision needs a message"):
        state.apply_action(PROPOSE)
    assert state.messages() == [] and state.move_number == 0 and state.current_player() == 0
    # The documented fallback, as the failure policy plays it.
    state.apply_action(PROPOSE, state.default_message(0))
    assert state.messages()[0]["text"] == '{"1": "4", "2": "2", "3": "2", "4": "2"}'
    assert state.observation_dict(0)["proposal"] == [4, 2, 2, 2]


def test_fallbacks_and_text_specs():
    state = make(4, 10)
    assert state.default_action(0) == PROPOSE and state.default_action(1) is None
    assert state.default_message(0) == '{"1": "4", "2": "2", "3": "2", "4": "2"}' and state.default_message(1) is None
    spec = state.text_action_spec(0)
    assert spec["message"] == "required" and spec["example"] == state.default_message(0)
    assert spec["max_length"] == 8000 and spec["forbidden_words"] == [] and "pirates 1 to 4" in spec["description"]
    assert state.text_action_spec(1) is None
    state.apply_action(PROPOSE, state.default_message(state.current_player()))
    assert [state.default_action(s) for s in range(4)] == [None, REJECT, REJECT, REJECT]
    assert state.default_message(1) is None
    vote_spec = state.text_action_spec(3)
    assert "message" not in vote_spec and '{"decision": "accept"}' in vote_spec["description"]
    assert state.text_action_spec(0) is None


@pytest.mark.parametrize("aboard,gold,shares", [
    (10, 100, [10] * 10), (4, 10, [4, 2, 2, 2]), (10, 5, [5] + [0] * 9), (3, 4, [2, 1, 1]), (2, 1, [1, 0]),
])
def test_the_equal_split_gives_the_remainder_to_the_proposer(aboard, gold, shares):
    assert equal_split(aboard, gold) == shares


def test_random_messages_are_valid_varied_splits():
    state = make(5, 7)
    rng = random.Random(3)
    drawn = {state.random_message(0, rng) for _ in range(60)}
    assert len(drawn) > 20
    assert all(state.check_message(0, text) == text for text in drawn)
    with pytest.raises(TextRejectedError):
        state.random_message(1, rng)


def test_a_match_replays_exactly_from_its_history_and_messages():
    rng = random.Random(11)
    state = make(6, 50)
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice([A, R]) if s in state.current_players() else 0 for s in range(6)])
        else:
            state.apply_action(PROPOSE, state.random_message(state.current_player(), rng))
    said = {m["move"]: m["text"] for m in state.messages()}
    again = make(6, 50)
    for move, (seat, action) in enumerate(state.history()):
        if seat == SIMULTANEOUS:
            again.apply_actions(list(action))
        else:
            again.apply_action(action, said[move])
    assert again.returns() == state.returns() and again.messages() == state.messages()
    assert again.result_details() == state.result_details()
    assert all(again.conversation(s) == state.conversation(s) for s in range(6))


# ---- votes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ('{"decision": "accept"}', A),
    ('{"decision": "reject"}', R),
    ('{"decision": "Accept."}', A),
    ('I think so. {"decision": "accept"} Cheers', A),
    ('{"explanation": "1 coin beats nothing", "decision": "accept"}', A),
    ("{'decision': 'reject'}", R),
    ('{"Decision": "reject",}', R),
    ('{"decision": "I accept"}', A),
    ("accept", A),
    ("  Reject.\n", R),
])
def test_votes_are_read(text, action):
    state = make(4)
    state.apply_action(PROPOSE, state.default_message(state.current_player()))
    assert state.parse_action(2, text) == action


@pytest.mark.parametrize("text", ['{"decision": "accept_or_reject"}', '{"decision": "maybe"}', '{"decision": 1}',
                                  "I accept", "yes", "", '{"vote": "accept"}'])
def test_unreadable_votes_raise_with_the_expected_format(text):
    state = make(4)
    state.apply_action(PROPOSE, state.default_message(state.current_player()))
    with pytest.raises(ActionParseError, match=r'\{"decision": "accept"\} or \{"decision": "reject"\}'):
        state.parse_action(2, text)


def test_action_texts_parse_back_and_seats_without_a_decision_are_told():
    state = make(4)
    assert state.action_to_string(0, PROPOSE) == "propose" and state.parse_action(0, "propose") == PROPOSE
    assert state.parse_action(0, proposal_text(1, [1, 1, 1, 97])) == PROPOSE
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(2, "accept")
    state.apply_action(PROPOSE, state.default_message(state.current_player()))
    for action in (ACCEPT, REJECT):
        assert state.parse_action(1, state.action_to_string(1, action)) == action
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(0, "accept")


# ---- what each seat sees ------------------------------------------------------------------------
def _views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def test_only_the_number_of_accepts_is_revealed():
    # Same proposals and counts, and seat 2 voted the same; the other voters voted differently.
    first = play(6, 100, [([100, 0, 0, 0, 0, 0], [A, R, R, R, R]), ([90, 5, 5, 0, 0], [A, A, R, R])])
    second = play(6, 100, [([100, 0, 0, 0, 0, 0], [R, R, R, A, R]), ([90, 5, 5, 0, 0], [A, R, A, R])])
    assert _views(first, 2) == _views(second, 2)
    for secret_holder in (1, 3, 4):
        assert first.observation_dict(secret_holder) != second.observation_dict(secret_holder)
    assert "Round 1: 2 of 6 pirates aboard accepted (fewer than half): pirate 1 was thrown overboard. You voted " \
           "reject." in first.observation_string(2).splitlines()
    # The ballots are revealed at the end.
    assert first.result_details()["rounds"][0]["votes"] == ["accept", "accept", "reject", "reject", "reject", "reject"]
    assert second.result_details()["rounds"][0]["votes"] == ["accept", "reject", "reject", "reject", "accept", "reject"]


def test_resampling_redraws_other_ballots_and_keeps_the_counts():
    state = play(7, 100, [([100] + [0] * 6, [A, R, A, R, R, R]), ([94, 1, 1, 1, 1, 2], [R, A, R, R, R])])
    propose(state, [90, 5, 5, 0, 0])
    for seat in range(7):
        mine = _views(state, seat)
        changed = 0
        for seed in range(20):
            redrawn = state.resample_hidden(seat, seed)
            assert _views(redrawn, seat) == mine
            rounds = redrawn.result_details()["rounds"]
            assert [r["accepts"] for r in rounds] == [3, 2]
            assert all(r["votes"].count("accept") == r["accepts"] for r in rounds)
            changed += any(redrawn.observation_dict(o) != state.observation_dict(o) for o in range(7) if o != seat)
        assert changed > 0, seat




def test_observation_text_reports_the_rules_proposals_outcomes_and_own_votes():
    state = play(4, 10, [([10, 0, 0, 0], [R, R, R])])
    propose(state, [8, 1, 1])
    lines = state.observation_string(3).splitlines()
    assert lines[0] == "Pirate game: 4 pirates, ranked 1 (most senior) to 4, share 10 gold coins. You are pirate 4."
    assert "at least half of the pirates aboard accept" in lines[1] and "Only the number of accepts" in lines[1]
    assert lines[2:] == [
        'Round 1: pirate 1 proposed (move 0): {"1": "10", "2": "0", "3": "0", "4": "0"}',
        "Round 1: 1 of 4 pirates aboard accepted (fewer than half): pirate 1 was thrown overboard. You voted reject.",
        'Round 2: pirate 2 proposed (move 2): {"2": "8", "3": "1", "4": "1"}',
        'Round 2: you are offered 1 coin. Vote: Answer with JSON {"decision": "accept"} or {"decision": "reject"}.',
    ]
    assert state.observation_string(1).splitlines()[-1] == "Round 2: the other pirates aboard are voting."
    assert state.observation_string(0).splitlines()[-2:] == [
        "You were thrown overboard in round 1.", "Round 2: the other pirates aboard are voting."]
    vote(state, [A, R])
    assert state.observation_string(1).splitlines()[-2:] == [
        "Round 2: 2 of 3 pirates aboard accepted (at least half): the plan passed and the gold is paid as proposed. "
        "You proposed it.",
        "The game is over: you received 8 coins."]
    assert state.observation_string(0).endswith("The game is over: you received nothing.")
    assert state.observation_string(2).endswith("You voted accept.\nThe game is over: you received 1 coin.")


def test_the_proposer_is_asked_for_its_plan_in_the_text():
    state = make(3, 6)
    assert state.observation_string(0).splitlines()[-1] == (
        'Round 1: you are the most senior pirate aboard. Propose how to split the 6 coins. Write a JSON map from '
        "each pirate's rank to its gold, for pirates 1 to 3, whole non-negative numbers summing to 6, e.g. "
        '{"1": "2", "2": "2", "3": "2"}')
    assert state.observation_string(2).splitlines()[-1] == "Round 1: pirate 1 is making a proposal."


def test_observation_dict_contents():
    state = play(4, 10, [([10, 0, 0, 0], [R, R, R])])
    assert state.observation_dict(2) == {
        "players": 4, "gold": 10, "rank": 3, "round": 2, "phase": "propose", "proposer": 1, "aboard": [1, 2, 3],
        "overboard": [0], "proposal": None, "my_share": None,
        "past_rounds": [{"round": 1, "proposer": 0, "proposal": [10, 0, 0, 0], "aboard": 4, "accepts": 1,
                         "passed": False, "my_vote": "reject"}],
        "finished": False, "my_gold": None,
        "conversation": [{"move": 0, "seat": 0, "text": '{"1": "10", "2": "0", "3": "0", "4": "0"}'}],
    }
    propose(state, [8, 1, 1])
    view = state.observation_dict(3)
    assert (view["phase"], view["proposal"], view["my_share"]) == ("vote", [8, 1, 1], 1)
    assert state.observation_dict(0)["past_rounds"][0]["my_vote"] == "accept"     # its own proposal
    vote(state, [A, A])
    final = state.observation_dict(0)
    assert (final["phase"], final["finished"], final["my_gold"], final["my_share"]) == ("finished", True, 0, None)
    assert state.observation_dict(1)["my_gold"] == 8
    assert [r["passed"] for r in final["past_rounds"]] == [False, True]
    assert [r["my_vote"] for r in final["past_rounds"]] == ["accept", None]
    assert json.loads(json.dumps(final)) == final


def test_public_history_has_each_proposal_and_each_vote_count():
    state = play(4, 10, [([10, 0, 0, 0], [R, R, R])])
    propose(state, [8, 1, 1])
    expected = [
        (0, PROPOSE, 'pirate 1 proposes {"1": "10", "2": "0", "3": "0", "4": "0"}'),
        (-1, -1, "Round 1: 1 of 4 pirates aboard accepted (fewer than half): pirate 1 was thrown overboard."),
        (1, PROPOSE, 'pirate 2 proposes {"2": "8", "3": "1", "4": "1"}'),
    ]
    assert state.public_history() == expected
    vote(state, [A, R])
    assert state.public_history()[:3] == expected      # append-only
    assert state.public_history()[3] == (-1, -1, "Round 2: 2 of 3 pirates aboard accepted (at least half): the "
                                                 "plan passed and the gold is paid as proposed.")


def test_result_details_and_summary():
    state = play(4, 10, [([10, 0, 0, 0], [R, R, R]), ([8, 1, 1], [A, R])])
    details = state.result_details()
    assert details["rounds"] == [
        {"round": 1, "proposer": 0, "pirates": [0, 1, 2, 3], "proposal": [10, 0, 0, 0],
         "votes": ["accept", "reject", "reject", "reject"], "accepts": 1, "passed": False},
        {"round": 2, "proposer": 1, "pirates": [1, 2, 3], "proposal": [8, 1, 1], "votes": ["accept", "accept", "reject"],
         "accepts": 2, "passed": True},
    ]
    assert details["overboard"] == [0] and details["gold"] == [0, 8, 1, 1]
    assert details["gamabench"] == gamabench_score({"gold": 10}, details)
    assert json.loads(json.dumps(details)) == details
    assert state.result_summary().startswith("pirate 2's plan passed in round 2 (2 of 3 accepted); pirate 1 thrown "
                                             "overboard; coins paid: pirate 2: 8, pirate 3: 1, pirate 4: 1; GAMA-Bench "
                                             "score ")
    assert make().result_summary() == "game in progress"
    assert "gamabench" not in make().result_details()


def test_state_from_view_rebuilds_each_seats_view_and_conversation():
    rng = random.Random(5)
    for _ in range(20):
        state = make(rng.randint(2, 8), rng.choice([4, 100]))
        game = state.game
        while True:
            for seat in range(state.num_players):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert _views(rebuilt, seat) == _views(state, seat)
                assert rebuilt.conversation(seat) == state.conversation(seat)
                assert rebuilt.current_players() == state.current_players()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.is_terminal() == state.is_terminal()
            if state.is_terminal():
                break
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice([A, R]) for _ in range(state.num_players)])
            else:
                state.apply_action(PROPOSE, state.random_message(state.current_player(), rng))


def test_state_from_view_refuses_impossible_views():
    state = play(4, 10, [([10, 0, 0, 0], [R, R, R])])
    view = state.observation_dict(2)
    with pytest.raises(ValueError, match="proposals"):
        state.game.state_from_view(2, {**view, "conversation": []})
    impossible = {**view, "past_rounds": [{**view["past_rounds"][0], "accepts": 4}]}     # seat 2 rejected
    with pytest.raises(ValueError, match="impossible"):
        state.game.state_from_view(2, impossible)


# ---- GAMA-Bench scoring -------------------------------------------------------------------------
def _round(proposal, votes):
    return {"proposal": proposal, "votes": ["accept"] + votes}


def test_optimal_plans_and_votes():
    assert optimal_proposal(10, 100) == [96, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    assert optimal_proposal(9, 100)[0] == 96 and optimal_proposal(8, 100)[0] == 97
    assert optimal_proposal(2, 100) == [100, 0] and optimal_proposal(3, 100) == [99, 0, 1]
    assert optimal_proposal(10, 3) == [0, 0, 1, 0, 1, 0, 1, 0, 0, 0]      # G too small to buy every vote
    assert [stewart_accepts(p, g) for p, g in [(1, 2), (3, 5), (1, 0), (2, 0), (2, 1), (4, 1), (1, 1), (3, 1)]] == \
        [True, True, False, False, True, True, False, False]


def test_optimal_play_scores_100_and_shares_are_rescaled_to_100_gold():
    optimal_votes = ["reject", "accept", "reject", "accept", "reject", "accept", "reject", "accept", "reject"]
    assert gamabench_score({"gold": 100}, {"rounds": [_round([96, 0, 1, 0, 1, 0, 1, 0, 1, 0], optimal_votes)]}) == {
        "S8P": 0.0, "S8V": 1.0, "correct_votes": 9, "votes": 9, "rounds": 1, "score": 100.0}
    # 400 gold: [384, 0, 4, ...] is the optimum on the 100-gold scale.
    assert gamabench_score({"gold": 400}, {"rounds": [_round([384, 0, 4, 0, 4, 0, 4, 0, 4, 0], optimal_votes)]})["S8P"] == 0
    # 4 gold: [4, 0, ...] is [100, 0, ...] rescaled: L1 = 4 + 4 * 1 = 8.
    assert gamabench_score({"gold": 4}, {"rounds": [_round([4] + [0] * 9, ["reject"] * 9)]})["S8P"] == 8.0


def test_one_coin_at_the_other_parity_counts_per_the_parity_switch():
    # Three aboard, pirate at position 1 offered 1 coin: Stewart says reject; the code credits neither vote.
    rejects = {"rounds": [_round([98, 1, 1], ["reject", "accept"])]}
    accepts = {"rounds": [_round([98, 1, 1], ["accept", "accept"])]}
    assert gamabench_score({"gold": 100}, rejects)["correct_votes"] == 1
    assert gamabench_score({"gold": 100}, accepts)["correct_votes"] == 1
    assert gamabench_score({"gold": 100}, rejects, pirate_parity_credit="stated")["correct_votes"] == 2
    assert gamabench_score({"gold": 100}, accepts, pirate_parity_credit="stated")["correct_votes"] == 1


def test_voter_denominator_and_rounding_switches():
    details = {"rounds": [_round([100, 0, 0, 0], ["reject", "reject", "accept"]),
                          _round([99, 0, 1], ["reject", "accept"])]}
    # Optimal plans [99, 0, 1, 0] and [99, 0, 1]: L1 = 2 and 0; 4 correct votes of 5.
    correct = gamabench_score({"gold": 100}, details)
    assert (correct["S8P"], correct["correct_votes"], correct["votes"]) == (1.0, 4, 5)
    assert correct["score"] == pytest.approx(50 * 199 / 200 + 50 * 0.8)
    legacy = gamabench_score({"gold": 100}, details, pirate_voter_denominator="legacy_bug")
    assert legacy["S8V"] == pytest.approx(4 / (9 + 4)) and legacy["score"] == pytest.approx(50 * 199 / 200 + 50 * 4 / 13)
    legacy_rounded = gamabench_score({"gold": 100}, details, pirate_voter_denominator="legacy_bug",
                                     pirate_vote_accuracy_rounding="2dp")
    assert legacy_rounded["score"] == pytest.approx(50 * 199 / 200 + 50 * 0.31)
    thirds = {"rounds": [_round([99, 0, 1], ["reject", "reject"]), _round([99, 0, 1], ["accept", "accept"])]}
    assert gamabench_score({"gold": 100}, thirds)["score"] == pytest.approx(50 + 50 * 0.5)


@pytest.mark.parametrize("switch", [{"pirate_voter_denominator": "buggy"}, {"pirate_vote_accuracy_rounding": "1dp"},
                                    {"pirate_parity_credit": "paper"}])
def test_unknown_switch_values_and_empty_runs_are_refused(switch):
    with pytest.raises(ValueError):
        gamabench_score({"gold": 100}, {"rounds": [_round([100, 0], ["reject"])]}, **switch)
    with pytest.raises(ValueError, match="at least one"):
        gamabench_score({"gold": 100}, {"rounds": []})
    with pytest.raises(TypeError):
        gamabench_score({"gold": 100}, {"rounds": []}, dollar_clip="per_run")


def test_gamabench_history_converts_a_log_with_its_proposals_as_messages():
    run = {"meta": {"player_num": 4, "gold": 10},
           "round_records": [{"gold_distribution": [10, 0, 0, 0], "responses": ["accept", "reject", "accept", "reject"]},
                             {"gold_distribution": [9, 0, 1], "responses": ["accept", "reject", "accept"]}]}
    parameters, history, messages = gamabench_history(run)
    assert parameters == {"players": 4, "gold": 10}
    assert history == [(0, PROPOSE), (SIMULTANEOUS, (0, R, A, R)), (1, PROPOSE), (SIMULTANEOUS, (0, 0, R, A))]
    assert messages == {0: '{"1": "10", "2": "0", "3": "0", "4": "0"}', 2: '{"2": "9", "3": "0", "4": "1"}'}
    del run["meta"]["gold"]                                     # absent means 100
    assert gamabench_history(run)[0]["gold"] == 100
    bad = {"meta": {"player_num": 4}, "round_records": [{"gold_distribution": [100, 0, 0], "responses": ["accept"] * 3}]}
    with pytest.raises(ValueError, match="4 pirates aboard"):
        gamabench_history(bad)
    bad = {"meta": {"player_num": 2}, "round_records": [{"gold_distribution": [100, 0], "responses": ["accept", "maybe"]}]}
    with pytest.raises(ValueError, match="unknown vote"):
        gamabench_history(bad)


# ---- spec, presets, parameters ------------------------------------------------------------------
def test_spec_and_presets_follow_the_paper():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("simultaneous", "deterministic", "imperfect", "general_sum")
    assert spec.dialogue and spec.accepts_text_actions
    assert [p.name for p in spec.presets] == ["gamabench", "gamabench_g4", "gamabench_g5", "gamabench_g400"]
    for preset, gold in [("gamabench", 100), ("gamabench_g4", 4), ("gamabench_g5", 5), ("gamabench_g400", 400)]:
        game = load_game(GAME, preset=preset)
        assert game.parameters == {"players": 10, "gold": gold} and game.num_players == 10
        assert game.utility_bounds() == (-1.0, float(gold))
        assert preset == "gamabench" or f"G = {gold}" in spec.preset(preset).description


@pytest.mark.parametrize("parameters,players", [({"gold": 0}, 10), ({"gold": 1000001}, 10), ({"gold": 2.5}, 10),
                                                ({}, 1), ({}, 101)])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
