"""The Pit house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built from a
real engine state), without a server: it takes opposing offers of the commodity it collects for one spare
card (the Bear first), offers its spare cards otherwise, never gives away its target or the Bull, always
answers a legal action, and beats random play."""

from __future__ import annotations

import asyncio
import random

from arena_engines import load_game
from arena_server.convert import to_struct
from arena_server.house import HOUSE_AGENTS, HouseSeat

from . import test_house
from .house_harness import play_against_random
from .test_house import request, started

GAME = "pit"
NAME = "pit_collector"
KINDS = ["Barley", "Corn", "Soyabeans", "Wheat", "Bull", "Bear"]
PASS = "Offer_Bear_4"                 # never covered: one Bear exists


def decide(game, state, seat: int, seed: int = 0) -> str:
    return state.action_to_string(seat, test_house.decide(NAME, GAME, game, state, seat, seed))


def dealt(*specs: str):
    """A gamebench game and a state after a deal giving seat i the cards of specs[i] ("5 Wheat, 1 Bear")."""
    game = load_game(GAME, preset="gamebench")
    state = game.new_initial_state()
    queues = []
    for spec in specs:
        cards = []
        for part in spec.split(","):
            count, kind = part.split()
            cards += [KINDS.index(kind)] * int(count)
        queues.append(cards)
    for k in range(38):
        state.apply_action(queues[k % 4].pop(0))
    return game, state


def action(text: str) -> int:
    """The id of a GameBench offer id text ("Offer_Wheat_2")."""
    _, kind, qty = text.split("_")
    return 4 * KINDS.index(kind) + int(qty) - 1


def test_registered_for_pit_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "Pit" in description
    assert factory(0).games == frozenset({GAME})


def test_takes_the_largest_offer_of_its_commodity_paying_the_bear():
    # Seat 0 collects Wheat (it holds 4) and holds the Bear; seats 2 and 3 offer 1 and 2 Wheat.
    game, state = dealt("4 Wheat, 1 Bear, 2 Barley, 2 Corn, 1 Soyabeans", "2 Wheat, 3 Barley, 2 Corn, 2 Soyabeans, 1 Bull",
                        "1 Wheat, 3 Barley, 3 Corn, 2 Soyabeans", "2 Wheat, 1 Barley, 2 Corn, 4 Soyabeans")
    for text in (PASS, "Offer_Wheat_1", PASS, "Offer_Wheat_2"):
        state.apply_action(action(text))
    assert [(o["seat"], o["quantity"]) for o in state.observation_dict(0)["pending_offers"]] == [(2, 1), (3, 2)]
    for seed in range(3):
        assert decide(game, state, 0, seed) == "Accept_2_Bear_1"


def test_offers_its_spare_cards_and_never_its_target_or_the_bull():
    game, state = dealt("4 Wheat, 1 Bull, 3 Barley, 1 Corn, 1 Soyabeans", "2 Wheat, 3 Barley, 3 Corn, 2 Soyabeans",
                        "2 Wheat, 2 Barley, 3 Corn, 2 Soyabeans", "1 Wheat, 1 Barley, 2 Corn, 4 Soyabeans, 1 Bear")
    # No offer pending: seat 0 offers its fewest-held spare commodity, the cheaper of Corn and Soyabeans.
    assert decide(game, state, 0) == "Offer_Soyabeans_1"
    for text in ("Offer_Soyabeans_1", "Offer_Corn_2", PASS):       # seats 0, 2 and 1
        state.apply_action(action(text))
    # Seat 3 collects Soyabeans: it takes seat 0's, paying with the Bear; it ignores its teammate's Corn.
    assert decide(game, state, 3) == "Accept_1_Bear_1"


def test_passes_when_it_has_nothing_to_spare():
    game, state = dealt("4 Wheat, 3 Barley, 2 Corn, 1 Soyabeans", "2 Wheat, 3 Barley, 3 Corn, 1 Soyabeans, 1 Bull",
                        "2 Wheat, 2 Barley, 2 Corn, 3 Soyabeans", "1 Wheat, 1 Barley, 2 Corn, 4 Soyabeans, 1 Bear")
    asked = request(state, 0)
    view = state.observation_dict(0)
    view["hand"] = {"Barley": 0, "Corn": 0, "Soyabeans": 0, "Wheat": 4, "Bull": 1, "Bear": 0}
    asked.observation.data.CopyFrom(to_struct(view))
    house = HouseSeat(NAME, 0)
    house.notify(started(GAME, game, 0))
    assert state.action_to_string(0, asyncio.run(house.ask(asked, timeout=30)).action_id) == PASS


def test_always_answers_a_legal_action_and_beats_random_play():
    game = load_game(GAME, preset="gamebench")
    shares = []
    for match in range(12):
        house_side = match % 2
        seeds = {seat: 10 * match + seat for seat in range(4) if seat // 2 == house_side}
        state = play_against_random(NAME, game, seeds, random.Random(match), step_randomly=True)
        shares.append(state.returns()[2 * house_side])
    assert sum(share > 0.5 for share in shares) >= 10 and sum(shares) / len(shares) > 0.65, shares
