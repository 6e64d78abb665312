"""Liar's dice, as played in GTBench (OpenSpiel's `liars_dice` with its defaults).

Rules. Two players each roll "dice_per_player" dice (1) with "faces" faces (6) and see only their
own. Seat 0 bids first, then the players alternate. A bid (quantity q, face f) claims that at least q
of ALL the dice show f; each bid must be higher than the previous one: a larger quantity (any face),
or the same quantity with a higher face. Instead of bidding, a player may call "Liar" on the previous
bid (not before the first bid). Then every die is revealed: the dice showing f, plus the dice showing
the highest face, which is wild as in OpenSpiel, are counted. If the count is at least q the bidder
wins, otherwise the caller wins: +1 to the winner, -1 to the loser. A bid on the highest face itself
counts only those dice. After the highest possible bid only "Liar" is legal.

Chance. Every die roll is a chance node, as in OpenSpiel: seat 0's dice first, then seat 1's, each
uniform over the faces; chance outcome id = face - 1. A seat's dice are kept sorted (OpenSpiel sorts
each hand after the roll).

Actions. As OpenSpiel: bid (q, f) = (q - 1) * faces + (f - 1), for q = 1..total dice, f = 1..faces;
"Liar" = total dice * faces (12 with the defaults). The canonical action text is GTBench's answer
format: "<1 dice, 3 value>", "<2 dices, 6 value>" (GTBench writes "dice" for one die, "dices" for
more) and "<Liar>".

Parsing (`parse_action`) tries, in order:
  1. GTBench's tags "<q dice(s), f value>" and "<Liar>" (case-insensitive, "dice"/"dices" and
     "value"/"values" both read): the LAST tag, as GTBench's parser takes the last match in a reply;
  2. the same forms without angle brackets ("2 dices, 6 value", "Liar"): the last one;
  3. OpenSpiel's action text "q-f" as the whole answer.
A quantity or face out of range is refused with ActionParseError; a well-formed bid that is not
higher than the current one (or "Liar" before any bid) is returned as parsed, so that the referee can
tell an unparseable answer from an illegal move.

Information. A seat sees its own dice, the number of dice rolled so far and every bid. When "Liar" is
called all dice are revealed to everyone.

Preset "gtbench": OpenSpiel's defaults, 2 players with 1 six-sided die each, 6 wild.

Ambiguities (gtbench.md section 6, item 10).
  - Neither the paper nor GTBench's code mentions wild dice; OpenSpiel, which GTBench runs, counts the
    highest face as wild, and so does this engine.
  - After the maximal bid only "Liar" is legal (OpenSpiel).
  - GTBench shows only the opponent's last bid; this engine shows the whole (public) bid sequence.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_DICE_PER_PLAYER = 5
    MAX_FACES = 20
    MAX_BIDS = 2 * MAX_DICE_PER_PLAYER * MAX_FACES + 1    # every bid once, then "Liar"

SPEC = GameSpec(
    game_id="liars_dice",
    display_name="Liar's Dice",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="zero_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=2 * MAX_DICE_PER_PLAYER + MAX_BIDS,
    description="Each player rolls hidden dice; players alternately raise a bid on how many of all the "
                "dice show a face (the highest face is wild) or call Liar, which settles the bid (+1/-1).",
    parameters=(
        Parameter("dice_per_player", 1, f"dice each player rolls, 1-{MAX_DICE_PER_PLAYER}"),
        Parameter("faces", 6, f"faces per die, 2-{MAX_FACES}; the highest face is wild"),
    ),
    presets=(
        Preset("gtbench", "GTBench (Duan et al., 2024), OpenSpiel liars_dice defaults: 2 players, 1 die "
               "each, 6 faces, 6 wild; answer '<2 dices, 6 value>' or '<Liar>'.",
               {"dice_per_player": 1, "faces": 6}),
    ),
)

_BID = r"(\d+)\s*dices?\s*,\s*(\d+)\s*values?"
_TAG = re.compile(r"<\s*(?:" + _BID + r"|(liar))\s*>", re.IGNORECASE)
_BARE = re.compile(r"\b" + _BID + r"\b|\b(liar)\b", re.IGNORECASE)
_OPENSPIEL = re.compile(r"(\d+)\s*-\s*(\d+)")


cdef class LiarsDiceState(State):
    cdef int dice_per_player, faces, total_dice, liar
    cdef int dice[2][MAX_DICE_PER_PLAYER]   # each seat's rolled dice (faces 1..faces), sorted
    cdef int rolled                         # dice rolled so far, seat 0's first
    cdef int moves[MAX_BIDS]                # bids in order, then "Liar"; seat 0 moves at even indices
    cdef int num_moves
    cdef int current_bid                    # -1 before the first bid
    cdef int winner, loser                  # -1 until "Liar" is called

    def __init__(self, game):
        super().__init__(game, 2)
        self.dice_per_player = game.parameters["dice_per_player"]
        self.faces = game.parameters["faces"]
        self.total_dice = 2 * self.dice_per_player
        self.liar = self.total_dice * self.faces
        self.current_bid = -1
        self.winner = -1
        self.loser = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0:
            return TERMINAL_PLAYER
        if self.rolled < self.total_dice:
            return CHANCE_PLAYER
        return self.num_moves % 2

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int bid, n = 0
        if self.c_current_player() != player:
            return 0
        for bid in range(self.current_bid + 1, self.liar):
            out[n] = bid
            n += 1
        if self.num_moves > 0:
            out[n] = self.liar
            n += 1
        return n

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int i
        for i in range(self.faces):
            actions[i] = i
            probs[i] = 1.0 / self.faces
        return self.faces

    cdef void _place_die(self, int seat, int count, int face) noexcept:
        """Inserts `face` into the sorted first `count` dice of `seat`."""
        cdef int i = count
        while i > 0 and self.dice[seat][i - 1] > face:
            self.dice[seat][i] = self.dice[seat][i - 1]
            i -= 1
        self.dice[seat][i] = face

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat
        if self.rolled < self.total_dice:
            seat = self.rolled // self.dice_per_player
            self._place_die(seat, self.rolled % self.dice_per_player, action + 1)
            self.rolled += 1
            return
        seat = self.num_moves % 2
        self.moves[self.num_moves] = action
        self.num_moves += 1
        if action == self.liar:
            # The previous move was the bid being challenged, made by the other seat.
            if self.matches(self.current_bid) >= self.current_bid // self.faces + 1:
                self.winner, self.loser = 1 - seat, seat
            else:
                self.winner, self.loser = seat, 1 - seat
        else:
            self.current_bid = action

    cdef int matches(self, int bid) noexcept:
        """How many of all the dice count for `bid`: its face, or the wild highest face."""
        cdef int face = bid % self.faces + 1
        cdef int seat, i, n = 0
        for seat in range(2):
            for i in range(self.dice_per_player):
                if self.dice[seat][i] == face or self.dice[seat][i] == self.faces:
                    n += 1
        return n

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            out[self.winner] = 1.0
            out[self.loser] = -1.0

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int other = 1 - player
        cdef int i, count
        if self.winner >= 0:
            return                                  # every die was revealed by the challenge
        count = self.rolled - other * self.dice_per_player
        if count > self.dice_per_player:
            count = self.dice_per_player
        for i in range(count):
            self._place_die(other, i, rng_below(rng, self.faces) + 1)

    cdef State c_clone(self):
        cdef LiarsDiceState s = LiarsDiceState.__new__(LiarsDiceState)
        self._copy_base_into(s)
        s.dice_per_player = self.dice_per_player
        s.faces = self.faces
        s.total_dice = self.total_dice
        s.liar = self.liar
        s.dice = self.dice
        s.rolled = self.rolled
        memcpy(s.moves, self.moves, self.num_moves * sizeof(int))
        s.num_moves = self.num_moves
        s.current_bid = self.current_bid
        s.winner = self.winner
        s.loser = self.loser
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def bid_of(self, int action) -> tuple:
        """(quantity, face) of a bid action id."""
        if not 0 <= action < self.liar:
            raise ValueError(f"{action} is not a bid (bids are 0-{self.liar - 1})")
        return action // self.faces + 1, action % self.faces + 1

    def _rolled_by(self, int seat) -> int:
        return max(0, min(self.dice_per_player, self.rolled - seat * self.dice_per_player))

    def _dice_of(self, int seat) -> list:
        return [self.dice[seat][i] for i in range(self._rolled_by(seat))]

    def _dice_text(self, int seat) -> str:
        return ", ".join(map(str, self._dice_of(seat)))

    def _who(self, int seat, int player) -> str:
        return "you" if seat == player else "your opponent"

    def _challenge_report(self, int player) -> str:
        quantity, face = self.bid_of(self.current_bid)
        caller = (self.num_moves - 1) % 2
        wild = "" if face == self.faces else f" (counting wild {self.faces}s)"
        holds = self.matches(self.current_bid) >= quantity
        return (f"{self._who(caller, player).capitalize()} called Liar on "
                f"{self.action_to_string(1 - caller, self.current_bid)}. Your dice: "
                f"{self._dice_text(player)}; your opponent's dice: {self._dice_text(1 - player)}. "
                f"{self.matches(self.current_bid)} of the dice show {face}{wild}, so the bid "
                f"{'holds' if holds else 'fails'}: you {'won' if self.winner == player else 'lost'}.")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            return f"roll {action + 1}"
        if action == self.liar:
            return "<Liar>"
        quantity, face = self.bid_of(action)
        return f"<{quantity} {'dice' if quantity == 1 else 'dices'}, {face} value>"

    def parse_action(self, int player, str text) -> int:
        match = last_match(_TAG, text) or last_match(_BARE, text)
        if match is not None:
            if match.group(3):
                return self.liar
            quantity, face = int(match.group(1)), int(match.group(2))
        else:
            match = _OPENSPIEL.fullmatch(text.strip())
            if match is None:
                raise ActionParseError(f"could not read a bid or Liar from {text!r}. {self._answer_help()}")
            quantity, face = int(match.group(1)), int(match.group(2))
        if not (1 <= quantity <= self.total_dice and 1 <= face <= self.faces):
            raise ActionParseError(
                f"{quantity} dice of value {face} is not a bid: quantities are 1-{self.total_dice} and "
                f"faces 1-{self.faces}. {self._answer_help()}")
        return (quantity - 1) * self.faces + (face - 1)

    def _answer_help(self) -> str:
        return (f"Answer with a bid '<x dices, y value>' (at least x of all {self.total_dice} dice show "
                f"face y), e.g. '<1 dice, 3 value>' or '<2 dices, {self.faces} value>', or with '<Liar>' "
                f"to challenge the last bid.")

    def observation_string(self, int player) -> str:
        check_seat("liar's dice", player)
        lines = [
            f"Liar's dice. Each of the 2 players rolls {self.dice_per_player} "
            f"{'die' if self.dice_per_player == 1 else 'dice'} with faces 1-{self.faces} and sees only "
            f"their own; there are {self.total_dice} dice in total. A bid '<x dices, y value>' claims that "
            f"at least x of all the dice show face y; face {self.faces} is wild and counts as every face. "
            f"Each bid must raise the quantity, or keep it and raise the face. Instead of bidding you may "
            f"call '<Liar>' on the last bid: if it holds, its bidder wins, otherwise the caller wins.",
            f"You are seat {player} ({'first' if player == 0 else 'second'} to bid).",
        ]
        mine = self._dice_of(player)
        if len(mine) == self.dice_per_player:
            lines.append(f"Your {'die' if self.dice_per_player == 1 else 'dice'}: {self._dice_text(player)}.")
        else:
            lines.append("Your dice have not all been rolled yet.")
        if self.num_moves:
            lines.append("Bids so far: " + "; ".join(
                f"{self._who(i % 2, player)} {self.action_to_string(i % 2, self.moves[i])}"
                for i in range(self.num_moves)) + ".")
        to_play = self.c_current_player()
        if self.winner >= 0:
            lines.append(self._challenge_report(player))
        elif to_play == CHANCE_PLAYER:
            lines.append("The dice are being rolled.")
        elif to_play == player:
            if self.current_bid < 0:
                lines.append("Your move: make the first bid.")
            elif self.current_bid == self.liar - 1:
                lines.append("Your move: the last bid is the highest possible, so you can only call <Liar>.")
            else:
                lines.append("Your move: bid higher than the last bid, or call <Liar>.")
        else:
            lines.append("Waiting for your opponent.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("liar's dice", player)
        to_play = self.c_current_player()
        bids = []
        for i in range(self.num_moves):
            entry = {"seat": i % 2, "action": self.moves[i], "text": self.action_to_string(i % 2, self.moves[i])}
            if self.moves[i] != self.liar:
                entry["quantity"], entry["face"] = self.bid_of(self.moves[i])
            bids.append(entry)
        finished = self.winner >= 0
        return {
            "seat": player,
            "dice_per_player": self.dice_per_player,
            "faces": self.faces,
            "wild_face": self.faces,
            "my_dice": self._dice_of(player),
            "dice_rolled": self.rolled,
            "bids": bids,
            "to_play": to_play if to_play >= 0 else None,
            "legal_actions": self.legal_actions(player),
            "finished": finished,
            "all_dice": [self._dice_of(0), self._dice_of(1)] if finished else None,
            "winner": self.winner if finished else None,
        }

    def public_history(self) -> list:
        """Rolls as summaries (the faces stay private), every bid, the revealed dice after Liar."""
        out = [(-1, -1, f"seat {i // self.dice_per_player} rolls a die") for i in range(self.rolled)]
        out += [(i % 2, self.moves[i], self.action_to_string(i % 2, self.moves[i]))
                for i in range(self.num_moves)]
        if self.winner >= 0:
            out.append((-1, -1, f"dice revealed: seat 0 has {self._dice_text(0)}, seat 1 has {self._dice_text(1)}"))
        return out

    def result_summary(self) -> str:
        if self.winner < 0:
            return "game in progress"
        quantity, face = self.bid_of(self.current_bid)
        caller = (self.num_moves - 1) % 2
        return (f"seat {self.winner} wins: seat {caller} called Liar on seat {1 - caller}'s bid of {quantity} x "
                f"{face}, and {self.matches(self.current_bid)} of the dice count for it")

    def result_details(self) -> dict:
        finished = self.winner >= 0
        quantity, face = self.bid_of(self.current_bid) if self.current_bid >= 0 else (None, None)
        return {
            "dice": [self._dice_of(0), self._dice_of(1)],
            "bids": [self.action_to_string(i % 2, self.moves[i]) for i in range(self.num_moves)],
            "challenged_bid": {"quantity": quantity, "face": face} if finished else None,
            "matching_dice": self.matches(self.current_bid) if finished else None,
            "winner": self.winner if finished else None,
        }


class Game(GameBase):
    """Two-player Liar's dice with validated dice count and faces."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "dice_per_player", 1, MAX_DICE_PER_PLAYER)
        checked_int(self.parameters, "faces", 2, MAX_FACES)

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def state_from_view(self, int player, dict view) -> LiarsDiceState:
        """A state consistent with `view` (seat `player`'s observation_dict). Hidden opponent dice
        are filled with 1s."""
        check_seat("liar's dice", player)
        state = self.new_initial_state()
        per_seat = self.parameters["dice_per_player"]
        dice = view["all_dice"]
        if dice is None:
            dice = [[1] * per_seat, [1] * per_seat]
            dice[player] = view["my_dice"]
        for i in range(view["dice_rolled"]):
            state.apply_action(dice[i // per_seat][i % per_seat] - 1)
        for bid in view["bids"]:
            state.apply_action(bid["action"])
        return state
