"""Cost and cleanliness per agent from match logs (arena_server.ratings.report.agent_costs): what
counts as a decision, a re-ask and a fallback, and the tables built on them."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import pytest

from arena_server.ratings.board import LeaderboardRow
from arena_server.ratings.report import COST_COLUMNS, agent_costs, cost_table, write_csv


def _meta(seat, prompt, completion, cost, **extra):
    # As the referee logs DecisionMetadata (MessageToDict: int64 counts as strings, camelCase names).
    return {"kind": "decision_meta", "data": {"seat": seat, "metadata": {
        "promptTokens": str(prompt), "completionTokens": str(completion), "costUsd": cost, "extra": extra}}}


def _match(match_id, names, log):
    return SimpleNamespace(match_id=match_id, players=[{"seat": s, "agent_name": n} for s, n in enumerate(names)]), log


LOGS = [
    _match("m1", ["llm", "bot"], [
        _meta(0, 100, 10, 0.002, reasks=0, reasoning_tokens=4, cached_tokens=60, calls=1, retries=2),
        {"kind": "action", "data": {"seat": 0, "action": 3}},
        {"kind": "action", "data": {"seat": 1, "action": 1}},                    # no metadata: still a decision
        # the referee refuses an attempt, then the re-asked answer is played
        {"kind": "penalty", "data": {"seat": 0, "problem": "illegal", "failure": "illegal_actions"}},
        _meta(0, 120, 12, 0.003, reasks=0, calls=1),
        {"kind": "action", "data": {"seat": 0, "action": 4}},
        # the agent re-asked its model itself
        _meta(0, 200, 30, 0.004, reasks=1, calls=2),
        {"kind": "action", "data": {"seat": 0, "action": 5}},
        # a forced move the agent played without its model
        _meta(0, 0, 0, 0.0, forced=True),
        {"kind": "action", "data": {"seat": 0, "action": 6}},
        {"kind": "end", "data": {"reason": "normal", "returns": [1, -1]}},
    ]),
    _match("m2", ["bot", "llm"], [
        # a timeout: the failure policy plays the move
        {"kind": "penalty", "data": {"seat": 1, "problem": "timed out", "substituted": True, "failure": "timeouts"}},
        {"kind": "action", "data": {"seat": 1, "action": 0}},
        # a simultaneous round: each seat's choice is its decision; the round's actions entry is not
        _meta(1, 50, 5, 0.001, calls=1),
        {"kind": "choice", "data": {"seat": 1, "action": 2}},
        {"kind": "choice", "data": {"seat": 0, "action": 1}},
        {"kind": "actions", "data": {"actions": [1, 2], "seats": [0, 1]}},
    ]),
]


def test_decisions_reasks_fallbacks_tokens_and_cost_are_summed_per_agent():
    costs = agent_costs(LOGS)
    llm, bot = costs["llm"], costs["bot"]
    assert (llm.matches, llm.decisions, llm.reasked, llm.fallbacks) == (2, 5, 2, 1)
    assert (llm.prompt_tokens, llm.completion_tokens, llm.reasoning_tokens, llm.cached_tokens) == (470, 57, 4, 60)
    assert llm.cost_usd == pytest.approx(0.010) and (llm.calls, llm.api_retries) == (5, 2)
    columns = llm.columns()
    assert columns["tokens_per_match"] == pytest.approx(527 / 2)
    assert columns["tokens_per_decision"] == pytest.approx(527 / 5)
    assert columns["cost_per_decision"] == pytest.approx(0.002)
    assert (columns["reask_share"], columns["fallback_share"]) == (pytest.approx(0.4), pytest.approx(0.2))
    assert (bot.matches, bot.decisions, bot.tokens, bot.cost_usd) == (2, 2, 0, 0.0)


def test_the_csv_and_the_console_carry_the_cost_columns():
    costs = agent_costs(LOGS)
    rows = [LeaderboardRow("llm", 1.0, 1.0, 1.0, matches=2), LeaderboardRow("bot", 0.0, 0.0, 0.0, matches=2)]
    out = io.StringIO()
    write_csv(rows, out, has_interval=False, costs=costs)
    read = {r["agent"]: r for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert list(read["llm"])[-len(COST_COLUMNS):] == COST_COLUMNS
    assert (read["llm"]["prompt_tokens"], read["llm"]["cost_usd"], read["llm"]["fallback_share"]) == ("470", "0.01",
                                                                                                        "0.2")
    out = io.StringIO()
    write_csv(rows, out, has_interval=False)
    assert "cost_usd" not in out.getvalue()                  # only when asked
    table = cost_table(costs, ["llm", "bot"])
    assert table[1].split() == ["llm", "2", "5", "527", "264", "105", "$0.0100", "$0.0050", "$0.0020", "40.0%",
                                "20.0%"]
