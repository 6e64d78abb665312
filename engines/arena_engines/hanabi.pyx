"""Hanabi for two players, as played in LLMArena (its "small structure" through PettingZoo's
hanabi_v5, which wraps DeepMind's hanabi-learning-environment, HLE). The rules and every edge case
follow HLE, the engine LLMArena ran.

Rules. A deck of "colours" colours (Red, Yellow, Green, White, Blue, in HLE's order) with ranks
1..ranks; per colour three 1s, two of each middle rank and one of the top rank (HLE's distribution:
10 cards per colour with 5 ranks). Each of the 2 players holds "hand_size" cards that it cannot see;
it sees its partner's. The team builds one firework per colour, in rank order from 1. Seat 0 moves
first (HLE's default start player), then the seats alternate. A move is one of:
  - play a card: if its rank is the next one of its colour's firework it is added there (a completed
    firework gives back an information token, if fewer than the maximum are left); otherwise it goes
    to the discard pile and the team loses a life token;
  - discard a card: it goes to the discard pile and an information token comes back. Not allowed
    while all "max_information_tokens" tokens are available (HLE);
  - reveal a colour or a rank to the partner, for one information token: every card of the
    partner's hand with that colour (rank) is pointed out, and the partner learns that its other
    cards do not have it. A reveal must point out at least one card (HLE).
After a play or discard the player draws a new card if the deck is not empty; the new card goes
to the last position and the cards after the removed one move down a position (HLE). The game ends
when the last life token is lost, when every firework is complete, or when the deck has run out and
each player has had one more turn (HLE: after the last card is drawn, 2 more moves).

Score ("scoring"): "height" (default) adds up the firework heights, i.e. the largest card of each
firework, HLE's score; "sum" adds up the values of every card in the fireworks (a firework of
height h counts 1 + ... + h). With "zero_when_lives_lost" (default true, HLE's Score()) a game that
ends by losing the last life token scores 0. Both seats get the score (cooperative, identical
returns).

Chance. Every card drawn, the initial deal included, is one chance node, as in HLE: seat 0's cards
first, then seat 1's, then one card after each play or discard while the deck lasts. Outcome id =
colour * ranks + (rank - 1), with probability proportional to the copies left in the deck.

Actions, HLE's move ids for two players and LLMArena's labels (11 with the small structure):
  0..H-1          "Discard Card at position i"
  H..2H-1         "Play Card at position i"
  2H..2H+C-1      "Reveal <Colour> Cards for another player"
  2H+C..2H+C+R-1  "Reveal Rank r Cards for another player"
(H hand size, C colours, R ranks; positions count from 0, ranks from 1.)

Parsing (`parse_action`): LLMArena's answer "Action: <label>" (the first one, as the code's
re.search; case and surrounding brackets or quotes tolerated), else a reply that is exactly one
label. Any of the labels is returned even when not legal now, so the referee can tell an illegal
move from an unreadable answer; anything else raises ActionParseError.

Information. A seat sees its partner's cards, never its own; for each card of either hand it sees
what the reveals told (HLE's card knowledge: the revealed colour and rank, if any, and the colours
and ranks the card can still be after the negative information of other reveals). It sees the
fireworks, the tokens, the deck size, the discard pile and every move with its public effect: the
card played or discarded, and the positions a reveal pointed out. Deals are public only as "a card
is dealt to seat s". At the end each seat is also shown its own last cards.

Preset "llmarena_small" (llmarena.md section 2.7, [C/L]): colours 2 (Red, Yellow), ranks 5, hand size
2, 3 information tokens, 1 life token; answers "Action: Reveal Yellow Cards for another player". These
are also the parameter defaults.

Ambiguities (llmarena.md section 6 and the section 2.7 card).
  - Scoring, item 9: the largest card per firework (firework height), with "sum" (the paper body's
    "sum of card values") as the "scoring" option.
  - Life tokens, item 10: 1 life token (configuration and code), so the first misplay ends the game.
  - What a game lost on its last life scores is not in the reference: HLE's score (and hence the
    rewards LLMArena summed) is 0 then, which this engine follows by default; "zero_when_lives_lost"
    false keeps the fireworks instead.
  - Reward scale, item 11: the return is the final game score of the team; `result_details` also
    gives the number of moves and the mean reward per move, so either aggregation can be compared.
  - Deck distribution (card, "verify against the library"): verified against HLE 0.0.4
    (HanabiGame::NumberCardInstances: three of the lowest rank, one of the highest, two otherwise).
  - Discarding with every information token available is illegal, and a reveal must point out at
    least one card: HLE's legality, which drove LLMArena's action mask; the paper's rules are silent.
  - Illegal-answer policy (card: 1 retry, then a random legal action): a referee setting; the game
    has no default action.
"""

import re
from functools import lru_cache

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int

cdef enum:
    NUM_SEATS = 2
    MAX_COLOURS = 5
    MAX_RANKS = 5
    MAX_CARD_TYPES = 25             # MAX_COLOURS * MAX_RANKS
    MAX_HAND = 5
    MAX_DECK = 50                   # 10 cards per colour
    MAX_INFORMATION = 8
    MAX_LIFE = 3
    # Each play or discard uses up a card; each reveal spends a token, and tokens only come back by
    # discards and completed fireworks. So player moves <= 50 + (8 + 50 + 5).
    MAX_PLAYER_MOVES = 113
    # Why the game ended
    END_NONE = 0
    END_LIVES = 1
    END_FIREWORKS = 2
    END_DECK = 3

# Random play with the preset's single life token ends within a few moves, so playthroughs are short as
# they are.
PLAYTHROUGH_OVERRIDES = {None: {}}

COLOUR_NAMES = ("Red", "Yellow", "Green", "White", "Blue")
SCORINGS = ("height", "sum")

SPEC = GameSpec(
    game_id="hanabi",
    display_name="Hanabi",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="identical",
    min_utility=0.0,
    max_utility=float(MAX_COLOURS * MAX_RANKS * (MAX_RANKS + 1) // 2),
    max_game_length=MAX_DECK + MAX_PLAYER_MOVES,
    description="Cooperative Hanabi for two: players see only each other's cards, and by playing, "
                "discarding and revealing colours or ranks (for information tokens) build one "
                "firework per colour in rank order; both score the fireworks.",
    parameters=(
        Parameter("colours", 2, f"number of colours, 1-{MAX_COLOURS} (Red, Yellow, Green, White, Blue)"),
        Parameter("ranks", 5, f"ranks per colour, 1-{MAX_RANKS}"),
        Parameter("hand_size", 2, f"cards per hand, 1-{MAX_HAND}"),
        Parameter("max_information_tokens", 3, f"information tokens (all available at the start), "
                                               f"1-{MAX_INFORMATION}"),
        Parameter("max_life_tokens", 1, f"life tokens, 1-{MAX_LIFE}; a misplay costs one"),
        Parameter("scoring", "height", "'height': sum of the firework heights (largest card per "
                                       "firework); 'sum': sum of the values of all cards in the fireworks"),
        Parameter("zero_when_lives_lost", True, "a game that ends by losing the last life token scores 0 "
                                                "(hanabi-learning-environment's score)"),
    ),
    presets=(
        Preset("llmarena_small", "LLMArena (Chen et al., 2024) small structure via PettingZoo hanabi_v5: "
               "2 colours (Red, Yellow) x ranks 1-5, hands of 2, 3 information tokens, 1 life token, "
               "score = firework heights; answer 'Action: Reveal Yellow Cards for another player'.",
               {"colours": 2, "ranks": 5, "hand_size": 2, "max_information_tokens": 3,
                "max_life_tokens": 1, "scoring": "height", "zero_when_lives_lost": True}),
    ),
    accepts_text_actions=True,
)


def copies_of_rank(int rank_index, int ranks) -> int:
    """Copies per colour of the rank with 0-based index `rank_index` (HLE's NumberCardInstances)."""
    if rank_index == 0:
        return 3
    if rank_index == ranks - 1:
        return 1
    return 2


@lru_cache(maxsize=None)
def _labels(int hand_size, int colours, int ranks) -> tuple:
    """The action labels, indexed by action id."""
    return (tuple(f"Discard Card at position {i}" for i in range(hand_size))
            + tuple(f"Play Card at position {i}" for i in range(hand_size))
            + tuple(f"Reveal {COLOUR_NAMES[c]} Cards for another player" for c in range(colours))
            + tuple(f"Reveal Rank {r + 1} Cards for another player" for r in range(ranks)))


@lru_cache(maxsize=None)
def _answer_pattern(int hand_size, int colours, int ranks):
    labels = _labels(hand_size, colours, ranks)
    alternatives = "|".join(re.escape(label) for label in labels)
    return re.compile(r"Action:\s*[<\"'`*\[]*\s*(" + alternatives + r")", re.IGNORECASE)


def _or_list(items) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _positions_text(positions) -> str:
    return ("position " if len(positions) == 1 else "positions ") + ", ".join(map(str, positions))


cdef class HanabiState(State):
    cdef int colours, ranks, hand_size, max_information, max_life
    cdef bint sum_scoring, zero_when_lives_lost
    cdef int num_types                          # colours * ranks
    cdef int total_cards
    cdef int deck_count[MAX_CARD_TYPES]         # copies of each card type left in the deck
    cdef int deck_size
    cdef int hand[NUM_SEATS][MAX_HAND]          # card type per position
    cdef int hand_len[NUM_SEATS]
    # HLE's card knowledge per held card: the revealed colour/rank (-1 if none) and bitmasks of the
    # colours/ranks the card can still be.
    cdef int colour_hint[NUM_SEATS][MAX_HAND]
    cdef int rank_hint[NUM_SEATS][MAX_HAND]
    cdef int colour_plausible[NUM_SEATS][MAX_HAND]
    cdef int rank_plausible[NUM_SEATS][MAX_HAND]
    cdef int fireworks[MAX_COLOURS]
    cdef int information, life
    cdef int next_player                        # the seat that makes the next move
    cdef int turns_to_play                      # moves left once the deck is empty (HLE)
    cdef int discards[MAX_DECK]                 # discard pile in order (misplays included)
    cdef int num_discards
    cdef int deal_to[MAX_DECK]                  # receiving seat of each deal, in order
    cdef int num_dealt
    # The log of player moves (seat = index % 2): action, the card played or discarded (-1 for a
    # reveal), for a reveal the bitmask of the positions pointed out, for a play whether it scored,
    # and whether an information token came back.
    cdef int move_action[MAX_PLAYER_MOVES]
    cdef int move_card[MAX_PLAYER_MOVES]
    cdef int move_mask[MAX_PLAYER_MOVES]
    cdef int move_scored[MAX_PLAYER_MOVES]
    cdef int move_token[MAX_PLAYER_MOVES]
    cdef int num_moves

    def __init__(self, game):
        super().__init__(game, NUM_SEATS)
        cdef int t
        parameters = game.parameters
        self.colours = parameters["colours"]
        self.ranks = parameters["ranks"]
        self.hand_size = parameters["hand_size"]
        self.max_information = parameters["max_information_tokens"]
        self.max_life = parameters["max_life_tokens"]
        self.sum_scoring = parameters["scoring"] == "sum"
        self.zero_when_lives_lost = parameters["zero_when_lives_lost"]
        self.num_types = self.colours * self.ranks
        for t in range(self.num_types):
            self.deck_count[t] = copies_of_rank(t % self.ranks, self.ranks)
            self.deck_size += self.deck_count[t]
        self.total_cards = self.deck_size
        self.information = self.max_information
        self.life = self.max_life
        self.turns_to_play = NUM_SEATS

    # ---- C-level interface --------------------------------------------------------------------
    cdef int _seat_to_deal(self) noexcept:
        """The first seat short of a full hand (HLE's PlayerToDeal), or -1."""
        cdef int seat
        for seat in range(NUM_SEATS):
            if self.hand_len[seat] < self.hand_size:
                return seat
        return -1

    cdef int _points(self) noexcept:
        cdef int c, points = 0
        for c in range(self.colours):
            points += self.fireworks[c] * (self.fireworks[c] + 1) // 2 if self.sum_scoring else self.fireworks[c]
        return points

    cdef int _score(self) noexcept:
        if self.life <= 0 and self.zero_when_lives_lost:
            return 0
        return self._points()

    cdef int _end_reason(self) noexcept:
        cdef int c
        if self.life < 1:
            return END_LIVES
        for c in range(self.colours):
            if self.fireworks[c] < self.ranks:
                break
        else:
            return END_FIREWORKS
        if self.turns_to_play <= 0:
            return END_DECK
        return END_NONE

    cdef int c_current_player(self) noexcept:
        if self._end_reason() != END_NONE:
            return TERMINAL_PLAYER
        if self.deck_size > 0 and self._seat_to_deal() >= 0:
            return CHANCE_PLAYER
        return self.next_player

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int i, c, r, card, n = 0
        cdef int partner = 1 - player
        cdef int colour_seen = 0, rank_seen = 0
        if self.c_current_player() != player:
            return 0
        if self.information < self.max_information:
            for i in range(self.hand_len[player]):
                out[n] = i
                n += 1
        for i in range(self.hand_len[player]):
            out[n] = self.hand_size + i
            n += 1
        if self.information > 0:
            for i in range(self.hand_len[partner]):
                card = self.hand[partner][i]
                colour_seen |= 1 << (card // self.ranks)
                rank_seen |= 1 << (card % self.ranks)
            for c in range(self.colours):
                if colour_seen & (1 << c):
                    out[n] = 2 * self.hand_size + c
                    n += 1
            for r in range(self.ranks):
                if rank_seen & (1 << r):
                    out[n] = 2 * self.hand_size + self.colours + r
                    n += 1
        return n

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int t, n = 0
        for t in range(self.num_types):
            if self.deck_count[t] > 0:
                actions[n] = t
                probs[n] = <double>self.deck_count[t] / self.deck_size
                n += 1
        return n

    cdef void _remove_card(self, int seat, int position) noexcept:
        """Takes the card out of the hand; later cards (and their knowledge) move down one place."""
        cdef int i
        for i in range(position, self.hand_len[seat] - 1):
            self.hand[seat][i] = self.hand[seat][i + 1]
            self.colour_hint[seat][i] = self.colour_hint[seat][i + 1]
            self.rank_hint[seat][i] = self.rank_hint[seat][i + 1]
            self.colour_plausible[seat][i] = self.colour_plausible[seat][i + 1]
            self.rank_plausible[seat][i] = self.rank_plausible[seat][i + 1]
        self.hand_len[seat] -= 1

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat, position, card, colour, rank, i, k
        cdef int h = self.hand_size
        if self.deck_size == 0:
            self.turns_to_play -= 1
        if self.deck_size > 0 and self._seat_to_deal() >= 0:
            seat = self._seat_to_deal()
            i = self.hand_len[seat]
            self.hand[seat][i] = action
            self.colour_hint[seat][i] = -1
            self.rank_hint[seat][i] = -1
            self.colour_plausible[seat][i] = (1 << self.colours) - 1
            self.rank_plausible[seat][i] = (1 << self.ranks) - 1
            self.hand_len[seat] += 1
            self.deck_count[action] -= 1
            self.deck_size -= 1
            self.deal_to[self.num_dealt] = seat
            self.num_dealt += 1
            return
        seat = self.next_player
        k = self.num_moves
        self.move_action[k] = action
        self.move_card[k] = -1
        self.move_mask[k] = 0
        self.move_scored[k] = 0
        self.move_token[k] = 0
        if action < 2 * h:
            position = action % h
            card = self.hand[seat][position]
            self.move_card[k] = card
            colour, rank = card // self.ranks, card % self.ranks
            if action < h:
                self.move_token[k] = self._gain_information()
                self.discards[self.num_discards] = card
                self.num_discards += 1
            elif self.fireworks[colour] == rank:
                self.fireworks[colour] += 1
                self.move_scored[k] = 1
                if self.fireworks[colour] == self.ranks:
                    self.move_token[k] = self._gain_information()
            else:
                self.life -= 1
                self.discards[self.num_discards] = card
                self.num_discards += 1
            self._remove_card(seat, position)
        else:
            self.information -= 1
            self.move_mask[k] = self._reveal(1 - seat, action - 2 * h)
        self.num_moves += 1
        self.next_player = 1 - seat

    cdef int _gain_information(self) noexcept:
        if self.information < self.max_information:
            self.information += 1
            return 1
        return 0

    cdef int _reveal(self, int target, int hint) noexcept:
        """Applies a colour (hint < colours) or rank reveal to `target`'s hand; returns the bitmask
        of the positions it points out."""
        cdef int i, card, mask = 0
        cdef bint is_colour = hint < self.colours
        cdef int value = hint if is_colour else hint - self.colours
        for i in range(self.hand_len[target]):
            card = self.hand[target][i]
            if is_colour:
                if card // self.ranks == value:
                    mask |= 1 << i
                    self.colour_hint[target][i] = value
                    self.colour_plausible[target][i] = 1 << value
                else:
                    self.colour_plausible[target][i] &= ~(1 << value)
            else:
                if card % self.ranks == value:
                    mask |= 1 << i
                    self.rank_hint[target][i] = value
                    self.rank_plausible[target][i] = 1 << value
                else:
                    self.rank_plausible[target][i] &= ~(1 << value)
        return mask

    cdef void c_returns(self, double* out) noexcept:
        cdef double score = self._score() if self._end_reason() != END_NONE else 0.0
        out[0] = score
        out[1] = score

    cdef bint _fits(self, int seat, int position, int card) noexcept:
        return ((self.colour_plausible[seat][position] >> (card // self.ranks)) & 1) \
            and ((self.rank_plausible[seat][position] >> (card % self.ranks)) & 1)

    cdef bint _assign_hand(self, int seat, int position, int* pool, Rng* rng) noexcept:
        """Fills positions `position`.. of `seat`'s hand from `pool` (copies per card type) with cards
        its knowledge allows, backtracking on dead ends. Each position tries first a card drawn in
        proportion to the copies left, then the other candidates in turn."""
        cdef int candidates[MAX_CARD_TYPES]
        cdef int t, k, n = 0, weight = 0, pick, start = 0
        if position == self.hand_len[seat]:
            return True
        for t in range(self.num_types):
            if pool[t] > 0 and self._fits(seat, position, t):
                candidates[n] = t
                n += 1
                weight += pool[t]
        if n == 0:
            return False
        pick = rng_below(rng, weight)
        while pick >= pool[candidates[start]]:
            pick -= pool[candidates[start]]
            start += 1
        for k in range(n):
            t = candidates[(start + k) % n]
            pool[t] -= 1
            self.hand[seat][position] = t
            if self._assign_hand(seat, position + 1, pool, rng):
                return True
            pool[t] += 1
        return False

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # The seat's own cards are hidden from it; the deck holds no order (each draw is a chance
        # node), so redrawing the hand from the cards it cannot see, within its knowledge, and
        # leaving the rest in the deck is a full determinization. The pool depends only on what the
        # seat sees, so equal views give equal redraws.
        cdef int pool[MAX_CARD_TYPES]
        cdef int kept[MAX_HAND]
        cdef int t, i
        if self._end_reason() != END_NONE:
            return                                      # the hands are shown at the end
        for t in range(self.num_types):
            pool[t] = self.deck_count[t]
        for i in range(self.hand_len[player]):
            pool[self.hand[player][i]] += 1
            kept[i] = self.hand[player][i]
        if self._assign_hand(player, 0, pool, rng):
            for t in range(self.num_types):
                self.deck_count[t] = pool[t]
        else:                                           # unreachable: the true hand fits
            for i in range(self.hand_len[player]):
                self.hand[player][i] = kept[i]

    cdef State c_clone(self):
        cdef HanabiState s = HanabiState.__new__(HanabiState)
        self._copy_base_into(s)
        s.colours = self.colours
        s.ranks = self.ranks
        s.hand_size = self.hand_size
        s.max_information = self.max_information
        s.max_life = self.max_life
        s.sum_scoring = self.sum_scoring
        s.zero_when_lives_lost = self.zero_when_lives_lost
        s.num_types = self.num_types
        s.total_cards = self.total_cards
        s.deck_count = self.deck_count
        s.deck_size = self.deck_size
        s.hand = self.hand
        s.hand_len = self.hand_len
        s.colour_hint = self.colour_hint
        s.rank_hint = self.rank_hint
        s.colour_plausible = self.colour_plausible
        s.rank_plausible = self.rank_plausible
        s.fireworks = self.fireworks
        s.information = self.information
        s.life = self.life
        s.next_player = self.next_player
        s.turns_to_play = self.turns_to_play
        s.discards = self.discards
        s.num_discards = self.num_discards
        s.deal_to = self.deal_to
        s.num_dealt = self.num_dealt
        s.move_action = self.move_action
        s.move_card = self.move_card
        s.move_mask = self.move_mask
        s.move_scored = self.move_scored
        s.move_token = self.move_token
        s.num_moves = self.num_moves
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _card_name(self, int card) -> str:
        return f"{COLOUR_NAMES[card // self.ranks]} {card % self.ranks + 1}"

    def _card_dict(self, int card) -> dict:
        return {"colour": COLOUR_NAMES[card // self.ranks], "rank": card % self.ranks + 1}

    def _hand_cards(self, int seat) -> list:
        return [self.hand[seat][i] for i in range(self.hand_len[seat])]

    def _knowledge(self, int seat, int position) -> dict:
        colour, rank = self.colour_hint[seat][position], self.rank_hint[seat][position]
        return {
            "colour": COLOUR_NAMES[colour] if colour >= 0 else None,
            "rank": rank + 1 if rank >= 0 else None,
            "possible_colours": [COLOUR_NAMES[c] for c in range(self.colours)
                                 if self.colour_plausible[seat][position] >> c & 1],
            "possible_ranks": [r + 1 for r in range(self.ranks) if self.rank_plausible[seat][position] >> r & 1],
        }

    def _knowledge_text(self, int seat) -> str:
        parts = []
        for i in range(self.hand_len[seat]):
            k = self._knowledge(seat, i)
            if k["colour"]:
                colour = f"{k['colour']} (revealed)"
            elif len(k["possible_colours"]) == self.colours:
                colour = "any colour"
            else:
                colour = _or_list(k["possible_colours"])
            if k["rank"]:
                rank = f"rank {k['rank']} (revealed)"
            elif len(k["possible_ranks"]) == self.ranks:
                rank = "any rank"
            else:
                rank = "rank " + _or_list(k["possible_ranks"])
            parts.append(f"position {i}: {colour}, {rank}")
        return "; ".join(parts) if parts else "no cards"

    def _hand_text(self, int seat) -> str:
        cards = self._hand_cards(seat)
        return ", ".join(f"position {i}: {self._card_name(c)}" for i, c in enumerate(cards)) if cards else "no cards"

    def _fireworks_text(self) -> str:
        return ", ".join(f"{COLOUR_NAMES[c]} {self.fireworks[c]}" for c in range(self.colours))

    def _move_effect(self, int k) -> str:
        """What move `k` did, in public terms."""
        cdef int action = self.move_action[k], card = self.move_card[k]
        h = self.hand_size
        if action < h:
            return f"it was {self._card_name(card)}; an information token comes back"
        if action < 2 * h:
            if self.move_scored[k]:
                complete = ""
                if card % self.ranks == self.ranks - 1:
                    complete = "; the firework is complete" + (
                        " and an information token comes back" if self.move_token[k] else "")
                firework = COLOUR_NAMES[card // self.ranks]
                return f"it was {self._card_name(card)}, added to the {firework} firework{complete}"
            return f"it was {self._card_name(card)}, which did not fit its firework: a life token is lost"
        positions = [i for i in range(MAX_HAND) if self.move_mask[k] >> i & 1]
        return f"it pointed out seat {1 - k % 2}'s cards at {_positions_text(positions)}"

    def _move_text(self, int k) -> str:
        return f"{self.action_to_string(k % 2, self.move_action[k])} ({self._move_effect(k)})"

    def _move_dict(self, int k) -> dict:
        action, h = self.move_action[k], self.hand_size
        return {
            "seat": k % 2,
            "action": action,
            "text": self._move_text(k),
            "card": self._card_dict(self.move_card[k]) if action < 2 * h else None,
            "scored": bool(self.move_scored[k]) if h <= action < 2 * h else None,
            "positions": [i for i in range(MAX_HAND) if self.move_mask[k] >> i & 1] if action >= 2 * h else None,
            "information_token_back": bool(self.move_token[k]),
        }

    def _end_text(self) -> str:
        reason = self._end_reason()
        if reason == END_LIVES:
            return "the last life token was lost" + (", so the team scores 0" if self.zero_when_lives_lost else "")
        if reason == END_FIREWORKS:
            return "every firework is complete"
        return "the deck ran out and each player had one more turn"

    def _end_reason_name(self):
        return {END_LIVES: "lives_lost", END_FIREWORKS: "fireworks_complete", END_DECK: "deck_out"}.get(
            self._end_reason())

    def _rules_text(self) -> str:
        names = ", ".join(COLOUR_NAMES[:self.colours])
        per_colour = " ".join(str(r + 1) for r in range(self.ranks) for _ in range(copies_of_rank(r, self.ranks)))
        lost = " (the team then scores 0)" if self.zero_when_lives_lost else ""
        scoring = ("the sum of the values of all cards in the fireworks" if self.sum_scoring
                   else "the sum of the firework heights (the largest card of each firework)")
        return (
            f"Hanabi, a cooperative game for 2 players. The deck has {self.colours} colour"
            f"{'s' if self.colours > 1 else ''} ({names}); each colour has the cards {per_colour}. Each player "
            f"holds {self.hand_size} card{'s' if self.hand_size > 1 else ''} and sees only the partner's cards. "
            f"The team builds one firework per colour, in rank order from 1 to {self.ranks}. On your turn: play a "
            f"card (if it is not the next card of its colour's firework, it is discarded and a life token is "
            f"lost), discard a card (an information token comes back; not allowed while all "
            f"{self.max_information} are available), or spend an information token to reveal to your partner "
            f"all of their cards of one colour or of one rank (at least one card must have it). Completing a "
            f"firework gives an information token back. After playing or discarding you draw a card while the "
            f"deck lasts. There {'is' if self.max_life == 1 else 'are'} {self.max_life} life token"
            f"{'s' if self.max_life > 1 else ''}: the game ends when the last one is lost{lost}, when every "
            f"firework is complete, or once each player has had one more turn after the deck runs out. "
            f"Score: {scoring}."
        )

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if not 0 <= action < self.num_types:
                raise ValueError(f"hanabi chance outcomes are 0-{self.num_types - 1}, not {action}")
            return f"deal {self._card_name(action)}"
        labels = _labels(self.hand_size, self.colours, self.ranks)
        if not 0 <= action < len(labels):
            raise ValueError(f"hanabi actions are 0-{len(labels) - 1}, not {action}")
        return labels[action]

    def parse_action(self, int player, str text) -> int:
        labels = [label.lower() for label in _labels(self.hand_size, self.colours, self.ranks)]
        answer = _answer_pattern(self.hand_size, self.colours, self.ranks).search(text)
        if answer is not None:
            return labels.index(answer.group(1).lower())
        bare = text.strip().strip("<>\"'`*[]").strip().rstrip(".").strip().lower()
        if bare in labels:
            return labels.index(bare)
        raise ActionParseError(
            f"could not read an action from {text!r}. Answer with one line 'Action: <action>', where <action> "
            f"is one of the actions exactly as listed, e.g. 'Action: Play Card at position 0' or "
            f"'Action: Reveal {COLOUR_NAMES[self.colours - 1]} Cards for another player'.")

    def text_action_spec(self, int player):
        if not self.legal_actions(player):
            return None
        return {"description": "one action as 'Action: <action>', e.g. 'Action: Reveal Yellow Cards for another "
                               "player'",
                # room for step-by-step reasoning before the answer, as LLMArena's prompt asks
                "max_length": 4000, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("hanabi", player)
        partner = 1 - player
        lines = [
            self._rules_text(),
            f"You are seat {player}; your partner is seat {partner}.",
            f"Fireworks: {self._fireworks_text()}.",
            f"Information tokens: {self.information} of {self.max_information}. "
            f"Life tokens: {self.life} of {self.max_life}.",
        ]
        deck = f"Deck: {self.deck_size} card{'' if self.deck_size == 1 else 's'} left."
        if self.deck_size == 0 and self._end_reason() == END_NONE:
            deck += f" The deck is empty: {self.turns_to_play} more move{'' if self.turns_to_play == 1 else 's'}" \
                    f" in the game."
        lines.append(deck)
        discarded = [self._card_name(self.discards[i]) for i in range(self.num_discards)]
        lines.append("Discard pile: " + (", ".join(discarded) if discarded else "empty") + ".")
        lines.append(f"Your partner's cards: {self._hand_text(partner)}.")
        lines.append(f"What your partner knows about their cards: {self._knowledge_text(partner)}.")
        lines.append(f"What you know about your own cards: {self._knowledge_text(player)}.")
        last = self._last_move_of(partner)
        lines.append(f"Your partner's last action: {self._move_text(last)}." if last >= 0
                     else "Your partner has not acted yet.")
        lines.append(f"Points in the fireworks: {self._points()}.")
        to_play = self.c_current_player()
        if to_play == TERMINAL_PLAYER:
            lines.append(f"The game is over: {self._end_text()}. Final score: {self._score()}.")
            lines.append(f"Your cards were: {self._hand_text(player)}.")
        elif to_play == CHANCE_PLAYER:
            lines.append("A card is being dealt.")
        elif to_play == player:
            lines.append("It is your turn.")
        else:
            lines.append("It is your partner's turn.")
        return "\n".join(lines)

    def _last_move_of(self, int seat) -> int:
        cdef int k
        for k in range(self.num_moves - 1, -1, -1):
            if k % 2 == seat:
                return k
        return -1

    def observation_dict(self, int player) -> dict:
        check_seat("hanabi", player)
        partner = 1 - player
        to_play = self.c_current_player()
        finished = to_play == TERMINAL_PLAYER
        last = self._last_move_of(partner)
        return {
            "seat": player,
            "partner": partner,
            "colours": list(COLOUR_NAMES[:self.colours]),
            "ranks": self.ranks,
            "hand_size": self.hand_size,
            "max_information_tokens": self.max_information,
            "max_life_tokens": self.max_life,
            "fireworks": [self.fireworks[c] for c in range(self.colours)],
            "information_tokens": self.information,
            "life_tokens": self.life,
            "deck_size": self.deck_size,
            "turns_left": self.turns_to_play if self.deck_size == 0 and not finished else None,
            "discard_pile": [self._card_dict(self.discards[i]) for i in range(self.num_discards)],
            "my_knowledge": [self._knowledge(player, i) for i in range(self.hand_len[player])],
            "partner_hand": [self._card_dict(c) for c in self._hand_cards(partner)],
            "partner_knowledge": [self._knowledge(partner, i) for i in range(self.hand_len[partner])],
            "history": [self._move_dict(k) for k in range(self.num_moves)],
            "partner_last_action": self._move_dict(last) if last >= 0 else None,
            "points": self._points(),
            "to_play": to_play if to_play >= 0 else None,
            "legal_actions": self.legal_actions(player),
            "finished": finished,
            "end_reason": self._end_reason_name(),
            "score": self._score() if finished else None,
            "my_hand": [self._card_dict(c) for c in self._hand_cards(player)] if finished else None,
        }

    def public_history(self) -> list:
        """Deals as summaries (the card stays private), every move with its public effect."""
        out = []
        deal = move = 0
        for seat, _ in self._history:
            if seat == CHANCE_PLAYER:
                out.append((-1, -1, f"a card is dealt to seat {self.deal_to[deal]}"))
                deal += 1
            else:
                out.append((seat, self.move_action[move], self._move_text(move)))
                move += 1
        return out

    def result_summary(self) -> str:
        if self._end_reason() == END_NONE:
            return "game in progress"
        return f"score {self._score()}: {self._end_text()} (fireworks {self._fireworks_text()})"

    def result_details(self) -> dict:
        finished = self._end_reason() != END_NONE
        score = self._score() if finished else None
        return {
            "score": score,
            "end_reason": self._end_reason_name(),
            "fireworks": {COLOUR_NAMES[c]: self.fireworks[c] for c in range(self.colours)},
            "points_in_fireworks": self._points(),
            "life_tokens": self.life,
            "information_tokens": self.information,
            "hands": [[self._card_name(c) for c in self._hand_cards(seat)] for seat in range(NUM_SEATS)],
            "discard_pile": [self._card_name(self.discards[i]) for i in range(self.num_discards)],
            "moves": [self._move_text(k) for k in range(self.num_moves)],
            "player_moves": self.num_moves,
            # LLMArena's per-step rewards add up to the final score (reference section 6, item 11).
            "mean_reward_per_move": score / self.num_moves if finished and self.num_moves else None,
        }


def _first_fitting_hand(pool: list, knowledge: list, colour_names: list, ranks: int):
    """The first hand (in card-id order) that takes one card per entry of `knowledge` from `pool`
    (copies per card type), each card allowed by its entry's possible colours and ranks; or None."""
    if not knowledge:
        return []
    entry = knowledge[0]
    colours = {colour_names.index(c) for c in entry["possible_colours"]}
    for card, copies in enumerate(pool):
        if copies and card // ranks in colours and card % ranks + 1 in entry["possible_ranks"]:
            pool[card] -= 1
            rest = _first_fitting_hand(pool, knowledge[1:], colour_names, ranks)
            pool[card] += 1
            if rest is not None:
                return [card] + rest
    return None


class Game(GameBase):
    """Two-player Hanabi with validated deck, hand and token sizes."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        colours = checked_int(self.parameters, "colours", 1, MAX_COLOURS)
        ranks = checked_int(self.parameters, "ranks", 1, MAX_RANKS)
        hand_size = checked_int(self.parameters, "hand_size", 1, MAX_HAND)
        checked_int(self.parameters, "max_information_tokens", 1, MAX_INFORMATION)
        checked_int(self.parameters, "max_life_tokens", 1, MAX_LIFE)
        checked_choice(self.parameters, "scoring", SCORINGS)
        if not isinstance(self.parameters["zero_when_lives_lost"], bool):
            raise ValueError("parameter 'zero_when_lives_lost' is true or false")
        if NUM_SEATS * hand_size > self.total_cards():
            raise ValueError(f"a deck of {self.total_cards()} cards cannot deal two hands of {hand_size}")

    def total_cards(self) -> int:
        ranks = self.parameters["ranks"]
        return self.parameters["colours"] * sum(copies_of_rank(r, ranks) for r in range(ranks))

    def utility_bounds(self) -> tuple:
        """(0, the score of complete fireworks) under these parameters."""
        ranks = self.parameters["ranks"]
        per_colour = ranks * (ranks + 1) // 2 if self.parameters["scoring"] == "sum" else ranks
        return 0.0, float(self.parameters["colours"] * per_colour)

    def new_initial_state(self) -> HanabiState:
        return HanabiState(self)

    def state_from_view(self, int player, dict view) -> HanabiState:
        """A state consistent with `view` (seat `player`'s observation_dict): every move and every
        card the seat has seen is replayed as it was; its own unseen cards are the first cards (in
        card-id order) that its knowledge allows among the cards it has not seen."""
        check_seat("hanabi", player)
        colours, ranks = self.parameters["colours"], self.parameters["ranks"]
        hand_size = self.parameters["hand_size"]
        names = list(COLOUR_NAMES[:colours])

        def card_id(card: dict) -> int:
            return names.index(card["colour"]) * ranks + card["rank"] - 1

        # Pass 1: which deal put each card where, from the structure of the moves alone.
        moves = view["history"]
        dealt_total = self.total_cards() - view["deck_size"]
        hands = [[], []]                    # deal indices held, by position
        identity = []                       # card id of each deal, when known
        dealt = 0
        for step in range(len(moves) + 1):
            while dealt < dealt_total and any(len(h) < hand_size for h in hands):
                seat = 0 if len(hands[0]) < hand_size else 1
                hands[seat].append(dealt)
                identity.append(None)
                dealt += 1
            if step == len(moves):
                break
            move = moves[step]
            if move["action"] < 2 * hand_size:
                identity[hands[move["seat"]].pop(move["action"] % hand_size)] = card_id(move["card"])
        partner = 1 - player
        for deal, card in zip(hands[partner], view["partner_hand"]):
            identity[deal] = card_id(card)
        if view["my_hand"] is not None:
            own = [card_id(card) for card in view["my_hand"]]
        else:
            unseen = [copies_of_rank(t % ranks, ranks) for t in range(colours * ranks)]
            for card in identity:
                if card is not None:
                    unseen[card] -= 1
            own = _first_fitting_hand(unseen, view["my_knowledge"], names, ranks)
            if own is None:
                raise ValueError("no cards fit this view's knowledge of the seat's own hand")
        for deal, card in zip(hands[player], own):
            identity[deal] = card
        # Pass 2: replay deals and moves in the engine's order.
        state = self.new_initial_state()
        deal = step = 0
        while deal < dealt_total or step < len(moves):
            if state.is_chance_node() and deal < dealt_total:
                state.apply_action(identity[deal])
                deal += 1
            else:
                state.apply_action(moves[step]["action"])
                step += 1
        return state
