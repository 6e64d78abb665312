"""Public Goods Game, as played in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, §2.4) and in
MAgIC (Xu, Hu et al., arXiv 2311.08562, "Public Good", magic.md §2.5).

Rules. N players ("players", 2-100) play K rounds ("rounds", 1-100). Every round each player chooses,
at the same time as the others, how much to contribute to a common pot; the contributions are
revealed after the round. The pot is multiplied by R ("multiplier", 0-100) and split evenly among all
N players, whatever each contributed; what a player does not contribute it keeps. One engine covers
both papers through three switches (the reference's merging remark for this game):
  - "endowment_mode": "per_round" gives every player E = "endowment" fresh tokens at the start of
    every round (GAMA-Bench: 20 tokens, refilled each round), so a round is worth (E - c_i) plus the
    share to player i and a player's points are the sum over the rounds; "whole_game" gives every
    player E points once, for the whole game (MAgIC: 100), from which all contributions are paid.
  - "payout": "each_round" pays R * pot / N to every player right after each round (GAMA-Bench);
    "end" keeps the pot of every round and pays R * (total pot) / N to every player once, after the
    last round (MAgIC).
  - "enforce_budget": when true a contribution may not exceed what the player holds now (E in
    "per_round" mode; in "whole_game" mode E minus its past contributions plus the shares paid to it
    so far). When false any contribution from 0 to "max_contribution" is legal, as both papers' code
    accepted: a player may overspend and its points may go negative.
A contribution is always an integer from 0 to "max_contribution" (1-1023), whatever the budget.

A seat's return is its points at the end (general-sum):
  per_round: sum over rounds of (E - c_i) + R * (sum of all pots) / N
  whole_game: E - (sum of c_i) + R * (sum of all pots) / N
(equal whatever the payout timing; the timing changes what a player holds, and so what it may
contribute under "enforce_budget", and what it sees during the game). The highest final points win
(MAgIC; ties: every tied seat wins), reported in result_details "winners".

Actions. Action id = the contribution (0..max_contribution; the legal ones are 0 up to the seat's limit
this round). The canonical action text is the number. `parse_action` accepts, in order:
  1. GAMA-Bench's JSON answer {"tokens_contributed": "8"} (the first JSON object holding the key; the
     value a string or a number; chatter around it and non-JSON quoting such as single quotes
     tolerated);
  2. MAgIC's answer "I contribute 30" (the first "contribute <number>", as MAgIC's metric parser);
  3. a bare integer (the canonical text), or a reply holding exactly one integer (MAgIC's environment
     read the first integer of any reply; a reply with several integers and no answer format is
     refused here as ambiguous rather than guessed).
A negative, fractional or out-of-range number raises ActionParseError naming the allowed range.
`default_action` is 0, the documented fallback of both papers' presets (gamabench.md §2.9: Public
Goods 0; magic.md §2.6: contribution 0).

Information. Perfect about past rounds: after each round every seat sees every contribution, the pot,
the share, and everyone's points; within a round the moves are simultaneous. `public_history` holds
each seat's contribution of every finished round; `result_details` adds each round's payoffs, the
seats that contributed least (MAgIC's Rationality: ties count as least), each seat's total
contribution, its share of the multiplied pool (MAgIC's Payback), the final points and the winners,
and the GAMA-Bench score in per-round mode.

Presets.
  - "gamabench": GAMA-Bench's vanilla setting (§2.4, Tables 1 and 5): 10 players, 20 rounds, 20 tokens
    refilled every round, R = 2, paid each round, budget not enforced (contributions 0-100 accepted).
  - "gamabench_r0", "gamabench_r0_5", "gamabench_r1", "gamabench_r4": Table 9 (RQ3), the vanilla
    setting with R = 0, 0.5, 1 and 4 (R = 2 is "gamabench" itself).
  - "magic": MAgIC's Public Good (§2.5, Table 3): 3 players, 100 points for the whole game, 5 rounds,
    the pool paid once at the end, budget not enforced (contributions 0-100 per round accepted, so a
    player may invest more than 100 in total). The paper plays 7 multipliers, MAGIC_MULTIPLIERS
    (1, 1.2, 1.5, 1.8, 2, 2.5, 3), times 3 seats; this preset carries R = 2 and a suite sweeps the
    "multiplier" parameter over the list.
  - "magic_code": the released code's single setting, R = 3.5 (magic.md §6 A7); otherwise as "magic".

Scoring. `gamabench_score(parameters, details)` gives GAMA-Bench's S4 = mean contribution over players
and rounds and its rescaling 100 * (E - S4) / E (paper Eq. 1; higher = closer to free-riding, the NE).
No scoring switch of gamabench.md §4.3 concerns this game. `gamabench_history(run)` turns a released
GAMA-Bench log into (parameters, history) for replay.

Ambiguities (resolutions recommended in the references):
  - GAMA-Bench endowment, "20 per round" vs running totals in the prompts (gamabench.md §6 item 6):
    tokens are refilled to E every round, as the code does. The code's "tokens after round I" is the
    round's E - c + share (not a running total); the views show every player's cumulative points
    after each round, from which a prompt builder can state either. The answer line's T_IJ vs the
    request's T_{I-1,J}: the view's "holding" is what the seat may contribute from now.
  - Invalid answers (§6 item 1, §2.9; magic.md §2.6, A7): the referee re-asks and then plays
    `default_action`, 0. GAMA-Bench's code checks no range (§2.4); this engine follows that faithful
    mode ("enforce_budget" false) but a finite action set needs a bound: contributions are 0-100 in
    the GAMA-Bench presets (five times the 20-token endowment) and negative ones are refused.
    "enforce_budget" true is §2.9's "strict_ranges" switch (0..held).
  - Rescaled scores outside [0, 100] (§6 item 11): contributing more than E (budget not enforced)
    makes S4 > E and the score negative; it is not clipped, as recommended for every game but Dollar.
  - The code's logged utility omits the pot share (§2.4); returns here include it, as the rules say.
  - History truncation after round 10 (§6 item 8) is a prompt-building matter: the views keep every
    round.
  - MAgIC (magic.md §6 A7): the multiplier list [1, 1.2, 1.5, 1.8, 2, 2.5, 3] is the paper's and 3.5 the
    released sample ("magic_code"); the pool is redistributed once at the end; the budget is not
    enforced by default ("enforce_budget" switch); an unparseable answer falls back to 0.
  - MAgIC Rationality (A5): a round counts as least investment when the seat's contribution equals the
    round's minimum, ties included (the code's rule). The paper's ties for the winner count as wins
    for every tied seat (the code).
  - MAgIC's "Payback" is not defined in the released code; `result_details` gives "pool_share", each
    player's share of the multiplied pool (R * total pot / N), and the final points.
  - MAgIC's global prompt says the pool is "doubled" whatever the multiplier (a prompt slip): the
    views state the multiplier of the game.
"""

from libc.math cimport floor
from libc.string cimport memcpy

import math
import re

from arena_engines.core cimport MAX_ACTIONS, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, State
from arena_engines.core import SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, number_answer, whole_number
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_ROUNDS = 100
    MAX_CONTRIBUTION = MAX_ACTIONS - 1     # action ids are contributions

MAX_ENDOWMENT = 100_000
MAX_MULTIPLIER = 100.0
# A budget compared with integer contributions: points are sums of doubles (shares such as 2 * 74 / 10),
# so a holding of 29.999999999 must still allow contributing 30.
cdef double BUDGET_SLACK = 1e-9

ENDOWMENT_MODES = ("per_round", "whole_game")
PAYOUTS = ("each_round", "end")
MAGIC_MULTIPLIERS = (1, 1.2, 1.5, 1.8, 2, 2.5, 3)

_GAMABENCH = {"players": 10, "rounds": 20, "endowment": 20, "endowment_mode": "per_round", "multiplier": 2.0,
              "payout": "each_round", "enforce_budget": False, "max_contribution": 100}
_MAGIC = {"players": 3, "rounds": 5, "endowment": 100, "endowment_mode": "whole_game", "multiplier": 2.0,
          "payout": "end", "enforce_budget": False, "max_contribution": 100}


def _table9(label: str, multiplier: float) -> Preset:
    return Preset(f"gamabench_r{label}", f"GAMA-Bench Table 9 (RQ3 parameter variation): multiplier R = "
                  f"{multiplier:g}; otherwise the vanilla setting (10 players, 20 rounds, 20 tokens per round).",
                  {**_GAMABENCH, "multiplier": multiplier})


SPEC = GameSpec(
    game_id="public_goods",
    display_name="Public Goods Game",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="perfect",
    utility="general_sum",
    min_utility=-float(MAX_ROUNDS * MAX_CONTRIBUTION),
    max_utility=MAX_ROUNDS * (MAX_ENDOWMENT + MAX_MULTIPLIER * MAX_CONTRIBUTION),
    max_game_length=MAX_ROUNDS,
    description="Each round every player secretly contributes to a common pot; the pot is multiplied and "
                "shared equally among all players. Returns are each player's points at the end.",
    parameters=(
        Parameter("players", 10, f"number of players, 2-{MAX_PLAYERS}"),
        Parameter("rounds", 20, f"number of rounds, 1-{MAX_ROUNDS}"),
        Parameter("endowment", 20, f"tokens per round ('per_round') or points for the whole game ('whole_game'), "
                  f"1-{MAX_ENDOWMENT}"),
        Parameter("endowment_mode", "per_round", "'per_round' (refilled every round, GAMA-Bench) or 'whole_game' "
                  "(one budget for the game, MAgIC)"),
        Parameter("multiplier", 2.0, f"factor R applied to the pot before it is shared, 0-{MAX_MULTIPLIER:g}"),
        Parameter("payout", "each_round", "'each_round' (the pot is shared after every round) or 'end' (the "
                  "pots of all rounds are shared once, after the last round)"),
        Parameter("enforce_budget", False, "true: a contribution may not exceed what the player holds now"),
        Parameter("max_contribution", 100, f"largest contribution of one round, 1-{MAX_CONTRIBUTION}"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench vanilla setting (§2.4; Tables 1 and 5): 10 players, 20 rounds, 20 tokens "
               "refilled every round, multiplier R = 2, the pot shared after every round; contributions 0-100 "
               "accepted as the code checks no range; answers as JSON {\"tokens_contributed\": \"8\"}.",
               _GAMABENCH),
        _table9("0", 0.0),
        _table9("0_5", 0.5),
        _table9("1", 1.0),
        _table9("4", 4.0),
        Preset("magic", "MAgIC Public Good (Table 3): 3 players, 100 points for the whole game, 5 rounds, the pool "
               "multiplied and shared once at the end, budget not enforced; multiplier 2, one of the paper's "
               "seven (1, 1.2, 1.5, 1.8, 2, 2.5, 3); answers 'I contribute 30'.", _MAGIC),
        Preset("magic_code", "MAgIC's released setting: as 'magic' with multiplier 3.5 (magic.md §6 A7).",
               {**_MAGIC, "multiplier": 3.5}),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "rounds": 3}}

_CONTRIBUTE = re.compile(r"\bcontribute\s+([+-]?\d+(?:\.\d+)?)", re.IGNORECASE)
# Numbers standing alone in a reply ("is 11." ends a sentence; "v2" or "1.5.3" are not numbers).
_NUMBERS_IN_TEXT = re.compile(r"(?<![\w.])[+-]?\d+(?:\.\d+)?(?!\w|\.\d)")


def gamabench_score(parameters: dict, details: dict) -> dict:
    """GAMA-Bench's raw score S4 and its 0-100 rescaling for one run (paper Eq. 1, gamabench.md §4.1).

    `parameters` are the game's resolved parameters (E = "endowment", the tokens of one round);
    `details` is result_details() of the finished match (each round's "contributions" are read).
      S4 = (1/(N*K)) * sum_ij C_ij
      score = 100 * (E - S4) / E
    Defined for the per-round endowment GAMA-Bench plays; no §4.3 switch concerns this game.
    """
    if parameters["endowment_mode"] != "per_round":
        raise ValueError("GAMA-Bench's S4 is defined for the per-round endowment ('per_round')")
    rounds = details["rounds"]
    if not rounds:
        raise ValueError("gamabench_score needs at least one played round")
    contributions = [c for r in rounds for c in r["contributions"]]
    s4 = sum(contributions) / len(contributions)
    endowment = parameters["endowment"]
    return {"S4": s4, "score": 100.0 * (endowment - s4) / endowment}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (the parsed JSON of a raw/public_goods
    file): N, K, the tokens per round and the multiplier from the log, and one joint move per round
    with the contributions in player order (player_data[i].records)."""
    meta = run["meta"]
    if meta.get("token_initialization", "fixed") != "fixed" or not meta.get("reset", True):
        raise ValueError("only GAMA-Bench's fixed endowment refilled every round is modelled "
                         f"(token_initialization {meta.get('token_initialization')!r}, reset {meta.get('reset')!r})")
    players = run["player_data"]
    rounds = len(run["round_records"])
    parameters = {**_GAMABENCH, "players": len(players), "rounds": rounds, "endowment": meta["tokens"],
                  "multiplier": meta["ratio"]}
    history = [(SIMULTANEOUS, tuple(int(p["records"][j]) for p in players)) for j in range(rounds)]
    return parameters, history


def _num(value) -> str:
    """A number as the views print it: at most 2 decimals, no trailing zeros (14, 26.8, 6.67)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


cdef class PublicGoodsState(State):
    cdef int rounds, endowment, max_contribution
    cdef bint whole_game, pay_at_end, enforce_budget
    cdef double multiplier
    cdef int round_index                              # rounds completed
    cdef int contributions[MAX_ROUNDS][MAX_PLAYERS]   # contributions[round][seat]
    cdef int pots[MAX_ROUNDS]
    # A seat's points are kept[seat] + paid_share: the endowment it received minus its contributions
    # (an integer), plus the shares paid so far, which are the same for every seat. Kept apart so that
    # equal points are exactly equal (ties decide MAgIC's winners).
    cdef long long kept[MAX_PLAYERS]
    cdef double paid_share

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.endowment = p["endowment"]
        self.max_contribution = p["max_contribution"]
        self.whole_game = p["endowment_mode"] == "whole_game"
        self.pay_at_end = p["payout"] == "end"
        self.enforce_budget = p["enforce_budget"]
        self.multiplier = p["multiplier"]
        self.round_index = 0
        self.paid_share = 0.0
        cdef int i
        for i in range(self.num_players):
            self.kept[i] = self.endowment if self.whole_game else 0

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER if self.round_index >= self.rounds else SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.round_index < self.rounds and 0 <= player < self.num_players

    cdef int _limit(self, int player) noexcept:
        """The largest contribution `player` (a valid seat) may make this round."""
        cdef double held
        if not self.enforce_budget:
            return self.max_contribution
        held = self.kept[player] + self.paid_share if self.whole_game else self.endowment
        if held <= 0.0:
            return 0
        return <int>min(<double>self.max_contribution, floor(held + BUDGET_SLACK))

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int c, limit
        if not self.c_is_acting(player):
            return 0
        limit = self._limit(player)
        for c in range(limit + 1):
            out[c] = c
        return limit + 1

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, pot = 0
        for i in range(self.num_players):
            self.contributions[r][i] = actions[i]
            pot += actions[i]
            self.kept[i] += (0 if self.whole_game else self.endowment) - actions[i]
        self.pots[r] = pot
        self.round_index += 1
        if not self.pay_at_end:
            self.paid_share += self._share(pot)
        elif self.round_index == self.rounds:
            self.paid_share = self._share(self._pool_total())

    cdef double _share(self, long long pot) noexcept:
        return self.multiplier * pot / self.num_players

    cdef long long _pool_total(self) noexcept:
        cdef long long total = 0
        cdef int r
        for r in range(self.round_index):
            total += self.pots[r]
        return total

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = self.kept[i] + self.paid_share

    cdef State c_clone(self):
        cdef PublicGoodsState s = PublicGoodsState.__new__(PublicGoodsState)
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.endowment = self.endowment
        s.max_contribution = self.max_contribution
        s.whole_game = self.whole_game
        s.pay_at_end = self.pay_at_end
        s.enforce_budget = self.enforce_budget
        s.multiplier = self.multiplier
        s.round_index = self.round_index
        # Rows of unplayed rounds are never read, so only the played ones are copied.
        memcpy(&s.contributions[0][0], &self.contributions[0][0], self.round_index * MAX_PLAYERS * sizeof(int))
        memcpy(s.pots, self.pots, self.round_index * sizeof(int))
        memcpy(s.kept, self.kept, sizeof(self.kept))
        s.paid_share = self.paid_share
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    # cdef, not def: they index C arrays with unchecked round and seat numbers.
    cdef list _round_contributions(self, int r):
        return [self.contributions[r][i] for i in range(self.num_players)]

    cdef double _round_share(self, int r):
        return self._share(self.pots[r])

    cdef list _round_payoffs(self, int r):
        """Each seat's change of points in round r (the end-of-game payout not included)."""
        received = 0 if self.whole_game else self.endowment
        share = 0.0 if self.pay_at_end else self._round_share(r)
        return [received - c + share for c in self._round_contributions(r)]

    cdef list _least(self, int r):
        row = self._round_contributions(r)
        least = min(row)
        return [i for i, c in enumerate(row) if c == least]

    cdef double _holding(self, int player):
        """What `player` contributes from now: the round's tokens, or its points in whole-game mode."""
        return self.kept[player] + self.paid_share if self.whole_game else self.endowment

    def _finished(self) -> bool:
        return self.round_index >= self.rounds

    def _points_after(self) -> list:
        """Each seat's points after every played round (the end payout not included), round by round,
        built as the state keeps them: integer kept amounts plus the common shares."""
        kept = [self.endowment if self.whole_game else 0] * self.num_players
        paid = 0.0
        after = []
        for r in range(self.round_index):
            received = 0 if self.whole_game else self.endowment
            kept = [k + received - c for k, c in zip(kept, self._round_contributions(r))]
            if not self.pay_at_end:
                paid += self._round_share(r)
            after.append([k + paid for k in kept])
        return after

    def _current_points(self) -> list:
        return [self.kept[i] + self.paid_share for i in range(self.num_players)]

    def _unit(self) -> str:
        return "points" if self.whole_game else "tokens"

    def _name(self, int seat, int player) -> str:
        return "you" if seat == player else f"seat {seat}"

    def _by_seat(self, values, int player) -> str:
        return ", ".join(f"{self._name(i, player)} {_num(v)}" for i, v in enumerate(values))

    def _rules_text(self) -> str:
        n, r, e, unit = self.num_players, _num(self.multiplier), self.endowment, self._unit()
        if self.whole_game:
            endowment = (f"Each player starts with {e} points for the whole game; every round each player chooses "
                         f"how many of its points to put into the common pool.")
        else:
            endowment = (f"At the start of every round each player receives {e} tokens and chooses how many of them "
                         f"to put into the common pool; tokens not contributed are kept.")
        if self.pay_at_end:
            payout = (f"The pool of all rounds is kept until the game ends; then it is multiplied by {r} and shared "
                      f"equally among the {n} players, whatever each contributed.")
        else:
            payout = (f"After each round that round's pool is multiplied by {r} and shared equally among the {n} "
                      f"players, whatever each contributed.")
        if self.enforce_budget:
            budget = "You may not contribute more than you hold."
        else:
            budget = (f"Any contribution from 0 to {self.max_contribution} is accepted, even beyond what you hold "
                      f"(your {unit} can then go below zero).")
        return (f"Public goods game: {n} players, {self.rounds} rounds. {endowment} Contributions are made at the "
                f"same time and revealed after the round. {payout} {budget} Your score is your {unit} at the end: "
                f"what you kept plus your shares of the pool; the highest score wins.")

    cdef str _round_line(self, int r, int player, list points_after):
        pot = self.pots[r]
        if self.pay_at_end:
            paid = "kept for the end"
        else:
            paid = f"times {_num(self.multiplier)} = {_num(self.multiplier * pot)}, {_num(self._round_share(r))} to each player"
        return (f"Round {r + 1}: contributions: {self._by_seat(self._round_contributions(r), player)}; pool {pot}, "
                f"{paid}. {self._unit().capitalize()} after the round: {self._by_seat(points_after, player)}.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if not 0 <= action <= self.max_contribution:
            raise ValueError(f"contributions are 0 to {self.max_contribution}, not {action}")
        return str(action)

    def parse_action(self, int player, str text) -> int:
        check_seat("public goods", player, self.num_players)
        if not self.c_is_acting(player):
            raise ActionParseError(f"seat {player} has no contribution to make now")
        value = number_answer(text, "tokens_contributed", _CONTRIBUTE)
        if value is MISSING:
            numbers = _NUMBERS_IN_TEXT.findall(text)
            if len(numbers) != 1:
                what = "several numbers" if numbers else "no number"
                raise ActionParseError(f"could not read a contribution from {text!r} ({what} and no answer "
                                       f"format). {self._answer_help(player)}")
            value = numbers[0]
        number = whole_number(value, self._answer_help(player))
        if not 0 <= number <= self._limit(player):
            raise ActionParseError(f"{number} is outside the allowed range. {self._answer_help(player)}")
        return number

    def _answer_help(self, int player) -> str:
        return (f"Contribute a whole number from 0 to {self._limit(player)}: alone (e.g. 8), as JSON "
                f"{{\"tokens_contributed\": \"8\"}}, or as \"I contribute 8\".")

    def default_action(self, int player):
        return 0    # both papers' documented fallback: contribute nothing

    def text_action_spec(self, int player):
        check_seat("public goods", player, self.num_players)
        return {"description": f"a whole number from 0 to {self._limit(player)}, your contribution this round",
                "max_length": 4000, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("public goods", player, self.num_players)
        lines = [self._rules_text(), f"You are seat {player}."]
        points_after = self._points_after()
        for r in range(self.round_index):
            lines.append(self._round_line(r, player, points_after[r]))
        pool = self._pool_total()
        if self._finished():
            if self.pay_at_end:
                lines.append(f"The game is over. The pool of {pool} times {_num(self.multiplier)} = "
                             f"{_num(self.multiplier * pool)} is shared: {_num(self._share(pool))} to each player.")
            else:
                lines.append("The game is over.")
            lines.append(f"Final {self._unit()}: {self._by_seat(self._current_points(), player)}.")
        else:
            if self.pay_at_end and self.round_index > 0:
                lines.append(f"The pool holds {pool} so far, to be multiplied by {_num(self.multiplier)} and shared "
                             f"at the end.")
            lines.append(f"Round {self.round_index + 1} of {self.rounds}: you hold {_num(self._holding(player))}; "
                         f"choose your contribution, 0 to {self._limit(player)}.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("public goods", player, self.num_players)
        finished = self._finished()
        points_after = self._points_after()
        return {
            "seat": player,
            "players": self.num_players,
            "rounds": self.rounds,
            "round": None if finished else self.round_index + 1,
            "endowment": self.endowment,
            "endowment_mode": "whole_game" if self.whole_game else "per_round",
            "multiplier": self.multiplier,
            "payout": "end" if self.pay_at_end else "each_round",
            "enforce_budget": bool(self.enforce_budget),
            "max_contribution": self.max_contribution,
            "past_rounds": [
                {"round": r + 1, "contributions": self._round_contributions(r), "pot": self.pots[r],
                 "share": self._round_share(r), "share_paid": not self.pay_at_end,
                 "points_after": points_after[r]}
                for r in range(self.round_index)
            ],
            "pool_unpaid": self._pool_total() if self.pay_at_end and not finished else 0,
            "points": self._current_points(),
            "holding": None if finished else self._holding(player),
            "max_allowed": None if finished else self._limit(player),
            "finished": finished,
        }

    def public_history(self) -> list:
        """Every seat's contribution of every finished round: all of it is public."""
        return [(i, c, f"round {r + 1}: seat {i} contributes {c}")
                for r in range(self.round_index) for i, c in enumerate(self._round_contributions(r))]

    def _winners(self) -> list:
        # Everyone gets the same shares, so the most points are exactly the largest kept amount.
        best = max(self.kept[i] for i in range(self.num_players))
        return [i for i in range(self.num_players) if self.kept[i] == best]

    def result_summary(self) -> str:
        if not self._finished():
            return "game in progress"
        winners = self._winners()
        who = f"seat{'s' if len(winners) > 1 else ''} {', '.join(map(str, winners))}"
        text = f"final {self._unit()} {', '.join(_num(p) for p in self._current_points())}; highest: {who}"
        if not self.whole_game:
            text += f"; GAMA-Bench score {self.result_details()['gamabench']['score']:.2f}"
        return text

    def result_details(self) -> dict:
        points_after = self._points_after()
        rounds = [
            {"round": r + 1, "contributions": self._round_contributions(r), "pot": self.pots[r],
             "share": self._round_share(r), "share_paid": not self.pay_at_end, "payoffs": self._round_payoffs(r),
             "points_after": points_after[r], "least": self._least(r)}
            for r in range(self.round_index)
        ]
        pool = self._pool_total()
        finished = self._finished()
        details = {
            "multiplier": self.multiplier,
            "endowment": self.endowment,
            "endowment_mode": "whole_game" if self.whole_game else "per_round",
            "payout": "end" if self.pay_at_end else "each_round",
            "rounds": rounds,
            "contributed": [sum(r["contributions"][i] for r in rounds) for i in range(self.num_players)],
            "least_investment_rounds": [sum(i in r["least"] for r in rounds) for i in range(self.num_players)],
            "pool_total": pool,
            "pool_share": self._share(pool),
            "final_points": self._current_points() if finished else None,
            "winners": self._winners() if finished else None,
        }
        if not self.whole_game and rounds:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class Game(GameBase):
    """The public goods game with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_int(values, "endowment", 1, MAX_ENDOWMENT)
        checked_int(values, "max_contribution", 1, MAX_CONTRIBUTION)
        checked_choice(values, "endowment_mode", ENDOWMENT_MODES)
        checked_choice(values, "payout", PAYOUTS)
        if not isinstance(values["enforce_budget"], bool):
            raise ValueError(f"parameter 'enforce_budget' is true or false, not {values['enforce_budget']!r}")
        multiplier = values["multiplier"]
        if not _is_number(multiplier) or not 0.0 <= multiplier <= MAX_MULTIPLIER:
            raise ValueError(f"parameter 'multiplier' must be a number in [0, {MAX_MULTIPLIER:g}], not {multiplier!r}")
        values["multiplier"] = float(multiplier)

    def new_initial_state(self) -> PublicGoodsState:
        return PublicGoodsState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these parameters. Per round a seat loses at most C * (1 - R/N) (it
        gives C, the others nothing) and gains at most R * (N - 1) * C / N from the others (plus
        C * (R/N - 1) when R > N), C the largest contribution; exact unless a whole-game budget is
        enforced, where they remain bounds."""
        p = self.parameters
        n, k, r = self.num_players, p["rounds"], p["multiplier"]
        per_round = p["endowment_mode"] == "per_round"
        cap = min(p["max_contribution"], p["endowment"]) if per_round and p["enforce_budget"] else p["max_contribution"]
        base = k * p["endowment"] if per_round else p["endowment"]
        low = base - k * cap * max(0.0, 1.0 - r / n)
        high = base + k * cap * (r * (n - 1) / n + max(0.0, r / n - 1.0))
        return float(low), float(high)

    def state_from_view(self, int player, dict view) -> PublicGoodsState:
        """The state of `view` (any seat's observation_dict): everything past is public, so this
        replays the rounds' contributions."""
        check_seat("public goods", player, self.num_players)
        past_rounds = view["past_rounds"]
        if len(past_rounds) > self.parameters["rounds"]:
            raise ValueError(f"the view has {len(past_rounds)} past rounds; the game has {self.parameters['rounds']}")
        state = self.new_initial_state()
        for past in past_rounds:
            state.apply_actions(list(past["contributions"]))
        return state
