"""Negotiation: the chance setup of both instance families, agreement and no-deal payoffs, the turn
limit, proposal validity, what players see, resampling and rebuilding hidden information, parsing,
LLMArena's talk (replies split into talk and plan, talk checked, heard by both, replayed), presets."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError, TextRejectedError
from arena_engines.negotiation import dond_instance_count

GAME = "negotiation"
AGREE = 216


def make(preset="gtbench", **parameters):
    return load_game(GAME, parameters, preset=preset).new_initial_state()


def proposal(a, b, c):
    return 36 * a + 6 * b + c


def utterance(x, y, z):
    return 217 + 25 * x + 5 * y + z


def setup(state, pool, values0, values1, limit=None):
    """Applies the chance setup: the turn limit (if random), the pool, then both players' values."""
    p = state.game.parameters
    if p["random_length"]:
        state.apply_action(limit)
    state.apply_action(proposal(*pool))
    for values in (values0, values1):
        if p["instances"] == "deal_or_no_deal":
            state.apply_action(121 * values[0] + 11 * values[1] + values[2])
        else:
            for value in values:
                state.apply_action(value)
    assert not state.is_chance_node()
    return state


def sample_chance(state, rng):
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]


def random_talk(state, rng):
    """No talk, the empty talk, a few words or two lines, when the turn takes talk; else None."""
    spec = state.text_action_spec(state.current_player())
    if not (spec and spec.get("message")):
        return None
    return rng.choice([None, "", state.random_message(state.current_player(), rng), "I need apples.\nDo you?"])


def random_playout(state, rng, on_step=None, agree_rate=0.15, talk=False):
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            action = AGREE if AGREE in legal and rng.random() < agree_rate else rng.choice(legal)
            state.apply_action(action, random_talk(state, rng) if talk else None)
        if on_step:
            on_step(state)
    return state


def reference_dond_instances():
    """Every Deal-or-No-Deal instance, enumerated from Lewis et al.'s constraints."""
    instances = []
    for pool in itertools.product(range(1, 6), repeat=3):
        if not 5 <= sum(pool) <= 7:
            continue
        vectors = [v for v in itertools.product(range(11), repeat=3)
                   if sum(x * n for x, n in zip(v, pool)) == 10]
        for a in vectors:
            for b in vectors:
                if all(x + y > 0 for x, y in zip(a, b)) and any(x > 0 and y > 0 for x, y in zip(a, b)):
                    instances.append((pool, a, b))
    return instances


# ---- chance setup --------------------------------------------------------------------------------
def test_openspiel_turn_limit_is_a_poisson_7_truncated_to_4_10():
    outcomes = dict(make().chance_outcomes())
    weights = {k: 7 ** k / math.factorial(k) for k in range(4, 11)}
    total = sum(weights.values())
    assert sorted(outcomes) == list(range(4, 11))
    for k in range(4, 11):
        assert outcomes[k] == pytest.approx(weights[k] / total)


def test_openspiel_pool_is_uniform_and_values_are_uniform_over_non_zero_vectors():
    state = make()
    state.apply_action(7)
    pools = state.chance_outcomes()
    assert [a for a, _ in pools] == list(range(216)) and all(p == pytest.approx(1 / 216) for _, p in pools)
    state.apply_action(proposal(2, 0, 5))
    # The probability of every value vector is the product of the item-by-item chance probabilities.
    law = {}
    first = dict(state.chance_outcomes())
    for v0, p0 in first.items():
        s1 = state.clone()
        s1.apply_action(v0)
        for v1, p1 in s1.chance_outcomes():
            s2 = s1.clone()
            s2.apply_action(v1)
            for v2, p2 in s2.chance_outcomes():
                law[(v0, v1, v2)] = p0 * p1 * p2
    assert len(law) == 1330 and (0, 0, 0) not in law
    assert all(p == pytest.approx(1 / 1330) for p in law.values())
    assert first[0] == pytest.approx(120 / 1330) and first[3] == pytest.approx(121 / 1330)


def test_deal_or_no_deal_instances_are_uniform_over_lewis_et_al_constraints():
    reference = reference_dond_instances()
    assert dond_instance_count() == len(reference) == 5793
    state = make("llmarena_bargain")
    pools = dict(state.chance_outcomes())
    per_pool = {}
    for pool, _, _ in reference:
        per_pool[proposal(*pool)] = per_pool.get(proposal(*pool), 0) + 1
    assert set(pools) == set(per_pool) and len(pools) == 31
    for code, count in per_pool.items():
        assert pools[code] == pytest.approx(count / len(reference))
    # Given a pool, player 0's vector weighs its partners and player 1's is uniform among them.
    pool = (1, 2, 3)
    state.apply_action(proposal(*pool))
    firsts = dict(state.chance_outcomes())
    expected = [(a, b) for p, a, b in reference if p == pool]
    assert sum(firsts.values()) == pytest.approx(1.0)
    for a in {a for a, _ in expected}:
        partners = [b for x, b in expected if x == a]
        assert firsts[121 * a[0] + 11 * a[1] + a[2]] == pytest.approx(len(partners) / len(expected))
    state.apply_action(121 * 8 + 11 * 1 + 0)                # LLMArena's example instance 1,2,3 8,1,0 4,0,2
    seconds = dict(state.chance_outcomes())
    partners = {121 * b[0] + 11 * b[1] + b[2] for a, b in expected if a == (8, 1, 0)}
    assert set(seconds) == partners and 121 * 4 + 2 in partners
    assert state.action_to_string(-1, 121 * 4 + 2) == "player 1 values: 4, 0, 2"


# ---- payoffs and turns ---------------------------------------------------------------------------
def test_an_agreement_gives_each_player_the_value_of_its_share():
    state = setup(make(utterances="none"), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=10)
    state.apply_action(proposal(2, 0, 1))                  # player 0 takes 2, 0, 1
    assert state.current_player() == 1
    state.apply_action(AGREE)
    assert state.is_terminal()
    assert state.returns() == [4.0, 2.0]                   # 2*1 + 1*2; and 1*0 + 2*1 for the rest
    details = state.result_details()
    assert details["shares"] == [[2, 0, 1], [0, 1, 2]] and details["agreement"] is True
    assert details["llmarena_difference_reward"] == [2.0, -2.0]
    assert state.result_summary() == ("agreement: player 0 takes 2 peppers, 0 strawberries, 1 cherry, player 1 "
                                      "takes 0 peppers, 1 strawberry, 2 cherries; values secured 4 and 2")


def test_agree_accepts_the_latest_proposal_and_ends_without_an_utterance():
    state = setup(make(), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=10)
    state.apply_action(proposal(2, 1, 3))                  # player 0 asks for everything
    assert state.current_player() == 0 and state.legal_actions() == [utterance(*u) for u in
                                                                     itertools.product(range(5), repeat=3)]
    state.apply_action(utterance(4, 4, 4))
    state.apply_action(proposal(2, 0, 0))                  # player 1 takes the peppers
    state.apply_action(utterance(0, 1, 2))
    state.apply_action(proposal(0, 1, 3))                  # player 0 takes the rest
    state.apply_action(utterance(1, 1, 1))
    state.apply_action(AGREE)                              # player 1 accepts player 0's latest
    assert state.is_terminal() and state.move_number == 1 + 1 + 6 + 7
    assert state.returns() == [10.0, 6.0]
    assert state.result_details()["shares"] == [[0, 1, 3], [2, 0, 0]]


def test_no_agreement_within_the_turn_limit_gives_both_zero():
    state = setup(make(), (1, 1, 1), (5, 5, 5), (5, 5, 5), limit=4)
    for turn in range(4):
        assert not state.is_terminal() and state.current_player() == turn % 2
        state.apply_action(proposal(1, 1, 1))
        assert not state.is_terminal()                     # the utterance still follows
        state.apply_action(utterance(0, 0, 0))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.result_details()["agreement"] is False and state.result_details()["turn_limit"] == 4
    assert state.observation_dict(1)["turn_limit"] == 4    # revealed once the game ends at it
    assert "No agreement within 4 turns: both players score 0." in state.observation_string(0)


def test_llmarena_bargain_lasts_at_most_ten_rounds_of_one_turn_each():
    state = setup(make("llmarena_bargain"), (1, 2, 3), (8, 1, 0), (4, 0, 2))
    for turn in range(20):
        assert not state.is_terminal() and state.current_player() == turn % 2
        assert state.observation_dict(0)["turn_limit"] == 20
        state.apply_action(proposal(1, 1, 1))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    # The last proposal cannot be accepted; the one before it can, on the last turn.
    state = setup(make("llmarena_bargain"), (1, 2, 3), (8, 1, 0), (4, 0, 2))
    for _ in range(19):
        state.apply_action(proposal(1, 2, 0))
    state.apply_action(AGREE)
    assert state.returns() == [10.0, 6.0]                  # player 0 made turn 19's proposal


def test_proposals_cannot_exceed_the_pool_and_agree_needs_a_proposal():
    state = setup(make(utterances="none"), (2, 0, 1), (1, 1, 1), (1, 1, 1), limit=5)
    assert state.legal_actions() == [proposal(a, 0, c) for a in range(3) for c in range(2)]
    for bad in (proposal(3, 0, 0), proposal(0, 1, 0), proposal(0, 0, 2), AGREE, utterance(0, 0, 0), -1, 342):
        assert not state.is_legal(0, bad)
        with pytest.raises(IllegalActionError):
            state.clone().apply_action(bad)
    state.apply_action(proposal(2, 0, 1))
    assert AGREE in state.legal_actions() and state.legal_actions()[-1] == AGREE
    assert not state.is_legal(0, AGREE)                    # not player 0's turn


def test_an_empty_pool_still_plays_out():
    state = setup(make(utterances="none"), (0, 0, 0), (1, 0, 0), (0, 0, 1), limit=4)
    assert state.legal_actions() == [0]
    state.apply_action(0)
    state.apply_action(AGREE)
    assert state.returns() == [0.0, 0.0] and state.result_details()["agreement"] is True


# ---- information ---------------------------------------------------------------------------------
def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def play(state, moves):
    for move in moves:
        state.apply_action(move)
    return state


@pytest.mark.parametrize("preset,pool,mine,theirs", [
    ("gtbench", (2, 1, 3), (1, 4, 2), [(3, 0, 1), (0, 0, 1)]),
    ("llmarena_bargain", (1, 2, 3), (8, 1, 0), [(4, 0, 2), (0, 2, 2)]),
])
def test_a_player_sees_neither_the_other_values_nor_a_hidden_turn_limit(preset, pool, mine, theirs):
    moves = [proposal(1, 1, 1), utterance(2, 0, 1), proposal(0, 1, 2)] if preset == "gtbench" else \
        [proposal(1, 1, 1), proposal(0, 1, 2)]
    for seat in (0, 1):
        states = []
        for other, limit in ((theirs[0], 7), (theirs[1], 9)):
            values = (mine, other) if seat == 0 else (other, mine)
            states.append(play(setup(make(preset), pool, *values, limit=limit), moves))
        assert views(states[0], seat) == views(states[1], seat)
        assert views(states[0], 1 - seat) != views(states[1], 1 - seat)
        text = states[0].observation_string(seat)
        assert "Your values per item" in text and "Item pool" in text


def test_own_values_pool_moves_and_utterances_are_in_the_view():
    moves = [proposal(1, 1, 1), utterance(2, 0, 1), proposal(0, 1, 2), utterance(3, 3, 3)]
    state = play(setup(make(), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=7), moves)
    data = state.observation_dict(0)
    assert data["my_values"] == [1, 4, 2] and data["pool"] == [2, 1, 3] and data["turn_limit"] is None
    assert [m["action"] for m in data["moves"]] == moves and data["phase"] == "proposal" and data["turn"] == 3
    assert data["latest_proposal"] == {"by": 1, "takes": [0, 1, 2], "leaves": [2, 0, 1]}
    text = state.observation_string(0)
    assert "Your values per item: pepper 1, strawberry 4, cherry 2 (the whole pool is worth 12 to you)." in text
    assert "Turn 2, player 1: says [3, 3, 3]." in text
    assert ("Player 1 proposes to take 0 peppers, 1 strawberry, 2 cherries, which leaves you 2 peppers, "
            "0 strawberries, 1 cherry, worth 4 to you.") in text
    assert state.public_history() == [
        (-1, proposal(2, 1, 3), "item pool: 2 peppers, 1 strawberry, 3 cherries"),
        (0, proposal(1, 1, 1), "Proposal: [1, 1, 1]"), (0, utterance(2, 0, 1), "Utterance: [2, 0, 1]"),
        (1, proposal(0, 1, 2), "Proposal: [0, 1, 2]"), (1, utterance(3, 3, 3), "Utterance: [3, 3, 3]")]


def test_the_end_reports_the_agreement_publicly_and_the_values_only_in_the_details():
    state = play(setup(make(utterances="none"), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=10),
                 [proposal(2, 0, 1), AGREE])
    assert state.public_history()[-1] == (-1, -1, "agreement: player 0 takes 2 peppers, 0 strawberries, "
                                                  "1 cherry, player 1 takes 0 peppers, 1 strawberry, 2 cherries")
    assert state.observation_dict(1)["my_return"] == 2.0
    assert "worth 2 to you" in state.observation_string(1)
    assert state.result_details()["values"] == [[1, 4, 2], [3, 0, 1]]
    assert json.loads(json.dumps(state.result_details())) == state.result_details()


@pytest.mark.parametrize("preset", ["gtbench", "llmarena_bargain"])
def test_resample_hidden_keeps_the_view_and_redraws_what_is_hidden(preset):
    changed_values = changed_limits = 0
    reference = {(pool, a, b) for pool, a, b in reference_dond_instances()}
    for seed in range(60):
        rng = random.Random(seed)

        def check(s):
            nonlocal changed_values, changed_limits
            for seat in (0, 1):
                before = (views(s, seat), s.current_player(), s.legal_actions(seat), s.returns()[seat])
                copies = [s.resample_hidden(seat, k) for k in range(4)]
                for copy in copies:
                    assert (views(copy, seat), copy.current_player(), copy.legal_actions(seat),
                            copy.returns()[seat]) == before
                    if not s.is_chance_node():
                        d = copy.result_details()
                        if preset == "llmarena_bargain":
                            assert (tuple(d["pool"]), tuple(d["values"][0]), tuple(d["values"][1])) in reference
                        else:
                            assert any(d["values"][1 - seat]) and 4 <= d["turn_limit"] <= 10
                            assert d["turn_limit"] >= d["turns_played"]
                details = [c.result_details() for c in copies]
                changed_values += len({tuple(d["values"][1 - seat]) for d in details}) > 1
                changed_limits += len({d["turn_limit"] for d in details}) > 1
        random_playout(make(preset), rng, on_step=check)
    assert changed_values > 0
    assert (changed_limits > 0) == (preset == "gtbench")   # only a random limit is hidden


def test_resampled_turn_limit_never_ends_the_game_earlier_than_observed():
    state = play(setup(make(), (1, 1, 1), (1, 1, 1), (1, 1, 1), limit=10),
                 [proposal(1, 1, 1), utterance(0, 0, 0)] * 5 + [proposal(0, 0, 0)])
    limits = {state.resample_hidden(0, seed).result_details()["turn_limit"] for seed in range(200)}
    assert limits == {6, 7, 8, 9, 10}                      # the utterance after turn 6 is still due
    state.apply_action(utterance(0, 0, 0))
    limits = {state.resample_hidden(1, seed).result_details()["turn_limit"] for seed in range(200)}
    assert limits == {7, 8, 9, 10}


@pytest.mark.parametrize("preset,overrides,talk", [
    ("gtbench", {}, False), ("gtbench", {"utterances": "none"}, False),
    ("llmarena_bargain", {}, True), ("llmarena_bargain", {"max_turns": 5}, True),
    ("llmarena_bargain", {"max_turns": 5}, False),
])
def test_state_from_view_rebuilds_what_the_player_sees(preset, overrides, talk):
    game = load_game(GAME, overrides, preset=preset)
    for seed in range(100):

        def check(s):
            for seat in (0, 1):
                rebuilt = game.state_from_view(seat, s.observation_dict(seat))
                assert rebuilt.observation_string(seat) == s.observation_string(seat)
                assert rebuilt.observation_dict(seat) == s.observation_dict(seat)
                assert rebuilt.legal_actions(seat) == s.legal_actions(seat)
                assert rebuilt.current_player() == s.current_player()
                assert rebuilt.conversation(seat) == s.conversation(seat)
        check(game.new_initial_state())
        random_playout(game.new_initial_state(), random.Random(seed), on_step=check, talk=talk)


# ---- random playouts -----------------------------------------------------------------------------
@pytest.mark.parametrize("preset,overrides", [
    ("gtbench", {}), ("gtbench", {"utterances": "none", "max_turns": 20}),
    ("llmarena_bargain", {}), ("llmarena_bargain", {"random_length": True, "max_turns": 6}),
])
def test_random_playouts_follow_the_rules_and_end_in_time(preset, overrides):
    spec = game_spec(GAME)
    for seed in range(200):
        rng = random.Random(seed)
        state = load_game(GAME, overrides, preset=preset).new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0) and all(p > 0 for _, p in outcomes)
            state.apply_action(sample_chance(state, rng))
        details = state.result_details()
        pool, values = details["pool"], details["values"]
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            if state.observation_dict(seat)["phase"] == "utterance":
                assert legal == list(range(217, 342))
            else:
                shares = itertools.product(*(range(n + 1) for n in pool))
                shares = [proposal(*share) for share in shares]
                assert legal[:len(shares)] == shares
                assert (AGREE in legal) == (state.observation_dict(seat)["latest_proposal"] is not None)
            for bad in (-1, 342, *(a for a in (proposal(5, 5, 5), AGREE, 217) if a not in legal)):
                with pytest.raises(IllegalActionError):
                    state.clone().apply_action(bad)
            state.apply_action(AGREE if AGREE in legal and rng.random() < 0.1 else rng.choice(legal))
            assert state.move_number <= spec.max_game_length
        details = state.result_details()
        if details["agreement"]:
            mine, theirs = details["shares"]
            assert [m + t for m, t in zip(mine, theirs)] == pool
            expected = [sum(v * n for v, n in zip(values[p], details["shares"][p])) for p in (0, 1)]
        else:
            expected = [0, 0]
            assert details["turns_played"] == details["turn_limit"]
        assert state.returns() == expected
        assert all(spec.min_utility <= x <= spec.max_utility for x in expected)
        assert state.legal_actions() == [] and state.current_players() == []


def test_clones_are_independent_and_replays_are_deterministic():
    for seed in range(200):
        rng = random.Random(seed)
        state = make()
        for _ in range(rng.randrange(16)):
            if state.is_terminal():
                break
            action = sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions())
            state.apply_action(action)
        before = (state.history(), state.observation_string(0), state.observation_dict(1), state.returns())
        clone = random_playout(state.clone(), rng)
        assert (state.history(), state.observation_string(0), state.observation_dict(1), state.returns()) == before
        replay = make()
        for _, action in clone.history():
            replay.apply_action(action)
        assert replay.returns() == clone.returns() and replay.result_details() == clone.result_details()


# ---- parsing -------------------------------------------------------------------------------------
def proposal_turn(preset="gtbench", after=()):
    state = setup(make(preset), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=10) if preset == "gtbench" else \
        setup(make(preset), (1, 2, 3), (8, 1, 0), (4, 0, 2))
    return play(state, after)


@pytest.mark.parametrize("text,action", [
    ("<Proposal: [1, 0, 2]>", proposal(1, 0, 2)),
    ("Thought: they want cherries.\nAction: <Proposal: [2, 1, 0]>", proposal(2, 1, 0)),
    ("I considered [0, 0, 0] but <Proposal: [1,1,1]>", proposal(1, 1, 1)),   # the last triple
    ("Proposal: [2, 0, 3]", proposal(2, 0, 3)),
    ("Agree", AGREE),
    ("<Agree>", AGREE),
    ("Action: <AGREE>", AGREE),
    ("<Proposal: [5, 0, 0]>", proposal(5, 0, 0)),              # more than the pool: parsed, then illegal
])
def test_parser_reads_gtbench_answers(text, action):
    state = proposal_turn(after=[proposal(1, 1, 1), utterance(0, 0, 0)])
    assert state.parse_action(1, text) == action


@pytest.mark.parametrize("text,action", [
    ("player_0: 1 hat 2 balls 0 apples", proposal(1, 2, 0)),
    ("player_0: Deal.", AGREE),
    ("I really need the hats. I'd give you all 3 apples.\nplayer_0: 1 hat 1 ball 0 apples", proposal(1, 1, 0)),
    ("player_0: one hat two balls zero apples", proposal(1, 2, 0)),
    ("player_0: 2 balls", proposal(0, 2, 0)),                  # a missing item is 0
    ("Fine, deal!", AGREE),
    ("I want 1 hat and 3 apples.", proposal(1, 0, 3)),
    ("I take 1 hat, 1 ball, 1 apple... no, 2 balls", proposal(1, 2, 1)),   # the last mention of each
])
def test_parser_reads_llmarena_answers(text, action):
    state = proposal_turn("llmarena_bargain", after=[proposal(1, 1, 1), proposal(0, 1, 1)])
    assert state.parse_action(0, text) == action


def test_parser_reads_utterances_at_an_utterance_turn():
    state = proposal_turn(after=[proposal(1, 1, 1)])
    assert state.parse_action(0, "<Utterance: [1, 0, 4]>") == utterance(1, 0, 4)
    assert state.parse_action(0, "Utterance: [0,0,0]") == utterance(0, 0, 0)
    for text, fragment in (("<Utterance: [1, 0, 5]>", "symbols are 0-4"),
                           ("Agree", "could not read an utterance")):
        with pytest.raises(ActionParseError) as refused:
            state.parse_action(0, text)
        assert fragment in str(refused.value) and "Utterance: [1, 0, 4]" in str(refused.value)


@pytest.mark.parametrize("preset,layout", [("gtbench", "'Proposal: [1, 2, 0]'"),
                                           ("llmarena_bargain", "'player_0: 1 hat 2 balls 0 apples'")])
@pytest.mark.parametrize("text,fragment", [
    ("<Proposal: [6, 0, 0]>", "at most 5 of an item"),
    ("player_0: 7 hats", "at most 5 of an item"),
    ("I am thinking about it", "could not read a proposal or an agreement"),
    ("", "could not read a proposal or an agreement"),
])
def test_parser_refuses_unreadable_or_impossible_proposals(preset, layout, text, fragment):
    state = proposal_turn(preset)
    if preset == "gtbench":
        text = text.replace("hats", "peppers")
    with pytest.raises(ActionParseError) as refused:
        state.parse_action(0, text)
    assert fragment in str(refused.value) and layout in str(refused.value)


def test_an_early_agree_parses_but_is_illegal():
    state = proposal_turn("llmarena_bargain")
    assert state.parse_action(0, "player_0: Deal.") == AGREE and not state.is_legal(0, AGREE)


def test_canonical_texts_parse_back_to_their_ids():
    state = proposal_turn(after=[proposal(1, 1, 1), utterance(0, 0, 0)])
    for action in state.legal_actions():
        assert state.parse_action(1, state.action_to_string(1, action)) == action
    state.apply_action(proposal(0, 1, 1))
    for action in state.legal_actions():
        assert state.parse_action(1, state.action_to_string(1, action)) == action
    assert state.text_action_spec(1)["description"].startswith("your message")
    assert state.text_action_spec(0) is None


ANSWERY = st.text(alphabet=st.sampled_from(list("<>[], :0123456789 AgreDalPpsitnUrohbyc_\n")), max_size=50)
PLAN_LINES = st.builds(lambda talk, plan, after: f"{talk}player_1: {plan}{after}", st.text(max_size=20),
                       st.sampled_from(["Deal.", "1 hat 2 balls", "two apples 0 hats", "nothing", "9 balls"]),
                       st.text(max_size=20))


@pytest.mark.parametrize("preset,after", [("gtbench", ()), ("gtbench", (proposal(1, 1, 1),)),
                                          ("llmarena_bargain", (proposal(1, 1, 1),))])
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), ANSWERY, PLAN_LINES))
def test_any_text_parses_to_an_action_id_of_the_turn_or_is_refused(preset, after, text):
    state = proposal_turn(preset, after)
    seat = state.current_player()
    utterance_turn = state.observation_dict(seat)["phase"] == "utterance"
    try:
        action = state.parse_action(seat, text)
    except ActionParseError:
        action = None
    if action is not None:
        assert (217 <= action <= 341) if utterance_turn else (0 <= action <= AGREE)
    if preset == "llmarena_bargain":
        try:
            action, talk = state.read_reply(seat, text)
        except ActionParseError:
            return
        assert 0 <= action <= AGREE and (talk is None or talk == talk.strip() != "")


# ---- talk (llmarena_bargain) ------------------------------------------------------------------------
def bargain(after=(), values1=(4, 0, 2)):
    """LLMArena's example instance (pool 1, 2, 3; values 8, 1, 0 and 4, 0, 2), then `after`: pairs of
    (action, talk)."""
    state = setup(make("llmarena_bargain"), (1, 2, 3), (8, 1, 0), values1)
    for action, talk in after:
        state.apply_action(action, talk)
    return state


def test_talk_is_optional_and_both_players_hear_it_before_the_move_it_came_with():
    state = bargain()
    spec = state.text_action_spec(0)
    assert spec["message"] == "optional" and spec["max_length"] == 4000 and spec["forbidden_words"] == []
    assert state.check_message(0, spec["example"]) == spec["example"] and state.text_action_spec(1) is None
    state.apply_action(proposal(1, 2, 0), "  I really need the hats.\nThe apples are yours.  ")
    state.apply_action(proposal(0, 0, 3))                          # no talk this time
    state.apply_action(proposal(1, 1, 0), "Last offer.")
    said = [{"move": 3, "seat": 0, "text": "I really need the hats.\nThe apples are yours."},
            {"move": 5, "seat": 0, "text": "Last offer."}]
    assert state.messages() == [dict(m, to=None) for m in said]
    for seat in (0, 1):
        data = state.observation_dict(seat)
        assert data["conversation"] == said == state.conversation(seat)
        assert [m["talk"] for m in data["moves"]] == [said[0]["text"], None, "Last offer."]
        text = state.observation_string(seat)
        who = "player 0 (you)" if seat == 0 else "player 0"
        assert (f'  Turn 1, {who} says: "I really need the hats.\n    The apples are yours."\n'
                f"  Turn 1, {who}: proposes to take 1 hat, 2 balls, 0 apples") in text
        assert f'  Turn 3, {who} says: "Last offer."\n  Turn 3, {who}: proposes' in text
        assert text.count(" says: ") == 2
    assert "Say what you like to player 0, then end with your plan on its own line: 'player_1: Deal.'" in \
        state.observation_string(1)
    # Talk never binds: the accepted plan is player 0's last proposal, whatever was said.
    state.apply_action(AGREE, "Deal, if you give me the hats.")
    assert state.returns() == [9.0, 6.0] and state.conversation(0)[-1]["text"] == "Deal, if you give me the hats."
    assert [entry[:2] for entry in state.public_history()][1:4] == [(0, proposal(1, 2, 0)), (1, proposal(0, 0, 3)),
                                                                    (0, proposal(1, 1, 0))]


@pytest.mark.parametrize("reply,action,talk", [
    # LLMArena's example answer: the talk and the plan line on one line
    ("I'd like 1 hats, 2 balls and 0 apples. player_0: 1 hats 2 balls 0 apples", proposal(1, 2, 0),
     "I'd like 1 hats, 2 balls and 0 apples."),
    ("I really need the hats.\nYou can have the apples.\n\nplayer_0: 1 hat 1 ball 0 apples", proposal(1, 1, 0),
     "I really need the hats.\nYou can have the apples."),
    ("player_0: Deal.", AGREE, None),                               # LLMArena's accept answer: no talk
    ("Fine by me.\nplayer_0: Deal.", AGREE, "Fine by me."),
    ("Player_0 : one hat two balls zero apples", proposal(1, 2, 0), None),   # any case, number words
    ("player_0: 2 balls\nYour move.", proposal(0, 2, 0), "Your move."),      # talk after the plan line too
    ("player_0: 3 apples? No, wait.\nplayer_0: 1 hat 0 balls 1 apple", proposal(1, 0, 1),
     "player_0: 3 apples? No, wait."),                                        # the last plan line binds
    ("player_1: you offered me nothing.\nplayer_0: 1 hat 2 balls 3 apples", proposal(1, 2, 3),
     "player_1: you offered me nothing."),                                    # only the seat's own name
    ("player_0: 5 hats", proposal(5, 0, 0), None),                  # beyond the pool: read, then illegal
    ("Agree", AGREE, None),                                         # a canonical move alone
    (" Proposal: [1, 2, 0]\n", proposal(1, 2, 0), None),
])
def test_a_reply_splits_into_talk_and_the_plan_line(reply, action, talk):
    state = bargain([(proposal(1, 1, 1), None), (proposal(0, 1, 1), None)])
    assert state.read_reply(0, reply) == (action, talk)


@pytest.mark.parametrize("reply,fragment", [
    ("I think this is a fair deal.", "no plan line 'player_0: ...'"),
    ("I want 2 hats and 1 ball.", "no plan line 'player_0: ...'"),
    ("player_1: Deal.", "no plan line 'player_0: ...'"),            # the other player's name
    ("Agree, but only with 2 hats.", "no plan line 'player_0: ...'"),
    ("", "no plan line 'player_0: ...'"),
    ("Hmm.\nplayer_0: let me think", "'player_0: let me think' names no items and no Deal"),
    ("player_0: 7 hats", "at most 5 of an item"),
])
def test_a_reply_without_a_readable_plan_line_is_refused_with_the_layout(reply, fragment):
    state = bargain([(proposal(1, 1, 1), None), (proposal(0, 1, 1), None)])
    with pytest.raises(ActionParseError) as refused:
        state.read_reply(0, reply)
    assert fragment in str(refused.value)
    assert ("End your reply with your plan on its own line: 'player_0: x hats y balls z apples' with the numbers "
            "of items you keep, e.g. 'player_0: 1 hat 2 balls 0 apples', or 'player_0: Deal.'") in str(refused.value)


def test_refused_talk_leaves_the_state_unchanged():
    state = bargain([(proposal(1, 1, 1), "Hello.")])
    before = (state.history(), state.messages(), state.observation_string(0), state.observation_dict(1))
    for talk, reason in (("x" * 4001, "the message has 4001 characters; the limit is 4000"),
                         (42, "a message is text")):
        with pytest.raises(TextRejectedError) as refused:
            state.apply_action(proposal(0, 0, 3), talk)
        assert str(refused.value) == reason
        assert (state.history(), state.messages(), state.observation_string(0), state.observation_dict(1)) == before
    state.apply_action(proposal(0, 0, 3), "y" * 4000)                  # the limit itself is fine
    assert state.conversation(0)[-1]["text"] == "y" * 4000


def test_the_failure_fallback_says_nothing():
    state = bargain([(proposal(1, 1, 1), None)])
    assert state.default_message(1) == "" and state.default_action(1) is None   # LLMArena: a random plan
    state.apply_action(proposal(0, 0, 3), state.default_message(1))
    assert state.conversation(0) == [{"move": 4, "seat": 1, "text": ""}]
    assert state.observation_dict(0)["moves"][-1]["talk"] == "" and " says: " not in state.observation_string(0)


def test_a_bargain_with_talk_replays_exactly_from_its_history_and_messages():
    game = load_game(GAME, preset="llmarena_bargain")
    for seed in range(40):
        played = random_playout(game.new_initial_state(), random.Random(seed), agree_rate=0.1, talk=True)
        said = {m["move"]: m["text"] for m in played.messages()}
        replay = game.new_initial_state()
        for move, (_, action) in enumerate(played.history()):
            replay.apply_action(action, said.get(move))
        assert replay.messages() == played.messages() and replay.returns() == played.returns()
        assert replay.result_details() == played.result_details()
        for seat in (0, 1):
            assert replay.conversation(seat) == played.conversation(seat)
            assert replay.observation_string(seat) == played.observation_string(seat)
            assert replay.observation_dict(seat) == played.observation_dict(seat)


def test_talk_reaches_both_players_and_private_values_reach_neither_other_view():
    moves = [(proposal(1, 1, 1), "I value hats at 8."), (proposal(0, 1, 2), "Apples, please.")]
    for seat in (0, 1):
        other = [(4, 0, 2), (0, 2, 2)]
        values = [((8, 1, 0), o) if seat == 0 else (o, (8, 1, 0)) for o in other]
        states = [setup(make("llmarena_bargain"), (1, 2, 3), *v) for v in values]
        for state in states:
            for action, talk in moves:
                state.apply_action(action, talk)
        assert views(states[0], seat) == views(states[1], seat)
        assert states[0].conversation(seat) == states[1].conversation(seat)
        assert views(states[0], 1 - seat) != views(states[1], 1 - seat)
        for state in states:
            for talk in ("I value hats at 8.", "Apples, please."):
                assert talk in state.observation_string(seat)
                assert talk in json.dumps(state.observation_dict(seat))
        # The other player's own-values line appears in no view of this seat.
        hidden = states[0].observation_string(1 - seat).splitlines()[3]
        assert hidden.startswith("Your values per item") and hidden not in states[0].observation_string(seat)


def test_gtbench_turns_take_no_message():
    state = setup(make(), (2, 1, 3), (1, 4, 2), (3, 0, 1), limit=10)
    assert state.text_action_spec(0) == {
        "description": "'Agree', or a proposal of how many peppers, strawberries and cherries you take, e.g. "
                       "'Proposal: [1, 2, 0]'; text before a final 'player_0: ...' plan line is ignored",
        "max_length": 4000, "forbidden_words": []}
    with pytest.raises(TextRejectedError, match="this decision takes no message"):
        state.apply_action(proposal(1, 1, 1), "hello")
    state.apply_action(proposal(1, 1, 1))
    assert "message" not in state.text_action_spec(0)               # the utterance turn neither
    with pytest.raises(TextRejectedError, match="this decision takes no message"):
        state.apply_action(utterance(1, 2, 3), "hello")
    assert state.messages() == [] and "conversation" not in state.observation_dict(1)
    assert all("talk" not in move for move in state.observation_dict(1)["moves"])


# ---- presets and parameters ----------------------------------------------------------------------
def test_presets_carry_each_papers_setting():
    spec = game_spec(GAME)
    assert [p.name for p in spec.presets] == ["gtbench", "llmarena_bargain"]
    assert spec.information == "imperfect" and spec.utility == "general_sum" and spec.max_players == 2
    gt = load_game(GAME, preset="gtbench").parameters
    assert (gt["instances"], gt["max_turns"], gt["random_length"], gt["utterances"]) == \
        ("openspiel", 10, True, "symbols")
    bargain = load_game(GAME, preset="llmarena_bargain").parameters
    assert (bargain["instances"], bargain["max_turns"], bargain["random_length"], bargain["utterances"],
            bargain["item_names"]) == ("deal_or_no_deal", 20, False, "talk", "hats,balls,apples")
    # A game-wide flag: only the llmarena_bargain preset's turns take a message.
    assert spec.dialogue and spec.rules_version == "1"     # old Bargain logs (no messages) replay as before


@pytest.mark.parametrize("parameters,players", [
    ({}, 3),
    ({"instances": "casino"}, 2),
    ({"max_turns": 0}, 2),
    ({"max_turns": 21}, 2),
    ({"max_turns": 3}, 2),                                  # a random limit needs at least 4
    ({"utterances": "text"}, 2),
    ({"item_names": "hats,balls"}, 2),
    ({"item_names": "hats,hat,apples"}, 2),
    ({"item_names": "hats,b@lls,apples"}, 2),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, preset="gtbench", num_players=players)
