"""Codenames, as GameBench plays it (reference gamebench.md section 2.4): two teams of two, a
spymaster who knows the key and an operative (the guesser) who does not.

Rules. The board holds 21 words (parameters "first_team_cards" 9 Red, "second_team_cards" 8 Blue, 1
assassin, "neutral_cards" 3 neutral), drawn from this project's word list (codenames_words.WORDS, 479
everyday nouns); which word has which colour is the key. Red moves first. A team's turn: its
spymaster gives a clue, one word and a number N from 0 to 9; then its operative guesses unrevealed
words one at a time, up to N + 1 guesses (any number when N is 0), and may end the turn at any point,
even before guessing. A guess reveals the word's colour: the team's own colour lets the operative go
on (until the N + 1 guesses are used); a neutral word or an opposing word ends the turn; the assassin
ends the game at once and the guessing team loses. A team wins as soon as all its words are revealed,
whoever revealed the last one (GameBench's `winner()`). A game that reaches "max_turns" team turns
without a winner ends there (an arena limit; see Ambiguities).

Score (preset "gamebench"; returns of every seat = its team's share). Each team scores its revealed
words of its own colour, the winner 3 more; when the assassin was revealed the losing team's points
are set to 0; the two scores are divided by their sum (0.5 each when the sum is 0). E.g. Red finds all
9 while Blue found 5: Red 12/17, Blue 5/17. Blue reveals the assassin with Red on 4 and Blue on 6: Red
7/7 = 1, Blue 0.

Seats. 0 Red spymaster, 1 Red operative, 2 Blue spymaster, 3 Blue operative. `Game.seat_sides()` is
[0, 0, 1, 1]: one agent holds both seats of its team (GameBench duplicated each agent into its team),
each seat with its own view.

Chance. 21 chance nodes deal the board, one word per node, uniformly among the words of the list not
yet drawn ("vocabulary": how many words of the list are in play, all 479 by default). The i-th word
drawn takes the i-th colour of the key in the order Red..., Blue..., assassin, neutral...; the board
then lists the words in alphabetical order, so its order says nothing of the colours. No view shows
anything of the board before the deal is complete; `public_history` has one summary line for it.

Actions. The spymaster's clue turn: the action is the number, 0-9, text "clue for 3 cards" ("clue for
1 card", "clue for 0 cards (unlimited guesses)"), with a REQUIRED message: the clue word. The
operative's turn: action i (0-20) = guess card i, text GameBench's description "Guess the word: APPLE";
action 21 (the number of cards) = GameBench's "End your current turn." GameBench's action ids are
"guess_<index>" and "end_turn".

Clue rules (`check_message`): the clue is exactly one word (letters, inner hyphens or apostrophes);
it may not be a board word, a part of one or a form of one, compared without case: refused when one
of the clue and a board word begins or ends with the other (SNOW or MAN against SNOWMAN, SNOWMAN or
LOCKS against SNOW or LOCK) or when both have the same stem under a small suffix-stripping stemmer
(TRIES and TRY, BAKING and BAKE). A board word inside the clue elsewhere is allowed (HEART with EAR on
the board). The number is the action, never in the message. Sound-alikes are not checked (no
mechanical test decides them).

Answers. A spymaster's reply is read by `read_reply` in GameBench's format "word,number" (the value
of a JSON "openended_response" field when the reply has one; else the whole reply split at its single
comma, as GameBench did; else the last "<word>,<number>" in the reply). A number above 9 is read as 9,
which already allows more guesses than a team has words; a negative number is refused. `parse_action`
reads the spymaster's number alone ("3", "apple,3" or the action text). An operative's answer is read
by `parse_action`: the value of a JSON "action" field when there is one, then the last "guess_<index>"
or "end_turn" in it, GameBench's descriptions, "end turn" or "pass", the word itself, or a reply that
names exactly one unrevealed board word.

Fallbacks (section 2.10). GameBench replaced an unreadable clue by the clue "None" for 1 card:
`default_action` of a clue turn is 1 and `default_message` is "None" (no word of the list clashes with
it). An operative's unreadable answer became a uniformly random legal action: `default_action` is
None there (the referee's random legal action).

Information. Everything but the key is public: the board words, the clues, every guess and the colour
it revealed, whose turn it is. A spymaster sees the colour of every card; an operative sees only the
colours of revealed cards (GameBench's "UNKNOWN"). At the end every view shows the whole key.
observation_string follows GameBench's board lines ("APPLE (RED) (HIDDEN)", "PEAR (UNKNOWN)
(HIDDEN)"), then the log of turns (each clue, who gave it, the guesses and the colours they revealed),
then what happens now. observation_dict holds the same: "seat", "team", "role", "teammate", "phase"
("deal", "clue", "guess", "over"), "cards_dealt", "card_counts", "board" ([{index, word, colour or
null, revealed}]; empty during the deal), "left" (unrevealed words per team), "to_move", "turn",
"max_turns", "clue" ({word, number}), "guesses_made" and "guesses_left" (null: unlimited) of the turn
in progress, "turns" ([{team, seat, clue, number, guesses [{index, word, colour}], passed}], the
current turn last; each clue is the conversation's message of that move), "conversation", "winner",
"ending" ("all_found", "assassin", "turn_limit") and "scores" ({red, blue}, at the end).

Preset "gamebench": GameBench's code values: 9 / 8 / 1 / 3 cards, Red first, scores as above.

Ambiguities (gamebench.md section 6 and the card):
  - Board size and words (item 9): the code's 21 cards, configurable; this project's own word list
    (GameBench's built-in list is not used).
  - Score (item 10): the code's formula, revealed own words + 3 for the winner, the assassin zeroing
    the loser, normalised; 0.5/0.5 when both are 0.
  - Illegal answers (item 12, section 2.10): three attempts with feedback then a random legal action is
    the referee's policy; the clue fallback ("None", 1) is `default_action` / `default_message`.
  - Sides and roles (item 18): Red is side 1 (seats 0 and 1) and moves first; which agent gets Red is
    the scheduler's coin flip. GameBench drew which of an agent's two copies was spymaster; with one
    agent holding both seats of a team that draw changes nothing, so the roles are fixed by seat.
  - Clue number 0: unlimited guesses, as the rules shown to the agents say. (GameBench's code ends the
    turn after the first correct guess of a 0 clue, because it compares N + 1 with the guesses made.)
  - Clue validity: GameBench's code checked nothing; the rules forbid a board word, a part or form of
    one, sound-alikes, and anything but one word and one number. This engine enforces all but
    sound-alikes. A board word stays forbidden after it is revealed (the card says "a board word").
    GameBench's code crashed on a negative number; here it is refused with feedback.
  - Observations: GameBench showed the current team's name, the board, the current clue and the
    opposing team's last clue and guesses; everything in them is public in Codenames, so the views
    here show the whole log of clues and guesses instead.
  - No turn limit in GameBench (section 6 item 20: arena limits are documented deviations): a game of
    two teams that only ever end their turns would never stop, so "max_turns" (50 team turns) ends it;
    it is then scored as above with no winner.
"""

from libc.string cimport memcpy

import random as _random
import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError, TextRejectedError
from arena_engines.codenames_words import WORDS
from arena_engines.parsing import check_seat, last_match, neutral_clue
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_SEATS = 4
    MAX_CARDS = 25                  # standard Codenames' board; GameBench's is 21
    MAX_TEAM_CARDS = 9
    MAX_CLUE_NUMBER = 9
    MAX_TURNS = 200
    MAX_WORDS = 1000                # below MAX_ACTIONS: a chance node lists every word not drawn

# Colours of the key; RED and BLUE are also the team numbers.
cdef enum:
    RED = 0
    BLUE = 1
    ASSASSIN = 2
    NEUTRAL = 3

cdef enum:
    DEAL = 0
    CLUE = 1
    GUESS = 2
    OVER = 3

# How the game ended.
cdef enum:
    PLAYING = 0
    ALL_FOUND = 1
    ASSASSIN_FOUND = 2
    TURN_LIMIT = 3

if len(WORDS) > MAX_WORDS:
    raise ImportError("codenames_words.WORDS is larger than the engine's arrays")

WINNER_BONUS = 3
FALLBACK_CLUE = "None"              # GameBench's clue when the spymaster's answer was unreadable
FALLBACK_NUMBER = 1
COLOUR_NAMES = ("red", "blue", "assassin", "neutral")
TEAM_NAMES = ("Red", "Blue")
ROLE_NAMES = ("spymaster", "operative")
ENDINGS = {ALL_FOUND: "all_found", ASSASSIN_FOUND: "assassin", TURN_LIMIT: "turn_limit"}
_WORD_ID = {word: i for i, word in enumerate(WORDS)}

_GAMEBENCH = {"first_team_cards": 9, "second_team_cards": 8, "neutral_cards": 3, "vocabulary": len(WORDS),
              "max_turns": 50}

SPEC = GameSpec(
    game_id="codenames",
    display_name="Codenames",
    rules_version="1",
    min_players=NUM_SEATS,
    max_players=NUM_SEATS,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="constant_sum",
    min_utility=0.0,
    max_utility=1.0,
    # The deal, then per team turn a clue and at most one "end turn", plus at most one guess per card.
    max_game_length=2 * MAX_CARDS + 2 * MAX_TURNS,
    description="Red and Blue, each a spymaster and an operative. Spymasters, who alone know the key, give "
                "one-word clues with a number; operatives guess words (up to the number plus one). A team wins "
                "by revealing all its words and loses by revealing the assassin. GameBench's 21-word board.",
    parameters=(
        Parameter("first_team_cards", 9, f"words of the first team (Red), 1-{MAX_TEAM_CARDS}"),
        Parameter("second_team_cards", 8, f"words of the second team (Blue), 1-{MAX_TEAM_CARDS}"),
        Parameter("neutral_cards", 3, f"neutral words (the board, with the one assassin, holds at most {MAX_CARDS})"),
        Parameter("vocabulary", len(WORDS), f"how many words of the word list (from its start) may be drawn, "
                                            f"from the board size to {len(WORDS)}"),
        Parameter("max_turns", 50, f"team turns after which a game without a winner ends, 1-{MAX_TURNS}"),
    ),
    presets=(
        Preset("gamebench", "GameBench (gamebench.md section 2.4): 21 words (9 Red, 8 Blue, 1 assassin, 3 neutral), "
               "Red first; clue 'word,number', guesses guess_<index> / end_turn; score = revealed own words + 3 "
               "for the winner, 0 for the team that revealed the assassin, normalised to sum 1.", _GAMEBENCH),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# A shorter word list keeps the deal's chance nodes readable; the game itself is played in full.
PLAYTHROUGH_OVERRIDES = {None: {"vocabulary": 30}}

_ONE_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_JSON_VALUE = re.compile(r'"(action|openended_response)"\s*:\s*"([^"\n]{0,300})"', re.IGNORECASE)
_WORD_NUMBER = re.compile(r"([^\W\d_][\w'-]{0,60})\s*,\s*(-?\d+)")
_NUMBER = re.compile(r"\s*(-?\d+)\s*")
_GUESS_OR_END = re.compile(r"(?<![A-Za-z])(?:guess_(\d+)|end_turn)(?![A-Za-z])", re.IGNORECASE)
_GUESS_WORD = re.compile(r"guess the word\s*:\s*([^\W\d_][\w'-]{0,60})", re.IGNORECASE)
_END_WORDS = {"end your current turn", "end turn", "end the turn", "end my turn", "pass"}
_WHOLE_WORD = re.compile(r"[^\W\d_]+")
# Regular English endings, longest first within each family: (suffix, replacement).
_SUFFIXES = (("ies", "y"), ("ves", "f"), ("es", ""), ("s", ""), ("ing", ""), ("ed", ""), ("er", ""),
             ("est", ""), ("ly", ""))


def _stem(str word) -> str:
    """A rough stem, so that regular forms of one word compare equal: "tries" and "try", "baking" and
    "bake". One suffix is stripped (the stem keeps at least 3 letters), then a final "e"."""
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= 3:
            word = word[:len(word) - len(suffix)] + replacement
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _shares_a_part(str a, str b) -> bool:
    """Whether one word begins or ends with the other, as a compound with its parts (SNOWMAN and
    SNOW or MAN) or a word with a prefix or suffix added (UNLOCK, LOCKS)."""
    return a.startswith(b) or a.endswith(b) or b.startswith(a) or b.endswith(a)


def clue_problem(str clue, board_words) -> object:
    """Why `clue` is not a legal Codenames clue on a board of `board_words`, or None: it must be
    exactly one word, and neither a board word nor a part or a regular form of one (compared without
    case: one begins or ends with the other, or both have the same stem)."""
    if not _ONE_WORD.fullmatch(clue):
        return ("a clue is exactly one word (letters only, e.g. 'ocean'); the number goes in the action, "
                "or in a reply 'word,number'")
    lowered = clue.lower()
    for word in board_words:
        board_word = word.lower()
        if _shares_a_part(lowered, board_word) or _stem(lowered) == _stem(board_word):
            return f"the clue may not be a board word, nor a part or a form of one: {word.upper()!r}"
    return None


def _for_cards(int number) -> str:
    if number == 0:
        return "for 0 cards (unlimited guesses)"
    return f"for {number} card" + ("" if number == 1 else "s")


def _clue_text(int number) -> str:
    return "clue " + _for_cards(number)


cdef inline int _team_of(int seat) noexcept:
    return seat // 2


cdef class CodenamesState(State):
    cdef int num_cards, vocabulary, max_turns
    cdef int colour_count[4]                # words of each colour on the board
    cdef int phase, ending
    cdef int dealt                          # words drawn so far
    cdef int team                           # team to play: RED or BLUE
    cdef int clue_number                    # of the turn in progress (0: unlimited)
    cdef int guesses_made                   # in the turn in progress
    cdef int turns_done
    cdef int winner                         # RED, BLUE, or -1
    cdef int found[2]                       # revealed words of each team's colour
    cdef int assassin_revealed
    cdef int slot_word[MAX_CARDS]           # the i-th word drawn (its colour is the key's i-th)
    cdef int word[MAX_CARDS]                # the board, in alphabetical order: word ids
    cdef int colour[MAX_CARDS]
    cdef int revealed[MAX_CARDS]

    def __init__(self, game):
        super().__init__(game, NUM_SEATS)
        p = game.parameters
        self.colour_count[RED] = p["first_team_cards"]
        self.colour_count[BLUE] = p["second_team_cards"]
        self.colour_count[ASSASSIN] = 1
        self.colour_count[NEUTRAL] = p["neutral_cards"]
        self.num_cards = p["first_team_cards"] + p["second_team_cards"] + 1 + p["neutral_cards"]
        self.vocabulary = p["vocabulary"]
        self.max_turns = p["max_turns"]
        self.phase = DEAL
        self.ending = PLAYING
        self.dealt = 0
        self.team = RED
        self.clue_number = 0
        self.guesses_made = 0
        self.turns_done = 0
        self.winner = -1
        self.found[RED] = self.found[BLUE] = 0
        self.assassin_revealed = 0
        for i in range(MAX_CARDS):
            self.slot_word[i] = self.word[i] = self.colour[i] = -1
            self.revealed[i] = 0

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == DEAL:
            return CHANCE_PLAYER
        if self.phase == CLUE:
            return 2 * self.team
        if self.phase == GUESS:
            return 2 * self.team + 1
        return TERMINAL_PLAYER

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int i, n = 0
        if player < 0 or player != self.c_current_player():
            return 0
        if self.phase == CLUE:
            for i in range(MAX_CLUE_NUMBER + 1):
                out[i] = i
            return MAX_CLUE_NUMBER + 1
        for i in range(self.num_cards):
            if not self.revealed[i]:
                out[n] = i
                n += 1
        out[n] = self.num_cards              # end the turn
        return n + 1

    cdef bint _drawn(self, int word_id) noexcept:
        cdef int i
        for i in range(self.dealt):
            if self.slot_word[i] == word_id:
                return True
        return False

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int w, n = 0
        cdef double p
        if self.phase != DEAL:
            return 0
        p = 1.0 / (self.vocabulary - self.dealt)
        for w in range(self.vocabulary):
            if not self._drawn(w):
                actions[n] = w
                probs[n] = p
                n += 1
        return n

    cdef int _slot_colour(self, int slot) noexcept:
        if slot < self.colour_count[RED]:
            return RED
        slot -= self.colour_count[RED]
        if slot < self.colour_count[BLUE]:
            return BLUE
        return ASSASSIN if slot == self.colour_count[BLUE] else NEUTRAL

    cdef void _lay_out_board(self) noexcept:
        """The board in alphabetical order (word ids are alphabetical), each word with its slot's colour."""
        cdef int i, j, w, c
        for i in range(self.num_cards):
            w = self.slot_word[i]
            c = self._slot_colour(i)
            j = i
            while j > 0 and self.word[j - 1] > w:
                self.word[j] = self.word[j - 1]
                self.colour[j] = self.colour[j - 1]
                j -= 1
            self.word[j] = w
            self.colour[j] = c

    cdef void c_apply_action(self, int action) noexcept:
        if self.phase == DEAL:
            self.slot_word[self.dealt] = action
            self.dealt += 1
            if self.dealt == self.num_cards:
                self._lay_out_board()
                self.phase = CLUE
        elif self.phase == CLUE:
            self.clue_number = action
            self.guesses_made = 0
            self.phase = GUESS
        elif action == self.num_cards:
            self._end_turn()
        else:
            self._guess(action)

    cdef void _guess(self, int card) noexcept:
        cdef int c = self.colour[card]
        self.revealed[card] = 1
        self.guesses_made += 1
        if c == ASSASSIN:
            self.assassin_revealed = 1
            self._finish(1 - self.team, ASSASSIN_FOUND)
            return
        if c == RED or c == BLUE:
            self.found[c] += 1
        # A team whose last word is revealed wins, even by the other team's guess (Red checked first).
        if self.found[RED] == self.colour_count[RED]:
            self._finish(RED, ALL_FOUND)
        elif self.found[BLUE] == self.colour_count[BLUE]:
            self._finish(BLUE, ALL_FOUND)
        elif c != self.team:
            self._end_turn()
        elif self.clue_number != 0 and self.guesses_made == self.clue_number + 1:
            self._end_turn()

    cdef void _finish(self, int winner, int ending) noexcept:
        self.winner = winner
        self.ending = ending
        self.phase = OVER

    cdef void _end_turn(self) noexcept:
        self.turns_done += 1
        self.team = 1 - self.team
        self.guesses_made = 0
        if self.turns_done >= self.max_turns:
            self._finish(-1, TURN_LIMIT)
        else:
            self.phase = CLUE

    cdef void _points(self, int* points) noexcept:
        """GameBench's points of each team: its revealed words, 0 for a team that revealed the
        assassin, 3 more for the winner."""
        points[RED] = self.found[RED]
        points[BLUE] = self.found[BLUE]
        if self.assassin_revealed:
            points[1 - self.winner] = 0
        if self.winner >= 0:
            points[self.winner] += WINNER_BONUS

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat, total
        cdef int points[2]
        cdef double share[2]
        if self.phase != OVER:
            for seat in range(NUM_SEATS):
                out[seat] = 0.0
            return
        self._points(points)
        total = points[RED] + points[BLUE]
        share[RED] = 0.5 if total == 0 else <double>points[RED] / total
        share[BLUE] = 0.5 if total == 0 else <double>points[BLUE] / total
        for seat in range(NUM_SEATS):
            out[seat] = share[_team_of(seat)]

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Hidden: during the deal, the words drawn (no view shows them); afterwards, from an operative,
        # the colours of the unrevealed cards. Those are redrawn as a uniform shuffle of the colours
        # left, which the view determines (the key's counts less the revealed colours), so a state
        # rebuilt from the view resamples like the real one.
        cdef int i, j, n = 0, c, k, tmp
        cdef int left[MAX_CARDS]
        cdef int hidden[MAX_CARDS]
        if self.phase == DEAL:
            for i in range(self.dealt):
                self.slot_word[i] = -1
            for i in range(self.dealt):
                while True:
                    self.slot_word[i] = rng_below(rng, self.vocabulary)
                    if not self._drawn_before(i):
                        break
            return
        if self.phase == OVER or player % 2 == 0:
            return                          # everything is shown at the end; spymasters see the key
        for c in range(4):
            k = self.colour_count[c]
            for i in range(self.num_cards):
                if self.revealed[i] and self.colour[i] == c:
                    k -= 1
            for i in range(k):
                left[n] = c
                n += 1
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            tmp = left[i]
            left[i] = left[j]
            left[j] = tmp
        k = 0
        for i in range(self.num_cards):
            if not self.revealed[i]:
                self.colour[i] = left[k]
                k += 1

    cdef bint _drawn_before(self, int slot) noexcept:
        cdef int i
        for i in range(slot):
            if self.slot_word[i] == self.slot_word[slot]:
                return True
        return False

    cdef State c_clone(self):
        cdef CodenamesState s = CodenamesState.__new__(CodenamesState)
        self._copy_base_into(s)
        s.num_cards = self.num_cards
        s.vocabulary = self.vocabulary
        s.max_turns = self.max_turns
        memcpy(s.colour_count, self.colour_count, sizeof(self.colour_count))
        s.phase = self.phase
        s.ending = self.ending
        s.dealt = self.dealt
        s.team = self.team
        s.clue_number = self.clue_number
        s.guesses_made = self.guesses_made
        s.turns_done = self.turns_done
        s.winner = self.winner
        memcpy(s.found, self.found, sizeof(self.found))
        s.assassin_revealed = self.assassin_revealed
        memcpy(s.slot_word, self.slot_word, sizeof(self.slot_word))
        memcpy(s.word, self.word, sizeof(self.word))
        memcpy(s.colour, self.colour, sizeof(self.colour))
        memcpy(s.revealed, self.revealed, sizeof(self.revealed))
        return s

    # ---- dialogue -----------------------------------------------------------------------------
    def _is_clue_turn(self, int player) -> bool:
        return self.phase == CLUE and player == 2 * self.team

    def _is_guess_turn(self, int player) -> bool:
        return self.phase == GUESS and player == 2 * self.team + 1

    def board_words(self) -> list:
        """The board's words as shown (upper case), in board order; empty during the deal."""
        if self.phase == DEAL:
            return []
        return [WORDS[self.word[i]].upper() for i in range(self.num_cards)]

    def check_message(self, int player, str text) -> str:
        """The clue word to store (spacing and quotes around it dropped), or TextRejectedError: not one
        word, a board word, or a part or a form of one."""
        if not self._is_clue_turn(player):
            raise TextRejectedError("only the spymaster giving a clue says something")
        clue = text.strip().strip("\"'").strip()
        clue = State.check_message(self, player, clue)
        problem = clue_problem(clue, self.board_words())
        if problem:
            raise TextRejectedError(problem)
        return clue

    def read_reply(self, int player, str text) -> tuple:
        """(number, clue word) from a spymaster's reply in GameBench's format "word,number": the JSON
        "openended_response" value when there is one, else the reply itself; split at its single
        comma, else the last "<word>,<number>" in it. Raises ActionParseError."""
        if not self._is_clue_turn(player):
            return State.read_reply(self, player, text)
        answer = _json_value(text, "openended_response")
        if answer is None:
            answer = text
        parts = answer.split(",")
        if len(parts) == 2 and _NUMBER.fullmatch(parts[1]):
            return self._clue_number(parts[1]), parts[0]
        found = last_match(_WORD_NUMBER, answer)
        if found is None:
            raise ActionParseError(f"could not read a clue from {text[:200]!r}. {self._clue_help()}")
        return self._clue_number(found.group(2)), found.group(1)

    def _clue_number(self, str digits) -> int:
        number = int(digits)
        if number < 0:
            raise ActionParseError(f"the number of a clue is 0-{MAX_CLUE_NUMBER}, not {number}. {self._clue_help()}")
        return min(number, MAX_CLUE_NUMBER)

    def _clue_help(self) -> str:
        return (f"Answer 'word,number' (e.g. 'ocean,2'): one word that is not on the board and the number of "
                f"your team's words it points to, 0-{MAX_CLUE_NUMBER} (0: unlimited guesses).")

    def default_message(self, int player):
        return FALLBACK_CLUE if self._is_clue_turn(player) else None

    def random_message(self, int player, rng=None) -> str:
        """A neutral word that is a legal clue on this board (the fallback "None" if none is)."""
        rng = rng or _random.Random(0)
        board = self.board_words()
        # Pairs of words never pass the one-word rule, so this is the first legal single word.
        return neutral_clue(rng, lambda clue: clue_problem(clue, board)) or FALLBACK_CLUE

    # ---- actions ------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:       # a draw of the deal: the word and the colour it takes
            colour = self._slot_colour(self.dealt) if self.phase == DEAL else -1
            return f"{WORDS[action].upper()}" + (f" ({COLOUR_NAMES[colour]})" if colour >= 0 else "")
        check_seat("codenames", player, NUM_SEATS)
        if player % 2 == 0:
            if 0 <= action <= MAX_CLUE_NUMBER:
                return _clue_text(action)
            raise ValueError(f"a spymaster's actions are 0-{MAX_CLUE_NUMBER} (the clue's number), not {action}")
        if action == self.num_cards:
            return "End your current turn."
        if 0 <= action < self.num_cards and self.phase != DEAL:
            return f"Guess the word: {WORDS[self.word[action]].upper()}"
        raise ValueError(f"an operative's actions are 0-{self.num_cards}, not {action}")

    def parse_action(self, int player, str text) -> int:
        if self._is_clue_turn(player):
            return self._parse_clue_number(text)
        if not self._is_guess_turn(player):
            raise ActionParseError("you have no decision to make now")
        answer = _json_value(text, "action")
        if answer is None:
            answer = text
        found = last_match(_GUESS_OR_END, answer)
        if found is not None:
            if found.group(1) is None:
                return self.num_cards
            index = int(found.group(1)) if len(found.group(1)) <= 3 else -1
            if not 0 <= index < self.num_cards:
                raise ActionParseError(f"there is no card guess_{found.group(1)[:12]}; the cards are numbered "
                                       f"0-{self.num_cards - 1}. {self._guess_help()}")
            return index
        cleaned = answer.strip().strip(".\"'").strip().lower()
        if cleaned in _END_WORDS:
            return self.num_cards
        described = last_match(_GUESS_WORD, answer)
        board = [w.lower() for w in self.board_words()]
        said = described.group(1).lower() if described else cleaned
        if said in board:
            return board.index(said)
        named = {w.lower() for w in _WHOLE_WORD.findall(answer)} & {
            board[i] for i in range(self.num_cards) if not self.revealed[i]}
        if len(named) == 1:
            return board.index(named.pop())
        raise ActionParseError(f"could not read a guess from {text[:200]!r}. {self._guess_help()}")

    def _parse_clue_number(self, str text) -> int:
        answer = _json_value(text, "openended_response")
        if answer is None:
            answer = text
        cleaned = answer.strip().lower()
        for number in range(MAX_CLUE_NUMBER + 1):
            if cleaned == _clue_text(number):
                return number
        if _NUMBER.fullmatch(answer):
            return self._clue_number(answer)
        found = last_match(_WORD_NUMBER, answer)
        if found is None:
            raise ActionParseError(f"could not read the clue's number from {text[:200]!r}. {self._clue_help()}")
        return self._clue_number(found.group(2))

    def _guess_help(self) -> str:
        return ("Answer guess_<index> (e.g. guess_4) or the word to guess, or end_turn to stop guessing; "
                "only unrevealed words can be guessed.")

    def default_action(self, int player):
        """GameBench's fallback clue ("None", 1) on a clue turn; None for an operative (the referee's
        random legal action, as GameBench's random predefined action)."""
        return FALLBACK_NUMBER if self._is_clue_turn(player) else None

    def text_action_spec(self, int player):
        if self._is_clue_turn(player):
            return {"description": "your clue: one word (the message) that is not a board word, nor a part or a "
                                   f"form of one; the action is the number of your team's words it points to, "
                                   f"0-{MAX_CLUE_NUMBER} (0: unlimited guesses). As one reply: 'word,number', "
                                   "e.g. 'ocean,2'",
                    "max_length": 1000, "forbidden_words": self.board_words(), "message": "required",
                    # An acceptable clue now (random agents say it): the same neutral word for a move.
                    "example": self.random_message(player, _random.Random(self.move_number))}
        if self._is_guess_turn(player):
            return {"description": self._guess_help(), "max_length": 1000, "forbidden_words": []}
        return None

    # ---- views --------------------------------------------------------------------------------
    def _turns(self) -> list:
        """The turns so far (the one in progress last), from the moves and the clues said with them."""
        clues = {move: text for move, _, text, _ in self._messages}
        turns = []
        for move, (seat, action) in enumerate(self._history):
            if seat < 0:
                continue
            if seat % 2 == 0:
                turns.append({"team": COLOUR_NAMES[_team_of(seat)], "seat": seat, "clue": clues[move],
                              "number": action, "guesses": [], "passed": False})
            elif action == self.num_cards:
                turns[-1]["passed"] = True
            else:
                turns[-1]["guesses"].append({"index": action, "word": WORDS[self.word[action]].upper(),
                                             "colour": COLOUR_NAMES[self.colour[action]]})
        return turns

    def _sees_key(self, int player) -> bool:
        return player % 2 == 0 or self.phase == OVER

    def _seat_name(self, int seat, bint first=False) -> str:
        return f"{'The' if first else 'the'} {TEAM_NAMES[_team_of(seat)]} {ROLE_NAMES[seat % 2]} (seat {seat})"

    def _guesses_left(self):
        return None if self.clue_number == 0 else self.clue_number + 1 - self.guesses_made

    def _scores(self):
        if self.phase != OVER:
            return None
        returns = self.returns()
        return {"red": returns[0], "blue": returns[2]}

    def observation_dict(self, int player) -> dict:
        check_seat("codenames", player, NUM_SEATS)
        dealt = self.phase != DEAL
        sees_key = self._sees_key(player)
        turns = self._turns()
        return {
            "seat": player,
            "team": COLOUR_NAMES[_team_of(player)],
            "role": ROLE_NAMES[player % 2],
            "teammate": player ^ 1,
            "phase": ("deal", "clue", "guess", "over")[self.phase],
            "cards_dealt": self.dealt,
            "card_counts": {COLOUR_NAMES[c]: self.colour_count[c] for c in range(4)},
            "board": [{"index": i, "word": WORDS[self.word[i]].upper(),
                       "colour": COLOUR_NAMES[self.colour[i]] if sees_key or self.revealed[i] else None,
                       "revealed": bool(self.revealed[i])} for i in range(self.num_cards)] if dealt else [],
            "left": {COLOUR_NAMES[t]: self.colour_count[t] - self.found[t] for t in (RED, BLUE)},
            "to_move": COLOUR_NAMES[self.team] if self.phase in (CLUE, GUESS) else None,
            "turn": self.turns_done + 1 if self.phase in (CLUE, GUESS) else None,
            "max_turns": self.max_turns,
            "clue": ({"word": turns[-1]["clue"], "number": self.clue_number} if self.phase == GUESS else None),
            "guesses_made": self.guesses_made if self.phase == GUESS else None,
            "guesses_left": self._guesses_left() if self.phase == GUESS else None,
            "turns": turns,
            "conversation": self.conversation(player),
            "winner": COLOUR_NAMES[self.winner] if self.winner >= 0 else None,
            "ending": ENDINGS.get(self.ending),
            "scores": self._scores(),
        }

    def observation_string(self, int player) -> str:
        check_seat("codenames", player, NUM_SEATS)
        team = TEAM_NAMES[_team_of(player)]
        lines = [self._rules_text(),
                 f"You are the {team} {ROLE_NAMES[player % 2]} (seat {player}); your teammate is "
                 f"{self._seat_name(player ^ 1)}."]
        if self.phase == DEAL:
            lines.append(f"The board is being dealt ({self.dealt} of {self.num_cards} words).")
            return "\n".join(lines)
        sees_key = self._sees_key(player)
        lines.append("Board:")
        for i in range(self.num_cards):
            shown = COLOUR_NAMES[self.colour[i]].upper() if sees_key or self.revealed[i] else "UNKNOWN"
            lines.append(f"  {i}. {WORDS[self.word[i]].upper()} ({shown}) "
                         f"({'REVEALED' if self.revealed[i] else 'HIDDEN'})")
        lines.append(f"Words left to find: Red {self.colour_count[RED] - self.found[RED]}, "
                     f"Blue {self.colour_count[BLUE] - self.found[BLUE]}.")
        for number, turn in enumerate(self._turns(), 1):
            guesses = ", ".join(f"{g['word']} ({g['colour'].upper()})" for g in turn["guesses"]) or "none"
            lines.append(f"Turn {number}, {turn['team'].capitalize()}: {self._seat_name(turn['seat'])} gave the "
                         f"clue \"{turn['clue']}\" {_for_cards(turn['number'])}; guesses: {guesses}"
                         + ("; the operative ended the turn." if turn["passed"] else "."))
        lines.append(self._status_text(player))
        return "\n".join(lines)

    def _status_text(self, int player) -> str:
        if self.phase == OVER:
            return self._outcome_text()
        spymaster, operative = 2 * self.team, 2 * self.team + 1
        turn = f"Turn {self.turns_done + 1} of at most {self.max_turns}, {TEAM_NAMES[self.team]} to play."
        if self.phase == CLUE:
            if player == spymaster:
                return f"{turn} Your move: give a clue. {self._clue_help()}"
            return f"{turn} {self._seat_name(spymaster, True)} is giving a clue."
        clue = self._turns()[-1]["clue"]
        left = self._guesses_left()
        allowed = "any number of guesses" if left is None else f"{left} more guess" + ("" if left == 1 else "es")
        said = (f"The clue is \"{clue}\" {_for_cards(self.clue_number)}; {self.guesses_made} guess"
                f"{'' if self.guesses_made == 1 else 'es'} made so far, {allowed} allowed.")
        if player == operative:
            return f"{turn} {said} Your move: guess a word or end the turn. {self._guess_help()}"
        return f"{turn} {said} {self._seat_name(operative, True)} is guessing."

    def _outcome_text(self) -> str:
        scores = self._scores()
        shares = f"scores: Red {scores['red']:.4g}, Blue {scores['blue']:.4g}"
        if self.ending == ALL_FOUND:
            return f"Game over: {TEAM_NAMES[self.winner]} found all its words and wins; {shares}."
        if self.ending == ASSASSIN_FOUND:
            return (f"Game over: {TEAM_NAMES[1 - self.winner]} revealed the assassin; {TEAM_NAMES[self.winner]} "
                    f"wins; {shares}.")
        return f"Game over: the limit of {self.max_turns} turns was reached with no winner; {shares}."

    def _rules_text(self) -> str:
        counts = self.colour_count
        return (f"Codenames: Red against Blue, each a spymaster and an operative. The board has {self.num_cards} "
                f"words: {counts[RED]} Red, {counts[BLUE]} Blue, {counts[NEUTRAL]} neutral and 1 assassin; only "
                f"the spymasters see the colours. Red plays first. On a team's turn its spymaster gives a clue: "
                f"one word (not a board word, nor a part or a form of one) and a number N from 0 to "
                f"{MAX_CLUE_NUMBER}; its operative then guesses words one at a time, up to N + 1 guesses (any "
                f"number when N is 0), and may end the turn at any time. A word of the team's colour lets it go "
                f"on; a neutral or an opposing word ends the turn; the assassin ends the game and the guessing "
                f"team loses. A team wins once all its words are revealed. Score: each team's revealed words, "
                f"3 more for the winner, 0 for a team that revealed the assassin, shared out to sum to 1.")

    def public_history(self) -> list:
        """One line for the deal once it is complete (the draws would tell the colours), then every move."""
        out = []
        for seat, action in self._history:
            if seat >= 0:
                out.append((seat, action, self.action_to_string(seat, action)))
        if self.phase != DEAL:
            out.insert(0, (CHANCE_PLAYER, -1, "the board is dealt: " + ", ".join(self.board_words())))
        return out

    def result_summary(self) -> str:
        return self._outcome_text() if self.phase == OVER else "game in progress"

    def result_details(self) -> dict:
        cdef int points[2]
        if self.phase == DEAL:
            return {}
        details = {
            "board": [{"word": WORDS[self.word[i]].upper(), "colour": COLOUR_NAMES[self.colour[i]],
                       "revealed": bool(self.revealed[i])} for i in range(self.num_cards)],
            "turns": self._turns(),
            "found": {"red": self.found[RED], "blue": self.found[BLUE]},
            "assassin_revealed": bool(self.assassin_revealed),
            "winner": COLOUR_NAMES[self.winner] if self.winner >= 0 else None,
            "ending": ENDINGS.get(self.ending),
        }
        if self.phase == OVER:
            self._points(points)
            details["points"] = {"red": points[RED], "blue": points[BLUE]}
            details["scores"] = self._scores()
        return details


def _json_value(str text, str key):
    """The last value of a JSON field `key` ("action" or "openended_response") in `text`, or None."""
    value = None
    for found in _JSON_VALUE.finditer(text):
        if found.group(1).lower() == key:
            value = found.group(2)
    return value


class Game(GameBase):
    """Codenames with validated parameters; always four seats."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        first = checked_int(values, "first_team_cards", 1, MAX_TEAM_CARDS)
        second = checked_int(values, "second_team_cards", 1, MAX_TEAM_CARDS)
        cards = first + second + 1 + checked_int(values, "neutral_cards", 0, MAX_CARDS - 1 - first - second)
        checked_int(values, "vocabulary", cards, len(WORDS))
        checked_int(values, "max_turns", 1, MAX_TURNS)

    def new_initial_state(self) -> CodenamesState:
        return CodenamesState(self)

    def seat_sides(self) -> list:
        return [0, 0, 1, 1]

    def state_from_view(self, int player, dict view) -> CodenamesState:
        """A state consistent with seat `player`'s view: the board with the key when the seat sees it,
        otherwise the revealed colours and the other colours handed out in board order; then every
        turn replayed with its clue."""
        check_seat("codenames", player, NUM_SEATS)
        state = self.new_initial_state()
        if view["phase"] == "deal":
            for word_id in range(view["cards_dealt"]):      # nobody has seen the words drawn so far
                state.apply_action(word_id)
            return state
        board = view["board"]
        colours = [card["colour"] for card in board]
        left = []
        for name in COLOUR_NAMES:
            left += [name] * (view["card_counts"][name] - colours.count(name))
        unknown = iter(left)
        colours = [c if c is not None else next(unknown) for c in colours]
        for name in COLOUR_NAMES:           # the key's slot order: Red, Blue, assassin, neutral
            for card, colour in zip(board, colours):
                if colour == name:
                    state.apply_action(_WORD_ID[card["word"].lower()])
        end_turn = len(board)
        for turn in view["turns"]:
            state.apply_action(turn["number"], turn["clue"])
            for guess in turn["guesses"]:
                state.apply_action(guess["index"])
            if turn["passed"]:
                state.apply_action(end_turn)
        return state
