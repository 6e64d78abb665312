"""House agents, driven exactly as the referee drives them: MatchStarted, then DecisionRequests built
from a real engine state (observation text and data, legal actions), without a server."""

from __future__ import annotations

import asyncio

import pytest

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import game_pb2, match_pb2
from arena_engines import load_game
from arena_server.convert import to_struct
from arena_server.house import HOUSE_AGENTS, HousePolicy, HouseSeat

COOPERATE, DEFECT = 0, 1


def started(game_id: str, game, seat: int) -> pb.ConnectResponse:
    match = match_pb2.MatchInfo(match_id="m1", game_id=game_id, parameters=to_struct(game.parameters),
                                players=[match_pb2.Player(seat=i, agent_name=f"p{i}") for i in range(game.num_players)])
    return pb.ConnectResponse(match_started=pb.MatchStarted(match=match, seat=seat))


def request(state, seat: int) -> pb.DecisionRequest:
    return pb.DecisionRequest(
        match_id="m1", decision_id=1, seat=seat,
        observation=game_pb2.Observation(text=state.observation_string(seat),
                                         data=to_struct(state.observation_dict(seat))),
        legal_actions=[game_pb2.LegalAction(id=a, text=state.action_to_string(seat, a))
                       for a in state.legal_actions(seat)])


def decide(name: str, game_id: str, game, state, seat: int, seed: int = 0) -> int | None:
    house = HouseSeat(name, seed)
    house.notify(started(game_id, game, seat))
    answer = asyncio.run(house.ask(request(state, seat), timeout=30))
    return None if answer is None else answer.action_id


def test_every_house_agent_has_a_description_and_makes_a_policy():
    for name, (description, factory) in HOUSE_AGENTS.items():
        assert description
        assert isinstance(factory(0), HousePolicy), name
    assert {"random", "mcts", "tit_for_tat", "always_defect", "bid_half_value", "bid_value"} <= set(HOUSE_AGENTS)


def test_house_mcts_plays_from_the_observation_it_is_sent():
    game = load_game("tic_tac_toe")
    state = game.new_initial_state()
    for move in (0, 3, 1, 4):         # X holds 0 and 1, O holds 3 and 4
        state.apply_action(move)
    assert decide("mcts", "tic_tac_toe", game, state, 0) == 2       # X completes the top row
    state.apply_action(8)
    assert decide("mcts", "tic_tac_toe", game, state, 1) == 5       # O completes the middle row


def play_prisoners_dilemma(name: str, opponent_moves: list[int]) -> list[int]:
    """The house agent's choices (seat 0) against a scripted seat 1, round by round."""
    game = load_game("iterated_prisoners_dilemma", {"continue_probability": 1.0, "max_rounds": 10},
                     preset="gtbench_2p")
    state = game.new_initial_state()
    mine = []
    for theirs in opponent_moves:
        mine.append(decide(name, "iterated_prisoners_dilemma", game, state, 0))
        state.apply_actions([mine[-1], theirs])
    return mine


def test_tit_for_tat_cooperates_first_then_copies_the_opponent():
    assert play_prisoners_dilemma("tit_for_tat", [DEFECT, COOPERATE, DEFECT, DEFECT, COOPERATE]) == [
        COOPERATE, DEFECT, COOPERATE, DEFECT, DEFECT]


def test_always_defect_defects():
    assert play_prisoners_dilemma("always_defect", [COOPERATE, DEFECT, COOPERATE]) == [DEFECT] * 3


@pytest.mark.parametrize("preset,value,half,full", [
    ("gtbench_blind", 7, 3, 7),       # bids 0..v
    ("gtbench_code", 7, 3, 6),        # bids 0..v-1: the valuation itself is not a legal bid
    ("gtbench_blind", 1, 0, 1),
])
def test_fixed_bids_are_the_highest_legal_bid_at_most_the_fraction_of_the_valuation(preset, value, half, full):
    game = load_game("sealed_bid_auction", preset=preset)
    state = game.new_initial_state()
    state.apply_action(value)         # seat 0's valuation
    state.apply_action(5)             # seat 1's
    assert decide("bid_half_value", "sealed_bid_auction", game, state, 0) == half
    assert decide("bid_value", "sealed_bid_auction", game, state, 0) == full


def test_a_house_agent_asked_for_a_game_it_does_not_play_answers_nothing():
    game = load_game("connect_four")
    assert decide("tit_for_tat", "connect_four", game, game.new_initial_state(), 0) is None


def test_mcts_moves_silently_where_talk_is_optional_and_declines_where_a_message_is_required():
    for preset in ("gtbench", "llmarena_bargain"):
        game = load_game("negotiation", preset=preset)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        seat = state.current_player()
        assert decide("mcts", "negotiation", game, state, seat) in state.legal_actions(seat)
    # The same decision, marked as needing a message, is declined: the referee's failure policy decides.
    house = HouseSeat("mcts", 0)
    house.notify(started("negotiation", game, seat))
    asking = request(state, seat)
    asking.text_action.message = game_pb2.MESSAGE_MODE_REQUIRED
    assert asyncio.run(house.ask(asking, timeout=30)) is None


def test_random_says_a_message_on_dialogue_turns_avoiding_forbidden_words():
    game = load_game("negotiation", preset="llmarena_bargain")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seat = state.current_player()
    house = HouseSeat("random", 3)
    house.notify(started("negotiation", game, seat))
    asking = request(state, seat)
    asking.text_action.CopyFrom(game_pb2.TextActionSpec(description="talk", max_length=100,
                                                        forbidden_words=["blue", "river"],
                                                        message=game_pb2.MESSAGE_MODE_OPTIONAL))
    said = [asyncio.run(house.ask(asking, timeout=30)) for _ in range(20)]
    assert all(d.action_id in state.legal_actions(seat) and d.HasField("message") for d in said)
    assert not any(w in d.message.split() for d in said for w in ("blue", "river"))
    asking.text_action.example = "how about two hats?"
    assert asyncio.run(house.ask(asking, timeout=30)).message == "how about two hats?"
