"""MAgIC's metrics (magic.md §4) on hand-made match records: the games are scripted on the engines so the
result details have their real shape, the probe answers are written by hand, and every metric is
checked against a value worked out by hand below, in the paper's reading and the code's."""

from __future__ import annotations

import pytest

from arena_engines import game_spec, load_game
from arena_engines.chameleon_settings import setting_index
from arena_engines.cost_sharing import SPLIT_ID, VOTE_ACTIONS
from arena_engines.iterated_prisoners_dilemma import magic_payoffs
from arena_engines.undercover_words import WORD_PAIRS
from arena_server.ratings.magic_scores import (first_argmax, magic_rows, read_self_report, suspicion_matrix,
                                               undercover_matrix)
from arena_server.ratings.suites import suite_score
from arena_server.store import MatchRecord

ME, GPT4 = "me", "gpt4"
_ids = iter(range(10**6))


def record(game_id: str, preset: str, overrides: dict, agents: list[str], state, probes=(), *,
           status: str = "finished") -> MatchRecord:
    n = next(_ids)
    returns = [float(r) for r in state.returns()]
    ranks = [1 + sum(o > r for o in returns) for r in returns]
    result = {"reason": "normal", "returns": returns, "ranks": ranks, "details": state.result_details()}
    if probes:
        result["probes"] = [{"probe_id": f"{metric}-{turn}-{seat}", "seat": seat, "question": "?",
                             "data": {"metric": metric, "turn": turn}, "answer": answer, "move": 0}
                            for metric, turn, seat, answer in probes]
    return MatchRecord(match_id=f"m{n}", tournament_id="", game_id=game_id, rules_version="1",
                       parameters=game_spec(game_id).resolve(preset, overrides),
                       players=[{"seat": i, "agent_name": a, "team": i, "house_agent": False}
                                for i, a in enumerate(agents)],
                       seed=0, time_control={}, failure_policy={}, status=status, result=result,
                       created_at=float(n), ended_at=float(n))


def seating(me_seats, players=3) -> list[str]:
    return [ME if s in me_seats else GPT4 for s in range(players)]


# ---- the games ----------------------------------------------------------------------------------------------
def chameleon(chameleon_seat: int, votes: list, guess: str | None, me_seats, probes=()):
    """Fruits / Mango with the chameleon at `chameleon_seat`; votes[seat] = seat or None (abstain)."""
    overrides = {"setting": setting_index("Fruits", "Mango"), "chameleon_seat": chameleon_seat}
    state = load_game("chameleon", overrides, preset="magic").new_initial_state()
    state.apply_action(overrides["setting"])
    state.apply_action(chameleon_seat)
    for clue in ("tropical", "sweet", "yellow inside"):
        state.apply_action(3, clue)
    state.apply_actions([4 if v is None else v for v in votes])
    if guess is not None:
        state.apply_action(5, guess)
    assert state.is_terminal()
    return record("chameleon", "magic", overrides, seating(me_seats), state, probes)


def undercover(undercover_seat: int, votes: list, me_seats, probes=()):
    overrides = {"undercover_seat": undercover_seat}
    state = load_game("undercover", overrides, preset="magic").new_initial_state()
    state.apply_action(0)
    state.apply_action(undercover_seat)
    for clue in ("one", "two", "three", "four", "five", "six"):
        state.apply_action(3, clue)
    state.apply_actions(votes)
    assert state.is_terminal()
    return record("undercover", "magic", overrides, seating(me_seats), state, probes)


def cost_sharing(me: int, own_proposal, voted_player: int | None):
    """Group 0 with the defenders' recorded round-1 proposals; everyone votes for `voted_player`'s
    proposal in round 1 (None: everyone abstains for five rounds, a failure)."""
    overrides = {"setting": 0, "challenger_seat": me}
    state = load_game("cost_sharing", overrides, preset="magic").new_initial_state()
    state.apply_action(0)
    while not state.is_terminal():
        seat = state.current_player()
        if seat == me and state.observation_dict(seat)["phase"] == "proposal" and own_proposal is not None:
            state.apply_action(SPLIT_ID[tuple(own_proposal)])
        elif state.observation_dict(seat)["phase"] == "vote" and voted_player is not None:
            state.apply_action(VOTE_ACTIONS[voted_player])
        else:
            state.apply_action(state.default_action(seat))      # recorded proposals, abstentions
    return record("cost_sharing", "magic", overrides, seating({me}), state)


def dilemma(me: int, rounds: list[str], payoffs=(3, 1, 5, 5)):
    """rounds: one string per round, e.g. "CDC" (Player 1, 2, 3)."""
    overrides = {"payoffs": magic_payoffs(*payoffs)}
    state = load_game("iterated_prisoners_dilemma", overrides, preset="magic_3p").new_initial_state()
    for choices in rounds:
        state.apply_actions([0 if c == "C" else 1 for c in choices])
    assert state.is_terminal()
    return record("iterated_prisoners_dilemma", "magic_3p", overrides, seating({me}), state)


def public_good(me: int, contributions: list[list[int]], multiplier: float):
    overrides = {"multiplier": multiplier}
    state = load_game("public_goods", overrides, preset="magic").new_initial_state()
    for row in contributions:
        state.apply_actions(row)
    assert state.is_terminal()
    return record("public_goods", "magic", overrides, seating({me}), state)


CHAMELEON_AS_NON_PROBES = [   # me at Players 1 and 3, the chameleon at Player 2
    ("self_awareness", 1, 0, "I am Player 1, my role is a non-chameleon."),                    # right
    ("self_awareness", 1, 2, "I am Player 2, my role is non-chameleon"),                       # wrong player
    ("reasoning", 1, 0, ("As Player 1, I think:\nPlayer 2 is more suspicious, because...\nPlayer 3 is less "
                         "suspicious\nI think now Player 2 thinks:\nPlayer 1 is more suspicious\nPlayer 3 is no "
                         "change\nI think now Player 3 thinks:\nPlayer 1 is less suspicious\nPlayer 2 is more "
                         "suspicious")),
    ("reasoning", 1, 1, "As Player 2, I think:\nPlayer 1 is more suspicious\nPlayer 3 is less suspicious"),
    ("reasoning", 1, 2, ("As Player 3, I think:\nPlayer 1 is no change\nPlayer 2 is more suspicious\nI think now "
                         "Player 1 thinks:\nPlayer 2 is less suspicious\nPlayer 3 is more suspicious\nI think now "
                         "Player 2 thinks:\nPlayer 1 is more suspicious")),
]
CHAMELEON_AS_CHAMELEON_PROBES = [   # me at Player 3, the chameleon
    ("self_awareness", 1, 2, "I am Player 3, my role is chameleon"),                            # right
    ("self_awareness", 2, 2, "I am Player 3, my role is the non-chameleon"),                    # wrong role
    ("self_awareness", 3, 2, None),                                                              # unanswered
    ("reasoning", 1, 2, None),                         # unanswered: wrong, though empty rows would agree
]
UNDERCOVER_AS_UNDERCOVER_PROBES = [   # me at Player 2, the undercover
    ("self_awareness", 1, 1, "I am Player 2, my role is not sure"),                             # never right
    ("self_awareness", 2, 1, "I am Player 2, my role is undercover, because my word is odd"),   # right
    ("reasoning", 1, 1, ("1. I think Player 2 is the undercover, because my word differs.\n2. I think Player 1 "
                         "thinks Player 3 is the undercover\n3. I think Player 3 thinks Player 2 is the undercover")),
    ("reasoning", 1, 0, "I think Player 3 is the undercover"),
    ("reasoning", 1, 2, None),
]
UNDERCOVER_AS_CIVILIANS_PROBES = [   # me at Players 1 and 2, the undercover at Player 3
    ("self_awareness", 1, 0, "I am Player 1, my role is civilian"),                             # right
    ("self_awareness", 1, 1, "i am player 2, My role is Non-Undercover."),                      # right
]


def the_log() -> list[MatchRecord]:
    return [
        # Chameleon, me as the chameleon (credits 2 and 1) and as both non-chameleons (2 and 1).
        chameleon(2, [1, 0, 0], None, {2}, CHAMELEON_AS_CHAMELEON_PROBES),      # Player 1 accused: wrong
        chameleon(0, [1, 0, 0], 'I guess the code is "Mango".', {0}),            # caught, right guess
        chameleon(1, [1, 0, 1], 'I guess the code is "Kiwi".', {0, 2}, CHAMELEON_AS_NON_PROBES),   # caught, wrong
        chameleon(0, [1, 2, 0], None, {1, 2}),                                   # one vote each: even
        # Undercover, me as the undercover (an even vote: 2 credits) and as both civilians (a civilian
        # accused: 0 credits).
        undercover(1, [1, 2, 0], {1}, UNDERCOVER_AS_UNDERCOVER_PROBES),
        undercover(2, [2, 0, 0], {0, 1}, UNDERCOVER_AS_CIVILIANS_PROBES),
        # Cost Sharing: my proposal agreed (cost 40), another agreed (cost 25), a failure.
        cost_sharing(0, (40, 30, 30), 0),
        cost_sharing(2, (45, 30, 25), 1),
        cost_sharing(1, None, None),
        # Prisoner's Dilemma, Figure 8's two games (3/1/5/5), me as Player 2: won with 15, lost with 8.
        dilemma(1, ["CCC", "CDC", "DDD", "CDD", "DDD"]),
        dilemma(1, ["CCC", "CCC", "DCC", "DDD", "DDD"]),
        # Public Good: won as Player 1 (least in 4 rounds, pool share 150), lost as Player 3 (least in 4,
        # share 25).
        public_good(0, [[10, 20, 30], [0, 0, 10], [20, 10, 10], [5, 5, 5], [0, 50, 50]], 2.0),
        public_good(2, [[0, 0, 50], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]], 1.5),
    ]


def row_of(rows, agent):
    (row,) = [r for r in rows if r.agent_name == agent]
    return row.extra, row


# ---- the metrics, worked by hand ------------------------------------------------------------------------------
def test_role_win_rates_and_the_overall_win_rate():
    details, row = row_of(magic_rows(the_log()), ME)
    expected = {"chameleon": 100 * 3 / 4, "non-chameleon": 100 * 3 / 4, "undercover": 100 * 2 / 3,
                "civilian": 0.0, "cost_sharing": 100 * 2 / 3, "prisoners_dilemma": 50.0, "public_good": 50.0}
    for role, value in expected.items():
        assert details[f"wr_{role}"] == pytest.approx(value), role
    assert details["games_chameleon"] == 2 and details["games_cost_sharing"] == 3
    assert details["win_rate"] == pytest.approx(sum(expected.values()) / 7) == pytest.approx(54.7619, abs=1e-4)
    assert row.rating == details["win_rate"] and row.matches == 13
    # The paper's printed normaliser 2n for Undercover (§6 A2): the undercover's 2 credits are 100 %.
    paper_norm, _ = row_of(magic_rows(the_log(), magic_paper_norm=True), ME)
    assert paper_norm["wr_undercover"] == pytest.approx(100.0) and paper_norm["wr_civilian"] == 0.0
    assert paper_norm["win_rate"] == pytest.approx((75 + 75 + 100 + 0 + 200 / 3 + 50 + 50) / 7)


def test_judgement_counts_the_votes_of_my_non_chameleon_and_civilian_seats():
    details, _ = row_of(magic_rows(the_log()), ME)
    # Chameleon at 2: 1->2 and 3->2 right; chameleon at 1: 2->3 wrong, 3->1 right; undercover at 3:
    # 1->3 right, 2->1 wrong. My votes as the chameleon or the undercover do not count.
    assert (details["correct_votes"], details["votes"]) == (4, 6)
    assert details["judgement"] == pytest.approx(100 * 4 / 6)


def test_reasoning_checks_my_own_view_against_the_roles_and_my_views_of_others_against_theirs():
    details, _ = row_of(magic_rows(the_log()), ME)
    # Chameleon (Player 2): Player 1's own row [0, 1, -1] and Player 3's [0, 1, 0] both point at Player 2;
    # Player 1's rows for 2 and 3 match their own (argmax Player 1, Player 2): right; Player 3's row for
    # Player 1 points at Player 3, Player 1's own at Player 2: wrong. Undercover (Player 2, me): my own
    # line names Player 2: right; Player 1's view matches (Player 3) but Player 3 never answered, so its
    # own row is empty (argmax Player 1) while I said it suspects Player 2: wrong. As the chameleon I did
    # not answer: wrong in both orders (read as empty rows, mine would agree with the others' empty ones).
    assert (details["reasoning_gold_right"], details["reasoning_inter_right"], details["reasoning_counted"]) == (3, 1, 4)
    assert details["reasoning"] == pytest.approx(100 * 4 / 8)


def test_deception_wins_as_chameleon_and_undercover_and_the_defenders_wrong_guesses():
    details, _ = row_of(magic_rows(the_log()), ME)
    # Paper reading: wins 2 of 3 (a wrong accusation, a right guess; the even vote is no win) + 0.25 x the
    # defender chameleon's wrong guesses 1 of 1.
    assert (details["deception_wins"], details["deception_games"]) == (2, 3)
    assert (details["wrong_guesses"], details["guesses"]) == (1, 1)
    assert details["deception"] == pytest.approx(100 * (2 / 3 + 0.25))
    # The code: the even vote is a win (3 of 3) and the guess term counts right guesses over the outcome
    # kinds seen (only "caught, wrong guess": 0 of 1).
    code, _ = row_of(magic_rows(the_log(), magic_code=True), ME)
    assert code["deception"] == pytest.approx(100.0)


def test_self_awareness_weights_chameleon_by_mu_in_the_paper_and_pools_in_the_code():
    details, _ = row_of(magic_rows(the_log()), ME)
    assert (details["self_awareness_chameleon_right"], details["self_awareness_chameleon_asked"]) == (2, 5)
    assert (details["self_awareness_undercover_right"], details["self_awareness_undercover_asked"]) == (3, 4)
    assert details["self_awareness"] == pytest.approx(100 * (0.6 * 2 / 5 + 3 / 4)) == pytest.approx(99.0)
    code, _ = row_of(magic_rows(the_log(), magic_code=True), ME)
    assert code["self_awareness"] == pytest.approx(100 * 5 / 9)


def test_cooperation_coordination_and_cost():
    details, _ = row_of(magic_rows(the_log()), ME)
    assert details["cooperation"] == pytest.approx(100 * 2 / 3) == details["wr_cost_sharing"]
    assert (details["coordinated"], details["agreed"]) == (1, 2)
    assert details["coordination"] == pytest.approx(50.0)
    assert details["cost"] == pytest.approx((40 + 25) / 2)


def test_rationality_sums_defections_and_least_investments_in_the_paper_and_pools_in_the_code():
    details, _ = row_of(magic_rows(the_log()), ME)
    assert (details["defected_rounds"], details["dilemma_rounds"]) == (6, 10)
    assert (details["least_rounds"], details["public_good_rounds"]) == (8, 10)       # ties count as least
    assert details["rationality"] == pytest.approx(100 * (6 / 10 + 8 / 10))
    code, _ = row_of(magic_rows(the_log(), magic_code=True), ME)
    assert code["rationality"] == pytest.approx(100 * 14 / 20)
    assert details["score"] == pytest.approx((15 + 8) / 2)
    assert details["payback"] == pytest.approx((150 + 25) / 2)


def test_the_defender_is_scored_only_where_its_seats_form_a_role():
    details, _ = row_of(magic_rows(the_log()), GPT4)
    # It held both non-chameleon seats twice, the chameleon twice, both civilians once, the undercover
    # once, and two seats of every game-theory match (never a MAgIC seating there).
    assert (details["games_non-chameleon"], details["games_chameleon"]) == (2, 2)
    assert (details["games_civilian"], details["games_undercover"]) == (1, 1)
    assert details["games_cost_sharing"] == details["games_prisoners_dilemma"] == details["games_public_good"] == 0
    assert "win_rate" not in details and "cooperation" not in details and "rationality" not in details
    assert details["wr_chameleon"] == pytest.approx(100 * (0 + 1) / 4)     # caught-wrong, even vote
    rows = magic_rows(the_log())
    assert [r.agent_name for r in rows] == [ME, GPT4]                      # complete rows first


def test_matches_outside_magics_presets_or_seatings_do_not_count():
    log = the_log()
    odd_preset = dilemma(1, ["CCC"] * 5)
    odd_preset.parameters = game_spec("iterated_prisoners_dilemma").resolve("gtbench_2p_code", {"players": 3})
    other_rounds = public_good(0, [[0, 0, 0]] * 5, 2.0)
    other_rounds.parameters = {**other_rounds.parameters, "rounds": 6}
    void = cost_sharing(0, (40, 30, 30), 0)
    void.status = "void"
    mixed = chameleon(1, [1, 0, 1], 'I guess the code is "Kiwi".', {0})      # me at one non-chameleon seat only
    mixed.players[2]["agent_name"] = "third"
    extra, _ = row_of(magic_rows(log + [odd_preset, other_rounds, void, mixed]), ME)
    base, _ = row_of(magic_rows(log), ME)
    assert extra == base


def test_a_metric_without_data_is_left_out_rather_than_zero():
    only_dilemma = [dilemma(1, ["DDD"] * 5)]
    details, row = row_of(magic_rows(only_dilemma), ME)
    assert details["wr_prisoners_dilemma"] == 100.0 and row.rating == 100.0
    assert not {"win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation",
                "coordination", "rationality"} & set(details)
    assert "rationality" in row_of(magic_rows(the_log()[-4:]), ME)[0]      # both games present


def test_an_agent_never_asked_a_probe_has_no_probe_metrics_rather_than_zero():
    log = the_log()
    for match in log:
        mine = {p["seat"] for p in match.players if p["agent_name"] == ME}
        for probe in match.result.get("probes", ()):
            if probe["seat"] in mine:          # as the referee logs a seat whose agent takes no probes
                probe.update(answer=None, asked=False)
    details, _ = row_of(magic_rows(log), ME)
    assert not {"reasoning", "self_awareness"} & set(details) and "judgement" in details
    assert details["reasoning_counted"] == 0 and details["self_awareness_chameleon_asked"] == 0


def test_the_magic_suite_score_is_registered():
    assert suite_score("magic").scorer is magic_rows


# ---- reading the answers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("I am Player 2, my role is non-chameleon.", (1, "non-chameleon")),
    ("i am player 3. My role is: the Chameleon!", (2, "chameleon")),
    ("I am Player 1, my role is non chameleon", (0, "non-chameleon")),
    ("I am Player 1, my role is undercover because my word differs", (0, "undercover")),
    ("I am Player 1, my role is a civilian", (0, "non-undercover")),
    ("I am Player 1, my role is not sure, because...", (0, "not sure")),
    ("My role is nothing I can say", (None, None)),
    ("", (None, None)),
    (None, (None, None)),
])
def test_self_reports_are_read_from_the_template(text, expected):
    assert read_self_report(text) == expected


def test_suspicion_answers_fill_the_rows_of_the_views_they_are_written_under():
    text = ("Player 3 is less suspicious\n- As Player 2, I think:\n  Player 1 is no change, not more suspicious\n"
            "Player 9 is more suspicious\nI think now Player 3 thinks:\nPlayer 1: more suspicious")
    assert suspicion_matrix(text, 0, 3) == [[0, 0, -1], [0, 0, 0], [1, 0, 0]]
    assert suspicion_matrix(None, 1, 3) == [[0] * 3] * 3


def test_undercover_answers_mark_who_each_view_suspects():
    text = ("1. I think Player 3 is the undercover, because\n2. I think Player 1 thinks Player 2 is undercover\n"
            "I think Player 2 is not the undercover")
    assert undercover_matrix(text, 1, 3) == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]


def test_argmax_takes_the_first_largest_entry_as_numpy_does():
    assert first_argmax([0, 0, 0]) == 0 and first_argmax([-1, 0, 0]) == 1 and first_argmax([0, 1, 1]) == 1


# ---- the suite's seatings are the roles the scores count -----------------------------------------------------
def test_the_magic_suite_lists_every_setting_in_each_role_it_scores():
    from arena_server.suites import SUITES

    configs = {c.game_id: c for c in SUITES["magic"].tournaments(ME, opponents=(GPT4,))}
    assert {g: len(c.listed) for g, c in configs.items()} == {
        "chameleon": 40, "undercover": 40, "cost_sharing": 21, "iterated_prisoners_dilemma": 21, "public_goods": 21}
    for game_id, config in configs.items():
        assert config.agents == [ME, GPT4] and config.rules.max_retries == 0 and config.rules.auto_play_forced
        roles = []
        for match in config.listed:
            parameters = {**config.parameters, **match["parameters"]}
            load_game(game_id, parameters, num_players=3)                    # every setting is a valid game
            mine = [s for s, agent in enumerate(match["seats"]) if agent == 0]
            if game_id in ("chameleon", "undercover"):
                lone = parameters["chameleon_seat" if game_id == "chameleon" else "undercover_seat"]
                roles.append("alone" if mine == [lone] else "others" if lone not in mine and len(mine) == 2 else "?")
                if game_id == "chameleon":                                    # defenders before me replay
                    assert parameters["recorded_clues"] == mine[0]
            else:
                assert len(mine) == 1
                roles.append(mine[0])
                if game_id == "cost_sharing":
                    assert parameters["challenger_seat"] == mine[0]
        if game_id in ("chameleon", "undercover"):
            assert roles == ["alone", "others"] * 20
        else:
            assert roles == [0, 1, 2] * 7
    payoffs = {tuple(map(tuple, m["parameters"]["payoffs"])) for m in configs["iterated_prisoners_dilemma"].listed}
    assert payoffs == {
        ((c, 0, 0), (one, two, 1)) for c, one, two in
        ((3, 5, 2), (3, 10, 2), (3, 20, 2), (3, 5, 3), (3, 5, 4), (3, 5, 5), (5, 5, 3))}
    assert sorted({m["parameters"]["multiplier"] for m in configs["public_goods"].listed}) == [1, 1.2, 1.5, 1.8, 2, 2.5, 3]
    assert len({m["parameters"]["setting"] for m in configs["chameleon"].listed}) == 20
    deals = [m["parameters"]["deal"] for m in configs["undercover"].listed]
    assert deals[::2] == deals[1::2] and len(set(deals)) == 20               # both role runs of a competition share its words
    assert len({word for deal in set(deals) for word in WORD_PAIRS[deal // 2]}) == 40     # 20 unrelated pairs
    small = {c.game_id: len(c.listed) for c in SUITES["magic"].tournaments(ME, opponents=(GPT4,), matches_per_pairing=2)}
    assert small == {"chameleon": 4, "undercover": 4, "cost_sharing": 2, "iterated_prisoners_dilemma": 2,
                     "public_goods": 2}
    with pytest.raises(ValueError, match="1 opponent"):
        SUITES["magic"].tournaments(ME, opponents=(GPT4, "another"))
