"""Who is the Undercover, as played in LLMArena (Chen et al., ACL 2024; reference llmarena.md §2.4) and
in MAgIC (Xu, Hu et al., arXiv 2311.08562; reference magic.md §2.2).

Rules. N players ("players", 3-8). Two similar words are drawn: every civilian gets one, the single
undercover gets the other. Play goes in vote rounds (at most "vote_rounds"). In each vote round every
player still in the game gives a clue about their word, in seat order, "clue_rounds" times over; a
clue is one line, never the player's own word (nor a regular plural of it), never a repeat of a clue
said earlier in the game. Then every player still in the game votes at the same time, in secret,
for another player still in the game (or abstains, when "abstain" is on). The most-voted player is
voted out; a tie is settled by "tie_rule":
  - "random": one of the tied players is voted out, uniformly at random (LLMArena);
  - "even": the vote is even, the accusation does not stand and the game ends with no winner (MAgIC).
If the undercover is voted out the civilians win. Otherwise the voted-out civilian leaves the game
(no more clues or votes, cannot be voted for) and the undercover wins once an elimination leaves at
most "undercover_wins_at" players, or when the last vote round is over; else the next round begins.
A single vote (MAgIC's accusation) is "vote_rounds" 1: the accused player is voted out and the game
ends either way.

Returns: the winning side +1 and the losing side -1 (the undercover against all civilians, as in
LLMArena's code); 0 for everyone after an even vote. result_details carries MAgIC's role credits
(undercover 3/0/2, civilian 0/3/1 for undercover won / civilians won / even vote); see
`magic_role_win_rate` for the role win rate computed from them.

Chance. Two chance nodes deal the game: first the words, outcome 2k + f for pair k of
undercover_words.WORD_PAIRS (the civilians get its word f, the undercover the other; 78 pairs, 156
equally likely outcomes), then the undercover's seat (uniform). Under tie_rule "random", every vote
is followed by a counting chance node whose outcomes are the players with the most votes, equally
likely (a single outcome of probability 1 when one player has the most votes), so no view can tell
a tie from a clear vote.

Actions (N players): 0..N-1 = vote for that seat; N = "give a clue" (the only action of a clue turn,
with a REQUIRED message: the clue); N+1 = "abstain" (legal only when "abstain" is on). Action texts:
"vote for player_2" (or "vote for Player 3" with MAgIC's names), "give a clue", "abstain".
Seat names ("seat_names"): "llmarena" names seat k "player_k" (player_0 first); "magic" names it
"Player k+1" (Player 1 first).

Answers. A clue is the decision's message. `read_reply` takes it from a free-text reply as the papers
asked for it: LLMArena's "player_2: It's a fruit." (the text after the seat's own name and a colon,
first occurrence, as the code's parser), MAgIC's "My clue is: ..." / "My second clue is: ...", or else
the whole reply. `check_message` strips those prefixes, refuses a clue that is on several lines,
longer than 200 characters, holds the seat's own word (or its plural) or repeats an earlier clue
(case and punctuation aside), and stores a blank clue as " ". A vote is read by `parse_action` from:
  1. LLMArena's "vote: player_1." (the first "vote:", then the first player name or number after it);
  2. MAgIC's "I vote for Player 2." (the first "vote for <name>");
  3. "abstain" (when allowed), or a reply that names exactly one player.
Player names are read as "player" plus a number, with or without "_" or a space; the number follows the
game's seat names (0-based for "llmarena", 1-based for "magic").

Information. A seat sees its own word (its role only when "roles_told"), every clue said so far
(`conversation`, also in the views), who was voted out in which round (and so that this player was
a civilian, since the game went on), and its own past votes. It never sees another seat's word or
role, or another seat's vote, before the end: votes are a secret ballot in both papers (LLMArena's
observation holds the clues only; MAgIC's moderator keeps votes private and announces the result).
`public_history` holds the deals and the counts as summaries, every "give a clue" move and one line
per resolved vote (who was voted out, or the even vote). At the end every view and result_details
reveal the words, the undercover and every vote.

Presets.
  - "llmarena": LLMArena's Undercover (§2.4): 5 players, one clue each per round, then a secret vote;
    the most-voted player is voted out, ties broken at random; at most two rounds; the undercover
    wins when it survives them (equivalently when 3 players remain, the code's rule); roles not told;
    names player_0..player_4; no abstention: an unreadable vote falls back to a random valid target
    (the referee's random legal action; `default_action` is None for votes).
  - "magic": MAgIC's Undercover (§2.2, Table 3): 3 players, two clue rounds (Player 1, 2, 3 each
    round), then one vote; the most-voted player is accused: the undercover → civilians won, a
    civilian → undercover won; a tie → even vote. Roles not told; names Player 1..Player 3; an
    "abstain" action exists and is `default_action` (an unparseable vote counts for nobody, §2.6).

Ambiguities (llmarena.md §6, magic.md §6).
  - Tie-break, eliminated players, end, order (llmarena #16): as recommended, a random tie-break,
    voted-out players leave the game, the game goes on until the undercover is out or at most 3 are
    left (two rounds from 5), clues in seat order.
  - Undercover seat (llmarena #16, #24: "undercover last"; magic A13: fixed per setting): drawn at
    random by a chance node. A public fixed seat would tell every player who the undercover is;
    LLMArena's random seating of agents over a fixed seat has the same effect as this draw. To
    evaluate an agent as the undercover (LLMArena's protocol), a suite seats it at random and sets
    the secret parameter "undercover_seat" to its seat: the draw then has that one outcome, and the
    server shows no seat the parameter before the end (determinization still redraws the seat from
    what the player saw). result_details["undercover"] names the seat. The secret parameter "deal"
    likewise pins the words (MAgIC's 20 fixed competitions, each played in both roles).
  - Word list (llmarena #16: the code's 69 pairs, "replaceable"; magic A21: settings unpublished):
    this project's own 78 pairs (undercover_words.py), which side of a pair the civilians get drawn
    too. Neither paper's list is used.
  - Roles: not told in either preset. LLMArena's observation is the player's name, word and clues
    (§2.4), and its Table 4 notes that only GPT-4 recognised being the undercover; MAgIC says so
    explicitly. "roles_told" switches it on.
  - A voted-out civilian: neither paper announces the role, but the game going on shows it was not
    the undercover; the views say so.
  - Illegal answers (llmarena §2.4, magic §2.6): an unparseable clue becomes the blank clue " "
    (`default_message`; MAgIC's recommended empty clue is the same blank clue); an unparseable vote is
    a random valid target under "llmarena" and an abstention under "magic". Self-votes and votes for
    voted-out players are not legal.
  - MAgIC's vote parser (first player name, with a GPT-3.5 fallback, §2.2) is replaced by the
    deterministic parser above (A19, §2.2 [Rec]).
  - MAgIC's credit normaliser (A2): `magic_role_win_rate` divides by 3n by default (the code, win
    rates in [0, 1]) and by 2n with normaliser=2 (the paper as printed).
  - Even votes and Deception (A3): the outcome is named in result_details ("even_vote"), so the
    scorer decides whether it counts as a win; returns treat it as a draw.
  - Judgment (A11, A12): result_details lists every vote and the undercover, so correct votes of the
    seats an agent played as a civilian can be counted.
  - MAgIC's pre-recorded defender clues (A14) are a suite matter; the engine plays live clues only.

Metric probes (magic.md §4 items 3 and 5; `probes()`), in games with MAgIC's seat names (the "magic"
preset): after each clue round, at the released code's time, every seat still in the game is asked the
self-awareness question (template "I am Player xx, my role is undercover/non-undercover/not sure,
because ...") and the reasoning question (numbered lines "I think Player x is the undercover, because
..." and, per other player, "I think Player y thinks Player x is the undercover, because ..."). Probe
ids are "<metric>-<turn>-<seat>", turn k being the k-th clue round of the game; the data holds {"metric",
"turn"} only. The questions are the same for every seat and role (roles are not told) and the answers
never affect the game; they are scored from result_details (arena_server/ratings/magic_scores.py).
"""

from libc.string cimport memcpy, memset

import random as _random
import re

from arena_engines.core cimport (CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State,
                                 rng_below)
from arena_engines.core import ActionParseError, TextRejectedError
from arena_engines.parsing import check_seat, neutral_clue, repeated_clue
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_choice, checked_int
from arena_engines.undercover_words import WORD_PAIRS

cdef enum:
    MAX_PLAYERS = 8
    MAX_VOTE_ROUNDS = 6
    MAX_CLUE_ROUNDS = 5
    MAX_PAIRS = 256
    MAX_WORDS = 512
    NO_VOTE = -1            # a seat out of the game when the vote was cast
    VOTE_DRAWS = 1000       # attempts at redrawing one round's votes (resample_hidden)

# Phases of the game.
cdef enum:
    DEAL_WORDS = 0
    DEAL_ROLES = 1
    CLUES = 2
    VOTE = 3
    COUNT = 4
    OVER = 5

# Outcomes.
cdef enum:
    PLAYING = 0
    UNDERCOVER_WON = 1
    CIVILIANS_WON = 2
    EVEN_VOTE = 3

MAX_CLUE_LENGTH = 200
BLANK_CLUE = " "                    # LLMArena's fallback clue (llmarena.md §2.4)
TIE_RULES = ("random", "even")
SEAT_NAMES = ("llmarena", "magic")
OUTCOME_NAMES = {UNDERCOVER_WON: "undercover_won", CIVILIANS_WON: "civilians_won", EVEN_VOTE: "even_vote"}
# MAgIC's role credits (magic.md §2.2): credit of each role for each outcome.
MAGIC_CREDITS = {
    "undercover": {"undercover_won": 3, "civilians_won": 0, "even_vote": 2},
    "civilian": {"undercover_won": 0, "civilians_won": 3, "even_vote": 1},
}

_LLMARENA = {"players": 5, "vote_rounds": 2, "clue_rounds": 1, "undercover_wins_at": 3, "tie_rule": "random",
             "abstain": False, "roles_told": False, "seat_names": "llmarena"}
_MAGIC = {"players": 3, "vote_rounds": 1, "clue_rounds": 2, "undercover_wins_at": 3, "tie_rule": "even",
          "abstain": True, "roles_told": False, "seat_names": "magic"}

SPEC = GameSpec(
    game_id="undercover",
    display_name="Who is the Undercover",
    rules_version="1",
    min_players=3,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="stochastic",
    information="imperfect",
    utility="general_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=2 + MAX_VOTE_ROUNDS * (MAX_CLUE_ROUNDS * MAX_PLAYERS + 2),
    description="Civilians share a secret word, the undercover has a similar one. Players give clues in "
                "turn, then vote in secret; the civilians win by voting the undercover out, the undercover "
                "by surviving.",
    parameters=(
        Parameter("players", 5, f"number of players, 3-{MAX_PLAYERS}"),
        Parameter("vote_rounds", 2, f"at most this many vote rounds, 1-{MAX_VOTE_ROUNDS} (1: a single vote)"),
        Parameter("clue_rounds", 1, f"clues each player gives before each vote, 1-{MAX_CLUE_ROUNDS}"),
        Parameter("undercover_wins_at", 3, f"the undercover wins once an elimination leaves at most this many "
                                           f"players, 2-{MAX_PLAYERS}"),
        Parameter("tie_rule", "random", "a tied vote: 'random' votes out one of the tied players at random; "
                                        "'even' ends the game with no winner"),
        Parameter("abstain", False, "players may abstain from a vote (the default action of a vote)"),
        Parameter("roles_told", False, "each player is told whether it is the undercover"),
        Parameter("seat_names", "llmarena", "'llmarena': player_0, player_1, ...; 'magic': Player 1, Player 2, ..."),
        Parameter("undercover_seat", -1, "the undercover's seat, or -1 to draw it at random; secret until the end "
                                         "(a suite sets it to seat the agent it evaluates as the undercover)",
                  secret=True),
        Parameter("deal", -1, f"the words: 2k + f deals pair k of undercover_words.WORD_PAIRS with the civilians on "
                              f"its word f (0-{2 * len(WORD_PAIRS) - 1}), or -1 to draw them at random; secret until "
                              f"the end (a suite pins a competition's words)", secret=True),
    ),
    presets=(
        Preset("llmarena", "LLMArena (Chen et al., 2024): 5 players, one clue each then a secret vote per round, the "
               "most-voted player is out (ties at random), at most two rounds; the undercover wins by surviving. "
               "Clue 'player_2: <clue>'; vote 'vote: player_1.'", _LLMARENA),
        Preset("magic", "MAgIC (Xu, Hu et al., 2024): 3 players, two clue rounds then one secret vote; the most-voted "
               "player is accused; a tie is an even vote. Clue 'My clue is: <clue>'; vote 'I vote for Player 2.'; "
               "an unreadable vote abstains.", _MAGIC),
    ),
    accepts_text_actions=True,
    dialogue=True,
)


def _variants(word: str) -> tuple:
    """The word and its regular plurals: what a clue may not contain."""
    forms = [word, word + "s", word + "es"]
    if word.endswith("y"):
        forms.append(word[:-1] + "ies")
    if word.endswith("f"):
        forms.append(word[:-1] + "ves")
    return tuple(forms)


def _mention_pattern(word: str):
    alternatives = "|".join(re.escape(form) for form in _variants(word))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


WORDS = tuple(dict.fromkeys(word for pair in WORD_PAIRS for word in pair))
_WORD_ID = {word: i for i, word in enumerate(WORDS)}
_MENTIONS = tuple(_mention_pattern(word) for word in WORDS)

# The pairs as word ids, for the C-level resampling.
cdef int _pair_word[MAX_PAIRS][2]
cdef int _num_pairs = len(WORD_PAIRS)
if not 0 < _num_pairs <= MAX_PAIRS or len(WORDS) > MAX_WORDS:
    raise ImportError("undercover_words.WORD_PAIRS is larger than the engine's arrays")
for _k, (_a, _b) in enumerate(WORD_PAIRS):
    if _a == _b:
        raise ImportError(f"undercover_words.WORD_PAIRS pairs {_a!r} with itself")
    _pair_word[_k][0] = _WORD_ID[_a]
    _pair_word[_k][1] = _WORD_ID[_b]

# Playthroughs (arena_engines.playthrough) play the presets as they are: both are short.
PLAYTHROUGH_OVERRIDES = {None: {}}

_NAME = re.compile(r"player[ _]?(\d+)", re.IGNORECASE)
_VOTE_COLON = re.compile(r"vote\s*:\s*(.*)", re.IGNORECASE)
_VOTE_FOR = re.compile(r"vote\s+for\s+(?:the\s+)?player[ _]?(\d+)", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")
_ABSTAIN = re.compile(r"(?<!\w)abstain(?!\w)", re.IGNORECASE)
_CLUE_PREFIX = re.compile(r"^my(?:\s+\w+)?\s+clue\s+is\s*:\s*", re.IGNORECASE)
_CLUE_LINE = re.compile(r"my(?:\s+\w+)?\s+clue\s+is\s*:\s*(.*)", re.IGNORECASE)


def mentions(str text, str word) -> bool:
    """Whether `text` contains `word` or a regular plural of it, as a whole word, any case."""
    pattern = _MENTIONS[_WORD_ID[word]] if word in _WORD_ID else _mention_pattern(word)
    return pattern.search(text) is not None


def magic_role_win_rate(outcomes, str role, int normaliser=3) -> float:
    """MAgIC's credit-based win rate of a role over n games (magic.md §4 item 1): the sum of the role's
    credits (MAGIC_CREDITS) over the games' outcomes ("undercover_won", "civilians_won", "even_vote"),
    divided by normaliser * n: 3 (the code, the default) or 2 (the paper as printed, §6 A2)."""
    outcomes = list(outcomes)
    if not outcomes:
        raise ValueError("magic_role_win_rate needs at least one game")
    if normaliser not in (2, 3):
        raise ValueError(f"normaliser is 3 (code) or 2 (paper), not {normaliser}")
    credits = MAGIC_CREDITS[role]
    return sum(credits[o] for o in outcomes) / (normaliser * len(outcomes))


cdef inline int _civilian_word(int deal) noexcept:
    return _pair_word[deal // 2][deal % 2]


cdef inline int _undercover_word(int deal) noexcept:
    return _pair_word[deal // 2][1 - deal % 2]


cdef class UndercoverState(State):
    cdef int vote_rounds, clue_rounds, wins_at
    cdef bint tie_random, abstain_allowed, roles_told
    cdef bint magic_probes                  # MAgIC's metric probes are asked (its seat names, "magic")
    cdef int phase, outcome
    cdef int deal                           # words outcome 2k + f, -1 until drawn
    cdef int undercover                     # seat, -1 until drawn
    cdef int fixed_undercover               # the "undercover_seat" parameter: -1, or the seat the draw gives
    cdef int fixed_deal                     # the "deal" parameter: -1, or the words outcome the draw gives
    cdef int round_index                    # current vote round (the last one once over)
    cdef int votes_done                     # resolved votes
    cdef int clue_round, speaker            # current clue round; seat giving a clue, -1 otherwise
    cdef int alive[MAX_PLAYERS]
    cdef int num_alive
    cdef int out_round[MAX_PLAYERS]         # round in which a seat was voted out, -1 while in
    cdef int voted_out[MAX_VOTE_ROUNDS]     # seat voted out in each round, -1 (even vote, or none yet)
    cdef int votes[MAX_VOTE_ROUNDS][MAX_PLAYERS]   # target seat, the abstain action, or NO_VOTE
    cdef unsigned char said[MAX_PLAYERS][MAX_WORDS]  # 1 when a seat's clues mention a word (a word it lacks)
    cdef list _clues                        # (round, clue round, seat, text) for the views
    cdef tuple _names

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.vote_rounds = p["vote_rounds"]
        self.clue_rounds = p["clue_rounds"]
        self.wins_at = p["undercover_wins_at"]
        self.tie_random = p["tie_rule"] == "random"
        self.abstain_allowed = p["abstain"]
        self.roles_told = p["roles_told"]
        self.magic_probes = p["seat_names"] == "magic"
        self.fixed_undercover = p["undercover_seat"]
        self.fixed_deal = p["deal"]
        self._names = tuple(seat_name(p["seat_names"], i) for i in range(self.num_players))
        self.phase = DEAL_WORDS
        self.outcome = PLAYING
        self.deal = -1
        self.undercover = -1
        self.round_index = 0
        self.votes_done = 0
        self.clue_round = 0
        self.speaker = -1
        self.num_alive = self.num_players
        for i in range(MAX_PLAYERS):
            self.alive[i] = i < self.num_players
            self.out_round[i] = -1
        for r in range(MAX_VOTE_ROUNDS):
            self.voted_out[r] = -1
            for i in range(MAX_PLAYERS):
                self.votes[r][i] = NO_VOTE
        memset(&self.said[0][0], 0, sizeof(self.said))
        self._clues = []

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == CLUES:
            return self.speaker
        if self.phase == VOTE:
            return SIMULTANEOUS_PLAYER
        if self.phase == OVER:
            return TERMINAL_PLAYER
        return CHANCE_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        if player < 0 or player >= self.num_players:
            return False
        if self.phase == VOTE:
            return self.alive[player]
        return self.phase == CLUES and player == self.speaker

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int seat, n = 0
        if not self.c_is_acting(player):
            return 0
        if self.phase == CLUES:
            out[0] = self.num_players        # give a clue
            return 1
        for seat in range(self.num_players):
            if self.alive[seat] and seat != player:
                out[n] = seat
                n += 1
        if self.abstain_allowed:
            out[n] = self.num_players + 1
            n += 1
        return n

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int i, n = 0
        cdef int most[MAX_PLAYERS]
        if self.phase == DEAL_WORDS:
            if self.fixed_deal >= 0:              # set by a secret parameter: the draw has one outcome
                actions[0] = self.fixed_deal
                probs[0] = 1.0
                return 1
            n = 2 * _num_pairs
            for i in range(n):
                actions[i] = i
                probs[i] = 1.0 / n
        elif self.phase == DEAL_ROLES:
            if self.fixed_undercover >= 0:        # set by a secret parameter: the draw has one outcome
                actions[0] = self.fixed_undercover
                probs[0] = 1.0
                return 1
            n = self.num_players
            for i in range(n):
                actions[i] = i
                probs[i] = 1.0 / n
        elif self.phase == COUNT:
            n = self._most_voted(self.round_index, most)
            for i in range(n):
                actions[i] = most[i]
                probs[i] = 1.0 / n
        return n

    cdef int _most_voted(self, int r, int* most) noexcept:
        """Writes the seats still in the game with the most votes in round r; returns their count."""
        cdef int counts[MAX_PLAYERS]
        cdef int seat, target, best = -1, n = 0
        for seat in range(self.num_players):
            counts[seat] = 0
        for seat in range(self.num_players):
            target = self.votes[r][seat]
            if 0 <= target < self.num_players:
                counts[target] += 1
        for seat in range(self.num_players):
            if self.alive[seat] and counts[seat] > best:
                best = counts[seat]
        for seat in range(self.num_players):
            if self.alive[seat] and counts[seat] == best:
                most[n] = seat
                n += 1
        return n

    cdef void c_apply_action(self, int action) noexcept:
        if self.phase == DEAL_WORDS:
            self.deal = action
            self.phase = DEAL_ROLES
        elif self.phase == DEAL_ROLES:
            self.undercover = action
            self._start_clues()
        elif self.phase == CLUES:
            self._next_speaker()
        elif self.phase == COUNT:
            self._vote_out(action)

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int r = self.round_index
        cdef int seat
        cdef int most[MAX_PLAYERS]
        for seat in range(self.num_players):
            self.votes[r][seat] = actions[seat] if self.alive[seat] else NO_VOTE
        if self.tie_random:
            self.phase = COUNT
        elif self._most_voted(r, most) == 1:
            self._vote_out(most[0])
        else:
            self.outcome = EVEN_VOTE
            self.votes_done += 1
            self.phase = OVER

    cdef void _start_clues(self) noexcept:
        self.phase = CLUES
        self.clue_round = 0
        self.speaker = self._first_alive_after(-1)

    cdef int _first_alive_after(self, int seat) noexcept:
        cdef int s
        for s in range(seat + 1, self.num_players):
            if self.alive[s]:
                return s
        return -1

    cdef void _next_speaker(self) noexcept:
        self.speaker = self._first_alive_after(self.speaker)
        if self.speaker >= 0:
            return
        self.clue_round += 1
        if self.clue_round < self.clue_rounds:
            self.speaker = self._first_alive_after(-1)
        else:
            self.phase = VOTE

    cdef void _vote_out(self, int seat) noexcept:
        cdef int r = self.round_index
        self.voted_out[r] = seat
        self.out_round[seat] = r
        self.alive[seat] = False
        self.num_alive -= 1
        self.votes_done += 1
        if seat == self.undercover:
            self.outcome = CIVILIANS_WON
            self.phase = OVER
        elif self.num_alive <= self.wins_at or r + 1 >= self.vote_rounds:
            self.outcome = UNDERCOVER_WON
            self.phase = OVER
        else:
            self.round_index += 1
            self._start_clues()

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        cdef double civilians = 0.0
        if self.outcome == UNDERCOVER_WON:
            civilians = -1.0
        elif self.outcome == CIVILIANS_WON:
            civilians = 1.0
        for seat in range(self.num_players):
            out[seat] = -civilians if seat == self.undercover else civilians

    cdef int _word_of(self, int seat) noexcept:
        return _undercover_word(self.deal) if seat == self.undercover else _civilian_word(self.deal)

    cdef bint _assignment_fits(self, int player, int own_word, bint own_role_known, bint is_undercover,
                               int deal, int undercover) noexcept:
        """Whether words `deal` with the undercover at `undercover` agree with what `player` saw: its
        own word (and its role when told), the undercover still in the game, and no seat's clue
        holding that seat's word."""
        cdef int seat, word
        if not self.alive[undercover]:
            return False
        if own_role_known and (undercover == player) != is_undercover:
            return False
        if (_undercover_word(deal) if undercover == player else _civilian_word(deal)) != own_word:
            return False
        for seat in range(self.num_players):
            word = _undercover_word(deal) if seat == undercover else _civilian_word(deal)
            if self.said[seat][word]:
                return False
        return True

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Hidden from `player`: the other word, the undercover's seat and the other seats' votes. The
        # words and the seat are drawn uniformly among the assignments that fit its view (each has the
        # same prior probability); the votes of each resolved round are redrawn until they give the
        # round's announced result. Only what the player sees is read, so that a state rebuilt from
        # the view (state_from_view) resamples like the real one.
        cdef int deal, seat, chosen, r, count = 0
        cdef int own_word
        cdef bint is_undercover
        if self.phase == DEAL_WORDS or self.phase == OVER:
            return                              # nothing dealt yet, or everything revealed
        if self.phase == DEAL_ROLES:
            self.deal = rng_below(rng, 2 * _num_pairs)      # nobody has a word yet
            return
        own_word = self._word_of(player)
        is_undercover = player == self.undercover
        for deal in range(2 * _num_pairs):
            for seat in range(self.num_players):
                count += self._assignment_fits(player, own_word, self.roles_told, is_undercover, deal, seat)
        if count > 0:
            chosen = rng_below(rng, count)
            for deal in range(2 * _num_pairs):
                for seat in range(self.num_players):
                    if self._assignment_fits(player, own_word, self.roles_told, is_undercover, deal, seat):
                        if chosen == 0:
                            self.deal = deal
                            self.undercover = seat
                        chosen -= 1
        for r in range(self.votes_done):
            self._redraw_votes(r, player, rng, True)
        if self.phase == COUNT:
            self._redraw_votes(self.round_index, player, rng, False)

    cdef void _redraw_votes(self, int r, int player, Rng* rng, bint resolved) noexcept:
        """New votes of the seats other than `player` in round r: any legal ones while the round is
        being counted, else ones that give the round's result (the voted-out seat among the most voted
        under a random tie-break, the only most-voted one otherwise, or a tie for an even vote). If no
        draw succeeds the votes are left as they are."""
        cdef int saved[MAX_PLAYERS]
        cdef int options[MAX_PLAYERS + 1]
        cdef int most[MAX_PLAYERS]
        cdef int attempt, seat, other, m, n_most, i
        cdef bint fits
        memcpy(saved, self.votes[r], sizeof(saved))
        # The seats in the game during round r are the ones to count: restore them for _most_voted.
        for seat in range(self.num_players):
            self.alive[seat] = self.out_round[seat] < 0 or self.out_round[seat] >= r
        for attempt in range(VOTE_DRAWS):
            for seat in range(self.num_players):
                if seat == player or self.votes[r][seat] == NO_VOTE:
                    continue
                m = 0
                for other in range(self.num_players):
                    if self.alive[other] and other != seat:
                        options[m] = other
                        m += 1
                if self.abstain_allowed:
                    options[m] = self.num_players + 1
                    m += 1
                self.votes[r][seat] = options[rng_below(rng, m)]
            if not resolved:
                break
            n_most = self._most_voted(r, most)
            if self.voted_out[r] < 0:
                fits = n_most > 1
            elif self.tie_random:
                fits = False
                for i in range(n_most):
                    fits = fits or most[i] == self.voted_out[r]
            else:
                fits = n_most == 1 and most[0] == self.voted_out[r]
            if fits:
                break
            if attempt == VOTE_DRAWS - 1:
                memcpy(self.votes[r], saved, sizeof(saved))
        for seat in range(self.num_players):
            self.alive[seat] = self.out_round[seat] < 0

    cdef State c_clone(self):
        cdef UndercoverState s = UndercoverState.__new__(UndercoverState)
        self._copy_base_into(s)
        s.vote_rounds = self.vote_rounds
        s.clue_rounds = self.clue_rounds
        s.wins_at = self.wins_at
        s.tie_random = self.tie_random
        s.abstain_allowed = self.abstain_allowed
        s.roles_told = self.roles_told
        s.magic_probes = self.magic_probes
        s.fixed_undercover = self.fixed_undercover
        s.fixed_deal = self.fixed_deal
        s.phase = self.phase
        s.outcome = self.outcome
        s.deal = self.deal
        s.undercover = self.undercover
        s.round_index = self.round_index
        s.votes_done = self.votes_done
        s.clue_round = self.clue_round
        s.speaker = self.speaker
        s.num_alive = self.num_alive
        memcpy(s.alive, self.alive, sizeof(self.alive))
        memcpy(s.out_round, self.out_round, sizeof(self.out_round))
        memcpy(s.voted_out, self.voted_out, sizeof(self.voted_out))
        memcpy(&s.votes[0][0], &self.votes[0][0], sizeof(self.votes))
        memcpy(&s.said[0][0], &self.said[0][0], sizeof(self.said))
        s._clues = list(self._clues)        # entries are tuples, never changed in place
        s._names = self._names
        return s

    # ---- dialogue -----------------------------------------------------------------------------
    def _own_word(self, int player):
        return WORDS[self._word_of(player)] if self.undercover >= 0 else None

    def _is_clue_turn(self, int player) -> bool:
        return self.phase == CLUES and player == self.speaker

    def _is_vote_turn(self, int player) -> bool:
        return self.phase == VOTE and 0 <= player < self.num_players and bool(self.alive[player])

    def _own_name(self, int player) -> str:
        """A pattern matching the seat's name as an agent may write it (player_2, Player 2, player2)."""
        return rf"player[ _]?{self._name_number(player)}(?!\d)"

    def _name_number(self, int seat) -> int:
        return int(_NUMBER.search(self._names[seat]).group())

    def check_message(self, int player, str text) -> str:
        """The clue to store: LLMArena's "player_k:" and MAgIC's "My clue is:" prefixes stripped, a
        blank clue stored as " "; refused when on several lines, too long, holding the seat's own word
        (or a plural of it) or repeating an earlier clue."""
        if not self._is_clue_turn(player):
            raise TextRejectedError("only a player giving a clue says something")
        prefix = re.compile(rf"^{self._own_name(player)}\s*:\s*", re.IGNORECASE)
        clue = text.strip()
        while True:
            stripped = _CLUE_PREFIX.sub("", prefix.sub("", clue, count=1), count=1).strip()
            if stripped == clue:
                break
            clue = stripped
        if not clue:
            return BLANK_CLUE
        if "\n" in clue or "\r" in clue:
            raise TextRejectedError("a clue is a single line")
        clue = State.check_message(self, player, clue)
        problem = self._clue_problem(player, clue)
        if problem:
            raise TextRejectedError(problem)
        return clue

    def _clue_problem(self, int player, str clue):
        """Why the game's own rules refuse `clue` from `player`, or None."""
        word = self._own_word(player)
        if mentions(clue, word):
            return f"the clue may not contain your word {word!r} (nor its plural)"
        return repeated_clue(clue, ((self._names[seat], earlier) for _, _, seat, earlier in self._clues))

    def on_message(self, int player, str text):
        """Records the clue: for the views, and the words it names (which the speaker cannot have)."""
        self._clues.append((self.round_index, self.clue_round, player, text))
        for word_id, pattern in enumerate(_MENTIONS):
            if pattern.search(text):
                self.said[player][word_id] = 1

    def read_reply(self, int player, str text) -> tuple:
        """(give a clue, the clue) from a free-text reply: the text after the seat's own name and a colon
        (LLMArena), after "My clue is:" (MAgIC), or else the whole reply. Votes carry no message."""
        if not self._is_clue_turn(player):
            return State.read_reply(self, player, text)
        found = re.search(rf"{self._own_name(player)}\s*:\s*(.*)", text, re.IGNORECASE) or _CLUE_LINE.search(text)
        return self.num_players, (found.group(1) if found else text)

    def default_message(self, int player):
        return BLANK_CLUE if self._is_clue_turn(player) else None

    def random_message(self, int player, rng=None) -> str:
        """A neutral word (or two) that passes check_message: never a word of the game's list."""
        rng = rng or _random.Random(0)
        # The game's own rules suffice: neutral words are short and never a word of the game. (Going
        # through check_message would ask text_action_spec, whose example is made here.)
        return neutral_clue(rng, lambda clue: self._clue_problem(player, clue)) or BLANK_CLUE

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.phase == DEAL_WORDS:
                return (f"words: civilians {WORDS[_civilian_word(action)]!r}, "
                        f"undercover {WORDS[_undercover_word(action)]!r}")
            if self.phase == DEAL_ROLES:
                return f"{self._names[action]} is the undercover"
            return f"{self._names[action]} is voted out"
        if 0 <= action < self.num_players:
            return f"vote for {self._names[action]}"
        if action == self.num_players:
            return "give a clue"
        if action == self.num_players + 1:
            return "abstain"
        raise ValueError(f"undercover actions are 0-{self.num_players + 1}, not {action}")

    def parse_action(self, int player, str text) -> int:
        if self._is_clue_turn(player):
            if text.strip().lower() == "give a clue":
                return self.num_players
            raise ActionParseError("this turn is a clue: send the clue as the message (or reply "
                                   f"'{self._names[player]}: <your clue>')")
        if not self._is_vote_turn(player):
            raise ActionParseError("you have no decision to make now")
        found = _VOTE_COLON.search(text)
        if found:
            rest = found.group(1)
            name = _NAME.search(rest)
            if name:
                return self._seat_from_number(name.group(1))
            number = _NUMBER.search(rest)
            if number:
                return self._seat_from_number(number.group())
            if self.abstain_allowed and _ABSTAIN.search(rest):
                return self.num_players + 1
        found = _VOTE_FOR.search(text)
        if found:
            return self._seat_from_number(found.group(1))
        if self.abstain_allowed and text.strip().lower() == "abstain":
            return self.num_players + 1
        numbers = {m.group(1) for m in _NAME.finditer(text)}
        if len(numbers) == 1:
            return self._seat_from_number(numbers.pop())
        raise ActionParseError(f"could not read a vote from {text!r}. {self._vote_help(player)}")

    def _seat_from_number(self, str digits) -> int:
        seat = int(digits) - self._name_number(0) if len(digits) <= 3 else -1
        if not 0 <= seat < self.num_players:
            raise ActionParseError(f"there is no player numbered {digits[:12]}; the players are "
                                   f"{', '.join(self._names)}")
        return seat

    def _vote_help(self, int player) -> str:
        targets = [self._names[s] for s in self._others_in_game(player)]
        example = targets[0] if targets else self._names[0]
        help = (f"Answer 'vote: {example}' or 'I vote for {example}', naming one of: {', '.join(targets)}.")
        if self.abstain_allowed:
            help += " Or answer 'abstain'."
        return help

    def _others_in_game(self, int player) -> list:
        return [s for s in range(self.num_players) if self.alive[s] and s != player]

    def default_action(self, int player):
        """A clue turn: give a clue (with the blank clue, default_message). A vote: abstain when the
        game allows it (MAgIC), else None: the referee's random valid target (LLMArena)."""
        if self._is_clue_turn(player):
            return self.num_players
        if self._is_vote_turn(player) and self.abstain_allowed:
            return self.num_players + 1
        return None

    def text_action_spec(self, int player):
        if self._is_clue_turn(player):
            return {"description": "one clue about your secret word: a short phrase on one line, without the "
                                   "word itself and not repeating an earlier clue",
                    "max_length": MAX_CLUE_LENGTH, "forbidden_words": [self._own_word(player)],
                    "message": "required",
                    # An acceptable clue now (random agents say it): a neutral word, the same for a move.
                    "example": self.random_message(player, _random.Random(self.move_number))}
        if self._is_vote_turn(player):
            return {"description": self._vote_help(player), "max_length": 1000, "forbidden_words": []}
        return None

    def _rules_text(self) -> str:
        n = self.num_players
        how = ("Each player is told whether it is the undercover." if self.roles_told
               else "Nobody is told their role.")
        clue_times = "once" if self.clue_rounds == 1 else f"{self.clue_rounds} times over"
        vote = "votes in secret, all at once, for another player still in the game"
        if self.abstain_allowed:
            vote += " (or abstains)"
        if self.vote_rounds == 1:
            ending = ("The most-voted player is accused: if it is the undercover the civilians win, "
                      "otherwise the undercover wins.")
        else:
            ending = (f"The most-voted player is out. If it is the undercover the civilians win; "
                      f"otherwise the game goes on, and the undercover wins once it has survived "
                      f"{self.vote_rounds} votes or only {self.wins_at} players remain.")
        tie = (" A tie is broken at random." if self.tie_random
               else " A tie is an even vote: the accusation does not stand and nobody wins.")
        return (f"Who is the undercover: {n} players ({', '.join(self._names)}). The civilians share one "
                f"secret word; the undercover has a different but similar word. {how} In each round every "
                f"player still in the game gives a clue about its word, in seat order, {clue_times}: one "
                f"line, never the word itself, never a clue said before. Then everyone {vote}. {ending}{tie}")

    def _clue_text(self, str text) -> str:
        return text.strip() or "(blank)"

    def _outcome_text(self) -> str:
        u = self._names[self.undercover]
        r = self.round_index + 1
        if self.outcome == CIVILIANS_WON:
            return f"{u}, the undercover, was voted out in round {r}: the civilians win."
        if self.outcome == UNDERCOVER_WON:
            return f"{u}, the undercover, was not found: the undercover wins."
        return f"The vote of round {r} was even: the accusation does not stand and nobody wins."

    def _vote_text(self, int target) -> str:
        return "abstained" if target == self.num_players + 1 else f"voted for {self._names[target]}"

    def observation_string(self, int player) -> str:
        check_seat("undercover", player, self.num_players)
        lines = [self._rules_text()]
        if self.undercover < 0:
            lines.append(f"You are {self._names[player]}. The words are being dealt.")
            return "\n".join(lines)
        lines.append(f"You are {self._names[player]}. Your secret word is \"{self._own_word(player)}\".")
        if self.roles_told:
            lines.append("You are the undercover." if player == self.undercover else "You are a civilian.")
        for r in range(self.round_index + 1):
            for clue_round in range(self.clue_rounds):
                said = [(seat, text) for rr, cc, seat, text in self._clues if rr == r and cc == clue_round]
                if said:
                    label = f"Round {r + 1}" + (f", clue round {clue_round + 1}" if self.clue_rounds > 1 else "")
                    lines.append(f"{label} clues:")
                    lines += [f"  {self._names[seat]}: {self._clue_text(text)}" for seat, text in said]
            if r < self._votes_cast() and self.votes[r][player] != NO_VOTE:
                lines.append(f"Round {r + 1} vote: you {self._vote_text(self.votes[r][player])}.")
            if r < self.votes_done and self.voted_out[r] >= 0 and self.voted_out[r] != self.undercover:
                lines.append(f"{self._names[self.voted_out[r]]} was voted out in round {r + 1}: a civilian.")
        lines.append(self._status_text(player))
        return "\n".join(lines)

    def _status_text(self, int player) -> str:
        r = self.round_index + 1
        if self.phase == CLUES:
            when = f"Round {r}" + (f", clue round {self.clue_round + 1}" if self.clue_rounds > 1 else "")
            if player == self.speaker:
                return f"{when}: your turn to give a clue."
            return f"{when}: {self._names[self.speaker]} is giving a clue."
        if self.phase == VOTE:
            if self.alive[player]:
                return f"Round {r}: vote. {self._vote_help(player)}"
            return f"Round {r}: the others are voting."
        if self.phase == COUNT:
            return f"Round {r}: the votes are being counted."
        u, civ = self.undercover, _civilian_word(self.deal)
        lines = [f"Game over. {self._outcome_text()}",
                 f"The undercover was {self._names[u]} with \"{WORDS[self._word_of(u)]}\"; the civilians had "
                 f"\"{WORDS[civ]}\"."]
        for rr in range(self.votes_done):
            cast = [f"{self._names[s]} {self._vote_text(self.votes[rr][s])}"
                    for s in range(self.num_players) if self.votes[rr][s] != NO_VOTE]
            lines.append(f"Round {rr + 1} votes: " + "; ".join(cast) + ".")
        return "\n".join(lines)

    def _votes_cast(self) -> int:
        """Rounds whose votes are cast: the resolved ones and the one being counted."""
        return self.votes_done + (self.phase == COUNT)

    def _phase_name(self) -> str:
        return ("deal", "deal", "clue", "vote", "count", "over")[self.phase]

    def _vote_value(self, int target):
        return None if target == self.num_players + 1 else target

    def observation_dict(self, int player) -> dict:
        check_seat("undercover", player, self.num_players)
        over = self.phase == OVER
        playing = self.phase in (CLUES, VOTE, COUNT)
        return {
            "seat": player,
            "name": self._names[player],
            "names": list(self._names),
            "word": self._own_word(player),
            "role": self._role(player) if self.undercover >= 0 and (self.roles_told or over) else None,
            "roles_told": bool(self.roles_told),
            "phase": self._phase_name(),
            "round": self.round_index + 1 if playing else None,
            "vote_rounds": self.vote_rounds,
            "clue_round": self.clue_round + 1 if self.phase == CLUES else None,
            "clue_rounds": self.clue_rounds,
            "to_speak": self.speaker if self.phase == CLUES else None,
            "alive": [s for s in range(self.num_players) if self.alive[s]],
            "voted_out": [{"round": r + 1, "seat": self.voted_out[r]}
                          for r in range(self.votes_done) if self.voted_out[r] >= 0],
            "clues": [{"round": r + 1, "clue_round": c + 1, "seat": seat, "text": text}
                      for r, c, seat, text in self._clues],
            "conversation": self.conversation(player),
            "my_votes": [{"round": r + 1, "target": self._vote_value(self.votes[r][player])}
                         for r in range(self._votes_cast()) if self.votes[r][player] != NO_VOTE],
            "outcome": OUTCOME_NAMES.get(self.outcome),
            "undercover": self.undercover if over else None,
            "words": self._words() if over else None,
            "votes": self._all_votes() if over else None,
        }

    def _role(self, int seat) -> str:
        return "undercover" if seat == self.undercover else "civilian"

    def _words(self) -> dict:
        return {"civilian": WORDS[_civilian_word(self.deal)], "undercover": WORDS[_undercover_word(self.deal)]}

    def _all_votes(self) -> list:
        """Per resolved round, each seat's vote: a seat, "abstain", or None for a seat out of the game."""
        out = []
        for r in range(self.votes_done):
            row = []
            for s in range(self.num_players):
                target = self.votes[r][s]
                row.append(None if target == NO_VOTE else "abstain" if target == self.num_players + 1 else target)
            out.append(row)
        return out

    def probes(self) -> list:
        """MAgIC's metric questions due now (magic.md §4 items 3 and 5, the released code's schedule), in
        games with MAgIC's seat names: after each clue round, to every seat still in the game, the
        self-awareness question then the reasoning question. "turn" k in the data counts the clue rounds
        of the game so far (1-based, across vote rounds). Nothing hidden is named: roles and words stay
        in result_details."""
        if not self.magic_probes:
            return []
        if self.phase == VOTE:
            completed = self.clue_rounds
        elif self.phase == CLUES and self.clue_round > 0 and not any(
                r == self.round_index and c == self.clue_round for r, c, _, _ in self._clues):
            completed = self.clue_round                 # the next clue round has not begun
        else:
            return []
        turn = self.round_index * self.clue_rounds + completed
        out = []
        for metric in (SELF_AWARENESS, REASONING):
            for seat in range(self.num_players):
                if not self.alive[seat]:
                    continue
                name = self._names[seat]
                question = (self_awareness_question(name) if metric == SELF_AWARENESS
                            else reasoning_question(name, [self._names[s] for s in range(self.num_players)
                                                           if self.alive[s]]))
                out.append({"probe_id": f"{metric}-{turn}-{seat}", "seat": seat, "question": question,
                            "data": {"metric": metric, "turn": turn}})
        return out

    def public_history(self) -> list:
        """The deals as summaries, every "give a clue" move, one summary per resolved vote."""
        out = []
        vote_round = 0
        for seat, action in self._history:
            if seat == CHANCE_PLAYER:
                if len(out) < 2:
                    out.append((-1, -1, ("the secret words are dealt", "the roles are dealt")[len(out)]))
                elif vote_round < self.votes_done:
                    out.append((-1, -1, self._vote_summary(vote_round)))
                    vote_round += 1
            elif seat == SIMULTANEOUS_PLAYER:
                if not self.tie_random and vote_round < self.votes_done:
                    out.append((-1, -1, self._vote_summary(vote_round)))
                    vote_round += 1
            else:
                out.append((seat, action, self.action_to_string(seat, action)))
        return out

    def _vote_summary(self, int r) -> str:
        seat = self.voted_out[r]
        if seat < 0:
            return f"round {r + 1} vote: even, nobody is voted out"
        who = "the undercover" if seat == self.undercover else "a civilian"
        return f"round {r + 1} vote: {self._names[seat]} is voted out ({who})"

    def result_summary(self) -> str:
        if self.phase != OVER:
            return "game in progress"
        return self._outcome_text()

    def result_details(self) -> dict:
        if self.undercover < 0:
            return {}
        rounds = []
        for r in range(self.votes_done):
            counts = [0] * self.num_players
            for s in range(self.num_players):
                if 0 <= self.votes[r][s] < self.num_players:
                    counts[self.votes[r][s]] += 1
            rounds.append({
                "round": r + 1,
                "clues": [{"clue_round": c + 1, "seat": seat, "text": text}
                          for rr, c, seat, text in self._clues if rr == r],
                "votes": self._all_votes()[r],
                "tally": counts,
                "voted_out": self.voted_out[r] if self.voted_out[r] >= 0 else None,
            })
        details = {
            "words": self._words(),
            "undercover": self.undercover,
            "roles": [self._role(s) for s in range(self.num_players)],
            "seat_words": [WORDS[self._word_of(s)] for s in range(self.num_players)],
            "rounds": rounds,
            "outcome": OUTCOME_NAMES.get(self.outcome),
        }
        if self.outcome != PLAYING:
            outcome = OUTCOME_NAMES[self.outcome]
            details["winners"] = [s for s, r in enumerate(self.returns()) if r > 0]
            details["credits"] = [MAGIC_CREDITS[self._role(s)][outcome] for s in range(self.num_players)]
        return details


# ---- MAgIC's metric probes (magic.md §4 items 3 and 5) ----------------------------------------------
SELF_AWARENESS = "self_awareness"
REASONING = "reasoning"
SELF_ROLES = ("undercover", "non-undercover", "not sure")
_PROBE_PREAMBLE = ("A question for the benchmark's metrics: your answer is seen by nobody else and changes nothing "
                   "in the game. ")


def self_awareness_question(str name) -> str:
    """The self-awareness question (§4 item 5), the same for every seat: roles are not told, so the seat
    judges from the clues whether it holds the other word."""
    return (_PROBE_PREAMBLE + "Say which player you are and whether, from the clues so far, you are the undercover; "
            "if you cannot tell yet, say \"not sure\". Use the template: I am Player xx, my role is "
            + "/".join(SELF_ROLES) + ", because ...")


def reasoning_question(str name, names) -> str:
    """The reasoning question (§4 item 3): whom the seat suspects, and whom it thinks each other player
    suspects, one numbered line each, the same for every seat."""
    others = [n for n in names if n != name]
    lines = [_PROBE_PREAMBLE + "From the clues so far, answer each question on its own line, in the form given "
             "(the player you name may be yourself):",
             "1. Who do you think is the undercover? I think Player xx is the undercover, because ..."]
    lines += [f"{k}. Who does {other} think is the undercover? I think {other} thinks Player xx is the undercover, "
              f"because ..." for k, other in enumerate(others, start=2)]
    return "\n".join(lines)


def seat_name(str scheme, int seat) -> str:
    """A seat's name under the "seat_names" scheme: "player_0" (llmarena) or "Player 1" (magic)."""
    return f"player_{seat}" if scheme == "llmarena" else f"Player {seat + 1}"


def _vote_round(voters: list, int player, own, int voted_out) -> list:
    """Votes of one round, (voter, target or None for an abstention) in seat order, with `player`'s own
    vote `own` when it voted: with voted_out >= 0, votes that give that seat the most votes (alone
    whenever the own vote allows it); else votes that tie. A set chosen from the view alone."""
    votes = {}
    if player in voters:
        votes[player] = own
    if voted_out >= 0:
        for voter in voters:
            if voter not in votes and voter != voted_out:
                votes[voter] = voted_out
        if voted_out not in votes:
            received = {s: sum(1 for t in votes.values() if t == s) for s in voters}
            votes[voted_out] = min((s for s in voters if s != voted_out), key=lambda s: (received[s], s))
    else:
        # Each voter votes for the next seat of a cycle that starts with player -> its own target, so
        # every seat of the cycle gets one vote.
        order = [s for s in voters if s != player]
        if own is not None and player in voters:
            order = [player, own] + [s for s in order if s != own]
        for i, voter in enumerate(order):
            votes.setdefault(voter, order[(i + 1) % len(order)])
    return [(voter, votes[voter]) for voter in voters]


class Game(GameBase):
    """Undercover with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "vote_rounds", 1, MAX_VOTE_ROUNDS)
        checked_int(values, "clue_rounds", 1, MAX_CLUE_ROUNDS)
        checked_int(values, "undercover_wins_at", 2, MAX_PLAYERS)
        checked_choice(values, "tie_rule", TIE_RULES)
        checked_choice(values, "seat_names", SEAT_NAMES)
        for name in ("abstain", "roles_told"):
            if not isinstance(values[name], bool):
                raise ValueError(f"parameter {name!r} is true or false, not {values[name]!r}")
        checked_int(values, "undercover_seat", -1, num_players - 1)
        checked_int(values, "deal", -1, 2 * len(WORD_PAIRS) - 1)

    def new_initial_state(self) -> UndercoverState:
        return UndercoverState(self)

    def utility_bounds(self) -> tuple:
        return -1.0, 1.0

    def state_from_view(self, int player, dict view) -> UndercoverState:
        """A state consistent with seat `player`'s view (its observation_dict): the view's own word,
        clues, own votes and results, replayed; the hidden words and undercover seat are the first
        assignment that fits the view, and the other seats' votes a set that gives each announced
        result (the real ones once the game is over)."""
        check_seat("undercover", player, self.num_players)
        state = self.new_initial_state()
        if view["word"] is None:
            return state
        deal, undercover = self._assignment(player, view)
        state.apply_action(deal)
        state.apply_action(undercover)
        out_in_round = {entry["round"]: entry["seat"] for entry in view["voted_out"]}
        my_votes = {entry["round"]: entry["target"] for entry in view["my_votes"]}
        revealed = view["votes"]
        resolved = len(revealed) if revealed is not None else len(out_in_round)
        counting = view["round"] if view["phase"] == "count" else None
        in_game = list(range(self.num_players))
        for r in range(1, resolved + 2):
            for clue in view["clues"]:
                if clue["round"] == r:
                    state.apply_action(self.num_players, clue["text"])
            if r > resolved and r != counting:
                break
            if revealed is not None:
                chosen = [(s, None if revealed[r - 1][s] == "abstain" else revealed[r - 1][s]) for s in in_game]
            else:
                chosen = _vote_round(in_game, player, my_votes.get(r), out_in_round.get(r, -1) if r <= resolved else -1)
            joint = [0] * self.num_players
            for voter, target in chosen:
                joint[voter] = self.num_players + 1 if target is None else target
            state.apply_actions(joint)
            if r in out_in_round:
                if state.is_chance_node():
                    state.apply_action(out_in_round[r])
                in_game.remove(out_in_round[r])
        return state

    def _assignment(self, int player, dict view) -> tuple:
        """(words outcome, undercover seat) that fit the view: the revealed ones once the game is over;
        else the first whose words give the seat its word (and role when told), with the undercover
        still in the game and no clue holding its speaker's word."""
        if view["undercover"] is not None:
            words = (view["words"]["civilian"], view["words"]["undercover"])
            for k, pair in enumerate(WORD_PAIRS):
                for f in (0, 1):
                    if (pair[f], pair[1 - f]) == words:
                        return 2 * k + f, view["undercover"]
            raise ValueError(f"the words {words} are not a pair of this game")
        own = view["word"]
        in_game = set(view["alive"])
        for k, pair in enumerate(WORD_PAIRS):
            for f in (0, 1):
                civilian, hidden = pair[f], pair[1 - f]
                for undercover in sorted(in_game):
                    if (hidden if undercover == player else civilian) != own:
                        continue
                    if view["role"] is not None and (view["role"] == "undercover") != (undercover == player):
                        continue
                    if any(mentions(c["text"], hidden if c["seat"] == undercover else civilian)
                           for c in view["clues"]):
                        continue
                    return 2 * k + f, undercover
        raise ValueError(f"no deal of words fits the view of seat {player}")
