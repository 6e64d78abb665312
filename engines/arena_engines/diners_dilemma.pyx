"""Diner's Dilemma, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807; reference
gamabench.md §2.5). An N-player prisoner's dilemma (Glance & Huberman 1994).

Rules. N players ("players", 2-100) dine together for K rounds ("rounds", 1-100). Every round each
player orders, at the same time as the others, either the costly dish (price P_h "costly_price",
utility U_h "costly_utility") or the cheap dish (price P_l "cheap_price", utility U_l
"cheap_utility"). The round's bill is N_h * P_h + N_l * P_l (N_h costly orders, N_l cheap ones) and
is split equally, so a player's utility for the round is U(own dish) - bill / N (§6 item 7). A
seat's return is the sum of its round utilities (general-sum).

Prices and utilities are integers 0-1000 with P_h > P_l and U_h > U_l. The paper's two dilemma
conditions, U_h - P_h < U_l - P_l (alone, cheap is the better deal) and U_h - P_h/N > U_l - P_l/N
(with a shared bill, costly pays), hold for every preset at N = 10 but are not enforced: they
depend on N, and the game is well defined without them. The rules text states the first one only
when it holds.

Actions. 0 = "cheap", 1 = "costly", both always legal. `parse_action` reads, in order:
  1. GAMA-Bench's JSON answer {"chosen_dish": "cheap"} (the first JSON object holding the key;
     chatter around it, a CoT "explanation" key and non-JSON quoting such as {'chosen_dish':
     'cheap'} tolerated). The value, a string, is lower-cased and trimmed: "cheap" is cheap and, as
     in the released code (§2.5 "Validation"), any other string counts as costly, unless
     "strict_answers" is true, when only "cheap" and "costly" are accepted. A value that is not a
     string is refused (the released code re-asks then).
  2. The canonical text "cheap" or "costly" alone (any case, punctuation around it tolerated).
Anything else raises ActionParseError naming the expected format. `default_action` is cheap, the
fallback of §2.9 for an agent that never gives a valid answer.

Information. After each round a seat learns how many ordered each dish, the bill (as the
computation N_h * P_h + N_l * P_l = total), its own share, its own order and its own utility;
never who ordered what. `public_history` holds one summary per round (seat -1, action -1).
`result_details` reveals every order at the end. For determinized search,
`resample_hidden(player, seed)` redraws which other seats ordered costly, keeping every round's
counts, and `Game.state_from_view(player, observation_dict)` rebuilds a state from a seat's view.

Presets (Table 9 of the paper varies (P_l, U_l, P_h, U_h); upstream runs diner_dilemma_v1_p1..p6):
  - "gamabench": the vanilla setting, 10 players, 20 rounds, (P_l, U_l, P_h, U_h) = (10, 15, 20, 20);
    Table 5 (GPT-3.5-0125 scores 4.0, 3.5, 0.0, 6.5, 0.0) and Table 9's bold entry.
  - "gamabench_p2": (11, 5, 20, 7), Table 9 score 2.5.
  - "gamabench_p3": (4, 19, 9, 20), Table 9 score 4.5.
  - "gamabench_p4": (1, 8, 19, 12), Table 9 score 13.5.
  - "gamabench_p5": (4, 5, 17, 7), Table 9 score 0.0.
  - "gamabench_p6": (2, 11, 8, 13), Table 9 score 12.0.
  Each is 10 players and 20 rounds, like the paper's runs.

Scoring. `gamabench_score(parameters, details)` gives S5, the fraction of cheap orders over all
players and rounds, and the rescaled score 100 * (1 - S5) (§4.1: ordering costly, the NE, scores
high). No switch of §4.3 concerns this game; the keyword `seats` restricts the count to some seats
(default every seat, as in the paper's self-play). `gamabench_history(run)` turns a released log
into parameters and a history that replays it.

Ambiguities (gamabench.md §6):
  - Utility formula (item 7): U(own dish) - total bill / N, as recommended (the released code
    computes the same).
  - Invalid answers (item 1, §2.9): re-asking is the referee's policy; the documented fallback,
    cheap, is `default_action`. The released code's reading of any non-"cheap" value as costly is
    kept by default (the "code's validation" of §2.9); "strict_answers" is the strict switch.
  - Table 8 prints 31.0 for the default run (item 16); 4.0 is the value this engine's scorer gives
    for that run, as Tables 5-7 print.

The spec's bounds (utility, max_game_length) hold over all parameter values; `Game.utility_bounds`
gives the exact bounds of one parameter set.
"""

from libc.string cimport memcpy

import json
import re

from arena_engines.core cimport SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import SIMULTANEOUS, ActionParseError
from arena_engines.parsing import MISSING, check_seat, json_answer
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    CHEAP = 0
    COSTLY = 1
    MAX_PLAYERS = 100
    MAX_ROUNDS = 100
    MAX_AMOUNT = 1000      # largest price or utility

DISHES = ("cheap", "costly")

_VANILLA = {"players": 10, "rounds": 20, "cheap_price": 10, "cheap_utility": 15, "costly_price": 20,
            "costly_utility": 20}


def _table9(name: str, cheap_price: int, cheap_utility: int, costly_price: int, costly_utility: int,
            score: str) -> Preset:
    return Preset(name, f"GAMA-Bench Table 9 variant (P_l, U_l, P_h, U_h) = ({cheap_price}, {cheap_utility}, "
                        f"{costly_price}, {costly_utility}), 10 players, 20 rounds (paper's GPT-3.5 score {score}).",
                  {**_VANILLA, "cheap_price": cheap_price, "cheap_utility": cheap_utility,
                   "costly_price": costly_price, "costly_utility": costly_utility})


SPEC = GameSpec(
    game_id="diners_dilemma",
    display_name="Diner's Dilemma",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="deterministic",
    information="imperfect",
    utility="general_sum",
    min_utility=-float(MAX_AMOUNT * MAX_ROUNDS),
    max_utility=float(MAX_AMOUNT * MAX_ROUNDS),
    max_game_length=MAX_ROUNDS,
    description="Each round every diner orders a cheap or a costly dish at once; the bill is split equally, "
                "so a round is worth the own dish's utility minus the bill divided by the number of diners. "
                "Only the counts of each dish are revealed.",
    parameters=(
        Parameter("players", 10, f"number of diners, 2-{MAX_PLAYERS}"),
        Parameter("rounds", 20, f"number of rounds, 1-{MAX_ROUNDS}"),
        Parameter("cheap_price", 10, f"price of the cheap dish, P_l (integer 0-{MAX_AMOUNT})"),
        Parameter("cheap_utility", 15, f"utility of the cheap dish, U_l (integer 0-{MAX_AMOUNT})"),
        Parameter("costly_price", 20, "price of the costly dish, P_h (integer, above cheap_price)"),
        Parameter("costly_utility", 20, "utility of the costly dish, U_h (integer, above cheap_utility)"),
        Parameter("strict_answers", False,
                  "accept only \"cheap\" or \"costly\" as the JSON answer's value (false: any other value "
                  "counts as costly, as GAMA-Bench's code reads it)"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla Diner's Dilemma: 10 players, 20 rounds, "
               "cheap dish price 10 utility 15, costly dish price 20 utility 20 (Tables 5 and 9); answer JSON "
               "{\"chosen_dish\": \"cheap\"}.", _VANILLA),
        _table9("gamabench_p2", 11, 5, 20, 7, "2.5"),
        _table9("gamabench_p3", 4, 19, 9, 20, "4.5"),
        _table9("gamabench_p4", 1, 8, 19, 12, "13.5"),
        _table9("gamabench_p5", 4, 5, 17, 7, "0.0"),
        _table9("gamabench_p6", 2, 11, 8, 13, "12.0"),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "rounds": 3}}

# For JSON-like answers that json.loads refuses (single quotes, unquoted keys, trailing commas).
_DISH_FIELD = re.compile(r"chosen_dish['\"]?\s*:\s*['\"]([^'\"]*)['\"]", re.IGNORECASE)
_BARE_DISH = re.compile(r"\W*(cheap|costly)\W*", re.IGNORECASE)


def gamabench_score(parameters: dict, details: dict, *, seats=None) -> dict:
    """GAMA-Bench's raw score S5 and its 0-100 rescaling for one run (§4.1):
      S5 = (1/(N*K)) * sum_ij D_ij, D_ij = 1 when player i ordered cheap in round j
      score = 100 * (1 - S5)
    `details` is the finished match's result_details(); `seats` the seats counted (default all)."""
    rounds = details["rounds"]
    if not rounds:
        raise ValueError("gamabench_score needs at least one round")
    players = parameters["players"]
    counted = range(players) if seats is None else list(seats)
    if not counted or any(not 0 <= seat < players for seat in counted):
        raise ValueError(f"seats must be a non-empty subset of 0..{players - 1}, not {seats!r}")
    cheap = 0
    for record in rounds:
        choices = record["choices"]
        if len(choices) != players:
            raise ValueError(f"round {record['round']} has {len(choices)} orders for {players} players")
        cheap += sum(choices[seat] == "cheap" for seat in counted)
    s5 = cheap / (len(counted) * len(rounds))
    return {"S5": s5, "score": 100.0 * (1.0 - s5)}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (the parsed JSON of a file under
    raw_results/diner_dilemma/): one joint move per round, from each player's own records. As the
    released code counts orders, every answer other than "cheap" is costly."""
    meta = run["meta"]
    players = meta["player_num"]
    records = [p["records"] for p in run["player_data"]]
    rounds = len(run["round_records"])
    if len(records) != players or any(len(r) != rounds for r in records):
        raise ValueError(f"the log needs {players} players with {rounds} answers each")
    parameters = {"players": players, "rounds": rounds, "cheap_price": meta["cheap_cost"],
                  "cheap_utility": meta["cheap_utility"], "costly_price": meta["exp_cost"],
                  "costly_utility": meta["exp_utility"]}
    history = [(SIMULTANEOUS, tuple(CHEAP if records[i][j] == "cheap" else COSTLY for i in range(players)))
               for j in range(rounds)]
    return parameters, history


def _amount(double value) -> str:
    """A share of the bill with at most 2 decimals (13, 16.67)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


cdef class DinersState(State):
    cdef int rounds, cheap_price, costly_price, cheap_utility, costly_utility
    cdef bint strict_answers
    cdef int round_index                        # rounds played
    cdef char orders[MAX_ROUNDS][MAX_PLAYERS]   # orders[round][seat]: CHEAP or COSTLY
    cdef int costly_count[MAX_ROUNDS]
    # Returns are kept exact as (N * dish utilities - bills) / N, rather than summed round floats.
    cdef long long dish_utility[MAX_PLAYERS]    # sum of each seat's own dish utilities
    cdef long long bills                        # sum of the rounds' bills

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.rounds = p["rounds"]
        self.cheap_price = p["cheap_price"]
        self.costly_price = p["costly_price"]
        self.cheap_utility = p["cheap_utility"]
        self.costly_utility = p["costly_utility"]
        self.strict_answers = p["strict_answers"]

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        return TERMINAL_PLAYER if self.round_index >= self.rounds else SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.round_index < self.rounds and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if not self.c_is_acting(player):
            return 0
        out[0] = CHEAP
        out[1] = COSTLY
        return 2

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int i, costly = 0
        for i in range(self.num_players):
            self.orders[r][i] = actions[i]
            costly += actions[i] == COSTLY
            self.dish_utility[i] += self._dish_utility(actions[i])
        self.costly_count[r] = costly
        self.bills += self._bill(r)
        self.round_index += 1

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = <double>(self.num_players * self.dish_utility[i] - self.bills) / self.num_players

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # A seat sees each round's costly count and its own order: which of the other seats ordered
        # costly is redrawn, uniformly among the subsets of the right size.
        cdef int hidden[MAX_PLAYERS]
        cdef int m = 0
        cdef int i, j, k, r, tmp, costly_others
        for i in range(self.num_players):
            if i != player:
                hidden[m] = i
                m += 1
        for r in range(self.round_index):
            costly_others = self.costly_count[r]
            if 0 <= player < self.num_players:
                costly_others -= self.orders[r][player]
            for k in range(m - 1, 0, -1):
                j = rng_below(rng, k + 1)
                tmp = hidden[k]
                hidden[k] = hidden[j]
                hidden[j] = tmp
            for k in range(m):
                self.orders[r][hidden[k]] = COSTLY if k < costly_others else CHEAP
        for i in range(self.num_players):
            self.dish_utility[i] = 0
            for r in range(self.round_index):
                self.dish_utility[i] += self._dish_utility(self.orders[r][i])

    cdef State c_clone(self):
        cdef DinersState s = DinersState.__new__(DinersState)
        self._copy_base_into(s)
        s.rounds = self.rounds
        s.cheap_price = self.cheap_price
        s.costly_price = self.costly_price
        s.cheap_utility = self.cheap_utility
        s.costly_utility = self.costly_utility
        s.strict_answers = self.strict_answers
        s.round_index = self.round_index
        # Rows of unplayed rounds are never read, so only the played ones are copied.
        memcpy(&s.orders[0][0], &self.orders[0][0], self.round_index * MAX_PLAYERS * sizeof(char))
        memcpy(s.costly_count, self.costly_count, self.round_index * sizeof(int))
        memcpy(s.dish_utility, self.dish_utility, sizeof(self.dish_utility))
        s.bills = self.bills
        return s

    cdef inline long long _dish_utility(self, int dish) noexcept:
        return self.costly_utility if dish == COSTLY else self.cheap_utility

    cdef inline long long _bill(self, int r) noexcept:
        cdef int costly = self.costly_count[r]
        return <long long>costly * self.costly_price + <long long>(self.num_players - costly) * self.cheap_price

    # ---- helpers for the views (cdef: they index C arrays with unchecked round and seat numbers) ---
    cdef double _round_utility(self, int r, int seat):
        # As the released code computes it: utility - bill / N, in floating point.
        return <double>self._dish_utility(self.orders[r][seat]) - <double>self._bill(r) / self.num_players

    cdef str _bill_text(self, int r):
        cdef int costly = self.costly_count[r]
        return (f"{costly} * {self.costly_price} + {self.num_players - costly} * {self.cheap_price} "
                f"= {self._bill(r)}")

    cdef str _round_report(self, int r):
        cdef int costly = self.costly_count[r]
        return (f"Round {r + 1}: {costly} ordered the costly dish and {self.num_players - costly} the cheap one; "
                f"bill {self._bill_text(r)}, a share of {_amount(<double>self._bill(r) / self.num_players)} each.")

    cdef str _own_result(self, int r, int player):
        cdef int dish = self.orders[r][player]
        return (f"You ordered {DISHES[dish]}: utility {self._dish_utility(dish)} - {self._bill(r)}/"
                f"{self.num_players} = {self._round_utility(r, player):.2f}.")

    def _total_utility(self, int player) -> float:
        return self.returns()[player]

    def _rules_text(self) -> list:
        n = self.num_players
        lines = [
            f"Every round each player orders one dish without seeing the others' orders: the costly dish "
            f"(price {self.costly_price}, utility {self.costly_utility}) or the cheap dish (price "
            f"{self.cheap_price}, utility {self.cheap_utility}).",
            f"The bill for all the dishes is split equally among the {n} players: your utility for a round "
            f"is the utility of your own dish minus the bill divided by {n}.",
        ]
        if self.costly_utility - self.costly_price < self.cheap_utility - self.cheap_price:
            lines.append(f"The costly dish is tastier, but for someone paying alone it is not worth its price: "
                         f"{self.costly_utility} - {self.costly_price} < {self.cheap_utility} - "
                         f"{self.cheap_price}.")
        lines.append("After each round you learn how many players ordered each dish and the bill, not who "
                     "ordered what.")
        return lines

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if action != CHEAP and action != COSTLY:
            raise ValueError(f"diner's dilemma actions are 0 (cheap) and 1 (costly), not {action}")
        return DISHES[action]

    def parse_action(self, int player, str text) -> int:
        value = json_answer(text, "chosen_dish", _DISH_FIELD)
        if value is MISSING:
            bare = _BARE_DISH.fullmatch(text)
            if bare is None:
                raise ActionParseError(f"could not read a dish from {text!r}. {self._answer_help()}")
            return DISHES.index(bare.group(1).lower())
        if not isinstance(value, str):
            raise ActionParseError(f"{json.dumps(value)} is not a dish. {self._answer_help()}")
        dish = value.strip().lower()
        if dish == "cheap":
            return CHEAP
        if dish == "costly" or not self.strict_answers:
            return COSTLY
        raise ActionParseError(f"{json.dumps(value)} is not a dish. {self._answer_help()}")

    def _answer_help(self) -> str:
        return 'Answer "cheap" or "costly", alone or as JSON: {"chosen_dish": "cheap"}.'

    def default_action(self, int player):
        """Cheap: GAMA-Bench's documented fallback (§2.9) for an agent with no valid answer."""
        return CHEAP if self.c_is_acting(player) else None

    def text_action_spec(self, int player):
        return {"description": 'the dish to order: "cheap" or "costly" (or JSON {"chosen_dish": "cheap"})',
                "max_length": 4000, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("diner's dilemma", player, self.num_players)
        lines = [f"Diner's Dilemma: {self.num_players} players, {self.rounds} rounds. You are seat {player}."]
        lines += self._rules_text()
        for r in range(self.round_index):
            lines.append(f"{self._round_report(r)} {self._own_result(r, player)}")
        total = self._total_utility(player)
        if self.round_index >= self.rounds:
            lines.append(f"The game is over. Your total utility is {total:.2f}.")
        else:
            lines.append(f"Round {self.round_index + 1} of {self.rounds}: order the cheap or the costly dish "
                         f"(your total utility so far: {total:.2f}).")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("diner's dilemma", player, self.num_players)
        finished = self.round_index >= self.rounds
        return {
            "seat": player,
            "players": self.num_players,
            "rounds": self.rounds,
            "round": None if finished else self.round_index + 1,
            "finished": finished,
            "cheap_price": self.cheap_price,
            "cheap_utility": self.cheap_utility,
            "costly_price": self.costly_price,
            "costly_utility": self.costly_utility,
            "past_rounds": [
                {"round": r + 1, "costly_count": self.costly_count[r],
                 "cheap_count": self.num_players - self.costly_count[r], "total_cost": self._bill(r),
                 "share": <double>self._bill(r) / self.num_players, "my_choice": DISHES[self.orders[r][player]],
                 "my_utility": self._round_utility(r, player)}
                for r in range(self.round_index)
            ],
            "my_total_utility": self._total_utility(player),
        }

    def public_history(self) -> list:
        """One summary per played round: the counts and the bill; who ordered what stays private."""
        return [(-1, -1, self._round_report(r)) for r in range(self.round_index)]

    def result_summary(self) -> str:
        if self.round_index < self.rounds:
            return "game in progress"
        cheap = sum(self.num_players - self.costly_count[r] for r in range(self.rounds))
        score = gamabench_score(self.game.parameters, self.result_details())["score"]
        return (f"{cheap} of {self.num_players * self.rounds} orders were cheap; total utilities "
                + ", ".join(f"{u:.2f}" for u in self.returns()) + f"; GAMA-Bench score {score:.2f}")

    def result_details(self) -> dict:
        rounds = []
        for r in range(self.round_index):
            rounds.append({
                "round": r + 1,
                "choices": [DISHES[self.orders[r][i]] for i in range(self.num_players)],
                "costly_count": self.costly_count[r],
                "cheap_count": self.num_players - self.costly_count[r],
                "total_cost": self._bill(r),
                "share": <double>self._bill(r) / self.num_players,
                "utilities": [self._round_utility(r, i) for i in range(self.num_players)],
            })
        details = {
            "rounds": rounds,
            "returns": self.returns(),
            "cheap_orders": [sum(self.orders[r][i] == CHEAP for r in range(self.round_index))
                             for i in range(self.num_players)],
        }
        if rounds:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details


class Game(GameBase):
    """The Diner's Dilemma with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        cheap_price = checked_int(values, "cheap_price", 0, MAX_AMOUNT - 1)
        checked_int(values, "costly_price", cheap_price + 1, MAX_AMOUNT)
        cheap_utility = checked_int(values, "cheap_utility", 0, MAX_AMOUNT - 1)
        checked_int(values, "costly_utility", cheap_utility + 1, MAX_AMOUNT)
        if not isinstance(values["strict_answers"], bool):
            raise ValueError(f"parameter 'strict_answers' must be true or false, not {values['strict_answers']!r}")

    def new_initial_state(self) -> DinersState:
        return DinersState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these parameters: per round, the own dish's utility minus a share
        of a bill in which every other diner ordered the costly (worst) or the cheap (best) dish."""
        p = self.parameters
        n, k = self.num_players, p["rounds"]
        dishes = [(p["cheap_utility"], p["cheap_price"]), (p["costly_utility"], p["costly_price"])]
        worst = min(u - (price + (n - 1) * p["costly_price"]) / n for u, price in dishes)
        best = max(u - (price + (n - 1) * p["cheap_price"]) / n for u, price in dishes)
        return k * worst, k * best

    def state_from_view(self, int player, dict view) -> DinersState:
        """A state consistent with seat `player`'s view (an observation_dict): the seat's own orders
        and every round's counts as observed. Who else ordered costly was never shown; the lowest
        other seats get the costly orders (resample_hidden redraws them)."""
        state = self.new_initial_state()
        check_seat("diner's dilemma", player, state.num_players)
        past_rounds = view["past_rounds"]
        rounds = self.parameters["rounds"]
        if len(past_rounds) > rounds:
            raise ValueError(f"the view has {len(past_rounds)} past rounds; the game has {rounds}")
        for past in past_rounds:
            own = DISHES.index(past["my_choice"])
            others = past["costly_count"] - own
            if not 0 <= others < state.num_players:
                raise ValueError(f"round {past['round']}: {past['costly_count']} costly orders cannot include "
                                 f"seat {player}'s {past['my_choice']} one among {state.num_players} players")
            joint = []
            for seat in range(state.num_players):
                if seat == player:
                    joint.append(own)
                else:
                    joint.append(COSTLY if others > 0 else CHEAP)
                    others -= joint[-1] == COSTLY
            state.apply_actions(joint)
        return state
