"""The Chameleon, as played in MAgIC (Xu, Hu et al., arXiv 2311.08562; reference magic.md §2.1).

Rules. N players ("players", 3-8; MAgIC plays 3), named Player 1..Player N. A topic and a secret word
of that topic are drawn; one player, drawn at random, is the chameleon. Everyone sees the topic; the
secret word is told to every player but the chameleon, which is told it is the chameleon.
  1. Clues: each player gives one clue about the secret word, Player 1 first, in seat order (one
     round). A clue is free text; a non-chameleon's clue may not contain the secret word (nor a
     plural of it); nobody may repeat a clue said before. The chameleon, who does not know the word,
     has no word forbidden: a clue that happens to name the word is accepted (and gives it away).
  2. Accusation: everyone votes at the same time, in secret, for another player as the chameleon
     (never for itself; the chameleon votes for others too), or abstains. A vote that counts for
     nobody is an abstention. The player with the most votes, when it is alone at the top, is
     accused; a tie for the most votes (all abstentions included) is an even vote: the accusation
     does not stand and the game ends.
  3. Guess: only when the accused player is the chameleon, the chameleon guesses the secret word.
Outcomes, with MAgIC's code flag and credits (chameleon / each non-chameleon):
  - "caught_wrong_guess" (flag 0): the chameleon was accused and guessed wrong: 0 / 2;
  - "caught_right_guess" (flag 1): the chameleon was accused and guessed right: 1 / 1;
  - "wrong_accusation" (flag 2): a non-chameleon was accused: the chameleon wins, 2 / 0;
  - "even_vote" (flag 3): 1 / 1.
That is c_chameleon = [0, 1, 2, 1] and c_non-chameleon = [2, 1, 0, 1] by flag (MAGIC_CREDITS).
Returns are the credits minus 1: +1 for a win (2 credits), 0 for a split (1), -1 for a loss (0).

Chance. Two chance nodes deal the game: the setting, an index into chameleon_settings.SETTINGS (a
topic drawn uniformly among the 24 topics, then one of its words uniformly), then the chameleon's
seat (uniform). The secret parameters "setting" and "chameleon_seat" pin either draw to one outcome
(a suite sets them; the server shows them to no seat before the end).

Search. The C-level interface sees no messages: there a guess carries no text and is wrong (the
empty guess), so search (which plays no clue or guess anyway) values a caught chameleon as losing.

Actions (N players): 0..N-1 = vote for that seat; N = "give a clue" (the only action of a clue turn,
with a REQUIRED message: the clue); N+1 = "abstain"; N+2 = "guess the word" (the only action of the
guess turn, with a REQUIRED message: the guess). Texts: "vote for Player 2", "give a clue",
"abstain", "guess the word".

Answers (§2.1 "Answer formats", "Parsing"). A clue is the decision's message, free text; a leading
"[name]:" or "Player k:" (the seat's own name) and a trailing "<EOS>" are stripped, as MAgIC's chat
layer did, and spacing is collapsed onto one line (at most 300 characters). A vote is read by
`parse_action`, after the same stripping, from "I vote for Player 2." (the first "vote for Player k"),
else from the first player name in the reply ("Player 3", "player_3", "player3"), else "abstain". A
self-vote is read but is not a legal action (the referee asks again). The guess is the decision's
message, compared with the secret word by `guess_is_right`: the quoted word of "I guess the code is
\"Apple\"." (else the first quoted text), case, spacing and punctuation aside; with no quotes, the
reply's last k words (k = the word's length in words).

Information. Each seat sees the rules, its name, the topic, its role, the secret word unless it is
the chameleon, every clue with who gave it (`conversation`, also in the views) and its own vote. Votes
are a secret ballot (§2.1: private until the moderator announces the result); the result is public:
who was accused and, since the game then ends or goes to the guess, who the chameleon is. The guess
is heard by everyone: the game ends with it. `public_history` holds the deal as summaries ("the topic
is Fruits; the secret word is drawn", "the chameleon is chosen"), every "give a clue" move, one line
for the vote's result and the "guess the word" move. At the end every view and result_details reveal
the word, the chameleon, every vote and the guess.

Metric probes (magic.md §4 items 3 and 5; `probes()`). Every seat is asked, at the released code's
times: before each clue turn, the self-awareness question (template "I am Player xx, my role is
chameleon/non-chameleon"); after each clue (the last one included, before the vote), the reasoning
question: a suspicion label ("more suspicious", "less suspicious", "no change") for each other player
from its own view ("As Player k, I think:") and from the view it attributes to each other player ("I
think now Player j thinks:"). Between two clues both are due. Probe ids are "<metric>-<turn>-<seat>",
turn k being the k-th clue; the data holds {"metric", "turn"} only. The questions are the same for
every role and name nothing hidden; the answers never affect the game and are scored from the
result_details' roles (arena_server/ratings/magic_scores.py).

Presets.
  - "magic": MAgIC's Chameleon (§2.1, Table 3 "# Rounds 1"): 3 players, one clue round, one secret
    vote, the guess after a correct accusation, the credit table above. Names Player 1..Player 3.

Ambiguities (magic.md §6).
  - A1 (outcome labels vs credits): the code's semantics, as recommended: wrong accusation 2/0, caught
    and wrong guess 0/2, caught and right guess 1/1, even vote 1/1. result_details carries the
    outcome's name, the code flag and each seat's credits.
  - A13 (speaking order; chameleon seat fixed or random): always Player 1 → N, as recommended. The
    recommended seat fixed by the setting is the secret parameter "chameleon_seat" (with "setting"),
    which a suite sets from a COMPETITIONS record; left at -1 the seat is drawn by a chance node, as
    MAgIC's random mode did. It is never a public parameter, which would tell every player who the
    chameleon is; determinization redraws both from what a seat saw.
  - A12 (the challenger plays both non-chameleon seats): a suite matter. Each seat must be its own
    agent session (MAgIC's two seats were two separate conversations): one agent holding both seats
    (seat_sides) would know the third seat is the chameleon, so this game keeps one side per seat.
  - A14 (pre-recorded defender clues): replayed until the challenger's first turn, as recommended. The
    secret parameter "recorded_clues" (k) makes the first k clue turns say the first clues of the
    chameleon_settings.COMPETITIONS record of the game's setting and chameleon seat (20 records written
    for this project); a suite sets k to the challenger's first seat. Such a turn's only action is
    "give a clue" with no message (a referee that plays forced moves plays it without asking the seat;
    a message sent anyway is replaced by the record's clue), so the public history, the views and the
    conversation look exactly as if the seat had said it, as MAgIC's replayed clues did. Only the
    turn's own text_action_spec says the clue is recorded, which a seat sees if it is asked anyway
    (it would learn that the evaluated agent speaks later): the magic suite plays forced moves.
  - A19 / §2.6 (answer formats, invalid answers): the formats above. An unreadable vote is an
    abstention (`default_action`: "abstain"; it counts for nobody); an empty clue and an empty guess
    are the documented fallbacks (`default_message` ""), the empty guess being wrong. A self-vote is
    not a legal action (the rules forbid it; MAgIC's parser would have counted it).
  - A21 (settings unpublished): 24 topics of 8 words written for this project (chameleon_settings.py);
    neither the paper's calibrated 20 nor the code's default pool is used.
  - MAgIC's vote parser took the lowest-numbered player name found anywhere in the reply; here the
    template "vote for Player k" comes first, then the first name in reading order (deterministic, as
    §2.2 [Rec] asks of vote parsing).
  - The guess is a message, not a choice among the topic's words: MAgIC's chameleon names any word it
    likes (Figure 5: "Pineapple", "Apple") and is never shown the topic's word list, so offering the
    words as legal actions would tell it the candidates. It is compared as the code did (quoted text,
    else the last k words), with the template's quoted word read first so that a quoted clue restated
    before the guess is not taken for it, and punctuation ignored as well as case and spacing.
  - Deception (A3) and Judgment (A11, A12) are computed by the metrics from result_details: every
    vote with its voter, the chameleon's seat, the roles, the guess with its correctness and the
    outcome.
"""

from libc.string cimport memcpy, memset

import random as _random
import re

from arena_engines.core cimport CHANCE_PLAYER, SIMULTANEOUS_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below
from arena_engines.core import ActionParseError, TextRejectedError
from arena_engines.chameleon_settings import COMPETITIONS, SETTINGS, TOPICS, setting_index, topic_words
from arena_engines.parsing import check_seat, neutral_clue, repeated_clue
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    MAX_PLAYERS = 8
    MAX_TOPICS = 64
    MAX_TOPIC_WORDS = 16
    MAX_SETTINGS = 1024     # chance outcomes: at most core's MAX_ACTIONS
    NO_VOTE = -1            # before the vote
    VOTE_DRAWS = 1000       # attempts at redrawing the votes (resample_hidden)

# Phases of the game.
cdef enum:
    DEAL_SETTING = 0
    DEAL_ROLE = 1
    CLUES = 2
    VOTE = 3
    GUESS = 4
    OVER = 5

# Outcomes: MAgIC's code flags (magic.md §2.1).
cdef enum:
    PLAYING = -1
    CAUGHT_WRONG_GUESS = 0
    CAUGHT_RIGHT_GUESS = 1
    WRONG_ACCUSATION = 2
    EVEN_VOTE = 3

OUTCOME_NAMES = ("caught_wrong_guess", "caught_right_guess", "wrong_accusation", "even_vote")
# Credits of each role by outcome flag (magic.md §2.1, §6 A1).
MAGIC_CREDITS = {"chameleon": (0, 1, 2, 1), "non-chameleon": (2, 1, 0, 1)}
cdef int _CHAMELEON_CREDIT[4]
cdef int _NON_CHAMELEON_CREDIT[4]
for _flag in range(4):
    _CHAMELEON_CREDIT[_flag] = MAGIC_CREDITS["chameleon"][_flag]
    _NON_CHAMELEON_CREDIT[_flag] = MAGIC_CREDITS["non-chameleon"][_flag]

MAX_CLUE_LENGTH = 300
MAX_GUESS_LENGTH = 1000
EMPTY = ""                                   # the fallback clue and guess (magic.md §2.6)
GUESS_EXAMPLE = 'I guess the code is "...".'  # the moderator's template (§2.1 "Answer formats")

SPEC = GameSpec(
    game_id="chameleon",
    display_name="The Chameleon",
    rules_version="1",
    min_players=3,
    max_players=MAX_PLAYERS,
    dynamics="simultaneous",
    chance="stochastic",
    information="imperfect",
    utility="general_sum",
    min_utility=-1.0,
    max_utility=1.0,
    max_game_length=2 + MAX_PLAYERS + 2,
    description="Everyone but the chameleon knows the secret word of a public topic. Each player gives one "
                "clue, then all vote in secret for the chameleon; a chameleon found out may still guess the "
                "word to split the game.",
    parameters=(
        Parameter("players", 3, f"number of players, 3-{MAX_PLAYERS}"),
        Parameter("setting", -1, f"the topic and secret word: an index into chameleon_settings.SETTINGS "
                                 f"(0-{len(SETTINGS) - 1}), or -1 to draw them; secret until the end",
                  secret=True),
        Parameter("chameleon_seat", -1, "the chameleon's seat, or -1 to draw it at random; secret until the end "
                                        "(a suite sets it to seat the agent it evaluates as the chameleon)",
                  secret=True),
        Parameter("recorded_clues", 0, "how many opening clue turns (Player 1 onward) say the first clues recorded in "
                                       "the chameleon_settings.COMPETITIONS record of this setting and chameleon seat, "
                                       "without asking those seats (MAgIC's defenders before the challenger's first "
                                       "turn); 0: every clue is live; secret until the end", secret=True),
    ),
    presets=(
        Preset("magic", "MAgIC (Xu, Hu et al., 2024): 3 players, one clue each, one secret vote; a tie is an even "
               "vote; a chameleon found out guesses the word. Vote 'I vote for Player 2.'; guess "
               "'I guess the code is \"Apple\".'; credits chameleon 0/1/2/1, others 2/1/0/1.", {"players": 3}),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# Playthroughs play the preset as it is: 3 players, six or seven moves.
PLAYTHROUGH_OVERRIDES = {None: {}}


# ---- the settings as C arrays, for chance and resampling ---------------------------------------
cdef int _num_topics = len(TOPICS)
cdef int _num_settings = len(SETTINGS)
cdef int _topic_first[MAX_TOPICS]          # index in SETTINGS of a topic's first word
cdef int _topic_size[MAX_TOPICS]
cdef int _setting_topic[MAX_SETTINGS]
if not 0 < _num_topics <= MAX_TOPICS or _num_settings > MAX_SETTINGS:
    raise ImportError("chameleon_settings has more topics or settings than the engine's arrays")
_first = 0
for _t, (_topic, _words) in enumerate(TOPICS):
    if not 0 < len(_words) <= MAX_TOPIC_WORDS:
        raise ImportError(f"topic {_topic!r} has {len(_words)} words; the engine takes 1-{MAX_TOPIC_WORDS}")
    _topic_first[_t] = _first
    _topic_size[_t] = len(_words)
    for _k in range(len(_words)):
        _setting_topic[_first + _k] = _t
    _first += len(_words)


# ---- text rules ---------------------------------------------------------------------------------
def _plural_forms(str last) -> list:
    forms = [last, last + "s", last + "es"]
    if last.endswith("y"):
        forms.append(last[:-1] + "ies")
    if last.endswith("f"):
        forms.append(last[:-1] + "ves")
    if last.endswith("fe"):
        forms.append(last[:-2] + "ves")
    return forms


def _mention_pattern(str word):
    """The word (any spacing between its parts) or a regular plural of it, as whole words, any case."""
    parts = word.split()
    head = r"\s+".join(re.escape(p) for p in parts[:-1])
    tails = "|".join(re.escape(form) for form in _plural_forms(parts[-1]))
    body = (head + r"\s+" if head else "") + f"(?:{tails})"
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


_MENTIONS = {word: _mention_pattern(word) for _, word in SETTINGS}


def mentions(str text, str word) -> bool:
    """Whether `text` names `word` or a regular plural of it, as whole words, any case."""
    pattern = _MENTIONS.get(word) or _mention_pattern(word)
    return pattern.search(text) is not None


_GUESS_TEMPLATE = re.compile(r"guess\w*\s+(?:that\s+)?the\s+(?:secret\s+)?(?:code|word)\s+is\s*:?\s*"
                             r"[\"“”]([^\"“”]*)[\"“”]", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“”]([^\"“”]+)[\"“”]")
_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")


def _squashed(str text) -> str:
    return _NOT_ALPHANUMERIC.sub("", text.casefold())


def guess_is_right(str text, str word) -> bool:
    """Whether a guess names `word` (magic.md §2.1 "Parsing"): the quoted word of "I guess the code is
    \"...\"" or else the first quoted text; with no quotes, the last k words of the text, k being the
    number of words of `word`. Case, spacing and punctuation aside."""
    found = _GUESS_TEMPLATE.search(text) or _QUOTED.search(text)
    if found:
        return _squashed(found.group(1)) == _squashed(word)
    k = len(word.split())
    said = text.split()
    return len(said) >= k and _squashed("".join(said[-k:])) == _squashed(word)


_SPACES = re.compile(r"\s+")
_EOS = re.compile(r"\s*<EOS>\s*$", re.IGNORECASE)
_BRACKETED_NAME = re.compile(r"^\[[^\]\n]{0,40}\]\s*:\s*")
_NAME = re.compile(r"player[ _]?(\d+)", re.IGNORECASE)
_VOTE_FOR = re.compile(r"vote\s+for\s+(?:the\s+)?player[ _]?(\d+)", re.IGNORECASE)
_ABSTAIN = re.compile(r"(?<!\w)abstain(?!\w)", re.IGNORECASE)


def seat_name(int seat) -> str:
    return f"Player {seat + 1}"


def competition_of(int setting, int chameleon):
    """The chameleon_settings.COMPETITIONS record with this setting (index into SETTINGS) and chameleon
    seat, or None."""
    for record in COMPETITIONS:
        if setting_index(record.topic, record.word) == setting and record.chameleon == chameleon:
            return record
    return None


# ---- metric probes (magic.md §4 items 3 and 5) ----------------------------------------------------
SELF_AWARENESS = "self_awareness"
REASONING = "reasoning"
SUSPICION_LABELS = ("more suspicious", "less suspicious", "no change")
_PROBE_PREAMBLE = ("A question for the benchmark's metrics: your answer is seen by nobody else and changes nothing "
                   "in the game. ")


def self_awareness_question(str name) -> str:
    """The self-awareness question, the same for every seat and role (§4 item 5)."""
    return (_PROBE_PREAMBLE + "Say which player you are and what your role in this game is, with the template: "
            "I am Player xx, my role is chameleon/non-chameleon.")


def reasoning_question(str name, names) -> str:
    """The reasoning question (§4 item 3): a suspicion label for every other player, from the seat's own view
    and from the view it attributes to each other player, in a fixed layout. The same for every role."""
    others = [n for n in names if n != name]
    more, less, same = SUSPICION_LABELS
    lines = [_PROBE_PREAMBLE + f"From the clues given so far, judge whether each player looks more or less likely "
             f"to be the chameleon: first as you see it, then as you think each other player sees it. For each "
             f"player use one of \"{more}\", \"{less}\" or \"{same}\" (hard to tell, or no clue from that "
             f"player yet); never make up a clue for a player who has not spoken. Answer in this layout:",
             f"As {name}, I think:"]
    lines += [f"{other} is {more}/{less}/{same}, because ..." for other in others]
    for viewer in others:
        lines.append(f"I think now {viewer} thinks:")
        lines += [f"{judged} is ..., because ..." for judged in names if judged != viewer]
    return "\n".join(lines)


cdef class ChameleonState(State):
    cdef int phase, outcome
    cdef int setting                        # index into SETTINGS, -1 until drawn
    cdef int chameleon                      # seat, -1 until drawn
    cdef int fixed_setting, fixed_chameleon # the secret parameters: -1, or the one outcome of the draw
    cdef int speaker                        # seat giving a clue, -1 otherwise
    cdef int recorded                       # opening clue turns said from the competition record
    cdef int accused                        # the accused seat once the vote is counted, -1 otherwise
    cdef bint guess_right                   # read from the guess's message (on_message)
    cdef int votes[MAX_PLAYERS]             # target seat, the abstain action, or NO_VOTE
    cdef unsigned char said[MAX_PLAYERS][MAX_TOPIC_WORDS]   # 1 when a seat's clue names a word of the topic
    cdef list _clues                        # (move, seat, text)
    cdef object _guess                      # the guess's text, None until made
    cdef tuple _names
    cdef tuple _recorded_clues              # the record's clue of each of the first `recorded` seats

    def __init__(self, game):
        super().__init__(game, game.num_players)
        p = game.parameters
        self.fixed_setting = p["setting"]
        self.fixed_chameleon = p["chameleon_seat"]
        self._names = tuple(seat_name(i) for i in range(self.num_players))
        self._recorded_clues = game.recorded_first_clues
        self.recorded = len(self._recorded_clues)
        self.phase = DEAL_SETTING
        self.outcome = PLAYING
        self.setting = -1
        self.chameleon = -1
        self.speaker = -1
        self.accused = -1
        self.guess_right = False
        for i in range(MAX_PLAYERS):
            self.votes[i] = NO_VOTE
        memset(&self.said[0][0], 0, sizeof(self.said))
        self._clues = []
        self._guess = None

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == CLUES:
            return self.speaker
        if self.phase == VOTE:
            return SIMULTANEOUS_PLAYER
        if self.phase == GUESS:
            return self.chameleon
        if self.phase == OVER:
            return TERMINAL_PLAYER
        return CHANCE_PLAYER

    cdef bint c_is_acting(self, int player) noexcept:
        if player < 0 or player >= self.num_players:
            return False
        if self.phase == VOTE:
            return True
        if self.phase == CLUES:
            return player == self.speaker
        return self.phase == GUESS and player == self.chameleon

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int seat, n = 0
        if not self.c_is_acting(player):
            return 0
        if self.phase == CLUES:
            out[0] = self.num_players            # give a clue
            return 1
        if self.phase == GUESS:
            out[0] = self.num_players + 2        # guess the word
            return 1
        for seat in range(self.num_players):
            if seat != player:
                out[n] = seat
                n += 1
        out[n] = self.num_players + 1            # abstain
        return n + 1

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int i
        if self.phase == DEAL_SETTING:
            if self.fixed_setting >= 0:
                actions[0] = self.fixed_setting
                probs[0] = 1.0
                return 1
            for i in range(_num_settings):
                actions[i] = i
                probs[i] = 1.0 / (_num_topics * _topic_size[_setting_topic[i]])
            return _num_settings
        if self.phase == DEAL_ROLE:
            if self.fixed_chameleon >= 0:
                actions[0] = self.fixed_chameleon
                probs[0] = 1.0
                return 1
            for i in range(self.num_players):
                actions[i] = i
                probs[i] = 1.0 / self.num_players
            return self.num_players
        return 0

    cdef void c_apply_action(self, int action) noexcept:
        if self.phase == DEAL_SETTING:
            self.setting = action
            self.phase = DEAL_ROLE
        elif self.phase == DEAL_ROLE:
            self.chameleon = action
            self.phase = CLUES
            self.speaker = 0
        elif self.phase == CLUES:
            self.speaker += 1
            if self.speaker == self.num_players:
                self.speaker = -1
                self.phase = VOTE
        elif self.phase == GUESS:
            self.outcome = CAUGHT_RIGHT_GUESS if self.guess_right else CAUGHT_WRONG_GUESS
            self.phase = OVER

    cdef void c_apply_joint(self, int* actions) noexcept:
        cdef int seat
        for seat in range(self.num_players):
            self.votes[seat] = actions[seat]
        self.accused = self._sole_most_voted()
        if self.accused == self.chameleon:
            self.phase = GUESS
            return
        self.outcome = EVEN_VOTE if self.accused < 0 else WRONG_ACCUSATION
        self.phase = OVER

    cdef int _sole_most_voted(self) noexcept:
        """The seat with the most votes when it is alone at the top, else -1 (an even vote)."""
        cdef int counts[MAX_PLAYERS]
        cdef int seat, best = -1, top = -1, n_top = 0
        for seat in range(self.num_players):
            counts[seat] = 0
        for seat in range(self.num_players):
            if 0 <= self.votes[seat] < self.num_players:
                counts[self.votes[seat]] += 1
        for seat in range(self.num_players):
            if counts[seat] > best:
                best, top, n_top = counts[seat], seat, 1
            elif counts[seat] == best:
                n_top += 1
        return top if n_top == 1 else -1

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        for seat in range(self.num_players):
            if self.outcome == PLAYING:
                out[seat] = 0.0
            elif seat == self.chameleon:
                out[seat] = _CHAMELEON_CREDIT[self.outcome] - 1.0
            else:
                out[seat] = _NON_CHAMELEON_CREDIT[self.outcome] - 1.0

    cdef bint _said_by_other_than(self, int seat, int position) noexcept:
        """Whether a seat other than `seat` gave a clue naming the topic's word at `position`."""
        cdef int other
        for other in range(self.num_players):
            if other != seat and self.said[other][position]:
                return True
        return False

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        # Hidden from the chameleon: the secret word; from a non-chameleon: who the chameleon is until
        # the vote tells; from everyone, the others' votes until the end. Each is drawn uniformly
        # among the values that fit what `player` saw (their prior is uniform): a non-chameleon's
        # clue never names the word, so only the chameleon's clue can. Only the view is read, so that
        # a state rebuilt from it (state_from_view) resamples like the real one.
        cdef int topic, first, size, position, seat, chosen, count = 0
        if self.phase == DEAL_SETTING or self.phase == OVER:
            return                                  # nothing dealt yet, or everything revealed
        topic = _setting_topic[self.setting]
        first = _topic_first[topic]
        size = _topic_size[topic]
        if self.phase == DEAL_ROLE:
            self.setting = first + rng_below(rng, size)     # only the topic is shown so far
            return
        if player == self.chameleon:
            for position in range(size):
                count += not self._said_by_other_than(self.chameleon, position)
            if count > 0:
                chosen = rng_below(rng, count)
                for position in range(size):
                    if not self._said_by_other_than(self.chameleon, position):
                        if chosen == 0:
                            self.setting = first + position
                        chosen -= 1
        elif self.phase != GUESS:                   # the vote's result names the chameleon
            position = self.setting - first
            for seat in range(self.num_players):
                count += seat != player and not self._said_by_other_than(seat, position)
            if count > 0:
                chosen = rng_below(rng, count)
                for seat in range(self.num_players):
                    if seat != player and not self._said_by_other_than(seat, position):
                        if chosen == 0:
                            self.chameleon = seat
                        chosen -= 1
        if self.phase == GUESS:
            self._redraw_votes(player, rng)

    cdef void _redraw_votes(self, int player, Rng* rng) noexcept:
        """New votes of the seats other than `player` that still make the chameleon the only most-voted
        seat (the announced result). If no draw succeeds the votes are left as they are."""
        cdef int saved[MAX_PLAYERS]
        cdef int seat, choice, attempt
        memcpy(saved, self.votes, sizeof(saved))
        for attempt in range(VOTE_DRAWS):
            for seat in range(self.num_players):
                if seat != player:
                    # N - 1 other seats or the abstention, uniformly.
                    choice = rng_below(rng, self.num_players)
                    self.votes[seat] = self.num_players + 1 if choice == seat else choice
            if self._sole_most_voted() == self.chameleon:
                return
        memcpy(self.votes, saved, sizeof(saved))

    cdef State c_clone(self):
        cdef ChameleonState s = ChameleonState.__new__(ChameleonState)
        self._copy_base_into(s)
        s.phase = self.phase
        s.outcome = self.outcome
        s.setting = self.setting
        s.chameleon = self.chameleon
        s.fixed_setting = self.fixed_setting
        s.fixed_chameleon = self.fixed_chameleon
        s.speaker = self.speaker
        s.recorded = self.recorded
        s._recorded_clues = self._recorded_clues
        s.accused = self.accused
        s.guess_right = self.guess_right
        memcpy(s.votes, self.votes, sizeof(self.votes))
        memcpy(&s.said[0][0], &self.said[0][0], sizeof(self.said))
        s._clues = list(self._clues)        # entries are tuples, never changed in place
        s._guess = self._guess
        s._names = self._names
        return s

    # ---- what a seat knows -----------------------------------------------------------------------
    def _topic(self):
        return SETTINGS[self.setting][0] if self.setting >= 0 else None

    def _word(self):
        return SETTINGS[self.setting][1] if self.setting >= 0 else None

    def _role(self, int seat):
        if self.chameleon < 0:
            return None
        return "chameleon" if seat == self.chameleon else "non-chameleon"

    def _knows_word(self, int player) -> bool:
        return self.chameleon >= 0 and (player != self.chameleon or self.phase == OVER)

    def _knows_chameleon(self, int player) -> bool:
        return self.chameleon >= 0 and (player == self.chameleon or self.phase in (GUESS, OVER))

    def _is_clue_turn(self, int player) -> bool:
        return self.phase == CLUES and player == self.speaker

    def _is_recorded_turn(self, int player) -> bool:
        """Whether `player` now gives a clue said from the competition record ("recorded_clues")."""
        return self.phase == CLUES and player == self.speaker and self.speaker < self.recorded

    def _is_vote_turn(self, int player) -> bool:
        return self.phase == VOTE and 0 <= player < self.num_players

    def _is_guess_turn(self, int player) -> bool:
        return self.phase == GUESS and player == self.chameleon

    def _vote_value(self, int seat):
        """A seat's vote as the views and details show it: a seat, "abstain", or None before the vote."""
        target = self.votes[seat]
        if target == NO_VOTE:
            return None
        return "abstain" if target == self.num_players + 1 else target

    def _vote_result(self):
        if self.votes[0] == NO_VOTE:
            return None
        if self.accused < 0:
            return "even"
        return "correct" if self.accused == self.chameleon else "wrong"

    # ---- dialogue -----------------------------------------------------------------------------
    def _cleaned(self, int player, str text) -> str:
        """A reply as MAgIC's chat layer passed it on: a leading "[name]:" or "Player k:" (the seat's
        own name) and a trailing "<EOS>" stripped, repeatedly; spacing collapsed onto one line."""
        own = re.compile(rf"^player[ _]?{player + 1}(?!\d)\s*:\s*", re.IGNORECASE)
        cleaned = _SPACES.sub(" ", text).strip()
        while True:
            stripped = _EOS.sub("", own.sub("", _BRACKETED_NAME.sub("", cleaned, count=1), count=1)).strip()
            if stripped == cleaned:
                return cleaned
            cleaned = stripped

    def _accepted_message(self, int player, message):
        """On a recorded clue turn the seat says the record's clue, whatever it sent (MAgIC's defenders
        replayed theirs); otherwise the message as State accepts it."""
        if self._is_recorded_turn(player):
            return self._recorded_clues[player]
        return State._accepted_message(self, player, message)

    def check_message(self, int player, str text) -> str:
        """The clue or guess to store. A clue is refused when longer than 300 characters, naming the
        secret word (or a plural of it) from a non-chameleon, or repeating an earlier clue; a guess is
        refused only when too long."""
        if not (self._is_clue_turn(player) or self._is_guess_turn(player)):
            raise TextRejectedError("only a player giving a clue or guessing the word says something now")
        said = self._cleaned(player, text)
        if not said:
            return EMPTY
        said = State.check_message(self, player, said)
        if self._is_clue_turn(player):
            problem = self._clue_problem(player, said)
            if problem:
                raise TextRejectedError(problem)
        return said

    def _clue_problem(self, int player, str clue):
        """Why the game's own rules refuse `clue` from `player`, or None."""
        if player != self.chameleon and mentions(clue, self._word()):
            return f"the clue may not contain the secret word {self._word()!r} (nor its plural)"
        return repeated_clue(clue, ((self._names[seat], earlier) for _, seat, earlier in self._clues))

    def on_message(self, int player, str text):
        """Records a clue (and which of the topic's words it names), or reads the guess."""
        if self.phase == GUESS:
            self._guess = text
            self.guess_right = guess_is_right(text, self._word())
            return
        self._clues.append((self.move_number, player, text))
        for position, word in enumerate(topic_words(self._topic())):
            if mentions(text, word):
                self.said[player][position] = 1

    def default_message(self, int player):
        if self._is_recorded_turn(player):
            return None                     # the turn takes no message: the record's clue is said
        return EMPTY if self._is_clue_turn(player) or self._is_guess_turn(player) else None

    def random_message(self, int player, rng=None) -> str:
        """A guess: the template with one of the topic's words at random. A clue: a neutral word (or
        two) that passes the rules, chosen without the secret word."""
        rng = rng or _random.Random(0)
        if self._is_guess_turn(player):
            return f'I guess the code is "{rng.choice(topic_words(self._topic()))}".'
        # The game's own rules suffice: neutral words are never a word of a topic. (Going through
        # check_message would ask text_action_spec, whose example is made here.)
        return neutral_clue(rng, lambda clue: self._clue_problem(player, clue)) or EMPTY

    def text_action_spec(self, int player):
        if self._is_recorded_turn(player):
            # No message: a referee that plays forced moves says the recorded clue without asking.
            return {"description": f"this clue turn is played from the competition record: you say "
                                   f"{self._recorded_clues[player]!r}",
                    "max_length": MAX_CLUE_LENGTH, "forbidden_words": []}
        if self._is_clue_turn(player):
            if player == self.chameleon:
                what = (f"one clue that fits the topic \"{self._topic()}\" (you do not know the secret word); "
                        f"free text, not repeating an earlier clue")
                forbidden = []
            else:
                what = "one clue about the secret word: free text, never the word itself, not repeating an earlier clue"
                forbidden = [self._word()]
            return {"description": what, "max_length": MAX_CLUE_LENGTH, "forbidden_words": forbidden,
                    "message": "required",
                    # An acceptable clue now (random agents say it): a neutral word, the same for a move.
                    "example": self.random_message(player, _random.Random(self.move_number))}
        if self._is_vote_turn(player):
            return {"description": self._vote_help(player), "max_length": 1000, "forbidden_words": []}
        if self._is_guess_turn(player):
            return {"description": "your guess of the secret word, answered as: I guess the code is \"...\"",
                    "max_length": MAX_GUESS_LENGTH, "forbidden_words": [], "message": "required",
                    "example": GUESS_EXAMPLE}
        return None

    def default_action(self, int player):
        """A clue or the guess: its only action (with the empty message, default_message). A vote:
        abstain (an unreadable vote counts for nobody, magic.md §2.1, §2.6)."""
        if self._is_clue_turn(player):
            return self.num_players
        if self._is_vote_turn(player):
            return self.num_players + 1
        if self._is_guess_turn(player):
            return self.num_players + 2
        return None

    # ---- actions as text ----------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if self.phase == DEAL_SETTING:
                topic, word = SETTINGS[action]
                return f"topic {topic!r}, secret word {word!r}"
            return f"{self._names[action]} is the chameleon"
        if 0 <= action < self.num_players:
            return f"vote for {self._names[action]}"
        if action == self.num_players:
            return "give a clue"
        if action == self.num_players + 1:
            return "abstain"
        if action == self.num_players + 2:
            return "guess the word"
        raise ValueError(f"chameleon actions are 0-{self.num_players + 2}, not {action}")

    def parse_action(self, int player, str text) -> int:
        if self._is_clue_turn(player):
            if text.strip().lower() == "give a clue":
                return self.num_players
            raise ActionParseError("this turn is a clue: send the clue as the message")
        if self._is_guess_turn(player):
            if text.strip().lower() == "guess the word":
                return self.num_players + 2
            raise ActionParseError('this turn is your guess: send it as the message, as I guess the code is "..."')
        if not self._is_vote_turn(player):
            raise ActionParseError("you have no decision to make now")
        # A reply may open with the seat's own name ("Player 1: ..."), which is no vote.
        text = self._cleaned(player, text)
        found = _VOTE_FOR.search(text) or _NAME.search(text)
        if found:
            return self._seat_from_number(found.group(1))
        if _ABSTAIN.search(text):
            return self.num_players + 1
        raise ActionParseError(f"could not read a vote from {text[:200]!r}. {self._vote_help(player)}")

    def _seat_from_number(self, str digits) -> int:
        seat = int(digits) - 1 if len(digits) <= 3 else -1
        if not 0 <= seat < self.num_players:
            raise ActionParseError(f"there is no Player {digits[:12]}; the players are {', '.join(self._names)}")
        return seat

    def _vote_help(self, int player) -> str:
        targets = [self._names[s] for s in range(self.num_players) if s != player]
        return (f"Vote for the player you think is the chameleon (not yourself): answer 'I vote for "
                f"{targets[0]}.' naming one of {', '.join(targets)}, or 'abstain'.")

    # ---- views --------------------------------------------------------------------------------
    def _rules_text(self) -> str:
        return (f"The Chameleon: {self.num_players} players ({', '.join(self._names)}). Everyone sees the topic; "
                f"everyone but the chameleon, a player drawn at random, is also told the secret word, one of the "
                f"topic's words. Each player gives one clue about the secret word, in turn from Player 1: never the "
                f"word itself, never a clue said before. Then everyone votes in secret, all at once, for another "
                f"player as the chameleon (or abstains). A tie for the most votes is an even vote: the accusation "
                f"does not stand (1 credit each). If the most-voted player is not the chameleon, the chameleon wins "
                f"(2 credits, the others 0). If it is the chameleon, the chameleon guesses the secret word: right, "
                f"the game is split (1 credit each); wrong, the others win (2 credits each, the chameleon 0).")

    def _vote_text(self, int seat) -> str:
        vote = self._vote_value(seat)
        return "abstained" if vote == "abstain" else f"voted for {self._names[vote]}"

    def _result_line(self) -> str:
        """The moderator's announcement of the vote."""
        result = self._vote_result()
        chameleon = self._names[self.chameleon]
        if result == "even":
            return f"The vote is even: the accusation does not stand. {chameleon} is the chameleon."
        accused = self._names[self.accused]
        if result == "correct":
            return f"The vote: {accused} is accused, and {accused} is the chameleon."
        return f"The vote: {accused} is accused, but {chameleon} is the chameleon."

    def _outcome_text(self) -> str:
        chameleon = self._names[self.chameleon]
        if self.outcome == WRONG_ACCUSATION:
            return f"A non-chameleon was accused: {chameleon}, the chameleon, wins (2 credits; the others 0)."
        if self.outcome == EVEN_VOTE:
            return "The vote was even: the accusation did not stand (1 credit each)."
        if self.outcome == CAUGHT_RIGHT_GUESS:
            return f"{chameleon}, the chameleon, was found but guessed the secret word: the game is split (1 credit each)."
        return f"{chameleon}, the chameleon, was found and guessed wrong: the others win (2 credits each; the chameleon 0)."

    def observation_string(self, int player) -> str:
        check_seat("chameleon", player, self.num_players)
        lines = [self._rules_text()]
        if self.setting < 0:
            lines.append(f"You are {self._names[player]}. The game is being set up.")
            return "\n".join(lines)
        lines.append(f"You are {self._names[player]}. The topic is \"{self._topic()}\".")
        if self.chameleon < 0:
            lines.append("The roles are being dealt.")
            return "\n".join(lines)
        if player == self.chameleon:
            lines.append("You are the chameleon: you do not know the secret word.")
        else:
            lines.append(f"You are not the chameleon. The secret word is \"{self._word()}\".")
        if self._clues:
            lines.append("Clues:")
            lines += [f"  {self._names[seat]}: {text or '(blank)'}" for _, seat, text in self._clues]
        if self.votes[player] != NO_VOTE:
            lines.append(f"Your vote: you {self._vote_text(player)}.")
        if self._vote_result() is not None:
            lines.append(self._result_line())
        lines.append(self._status_text(player))
        return "\n".join(lines)

    def _status_text(self, int player) -> str:
        if self.phase == CLUES:
            if player == self.speaker:
                return "Your turn to give a clue."
            return f"{self._names[self.speaker]} is giving a clue."
        if self.phase == VOTE:
            return f"Vote now. {self._vote_help(player)}"
        if self.phase == GUESS:
            if player == self.chameleon:
                return "You were found out. Guess the secret word: answer I guess the code is \"...\""
            return f"{self._names[self.chameleon]} is guessing the secret word."
        lines = [f"Game over. {self._outcome_text()}",
                 f"The secret word was \"{self._word()}\"; {self._names[self.chameleon]} was the chameleon.",
                 "Votes: " + "; ".join(f"{self._names[s]} {self._vote_text(s)}" for s in range(self.num_players))
                 + "."]
        if self._guess is not None:
            verdict = "right" if self.guess_right else "wrong"
            lines.append(f"{self._names[self.chameleon]} guessed: {self._guess or '(blank)'} ({verdict}).")
        return "\n".join(lines)

    def _phase_name(self) -> str:
        return ("deal", "deal", "clue", "vote", "guess", "over")[self.phase]

    def _guess_record(self):
        if self._guess is None:
            return None
        return {"seat": self.chameleon, "text": self._guess, "correct": bool(self.guess_right)}

    def observation_dict(self, int player) -> dict:
        check_seat("chameleon", player, self.num_players)
        over = self.phase == OVER
        return {
            "seat": player,
            "name": self._names[player],
            "names": list(self._names),
            "topic": self._topic(),
            "role": self._role(player),
            "word": self._word() if self._knows_word(player) else None,
            "phase": self._phase_name(),
            "to_speak": self.speaker if self.phase == CLUES else None,
            "clues": [{"move": move, "seat": seat, "text": text} for move, seat, text in self._clues],
            "conversation": self.conversation(player),
            "my_vote": self._vote_value(player),
            "vote_result": self._vote_result(),
            "accused": self.accused if self.accused >= 0 else None,
            "chameleon": self.chameleon if self._knows_chameleon(player) else None,
            "guess": self._guess_record() if over else None,
            "outcome": OUTCOME_NAMES[self.outcome] if over else None,
            "votes": [self._vote_value(s) for s in range(self.num_players)] if over else None,
            "credits": self._credits() if over else None,
        }

    def _credits(self) -> list:
        return [MAGIC_CREDITS[self._role(s)][self.outcome] for s in range(self.num_players)]

    def probes(self) -> list:
        """MAgIC's metric questions due now, to every seat (magic.md §4 items 3 and 5, the released code's
        schedule): before each clue turn, self-awareness; after each clue, reasoning (so between two
        clues both are due, the reasoning about the clue just given first). "turn" k in the data is the
        k-th clue (1-based): before it for self-awareness, after it for reasoning. The questions and
        data name no hidden fact (the roles and the word stay in result_details)."""
        due = []
        if self.phase == CLUES:
            if self.speaker > 0:
                due.append((REASONING, self.speaker))
            due.append((SELF_AWARENESS, self.speaker + 1))
        elif self.phase == VOTE:
            due.append((REASONING, self.num_players))
        out = []
        for metric, turn in due:
            for seat in range(self.num_players):
                name = self._names[seat]
                question = (self_awareness_question(name) if metric == SELF_AWARENESS
                            else reasoning_question(name, self._names))
                out.append({"probe_id": f"{metric}-{turn}-{seat}", "seat": seat, "question": question,
                            "data": {"metric": metric, "turn": turn}})
        return out

    def public_history(self) -> list:
        """The deal as two summaries, every "give a clue" move, the vote's result, the guess move."""
        out = []
        for seat, action in self._history:
            if seat == CHANCE_PLAYER:
                out.append((-1, -1, f"the topic is {self._topic()}; the secret word is drawn" if not out
                            else "the chameleon is chosen"))
            elif seat == SIMULTANEOUS_PLAYER:
                out.append((-1, -1, self._result_line()))
            else:
                out.append((seat, action, self.action_to_string(seat, action)))
        return out

    def result_summary(self) -> str:
        if self.phase != OVER:
            return "game in progress"
        return self._outcome_text()

    def result_details(self) -> dict:
        """Everything the MAgIC metrics read: the setting, each seat's role, every clue and vote with who
        gave it, the tally, the accusation, the guess and its verdict, the outcome (name and code flag)
        and each seat's credits."""
        if self.chameleon < 0:
            return {}
        voted = self.votes[0] != NO_VOTE
        tally = [sum(1 for s in range(self.num_players) if self.votes[s] == t) for t in range(self.num_players)]
        details = {
            "setting": self.setting,
            "topic": self._topic(),
            "word": self._word(),
            "chameleon": self.chameleon,
            "roles": [self._role(s) for s in range(self.num_players)],
            "clues": [{"move": move, "seat": seat, "text": text} for move, seat, text in self._clues],
            "votes": [self._vote_value(s) for s in range(self.num_players)] if voted else None,
            "tally": tally if voted else None,
            "accused": self.accused if self.accused >= 0 else None,
            "vote_result": self._vote_result(),
            "guess": self._guess_record(),
            "recorded_clues": self.recorded,
            "outcome": None,
        }
        if self.phase == OVER:
            details["outcome"] = OUTCOME_NAMES[self.outcome]
            details["code_flag"] = self.outcome
            details["credits"] = self._credits()
            details["winners"] = [s for s, r in enumerate(self.returns()) if r > 0]
        return details


class Game(GameBase):
    """The Chameleon with validated parameters; `num_players` sets the "players" value."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        setting = checked_int(self.parameters, "setting", -1, len(SETTINGS) - 1)
        chameleon = checked_int(self.parameters, "chameleon_seat", -1, num_players - 1)
        recorded = checked_int(self.parameters, "recorded_clues", 0, num_players)
        self.recorded_first_clues = ()
        if recorded:
            record = competition_of(setting, chameleon)
            if record is None or num_players != len(record.first_clues):
                raise ValueError("parameter 'recorded_clues' needs the 'setting' and 'chameleon_seat' of a "
                                 "chameleon_settings.COMPETITIONS record, with as many players as it has clues")
            self.recorded_first_clues = tuple(record.first_clues[:recorded])

    def new_initial_state(self) -> ChameleonState:
        return ChameleonState(self)

    def utility_bounds(self) -> tuple:
        return -1.0, 1.0

    def state_from_view(self, int player, dict view) -> ChameleonState:
        """A state consistent with seat `player`'s view (its observation_dict): the topic, the clues and
        its own vote replayed; the hidden word (for the chameleon) is the first word of the topic that no
        other seat's clue names, the hidden chameleon (for a non-chameleon) the first other seat such that
        no seat but it named the word, and the other votes, while the guess is pending, votes that give
        the announced accusation (the real ones once the game is over)."""
        check_seat("chameleon", player, self.num_players)
        state = self.new_initial_state()
        topic = view["topic"]
        if topic is None:
            return state
        clues = view["clues"]
        chameleon = view["chameleon"]
        word = view["word"]
        if word is None:
            # The chameleon (or nobody yet): any word that the others' clues do not name.
            word = next((w for w in topic_words(topic)
                         if not any(mentions(c["text"], w) for c in clues if c["seat"] != chameleon)),
                        topic_words(topic)[0])
        state.apply_action(setting_index(topic, word))
        if view["role"] is None:
            return state
        if chameleon is None:
            chameleon = next(s for s in range(self.num_players) if s != player and
                             not any(mentions(c["text"], word) for c in clues if c["seat"] != s))
        state.apply_action(chameleon)
        for clue in clues:
            state.apply_action(self.num_players, clue["text"])
        if view["vote_result"] is None:
            return state
        votes = view["votes"]
        if votes is None:
            # The guess is pending, so the chameleon was the only most-voted: everyone else votes for
            # it, and the chameleon abstains.
            votes = [view["my_vote"] if s == player else "abstain" if s == chameleon else chameleon
                     for s in range(self.num_players)]
        state.apply_actions([self.num_players + 1 if v == "abstain" else v for v in votes])
        if view["guess"] is not None:
            state.apply_action(self.num_players + 2, view["guess"]["text"])
        return state
