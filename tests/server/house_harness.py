"""What the house-agent tests share: a house seat asked as the referee asks it (MatchStarted, then
DecisionRequests built from a real engine state), and whole matches of a house agent against random
play. The plain request, `started` and `decide` are test_house.py's."""

from __future__ import annotations

import asyncio

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2
from arena_engines import load_game
from arena_server import convert
from arena_server.house import HouseSeat

from .test_house import request, started


def talk_request(state, seat: int) -> pb.DecisionRequest:
    """The request of a game where seats talk: with the conversation and the message spec."""
    spec = state.text_action_spec(seat)
    return pb.DecisionRequest(
        match_id="m1", decision_id=1, seat=seat,
        observation=game_pb2.Observation(text=state.observation_string(seat),
                                         data=convert.to_struct(state.observation_dict(seat)),
                                         conversation=convert.utterances(state.conversation(seat))),
        legal_actions=[game_pb2.LegalAction(id=a, text=state.action_to_string(seat, a))
                       for a in state.legal_actions(seat)],
        text_action=convert.text_action_spec(spec) if spec else None)


def house_answer(name: str, game, state, seat: int, seed: int = 0) -> tuple[int, str | None]:
    """House agent `name`'s action id and message (None without one) on a talk_request."""
    house = HouseSeat(name, seed)
    house.notify(started(game.spec.game_id, game, seat))
    decision = asyncio.run(house.ask(talk_request(state, seat), timeout=30))
    return decision.action_id, (decision.message if decision.HasField("message") else None)


def answer_in_another_game(name: str):
    """What house agent `name` answers when asked in a match of connect_four (None: nothing)."""
    game = load_game("connect_four")
    house = HouseSeat(name, 0)
    house.notify(started("connect_four", game, 0))
    return asyncio.run(house.ask(talk_request(game.new_initial_state(), 0), timeout=5))


def play_against_random(name: str, game, seeds: dict, rng, check=None, step_randomly: bool = False):
    """One match of a sequential game, house agent `name` in the seats of `seeds` ({seat: the agent's
    seed}), every other move drawn by `rng`: uniformly among the legal actions or chance outcomes, or
    by state.step_randomly. Every house action must be legal; `check(state, action, seed)` (the acting
    agent's seed) sees it before it is applied. The final state."""
    houses = {seat: HouseSeat(name, seed) for seat, seed in seeds.items()}
    for seat, house in houses.items():
        house.notify(started(game.spec.game_id, game, seat))
    state = game.new_initial_state()
    while not state.is_terminal():
        seat = state.current_player()
        if seat in houses:
            action = asyncio.run(houses[seat].ask(request(state, seat), timeout=30)).action_id
            assert action in state.legal_actions(seat)
            if check is not None:
                check(state, action, seeds[seat])
            state.apply_action(action)
        elif step_randomly:
            state.step_randomly(rng)
        elif state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state
