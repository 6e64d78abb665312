"""Battle Royale: turn order and eliminations, hit rolls, wasted shots and intentional misses, the turn
cap and shared wins, GAMA-Bench's S7 score, the answer parser, views, cloning, rebuilding from a view,
the log converter, parameters and presets."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_engines import game_spec, load_game
from arena_engines.battle_royale import (HIT, INTENTIONAL_MISS, MISSED, WASTED_SHOT, gamabench_history,
                                         gamabench_score)
from arena_engines.core import CHANCE, ActionParseError, IllegalActionError
from arena_engines.mcts import MCTSBot

GAME = "battle_royale"


def make(players=3, preset="gamabench", **parameters):
    return load_game(GAME, {"players": players, **parameters}, preset=preset).new_initial_state()


def play(state, moves):
    """Applies moves: a seat id or INTENTIONAL_MISS / WASTED_SHOT for the shooter, then "hit" or
    "miss" for the roll that a shot at a living opponent needs."""
    for move in moves:
        if move == "hit":
            assert state.is_chance_node()
            state.apply_action(HIT)
        elif move == "miss":
            assert state.is_chance_node()
            state.apply_action(MISSED)
        else:
            assert not state.is_chance_node()
            state.apply_action(move)
    return state


def sample_chance(state, rng):
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]


# ---- rules -----------------------------------------------------------------------------------------
def test_a_hand_played_truel():
    # Hit rates 35, 40, 45 %. Seat 0 misses on purpose; seat 1 shoots seat 2 and misses; seat 2 hits
    # seat 1; seat 0 (next living after seat 2, cyclically) shoots seat 2 and hits: seat 0 survives.
    state = make(3)
    assert state.current_player() == 0 and state.legal_actions() == [1, 2, INTENTIONAL_MISS, WASTED_SHOT]
    play(state, [INTENTIONAL_MISS])
    assert state.current_player() == 1
    play(state, [2, "miss"])
    assert state.current_player() == 2 and state.legal_actions() == [0, 1, INTENTIONAL_MISS, WASTED_SHOT]
    play(state, [1])
    assert state.is_chance_node() and state.chance_outcomes() == [(MISSED, pytest.approx(0.55)),
                                                                  (HIT, pytest.approx(0.45))]
    play(state, ["hit"])
    assert state.current_player() == 0 and state.legal_actions() == [2, INTENTIONAL_MISS, WASTED_SHOT]
    play(state, [2, "hit"])
    assert state.is_terminal() and state.returns() == [1.0, 0.0, 0.0]
    details = state.result_details()
    assert [(t["shooter"], t["action"], t["target"], t["hit"], t["players_left"], t["alive_before"])
            for t in details["turns"]] == [
        (0, "miss", None, None, 3, [0, 1, 2]),
        (1, "shoot", 2, False, 3, [0, 1, 2]),
        (2, "shoot", 1, True, 2, [0, 1, 2]),
        (0, "shoot", 2, True, 1, [0, 2]),
    ]
    assert details["eliminated_in_turn"] == [None, 3, 4]
    assert details["winner"] == 0 and details["survivors"] == [0] and not details["turn_limit_reached"]
    # Correct turns: seat 1 shot seat 2 (strongest other); seat 2 is the strongest, so its correct target
    # is seat 1, the second strongest; seat 0's last shot at seat 2 is correct; the miss is not: 3 of 4.
    assert details["gamabench"] == {"S7": 0.75, "score": 75.0, "correct_turns": 3, "turns": 4}
    assert state.result_summary() == "player_0 is the sole survivor after 4 turns and wins; GAMA-Bench score 75.00"


def test_the_next_shooter_skips_eliminated_players_and_wraps_around():
    state = make(5)
    play(state, [4, "hit"])                 # seat 0 eliminates seat 4
    play(state, [2, "hit"])                 # seat 1 eliminates seat 2, the next shooter
    assert state.current_player() == 3
    play(state, [INTENTIONAL_MISS])         # seat 3; seat 4 is gone, so seat 0 shoots next
    assert state.current_player() == 0
    play(state, [WASTED_SHOT])
    assert state.current_player() == 1
    play(state, [0, "hit"])
    assert state.current_player() == 3      # seat 0 is gone: seat 1 -> 3 -> 1
    play(state, [INTENTIONAL_MISS])
    assert state.current_player() == 1


def test_the_turn_cap_ends_the_game_and_the_survivors_share_the_win():
    state = make(4, max_turns=3)
    play(state, [3, "hit", INTENTIONAL_MISS, 0, "miss"])
    assert state.is_terminal() and state.current_players() == [] and state.legal_actions() == []
    assert state.returns() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    details = state.result_details()
    assert details["turn_limit_reached"] and details["winner"] is None and details["survivors"] == [0, 1, 2]
    assert "the 3-turn limit was reached with 3 survivors (player_0, player_1, player_2)" in state.result_summary()
    with pytest.raises(IllegalActionError):
        state.apply_action(INTENTIONAL_MISS)


def test_returns_are_zero_before_the_end():
    state = play(make(3), [1, "hit"])
    assert not state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]


def test_a_wasted_shot_or_an_intentional_miss_has_no_roll():
    for action in (INTENTIONAL_MISS, WASTED_SHOT):
        state = make(3)
        state.apply_action(action)
        assert not state.is_chance_node() and state.current_player() == 1
        assert state.history() == [(0, action)]


@pytest.mark.parametrize("preset,first,last", [("gamabench", 35, 80), ("gamabench_h51_60", 51, 60),
                                               ("gamabench_h10_100", 10, 100)])
def test_hit_rates_of_the_presets_and_the_roll_probabilities(preset, first, last):
    game = load_game(GAME, preset=preset)
    state = game.new_initial_state()
    rates = state.observation_dict(0)["hit_rates"]
    assert len(rates) == 10 and rates[0] == first and rates[-1] == last
    assert rates == sorted(rates) and len(set(rates)) == 10
    for seat in range(10):
        assert state.current_player() == seat
        state.apply_action((seat + 1) % 10)
        outcomes = dict(state.chance_outcomes())
        rate = rates[seat] / 100
        assert outcomes == ({HIT: pytest.approx(1.0)} if rate == 1 else
                            {MISSED: pytest.approx(1 - rate), HIT: pytest.approx(rate)})
        state.apply_action(MISSED if MISSED in outcomes else HIT)
        if state.is_terminal():
            break


def test_certain_and_impossible_hits_list_only_the_possible_outcome():
    state = make(2, base_hit_rate=0, hit_rate_step=100)      # seat 0 never hits, seat 1 always does
    state.apply_action(1)
    assert state.chance_outcomes() == [(MISSED, 1.0)]
    with pytest.raises(IllegalActionError):
        state.apply_action(HIT)
    state.apply_action(MISSED)
    state.apply_action(0)
    assert state.chance_outcomes() == [(HIT, 1.0)]
    state.apply_action(HIT)
    assert state.is_terminal() and state.returns() == [0.0, 1.0]


def test_illegal_actions_are_refused():
    state = play(make(4), [1, "hit"])       # seat 1 is out; seat 2 shoots
    for action in (2, 1, -1, 4, 99, 102):   # itself, an eliminated seat, out of range
        assert not state.is_legal(2, action)
        with pytest.raises(IllegalActionError):
            state.clone().apply_action(action)
    assert not state.is_legal(3, INTENTIONAL_MISS)     # not its turn
    state.apply_action(3)
    with pytest.raises(IllegalActionError):
        state.apply_action(INTENTIONAL_MISS)           # a roll is pending
    with pytest.raises(IllegalActionError):
        state.apply_action(7)


def test_clones_are_independent():
    state = play(make(4), [1, "hit", INTENTIONAL_MISS])
    clone = state.clone()
    play(clone, [0, "hit", 3, "hit"])
    assert clone.is_terminal() and not state.is_terminal()
    assert state.current_player() == 3 and state.legal_actions() == [0, 2, INTENTIONAL_MISS, WASTED_SHOT]
    assert len(state.history()) == 3 and state.observation_dict(0)["alive"] == [0, 2, 3]
    # A clone taken while a roll is pending keeps the pending shot.
    state.apply_action(0)
    pending = state.clone()
    assert pending.is_chance_node() and pending.observation_dict(1)["pending_target"] == 0
    pending.apply_action(HIT)
    assert state.is_chance_node() and state.observation_dict(0)["alive"] == [0, 2, 3]


# ---- an independent reference of the rules ---------------------------------------------------------
class Reference:
    """Battle Royale written again, plainly: who shoots, who is alive, when it ends, returns, S7."""

    def __init__(self, rates, max_turns):
        self.rates, self.max_turns = rates, max_turns
        self.alive = list(range(len(rates)))
        self.shooter, self.turns, self.correct = 0, 0, 0

    def over(self):
        return len(self.alive) == 1 or self.turns == self.max_turns

    def turn(self, target, hit):
        """target: a seat, or None for a miss on purpose or a wasted shot."""
        if target is not None:
            strongest = max((s for s in self.alive if s != self.shooter), key=lambda s: self.rates[s])
            self.correct += target == strongest
        if hit:
            self.alive.remove(target)
        later = [s for s in self.alive if s > self.shooter]
        self.shooter = later[0] if later else self.alive[0]
        self.turns += 1

    def returns(self):
        return [1 / len(self.alive) if s in self.alive else 0.0 for s in range(len(self.rates))]


@pytest.mark.parametrize("preset", [p.name for p in game_spec(GAME).presets])
def test_random_playouts_follow_the_reference_rules(preset):
    for seed in range(60):
        rng = random.Random(seed)
        players = rng.randint(2, 10)
        max_turns = rng.choice([1, 5, 20, 60])
        game = load_game(GAME, {"players": players, "max_turns": max_turns}, preset=preset)
        state = game.new_initial_state()
        rates = state.observation_dict(0)["hit_rates"]
        reference = Reference(rates, max_turns)
        while not reference.over():
            assert state.current_player() == reference.shooter
            assert state.legal_actions() == [s for s in reference.alive if s != reference.shooter] + [
                INTENTIONAL_MISS, WASTED_SHOT]
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            hit = False
            if action < players:
                assert state.is_chance_node()
                roll = sample_chance(state, rng)
                state.apply_action(roll)
                hit = roll == HIT
            reference.turn(action if action < players else None, hit)
            assert state.observation_dict(seed % players)["alive"] == reference.alive
        assert state.is_terminal() and state.returns() == pytest.approx(reference.returns())
        assert sum(state.returns()) == pytest.approx(1.0)
        assert state.move_number <= 2 * max_turns
        score = state.result_details()["gamabench"]
        assert (score["correct_turns"], score["turns"]) == (reference.correct, reference.turns)
        assert score["score"] == pytest.approx(100 * reference.correct / reference.turns)


@pytest.mark.parametrize("players", [3, 4])
def test_mcts_at_one_seat_survives_more_than_its_share_against_random_players(players):
    # The registry-wide MCTS test pits two seats; here one searching seat plays N - 1 random ones.
    game = load_game(GAME, {"players": players})
    total = 0.0
    for seed in range(60):
        seat, rng = seed % players, random.Random(seed)
        bot = MCTSBot(game, simulations=300, seed=seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            elif state.current_player() == seat:
                state.apply_action(bot.step(state, seat))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        total += state.returns()[seat]
    assert total / 60 > 1.3 / players, total / 60


# ---- GAMA-Bench scoring ----------------------------------------------------------------------------
def details_of(turns):
    return {"turns": [{"shooter": s, "action": a, "target": t, "alive_before": alive}
                      for s, a, t, alive in turns]}


PARAMETERS = {"players": 4, "base_hit_rate": 35, "hit_rate_step": 5, "max_turns": 20}


def test_s7_counts_shots_at_the_strongest_living_other_player():
    turns = [
        (0, "shoot", 3, [0, 1, 2, 3]),      # strongest other: 3, correct
        (1, "shoot", 2, [0, 1, 2, 3]),      # wrong
        (3, "shoot", 2, [0, 1, 2, 3]),      # the strongest shoots the second strongest: correct
        (0, "miss", None, [0, 1, 2]),       # an intentional miss never counts
        (1, "wasted", None, [0, 1, 2]),     # nor a wasted shot
        (2, "shoot", 1, [0, 1, 2]),         # 3 is gone, 2 is the strongest: 1 is correct
        (0, "shoot", 2, [0, 1, 2]),         # correct
    ]
    result = gamabench_score(PARAMETERS, details_of(turns))
    assert result == {"S7": 4 / 7, "score": pytest.approx(400 / 7), "correct_turns": 4, "turns": 7}


def test_s7_reads_the_hit_rates_from_the_parameters():
    turns = [(0, "shoot", 3, [0, 1, 2, 3])]
    assert gamabench_score(PARAMETERS, details_of(turns))["score"] == 100.0
    assert gamabench_score({**PARAMETERS, "base_hit_rate": 60, "hit_rate_step": 10}, details_of(turns))["S7"] == 1.0


def test_gamabench_score_refuses_switches_and_empty_runs():
    with pytest.raises(TypeError, match="no scoring switches"):
        gamabench_score(PARAMETERS, details_of([(0, "shoot", 3, [0, 1, 2, 3])]), dollar_clip=False)
    with pytest.raises(ValueError):
        gamabench_score(PARAMETERS, {"turns": []})


def test_the_state_scores_itself_with_the_module_scorer():
    state = play(make(4), [3, "miss", 3, "hit", WASTED_SHOT])
    details = state.result_details()
    assert details["gamabench"] == gamabench_score(state.game.parameters, details) == state.gamabench_score()
    assert details["gamabench"]["correct_turns"] == 2     # seat 0 and seat 1 shot seat 3, the strongest


# ---- the released-log converter ------------------------------------------------------------------
def synthetic_log():
    """A made-up log in the released layout (3 players, hit rates 50/60/70)."""
    def turn(shooter, action, shot, out, alive):
        return {"player_shooting": str(shooter), "action": action, "shot_player": shot, "out": out,
                "responses": [shot], "initial_players": [[f"player_{s}", 50 + 10 * s] for s in alive]}
    return {"meta": {"player_num": 3, "base_hit_rate": 50, "interval": 10},
            "round_records": [turn(0, "miss", "null", False, [0, 1, 2]),
                              turn(1, "shoot", "2", True, [0, 1, 2]),
                              turn(0, "shoot", "2", False, [0, 1]),    # an eliminated target: wasted
                              turn(1, "shoot", "0", False, [0, 1])]}


def test_gamabench_history_converts_a_log():
    parameters, history = gamabench_history(synthetic_log())
    assert parameters == {"players": 3, "base_hit_rate": 50, "hit_rate_step": 10, "max_turns": 20}
    assert history == [(0, INTENTIONAL_MISS), (1, 2), (CHANCE, HIT), (0, WASTED_SHOT), (1, 0), (CHANCE, MISSED)]
    state = load_game(GAME, parameters).replay(history)
    assert [t["action"] for t in state.result_details()["turns"]] == ["miss", "shoot", "wasted", "shoot"]
    assert state.current_player() == 0


def test_gamabench_history_refuses_unknown_actions():
    log = synthetic_log()
    log["round_records"][0]["action"] = "reload"
    with pytest.raises(ValueError, match="reload"):
        gamabench_history(log)


# ---- parsing ---------------------------------------------------------------------------------------
@pytest.fixture
def midgame():
    """5 players; seat 1 eliminated; seat 3 to shoot."""
    return play(make(5), [1, "hit", INTENTIONAL_MISS])


@pytest.mark.parametrize("text,expected", [
    ('{"target": "player_4"}', 4),                                  # the paper's format
    ('{"action": "shoot", "target": "4"}', 4),                      # the released code's
    ('{"target": 0}', 0),
    ('{"target": 2.0}', 2),
    ('I will aim at the strongest.\n{"target": "Player_4"}\nGood luck!', 4),
    ("{'target': 'player_2'}", 2),                                  # single quotes: key-by-key reading
    ('{"target": player_4, }', 4),
    ('{"target": null}', INTENTIONAL_MISS),
    ('{"target": "null"}', INTENTIONAL_MISS),
    ('{"target": "None"}', INTENTIONAL_MISS),
    ('{"target": "-1"}', INTENTIONAL_MISS),
    ('{"target": -1}', INTENTIONAL_MISS),
    ('{"action": "miss", "target": "null"}', INTENTIONAL_MISS),
    ('{"action": "miss", "target": "4"}', INTENTIONAL_MISS),        # the action says miss
    ('{"action": "shoot", "target": null}', INTENTIONAL_MISS),      # null target = miss
    ("{'action': 'miss'}", INTENTIONAL_MISS),
    ('{"target": "player_1"}', WASTED_SHOT),                        # eliminated
    ('{"target": "player_3"}', WASTED_SHOT),                        # itself
    ('{"target": "player_7"}', WASTED_SHOT),                        # no such player
    ('{"target": "the strongest one"}', WASTED_SHOT),               # an unknown name
    ('{"target": true}', WASTED_SHOT),
    ("shoot player_4", 4),                                          # canonical texts
    ("intentional miss", INTENTIONAL_MISS),
    ("wasted shot", WASTED_SHOT),
    ("player_2", 2),
    (" 4 ", 4),
    ("Player 0.", 0),
    ("miss", INTENTIONAL_MISS),
    ("null", INTENTIONAL_MISS),
    ("player_9", WASTED_SHOT),
])
def test_answers_are_read(midgame, text, expected):
    assert midgame.parse_action(3, text) == expected


@pytest.mark.parametrize("text", [
    "", "I am not sure.", "shoot", '{"action": "shoot"}', '{"target": "playerID_or_null"}',
    '{"action": "shoot_or_miss", "target": "playerID_or_null"}', "{}", '{"choice": 4}', "player_", "4 5",
])
def test_unreadable_answers_raise_with_the_expected_format(midgame, text):
    with pytest.raises(ActionParseError, match=r'\{"target": "player_3"\}'):
        midgame.parse_action(3, text)


def test_every_legal_action_text_parses_back(midgame):
    for action in midgame.legal_actions(3):
        assert midgame.parse_action(3, midgame.action_to_string(3, action)) == action


@settings(max_examples=80, deadline=None)
@given(seat=st.integers(-5, 20), spelling=st.sampled_from(["player_{}", "Player {}", "{}", "player-{}"]),
       quoted=st.booleans())
def test_any_seat_name_is_a_shot_at_a_living_opponent_or_wasted(seat, spelling, quoted):
    state = play(make(5), [1, "hit", INTENTIONAL_MISS])
    value = json.dumps(spelling.format(seat)) if quoted or not spelling == "{}" else str(seat)
    action = state.parse_action(3, '{"target": ' + value + "}")
    if seat == -1 and spelling == "{}":
        assert action == INTENTIONAL_MISS          # "-1" and -1 mean no target; "player_-1" names nobody
    elif seat in (0, 2, 4):
        assert action == seat
    else:
        assert action == WASTED_SHOT


def test_action_texts():
    state = make(3)
    assert [state.action_to_string(0, a) for a in state.legal_actions(0)] == [
        "shoot player_1", "shoot player_2", "intentional miss", "wasted shot"]
    assert (state.action_to_string(CHANCE, HIT), state.action_to_string(CHANCE, MISSED)) == ("hit", "miss")
    for action in (-1, 3, 102):
        with pytest.raises(ValueError):
            state.action_to_string(0, action)
    with pytest.raises(ValueError):
        state.action_to_string(CHANCE, 2)


def test_default_action_and_text_spec_belong_to_the_shooter():
    state = make(3)
    assert state.default_action(0) == INTENTIONAL_MISS and state.default_action(1) is None
    assert state.text_action_spec(0)["max_length"] == 4000 and state.text_action_spec(0)["forbidden_words"] == []
    assert state.text_action_spec(1) is None
    state.apply_action(2)
    assert state.default_action(0) is None and state.text_action_spec(0) is None     # the roll is pending


# ---- views -----------------------------------------------------------------------------------------
def test_observation_text_states_the_rules_the_order_and_each_turn():
    state = play(make(3), [INTENTIONAL_MISS, 2, "miss", WASTED_SHOT, 1, "hit"])
    text = state.observation_string(2)
    assert "after 20 turns" in text
    assert "Players in shooting order: player_0 (35%), player_1 (40%, eliminated), player_2 (45%)." in text
    assert "You are player_2: your hit rate is 45% and you are the 3rd to shoot." in text
    assert "Turn 1: player_0 missed on purpose. 3 players left." in text
    assert "Turn 2: player_1 shot at player_2 and missed. 3 players left." in text
    assert "Turn 3: player_2 aimed at no living opponent; the shot was wasted. 3 players left." in text
    assert "Turn 4: player_0 shot at player_1 and hit; player_1 is eliminated. 2 players left." in text
    assert text.endswith("Turn 5 of 20: your turn. You can shoot at player_0 (35%), or miss on purpose.")
    assert state.observation_string(1).endswith("Turn 5 of 20: player_2 is to shoot; you are out of the game.")
    state.apply_action(0)
    assert state.observation_string(1).endswith("player_2 shoots at player_0; the shot is being resolved.")
    state.apply_action(HIT)
    assert state.observation_string(1).endswith(
        "The game is over: player_2 is the sole survivor after 5 turns and wins; you were eliminated in turn 4.")
    assert state.observation_string(2).endswith("you survived.")


def test_observation_data():
    state = play(make(4), [3, "hit", 2])
    view = state.observation_dict(1)
    assert view == {
        "seat": 1, "name": "player_1", "players": 4, "hit_rates": [35, 40, 45, 50], "my_hit_rate": 40,
        "my_position": 2, "alive": [0, 1, 2], "players_left": 3, "max_turns": 20, "turns_played": 1,
        "turn": 2, "to_shoot": 1, "pending_target": 2, "my_turn": False,
        "past_turns": [{"turn": 1, "shooter": 0, "action": "shoot", "target": 3, "hit": True, "players_left": 3}],
        "finished": False, "survivors": None, "history": [[0, 3], [CHANCE, HIT], [1, 2]],
    }


def test_every_seat_sees_the_same_game():
    # Perfect information: two seats' views differ only in the seat's own fields.
    rng = random.Random(4)
    state = make(5)
    own = {"seat", "name", "my_hit_rate", "my_position", "my_turn"}
    while not state.is_terminal():
        views = [state.observation_dict(s) for s in range(5)]
        shared = [{k: v for k, v in view.items() if k not in own} for view in views]
        assert all(view == shared[0] for view in shared)
        assert state.resample_hidden(0, 7).observation_dict(3) == views[3]
        state.apply_action(sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions()))


def test_public_history_names_every_move_and_roll():
    state = play(make(3), [2, "miss", INTENTIONAL_MISS])
    assert state.public_history() == [(0, 2, "shoot player_2"), (CHANCE, MISSED, "miss"),
                                      (1, INTENTIONAL_MISS, "intentional miss")]


def test_state_from_view_replays_the_history():
    state = play(make(4), [3, "hit", 0, "miss", WASTED_SHOT])
    for seat in range(4):
        rebuilt = state.game.state_from_view(seat, state.observation_dict(seat))
        assert rebuilt.history() == state.history()
        assert rebuilt.observation_string(seat) == state.observation_string(seat)
        assert rebuilt.legal_actions() == state.legal_actions()
    state.apply_action(1)
    rebuilt = state.game.state_from_view(1, state.observation_dict(1))
    assert rebuilt.is_chance_node() and rebuilt.chance_outcomes() == state.chance_outcomes()


# ---- parameters and presets ----------------------------------------------------------------------
def test_spec_and_presets():
    spec = game_spec(GAME)
    assert (spec.dynamics, spec.chance, spec.information, spec.utility) == \
        ("sequential", "stochastic", "perfect", "constant_sum")
    assert [p.name for p in spec.presets] == ["gamabench", "gamabench_h51_60", "gamabench_h10_100"]
    assert all("Table 9" in p.description for p in spec.presets[1:])
    game = load_game(GAME)
    assert game.num_players == 10 and game.parameters["max_turns"] == 20
    assert game.utility_bounds() == (0.0, 1.0)
    assert load_game(GAME, num_players=4).new_initial_state().num_players == 4


@pytest.mark.parametrize("overrides", [
    {"players": 1}, {"players": 101}, {"hit_rate_step": 0}, {"base_hit_rate": -1}, {"base_hit_rate": 101},
    {"max_turns": 0}, {"max_turns": 501}, {"base_hit_rate": 35.5},
])
def test_bad_parameters_are_refused(overrides):
    with pytest.raises(ValueError):
        load_game(GAME, overrides)


def test_the_last_hit_rate_may_reach_but_not_pass_100_percent():
    assert load_game(GAME, {"base_hit_rate": 55}).new_initial_state().observation_dict(0)["hit_rates"][-1] == 100
    with pytest.raises(ValueError, match="105%"):
        load_game(GAME, {"base_hit_rate": 60})              # 60 + 9 * 5
    assert load_game(GAME, {"base_hit_rate": 0, "hit_rate_step": 1}, num_players=100).num_players == 100
