"""Guess 2/3 of the Average, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, §2.1).

Rules. N players (parameter "players", 2-100) play K rounds ("rounds", 1-100). Each round every
player secretly picks an integer in [MIN, MAX] ("min_value", "max_value"); the moves of a round are
simultaneous. The target is R times the average of all picks, with R = "ratio_numerator" /
"ratio_denominator" kept as an exact fraction (2/3 by default). The player(s) whose pick is closest
to the target win the round. A seat's return is the number of rounds it won (general-sum, 0 to K);
every round has at least one winner.

Actions. Action id = the number itself (MIN..MAX); the action text is the number. `parse_action`
accepts a bare integer ("34") or GAMA-Bench's JSON answer {"chosen_number": "34"} (value as a string
or a number, chatter around the JSON tolerated; an integer-valued JSON number such as 34.0 is read as
34). Anything else, a non-integer or a number outside [MIN, MAX] raises ActionParseError with the
expected format. `default_action` is GAMA-Bench's documented Guess fallback (§2.9): the previous
round's target rounded to the nearest integer (halves up), or (MIN + MAX) / 2 rounded the same way in
round 1, kept inside [MIN, MAX].

Information. After each round a seat learns the average, the target (2 decimals), the winning
number(s), its own pick and whether it won; never another seat's pick. `public_history` therefore
holds one summary entry per round (seat -1, action -1). Every pick is revealed at the end in
`result_details`. For determinized search, `resample_hidden(player, seed)` redraws the other seats'
past picks (and so their win counts) consistently with everything `player` observed, and
`Game.state_from_view(player, observation_dict)` rebuilds such a state from the view alone.

Scoring. `gamabench_score(parameters, details, guess_r1_formula="as_printed", guess_min_fix=False)`
gives the paper's raw score S1 = (1/(N*K)) * sum_ij (C_ij - MIN) and its 0-100 rescaling (Eq. 1,
§4.1-4.3) from the finished match's `result_details()`; `score_choices` is the same formula on a
plain table of picks. `gamabench_history(run)` turns a released log into parameters and a history
that replays it.

Preset "gamabench": the paper's vanilla setting, 10 players, 20 rounds, picks 0-100, R = 2/3. Table 9
varies only R (0, 1/6, 1/3, ..., 2 in steps of 1/6: twelve values besides the vanilla 2/3); they are
not presets, since "ratio_numerator" and "ratio_denominator" express each one directly.

Ambiguities (resolutions recommended in the reference, gamabench.md §6):
  - Ties. The released code declares the *first* number in response order with minimal distance the
    winner, so of two different numbers equally close to the target only one wins. Simultaneous
    moves have no response order, so this engine follows the arena default of §6 item 2: every
    player whose pick attains the minimal distance wins (two different numbers can win at once, one
    either side of the target). Distances are compared exactly in integers. Of the released logs
    only one round differs for this reason (R = 1, round 15: 88 and 90 are both 1 from the target
    89; the log lets only 90 win); the score does not depend on who wins.
  - Scoring follows the paper-era formulas of the released data's README: the R = 1 branch as
    printed, |2*S1 - (MAX - MIN)| / (MAX - MIN) (§6 item 13; guess_r1_formula="later" gives 100
    minus it, the later code's), and the R < 1 branch's unfixed MAX - S1 for MIN > 0 (§6 item 11;
    guess_min_fix=True gives (MAX - MIN - S1) / (MAX - MIN)). The scores are not clipped.
  - The released code validates picks against a hard-coded 100 rather than MAX; this engine uses
    [MIN, MAX].
  - Invalid answers (§2.9, §6 item 1): the code re-asks forever; the arena re-asks up to a cap (the
    referee's failure policy) and then plays `default_action`. The reference does not say how the
    target is rounded; halves go up here, and a target outside [MIN, MAX] (possible when R > 1) is
    clamped so that the fallback is always a legal pick.

The spec's max_game_length and max_utility are bounds over all parameter values (100 rounds); a
game with K rounds lasts exactly K joint moves and its returns are at most K.
"""

from libc.stdlib cimport llabs
from libc.string cimport memcpy

from fractions import Fraction

from arena_engines.core cimport MAX_ACTIONS, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, number_answer, whole_number
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_ROUNDS = 100

# Bounds that keep every product in the exact distance comparison well inside 64 bits.
MAX_VALUE_LIMIT = 1_000_000
RATIO_TERM_LIMIT = 1000

SPEC = GameSpec(
    game_id="guess_two_thirds_average",
    display_name="Guess 2/3 of the Average",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="imperfect",
    utility="general_sum",
    min_utility=0.0,
    max_utility=float(MAX_ROUNDS),
    max_game_length=MAX_ROUNDS,
    description="Each round every player picks an integer; whoever is closest to a fraction (2/3) of the "
                "average wins the round. Returns are rounds won.",
    parameters=(
        Parameter("players", 10, "number of players, 2-100"),
        Parameter("rounds", 20, "number of rounds, 1-100"),
        Parameter("min_value", 0, "smallest number a player may pick (>= 0)"),
        Parameter("max_value", 100, "largest number a player may pick (at most 1023 above min_value)"),
        Parameter("ratio_numerator", 2, "numerator of the ratio R applied to the average, 0-1000"),
        Parameter("ratio_denominator", 3, "denominator of the ratio R, 1-1000"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench vanilla setting: 10 players, 20 rounds, integers 0-100, R = 2/3; "
               "answers as JSON {\"chosen_number\": \"34\"} or a bare integer.",
               {"players": 10, "rounds": 20, "min_value": 0, "max_value": 100,
                "ratio_numerator": 2, "ratio_denominator": 3}),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "rounds": 3}}

R1_FORMULAS = ("as_printed", "later")


def score_choices(choices, min_value, max_value, ratio, *, r1_formula: str = "as_printed",
                  min_fix: bool = False) -> dict:
    """GAMA-Bench's raw score S1 and its 0-100 rescaling for one run, as in the paper's tables.

    choices[i][j] is player i's number in round j; `ratio` is R (a Fraction, int or float).
      S1 = (1/(N*K)) * sum_ij (C_ij - MIN)
      R < 1: score = 100 * (MAX - S1) / (MAX - MIN)    (min_fix: 100 * (MAX - MIN - S1) / (MAX - MIN))
      R = 1: score = 100 * |2*S1 - (MAX - MIN)| / (MAX - MIN)    (r1_formula "as_printed", the
             paper's branch; "later": 100 minus that)
      R > 1: score = 100 * S1 / (MAX - MIN)
    """
    if r1_formula not in R1_FORMULAS:
        raise ValueError(f"the R = 1 formula must be one of {', '.join(R1_FORMULAS)}, not {r1_formula!r}")
    n = len(choices)
    if n == 0 or len(choices[0]) == 0:
        raise ValueError("score_choices needs at least one player and one round")
    k = len(choices[0])
    if any(len(row) != k for row in choices):
        raise ValueError("every player needs one number per round")
    span = max_value - min_value
    if span <= 0:
        raise ValueError("max_value must exceed min_value")
    s1 = sum(c - min_value for row in choices for c in row) / (n * k)
    if ratio < 1:
        score = 100.0 * ((span if min_fix else max_value) - s1) / span
    elif ratio == 1:
        score = 100.0 * abs(2 * s1 - span) / span
        if r1_formula == "later":
            score = 100.0 - score
    else:
        score = 100.0 * s1 / span
    return {"S1": s1, "score": score}


def gamabench_score(parameters: dict, details: dict, *, guess_r1_formula: str = "as_printed",
                    guess_min_fix: bool = False) -> dict:
    """GAMA-Bench's raw score S1 and its 0-100 rescaling for one run (`score_choices`), from the
    game's resolved `parameters` (MIN, MAX, R) and `details`, the finished match's result_details()
    (each round's "choices", in seat order). The keyword arguments are the scoring switches of
    gamabench.md §4.3 that concern this game; their defaults reproduce the paper's tables."""
    rounds = details["rounds"]
    if not rounds:
        raise ValueError("gamabench_score needs at least one played round")
    players = len(rounds[0]["choices"])
    choices = [[r["choices"][i] for r in rounds] for i in range(players)]
    ratio = Fraction(parameters["ratio_numerator"], parameters["ratio_denominator"])
    return score_choices(choices, parameters["min_value"], parameters["max_value"], ratio,
                         r1_formula=guess_r1_formula, min_fix=guess_min_fix)


def _logged_ratio(dict meta):
    """R of a released log as an exact fraction: "ratio_str" is "2/3", or a percentage for R = 0, 1
    and 2 ("0.0%", "100.0%", "200.0%"); it must agree with the float "ratio"."""
    text = meta["ratio_str"].strip()
    ratio = Fraction(text[:-1]) / 100 if text.endswith("%") else Fraction(text)
    if abs(float(ratio) - meta["ratio"]) > 1e-12:
        raise ValueError(f"ratio_str {meta['ratio_str']!r} does not match ratio {meta['ratio']!r}")
    if ratio.numerator > RATIO_TERM_LIMIT or ratio.denominator > RATIO_TERM_LIMIT:
        raise ValueError(f"R = {ratio} does not fit ratio_numerator / ratio_denominator")
    return ratio


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (the parsed JSON of a raw/guessing_game
    file): N, K, MIN, MAX and R from the log, and one joint move (SIMULTANEOUS, (a0, ..., aN-1)) per
    round with the picks in player order, read from player_data[i].records (round_records' response
    lists were shuffled before saving)."""
    meta = run["meta"]
    players = run["player_data"]
    if len(players) != meta["player_num"]:
        raise ValueError(f"the log has {len(players)} players' data for player_num {meta['player_num']}")
    ratio = _logged_ratio(meta)
    rounds = len(run["round_records"])
    parameters = {"players": len(players), "rounds": rounds, "min_value": meta["min"], "max_value": meta["max"],
                  "ratio_numerator": ratio.numerator, "ratio_denominator": ratio.denominator}
    history = [(SIMULTANEOUS, tuple(int(p["records"][j]) for p in players)) for j in range(rounds)]
    return parameters, history


def _fmt_mean(double value) -> str:
    """An average as GAMA-Bench prints it (50, 54.5), with at most 4 decimals."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


cdef class GuessState(State):
    cdef int rounds, min_value, max_value, ratio_num, ratio_den
    cdef int round_index                        # rounds completed
    cdef int choices[MAX_ROUNDS][MAX_PLAYERS]   # choices[round][seat]
    cdef long long sums[MAX_ROUNDS]
    cdef int win_low[MAX_ROUNDS]                # the winning number(s) of each round: one, or two
    cdef int win_high[MAX_ROUNDS]               # different numbers either side of the target
    cdef int wins[MAX_PLAYERS]                  # rounds won by each seat

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.min_value = p["min_value"]
        self.max_value = p["max_value"]
        self.ratio_num = p["ratio_numerator"]
        self.ratio_den = p["ratio_denominator"]
        self.round_index = 0

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER if self.round_index >= self.rounds else SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.round_index < self.rounds and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int v, n = 0
        if not self.c_is_acting(player):
            return 0
        for v in range(self.min_value, self.max_value + 1):
            out[n] = v
            n += 1
        return n

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, low = -1, high = -1
        cdef long long total = 0, best = -1, dist
        for i in range(self.num_players):
            self.choices[r][i] = actions[i]
            total += actions[i]
        self.sums[r] = total
        for i in range(self.num_players):
            dist = self._distance(r, actions[i])
            if best < 0 or dist < best:
                best = dist
        for i in range(self.num_players):
            if self._distance(r, actions[i]) == best:
                self.wins[i] += 1
                if low < 0 or actions[i] < low:
                    low = actions[i]
                if actions[i] > high:
                    high = actions[i]
        self.win_low[r] = low
        self.win_high[r] = high
        self.round_index += 1

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = self.wins[i]

    # |value - target| in round r, scaled by N * den so that distances compare exactly as integers.
    cdef long long _distance(self, int r, long long value) noexcept:
        return llabs(value * self.num_players * self.ratio_den - self.ratio_num * self.sums[r])

    cdef bint _allowed(self, int r, long long best, int value) noexcept:
        """Whether some seat could have picked `value` in round r given the round's outcome: it is
        farther from the target than the winning distance, or it is a winning number."""
        return (self._distance(r, value) > best or value == self.win_low[r]
                or value == self.win_high[r])

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # What `player` saw of a round: the sum (hence mean and target), the winning number(s), its
        # own pick and outcome. The other seats' picks are drawn afresh, without looking at the ones
        # held, so that a rebuilt state (state_from_view) resamples as well as a real one.
        cdef int hidden[MAX_PLAYERS]
        cdef int m = 0
        cdef int i, r
        for i in range(self.num_players):
            if i != player:
                hidden[m] = i
                m += 1
        for r in range(self.round_index):
            self._redraw_round(r, player, hidden, m, rng)
        for i in range(self.num_players):
            self.wins[i] = 0
            for r in range(self.round_index):
                if self.choices[r][i] == self.win_low[r] or self.choices[r][i] == self.win_high[r]:
                    self.wins[i] += 1

    cdef void _redraw_round(self, int r, int player, int* hidden, int m, Rng* rng) noexcept:
        # Every pick lies in one of two intervals of allowed values, [min, top_low] at or below the
        # target and [bottom_high, max] at or above it, since the values closer to the target than
        # the winning distance are exactly the ones nobody chose. The hidden seats are shuffled; the
        # first ones take the winning numbers no visible pick covers; of the rest, a feasible number
        # k (uniform among feasible ones) take values in the upper interval, the others in the lower
        # one, with random group sums and random values adding up to the round's sum. If the round
        # admits no such assignment (an inconsistent view), its picks are left as they are.
        cdef int* picks = self.choices[r]
        cdef int low = self.win_low[r], high = self.win_high[r]
        cdef long long best = self._distance(r, low)
        cdef long long rest = self.sums[r]
        cdef int i, j, k, tmp, first = 0, free, top_low, bottom_high, value, feasible, chosen
        cdef bint covered_low = False, covered_high = False
        cdef long long sum_low, sum_high, lo, hi, scaled_target, scale
        if 0 <= player < self.num_players:
            rest -= picks[player]
            covered_low = picks[player] == low
            covered_high = picks[player] == high
        for k in range(m - 1, 0, -1):
            j = rng_below(rng, k + 1)
            tmp = hidden[k]
            hidden[k] = hidden[j]
            hidden[j] = tmp
        # Largest allowed value at or below the target and smallest at or above it (-1: none),
        # scanning outwards from the target's floor and ceiling.
        scaled_target = self.ratio_num * self.sums[r]
        scale = <long long>self.num_players * self.ratio_den
        top_low = -1
        value = <int>min(<long long>self.max_value, scaled_target // scale)
        while value >= self.min_value:
            if self._allowed(r, best, value):
                top_low = value
                break
            value -= 1
        bottom_high = -1
        value = <int>max(<long long>self.min_value, (scaled_target + scale - 1) // scale)
        while value <= self.max_value:
            if self._allowed(r, best, value):
                bottom_high = value
                break
            value += 1
        # Winning numbers that only hidden seats can have picked.
        if not covered_low:
            first += 1
            rest -= low
        if high != low and not covered_high:
            first += 1
            rest -= high
        if first > m:
            return
        free = m - first
        # How many free seats may take upper-interval values: count the feasible k, then pick one.
        feasible = 0
        for k in range(free + 1):
            if self._group_range_contains(free - k, top_low, k, bottom_high, rest):
                feasible += 1
        if feasible == 0:
            return
        chosen = rng_below(rng, feasible)
        for k in range(free + 1):
            if self._group_range_contains(free - k, top_low, k, bottom_high, rest):
                if chosen == 0:
                    break
                chosen -= 1
        # The lower group's sum, uniform among those the upper group can complement.
        lo = max((free - k) * <long long>self.min_value, rest - k * <long long>self.max_value)
        hi = min((free - k) * <long long>top_low if free > k else 0, rest - k * <long long>bottom_high)
        sum_low = lo + rng_below(rng, <int>(hi - lo + 1))
        sum_high = rest - sum_low
        i = 0
        if not covered_low:
            picks[hidden[i]] = low
            i += 1
        if high != low and not covered_high:
            picks[hidden[i]] = high
            i += 1
        self._fill(picks, hidden + i, free - k, self.min_value, top_low, sum_low, rng)
        self._fill(picks, hidden + i + free - k, k, bottom_high, self.max_value, sum_high, rng)

    cdef bint _group_range_contains(self, int n_low, int top_low, int n_high, int bottom_high,
                                    long long total) noexcept:
        """Whether n_low values in [min, top_low] plus n_high in [bottom_high, max] can sum to total."""
        if (n_low > 0 and top_low < 0) or (n_high > 0 and bottom_high < 0):
            return False
        cdef long long lo = n_low * <long long>self.min_value + n_high * <long long>max(bottom_high, 0)
        cdef long long hi = n_low * <long long>max(top_low, 0) + n_high * <long long>self.max_value
        return lo <= total <= hi

    cdef void _fill(self, int* picks, int* seats, int count, int lo, int hi, long long total,
                    Rng* rng) noexcept:
        """Random values in [lo, hi] for `count` seats adding up to `total` (known to be reachable):
        each value is uniform among those that leave the remaining seats a reachable sum."""
        cdef int i
        cdef long long least, most
        for i in range(count):
            if i == count - 1:
                picks[seats[i]] = <int>total
                return
            least = max(<long long>lo, total - (count - 1 - i) * <long long>hi)
            most = min(<long long>hi, total - (count - 1 - i) * <long long>lo)
            picks[seats[i]] = <int>(least + rng_below(rng, <int>(most - least + 1)))
            total -= picks[seats[i]]

    cdef State c_clone(self):
        cdef GuessState s = GuessState.__new__(GuessState)
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.min_value = self.min_value
        s.max_value = self.max_value
        s.ratio_num = self.ratio_num
        s.ratio_den = self.ratio_den
        s.round_index = self.round_index
        # Rows of unplayed rounds are never read, so only the played ones are copied.
        memcpy(&s.choices[0][0], &self.choices[0][0], self.round_index * MAX_PLAYERS * sizeof(int))
        memcpy(s.sums, self.sums, sizeof(self.sums))
        memcpy(s.win_low, self.win_low, sizeof(self.win_low))
        memcpy(s.win_high, self.win_high, sizeof(self.win_high))
        memcpy(s.wins, self.wins, sizeof(self.wins))
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def ratio_text(self) -> str:
        """R as a reduced fraction, e.g. "2/3" ("1" for 1/1)."""
        ratio = Fraction(self.ratio_num, self.ratio_den)
        return str(ratio)

    # cdef, not def: they index C arrays with unchecked round and seat numbers.
    cdef double _mean(self, int r):
        return <double>self.sums[r] / self.num_players

    cdef double _target(self, int r):
        # Both products are exact in a double, so the quotient is the correctly rounded target.
        return <double>(self.ratio_num * self.sums[r]) / (<long long>self.num_players * self.ratio_den)

    cdef list _winning_numbers(self, int r):
        if self.win_low[r] == self.win_high[r]:
            return [self.win_low[r]]
        return [self.win_low[r], self.win_high[r]]

    cdef bint _won(self, int r, int player):
        cdef int c = self.choices[r][player]
        return c == self.win_low[r] or c == self.win_high[r]

    cdef str _winning_text(self, int r):
        numbers = self._winning_numbers(r)
        if len(numbers) == 1:
            return f"winning number {numbers[0]}"
        return f"winning numbers {numbers[0]} and {numbers[1]} (equally close)"

    cdef str _round_report(self, int r):
        return (f"Round {r + 1}: average {_fmt_mean(self._mean(r))}, target {self._target(r):.2f}, "
                f"{self._winning_text(r)}.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        return str(action)

    def parse_action(self, int player, str text) -> int:
        value = number_answer(text, "chosen_number")
        if value is MISSING:
            raise ActionParseError(f"could not read a number from {text!r}. {self._answer_help()}")
        number = whole_number(value, self._answer_help(), "an integer")
        if not self.min_value <= number <= self.max_value:
            raise ActionParseError(f"{number} is outside the allowed range. {self._answer_help()}")
        return number

    def _answer_help(self) -> str:
        return (f"Answer with an integer from {self.min_value} to {self.max_value}, alone (e.g. 34) "
                f"or as JSON: {{\"chosen_number\": \"34\"}}.")

    def text_action_spec(self, int player):
        return {"description": f"an integer from {self.min_value} to {self.max_value}",
                "max_length": 200, "forbidden_words": []}

    def default_action(self, int player):
        """GAMA-Bench's documented Guess fallback (reference §2.9): the previous round's target, or
        (MIN + MAX) / 2 in round 1, rounded half up and kept inside [MIN, MAX]."""
        if not self.c_is_acting(player):
            return None
        cdef long long numerator, denominator
        if self.round_index == 0:
            numerator, denominator = self.min_value + self.max_value, 2
        else:
            numerator = self.ratio_num * self.sums[self.round_index - 1]
            denominator = <long long>self.num_players * self.ratio_den
        # floor(x + 1/2) in integers: x = numerator / denominator is never negative
        rounded = (2 * numerator + denominator) // (2 * denominator)
        return min(max(rounded, self.min_value), self.max_value)

    def observation_string(self, int player) -> str:
        check_seat("guess 2/3 of the average", player, self.num_players)
        ratio = self.ratio_text()
        lines = [
            f"Guess {ratio} of the average: {self.num_players} players, {self.rounds} rounds. Each round "
            f"every player picks an integer from {self.min_value} to {self.max_value}, inclusive. The target "
            f"is {ratio} of the average of all picks; the player(s) whose pick is closest to the target win "
            f"the round. After each round you learn the average, the target and the winning number, but "
            f"not the other players' picks.",
        ]
        for r in range(self.round_index):
            outcome = "won" if self._won(r, player) else "lost"
            lines.append(f"{self._round_report(r)} You chose {self.choices[r][player]} and {outcome}.")
        if self.round_index >= self.rounds:
            lines.append(f"The game is over. You won {self.wins[player]} of {self.rounds} rounds.")
        else:
            lines.append(f"Round {self.round_index + 1} of {self.rounds}: choose your number "
                         f"(you have won {self.wins[player]} so far).")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("guess 2/3 of the average", player, self.num_players)
        finished = self.round_index >= self.rounds
        return {
            "round": None if finished else self.round_index + 1,
            "rounds": self.rounds,
            "players": self.num_players,
            "min": self.min_value,
            "max": self.max_value,
            "ratio": self.ratio_text(),
            "past_rounds": [
                {"round": r + 1, "mean": self._mean(r), "target": round(self._target(r), 2),
                 # the lower one when two numbers tie either side of the target
                 "winning_number": self.win_low[r], "winning_numbers": self._winning_numbers(r),
                 "my_choice": self.choices[r][player], "won": self._won(r, player)}
                for r in range(self.round_index)
            ],
            "rounds_won": self.wins[player],
            "finished": finished,
        }

    def public_history(self) -> list:
        """One summary per played round; the individual picks stay private."""
        return [(-1, -1, self._round_report(r)) for r in range(self.round_index)]

    def result_summary(self) -> str:
        if self.round_index < self.rounds:
            return "game in progress"
        most = max(self.wins[i] for i in range(self.num_players))
        leaders = [i for i in range(self.num_players) if self.wins[i] == most]
        if len(leaders) == 1:
            who = f"seat {leaders[0]} ({most} of {self.rounds})"
        else:
            who = f"seats {', '.join(map(str, leaders))} ({most} of {self.rounds} each)"
        return f"most rounds won: {who}; GAMA-Bench score {self.result_details()['gamabench']['score']:.2f}"

    def result_details(self) -> dict:
        rounds = []
        for r in range(self.round_index):
            rounds.append({
                "round": r + 1, "mean": self._mean(r), "target": self._target(r),
                "winning_numbers": self._winning_numbers(r),
                "winners": [i for i in range(self.num_players) if self._won(r, i)],
                "choices": [self.choices[r][i] for i in range(self.num_players)],
            })
        details = {"rounds": rounds, "rounds_won": [self.wins[i] for i in range(self.num_players)]}
        if self.round_index > 0:
            # over the rounds played so far: all of them once the game is over
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


class Game(GameBase):
    """Guess R of the average with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        low = checked_int(values, "min_value", 0, MAX_VALUE_LIMIT - 1)
        checked_int(values, "max_value", low + 1, min(low + MAX_ACTIONS - 1, MAX_VALUE_LIMIT))
        checked_int(values, "ratio_numerator", 0, RATIO_TERM_LIMIT)
        checked_int(values, "ratio_denominator", 1, RATIO_TERM_LIMIT)

    def new_initial_state(self) -> GuessState:
        return GuessState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these parameters: a seat wins between 0 and all K rounds."""
        return 0.0, float(self.parameters["rounds"])

    def state_from_view(self, int player, dict view) -> GuessState:
        """A state consistent with seat `player`'s view (an observation_dict): the seat's own picks
        and wins and every round's summary as observed; the other seats' picks, never shown, are a
        deterministic draw consistent with each round's average and winning number(s)."""
        return _state_from_view(self, player, view)


cdef GuessState _state_from_view(game, int player, dict view):
    cdef GuessState s = GuessState(game)
    cdef Rng rng
    cdef int r
    past_rounds = view["past_rounds"]
    check_seat("guess 2/3 of the average", player, s.num_players)
    if len(past_rounds) > s.rounds:
        raise ValueError(f"the view has {len(past_rounds)} past rounds; the game has {s.rounds}")
    for r, past in enumerate(past_rounds):
        s.choices[r][player] = past["my_choice"]
        s.sums[r] = round(past["mean"] * s.num_players)
        numbers = past["winning_numbers"]
        s.win_low[r] = numbers[0]
        s.win_high[r] = numbers[len(numbers) - 1]
    s.round_index = len(past_rounds)
    s.move_number = s.round_index
    # The other seats' picks were never shown: draw a set consistent with every round's summary
    # (with a fixed seed, so that a view always gives the same state). This also sets the wins.
    rng.s = 0
    s.c_resample_hidden(player, &rng)
    return s
