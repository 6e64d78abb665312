"""Undercover (LLMArena §2.4 and MAgIC §2.2): hand-worked games of both presets, the clue rules, the
answer parsers, replay of a match with dialogue, random playouts against a separate implementation
of the rules, and the hidden information (words, roles, votes) never reaching another seat."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import (CHANCE, RANDOM_WORDS, SIMULTANEOUS, ActionParseError, IllegalActionError,
                                TextRejectedError)
from arena_engines.undercover import WORDS, magic_role_win_rate, mentions
from arena_engines.undercover_words import ASSOCIATIONS, WORD_PAIRS

GAME = "undercover"


def new_state(preset: str = "llmarena", **overrides):
    return load_game(GAME, overrides, preset=preset).new_initial_state()


def deal_outcome(civilian: str, undercover: str) -> int:
    for k, pair in enumerate(WORD_PAIRS):
        for f in (0, 1):
            if (pair[f], pair[1 - f]) == (civilian, undercover):
                return 2 * k + f
    raise KeyError((civilian, undercover))


def dealt(preset="llmarena", civilian="tea", undercover="coffee", seat=4, **overrides):
    state = new_state(preset, **overrides)
    state.apply_action(deal_outcome(civilian, undercover))
    state.apply_action(seat)
    return state


def clue(state) -> int:
    return state.num_players          # the "give a clue" action


def abstain(state) -> int:
    return state.num_players + 1


def give_clues(state, *texts):
    for text in texts:
        state.apply_action(clue(state), text)


def neutral_clues(state):
    """One neutral clue from every seat still to speak this clue round."""
    while state.current_player() >= 0 and state.legal_actions() == [clue(state)]:
        state.apply_action(clue(state), state.random_message(state.current_player(), random.Random(len(state.history()))))


def vote(state, targets: dict):
    """Applies a joint vote: targets[seat] for each seat in the game (None: abstain)."""
    joint = [0] * state.num_players
    for seat in state.current_players():
        joint[seat] = abstain(state) if targets[seat] is None else targets[seat]
    state.apply_actions(joint)


def everything(state) -> tuple:
    return (state.history(), state.messages(), state.current_player(),
            [state.observation_string(s) for s in range(state.num_players)],
            [state.observation_dict(s) for s in range(state.num_players)])


def message_for(state, seat, rng):
    spec = state.text_action_spec(seat)
    return state.random_message(seat, rng) if spec and spec.get("message") else None


def random_step(state, rng):
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
    elif state.is_simultaneous_node():
        state.apply_actions([rng.choice(state.legal_actions(p)) if p in state.current_players() else 0
                             for p in range(state.num_players)])
    else:
        seat = state.current_player()
        state.apply_action(rng.choice(state.legal_actions()), message_for(state, seat, rng))


# ---- the word data ---------------------------------------------------------------------------------
def test_the_word_list_has_enough_distinct_pairs_of_plain_words():
    assert len(WORD_PAIRS) >= 60
    assert len({frozenset(p) for p in WORD_PAIRS}) == len(WORD_PAIRS)
    for a, b in WORD_PAIRS:
        assert a != b and a.isalpha() and b.isalpha() and a.islower() and b.islower()
    # Every word is in two pairs, so the list alone never tells a player the other word.
    counts = Counter(word for pair in WORD_PAIRS for word in pair)
    assert set(counts.values()) == {2}
    assert not set(WORDS) & set(RANDOM_WORDS)        # random clues are neutral words


def test_every_word_has_associations_that_never_name_it_nor_another_word_of_the_game():
    assert set(ASSOCIATIONS) == set(WORDS)
    for word, associated in ASSOCIATIONS.items():
        assert len(associated) >= 3 and len(set(associated)) == len(associated)
        for a in associated:
            assert not mentions(a, word) and a not in WORDS


# ---- parameters and presets ---------------------------------------------------------------------------
def test_presets_carry_the_papers_settings():
    arena = load_game(GAME, preset="llmarena").parameters
    assert (arena["players"], arena["vote_rounds"], arena["clue_rounds"], arena["undercover_wins_at"],
            arena["tie_rule"], arena["abstain"], arena["roles_told"], arena["seat_names"]) == (
        5, 2, 1, 3, "random", False, False, "llmarena")
    magic = load_game(GAME, preset="magic").parameters
    assert (magic["players"], magic["vote_rounds"], magic["clue_rounds"], magic["tie_rule"], magic["abstain"],
            magic["roles_told"], magic["seat_names"]) == (3, 1, 2, "even", True, False, "magic")


@pytest.mark.parametrize("overrides,message", [
    ({"tie_rule": "coin"}, "tie_rule"), ({"seat_names": "numbers"}, "seat_names"),
    ({"vote_rounds": 0}, "vote_rounds"), ({"clue_rounds": 6}, "clue_rounds"),
    ({"undercover_wins_at": 1}, "undercover_wins_at"), ({"players": 9}, "3-8"),
])
def test_bad_parameters_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_game(GAME, overrides)


def test_the_deal_draws_a_pair_and_its_side_then_the_undercover_seat():
    state = new_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 2 * len(WORD_PAIRS)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.action_to_string(CHANCE, deal_outcome("tea", "coffee")) == "words: civilians 'tea', undercover 'coffee'"
    state.apply_action(deal_outcome("tea", "coffee"))
    assert state.chance_outcomes() == [(seat, pytest.approx(0.2)) for seat in range(5)]
    state.apply_action(2)
    assert [state.observation_dict(s)["word"] for s in range(5)] == ["tea", "tea", "coffee", "tea", "tea"]
    assert state.current_player() == 0 and state.legal_actions() == [5]


# ---- LLMArena: elimination rounds ---------------------------------------------------------------------
def test_llmarena_the_most_voted_player_is_voted_out_and_the_game_goes_on():
    state = dealt()
    give_clues(state, "hot drink", "morning", "with milk", "in a cup", "beans")
    assert state.is_simultaneous_node() and state.current_players() == [0, 1, 2, 3, 4]
    vote(state, {0: 3, 1: 3, 2: 4, 3: 0, 4: 3})
    # The count: player_3 has 3 votes, alone at the top, so the count has one outcome.
    assert state.chance_outcomes() == [(3, 1.0)]
    state.apply_action(3)
    assert not state.is_terminal()
    assert state.current_player() == 0
    view = state.observation_dict(0)
    assert view["alive"] == [0, 1, 2, 4] and view["voted_out"] == [{"round": 1, "seat": 3}]
    assert view["my_votes"] == [{"round": 1, "target": 3}]
    assert "player_3 was voted out in round 1: a civilian." in state.observation_string(4)
    assert state.public_history()[-1] == (-1, -1, "round 1 vote: player_3 is voted out (a civilian)")
    # Round 2: player_3 neither speaks nor votes, nor can be voted for.
    give_clues(state, "warm", "relaxing", "energy", "roasted")
    assert state.current_players() == [0, 1, 2, 4] and state.legal_actions(3) == []
    assert state.legal_actions(0) == [1, 2, 4]
    with pytest.raises(IllegalActionError):
        state.apply_actions([3, 0, 0, 0, 0])            # a vote for a voted-out player
    with pytest.raises(IllegalActionError):
        state.apply_actions([0, 0, 0, 0, 0])            # a vote for oneself


def test_llmarena_a_tied_vote_is_broken_at_random_either_way():
    state = dealt()
    give_clues(state, "a", "b", "c", "d", "e")
    vote(state, {0: 4, 1: 4, 2: 1, 3: 1, 4: 0})         # player_1 and player_4 have 2 votes each
    assert state.chance_outcomes() == [(1, 0.5), (4, 0.5)]
    undercover_out = state.clone()
    undercover_out.apply_action(4)
    assert undercover_out.is_terminal() and undercover_out.returns() == [1, 1, 1, 1, -1]
    assert undercover_out.result_details()["outcome"] == "civilians_won"
    civilian_out = state.clone()
    civilian_out.apply_action(1)
    assert not civilian_out.is_terminal() and civilian_out.observation_dict(0)["alive"] == [0, 2, 3, 4]
    # Nothing tells the players the vote was tied: the view is the same as after a clear vote.
    clear = dealt()
    give_clues(clear, "a", "b", "c", "d", "e")
    vote(clear, {0: 1, 1: 4, 2: 1, 3: 1, 4: 0})
    clear.apply_action(1)
    assert clear.observation_string(3) == civilian_out.observation_string(3)


def test_llmarena_the_undercover_wins_by_surviving_two_rounds():
    state = dealt()
    give_clues(state, "a", "b", "c", "d", "e")
    vote(state, {0: 1, 1: 0, 2: 1, 3: 1, 4: 1})
    state.apply_action(1)
    give_clues(state, "f", "g", "h", "i")
    vote(state, {0: 2, 2: 0, 3: 2, 4: 2})
    state.apply_action(2)
    assert state.is_terminal()
    assert state.returns() == [-1, -1, -1, -1, 1]
    details = state.result_details()
    assert details["outcome"] == "undercover_won" and details["winners"] == [4]
    assert details["credits"] == [0, 0, 0, 0, 3]
    assert [r["voted_out"] for r in details["rounds"]] == [1, 2]
    assert details["rounds"][1]["votes"] == [2, None, 0, 2, 2]
    assert details["rounds"][1]["tally"] == [1, 0, 3, 0, 0]
    assert state.result_summary() == "player_4, the undercover, was not found: the undercover wins."


def test_llmarena_the_civilians_win_when_the_undercover_is_voted_out_in_round_two():
    state = dealt(seat=0)
    give_clues(state, "a", "b", "c", "d", "e")
    vote(state, {0: 1, 1: 0, 2: 1, 3: 1, 4: 1})
    state.apply_action(1)
    give_clues(state, "f", "g", "h", "i")
    vote(state, {0: 2, 2: 0, 3: 0, 4: 0})
    state.apply_action(0)
    assert state.is_terminal() and state.returns() == [-1, 1, 1, 1, 1]
    assert state.result_details()["winners"] == [1, 2, 3, 4]
    assert state.public_history()[-1] == (-1, -1, "round 2 vote: player_0 is voted out (the undercover)")


def test_the_undercover_wins_at_the_last_vote_round_or_when_few_enough_players_remain():
    # Six players, two rounds: after two civilians are out four remain, but the rounds are over.
    state = dealt(players=6, seat=5)
    for _ in range(2):
        neutral_clues(state)
        out = state.observation_dict(0)["alive"][1]
        vote(state, {s: (out if s != out else 0) for s in state.current_players()})
        state.apply_action(out)
    assert state.is_terminal() and state.returns()[5] == 1 and len(state.observation_dict(0)["alive"]) == 4
    # Seven players and up to six rounds: the game ends when an elimination leaves three players.
    state = dealt(players=7, vote_rounds=6, seat=6)
    rounds = 0
    while not state.is_terminal():
        neutral_clues(state)
        out = state.observation_dict(6)["alive"][0]
        vote(state, {s: (out if s != out else 6) for s in state.current_players()})
        state.apply_action(out)
        rounds += 1
    assert rounds == 4 and len(state.observation_dict(6)["alive"]) == 3 and state.returns()[6] == 1


# ---- MAgIC: clue rounds, one vote, the even vote ---------------------------------------------------------
def test_magic_two_clue_rounds_in_seat_order_then_one_secret_vote():
    state = dealt("magic", civilian="jam", undercover="honey", seat=1)
    speakers = []
    while not state.is_simultaneous_node():
        speakers.append(state.current_player())
        give_clues(state, f"clue {len(speakers)}")
    assert speakers == [0, 1, 2, 0, 1, 2]
    text = state.observation_string(0)
    assert "Round 1, clue round 2 clues:\n  Player 1: clue 4" in text
    assert state.legal_actions(0) == [1, 2, 4] and state.legal_actions(2) == [0, 1, 4]
    assert state.action_to_string(0, 1) == "vote for Player 2" and state.action_to_string(0, 4) == "abstain"


def magic_vote(targets: dict, undercover: int = 1):
    """A MAgIC game with the undercover at Player 2 (seat 1), as in the paper's Figure 7, ending with
    the given votes (seat -> seat, None to abstain)."""
    state = dealt("magic", civilian="jam", undercover="honey", seat=undercover)
    neutral_clues(state)
    neutral_clues(state)
    vote(state, targets)
    return state


def test_magic_accusing_the_undercover_is_a_civilian_win():
    # Figure 7, GPT-3.5-turbo as the undercover: votes Player 2, 3, 2 -> Player 2 accused.
    state = magic_vote({0: 1, 1: 2, 2: 1})
    assert state.is_terminal() and state.returns() == [1, -1, 1]
    details = state.result_details()
    assert details["outcome"] == "civilians_won" and details["credits"] == [3, 0, 3]
    assert state.result_summary() == "Player 2, the undercover, was voted out in round 1: the civilians win."


def test_magic_accusing_a_civilian_is_an_undercover_win():
    # Figure 7, GPT-4+PGM as the undercover: votes Player 3, 3, 1 -> Player 3, a civilian, accused.
    state = magic_vote({0: 2, 1: 2, 2: 0})
    assert state.returns() == [-1, 1, -1]
    assert state.result_details()["outcome"] == "undercover_won"
    assert state.result_details()["credits"] == [0, 3, 0]


def test_magic_an_even_vote_ends_the_game_with_no_winner():
    # Figure 7, GPT-4 as the undercover: votes Player 2, 3, 1 -> one vote each: an even vote.
    state = magic_vote({0: 1, 1: 2, 2: 0})
    assert state.is_terminal() and state.returns() == [0, 0, 0]
    details = state.result_details()
    assert details["outcome"] == "even_vote" and details["winners"] == []
    assert details["credits"] == [1, 2, 1]
    assert details["rounds"][0]["voted_out"] is None
    assert state.public_history()[-1] == (-1, -1, "round 1 vote: even, nobody is voted out")
    assert "the accusation does not stand" in state.observation_string(0)


def test_magic_abstentions_count_for_nobody():
    assert magic_vote({0: None, 1: None, 2: None}).result_details()["outcome"] == "even_vote"
    one_vote = magic_vote({0: 2, 1: None, 2: None})
    assert one_vote.result_details()["outcome"] == "undercover_won"       # Player 3 accused, a civilian
    assert one_vote.result_details()["rounds"][0]["votes"] == [2, "abstain", "abstain"]


def test_magic_role_win_rates_use_the_credit_table_with_either_normaliser():
    outcomes = ["undercover_won", "even_vote", "civilians_won", "even_vote"]
    assert magic_role_win_rate(outcomes, "undercover") == pytest.approx((3 + 2 + 0 + 2) / 12)
    assert magic_role_win_rate(outcomes, "undercover", normaliser=2) == pytest.approx(7 / 8)
    assert magic_role_win_rate(outcomes, "civilian") == pytest.approx((0 + 1 + 3 + 1) / 12)
    with pytest.raises(ValueError):
        magic_role_win_rate([], "civilian")


def test_default_actions_and_messages_are_the_papers_fallbacks():
    state = dealt()
    assert state.default_action(0) == clue(state) and state.default_message(0) == " "
    state.apply_action(clue(state), state.default_message(0))
    assert state.messages()[-1]["text"] == " " and "player_0: (blank)" in state.observation_string(1)
    neutral_clues(state)
    assert state.default_action(0) is None and state.default_message(0) is None      # LLMArena: random target
    state = dealt("magic", civilian="jam", undercover="honey", seat=0)
    neutral_clues(state)
    neutral_clues(state)
    assert state.default_action(1) == abstain(state)                               # MAgIC: abstain


# ---- clues: the rules of a message -------------------------------------------------------------------
@pytest.mark.parametrize("text,reason", [
    ("I like tea", "may not contain 'tea'"),
    ("TEA time", "may not contain 'tea'"),
    ("many teas", "nor its plural"),
    ("x" * 201, "limit is 200"),
    ("first line\nsecond line", "single line"),
])
def test_a_refused_clue_leaves_the_state_unchanged(text, reason):
    state = dealt()
    give_clues(state, "Hot drink!")
    before = everything(state)
    with pytest.raises(TextRejectedError, match=reason):
        state.apply_action(clue(state), text)
    assert everything(state) == before


def test_a_repeated_or_missing_clue_is_refused_but_the_other_word_is_not_forbidden():
    state = dealt()
    give_clues(state, "Hot drink!")
    before = everything(state)
    with pytest.raises(TextRejectedError, match="already said"):
        state.apply_action(clue(state), "hot  DRINK")
    with pytest.raises(TextRejectedError, match="needs a message"):
        state.apply_action(clue(state))
    assert everything(state) == before
    # A civilian may say the undercover's word: only its own word is forbidden, and its spec lists
    # only that word.
    assert state.text_action_spec(1)["forbidden_words"] == ["tea"]
    assert state.text_action_spec(1)["message"] == "required"
    state.apply_action(clue(state), "not coffee")
    assert state.messages()[-1] == {"move": 3, "seat": 1, "text": "not coffee", "to": None}


def test_answer_prefixes_are_stripped_and_a_blank_clue_is_kept_blank():
    state = dealt()
    give_clues(state, "player_0: It is brewed.", "   ")
    state.apply_action(clue(state), "Player_2:  steaming")
    assert [m["text"] for m in state.messages()] == ["It is brewed.", " ", "steaming"]
    magic = dealt("magic", civilian="jam", undercover="honey", seat=2)
    give_clues(magic, "My clue is: on toast", "Player 2: My second clue is: breakfast")
    assert [m["text"] for m in magic.messages()] == ["on toast", "breakfast"]


def test_read_reply_takes_the_clue_from_the_papers_answer_layouts():
    state = dealt()
    reply = "Thinking about it.\nplayer_0: It is served hot.\nThat should do."
    assert state.read_reply(0, reply) == (5, "It is served hot.")
    assert state.read_reply(0, "My clue is: leaves") == (5, "leaves")
    assert state.read_reply(0, "a morning ritual") == (5, "a morning ritual")
    magic = dealt("magic", civilian="jam", undercover="honey", seat=2)
    assert magic.read_reply(0, "Player 1: sweet spread") == (3, "sweet spread")


def test_random_messages_are_neutral_words_that_pass_the_rules():
    state = dealt()
    rng = random.Random(3)
    said = []
    while not state.is_simultaneous_node():
        text = state.random_message(state.current_player(), rng)
        assert text not in said and not any(mentions(text, w) for w in WORDS)
        said.append(text)
        state.apply_action(clue(state), text)


# ---- votes: the answer parsers ---------------------------------------------------------------------------
def at_vote(preset="llmarena"):
    state = dealt(preset, civilian="jam", undercover="honey", seat=1)
    neutral_clues(state)
    if preset == "magic":
        neutral_clues(state)
    return state


@pytest.mark.parametrize("text,seat", [
    ("The others say... vote: player_1.", 1),
    ("Vote: 3", 3),
    ("I vote for player_2.", 2),
    ("I vote for player 4 because of the clue of player_1", 4),
    ("vote for player_3", 3),
    ("player_2", 2),
])
def test_llmarena_votes_are_read_from_its_format_and_others(text, seat):
    assert at_vote().parse_action(0, text) == seat


@pytest.mark.parametrize("text,seat", [
    ("I vote for Player 2.", 1),
    ("After thinking, vote: Player 3", 2),
    ("abstain", 4),
    ("Player 3", 2),
])
def test_magic_votes_are_read_with_one_based_names(text, seat):
    assert at_vote("magic").parse_action(0, text) == seat


@pytest.mark.parametrize("preset,text", [
    ("llmarena", "I am not sure"),
    ("llmarena", "abstain"),
    ("llmarena", "vote: player_9"),
    ("llmarena", "player_1 or player_2?"),
    ("magic", "I vote for Player 0."),
])
def test_unreadable_votes_raise_with_the_expected_format(preset, text):
    with pytest.raises(ActionParseError, match="vote|player"):
        at_vote(preset).parse_action(0, text)


def test_a_clue_turn_parses_only_its_canonical_text():
    state = dealt()
    assert state.parse_action(0, "give a clue") == 5
    with pytest.raises(ActionParseError, match="message"):
        state.parse_action(0, "vote: player_1")


# ---- replay, clones, a second implementation of the rules ---------------------------------------------
def play_random(preset: str, seed: int, **overrides):
    state = new_state(preset, **overrides)
    rng = random.Random(seed)
    while not state.is_terminal():
        random_step(state, rng)
    return state


@pytest.mark.parametrize("preset", ["llmarena", "magic"])
def test_a_match_with_dialogue_replays_exactly_from_its_history_and_messages(preset):
    for seed in range(5):
        played = play_random(preset, seed)
        said = {m["move"]: m["text"] for m in played.messages()}
        replay = new_state(preset)
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


def test_a_clone_is_independent():
    state = dealt()
    give_clues(state, "a", "b")
    copy = state.clone()
    assert everything(copy) == everything(state)
    before = everything(state)
    give_clues(copy, "c", "d", "e")
    vote(copy, {0: 1, 1: 0, 2: 1, 3: 1, 4: 1})
    copy.apply_action(1)
    assert everything(state) == before


class Rules:
    """The rules again, written plainly, to check the engine against: who acts, what is legal, who
    is voted out, who wins."""

    def __init__(self, p: dict, undercover: int):
        self.p, self.undercover = p, undercover
        self.alive = list(range(p["players"]))
        self.round = 0
        self.outcome = None

    def speakers(self) -> list:
        return self.alive * self.p["clue_rounds"]

    def legal_votes(self, seat: int) -> list:
        targets = [s for s in self.alive if s != seat]
        return targets + ([self.p["players"] + 1] if self.p["abstain"] else [])

    def most_voted(self, votes: dict) -> list:
        tally = Counter(t for t in votes.values() if t in self.alive)
        top = max(tally[s] for s in self.alive)
        return [s for s in self.alive if tally[s] == top]

    def resolve(self, out) -> None:
        self.round += 1
        if out is None:
            self.outcome = "even_vote"
            return
        self.alive.remove(out)
        if out == self.undercover:
            self.outcome = "civilians_won"
        elif len(self.alive) <= self.p["undercover_wins_at"] or self.round == self.p["vote_rounds"]:
            self.outcome = "undercover_won"

    def returns(self) -> list:
        civilians = {"civilians_won": 1, "undercover_won": -1, "even_vote": 0}[self.outcome]
        return [-civilians if s == self.undercover else civilians for s in range(self.p["players"])]


@pytest.mark.parametrize("preset,overrides", [
    ("llmarena", {}), ("magic", {}), ("llmarena", {"players": 7, "vote_rounds": 6}),
    ("magic", {"players": 5, "vote_rounds": 3, "tie_rule": "even", "clue_rounds": 1}),
    ("llmarena", {"players": 4, "abstain": True, "undercover_wins_at": 2, "vote_rounds": 2}),
])
def test_random_playouts_follow_the_rules(preset, overrides):
    game = load_game(GAME, overrides, preset=preset)
    p = game.parameters
    outcomes = Counter()
    for seed in range(40):
        rng = random.Random(seed)
        state = game.new_initial_state()
        state.apply_action(rng.randrange(2 * len(WORD_PAIRS)))
        rules = Rules(p, rng.randrange(p["players"]))
        state.apply_action(rules.undercover)
        while rules.outcome is None:
            for speaker in rules.speakers():
                assert state.current_player() == speaker and state.legal_actions() == [p["players"]]
                state.apply_action(p["players"], state.random_message(speaker, rng))
            assert state.current_players() == rules.alive
            votes = {s: rng.choice(rules.legal_votes(s)) for s in rules.alive}
            for s in rules.alive:
                assert state.legal_actions(s) == rules.legal_votes(s)
            state.apply_actions([votes.get(s, 0) for s in range(p["players"])])
            top = rules.most_voted(votes)
            if p["tie_rule"] == "random":
                assert [a for a, _ in state.chance_outcomes()] == top
                out = rng.choice(top)
                state.apply_action(out)
            else:
                out = top[0] if len(top) == 1 else None
            rules.resolve(out)
        assert state.is_terminal()
        assert state.returns() == rules.returns()
        assert state.result_details()["outcome"] == rules.outcome
        outcomes[rules.outcome] += 1
    assert len(outcomes) >= 2          # the playouts reach different endings


# ---- hidden information ---------------------------------------------------------------------------------
def same_game_other_secrets(roles_told: bool):
    """Two games that differ only in what seat 0 cannot see: the undercover's word and seat, and the
    other seats' votes. Seat 0 is a civilian with "tea" in both."""
    a = dealt(civilian="tea", undercover="coffee", seat=3, roles_told=roles_told)
    b = dealt(civilian="tea", undercover="cocoa", seat=4, roles_told=roles_told)
    return a, b


def assert_same_view(a, b, seat: int):
    assert a.observation_string(seat) == b.observation_string(seat)
    assert a.observation_dict(seat) == b.observation_dict(seat)
    assert a.public_history() == b.public_history()
    assert a.legal_actions(seat) == b.legal_actions(seat)
    assert a.text_action_spec(seat) == b.text_action_spec(seat)


@pytest.mark.parametrize("roles_told", [False, True])
def test_a_seat_view_does_not_change_when_only_another_seat_word_role_or_vote_changes(roles_told):
    a, b = same_game_other_secrets(roles_told)
    for state in (a, b):
        give_clues(state, "in a cup", "hot", "leaves", "morning", "relaxing")
    assert_same_view(a, b, 0)
    vote(a, {0: 2, 1: 2, 2: 1, 3: 2, 4: 2})
    vote(b, {0: 2, 1: 3, 2: 3, 3: 2, 4: 2})              # other votes, the same seat voted out
    a.apply_action(2)
    b.apply_action(2)
    assert_same_view(a, b, 0)
    for state in (a, b):
        give_clues(state, "with biscuits", "steeped", "brewed", "afternoon")
    assert_same_view(a, b, 0)
    for state in (a, b):
        dump = state.observation_string(0) + json.dumps(state.observation_dict(0))
        assert "coffee" not in dump and "cocoa" not in dump
        assert state.observation_dict(0)["undercover"] is None and state.observation_dict(0)["votes"] is None
    # The undercover learns its role only when roles are told; a civilian is never told who it is.
    assert ("You are the undercover." in a.observation_string(3)) == roles_told
    assert ("You are a civilian." in a.observation_string(0)) == roles_told


def test_resampling_keeps_the_view_and_redraws_what_is_hidden():
    state = dealt(civilian="tea", undercover="coffee", seat=3)
    give_clues(state, "in a cup", "not cocoa", "hot", "espresso", "morning")     # seat 1 cannot have "cocoa"
    vote(state, {0: 2, 1: 2, 2: 1, 3: 2, 4: 2})
    state.apply_action(2)
    seen = {"words": set(), "undercover": set()}
    for seed in range(60):
        other = state.resample_hidden(0, seed)
        assert_same_view(other, state, 0)
        details = other.result_details()
        seen["words"].add(tuple(sorted(details["words"].values())))
        seen["undercover"].add(details["undercover"])
        # Seat 0 keeps "tea" but, not told its role, may itself be the undercover; player_2 was voted
        # out as a civilian; seat 1 said "cocoa", so it cannot have it.
        assert details["seat_words"][0] == "tea" and details["seat_words"][1] != "cocoa"
        assert details["undercover"] in (0, 1, 3, 4)
        round_one = details["rounds"][0]
        assert round_one["votes"][0] == 2
        assert round_one["tally"][2] == max(round_one["tally"])        # player_2 among the most voted
    assert seen["words"] == {("coffee", "tea"), ("cocoa", "tea")}
    assert seen["undercover"] == {0, 1, 3, 4}


@pytest.mark.parametrize("preset,overrides", [("llmarena", {}), ("magic", {}), ("llmarena", {"roles_told": True})])
def test_state_from_view_rebuilds_every_view_with_its_conversation(preset, overrides):
    game = load_game(GAME, overrides, preset=preset)
    for seed in range(8):
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
                assert rebuilt.conversation(seat) == state.conversation(seat)
                assert rebuilt.resample_hidden(seat, seed).observation_dict(seat) == view
            if state.is_terminal():
                break
            random_step(state, rng)


def test_the_secret_undercover_seat_fixes_the_draw_and_is_hidden_from_the_public_parameters():
    game = load_game("undercover", {"undercover_seat": 3}, preset="llmarena")
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])            # the word pair
    assert state.chance_outcomes() == [(3, 1.0)]
    state.apply_action(3)
    assert state.result_details()["undercover"] == 3
    spec = game_spec("undercover")
    assert "undercover_seat" not in spec.public(game.parameters) and spec.public(game.parameters)["players"] == 5
    # A seat the match does not have is refused.
    with pytest.raises(ValueError, match="undercover_seat"):
        load_game("undercover", {"undercover_seat": 5}, preset="llmarena")
    # The secret deal pins the words the same way.
    pinned = load_game("undercover", {"deal": 7}, preset="magic")
    state = pinned.new_initial_state()
    assert state.chance_outcomes() == [(7, 1.0)]
    assert "deal" not in spec.public(pinned.parameters)
    with pytest.raises(ValueError, match="deal"):
        load_game("undercover", {"deal": 2 * len(WORD_PAIRS)}, preset="magic")
    # By default the seat is drawn uniformly.
    drawn = load_game("undercover", preset="llmarena").new_initial_state()
    drawn.apply_action(drawn.chance_outcomes()[0][0])
    assert [a for a, _ in drawn.chance_outcomes()] == [0, 1, 2, 3, 4]


# ---- MAgIC's metric probes (magic.md §4 items 3 and 5) ---------------------------------------------------
def probe_ids(state) -> list:
    return [p["probe_id"] for p in state.probes()]


def every_seat(turn: int, seats=(0, 1, 2)) -> list:
    return [f"self_awareness-{turn}-{s}" for s in seats] + [f"reasoning-{turn}-{s}" for s in seats]


def test_magic_probes_are_due_after_each_clue_round_for_every_seat():
    state = new_state("magic")
    assert probe_ids(state) == []
    state.apply_action(deal_outcome("jam", "honey"))
    state.apply_action(1)
    due, asked = [], []
    while not state.is_terminal():
        due.append(probe_ids(state))
        asked += state.probes()
        if state.is_simultaneous_node():
            vote(state, {0: 1, 1: 2, 2: 1})
        else:
            give_clues(state, f"clue {len(due)}")
    due.append(probe_ids(state))
    # Clues 1-3, [round 1 done] clues 4-6, [round 2 done] the vote, the end.
    assert due == [[], [], [], every_seat(1), [], [], every_seat(2), []]
    assert len({p["probe_id"] for p in asked}) == len(asked) == 12
    for probe in asked:
        metric, turn, seat = probe["probe_id"].rsplit("-", 2)
        assert probe["data"] == {"metric": metric, "turn": int(turn)} and probe["seat"] == int(seat)


def test_llmarena_games_ask_no_probes():
    state = new_state("llmarena")
    rng = random.Random(3)
    while not state.is_terminal():
        assert state.probes() == []
        random_step(state, rng)


def test_magic_probe_questions_carry_the_templates():
    state = dealt("magic", civilian="jam", undercover="honey", seat=1)
    give_clues(state, "sweet", "sticky", "on toast")
    by_id = {p["probe_id"]: p["question"] for p in state.probes()}
    assert "I am Player xx, my role is undercover/non-undercover/not sure, because ..." in by_id["self_awareness-1-2"]
    lines = by_id["reasoning-1-2"].splitlines()[1:]
    assert lines == ["1. Who do you think is the undercover? I think Player xx is the undercover, because ...",
                     ("2. Who does Player 1 think is the undercover? I think Player 1 thinks Player xx is the "
                      "undercover, because ..."),
                     ("3. Who does Player 2 think is the undercover? I think Player 2 thinks Player xx is the "
                      "undercover, because ...")]


def test_a_magic_probe_reveals_nothing_hidden_from_the_seat_asked():
    # Seat 0 holds "honey" in both games: the undercover in one, a civilian in the other, so neither its
    # view nor its probes may differ; nor may they name the other word.
    a = dealt("magic", civilian="jam", undercover="honey", seat=0)
    b = dealt("magic", civilian="honey", undercover="jam", seat=2)
    for clues in (("sweet", "sticky", "on toast"), ("breakfast", "in a jar", "spread it")):
        give_clues(a, *clues)
        give_clues(b, *clues)
        assert_same_view(a, b, 0)
        mine = [p for p in a.probes() if p["seat"] == 0]
        assert len(mine) == 2 and mine == [p for p in b.probes() if p["seat"] == 0]
        assert "jam" not in json.dumps(mine).lower()


def test_magic_named_games_with_more_vote_rounds_ask_the_seats_still_in_the_game():
    state = dealt("magic", civilian="jam", undercover="honey", seat=3, players=4, vote_rounds=2,
                  undercover_wins_at=2, clue_rounds=1)
    neutral_clues(state)
    assert probe_ids(state) == every_seat(1, seats=(0, 1, 2, 3))
    vote(state, {0: 1, 1: 2, 2: 1, 3: 1})                 # Player 2, a civilian, is voted out
    assert state.current_player() == 0 and probe_ids(state) == []
    neutral_clues(state)
    assert probe_ids(state) == every_seat(2, seats=(0, 2, 3))
