"""The Chameleon (MAgIC §2.1): the paper's worked games (Figure 5), the credit table, the clue rules,
the vote and guess parsers, replay of a match with dialogue, random playouts against a separate
implementation of the rules, and the hidden information (the word, the chameleon, the votes) never
reaching a seat that may not see it."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from arena_engines import game_spec, load_game
from arena_engines.chameleon import MAGIC_CREDITS, guess_is_right, mentions
from arena_engines.chameleon_settings import (COMPETITIONS, CUES, SETTINGS, TOPIC_CUES, TOPICS, setting_index,
                                              topic_words)
from arena_engines.core import (CHANCE, RANDOM_WORDS, SIMULTANEOUS, ActionParseError, IllegalActionError,
                                TextRejectedError)

GAME = "chameleon"
CLUE, ABSTAIN, GUESS = 3, 4, 5          # action ids with 3 players


def new_state(**overrides):
    return load_game(GAME, overrides, preset="magic").new_initial_state()


def dealt(topic="Fruits", word="Mango", chameleon=1, **overrides):
    state = new_state(**overrides)
    state.apply_action(setting_index(topic, word))
    state.apply_action(chameleon)
    return state


def give_clues(state, *texts):
    for text in texts:
        state.apply_action(state.num_players, text)


def vote(state, *targets):
    """A joint vote: targets[seat] is a seat, or None to abstain."""
    state.apply_actions([state.num_players + 1 if t is None else t for t in targets])


def everything(state) -> tuple:
    return (state.history(), state.messages(), state.current_player(), state.returns(),
            [state.observation_string(s) for s in range(state.num_players)],
            [state.observation_dict(s) for s in range(state.num_players)])


# ---- the settings data ----------------------------------------------------------------------------
def test_there_are_at_least_twenty_topics_of_eight_distinct_words():
    assert len(TOPICS) >= 20 and len({t for t, _ in TOPICS}) == len(TOPICS)
    words = [w for _, ws in TOPICS for w in ws]
    assert all(len(ws) >= 8 for _, ws in TOPICS)
    assert len(set(w.lower() for w in words)) == len(words)
    assert not {w.lower() for w in words} & set(RANDOM_WORDS)          # random clues are neutral words
    assert SETTINGS == tuple((t, w) for t, ws in TOPICS for w in ws)
    assert setting_index("Fruits", "Grape") == 0 and SETTINGS[setting_index("Space", "Galaxy")] == ("Space", "Galaxy")
    with pytest.raises(KeyError):
        setting_index("Fruits", "Galaxy")


def test_cues_never_name_a_word_of_their_topic():
    assert set(CUES) == {w for _, w in SETTINGS} and set(TOPIC_CUES) == {t for t, _ in TOPICS}
    for topic, words in TOPICS:
        for cue in TOPIC_CUES[topic]:
            assert not any(mentions(cue, w) for w in words), (topic, cue)
        for word in words:
            assert len(CUES[word]) >= 3 and len(set(CUES[word])) == len(CUES[word])
            for cue in CUES[word]:
                assert not any(mentions(cue, w) for w in words), (word, cue)


def test_the_twenty_competitions_play_their_recorded_first_clues():
    assert len(COMPETITIONS) == 20 and len({c.topic for c in COMPETITIONS}) == 20
    assert Counter(c.chameleon for c in COMPETITIONS).keys() == {0, 1, 2}
    for c in COMPETITIONS:
        game = load_game(GAME, {"setting": setting_index(c.topic, c.word), "chameleon_seat": c.chameleon},
                         preset="magic")
        state = game.new_initial_state()
        state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(state.chance_outcomes()[0][0])
        give_clues(state, *c.first_clues)                   # every recorded clue is accepted
        assert state.is_simultaneous_node()
        # The chameleon's recorded clue fits the topic without naming any of its words.
        assert not any(mentions(c.first_clues[c.chameleon], w) for w in topic_words(c.topic))


# ---- parameters, presets, the deal ----------------------------------------------------------------------
def test_the_magic_preset_is_three_players_and_bad_parameters_are_refused():
    assert load_game(GAME, preset="magic").num_players == 3
    for overrides, name in (({"setting": len(SETTINGS)}, "setting"), ({"chameleon_seat": 3}, "chameleon_seat"),
                            ({"setting": -2}, "setting")):
        with pytest.raises(ValueError, match=name):
            load_game(GAME, overrides, preset="magic")
    with pytest.raises(ValueError, match="3-8"):
        load_game(GAME, {"players": 9})


def test_the_deal_draws_a_topic_uniformly_then_a_word_then_the_chameleon():
    state = new_state()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(len(SETTINGS)))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    by_topic = Counter()
    for action, p in outcomes:
        by_topic[SETTINGS[action][0]] += p
    assert all(p == pytest.approx(1 / len(TOPICS)) for p in by_topic.values())
    assert state.action_to_string(CHANCE, 1) == "topic 'Fruits', secret word 'Mango'"
    state.apply_action(1)
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 3)) for s in range(3)]
    assert state.observation_dict(0)["topic"] == "Fruits" and state.observation_dict(0)["word"] is None
    state.apply_action(1)
    assert [state.observation_dict(s)["word"] for s in range(3)] == ["Mango", None, "Mango"]
    assert [state.observation_dict(s)["role"] for s in range(3)] == ["non-chameleon", "chameleon", "non-chameleon"]
    assert state.current_player() == 0 and state.legal_actions() == [CLUE]


def test_secret_parameters_pin_the_draws_and_stay_out_of_the_public_parameters():
    game = load_game(GAME, {"setting": setting_index("Fruits", "Grape"), "chameleon_seat": 2}, preset="magic")
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 1.0)]
    state.apply_action(0)
    assert state.chance_outcomes() == [(2, 1.0)]
    state.apply_action(2)
    assert state.observation_dict(2)["role"] == "chameleon" and state.observation_dict(0)["word"] == "Grape"
    public = game_spec(GAME).public(game.parameters)
    assert public == {"players": 3}


# ---- the paper's games (magic.md §2.1, Figure 5) ---------------------------------------------------------
def test_figure5_vanilla_gpt4_a_wrong_accusation_gives_the_chameleon_two_credits():
    # Fruits, word Mango, chameleon Player 2; votes P1 -> 2, P2 -> 1, P3 -> 1: Player 1 is accused.
    state = dealt()
    give_clues(state, "tropical", "sweet", "yellow inside")
    vote(state, 1, 0, 0)
    assert state.is_terminal() and state.returns() == [-1, 1, -1]
    details = state.result_details()
    assert details["outcome"] == "wrong_accusation" and details["code_flag"] == 2
    assert details["credits"] == [0, 2, 0] and details["winners"] == [1]
    assert details["accused"] == 0 and details["vote_result"] == "wrong"
    assert details["votes"] == [1, 0, 0] and details["tally"] == [2, 1, 0]
    assert details["guess"] is None
    assert state.result_summary() == "A non-chameleon was accused: Player 2, the chameleon, wins (2 credits; the others 0)."


def test_figure5_vanilla_llama_votes_3_1_1_also_accuse_player_1():
    state = dealt()
    give_clues(state, "juicy", "sweet", "red")
    vote(state, 2, 0, 0)
    assert state.result_details()["outcome"] == "wrong_accusation" and state.result_details()["accused"] == 0


@pytest.mark.parametrize("clues,guess", [
    (("sweet and juicy", "often baked in pies", "tropical"), "I guess the code is \"Pineapple\"."),   # GPT-4+PGM
    (("red", "sweet", "a vibrant orange colour when ripe"), "I guess the code is \"Apple\"."),     # Llama-2+PGM
])
def test_figure5_pgm_runs_catch_the_chameleon_whose_guess_is_wrong(clues, guess):
    state = dealt()
    give_clues(state, *clues)
    vote(state, 1, 2, 1)                                   # votes 2, 3, 2: Player 2 accused
    assert not state.is_terminal() and state.current_player() == 1 and state.legal_actions() == [GUESS]
    for seat in (0, 2):
        assert state.observation_dict(seat)["chameleon"] == 1
        assert "The vote: Player 2 is accused, and Player 2 is the chameleon." in state.observation_string(seat)
    assert state.observation_string(1).endswith('Guess the secret word: answer I guess the code is "..."')
    state.apply_action(GUESS, guess)
    assert state.is_terminal() and state.returns() == [1, -1, 1]
    details = state.result_details()
    assert details["outcome"] == "caught_wrong_guess" and details["code_flag"] == 0
    assert details["credits"] == [2, 0, 2] and details["winners"] == [0, 2]
    assert details["guess"] == {"seat": 1, "text": guess, "correct": False}


def test_a_right_guess_splits_the_game():
    state = dealt()
    give_clues(state, "tropical", "sweet", "yellow inside")
    vote(state, 1, None, 1)                                # Player 2 accused with two votes
    state.apply_action(GUESS, "My answer: I guess the code is \"mango\". <EOS>")
    assert state.returns() == [0, 0, 0]
    details = state.result_details()
    assert details["outcome"] == "caught_right_guess" and details["code_flag"] == 1
    assert details["credits"] == [1, 1, 1] and details["winners"] == []
    assert details["guess"] == {"seat": 1, "text": "My answer: I guess the code is \"mango\".", "correct": True}
    assert 'Player 2 guessed: My answer: I guess the code is "mango". (right).' in state.observation_string(0)


def test_table3_sample_a_tie_is_an_even_vote_worth_one_credit_each():
    # The released setting's shape: Fruits, word Grape, chameleon Player 3.
    state = dealt("Fruits", "Grape", 2)
    give_clues(state, "made into wine", "small and round", "red")
    vote(state, 1, 2, 0)                                   # one vote each
    assert state.is_terminal() and state.returns() == [0, 0, 0]
    details = state.result_details()
    assert details["outcome"] == "even_vote" and details["code_flag"] == 3 and details["credits"] == [1, 1, 1]
    assert details["accused"] is None and details["vote_result"] == "even"
    assert state.public_history()[-1] == (-1, -1, "The vote is even: the accusation does not stand. "
                                                   "Player 3 is the chameleon.")


def test_abstentions_count_for_nobody():
    all_abstain = dealt()
    give_clues(all_abstain, "a", "b", "c")
    vote(all_abstain, None, None, None)
    assert all_abstain.result_details()["outcome"] == "even_vote"
    one_vote = dealt()
    give_clues(one_vote, "a", "b", "c")
    vote(one_vote, 2, None, None)                          # Player 3 alone has a vote: accused, a non-chameleon
    assert one_vote.result_details()["outcome"] == "wrong_accusation"
    assert one_vote.result_details()["votes"] == [2, "abstain", "abstain"]


def test_returns_are_the_role_credits_less_one_for_every_outcome():
    assert MAGIC_CREDITS == {"chameleon": (0, 1, 2, 1), "non-chameleon": (2, 1, 0, 1)}
    for votes, guess in (((1, 0, 0), None), ((1, 2, 1), "Kiwi"), ((1, 2, 1), "Mango"), ((1, 2, 0), None)):
        state = dealt()
        give_clues(state, "a", "b", "c")
        vote(state, *votes)
        if guess:
            state.apply_action(GUESS, guess)
        details = state.result_details()
        flag = details["code_flag"]
        expected = [MAGIC_CREDITS[role][flag] for role in details["roles"]]
        assert details["credits"] == expected
        assert state.returns() == [c - 1 for c in expected]
    # Over n games the credits of one game add up to 2 per role pair (MAgIC's normaliser 2n).
    assert all(MAGIC_CREDITS["chameleon"][f] + MAGIC_CREDITS["non-chameleon"][f] == 2 for f in range(4))


def test_self_votes_are_illegal_and_everyone_votes_at_once():
    state = dealt()
    give_clues(state, "a", "b", "c")
    assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2]
    assert state.legal_actions(1) == [0, 2, ABSTAIN]
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 0, 0])
    with pytest.raises(IllegalActionError):
        state.apply_action(CLUE, "late clue")


# ---- clues: the rules of a message -------------------------------------------------------------------
@pytest.mark.parametrize("text,reason", [
    ("I love mango", "may not contain 'Mango'"),
    ("MANGOES are great", "nor its plural"),
    ("x" * 301, "limit is 300"),
])
def test_a_refused_clue_leaves_the_state_unchanged(text, reason):
    state = dealt(chameleon=1)
    before = everything(state)
    with pytest.raises(TextRejectedError, match=reason):
        state.apply_action(CLUE, text)
    assert everything(state) == before


def test_a_repeated_or_missing_clue_is_refused_and_the_chameleon_may_name_any_word():
    state = dealt(chameleon=1)
    give_clues(state, "Tropical!")
    before = everything(state)
    with pytest.raises(TextRejectedError, match="Player 1 already said 'Tropical!'"):
        state.apply_action(CLUE, "  tropical ")
    with pytest.raises(TextRejectedError, match="needs a message"):
        state.apply_action(CLUE)
    assert everything(state) == before
    # The chameleon does not know the word: nothing is forbidden to it, and its spec holds no word.
    spec = state.text_action_spec(1)
    assert spec["forbidden_words"] == [] and spec["message"] == "required"
    assert "mango" not in json.dumps(spec).lower()
    state.apply_action(CLUE, "maybe a mango")
    assert state.text_action_spec(2)["forbidden_words"] == ["Mango"]


def test_replies_are_cleaned_as_magics_chat_layer_did():
    state = dealt()
    give_clues(state, "Player 1: It grows in the tropics. <EOS>", "[Player 2]:  Sweet\n and   soft", "   ")
    assert [m["text"] for m in state.messages()] == ["It grows in the tropics.", "Sweet and soft", ""]
    assert "  Player 3: (blank)" in state.observation_string(0)


def test_a_multi_word_secret_word_is_refused_with_any_spacing():
    state = dealt("Countries", "New Zealand", 2)
    for text in ("new   zealand", "two New Zealands"):
        with pytest.raises(TextRejectedError, match="New Zealand"):
            state.apply_action(CLUE, text)
    state.apply_action(CLUE, "Zealand alone is fine")
    assert mentions("NEW\nZEALAND", "New Zealand") and not mentions("newzealand", "New Zealand")


def test_messages_only_go_with_clues_and_the_guess():
    state = dealt()
    give_clues(state, "a", "b", "c")
    with pytest.raises(TextRejectedError, match="takes no message"):
        state.apply_actions([1, 0, 0], ["I think it is you", None, None])


def test_default_actions_and_messages_are_magics_fallbacks():
    state = dealt()
    assert state.default_action(0) == CLUE and state.default_message(0) == ""
    give_clues(state, "", "b", "c")
    assert [state.default_action(s) for s in range(3)] == [ABSTAIN] * 3
    assert state.default_message(0) is None
    vote(state, 1, 2, 1)
    assert state.default_action(1) == GUESS and state.default_message(1) == ""
    assert state.default_action(0) is None
    state.apply_action(GUESS, state.default_message(1))
    assert state.result_details()["outcome"] == "caught_wrong_guess"        # the empty guess is wrong


def test_random_messages_pass_the_rules_and_random_guesses_name_a_topic_word():
    state = dealt()
    rng = random.Random(3)
    said = []
    while not state.is_simultaneous_node():
        text = state.random_message(state.current_player(), rng)
        assert text in RANDOM_WORDS or " " in text
        said.append(text)
        state.apply_action(CLUE, text)
    assert len(set(said)) == 3
    vote(state, 1, 2, 1)
    guesses = {state.random_message(1, random.Random(seed)) for seed in range(40)}
    assert guesses == {f'I guess the code is "{w}".' for w in topic_words("Fruits")}


# ---- the answer parsers ---------------------------------------------------------------------------------
def at_vote():
    state = dealt()
    give_clues(state, "a", "b", "c")
    return state


@pytest.mark.parametrize("text,action", [
    ("I vote for Player 2.", 1),
    ("After thinking it over, I vote for player_3", 2),
    ("Player 3 seems odd, but Player 2 was vague.", 2),       # no template: the first name in the reply
    ("Player 2 was vague. I vote for Player 3.", 2),         # the template comes first
    ("vote for Player 2", 1),                                 # the canonical text
    ("abstain", ABSTAIN),
    ("I abstain.", ABSTAIN),
    ("I vote for Player 1.", 0),                              # a self-vote parses; it is not legal
    ("Player 1: I think Player 3 is odd. <EOS>", 2),          # the seat's own name opening the reply
])
def test_votes_are_read_from_the_template_then_the_first_name(text, action):
    assert at_vote().parse_action(0, text) == action


@pytest.mark.parametrize("text", ["I vote for Player 0.", "Player 4", "no idea", ""])
def test_unreadable_votes_raise_with_the_expected_format(text):
    with pytest.raises(ActionParseError, match="vote|Player"):
        at_vote().parse_action(0, text)


def test_clue_and_guess_turns_parse_only_their_canonical_texts_and_read_the_whole_reply():
    state = dealt()
    assert state.parse_action(0, "give a clue") == CLUE
    with pytest.raises(ActionParseError, match="message"):
        state.parse_action(0, "I vote for Player 2")
    assert state.read_reply(0, "Player 1: tropical") == (CLUE, "Player 1: tropical")
    give_clues(state, "a", "b", "c")
    vote(state, 1, 2, 1)
    assert state.parse_action(1, "guess the word") == GUESS
    with pytest.raises(ActionParseError, match="I guess the code is"):
        state.parse_action(1, "Mango")
    assert state.read_reply(1, 'I guess the code is "Mango".') == (GUESS, 'I guess the code is "Mango".')
    with pytest.raises(ActionParseError):
        state.parse_action(0, "guess the word")


@pytest.mark.parametrize("text,word,right", [
    ('I guess the code is "Mango".', "Mango", True),
    ('i guess the code is " mango "', "Mango", True),
    ("I guess the code is “Mango”.", "Mango", True),
    ('I guess the code is "Pineapple".', "Mango", False),
    ("Mango", "Mango", True),                                 # no quotes: the last word
    ("I think it must be mango.", "Mango", True),
    ("Mango, I think.", "Mango", False),
    ('Given "sweet" and "tropical", I guess the code is "Mango".', "Mango", True),
    ('"tropical" points to Mango', "Mango", False),            # the first quoted text, as the code read it
    ('I guess the code is "new zealand"', "New Zealand", True),
    ("It must be New Zealand!", "New Zealand", True),          # the last two words
    ("Zealand", "New Zealand", False),
    ('I guess the code is "...".', "Mango", False),
    ("", "Mango", False),
])
def test_guesses_are_compared_as_magic_did(text, word, right):
    assert guess_is_right(text, word) is right


# ---- replay, clones, a second implementation of the rules ---------------------------------------------
def play_random(seed: int, **overrides):
    state = new_state(**overrides)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.step_randomly(rng)
    return state


def test_a_match_with_dialogue_replays_exactly_from_its_history_and_messages():
    outcomes = set()
    for seed in range(12):
        played = play_random(seed)
        said = {m["move"]: m["text"] for m in played.messages()}
        replay = new_state()
        for move, (seat, action) in enumerate(played.history()):
            if seat == SIMULTANEOUS:
                replay.apply_actions(list(action))
            else:
                replay.apply_action(action, said.get(move))
        assert replay.returns() == played.returns()
        assert replay.result_details() == played.result_details()
        assert replay.messages() == played.messages()
        for seat in range(played.num_players):
            assert replay.conversation(seat) == played.conversation(seat)
            assert replay.observation_string(seat) == played.observation_string(seat)
        outcomes.add(played.result_details()["outcome"])
    assert len(outcomes) >= 3


def test_a_clone_is_independent():
    state = dealt()
    give_clues(state, "a")
    copy = state.clone()
    assert everything(copy) == everything(state)
    before = everything(state)
    give_clues(copy, "b", "c")
    vote(copy, 1, 2, 1)
    copy.apply_action(GUESS, "Mango")
    assert everything(state) == before and copy.returns() == [0, 0, 0]


def expected_result(players: int, chameleon: int, word: str, votes: list, guess) -> tuple[str, list]:
    """The rules again, written plainly: (outcome, returns) from the votes (seat or None) and the guess."""
    tally = Counter(v for v in votes if v is not None)
    top = max((tally[s] for s in range(players)), default=0)
    most = [s for s in range(players) if tally[s] == top]
    if len(most) > 1:
        outcome = "even_vote"
    elif most[0] != chameleon:
        outcome = "wrong_accusation"
    else:
        outcome = "caught_right_guess" if guess.split('"')[1] == word else "caught_wrong_guess"
    chameleon_return = {"even_vote": 0, "wrong_accusation": 1, "caught_right_guess": 0, "caught_wrong_guess": -1}[outcome]
    return outcome, [chameleon_return if s == chameleon else -chameleon_return for s in range(players)]


@pytest.mark.parametrize("players", [3, 5])
def test_random_playouts_follow_the_rules(players):
    game = load_game(GAME, {"players": players}, preset="magic")
    outcomes = Counter()
    for seed in range(60):
        rng = random.Random(seed)
        state = game.new_initial_state()
        setting, chameleon = rng.randrange(len(SETTINGS)), rng.randrange(players)
        state.apply_action(setting)
        state.apply_action(chameleon)
        for speaker in range(players):
            assert state.current_player() == speaker and state.legal_actions() == [players]
            state.apply_action(players, state.random_message(speaker, rng))
        assert state.current_players() == list(range(players))
        votes = []
        for seat in range(players):
            assert state.legal_actions(seat) == [s for s in range(players) if s != seat] + [players + 1]
            votes.append(rng.choice([s for s in range(players) if s != seat] + [None]))
        state.apply_actions([players + 1 if v is None else v for v in votes])
        guess = None
        if not state.is_terminal():
            assert state.current_player() == chameleon
            guess = f'I guess the code is "{rng.choice(topic_words(SETTINGS[setting][0]))}".'
            state.apply_action(players + 2, guess)
        outcome, returns = expected_result(players, chameleon, SETTINGS[setting][1], votes, guess)
        assert state.is_terminal() and state.returns() == returns
        assert state.result_details()["outcome"] == outcome
        assert state.result_details()["votes"] == ["abstain" if v is None else v for v in votes]
        outcomes[outcome] += 1
    assert len(outcomes) >= 3


# ---- hidden information ---------------------------------------------------------------------------------
def assert_same_view(a, b, seat: int):
    assert a.observation_string(seat) == b.observation_string(seat)
    assert a.observation_dict(seat) == b.observation_dict(seat)
    assert a.public_history() == b.public_history()
    assert a.legal_actions(seat) == b.legal_actions(seat)
    assert a.text_action_spec(seat) == b.text_action_spec(seat)


def test_the_chameleon_sees_nothing_of_the_word_until_the_end():
    a, b = dealt("Fruits", "Mango", 2), dealt("Fruits", "Kiwi", 2)
    for text in ("sweet", "grows on trees", "juicy"):
        assert_same_view(a, b, 2)
        give_clues(a, text)
        give_clues(b, text)
    assert_same_view(a, b, 2)
    vote(a, 2, 2, 0)
    vote(b, 2, 2, 0)
    assert_same_view(a, b, 2)
    dump = a.observation_string(2) + json.dumps(a.observation_dict(2)) + json.dumps(a.text_action_spec(2))
    assert "mango" not in dump.lower()
    assert "mango" not in json.dumps(a.public_history()).lower()
    a.apply_action(GUESS, "Kiwi")
    assert a.observation_dict(2)["word"] == "Mango"                       # revealed at the end


def test_a_non_chameleon_sees_neither_who_the_chameleon_is_nor_the_other_votes():
    a, b = dealt(chameleon=1), dealt(chameleon=2)
    for state in (a, b):
        give_clues(state, "tropical", "sweet", "yellow inside")
    assert_same_view(a, b, 0)
    assert a.observation_dict(0)["chameleon"] is None
    # The same accusation of the same chameleon, from different votes.
    c, d = dealt(chameleon=1), dealt(chameleon=1)
    for state in (c, d):
        give_clues(state, "tropical", "sweet", "yellow inside")
    vote(c, 1, 0, 1)
    vote(d, 1, 2, 1)
    assert_same_view(c, d, 0)
    assert c.observation_dict(0)["votes"] is None and "Player 2 voted" not in c.observation_string(0)
    assert c.observation_dict(0)["my_vote"] == 1


def test_resampling_redraws_the_word_for_the_chameleon_among_the_words_not_said():
    state = dealt("Fruits", "Mango", 2)
    give_clues(state, "not a kiwi", "nor a lemon")                       # the non-chameleons rule out two words
    seen = set()
    for seed in range(80):
        other = state.resample_hidden(2, seed)
        assert_same_view(other, state, 2)
        word = other.result_details()["word"]
        assert word not in ("Kiwi", "Lemon") and other.result_details()["chameleon"] == 2
        seen.add(word)
    assert seen == set(topic_words("Fruits")) - {"Kiwi", "Lemon"}


def test_resampling_redraws_the_chameleon_for_a_non_chameleon_unless_its_clue_named_the_word():
    state = dealt(chameleon=2)
    give_clues(state, "tropical")
    assert {state.resample_hidden(0, seed).result_details()["chameleon"] for seed in range(40)} == {1, 2}
    give_clues(state, "sweet", "a mango, surely")                      # the chameleon names the word
    for seed in range(20):
        other = state.resample_hidden(0, seed)
        assert other.result_details()["chameleon"] == 2
        assert_same_view(other, state, 0)


def test_resampling_during_the_guess_keeps_the_accusation_and_redraws_the_other_votes():
    state = dealt(chameleon=1)
    give_clues(state, "tropical", "sweet", "yellow inside")
    vote(state, 1, 0, 1)
    seen = set()
    for seed in range(60):
        other = state.resample_hidden(0, seed)
        assert_same_view(other, state, 0)
        details = other.result_details()
        assert details["votes"][0] == 1 and details["accused"] == 1
        assert details["tally"][1] == max(details["tally"]) and details["tally"].count(details["tally"][1]) == 1
        seen.add(tuple(details["votes"]))
    assert len(seen) >= 3


@pytest.mark.parametrize("players", [3, 4])
def test_state_from_view_rebuilds_every_view_with_its_conversation(players):
    game = load_game(GAME, {"players": players}, preset="magic")
    for seed in range(25):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in range(state.num_players):
                view = state.observation_dict(seat)
                rebuilt = game.state_from_view(seat, view)
                assert rebuilt.observation_dict(seat) == view
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                assert rebuilt.text_action_spec(seat) == state.text_action_spec(seat)
                assert rebuilt.resample_hidden(seat, seed).observation_dict(seat) == view
            if state.is_terminal():
                break
            state.step_randomly(rng)


def test_state_from_view_respects_a_word_the_chameleon_said():
    game = load_game(GAME, preset="magic")
    state = dealt("Fruits", "Grape", 0)
    give_clues(state, "is it a grape?", "vine")
    rebuilt = game.state_from_view(1, state.observation_dict(1))
    assert rebuilt.result_details()["chameleon"] == 0                  # only the chameleon can name the word
    rebuilt = game.state_from_view(0, state.observation_dict(0))
    assert rebuilt.observation_dict(0) == state.observation_dict(0)


# ---- metric probes (magic.md §4 items 3 and 5) -----------------------------------------------------------
def probe_ids(state) -> list:
    return [p["probe_id"] for p in state.probes()]


def every_seat(metric: str, turn: int, players: int = 3) -> list:
    return [f"{metric}-{turn}-{seat}" for seat in range(players)]


def test_probes_are_due_before_each_clue_turn_and_after_each_clue_for_every_seat():
    state = new_state()
    assert probe_ids(state) == []                                      # the deal
    state.apply_action(setting_index("Fruits", "Mango"))
    assert probe_ids(state) == []
    state.apply_action(1)
    asked = []
    assert probe_ids(state) == every_seat("self_awareness", 1)
    asked += state.probes()
    give_clues(state, "tropical")
    assert probe_ids(state) == every_seat("reasoning", 1) + every_seat("self_awareness", 2)
    asked += state.probes()
    give_clues(state, "sweet")
    assert probe_ids(state) == every_seat("reasoning", 2) + every_seat("self_awareness", 3)
    asked += state.probes()
    give_clues(state, "yellow inside")
    assert state.is_simultaneous_node()
    assert probe_ids(state) == every_seat("reasoning", 3)              # after the last clue, before the vote
    asked += state.probes()
    vote(state, 1, 0, 1)                                               # the chameleon is caught: the guess
    assert probe_ids(state) == []
    state.apply_action(GUESS, 'I guess the code is "Kiwi".')
    assert state.is_terminal() and probe_ids(state) == []
    assert len(asked) == 18 and len({p["probe_id"] for p in asked}) == 18      # unique in the match
    for probe in asked:
        metric, turn, seat = probe["probe_id"].split("-")
        assert probe["data"] == {"metric": metric, "turn": int(turn)} and probe["seat"] == int(seat)
        assert "choices" not in probe


def test_probe_questions_carry_the_templates_with_the_seats_names():
    state = dealt(chameleon=1)
    give_clues(state, "tropical")
    by_id = {p["probe_id"]: p["question"] for p in state.probes()}
    assert "I am Player xx, my role is chameleon/non-chameleon" in by_id["self_awareness-2-0"]
    lines = by_id["reasoning-1-1"].splitlines()
    layout = lines[lines.index("As Player 2, I think:"):]
    assert layout == ["As Player 2, I think:",
                      "Player 1 is more suspicious/less suspicious/no change, because ...",
                      "Player 3 is more suspicious/less suspicious/no change, because ...",
                      "I think now Player 1 thinks:", "Player 2 is ..., because ...", "Player 3 is ..., because ...",
                      "I think now Player 3 thinks:", "Player 1 is ..., because ...", "Player 2 is ..., because ..."]


def probes_of(state, seat: int) -> list:
    return [p for p in state.probes() if p["seat"] == seat]


def test_a_probe_reveals_nothing_hidden_from_the_seat_asked():
    # A non-chameleon: the same probes whoever the chameleon is; the chameleon: whatever the word is; and
    # the same question whatever the asked seat's own role, so it cannot tell a role either.
    pairs = ((dealt("Fruits", "Mango", 1), dealt("Fruits", "Mango", 2), 0),
             (dealt("Fruits", "Mango", 2), dealt("Fruits", "Kiwi", 2), 2),
             (dealt("Fruits", "Mango", 2), dealt("Fruits", "Mango", 1), 2))
    for a, b, seat in pairs:
        for text in ("sweet", "grows on trees", "juicy", None):
            assert probes_of(a, seat) and probes_of(a, seat) == probes_of(b, seat)
            dump = json.dumps(probes_of(a, seat)).lower()
            assert "mango" not in dump and "kiwi" not in dump
            if text is not None:
                give_clues(a, text)
                give_clues(b, text)
    # The first pair also shows seat 0 the same view, so the probes are all that could differ.
    a, b = dealt("Fruits", "Mango", 1), dealt("Fruits", "Mango", 2)
    assert_same_view(a, b, 0)
    assert probes_of(a, 0) == probes_of(b, 0)


# ---- recorded first clues (§2.1 "Pre-recorded defender moves", §6 A14) ----------------------------------
def competition_game(index: int, recorded: int):
    record = COMPETITIONS[index]
    return record, load_game(GAME, {"setting": setting_index(record.topic, record.word),
                                    "chameleon_seat": record.chameleon, "recorded_clues": recorded}, preset="magic")


def test_recorded_clue_turns_say_the_records_clues_without_a_message_then_play_goes_live():
    record, game = competition_game(0, 2)                  # Grape, chameleon Player 3: the challenger speaks last
    assert record.chameleon == 2
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.chance_outcomes()[0][0])
    live = competition_game(0, 0)[1].new_initial_state()
    live.apply_action(live.chance_outcomes()[0][0])
    live.apply_action(live.chance_outcomes()[0][0])
    for seat in (0, 1):
        spec = state.text_action_spec(seat)
        assert "message" not in spec and record.first_clues[seat] in spec["description"]
        assert state.legal_actions(seat) == [CLUE] and state.default_message(seat) is None
        # Whatever the seat sends, the record's clue is said, like a live clue in every view.
        state.apply_action(CLUE, "anything else" if seat else None)
        live.apply_action(CLUE, record.first_clues[seat])
        for viewer in range(3):      # the views (the next recorded turn's own spec aside) as if said live
            assert state.observation_string(viewer) == live.observation_string(viewer)
            assert state.observation_dict(viewer) == live.observation_dict(viewer)
            assert state.conversation(viewer) == live.conversation(viewer)
        assert state.public_history() == live.public_history()
    assert state.text_action_spec(2)["message"] == "required"             # the challenger's turn is live
    state.apply_action(CLUE, "purple")
    assert [c["text"] for c in state.result_details()["clues"]] == [*record.first_clues[:2], "purple"]
    assert state.result_details()["recorded_clues"] == 2
    assert game_spec(GAME).public(game.parameters) == {"players": 3}       # secret until the end


def test_state_from_view_and_clones_keep_the_recorded_clues():
    _, game = competition_game(4, 1)                        # chameleon Player 1: only its clue is recorded
    state = game.new_initial_state()
    state.step_randomly(random.Random(0))
    state.step_randomly(random.Random(0))
    copy = state.clone()
    copy.apply_action(CLUE)
    assert copy.conversation(1)[0]["text"] == COMPETITIONS[4].first_clues[0] and state.conversation(1) == []
    give_clues(state, "anything")
    rebuilt = game.state_from_view(1, state.observation_dict(1))
    assert rebuilt.observation_dict(1) == state.observation_dict(1)
    assert rebuilt.text_action_spec(1) == state.text_action_spec(1) and "message" in state.text_action_spec(1)


@pytest.mark.parametrize("overrides", [{"recorded_clues": 1},                             # no record chosen
                                       {"recorded_clues": 1, "setting": 0, "chameleon_seat": 0},   # not a record
                                       {"recorded_clues": 4, "setting": 0, "chameleon_seat": 2},
                                       {"recorded_clues": -1}])
def test_recorded_clues_need_a_competition_record(overrides):
    with pytest.raises(ValueError, match="recorded_clues"):
        load_game(GAME, overrides, preset="magic")
