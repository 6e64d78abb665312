"""The Are You the Traitor? house agent, driven as the referee drives it (MatchStarted, then DecisionRequests
with the observation, the conversation, the legal actions and the message spec), without a server."""

from __future__ import annotations

import asyncio
import random
from functools import partial

from arena_engines import load_game
from arena_engines.are_you_the_traitor import ANSWERS, QUESTIONS
from arena_server.house import HOUSE_AGENTS, HouseSeat
from arena_server.house.are_you_the_traitor import fitting_deals, target_chances

from .house_harness import answer_in_another_game, house_answer, talk_request
from .test_house import started

GAME = "are_you_the_traitor"
AGENT = "ayt_deduction"
TALK, ASK, ANSWER, STOP, PASS, ACCUSE, HEARD, NOBODY, DRAWN, NO_THEFT = 0, 5, 6, 7, 8, 10, 20, 25, 30, 99


ask = partial(house_answer, AGENT)


def new_game():
    game = load_game(GAME, preset="gamebench")
    return game, game.new_initial_state()


def to_calls(state, asker=0, target=1):
    state.apply_action(asker)
    state.apply_action(TALK + target)
    state.apply_action(ASK, "Q?")
    state.apply_action(ANSWER, "A.")


def call(state, *calls):
    """The calls of seats 0-4 in seat order (the Traitor, seat 0, can only pass)."""
    for action in calls:
        state.apply_action(action)


def settle_round(state, caller, accused, draws):
    """`caller` alone calls STOP and accuses `accused`; the round's draws (kinds 0-6) and quiet ring steps."""
    call(state, *[STOP if s == caller else PASS for s in range(5)])
    state.apply_action(HEARD + caller)
    state.apply_action(ACCUSE + accused)
    for kind in draws:
        state.apply_action(DRAWN + kind)
    while state.chance_outcomes() == [(NO_THEFT, 1.0)]:
        state.apply_action(NO_THEFT)


def test_the_agent_is_registered_for_this_game_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "STOP" in description and factory(0).games == frozenset({GAME})
    assert answer_in_another_game(AGENT) is None


def test_it_talks_with_stock_lines_the_game_accepts():
    game, state = new_game()
    state.apply_action(2)
    action, message = ask(game, state, 2)
    assert action in state.legal_actions(2) and message is None
    state.apply_action(action)
    action, question = ask(game, state, 2)
    assert action == ASK and question in QUESTIONS
    state.apply_action(action, question)
    target = state.current_player()
    action, answer = ask(game, state, target)
    assert action == ANSWER and answer in ANSWERS
    state.apply_action(action, answer)
    assert state.conversation(0)[-1]["text"] == answer


def test_at_even_odds_it_waits_for_a_long_round_and_below_them_it_passes():
    game, state = new_game()
    for exchanges in range(1, 4):
        to_calls(state)
        calls = {}
        for seat in range(5):
            calls[seat] = ask(game, state, seat, seed=exchanges)[0]
            state.apply_action(calls[seat])
        # The Traitor passes; Evil Wizard and Good Wizard: 1/3 chances; Key Holder and Guard: 1/2, but only
        # in the 3rd exchange of the round.
        assert calls == {0: PASS, 1: PASS, 2: PASS, 3: STOP if exchanges == 3 else PASS,
                         4: STOP if exchanges == 3 else PASS}
        if exchanges < 3:
            state.apply_action(NOBODY)


def test_a_round_result_that_proves_the_roles_makes_it_accuse_its_target():
    game, state = new_game()
    to_calls(state)
    settle_round(state, caller=4, accused=0, draws=(3, 3, 3))   # the Guard catches the Traitor: Good wins
    # Only seat 4 the Guard and seat 0 the Traitor explain a Good win; the wizards stay unknown to seat 3.
    assert target_chances(state.observation_dict(2)) == {0: 1.0, 1: 0.0, 3: 0.0, 4: 0.0}
    assert target_chances(state.observation_dict(1)) == {0: 0.0, 2: 0.0, 3: 1.0, 4: 0.0}
    assert target_chances(state.observation_dict(3)) == {0: 0.0, 1: 0.5, 2: 0.5, 4: 0.0}
    assert len(fitting_deals(state.observation_dict(3))) == 2
    to_calls(state, asker=3, target=2)
    call(state, PASS)
    assert ask(game, state, 1)[0] == STOP
    call(state, STOP)
    assert ask(game, state, 2)[0] == STOP
    call(state, STOP, PASS, PASS)
    state.apply_action(HEARD + 1)
    assert ask(game, state, 1)[0] == ACCUSE + 3


def test_an_accusation_at_even_odds_picks_among_the_best_at_random():
    game, state = new_game()
    to_calls(state)
    call(state, PASS, PASS, PASS, STOP, PASS)
    state.apply_action(HEARD + 3)
    assert {ask(game, state, 3, seed)[0] for seed in range(20)} == {ACCUSE + 1, ACCUSE + 2}


def test_house_agents_in_every_seat_play_whole_games_their_moves_always_accepted():
    game = load_game(GAME, preset="gamebench")
    houses = {seat: HouseSeat(AGENT, seat) for seat in range(5)}
    for seat, house in houses.items():
        house.notify(started(GAME, game, seat))
    endings = []
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
            else:
                seat = state.current_player()
                answer = asyncio.run(houses[seat].ask(talk_request(state, seat), timeout=30))
                state.apply_action(answer.action_id, answer.message if answer.HasField("message") else None)
        endings.append(state.result_details()["ending"])
    assert endings.count("points") >= 5              # the table plays rounds instead of talking forever
