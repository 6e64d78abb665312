"""The agent-side types, without any server."""

from __future__ import annotations

import pytest

from arena_client import Choice, DecisionView, LegalAction, RandomAgent, TextActionSpec


def view(legal: list[LegalAction], text_action: TextActionSpec | None = None) -> DecisionView:
    return DecisionView(match_id="m", decision_id=3, seat=0, game_id="g", observation_text="", observation_data={},
                        history=[], legal_actions=legal, text_action=text_action, deadline=None, time_remaining=None,
                        attempt=0, feedback="", parameters={})


def test_a_choice_is_an_action_id_or_text_never_both_or_neither():
    assert Choice(action_id=0).action_id == 0
    assert Choice(text="column 4").text == "column 4"
    # A message goes with either, or alone (a clue turn with one legal action).
    assert Choice(action_id=3, message="deal?").message == "deal?"
    assert Choice(message="fruit").action_id is None
    with pytest.raises(ValueError, match="not both"):
        Choice(action_id=1, text="x")
    with pytest.raises(ValueError, match="needs an action_id, text or a message"):
        Choice()


def test_random_agent_is_uniform_over_legal_actions_and_reproducible():
    legal = [LegalAction(i, f"a{i}") for i in (2, 5, 7)]
    picks = [RandomAgent(seed=11).decide(view(legal)).action_id for _ in range(3)]
    assert len(set(picks)) == 1          # same seed, same first pick
    agent = RandomAgent(seed=0)
    counts = {a.action_id: 0 for a in legal}
    for _ in range(3000):
        counts[agent.decide(view(legal)).action_id] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_random_agent_refuses_text_only_requests():
    with pytest.raises(ValueError, match="only accepts free text .an integer from 0 to 100."):
        RandomAgent().decide(view([], TextActionSpec("an integer from 0 to 100", 3)))


def test_a_legal_action_is_answered_by_its_action_id_and_the_old_id_name_still_works_with_a_warning():
    action = LegalAction(4, "X: (2, 2)")
    assert (action.action_id, action.text) == (4, "X: (2, 2)") and action == (4, "X: (2, 2)")
    assert Choice(action_id=action.action_id).action_id == 4          # the same name on both sides
    assert repr(action) == "LegalAction(action_id=4, text='X: (2, 2)')"
    with pytest.deprecated_call(match="use action_id"):
        assert action.id == 4
    with pytest.deprecated_call(match="use action_id"):
        assert LegalAction(id=4, text="X: (2, 2)") == action
    with pytest.raises(TypeError, match="needs an action_id"):
        LegalAction(text="nothing")
