"""Pirate Game, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, gamabench.md §2.8): a
multi-player ultimatum game (Goodin 1998; Stewart 1999).

Rules. N pirates ("players", 2-100), ranked by seniority, found G gold coins ("gold", 1-1000000).
Seat k is pirate k + 1: seat 0 is the most senior. Each round the most senior pirate still aboard
(the proposer) says how to split the G coins among the pirates aboard; then every other pirate
aboard votes, all at once and in secret, to accept or reject. The proposer's own accept is
automatic. The plan passes when at least half of the pirates aboard accept (accepts / aboard >= 0.5,
the proposer counted), and the coins are then paid as proposed and the game ends; otherwise the
proposer is thrown overboard and the next most senior pirate proposes. With two pirates aboard the
proposer's own accept is already half, so the game ends by round N - 1 at the latest. Returns: the
coins a pirate received; a pirate thrown overboard gets -1, below every outcome in which it
survives (survival is every pirate's first priority, §2.8; the third, seeing others thrown overboard,
is not scored).

Decisions and actions. A proposal turn has one legal action, PROPOSE (id 0, text "propose"), and
carries a message: the written proposal (dialogue). Votes are simultaneous: ACCEPT (id 1, "accept")
or REJECT (id 2, "reject") for each pirate aboard other than the proposer. The game's dynamics are
"simultaneous" in OpenSpiel's sense (some nodes are simultaneous); GAMA-Bench calls it a sequential
game because one proposal follows another.

Proposals (check_message). A split of G into whole non-negative numbers, one per pirate aboard,
summing to G, written in either of GAMA-Bench's formats (§2.8, §6 item 5): the paper's rank-keyed
map {"3": "50", "4": "1", ..., "10": "44"} (keys are the pirates' ranks, from the proposer's own to
N) or the code's {"proposal": {"3-th": "50", ..., "10-th": "44"}}. Values may be strings or JSON
numbers; keys may also read "3rd", "pirate 3" or "pirate_3". Chatter around the JSON is tolerated: the
first JSON object that holds a proposal is read (single-quoted JSON too). check_message returns the
canonical text, the paper's format with the ranks in order and string values, e.g.
{"1": "96", "2": "0", "3": "1", ...}; the canonical text of a canonical text is itself, and that text
is what the conversation and the log keep. Proposals are public: every seat hears them.

Votes (parse_action). GAMA-Bench's {"decision": "accept"} / {"decision": "reject"}: the first JSON
object holding "decision" (single quotes tolerated); its value must contain "accept" or "reject"
(the code's check) but not both. The bare words "accept" and "reject" are read too. At a proposal
turn parse_action reads "propose" or a whole proposal (then PROPOSE; the referee reads the proposal
itself as the message through read_reply).

Information. Every seat sees the rules, its own rank, each proposal (the conversation), each round's
number of accepts and its outcome, and its own votes; never how another pirate voted (only the counts
are announced, §2.8). A pirate thrown overboard keeps seeing this public record. `public_history`
holds each proposal and one summary per vote. `result_details` reveals every vote at the end.
`resample_hidden(seat, seed)` redraws which of the other voters accepted in each finished round, the
counts kept; `Game.state_from_view` rebuilds a state (conversation included) from a seat's view.

Fallbacks (§2.9). `default_message` at a proposal turn is the equal split of G among the pirates
aboard with the remainder to the proposer; `default_action` is PROPOSE there and REJECT for a vote.

Scoring (`gamabench_score`, §4.1-4.3 and the data README). Per round j with n_j pirates aboard and
proposal P_j (proposer first): L1_j = sum_p |100 * P_j[p] / G - O_j[p]|, with O_j the optimal plan on
a 100-gold scale (1 coin to relative positions 2, 4, 6, ..., the rest to the proposer); S8P = mean of
L1_j. A vote of the pirate at relative position p >= 1 offered g coins is correct when g >= 2 and it
accepts, or g = 0 and it rejects, or g = 1, p is even and it accepts; with g = 1 at an odd p the
"code" parity credit (default) counts neither vote correct, the "stated" one (Stewart's rule) counts
a reject. S8V = correct votes / sum_j (n_j - 1), pooled over the rounds and rounded to 2 decimals;
score = 50 * (200 - S8P) / 200 + 50 * S8V. `gamabench_history(run)` turns a released log into
(parameters, history, messages) to replay here: messages maps the index of each proposal's history
item to its canonical text.

Presets (10 pirates, answers as above):
  - "gamabench": the vanilla setting, G = 100 (Tables 1, 2 and 5-8).
  - "gamabench_g4", "gamabench_g5", "gamabench_g400": Table 9's variations of G (4, 5 and 400 gold;
    the paper's RQ3 generalisation study, scores 73.8, 47.3 and 83.6).

Ambiguities (gamabench.md §6; resolutions as recommended unless said otherwise):
  - Item 5, threshold: a plan passes at accepts / aboard >= 0.5 with the proposer's automatic accept
    counted ("at least half", §2.3 of the paper and the code), not a strict majority.
  - Item 5, the proposer's vote: never asked; it is an automatic accept and is left out of S8V.
  - Item 5, pooled S8V: votes are pooled over the rounds (reproduces 80.5).
  - Item 5, invalid proposals: a sum other than G, a missing or unknown pirate, a negative or
    fractional share are refused (TextRejectedError, which the referee answers by re-asking).
    Negative shares, which the code did not check, are always refused, as item 5 recommends, so the
    game has no "strict_ranges" switch (§2.9 offers one only for this check).
  - Item 5, L1 normalisation: proposals are rescaled to 100 gold before the L1 distance, so 2G is
    effectively 200 whatever G is (§4.2).
  - Item 5, the 1-gold other-parity credit: the switch pirate_parity_credit has "code" and "stated".
    Its default is "code", not the "stated" default that §4.3 and item 5 recommend, because the brief
    asks that the scorer's defaults reproduce the paper's tables and only "code" does: Table 9's
    G = 5 run scores 47.33 with it (paper 47.3) and 49.33 with "stated". No other released run
    differs.
  - Item 5, answer formats: both the paper's rank-keyed map and the code's {"proposal": {"k-th": ...}}
    are read.
  - Item 20 and §4.2: pirate_voter_denominator="legacy_bug" reproduces the scorer of the 7 models
    added in August 2024 (denominator sum_j (n_j - 1)^2, accuracy not rounded; Gemini-1.5-Pro 53.7);
    "correct" (default) is sum_j (n_j - 1). pirate_vote_accuracy_rounding ("2dp" or "unrounded";
    default: what the chosen denominator's scorer did) overrides the rounding.
  - Item 1 and §2.9: re-asking is the referee's business; its fallbacks are default_message (equal
    split, remainder to the proposer) and default_action (REJECT for a vote).
  - Arena choice: the proposal message is required (text_action_spec says so and shows the equal
    split as its example); a proposal turn without one, or with an invalid one, is refused with the
    reason and asked again, then the failure policy plays the fallback split. Search, which writes no
    text, proposes that same split at the C level.
  - Arena choice: a pirate thrown overboard scores -1 (see Rules) and keeps watching the public
    record; the reference gives neither.

The spec's max_game_length is a bound over all parameter values: two moves (a proposal and a vote)
per round, at most N - 1 rounds.
"""

from libc.string cimport memcpy

import json
import random as _random
import re

from arena_engines.core cimport SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import SIMULTANEOUS, ActionParseError, TextRejectedError
from arena_engines.parsing import check_seat
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_GOLD = 1000000
    C_PROPOSE = 0
    C_ACCEPT = 1
    C_REJECT = 2
    PROPOSING = 0              # phases of a round
    VOTING = 1
    SETTLED = 2                # a plan passed: the game is over

PROPOSE = C_PROPOSE
ACCEPT = C_ACCEPT
REJECT = C_REJECT
_ACTION_TEXT = {C_PROPOSE: "propose", C_ACCEPT: "accept", C_REJECT: "reject"}

PARITY_CREDITS = ("code", "stated")
VOTER_DENOMINATORS = ("correct", "legacy_bug")
ACCURACY_ROUNDINGS = ("2dp", "unrounded")

PROPOSAL_MAX_LENGTH = 8000     # room for a chain of thought around the JSON of 100 pirates
VOTE_MAX_LENGTH = 4000

_GAMABENCH = {"players": 10, "gold": 100}


def _table9(gold: int, score: float) -> Preset:
    return Preset(f"gamabench_g{gold}",
                  f"GAMA-Bench Table 9 (RQ3, varying G): Pirate Game with G = {gold} gold (paper score {score}); "
                  "otherwise the vanilla setting (10 pirates, proposals as JSON maps from rank to gold, votes "
                  "{\"decision\": \"accept\"}).",
                  {**_GAMABENCH, "gold": gold})


SPEC = GameSpec(
    game_id="pirate_game",
    display_name="Pirate Game",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="imperfect",
    utility="general_sum",
    min_utility=-1.0,
    max_utility=float(MAX_GOLD),
    max_game_length=2 * (MAX_PLAYERS - 1),
    description="The most senior pirate aboard proposes how to split the gold; the others vote in secret. With at "
                "least half accepting (proposer included) the plan is paid; otherwise the proposer is thrown "
                "overboard and the next one proposes. Proposals are written messages; only vote counts are "
                "announced. Returns are coins received, -1 when thrown overboard.",
    parameters=(
        Parameter("players", 10, f"number of pirates, 2-{MAX_PLAYERS}; seat 0 is the most senior"),
        Parameter("gold", 100, f"gold coins G to divide, 1-{MAX_GOLD}"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla Pirate Game: 10 pirates, G = 100 gold; "
               "proposals as JSON maps from rank to gold ({\"1\": \"96\", ...} or {\"proposal\": {\"1-th\": "
               "\"96\", ...}}), votes {\"decision\": \"accept\"} or {\"decision\": \"reject\"}.", _GAMABENCH),
        _table9(4, 73.8),
        _table9(5, 47.3),
        _table9(400, 83.6),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read. The e2e leak test plays the
# first preset with these overrides between random voters and needs a proposer thrown overboard in
# one of its matches to have hidden votes to look for: with 11 pirates a first vote fails with
# probability 0.38, and all 11 matches pass at once with probability 0.005 (0.05 with 10 pirates).
PLAYTHROUGH_OVERRIDES = {None: {"players": 11}}


# ---- proposals as text ----------------------------------------------------------------------------
def proposal_text(int first_rank, shares) -> str:
    """The canonical text of a proposal: the paper's map from rank to gold (string values), ranks in
    order from `first_rank`, the proposer's."""
    return json.dumps({str(first_rank + i): str(int(share)) for i, share in enumerate(shares)})


def equal_split(int aboard, int gold) -> list:
    """GAMA-Bench's documented fallback proposal (§2.9): G shared equally among the pirates aboard,
    the remainder to the proposer (listed first)."""
    shares = [gold // aboard] * aboard
    shares[0] += gold % aboard
    return shares


def optimal_proposal(int aboard, int gold) -> list:
    """The known optimal plan (§2.8, Stewart): 1 coin to each pirate at relative position 2, 4, 6, ...
    (the proposer is position 0), as many as G allows, the rest to the proposer."""
    shares = [0] * aboard
    ones = min(len(range(2, aboard, 2)), gold)
    for position in range(2, 2 + 2 * ones, 2):
        shares[position] = 1
    shares[0] = gold - ones
    return shares


def stewart_accepts(int position, int share) -> bool:
    """The optimal vote (§2.8, Stewart): accept 2 coins or more, reject nothing, and accept a single
    coin only at the proposer's parity (an even relative position)."""
    if share >= 2:
        return True
    if share == 1:
        return position % 2 == 0
    return False


_RANK_KEY = re.compile(r"\s*(?:pirate[\s_-]*)?(\d{1,6})\s*(?:-?\s*(?:th|st|nd|rd))?\s*", re.IGNORECASE)
_WHOLE_NUMBER = re.compile(r"\s*([+-]?)(\d{1,12})\s*")
_DECODER = json.JSONDecoder()


def _decoded_objects(str text):
    """The JSON objects written in `text`, in order (objects nested in a decoded one are skipped)."""
    start = text.find("{")
    while start >= 0:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            yield value
        start = text.find("{", end)


def _json_objects(str text):
    """The JSON objects of `text`, then those of its single-quoted JSON-like writing read with double
    quotes (callers take the first object that fits, so the text as written comes first)."""
    yield from _decoded_objects(text)
    if "'" in text:
        yield from _decoded_objects(text.replace("'", '"'))


def _coins(int count) -> str:
    return "1 coin" if count == 1 else f"{count} coins"


def _rank_of(key):
    match = _RANK_KEY.fullmatch(key) if isinstance(key, str) else None
    return int(match.group(1)) if match else None


def _rank_map(value):
    """The map from ranks to written shares of a proposal object, or None if `value` holds none."""
    if not isinstance(value, dict):
        return None
    for key, inner in value.items():
        if isinstance(key, str) and key.strip().lower() == "proposal" and isinstance(inner, dict):
            value = inner
            break
    ranked = {}
    for key, share in value.items():
        rank = _rank_of(key)
        if rank is not None:
            if rank in ranked:
                raise TextRejectedError(f"pirate {rank} is listed twice")
            ranked[rank] = share
    return ranked or None


def _whole_share(int rank, share) -> int:
    value = None
    if isinstance(share, bool):
        pass                                   # JSON true/false is not a number of coins
    elif isinstance(share, int):
        value = share
    elif isinstance(share, float) and share.is_integer():
        value = int(share)
    elif isinstance(share, str):
        match = _WHOLE_NUMBER.fullmatch(share)
        if match:
            value = int(match.group(1) + match.group(2))
    if value is None:
        raise TextRejectedError(f"pirate {rank}'s share {json.dumps(share)} is not a whole number of coins")
    if value < 0:
        raise TextRejectedError(f"pirate {rank}'s share {value} is negative")
    return value


def proposal_help(int first_rank, int players, int gold) -> str:
    """How to write a proposal for pirates `first_rank`..`players`, with the equal split as example."""
    example = proposal_text(first_rank, equal_split(players - first_rank + 1, gold))
    return (f"Write a JSON map from each pirate's rank to its gold, for pirates {first_rank} to {players}, whole "
            f"non-negative numbers summing to {gold}, e.g. {example}")


def read_proposal(str text, int first_rank, int players, int gold) -> list:
    """The shares (proposer first) written in `text` for pirates `first_rank`..`players`, or
    TextRejectedError saying what is wrong and how to write it."""
    try:
        ranked = next((found for found in map(_rank_map, _json_objects(text)) if found), None)
        if ranked is None:
            raise TextRejectedError("no proposal found")
        unknown = sorted(rank for rank in ranked if not first_rank <= rank <= players)
        if unknown:
            raise TextRejectedError(f"pirate {unknown[0]} is not aboard")
        missing = [rank for rank in range(first_rank, players + 1) if rank not in ranked]
        if missing:
            raise TextRejectedError(f"pirate {missing[0]} is missing")
        shares = [_whole_share(rank, ranked[rank]) for rank in range(first_rank, players + 1)]
        if sum(shares) != gold:
            raise TextRejectedError(f"the shares add up to {sum(shares)}, not {gold}")
    except TextRejectedError as e:
        raise TextRejectedError(f"{e}. {proposal_help(first_rank, players, gold)}") from None
    return shares


_DECISION_FIELD = re.compile(r"""decision["']?\s*:\s*["']?([^"',}]*)""", re.IGNORECASE)
_VOTE_HELP = 'Answer with JSON {"decision": "accept"} or {"decision": "reject"}.'


def _vote_of(str written) -> int:
    value = written.lower()
    cdef bint accepts = "accept" in value
    cdef bint rejects = "reject" in value
    if accepts == rejects:
        raise ActionParseError(f"the decision {written!r} must say accept or reject, and only one. {_VOTE_HELP}")
    return C_ACCEPT if accepts else C_REJECT


def read_vote(str text) -> int:
    """ACCEPT or REJECT from a voter's answer, or ActionParseError with the expected format."""
    found = next((value for value in _json_objects(text) if "decision" in value), None)
    if found is not None:
        if not isinstance(found["decision"], str):
            raise ActionParseError(f"the decision {json.dumps(found['decision'])} is not text. {_VOTE_HELP}")
        return _vote_of(found["decision"])
    match = _DECISION_FIELD.search(text)
    if match:
        return _vote_of(match.group(1))
    bare = text.strip().strip("\"'.!").lower()
    if bare in ("accept", "reject"):
        return C_ACCEPT if bare == "accept" else C_REJECT
    raise ActionParseError(f"could not read a vote from {text[:80]!r}. {_VOTE_HELP}")


# ---- GAMA-Bench scoring and released logs ---------------------------------------------------------
def gamabench_score(parameters: dict, details: dict, *, pirate_voter_denominator: str = "correct",
                    pirate_vote_accuracy_rounding: str | None = None, pirate_parity_credit: str = "code") -> dict:
    """GAMA-Bench's raw scores S8P (proposals) and S8V (votes) and the 0-100 score of one run
    (§4.1-4.3; the released data's README).

    `parameters` are the game's resolved parameters (G = "gold"); `details` is result_details() of the
    finished match (each round's "proposal" and "votes", proposer first).
      S8P = mean over rounds of sum_p |100 * P[p] / G - O[p]|  (O: the optimal plan on 100 gold)
      S8V = correct votes / sum_j (n_j - 1)     ("legacy_bug": / sum_j (n_j - 1)^2)
      score = 50 * (200 - S8P) / 200 + 50 * S8V, S8V rounded to 2 decimals ("2dp") or not ("unrounded");
      the rounding defaults to what the chosen denominator's scorer did: "2dp" for "correct",
      "unrounded" for "legacy_bug".
    pirate_parity_credit: a voter offered exactly 1 coin at an odd relative position is never right
    ("code", the published tables) or right to reject ("stated", Stewart's rule)."""
    if pirate_voter_denominator not in VOTER_DENOMINATORS:
        raise ValueError(f"pirate_voter_denominator must be one of {', '.join(VOTER_DENOMINATORS)}, "
                         f"not {pirate_voter_denominator!r}")
    if pirate_vote_accuracy_rounding is None:
        pirate_vote_accuracy_rounding = "2dp" if pirate_voter_denominator == "correct" else "unrounded"
    if pirate_vote_accuracy_rounding not in ACCURACY_ROUNDINGS:
        raise ValueError(f"pirate_vote_accuracy_rounding must be one of {', '.join(ACCURACY_ROUNDINGS)}, "
                         f"not {pirate_vote_accuracy_rounding!r}")
    if pirate_parity_credit not in PARITY_CREDITS:
        raise ValueError(f"pirate_parity_credit must be one of {', '.join(PARITY_CREDITS)}, not {pirate_parity_credit!r}")
    gold = parameters["gold"]
    rounds = details["rounds"]
    if not rounds:
        raise ValueError("gamabench_score needs at least one finished round")
    distance = 0.0
    correct = votes = legacy_denominator = 0
    for record in rounds:
        proposal, ballots = record["proposal"], record["votes"]
        aboard = len(proposal)
        optimum = optimal_proposal(aboard, 100)
        distance += sum(abs(100.0 * share / gold - best) for share, best in zip(proposal, optimum))
        for position in range(1, aboard):
            share, accepted = proposal[position], ballots[position] == "accept"
            if share >= 2:
                correct += accepted
            elif share == 0:
                correct += not accepted
            elif position % 2 == 0:
                correct += accepted
            elif pirate_parity_credit == "stated":
                correct += not accepted
        votes += aboard - 1
        legacy_denominator += (aboard - 1) ** 2
    s8p = distance / len(rounds)
    denominator = votes if pirate_voter_denominator == "correct" else legacy_denominator
    s8v = correct / denominator if denominator else 0.0
    counted = round(s8v, 2) if pirate_vote_accuracy_rounding == "2dp" else s8v
    return {"S8P": s8p, "S8V": s8v, "correct_votes": correct, "votes": votes, "rounds": len(rounds),
            "score": 50.0 * (200.0 - s8p) / 200.0 + 50.0 * counted}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history, messages) of one released GAMA-Bench log (a raw/pirate_game/*.json file,
    parsed). Round j (0-based) of the log is proposed by seat j: history gets (j, PROPOSE), whose
    message (messages[index of that item]) is the canonical text of the round's gold_distribution,
    then (SIMULTANEOUS, votes) with the log's responses (response p is the pirate p places behind the
    proposer; entries of seats that do not vote are 0). Replay it with
    state.apply_action(action, messages.get(i)) / state.apply_actions(actions)."""
    players = run["meta"]["player_num"]
    parameters = {"players": players, "gold": run["meta"].get("gold", 100)}
    history, messages = [], {}
    for round_index, record in enumerate(run["round_records"]):
        shares, responses = record["gold_distribution"], record["responses"]
        if len(shares) != players - round_index or len(responses) != len(shares):
            raise ValueError(f"round {round_index + 1} of the log does not list the {players - round_index} "
                             "pirates aboard")
        messages[len(history)] = proposal_text(round_index + 1, shares)
        history.append((round_index, C_PROPOSE))
        joint = [0] * players
        for position in range(1, len(responses)):
            if responses[position] not in ("accept", "reject"):
                raise ValueError(f"unknown vote {responses[position]!r} in round {round_index + 1} of the log")
            joint[round_index + position] = C_ACCEPT if responses[position] == "accept" else C_REJECT
        history.append((SIMULTANEOUS, tuple(joint)))
    return parameters, history, messages


cdef class PirateState(State):
    cdef int gold
    cdef int round_index                          # 0-based; the proposer of round r is seat r
    cdef int phase
    cdef int shares[MAX_PLAYERS][MAX_PLAYERS]     # shares[round][seat], seats >= round
    cdef int votes[MAX_PLAYERS][MAX_PLAYERS]      # votes[round][seat]: C_ACCEPT or C_REJECT
    cdef int accepts[MAX_PLAYERS]                 # accepts of each finished round, the proposer's included
    cdef int pending[MAX_PLAYERS]                 # the proposal just said (by seat), until PROPOSE applies it
    cdef bint has_pending

    def __init__(self, game):
        super().__init__(game, game.num_players)
        self.gold = game.parameters["gold"]
        self.round_index = 0
        self.phase = PROPOSING
        self.has_pending = False

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == PROPOSING:
            return self.round_index
        if self.phase == VOTING:
            return SIMULTANEOUS_PLAYER
        return TERMINAL_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        if self.phase == PROPOSING:
            return player == self.round_index
        return self.phase == VOTING and self.round_index < player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if not self.c_is_acting(player):
            return 0
        if self.phase == PROPOSING:
            out[0] = C_PROPOSE
            return 1
        out[0] = C_ACCEPT
        out[1] = C_REJECT
        return 2

    cdef void c_apply_action(self, int action) noexcept:
        # PROPOSE takes the proposal on_message stored; without one (search, which writes no text)
        # it is the §2.9 fallback, the equal split with the remainder to the proposer.
        cdef int r = self.round_index
        cdef int aboard = self.num_players - r
        cdef int seat
        for seat in range(r, self.num_players):
            if self.has_pending:
                self.shares[r][seat] = self.pending[seat]
            else:
                self.shares[r][seat] = self.gold // aboard + (self.gold % aboard if seat == r else 0)
        self.has_pending = False
        self.phase = VOTING

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int seat, count = 1
        self.votes[r][r] = C_ACCEPT
        for seat in range(r + 1, self.num_players):
            self.votes[r][seat] = actions[seat]
            count += actions[seat] == C_ACCEPT
        self.accepts[r] = count
        if 2 * count >= self.num_players - r:
            self.phase = SETTLED
        else:
            self.round_index += 1
            self.phase = PROPOSING

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        for seat in range(self.num_players):
            if self.phase != SETTLED:
                out[seat] = 0.0
            elif seat < self.round_index:
                out[seat] = -1.0
            else:
                out[seat] = self.shares[self.round_index][seat]

    cdef int _finished_rounds(self) noexcept:
        return self.round_index + (1 if self.phase == SETTLED else 0)

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # `player` saw each finished round's number of accepts and its own vote; which of the other
        # voters accepted is drawn afresh (a uniform subset of the right size).
        cdef int others[MAX_PLAYERS]
        cdef int r, seat, m, hidden_accepts, k, j, tmp
        for r in range(self._finished_rounds()):
            m = 0
            hidden_accepts = self.accepts[r] - 1
            for seat in range(r + 1, self.num_players):
                if seat == player:
                    hidden_accepts -= self.votes[r][seat] == C_ACCEPT
                else:
                    others[m] = seat
                    m += 1
            for k in range(m - 1, 0, -1):
                j = rng_below(rng, k + 1)
                tmp = others[k]
                others[k] = others[j]
                others[j] = tmp
            for k in range(m):
                self.votes[r][others[k]] = C_ACCEPT if k < hidden_accepts else C_REJECT

    cdef State c_clone(self):
        cdef PirateState s = PirateState.__new__(PirateState)
        # Rows of rounds not begun are never read.
        cdef int rows = self.round_index + 1
        self._copy_base_into(s)
        s.gold = self.gold
        s.round_index = self.round_index
        s.phase = self.phase
        memcpy(&s.shares[0][0], &self.shares[0][0], rows * MAX_PLAYERS * sizeof(int))
        memcpy(&s.votes[0][0], &self.votes[0][0], rows * MAX_PLAYERS * sizeof(int))
        memcpy(s.accepts, self.accepts, rows * sizeof(int))
        memcpy(s.pending, self.pending, sizeof(self.pending))
        s.has_pending = self.has_pending
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _proposing(self, int player) -> bool:
        return self.phase == PROPOSING and player == self.round_index

    def _proposal(self, int r) -> list:
        """Round r's proposal, the proposer first."""
        return [self.shares[r][seat] for seat in range(r, self.num_players)]

    def _ballots(self, int r) -> list:
        return [_ACTION_TEXT[self.votes[r][seat]] for seat in range(r, self.num_players)]

    def _passed(self, int r) -> bool:
        return self.phase == SETTLED and r == self.round_index

    def _outcome(self, int r) -> str:
        aboard = self.num_players - r
        tally = f"{self.accepts[r]} of {aboard} pirates aboard accepted"
        if self._passed(r):
            return f"{tally} (at least half): the plan passed and the gold is paid as proposed"
        return f"{tally} (fewer than half): pirate {r + 1} was thrown overboard"

    # ---- dialogue -----------------------------------------------------------------------------
    def check_message(self, int player, str text) -> str:
        text = State.check_message(self, player, text)
        if not self._proposing(player):
            raise TextRejectedError("you have no proposal to make now")
        return proposal_text(player + 1, read_proposal(text, player + 1, self.num_players, self.gold))

    def on_message(self, int player, str text):
        cdef int i
        shares = read_proposal(text, player + 1, self.num_players, self.gold)
        for i, share in enumerate(shares):
            self.pending[player + i] = share
        self.has_pending = True

    def default_message(self, int player):
        """The §2.9 fallback proposal at `player`'s proposal turn (equal split, remainder to the
        proposer), else None."""
        if not self._proposing(player):
            return None
        return proposal_text(player + 1, equal_split(self.num_players - player, self.gold))

    def random_message(self, int player, rng=None) -> str:
        """A uniformly drawn split of G among the pirates aboard (stars and bars)."""
        if not self._proposing(player):
            raise TextRejectedError("no message is due from this seat now")
        rng = rng or _random.Random(0)
        aboard = self.num_players - player
        cuts = sorted(rng.randint(0, self.gold) for _ in range(aboard - 1))
        bounds = [0] + cuts + [self.gold]
        return proposal_text(player + 1, [bounds[i + 1] - bounds[i] for i in range(aboard)])

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        return _ACTION_TEXT.get(action, str(action))

    def parse_action(self, int player, str text) -> int:
        if self._proposing(player):
            if text.strip().lower() == "propose":
                return C_PROPOSE
            try:
                self.check_message(player, text)
            except TextRejectedError as e:
                raise ActionParseError(f"{e}") from None
            return C_PROPOSE
        if self.c_is_acting(player):
            return read_vote(text)
        raise ActionParseError("you have no decision to make now")

    def text_action_spec(self, int player):
        if self._proposing(player):
            return {"description": "your proposal, said to every pirate: "
                                   + proposal_help(player + 1, self.num_players, self.gold),
                    "max_length": PROPOSAL_MAX_LENGTH, "forbidden_words": [], "message": "required",
                    "example": self.default_message(player)}
        if self.phase == VOTING and self.c_is_acting(player):
            return {"description": "your vote on the proposal: " + _VOTE_HELP, "max_length": VOTE_MAX_LENGTH,
                    "forbidden_words": []}
        return None

    def default_action(self, int player):
        """GAMA-Bench's documented fallbacks (§2.9): propose (the equal split, default_message) or
        reject."""
        if self._proposing(player):
            return C_PROPOSE
        if self.phase == VOTING and self.c_is_acting(player):
            return C_REJECT
        return None

    def observation_string(self, int player) -> str:
        check_seat("the pirate game", player, self.num_players)
        n = self.num_players
        lines = [
            f"Pirate game: {n} pirates, ranked 1 (most senior) to {n}, share {self.gold} gold coins. You are "
            f"pirate {player + 1}.",
            "The most senior pirate aboard proposes how to split the coins among the pirates aboard; the others "
            "vote at the same time, in secret, to accept or reject (the proposer accepts). If at least half of "
            "the pirates aboard accept, the coins are paid as proposed and the game ends; otherwise the proposer "
            "is thrown overboard and the next most senior pirate proposes. Only the number of accepts is "
            "announced.",
        ]
        said = {m["move"]: m["text"] for m in self.conversation(player)}
        for r in range(self.round_index + 1):
            if r == self.round_index and self.phase == PROPOSING:
                break
            lines.append(f"Round {r + 1}: pirate {r + 1} proposed (move {2 * r}): {said[2 * r]}")
            if r < self._finished_rounds():
                if player == r:
                    mine = " You proposed it."
                elif player > r:
                    mine = f" You voted {_ACTION_TEXT[self.votes[r][player]]}."
                else:
                    mine = ""
                lines.append(f"Round {r + 1}: {self._outcome(r)}.{mine}")
        if player < self.round_index:
            lines.append(f"You were thrown overboard in round {player + 1}.")
        if self.phase == SETTLED:
            lines.append("The game is over: " + (f"you received {_coins(self.shares[self.round_index][player])}."
                                                  if player >= self.round_index else "you received nothing."))
        elif self.phase == PROPOSING:
            if player == self.round_index:
                lines.append(f"Round {self.round_index + 1}: you are the most senior pirate aboard. Propose how to "
                             f"split the {self.gold} coins. {proposal_help(player + 1, self.num_players, self.gold)}")
            else:
                lines.append(f"Round {self.round_index + 1}: pirate {self.round_index + 1} is making a proposal.")
        elif self.c_is_acting(player):
            lines.append(f"Round {self.round_index + 1}: you are offered "
                         f"{_coins(self.shares[self.round_index][player])}. Vote: {_VOTE_HELP}")
        else:
            lines.append(f"Round {self.round_index + 1}: the other pirates aboard are voting.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("the pirate game", player, self.num_players)
        r = self.round_index
        voting = self.phase == VOTING
        return {
            "players": self.num_players,
            "gold": self.gold,
            "rank": player + 1,
            "round": r + 1,
            "phase": ("propose", "vote", "finished")[self.phase],
            "proposer": r,
            "aboard": list(range(r, self.num_players)),
            "overboard": list(range(r)),
            "proposal": self._proposal(r) if self.phase != PROPOSING else None,
            "my_share": self.shares[r][player] if voting and player >= r else None,
            "past_rounds": [
                {"round": j + 1, "proposer": j, "proposal": self._proposal(j), "aboard": self.num_players - j,
                 "accepts": self.accepts[j], "passed": self._passed(j),
                 "my_vote": _ACTION_TEXT[self.votes[j][player]] if player >= j else None}
                for j in range(self._finished_rounds())
            ],
            "finished": self.phase == SETTLED,
            "my_gold": (self.shares[r][player] if player >= r else 0) if self.phase == SETTLED else None,
            "conversation": self.conversation(player),
        }

    def public_history(self) -> list:
        """Each proposal, then one summary per vote (the counts; individual votes stay private)."""
        out = []
        for r in range(self.round_index + 1):
            if r == self.round_index and self.phase == PROPOSING:
                break
            out.append((r, C_PROPOSE, f"pirate {r + 1} proposes {proposal_text(r + 1, self._proposal(r))}"))
            if r < self._finished_rounds():
                out.append((-1, -1, f"Round {r + 1}: {self._outcome(r)}."))
        return out

    def result_summary(self) -> str:
        if self.phase != SETTLED:
            return "game in progress"
        r = self.round_index
        overboard = "nobody thrown overboard" if r == 0 else (
            f"pirate{'s' if r > 1 else ''} {', '.join(str(s + 1) for s in range(r))} thrown overboard")
        paid = ", ".join(f"pirate {seat + 1}: {self.shares[r][seat]}" for seat in range(r, self.num_players))
        score = gamabench_score(self.game.parameters, self._rounds_details())["score"]
        return (f"pirate {r + 1}'s plan passed in round {r + 1} ({self.accepts[r]} of {self.num_players - r} "
                f"accepted); {overboard}; coins paid: {paid}; GAMA-Bench score {score:.2f}")

    def _rounds_details(self) -> dict:
        return {"rounds": [
            {"round": r + 1, "proposer": r, "pirates": list(range(r, self.num_players)), "proposal": self._proposal(r),
             "votes": self._ballots(r), "accepts": self.accepts[r], "passed": self._passed(r)}
            for r in range(self._finished_rounds())
        ]}

    def result_details(self) -> dict:
        details = self._rounds_details()
        settled = self.phase == SETTLED
        details["overboard"] = list(range(self.round_index))
        details["gold"] = [self.shares[self.round_index][seat] if settled and seat >= self.round_index else 0
                           for seat in range(self.num_players)]
        if details["rounds"]:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


class Game(GameBase):
    """The Pirate Game with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "gold", 1, MAX_GOLD)

    def new_initial_state(self) -> PirateState:
        return PirateState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return: -1 for a pirate thrown overboard, at most all G coins."""
        return -1.0, float(self.parameters["gold"])

    def state_from_view(self, int player, dict view) -> PirateState:
        """A state consistent with seat `player`'s view (an observation_dict): the proposals replayed
        from its conversation, each finished round's votes with its own vote and the announced number
        of accepts (which of the other voters accepted, never shown, is a fixed choice)."""
        check_seat("the pirate game", player, self.num_players)
        state = self.new_initial_state()
        said = [m["text"] for m in view["conversation"]]
        past = view["past_rounds"]
        if len(said) != len(past) + (view["phase"] == "vote"):
            raise ValueError(f"the view has {len(said)} proposals for {len(past)} finished rounds in phase "
                             f"{view['phase']!r}")
        for r, record in enumerate(past):
            state.apply_action(C_PROPOSE, said[r])
            voters = list(range(r + 1, self.num_players))
            joint = [0] * self.num_players
            hidden_accepts = record["accepts"] - 1
            if player in voters:
                joint[player] = C_ACCEPT if record["my_vote"] == "accept" else C_REJECT
                hidden_accepts -= joint[player] == C_ACCEPT
                voters.remove(player)
            if not 0 <= hidden_accepts <= len(voters):
                raise ValueError(f"round {r + 1} of the view is impossible: {record['accepts']} accepts")
            for k, seat in enumerate(voters):
                joint[seat] = C_ACCEPT if k < hidden_accepts else C_REJECT
            state.apply_actions(joint)
        if view["phase"] == "vote":
            state.apply_action(C_PROPOSE, said[-1])
        return state
