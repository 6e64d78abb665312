"""Negotiation (Deal or No Deal, Lewis et al. 2017), as played in GTBench (OpenSpiel's `negotiation`)
and LLMArena (Bargain).

Rules. Two players divide a pool of three item types ("item_names"; GTBench peppers, strawberries,
cherries; LLMArena hats, balls, apples). Each player has a private value per item type. Players
alternate turns, player 0 first. On its turn a player either proposes a division - how many of each
item it takes, the rest going to the other player - or, once a proposal exists, agrees to the other
player's latest proposal. With "utterances" "symbols" (GTBench) each proposal is followed, by the same
player, by an utterance of 3 symbols from 0-4: cheap talk that binds no one; an agreement ends the
game at once, without an utterance. With "utterances" "talk" (LLMArena) each move - proposal or
agreement - may carry free-text talk that the other player reads; it too binds no one. An agreement
gives each player the value of its share (the proposer takes its proposal, the other player the
rest); without agreement within the turn limit both get 0. A turn is one proposal or agreement; the
limit is either drawn by chance and hidden ("random_length": a Poisson(7) draw truncated to
4..max_turns, as in OpenSpiel after Cao et al. 2018) or fixed at "max_turns".

Chance ("instances"). All draws come first, in OpenSpiel's order: the turn limit (when random), the
item pool, player 0's values, player 1's values.
  - "openspiel": each item count uniform on 0-5 (one chance node, outcome id = the encoded triple
    below); each value uniform on 0-10 with at least one non-zero value per player, drawn item by item
    (outcome id = the value; the conditional probabilities give exactly the uniform law over non-zero
    value vectors, which one node of 1330 outcomes could not hold).
  - "deal_or_no_deal": an instance drawn uniformly from all 5793 that satisfy Lewis et al.'s
    constraints, as OpenSpiel's bargaining instance generator applies them (its rejection sampling
    gives exactly this uniform law): every count 1-5 with 5-7 items in total; each player's values add
    up to 10 over the pool; every item type is worth something to at least one player; some item type
    is worth something to both. LLMArena's instance file obeys the two constraints its card states
    (5-7 items, each pool worth 10 to each player). Pool node, then one node per player; a value
    vector's outcome id is 121 * v0 + 11 * v1 + v2.

Actions, as in OpenSpiel. A proposal (a, b, c) - the counts the proposer takes, each at most the
pool's - has id 36a + 6b + c (0-215); Agree is 216; an utterance (x, y, z) is 217 + 25x + 5y + z
(217-341). Canonical texts: "Proposal: [a, b, c]", "Agree", "Utterance: [x, y, z]".

Parsing (`parse_action`, a move on its own). At an utterance turn: the last bracketed triple
("<Utterance: [1, 0, 4]>"), symbols 0-4. At a proposal turn, the first of:
  1. LLMArena's plan line, the last "player_N: ..." line: "Deal" accepts, "x hats y balls z apples"
     proposes (number words zero-nine accepted, singular or plural item names, a missing item is 0);
  2. GTBench's proposal, the last bracketed triple ("<Proposal: [1, 0, 2]>");
  3. item counts anywhere in the text, the last mention of each item;
  4. the word "agree" or "deal" in any case (GTBench's "Agree" / "<Agree>", LLMArena's "Deal").
A count above the pool's is returned (an illegal proposal for the referee to judge), and so is an
Agree before any proposal (illegal: nothing to accept); a count above 5 or a symbol above 4 raises
ActionParseError.

Dialogue (only "utterances" "talk", i.e. the llmarena_bargain preset; the spec's `dialogue` flag is
game-wide, but no other decision takes a message). Every proposal turn carries an optional message,
the talk (LLMArena's accept answer "player_0: Deal." has none; its counter-proposal has talk first).
  - `read_reply` splits one whole reply in LLMArena's layout: the plan line runs from the last
    "player_N:" of the seat's own name N to the end of its line, read as in rule 1 above (item counts,
    else "Deal"); the talk is the rest of the reply - everything before the name and anything after
    that line - stripped, no talk when empty. A reply that is only a canonical move ("Agree", "Proposal: [1, 2,
    0]") is that move without talk. A reply without the plan line, or whose plan line names no items
    and no Deal, raises ActionParseError with the expected layout.
  - `check_message`: at most 4000 characters (the limit of the whole reply), stored stripped.
  - Both players hear all talk: `conversation(seat)` is in both views ("conversation" in
    observation_dict, and "talk" on each move, None without), shown before the move it came with.
  - `default_message` is the empty text: LLMArena's talk after a reply it could not read (the
    failure policy then supplies the plan).
  - Search never sees talk; `state_from_view` replays it so the rebuilt views match.

Information. Pool, proposals, agreements, utterances and talk are public; values are private. The
turn limit, when random, is hidden from both players until the game ends at it. `public_history` lists
the pool draw (seat -1 with its outcome id), every move, and the end (talk is in `messages()`);
`result_details` reveals the values and the limit.

Presets:
  - "gtbench": OpenSpiel negotiation defaults: OpenSpiel instances, random turn limit 4-10, symbol
    utterances, peppers/strawberries/cherries; answers "<Proposal: [a, b, c]>", "<Agree>",
    "<Utterance: [x, y, z]>".
  - "llmarena_bargain": LLMArena's Bargain rules: Deal-or-No-Deal instances, hats/balls/apples, 10
    rounds of one turn per player (20 turns), free-text talk with each move; answers "I'd like the
    hats.\nplayer_0: 1 hat 2 balls 0 apples" or "player_0: Deal.". Returns are the secured values
    (winner = larger value, no deal = draw); the code's zero-sum difference reward is in
    `result_details`.

Ambiguities (resolutions recommended in gtbench.md section 6 item 8 and llmarena.md section 6 item 18):
  - Agree accepts the other player's latest proposal, player 0 moves first, no agreement scores 0/0,
    every proposal within the pool is legal (GTBench's prompt forbids taking all 5 of an item, its
    code allows it).
  - The turn limit is in OpenSpiel's observation string but not in its observation tensor nor in
    GTBench's prompts; it is hidden here, so that no player can count on a known last turn.
  - OpenSpiel's rejection loop appends the redrawn values after an all-zero draw instead of replacing
    it, so an all-zero vector (probability 1/1331) stays in effect; values here follow the stated rule,
    at least one non-zero value.
  - GTBench's code clamps proposal numbers to 5 and symbols to 4; this parser refuses them (gtbench.md
    section 6 item 14 reserves clamping to code presets).
  - The GTBench pool, values and length come from OpenSpiel's own RNG; here from the server's chance
    draws. LLMArena's fixed file of about 1000 instances is replaced by a uniform draw over every instance
    meeting the constraints (llmarena.md: "equivalent instances can be generated with the same
    constraints"); its "Deal with no standing offer" (-1 for the dealer) is an illegal move here, so the
    referee's failure policy applies (LLMArena's own: the offender gets -1, the other 0).
  - Talk (llmarena.md section 2.5; section 6 gives no resolution for these). LLMArena's code takes the
    first line holding "player_N:" and keeps as talk only the text before the name on that line; the
    paper's layout is talk, then the plan line, so here the plan line is the last one and the talk
    is all the rest. Without a plan line the code looked for "deal" or item counts anywhere in the
    reply and relayed the whole reply as talk; `read_reply` refuses such a reply instead (the referee
    asks again), because talk such as "no deal unless I get 2 hats" would otherwise bind. Those
    fallbacks remain in `parse_action`, which reads a move sent apart from its talk. The paper sets
    no length for talk (4000 characters here) and only asks players not to reveal their values,
    which is not checked.
"""

from libc.math cimport exp, lgamma, log
from libc.string cimport memcpy

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, Rng, State, rng_below, rng_uniform
from arena_engines.core import ActionParseError
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset

cdef enum:
    NUM_ITEMS = 3
    MAX_QUANTITY = 5            # OpenSpiel's kMaxQuantity: counts 0-5, proposals in base 6
    QUANTITY_BASE = 6
    MAX_VALUE = 10
    VALUE_BASE = 11
    NUM_VALUE_VECTORS = 1331    # 11^3
    NUM_PROPOSALS = 216         # 6^3
    AGREE = 216
    UTTERANCE_BASE = 217
    NUM_SYMBOLS = 5
    NUM_UTTERANCES = 125        # 5^3
    MAX_TURNS = 20
    MIN_RANDOM_LENGTH = 4       # OpenSpiel: Poisson(7) truncated to [4, 10]
    DOND_TOTAL_VALUE = 10       # Deal or No Deal: each player's pool is worth 10
    DOND_MIN_ITEMS = 5
    DOND_MAX_ITEMS = 7

cdef enum:                      # chance steps
    STEP_LENGTH = 0
    STEP_POOL = 1
    STEP_ITEM_VALUE = 2         # openspiel instances: one item's value for one player
    STEP_VALUE_VECTOR = 3       # deal_or_no_deal instances: one player's values

cdef double RANDOM_LENGTH_MEAN = 7.0
INSTANCES = ("openspiel", "deal_or_no_deal")
UTTERANCES = ("symbols", "talk", "none")
TEXT_LIMIT = 4000               # characters of a reply, and of its talk: room to reason and bargain
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

SPEC = GameSpec(
    game_id="negotiation",
    display_name="Negotiation (Deal or No Deal)",
    rules_version="1",
    min_players=2,
    max_players=2,
    dynamics="sequential",
    chance="stochastic",
    information="imperfect",
    utility="general_sum",
    min_utility=0.0,
    max_utility=float(NUM_ITEMS * MAX_QUANTITY * MAX_VALUE),
    max_game_length=1 + 1 + 2 * NUM_ITEMS + 2 * MAX_TURNS,
    description="Two players with private item values take turns proposing how to divide a pool of three "
                "item types, or agreeing to the other's latest proposal; an agreement gives each the value "
                "of its share, no agreement within the turn limit gives both 0.",
    parameters=(
        Parameter("instances", "openspiel",
                  "'openspiel' (counts 0-5, values 0-10) or 'deal_or_no_deal' (Lewis et al.: 5-7 items, "
                  "each player's pool worth 10)"),
        Parameter("max_turns", 10, f"turn limit (a turn is one proposal or agreement), 1-{MAX_TURNS}; with "
                                   "random_length, the largest possible limit"),
        Parameter("random_length", True, "draw the turn limit as Poisson(7) truncated to 4..max_turns, "
                                         "hidden from the players (OpenSpiel); false: exactly max_turns"),
        Parameter("utterances", "symbols", "'symbols': after each proposal the proposer utters 3 symbols "
                                           "0-4 (GTBench); 'talk': each move may carry free-text talk that "
                                           "the other player reads (LLMArena); 'none': moves only"),
        Parameter("item_names", "peppers,strawberries,cherries",
                  "the three item types, plural English nouns separated by commas"),
    ),
    presets=(
        Preset("gtbench", "GTBench (Duan et al., 2024), OpenSpiel negotiation defaults: counts 0-5, values "
               "0-10, hidden turn limit 4-10, proposal then 3-symbol utterance each turn, peppers, "
               "strawberries, cherries; answer '<Proposal: [a, b, c]>', '<Agree>' or "
               "'<Utterance: [x, y, z]>'.",
               {"instances": "openspiel", "max_turns": 10, "random_length": True, "utterances": "symbols",
                "item_names": "peppers,strawberries,cherries"}),
        Preset("llmarena_bargain", "LLMArena (Chen et al., ACL 2024) Bargain: Deal-or-No-Deal instances, "
               "hats, balls, apples, 10 rounds of one turn each; each turn free-text talk for the other "
               "player, then the binding plan line 'player_0: 1 hat 2 balls 0 apples' or 'player_0: Deal.'.",
               {"instances": "deal_or_no_deal", "max_turns": 20, "random_length": False, "utterances": "talk",
                "item_names": "hats,balls,apples"}),
    ),
    accepts_text_actions=True,
    dialogue=True,      # only with "utterances" "talk" (llmarena_bargain) do moves carry messages
)

# A Bargain playthrough of all 20 turns without a deal is too long to read; 6 turns show the talk.
PLAYTHROUGH_OVERRIDES = {"llmarena_bargain": {"max_turns": 6}}

_TRIPLE = re.compile(r"\[\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,9})\s*\]")
_PLAN_LINE = re.compile(r"\bplayer_\d+\s*:([^\n]*)", re.IGNORECASE)
# A seat's own plan line, "player_0: ...", whose end (the end of its line) separates it from the talk.
_OWN_PLAN_LINE = tuple(re.compile(rf"\bplayer_{seat}\s*:([^\n]*)", re.IGNORECASE) for seat in (0, 1))
_CANONICAL = re.compile(r"\s*(agree|proposal\s*:\s*\[\s*\d{1,9}\s*,\s*\d{1,9}\s*,\s*\d{1,9}\s*\])\s*",
                        re.IGNORECASE)
_AGREE = re.compile(r"\b(agree|agreed|deal)\b", re.IGNORECASE)


# ---- encodings and instance tables (C level) --------------------------------------------------
cdef inline void _decode(int code, int base, int* out) noexcept:
    out[2] = code % base
    code = code // base
    out[1] = code % base
    out[0] = code // base


cdef inline int _encode(int* digits, int base) noexcept:
    return (digits[0] * base + digits[1]) * base + digits[2]


cdef int _dond_candidates(int* pool, int* out) noexcept:
    """Value vectors (ids) worth exactly 10 over `pool`; returns their count."""
    cdef int code, n = 0
    cdef int v[3]
    for code in range(NUM_VALUE_VECTORS):
        _decode(code, VALUE_BASE, v)
        if v[0] * pool[0] + v[1] * pool[1] + v[2] * pool[2] == DOND_TOTAL_VALUE:
            out[n] = code
            n += 1
    return n


cdef bint _dond_compatible(int first, int second) noexcept:
    """Every item worth something to someone, some item worth something to both."""
    cdef int a[3]
    cdef int b[3]
    cdef int i
    cdef bint shared = False
    _decode(first, VALUE_BASE, a)
    _decode(second, VALUE_BASE, b)
    for i in range(NUM_ITEMS):
        if a[i] == 0 and b[i] == 0:
            return False
        if a[i] > 0 and b[i] > 0:
            shared = True
    return shared


cdef bint _dond_pool(int* pool) noexcept:
    cdef int total = pool[0] + pool[1] + pool[2]
    return pool[0] >= 1 and pool[1] >= 1 and pool[2] >= 1 and DOND_MIN_ITEMS <= total <= DOND_MAX_ITEMS


cdef int _dond_partners(int values, int* candidates, int count) noexcept:
    """How many of the `count` candidate vectors can face `values` in an instance."""
    cdef int i, n = 0
    for i in range(count):
        if _dond_compatible(values, candidates[i]):
            n += 1
    return n


# Number of valid Deal-or-No-Deal instances (value-vector pairs) per pool id; 0 for other pools.
cdef int DOND_POOL_WEIGHT[NUM_PROPOSALS]


cdef void _fill_dond_pool_weights() noexcept:
    cdef int code, i, n
    cdef int pool[3]
    cdef int candidates[NUM_VALUE_VECTORS]
    for code in range(NUM_PROPOSALS):
        DOND_POOL_WEIGHT[code] = 0
        _decode(code, QUANTITY_BASE, pool)
        if not _dond_pool(pool):
            continue
        n = _dond_candidates(pool, candidates)
        for i in range(n):
            DOND_POOL_WEIGHT[code] += _dond_partners(candidates[i], candidates, n)


_fill_dond_pool_weights()


cdef double _length_weight(int length) noexcept:
    """Unnormalised Poisson(7) probability of `length`."""
    return exp(length * log(RANDOM_LENGTH_MEAN) - lgamma(length + 1.0))


def dond_instance_count() -> int:
    """How many Deal-or-No-Deal instances the "deal_or_no_deal" draw ranges over."""
    return sum(DOND_POOL_WEIGHT[i] for i in range(NUM_PROPOSALS))


# ---- Python helpers ---------------------------------------------------------------------------
def _singular(str plural) -> str:
    if plural.endswith("ies"):
        return plural[:len(plural) - 3] + "y"
    return plural[:len(plural) - 1] if plural.endswith("s") else plural


def _count_pattern(names) -> object:
    """Matches "2 peppers", "one strawberry": a count (digits or zero-nine) and an item name."""
    words = "|".join(NUMBER_WORDS)
    items = "|".join(re.escape(form) for name in names for form in sorted({name, _singular(name)}, key=len,
                                                                        reverse=True))
    return re.compile(rf"\b(\d{{1,9}}|{words})\s+({items})\b", re.IGNORECASE)


cdef class NegotiationState(State):
    cdef int dond, max_turns, random_length, utterances
    cdef bint talk                      # each move may carry talk (a message; search never sees it)
    cdef int setup_steps                # chance steps of the setup
    cdef int step                       # chance steps done
    cdef int length                     # the turn limit; -1 until drawn
    cdef int pool[NUM_ITEMS]
    cdef int values[2][NUM_ITEMS]
    cdef int proposals[MAX_TURNS]       # proposal ids in turn order (player 0 made the even ones)
    cdef int symbols[MAX_TURNS]         # utterance ids, one per proposal when utterances are on
    cdef int num_proposals, num_utterances
    cdef bint agreed
    cdef object names                   # item names (plural), for the views
    cdef object count_pattern

    def __init__(self, game):
        super().__init__(game, 2)
        p = game.parameters
        self.dond = p["instances"] == "deal_or_no_deal"
        self.max_turns = p["max_turns"]
        self.random_length = p["random_length"]
        self.utterances = p["utterances"] == "symbols"
        self.talk = p["utterances"] == "talk"
        self.setup_steps = (1 if self.random_length else 0) + 1 + (2 if self.dond else 2 * NUM_ITEMS)
        self.length = -1 if self.random_length else self.max_turns
        self.names = game.item_names
        self.count_pattern = _count_pattern(self.names)

    # ---- chance setup -------------------------------------------------------------------------
    cdef int _step_kind(self, int step, int* seat, int* item) noexcept:
        """What setup step `step` draws; sets the seat (and item) whose values it draws."""
        if self.random_length:
            if step == 0:
                return STEP_LENGTH
            step -= 1
        if step == 0:
            return STEP_POOL
        step -= 1
        if self.dond:
            seat[0] = step
            return STEP_VALUE_VECTOR
        seat[0] = step // NUM_ITEMS
        item[0] = step % NUM_ITEMS
        return STEP_ITEM_VALUE

    cdef int _values_steps_done(self, int seat) noexcept:
        """How many of `seat`'s value draws (items, or the single vector) have happened."""
        cdef int per_seat = 1 if self.dond else NUM_ITEMS
        cdef int first = self.setup_steps - 2 * per_seat + seat * per_seat
        cdef int done = self.step - first
        return 0 if done < 0 else (per_seat if done > per_seat else done)

    cdef int _item_value_outcomes(self, int seat, int item, int* actions, double* probs) noexcept:
        # Uniform over the 1330 non-zero vectors: while all earlier items are 0, a 0 here leaves
        # 11^rest - 1 completions and any other value 11^rest; after a non-zero value, uniform.
        cdef int i, v, weight, rest = NUM_ITEMS - 1 - item, completions = 1, n = 0
        cdef bint zero_prefix = True
        cdef double total = 0.0
        for i in range(rest):
            completions *= VALUE_BASE
        for i in range(item):
            if self.values[seat][i] != 0:
                zero_prefix = False
        for v in range(MAX_VALUE + 1):
            weight = completions - 1 if (zero_prefix and v == 0) else (completions if zero_prefix else 1)
            if weight > 0:
                actions[n] = v
                probs[n] = weight
                total += weight
                n += 1
        for i in range(n):
            probs[i] /= total
        return n

    cdef int _value_vector_outcomes(self, int seat, int* actions, double* probs) noexcept:
        cdef int candidates[NUM_VALUE_VECTORS]
        cdef int count = _dond_candidates(self.pool, candidates)
        cdef int i, n = 0, weight
        cdef int own = _encode(self.values[0], VALUE_BASE)
        cdef double total = 0.0
        for i in range(count):
            # Player 0's vector weighs as many instances as it has partners; player 1's is uniform
            # among the partners of player 0's.
            if seat == 0:
                weight = _dond_partners(candidates[i], candidates, count)
            else:
                weight = 1 if _dond_compatible(own, candidates[i]) else 0
            if weight > 0:
                actions[n] = candidates[i]
                probs[n] = weight
                total += weight
                n += 1
        for i in range(n):
            probs[i] /= total
        return n

    # ---- turns --------------------------------------------------------------------------------
    cdef bint _over(self) noexcept:
        if self.agreed:
            return True
        # The last proposal's utterance still follows it.
        return self.num_proposals >= self.length and (not self.utterances
                                                      or self.num_utterances == self.num_proposals)

    cdef bint _utterance_turn(self) noexcept:
        return self.utterances and self.num_utterances < self.num_proposals

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.step < self.setup_steps:
            return CHANCE_PLAYER
        if self._over():
            return TERMINAL_PLAYER
        if self._utterance_turn():
            return (self.num_proposals - 1) % 2
        return self.num_proposals % 2

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int a, b, c, i, n = 0
        if player < 0 or self.c_current_player() != player:
            return 0
        if self._utterance_turn():
            for i in range(NUM_UTTERANCES):
                out[i] = UTTERANCE_BASE + i
            return NUM_UTTERANCES
        for a in range(self.pool[0] + 1):
            for b in range(self.pool[1] + 1):
                for c in range(self.pool[2] + 1):
                    out[n] = (a * QUANTITY_BASE + b) * QUANTITY_BASE + c
                    n += 1
        if self.num_proposals > 0:
            out[n] = AGREE
            n += 1
        return n

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int seat = 0, item = 0, kind, k, n = 0
        cdef double total = 0.0
        kind = self._step_kind(self.step, &seat, &item)
        if kind == STEP_LENGTH:
            for k in range(MIN_RANDOM_LENGTH, self.max_turns + 1):
                actions[n] = k
                probs[n] = _length_weight(k)
                total += probs[n]
                n += 1
        elif kind == STEP_POOL:
            for k in range(NUM_PROPOSALS):
                if self.dond and DOND_POOL_WEIGHT[k] == 0:
                    continue
                actions[n] = k
                probs[n] = DOND_POOL_WEIGHT[k] if self.dond else 1.0
                total += probs[n]
                n += 1
        elif kind == STEP_ITEM_VALUE:
            return self._item_value_outcomes(seat, item, actions, probs)
        else:
            return self._value_vector_outcomes(seat, actions, probs)
        for k in range(n):
            probs[k] /= total
        return n

    cdef void c_apply_action(self, int action) noexcept:
        cdef int seat = 0, item = 0, kind
        if self.step < self.setup_steps:
            kind = self._step_kind(self.step, &seat, &item)
            if kind == STEP_LENGTH:
                self.length = action
            elif kind == STEP_POOL:
                _decode(action, QUANTITY_BASE, self.pool)
            elif kind == STEP_ITEM_VALUE:
                self.values[seat][item] = action
            else:
                _decode(action, VALUE_BASE, self.values[seat])
            self.step += 1
        elif self._utterance_turn():
            self.symbols[self.num_utterances] = action
            self.num_utterances += 1
        elif action == AGREE:
            self.agreed = True
        else:
            self.proposals[self.num_proposals] = action
            self.num_proposals += 1

    cdef void c_returns(self, double* out) noexcept:
        cdef int proposer, other, i
        cdef int share[3]
        out[0] = 0.0
        out[1] = 0.0
        if not self.agreed:
            return
        proposer = (self.num_proposals - 1) % 2
        other = 1 - proposer
        _decode(self.proposals[self.num_proposals - 1], QUANTITY_BASE, share)
        for i in range(NUM_ITEMS):
            out[proposer] += self.values[proposer][i] * share[i]
            out[other] += self.values[other][i] * (self.pool[i] - share[i])

    cdef void c_resample_hidden(self, int player, Rng* rng) noexcept:
        cdef int other = 1 - player, drawn, i, count, pick, lowest
        cdef int v[3]
        cdef int candidates[NUM_VALUE_VECTORS]
        cdef double total, target
        # The other player's values, as far as drawn, from their law given what the player knows.
        drawn = self._values_steps_done(other)
        if drawn > 0 and not self.dond:
            _decode(1 + rng_below(rng, NUM_VALUE_VECTORS - 1), VALUE_BASE, v)
            for i in range(drawn):
                self.values[other][i] = v[i]
        elif drawn > 0:
            count = _dond_candidates(self.pool, candidates)
            if self._values_steps_done(player) > 0:
                # uniform among the partners of the player's own values
                count = self._keep_partners(_encode(self.values[player], VALUE_BASE), candidates, count)
                pick = candidates[rng_below(rng, count)]
            else:
                # player 1 before its own draw: player 0's marginal law
                pick = self._weighted_candidate(rng, candidates, count)
            _decode(pick, VALUE_BASE, self.values[other])
        # The hidden turn limit, given that the game has lasted as long as it has.
        if not self.random_length or self.length < 0 or (self._over() and not self.agreed):
            return
        if self.step < self.setup_steps:
            lowest = MIN_RANDOM_LENGTH
        elif self._utterance_turn():
            lowest = self.num_proposals
        else:
            lowest = self.num_proposals + 1         # a proposal turn, or the turn that agreed
        if lowest < MIN_RANDOM_LENGTH:
            lowest = MIN_RANDOM_LENGTH
        total = 0.0
        for i in range(lowest, self.max_turns + 1):
            total += _length_weight(i)
        target = rng_uniform(rng) * total
        self.length = self.max_turns
        for i in range(lowest, self.max_turns + 1):
            target -= _length_weight(i)
            if target < 0.0:
                self.length = i
                break

    cdef int _keep_partners(self, int values, int* candidates, int count) noexcept:
        """Keeps, in place, the candidates that can face `values`; returns how many remain."""
        cdef int i, n = 0
        for i in range(count):
            if _dond_compatible(values, candidates[i]):
                candidates[n] = candidates[i]
                n += 1
        return n

    cdef int _weighted_candidate(self, Rng* rng, int* candidates, int count) noexcept:
        cdef int i, total = 0, pick
        for i in range(count):
            total += _dond_partners(candidates[i], candidates, count)
        pick = rng_below(rng, total)
        for i in range(count):
            pick -= _dond_partners(candidates[i], candidates, count)
            if pick < 0:
                return candidates[i]
        return candidates[count - 1]

    cdef State c_clone(self):
        cdef NegotiationState s = NegotiationState.__new__(NegotiationState)
        self._copy_base_into(s)
        s.dond = self.dond
        s.max_turns = self.max_turns
        s.random_length = self.random_length
        s.utterances = self.utterances
        s.talk = self.talk
        s.setup_steps = self.setup_steps
        s.step = self.step
        s.length = self.length
        s.pool = self.pool
        memcpy(s.values, self.values, sizeof(self.values))
        s.proposals = self.proposals
        s.symbols = self.symbols
        s.num_proposals = self.num_proposals
        s.num_utterances = self.num_utterances
        s.agreed = self.agreed
        s.names = self.names
        s.count_pattern = self.count_pattern
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _items_text(self, counts) -> str:
        parts = [f"{n} {self.names[i] if n != 1 else _singular(self.names[i])}" for i, n in enumerate(counts)]
        return ", ".join(parts)

    def _pool_known(self) -> bool:
        return self.step > (1 if self.random_length else 0)

    def _own_values(self, int player):
        if self._values_steps_done(player) < (1 if self.dond else NUM_ITEMS):
            return None
        return [self.values[player][i] for i in range(NUM_ITEMS)]

    def _value_of(self, int player, counts) -> int:
        return sum(self.values[player][i] * counts[i] for i in range(NUM_ITEMS))

    def _proposal(self, int index) -> list:
        return self._decode_proposal(self.proposals[index])

    def _rest(self, counts) -> list:
        return [self.pool[i] - counts[i] for i in range(NUM_ITEMS)]

    def _moves(self) -> list:
        """Public moves in order: (turn, seat, action id)."""
        moves = []
        for t in range(self.num_proposals):
            moves.append((t + 1, t % 2, self.proposals[t]))
            if t < self.num_utterances:
                moves.append((t + 1, t % 2, self.symbols[t]))
        if self.agreed:
            moves.append((self.num_proposals + 1, self.num_proposals % 2, AGREE))
        return moves

    def _phase(self) -> str:
        cdef int p = self.c_current_player()
        if p == CHANCE_PLAYER:
            return "setup"
        if p == TERMINAL_PLAYER:
            return "over"
        return "utterance" if self._utterance_turn() else "proposal"

    def _limit_known(self) -> bool:
        return not self.random_length or (self._phase() == "over" and not self.agreed)

    def _names_text(self) -> str:
        return f"{self.names[0]}, {self.names[1]} and {self.names[2]}"

    def _rules_text(self) -> str:
        if self.utterances:
            talk = ", and then sends a message of three symbols from 0 to 4 (cheap talk: it binds no one)"
        elif self.talk:
            talk = (", and may say anything to the other player with it (talk binds no one: only the proposal or "
                    "agreement counts; players should not reveal their values)")
        else:
            talk = ""
        if self.dond:
            instance = ("There are 5 to 7 items, at least one of each type. Each player's values add up to "
                        "10 over the whole pool; every item type is worth something to at least one player, "
                        "and some type is worth something to both.")
        else:
            instance = ("Each item type has 0 to 5 items. Each player values each type at 0 to 10 points per "
                        "item, with at least one type worth something.")
        if self.random_length:
            limit = (f"The turn limit is hidden: drawn at random between {MIN_RANDOM_LENGTH} and "
                     f"{self.max_turns} (Poisson with mean 7, truncated).")
        else:
            limit = f"The turn limit is {self.max_turns} turns."
        return (f"Negotiation (Deal or No Deal). Two players divide a pool of {self._names_text()}. Each "
                f"player has private values per item; the other player does not know them. {instance} "
                f"Players alternate turns, player 0 first. On its turn a player either proposes a division - "
                f"how many of each item it takes, the rest going to the other player - or agrees to the other "
                f"player's latest proposal{talk}. An agreement ends the game: each player scores the value, "
                f"to itself, of its share. Without agreement within the turn limit both score 0. {limit}")

    def _who(self, int seat, int player) -> str:
        return f"player {seat}" + (" (you)" if seat == player else "")

    def _move_text(self, int turn, int seat, int action, int player) -> str:
        who = self._who(seat, player)
        if action == AGREE:
            return f"Turn {turn}, {who}: agrees."
        if action >= UTTERANCE_BASE:
            return f"Turn {turn}, {who}: says {self._symbols_text(action)}."
        counts = self._decode_proposal(action)
        return (f"Turn {turn}, {who}: proposes to take {self._items_text(counts)} "
                f"(leaving {self._items_text(self._rest(counts))}).")

    def _decode_proposal(self, int action) -> list:
        cdef int share[3]
        _decode(action, QUANTITY_BASE, share)
        return [share[0], share[1], share[2]]

    def _symbols_text(self, int action) -> str:
        cdef int s[3]
        _decode(action - UTTERANCE_BASE, NUM_SYMBOLS, s)
        return f"[{s[0]}, {s[1]}, {s[2]}]"

    def _now_text(self, int player) -> str:
        phase = self._phase()
        turn = self.num_proposals + 1
        if phase == "setup":
            return "The items and values are being drawn."
        if phase == "over":
            if not self.agreed:
                return f"No agreement within {self.num_proposals} turns: both players score 0."
            proposer = (self.num_proposals - 1) % 2
            share = self._proposal(self.num_proposals - 1)
            mine = share if proposer == player else self._rest(share)
            return (f"Agreement reached: you get {self._items_text(mine)}, worth {self._value_of(player, mine)} "
                    f"to you.")
        to_move = self.c_current_player()
        if to_move != player:
            return f"Waiting for player {to_move}."
        if phase == "utterance":
            return (f"Turn {self.num_proposals}: send your message, three symbols from 0 to 4, e.g. "
                    f"'Utterance: [1, 0, 4]'. It need not reflect your real intent.")
        limit = f" of {self.max_turns}" if not self.random_length else ""
        text = f"Turn {turn}{limit}, your turn. "
        if self.num_proposals:
            theirs = self._proposal(self.num_proposals - 1)
            mine = self._rest(theirs)
            text += (f"Player {1 - player} proposes to take {self._items_text(theirs)}, which leaves you "
                     f"{self._items_text(mine)}, worth {self._value_of(player, mine)} to you. ")
        if self.talk:
            accept = f"'player_{player}: Deal.' to accept, or " if self.num_proposals else ""
            return text + (f"Say what you like to player {1 - player}, then end with your plan on its own line: "
                           f"{accept}{self._plan_line_text(player)}. Do not reveal your values.")
        text += "Answer 'Agree' to accept, or propose " if self.num_proposals else "Propose "
        return text + ("how many of each item you take, e.g. 'Proposal: [1, 0, 2]' (in the order "
                       f"{self._names_text()}).")

    def _plan_line_text(self, int player) -> str:
        """LLMArena's proposal line, explained, with an example."""
        example = f"player_{player}: 1 {_singular(self.names[0])} 2 {self.names[1]} 0 {self.names[2]}"
        return (f"'player_{player}: x {self.names[0]} y {self.names[1]} z {self.names[2]}' with the numbers of "
                f"items you keep, e.g. '{example}'")

    # ---- views --------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        cdef int seat = 0, item = 0, kind
        cdef int v[3]
        if player == CHANCE_PLAYER:
            kind = self._step_kind(self.step, &seat, &item)
            if kind == STEP_LENGTH:
                return f"turn limit {action}"
            if kind == STEP_POOL:
                return f"item pool: {self._items_text(self._decode_proposal(action))}"
            if kind == STEP_ITEM_VALUE:
                return f"player {seat} values {_singular(self.names[item])} at {action}"
            _decode(action, VALUE_BASE, v)
            return f"player {seat} values: {v[0]}, {v[1]}, {v[2]}"
        if action == AGREE:
            return "Agree"
        if 0 <= action < NUM_PROPOSALS:
            counts = self._decode_proposal(action)
            return f"Proposal: [{counts[0]}, {counts[1]}, {counts[2]}]"
        if UTTERANCE_BASE <= action < UTTERANCE_BASE + NUM_UTTERANCES:
            return f"Utterance: {self._symbols_text(action)}"
        raise ValueError(f"negotiation actions are 0-{UTTERANCE_BASE + NUM_UTTERANCES - 1}, not {action}")

    def parse_action(self, int player, str text) -> int:
        if self._phase() == "utterance":
            triple = last_match(_TRIPLE, text)
            if triple is None:
                raise ActionParseError(f"could not read an utterance from {text!r}. {self._answer_help()}")
            symbols = [int(triple.group(i)) for i in (1, 2, 3)]
            if max(symbols) >= NUM_SYMBOLS:
                raise ActionParseError(f"utterance symbols are 0-4, not {symbols}. {self._answer_help()}")
            return UTTERANCE_BASE + (symbols[0] * NUM_SYMBOLS + symbols[1]) * NUM_SYMBOLS + symbols[2]
        plan = last_match(_PLAN_LINE, text)
        if plan is not None:
            action = self._plan_action(plan.group(1))
            if action is not None:
                return action
        triple = last_match(_TRIPLE, text)
        if triple is not None:
            return self._proposal_id([int(triple.group(i)) for i in (1, 2, 3)])
        counts = self._item_counts(text)
        if counts is not None:
            return self._proposal_id(counts)
        if _AGREE.search(text):
            return AGREE
        raise ActionParseError(f"could not read a proposal or an agreement from {text!r}. {self._answer_help()}")

    def _plan_action(self, str line):
        """The move a plan line's text names: item counts propose, else "Deal" ("agree") accepts; None
        when it names neither."""
        counts = self._item_counts(line)
        if counts is not None:
            return self._proposal_id(counts)
        if _AGREE.search(line):
            return AGREE
        return None

    def read_reply(self, int player, str text) -> tuple:
        """(action, talk) from one whole reply, in LLMArena's layout: talk, then the plan line
        "player_0: 1 hat 2 balls 0 apples" or "player_0: Deal." (from the last "player_0:" of the
        seat's own name to the end of its line). The talk is the rest of the reply, stripped; None when
        there is none. A reply that is only a canonical move ("Agree", "Proposal: [1, 2, 0]") is that
        move without talk."""
        if not self.talk or self._phase() != "proposal":
            return super().read_reply(player, text)
        check_seat("negotiation", player)
        plan = last_match(_OWN_PLAN_LINE[player], text)
        if plan is None:
            if _CANONICAL.fullmatch(text):
                return self.parse_action(player, text), None
            raise ActionParseError(f"no plan line 'player_{player}: ...' in the reply. {self._answer_help()}")
        action = self._plan_action(plan.group(1))
        if action is None:
            raise ActionParseError(f"the plan line {plan.group(0).strip()!r} names no items and no Deal. "
                                   f"{self._answer_help()}")
        talk = "\n".join(part for part in (text[:plan.start()].strip(), text[plan.end():].strip()) if part)
        return action, talk or None

    def check_message(self, int player, str text) -> str:
        """The talk as stored: within the length limit, without surrounding blanks."""
        return super().check_message(player, text).strip()

    def default_message(self, int player):
        """LLMArena's fallback after a reply it could not read: no talk (the empty text) with the
        failure policy's plan."""
        return ""

    def _item_counts(self, str text):
        """[a, b, c] from "2 peppers 0 strawberries one cherry" (the last mention of each item; a
        missing item is 0), or None when no item is mentioned."""
        found = {}
        items = {form.lower(): i for i, name in enumerate(self.names) for form in (name, _singular(name))}
        for match in self.count_pattern.finditer(text):
            word = match.group(1).lower()
            found[items[match.group(2).lower()]] = NUMBER_WORDS.index(word) if word in NUMBER_WORDS else int(word)
        if not found:
            return None
        return [found.get(i, 0) for i in range(NUM_ITEMS)]

    def _proposal_id(self, counts) -> int:
        if max(counts) > MAX_QUANTITY:
            raise ActionParseError(f"a proposal takes at most {MAX_QUANTITY} of an item, not {counts}. "
                                   f"{self._answer_help()}")
        return (counts[0] * QUANTITY_BASE + counts[1]) * QUANTITY_BASE + counts[2]

    def _answer_help(self) -> str:
        if self._phase() == "utterance":
            return "Answer with three symbols from 0 to 4, e.g. 'Utterance: [1, 0, 4]'."
        if self.talk:
            seat = self.c_current_player() if self.c_current_player() >= 0 else 0
            return (f"End your reply with your plan on its own line: {self._plan_line_text(seat)}, or "
                    f"'player_{seat}: Deal.' to accept the other player's latest proposal; any talk goes before it.")
        example = f"player_{self.c_current_player() if self.c_current_player() >= 0 else 0}: 1 " \
                  f"{_singular(self.names[0])} 2 {self.names[1]} 0 {self.names[2]}"
        return (f"Answer 'Agree' to accept the other player's latest proposal, or propose how many of each item "
                f"you take ({self._names_text()}), e.g. 'Proposal: [1, 2, 0]' or '{example}'.")

    def text_action_spec(self, int player):
        phase = self._phase()
        if self.c_current_player() != player:
            return None
        if phase == "utterance":
            description = "your message: three symbols from 0 to 4, e.g. 'Utterance: [1, 0, 4]'"
        elif self.talk:
            return {"description": f"talk for player {1 - player} if you like, then your plan on the last line: "
                                   f"'player_{player}: x {self.names[0]} y {self.names[1]} z {self.names[2]}' "
                                   f"(the items you keep) or 'player_{player}: Deal.' (accept the latest "
                                   f"proposal); or the plan alone as the text, with the talk as the message",
                    "max_length": TEXT_LIMIT, "forbidden_words": [], "message": "optional",
                    "example": "Let us find a split that works for both of us."}
        else:
            description = (f"'Agree', or a proposal of how many {self._names_text()} you take, e.g. "
                           f"'Proposal: [1, 2, 0]'; text before a final 'player_{player}: ...' plan line is "
                           f"ignored")
        # room for reasoning before the answer
        return {"description": description, "max_length": TEXT_LIMIT, "forbidden_words": []}

    def observation_string(self, int player) -> str:
        check_seat("negotiation", player)
        lines = [self._rules_text(), f"You are player {player} (player_{player})."]
        if self._pool_known():
            lines.append(f"Item pool: {self._items_text([self.pool[i] for i in range(NUM_ITEMS)])}.")
        values = self._own_values(player)
        if values is not None:
            per_item = ", ".join(f"{_singular(self.names[i])} {values[i]}" for i in range(NUM_ITEMS))
            whole = self._value_of(player, [self.pool[i] for i in range(NUM_ITEMS)])
            lines.append(f"Your values per item: {per_item} (the whole pool is worth {whole} to you).")
        moves = self._moves()
        if moves:
            lines.append("Moves so far:")
            talk = self._talk_of_moves()
            for index, (turn, seat, action) in enumerate(moves):
                if talk[index]:        # the empty talk of a failed reply says nothing
                    said = talk[index].replace("\n", "\n    ")
                    lines.append(f"  Turn {turn}, {self._who(seat, player)} says: \"{said}\"")
                lines.append("  " + self._move_text(turn, seat, action, player))
        lines.append(self._now_text(player))
        return "\n".join(lines)

    def observation_dict(self, int player) -> dict:
        check_seat("negotiation", player)
        phase = self._phase()
        to_play = self.c_current_player()
        latest = None
        if self.num_proposals:
            takes = self._proposal(self.num_proposals - 1)
            latest = {"by": (self.num_proposals - 1) % 2, "takes": takes, "leaves": self._rest(takes)}
        moves = [{"turn": turn, "seat": seat, "action": action, "text": self.action_to_string(seat, action)}
                 for turn, seat, action in self._moves()]
        view = {
            "seat": player,
            "item_names": list(self.names),
            "pool": [self.pool[i] for i in range(NUM_ITEMS)] if self._pool_known() else None,
            "my_values": self._own_values(player),
            "phase": phase,
            "to_play": to_play if to_play >= 0 else None,
            "turn": self.num_proposals + 1 if phase == "proposal" else self.num_proposals,
            "turn_limit": (self.max_turns if not self.random_length else self.num_proposals)
                          if self._limit_known() else None,
            "moves": moves,
            "latest_proposal": latest,
            "agreement": bool(self.agreed),
            "my_return": self.returns()[player],
        }
        if self.talk:
            for move, said in zip(moves, self._talk_of_moves()):
                move["talk"] = said
            view["conversation"] = self.conversation(player)
        return view

    def _talk_of_moves(self) -> list:
        """What was said with each move of _moves(), None where nothing was (talk is public)."""
        said = {entry["move"]: entry["text"] for entry in self.messages()}
        # Moves follow the chance setup one per move number.
        return [said.get(self.setup_steps + index) for index in range(len(self._moves()))]

    def public_history(self) -> list:
        """The pool draw, every move, and the end; the values and a hidden limit stay private."""
        out = []
        if self._pool_known():
            pool = [self.pool[i] for i in range(NUM_ITEMS)]
            out.append((-1, (pool[0] * QUANTITY_BASE + pool[1]) * QUANTITY_BASE + pool[2],
                        f"item pool: {self._items_text(pool)}"))
        out += [(seat, action, self.action_to_string(seat, action)) for _, seat, action in self._moves()]
        if self._phase() == "over":
            out.append((-1, -1, self._end_text()))
        return out

    def _end_text(self) -> str:
        if not self.agreed:
            return f"no agreement within {self.num_proposals} turns"
        proposer = (self.num_proposals - 1) % 2
        share = self._proposal(self.num_proposals - 1)
        return (f"agreement: player {proposer} takes {self._items_text(share)}, player {1 - proposer} takes "
                f"{self._items_text(self._rest(share))}")

    def result_summary(self) -> str:
        if self._phase() != "over":
            return "game in progress"
        returns = self.returns()
        return f"{self._end_text()}; values secured {returns[0]:g} and {returns[1]:g}"

    def result_details(self) -> dict:
        returns = self.returns()
        shares = None
        if self.agreed:
            proposer = (self.num_proposals - 1) % 2
            share = self._proposal(self.num_proposals - 1)
            shares = [share, self._rest(share)] if proposer == 0 else [self._rest(share), share]
        return {
            "pool": [self.pool[i] for i in range(NUM_ITEMS)],
            "values": [[self.values[p][i] for i in range(NUM_ITEMS)] for p in range(2)],
            "turn_limit": self.length,
            "turns_played": self.num_proposals + (1 if self.agreed else 0),
            "agreement": bool(self.agreed),
            "shares": shares,
            "returns": returns,
            # LLMArena's released code scores a deal as own value minus the other's (zero-sum).
            "llmarena_difference_reward": [returns[0] - returns[1], returns[1] - returns[0]],
        }


class Game(GameBase):
    """Two-player negotiation with validated parameters."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        for name, choices in (("instances", INSTANCES), ("utterances", UTTERANCES)):
            if values[name] not in choices:
                raise ValueError(f"parameter {name!r} must be one of {', '.join(choices)}, not {values[name]!r}")
        turns = values["max_turns"]
        if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS:
            raise ValueError(f"parameter 'max_turns' must be an integer in 1..{MAX_TURNS}, not {turns!r}")
        if not isinstance(values["random_length"], bool):
            raise ValueError(f"parameter 'random_length' must be true or false, not {values['random_length']!r}")
        if values["random_length"] and turns < MIN_RANDOM_LENGTH:
            raise ValueError(f"a random turn limit needs max_turns >= {MIN_RANDOM_LENGTH}, not {turns}")
        names = [name.strip() for name in str(values["item_names"]).split(",")]
        if len(names) != NUM_ITEMS or not all(re.fullmatch(r"[A-Za-z][A-Za-z ]*", n) for n in names) \
                or len({_singular(n).lower() for n in names}) != NUM_ITEMS:
            raise ValueError(f"parameter 'item_names' must name {NUM_ITEMS} different item types separated by "
                             f"commas, not {values['item_names']!r}")
        self.item_names = tuple(names)

    def new_initial_state(self) -> NegotiationState:
        return NegotiationState(self)

    def state_from_view(self, int player, dict view) -> NegotiationState:
        """A state consistent with `view` (seat `player`'s observation_dict). A hidden turn limit is
        set to max_turns (or to the turns played, once the game ended at it); the other player's
        values are a fixed vector its values could be."""
        check_seat("negotiation", player)
        state = self.new_initial_state()
        if view["pool"] is None:
            return state
        p = self.parameters
        if p["random_length"]:
            state.apply_action(view["turn_limit"] if view["turn_limit"] is not None else p["max_turns"])
        pool = view["pool"]
        state.apply_action((pool[0] * QUANTITY_BASE + pool[1]) * QUANTITY_BASE + pool[2])
        own = view["my_values"]
        if own is not None:
            setup_over = view["phase"] != "setup"
            other = _stand_in_values(p["instances"] == "deal_or_no_deal", pool, own)
            for seat in (0, 1):
                if seat == player:
                    self._apply_values(state, own)
                elif seat < player or setup_over:
                    self._apply_values(state, other)
        for move in view["moves"]:
            state.apply_action(move["action"], move.get("talk"))
        return state

    def _apply_values(self, NegotiationState state, values):
        if self.parameters["instances"] == "deal_or_no_deal":
            state.apply_action((values[0] * VALUE_BASE + values[1]) * VALUE_BASE + values[2])
        else:
            for value in values:
                state.apply_action(value)


def _stand_in_values(bint dond, pool, own) -> list:
    """Values the other player could have, given the pool and `own` values."""
    cdef int counts[3]
    cdef int candidates[NUM_VALUE_VECTORS]
    cdef int n, i, own_code
    if not dond:
        return [1, 1, 1]
    counts[0], counts[1], counts[2] = pool[0], pool[1], pool[2]
    own_code = (own[0] * VALUE_BASE + own[1]) * VALUE_BASE + own[2]
    n = _dond_candidates(counts, candidates)
    for i in range(n):
        if _dond_compatible(own_code, candidates[i]):
            return [candidates[i] // (VALUE_BASE * VALUE_BASE), candidates[i] // VALUE_BASE % VALUE_BASE,
                    candidates[i] % VALUE_BASE]
    raise ValueError(f"no values can face {own} over the pool {pool}")
