"""Kuhn poker, as played in GTBench (OpenSpiel's `kuhn_poker`).

Rules. A deck of three cards, J < Q < K. Both players ante ("ante", 1 chip) and get one card each;
the third card stays face down, unseen. Seat 0 acts first; each decision is Pass or Bet, where Bet
puts "bet" (1) more chips in the pot: a bet, or a call after the opponent's bet; and Pass puts
nothing in: a check, or a fold after the opponent's bet. The hand ends
  - after pass-pass: showdown, the higher card wins the antes (returns +-ante);
  - after a bet that is called (bet-bet, pass-bet-bet): showdown for +-(ante + bet);
  - after a bet that is folded (bet-pass, pass-bet-pass): the bettor wins the antes (+-ante).
With OpenSpiel's ante 1 and bet 1 the returns are +-1 or +-2 (zero-sum).

Chance. The deal is two chance nodes, as in OpenSpiel: first seat 0's card, then seat 1's, each
uniform over the cards still in the deck. Chance outcome id = card (0 J, 1 Q, 2 K).

Actions. 0 = Pass, 1 = Bet, as in OpenSpiel; both are legal at every decision. The canonical action
text is GTBench's answer format, "<Pass>" or "<Bet>".

Parsing (`parse_action`) tries, in order:
  1. GTBench's tags "<Pass>" / "<Bet>" (case-insensitive): the LAST one, as GTBench's parser takes the
     last match in a reply;
  2. a bare answer naming one action: "pass", "bet", or the poker words "check" / "fold" (Pass) and
     "call" (Bet). Text naming both actions is ambiguous and refused with ActionParseError.

Information. A seat sees its own card and every betting action; the deal of the other card is public
only as the fact that a card was dealt. After a showdown both cards are shown (public); a folded card
stays hidden, though `result_details` reveals everything once the hand is over.

Preset "gtbench": OpenSpiel's ante 1 and bet 1; answers "<Pass>" / "<Bet>".

Ambiguities (gtbench.md section 6).
  - Ante and bet sizes are not in the paper: OpenSpiel's 1 and 1 (item 9).
  - GTBench's released code attributes past moves to the wrong player in its history text (item 22);
    this engine renders who did what correctly.
  - GTBench accepts only the exact tags; the bare words of step 2 are an arena leniency that never
    changes the meaning of a tagged answer.
  - The showdown reveal is an arena choice (OpenSpiel's observations never show the opponent's card);
    it happens only once the hand is over, so no decision depends on it.
"""

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    PASS = 0
    BET = 1
    NUM_CARDS = 3
    MAX_BETTING = 3     # pass, bet, pass/bet is the longest betting sequence

MAX_CHIPS = 100         # upper bound of the ante and bet parameters

SPEC = GameSpec(
    game_id="kuhn_poker",
    display_name="Kuhn Poker",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="zero_sum",
    min_utility=-2.0 * MAX_CHIPS,
    max_utility=2.0 * MAX_CHIPS,
    max_game_length=2 + MAX_BETTING,
    description="Three cards J < Q < K, one each, ante 1; players pass or bet 1; after pass-pass or a "
                "called bet the higher card wins, after a folded bet the bettor wins.",
    parameters=(
        Parameter("ante", 1, f"chips each player puts in before the deal, 1-{MAX_CHIPS}"),
        Parameter("bet", 1, f"chips added by a bet or a call, 1-{MAX_CHIPS}"),
    ),
    presets=(
        Preset("gtbench", "GTBench (Duan et al., 2024), OpenSpiel kuhn_poker: ante 1, bet 1; answer "
               "'<Pass>' or '<Bet>'.", {"ante": 1, "bet": 1}),
    ),
)

CARD_NAMES = ("J", "Q", "K")
ACTION_NAMES = ("Pass", "Bet")

_TAG = re.compile(r"<\s*(pass|bet)\s*>", re.IGNORECASE)
_WORD = re.compile(r"\b(pass|check|fold|bet|call)\b", re.IGNORECASE)
_WORD_ACTION = {"pass": PASS, "check": PASS, "fold": PASS, "bet": BET, "call": BET}


cdef class KuhnPokerState(State):
    cdef int ante, bet_size
    cdef int cards[2]              # each seat's card, -1 until dealt
    cdef int dealt                 # cards dealt so far
    cdef int betting[MAX_BETTING]  # betting actions in order; seat 0 acts at even indices
    cdef int num_betting
    cdef int bet_in[2]             # whether each seat put the bet in (bet or call)
    cdef int first_bettor          # -1 while nobody has bet
    cdef int winner                # -1 while the hand is on
    cdef bint showdown             # the hand ended with both cards compared

    def __init__(self, game):
        super().__init__(game, 2)
        self.ante = game.parameters["ante"]
        self.bet_size = game.parameters["bet"]
        self.cards[0] = -1
        self.cards[1] = -1
        self.first_bettor = -1
        self.winner = -1

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.winner >= 0:
            return TERMINAL_PLAYER
        if self.dealt < 2:
            return CHANCE_PLAYER
        return self.num_betting % 2

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        if self.c_current_player() != player:
            return 0
        out[0] = PASS
        out[1] = BET
        return 2

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int card, n = 0
        for card in range(NUM_CARDS):
            if card != self.cards[0] and card != self.cards[1]:
                actions[n] = card
                n += 1
        for card in range(n):
            probs[card] = 1.0 / n
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat
        if self.dealt < 2:
            self.cards[self.dealt] = action
            self.dealt += 1
            return
        seat = self.num_betting % 2
        self.betting[self.num_betting] = action
        self.num_betting += 1
        if action == BET:
            self.bet_in[seat] = 1
            if self.first_bettor < 0:
                self.first_bettor = seat
        if self.first_bettor < 0:
            if self.num_betting == 2:               # pass-pass
                self._end(True)
        elif self.num_betting == 2 + self.first_bettor:
            # The player after the bettor has answered: a call goes to showdown, a pass folds.
            self._end(action == BET)

    cdef void _end(self, bint showdown) noexcept:
        self.showdown = showdown
        if showdown:
            self.winner = 0 if self.cards[0] > self.cards[1] else 1
        else:
            self.winner = self.first_bettor

    cdef int _contribution(self, int seat) noexcept:
        return self.ante + self.bet_size * self.bet_in[seat]

    cdef void c_returns(self, double* out) noexcept:
        out[0] = 0.0
        out[1] = 0.0
        if self.winner >= 0:
            # The winner takes the loser's chips; its own come back.
            out[self.winner] = self._contribution(1 - self.winner)
            out[1 - self.winner] = -self._contribution(1 - self.winner)

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int other = 1 - player
        cdef int card
        if self.cards[other] < 0 or (self.winner >= 0 and self.showdown):
            return                                  # nothing dealt to hide, or shown at showdown
        if self.cards[player] < 0:
            self.cards[other] = rng_below(rng, NUM_CARDS)
        else:
            # One of the two cards that are not the player's own.
            card = rng_below(rng, NUM_CARDS - 1)
            self.cards[other] = card if card < self.cards[player] else card + 1

    cdef State c_clone(self):
        cdef KuhnPokerState s = KuhnPokerState.__new__(KuhnPokerState)
        self._copy_base_into(s)
        s.ante = self.ante
        s.bet_size = self.bet_size
        s.cards = self.cards
        s.dealt = self.dealt
        s.betting = self.betting
        s.num_betting = self.num_betting
        s.bet_in = self.bet_in
        s.first_bettor = self.first_bettor
        s.winner = self.winner
        s.showdown = self.showdown
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _card_name(self, int seat):
        return CARD_NAMES[self.cards[seat]] if self.cards[seat] >= 0 else None

    def _cards_shown(self) -> bool:
        return self.winner >= 0 and self.showdown

    def _pot(self) -> int:
        return self._contribution(0) + self._contribution(1)

    def _who(self, int seat, int player) -> str:
        return "you" if seat == player else "your opponent"

    def _chips(self, int n) -> str:
        return f"{n} chip" if n == 1 else f"{n} chips"

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            return f"deal {CARD_NAMES[action]}"
        if action != PASS and action != BET:
            raise ValueError(f"kuhn poker actions are 0 (Pass) and 1 (Bet), not {action}")
        return f"<{ACTION_NAMES[action]}>"

    def parse_action(self, int player, str text) -> int:
        tag = last_match(_TAG, text)
        if tag is not None:
            return PASS if tag.group(1).lower() == "pass" else BET
        named = {_WORD_ACTION[word.lower()] for word in _WORD.findall(text)}
        if len(named) == 1:
            return named.pop()
        problem = "names both actions" if named else "names no action"
        raise ActionParseError(f"{text!r} {problem}. Answer with exactly one of <Pass> or <Bet>.")

    def _options(self) -> str:
        if self.first_bettor >= 0:
            return (f"<Bet> to call (put in {self._chips(self.bet_size)} more) or <Pass> to fold "
                    f"(give up the pot)")
        return f"<Bet> to bet {self._chips(self.bet_size)} or <Pass> to check"

    def observation_string(self, int player) -> str:
        check_seat("kuhn poker", player)
        lines = [
            f"Kuhn poker. Three cards, J < Q < K; each player antes {self._chips(self.ante)} and gets one "
            f"card, the third stays face down. Seat 0 acts first. <Bet> adds {self._chips(self.bet_size)} "
            f"to the pot (a bet, or a call after a bet); <Pass> adds nothing (a check, or a fold after a "
            f"bet). After pass-pass or a called bet the higher card wins the pot; after a bet and a fold "
            f"the bettor wins.",
            f"You are seat {player} ({'first' if player == 0 else 'second'} to act).",
        ]
        own = self._card_name(player)
        lines.append(f"Your card: {own}." if own else "Your card has not been dealt yet.")
        if self.num_betting:
            moves = [f"{i + 1}. {self._who(i % 2, player)} {self.action_to_string(i % 2, self.betting[i])}"
                     for i in range(self.num_betting)]
            lines.append("Betting so far: " + "; ".join(moves) + ".")
        lines.append(f"Pot: {self._chips(self._pot())} (you {self._contribution(player)}, your opponent "
                     f"{self._contribution(1 - player)}).")
        to_play = self.c_current_player()
        if self.winner >= 0:
            if self.showdown:
                lines.append(f"Showdown: your opponent's card is {self._card_name(1 - player)}.")
            outcome = "won" if self.winner == player else "lost"
            lines.append(f"The hand is over: you {outcome} {self._chips(self._contribution(1 - self.winner))}.")
        elif to_play == CHANCE_PLAYER:
            lines.append("The cards are being dealt.")
        elif to_play == player:
            lines.append(f"Your move: {self._options()}.")
        else:
            lines.append("Waiting for your opponent.")
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("kuhn poker", player)
        to_play = self.c_current_player()
        shown = self._cards_shown()
        return {
            "seat": player,
            "card": self._card_name(player),
            "cards_dealt": self.dealt,
            "betting": [{"seat": i % 2, "action": self.betting[i],
                         "text": self.action_to_string(i % 2, self.betting[i])}
                        for i in range(self.num_betting)],
            "contributions": [self._contribution(0), self._contribution(1)],
            "pot": self._pot(),
            "to_play": to_play if to_play >= 0 else None,
            "legal_actions": self.legal_actions(player),
            "opponent_card": self._card_name(1 - player) if shown else None,
            "finished": self.winner >= 0,
            "returns": self.returns(),
        }

    def public_history(self) -> list:
        """Deals as summaries (the card stays private), every betting action, the showdown."""
        out = [(-1, -1, f"a card is dealt to seat {seat}") for seat in range(self.dealt)]
        out += [(i % 2, self.betting[i], self.action_to_string(i % 2, self.betting[i]))
                for i in range(self.num_betting)]
        if self._cards_shown():
            out.append((-1, -1, f"showdown: seat 0 shows {self._card_name(0)}, "
                                f"seat 1 shows {self._card_name(1)}"))
        return out

    def result_summary(self) -> str:
        if self.winner < 0:
            return "game in progress"
        won = self._chips(self._contribution(1 - self.winner))
        if self.showdown:
            return (f"seat {self.winner} wins {won} at showdown ({self._card_name(self.winner)} beats "
                    f"{self._card_name(1 - self.winner)})")
        return f"seat {self.winner} wins {won}: seat {1 - self.winner} folded"

    def result_details(self) -> dict:
        return {
            "cards": [self._card_name(0), self._card_name(1)],
            "betting": [ACTION_NAMES[self.betting[i]] for i in range(self.num_betting)],
            "winner": self.winner if self.winner >= 0 else None,
            "showdown": bool(self.winner >= 0 and self.showdown),
            "pot": self._pot(),
        }


class Game(GameBase):
    """Two-player Kuhn poker with validated ante and bet sizes."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        checked_int(self.parameters, "ante", 1, MAX_CHIPS)
        checked_int(self.parameters, "bet", 1, MAX_CHIPS)

    def utility_bounds(self) -> tuple:
        """(min, max) return under these stakes: a called bet moves ante + bet chips."""
        stake = float(self.parameters["ante"] + self.parameters["bet"])
        return -stake, stake

    def new_initial_state(self) -> KuhnPokerState:
        return KuhnPokerState(self)

    def state_from_view(self, int player, dict view) -> KuhnPokerState:
        """A state consistent with `view` (seat `player`'s observation_dict). A hidden opponent card
        is filled with the lowest card that is not the player's own."""
        check_seat("kuhn poker", player)
        state = self.new_initial_state()
        own = CARD_NAMES.index(view["card"]) if view["card"] else -1
        shown = CARD_NAMES.index(view["opponent_card"]) if view["opponent_card"] else -1
        for seat in range(view["cards_dealt"]):
            if seat == player:
                state.apply_action(own)
            elif shown >= 0:
                state.apply_action(shown)
            else:
                state.apply_action(next(c for c in range(NUM_CARDS) if c != own))
        for move in view["betting"]:
            state.apply_action(move["action"])
        return state
