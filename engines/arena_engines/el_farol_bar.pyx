"""El Farol Bar, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, §2.2; after Arthur 1994).

Rules. N players ("players", 2-100) play K rounds ("rounds", 1-100). Each round every player decides,
at the same time and without communicating, whether to go to the bar or stay home. The bar has a
capacity R = "capacity_percent" / 100 of the players (60 % by default). If the fraction of players who
go is at most R (go_count / N <= R, compared exactly), everyone who went gets MAX ("max_payoff", 10);
if it is more than R, everyone who went gets MIN ("min_payoff", 0). Everyone who stayed home gets HOME
("home_payoff", 5) whatever happened at the bar. A seat's return is the sum of its payoffs over the K
rounds (general-sum). With R = 0 a goer always gets MIN; with R = 100 % always MAX.

Actions. 0 = "stay", 1 = "go" (so the action is the paper's D_ij). `parse_action` accepts GAMA-Bench's
JSON answer {"decision": "go"} or {"decision": "stay"} (the first JSON object holding a "decision"
key; the value is read case-insensitively, as the released code lower-cases it, and with surrounding
spaces ignored; chatter around the JSON and non-JSON quoting such as {'decision': 'go'} tolerated),
or the bare word go / stay. Anything else raises ActionParseError stating the expected format.
`default_action` is "stay", GAMA-Bench's documented fallback for an agent that gave no valid answer
(gamabench.md §2.9).

Information ("mode"). Other players' individual decisions are never shown during the game; what a
round reveals depends on the mode:
  - "explicit": after each round every seat learns how many went and how many stayed, whether that
    was more than R (the bar was crowded, going paid MIN) or at most R (going paid MAX), its own
    decision and its own payoff. The counts are public (`public_history` has them).
  - "implicit" (GAMA-Bench's scored setting): a seat that went learns all of the above; a seat that
    stayed home learns only its own decision and that it gained HOME, nothing about the bar. The
    counts are then not public: `public_history` only records that each round was played.
Every decision is revealed at the end in `result_details`. For determinized search,
`resample_hidden(player, seed)` redraws the other seats' decisions consistently with what `player`
observed: a round whose count it saw gets a uniformly random set of that many goers among the other
seats; a round it did not see (implicit mode, stayed home) gets each other seat going with
probability 1/2. `Game.state_from_view(player, observation_dict)` rebuilds such a state from the view.

Presets (all: 10 players, 20 rounds, MAX 10, MIN 0, HOME 5, answers {"decision": "go_or_stay"}):
  - "gamabench": the paper's vanilla, scored setting: implicit mode, R = 60 % (§2.2; Tables 1, 5).
  - "gamabench_explicit": the same in explicit mode, which the paper runs but does not score (§6
    item 10): a diagnostic.
  - "gamabench_r0", "gamabench_r20", "gamabench_r40", "gamabench_r80", "gamabench_r100": Table 9's
    variations of R (0 %, 20 %, 40 %, 80 %, 100 %; the paper's scores 53.5, 61.3, 63.3, 68.1, 60.0,
    against 73.3 at the vanilla 60 %), implicit mode.

Scoring. `gamabench_score(parameters, details)` gives the paper's raw score S2 = (1/K) Σ_j |g_j/N − R|
(g_j the number of goers in round j) and its rescaling 100 · (m − S2) / m with m = max(R, 1 − R)
(gamabench.md §4.1; data README formula 2). §4.3 has no switch for this game. `gamabench_history(run)`
turns one of the released logs into parameters and a history that replays it.

Ambiguities (resolutions recommended in the reference, gamabench.md §6):
  - R·N is not an integer for every N and the paper does not say how it is rounded (item 7): go wins
    iff go_count / N <= R exactly, with no rounding, compared in integers as go_count · 100 <=
    capacity_percent · N. (The released logs agree on every round.)
  - The request says to go when fewer than R are predicted to go, the rule says at most R (item 7):
    the rule decides payoffs here; the request's wording is a prompt style, which lives in the client.
  - Explicit runs are not scored (item 10): both modes are implemented; `gamabench_score` computes the
    same formula for an explicit run, which is a diagnostic and belongs in no GAMA-Bench table.
  - Invalid answers (item 1, §2.9): the released code re-asks forever; re-asking is the referee's
    policy, and the documented fallback after the cap is `default_action` = stay.
  - R is an integer percentage: the paper shows R as a percentage and every setting it uses (0-100 %
    in steps of 20) is one.
  - The released code words the uncrowded case "equal or less" than R; the text views here say "at
    most", which is the same rule.

The spec's utility bounds and max_game_length are bounds over all parameter values; a game with K
rounds lasts exactly K joint moves and `Game.utility_bounds()` gives its own return bounds.
"""

from libc.string cimport memcpy

import json
import re
from fractions import Fraction

from arena_engines.core cimport SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, json_answer
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_ROUNDS = 100
    PAYOFF_LIMIT = 1000     # |MAX|, |MIN|, |HOME| at most this: totals stay small integers

cdef enum:
    STAY = 0
    GO = 1

ACTION_NAMES = ("stay", "go")
MODES = ("implicit", "explicit")

_VANILLA = {"players": 10, "rounds": 20, "mode": "implicit", "capacity_percent": 60,
            "max_payoff": 10, "min_payoff": 0, "home_payoff": 5}
# Table 9 (gamabench.md §5.7): R = 0 %, 20 %, 40 %, 80 %, 100 % (60 % is the vanilla preset) and the
# paper's score for each.
_TABLE9 = ((0, 53.5), (20, 61.3), (40, 63.3), (80, 68.1), (100, 60.0))

SPEC = GameSpec(
    game_id="el_farol_bar",
    display_name="El Farol Bar",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="imperfect",
    utility="general_sum",
    min_utility=-float(PAYOFF_LIMIT * MAX_ROUNDS),
    max_utility=float(PAYOFF_LIMIT * MAX_ROUNDS),
    max_game_length=MAX_ROUNDS,
    description="Each round every player decides at once whether to go to the bar or stay home. If at "
                "most a capacity fraction (60%) of the players go, those who went have more fun (10) than "
                "staying home (5); if more go, they have less (0).",
    parameters=(
        Parameter("players", 10, f"number of players, 2-{MAX_PLAYERS}"),
        Parameter("rounds", 20, f"number of rounds, 1-{MAX_ROUNDS}"),
        Parameter("mode", "implicit", "'implicit': after a round only those who went learn how many went "
                  "(GAMA-Bench's scored setting); 'explicit': everyone learns it"),
        Parameter("capacity_percent", 60, "R in percent, 0-100: going pays max_payoff when at most R% of the "
                  "players go, min_payoff otherwise"),
        Parameter("max_payoff", 10, f"MAX: what each goer gets when the bar is not crowded "
                  f"(-{PAYOFF_LIMIT}..{PAYOFF_LIMIT})"),
        Parameter("min_payoff", 0, f"MIN: what each goer gets when the bar is crowded "
                  f"(-{PAYOFF_LIMIT}..{PAYOFF_LIMIT})"),
        Parameter("home_payoff", 5, f"HOME: what each player who stays home gets "
                  f"(-{PAYOFF_LIMIT}..{PAYOFF_LIMIT})"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla El Farol Bar, the setting it scores: 10 "
               "players, 20 rounds, implicit information, capacity R = 60%, MAX 10, MIN 0, HOME 5; answers "
               "as JSON {\"decision\": \"go\"} or {\"decision\": \"stay\"}.", dict(_VANILLA)),
        Preset("gamabench_explicit", "GAMA-Bench's explicit-information El Farol Bar (everyone learns how many "
               "went), run but not scored in the paper: a diagnostic. Otherwise as gamabench.",
               {**_VANILLA, "mode": "explicit"}),
    ) + tuple(
        Preset(f"gamabench_r{percent}", f"GAMA-Bench Table 9 (RQ3, parameter variations): capacity R = "
               f"{percent}% (paper score {score}), otherwise as gamabench.",
               {**_VANILLA, "capacity_percent": percent})
        for percent, score in _TABLE9
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "rounds": 3}}

# For JSON-like answers that json.loads refuses (single quotes, unquoted keys, trailing commas).
_DECISION = re.compile(r"decision['\"]?\s*:\s*['\"]?\s*([A-Za-z_]+)", re.IGNORECASE)


def gamabench_score(parameters: dict, details: dict, **switches) -> dict:
    """GAMA-Bench's raw score S2 and its 0-100 rescaling for one run (paper Eq. 1 as in its tables).

    `parameters` are the game's resolved parameters ("players", "capacity_percent"); `details` is the
    finished match's `result_details()` (its "rounds", each with "went", the number of goers).
      S2 = (1/K) * sum_j |g_j / N - R|
      score = 100 * (m - S2) / m, with m = max(R, 1 - R)
    Only implicit-mode runs are scored in the paper; an explicit run's value is a diagnostic.
    `switches` are the scoring switches of gamabench.md §4.3; none concerns this game, so they are
    accepted and ignored (a suite may pass the same set to every game).
    """
    rounds = details["rounds"]
    if not rounds:
        raise ValueError("gamabench_score needs at least one round")
    players = parameters["players"]
    ratio = Fraction(parameters["capacity_percent"], 100)
    s2 = sum(abs(Fraction(r["went"], players) - ratio) for r in rounds) / len(rounds)
    worst = max(ratio, 1 - ratio)
    return {"S2": float(s2), "score": float(100 * (worst - s2) / worst)}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (a parsed file of raw/bar_game_*): the
    parameters for load_game and one joint move (SIMULTANEOUS, (a0, ..., aN-1)) per round, taken
    from each player's own records."""
    meta = run["meta"]
    players = run["player_data"]
    if len(players) != meta["player_num"]:
        raise ValueError(f"the log has {len(players)} players' data for player_num {meta['player_num']}")
    percent = round(meta["ratio"] * 100)
    if abs(meta["ratio"] * 100 - percent) > 1e-9 or meta.get("ratio_str", f"{percent}%") != f"{percent}%":
        raise ValueError(f"capacity {meta['ratio']!r} ({meta.get('ratio_str')!r}) is not a whole percentage")
    rounds = len(run["round_records"])
    parameters = {"players": len(players), "rounds": rounds, "mode": meta.get("mode", "implicit"),
                  "capacity_percent": percent, "max_payoff": meta["max"], "min_payoff": meta["min"],
                  "home_payoff": meta["home"]}
    history = []
    for j in range(rounds):
        joint = []
        for player in players:
            decision = str(player["records"][j]).strip().lower()
            if decision not in ACTION_NAMES:
                raise ValueError(f"{player['id']} answered {player['records'][j]!r} in round {j + 1}")
            joint.append(ACTION_NAMES.index(decision))
        history.append((SIMULTANEOUS, tuple(joint)))
    return parameters, history


cdef class ElFarolState(State):
    cdef int rounds, explicit, capacity_percent, max_payoff, min_payoff, home_payoff
    cdef int round_index                        # rounds completed
    cdef char went[MAX_ROUNDS][MAX_PLAYERS]     # went[round][seat]: 1 if the seat went to the bar
    cdef int go_count[MAX_ROUNDS]
    cdef int totals[MAX_PLAYERS]                # each seat's payoffs summed over the completed rounds

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.explicit = p["mode"] == "explicit"
        self.capacity_percent = p["capacity_percent"]
        self.max_payoff = p["max_payoff"]
        self.min_payoff = p["min_payoff"]
        self.home_payoff = p["home_payoff"]
        self.round_index = 0

    # ---- rules --------------------------------------------------------------------------------
    cdef inline bint _crowded(self, int goers) noexcept:
        # goers / N > R, in integers: no rounding of R * N (gamabench.md §6 item 7).
        return goers * 100 > self.capacity_percent * self.num_players

    cdef inline int _payoff(self, int r, int seat) noexcept:
        if not self.went[r][seat]:
            return self.home_payoff
        return self.min_payoff if self._crowded(self.go_count[r]) else self.max_payoff

    cdef inline bint _sees_result(self, int r, int seat) noexcept:
        return self.explicit or self.went[r][seat]

    cdef void _recount_totals(self) noexcept:
        cdef int i, r
        for i in range(self.num_players):
            self.totals[i] = 0
            for r in range(self.round_index):
                self.totals[i] += self._payoff(r, i)

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER if self.round_index >= self.rounds else SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.round_index < self.rounds and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if not self.c_is_acting(player):
            return 0
        out[0] = STAY
        out[1] = GO
        return 2

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, goers = 0
        for i in range(self.num_players):
            self.went[r][i] = actions[i] == GO
            goers += self.went[r][i]
        self.go_count[r] = goers
        for i in range(self.num_players):
            self.totals[i] += self._payoff(r, i)
        self.round_index += 1

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = self.totals[i]

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # The other seats' decisions are drawn afresh, never from the ones held, so that a rebuilt
        # state (state_from_view) resamples exactly as the real one would. A round whose count
        # `player` saw keeps it (the goers among the others are a uniformly random set of the right
        # size); a round it did not see is redrawn freely. A `player` that is no seat knows only
        # what is public: the counts in explicit mode, nothing in implicit mode.
        cdef int others[MAX_PLAYERS]
        cdef int m, i, j, k, tmp, r, own, goers
        cdef bint seated = 0 <= player < self.num_players
        for r in range(self.round_index):
            m = 0
            for i in range(self.num_players):
                if i != player:
                    others[m] = i
                    m += 1
            own = self.went[r][player] if seated else 0
            if self.explicit or (seated and own):
                # A uniformly random subset of the right size: the first ones of a shuffle.
                for k in range(m - 1, 0, -1):
                    j = rng_below(rng, k + 1)
                    tmp = others[k]
                    others[k] = others[j]
                    others[j] = tmp
                goers = self.go_count[r] - own
                for k in range(m):
                    self.went[r][others[k]] = k < goers
            else:
                goers = own
                for k in range(m):
                    self.went[r][others[k]] = rng_below(rng, 2)
                    goers += self.went[r][others[k]]
                self.go_count[r] = goers
        self._recount_totals()

    cdef State c_clone(self):
        cdef ElFarolState s = ElFarolState.__new__(ElFarolState)
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.explicit = self.explicit
        s.capacity_percent = self.capacity_percent
        s.max_payoff = self.max_payoff
        s.min_payoff = self.min_payoff
        s.home_payoff = self.home_payoff
        s.round_index = self.round_index
        # Rows of unplayed rounds are never read, so only the played ones are copied.
        memcpy(&s.went[0][0], &self.went[0][0], self.round_index * MAX_PLAYERS * sizeof(char))
        memcpy(s.go_count, self.go_count, self.round_index * sizeof(int))
        memcpy(s.totals, self.totals, sizeof(self.totals))
        return s

    # ---- helpers for the views (cdef: they index C arrays with unchecked numbers) --------------
    cdef str _crowding_text(self, int r):
        cdef int goers = self.go_count[r]
        if self._crowded(goers):
            return (f"more than {self.capacity_percent}% went, so the bar was crowded and those who went "
                    f"got {self.min_payoff}")
        return (f"at most {self.capacity_percent}% went, so the bar was not crowded and those who went "
                f"got {self.max_payoff}")

    cdef str _attendance_text(self, int r):
        cdef int goers = self.go_count[r]
        return (f"{goers} of {self.num_players} players went to the bar and {self.num_players - goers} "
                f"stayed home; {self._crowding_text(r)}")

    cdef str _round_line(self, int r, int player):
        if self._sees_result(r, player):
            own = "went" if self.went[r][player] else "stayed home"
            return f"Round {r + 1}: {self._attendance_text(r)}. You {own} and gained {self._payoff(r, player)}."
        return (f"Round {r + 1}: you stayed home and gained {self.home_payoff}; those who stay home do not "
                f"learn how many went.")

    cdef dict _past_round(self, int r, int player):
        seen = bool(self._sees_result(r, player))
        return {"round": r + 1, "my_decision": ACTION_NAMES[<int>self.went[r][player]],
                "my_payoff": self._payoff(r, player), "result_seen": seen,
                "went": self.go_count[r] if seen else None,
                "stayed": self.num_players - self.go_count[r] if seen else None,
                "crowded": bool(self._crowded(self.go_count[r])) if seen else None}

    def _rules_text(self) -> str:
        threshold = self.capacity_percent * self.num_players // 100
        if self.explicit:
            news = "After each round everyone learns how many went."
        else:
            news = ("After each round only those who went learn how many went; those who stayed home learn "
                    "only their own payoff.")
        return (f"El Farol Bar: {self.num_players} players, {self.rounds} rounds. Every round each player "
                f"decides, without talking to the others, whether to go to the bar or stay home. If at most "
                f"{self.capacity_percent}% of the players go ({threshold} of {self.num_players} or fewer), "
                f"everyone who went gets {self.max_payoff}; if more go, everyone who went gets "
                f"{self.min_payoff}. Staying home always gives {self.home_payoff}. {news} Other players' "
                f"individual decisions are never shown.")

    def _answer_help(self) -> str:
        return 'Answer go or stay, alone or as JSON: {"decision": "go"} or {"decision": "stay"}.'

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if action == STAY or action == GO:
            return ACTION_NAMES[action]
        return str(action)

    def parse_action(self, int player, str text) -> int:
        value = json_answer(text, "decision", _DECISION)
        if value is MISSING:
            word = text.strip().lower()     # the canonical action text, alone
            if word in ACTION_NAMES:
                return ACTION_NAMES.index(word)
            raise ActionParseError(f"could not read a decision from {text!r}. {self._answer_help()}")
        if isinstance(value, str) and value.strip().lower() in ACTION_NAMES:
            return ACTION_NAMES.index(value.strip().lower())
        raise ActionParseError(f"{json.dumps(value)} is not a decision. {self._answer_help()}")

    def default_action(self, int player):
        """Stay home: GAMA-Bench's fallback after invalid answers (gamabench.md §2.9)."""
        return STAY if self.c_is_acting(player) else None

    def text_action_spec(self, int player):
        return {"description": 'go or stay, e.g. {"decision": "go"}', "max_length": 4000,
                "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("el farol bar", player, self.num_players)
        lines = [self._rules_text()]
        for r in range(self.round_index):
            lines.append(self._round_line(r, player))
        if self.round_index >= self.rounds:
            lines.append(f"The game is over. Your total is {self.totals[player]}.")
        else:
            lines.append(f"Round {self.round_index + 1} of {self.rounds}: go to the bar or stay home? "
                         f"(your total so far: {self.totals[player]})")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("el farol bar", player, self.num_players)
        finished = self.round_index >= self.rounds
        return {
            "round": None if finished else self.round_index + 1,
            "rounds": self.rounds,
            "players": self.num_players,
            "mode": MODES[self.explicit],
            "capacity_percent": self.capacity_percent,
            "max_payoff": self.max_payoff,
            "min_payoff": self.min_payoff,
            "home_payoff": self.home_payoff,
            "past_rounds": [self._past_round(r, player) for r in range(self.round_index)],
            "total_payoff": self.totals[player],
            "finished": finished,
        }

    def public_history(self) -> list:
        """One summary per played round: the attendance in explicit mode; in implicit mode only
        that the round was played, since the seats that stayed home do not learn the attendance."""
        if self.explicit:
            return [(-1, -1, f"Round {r + 1}: {self._attendance_text(r)}.") for r in range(self.round_index)]
        return [(-1, -1, f"Round {r + 1} was played; only those who went learn how many did.")
                for r in range(self.round_index)]

    def result_summary(self) -> str:
        if self.round_index < self.rounds:
            return "game in progress"
        best = max(self.totals[i] for i in range(self.num_players))
        leaders = [str(i) for i in range(self.num_players) if self.totals[i] == best]
        who = f"seat {leaders[0]}" if len(leaders) == 1 else f"seats {', '.join(leaders)}"
        mean_attendance = 100.0 * sum(self.go_count[r] for r in range(self.rounds)) / (self.rounds * self.num_players)
        score = gamabench_score(self.game.parameters, self.result_details())["score"]
        if self.explicit:
            score_text = f"GAMA-Bench formula {score:.2f} (explicit mode: a diagnostic; the paper scores implicit runs)"
        else:
            score_text = f"GAMA-Bench score {score:.2f}"
        return (f"highest total {best}: {who}; mean attendance {mean_attendance:.1f}% for a capacity of "
                f"{self.capacity_percent}%; {score_text}")

    def result_details(self) -> dict:
        rounds = []
        for r in range(self.round_index):
            rounds.append({
                "round": r + 1,
                "decisions": [ACTION_NAMES[<int>self.went[r][i]] for i in range(self.num_players)],
                "went": self.go_count[r],
                "stayed": self.num_players - self.go_count[r],
                "crowded": bool(self._crowded(self.go_count[r])),
                "payoffs": [self._payoff(r, i) for i in range(self.num_players)],
            })
        details = {"mode": MODES[self.explicit], "rounds": rounds,
                   "totals": [self.totals[i] for i in range(self.num_players)]}
        if rounds:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


class Game(GameBase):
    """El Farol Bar with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_choice(values, "mode", MODES)
        checked_int(values, "capacity_percent", 0, 100)
        for name in ("max_payoff", "min_payoff", "home_payoff"):
            checked_int(values, name, -PAYOFF_LIMIT, PAYOFF_LIMIT)

    def new_initial_state(self) -> ElFarolState:
        return ElFarolState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these parameters: every round pays one of MAX, MIN or HOME."""
        p = self.parameters
        payoffs = (p["max_payoff"], p["min_payoff"], p["home_payoff"])
        return float(p["rounds"] * min(payoffs)), float(p["rounds"] * max(payoffs))

    def state_from_view(self, int player, dict view) -> ElFarolState:
        """A state consistent with seat `player`'s view (an observation_dict): its own decisions and
        the attendance of every round it saw; the other seats' decisions, never shown, are a
        deterministic draw consistent with them."""
        return _state_from_view(self, player, view)


cdef ElFarolState _state_from_view(game, int player, dict view):
    cdef ElFarolState s = ElFarolState(game)
    cdef Rng rng
    cdef int r, goers
    check_seat("el farol bar", player, s.num_players)
    past_rounds = view["past_rounds"]
    if len(past_rounds) > s.rounds:
        raise ValueError(f"the view has {len(past_rounds)} past rounds; the game has {s.rounds}")
    for r, past in enumerate(past_rounds):
        if past["my_decision"] not in ACTION_NAMES:
            raise ValueError(f"round {r + 1}: unknown decision {past['my_decision']!r}")
        s.went[r][player] = past["my_decision"] == "go"
        goers = past["went"] if past["went"] is not None else s.went[r][player]
        if not s.went[r][player] <= goers <= s.num_players - 1 + s.went[r][player]:
            raise ValueError(f"round {r + 1}: {goers} goers do not fit the seat's own decision")
        s.go_count[r] = goers
    s.round_index = len(past_rounds)
    s.move_number = s.round_index
    # The other seats' decisions were never shown: draw a set consistent with the view (with a fixed
    # seed, so that a view always gives the same state). This also sets the totals.
    rng.s = 0
    s.c_resample_hidden(player, &rng)
    return s
