"""Hanabi (LLMArena small structure): the deal, reveals, discards, plays, the ends of the game and the
score worked by hand; LLMArena's labels and answer parser; hidden information (leak tests,
resampling, rebuilding from a view); seeded random playouts against an independent re-implementation
of the rules written here."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.core import ActionParseError, IllegalActionError

GAME = "hanabi"
COLOURS = ["Red", "Yellow", "Green", "White", "Blue"]
# Action ids of the small structure (hand 2, colours Red and Yellow, ranks 1-5).
DISCARD_0, DISCARD_1, PLAY_0, PLAY_1, REVEAL_RED, REVEAL_YELLOW = range(6)


def reveal_rank(rank: int) -> int:
    return 5 + rank


def card(name: str, ranks: int = 5) -> int:
    """Chance outcome id of a card named like "R3" (colour initial, rank)."""
    return "RYGWB".index(name[0]) * ranks + int(name[1:]) - 1


def new_state(**parameters):
    return load_game(GAME, parameters).new_initial_state()


def dealt(hand0, hand1, **parameters):
    """A state after dealing `hand0` to seat 0 and `hand1` to seat 1 (names like "R3")."""
    state = new_state(**parameters)
    ranks = state.observation_dict(0)["ranks"]
    for name in list(hand0) + list(hand1):
        assert state.is_chance_node()
        state.apply_action(card(name, ranks))
    return state


def play(state, *moves):
    """Applies moves; a move that is a card name is a chance outcome (the next card drawn)."""
    ranks = state.observation_dict(0)["ranks"]
    for move in moves:
        if isinstance(move, str):
            assert state.is_chance_node(), move
            state.apply_action(card(move, ranks))
        else:
            assert not state.is_chance_node(), move
            state.apply_action(move)
    return state


def views(state, seat):
    return state.observation_string(seat), state.observation_dict(seat), state.public_history()


def knowledge(state, seat):
    return [(k["colour"], k["rank"], k["possible_colours"], k["possible_ranks"])
            for k in state.observation_dict(seat)["my_knowledge"]]


# ---- the deal ------------------------------------------------------------------------------------
def test_each_card_dealt_is_a_chance_node_weighted_by_the_copies_left():
    state = new_state()
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    # 20 cards: per colour three 1s, two each of 2-4, one 5.
    assert outcomes == {card(f"{c}{r}"): pytest.approx(n / 20) for c in "RY" for r, n in
                        zip(range(1, 6), (3, 2, 2, 2, 1))}
    state.apply_action(card("Y5"))
    assert card("Y5") not in dict(state.chance_outcomes())
    with pytest.raises(IllegalActionError):
        state.apply_action(card("Y5"))                 # the only Yellow 5 is gone
    assert dict(state.chance_outcomes())[card("R1")] == pytest.approx(3 / 19)


def test_seat_0_is_dealt_first_then_seat_1_and_seat_0_moves_first():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    assert state.current_player() == 0
    assert [c for c in state.observation_dict(1)["partner_hand"]] == [
        {"colour": "Red", "rank": 1}, {"colour": "Yellow", "rank": 2}]
    assert state.observation_dict(0)["partner_hand"] == [
        {"colour": "Red", "rank": 3}, {"colour": "Yellow", "rank": 4}]
    view = state.observation_dict(0)
    assert (view["deck_size"], view["information_tokens"], view["life_tokens"]) == (16, 3, 1)
    assert [text for _, _, text in state.public_history()] == [
        "a card is dealt to seat 0", "a card is dealt to seat 0", "a card is dealt to seat 1",
        "a card is dealt to seat 1"]


def test_the_eleven_actions_have_llmarenas_labels_in_hle_order():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    assert [state.action_to_string(0, a) for a in range(11)] == [
        "Discard Card at position 0", "Discard Card at position 1", "Play Card at position 0",
        "Play Card at position 1", "Reveal Red Cards for another player", "Reveal Yellow Cards for another player",
        "Reveal Rank 1 Cards for another player", "Reveal Rank 2 Cards for another player",
        "Reveal Rank 3 Cards for another player", "Reveal Rank 4 Cards for another player",
        "Reveal Rank 5 Cards for another player"]
    with pytest.raises(ValueError):
        state.action_to_string(0, 11)
    assert state.action_to_string(-1, card("Y4")) == "deal Yellow 4"


# ---- reveals -------------------------------------------------------------------------------------
def test_reveals_follow_hle_knowledge():
    # Hands of 3: discards 0-2, plays 3-5, reveal Red 6, Yellow 7, rank r at 7 + r.
    red, rank_2, rank_4 = 6, 9, 11
    state = dealt(["R1", "Y2", "R5"], ["R3", "Y4", "R4"], hand_size=3)
    state.apply_action(red)                             # seat 0 reveals seat 1's red cards
    assert knowledge(state, 1) == [
        ("Red", None, ["Red"], [1, 2, 3, 4, 5]),
        (None, None, ["Yellow"], [1, 2, 3, 4, 5]),     # told it is not red, not "revealed"
        ("Red", None, ["Red"], [1, 2, 3, 4, 5])]
    assert state.public_history()[-1] == (0, red, "Reveal Red Cards for another player "
                                                  "(it pointed out seat 1's cards at positions 0, 2)")
    state.apply_action(rank_2)                          # seat 1 reveals seat 0's 2s
    assert knowledge(state, 0) == [(None, None, ["Red", "Yellow"], [1, 3, 4, 5]),
                                   (None, 2, ["Red", "Yellow"], [2]),
                                   (None, None, ["Red", "Yellow"], [1, 3, 4, 5])]
    state.apply_action(rank_4)                          # seat 0 reveals seat 1's 4s
    assert knowledge(state, 1) == [("Red", None, ["Red"], [1, 2, 3, 5]),
                                   (None, 4, ["Yellow"], [4]),
                                   ("Red", 4, ["Red"], [4])]
    assert state.observation_dict(1)["information_tokens"] == 0
    # The seat that revealed sees the same knowledge about its partner's cards.
    assert state.observation_dict(0)["partner_knowledge"] == state.observation_dict(1)["my_knowledge"]
    assert "What you know about your own cards: position 0: Red (revealed), rank 1, 2, 3 or 5; position 1: " \
           "Yellow, rank 4 (revealed); position 2: Red (revealed), rank 4 (revealed)." in state.observation_string(1)


def test_a_reveal_must_point_out_a_card():
    state = dealt(["R1", "Y2"], ["R3", "R4"])
    legal = state.legal_actions()
    assert REVEAL_RED in legal and REVEAL_YELLOW not in legal
    assert [a for a in legal if a >= 6] == [reveal_rank(3), reveal_rank(4)]
    with pytest.raises(IllegalActionError):
        state.apply_action(REVEAL_YELLOW)
    with pytest.raises(IllegalActionError):
        state.apply_action(reveal_rank(1))


def test_a_reveal_needs_an_information_token():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    play(state, REVEAL_RED, REVEAL_RED, REVEAL_YELLOW)   # three reveals spend the three tokens
    assert state.observation_dict(1)["information_tokens"] == 0
    assert state.legal_actions() == [DISCARD_0, DISCARD_1, PLAY_0, PLAY_1]
    with pytest.raises(IllegalActionError):
        state.apply_action(REVEAL_RED)


# ---- discards ------------------------------------------------------------------------------------
def test_discarding_is_refused_while_every_information_token_is_there():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    assert DISCARD_0 not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply_action(DISCARD_0)


def test_a_discard_returns_a_token_up_to_the_maximum_and_draws_a_card_at_the_end_of_the_hand():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    play(state, REVEAL_RED, REVEAL_YELLOW)               # 1 token left
    play(state, DISCARD_0, "Y1")                          # seat 0 discards R1, draws Y1
    view = state.observation_dict(1)
    assert view["information_tokens"] == 2
    assert view["discard_pile"] == [{"colour": "Red", "rank": 1}]
    # Y2 moved down to position 0 with what seat 0 knew of it; the new card is last, unknown.
    assert view["partner_hand"] == [{"colour": "Yellow", "rank": 2}, {"colour": "Yellow", "rank": 1}]
    assert knowledge(state, 0) == [("Yellow", None, ["Yellow"], [1, 2, 3, 4, 5]),
                                   (None, None, ["Red", "Yellow"], [1, 2, 3, 4, 5])]
    assert view["deck_size"] == 15
    play(state, DISCARD_1, "R2")
    assert state.observation_dict(0)["information_tokens"] == 3
    assert DISCARD_0 not in state.legal_actions()         # back at the maximum
    assert state.public_history()[-2][2] == "Discard Card at position 1 (it was Yellow 4; an information " \
                                            "token comes back)"


# ---- plays ---------------------------------------------------------------------------------------
def test_a_play_that_fits_builds_the_firework_and_draws():
    state = dealt(["R1", "Y2"], ["R2", "Y4"])
    play(state, PLAY_0, "R3", PLAY_0)
    view = state.observation_dict(0)
    assert view["fireworks"] == [2, 0] and view["points"] == 2
    assert view["life_tokens"] == 1 and view["discard_pile"] == []
    assert state.public_history()[-1][2] == "Play Card at position 0 (it was Red 2, added to the Red firework)"
    assert state.is_chance_node()                          # seat 1 draws
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


def test_a_misplay_with_the_last_life_ends_the_game_and_scores_zero():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    play(state, PLAY_0, "R2")                              # Red firework 1
    play(state, PLAY_1)                                    # seat 1 plays Y4: does not fit
    assert state.is_terminal()
    view = state.observation_dict(0)
    assert view["life_tokens"] == 0 and view["discard_pile"] == [{"colour": "Yellow", "rank": 4}]
    assert view["end_reason"] == "lives_lost" and view["score"] == 0 and view["points"] == 1
    assert state.returns() == [0.0, 0.0]
    assert state.result_summary() == "score 0: the last life token was lost, so the team scores 0 " \
                                     "(fireworks Red 1, Yellow 0)"
    assert state.legal_actions(0) == [] and state.legal_actions(1) == []
    with pytest.raises(IllegalActionError):
        state.apply_action(PLAY_0)


def test_without_the_zero_rule_a_lost_game_keeps_its_fireworks():
    state = dealt(["R1", "Y2"], ["R3", "Y4"], zero_when_lives_lost=False)
    play(state, PLAY_0, "R2", PLAY_1)
    assert state.is_terminal() and state.returns() == [1.0, 1.0]


def test_a_misplay_costs_one_life_and_the_game_goes_on_while_lives_remain():
    state = dealt(["R1", "Y2"], ["R3", "Y4"], max_life_tokens=3)
    play(state, PLAY_1, "R2")                              # Y2 does not fit
    view = state.observation_dict(1)
    assert view["life_tokens"] == 2 and not state.is_terminal()
    assert view["discard_pile"] == [{"colour": "Yellow", "rank": 2}]
    play(state, PLAY_0, "R4", PLAY_0, "Y1", PLAY_0)        # R3 misplay, R1 fits, R4 misplay
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_the_last_five_completes_the_firework_and_returns_a_token():
    state = dealt(["R1", "R2"], ["Y1", "Y2"], colours=2, ranks=2, hand_size=2, max_life_tokens=3)
    # Deck: R1 R1 Y1 Y1 left (8 cards, 4 dealt). Spend a token, then complete Red.
    play(state, REVEAL_YELLOW)                             # 2 tokens
    play(state, PLAY_0, "R1")                              # seat 1 plays Y1
    play(state, PLAY_0, "Y1")                              # seat 0 plays R1
    assert state.observation_dict(0)["information_tokens"] == 2
    play(state, PLAY_0, "R1")                              # seat 1 plays Y2: Yellow complete, token back
    view = state.observation_dict(0)
    assert view["fireworks"] == [1, 2] and view["information_tokens"] == 3
    assert state.public_history()[-2][2] == ("Play Card at position 0 (it was Yellow 2, added to the Yellow "
                                             "firework; the firework is complete and an information token "
                                             "comes back)")
    play(state, PLAY_0)                                    # seat 0 plays R2: both complete
    assert state.is_terminal()
    assert state.observation_dict(1)["end_reason"] == "fireworks_complete"
    assert state.returns() == [4.0, 4.0]
    # At the maximum a completed firework gives nothing back (HLE).
    full = dealt(["R1", "R2"], ["Y1", "Y2"], colours=2, ranks=2, hand_size=2)
    play(full, PLAY_0, "R1", PLAY_0, "Y1", PLAY_0, "R1")   # R1, Y1, then R2 completes Red at 3 tokens
    assert full.observation_dict(0)["information_tokens"] == 3
    assert full.observation_dict(0)["history"][-1]["information_token_back"] is False
    assert full.observation_dict(0)["history"][-1]["text"].endswith("to the Red firework; the firework is complete)")


# ---- the end of the deck -------------------------------------------------------------------------
def test_after_the_last_card_is_drawn_each_player_has_one_more_turn():
    # One colour, ranks 1-2: R1 R1 R1 R2. Hands of one card leave a deck of 2. Action ids: 0 discard,
    # 1 play, 2 reveal Red, 3 reveal rank 1, 4 reveal rank 2.
    state = dealt(["R1"], ["R1"], colours=1, ranks=2, hand_size=1, max_life_tokens=3)
    assert state.observation_dict(0)["deck_size"] == 2
    play(state, 1, "R1")                                   # seat 0 plays R1, draws R1
    play(state, 2)                                         # seat 1 reveals Red: 2 tokens of 3
    play(state, 0, "R2")                                   # seat 0 discards R1, draws the last card
    view = state.observation_dict(1)
    assert view["deck_size"] == 0 and view["turns_left"] == 2
    assert "The deck is empty: 2 more moves in the game." in state.observation_string(1)
    play(state, 4)                                         # seat 1 reveals rank 2: one move left
    assert state.observation_dict(0)["turns_left"] == 1 and not state.is_terminal()
    assert state.current_player() == 0
    play(state, 0)                                         # seat 0 discards R2, no card to draw
    assert state.is_terminal()
    assert state.observation_dict(0)["end_reason"] == "deck_out"
    assert state.result_summary() == ("score 1: the deck ran out and each player had one more turn "
                                      "(fireworks Red 1)")
    assert state.returns() == [1.0, 1.0]


def test_a_hand_shrinks_once_the_deck_is_empty():
    state = dealt(["R1"], ["R1"], colours=1, ranks=2, hand_size=1, max_life_tokens=3)
    play(state, 1, "R1", 1, "R2")                          # both play: R1 then R1 misplays; deck empty
    assert state.observation_dict(0)["deck_size"] == 0
    play(state, 1)                                         # seat 0 plays R1: hand empty now
    assert state.observation_dict(1)["partner_hand"] == []
    assert state.current_player() == 1
    assert state.legal_actions() == [1]                    # no partner card to reveal, no discard at 2/2
    play(state, 1)
    assert state.is_terminal()


# ---- scoring -------------------------------------------------------------------------------------
@pytest.mark.parametrize("scoring,expected", [("height", 3.0), ("sum", 4.0)])
def test_height_scoring_counts_the_largest_card_sum_scoring_every_card(scoring, expected):
    state = dealt(["R1", "Y1"], ["R2", "Y2"], colours=2, ranks=2, hand_size=2, max_information_tokens=1,
                  scoring=scoring)
    play(state, PLAY_0, "R1", PLAY_0, "R1", PLAY_0, "Y1")
    # Fireworks: Red 2 (R1, R2), Yellow 1 (Y1): height 3, sum 1 + 2 + 1 = 4.
    assert state.observation_dict(0)["fireworks"] == [2, 1]
    assert state.observation_dict(0)["points"] == int(expected)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(next((a for a in legal if a >= 4), legal[0]))   # reveals or discards
    assert state.returns() == [expected, expected]


def test_utility_bounds_follow_the_scoring():
    assert load_game(GAME).utility_bounds() == (0.0, 10.0)
    assert load_game(GAME, {"scoring": "sum"}).utility_bounds() == (0.0, 30.0)
    assert load_game(GAME, {"colours": 5}).utility_bounds() == (0.0, 25.0)
    assert game_spec(GAME).max_utility == 75.0 and game_spec(GAME).min_utility == 0.0


# ---- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,action", [
    ("Action: Reveal Yellow Cards for another player", REVEAL_YELLOW),
    ("My partner holds a playable yellow card, so I reveal it.\nAction: Reveal Yellow Cards for another "
     "player\nThis tells them which card to play.", REVEAL_YELLOW),
    ("Action: Play Card at position 1", PLAY_1),
    ("action:play card at position 0.", PLAY_0),
    ("Action: <Discard Card at position 1>", DISCARD_1),
    ("Action: 'Reveal Rank 5 Cards for another player'", reveal_rank(5)),
    # The first answer counts, as LLMArena's re.search does.
    ("Action: Reveal Rank 2 Cards for another player or maybe Action: Play Card at position 0", reveal_rank(2)),
    ("Reveal Red Cards for another player", REVEAL_RED),
    ("  play card at position 0. ", PLAY_0),
])
def test_parser_reads_llmarena_answers_and_labels(text, action):
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    assert state.parse_action(0, text) == action


def test_parser_returns_a_well_formed_action_even_when_it_is_not_legal_now():
    state = dealt(["R1", "Y2"], ["R3", "R4"])
    assert state.parse_action(0, "Action: Discard Card at position 0") == DISCARD_0   # tokens are full
    assert state.parse_action(0, "Action: Reveal Yellow Cards for another player") == REVEAL_YELLOW


@pytest.mark.parametrize("text", [
    "", "I will play my first card", "Action: Play Card at position 2", "Action: Reveal Green Cards for another player",
    "Action: Reveal Rank 6 Cards for another player", "Play Card", "Action:", "Discard Card at position 0 and 1",
])
def test_parser_refuses_what_is_not_an_answer_with_the_expected_format(text):
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    with pytest.raises(ActionParseError, match="Action: <action>"):
        state.parse_action(0, text)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120))
def test_parser_returns_an_action_id_or_refuses(text):
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    try:
        action = state.parse_action(0, text)
    except ActionParseError:
        return
    assert 0 <= action < 11


def test_text_answers_and_no_default_action():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    spec = state.text_action_spec(0)
    assert "Action:" in spec["description"] and spec["forbidden_words"] == []
    assert state.text_action_spec(1) is None
    assert state.default_action(0) is None
    assert game_spec(GAME).accepts_text_actions


# ---- hidden information --------------------------------------------------------------------------
def test_a_seat_never_sees_its_own_cards_only_its_partners():
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    text = state.observation_string(0)
    assert "Your partner's cards: position 0: Red 3, position 1: Yellow 4." in text
    assert "Red 1" not in text and "Yellow 2" not in text
    view = state.observation_dict(0)
    assert view["my_hand"] is None and all(k["colour"] is None and k["rank"] is None for k in view["my_knowledge"])
    assert "Red 1" not in str(view) and "Yellow 2" not in str(view)


@pytest.mark.parametrize("mine,other_mine,moves", [
    # Different own cards, same partner cards and the same reveals pointing out the same positions.
    (["R1", "Y2"], ["R4", "Y5"], [REVEAL_RED, REVEAL_YELLOW]),
    (["R1", "Y2"], ["R2", "Y3"], [REVEAL_RED, REVEAL_RED]),
    (["Y1", "Y3"], ["Y4", "Y2"], [REVEAL_RED, REVEAL_YELLOW]),
])
def test_leak_a_seat_view_does_not_change_when_only_its_own_cards_do(mine, other_mine, moves):
    first = play(dealt(mine, ["R3", "Y4"]), *moves)
    second = play(dealt(other_mine, ["R3", "Y4"]), *moves)
    assert knowledge(first, 0) == knowledge(second, 0)
    assert views(first, 0) == views(second, 0)
    assert first.legal_actions(0) == second.legal_actions(0)
    assert views(first, 1) != views(second, 1)             # the partner does see the difference


def test_leak_during_the_deal_seat_0_does_not_see_its_cards():
    first, second = dealt(["R1"], []), dealt(["Y5"], [])
    assert views(first, 0) == views(second, 0)
    assert views(first, 1) != views(second, 1)


def random_states(seeds, **parameters):
    """Every state of seeded random playouts (uniformly random legal moves and chance outcomes)."""
    for seed in seeds:
        rng = random.Random(seed)
        state = new_state(**parameters)
        while True:
            yield seed, state.clone()
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def fits(card_dict, k) -> bool:
    return card_dict["colour"] in k["possible_colours"] and card_dict["rank"] in k["possible_ranks"]


def hand_of(state, seat):
    return state.observation_dict(1 - seat)["partner_hand"]



def copies(rank: int, ranks: int) -> int:
    return 3 if rank == 1 else 1 if rank == ranks else 2


def assert_no_card_beyond_its_copies(state, colours: int, ranks: int) -> None:
    """Both hands, the discard pile and the fireworks hold no card more often than the deck has it."""
    view = state.observation_dict(0)
    names = [(c["colour"], c["rank"]) for seat in (0, 1) for c in hand_of(state, seat)]
    names += [(c["colour"], c["rank"]) for c in view["discard_pile"]]
    names += [(COLOURS[c], r) for c in range(colours) for r in range(1, view["fireworks"][c] + 1)]
    assert all(n <= copies(rank, ranks) for (_, rank), n in Counter(names).items())


def test_resample_hidden_redraws_only_the_own_hand_within_its_knowledge():
    redrawn_differently = 0
    for seed, state in random_states(range(40), max_life_tokens=3):
        for seat in (0, 1):
            for sample in range(2):
                other = state.resample_hidden(seat, sample)
                assert views(other, seat) == views(state, seat)
                assert other.legal_actions(seat) == state.legal_actions(seat)
                assert other.current_player() == state.current_player()
                assert hand_of(other, 1 - seat) == hand_of(state, 1 - seat)
                mine = hand_of(other, seat)
                assert all(fits(c, k) for c, k in zip(mine, state.observation_dict(seat)["my_knowledge"]))
                assert_no_card_beyond_its_copies(other, 2, 5)
                redrawn_differently += mine != hand_of(state, seat)
    assert redrawn_differently > 100


def test_resample_hidden_draws_from_the_cards_the_seat_has_not_seen():
    # Seat 0 holds R5 and Y5 and was told both are 5s: the only 5s, so every redraw keeps them.
    state = dealt(["R5", "Y5"], ["R1", "Y1"])
    play(state, REVEAL_RED, reveal_rank(5))
    for sample in range(10):
        assert sorted(map(str, hand_of(state.resample_hidden(0, sample), 0))) == sorted(map(str, hand_of(state, 0)))
    # Told both are yellow while seeing the only Yellow 5 in the partner's hand: yellow, never a 5.
    state = dealt(["Y1", "Y2"], ["R1", "Y5"])
    play(state, REVEAL_RED, REVEAL_YELLOW)
    drawn = {(c["colour"], c["rank"]) for sample in range(40) for c in hand_of(state.resample_hidden(0, sample), 0)}
    assert {colour for colour, _ in drawn} == {"Yellow"}
    assert {rank for _, rank in drawn} == {1, 2, 3, 4}


def test_resample_hidden_depends_only_on_the_view():
    first = play(dealt(["R1", "Y2"], ["R3", "Y4"]), REVEAL_RED)
    second = play(dealt(["R2", "Y3"], ["R3", "Y4"]), REVEAL_RED)
    assert views(first, 0) == views(second, 0)
    for sample in range(5):
        assert hand_of(first.resample_hidden(0, sample), 0) == hand_of(second.resample_hidden(0, sample), 0)


def test_resample_hidden_changes_nothing_once_the_hands_are_shown():
    state = play(dealt(["R1", "Y2"], ["R3", "Y4"]), PLAY_1)
    assert state.is_terminal()
    assert views(state.resample_hidden(0, 3), 1) == views(state, 1)
    assert "Your cards were: position 0: Red 1." in state.observation_string(0)
    assert state.observation_dict(0)["my_hand"] == [{"colour": "Red", "rank": 1}]


@pytest.mark.parametrize("parameters", [{}, {"max_life_tokens": 3},
                                        {"colours": 3, "hand_size": 4, "max_information_tokens": 8,
                                         "max_life_tokens": 3}])
def test_state_from_view_rebuilds_what_the_seat_sees(parameters):
    game = load_game(GAME, parameters)
    for _, state in random_states(range(15), **parameters):
        for seat in (0, 1):
            rebuilt = game.state_from_view(seat, state.observation_dict(seat))
            assert views(rebuilt, seat) == views(state, seat)
            assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
            assert rebuilt.current_player() == state.current_player()
            assert hand_of(rebuilt, 1 - seat) == hand_of(state, 1 - seat)
            assert rebuilt.returns() == state.returns()


def test_state_from_view_gives_the_seat_cards_its_knowledge_allows():
    state = play(dealt(["Y1", "Y2"], ["R1", "Y5"]), REVEAL_RED, REVEAL_YELLOW, reveal_rank(1))
    rebuilt = load_game(GAME).state_from_view(0, state.observation_dict(0))
    assert hand_of(rebuilt, 0) == [{"colour": "Yellow", "rank": 1}, {"colour": "Yellow", "rank": 1}]


# ---- seeded random playouts against an independent re-implementation ----------------------------
class ReferenceHanabi:
    """The rules of the module docstring (HLE's), written plainly: cards are (colour, rank) pairs,
    ranks from 1, and each held card carries what its holder knows of it."""

    def __init__(self, colours, ranks, hand_size, max_information_tokens, max_life_tokens, scoring,
                 zero_when_lives_lost):
        self.colours, self.ranks, self.hand_size = colours, ranks, hand_size
        self.max_info, self.info, self.lives = max_information_tokens, max_information_tokens, max_life_tokens
        self.sum_scoring, self.zero = scoring == "sum", zero_when_lives_lost
        self.deck = Counter({(c, r): copies(r, ranks) for c in range(colours) for r in range(1, ranks + 1)})
        self.hands = [[], []]
        self.fireworks = [0] * colours
        self.discards = []
        self.turn = 0
        self.moves_with_empty_deck = 0

    def deck_size(self):
        return sum(self.deck.values())

    def over(self):
        return self.lives == 0 or self.fireworks == [self.ranks] * self.colours or self.moves_with_empty_deck == 2

    def seat_to_deal(self):
        if self.deck_size() == 0:
            return None
        short = [seat for seat in (0, 1) if len(self.hands[seat]) < self.hand_size]
        return short[0] if short else None

    def chance(self):
        return {c * self.ranks + r - 1: n / self.deck_size() for (c, r), n in self.deck.items() if n}

    def deal(self, outcome):
        colour, rank = divmod(outcome, self.ranks)
        seat = self.seat_to_deal()
        self.deck[(colour, rank + 1)] -= 1
        self.hands[seat].append({"card": (colour, rank + 1), "colour": None, "rank": None,
                                                "colours": set(range(self.colours)),
                                                "ranks": set(range(1, self.ranks + 1))})

    def legal(self):
        h, mine, theirs = self.hand_size, self.hands[self.turn], self.hands[1 - self.turn]
        out = list(range(len(mine))) if self.info < self.max_info else []
        out += [h + i for i in range(len(mine))]
        if self.info > 0:
            out += sorted({2 * h + held["card"][0] for held in theirs})
            out += sorted({2 * h + self.colours + held["card"][1] - 1 for held in theirs})
        return out

    def apply(self, action):
        if self.deck_size() == 0:
            self.moves_with_empty_deck += 1
        h, seat = self.hand_size, self.turn
        if action < 2 * h:
            colour, rank = self.hands[seat].pop(action % h)["card"]
            if action < h:
                self.discards.append((colour, rank))
                self.info = min(self.info + 1, self.max_info)
            elif self.fireworks[colour] == rank - 1:
                self.fireworks[colour] = rank
                if rank == self.ranks:
                    self.info = min(self.info + 1, self.max_info)
            else:
                self.discards.append((colour, rank))
                self.lives -= 1
        else:
            self.info -= 1
            hint = action - 2 * h
            for held in self.hands[1 - seat]:
                if hint < self.colours:
                    if held["card"][0] == hint:
                        held["colour"], held["colours"] = hint, {hint}
                    else:
                        held["colours"].discard(hint)
                else:
                    rank = hint - self.colours + 1
                    if held["card"][1] == rank:
                        held["rank"], held["ranks"] = rank, {rank}
                    else:
                        held["ranks"].discard(rank)
        self.turn = 1 - seat

    def score(self):
        if self.lives == 0 and self.zero:
            return 0
        return sum(f * (f + 1) // 2 if self.sum_scoring else f for f in self.fireworks)

    def knowledge(self, seat):
        return [{"colour": COLOURS[held["colour"]] if held["colour"] is not None else None,
                 "rank": held["rank"], "possible_colours": [COLOURS[c] for c in sorted(held["colours"])],
                 "possible_ranks": sorted(held["ranks"])} for held in self.hands[seat]]

    def cards(self, seat):
        return [{"colour": COLOURS[c], "rank": r} for c, r in (held["card"] for held in self.hands[seat])]


@pytest.mark.parametrize("parameters,seeds", [
    ({}, range(150)),
    ({"max_life_tokens": 3, "scoring": "sum"}, range(60)),
    ({"colours": 4, "ranks": 4, "hand_size": 4, "max_information_tokens": 8, "max_life_tokens": 3,
      "zero_when_lives_lost": False}, range(40)),
    ({"colours": 1, "ranks": 3, "hand_size": 1, "max_information_tokens": 1, "max_life_tokens": 3}, range(60)),
])
def test_random_playouts_follow_the_reference_rules(parameters, seeds):
    game = load_game(GAME, parameters)
    ends = Counter()
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        reference = ReferenceHanabi(**game.parameters)
        while True:
            view = state.observation_dict(reference.turn)
            assert view["fireworks"] == reference.fireworks
            assert (view["information_tokens"], view["life_tokens"], view["deck_size"]) == (
                reference.info, reference.lives, reference.deck_size())
            assert view["discard_pile"] == [{"colour": COLOURS[c], "rank": r} for c, r in reference.discards]
            for seat in (0, 1):
                assert state.observation_dict(seat)["my_knowledge"] == reference.knowledge(seat)
                assert state.observation_dict(1 - seat)["partner_hand"] == reference.cards(seat)
            if reference.over():
                assert state.is_terminal()
                assert state.returns() == [float(reference.score())] * 2
                ends[state.observation_dict(0)["end_reason"]] += 1
                break
            if reference.seat_to_deal() is not None:
                assert state.is_chance_node()
                outcomes = state.chance_outcomes()
                assert dict(outcomes) == pytest.approx(reference.chance())
                outcome = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
                state.apply_action(outcome)
                reference.deal(outcome)
                continue
            assert state.current_player() == reference.turn
            assert state.legal_actions() == reference.legal()
            assert state.legal_actions(1 - reference.turn) == []
            action = rng.choice(reference.legal())
            state.apply_action(action)
            reference.apply(action)
        assert state.move_number <= game.spec.max_game_length
    assert ends["lives_lost"] > 0


def test_same_seed_same_game_and_clones_are_independent():
    first = [s.observation_string(0) for _, s in random_states([7])]
    second = [s.observation_string(0) for _, s in random_states([7])]
    assert first == second
    state = dealt(["R1", "Y2"], ["R3", "Y4"])
    before = (views(state, 0), views(state, 1))
    copy = state.clone()
    play(copy, REVEAL_RED, REVEAL_RED, PLAY_0, "Y1")
    assert (views(state, 0), views(state, 1)) == before
    assert views(copy, 1) != before[1]


# ---- the end, the spec and the parameters --------------------------------------------------------
def test_result_details_reveal_everything_and_the_mean_reward_per_move():
    state = dealt(["R1", "Y2"], ["R3", "Y4"], max_life_tokens=3)
    play(state, PLAY_0, "R2", REVEAL_RED, PLAY_1, "Y1", PLAY_0, "R4")   # R1, R2, R3 fit
    assert state.result_summary() == "game in progress" and state.result_details()["score"] is None
    play(state, PLAY_0, "Y3", PLAY_0, "R5", PLAY_1)                     # Y2, Y4, Y3 do not fit
    details = state.result_details()
    assert details["end_reason"] == "lives_lost" and details["score"] == 0 and details["life_tokens"] == 0
    assert details["fireworks"] == {"Red": 3, "Yellow": 0} and details["points_in_fireworks"] == 3
    assert details["hands"] == [["Yellow 1"], ["Red 4", "Red 5"]]
    assert details["discard_pile"] == ["Yellow 2", "Yellow 4", "Yellow 3"]
    assert details["player_moves"] == 7 and details["mean_reward_per_move"] == 0.0
    assert details["moves"][1] == "Reveal Red Cards for another player (it pointed out seat 0's cards at position 1)"
    kept = dealt(["R1", "Y2"], ["R3", "Y4"], max_life_tokens=3, zero_when_lives_lost=False)
    play(kept, PLAY_0, "R2", REVEAL_RED, PLAY_1, "Y1", PLAY_0, "R4", PLAY_0, "Y3", PLAY_0, "R5", PLAY_1)
    assert kept.result_details()["score"] == 3 and kept.result_details()["mean_reward_per_move"] == 3 / 7
    assert kept.result_summary() == "score 3: the last life token was lost (fireworks Red 3, Yellow 0)"


def test_spec_and_llmarena_small_preset():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.utility) == (2, 2, "identical")
    assert (spec.dynamics, spec.chance, spec.information) == ("sequential", "stochastic", "imperfect")
    assert [p.name for p in spec.presets] == ["llmarena_small"]
    small = {"colours": 2, "ranks": 5, "hand_size": 2, "max_information_tokens": 3, "max_life_tokens": 1,
             "scoring": "height", "zero_when_lives_lost": True}
    assert spec.preset("llmarena_small").values == small
    assert load_game(GAME, preset="llmarena_small").parameters == small == load_game(GAME).parameters


@pytest.mark.parametrize("parameters,players", [
    ({"colours": 0}, 2), ({"colours": 6}, 2), ({"ranks": 0}, 2), ({"hand_size": 6}, 2),
    ({"max_information_tokens": 0}, 2), ({"max_information_tokens": 9}, 2), ({"max_life_tokens": 4}, 2),
    ({"scoring": "max"}, 2), ({"colours": 1, "ranks": 1, "hand_size": 2}, 2), ({}, 3), ({}, 1),
])
def test_invalid_parameters_are_refused(parameters, players):
    with pytest.raises(ValueError):
        load_game(GAME, parameters, num_players=players)
