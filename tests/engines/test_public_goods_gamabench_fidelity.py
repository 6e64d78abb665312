"""Fidelity to GAMA-Bench's released Public Goods runs (GPL-3.0 data, read in place, never copied).

The data lives in ../shared/data/gamabench relative to the repository root, or under
$ARENA_SHARED_DATA/gamabench. Every released file listed in expected.json (the five default runs of
Table 5 and the Table 9 multiplier variants) is converted with `gamabench_history`, replayed through
the engine and compared round by round with what the log records: the contributions and the pot of
every round, each player's logged utility (the tokens it kept) and token history, and, for the rounds
the code's truncated chat histories still hold (rounds 4-20), every player's canonical answer, the
pot, its gain, its tokens after the round and every player's tokens after the round. The finished
state is then scored with `gamabench_score` against the recomputed and printed values.
"""

from __future__ import annotations

import json
import re

import pytest

from arena_engines import load_game
from arena_engines.core import SIMULTANEOUS
from arena_engines.public_goods import gamabench_history, gamabench_score

from .gamabench_data import (check_five_runs, check_group, check_score, default_runs, entries, entry_id, load_run,
                             setting_id, table9_entries, table9_group, table9_variant)

GAME = "public_goods"
# The code's chat histories drop early messages after round 10 (gamabench.md §2.0): in every released
# file each player's history still holds its private results from round 4 on.
FIRST_ROUND_IN_CHATS = 4

_REPORT = re.compile(r"Game Results for Round (\d+):\n\nContributed tokens of each player: \[([^\]]*)\]\n"
                     r"You contributed:$")
_RESULT = re.compile(r"Tokens in the public pot: (\d+)\nYour gain: (\S+)\nYour tokens after round (\d+): (\S+)\n"
                     r"Tokens of each player after round (\d+): \[([^\]]*)\]$")


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def check_chat(player: dict, seat: int, rounds: list[dict], tokens: int) -> set[int]:
    """Compares one player's chat history with the engine's rounds; returns the rounds it checked.
    Each round leaves three messages: the public report (contributions), the player's own answer
    as canonical JSON, and its private result (pot, gain, tokens after the round)."""
    messages = player["prompt"][1:]
    checked = set()
    for k, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "assistant":
            # The answer's round is named by the private result that follows it.
            result = _RESULT.match(messages[k + 1]["content"])
            assert result, messages[k + 1]["content"]
            ours = rounds[int(result.group(3)) - 1]
            assert json.loads(content) == {"tokens_contributed": str(ours["contributions"][seat])}
        elif report := _REPORT.match(content):
            ours = rounds[int(report.group(1)) - 1]
            assert numbers(report.group(2)) == ours["contributions"]
        else:
            result = _RESULT.match(content)
            assert result, content
            number = int(result.group(3))
            ours = rounds[number - 1]
            own = ours["contributions"][seat]
            assert int(result.group(1)) == ours["pot"]
            assert float(result.group(2)) == pytest.approx(round(ours["share"] - own, 2), abs=1e-9)
            # The code's "tokens after round I" is that round's tokens - contribution + share.
            assert float(result.group(4)) == pytest.approx(ours["payoffs"][seat], abs=1e-9)
            assert tokens - own + ours["share"] == pytest.approx(ours["payoffs"][seat], abs=1e-9)
            assert int(result.group(5)) == number
            assert numbers(result.group(6)) == pytest.approx(ours["payoffs"], abs=1e-9)
            checked.add(number)
    return checked


def replay(entry: dict) -> dict:
    """Replays one released run through the engine, checking every round against the log; returns
    the finished state's result_details."""
    run = load_run(entry)
    meta = run["meta"]
    parameters, history = gamabench_history(run)
    setting = entry["setting"]
    assert (parameters["endowment"], parameters["multiplier"], meta["reset"]) == \
        (setting["tokens"], setting["ratio"], setting["reset"])
    assert (parameters["players"], parameters["rounds"]) == (meta["player_num"], meta["round_id"]) == (10, 20)
    tokens = parameters["endowment"]
    state = load_game(GAME, parameters).new_initial_state()
    assert state.observation_dict(0)["multiplier"] == meta["ratio"]
    for j, (kind, contributions) in enumerate(history):
        assert kind == SIMULTANEOUS
        state.apply_actions(list(contributions))
        ours = state.result_details()["rounds"][j]
        record = run["round_records"][j]
        assert ours["contributions"] == record["responses"]          # in player order in this game's logs
        assert ours["pot"] == record["total_tokens"]
        assert ours["share"] == pytest.approx(meta["ratio"] * record["total_tokens"] / meta["player_num"])
        for i, player in enumerate(run["player_data"]):
            assert player["utility"][j] == tokens - ours["contributions"][i]      # the code logs kept tokens
    assert state.is_terminal() and state.history() == history
    details = state.result_details()
    for i, player in enumerate(run["player_data"]):
        assert set(player["tokens"]) == {tokens}                     # refilled to T every round
        assert f"played by {meta['player_num']} players over {meta['round_id']} rounds" in player["prompt"][0]["content"]
        assert f"multiplied by the factor {meta['ratio']} " in player["prompt"][0]["content"]
        assert check_chat(player, i, details["rounds"], tokens) == set(range(FIRST_ROUND_IN_CHATS, 21))
    # Per-round payoffs add up to the returns: kept tokens plus every round's share.
    assert state.returns() == pytest.approx([sum(r["payoffs"][i] for r in details["rounds"]) for i in range(10)])
    return details


def score(entry: dict) -> float:
    run = load_run(entry)
    parameters, _ = gamabench_history(run)
    result = gamabench_score(load_game(GAME, parameters).parameters, replay(entry))
    assert result["S4"] == pytest.approx(entry["raw"]["S4"], abs=1e-6)
    check_score(result["score"], entry)
    return result["score"]


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_and_score_as_published(entry):
    score(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    check_five_runs(GAME, score)


@pytest.mark.parametrize("entry", table9_entries(GAME), ids=setting_id)
def test_table9_multiplier_variants_replay_and_score_as_published(entry):
    score(entry)


def test_table9_group_mean_and_std():
    group, runs = table9_group(GAME, 5)
    check_group([score(entry) for entry in runs], group)


def test_each_table9_variant_has_its_preset():
    """The presets carry the Table 9 multipliers; the vanilla R = 2 is "gamabench" itself."""
    presets = {"R=0": "gamabench_r0", "R=0.5": "gamabench_r0_5", "R=1": "gamabench_r1",
               "R=2 (vanilla)": "gamabench", "R=4": "gamabench_r4"}
    for entry in table9_variant(GAME)["entries"]:
        parameters, _ = gamabench_history(load_run(entry))
        assert load_game(GAME, preset=presets[entry["setting_label"]]).parameters == \
            load_game(GAME, parameters).parameters
