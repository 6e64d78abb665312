"""Iterated prisoner's dilemma for n players, as played in GTBench (2 players, OpenSpiel's
`python_iterated_prisoners_dilemma`) and MAgIC (3 players, 5 rounds).

Rules. "players" players (2-16) play rounds. In each round every player chooses Cooperate or Defect
at the same time (GTBench calls them Silent and Testify); the choices are revealed after the round.
A player's points for the round depend on its own choice and on k, the number of OTHER players who
defected: payoffs[0][k] when it cooperated, payoffs[1][k] when it defected ("payoffs", a 2 x players
table; this one table covers OpenSpiel's 2-player matrix and MAgIC's 3-player scoring, as the
reference's merging remark says). A seat's return is the sum of its points over all rounds
(general-sum), and is kept up to date during the game.

Length. After each round, while fewer than "max_rounds" rounds have been played, a chance node
continues the game with probability "continue_probability" or stops it, as OpenSpiel's stop node
after every round. The game ends when chance stops it or after "max_rounds" rounds. With
continue_probability 1 there are no chance nodes and the game lasts exactly max_rounds rounds.

Actions. 0 = Cooperate (Silent), 1 = Defect (Testify), as OpenSpiel; both are always legal for every
player. Chance outcomes: 0 = continue, 1 = stop, as OpenSpiel. The action text follows
"action_labels": "cooperate_defect" gives MAgIC's answers "Cooperate" / "Defect";
"silent_testify" gives GTBench's answers "<Silent>" / "<Testify>".

Parsing (`parse_action`), whatever the labels, tries in order:
  1. a tag "<Silent>", "<Testify>", "<Cooperate>" or "<Defect>" (case-insensitive): the LAST one, as
     GTBench's parser takes the last match in a reply;
  2. MAgIC's rule on the lower-cased text: containing "cooperate" means Cooperate, otherwise
     containing "defect" means Defect;
  3. the words "silent" / "testify" when exactly one of the two is named.
Anything else raises ActionParseError. MAgIC's code turns every unreadable answer into Defect (magic.md
section 2.6): that is the game's `default_action`, played under the referee's "game_default" failure
policy (the MAgIC suite's), never by the parser.

Information. Perfect about past rounds: every choice of a round is public once the round is over,
and so are the chance outcomes. Within a round the choices are simultaneous.

Presets.
  - "gtbench_2p": GTBench's paper: 2 players, the prompt's prison years as rewards = -years (both
    Silent -1, Silent vs Testify -3 / 0, both Testify -2), stop with probability 0.125 after every
    round as its code does, at most 9999 rounds, answers "<Silent>" / "<Testify>".
  - "gtbench_2p_code": as GTBench's released code runs it (OpenSpiel): as "gtbench_2p" with payoffs
    [[5, 0], [10, 1]] (C/C 5, C/D 0, D/C 10, D/D 1).
  - "magic_3p": MAgIC's released setting: 3 players, 5 rounds, no random stop; cooperate 2, defect 1,
    one_defect 4, two_defect 2 (see `magic_payoffs`); answers "Cooperate" / "Defect".

Ambiguities.
  - GTBench's payoff scale (gtbench.md section 6, item 6): as the reference recommends, the default
    preset "gtbench_2p" uses the paper's prison years and "gtbench_2p_code" OpenSpiel's rewards
    (what GTBench's code scored).
  - The round cap: OpenSpiel only declares a max_game_length of 9999 and never ends a game for it;
    this engine ends after "max_rounds" rounds without a last stop node (GTBench's 9999 rounds are
    reached with probability 0.875^9998, i.e. never in practice).
  - MAgIC's seven scoring settings are not listed in the paper; the reference's reading (magic.md
    section 6, A6) is (cooperate, one_defect, two_defect) in (3,5,2), (3,10,2), (3,20,2), (3,5,3),
    (3,5,4), (3,5,5), (5,5,3) with defect 1; `magic_payoffs` turns any of them into a payoff table.
  - GTBench's code renders both columns of its history from the opponent's moves (item 22); this
    engine renders each player's own choices.
"""

from libc.string cimport memcpy

import math
import re

from arena_engines.core cimport CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, State
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    COOPERATE = 0
    DEFECT = 1
    CONTINUE = 0
    STOP = 1
    MAX_PLAYERS = 16         # the defectors of a round fit in an unsigned short bit mask
    MAX_ROUNDS = 9999        # OpenSpiel's max_game_length

MAX_ABS_PAYOFF = 1000.0

LABELS = {
    "cooperate_defect": ("Cooperate", "Defect"),
    "silent_testify": ("<Silent>", "<Testify>"),
}

OPENSPIEL_PAYOFFS = [[5, 0], [10, 1]]


def magic_payoffs(cooperate, defect, one_defect, two_defect) -> list:
    """MAgIC's 3-player scoring as a payoff table (row: own choice; column: other defectors).

    All cooperate: each gets `cooperate`; all defect: each gets `defect`; one defector gets
    `one_defect` and two defectors get `two_defect` each, while the cooperators get 0."""
    return [[cooperate, 0, 0], [one_defect, two_defect, defect]]


SPEC = GameSpec(
    game_id="iterated_prisoners_dilemma",
    display_name="Iterated Prisoner's Dilemma",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="stochastic",
    information="perfect",
    utility="general_sum",
    min_utility=-MAX_ABS_PAYOFF * MAX_ROUNDS,
    max_utility=MAX_ABS_PAYOFF * MAX_ROUNDS,
    max_game_length=2 * MAX_ROUNDS - 1,
    description="Each round every player cooperates or defects at the same time; points depend on the "
                "own choice and the number of other defectors; after each round chance may stop the game.",
    parameters=(
        Parameter("players", 2, f"number of players, 2-{MAX_PLAYERS}"),
        Parameter("payoffs", OPENSPIEL_PAYOFFS,
                  "points per round: payoffs[own choice][k], own choice 0 cooperate / 1 defect, k = number of "
                  f"other players who defect (0..players-1); |points| <= {MAX_ABS_PAYOFF:g}"),
        Parameter("continue_probability", 0.875,
                  "probability that another round follows a round (1: no chance nodes)"),
        Parameter("max_rounds", MAX_ROUNDS, f"round cap, 1-{MAX_ROUNDS}"),
        Parameter("action_labels", "cooperate_defect",
                  "'cooperate_defect' (Cooperate / Defect) or 'silent_testify' (<Silent> / <Testify>)"),
    ),
    presets=(
        Preset("gtbench_2p", "GTBench (Duan et al., 2024) with the payoffs of the paper's prompt, as rewards "
               "= -prison years: both Silent -1, Silent vs Testify -3 / 0, both Testify -2; stop with probability "
               "0.125 after every round (at most 9999 rounds); answer '<Silent>' or '<Testify>'.",
               {"players": 2, "payoffs": [[-1, -3], [0, -2]], "continue_probability": 0.875,
                "max_rounds": MAX_ROUNDS, "action_labels": "silent_testify"}),
        Preset("gtbench_2p_code", "GTBench as its released code runs it, OpenSpiel "
               "python_iterated_prisoners_dilemma: payoffs C/C 5, C/D 0, D/C 10, D/D 1; otherwise as gtbench_2p.",
               {"players": 2, "payoffs": OPENSPIEL_PAYOFFS, "continue_probability": 0.875,
                "max_rounds": MAX_ROUNDS, "action_labels": "silent_testify"}),
        Preset("magic_3p", "MAgIC (Xu et al., 2023) released setting: 3 players, 5 rounds, no random stop; "
               "all cooperate 2 each, all defect 1 each, a lone defector 4, two defectors 2 each, cooperators "
               "facing defectors 0; answer 'Cooperate' or 'Defect'.",
               {"players": 3, "payoffs": magic_payoffs(cooperate=2, defect=1, one_defect=4, two_defect=2),
                "continue_probability": 1.0, "max_rounds": 5, "action_labels": "cooperate_defect"}),
    ),
)

_TAG = re.compile(r"<\s*(silent|testify|cooperate|defect)\s*>", re.IGNORECASE)
_GTBENCH_WORD = re.compile(r"\b(silent|testify)\b", re.IGNORECASE)
_CHOICE = {"cooperate": COOPERATE, "silent": COOPERATE, "defect": DEFECT, "testify": DEFECT}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


cdef inline int _popcount(unsigned int mask) noexcept:
    cdef int n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


cdef class PrisonersDilemmaState(State):
    cdef double payoffs[2][MAX_PLAYERS]       # payoffs[own choice][other defectors]
    cdef double continue_probability
    cdef int max_rounds
    cdef int rounds_played
    cdef bint awaiting_draw                   # a round just ended; chance decides whether another follows
    cdef bint stopped                         # chance stopped the game
    cdef unsigned short defectors[MAX_ROUNDS] # per round, bit i set when seat i defected
    cdef double totals[MAX_PLAYERS]

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        cdef int choice, k
        for choice in range(2):
            for k in range(self.num_players):
                self.payoffs[choice][k] = p["payoffs"][choice][k]
        self.continue_probability = p["continue_probability"]
        self.max_rounds = p["max_rounds"]

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.stopped or self.rounds_played >= self.max_rounds:
            return TERMINAL_PLAYER
        if self.awaiting_draw:
            return CHANCE_PLAYER
        return SIMULTANEOUS_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        return self.c_current_player() == SIMULTANEOUS_PLAYER and 0 <= player < self.num_players

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if not self.c_is_acting(player):
            return 0
        out[0] = COOPERATE
        out[1] = DEFECT
        return 2

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef unsigned short mask = 0
        cdef int i, defectors
        for i in range(self.num_players):
            if actions[i] == DEFECT:
                mask |= <unsigned short>(1 << i)
        defectors = _popcount(mask)
        for i in range(self.num_players):
            self.totals[i] += self.payoffs[actions[i]][defectors - actions[i]]
        self.defectors[self.rounds_played] = mask
        self.rounds_played += 1
        self.awaiting_draw = self.continue_probability < 1.0 and self.rounds_played < self.max_rounds

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int n = 0
        if self.continue_probability > 0.0:
            actions[n] = CONTINUE
            probs[n] = self.continue_probability
            n += 1
        actions[n] = STOP
        probs[n] = 1.0 - self.continue_probability
        return n + 1

    cdef void c_apply_action(self, int action) noexcept:
        # Only chance acts sequentially here.
        self.awaiting_draw = False
        self.stopped = action == STOP

    cdef void c_returns(self, double* out) noexcept:
        cdef int i
        for i in range(self.num_players):
            out[i] = self.totals[i]

    cdef State c_clone(self):
        cdef PrisonersDilemmaState s = PrisonersDilemmaState.__new__(PrisonersDilemmaState)
        self._copy_base_into(s)
        s.payoffs = self.payoffs
        s.continue_probability = self.continue_probability
        s.max_rounds = self.max_rounds
        s.rounds_played = self.rounds_played
        s.awaiting_draw = self.awaiting_draw
        s.stopped = self.stopped
        # Entries of unplayed rounds are never read, so only the played ones are copied.
        memcpy(s.defectors, self.defectors, self.rounds_played * sizeof(unsigned short))
        s.totals = self.totals
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _labels(self) -> tuple:
        return LABELS[self.game.parameters["action_labels"]]

    def _choices(self, int r) -> list:
        """Each seat's action id in round r (0-based)."""
        return [(self.defectors[r] >> i) & 1 for i in range(self.num_players)]

    def _points(self, int r) -> list:
        choices = self._choices(r)
        defectors = sum(choices)
        return [self.payoffs[c][defectors - c] for c in choices]

    def _name(self, int seat, int player) -> str:
        return "you" if seat == player else f"seat {seat}"

    def _phase(self) -> str:
        return {SIMULTANEOUS_PLAYER: "choose", CHANCE_PLAYER: "chance"}.get(self.c_current_player(), "over")

    def _num(self, double x) -> str:
        return f"{x:g}"

    def _payoff_lines(self) -> list:
        cooperate, defect = self._labels()
        lines = []
        for choice, label in enumerate((cooperate, defect)):
            cases = [f"{self._num(self.payoffs[choice][0])} if no other player chooses {defect}"]
            cases += [f"{self._num(self.payoffs[choice][k])} if {k} {'does' if k == 1 else 'do'}"
                      for k in range(1, self.num_players)]
            lines.append(f"  {label}: " + ", ".join(cases) + ".")
        return lines

    def _length_text(self) -> str:
        if self.continue_probability >= 1.0:
            return f"The game lasts {self.max_rounds} rounds."
        if self.continue_probability <= 0.0:
            return "The game ends after the first round."
        return (f"After each round the game goes on with probability {self._num(self.continue_probability)} "
                f"(it stops with probability {self._num(1.0 - self.continue_probability)}), for at most "
                f"{self.max_rounds} rounds.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            return "continue" if action == CONTINUE else "stop"
        if action != COOPERATE and action != DEFECT:
            raise ValueError(f"prisoner's dilemma actions are 0 (cooperate) and 1 (defect), not {action}")
        return self._labels()[action]

    def parse_action(self, int player, str text) -> int:
        tag = last_match(_TAG, text)
        if tag is not None:
            return _CHOICE[tag.group(1).lower()]
        lowered = text.lower()
        if "cooperate" in lowered:
            return COOPERATE
        if "defect" in lowered:
            return DEFECT
        named = {_CHOICE[word.lower()] for word in _GTBENCH_WORD.findall(text)}
        if len(named) == 1:
            return named.pop()
        cooperate, defect = self._labels()
        raise ActionParseError(f"could not read a single choice from {text!r}. Answer with exactly one of "
                               f"{cooperate} or {defect}.")

    def default_action(self, int player):
        return DEFECT if self.c_is_acting(player) else None

    def observation_string(self, int player) -> str:
        check_seat("iterated prisoner's dilemma", player, self.num_players)
        cooperate, defect = self._labels()
        lines = [
            f"Iterated prisoner's dilemma with {self.num_players} players. Every round each player chooses "
            f"{cooperate} or {defect}; the choices are made at the same time and revealed after the round.",
            f"Your points each round, by your choice and how many of the other players choose {defect}:",
        ]
        lines += self._payoff_lines()
        lines += [f"{self._length_text()} Your score is the total of your points.", f"You are seat {player}."]
        labels = (cooperate, defect)
        for r in range(self.rounds_played):
            choices, points = self._choices(r), self._points(r)
            lines.append(f"Round {r + 1}: " + ", ".join(
                f"{self._name(i, player)} {labels[choices[i]]} ({self._num(points[i])})"
                for i in range(self.num_players)) + ".")
        if self.rounds_played:
            lines.append("Totals: " + ", ".join(f"{self._name(i, player)} {self._num(self.totals[i])}"
                                                for i in range(self.num_players)) + ".")
        phase = self._phase()
        if phase == "choose":
            lines.append(f"Round {self.rounds_played + 1}: choose {cooperate} or {defect}.")
        elif phase == "chance":
            lines.append("Chance decides whether another round follows.")
        else:
            lines.append(f"The game is over after {self.rounds_played} "
                         f"round{'' if self.rounds_played == 1 else 's'}.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("iterated prisoner's dilemma", player, self.num_players)
        phase = self._phase()
        return {
            "seat": player,
            "players": self.num_players,
            "labels": list(self._labels()),
            "payoffs": [[self.payoffs[c][k] for k in range(self.num_players)] for c in range(2)],
            "continue_probability": self.continue_probability,
            "max_rounds": self.max_rounds,
            "phase": phase,
            "round": self.rounds_played + 1 if phase == "choose" else None,
            "rounds": [{"round": r + 1, "actions": self._choices(r), "points": self._points(r)}
                       for r in range(self.rounds_played)],
            "totals": [self.totals[i] for i in range(self.num_players)],
            "stopped_by_chance": bool(self.stopped),
            "legal_actions": self.legal_actions(player),
        }

    def public_history(self) -> list:
        """Every choice of every finished round, and every chance outcome: all of it is public."""
        out = []
        for seat, action in self._history:
            if seat == SIMULTANEOUS_PLAYER:
                out += [(i, a, self.action_to_string(i, a)) for i, a in enumerate(action)]
            else:
                out.append((CHANCE_PLAYER, action, f"chance: the game {'continues' if action == CONTINUE else 'stops'}"))
        return out

    def _leaders(self) -> list:
        best = max(self.totals[i] for i in range(self.num_players))
        return [i for i in range(self.num_players) if self.totals[i] == best]

    def result_summary(self) -> str:
        if self._phase() != "over":
            return "game in progress"
        totals = ", ".join(self._num(self.totals[i]) for i in range(self.num_players))
        leaders = self._leaders()
        who = f"seat {leaders[0]}" if len(leaders) == 1 else "seats " + ", ".join(map(str, leaders))
        rounds = f"{self.rounds_played} round{'' if self.rounds_played == 1 else 's'}"
        return f"after {rounds} the totals are {totals}; highest: {who}"

    def result_details(self) -> dict:
        labels = self._labels()
        return {
            "rounds": [{"choices": [labels[c] for c in self._choices(r)], "points": self._points(r)}
                       for r in range(self.rounds_played)],
            "totals": [self.totals[i] for i in range(self.num_players)],
            "defections": [sum((self.defectors[r] >> i) & 1 for r in range(self.rounds_played))
                           for i in range(self.num_players)],
            "stopped_by_chance": bool(self.stopped),
            "highest": self._leaders(),
        }


def _check_parameters(dict values, int players):
    checked_int(values, "max_rounds", 1, MAX_ROUNDS)
    p = values["continue_probability"]
    if not _number(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"parameter 'continue_probability' must be a number in [0, 1], not {p!r}")
    if values["action_labels"] not in LABELS:
        raise ValueError(f"parameter 'action_labels' must be one of {', '.join(LABELS)}, "
                         f"not {values['action_labels']!r}")
    table = values["payoffs"]
    if (not isinstance(table, (list, tuple)) or len(table) != 2
            or any(not isinstance(row, (list, tuple)) or len(row) != players for row in table)):
        raise ValueError(f"parameter 'payoffs' must be two rows (cooperate, defect) of {players} numbers, one "
                         f"per number of other defectors 0..{players - 1}; got {table!r}")
    if any(not _number(x) or abs(x) > MAX_ABS_PAYOFF for row in table for x in row):
        raise ValueError(f"parameter 'payoffs' must hold finite numbers within +-{MAX_ABS_PAYOFF:g}; got {table!r}")


class Game(GameBase):
    """The n-player iterated prisoner's dilemma; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        _check_parameters(values, num_players)
        values["payoffs"] = [list(row) for row in values["payoffs"]]

    def new_initial_state(self) -> PrisonersDilemmaState:
        return PrisonersDilemmaState(self)

    def state_from_view(self, int player, dict view) -> PrisonersDilemmaState:
        """The state of `view` (any seat's observation_dict): everything in this game is public, so
        this replays the rounds and the chance outcomes between them."""
        state = self.new_initial_state()
        for past in view["rounds"]:
            if state.is_chance_node():
                state.apply_action(CONTINUE)        # another round followed
            state.apply_actions(past["actions"])
        if state.is_chance_node():
            if view["stopped_by_chance"]:
                state.apply_action(STOP)
            elif view["phase"] == "choose":
                state.apply_action(CONTINUE)
        return state
