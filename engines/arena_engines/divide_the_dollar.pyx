"""Divide the Dollar, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, §2.3 of the
reference gamabench.md; Shapley & Shubik 1969, multi-player form of Ashlock & Greenwood 2016).

Rules. N players ("players", 2-100) share G golds ("golds", 1-1023) in each of K rounds ("rounds",
1-100). Every round each player secretly bids a whole number of golds; the bids of a round are
simultaneous. If the bids add up to at most G, every player receives its own bid; if they exceed G,
nobody receives anything that round. A seat's return is the golds it received over all rounds
(general-sum, 0 to K * G). The Nash equilibrium is everyone bidding G / N.

Bids. GAMA-Bench's code reads a bid with int() and checks no range (§2.3 "Validation"), so by
default a bid may exceed G (it then sinks the round for everyone). An action set must be finite and
action ids are bids, so bids run from 0 to 1023 (the largest action id; more than the highest G of
the paper's Table 9, 800). With "strict_ranges" (§2.9's switch) bids run from 0 to G. Action id =
the bid; the action text is the number ("10").

Answers (`parse_action`): GAMA-Bench's JSON answer {"bid_amount": "10"} (the value a string or a
JSON number; the chain-of-thought form {"explanation": "...", "bid_amount": "10"} is the same object;
single quotes or a trailing comma tolerated), or a bare integer. The code parsed a GPT reply whole
and a Gemini reply from its first {...}; here chatter around the JSON is tolerated and the first
object holding "bid_amount" is read, which accepts both. A non-integer, a negative bid or a bid above
the seat's largest legal bid raises ActionParseError with the expected format.

Fallback (`default_action`, §2.9): G / N rounded down, the equilibrium bid (10 in the vanilla game),
so that N fallback bids never exceed G.

Information. After each round a seat learns the sum of all bids, whether it exceeded G, its own bid
and what it received (§2.3 "Observation"); never another seat's bid. `public_history` holds one
summary per round (seat -1, action -1) with the sum and the outcome. `result_details` reveals every
bid at the end. For determinized search `resample_hidden(player, seed)` redraws the other seats' bids
of every past round so that they still add up to the round's sum, and `Game.state_from_view(player,
observation_dict)` rebuilds such a state from the seat's view alone.

Scoring. `gamabench_score(parameters, details, dollar_clip="per_run")` gives the paper's raw score
S3 = (1/K) * sum_j |sum_i B_ij - G| and the rescaled score 100 * (G - S3) / G, clipped at 0 per run
(§4.2); dollar_clip="eq1_unclipped" gives Eq. 1 as printed (§4.3). `gamabench_history(run)` turns a
released log into parameters and a history that replays it.

Presets (10 players, 20 rounds, bids 0-1023, answers {"bid_amount": "10"}):
  - "gamabench": the paper's vanilla setting, G = 100 (Tables 1, 2 and 5-8).
  - "gamabench_g50", "gamabench_g200", "gamabench_g400", "gamabench_g800": Table 9's variations of G
    (50, 200, 400 and 800 golds; the paper's RQ3 generalisation study).

Ambiguities (resolutions recommended in the reference, gamabench.md):
  - Invalid answers (§2.9, §6 item 1): the code re-asks forever; the arena re-asks up to a cap and
    then plays `default_action`, the documented Dollar fallback G / N (rounded down here, since bids
    are integers). Re-asking is the referee's business, not the engine's.
  - Range checks (§2.9): the code accepts any integer; here bids above G are legal unless
    "strict_ranges" is set (then 0..G), up to the action-id limit 1023 in either mode. Negative bids,
    which the code's int() would also accept, are always refused: a negative claim on the golds has no
    meaning in the game and action ids are non-negative. A fractional JSON number (12.7), which int()
    would truncate, is refused rather than silently changed, since the request asks for an integer.
  - Clipping (§4.2, §4.3, §6 item 11): the rescaled score can fall below 0 when the bids stray from G
    by more than G on average; it is clipped at 0 per run by default (reproduces Table 2's Mixtral-8x7B
    1.2 ± 2.8), with the "eq1_unclipped" switch for the formula as printed.
  - The paper's answer line asks for an "integer_between_0_and_G" although the code accepts more;
    the wording is a prompt matter for the client, and the engine's rules text states the range it
    actually enforces.
"""

from libc.string cimport memcpy, memset

from arena_engines.core cimport MAX_ACTIONS, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, number_answer, whole_number
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_ROUNDS = 100
    MAX_BID = MAX_ACTIONS - 1     # action ids are bids

DOLLAR_CLIPS = ("per_run", "eq1_unclipped")

_GAMABENCH = {"players": 10, "rounds": 20, "golds": 100, "strict_ranges": False}


def _table9(golds: int) -> Preset:
    return Preset(f"gamabench_g{golds}",
                  f"GAMA-Bench Table 9 (RQ3, varying G): Divide the Dollar with G = {golds} golds; otherwise the "
                  f"vanilla setting (10 players, 20 rounds, bids 0-{MAX_BID}, answer JSON "
                  "{\"bid_amount\": \"10\"}).",
                  {**_GAMABENCH, "golds": golds})


SPEC = GameSpec(
    game_id="divide_the_dollar",
    display_name="Divide the Dollar",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="imperfect",
    utility="general_sum",
    min_utility=0.0,
    max_utility=float(MAX_ROUNDS * MAX_BID),
    max_game_length=MAX_ROUNDS,
    description="Each round every player bids for a share of G golds; if the bids add up to at most G each "
                "player receives its bid, otherwise nobody receives anything. Only the sum is revealed. "
                "Returns are golds received.",
    parameters=(
        Parameter("players", 10, f"number of players, 2-{MAX_PLAYERS}"),
        Parameter("rounds", 20, f"number of rounds, 1-{MAX_ROUNDS}"),
        Parameter("golds", 100, f"golds G to divide each round, 1-{MAX_BID}"),
        Parameter("strict_ranges", False, f"bids limited to 0..G (GAMA-Bench's code checks no range: bids "
                                          f"0-{MAX_BID} when false)"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla Divide the Dollar: 10 players, 20 rounds, "
               f"G = 100 golds, bids 0-{MAX_BID} (the code checks no range); answer JSON "
               "{\"bid_amount\": \"10\"} or a bare integer.", _GAMABENCH),
        _table9(50),
        _table9(200),
        _table9(400),
        _table9(800),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "rounds": 3}}


def gamabench_score(parameters: dict, details: dict, *, dollar_clip: str = "per_run") -> dict:
    """GAMA-Bench's raw score S3 and its 0-100 rescaling for one run (paper Eq. 1, §4.1-4.3).

    `parameters` are the game's resolved parameters (G = "golds"); `details` is result_details() of
    the finished match (each round's "total" of the bids is read).
      S3 = (1/K) * sum_j |sum_i B_ij - G|
      score = 100 * (G - S3) / G, clipped at 0 ("per_run", the published tables) or not
      ("eq1_unclipped", Eq. 1 as printed).
    """
    if dollar_clip not in DOLLAR_CLIPS:
        raise ValueError(f"dollar_clip must be one of {', '.join(DOLLAR_CLIPS)}, not {dollar_clip!r}")
    golds = parameters["golds"]
    totals = [r["total"] for r in details["rounds"]]
    if not totals:
        raise ValueError("gamabench_score needs at least one played round")
    s3 = sum(abs(total - golds) for total in totals) / len(totals)
    score = 100.0 * (golds - s3) / golds
    if dollar_clip == "per_run":
        score = max(0.0, score)
    return {"S3": s3, "score": score}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (the parsed JSON of a raw/divide_dollar
    file): N, K and G from the log, and one joint move per round with the bids in player order, read
    from player_data[i].records (round_records' response lists were shuffled before saving)."""
    players = run["player_data"]
    rounds = len(run["round_records"])
    parameters = {"players": len(players), "rounds": rounds, "golds": run["meta"]["golds"]}
    history = [(SIMULTANEOUS, tuple(int(p["records"][j]) for p in players)) for j in range(rounds)]
    return parameters, history


cdef class DollarState(State):
    cdef int rounds, golds, max_bid
    cdef int round_index                      # rounds completed
    cdef int bids[MAX_ROUNDS][MAX_PLAYERS]    # bids[round][seat]
    cdef int totals[MAX_ROUNDS]               # sum of each round's bids
    cdef int received[MAX_PLAYERS]            # golds each seat received so far

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.golds = p["golds"]
        self.max_bid = p["golds"] if p["strict_ranges"] else MAX_BID
        self.round_index = 0

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER if self.round_index >= self.rounds else SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.round_index < self.rounds and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int bid
        if not self.c_is_acting(player):
            return 0
        for bid in range(self.max_bid + 1):
            out[bid] = bid
        return self.max_bid + 1

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, total = 0
        for i in range(self.num_players):
            self.bids[r][i] = actions[i]
            total += actions[i]
        self.totals[r] = total
        if total <= self.golds:
            for i in range(self.num_players):
                self.received[i] += actions[i]
        self.round_index += 1

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = self.received[i]

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # `player` saw each round's sum and its own bid; the other bids are drawn afresh (without
        # looking at the ones held, so that a rebuilt state resamples as well as a real one) so that
        # they add up to the rest of the sum. What each seat received follows from the bids.
        cdef int hidden[MAX_PLAYERS]
        cdef int m = 0
        cdef int i, j, k, tmp, r, rest
        for i in range(self.num_players):
            if i != player:
                hidden[m] = i
                m += 1
        for r in range(self.round_index):
            rest = self.totals[r]
            if 0 <= player < self.num_players:
                rest -= self.bids[r][player]
            if rest < 0 or rest > m * self.max_bid:
                continue        # an inconsistent view: its bids are left as they are
            # A random order, so that no seat is always the one filled first.
            for k in range(m - 1, 0, -1):
                j = rng_below(rng, k + 1)
                tmp = hidden[k]
                hidden[k] = hidden[j]
                hidden[j] = tmp
            self._fill(self.bids[r], hidden, m, rest, rng)
        memset(self.received, 0, sizeof(self.received))
        for r in range(self.round_index):
            if self.totals[r] <= self.golds:
                for i in range(self.num_players):
                    self.received[i] += self.bids[r][i]

    cdef void _fill(self, int* bids, int* seats, int count, int total, Rng* rng) noexcept:
        """Bids in [0, max_bid] for `count` seats adding up to `total` (known to be reachable): each
        bid is uniform among those that leave the remaining seats a reachable sum."""
        cdef int i, least, most
        for i in range(count):
            if i == count - 1:
                bids[seats[i]] = total
                return
            least = max(0, total - (count - 1 - i) * self.max_bid)
            most = min(self.max_bid, total)
            bids[seats[i]] = least + rng_below(rng, most - least + 1)
            total -= bids[seats[i]]

    cdef State c_clone(self):
        cdef DollarState s = DollarState.__new__(DollarState)
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.golds = self.golds
        s.max_bid = self.max_bid
        s.round_index = self.round_index
        # Rows of unplayed rounds are never read, so only the played ones are copied.
        memcpy(&s.bids[0][0], &self.bids[0][0], self.round_index * MAX_PLAYERS * sizeof(int))
        memcpy(s.totals, self.totals, sizeof(self.totals))
        memcpy(s.received, self.received, sizeof(self.received))
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    cdef bint _exceeded(self, int r):
        return self.totals[r] > self.golds

    cdef int _received_in(self, int r, int player):
        return 0 if self._exceeded(r) else self.bids[r][player]

    cdef str _round_report(self, int r):
        if self._exceeded(r):
            outcome = f"which exceeds {self.golds}: nobody received anything"
        else:
            outcome = f"which does not exceed {self.golds}: every player received its bid"
        return f"Round {r + 1}: the bids add up to {self.totals[r]}, {outcome}."

    def _answer_help(self) -> str:
        return (f"Answer with a whole number of golds from 0 to {self.max_bid}, alone (e.g. 10) or as JSON: "
                f"{{\"bid_amount\": \"10\"}}.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        return str(action)

    def parse_action(self, int player, str text) -> int:
        value = number_answer(text, "bid_amount")
        if value is MISSING:
            raise ActionParseError(f"could not read a bid from {text!r}. {self._answer_help()}")
        bid = whole_number(value, self._answer_help())
        if bid < 0:
            raise ActionParseError(f"a bid cannot be negative ({bid}). {self._answer_help()}")
        if bid > self.max_bid:
            raise ActionParseError(f"{bid} is above the largest bid allowed, {self.max_bid}. "
                                   f"{self._answer_help()}")
        return bid

    def text_action_spec(self, int player):
        return {"description": f"your bid, a whole number of golds from 0 to {self.max_bid}",
                # room for a chain-of-thought explanation inside the JSON answer
                "max_length": 4000, "forbidden_words": []}

    def default_action(self, int player):
        """GAMA-Bench's documented Dollar fallback (reference §2.9): G / N, rounded down."""
        if not self.c_is_acting(player):
            return None
        return self.golds // self.num_players

    def observation_string(self, int player) -> str:
        check_seat("divide the dollar", player, self.num_players)
        bids = (f"from 0 to {self.max_bid}" if self.max_bid == self.golds else
                f"from 0 to {self.max_bid} (a bid above {self.golds} is allowed but sinks the round)")
        lines = [
            f"Divide the dollar: {self.num_players} players, {self.rounds} rounds. Each round the players divide "
            f"{self.golds} golds: every player secretly bids a whole number of golds, {bids}. If the bids add "
            f"up to at most {self.golds}, every player receives its bid; otherwise nobody receives anything. "
            f"After each round you learn the sum of the bids, but not the other players' bids.",
        ]
        for r in range(self.round_index):
            lines.append(f"{self._round_report(r)} You bid {self.bids[r][player]} and received "
                         f"{self._received_in(r, player)}.")
        if self.round_index >= self.rounds:
            lines.append(f"The game is over. You received {self.received[player]} golds in total.")
        else:
            lines.append(f"Round {self.round_index + 1} of {self.rounds}: make your bid (you have received "
                         f"{self.received[player]} golds so far).")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("divide the dollar", player, self.num_players)
        finished = self.round_index >= self.rounds
        return {
            "round": None if finished else self.round_index + 1,
            "rounds": self.rounds,
            "players": self.num_players,
            "golds": self.golds,
            "max_bid": self.max_bid,
            "past_rounds": [
                {"round": r + 1, "total": self.totals[r], "exceeded": self._exceeded(r),
                 "my_bid": self.bids[r][player], "received": self._received_in(r, player)}
                for r in range(self.round_index)
            ],
            "total_received": self.received[player],
            "finished": finished,
        }

    def public_history(self) -> list:
        """One summary per played round; the individual bids stay private."""
        return [(-1, -1, self._round_report(r)) for r in range(self.round_index)]

    def result_summary(self) -> str:
        if self.round_index < self.rounds:
            return "game in progress"
        kept = sum(not self._exceeded(r) for r in range(self.rounds))
        most = max(self.received[i] for i in range(self.num_players))
        leaders = [i for i in range(self.num_players) if self.received[i] == most]
        if most == 0:
            who = "nobody received any golds"
        else:
            who = f"most received: seat{'s' if len(leaders) > 1 else ''} {', '.join(map(str, leaders))} ({most} golds)"
        return (f"the sum stayed within {self.golds} in {kept} of {self.rounds} rounds; {who}; "
                f"GAMA-Bench score {gamabench_score(self.game.parameters, self._rounds_details())['score']:.2f}")

    def _rounds_details(self) -> dict:
        rounds = []
        for r in range(self.round_index):
            rounds.append({
                "round": r + 1, "total": self.totals[r], "exceeded": self._exceeded(r),
                "bids": [self.bids[r][i] for i in range(self.num_players)],
                "received": [self._received_in(r, i) for i in range(self.num_players)],
            })
        return {"rounds": rounds}

    def result_details(self) -> dict:
        details = self._rounds_details()
        details["total_received"] = [self.received[i] for i in range(self.num_players)]
        if self.round_index > 0:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


class Game(GameBase):
    """Divide the Dollar with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_int(values, "golds", 1, MAX_BID)
        if not isinstance(values["strict_ranges"], bool):
            raise ValueError(f"parameter 'strict_ranges' must be true or false, not {values['strict_ranges']!r}")

    def new_initial_state(self) -> DollarState:
        return DollarState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these parameters: a seat receives at most G in each round."""
        return 0.0, float(self.parameters["rounds"] * self.parameters["golds"])

    def state_from_view(self, int player, dict view) -> DollarState:
        """A state consistent with seat `player`'s view (an observation_dict): its own bids and every
        round's sum as observed; the other seats' bids, never shown, are a deterministic draw that
        adds up to each round's sum."""
        return _state_from_view(self, player, view)


cdef DollarState _state_from_view(game, int player, dict view):
    cdef DollarState s = DollarState(game)
    cdef Rng rng
    cdef int r
    past_rounds = view["past_rounds"]
    check_seat("divide the dollar", player, s.num_players)
    if len(past_rounds) > s.rounds:
        raise ValueError(f"the view has {len(past_rounds)} past rounds; the game has {s.rounds}")
    for r, past in enumerate(past_rounds):
        bid, total = past["my_bid"], past["total"]
        if not 0 <= bid <= s.max_bid or not bid <= total <= bid + (s.num_players - 1) * s.max_bid:
            raise ValueError(f"round {r + 1} of the view is impossible: bid {bid}, sum {total}")
        s.bids[r][player] = bid
        s.totals[r] = total
    s.round_index = len(past_rounds)
    s.move_number = s.round_index
    # The other bids were never shown: draw a set adding up to each round's sum (with a fixed seed,
    # so that a view always gives the same state). This also sets what every seat received.
    rng.s = 0
    s.c_resample_hidden(player, &rng)
    return s
