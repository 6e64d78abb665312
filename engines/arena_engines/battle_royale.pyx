"""Battle Royale, as in GAMA-Bench (γ-Bench, Huang et al., arXiv 2403.11807, gamabench.md §2.7): an
extended truel (Kilgour 1975; Kilgour & Brams 1997).

Rules. N players ("players", 2-100) have fixed hit rates: seat i hits with probability
"base_hit_rate" + i * "hit_rate_step" percent (35 %, 40 %, ..., 80 % by default), so seat order is
the shooting order, from the lowest hit rate to the highest. Players shoot in turn, one per turn;
after a turn the next shooter is the next living seat in that order, cyclically. On its turn the
shooter names one other living player to shoot at, or misses on purpose. A shot hits with the
shooter's hit rate (a chance node, drawn by the server); a hit eliminates the target, who takes no
further part. Bullets are unlimited. The game ends when one player is left or after "max_turns"
turns (20, the released code's cap), whichever comes first. Returns: the players alive at the end
share 1 equally (the sole survivor gets 1, the eliminated 0), so the game is constant-sum.

Actions. Action id k (0 <= k < N) = shoot at seat k, text "shoot player_k", legal for every living
seat other than the shooter; 100 = miss on purpose, text "intentional miss"; 101 = a wasted shot,
text "wasted shot": the shot an answer naming nobody that can be shot (itself, an eliminated player,
an unknown name) turns into, which never hits anyone (gamabench.md §6 item 4). Chance outcomes
after a shot: 0 "miss", 1 "hit", with probabilities 1 - rate and rate (an impossible outcome, at a
hit rate of 0 % or 100 %, is not listed).

Parsing (`parse_action`). GAMA-Bench's JSON answer {"target": "player_3"} (paper) or the released
code's {"action": "shoot", "target": "3"}: the first JSON object holding a "target" or "action" key,
chatter around it tolerated, single-quoted or unquoted JSON-like text read by a key-by-key fallback.
The target may be written "player_3", "3" or 3. A null target, "null", "none" or "-1", or the
action "miss", is an intentional miss. A target that names no living opponent (the shooter itself,
an eliminated player, a seat that does not exist, any other name) is a wasted shot, as in the code.
The code's literal placeholder "playerID_or_null" is refused. Without JSON, the canonical texts
("shoot player_3", "intentional miss", "wasted shot") and the bare "player_3", "3", "miss", "null"
are read. Anything else raises ActionParseError with the expected format.

Information. Perfect: every seat sees the players and hit rates in shooting order, its own name,
hit rate and position, and every turn's outcome (who shot at whom, hit or missed, intentional misses,
wasted shots, eliminations, players left), as the released code's per-turn report; the observation
data carries the move history, so `Game.state_from_view` replays it.

Scoring (`gamabench_score`, gamabench.md §4.1-4.2 and the released data's README). S7 = (turns in
which the shooter shot at the living player with the highest hit rate other than itself) / (turns
played); intentional misses and wasted shots count 0; score = 100 * S7. `gamabench_history` turns a
released log into (parameters, history) to replay here.

Presets (hit rates of Table 9, gamabench.md §5.7; 10 players and the 20-turn cap in all three):
  - "gamabench": the vanilla setting, hit rates 35 % to 80 % in steps of 5 % (§2.7).
  - "gamabench_h51_60": Table 9's variant with hit rates 51 % to 60 % in steps of 1 % (score 28.6).
  - "gamabench_h10_100": Table 9's variant with hit rates 10 % to 100 % in steps of 10 % (score 33.3);
    the last shooter never misses.

Ambiguities (gamabench.md §6; resolutions as recommended unless said otherwise):
  - Item 4. A round is one turn; the game is capped at 20 turns (code). A shot at oneself, at an
    eliminated player or at an unknown name is a wasted shot that counts as not aiming at the
    strongest. S7 is scored per turn, without the paper's 1/N factor (one actor per turn), against
    the strongest *living* other player (the second strongest when the shooter is the strongest).
    The hit draw is the server's chance node, seeded per match and logged, so matches replay
    exactly (the code's unseeded numpy draw was not reproducible).
  - The reference gives no payoff when the cap leaves several survivors; here they share the win
    equally (arena choice), keeping "be the sole survivor" the goal. The observation states the cap,
    which the paper's prompts did not mention.
  - Hit rates must increase strictly with the seat (hit_rate_step >= 1), so the shooting order and
    "the strongest" are never tied.
  - Item 1 and §2.9: an agent that gives no valid answer misses on purpose (`default_action`).
  - The paper's answer key holds a player ID; the code's canonical answers hold the bare index ("3").
    Both are read.

The spec's max_game_length is a bound over all parameter values (each turn is a decision plus at
most one chance outcome); a game with cap T lasts at most 2 * T moves.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, State
from arena_engines.core import CHANCE, ActionParseError
from arena_engines.parsing import MISSING, check_seat, json_objects
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_PLAYERS = 100
    MAX_TURNS = 500
    C_INTENTIONAL_MISS = 100    # action ids after the seats (seats are below MAX_PLAYERS)
    C_WASTED_SHOT = 101
    C_MISSED = 0                # chance outcomes
    C_HIT = 1
    NO_ROLL = -1                # a turn without a shot to resolve

INTENTIONAL_MISS = C_INTENTIONAL_MISS
WASTED_SHOT = C_WASTED_SHOT
MISSED = C_MISSED
HIT = C_HIT

# The released code's cap on turns (gamabench.md §2.7).
GAMABENCH_MAX_TURNS = 20
_GAMABENCH = {"players": 10, "base_hit_rate": 35, "hit_rate_step": 5, "max_turns": GAMABENCH_MAX_TURNS}

SPEC = GameSpec(
    game_id="battle_royale",
    display_name="Battle Royale",
    rules_version="1",
    min_players=2,
    max_players=MAX_PLAYERS,
    dynamics="sequential",
    chance="stochastic",
    information="perfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=2 * MAX_TURNS,
    description="Players take turns, weakest marksman first, shooting at another player or missing on "
                "purpose; a hit eliminates the target. The last one standing wins.",
    parameters=(
        Parameter("players", 10, f"number of players, 2-{MAX_PLAYERS}"),
        Parameter("base_hit_rate", 35, "hit rate of the first shooter (seat 0), in percent, 0-100"),
        Parameter("hit_rate_step", 5, "hit-rate increase from one seat to the next, in percent, >= 1; the "
                                      "last seat's rate must not exceed 100"),
        Parameter("max_turns", GAMABENCH_MAX_TURNS, f"turns after which the game ends, 1-{MAX_TURNS}"),
    ),
    presets=(
        Preset("gamabench", "GAMA-Bench (Huang et al., 2024) vanilla Battle Royale: 10 players with hit rates "
               "35% to 80% in steps of 5%, shooting from the lowest rate up, capped at 20 turns; answer JSON "
               "{\"target\": \"player_3\"} or {\"target\": null} to miss on purpose.", _GAMABENCH),
        Preset("gamabench_h51_60", "GAMA-Bench Table 9 hit-rate variant: hit rates 51% to 60% in steps of 1% "
               "(otherwise as gamabench).", {**_GAMABENCH, "base_hit_rate": 51, "hit_rate_step": 1}),
        Preset("gamabench_h10_100", "GAMA-Bench Table 9 hit-rate variant: hit rates 10% to 100% in steps of "
               "10% (otherwise as gamabench).", {**_GAMABENCH, "base_hit_rate": 10, "hit_rate_step": 10}),
    ),
    accepts_text_actions=True,
)

# Playthroughs (arena_engines.playthrough) stay short enough to read.
PLAYTHROUGH_OVERRIDES = {None: {"players": 3, "max_turns": 10}}

# Key-by-key reading of JSON-like answers that json.loads refuses (single quotes, unquoted values).
_TARGET_FIELD = re.compile(r"""\btarget["']?\s*:\s*(?:"([^"]*)"|'([^']*)'|([^,}\s"']+))""", re.IGNORECASE)
_ACTION_FIELD = re.compile(r"""\baction["']?\s*:\s*["']?([a-z_]+)""", re.IGNORECASE)
_SEAT_NAME = re.compile(r"(?:player[\s_-]?)?(\d{1,6})", re.IGNORECASE)
_SHOT_TEXT = re.compile(r"(?:shoot(?:\s+at)?\s+)?(?:player[\s_-]?)?(\d{1,6})", re.IGNORECASE)
_NULL_TARGETS = {"null", "none", "-1", ""}
_MISS_TEXTS = {"intentional miss", "miss", "null", "none", "-1"}
_PLACEHOLDER = "playerid_or_null"


def _ordinal(int n) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _name(int seat) -> str:
    return f"player_{seat}"


def _players(int n) -> str:
    return "1 player" if n == 1 else f"{n} players"


def hit_rates_of(parameters: dict) -> list:
    """Each seat's hit rate in percent: base_hit_rate + seat * hit_rate_step."""
    return [parameters["base_hit_rate"] + seat * parameters["hit_rate_step"] for seat in range(parameters["players"])]


def gamabench_score(parameters: dict, details: dict, **switches) -> dict:
    """GAMA-Bench's raw score S7 and its 0-100 rescaling for one finished run.

    `details` is the run's result_details(); each turn counts 1 when its shooter shot at the living
    player with the highest hit rate other than itself, 0 otherwise (intentional misses and wasted
    shots included):  S7 = correct turns / turns,  score = 100 * S7.  Battle Royale has no scoring
    switch (gamabench.md §4.3)."""
    if switches:
        raise TypeError(f"battle_royale has no scoring switches, not {', '.join(sorted(switches))}")
    rates = hit_rates_of(parameters)
    turns = details["turns"]
    if not turns:
        raise ValueError("gamabench_score needs at least one turn")
    correct = 0
    for turn in turns:
        if turn["action"] != "shoot":
            continue
        opponents = [seat for seat in turn["alive_before"] if seat != turn["shooter"]]
        strongest = max(opponents, key=lambda seat: rates[seat])
        correct += turn["target"] == strongest
    s7 = correct / len(turns)
    return {"S7": s7, "score": 100.0 * s7, "correct_turns": correct, "turns": len(turns)}


def gamabench_history(run: dict) -> tuple:
    """(parameters, history) of one released GAMA-Bench log (a raw/battle_royale/*.json file, parsed):
    each turn is (shooter, action), followed by (CHANCE, HIT or MISSED) when the shot was at a living
    opponent; the log's `out` field is the hit. Replaying the history reproduces the logged match."""
    meta = run["meta"]
    players = meta["player_num"]
    parameters = {"players": players, "base_hit_rate": meta["base_hit_rate"], "hit_rate_step": meta["interval"],
                  "max_turns": GAMABENCH_MAX_TURNS}
    alive = set(range(players))
    history = []
    for record in run["round_records"]:
        shooter = int(record["player_shooting"])
        target = record["shot_player"]
        if record["action"] not in ("shoot", "miss"):
            raise ValueError(f"unknown action {record['action']!r} in a Battle Royale log")
        if record["action"] == "miss" or target == "null":
            history.append((shooter, INTENTIONAL_MISS))
        elif target.isdigit() and int(target) in alive and int(target) != shooter:
            history += [(shooter, int(target)), (CHANCE, HIT if record["out"] else MISSED)]
            if record["out"]:
                alive.discard(int(target))
        else:
            history.append((shooter, WASTED_SHOT))
    return parameters, history


cdef class BattleRoyaleState(State):
    cdef int max_turns
    cdef int hit_rates[MAX_PLAYERS]        # percent, increasing with the seat
    cdef bint alive[MAX_PLAYERS]
    cdef int eliminated_in[MAX_PLAYERS]    # the turn (0-based) in which a seat was hit; -1 alive
    cdef int num_alive
    cdef int turns                         # turns completed
    cdef int shooter                       # the seat whose turn it is
    cdef int pending_target                # the target of the shot being resolved; -1 none
    cdef int turn_shooter[MAX_TURNS]
    cdef int turn_action[MAX_TURNS]        # the target seat, C_INTENTIONAL_MISS or C_WASTED_SHOT
    cdef int turn_roll[MAX_TURNS]          # C_HIT, C_MISSED or NO_ROLL

    def __init__(self, game):
        cdef int seat
        super().__init__(game, game.num_players)
        for seat, rate in enumerate(hit_rates_of(game.parameters)):
            self.hit_rates[seat] = rate
            self.alive[seat] = True
            self.eliminated_in[seat] = -1
        self.num_alive = self.num_players
        self.max_turns = game.parameters["max_turns"]
        self.turns = 0
        self.shooter = 0
        self.pending_target = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.num_alive <= 1 or self.turns >= self.max_turns:
            return TERMINAL_PLAYER
        if self.pending_target >= 0:
            return CHANCE_PLAYER
        return self.shooter

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int seat, n = 0
        for seat in range(self.num_players):
            if self.alive[seat] and seat != player:
                out[n] = seat
                n += 1
        out[n] = C_INTENTIONAL_MISS
        out[n + 1] = C_WASTED_SHOT
        return n + 2

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int rate = self.hit_rates[self.shooter]
        cdef int n = 0
        if rate < 100:
            actions[n] = C_MISSED
            probs[n] = (100 - rate) / 100.0
            n += 1
        if rate > 0:
            actions[n] = C_HIT
            probs[n] = rate / 100.0
            n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int target = self.pending_target
        if target >= 0:
            self.turn_roll[self.turns] = action
            if action == C_HIT:
                self.alive[target] = False
                self.eliminated_in[target] = self.turns
                self.num_alive -= 1
            self.pending_target = -1
            self._end_turn()
            return
        self.turn_shooter[self.turns] = self.shooter
        self.turn_action[self.turns] = action
        self.turn_roll[self.turns] = NO_ROLL
        if action < MAX_PLAYERS:
            self.pending_target = action
        else:
            self._end_turn()

    cdef void _end_turn(self) noexcept:
        cdef int step
        self.turns += 1
        for step in range(1, self.num_players + 1):
            if self.alive[(self.shooter + step) % self.num_players]:
                self.shooter = (self.shooter + step) % self.num_players
                return

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        cdef bint over = self.c_current_player() == TERMINAL_PLAYER
        for seat in range(self.num_players):
            out[seat] = 1.0 / self.num_alive if over and self.alive[seat] else 0.0

    cdef State c_clone(self):
        cdef BattleRoyaleState s = BattleRoyaleState.__new__(BattleRoyaleState)
        # Only the turns begun so far hold data (a turn's shot is recorded before its roll).
        cdef int rows = min(self.turns + 1, MAX_TURNS)
        self._copy_base_into(s)
        s.max_turns = self.max_turns
        memcpy(s.hit_rates, self.hit_rates, self.num_players * sizeof(int))
        memcpy(s.alive, self.alive, self.num_players * sizeof(bint))
        memcpy(s.eliminated_in, self.eliminated_in, self.num_players * sizeof(int))
        s.num_alive = self.num_alive
        s.turns = self.turns
        s.shooter = self.shooter
        s.pending_target = self.pending_target
        memcpy(s.turn_shooter, self.turn_shooter, rows * sizeof(int))
        memcpy(s.turn_action, self.turn_action, rows * sizeof(int))
        memcpy(s.turn_roll, self.turn_roll, rows * sizeof(int))
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    # cdef, not def, where they index C arrays with unchecked turn and seat numbers.
    cdef bint _alive_at_start(self, int seat, int turn):
        return self.eliminated_in[seat] < 0 or self.eliminated_in[seat] >= turn

    def _living(self) -> list:
        return [seat for seat in range(self.num_players) if self.alive[seat]]

    cdef str _rate(self, int seat):
        return f"{self.hit_rates[seat]}%"

    cdef dict _turn_record(self, int t):
        """Turn t (0-based) as data: shooter, action kind, target, roll, players left after it."""
        cdef int action = self.turn_action[t]
        cdef int roll = self.turn_roll[t]
        kind = "shoot" if action < MAX_PLAYERS else ("miss" if action == C_INTENTIONAL_MISS else "wasted")
        left = sum(1 for seat in range(self.num_players)
                   if self.eliminated_in[seat] < 0 or self.eliminated_in[seat] > t)
        return {"turn": t + 1, "shooter": self.turn_shooter[t], "action": kind,
                "target": action if kind == "shoot" else None,
                "hit": None if kind != "shoot" else roll == C_HIT, "players_left": left}

    def _turn_text(self, dict record) -> str:
        shooter = _name(record["shooter"])
        if record["action"] == "miss":
            what = f"{shooter} missed on purpose."
        elif record["action"] == "wasted":
            what = f"{shooter} aimed at no living opponent; the shot was wasted."
        elif record["hit"]:
            target = _name(record["target"])
            what = f"{shooter} shot at {target} and hit; {target} is eliminated."
        else:
            what = f"{shooter} shot at {_name(record['target'])} and missed."
        return f"Turn {record['turn']}: {what} {_players(record['players_left'])} left."

    def _finished(self) -> bool:
        return self.c_current_player() == TERMINAL_PLAYER

    def _ending(self) -> str:
        survivors = self._living()
        if len(survivors) == 1:
            return f"{_name(survivors[0])} is the sole survivor after {self.turns} turns and wins"
        names = ", ".join(_name(s) for s in survivors)
        return f"the {self.max_turns}-turn limit was reached with {len(survivors)} survivors ({names}), who share the win"

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if action == C_HIT:
                return "hit"
            if action == C_MISSED:
                return "miss"
            raise ValueError(f"shot outcomes are 0 (miss) and 1 (hit), not {action}")
        if action == C_INTENTIONAL_MISS:
            return "intentional miss"
        if action == C_WASTED_SHOT:
            return "wasted shot"
        if not 0 <= action < self.num_players:
            raise ValueError(f"battle royale actions are seats 0-{self.num_players - 1}, {C_INTENTIONAL_MISS} "
                             f"(intentional miss) and {C_WASTED_SHOT} (wasted shot), not {action}")
        return f"shoot {_name(action)}"

    def parse_action(self, int player, str text) -> int:
        for data in json_objects(text):
            fields = {str(key).lower(): value for key, value in data.items()}
            if "target" in fields or "action" in fields:
                return self._answer(player, fields.get("action"), fields.get("target", MISSING))
        target_field, action_field = _TARGET_FIELD.search(text), _ACTION_FIELD.search(text)
        if target_field is not None or action_field is not None:
            target = MISSING
            if target_field is not None:
                target = next(g for g in target_field.groups() if g is not None)
            return self._answer(player, action_field.group(1) if action_field else None, target)
        bare = text.strip().strip("`'\".").strip().lower()
        if bare in _MISS_TEXTS:
            return C_INTENTIONAL_MISS
        if bare == "wasted shot":
            return C_WASTED_SHOT
        shot = _SHOT_TEXT.fullmatch(bare)
        if shot is not None:
            return self._shot_at(player, int(shot.group(1)))
        raise ActionParseError(f"could not read a target from {text!r}. {self._answer_help()}")

    def _answer(self, int player, action, target) -> int:
        """The action of a JSON(-like) answer with these "action" and "target" values."""
        if isinstance(target, str) and target.strip().lower() == _PLACEHOLDER:
            raise ActionParseError(f"\"playerID_or_null\" is the format's placeholder, not a player. "
                                   f"{self._answer_help()}")
        if isinstance(action, str) and action.strip().lower() == "miss":
            return C_INTENTIONAL_MISS
        if target is MISSING:
            raise ActionParseError(f"the answer names no target. {self._answer_help()}")
        if target is None or (isinstance(target, str) and target.strip().lower() in _NULL_TARGETS) \
                or (isinstance(target, (int, float)) and not isinstance(target, bool) and target == -1):
            return C_INTENTIONAL_MISS
        return self._shot_at(player, self._seat_named(target))

    def _seat_named(self, value):
        """The seat a target value names ("player_3", "3", 3), or None for anything else."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            match = _SEAT_NAME.fullmatch(value.strip())
            if match is not None:
                return int(match.group(1))
        return None

    def _shot_at(self, int player, seat) -> int:
        """A shot at `seat`: itself, an eliminated or unknown player make it a wasted shot (§6 item 4)."""
        if seat is not None and 0 <= seat < self.num_players and seat != player and self.alive[seat]:
            return seat
        return C_WASTED_SHOT

    def _answer_help(self) -> str:
        return ("Answer with JSON naming the player you shoot at, e.g. {\"target\": \"player_3\"}, or "
                "{\"target\": null} to miss on purpose.")

    def default_action(self, int player):
        """GAMA-Bench's fallback (gamabench.md §2.9): the shooter misses on purpose."""
        return C_INTENTIONAL_MISS if self.c_current_player() == player else None

    def text_action_spec(self, int player):
        if self.c_current_player() != player:
            return None
        return {"description": "the player you shoot at, as JSON {\"target\": \"player_3\"}, or "
                               "{\"target\": null} to miss on purpose",
                # room for step-by-step reasoning before the answer
                "max_length": 4000, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("battle royale", player, self.num_players)
        order = ", ".join(f"{_name(s)} ({self._rate(s)}{'' if self.alive[s] else ', eliminated'})"
                          for s in range(self.num_players))
        lines = [
            f"Battle Royale: {self.num_players} players take turns shooting, in order of hit rate from the "
            f"lowest to the highest; only one can survive and win. On your turn you shoot at one other living "
            f"player, who is eliminated if your shot hits (it hits with your hit rate), or you miss on purpose. "
            f"Bullets are unlimited. The game ends when one player is left, or after {self.max_turns} turns, "
            f"when the survivors share the win.",
            f"Players in shooting order: {order}.",
            f"You are {_name(player)}: your hit rate is {self._rate(player)} and you are the "
            f"{_ordinal(player + 1)} to shoot.",
        ]
        lines += [self._turn_text(self._turn_record(t)) for t in range(self.turns)]
        if self._finished():
            outcome = ("you survived" if self.alive[player]
                       else f"you were eliminated in turn {self.eliminated_in[player] + 1}")
            lines.append(f"The game is over: {self._ending()}; {outcome}.")
            return "\n".join(lines)
        header = f"Turn {self.turns + 1} of {self.max_turns}"
        if self.pending_target >= 0:
            lines.append(f"{header}: {_name(self.shooter)} shoots at {_name(self.pending_target)}; the shot is "
                         f"being resolved.")
        elif self.shooter == player:
            living = ", ".join(f"{_name(s)} ({self._rate(s)})" for s in self._living() if s != player)
            lines.append(f"{header}: your turn. You can shoot at {living}, or miss on purpose.")
        else:
            lines.append(f"{header}: {_name(self.shooter)} is to shoot"
                         + ("." if self.alive[player] else "; you are out of the game."))
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("battle royale", player, self.num_players)
        finished = self._finished()
        return {
            "seat": player,
            "name": _name(player),
            "players": self.num_players,
            "hit_rates": [self.hit_rates[s] for s in range(self.num_players)],   # percent; seat order shoots
            "my_hit_rate": self.hit_rates[player],
            "my_position": player + 1,
            "alive": self._living(),
            "players_left": self.num_alive,
            "max_turns": self.max_turns,
            "turns_played": self.turns,
            "turn": None if finished else self.turns + 1,
            "to_shoot": None if finished else self.shooter,
            "pending_target": self.pending_target if self.pending_target >= 0 else None,
            "my_turn": not finished and self.pending_target < 0 and self.shooter == player,
            "past_turns": [self._turn_record(t) for t in range(self.turns)],
            "finished": finished,
            "survivors": self._living() if finished else None,
            "history": [[seat, action] for seat, action in self._history],
        }

    def public_history(self) -> list:
        """Every move, hit rolls included (seat -1): Battle Royale has no hidden information."""
        return [(seat, action, self.action_to_string(seat, action)) for seat, action in self._history]

    def result_summary(self) -> str:
        if not self._finished():
            return "game in progress"
        return f"{self._ending()}; GAMA-Bench score {self.gamabench_score()['score']:.2f}"

    def result_details(self) -> dict:
        turns = []
        for t in range(self.turns):
            record = self._turn_record(t)
            record["alive_before"] = [s for s in range(self.num_players) if self._alive_at_start(s, t)]
            turns.append(record)
        survivors = self._living()
        finished = self._finished()
        details = {
            "hit_rates": [self.hit_rates[s] for s in range(self.num_players)],
            "turns": turns,
            "eliminated_in_turn": [self.eliminated_in[s] + 1 if self.eliminated_in[s] >= 0 else None
                                   for s in range(self.num_players)],
            "survivors": survivors,
            "winner": survivors[0] if finished and len(survivors) == 1 else None,
            "turn_limit_reached": finished and len(survivors) > 1,
            "returns": self.returns(),
        }
        if turns:
            details["gamabench"] = gamabench_score(self.game.parameters, details)
        return details

    def gamabench_score(self) -> dict:
        """`gamabench_score` over the turns played so far (all of them once the game is over)."""
        return gamabench_score(self.game.parameters, self.result_details())


class Game(GameBase):
    """Battle Royale with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        base = checked_int(values, "base_hit_rate", 0, 100)
        step = checked_int(values, "hit_rate_step", 1, 100)
        checked_int(values, "max_turns", 1, MAX_TURNS)
        if base + step * (num_players - 1) > 100:
            raise ValueError(f"with {num_players} players, base_hit_rate {base} and hit_rate_step {step} the "
                             f"last player's hit rate would be {base + step * (num_players - 1)}%, above 100%")

    def new_initial_state(self) -> BattleRoyaleState:
        return BattleRoyaleState(self)

    def utility_bounds(self) -> tuple:
        """(min, max) return: eliminated 0, sole survivor 1."""
        return 0.0, 1.0

    def state_from_view(self, int player, dict view) -> BattleRoyaleState:
        """The state seat `player` observes: a replay of the move history, hit rolls included."""
        return self.replay(view["history"])
