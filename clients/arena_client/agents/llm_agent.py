"""A language model behind any OpenAI-compatible chat endpoint (hosted or local), as an arena agent.

Each decision becomes a prompt in a suite's style (arena_client.prompts), built from the structured
observation; the reply is read in the suite's answer format, then tolerantly against the legal
actions' texts (arena_client.answers). A reply that names no legal action is re-asked with feedback
up to `max_reasks` times; what is still unreadable is sent as text for the game's own parser, so the
referee's failure policy has the last word. On a decision that carries a message (a clue, bargaining
talk) the message the reply says goes with the action id, or, when the game's own answer layout
splits a reply into move and talk, the whole reply goes as text (see prompts.base). Prompts, replies,
tokens, latency and cost go into the decision's metadata, which the server logs with the match.

Probes (metric questions some games ask during a match, MAgIC's self-awareness and reasoning
questions) are answered by the model in a short chat of their own (prompts.probe), from the seat's
view at its latest decision and what was said in public since; `probes=False` leaves them to other
agents: the agent then does not declare the capability, and the server asks it none.

With `pgm`, MAgIC's PGM-aware agent (prompts.pgm): in its games, a decision is preceded by a call
asking the model for its private analysis of every other player's role or next move and of what each
of them believes; the analysis goes into the decision prompt with the scenario's guidance, and into
the decision's metadata ("pgm").

Speed: decisions of different matches never wait for each other. Requests go out concurrently
through one client and one connection pool per event loop, sized to `max_concurrency` (requests in
flight at most; more wait their turn, and the wait is logged as "queued_s"). The body is posted as
is (no per-request schema transform) and the reply read as JSON. The transport is openai's aiohttp
one where it is installed: httpx's connection pool looks at every open connection on each request
and each answer, which at 128 requests in flight cost more CPU time than everything else the agent
does per decision (docs/benchmarks.md).
A rate limit (429) or a server error (5xx), a timeout or a dropped connection is retried with
back-off, or after the wait the endpoint names (Retry-After, retry-after-ms), for as long as the
decision's deadline allows (`max_attempts` None, the default); an endpoint's Retry-After holds back
every request of the agent until it has passed, so that many matches do not hammer a limited
endpoint. Only when the deadline is past does the decision go unanswered, and the referee's failure
policy apply.

Cost: every decision's metadata carries prompt, completion, reasoning and cached tokens (as the
endpoint reports them), the calls made, their retries and re-asks, the model's and the queue's time,
and a cost in US dollars from the price of `model` in `prices` (a per-model table, in dollars per
million tokens: input, cached_input, output, reasoning; see `load_prices`) or from
price_per_1k_input/output.

The `openai` package (the project's `llm` extra) is imported when the first request is made, never
when the SDK is.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import importlib
import json
import logging
import random
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from ..agent import Agent, Choice, DecisionView, EventView, MatchView, ProbeView, ResultView
from ..answers import Reading, answer_segment, majority
from ..prompts import AUTO, Prompt, Style, style_for
from ..prompts import pgm as pgm_prompts
from ..prompts import probe as probe_prompts

log = logging.getLogger(__name__)

REASONING_MODES = ("plain", "cot", "self-consistency")
HTTP_CLIENTS = ("auto", "aiohttp", "httpx")
DEFAULT_MAX_CONCURRENCY = 64    # requests in flight at most, unless told
UNREACHABLE_ATTEMPTS = 6        # connection failures in a row (not timeouts) after which the endpoint is down
NO_DEADLINE_ATTEMPTS = 6        # tries of one request when the decision has no deadline and max_attempts is None
PRICE_KEYS = ("input", "cached_input", "output", "reasoning")
SERVER_TEXT_LIMIT = 1000        # what the referee accepts as text when the game sets no limit of its own
HEARD_KEPT = 200                # public lines kept per match for the probes' context


class ModelUnavailable(Exception):
    """The model cannot be used at all: the endpoint is unreachable, refuses the key or has no such
    model, or the openai package is missing. Retrying will not help, so a supervised run
    (LLMAgent.play) ends."""


class ModelError(Exception):
    """One decision could not get an answer (rate limits or server errors outlasted the retries, a
    request the endpoint refused). Nothing is sent; the referee's failure policy applies."""


@dataclass
class _Tally:
    """What one decision cost, over every call it made."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0          # of completion_tokens, where the endpoint says
    cached_tokens: int = 0             # of prompt_tokens, where the endpoint says
    calls: int = 0
    seconds: float = 0.0               # in requests, answered or not
    queued: float = 0.0                # waiting for a free request slot or an endpoint's Retry-After
    retries: list[dict[str, Any]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)

    def add(self, other: _Tally) -> None:
        """Counts `other`'s calls in (its replies are logged on their own)."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.cached_tokens += other.cached_tokens
        self.calls += other.calls
        self.seconds += other.seconds
        self.queued += other.queued
        self.retries += other.retries


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens. cached_input and reasoning default to input and output."""

    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None
    reasoning: float | None = None

    def cost(self, prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> float:
        """The cost of a usage: cached prompt tokens at the cached rate, reasoning tokens (which
        endpoints count in the completion tokens) at the reasoning rate."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        reasoning_rate = self.output if self.reasoning is None else self.reasoning
        return ((prompt - cached) * self.input + cached * cached_rate
                + (completion - reasoning) * self.output + reasoning * reasoning_rate) / 1e6

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in (("input", self.input), ("cached_input", self.cached_input),
                                  ("output", self.output), ("reasoning", self.reasoning)) if v is not None}


def load_prices(source: str | dict) -> dict[str, Price]:
    """A price table: a JSON file (or its parsed dict) mapping model names to US dollars per million
    tokens, e.g. {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10}}. A model is priced
    by its own name, else by the longest name in the table that starts it ("gpt-4o" prices
    "gpt-4o-2024-08-06"). Raises ValueError on a malformed table."""
    if isinstance(source, dict):
        table = source
    else:
        try:
            with open(source, encoding="utf-8") as f:
                table = json.load(f)
        except OSError as e:
            raise ValueError(f"cannot read the price table {source}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"the price table {source} is not JSON: {e}") from None
    if not isinstance(table, dict):
        raise ValueError("a price table maps model names to prices")
    prices = {}
    for model, entry in table.items():
        if not isinstance(entry, dict) or not set(entry) <= set(PRICE_KEYS) or not all(
                isinstance(v, (int, float)) and v >= 0 for v in entry.values()):
            raise ValueError(f"the price of {model!r} must map {', '.join(PRICE_KEYS)} to dollars per million "
                             f"tokens (numbers >= 0), not {entry!r}")
        prices[model] = Price(**{k: float(v) for k, v in entry.items()})
    return prices


def price_of(model: str, prices: dict[str, Price]) -> Price | None:
    """`model`'s price in the table: its own entry, else the longest entry that prefixes it."""
    if model in prices:
        return prices[model]
    prefixes = [name for name in prices if model.startswith(name)]
    return prices[max(prefixes, key=len)] if prefixes else None


@dataclass
class _Heard:
    """The public lines of one match (what was said, round results) as (number, speaker seat or None,
    text), numbered from the match's start; the latest HEARD_KEPT are kept."""

    lines: deque = field(default_factory=lambda: deque(maxlen=HEARD_KEPT))
    count: int = 0

    def add(self, event: EventView) -> None:
        if event.kind == "message" and event.seats:
            self.lines.append((self.count, event.seats[0], str(event.data.get("text", event.text))))
        elif event.kind == "round_resolved":
            self.lines.append((self.count, None, event.text))
        else:
            return
        self.count += 1

    def since(self, mark: int, view: DecisionView | None) -> list[str]:
        """The lines numbered `mark` or later, with speakers named as the game names them."""
        return [f"{probe_prompts.seat_name(view, seat)}: {text}" if seat is not None else text
                for number, seat, text in self.lines if number >= mark]


@dataclass
class _PgmMemory:
    """One seat's PGM state in one match: its latest analyses and its numeric belief."""

    analyses: list[str] = field(default_factory=list)
    belief: pgm_prompts.Belief | None = None


class LLMAgent(Agent):
    """Plays every decision by asking `model` through the OpenAI chat-completions API.

    style: "auto" (by game and preset, see prompts.style_for), "generic", "gtbench", "llmarena",
      "gamabench" or "gamebench". preset: the parameter preset the agent plays, which names the suite for "auto".
    reasoning: "plain" (answer only), "cot" (think step by step, then answer) or "self-consistency"
      (`samples` step-by-step replies, majority vote over the actions they name). A style may ask for
      the reasoning in a call of its own (GameBench's CoT: the reasoning, then the answer in JSON mode).
    temperature, max_tokens: None uses the style's paper settings (generic: the endpoint's defaults).
    seed: sent to the endpoint (sample i of self-consistency gets seed + i).
    max_attempts, retry_delay, max_retry_delay: retries of one request on rate limits (429), server
      errors (5xx), timeouts and dropped connections, with exponential back-off from `retry_delay`
      seconds, or the server's Retry-After, never waiting past the decision's deadline. max_attempts
      None (the default): as many tries as the deadline allows (6 without a deadline); a number caps
      them. An endpoint that refuses connections 6 times in a row is taken to be down.
    max_concurrency: requests in flight at most (others wait), and the connection pool's size.
    prices: a per-model price table (see load_prices: a dict of Price, a dict as in the JSON file, or
      the file's path); price_per_1k_input/output: US dollars per 1000 prompt/completion tokens,
      which override the table's input and output prices when given (non-zero).
    http_client: "aiohttp" (openai's aiohttp extra: less CPU time per request), "httpx" (the openai
      package's own transport), or "auto" (the default): aiohttp where it is installed, else httpx.
    log_prompts: False keeps the prompts out of the decision metadata (replies and counts stay).
    vision: the model reads images: the server sends pictures of the view where a game renders one
      (Hive's board), and they go with the decision's prompt as image parts of its last user message
      (OpenAI's chat format, as data URLs). Logged prompts name each image instead of holding it.
    probes: answer the metric questions games ask during a match (the "probes" capability); False
      declares no such capability (the instance is then of a subclass without answer_probe).
    pgm: MAgIC's PGM-aware agent in its games (prompts.pgm): an analysis call before the decision.
    """

    name = "llm"
    description = "a language model over an OpenAI-compatible API"

    def __new__(cls, *args, probes: bool = True, **kwargs):
        # The session declares "probes" when the agent's class overrides answer_probe.
        made = _LLMAgentWithoutProbes if not probes and cls is LLMAgent else cls
        return super().__new__(made)

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str = "", style: str = AUTO,
                 preset: str = "", reasoning: str = "plain", samples: int | None = None,
                 temperature: float | None = None, max_tokens: int | None = None, seed: int | None = None,
                 max_reasks: int = 2, max_attempts: int | None = None, retry_delay: float = 1.0,
                 max_retry_delay: float = 60.0, request_timeout: float = 120.0, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
                 prices: dict | str | None = None, price_per_1k_input: float = 0.0, price_per_1k_output: float = 0.0,
                 http_client: str = "auto", log_prompts: bool = True, vision: bool = False, probes: bool = True,
                 pgm: bool = False):
        if reasoning not in REASONING_MODES:
            raise ValueError(f"reasoning must be one of {', '.join(REASONING_MODES)}, not {reasoning!r}")
        if samples is not None and reasoning != "self-consistency":
            raise ValueError("samples apply only to self-consistency reasoning")
        style_for(style, "")            # refuses an unknown style now rather than at the first decision
        self.samples = (samples or 5) if reasoning == "self-consistency" else 1
        if (self.samples < 1 or max_reasks < 0 or (max_attempts is not None and max_attempts < 1) or retry_delay < 0
                or request_timeout <= 0 or max_concurrency < 1 or price_per_1k_input < 0 or price_per_1k_output < 0):
            raise ValueError("samples, max_attempts and max_concurrency must be at least 1, max_reasks, retry_delay "
                             "and prices not negative, request_timeout positive")
        if http_client not in HTTP_CLIENTS:
            raise ValueError(f"http_client must be one of {', '.join(HTTP_CLIENTS)}, not {http_client!r}")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.style = style
        self.preset = preset
        self.reasoning = reasoning
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.max_reasks = max_reasks
        self.max_attempts = max_attempts
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.request_timeout = request_timeout
        self.max_concurrency = max_concurrency
        self.http_client = http_client
        table = prices if isinstance(prices, dict) and all(isinstance(v, Price) for v in prices.values()) \
            else load_prices(prices) if prices is not None else {}
        self.prices: dict[str, Price] = table
        price = price_of(model, table) or Price()
        if price_per_1k_input:
            price = Price(price_per_1k_input * 1000, price.output, price.cached_input, price.reasoning)
        if price_per_1k_output:
            price = Price(price.input, price_per_1k_output * 1000, price.cached_input, price.reasoning)
        self.price = price
        self.log_prompts = log_prompts
        self.wants_images = vision
        self.probes = probes
        self.pgm = pgm
        self._json_mode = True                           # the endpoint takes response_format (until it refuses)
        self.version = model
        self._client = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None     # requests in flight, per event loop like the client
        self._response_class = None                      # the HTTP library's Response: posts return it raw
        self._paused_until = 0.0                         # time.monotonic() before which no request starts
        self.in_flight = 0                               # requests open now, and the most at once
        self.max_in_flight = 0
        self._conversations: dict[tuple[str, int], list[tuple[str, str]]] = {}
        # For probes: each seat's match and latest view (with how many public lines it had heard),
        # and each match's public lines.
        self._seated: dict[tuple[str, int], MatchView] = {}
        self._latest: dict[tuple[str, int], tuple[DecisionView, int]] = {}
        self._heard: dict[str, _Heard] = {}
        self._pgm_memory: dict[tuple[str, int], _PgmMemory] = {}
        self._failure: ModelUnavailable | None = None
        self._failed = asyncio.Event()
        self._supervised = False

    # ---- the Agent interface ---------------------------------------------------------------------

    async def decide(self, request: DecisionView) -> Choice:
        if self.probes:
            heard = self._heard.get(request.match_id)
            self._latest[(request.match_id, request.seat)] = (request, heard.count if heard else 0)
        try:
            if self._failure is not None:
                raise self._failure
            return await self._decide(request)
        except ModelUnavailable as e:
            self._fail(e)
            if self._supervised:
                # `play` is ending the session and cancels this task with it; raising would only
                # log a traceback for a failure that is reported once, as one line.
                await asyncio.Event().wait()
            raise

    def on_match_start(self, match: MatchView) -> None:
        if self.probes:
            self._seated[(match.match_id, match.seat)] = match

    def on_event(self, event: EventView) -> None:
        # Only what probes need: what was said after a seat's latest view (see prompts.probe).
        self._heard.setdefault(event.match_id, _Heard()).add(event)

    def on_match_end(self, result: ResultView) -> None:
        key = (result.match_id, result.seat)
        for memory in (self._conversations, self._seated, self._latest, self._pgm_memory):
            memory.pop(key, None)
        if not any(match_id == result.match_id for match_id, _ in self._latest.keys() | self._seated.keys()):
            self._heard.pop(result.match_id, None)

    async def answer_probe(self, probe: ProbeView) -> str | None:
        """The model's answer to a metric question; None when it could not be had in time."""
        if self._failure is not None:
            return None
        key = (probe.match_id, probe.seat)
        view, mark = self._latest.get(key, (None, 0))
        match = self._seated.get(key)
        game_id = view.game_id if view else match.game_id if match else ""
        heard = self._heard.get(probe.match_id)
        messages = probe_prompts.messages(probe, game_id, view, heard.since(mark, view) if heard else [],
                                          match.parameters if match else None)
        deadline = None
        if probe.deadline is not None:
            left = (probe.deadline - datetime.now(timezone.utc)).total_seconds()
            if left <= 0:
                return None
            deadline = time.monotonic() + left - min(1.0, 0.2 * left)
        sampling = self._sampling(style_for(self.style, game_id, self.preset))
        try:
            reply = await self._complete(messages, self._params(sampling), _Tally(), deadline)
        except ModelUnavailable as e:
            self._fail(e)
            return None
        except ModelError as e:
            log.warning("probe %s of match %s unanswered: %s", probe.probe_id, probe.match_id, e)
            return None
        return probe_prompts.answer(probe, reply)

    def _fail(self, error: ModelUnavailable) -> None:
        self._failure = error
        self._failed.set()

    async def play(self, session) -> list[ResultView]:
        """Runs `session` (a Session with this agent) after checking the endpoint, and ends it with
        ModelUnavailable as soon as the endpoint fails for good, instead of failing every decision."""
        try:
            await self.check_endpoint()
        except ModelUnavailable:
            await self.aclose()          # an aiohttp pool left open is reported when its loop ends
            raise
        self._supervised = True
        run = asyncio.ensure_future(session.run())
        failed = asyncio.ensure_future(self._failed.wait())
        try:
            await asyncio.wait({run, failed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            failed.cancel()
            if not run.done():
                run.cancel()
            await asyncio.gather(run, return_exceptions=True)
            await self.aclose()
        if self._failure is not None:
            raise self._failure
        return run.result()

    async def check_endpoint(self) -> None:
        """Raises ModelUnavailable when the endpoint is unreachable or refuses the key. Listing the
        models is the cheapest authenticated call; an endpoint without that route still passes."""
        openai = _openai()
        try:
            await self._api().with_options(timeout=min(self.request_timeout, 30.0)).models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
            raise self._refused(e) from None
        except openai.APIConnectionError as e:
            raise ModelUnavailable(f"cannot reach the model endpoint {self._endpoint()}: {_cause(e)}") from None
        except openai.APIStatusError:
            pass

    # ---- one decision ------------------------------------------------------------------------------

    async def _decide(self, request: DecisionView) -> Choice:
        started = time.monotonic()
        deadline = None
        if request.time_remaining is not None:
            # leave time for the answer to travel back to the referee
            deadline = started + request.time_remaining - min(1.0, 0.2 * request.time_remaining)
        if len(request.legal_actions) == 1 and not request.message_wanted:
            return Choice(action_id=request.legal_actions[0].action_id, extra={"forced": True, "model": self.model})
        style = style_for(self.style, request.game_id, self.preset)
        key = (request.match_id, request.seat)
        think = self.reasoning != "plain"
        prompt = style.build(request, think, self._conversations.get(key, ()))
        sampling = self._sampling(style, prompt)
        tally = _Tally()
        messages = list(prompt.messages)
        pgm: dict[str, Any] | None = None
        plan = pgm_prompts.Plan()
        if self.pgm and pgm_prompts.due(request):
            pgm, plan, section = await self._analyse(request, sampling, tally, deadline)
            if section:
                messages[-1] = pgm_prompts.with_section(messages[-1], section)
        if self.wants_images and request.images:
            messages[-1] = _with_images(messages[-1], request.images)
        thought = None
        then = getattr(prompt, "then", None)     # a style that asks for the reasoning in a call of its own
        if then is not None:
            # GameBench's CoT: the reasoning (free text, at most half the time left), then `then` asks for the answer.
            limit = None if deadline is None else time.monotonic() + (deadline - time.monotonic()) / 2
            free = {k: v for k, v in sampling.items() if k != "response_format"}
            thought = await self._complete(messages, self._params(free), tally, limit)
            messages += [{"role": "assistant", "content": thought}, {"role": "user", "content": then}]
        feedback: list[str] = []
        votes: dict[str, int] = {}
        # A suite may re-ask some games less (LLMArena's Hanabi: once); the agent's bound still holds.
        max_reasks = self.max_reasks if prompt.max_reasks is None else min(self.max_reasks, prompt.max_reasks)
        while True:
            replies = await self._sample(messages, sampling, tally, deadline)
            readings = [prompt.read(reply) for reply in replies]
            chosen = majority(readings)
            reply, reading = replies[chosen], readings[chosen]
            if self.samples > 1:
                for r in readings:
                    label = r.action.text if r.action else "(unreadable)"
                    votes[label] = votes.get(label, 0) + 1
            if reading.action is not None or not request.legal_actions or len(feedback) >= max_reasks \
                    or (deadline is not None and time.monotonic() >= deadline):
                break
            feedback.append(prompt.feedback(reading))
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback[-1]}]
        if prompt.keep is not None:
            self._conversations.setdefault(key, []).append((prompt.keep, reply))
        if plan.vote is not None:
            # The belief's vote (magic.md §6 A15); the model's stands when the belief ties.
            voted = pgm_prompts.vote_action(request, plan.vote)
            if voted is not None:
                pgm["vote"] = {"belief": voted.text, "model": reading.action.text if reading.action else None}
                reading = Reading(voted, reading.answer)
        return self._choice(request, prompt, reading, reply, messages, tally, sampling, feedback, votes, pgm, thought)

    def _sampling(self, style: Style, prompt: Prompt | None = None) -> dict:
        sampling = {"temperature": style.temperature if self.temperature is None else self.temperature,
                    "max_tokens": style.max_tokens if self.max_tokens is None else self.max_tokens,
                    "seed": self.seed}
        # JSON mode (GameBench's) for the style's own prompts, while the endpoint accepts it.
        response_format = getattr(style, "response_format", None)
        if response_format and prompt is not None and prompt.style == style.name and self._json_mode:
            sampling["response_format"] = response_format
        return sampling

    def _params(self, sampling: dict, sample: int = 0) -> dict:
        """The request's sampling parameters; sample i of self-consistency gets seed + i."""
        chosen = {k: v for k, v in sampling.items() if v is not None}
        if self.seed is not None:
            chosen["seed"] = self.seed + sample
        return chosen

    async def _analyse(self, request: DecisionView, sampling: dict, tally: _Tally,
                       deadline: float | None) -> tuple[dict[str, Any], pgm_prompts.Plan, str]:
        """The PGM analysis call: its metadata, the plan it gives and the section for the decision
        prompt ("" when the analysis failed: the decision is then made without it)."""
        key = (request.match_id, request.seat)
        memory = self._pgm_memory.setdefault(key, _PgmMemory())
        if request.attempt > 0 and memory.analyses:
            # The referee asks the same decision again: the analysis of this state stands.
            plan = pgm_prompts.plan(request, memory.belief, memory.analyses[-1])
            return ({"analysis": memory.analyses[-1], "reused": True}, plan,
                    pgm_prompts.decision_section(request, memory.analyses, plan))
        messages = pgm_prompts.analysis_messages(request)
        record: dict[str, Any] = {"prompt": messages} if self.log_prompts else {}
        own = _Tally()
        # At most half the time left, so that the decision keeps the rest.
        limit = None if deadline is None else time.monotonic() + (deadline - time.monotonic()) / 2
        try:
            analysis = await self._complete(messages, self._params(sampling), own, limit)
        except ModelError as e:
            record["error"] = str(e)
            return record, pgm_prompts.Plan(), ""
        finally:
            tally.add(own)
        record["analysis"] = analysis
        memory.analyses = (memory.analyses + [analysis])[-pgm_prompts.KEPT.get(request.game_id, 1):]
        plan = pgm_prompts.Plan()
        if request.game_id in pgm_prompts.SOCIAL_GAMES:
            if memory.belief is None:
                memory.belief = pgm_prompts.Belief.initial(request)
            factors = pgm_prompts.factors(request, analysis)
            memory.belief.update(factors)
            plan = pgm_prompts.plan(request, memory.belief, analysis)
            names = pgm_prompts.names(request)
            record.update(factors=factors, belief=memory.belief.rounded(), role=plan.role,
                          target=names[plan.target] if plan.target is not None else None)
        record["kept"] = len(memory.analyses)
        return record, plan, pgm_prompts.decision_section(request, memory.analyses, plan)

    def _choice(self, request: DecisionView, prompt: Prompt, reading: Reading, reply: str, messages: list,
                tally: _Tally, sampling: dict, feedback: list[str], votes: dict[str, int],
                pgm: dict[str, Any] | None = None, thought: str | None = None) -> Choice:
        extra: dict[str, Any] = {
            "model": self.model, "style": prompt.style, "reasoning_mode": self.reasoning, "samples": self.samples,
            "sampling": sampling, "responses": tally.replies, "answer": reading.answer, "reasks": len(feedback),
            "feedback": feedback, **self._usage(tally),
        }
        if pgm is not None:
            extra["pgm"] = pgm
        if self.log_prompts:
            extra["prompt"] = [_loggable(m) for m in messages]
        if votes:
            extra["votes"] = votes
        if request.feedback:
            extra["referee_feedback"] = request.feedback
            extra["referee_attempt"] = request.attempt
        # The reasoning: the reply, or the reasoning call's when the style made one (GameBench's CoT).
        common = dict(reasoning=reply if thought is None else thought,
                      prompt_tokens=tally.prompt_tokens, completion_tokens=tally.completion_tokens,
                      cost_usd=self._cost(tally), extra=extra)
        limit = request.text_action.max_length if request.text_action else SERVER_TEXT_LIMIT
        if prompt.whole_reply:
            # A message turn in the game's own answer layout (talk, then the plan line): the game's
            # read_reply splits the reply into the move and the message, readable or not. Its end,
            # where the move is, is kept when it is too long.
            extra["sent_as"] = "text"
            return Choice(text=(reply or "(empty reply)")[-limit:], **common)
        if reading.action is not None:
            extra["sent_as"] = "action_id"
            return Choice(action_id=reading.action.action_id, message=reading.message, **common)
        extra["sent_as"] = "text"
        if not request.legal_actions:
            return Choice(text=answer_segment(reply)[:limit], **common)
        # Unreadable after the re-asks: the game's own parser gets the answer found, or the whole
        # reply (its end, where answers usually are, when it is too long), and the referee decides.
        text = reading.answer or reply or "(empty reply)"
        return Choice(text=text[-limit:], **common)

    def _cost(self, tally: _Tally) -> float:
        return self.price.cost(tally.prompt_tokens, tally.completion_tokens, tally.cached_tokens,
                               tally.reasoning_tokens)

    def _usage(self, tally: _Tally) -> dict[str, Any]:
        """The accounting logged in every decision's metadata (extra), beside its token counts."""
        usage = {"calls": tally.calls, "model_seconds": round(tally.seconds, 3), "queued_s": round(tally.queued, 3),
                 "reasoning_tokens": tally.reasoning_tokens, "cached_tokens": tally.cached_tokens,
                 "retries": len(tally.retries), "api_retries": tally.retries}
        if self.price.as_dict():
            usage["price_per_1m"] = self.price.as_dict()
        return usage

    async def _sample(self, messages: list, sampling: dict, tally: _Tally, deadline: float | None) -> list[str]:
        """`samples` replies to the same messages, asked concurrently; at least one, or an error."""
        outcomes = await asyncio.gather(*(self._complete(messages, self._params(sampling, i), tally, deadline)
                                          for i in range(self.samples)), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, ModelUnavailable):
                raise outcome
        replies = [o for o in outcomes if isinstance(o, str)]
        if not replies:
            raise next(o for o in outcomes if isinstance(o, BaseException))
        return replies

    async def _complete(self, messages: list, params: dict, tally: _Tally, deadline: float | None) -> str:
        """One reply, retrying rate limits, server errors, timeouts and dropped connections for as long
        as the deadline allows (or max_attempts tries); raises ModelError when none came in time."""
        openai = _openai()
        api = self._api()
        body = {"model": self.model, "messages": messages, **params}
        attempts = self.max_attempts or (None if deadline is not None else NO_DEADLINE_ATTEMPTS)
        last = ""
        failures = refused_connections = 0
        attempt = 0
        while attempts is None or attempt < attempts:
            attempt += 1
            # Wait for a request slot and for any Retry-After the endpoint gave (to any request).
            queued = time.monotonic()
            if not await self._acquire(deadline):
                tally.queued += time.monotonic() - queued
                break
            tally.queued += time.monotonic() - queued
            started = time.monotonic()
            timeout = self.request_timeout if deadline is None else min(self.request_timeout, deadline - started)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                if timeout <= 0:
                    break
                response = await api.post("/chat/completions", cast_to=self._response_class, body=body,
                                          options={"timeout": timeout})
                reply = self._record(response, tally)
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise self._refused(e) from None
            except openai.NotFoundError as e:
                raise ModelUnavailable(f"the model endpoint {self._endpoint()} answered 404 for model {self.model!r} "
                                       f"({_message(e)}): check --base-url and --model") from None
            except openai.APIConnectionError as e:       # timeouts included
                refused_connections = refused_connections + 1 if _refused_connection(e, openai) else 0
                last, wait, told = f"{type(e).__name__}: {_cause(e)}", self._backoff(attempt), False
            except openai.APIStatusError as e:
                refused_connections = 0
                if e.status_code == 400 and "response_format" in body:
                    # An endpoint without JSON mode: asked again without it, as every later request is.
                    self._json_mode = False
                    body = {k: v for k, v in body.items() if k != "response_format"}
                    last, wait, told = f"400: {_message(e)} (asked again without JSON mode)", 0.0, False
                elif e.status_code not in (408, 409, 429) and e.status_code < 500:
                    raise ModelError(f"{self._endpoint()} refused the request ({e.status_code}): {_message(e)}") \
                        from None
                else:
                    wait = _retry_after(e.response.headers)
                    told = wait is not None
                    wait = self._backoff(attempt) if wait is None else min(wait, self.max_retry_delay)
                    last = f"{e.status_code}: {_message(e)}"
            except ValueError as e:                       # not JSON, or not a chat completion
                refused_connections = 0
                last, wait, told = f"unreadable answer: {e}", self._backoff(attempt), False
            else:
                return reply
            finally:
                self.in_flight -= 1
                self._slots.release()
                tally.seconds += time.monotonic() - started
            failures += 1
            tally.retries.append({"attempt": attempt, "problem": last, "wait_s": round(wait, 3)})
            if refused_connections >= UNREACHABLE_ATTEMPTS:
                raise ModelUnavailable(f"cannot reach the model endpoint {self._endpoint()}: {last}")
            if told:      # the endpoint named its wait: every request of this agent holds back until then
                self._paused_until = max(self._paused_until, time.monotonic() + wait)
            if (attempts is not None and attempt >= attempts) or (
                    deadline is not None and time.monotonic() + wait >= deadline):
                break
            await asyncio.sleep(wait)
        if refused_connections and refused_connections == failures and failures >= (attempts or UNREACHABLE_ATTEMPTS):
            raise ModelUnavailable(f"cannot reach the model endpoint {self._endpoint()}: {last}")
        raise ModelError(f"no reply from {self._endpoint()} in time after {failures} failed attempts"
                         + (f" (last: {last})" if last else ""))

    async def _acquire(self, deadline: float | None) -> bool:
        """Takes a request slot once the endpoint's last Retry-After has passed; False (and no slot)
        when the deadline comes first."""
        while True:
            pause = self._paused_until - time.monotonic()
            if pause > 0:
                if deadline is not None and time.monotonic() + pause >= deadline:
                    return False
                await asyncio.sleep(pause)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            try:
                await asyncio.wait_for(self._slots.acquire(), left) if left is not None and self._slots.locked() \
                    else await self._slots.acquire()
            except asyncio.TimeoutError:
                return False
            if self._paused_until <= time.monotonic():
                return True
            self._slots.release()        # a Retry-After came while this request waited for its slot

    def _record(self, response, tally: _Tally) -> str:
        """The reply's text, its usage counted into `tally`. Raises ValueError when the answer is not
        a chat completion."""
        try:
            data = json.loads(response.content)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"not JSON ({e})") from None
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        tally.calls += 1
        usage = data.get("usage") or {}
        if isinstance(usage, dict):
            tally.prompt_tokens += _count(usage.get("prompt_tokens"))
            tally.completion_tokens += _count(usage.get("completion_tokens"))
            prompt_details = usage.get("prompt_tokens_details") or {}
            completion_details = usage.get("completion_tokens_details") or {}
            tally.cached_tokens += _count(prompt_details.get("cached_tokens") if isinstance(prompt_details, dict)
                                          else None) or _count(usage.get("prompt_cache_hit_tokens"))
            tally.reasoning_tokens += _count(completion_details.get("reasoning_tokens")
                                             if isinstance(completion_details, dict) else None)
        choices = data.get("choices") or []
        message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
        text = (message.get("content") or "") if isinstance(message, dict) else ""
        if isinstance(text, list):       # content parts
            text = "".join(part.get("text", "") for part in text if isinstance(part, dict))
        tally.replies.append(text)
        return text

    def _backoff(self, attempt: int) -> float:
        """Exponential, with jitter so that many matches do not retry in step."""
        delay = min(self.max_retry_delay, self.retry_delay * 2 ** (attempt - 1))
        return delay * random.uniform(0.5, 1.0)

    # ---- the client ----------------------------------------------------------------------------------

    def _api(self):
        # One client per event loop: its connection pool belongs to the loop that opened it.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            openai = _openai()
            # Our own retry loop handles 429/5xx (bounded by each decision's deadline), so the SDK's is off.
            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                                              timeout=self.request_timeout, http_client=self._http_client(openai))
            self._client_loop = loop
            self._slots = asyncio.Semaphore(self.max_concurrency)
            self._response_class = _http_module(openai).Response
        return self._client

    def _http_client(self, openai):
        """An HTTP client whose pool keeps `max_concurrency` connections open (the SDK's default
        keeps 100), on the transport asked for."""
        if not hasattr(openai, "DefaultAsyncHttpxClient"):
            return None                    # openai before 1.17: its own client and pool
        http = _http_module(openai)
        limits = http.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
        options = dict(limits=limits, timeout=self.request_timeout)
        if self.http_client != "httpx":
            try:
                return openai.DefaultAioHttpClient(**options)
            except (AttributeError, RuntimeError):     # an openai package without it, or aiohttp missing
                if self.http_client == "aiohttp":
                    raise ModelUnavailable("the aiohttp transport needs openai's aiohttp extra: "
                                           "pip install -U 'openai[aiohttp]', or use httpx") from None
        return openai.DefaultAsyncHttpxClient(**options)

    async def aclose(self) -> None:
        """Closes the HTTP client of the running event loop (its open connections)."""
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.close()

    def _endpoint(self) -> str:
        return str(self._api().base_url).rstrip("/")

    def _refused(self, error) -> ModelUnavailable:
        return ModelUnavailable(f"the model endpoint {self._endpoint()} refused the API key "
                                f"({error.status_code}: {_message(error)})")


def _with_images(message: dict, images: list[tuple[str, bytes]]) -> dict:
    """The user message with the images after its text, as OpenAI's content parts."""
    parts = [{"type": "text", "text": message["content"]}]
    parts += [{"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}}
              for mime, data in images]
    return {**message, "content": parts}


def _loggable(message: dict) -> dict:
    """A message as logged: each image part named by its type and size, not carried."""
    if isinstance(message.get("content"), str):
        return message
    parts = []
    for part in message["content"]:
        if part.get("type") == "image_url":
            url = part["image_url"]["url"]
            head, _, data = url.partition(",")
            part = {"type": "image_url", "image_url": {"url": f"{head},<{len(data) * 3 // 4} bytes>"}}
        parts.append(part)
    return {**message, "content": parts}


def _http_module(openai):
    """The HTTP library the openai package is built on (httpx, or httpx2 in its later versions)."""
    for base in getattr(openai, "DefaultAsyncHttpxClient", object).__mro__:
        if base.__name__ == "AsyncClient":
            return importlib.import_module(base.__module__.partition(".")[0])
    import httpx
    return httpx


def _refused_connection(error, openai) -> bool:
    """Whether a connection error says the endpoint is not there (refused, unreachable, unknown
    host) rather than slow: the transports wrap the socket's error differently (aiohttp's reports a
    refused connection as a connect timeout)."""
    seen = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH):
            return True
        if isinstance(seen, ConnectionRefusedError) or "Connect call failed" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return not isinstance(error, openai.APITimeoutError)


def _count(value) -> int:
    """A token count from a usage object: 0 where the endpoint gives none (or nonsense)."""
    return value if isinstance(value, int) and value > 0 else 0


def _openai():
    try:
        import openai
    except ImportError:
        raise ModelUnavailable("the LLM agent needs the openai package: pip install 'arena[llm]' "
                               "(or pip install openai)") from None
    return openai


def _retry_after(headers) -> float | None:
    """Seconds the server asks to wait: retry-after-ms, or Retry-After in seconds or as an HTTP date."""
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _message(error) -> str:
    """The error message of an API error body, or its text."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(error, "message", "") or error)


def _cause(error: BaseException) -> str:
    """The root cause of a connection error ("Connection refused"), which the SDK wraps."""
    while error.__cause__ is not None:
        error = error.__cause__
    return str(error) or type(error).__name__


class _LLMAgentWithoutProbes(LLMAgent):
    """An LLMAgent made with probes=False: the base class's answer_probe (so the session declares
    no "probes" capability) and no MatchEvents, which only probes read."""

    answer_probe = Agent.answer_probe
    on_event = Agent.on_event
