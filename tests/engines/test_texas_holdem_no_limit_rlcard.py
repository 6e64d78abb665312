"""Differential test against RLCard's `no-limit-holdem`, the engine LLMArena played (through
PettingZoo's texas_holdem_no_limit_v6): thousands of seeded random hands played in both engines from
the same dealer and the same cards, comparing at every decision the seat to act, the legal actions
and the chips put in, and at the end the chip results, who folded and the showdown winners; and the
hand evaluator against RLCard's on random seven-card hands.

RLCard is driven as LLMArena drove it, with three interventions that only remove randomness or
seating: its shuffle is replaced by our deal (RLCard pops cards from the end of its deck, hole cards
to seat 0, 1, 0, 1 as here), its dealer is set to ours, and, under this engine's standard heads-up
seating ("rlcard_seating" false), the seat to act after the flop, turn and river is moved to the big
blind (RLCard always starts those rounds with the seat after its dealer, which with its own seating is
the small blind). With "rlcard_seating" true nothing but the deal and the dealer is forced.

Unequal stacks are outside RLCard's configuration (one "chips_for_each"); forced in, RLCard lets a
player raise an opponent who is all in, which this engine does not (see the engine's docstring). The
last test plays such hands and checks that this is the only difference."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from rlcard.games.base import Card
from rlcard.games.limitholdem.utils import compare_hands
from rlcard.games.nolimitholdem.game import NolimitholdemGame
from rlcard.games.nolimitholdem.round import Action

from arena_engines import load_game
from arena_engines.texas_holdem_no_limit import card_id, evaluate_hand

GAME = "texas_holdem_no_limit"
HANDS = 3000
RL_RANKS = "23456789TJQKA"          # our rank order; RLCard writes ten as "T"
RL_SUITS = "SHDC"                   # our suit order, the same as RLCard's deck
# Random play leaning towards calls, so that many hands reach the later streets and showdowns.
WEIGHTS = {0: 1, 1: 4, 2: 2, 3: 2, 4: 1}


def rl_card(card: int) -> Card:
    return Card(RL_SUITS[card // 13], RL_RANKS[card % 13])


def rl_index(card: int) -> str:
    """RLCard's card string ("S2", "HT", "CA")."""
    return RL_SUITS[card // 13] + RL_RANKS[card % 13]


class ForcedDeck:
    """Stands in for RLCard's numpy RandomState: its one shuffle puts our deal at the end of the deck
    in reverse, so that RLCard's pops deal our cards in our order."""

    def __init__(self, deal: list[int]):
        self.deal = deal

    def shuffle(self, deck: list) -> None:
        ours = [rl_card(c) for c in self.deal]
        deck[:] = [c for c in deck if c not in ours] + ours[::-1]


def rlcard_game(chips: tuple[int, int], dealer: int, rlcard_seating: bool, deal: list[int]) -> NolimitholdemGame:
    game = NolimitholdemGame()
    # RLCard's dealer posts its big blind; under standard seating our dealer posts the small blind.
    game.configure({"game_num_players": 2, "chips_for_each": chips[0],
                    "dealer_id": dealer if rlcard_seating else 1 - dealer})
    game.init_chips = list(chips)
    game.np_random = ForcedDeck(deal)
    game.init_game()
    return game


def rl_step(game: NolimitholdemGame, action: int, first_after_flop: int | None) -> None:
    """One RLCard step; a new betting round starts with `first_after_flop` when it is given."""
    rounds = game.round_counter
    game.step(Action(action))
    if first_after_flop is not None and game.round_counter != rounds and not game.is_over():
        game.game_pointer = game.round.game_pointer = first_after_flop


def choose(rng: random.Random, legal: list[int]) -> int:
    return rng.choices(legal, weights=[WEIGHTS[a] for a in legal])[0]


class Tally:
    def __init__(self):
        self.hands = self.decisions = self.showdowns = self.splits = self.folds = self.all_in_runouts = 0


def play_both(seed: int, chips: tuple[int, int], rlcard_seating: bool, tally: Tally) -> None:
    """One hand in both engines, asserting agreement at every decision and at the end."""
    rng = random.Random(seed)
    dealer = rng.randrange(2)
    deal = rng.sample(range(52), 9)
    state = load_game(GAME, {"chips_0": chips[0], "chips_1": chips[1],
                             "rlcard_seating": rlcard_seating}).new_initial_state()
    state.apply_action(dealer)
    game = rlcard_game(chips, dealer, rlcard_seating, deal)
    first_after_flop = None if rlcard_seating else 1 - dealer
    dealt = iter(deal)
    where = f"seed {seed}, chips {chips}, rlcard_seating {rlcard_seating}"
    while True:
        while state.is_chance_node():
            state.apply_action(next(dealt))
        assert state.is_terminal() == game.is_over(), where
        if state.is_terminal():
            break
        seat = state.current_player()
        assert game.game_pointer == seat, where
        legal = state.legal_actions()
        assert sorted(a.value for a in game.get_legal_actions()) == legal, where
        view = state.observation_dict(seat)
        assert view["chips_in"] == [p.in_chips for p in game.players], where
        assert [rl_index(card_id(c)) for c in view["board"]] == [c.get_index() for c in game.public_cards], where
        action = choose(rng, legal)
        state.apply_action(action)
        rl_step(game, action, first_after_flop)
        tally.decisions += 1
    details = state.result_details()
    assert state.returns() == [float(x) for x in game.get_payoffs()], where
    folded = [i for i, p in enumerate(game.players) if p.status.name == "FOLDED"]
    assert ([details["folded"]] if details["folded"] is not None else []) == folded, where
    if details["showdown"]:
        hands = [[c.get_index() for c in p.hand + game.public_cards] for p in game.players]
        assert details["winners"] == [i for i, won in enumerate(compare_hands(hands)) if won], where
        tally.showdowns += 1
        tally.splits += len(details["winners"]) == 2
        tally.all_in_runouts += 0 in state.observation_dict(0)["chips_left"]
    else:
        tally.folds += 1
    tally.hands += 1


@pytest.mark.parametrize("rlcard_seating", [False, True])
def test_random_hands_agree_with_rlcard_at_every_decision(rlcard_seating):
    tally = Tally()
    seeds = range(HANDS // 2, HANDS) if rlcard_seating else range(HANDS // 2)
    for seed in seeds:
        # Short stacks make all-ins and run-outs common; RLCard's preset is 100 chips.
        chips = random.Random(-seed).choice([100, 100, 100, 40, 10, 3])
        play_both(seed, (chips, chips), rlcard_seating, tally)
    print(f"\nrlcard_seating={rlcard_seating}: {tally.hands} hands, {tally.decisions} decisions compared, "
          f"{tally.showdowns} showdowns ({tally.splits} split, {tally.all_in_runouts} after an all-in), "
          f"{tally.folds} folds; 0 disagreements")
    assert tally.hands == HANDS // 2
    assert tally.showdowns > 300 and tally.folds > 300 and tally.splits > 5 and tally.all_in_runouts > 100


# ---- the hand evaluator ---------------------------------------------------------------------------
def rl_winners(first: list[int], second: list[int]) -> list[int]:
    won = compare_hands([[rl_index(c) for c in first], [rl_index(c) for c in second]])
    return [i for i, w in enumerate(won) if w]


def our_winners(first: list[int], second: list[int]) -> list[int]:
    a, b = evaluate_hand(first), evaluate_hand(second)
    return [0, 1] if a == b else [0] if a > b else [1]


def hands_from(rng: random.Random, cards: list[int]) -> tuple[list[int], list[int]]:
    """Two seven-card hands sharing five community cards, drawn from `cards`."""
    drawn = rng.sample(cards, 9)
    return drawn[:2] + drawn[4:], drawn[2:4] + drawn[4:]


@pytest.mark.parametrize("deck", ["full", "two suits", "few ranks"])
def test_hand_comparisons_agree_with_rlcard(deck):
    # Reduced decks make flushes, straights, full houses and quads common.
    cards = {"full": list(range(52)),
             "two suits": [c for c in range(52) if c // 13 < 2],
             "few ranks": [c for c in range(52) if c % 13 in (0, 1, 2, 3, 9, 10, 11, 12)]}[deck]
    rng = random.Random(deck)
    categories = set()
    for _ in range(4000):
        first, second = hands_from(rng, cards)
        assert our_winners(first, second) == rl_winners(first, second), (first, second)
        categories.add(evaluate_hand(first) >> 20)
    assert len(categories) >= 6


def test_best_of_seven_equals_best_five_card_subset():
    # The seven-card evaluator against brute force over the 21 five-card subsets.
    rng = random.Random(5)
    for _ in range(1500):
        seven = rng.sample(range(52), 7)
        assert evaluate_hand(seven) == max(evaluate_hand(list(five)) for five in combinations(seven, 5))


# ---- unequal stacks: the one documented difference ------------------------------------------------
def test_unequal_stacks_differ_from_rlcard_only_by_raises_against_an_all_in_opponent():
    agreed = diverged = 0
    for seed in range(600):
        rng = random.Random(10_000 + seed)
        chips = (rng.choice([100, 30, 8]), rng.choice([100, 50, 5]))
        if chips[0] == chips[1]:
            continue
        state = load_game(GAME, {"chips_0": chips[0], "chips_1": chips[1]}).new_initial_state()
        dealer = rng.randrange(2)
        deal = rng.sample(range(52), 9)
        state.apply_action(dealer)
        game = rlcard_game(chips, dealer, False, deal)
        dealt = iter(deal)
        same = True
        while True:
            while state.is_chance_node():
                state.apply_action(next(dealt))
            if state.is_terminal() or game.is_over():
                break
            seat = state.current_player()
            rl_legal = sorted(a.value for a in game.get_legal_actions())
            assert game.game_pointer == seat, (seed, chips)
            if rl_legal != state.legal_actions():
                # Only here: RLCard offers raises against an opponent who is all in.
                assert 0 in state.observation_dict(seat)["chips_left"], (seed, chips)
                assert state.legal_actions() == [0, 1] and set(rl_legal) > {0, 1}, (seed, chips, rl_legal)
                same = False
                break
            action = choose(rng, state.legal_actions())
            state.apply_action(action)
            rl_step(game, action, 1 - dealer)
        if same:
            assert state.is_terminal() and game.is_over()
            assert state.returns() == [float(x) for x in game.get_payoffs()], (seed, chips)
            agreed += 1
        else:
            diverged += 1
    print(f"\nunequal stacks: {agreed} hands agree with RLCard to the end, {diverged} reach a raise that RLCard "
          f"offers against an all-in opponent")
    assert agreed > 200 and diverged > 0
