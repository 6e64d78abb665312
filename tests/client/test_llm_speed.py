"""The LLM agent at the endpoint's speed, against the local OpenAI-compatible endpoint: requests in
flight (counted by the endpoint) reach the agent's max_concurrency and never exceed it; an endpoint's
429 Retry-After holds back every request of the agent; 5xx answers are retried for as long as the
decision's deadline allows; a hung endpoint fails the decision (the referee's failure policy then
applies) only when its deadline is past, while a single timed-out request is retried."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time

import pytest

from arena_client.agents.llm_agent import LLMAgent, ModelError

from .fake_openai import FakeOpenAI, error, first_listed_action, text
from .test_llm_agent import KEY, view_of

pytestmark = pytest.mark.timeout(60)


class _Counting:
    """A responder answering after `latency` seconds, counting requests in flight (the endpoint's
    handler threads) and when each arrived. With `hold`, a request is held until that many are in
    flight (at most 5 s), so that a busy machine's slow connection set-up cannot hide concurrency."""

    def __init__(self, latency: float, then=first_listed_action, hold: int = 0):
        self.latency, self.then, self.hold = latency, then, hold
        self.lock = threading.Condition()
        self.in_flight = self.max_in_flight = 0
        self.arrivals: list[float] = []

    def __call__(self, body):
        with self.lock:
            self.arrivals.append(time.monotonic())
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.lock.notify_all()
            self.lock.wait_for(lambda: self.in_flight >= self.hold, timeout=5.0)
        try:
            time.sleep(self.latency)
            return self.then(body)
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture
def model():
    with FakeOpenAI(api_key=KEY) as fake:
        # Requests the agent gave up on (timeouts) are answered into closed connections: not an error here.
        fake._server.handle_error = lambda request, client_address: None
        yield fake


def _agent(model, **options) -> LLMAgent:
    options.setdefault("retry_delay", 0.01)
    return LLMAgent("fake", base_url=model.base_url, api_key=KEY, style="generic", **options)


def _decide_all(agent: LLMAgent, views) -> tuple[list, float]:
    async def run():
        started = time.monotonic()
        try:
            return await asyncio.gather(*(agent.decide(v) for v in views)), time.monotonic() - started
        finally:
            await agent.aclose()
    return asyncio.run(run())


@pytest.mark.parametrize("cap, decisions, latency", [(8, 24, 0.3), (32, 32, 0.3)])
def test_requests_in_flight_reach_max_concurrency_and_never_exceed_it(model, cap, decisions, latency):
    # Each request is held until `cap` are in flight: more than `cap` would show, and fewer would
    # cost the test 5 s a wave (the wall time bound below).
    counting = model.responder = _Counting(latency, hold=cap)
    agent = _agent(model, max_concurrency=cap)
    choices, wall = _decide_all(agent, [view_of("tic_tac_toe", match_id=f"m{i}") for i in range(decisions)])
    assert [c.action_id for c in choices] == [0] * decisions and len(model.requests) == decisions
    assert counting.max_in_flight == agent.max_in_flight == cap
    floor = decisions / cap * latency
    assert floor <= wall < floor + 4.0                  # every wave filled without waiting out the hold
    # Waiting for a slot is logged as queue time, apart from the model's time.
    assert max(c.extra["queued_s"] for c in choices) >= (latency if decisions > cap else 0.0)


def test_a_429_retry_after_holds_back_every_request_of_the_agent(model):
    counting = _Counting(0.0)
    model.push(error(429, "slow down", retry_after="0.5"))
    model.responder = counting
    agent = _agent(model, max_concurrency=1)
    started = time.monotonic()
    choices, _ = _decide_all(agent, [view_of("tic_tac_toe", match_id=f"m{i}") for i in range(3)])
    assert [c.action_id for c in choices] == [0, 0, 0] and len(model.requests) == 4
    # The 429 came at once; no request of any decision went out before its Retry-After had passed.
    assert min(counting.arrivals) - started >= 0.5
    retried = [r for c in choices for r in c.extra["api_retries"]]
    assert [(r["problem"].split(":")[0], r["wait_s"]) for r in retried] == [("429", 0.5)]


def test_server_errors_are_retried_for_as_long_as_the_deadline_allows(model):
    model.push(*[error(503 if i % 2 else 500) for i in range(9)], text("Action: X: (1, 1)"))
    agent = _agent(model, max_retry_delay=0.05)          # no cap on attempts: the deadline decides
    choices, _ = _decide_all(agent, [view_of("tic_tac_toe")])
    assert choices[0].action_id is not None and len(model.requests) == 10
    assert len(choices[0].extra["api_retries"]) == choices[0].extra["retries"] == 9


def test_a_timed_out_request_is_retried_while_the_deadline_allows(model):
    model.push(lambda body: (time.sleep(1.0), first_listed_action(body))[1])
    model.responder = first_listed_action
    agent = _agent(model, request_timeout=0.3)
    choices, _ = _decide_all(agent, [view_of("tic_tac_toe")])
    assert choices[0].action_id == 0
    assert [r["problem"].split(":")[0] for r in choices[0].extra["api_retries"]] == ["APITimeoutError"]


def test_a_hung_endpoint_fails_the_decision_only_when_its_deadline_is_past(model):
    model.responder = _Counting(4.0)
    agent = _agent(model, request_timeout=0.5)       # requests time out, are retried, until the deadline
    view = dataclasses.replace(view_of("tic_tac_toe"), time_remaining=2.5)
    deadline = 2.5 - min(1.0, 0.2 * 2.5)              # the agent keeps a margin for the answer's way back
    started = time.monotonic()
    with pytest.raises(ModelError, match="no reply .* in time"):
        _decide_all(agent, [view])
    elapsed = time.monotonic() - started
    assert deadline - 0.1 <= elapsed < 2.5             # no earlier than the deadline, and before the referee's
    assert len(model.requests) >= 3                    # it kept trying


def test_a_price_table_prices_each_decision_by_model_with_cached_and_reasoning_rates(model, tmp_path):
    from arena_client.agents.llm_agent import Price, load_prices, price_of

    table = tmp_path / "prices.json"
    table.write_text('{"fa": {"input": 1, "output": 2}, "fake": {"input": 3, "cached_input": 1.5, "output": 12, '
                     '"reasoning": 20}}')
    prices = load_prices(str(table))
    assert price_of("fake-2026", prices) is prices["fake"] and price_of("other", prices) is None
    assert Price(3, 12, 1.5, 20).cost(prompt=1000, completion=500, cached=400, reasoning=100) == pytest.approx(
        (600 * 3 + 400 * 1.5 + 400 * 12 + 100 * 20) / 1e6)
    with pytest.raises(ValueError, match="dollars per million"):
        load_prices({"fake": {"input": -1}})
    model.responder = first_listed_action
    choices, _ = _decide_all(_agent(model, prices=str(table)), [view_of("tic_tac_toe")])
    choice = choices[0]
    assert choice.cost_usd == pytest.approx((choice.prompt_tokens * 3 + choice.completion_tokens * 12) / 1e6)
    assert choice.extra["price_per_1m"] == {"input": 3, "cached_input": 1.5, "output": 12, "reasoning": 20}
    assert choice.extra["cached_tokens"] == choice.extra["reasoning_tokens"] == 0    # the endpoint reports none


def test_a_plain_agents_decisions_of_many_matches_do_not_wait_for_each_other():
    # asyncio's default pool (CPU count + 4 threads) would run 40 blocking decisions in waves; the
    # session's own pool is sized to the matches it plays at once.
    from arena_client import Agent
    from arena_client.session import Session

    class Slow(Agent):
        name = "slow"

        def decide(self, view):
            time.sleep(0.5)
            return view.legal_actions[0].action_id

    agent = Slow()
    session = Session(agent, "127.0.0.1:1", "key", games=["tic_tac_toe"], max_concurrent_matches=40)
    views = [view_of("tic_tac_toe", match_id=f"m{i}") for i in range(40)]

    async def all_at_once():
        started = time.monotonic()
        chosen = await asyncio.gather(*(session._call(agent.decide, v) for v in views))
        return chosen, time.monotonic() - started

    try:
        chosen, wall = asyncio.run(all_at_once())
    finally:
        session._threads.shutdown(wait=True)
    assert chosen == [0] * 40
    assert wall < 1.5           # one wave of 0.5 s (asyncio's default pool: 40 / 6 waves, over 3 s)


def test_the_default_transport_is_openais_aiohttp_one_and_httpx_is_there_when_asked(model):
    import openai

    aiohttp_client = _agent(model)._http_client(openai)
    httpx_client = _agent(model, http_client="httpx")._http_client(openai)
    assert isinstance(aiohttp_client, openai.DefaultAioHttpClient)
    assert isinstance(httpx_client, openai.DefaultAsyncHttpxClient)
    assert not isinstance(httpx_client, openai.DefaultAioHttpClient)
    model.responder = first_listed_action
    choices, _ = _decide_all(_agent(model, http_client="httpx"), [view_of("tic_tac_toe")])
    assert choices[0].action_id == 0

