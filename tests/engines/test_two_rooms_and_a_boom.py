"""Two Rooms and a Boom (GameBench, gamebench.md section 2.8): the setup draws and GameBench's room lists,
hand-worked games and scores, the reports to the Leaders, the answer parsers and messages, replay of a
match with its words, random playouts against a separate implementation of GameBench's loop, and the
private exchanges, roles and Leaders never reaching a seat that may not know them."""

from __future__ import annotations

import json
import random

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import CHANCE, SIMULTANEOUS, ActionParseError, IllegalActionError, TextRejectedError
from arena_engines.two_rooms_and_a_boom import ANSWERS, CANNED_ANSWER, QUESTIONS

GAME = "two_rooms_and_a_boom"
SWAP = 16           # a setup swap's outcome id: room-0 player * 16 + room-1 player


def new_state(preset="gamebench", **overrides):
    return load_game(GAME, overrides, preset=preset).new_initial_state()


def act(state, player: int, action: int, message=None):
    """The one decision due now, by `player` (a player number, seat player - 1)."""
    actions = [0] * state.num_players
    actions[player - 1] = action
    messages = None
    if message is not None:
        messages = [None] * state.num_players
        messages[player - 1] = message
    state.apply_actions(actions, messages)


def set_up(state, president, bomber, leaders, swaps=()):
    state.apply_action(president)
    state.apply_action(bomber)
    for a, b in swaps:
        state.apply_action(a * SWAP + b)
    for leader in leaders:
        state.apply_action(leader)


def exchange(state, asker, target, question="q", answer="a"):
    act(state, asker, target)
    act(state, asker, 0, question)
    act(state, target, 0, answer)


def acting_player(state) -> int:
    (seat,) = state.current_players()
    return seat + 1


def mixed_rooms(rounds=1, preset="gamebench"):
    """6 players, one setup swap 3 <-> 4: room 0 = [1, 2, 4], room 1 = [5, 6, 3]. President 2, Bomber 6,
    Leaders 1 (Blue, room 0) and 5 (Red, room 1)."""
    state = new_state(preset, setup_swaps=1, rounds=rounds)
    set_up(state, 2, 6, (1, 5), swaps=[(3, 4)])
    return state


# ---- spec and parameters ---------------------------------------------------------------------------
def test_spec_presets_and_seat_sides():
    spec = game_spec(GAME)
    assert (spec.min_players, spec.max_players, spec.dynamics, spec.chance, spec.information, spec.utility,
            spec.min_utility, spec.max_utility, spec.dialogue, spec.accepts_text_actions) == (
        4, 10, "simultaneous", "stochastic", "imperfect", "constant_sum", 0.0, 1.0, True, True)
    assert [p.name for p in spec.presets] == ["gamebench", "gamebench_code"]
    game = load_game(GAME, preset="gamebench")
    assert game.parameters == {"players": 6, "rounds": 3, "setup_swaps": 20, "own_role_known": True}
    assert game.num_players == 6 and game.seat_sides() == [0, 0, 0, 1, 1, 1]
    assert load_game(GAME, preset="gamebench_code").parameters["own_role_known"] is False
    assert load_game(GAME, num_players=10).seat_sides() == [0] * 5 + [1] * 5


@pytest.mark.parametrize("overrides,players,message", [
    ({}, 5, "even"),
    ({}, 12, "4-10"),
    ({"rounds": 0}, 6, "rounds"),
    ({"rounds": 11}, 6, "rounds"),
    ({"setup_swaps": 51}, 6, "setup_swaps"),
    ({"setup_swaps": -1}, 6, "setup_swaps"),
    ({"own_role_known": 1}, 6, "true or false"),
])
def test_bad_parameters_are_refused(overrides, players, message):
    with pytest.raises(ValueError, match=message):
        load_game(GAME, overrides, num_players=players)


# ---- the setup -------------------------------------------------------------------------------------
def test_the_setup_draws_president_bomber_swaps_and_leaders_uniformly():
    state = new_state(setup_swaps=2)
    assert state.chance_outcomes() == [(1, pytest.approx(1 / 3)), (2, pytest.approx(1 / 3)), (3, pytest.approx(1 / 3))]
    state.apply_action(3)
    assert [a for a, _ in state.chance_outcomes()] == [4, 5, 6]
    state.apply_action(4)
    swaps = state.chance_outcomes()
    assert sorted(a for a, _ in swaps) == sorted(a * SWAP + b for a in (1, 2, 3) for b in (4, 5, 6))
    assert all(p == pytest.approx(1 / 9) for _, p in swaps)
    state.apply_action(2 * SWAP + 5)
    # GameBench's trade_card: each player leaves its list and joins the end of the other room's list.
    assert state.observation_dict(0)["setup_swaps"] == [[2, 5]]
    assert sorted(a for a, _ in state.chance_outcomes()) == sorted(a * SWAP + b for a in (1, 3, 5) for b in (4, 6, 2))
    state.apply_action(1 * SWAP + 2)
    assert [a for a, _ in state.chance_outcomes()] == [3, 5, 2]          # room 0 = [3, 5, 2], the Leader's draw
    state.apply_action(5)
    assert [a for a, _ in state.chance_outcomes()] == [4, 6, 1]
    state.apply_action(1)
    assert state.is_simultaneous_node() and state.current_players() == [2]   # player 3 opens room 0
    view = state.observation_dict(2)
    assert view["start_rooms"] == view["rooms"] == [[3, 5, 2], [4, 6, 1]]
    assert state.public_history() == [
        (CHANCE, -1, "the President is drawn in secret among Team Blue"),
        (CHANCE, -1, "the Bomber is drawn in secret among Team Red"),
        (CHANCE, 2 * SWAP + 5, "setup swap 1: player 2 (room 0) and player 5 (room 1) change rooms"),
        (CHANCE, 1 * SWAP + 2, "setup swap 2: player 1 (room 0) and player 2 (room 1) change rooms"),
        (CHANCE, -1, "a Leader is drawn in secret in room 0"),
        (CHANCE, -1, "a Leader is drawn in secret in room 1"),
    ]


def test_views_during_the_setup_show_only_its_progress_and_the_swaps():
    state = new_state(setup_swaps=2)
    state.apply_action(1)
    state.apply_action(4)
    state.apply_action(1 * SWAP + 4)
    for seat in range(6):
        view = state.observation_dict(seat)
        assert (view["phase"], view["role"], view["leader_of"], view["setup_step"], view["setup_steps"]) == (
            "setup", None, None, 3, 6)
        assert "being set up (3 of 6 steps done)" in state.observation_string(seat)
        assert "President." not in state.observation_string(seat)


# ---- hand-worked games -----------------------------------------------------------------------------
@pytest.mark.parametrize("red_hostage,returns,winner", [
    (5, [1, 1, 1, 0, 0, 0], "blue"),      # the President (2) goes to room 1, the Bomber (5) to room 0
    (6, [0, 0, 0, 1, 1, 1], "red"),       # the President joins the Bomber in room 1
])
def test_one_round_without_swaps_ends_with_the_hostages_deciding(red_hostage, returns, winner):
    state = new_state(setup_swaps=0, rounds=1)
    set_up(state, 2, 5, (1, 4))
    order = []
    for asker, target in ((1, 2), (2, 3), (3, 1), (4, 5), (5, 6), (6, 4)):
        order.append(acting_player(state))
        assert state.legal_actions(asker - 1) == sorted(c for c in ((1, 2, 3) if asker <= 3 else (4, 5, 6))
                                                        if c != asker)
        exchange(state, asker, target)
    assert order == [1, 2, 3, 4, 5, 6]
    assert state.current_players() == [0] and state.legal_actions(0) == [2, 3]      # Leader 1 first
    act(state, 1, 2)
    assert state.current_players() == [3] and state.legal_actions(3) == [5, 6]      # then Leader 4
    act(state, 4, red_hostage)
    assert state.is_terminal() and state.returns() == returns
    details = state.result_details()
    assert (details["winner"], details["president"], details["bomber"], details["leaders"]) == (winner, 2, 5, [1, 4])
    assert details["rooms"] == [[1, 3, red_hostage], [4, 11 - red_hostage, 2]]
    assert details["scores"] == {"blue": returns[0], "red": returns[3]}
    swap = f"round 1: the Leaders exchange hostages: player 2 goes from room 0 to room 1, player {red_hostage} from " \
           f"room 1 to room 0"
    assert state.public_history()[-1] == (SIMULTANEOUS, -1, swap)


def test_hostages_change_the_speaking_order_and_leaders_never_move():
    state = mixed_rooms(rounds=2)
    for asker, target in ((1, 4), (2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target)
    act(state, 1, 2)
    act(state, 5, 3)
    # Room 0 [1, 2, 4] -> [1, 4, 3]; room 1 [5, 6, 3] -> [5, 6, 2].
    view = state.observation_dict(0)
    assert view["rooms"] == [[1, 4, 3], [5, 6, 2]] and view["hostages"] == [[2, 3]] and view["round"] == 2
    for asker in (1, 4, 3, 5, 6, 2):
        assert acting_player(state) == asker
        target = state.legal_actions(asker - 1)[0]
        exchange(state, asker, target)
    assert state.legal_actions(0) == [3, 4] and state.legal_actions(4) == []
    act(state, 1, 4)
    assert state.legal_actions(4) == [2, 6]
    act(state, 5, 2)
    assert state.is_terminal()
    # President 2 back in room 0, Bomber 6 in room 1: Blue wins.
    assert state.result_details()["rooms"] == [[1, 3, 2], [5, 6, 4]] and state.returns() == [1, 1, 1, 0, 0, 0]


def test_illegal_choices_are_refused_and_leave_the_state_unchanged():
    state = mixed_rooms()
    before = (state.history(), state.observation_string(0))
    for player, action in ((1, 1), (1, 5), (1, 0), (2, 4)):     # itself, the other room, speaking, not its turn
        with pytest.raises(IllegalActionError):
            act(state, player, action)
    with pytest.raises(IllegalActionError):
        state.apply_action(2)
    assert (state.history(), state.observation_string(0)) == before
    for asker, target in ((1, 4), (2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target)
    with pytest.raises(IllegalActionError):
        act(state, 1, 1)                                      # a Leader may not send itself
    with pytest.raises(IllegalActionError):
        act(state, 5, 3)                                      # room 1's Leader waits for room 0's


# ---- reports to the Leaders ------------------------------------------------------------------------
def pairs(exchanges) -> list:
    return [(e["asker"], e["target"]) for e in exchanges]


def test_a_leader_hears_the_exchanges_its_non_leader_teammates_start_and_nothing_else():
    state = mixed_rooms()
    # Room 0 [1, 2, 4], Leader 1 (Blue); room 1 [5, 6, 3], Leader 5 (Red).
    for asker, target in ((1, 4), (2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target, f"question of {asker}", f"answer of {target} to {asker}")
    leader_0, leader_1 = state.observation_dict(0), state.observation_dict(4)
    # 2 -> 4 is reported (Blue non-leader); 4 -> 2 is not (a Red asker, even with a Blue answerer).
    assert pairs(leader_0["reports"]) == [(2, 4)]
    assert pairs(leader_1["reports"]) == [(6, 5)]             # 6 is Red; 3 -> 6 is Blue's
    assert leader_0["reports"][0] == {"round": 1, "room": 0, "asker": 2, "target": 4,
                                      "question": "question of 2", "answer": "answer of 4 to 2"}
    assert 'player 2 asked player 4 "question of 2"; player 4 answered "answer of 4 to 2".' in \
        state.observation_string(0)
    for seat in (1, 2, 3, 5):
        assert state.observation_dict(seat)["reports"] == [] and "Reports to you" not in state.observation_string(seat)
    # A report is not a message the Leader heard: its conversation holds only its own exchanges.
    assert {m["move"] for m in state.conversation(0)} == {m["move"] for m in state.messages()
                                                          if 0 in m["to"]}


def test_a_report_arrives_only_once_the_exchange_is_complete():
    state = mixed_rooms()
    exchange(state, 1, 4)
    act(state, 2, 4)
    act(state, 2, 0, "still waiting")
    assert state.observation_dict(0)["reports"] == []
    act(state, 4, 0, "done")
    assert [e["answer"] for e in state.observation_dict(0)["reports"]] == ["done"]


# ---- what each seat is told ------------------------------------------------------------------------
def test_each_seat_knows_its_team_role_and_leadership_and_nothing_of_the_others():
    state = mixed_rooms()
    roles = {1: "none", 2: "president", 3: "none", 4: "none", 5: "none", 6: "bomber"}
    for card in range(1, 7):
        view = state.observation_dict(card - 1)
        assert (view["player"], view["team"], view["role"]) == (card, "blue" if card <= 3 else "red", roles[card])
        assert view["leader_of"] == {1: 0, 5: 1}.get(card)
        text = state.observation_string(card - 1)
        assert ("You are the Leader" in text) == (card in (1, 5))
        assert view["president"] is None and view["bomber"] is None
    assert "on Team Blue; you are the President." in state.observation_string(1)
    assert "on Team Red; you are the Bomber." in state.observation_string(5)
    assert "on Team Red; you are neither the President nor the Bomber." in state.observation_string(3)


def test_the_code_preset_tells_nobody_its_role_until_the_end():
    state = mixed_rooms(preset="gamebench_code")
    for seat in range(6):
        assert state.observation_dict(seat)["role"] is None
        assert "President." not in state.observation_string(seat).splitlines()[1]
    assert "told its own team (not its role)" in state.observation_string(0)
    for asker, target in ((1, 4), (2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target)
    act(state, 1, 2)
    act(state, 5, 3)
    view = state.observation_dict(1)
    assert (view["role"], view["president"], view["bomber"], view["winner"]) == ("president", 2, 6, "red")
    assert "the President (player 2) is in room 1 and the Bomber (player 6) in room 1, so Red wins" in \
        state.observation_string(3)


def test_whom_a_player_questions_is_known_to_the_two_speakers_only():
    state = mixed_rooms()
    act(state, 1, 4)
    assert state.observation_dict(0)["current"]["target"] == 4
    assert "you chose to question player 4" in state.observation_string(0)
    for seat in range(1, 6):       # player 4 too: it has not been asked yet
        assert state.observation_dict(seat)["current"] == {"round": 1, "room": 0, "asker": 1, "target": None,
                                                           "question": None}
        assert state.observation_string(seat).endswith("player 1 is questioning a roommate.")
    act(state, 1, 0, "Are you Blue?")
    assert state.observation_dict(3)["current"]["target"] == 4
    assert state.observation_string(3).endswith('player 1 asks you "Are you Blue?". Your move: answer (your '
                                                'message; only you and player 1 hear it).')
    assert state.observation_string(0).endswith('you asked player 4 "Are you Blue?"; waiting for the answer.')
    # The public history says who questioned a roommate once it is over, never whom.
    history = state.public_history()
    assert history[-1] == (CHANCE, -1, "a Leader is drawn in secret in room 1")
    act(state, 4, 0, "Maybe.")
    assert state.public_history() == history + [(SIMULTANEOUS, -1, "round 1, room 0: player 1 questioned a roommate")]


def test_the_first_leaders_hostage_stays_secret_until_the_swap():
    state = mixed_rooms()
    for asker, target in ((1, 4), (2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target)
    before = {seat: state.observation_string(seat) for seat in range(1, 6)}
    history = state.public_history()
    act(state, 1, 4)
    assert state.observation_dict(0)["hostage_chosen"] == 4
    assert "you chose player 4 as your hostage" in state.observation_string(0)
    assert state.public_history() == history
    for seat in (1, 2, 3, 5):
        assert state.observation_string(seat) == before[seat]
    assert state.observation_dict(4)["to_act"] == "choose_hostage"


# ---- messages --------------------------------------------------------------------------------------
def test_questions_and_answers_are_required_private_and_checked():
    state = mixed_rooms()
    assert state.text_action_spec(0) == {"description": "the roommate to question: players 2 and 4; answer with the "
                                                        "number (e.g. 2)", "max_length": 1000, "forbidden_words": []}
    with pytest.raises(TextRejectedError, match="takes no message"):
        act(state, 1, 4, "hello")
    act(state, 1, 4)
    spec = state.text_action_spec(0)
    assert (spec["message"], spec["audience"], spec["max_length"], spec["forbidden_words"]) == ("required", [0, 3],
                                                                                                 1000, [])
    assert spec["example"] in QUESTIONS and state.legal_actions(0) == [0]
    assert state.action_to_string(0, 0) == "ask your question"
    before = (state.history(), state.messages(), state.observation_string(0))
    with pytest.raises(TextRejectedError, match="needs a message"):
        act(state, 1, 0)
    with pytest.raises(TextRejectedError, match="limit is 1000"):
        act(state, 1, 0, "x" * 1001)
    assert (state.history(), state.messages(), state.observation_string(0)) == before
    act(state, 1, 0, "  Which team?  ")
    assert state.messages()[-1] == {"move": state.move_number - 1, "seat": 0, "text": "Which team?", "to": [0, 3]}
    assert state.action_to_string(3, 0) == "answer the question"
    assert state.text_action_spec(3)["example"] in ANSWERS
    act(state, 4, 0, "")                                       # GameBench accepted empty responses
    for seat in (1, 2, 4, 5):
        assert state.conversation(seat) == []
    heard = [m["text"] for m in state.conversation(0)]
    assert heard == [m["text"] for m in state.conversation(3)] == ["Which team?", ""]


def test_defaults_are_gamebenchs_canned_answer_and_a_random_legal_choice():
    state = mixed_rooms()
    assert state.default_action(0) is None and state.default_message(0) is None
    act(state, 1, 4)
    assert state.default_action(0) == 0 and state.default_message(0) is None       # no fallback question
    assert state.random_message(0, random.Random(1)) in QUESTIONS
    act(state, 1, 0, "q")
    assert CANNED_ANSWER == "I can't answer that right now."
    assert state.default_action(3) == 0 and state.default_message(3) == CANNED_ANSWER
    assert state.random_message(3, random.Random(1)) in ANSWERS
    assert state.default_action(0) is None and state.default_message(0) is None     # not its decision


@pytest.mark.parametrize("text,expected", [
    ("4", 4), (" 2. ", 2), ("player 4", 4), ("Player #2", 2), ("card 4", 4),
    ('{"action": "4", "openended_response": null}', 4), ('{"action": 2}', 2),
    ("I first thought of player 2, but I choose player 4", 4),
])
def test_parse_action_reads_a_player_number(text, expected):
    state = mixed_rooms()
    assert state.parse_action(0, text) == expected


@pytest.mark.parametrize("text,message", [
    ("hello", "could not read a player"), ("9", "there is no player 9"), ("player 1234", "could not read"),
    ("", "could not read"), ('{"action": "openended"}', "could not read"),
])
def test_parse_action_refuses_garbage_with_the_expected_format(text, message):
    state = mixed_rooms()
    with pytest.raises(ActionParseError, match=message) as refused:
        state.parse_action(0, text)
    assert "answer with the number" in str(refused.value)
    with pytest.raises(ActionParseError, match="no decision"):
        state.parse_action(1, "2")


def test_read_reply_takes_gamebenchs_openended_response_or_the_whole_reply():
    state = mixed_rooms()
    act(state, 1, 4)
    reply = 'Thinking... {"action": "openended", "openended_response": "Are you \\"Blue\\"?"}'
    assert state.read_reply(0, reply) == (0, 'Are you "Blue"?')
    assert state.read_reply(0, "  Are you the Bomber?\n") == (0, "Are you the Bomber?")
    assert state.parse_action(0, "anything at all") == 0
    # A choice of roommate is read by parse_action.
    other = mixed_rooms()
    assert other.read_reply(0, "player 2")[0] == 2


# ---- a separate implementation of GameBench's loop ------------------------------------------------
def gamebench_loop(n: int, swaps: int, rounds: int):
    """GameBench's Two Rooms and a Boom, written after its loop with plain lists: a generator yielding
    ("chance", outcomes), ("choose", player, options) and ("speak", player); it is sent the outcome or
    choice, and returns (Red wins, rooms, leaders, reports as (leader, asker, target))."""
    rooms = [list(range(1, n + 1)), list(range(n + 1, 2 * n + 1))]

    def trade(a, b):
        rooms[0].append(b)
        rooms[1].append(a)
        rooms[0].remove(a)
        rooms[1].remove(b)

    president = yield ("chance", list(range(1, n + 1)))
    bomber = yield ("chance", list(range(n + 1, 2 * n + 1)))
    for _ in range(swaps):
        code = yield ("chance", [a * SWAP + b for a in rooms[0] for b in rooms[1]])
        trade(code // SWAP, code % SWAP)
    leaders = []
    for room in (0, 1):
        leaders.append((yield ("chance", list(rooms[room]))))
    reports = []
    for _ in range(rounds):
        for room in (0, 1):
            for card in list(rooms[room]):
                target = yield ("choose", card, sorted(c for c in rooms[room] if c != card))
                yield ("speak", card)
                yield ("speak", target)
                leader = leaders[room]
                if card != leader and (card <= n) == (leader <= n):
                    reports.append((leader, card, target))
        hostages = []
        for room in (0, 1):
            hostages.append((yield ("choose", leaders[room], sorted(c for c in rooms[room] if c != leaders[room]))))
        trade(*hostages)
    where = {c: r for r in (0, 1) for c in rooms[r]}
    return where[president] == where[bomber], rooms, leaders, reports


@pytest.mark.parametrize("players,swaps,rounds", [(6, 20, 3), (4, 3, 2), (10, 5, 2), (8, 0, 1)])
def test_random_playouts_follow_gamebenchs_loop(players, swaps, rounds):
    game = load_game(GAME, {"setup_swaps": swaps, "rounds": rounds}, num_players=players)
    n = players // 2
    for seed in range(25):
        rng = random.Random(seed)
        state = game.new_initial_state()
        loop = gamebench_loop(n, swaps, rounds)
        step = next(loop)
        try:
            while True:
                if step[0] == "chance":
                    assert state.is_chance_node() and sorted(a for a, _ in state.chance_outcomes()) == sorted(step[1])
                    choice = rng.choice(step[1])
                    state.apply_action(choice)
                else:
                    player = step[1]
                    assert state.is_simultaneous_node() and state.current_players() == [player - 1]
                    expected = step[2] if step[0] == "choose" else [0]
                    assert state.legal_actions(player - 1) == expected
                    choice = rng.choice(expected)
                    act(state, player, choice, rng.choice(QUESTIONS) if step[0] == "speak" else None)
                step = loop.send(choice)
        except StopIteration as finished:
            red_wins, rooms, leaders, reports = finished.value
        assert state.is_terminal()
        assert state.returns() == [float(red_wins != (seat < n)) for seat in range(players)]
        details = state.result_details()
        assert details["rooms"] == rooms and details["leaders"] == leaders
        engine_reports = [(leader, e["asker"], e["target"]) for leader in leaders
                          for e in state.observation_dict(leader - 1)["reports"]]
        assert sorted(engine_reports) == sorted(reports)
        reported = [(e["reported_to"], e["asker"], e["target"]) for e in details["exchanges"] if e["reported_to"]]
        assert reported == reports


# ---- hidden information ----------------------------------------------------------------------------
def random_playout(seed: int, preset="gamebench", **overrides):
    """(states at each decision, final state) of one random game whose every message is unique."""
    state = load_game(GAME, overrides, preset=preset).new_initial_state()
    rng = random.Random(seed)
    points = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.step_randomly(rng)
            continue
        points.append(state.clone())
        (seat,) = state.current_players()
        action = rng.choice(state.legal_actions(seat))
        spec = state.text_action_spec(seat)
        act(state, seat + 1, action, f"secret words {state.move_number}" if spec.get("message") else None)
    return points, state


def test_no_private_words_reach_a_seat_outside_the_exchange_or_its_leaders_reports():
    checked = 0
    for seed in range(8):
        points, final = random_playout(seed)
        exchanges = final.result_details()["exchanges"]
        for state in points[::2] + [final]:
            said = {m["text"]: m for m in state.messages()}
            done = {(e["round"], e["asker"]) for e in state.result_details()["exchanges"] if e["answer"] is not None}
            for seat in range(6):
                shown = (state.observation_string(seat) + json.dumps(state.observation_dict(seat))
                         + json.dumps(state.public_history()))
                for e in exchanges:
                    speakers = sorted([e["asker"] - 1, e["target"] - 1])
                    reported = e["reported_to"] == seat + 1 and (e["round"], e["asker"]) in done
                    for text in (e["question"], e["answer"]):
                        if text in said:
                            assert said[text]["to"] == speakers
                            assert (f'"{text}"' in shown) == (seat in speakers or reported), (seed, seat, e)
                            checked += 1
    assert checked > 10000


def test_a_seats_view_is_unchanged_when_everything_hidden_from_it_is_redrawn():
    redrawn_presidents, redrawn_leaders = set(), set()
    for seed in range(6):
        points, final = random_playout(seed)
        for state in points[::3] + [final]:
            for seat in range(6):
                view = (state.observation_string(seat), state.observation_dict(seat), state.public_history(),
                        state.legal_actions(seat))
                for sample in range(4):
                    other = state.resample_hidden(seat, sample)
                    assert (other.observation_string(seat), other.observation_dict(seat), other.public_history(),
                            other.legal_actions(seat)) == view
                    details = other.result_details()
                    assert details["president"] in (1, 2, 3) and details["bomber"] in (4, 5, 6)
                    own_role = state.observation_dict(seat)["role"]
                    if own_role == "none":
                        assert seat + 1 not in (details["president"], details["bomber"])
                    moved = {c for pair in details["hostages"] for c in pair}
                    assert not moved & set(details["leaders"])
                    for room in (0, 1):
                        assert details["leaders"][room] in details["start_rooms"][room]
                    if seat == 4 and not state.is_terminal():
                        redrawn_presidents.add(details["president"])
                        redrawn_leaders.add(tuple(details["leaders"]))
    assert redrawn_presidents == {1, 2, 3} and len(redrawn_leaders) > 3
    state = points[5]
    assert state.resample_hidden(0, 7).result_details() == state.resample_hidden(0, 7).result_details()


def test_resampling_redraws_a_pending_target_and_hostage_only_for_those_who_do_not_know_them():
    state = mixed_rooms()
    act(state, 1, 4)                                           # room 0 = [1, 2, 4]
    targets = {state.resample_hidden(seat, s).observation_dict(0)["current"]["target"]
               for seat in (2, 4) for s in range(20)}
    assert targets == {2, 4}                                   # the asker's choice is unknown to them ...
    assert {state.resample_hidden(0, s).observation_dict(0)["current"]["target"] for s in range(20)} == {4}
    act(state, 1, 0, "q")
    # ... and once asked, player 4 knows; player 2 knows it was not asked.
    assert {state.resample_hidden(3, s).observation_dict(3)["current"]["target"] for s in range(20)} == {4}
    assert {state.resample_hidden(1, s).observation_dict(0)["current"]["target"] for s in range(20)} == {4}
    act(state, 4, 0, "a")
    for asker, target in ((2, 4), (4, 2), (5, 3), (6, 5), (3, 6)):
        exchange(state, asker, target)
    act(state, 1, 2)
    choices = set()
    for s in range(40):
        other = state.resample_hidden(4, s)                    # the second Leader does not know the choice
        leader = other.result_details()["leaders"][0]
        choices.add((leader, other.observation_dict(leader - 1)["hostage_chosen"]))
    assert all(leader != hostage for leader, hostage in choices)
    assert {hostage for _, hostage in choices} == {1, 2, 4}
    assert {state.resample_hidden(0, s).observation_dict(0)["hostage_chosen"] for s in range(10)} == {2}


def test_state_from_view_rebuilds_every_seats_view_and_conversation():
    for preset in ("gamebench", "gamebench_code"):
        for seed in range(4):
            points, final = random_playout(seed, preset, players=4 if seed % 2 else 6)
            game = load_game(GAME, {"players": 4 if seed % 2 else 6}, preset=preset)
            for state in points + [final]:
                for seat in range(state.num_players):
                    view = state.observation_dict(seat)
                    rebuilt = game.state_from_view(seat, view)
                    assert rebuilt.observation_dict(seat) == view
                    assert rebuilt.observation_string(seat) == state.observation_string(seat)
                    assert rebuilt.current_player() == state.current_player()
                    assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
                    assert rebuilt.public_history() == state.public_history()


# ---- replay, clones ----------------------------------------------------------------------------------
def test_a_match_replays_exactly_from_its_moves_and_words():
    _, final = random_playout(11)
    words = {m["move"]: (m["seat"], m["text"]) for m in final.messages()}
    replayed = load_game(GAME, preset="gamebench").new_initial_state()
    for move, (seat, action) in enumerate(final.history()):
        if seat == CHANCE:
            replayed.apply_action(action)
            continue
        messages = None
        if move in words:
            messages = [None] * 6
            messages[words[move][0]] = words[move][1]
        replayed.apply_actions(list(action), messages)
    assert replayed.returns() == final.returns() and replayed.messages() == final.messages()
    assert replayed.result_details() == final.result_details()
    for seat in range(6):
        assert replayed.conversation(seat) == final.conversation(seat)
        assert replayed.observation_string(seat) == final.observation_string(seat)


def test_clones_are_independent():
    state = mixed_rooms()
    act(state, 1, 4)
    copy = state.clone()
    act(copy, 1, 0, "only in the copy")
    act(copy, 4, 0, "an answer")
    assert state.observation_dict(0)["to_act"] == "ask" and state.messages() == []
    assert copy.observation_dict(3)["exchanges"][0]["question"] == "only in the copy"
    act(state, 1, 0, "in the original")
    assert copy.messages()[0]["text"] == "only in the copy" and state.messages()[0]["text"] == "in the original"
