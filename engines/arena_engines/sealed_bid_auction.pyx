"""Sealed-bid auction, as played in GTBench (Blind Auction), LLMArena (Bid) and GAMA-Bench.

Rules. N bidders ("players", 2-20) take part in K auctions of one item each ("rounds", 1-100). At the
start of a round every bidder receives a private valuation, drawn by chance (below), then all bid at
once, each without seeing the others' bids. The highest bid wins. The price is the winner's own bid
("price_rule" "first") or the second-highest bid ("second"; equal to the top bid when several
bidders tie at the top). Ties for the highest bid ("tie_rule"): "random" gives the item to one of
the tied bidders uniformly at random (a chance node); "split" shares it, each of the k top bidders
getting 1/k of its own surplus. The winner's utility for the round is valuation - price, everyone
else's is 0; a seat's return is the sum over the rounds, in money (dollars when "decimals" is 2).
With "reward" "bid_deviation" every bidder instead scores (bid - v/2) / (v/2) per round, whoever
wins (LLMArena's released code; 0 when v = 0, where the formula is undefined).

Valuations ("valuation_min", "valuation_max", "valuation_step"; amounts in money units) lie on the
grid min, min + step, ..., max; "valuation_draw" picks how each bidder's valuation is drawn:
  - "independent": uniformly from the grid, independently per bidder;
  - "rounded": a continuous uniform draw on [min, max] rounded to the grid (each end point has half
    the weight of an inner point), independently per bidder;
  - "distinct": uniformly without replacement, so the bidders' valuations differ.
Chance draws one valuation per bidder, seat 0 first; chance outcome id = the valuation amount.

Bids ("bid_limit", "max_bid"): a bid is an integer amount from 0 up to min(max_bid, cap), where
cap is the valuation ("valuation"), the valuation minus one unit ("below_valuation") or none ("none":
overbidding allowed). Action id = the bid amount; the canonical action text is the amount ("7", or
"$1.08" when "decimals" is 2).

Parsing (`parse_action`) reads, in order:
  1. GAMA-Bench's JSON answer {"bid": "120"} (value a string or a number; chatter around it and
     non-JSON quoting such as {'bid': '120'} tolerated);
  2. LLMArena's bid line "player_0: $1.08" (any player name; the first such line);
  3. GTBench's "<x>" (the LAST one, as GTBench takes the last match), e.g. "Action: <4>";
  4. any dollar amount "$1.08" (LLMArena's fallback; the last one);
  5. a bare number making up the whole answer.
Amounts are read in money (dollars when "decimals" is 2: "$1.08" and "<1.08>" are both 108 cents);
a fractional amount that is not a whole number of units is refused. A well-formed bid from 0 to
max_bid is returned even when it exceeds the seat's cap, so the referee can tell an illegal bid from
an unreadable answer; a negative bid or one above max_bid raises ActionParseError. With "snap_bids"
(GTBench's released code) a bid outside the seat's legal range is snapped to the nearest legal bid.
`default_action` (the fallback when an agent gives no valid answer) is a bid of 0, legal for every
bidder: GAMA-Bench's documented Auction fallback (gamabench.md §2.9) and LLMArena's code's bid for an
unparseable answer (llmarena.md §2.6).

Information. A bidder sees its own valuation and its own bid. After each round every bidder learns
the winning bid and the price paid (public, GAMA-Bench's report) and its own outcome: won, lost, or
(under "split") shared among k bidders, which is public too; never the other bids, valuations or, under
"random", the winner's identity. `public_history` has one summary per round (seat -1, action -1);
`result_details` reveals every valuation and bid once the game is over.

Presets:
  - "gtbench_blind": GTBench's Blind Auction (OpenSpiel first_sealed_auction): 2 bidders, one round,
    first price, valuations uniform on 1..10, bids 0..v (the paper's "not exceeding the valuation"),
    random tie-break; answers "<x>".
  - "gtbench_code": the released code's variant: bids 0..v-1 (OpenSpiel's legal bids) and
    out-of-range answers snapped to the nearest legal bid.
  - "llmarena_bid": LLMArena's Bid: 2 bidders, one round, first price, v ~ U(0, 10) rounded to the
    cent, bids $0.00..v in cents, paper reward v - bid for the winner; answers "player_0: $1.08".
  - "llmarena_bid_code": the same with the released code's reward (bid - v/2)/(v/2) for each bidder.
  - "gamabench": GAMA-Bench's vanilla Sealed-Bid Auction: 10 bidders, 20 rounds, first price,
    valuations 10 distinct multiples of 10 in [0, 200] redrawn every round, overbids accepted;
    answers {"bid": "120"}.
  - "gamabench_second_price": the same with the second-price (Vickrey) rule, which GAMA-Bench runs but
    does not score.
  - "gamabench_v100", "gamabench_v400", "gamabench_v800": GAMA-Bench's Table 9 (RQ3) variations of the
    valuation range, [0, 100], [0, 400] and [0, 800] (still multiples of 10; [0, 200] is "gamabench").

GAMA-Bench scoring. `gamabench_score(parameters, details, auction_metric="paper")` gives the paper's
raw score S6 = (1/(N*K)) * sum_ij (v_ij - b_ij) and its rescaling 100 * S6 / valuation_max (§4.1,
§4.2) from the finished match's `result_details()`; auction_metric="relative" gives the later
revision's metric (§4.3). Only first-price runs are scored in the paper; a second-price run's value
is a diagnostic. `gamabench_history(run)` turns a released first-price log into parameters and a
history (valuations as chance outcomes, bids as joint moves, a tie-break as a chance outcome) that
replays it.

Ambiguities (resolutions recommended in the references):
  - GTBench's valuation distribution, bid range and tie rule are unstated in the paper: OpenSpiel's
    U{1..10}, the paper's bids 0..v (0..v-1 in "gtbench_code"), uniform random tie-break
    (gtbench.md section 6 item 7). OpenSpiel bids sequentially with hidden bids and always has a
    tie-break chance node; here bids are simultaneous and the chance node exists only on a tie.
  - LLMArena: valuations U(0, 10) rounded to 2 decimals are modelled exactly as the "rounded" grid of
    cents; bids 0..v in cents (the code's mask, although the prompt says "lower than"); paper reward
    by default, code reward in "llmarena_bid_code" (llmarena.md section 6 item 12). The code's reward
    divides by v/2; for v = 0 (probability 1/2000) this engine scores 0.
  - GAMA-Bench: the code re-seeds its own RNG every round so that valuations are identical across runs
    and models; in the arena chance is drawn by the server from the logged match seed, so fixed
    valuations come from reusing a seed, not from this engine. The code checks neither 0 <= bid nor
    bid <= v (gamabench.md section 2.6); bids are 0..1000 here in every GAMA-Bench preset (five times
    the vanilla highest valuation and above every Table 9 range; an action set must be finite) and
    negative bids are refused. `bid_limit` "valuation" is the "strict_ranges" switch of section 2.9.
    Ties: uniform random (section 6 item 2); the released logs record the code's draw as the winner,
    which gamabench_history turns into the tie-break outcome. Scoring: S6 rewards any underbidding,
    bidding 0 included (section 6 item 12); it is kept as the default, with the "relative" metric as
    the switch. The rescaling divides by the valuation_max parameter, as the code does, rather than by
    the largest valuation drawn, as the paper writes (section 4.2: the two agree whenever a valuation
    of valuation_max occurs, as in every released run); scores are not clipped (section 6 item 11).
    Table 9 prints 5.1 for the vanilla range [0, 200], but its file is the Table 5 run that scores
    6.5 (section 6 item 18): 6.5 is the vanilla target.
  - "split" is the other tie rule the reference names (some OpenSpiel versions split a tie rather than
    draw a winner, gtbench.md section 2.6); its payoff there is not documented, so here each of the k
    tied bidders gets 1/k of its own surplus, the expected value of the random rule. No preset uses it.
  - Invalid answers (GTBench's void-and-replay, LLMArena's bid $0 default, GAMA-Bench's re-asking) are
    the referee's policy, not the engine's.

The spec's utility bounds and max_game_length are bounds over all parameter values; a game lasts at
most K * (N + 2) moves (N valuation draws, the joint bid, a possible tie-break per round).
"""

from libc.string cimport memcpy, memset

import json
import re
from decimal import Decimal, InvalidOperation

from arena_engines.core cimport CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import CHANCE, SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, json_answer, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int

cdef enum:
    MAX_PLAYERS = 20
    MAX_ROUNDS = 100
    MAX_AMOUNT = 1023       # largest valuation or bid in money units: action ids are amounts

cdef enum:                  # valuation_draw
    DRAW_INDEPENDENT = 0
    DRAW_ROUNDED = 1
    DRAW_DISTINCT = 2

cdef enum:                  # bid_limit
    LIMIT_VALUATION = 0
    LIMIT_BELOW_VALUATION = 1
    LIMIT_NONE = 2

VALUATION_DRAWS = ("independent", "rounded", "distinct")
BID_LIMITS = ("valuation", "below_valuation", "none")
PRICE_RULES = ("first", "second")
TIE_RULES = ("random", "split")
REWARDS = ("surplus", "bid_deviation")

_GTBENCH = {"players": 2, "rounds": 1, "price_rule": "first", "valuation_min": 1, "valuation_max": 10,
            "valuation_step": 1, "valuation_draw": "independent", "bid_limit": "valuation", "max_bid": 10,
            "tie_rule": "random", "decimals": 0, "reward": "surplus", "snap_bids": False}
_LLMARENA = {**_GTBENCH, "valuation_min": 0, "valuation_max": 1000, "valuation_draw": "rounded", "max_bid": 1000,
             "decimals": 2}
_GAMABENCH = {**_GTBENCH, "players": 10, "rounds": 20, "valuation_min": 0, "valuation_max": 200,
              "valuation_step": 10, "valuation_draw": "distinct", "bid_limit": "none", "max_bid": 1000}
AUCTION_METRICS = ("paper", "relative")


def _table9(int high) -> Preset:
    return Preset(f"gamabench_v{high}",
                  f"GAMA-Bench Table 9 (RQ3, varying the valuation range): the gamabench preset with valuations "
                  f"10 distinct multiples of 10 in 0-{high} (vanilla: 0-200).",
                  {**_GAMABENCH, "valuation_max": high})


SPEC = GameSpec(
    game_id="sealed_bid_auction",
    display_name="Sealed-Bid Auction",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="stochastic",
    information="imperfect",
    utility="general_sum",
    min_utility=-float(MAX_AMOUNT * MAX_ROUNDS),
    max_utility=2.0 * MAX_AMOUNT * MAX_ROUNDS,
    max_game_length=MAX_ROUNDS * (MAX_PLAYERS + 2),
    description="Each round every bidder gets a private valuation and all submit sealed bids at once; the "
                "highest bid wins and pays its own bid (first price) or the second-highest bid (second "
                "price). The winner earns valuation minus price, the others 0.",
    parameters=(
        Parameter("players", 2, f"number of bidders, 2-{MAX_PLAYERS}"),
        Parameter("rounds", 1, f"number of auctions, 1-{MAX_ROUNDS}; valuations are redrawn every round"),
        Parameter("price_rule", "first", "'first' (the winner pays its bid) or 'second' (the second-highest bid)"),
        Parameter("valuation_min", 1, f"lowest valuation, in money units (0-{MAX_AMOUNT})"),
        Parameter("valuation_max", 10, f"highest valuation, in money units (up to {MAX_AMOUNT})"),
        Parameter("valuation_step", 1, "valuations are valuation_min + k * valuation_step"),
        Parameter("valuation_draw", "independent",
                  "'independent' (uniform on the grid), 'rounded' (continuous uniform rounded to the grid: "
                  "half weight at both ends) or 'distinct' (uniform, all bidders different)"),
        Parameter("bid_limit", "valuation",
                  "'valuation' (bid <= valuation), 'below_valuation' (bid < valuation) or 'none' (overbids)"),
        Parameter("max_bid", 10, f"largest bid anyone may make, in money units (0-{MAX_AMOUNT})"),
        Parameter("tie_rule", "random", "'random' (a tied top bidder drawn uniformly wins) or 'split'"),
        Parameter("decimals", 0, "0: amounts are whole units; 2: amounts are cents, shown as $x.xx"),
        Parameter("reward", "surplus", "'surplus' (winner: valuation - price) or 'bid_deviation' "
                                       "((bid - v/2)/(v/2) for every bidder, LLMArena's code)"),
        Parameter("snap_bids", False, "parse out-of-range bids as the nearest legal bid (GTBench's code)"),
    ),
    presets=(
        Preset("gtbench_blind", "GTBench (Duan et al., 2024) Blind Auction, OpenSpiel first_sealed_auction: 2 "
               "bidders, one first-price round, valuations uniform on 1-10, bids 0 to the valuation, random "
               "tie-break; answer '<x>', e.g. '<4>'.", _GTBENCH),
        Preset("gtbench_code", "GTBench's released code: as gtbench_blind but bids 0 to valuation - 1 "
               "(OpenSpiel's) and out-of-range answers snapped to the nearest legal bid.",
               {**_GTBENCH, "bid_limit": "below_valuation", "snap_bids": True}),
        Preset("llmarena_bid", "LLMArena (Chen et al., ACL 2024) Bid: 2 bidders, one first-price round, "
               "valuation uniform on $0-$10 rounded to the cent, bids $0.00 up to the valuation, winner earns "
               "valuation - bid; answer 'player_0: $1.08'.", _LLMARENA),
        Preset("llmarena_bid_code", "LLMArena's released code: as llmarena_bid but every bidder scores "
               "(bid - v/2)/(v/2).", {**_LLMARENA, "reward": "bid_deviation"}),
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla Sealed-Bid Auction: 10 bidders, 20 "
               "first-price rounds, valuations 10 distinct multiples of 10 in 0-200 redrawn every round, "
               "overbids accepted (bids 0-1000); answer JSON {\"bid\": \"120\"}.", _GAMABENCH),
        Preset("gamabench_second_price", "GAMA-Bench's second-price (Vickrey) variant of the gamabench preset "
               "(run but not scored in the paper).", {**_GAMABENCH, "price_rule": "second"}),
        _table9(100),
        _table9(400),
        _table9(800),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {name: {"players": 3, "rounds": 2} for name in
                         ("gamabench", "gamabench_second_price", "gamabench_v100", "gamabench_v400", "gamabench_v800")}

# For JSON-like answers that json.loads refuses (single quotes, trailing commas).
_BID_FIELD = re.compile(r"""["']bid["']\s*:\s*["']?\s*([^"',}\s]+)""", re.IGNORECASE)
_BID_LINE = re.compile(r"\bplayer_\d+\s*:\s*\$?\s*(-?\d+(?:\.\d*)?)", re.IGNORECASE)
_TAG = re.compile(r"<\s*\$?\s*(-?\d+(?:\.\d*)?)\s*>")
_DOLLARS = re.compile(r"\$\s*(-?\d+(?:\.\d+)?)")
_BARE = re.compile(r"\$?\s*(-?(?:\d+(?:\.\d*)?|\.\d+))")


def gamabench_score(parameters: dict, details: dict, *, auction_metric: str = "paper") -> dict:
    """GAMA-Bench's raw score S6 and its 0-100 rescaling for one run (gamabench.md §4.1-4.3).

    `parameters` are the game's resolved parameters (valuation_max); `details` is the finished
    match's result_details() (each round's "valuations" and "bids", in seat order). With v_ij and b_ij
    player i's valuation and bid in round j, over all N*K pairs:
      "paper" (default, this revision's tables):
        S6 = mean of (v_ij - b_ij)                  score = 100 * S6 / valuation_max
      "relative" (the later revision):
        S6 = mean of max(0, (v_ij - b_ij) / max(v_ij, 1))    score = 100 * S6
    Only first-price runs are scored in the paper; for a second-price run this is a diagnostic.
    """
    if auction_metric not in AUCTION_METRICS:
        raise ValueError(f"auction_metric must be one of {', '.join(AUCTION_METRICS)}, not {auction_metric!r}")
    pairs = [(v, b) for r in details["rounds"] for v, b in zip(r["valuations"], r["bids"])]
    if not pairs:
        raise ValueError("gamabench_score needs at least one played round")
    if auction_metric == "paper":
        s6 = sum(v - b for v, b in pairs) / len(pairs)
        return {"S6": s6, "score": 100.0 * s6 / parameters["valuation_max"]}
    s6 = sum(max(0.0, (v - b) / max(v, 1)) for v, b in pairs) / len(pairs)
    return {"S6": s6, "score": 100.0 * s6}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench first-price log (the parsed JSON of a file
    under raw/sealed_bid_auction/first_price): the gamabench preset's values with N, K and the
    valuation grid of the log, and per round the N valuations as chance outcomes (seat 0 first:
    the outcome id is the valuation), the bids as one joint move (SIMULTANEOUS, (b0, ..., bN-1)) and,
    when several bidders tie at the top, the logged winner ("bid_winner") as the tie-break outcome."""
    meta = run["meta"]
    if meta.get("mode") != "highest bid":
        raise ValueError(f"only first-price logs (mode 'highest bid') are released and scored, "
                         f"not {meta.get('mode')!r}")
    players = meta["player_num"]
    if len(run["player_data"]) != players:
        raise ValueError(f"the log has {len(run['player_data'])} players' data for player_num {players}")
    rounds = run["round_records"]
    parameters = {**_GAMABENCH, "players": players, "rounds": len(rounds), "valuation_min": meta["valuation_min"],
                  "valuation_max": meta["valuation_max"], "valuation_step": meta["interval"]}
    history = []
    for j, record in enumerate(rounds):
        values, bids = record["valuations"], tuple(int(b) for b in record["responses"])
        if len(values) != players or len(bids) != players:
            raise ValueError(f"round {j + 1} of the log does not have one valuation and one bid per player")
        history += [(CHANCE, int(v)) for v in values]
        history.append((SIMULTANEOUS, bids))
        top = max(bids)
        if bids.count(top) > 1:
            winner = int(record["bid_winner"].removeprefix("player_"))
            if not 0 <= winner < players or bids[winner] != top:
                raise ValueError(f"round {j + 1}: the logged winner {record['bid_winner']!r} is not a top bidder")
            history.append((CHANCE, winner))
    return parameters, history


cdef class AuctionState(State):
    cdef int rounds, first_price, tie_split, bid_deviation, decimals, snap
    cdef int value_min, value_step, grid_size, draw, limit, max_bid
    cdef int round_index                        # rounds resolved
    cdef int drawn                              # valuations drawn in the current round
    cdef bint awaiting_tiebreak                 # the current round's bids are in and tie at the top
    cdef int values[MAX_ROUNDS][MAX_PLAYERS]
    cdef int bids[MAX_ROUNDS][MAX_PLAYERS]
    cdef int top_bid[MAX_ROUNDS]
    cdef int price[MAX_ROUNDS]
    cdef int num_top[MAX_ROUNDS]                # bidders at the top bid
    cdef int winner[MAX_ROUNDS]                 # the winning seat; -1 when split among several

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.first_price = p["price_rule"] == "first"
        self.tie_split = p["tie_rule"] == "split"
        self.bid_deviation = p["reward"] == "bid_deviation"
        self.decimals = p["decimals"]
        self.snap = p["snap_bids"]
        self.value_min = p["valuation_min"]
        self.value_step = p["valuation_step"]
        self.grid_size = (p["valuation_max"] - p["valuation_min"]) // p["valuation_step"] + 1
        self.draw = VALUATION_DRAWS.index(p["valuation_draw"])
        self.limit = BID_LIMITS.index(p["bid_limit"])
        self.max_bid = p["max_bid"]

    # ---- valuation grid and bid limits --------------------------------------------------------
    cdef inline int _value_at(self, int index) noexcept:
        return self.value_min + index * self.value_step

    cdef inline int _index_of(self, int value) noexcept:
        return (value - self.value_min) // self.value_step

    cdef inline int _weight(self, int index) noexcept:
        # Rounding a continuous draw to the grid gives each end point half an inner point's weight.
        if self.draw == DRAW_ROUNDED and self.grid_size > 1 and (index == 0 or index == self.grid_size - 1):
            return 1
        return 2 if self.draw == DRAW_ROUNDED else 1

    cdef int _max_legal_bid(self, int value) noexcept:
        cdef int cap = self.max_bid
        if self.limit == LIMIT_VALUATION:
            cap = value
        elif self.limit == LIMIT_BELOW_VALUATION:
            cap = value - 1
        return cap if cap < self.max_bid else self.max_bid

    cdef int _lowest_value_for_bid(self, int bid) noexcept:
        if self.limit == LIMIT_VALUATION:
            return bid
        if self.limit == LIMIT_BELOW_VALUATION:
            return bid + 1
        return self.value_min

    cdef int _sample_index(self, Rng* rng, int lowest_value, char* used) noexcept:
        """A grid index drawn with the valuation weights among values >= lowest_value (and, for
        distinct draws, not marked in `used`); -1 if there is none."""
        cdef int i, total = 0, pick
        for i in range(self.grid_size):
            if self._value_at(i) >= lowest_value and not (self.draw == DRAW_DISTINCT and used[i]):
                total += self._weight(i)
        if total == 0:
            return -1
        pick = rng_below(rng, total)
        for i in range(self.grid_size):
            if self._value_at(i) >= lowest_value and not (self.draw == DRAW_DISTINCT and used[i]):
                if pick < self._weight(i):
                    return i
                pick -= self._weight(i)
        return -1

    cdef int _draw_value(self, Rng* rng, int lowest_value, char* used) noexcept:
        """A valuation as `_sample_index` draws it, marked as used."""
        cdef int i = self._sample_index(rng, lowest_value, used)
        if i < 0:
            i = self.grid_size - 1      # unreachable for states consistent with the rules
        used[i] = 1
        return self._value_at(i)

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.round_index >= self.rounds:
            return TERMINAL_PLAYER
        if self.drawn < self.num_players or self.awaiting_tiebreak:
            return CHANCE_PLAYER
        return SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.c_current_player() == SIMULTANEOUS_PLAYER and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int b, cap
        if not self.c_is_acting(player):
            return 0
        cap = self._max_legal_bid(self.values[self.round_index][player])
        for b in range(cap + 1):
            out[b] = b
        return cap + 1

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int r = self.round_index
        cdef int i, n = 0, total = 0
        cdef char used[MAX_AMOUNT + 1]
        if self.awaiting_tiebreak:
            for i in range(self.num_players):
                if self.bids[r][i] == self.top_bid[r]:
                    actions[n] = i
                    n += 1
            for i in range(n):
                probs[i] = 1.0 / n
            return n
        memset(used, 0, self.grid_size)
        for i in range(self.drawn):
            used[self._index_of(self.values[r][i])] = 1
        for i in range(self.grid_size):
            if not (self.draw == DRAW_DISTINCT and used[i]):
                actions[n] = self._value_at(i)
                probs[n] = self._weight(i)
                total += self._weight(i)
                n += 1
        for i in range(n):
            probs[i] /= total
        return n

    cdef void c_apply_action(self, int action) noexcept:
        if self.awaiting_tiebreak:
            self.winner[self.round_index] = action
            self._end_round()
        else:
            self.values[self.round_index][self.drawn] = action
            self.drawn += 1

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, top = -1, second = -1, k = 0, sole = -1
        for i in range(self.num_players):
            self.bids[r][i] = actions[i]
            if actions[i] > top:
                top = actions[i]
        for i in range(self.num_players):
            if actions[i] == top:
                k += 1
                sole = i
            elif actions[i] > second:
                second = actions[i]
        self.top_bid[r] = top
        self.num_top[r] = k
        # With several bids at the top the second-highest bid is the top bid itself.
        self.price[r] = top if self.first_price or k >= 2 else second
        if k >= 2 and not self.tie_split:
            self.awaiting_tiebreak = True
            return
        self.winner[r] = sole if k == 1 else -1
        self._end_round()

    cdef void _end_round(self) noexcept:
        self.round_index += 1
        self.drawn = 0
        self.awaiting_tiebreak = False

    cdef void c_returns(self, double* out) noexcept:
        cdef int r, i, w, v
        cdef double scale = 100.0 if self.decimals == 2 else 1.0
        for i in range(self.num_players):
            out[i] = 0.0
        for r in range(self.round_index):
            if self.bid_deviation:
                for i in range(self.num_players):
                    v = self.values[r][i]
                    if v > 0:
                        out[i] += (2.0 * self.bids[r][i] - v) / v
                continue
            w = self.winner[r]
            if w >= 0:
                out[w] += (self.values[r][w] - self.price[r]) / scale
            else:
                for i in range(self.num_players):
                    if self.bids[r][i] == self.top_bid[r]:
                        out[i] += (self.values[r][i] - self.price[r]) / (scale * self.num_top[r])

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int r, i, j, seat, best
        cdef char used[MAX_AMOUNT + 1]
        cdef int order[MAX_PLAYERS]
        cdef int count = 0
        cdef bint own_drawn
        for r in range(self.round_index):
            self.winner[r] = self._plausible_round(
                player, self.values[r][player], self.bids[r][player], self.top_bid[r], self.price[r],
                self.num_top[r], self._seat_won(r, player), rng, self.values[r], self.bids[r])
            self._recount_top(r)
        if self.round_index >= self.rounds:
            return
        r = self.round_index
        memset(used, 0, self.grid_size)
        own_drawn = player < self.drawn
        if own_drawn:
            used[self._index_of(self.values[r][player])] = 1
        for seat in range(self.drawn):
            if seat != player:
                order[count] = seat
                count += 1
        if self.awaiting_tiebreak:
            # The bids stand (the tie must stay); each valuation must still allow its bid, so the
            # highest bids get their valuations first (nested lower bounds: greedy always succeeds).
            for i in range(count):
                best = i
                for j in range(i + 1, count):
                    if self.bids[r][order[j]] > self.bids[r][order[best]]:
                        best = j
                order[i], order[best] = order[best], order[i]
                seat = order[i]
                self.values[r][seat] = self._draw_value(rng, self._lowest_value_for_bid(self.bids[r][seat]), used)
        else:
            for i in range(count):
                self.values[r][order[i]] = self._draw_value(rng, self.value_min, used)

    cdef int _plausible_round(self, int player, int own_value, int own_bid, int top, int price, int num_top,
                              bint won, Rng* rng, int* values, int* bids) noexcept:
        """Fills `values` and `bids` of one round with a random assignment that `player` cannot tell
        from the real one: its own valuation and bid, the top bid, the price, its own outcome and
        (under "split") the number of top bidders. Returns the winning seat (-1 for a split).

        The other seats get roles: `need_top` of them bid the top, one more bids the price when the
        second-highest bid needs a witness, the rest bid at random below a cap that keeps the top
        and the price. Valuations go to the role seats first, highest bid first, each at least what
        its bid requires; the real round proves such valuations exist, and with lower bounds that
        only decrease the greedy choice cannot run out of values."""
        cdef int others[MAX_PLAYERS]
        cdef char used[MAX_AMOUNT + 1]
        cdef int m = 0, i, j, seat, need_top, tops_known, known_second, roles, cap, win, v, high
        for seat in range(self.num_players):
            if seat != player:
                others[m] = seat
                m += 1
        for i in range(m - 1, 0, -1):
            j = rng_below(rng, i + 1)
            others[i], others[j] = others[j], others[i]
        values[player] = own_value
        bids[player] = own_bid
        memset(used, 0, self.grid_size)
        used[self._index_of(own_value)] = 1
        if self.tie_split:
            need_top = num_top - (1 if own_bid == top else 0)
            win = -1 if num_top >= 2 else (player if own_bid == top else others[0])
        else:
            need_top = 0 if won else 1
            win = player if won else others[0]
        roles = need_top
        if not self.first_price:
            tops_known = need_top + (1 if own_bid == top else 0)
            if tops_known >= 2:
                known_second = top
            elif own_bid != top:
                known_second = own_bid
            else:
                known_second = -1
            if known_second != price:
                roles += 1
        if self.first_price:
            cap = top - 1 if self.tie_split else top
        else:
            cap = price
            if self.tie_split and top - 1 < cap:
                cap = top - 1
        for i in range(roles):
            seat = others[i]
            bids[seat] = top if i < need_top else price
            values[seat] = self._draw_value(rng, self._lowest_value_for_bid(bids[seat]), used)
        for i in range(roles, m):
            seat = others[i]
            v = self._draw_value(rng, self.value_min, used)
            values[seat] = v
            high = self._max_legal_bid(v)
            if cap < high:
                high = cap
            bids[seat] = rng_below(rng, high + 1) if high > 0 else 0
        return win

    cdef void _recount_top(self, int r) noexcept:
        cdef int i, k = 0
        for i in range(self.num_players):
            if self.bids[r][i] == self.top_bid[r]:
                k += 1
        self.num_top[r] = k

    cdef bint _seat_won(self, int r, int seat) noexcept:
        """Whether `seat` won round r (or shared it, under "split")."""
        if self.winner[r] >= 0:
            return self.winner[r] == seat
        return self.bids[r][seat] == self.top_bid[r]

    cdef State c_clone(self):
        cdef AuctionState s = AuctionState.__new__(AuctionState)
        cdef int rows = self.round_index + 1 if self.round_index < self.rounds else self.rounds
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.first_price = self.first_price
        s.tie_split = self.tie_split
        s.bid_deviation = self.bid_deviation
        s.decimals = self.decimals
        s.snap = self.snap
        s.value_min = self.value_min
        s.value_step = self.value_step
        s.grid_size = self.grid_size
        s.draw = self.draw
        s.limit = self.limit
        s.max_bid = self.max_bid
        s.round_index = self.round_index
        s.drawn = self.drawn
        s.awaiting_tiebreak = self.awaiting_tiebreak
        # Rows of rounds not yet started are never read, so only the started ones are copied.
        memcpy(&s.values[0][0], &self.values[0][0], rows * MAX_PLAYERS * sizeof(int))
        memcpy(&s.bids[0][0], &self.bids[0][0], rows * MAX_PLAYERS * sizeof(int))
        memcpy(s.top_bid, self.top_bid, sizeof(self.top_bid))
        memcpy(s.price, self.price, sizeof(self.price))
        memcpy(s.num_top, self.num_top, sizeof(self.num_top))
        memcpy(s.winner, self.winner, sizeof(self.winner))
        return s

    # ---- helpers for the views and for Game.state_from_view -----------------------------------
    def plausible_round(self, int player, int own_value, int own_bid, int top, int price, int num_top,
                        bint won, seed=0) -> tuple:
        """(values, bids, winner) of a round consistent with what `player` saw of it; see
        `_plausible_round`. Deterministic for a given seed."""
        cdef Rng rng
        cdef int values[MAX_PLAYERS]
        cdef int bids[MAX_PLAYERS]
        rng.s = <unsigned long long>seed
        win = self._plausible_round(player, own_value, own_bid, top, price, num_top, won, &rng, values, bids)
        return ([values[i] for i in range(self.num_players)], [bids[i] for i in range(self.num_players)], win)

    def plausible_values(self, int player, int own_value, seed=0) -> list:
        """Valuations for every seat, `player`'s being `own_value` (or drawn too, when it is -1),
        drawn as chance would draw them given the player's own."""
        cdef Rng rng
        cdef char used[MAX_AMOUNT + 1]
        rng.s = <unsigned long long>seed
        memset(used, 0, self.grid_size)
        if own_value >= 0:
            used[self._index_of(own_value)] = 1
        values = []
        for seat in range(self.num_players):
            values.append(own_value if seat == player and own_value >= 0
                          else self._draw_value(&rng, self.value_min, used))
        return values

    def money(self, int amount) -> str:
        """An amount as the bidders read it: "7", or "$1.08" in cents."""
        if self.decimals == 2:
            sign = "-" if amount < 0 else ""
            return f"{sign}${abs(amount) // 100}.{abs(amount) % 100:02d}"
        return str(amount)

    def _utility_text(self, double utility) -> str:
        if self.bid_deviation:
            return f"{utility:.4g}"
        return f"{utility:.2f}" if self.decimals == 2 else f"{utility:g}"

    def _round_utility(self, int r, int seat) -> float:
        cdef double scale = 100.0 if self.decimals == 2 else 1.0
        cdef int v = self.values[r][seat]
        if self.bid_deviation:
            return (2.0 * self.bids[r][seat] - v) / v if v > 0 else 0.0
        if not self._seat_won(r, seat):
            return 0.0
        share = 1 if self.winner[r] >= 0 else self.num_top[r]
        return (v - self.price[r]) / (scale * share)

    def _outcome(self, int r, int seat) -> str:
        if not self._seat_won(r, seat):
            return "lost"
        return "won" if self.winner[r] >= 0 else f"shared the item with {self.num_top[r] - 1} other(s)"

    def _round_report(self, int r) -> str:
        text = f"Round {r + 1}: winning bid {self.money(self.top_bid[r])}, price paid {self.money(self.price[r])}"
        if self.tie_split and self.winner[r] < 0:
            text += f", shared by {self.num_top[r]} top bidders"
        return text + "."

    def _phase(self) -> str:
        cdef int p = self.c_current_player()
        if p == TERMINAL_PLAYER:
            return "over"
        if p == SIMULTANEOUS_PLAYER:
            return "bidding"
        return "tie_break" if self.awaiting_tiebreak else "valuations"

    def _rules_text(self) -> str:
        p = self.game.parameters
        low, high = self.money(p["valuation_min"]), self.money(p["valuation_max"])
        step = "" if self.value_step == 1 else f" in steps of {self.money(self.value_step)}"
        valuation = {
            DRAW_INDEPENDENT: f"drawn uniformly from {low} to {high}{step}",
            DRAW_ROUNDED: f"drawn uniformly between {low} and {high}, rounded to "
                          + ("the cent" if self.decimals == 2 else "a whole unit"),
            DRAW_DISTINCT: f"drawn uniformly from {low} to {high}{step}, all bidders' valuations different",
        }[self.draw]
        rounds = "one round" if self.rounds == 1 else f"{self.rounds} rounds, with new valuations every round"
        price = ("the winner pays its own bid" if self.first_price else
                 "the winner pays the second-highest bid")
        ties = ("a tie for the highest bid is broken uniformly at random" if not self.tie_split else
                "tied top bidders share the item, each getting its share of the surplus")
        bids = {LIMIT_VALUATION: "from 0 up to your valuation",
                LIMIT_BELOW_VALUATION: "from 0 up to your valuation minus " + self.money(1),
                LIMIT_NONE: f"from 0 to {self.money(self.max_bid)}, even above your valuation"}[self.limit]
        if self.bid_deviation:
            reward = "Every bidder scores (bid - v/2) / (v/2) per round, where v is its valuation."
        else:
            reward = "The winner's utility is its valuation minus the price; the others get 0."
        return (f"{'First' if self.first_price else 'Second'}-price sealed-bid auction: {self.num_players} "
                f"bidders, {rounds}. Each bidder gets a private valuation for the item ({valuation}); then "
                f"all bid at once, without seeing the others' bids. The highest bid wins and {price}; {ties}. "
                f"{reward} Bids are {bids}.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.awaiting_tiebreak:
                return f"bidder {action} wins the tie"
            return f"valuation {self.money(action)} for bidder {self.drawn}"
        if not 0 <= action <= MAX_AMOUNT:
            raise ValueError(f"bids are 0-{MAX_AMOUNT}, not {action}")
        return self.money(action)

    def parse_action(self, int player, str text) -> int:
        amount = self._answer_amount(text, player)
        units = self._to_units(amount, player)
        legal = self.legal_actions(player)
        if self.snap and legal:
            # GTBench's code: any readable bid becomes the nearest legal one.
            return min(max(units, 0), len(legal) - 1)
        if units < 0:
            raise ActionParseError(f"a bid cannot be negative ({amount}). {self._answer_help(player)}")
        if units > self.max_bid:
            raise ActionParseError(f"{amount} is above the largest possible bid, {self.money(self.max_bid)}. "
                                   f"{self._answer_help(player)}")
        return units

    def _answer_amount(self, str text, int player):
        """The bid as written in `text` (a string or a JSON number), from the first format that
        matches; raises ActionParseError when none does."""
        amount = json_answer(text, "bid", _BID_FIELD, _BID_LINE)
        if amount is not MISSING:
            return amount
        for pattern in (_TAG, _DOLLARS):
            match = last_match(pattern, text)
            if match is not None:
                return match.group(1)
        match = _BARE.fullmatch(text.strip())
        if match is not None:
            return match.group(1)
        raise ActionParseError(f"could not read a bid from {text!r}. {self._answer_help(player)}")

    def _to_units(self, amount, int player) -> int:
        if isinstance(amount, bool) or not isinstance(amount, (str, int, float)):
            raise ActionParseError(f"{json.dumps(amount)} is not an amount. {self._answer_help(player)}")
        try:
            value = Decimal(str(amount).strip().lstrip("$").strip())
        except InvalidOperation:
            raise ActionParseError(f"{amount!r} is not an amount. {self._answer_help(player)}") from None
        if not value.is_finite():
            raise ActionParseError(f"{amount!r} is not an amount. {self._answer_help(player)}")
        # Beyond the id range the exact size no longer matters (and huge values are not scaled).
        if value > MAX_AMOUNT:
            return MAX_AMOUNT + 1
        if value < -MAX_AMOUNT:
            return -1
        units = value.scaleb(self.decimals)
        if units != units.to_integral_value():
            unit = "whole cents" if self.decimals == 2 else "whole numbers"
            raise ActionParseError(f"bids are in {unit}, not {amount}. {self._answer_help(player)}")
        return int(units)

    def _answer_help(self, int player) -> str:
        legal = self.legal_actions(player) if 0 <= player < self.num_players else []
        cap = len(legal) - 1 if legal else self.max_bid
        if self.decimals == 2:
            example = self.money(min(cap, 108))
            return (f"Answer with a bid from {self.money(0)} to {self.money(cap)}, e.g. 'player_{max(player, 0)}: "
                    f"{example}', <{example[1:]}> or {{\"bid\": \"{example[1:]}\"}}.")
        example = min(cap, 4)
        return (f"Answer with a bid from 0 to {cap}, e.g. <{example}> or {{\"bid\": \"{example}\"}}.")

    def default_action(self, int player):
        """The documented fallback bid, 0 (GAMA-Bench §2.9; LLMArena's code), while `player` bids."""
        return 0 if self.c_is_acting(player) else None

    def text_action_spec(self, int player):
        legal = self.legal_actions(player)
        if not legal:
            return None
        return {"description": f"your bid, from {self.money(0)} to {self.money(len(legal) - 1)}",
                # room for step-by-step reasoning before the answer
                "max_length": 4000, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("sealed-bid auction", player, self.num_players)
        lines = [self._rules_text(), f"You are bidder {player} (player_{player})."]
        total = 0.0
        for r in range(self.round_index):
            utility = self._round_utility(r, player)
            total += utility
            lines.append(f"{self._round_report(r)} Your valuation was {self.money(self.values[r][player])}, "
                         f"you bid {self.money(self.bids[r][player])} and {self._outcome(r, player)} "
                         f"(utility {self._utility_text(utility)}).")
        phase = self._phase()
        r = self.round_index
        if phase == "over":
            lines.append(f"The auction is over. Your total utility: {self._utility_text(total)}.")
            return "\n".join(lines)
        header = f"Round {r + 1} of {self.rounds}"
        if self.round_index:
            header += f" (your total utility so far: {self._utility_text(total)})"
        if phase == "valuations":
            own = (f"your valuation is {self.money(self.values[r][player])}; " if player < self.drawn else "")
            lines.append(f"{header}: {own}the valuations are being drawn.")
        elif phase == "tie_break":
            lines.append(f"{header}: your valuation is {self.money(self.values[r][player])} and you bid "
                         f"{self.money(self.bids[r][player])}; the bids are in and the winner is being decided.")
        else:
            cap = self._max_legal_bid(self.values[r][player])
            lines.append(f"{header}: your valuation is {self.money(self.values[r][player])}. Submit your bid, "
                         f"from {self.money(0)} to {self.money(cap)}.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        """Amounts are integers in money units (cents when "decimals" is 2), as the action ids."""
        check_seat("sealed-bid auction", player, self.num_players)
        phase = self._phase()
        r = self.round_index
        past = []
        for i in range(self.round_index):
            entry = {"round": i + 1, "my_valuation": self.values[i][player], "my_bid": self.bids[i][player],
                     "winning_bid": self.top_bid[i], "price": self.price[i], "won": self._seat_won(i, player),
                     "utility": self._round_utility(i, player)}
            if self.tie_split:
                entry["top_bidders"] = self.num_top[i]
            past.append(entry)
        current = phase != "over"
        return {
            "seat": player,
            "players": self.num_players,
            "rounds": self.rounds,
            "price_rule": "first" if self.first_price else "second",
            "decimals": self.decimals,
            "phase": phase,
            "round": r + 1 if current else None,
            "valuations_drawn": self.drawn if current else None,
            "my_valuation": self.values[r][player] if current and player < self.drawn else None,
            "my_bid": self.bids[r][player] if phase == "tie_break" else None,
            "max_legal_bid": self._max_legal_bid(self.values[r][player]) if phase == "bidding" else None,
            "past_rounds": past,
            "total_utility": sum((e["utility"] for e in past), 0.0),
        }

    def public_history(self) -> list:
        """One summary per resolved round; valuations, bids and tie-breaks stay private."""
        return [(-1, -1, self._round_report(r)) for r in range(self.round_index)]

    def result_summary(self) -> str:
        if self.round_index < self.rounds:
            return "game in progress"
        returns = self.returns()
        if self.rounds == 1:
            r = 0
            if self.winner[r] >= 0:
                who = f"bidder {self.winner[r]} wins at {self.money(self.price[r])}"
            else:
                who = f"{self.num_top[r]} bidders share the item at {self.money(self.price[r])}"
            return f"{who}; returns " + ", ".join(f"{x:g}" for x in returns)
        best = max(returns)
        leaders = [i for i in range(self.num_players) if returns[i] == best]
        return (f"highest total utility: bidder{'s' if len(leaders) > 1 else ''} "
                f"{', '.join(map(str, leaders))} ({best:g})")

    def result_details(self) -> dict:
        rounds = []
        for r in range(self.round_index):
            rounds.append({
                "round": r + 1,
                "valuations": [self.values[r][i] for i in range(self.num_players)],
                "bids": [self.bids[r][i] for i in range(self.num_players)],
                "winning_bid": self.top_bid[r], "price": self.price[r],
                "winners": [i for i in range(self.num_players) if self._seat_won(r, i)],
                "utilities": [self._round_utility(r, i) for i in range(self.num_players)],
            })
        return {"rounds": rounds, "returns": self.returns(), "decimals": self.decimals}


class Game(GameBase):
    """A sealed-bid auction with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_choice(values, "price_rule", PRICE_RULES)
        low = checked_int(values, "valuation_min", 0, MAX_AMOUNT)
        high = checked_int(values, "valuation_max", low, MAX_AMOUNT)
        step = checked_int(values, "valuation_step", 1, MAX_AMOUNT)
        if (high - low) % step:
            raise ValueError(f"valuation_max - valuation_min ({high - low}) must be a multiple of "
                             f"valuation_step ({step})")
        draw = checked_choice(values, "valuation_draw", VALUATION_DRAWS)
        if draw == DRAW_DISTINCT and (high - low) // step + 1 < num_players:
            raise ValueError(f"'distinct' valuations need at least {num_players} grid values, "
                             f"not {(high - low) // step + 1}")
        if checked_choice(values, "bid_limit", BID_LIMITS) == LIMIT_BELOW_VALUATION and low < 1:
            raise ValueError("bid_limit 'below_valuation' needs valuation_min >= 1 (a valuation of 0 "
                             "would leave no legal bid)")
        checked_int(values, "max_bid", 0, MAX_AMOUNT)
        checked_choice(values, "tie_rule", TIE_RULES)
        if values["decimals"] not in (0, 2) or isinstance(values["decimals"], bool):
            raise ValueError(f"parameter 'decimals' must be 0 or 2, not {values['decimals']!r}")
        checked_choice(values, "reward", REWARDS)
        if not isinstance(values["snap_bids"], bool):
            raise ValueError(f"parameter 'snap_bids' must be true or false, not {values['snap_bids']!r}")

    def new_initial_state(self) -> AuctionState:
        return AuctionState(self)

    def state_from_view(self, int player, dict view) -> AuctionState:
        """A state consistent with `view` (seat `player`'s observation_dict): past rounds get other
        valuations and bids that reproduce the player's observations (`plausible_round`); the
        current round's other valuations are drawn as chance would."""
        state = self.new_initial_state()
        check_seat("sealed-bid auction", player, state.num_players)
        for past in view["past_rounds"]:
            values, bids, winner = state.plausible_round(
                player, past["my_valuation"], past["my_bid"], past["winning_bid"], past["price"],
                past.get("top_bidders", 0), past["won"])
            for value in values:
                state.apply_action(value)
            state.apply_actions(bids)
            if state._phase() == "tie_break":
                state.apply_action(winner)
        if view["phase"] == "tie_break":
            # Any tie at the top will do: another seat matches the player's bid.
            values, bids, _ = state.plausible_round(player, view["my_valuation"], view["my_bid"], view["my_bid"],
                                                    view["my_bid"], 2, False)
            for value in values:
                state.apply_action(value)
            state.apply_actions(bids)
        elif view["phase"] != "over":
            own = view["my_valuation"] if view["my_valuation"] is not None else -1
            values = state.plausible_values(player, own)
            for seat in range(view["valuations_drawn"]):
                state.apply_action(values[seat])
        return state
