"""MCTS (arena_engines.mcts): strength, reproducibility, the solver, decoupled UCT at simultaneous
nodes, and that determinized search never reads hidden information.

Games are taken from the registry, so a new game is covered as soon as its file lands."""

from __future__ import annotations

import random

import pytest

from arena_engines import game_ids, game_spec, load_game
from arena_engines.mcts import MCTSBot, random_playouts


def games_where(**wanted) -> list[str]:
    return [g for g in game_ids() if all(getattr(game_spec(g), k) == v for k, v in wanted.items())]


# Two-seat games: the strength test pits one bot against one random player (Battle Royale's search
# against several random seats is tested in its own file).
PERFECT_SEQUENTIAL = [g for g in games_where(information="perfect", dynamics="sequential")
                      if load_game(g).num_players == 2]
# Parameters under which random play reaches decisions that hidden information bears on: Divide the
# Dollar's random bids at its defaults always overshoot G, so no round pays and past bids are moot.
HIDDEN_INFORMATION_SETUP = {"divide_the_dollar": {"players": 3, "strict_ranges": True}, "pirate_game": {"players": 6}}
# (playouts, decisions per playout) to look at: the Pirate Game hides only the ballots of rounds already
# voted, and random ballots often pass the first proposal.
DECISIONS_LOOKED_AT = {"pirate_game": (60, 30)}
# Games whose hidden information never changes what can happen next (the Pirate Game's past ballots),
# so a search that reads it searches the same game: the clairvoyant contrast cannot show there.
MOOT_HIDDEN_INFORMATION = {"pirate_game"}


def sample_chance(state, rng: random.Random) -> None:
    outcomes = state.chance_outcomes()
    state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])


def play(game, policies, seed: int) -> list[float]:
    """One match; policies[seat] is a bot with .step(state, seat), or None for uniform random."""
    rng = random.Random(seed)
    state = game.new_initial_state()

    def choose(seat):
        bot = policies[seat]
        return bot.step(state, seat) if bot is not None else rng.choice(state.legal_actions(seat))

    while not state.is_terminal():
        if state.is_chance_node():
            sample_chance(state, rng)
        elif state.is_simultaneous_node():
            actions = [0] * state.num_players
            for seat in state.current_players():
                actions[seat] = choose(seat)
            state.apply_actions(actions)
        else:
            state.apply_action(choose(state.current_player()))
    return state.returns()


def score(game, make_bot, opponent, matches: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of make_bot(seed) over `matches` two-seat matches, alternating seats."""
    wins = draws = losses = 0
    for seed in range(matches):
        seat = seed % 2
        policies = [None, None]
        policies[seat] = make_bot(seed)
        policies[1 - seat] = opponent(seed) if opponent else None
        returns = play(game, policies, 1000 + seed)
        wins += returns[seat] > returns[1 - seat]
        draws += returns[seat] == returns[1 - seat]
        losses += returns[seat] < returns[1 - seat]
    return wins, draws, losses


# Shorter games where random rollouts are long: Hive's random games run to the 250-turn cap (about 450
# moves a rollout); at 40 turns each MCTS still wins every game, in a fifteenth of the time.
STRENGTH_SETUP = {"hive": {"max_turns": 40}}


@pytest.mark.parametrize("game_id", PERFECT_SEQUENTIAL)
def test_mcts_beats_random_in_every_perfect_information_game(game_id):
    game = load_game(game_id, STRENGTH_SETUP.get(game_id))
    wins, draws, losses = score(game, lambda seed: MCTSBot(game, seed=seed), None, matches=12)
    assert losses <= 1 and wins >= 9, (wins, draws, losses)


def test_more_simulations_beat_fewer_in_connect_four():
    game = load_game("connect_four")
    wins, draws, losses = score(game, lambda seed: MCTSBot(game, simulations=1000, seed=seed),
                                lambda seed: MCTSBot(game, simulations=50, seed=seed + 500), matches=20)
    assert wins - losses >= 10, (wins, draws, losses)


def test_same_seed_same_search_and_the_seed_matters():
    game = load_game("connect_four")
    state = game.new_initial_state()
    for action in (3, 3, 2):
        state.apply_action(action)
    first, second = MCTSBot(game, seed=5), MCTSBot(game, seed=5)
    assert first.step(state) == second.step(state)
    assert first.root_statistics() == second.root_statistics()
    other = MCTSBot(game, seed=6)
    other.step(state)
    assert other.root_statistics() != first.root_statistics()


def test_visits_add_up_to_the_simulations():
    game = load_game("connect_four")
    bot = MCTSBot(game, simulations=300, seed=1)
    bot.step(game.new_initial_state())
    assert sum(visits for _, visits, _ in bot.root_statistics()) == 300
    assert [a for a, _, _ in bot.root_statistics()] == list(range(7))


def tic_tac_toe_after(moves):
    game = load_game("tic_tac_toe")
    state = game.new_initial_state()
    for move in moves:
        state.apply_action(move)
    return game, state


@pytest.mark.parametrize("solve", [True, False])
def test_takes_an_immediate_win_and_blocks_an_immediate_loss(solve):
    # X holds 0 and 1 (top row), O holds 3 and 4: X to move wins at 2.
    game, state = tic_tac_toe_after([0, 3, 1, 4])
    assert MCTSBot(game, seed=0, solve=solve).step(state) == 2
    # X holds 0 and 1, O holds 4: O to move must block at 2.
    game, state = tic_tac_toe_after([0, 4, 1])
    assert MCTSBot(game, seed=0, solve=solve).step(state) == 2


def test_solver_proves_a_forced_win_and_stops_early():
    # X holds 0 and 4, O holds 8 and 1, X to move. X at 3 or 6 makes two threats at once (a fork):
    # 3 threatens 5 and 6; 6 threatens 2 and 3. Any other move lets O hold the draw.
    game, state = tic_tac_toe_after([0, 8, 4, 1])
    bot = MCTSBot(game, simulations=100_000, seed=3, solve=True)
    assert bot.step(state) in (3, 6)
    assert sum(visits for _, visits, _ in bot.root_statistics()) < 100_000   # proven before the budget


def test_random_playouts_match_the_known_value_of_random_tic_tac_toe():
    # Under uniformly random play X wins 58.5%, O 28.8%: X's expected return is about 0.297.
    state = load_game("tic_tac_toe").new_initial_state()
    x, o = random_playouts(state, 20_000, seed=2)
    assert x == pytest.approx(0.297, abs=0.03) and o == pytest.approx(-x)
    assert state.legal_actions() == list(range(9))      # the state itself is left unchanged


def test_bad_arguments_and_non_decision_states_are_refused():
    game = load_game("connect_four")
    with pytest.raises(ValueError, match="simulations"):
        MCTSBot(game, simulations=0)
    with pytest.raises(ValueError, match="does not act"):
        MCTSBot(game).step(game.new_initial_state(), 1)
    with pytest.raises(ValueError, match="terminal"):
        MCTSBot(game).step(play_out(game.new_initial_state(), random.Random(0)))
    dealt = [g for g in game_ids() if load_game(g).new_initial_state().is_chance_node()]
    if dealt:
        chance_game = load_game(dealt[0])
        with pytest.raises(ValueError, match="chance"):
            MCTSBot(chance_game).step(chance_game.new_initial_state())


def play_out(state, rng):
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_determinization_defaults_to_the_information_of_the_game():
    for game_id in game_ids():
        bot = MCTSBot(load_game(game_id))
        assert bot.determinize == (game_spec(game_id).information == "imperfect")
        assert bot.solve == (not bot.determinize)


# ---- imperfect information ------------------------------------------------------------------------
def decision_points(game, seed: int, count: int):
    """Up to `count` (state, seat) pairs from one random playout: states where a seat must decide."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal() and len(found) < count:
        # Only real choices: search is not asked where a seat has a single move (a clue turn).
        if state.is_simultaneous_node():
            found += [(state.clone(), seat) for seat in state.current_players()[:2] if len(state.legal_actions(seat)) > 1]
        elif not state.is_chance_node() and len(state.legal_actions()) > 1:
            found.append((state.clone(), state.current_player()))
        state.step_randomly(rng)
    return found


def with_other_hidden_info(state, seat: int):
    """A state that differs from `state` only in what `seat` cannot see, or None if none is found."""
    others = [p for p in range(state.num_players) if p != seat]
    for resample_seed in range(50):
        other = state.resample_hidden(seat, resample_seed)
        if any(other.observation_dict(p) != state.observation_dict(p) for p in others):
            return other
    return None


@pytest.mark.parametrize("game_id", games_where(information="imperfect"))
def test_determinized_mcts_never_reads_hidden_information(game_id):
    spec = game_spec(game_id)
    game = load_game(game_id, HIDDEN_INFORMATION_SETUP.get(game_id), preset=spec.presets[0].name if spec.presets else None)
    compared = clairvoyant_differs = 0
    playouts, decisions = DECISIONS_LOOKED_AT.get(game_id, (12, 3))
    for seed in range(playouts):
        for state, seat in decision_points(game, seed, decisions):
            other = with_other_hidden_info(state, seat)
            if other is None:
                continue
            assert other.observation_dict(seat) == state.observation_dict(seat)
            bots = [MCTSBot(game, simulations=300, seed=seed) for _ in range(2)]
            assert bots[0].step(state, seat) == bots[1].step(other, seat)
            assert bots[0].root_statistics() == bots[1].root_statistics()
            compared += 1
            # The same comparison would fail for a search that reads the true state.
            seers = [MCTSBot(game, simulations=300, seed=seed, determinize=False) for _ in range(2)]
            seers[0].step(state, seat)
            seers[1].step(other, seat)
            clairvoyant_differs += seers[0].root_statistics() != seers[1].root_statistics()
    if compared == 0 and spec.dynamics == "simultaneous":
        pytest.skip("the engine redraws no hidden information (resample_hidden is a copy)")
    assert compared >= 10
    assert clairvoyant_differs >= 1 or game_id in MOOT_HIDDEN_INFORMATION


@pytest.mark.parametrize("game_id", games_where(information="imperfect", dynamics="sequential", utility="zero_sum"))
def test_determinized_mcts_beats_random(game_id):
    game = load_game(game_id)
    total = 0.0
    for seed in range(40):
        seat = seed % 2
        policies = [None, None]
        policies[seat] = MCTSBot(game, seed=seed)
        total += play(game, policies, 2000 + seed)[seat]
    assert total > 0, total


# ---- simultaneous nodes ---------------------------------------------------------------------------
@pytest.mark.skipif("iterated_prisoners_dilemma" not in game_ids(), reason="no iterated prisoner's dilemma yet")
def test_decoupled_uct_finds_the_dominant_move_of_the_prisoners_dilemma():
    game = load_game("iterated_prisoners_dilemma", preset="gtbench_2p")
    state = game.new_initial_state()
    for seat in (0, 1):
        assert MCTSBot(game, seed=seat).step(state, seat) == 1      # defect: dominant against rollouts


@pytest.mark.parametrize("game_id", games_where(dynamics="simultaneous"))
def test_simultaneous_games_are_searched_for_every_seat(game_id):
    game = load_game(game_id, preset=game_spec(game_id).presets[0].name)
    state = game.new_initial_state()
    rng = random.Random(0)
    # Search is asked where there is a choice: past chance nodes and forced moves (a written
    # proposal's single "propose" action, say).
    while state.is_chance_node() or all(len(state.legal_actions(p)) < 2 for p in state.current_players()):
        state.step_randomly(rng)
    for seat in state.current_players()[:3]:
        bot = MCTSBot(game, simulations=200, seed=seat)
        action = bot.step(state, seat)
        assert action in state.legal_actions(seat)
        assert sum(visits for _, visits, _ in bot.root_statistics()) == 200


# ---- state_from_view, which the search and the MCTS agents rely on ------------------------------
@pytest.mark.parametrize("game_id", game_ids())
def test_state_from_view_rebuilds_what_the_seat_sees(game_id):
    spec = game_spec(game_id)
    game = load_game(game_id, preset=spec.presets[0].name if spec.presets else None)
    for seed in range(30):
        rng = random.Random(seed)
        state = game.new_initial_state()
        for _ in range(min(spec.max_game_length, 60)):
            if state.is_terminal():
                break
            for seat in range(state.num_players):
                rebuilt = game.state_from_view(seat, state.observation_dict(seat))
                assert rebuilt.observation_string(seat) == state.observation_string(seat)
                assert rebuilt.current_player() == state.current_player()
                assert rebuilt.legal_actions(seat) == state.legal_actions(seat)
            state.step_randomly(rng)
