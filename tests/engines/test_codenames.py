"""Codenames (GameBench, gamebench.md section 2.4): the deal, hand-worked turns and scores, the clue
rules, the answer parsers, replay of a match with its clues, random playouts against a separate
implementation of the rules, and the key never reaching an operative before the end."""

from __future__ import annotations

import json
import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.codenames import clue_problem
from arena_engines.codenames_words import THEMES, WORDS
from arena_engines.core import CHANCE, ActionParseError, IllegalActionError, TextRejectedError

GAME = "codenames"
SMALL = {"first_team_cards": 3, "second_team_cards": 2, "neutral_cards": 1}     # 7 cards


def new_state(**overrides):
    return load_game(GAME, overrides, preset="gamebench").new_initial_state()


def dealt(red, blue, assassin, neutral, **overrides):
    """A state whose key is given: the words of each colour (lower case), drawn in the key's order."""
    state = new_state(**overrides)
    for word in [*red, *blue, assassin, *neutral]:
        state.apply_action(WORDS.index(word))
    return state


def small():
    """Red: apple, pear, plum; Blue: car, bus; assassin: snow; neutral: tea. Board (alphabetical):
    0 APPLE, 1 BUS, 2 CAR, 3 PEAR, 4 PLUM, 5 SNOW, 6 TEA; end turn = 7."""
    return dealt(["apple", "pear", "plum"], ["car", "bus"], "snow", ["tea"], **SMALL)


APPLE, BUS, CAR, PEAR, PLUM, SNOW, TEA, END = range(8)


def clue(state, number, word="fruit"):
    state.apply_action(number, word)


# ---- the word list, spec and parameters ----------------------------------------------------------
def test_the_word_list_is_ours_large_plain_and_every_theme_is_always_a_legal_clue():
    assert len(WORDS) >= 400 and len(set(WORDS)) == len(WORDS) and list(WORDS) == sorted(WORDS)
    assert all(w.isalpha() and w.islower() and len(w) >= 3 for w in WORDS)
    assert sorted(w for words in THEMES.values() for w in words) == list(WORDS)
    for clue_word in [*THEMES, "None"]:
        assert clue_problem(clue_word, WORDS) is None, clue_word


def test_spec_preset_and_seat_sides():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.dynamics, spec.chance, spec.information, spec.utility,
            spec.min_utility, spec.max_utility, spec.dialogue) == (
        4, 4, "sequential", "stochastic", "imperfect", "constant_sum", 0.0, 1.0, True)
    assert [p.name for p in spec.presets] == ["gamebench"]
    game = load_game(GAME, preset="gamebench")
    assert game.parameters == {"first_team_cards": 9, "second_team_cards": 8, "neutral_cards": 3,
                               "vocabulary": len(WORDS), "max_turns": 50}
    assert game.seat_sides() == [0, 0, 1, 1]


@pytest.mark.parametrize("overrides,message", [
    ({"first_team_cards": 10}, "first_team_cards"),
    ({"second_team_cards": 0}, "second_team_cards"),
    ({"neutral_cards": 8}, "neutral_cards"),          # 9 + 8 + 1 + 8 > 25
    ({"vocabulary": 20}, "vocabulary"),               # fewer words than the 21 cards
    ({"max_turns": 0}, "max_turns"),
])
def test_bad_parameters_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_game(GAME, overrides, preset="gamebench")
    with pytest.raises(ValueError):
        load_game(GAME, num_players=3)


# ---- the deal -------------------------------------------------------------------------------------
def test_the_deal_draws_distinct_words_uniformly_and_the_board_is_alphabetical():
    state = new_state()
    for k in range(21):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == len(WORDS) - k
        assert all(p == pytest.approx(1 / (len(WORDS) - k)) for _, p in outcomes)
        assert state.observation_dict(1)["board"] == [] and state.public_history() == []
        assert f"being dealt ({k} of 21 words)" in state.observation_string(0)
        state.apply_action(outcomes[-1 - 3 * k][0])        # from the end of the list: not alphabetical
    assert not state.is_chance_node() and state.current_player() == 0
    board = state.observation_dict(0)["board"]
    words = [card["word"] for card in board]
    assert words == sorted(words) and len(set(words)) == 21
    # The first 9 words drawn are Red, the next 8 Blue, then the assassin and 3 neutral.
    drawn = [WORDS[a].upper() for _, a in state.history()]
    colour_of = {card["word"]: card["colour"] for card in board}
    assert [colour_of[w] for w in drawn] == ["red"] * 9 + ["blue"] * 8 + ["assassin"] + ["neutral"] * 3
    assert state.public_history() == [(CHANCE, -1, "the board is dealt: " + ", ".join(words))]


def test_the_vocabulary_parameter_limits_the_words_drawn():
    state = new_state(vocabulary=25)
    assert [a for a, _ in state.chance_outcomes()] == list(range(25))


# ---- turns ----------------------------------------------------------------------------------------
def test_a_turn_allows_n_plus_one_guesses_then_passes_to_the_other_team():
    state = small()
    assert state.current_player() == 0 and state.legal_actions() == list(range(10))
    clue(state, 2)
    assert state.current_player() == 1 and state.legal_actions() == list(range(8))
    state.apply_action(APPLE)
    state.apply_action(PEAR)
    assert state.current_player() == 1                     # a third guess is allowed (N + 1)
    assert state.observation_dict(1)["guesses_left"] == 1
    state.apply_action(TEA)                               # neutral: the turn ends anyway
    assert state.current_player() == 2
    clue(state, 1, "vehicle")
    state.apply_action(CAR)
    assert state.current_player() == 3                    # one more guess allowed
    state.apply_action(END)
    assert state.current_player() == 0


def test_the_turn_ends_after_exactly_n_plus_one_correct_guesses():
    state = dealt(["apple", "pear", "plum", "kiwi"], ["car", "bus"], "snow", ["tea"],
                  first_team_cards=4, second_team_cards=2, neutral_cards=1)
    clue(state, 1)                                         # board: apple, bus, car, kiwi, pear, plum, snow, tea
    state.apply_action(3)                                  # kiwi
    state.apply_action(0)                                  # apple: the second (N + 1-th) guess
    assert state.current_player() == 2 and not state.is_terminal()


def test_a_zero_clue_allows_any_number_of_guesses():
    state = dealt(["apple", "pear", "plum", "kiwi"], ["car", "bus"], "snow", ["tea"],
                  first_team_cards=4, second_team_cards=2, neutral_cards=1)
    clue(state, 0)
    for red_word in (0, 3, 4):                             # apple, kiwi, pear: more than N + 1 = 1
        assert state.current_player() == 1
        state.apply_action(red_word)
    assert state.current_player() == 1 and state.observation_dict(1)["guesses_left"] is None


def test_a_neutral_word_ends_the_turn_and_end_turn_is_legal_before_any_guess():
    state = small()
    clue(state, 3)
    assert END in state.legal_actions()
    state.apply_action(TEA)
    assert state.current_player() == 2
    clue(state, 1, "vehicle")
    state.apply_action(END)
    assert state.current_player() == 0
    assert state.observation_dict(0)["turns"][1] == {"team": "blue", "seat": 2, "clue": "vehicle", "number": 1,
                                                     "guesses": [], "passed": True}


def test_illegal_actions_are_refused_and_leave_the_state_unchanged():
    state = small()
    with pytest.raises(IllegalActionError):
        state.apply_action(10, "fruit")                    # numbers are 0-9
    clue(state, 2)
    state.apply_action(APPLE)
    before = (state.history(), state.observation_dict(1))
    for action in (APPLE, END + 1, -1):                   # revealed, out of range
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    assert (state.history(), state.observation_dict(1)) == before
    assert state.legal_actions(0) == [] and state.legal_actions(2) == []


# ---- scores ---------------------------------------------------------------------------------------
def test_red_finds_all_its_words_while_blue_found_five():
    reds = ["apple", "pear", "plum", "kiwi", "mango", "lemon", "melon", "peach", "grape"]
    blues = ["car", "bus", "train", "truck", "taxi", "tram", "van", "boat"]
    state = dealt(reds, blues, "snow", ["tea", "milk", "wine"])
    index = {card["word"].lower(): card["index"] for card in state.observation_dict(0)["board"]}
    clue(state, 4)
    for word in reds[:5]:
        state.apply_action(index[word])                   # 5 = N + 1 guesses
    clue(state, 0, "vehicle")
    for word in blues[:5]:
        state.apply_action(index[word])
    state.apply_action(index["tea"])                      # neutral: Red's turn
    clue(state, 4)
    for word in reds[5:]:
        state.apply_action(index[word])
    assert state.is_terminal()
    assert state.returns() == pytest.approx([12 / 17, 12 / 17, 5 / 17, 5 / 17])
    details = state.result_details()
    assert (details["winner"], details["ending"], details["points"]) == ("red", "all_found", {"red": 12, "blue": 5})
    assert "Red found all its words and wins" in state.result_summary()


def test_the_assassin_zeroes_the_team_that_reveals_it():
    state = small()
    clue(state, 1)
    state.apply_action(APPLE)
    state.apply_action(END)
    clue(state, 2, "vehicle")
    state.apply_action(CAR)
    state.apply_action(SNOW)
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 0.0, 0.0]
    details = state.result_details()
    assert details["points"] == {"red": 4, "blue": 0} and details["assassin_revealed"]
    assert "Blue revealed the assassin; Red wins" in state.result_summary()


def test_revealing_the_other_teams_last_word_makes_it_win():
    state = small()
    clue(state, 0)
    state.apply_action(CAR)                               # Blue's word: Blue's turn
    clue(state, 0, "fruit")
    state.apply_action(PEAR)                              # Red's word, guessed by Blue: Red's turn
    clue(state, 1)
    state.apply_action(BUS)                               # Blue's last word, revealed by Red: Blue wins
    assert state.is_terminal() and state.result_details()["winner"] == "blue"
    # Red 1 revealed, Blue 2 + 3.
    assert state.returns() == pytest.approx([1 / 6, 1 / 6, 5 / 6, 5 / 6])


def test_the_turn_limit_ends_the_game_with_no_winner_scored_by_the_words_found():
    state = dealt(["apple", "pear", "plum"], ["car", "bus"], "snow", ["tea"], max_turns=2, **SMALL)
    clue(state, 1)
    state.apply_action(END)
    clue(state, 1, "vehicle")
    state.apply_action(END)
    assert state.is_terminal() and state.returns() == [0.5] * 4       # nothing found: 0.5 each
    assert state.result_details()["ending"] == "turn_limit" and "no winner" in state.result_summary()
    state = dealt(["apple", "pear", "plum"], ["car", "bus"], "snow", ["tea"], max_turns=2, **SMALL)
    clue(state, 1)
    state.apply_action(APPLE)
    state.apply_action(END)
    clue(state, 1, "vehicle")
    state.apply_action(END)
    assert state.returns() == [1.0, 1.0, 0.0, 0.0]


# ---- clues ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,reason", [
    ("juicy fruit", "exactly one word"),
    ("fruit,2", "exactly one word"),
    ("42", "exactly one word"),
    ("", "exactly one word"),
    ("Apple", "'APPLE'"),
    ("apples", "'APPLE'"),                                # a form
    ("pineapple", "'APPLE'"),                             # a compound of a board word
    ("pea", "'PEAR'"),                                    # a part of a board word
    ("plumbing", "'PLUM'"),
    ("x" * 1001, "limit"),
])
def test_a_refused_clue_leaves_the_state_unchanged(text, reason):
    state = small()
    before = (state.history(), state.messages(), state.observation_string(1))
    with pytest.raises(TextRejectedError, match=reason):
        state.apply_action(2, text)
    with pytest.raises(TextRejectedError, match="needs a message"):
        state.apply_action(2)
    assert (state.history(), state.messages(), state.observation_string(1)) == before


def test_an_accepted_clue_is_stored_trimmed_and_heard_by_every_seat():
    state = small()
    state.apply_action(2, '  "heart" ')                  # spacing and quotes around the word are dropped
    assert state.messages() == [{"move": 7, "seat": 0, "text": "heart", "to": None}]
    assert all(state.conversation(seat) == [{"move": 7, "seat": 0, "text": "heart"}] for seat in range(4))
    assert state.observation_dict(3)["clue"] == {"word": "heart", "number": 2}
    assert 'gave the clue "heart" for 2 cards' in state.observation_string(2)
    with pytest.raises(TextRejectedError, match="takes no message"):
        state.apply_action(APPLE, "hello")


def test_a_board_word_inside_a_clue_is_allowed_unless_at_its_start_or_end():
    assert clue_problem("heart", ["EAR"]) is None
    assert clue_problem("snowman", ["SNOW"]) and clue_problem("snow", ["SNOWMAN"]) and clue_problem("man", ["SNOWMAN"])
    assert clue_problem("tries", ["TRY"]) and clue_problem("baking", ["BAKE"]) and clue_problem("wolves", ["WOLF"])
    assert clue_problem("ice-cream", ["SUN"]) is None and clue_problem("ice cream", ["SUN"])


def test_fallbacks_are_gamebenchs_none_clue_for_one_card_and_a_random_guess():
    state = small()
    assert state.default_action(0) == 1 and state.default_message(0) == "None"
    assert state.default_action(1) is None and state.default_message(1) is None
    state.apply_action(state.default_action(0), state.default_message(0))
    assert state.observation_dict(1)["clue"] == {"word": "None", "number": 1}
    assert state.default_action(1) is None and state.default_message(1) is None


def test_text_action_specs_and_random_messages():
    state = small()
    spec = state.text_action_spec(0)
    assert spec["message"] == "required" and spec["forbidden_words"] == ["APPLE", "BUS", "CAR", "PEAR", "PLUM",
                                                                          "SNOW", "TEA"]
    assert clue_problem(spec["example"], spec["forbidden_words"]) is None
    assert state.text_action_spec(1) is None
    for seed in range(30):
        text = state.random_message(0, random.Random(seed))
        assert state.check_message(0, text) == text
    state.apply_action(1, "fruit")
    spec = state.text_action_spec(1)
    assert "message" not in spec and "guess_" in spec["description"]
    with pytest.raises(TextRejectedError):
        state.check_message(1, "fruit")


# ---- answers --------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ("fruit,2", (2, "fruit")),
    ("fruit, 3", (3, "fruit")),
    ('{"action": "submit_clue", "openended_response": "fruit,4"}', (4, "fruit")),
    ("I will say fruit,2 because of the apple. Final: orchard, 3", (3, "orchard")),
    ("fruit,12", (9, "fruit")),                           # above 9: 9 already allows every guess
    ("juicy fruit,2", (2, "juicy fruit")),               # GameBench's split; check_message refuses it
])
def test_read_reply_takes_gamebenchs_word_comma_number(reply, expected):
    assert small().read_reply(0, reply) == expected


@pytest.mark.parametrize("reply", ["fruit", "fruit,-1", "2", "", "fruit two"])
def test_unreadable_clues_raise_with_the_expected_format(reply):
    with pytest.raises(ActionParseError, match="word,number"):
        small().read_reply(0, reply)


@pytest.mark.parametrize("text,expected", [("3", 3), ("clue for 3 cards", 3), ("clue for 1 card", 1),
                                           ("clue for 0 cards (unlimited guesses)", 0), ("fruit,4", 4),
                                           ('{"openended_response": "fruit,5"}', 5), ("15", 9)])
def test_the_spymasters_number_alone_is_read_by_parse_action(text, expected):
    assert small().parse_action(0, text) == expected


@pytest.mark.parametrize("text,expected", [
    ("guess_3", PEAR), ("GUESS_0", APPLE), ('{"action": "guess_4"}', PLUM), ("Guess the word: PLUM", PLUM),
    ("tea", TEA), ("I think guess_1, no: guess_2", CAR), ("end_turn", END), ("End your current turn.", END),
    ("pass", END), ('{"action": "end_turn"}', END), ("The clue points to the pear, surely.", PEAR),
])
def test_operative_answers_are_read_from_gamebenchs_ids_and_descriptions(text, expected):
    state = small()
    clue(state, 2)
    assert state.parse_action(1, text) == expected


@pytest.mark.parametrize("text", ["guess_7", "guess_99999", "orange", "apple or pear", "", "guess"])
def test_unreadable_guesses_raise_with_the_expected_format(text):
    state = small()
    clue(state, 2)
    with pytest.raises(ActionParseError, match="guess_<index>"):
        state.parse_action(1, text)


def test_a_seat_that_does_not_decide_is_told_so():
    state = small()
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(1, "guess_0")


# ---- replay, clones, random playouts -------------------------------------------------------------
def random_game(seed: int, **overrides):
    rng = random.Random(seed)
    state = new_state(**overrides)
    while not state.is_terminal():
        state.step_randomly(rng)
    return state


def test_a_match_with_dialogue_replays_exactly_from_its_history_and_messages():
    for seed in range(10):
        state = random_game(seed)
        said = {m["move"]: m["text"] for m in state.messages()}
        replay = new_state()
        for move, (_, action) in enumerate(state.history()):
            replay.apply_action(action, said.get(move))
        assert replay.returns() == state.returns() and replay.messages() == state.messages()
        assert [replay.observation_string(s) for s in range(4)] == [state.observation_string(s) for s in range(4)]
        assert replay.result_details() == state.result_details()


def test_a_clone_is_independent():
    for seed in range(20):
        rng = random.Random(seed)
        state = new_state()
        for _ in range(rng.randrange(21, 40)):
            if state.is_terminal():
                break
            state.step_randomly(rng)
        views = [state.observation_dict(s) for s in range(4)], state.history(), state.messages()
        clone = state.clone()
        while not clone.is_terminal():
            clone.step_randomly(rng)
        assert ([state.observation_dict(s) for s in range(4)], state.history(), state.messages()) == views


class ReferenceGame:
    """The rules written again from the card, independently of the engine: a key (colour per board
    index), the clue and guesses of the turn, the team to play."""

    def __init__(self, key: list[str], counts: dict[str, int], max_turns: int):
        self.key, self.counts, self.max_turns = key, counts, max_turns
        self.revealed: set[int] = set()
        self.team, self.turns, self.number, self.guesses = "red", 0, None, 0
        self.winner = None
        self.over = False

    def seat(self) -> int:
        return (0 if self.team == "red" else 2) + (self.number is not None)

    def legal(self) -> list[int]:
        if self.number is None:
            return list(range(10))
        return [i for i in range(len(self.key)) if i not in self.revealed] + [len(self.key)]

    def found(self, team: str) -> int:
        return sum(self.key[i] == team for i in self.revealed)

    def pass_turn(self):
        self.turns += 1
        self.team = "blue" if self.team == "red" else "red"
        self.number, self.guesses = None, 0
        self.over = self.turns >= self.max_turns

    def play(self, action: int):
        if self.number is None:
            self.number = action
            return
        if action == len(self.key):
            self.pass_turn()
            return
        self.revealed.add(action)
        self.guesses += 1
        colour = self.key[action]
        if colour == "assassin":
            self.winner, self.over = ("blue" if self.team == "red" else "red"), True
        elif self.found("red") == self.counts["red"]:
            self.winner, self.over = "red", True
        elif self.found("blue") == self.counts["blue"]:
            self.winner, self.over = "blue", True
        elif colour != self.team or (self.number > 0 and self.guesses == self.number + 1):
            self.pass_turn()

    def scores(self) -> list[float]:
        points = {team: self.found(team) for team in ("red", "blue")}
        if any(self.key[i] == "assassin" for i in self.revealed):
            points["blue" if self.winner == "red" else "red"] = 0
        if self.winner:
            points[self.winner] += 3
        total = points["red"] + points["blue"]
        red = 0.5 if total == 0 else points["red"] / total
        return [red, red, 1 - red, 1 - red]


@pytest.mark.parametrize("overrides", [{}, {"max_turns": 6}, {**SMALL, "vocabulary": 10}])
def test_random_playouts_follow_the_reference_rules(overrides):
    spec = game_spec(GAME)
    for seed in range(60):
        rng = random.Random(seed)
        state = new_state(**overrides)
        while state.is_chance_node():
            state.step_randomly(rng)
        view = state.observation_dict(0)
        reference = ReferenceGame([card["colour"] for card in view["board"]], view["card_counts"],
                                  state.game.parameters["max_turns"])
        while not state.is_terminal():
            assert not reference.over
            seat = state.current_player()
            assert seat == reference.seat() and state.legal_actions() == reference.legal()
            assert state.current_players() == [seat]
            action, message = state.random_decision(seat, rng)
            state.apply_action(action, message)
            reference.play(action)
            assert state.move_number <= spec.max_game_length
        assert reference.over
        assert state.returns() == pytest.approx(reference.scores())
        assert sum(state.returns()) == pytest.approx(2.0)
        assert state.result_details()["winner"] == reference.winner


# ---- hidden information ---------------------------------------------------------------------------
def other_key():
    """small() with the colours of PLUM (Red) and BUS (Blue) swapped, and TEA (neutral) with CAR."""
    return dealt(["apple", "pear", "bus"], ["tea", "plum"], "snow", ["car"], **SMALL)


def test_an_operatives_view_does_not_change_with_the_key_of_unrevealed_words():
    a, b = small(), other_key()
    for state in (a, b):
        clue(state, 1)
        state.apply_action(APPLE)
        state.apply_action(PEAR)                          # the N + 1 = 2 guesses: Red words in both keys
    for seat in (1, 3):
        assert a.observation_string(seat) == b.observation_string(seat)
        assert a.observation_dict(seat) == b.observation_dict(seat)
        text = a.observation_string(seat) + json.dumps(a.observation_dict(seat))
        assert "(UNKNOWN) (HIDDEN)" in text and "PLUM (RED)" not in text and '"colour": "blue"' not in text
    assert a.public_history() == b.public_history()
    assert a.observation_string(0) != b.observation_string(0)     # the spymasters see the key
    assert a.observation_dict(2) != b.observation_dict(2)
    assert "PLUM (RED) (HIDDEN)" in a.observation_string(2)


def test_the_key_is_shown_to_every_seat_at_the_end():
    state = small()
    clue(state, 1)
    state.apply_action(SNOW)
    for seat in range(4):
        assert "BUS (BLUE) (HIDDEN)" in state.observation_string(seat)
        assert all(card["colour"] for card in state.observation_dict(seat)["board"])


def test_resampling_for_an_operative_keeps_its_view_and_redraws_the_key():
    state = small()
    clue(state, 1)
    state.apply_action(APPLE)
    keys = set()
    for seed in range(40):
        redrawn = state.resample_hidden(1, seed)
        assert redrawn.observation_dict(1) == state.observation_dict(1)
        assert redrawn.observation_string(3) == state.observation_string(3)
        board = redrawn.observation_dict(0)["board"]
        assert board[APPLE]["colour"] == "red"
        assert sorted(card["colour"] for card in board) == sorted(c["colour"] for c in state.observation_dict(0)["board"])
        keys.add(tuple(card["colour"] for card in board))
    assert len(keys) > 10
    assert state.resample_hidden(0, 3).observation_dict(2) == state.observation_dict(2)   # a spymaster sees all


def test_state_from_view_rebuilds_every_view_with_its_conversation():
    game = load_game(GAME, SMALL | {"vocabulary": 12}, preset="gamebench")
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in range(4):
                view = state.observation_dict(seat)
                rebuilt = game.state_from_view(seat, view)
                assert rebuilt.observation_dict(seat) == view
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.conversation(seat) == state.conversation(seat)
                assert rebuilt.resample_hidden(seat, seed).observation_dict(seat) == view
            if state.is_terminal():
                assert rebuilt.returns() == state.returns()
                break
            state.step_randomly(rng)
