"""Cost Sharing ("Airport Fee Allocation"), as played in MAgIC (Xu, Hu et al., arXiv 2311.08562;
reference magic.md §2.3).

Rules. Three players represent three airlines: Player 1 = Airline A, Player 2 = Airline B, Player 3 =
Airline C (seats 0, 1, 2). They split a fixed airport fee ("fee", $1,000,000) in percent. Every airline
knows all three airlines' usage of the airport (flights and passengers per month, average flight time,
aircraft sizes; the setting): a larger use should pay a larger share, and each airline wants a split
that is fair and favourable to itself. The negotiation lasts at most "rounds" rounds (5). A round has
two stages, each played in seat order, Player 1 first:
  1. Proposal: each player proposes a split of 100 % into three whole multiples of 5 (A, B, C).
  2. Vote: each player votes for one player's proposal of this round, its own included.
The negotiation succeeds as soon as the three votes of a round all go to proposals with identical
values (two players proposing the same numbers count as one proposal); the voted split is agreed and
the game ends. A round without that ends without consistency and the next begins; after the last
round the negotiation has failed.

Returns. Cooperative: every seat gets 1 when the negotiation succeeds and 0 when it fails (MAgIC's win
for the Cost Sharing seat is the success, §2.3 "Win", and Cooperation is the success rate, §4 item 6).
Each seat's share of the agreed split (the paper's "Cost") is in result_details, not in the returns.

Chance. One chance node first draws the setting: one of the 7 groups of cost_sharing_settings.GROUPS
(the three airlines' usage profiles), uniformly; the "setting" parameter pins it (the node then has
that single outcome), so a suite can play every group.

Actions. 0-230: the proposals, every split (a, b, c) of 100 into multiples of 5 in increasing order of
(a, b) (0 is A 0 %, B 0 %, C 100 %; 230 is A 100 %, B 0 %, C 0 %). 231, 232, 233: vote for Player
1's, 2's, 3's proposal; 234: abstain (counts for nobody). Canonical texts: the proposal template's
three entries on one line, "Airline A: 40%, Airline B: 30%, Airline C: 30%" (one line, so that an
answer naming a legal action fits on one line), "I vote for Player 2" (the template's opening, which
the paper's parser read), "abstain". Chance outcome k: "setting k".

Answers (`parse_action`).
  - Proposal: the template's entries "Airline A: xx%", "Airline B: xx%", "Airline C: xx%" anywhere in
    the reply, one per line (the paper's layout) or on one line (the canonical text), the header line
    and any chatter around them tolerated; the last entry for each airline counts, as a parser filling
    one entry per airline would. Else the setting record's bracketed form "[40, 30, 30]" (the last one). The numbers must be whole multiples of 5 that add up to 100
    (ActionParseError otherwise, with the template: the referee re-asks).
  - Vote: the first "vote for Player N" ("I vote for Player 2's proposal", the paper's template), else
    "abstain", else a reply that names exactly one player. Players are numbered 1-3.
A proposal may come with talk: free text every seat reads (the paper's players see each other's whole
replies). `read_reply` takes the proposal from one whole reply and keeps the rest, without the lines
holding the template's entries and the header line ending in ":" just before them, as the talk (none
when nothing is left). Votes carry no talk (the paper asks for them "without explanation").

Information. Perfect: the setting, every proposal, every talk and every vote are public as they are
made (MAgIC's moderator shows every message to all, §2.3 "Agreement test"). `public_history` lists the
setting draw and every move; `result_details` gives every round's proposals, talk and votes, the
agreed split and round, the players whose last proposal equals the agreed split (Coordination), and
each seat's final cost share in percent and in dollars (Cost).

Presets.
  - "magic": the paper's game (§2.3, Table 3): fee $1,000,000, at most 5 rounds, the setting drawn from
    the 7 groups, no replayed proposals. The paper's protocol (§3) seats the challenger in each of the
    3 seats of each of the 7 groups (21 games) against GPT-4 defenders; a suite sets "setting" and
    "challenger_seat" for each game.

Parameters beyond the preset: "challenger_seat" (-1 by default): the seat of the evaluated agent. When
set, the two other seats' round-1 proposals are the setting's pre-recorded ones (their only legal
action; a referee that plays forced moves does so without asking), as the paper's defenders replayed
them (§2.3 "Pre-recorded moves", §6 A8). The setting record's proposal for the challenger's own seat is
not used.

Fallbacks (§2.6 [Rec]): `default_action` is, at a proposal, the seat's own proposal of the previous
round; in round 1 the equal split rounded to 5 %: 35 % to the proposer's own airline and to the next
airline (A after C), 30 % to the third (rounding so that a player who gave no answer takes no smaller
share than the others); a replayed proposal is its own default. At a vote it is "abstain" (counts for
nobody). `default_message` is no talk (the empty text).

Ambiguities (magic.md §6).
  - A8, rounds: at most 5 ("# Rounds 5", max_turns = 5 in the code).
  - A8, proposal format and checks: the code's template, integers in 5 % steps adding up to 100; any
    other answer is unparseable, so the referee re-asks (then plays the fallback).
  - A8, "same proposal": identical values, whoever proposed them (the code's test).
  - A8, vote visibility: votes are public, and so cast one after another in seat order (a later voter
    sees the earlier votes, as in the code's public message stream); proposals likewise.
  - A8, fixed first proposals: defenders' round-1 proposals are replayed ("challenger_seat" above).
  - A8, Coordination when several players propose the agreed numbers: result_details lists in
    "agreed_proposers" every seat whose proposal of the agreed round equals the agreed split, so a
    challenger is credited when its latest proposal has the agreed values (the code's rule).
  - A8, A21, unpublished descriptions: this project's own 20 usage profiles and 7 groups
    (cost_sharing_settings), group 0 being the released sample.
  - A19 and §2.3 "Parsing": the code's GPT-3.5 fallback vote parser is replaced by the deterministic
    parser above; §2.6's re-asks then fallbacks apply.
  - Win and returns (§2.3, §4 items 1, 6): success is the win of every seat, so returns are 1 for all
    on success and 0 for all on failure (identical utility); the Cost side statistic is averaged by
    the metric over agreed games only, from result_details.
"""

from libc.string cimport memcpy

import re

from arena_engines.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, State
from arena_engines.core import CHANCE, ActionParseError
from arena_engines.cost_sharing_settings import FEE, GROUPS, PROFILES, profile_record, profile_text
from arena_engines.parsing import check_seat, last_match
from arena_engines.spec import GameBase, GameSpec, Parameter, Preset, checked_int

cdef enum:
    NUM_SEATS = 3
    STEP = 5                 # percent
    STEPS = 20               # 100 % in steps of 5 %
    NUM_SPLITS = 231         # (STEPS + 1)(STEPS + 2) / 2
    VOTE_BASE = 231          # VOTE_BASE + k: vote for seat k's proposal
    ABSTAIN = 234
    NO_MOVE = -1
    MAX_ROUNDS = 20
    MAX_GROUPS = 64

# Phases.
cdef enum:
    DRAW_SETTING = 0
    PROPOSAL = 1
    VOTE = 2
    OVER = 3

ABSTAIN_VOTE = NUM_SEATS     # a vote as stored: a seat, or this for an abstention
# The vote actions for Python callers (house agents, tests): VOTE_ACTIONS[k] votes for seat k's proposal.
VOTE_ACTIONS = tuple(range(VOTE_BASE, VOTE_BASE + NUM_SEATS))
ABSTAIN_ACTION = ABSTAIN
AIRLINES = ("A", "B", "C")
NAMES = ("Player 1", "Player 2", "Player 3")
MAX_FEE = 10**12
TALK_LIMIT = 2000
PHASE_NAMES = ("setting", "proposal", "vote", "over")

# Every split as (A, B, C) in percent, by action id, and back.
cdef int _split[NUM_SPLITS][3]
SPLITS = tuple((STEP * i, STEP * j, 100 - STEP * (i + j)) for i in range(STEPS + 1) for j in range(STEPS + 1 - i))
SPLIT_ID = {split: k for k, split in enumerate(SPLITS)}
for _k, _shares in enumerate(SPLITS):
    for _seat in range(NUM_SEATS):
        _split[_k][_seat] = _shares[_seat]

# The settings' recorded round-1 proposals, as action ids (group, seat).
cdef int _recorded[MAX_GROUPS][NUM_SEATS]
cdef int _num_groups = len(GROUPS)
if not 0 < _num_groups <= MAX_GROUPS:
    raise ImportError("cost_sharing_settings.GROUPS does not fit the engine's arrays")
for _g, (_profiles, _proposals) in enumerate(GROUPS):
    if len(_profiles) != NUM_SEATS or not all(0 <= p < len(PROFILES) for p in _profiles):
        raise ImportError(f"cost_sharing_settings.GROUPS[{_g}] names unknown profiles")
    for _seat in range(NUM_SEATS):
        if tuple(_proposals[_seat]) not in SPLIT_ID:
            raise ImportError(f"cost_sharing_settings.GROUPS[{_g}] records a proposal that is no split: "
                              f"{_proposals[_seat]}")
        _recorded[_g][_seat] = SPLIT_ID[tuple(_proposals[_seat])]

_MAGIC = {"rounds": 5, "fee": FEE, "setting": -1, "challenger_seat": -1}

SPEC = GameSpec(
    game_id="cost_sharing",
    display_name="Cost Sharing (Airport Fee Allocation)",
    rules_version="1",
    min_players=NUM_SEATS,
    max_players=NUM_SEATS,
    dynamics="sequential",
    chance="stochastic",
    information="perfect",
    utility="identical",
    min_utility=0.0,
    max_utility=1.0,
    max_game_length=1 + MAX_ROUNDS * 2 * NUM_SEATS,
    description="Three airlines split a fixed airport fee by usage. Each round every airline proposes a split in "
                "5% steps, then each votes for one proposal; they succeed when all three votes go to the same "
                "split, and fail after the last round.",
    parameters=(
        Parameter("rounds", 5, f"at most this many rounds of proposals and votes, 1-{MAX_ROUNDS}"),
        Parameter("fee", FEE, f"the airport fee to split, in dollars, 1-{MAX_FEE}"),
        Parameter("setting", -1, f"the group of usage profiles, 0-{len(GROUPS) - 1} "
                                 f"(cost_sharing_settings.GROUPS), or -1 to draw it at random"),
        Parameter("challenger_seat", -1, "the evaluated agent's seat: the other seats' round-1 proposals are the "
                                         "setting's recorded ones; -1: every seat proposes freely"),
    ),
    presets=(
        Preset("magic", "MAgIC (Xu, Hu et al., 2024): 3 airlines split a $1,000,000 fee by usage in at most 5 rounds "
               "of proposals (5% steps) and votes; success when all three vote for the same split. Proposal "
               "'Airline A: 40%' lines; vote 'I vote for Player 2's proposal'.", _MAGIC),
    ),
    accepts_text_actions=True,
    dialogue=True,
)

# The magic playthrough plays the released sample's setting with the challenger as Player 3 (the sample's
# test player), so that the replayed round-1 proposals show, over 2 rounds to stay readable.
PLAYTHROUGH_OVERRIDES = {None: {"setting": 0, "challenger_seat": 2, "rounds": 2}}

_SHARE = re.compile(r"airline\s*([abc])\s*(?::\s*)?(\d+(?:\.\d+)?)\s*%", re.IGNORECASE)
_BRACKETS = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\]")
_VOTE_FOR = re.compile(r"vote\s+for\s+(?:the\s+)?player\s*_?(\d+)", re.IGNORECASE)
_PLAYER = re.compile(r"player\s*_?(\d+)", re.IGNORECASE)
_ABSTAIN = re.compile(r"\s*abstain\W*", re.IGNORECASE)


def split_text(shares) -> str:
    """The proposal template's three entries for a split (A, B, C) in percent, on one line."""
    return ", ".join(f"Airline {AIRLINES[i]}: {shares[i]}%" for i in range(NUM_SEATS))


def split_summary(shares) -> str:
    """A split on one line: "A 40%, B 30%, C 30%"."""
    return ", ".join(f"{AIRLINES[i]} {shares[i]}%" for i in range(NUM_SEATS))


def opening_default(int seat) -> tuple:
    """The round-1 fallback proposal of `seat`: the equal split rounded to 5 %, 35 % to its own airline
    and to the next one (A after C), 30 % to the third."""
    shares = [35, 35, 35]
    shares[(seat + 2) % NUM_SEATS] = 30
    return tuple(shares)


def _money(double amount) -> str:
    return f"${amount:,.0f}" if amount == int(amount) else f"${amount:,.2f}"


cdef class CostSharingState(State):
    cdef int max_rounds, fixed_setting, challenger_seat
    cdef int phase, setting, round_index, to_act
    cdef int agreed                         # the agreed split's id, -1 (none)
    cdef int proposals[MAX_ROUNDS][NUM_SEATS]   # split ids, NO_MOVE before the proposal
    cdef int votes[MAX_ROUNDS][NUM_SEATS]       # a seat, ABSTAIN_VOTE, or NO_MOVE before the vote
    cdef object fee

    def __init__(self, game):
        super().__init__(game, NUM_SEATS)
        p = game.parameters
        self.max_rounds = p["rounds"]
        self.fixed_setting = p["setting"]
        self.challenger_seat = p["challenger_seat"]
        self.fee = p["fee"]
        self.phase = DRAW_SETTING
        self.setting = -1
        self.round_index = 0
        self.to_act = -1
        self.agreed = -1
        for r in range(MAX_ROUNDS):
            for seat in range(NUM_SEATS):
                self.proposals[r][seat] = NO_MOVE
                self.votes[r][seat] = NO_MOVE

    # ---- C-level interface --------------------------------------------------------------------
    cdef int c_current_player(self) noexcept:
        if self.phase == DRAW_SETTING:
            return CHANCE_PLAYER
        if self.phase == OVER:
            return TERMINAL_PLAYER
        return self.to_act

    cdef bint _replayed(self, int player) noexcept:
        """Whether `player`'s proposal now is the setting's recorded one (a defender in round 1)."""
        return (self.phase == PROPOSAL and self.round_index == 0 and self.challenger_seat >= 0
                and player != self.challenger_seat)

    cdef int c_legal_actions(self, int player, int* out) noexcept:
        cdef int a
        if self.phase == DRAW_SETTING or self.phase == OVER or player != self.to_act:
            return 0
        if self.phase == PROPOSAL:
            if self._replayed(player):
                out[0] = _recorded[self.setting][player]
                return 1
            for a in range(NUM_SPLITS):
                out[a] = a
            return NUM_SPLITS
        for a in range(VOTE_BASE, ABSTAIN + 1):
            out[a - VOTE_BASE] = a
        return ABSTAIN + 1 - VOTE_BASE

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept:
        cdef int k
        if self.phase != DRAW_SETTING:
            return 0
        if self.fixed_setting >= 0:
            actions[0] = self.fixed_setting
            probs[0] = 1.0
            return 1
        for k in range(_num_groups):
            actions[k] = k
            probs[k] = 1.0 / _num_groups
        return _num_groups

    cdef void c_apply_action(self, int action) noexcept:
        cdef int r = self.round_index
        if self.phase == DRAW_SETTING:
            self.setting = action
            self.phase = PROPOSAL
            self.to_act = 0
        elif self.phase == PROPOSAL:
            self.proposals[r][self.to_act] = action
            self.to_act += 1
            if self.to_act == NUM_SEATS:
                self.phase = VOTE
                self.to_act = 0
        elif self.phase == VOTE:
            self.votes[r][self.to_act] = action - VOTE_BASE
            self.to_act += 1
            if self.to_act == NUM_SEATS:
                self._end_round()

    cdef void _end_round(self) noexcept:
        cdef int r = self.round_index
        cdef int seat, chosen = -1
        cdef bint consistent = True
        for seat in range(NUM_SEATS):
            if self.votes[r][seat] == ABSTAIN_VOTE:
                consistent = False
            elif chosen < 0:
                chosen = self.proposals[r][self.votes[r][seat]]
            elif self.proposals[r][self.votes[r][seat]] != chosen:
                consistent = False
        if consistent:
            self.agreed = chosen
            self.phase = OVER
        elif r + 1 < self.max_rounds:
            self.round_index += 1
            self.phase = PROPOSAL
            self.to_act = 0
        else:
            self.phase = OVER
        if self.phase == OVER:
            self.to_act = -1

    cdef void c_returns(self, double* out) noexcept:
        cdef int seat
        for seat in range(NUM_SEATS):
            out[seat] = 1.0 if self.agreed >= 0 else 0.0

    cdef State c_clone(self):
        cdef CostSharingState s = CostSharingState.__new__(CostSharingState)
        self._copy_base_into(s)
        s.max_rounds = self.max_rounds
        s.fixed_setting = self.fixed_setting
        s.challenger_seat = self.challenger_seat
        s.fee = self.fee
        s.phase = self.phase
        s.setting = self.setting
        s.round_index = self.round_index
        s.to_act = self.to_act
        s.agreed = self.agreed
        memcpy(&s.proposals[0][0], &self.proposals[0][0], sizeof(self.proposals))
        memcpy(&s.votes[0][0], &self.votes[0][0], sizeof(self.votes))
        return s

    # ---- helpers for the views ----------------------------------------------------------------
    def _turn(self, int player):
        """The decision `player` must make now, "proposal" or "vote", or None."""
        if 0 <= player < NUM_SEATS and player == self.to_act and self.phase in (PROPOSAL, VOTE):
            return PHASE_NAMES[self.phase]
        return None

    def _rounds_seen(self) -> int:
        """Rounds with at least one move: the finished ones and the current one once it has begun."""
        if self.phase == DRAW_SETTING:
            return 0
        return self.round_index + (self.proposals[self.round_index][0] != NO_MOVE)

    def _talk(self) -> dict:
        """Talk said with each proposal, by (round, seat): the non-empty messages."""
        talk = {}
        # Move 0 draws the setting; round r's proposals are moves 1 + 6r + seat, and only they carry talk.
        for said in self.messages():
            if said["text"]:
                r, seat = divmod(said["move"] - 1, 2 * NUM_SEATS)
                talk[(r, seat)] = said["text"]
        return talk

    def _round_records(self) -> list:
        talk = self._talk()
        records = []
        for r in range(self._rounds_seen()):
            records.append({
                "round": r + 1,
                "proposals": [list(SPLITS[self.proposals[r][s]]) if self.proposals[r][s] != NO_MOVE else None
                              for s in range(NUM_SEATS)],
                "talk": [talk.get((r, s)) for s in range(NUM_SEATS)],
                "votes": [self._vote_value(self.votes[r][s]) for s in range(NUM_SEATS)],
            })
        return records

    def _vote_value(self, int vote):
        if vote == NO_MOVE:
            return None
        return "abstain" if vote == ABSTAIN_VOTE else vote

    def _usage(self):
        if self.setting < 0:
            return None
        profiles = GROUPS[self.setting][0]
        return [{"airline": AIRLINES[s], "seat": s, **profile_record(profiles[s]),
                 "text": profile_text(AIRLINES[s], profiles[s])} for s in range(NUM_SEATS)]

    def _outcome(self):
        if self.phase != OVER:
            return None
        return "agreed" if self.agreed >= 0 else "failed"

    def _agreed_split(self):
        return list(SPLITS[self.agreed]) if self.agreed >= 0 else None

    def _cost(self, int share):
        cost = self.fee * share / 100
        return int(cost) if cost == int(cost) else cost

    # ---- dialogue -----------------------------------------------------------------------------
    def check_message(self, int player, str text) -> str:
        """The talk as stored: within the length limit, without surrounding blanks."""
        return State.check_message(self, player, text).strip()

    def default_message(self, int player):
        """No talk (the empty text) with a fallback proposal."""
        return "" if self._talks(player) else None

    def _talks(self, int player) -> bool:
        return self._turn(player) == "proposal" and not self._replayed(player)

    def read_reply(self, int player, str text) -> tuple:
        """(proposal, talk) from one whole reply: the proposal as parse_action reads it; the talk is the
        rest of the reply without the lines holding "Airline X: n%" entries (or the bracketed split) and
        the header line ending in ":" just before them; None when nothing is left. A vote: (the vote,
        None)."""
        action = self.parse_action(player, text)
        if not self._talks(player):
            return action, None
        text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if len({found.group(1).upper() for found in _SHARE.finditer(text)}) == NUM_SEATS:
            proposal_lines = [i for i, line in enumerate(lines) if _SHARE.search(line)]
        else:
            proposal_lines = [text.count("\n", 0, last_match(_BRACKETS, text).start())]
        first = proposal_lines[0]
        if first > 0 and lines[first - 1].rstrip().endswith(":"):
            proposal_lines.append(first - 1)
        talk = "\n".join(line for i, line in enumerate(lines) if i not in proposal_lines).strip()
        return action, talk or None

    # ---- actions ------------------------------------------------------------------------------
    def action_to_string(self, int player, int action) -> str:
        if player == CHANCE_PLAYER:
            if not 0 <= action < len(GROUPS):
                raise ValueError(f"cost_sharing settings are 0-{len(GROUPS) - 1}, not {action}")
            return f"setting {action}"
        if 0 <= action < NUM_SPLITS:
            return split_text(SPLITS[action])
        if VOTE_BASE <= action < ABSTAIN:
            return f"I vote for {NAMES[action - VOTE_BASE]}"
        if action == ABSTAIN:
            return "abstain"
        raise ValueError(f"cost_sharing actions are 0-{ABSTAIN}, not {action}")

    def parse_action(self, int player, str text) -> int:
        turn = self._turn(player)
        if turn == "proposal":
            return self._parse_proposal(text)
        if turn == "vote":
            return self._parse_vote(text)
        raise ActionParseError("you have no decision to make now")

    def _parse_proposal(self, str text) -> int:
        shares = {}
        for found in _SHARE.finditer(text):
            shares[found.group(1).upper()] = found.group(2)
        if len(shares) == NUM_SEATS:
            numbers = [shares[airline] for airline in AIRLINES]
        else:
            found = last_match(_BRACKETS, text)
            if found is None:
                raise ActionParseError(f"could not read a proposal from the reply. {self._proposal_help()}")
            numbers = list(found.groups())
        values = []
        for number in numbers:
            whole, _, fraction = number.partition(".")
            whole = whole.lstrip("0") or "0"
            if fraction.strip("0") or len(whole) > 3 or int(whole) > 100 or int(whole) % STEP:
                raise ActionParseError(f"{number[:12]}% is not a whole multiple of {STEP} from 0 to 100. "
                                       f"{self._proposal_help()}")
            values.append(int(whole))
        if sum(values) != 100:
            raise ActionParseError(f"the shares {split_summary(values)} add up to {sum(values)}%, not 100%. "
                                   f"{self._proposal_help()}")
        return SPLIT_ID[tuple(values)]

    def _proposal_help(self) -> str:
        return ("Propose a split in steps of 5% that adds up to 100%, one line per airline: 'Airline A: 40%', "
                "'Airline B: 30%', 'Airline C: 30%'.")

    def _parse_vote(self, str text) -> int:
        found = _VOTE_FOR.search(text)
        if found:
            return self._vote_for(found.group(1))
        if _ABSTAIN.fullmatch(text):
            return ABSTAIN
        named = {found.group(1) for found in _PLAYER.finditer(text)}
        if len(named) == 1:
            return self._vote_for(named.pop())
        raise ActionParseError(f"could not read a vote from the reply. {self._vote_help()}")

    def _vote_for(self, str digits) -> int:
        seat = int(digits) - 1 if len(digits) <= 2 else -1
        if not 0 <= seat < NUM_SEATS:
            raise ActionParseError(f"there is no Player {digits[:12]}. {self._vote_help()}")
        return VOTE_BASE + seat

    def _vote_help(self) -> str:
        return ("Vote for one player's proposal of this round, your own included: 'I vote for Player 2's "
                "proposal' (Player 1, 2 or 3), or 'abstain'.")

    def default_action(self, int player):
        """A proposal: the seat's proposal of the previous round; in round 1 its opening_default (a
        replayed proposal: the recorded one). A vote: abstain."""
        turn = self._turn(player)
        if turn == "vote":
            return ABSTAIN
        if turn is None:
            return None
        if self._replayed(player):
            return _recorded[self.setting][player]
        if self.round_index > 0:
            return self.proposals[self.round_index - 1][player]
        return SPLIT_ID[opening_default(player)]

    def text_action_spec(self, int player):
        turn = self._turn(player)
        if turn == "vote":
            return {"description": self._vote_help(), "max_length": 1000, "forbidden_words": []}
        if turn is None:
            return None
        if self._replayed(player):
            recorded = SPLITS[_recorded[self.setting][player]]
            return {"description": f"round 1: your proposal is the setting's recorded one, {split_summary(recorded)}",
                    "max_length": 1000, "forbidden_words": []}
        return {"description": ("your proposal, one line per airline in steps of 5% adding up to 100%: "
                                "'Airline A: xx%', 'Airline B: xx%', 'Airline C: xx%' (a header line such as "
                                f"'{NAMES[player]}, representing Airline {AIRLINES[player]}, proposes:' may come "
                                "first); any other text is talk that every player reads"),
                "max_length": TALK_LIMIT, "forbidden_words": [], "message": "optional",
                "example": "The shares should follow how much each airline uses the airport."}

    # ---- views --------------------------------------------------------------------------------
    def _rules_text(self) -> str:
        return (f"Airport fee allocation: three airlines, Airline A ({NAMES[0]}), Airline B ({NAMES[1]}) and "
                f"Airline C ({NAMES[2]}), must split the airport's fixed fee of {_money(self.fee)}. Each airline's "
                "share should reflect how much it uses the airport (flights, aircraft sizes, passengers): more "
                "use, a larger share. Each airline seeks a split that is fair and favourable to itself. The "
                f"negotiation lasts at most {self.max_rounds} round{'s' if self.max_rounds > 1 else ''}. In each "
                "round every player, in turn from Player 1, proposes a split in steps of 5% ('Airline A: xx%', "
                "'Airline B: xx%', 'Airline C: xx%', adding up to 100%); then every player, in turn, votes for one "
                "player's proposal of this round, its own included. Proposals and votes are public. The "
                "negotiation succeeds as soon as all three votes of a round go to proposals with the same split; "
                "it fails if no round reaches that.")

    def observation_string(self, int player) -> str:
        check_seat("cost_sharing", player, NUM_SEATS)
        lines = [self._rules_text(), f"You are {NAMES[player]}, representing Airline {AIRLINES[player]}."]
        usage = self._usage()
        if usage is None:
            lines.append("The setting is being drawn.")
            return "\n".join(lines)
        lines.append("Usage of the airport:")
        lines += [f"  {entry['text']}" for entry in usage]
        for record in self._round_records():
            lines.append(f"Round {record['round']} proposals:")
            for seat in range(NUM_SEATS):
                shares = record["proposals"][seat]
                if shares is not None:
                    lines.append(f"  {NAMES[seat]} (Airline {AIRLINES[seat]}): {split_summary(shares)}")
                if record["talk"][seat] is not None:
                    lines.append(f"    {NAMES[seat]} said: {record['talk'][seat]}")
            cast = [(seat, vote) for seat, vote in enumerate(record["votes"]) if vote is not None]
            if cast:
                lines.append(f"Round {record['round']} votes: " + "; ".join(
                    f"{NAMES[seat]} " + ("abstained" if vote == "abstain" else f"voted for {NAMES[vote]}'s proposal")
                    for seat, vote in cast) + ".")
        lines.append(self._status_text(player))
        return "\n".join(lines)

    def _status_text(self, int player) -> str:
        r = self.round_index + 1
        if self.phase == OVER:
            return f"Game over. {self.result_summary()}."
        stage = "propose a split" if self.phase == PROPOSAL else "vote"
        if player != self.to_act:
            return f"Round {r} of {self.max_rounds}: {NAMES[self.to_act]} is to {stage}."
        if self._replayed(player):
            return f"Round {r} of {self.max_rounds}: your proposal is the setting's recorded one."
        return f"Round {r} of {self.max_rounds}: your turn to {stage}."

    def observation_dict(self, int player) -> dict:
        check_seat("cost_sharing", player, NUM_SEATS)
        playing = self.phase in (PROPOSAL, VOTE)
        last = None
        for r in range(self._rounds_seen() - 1, -1, -1):
            if self.proposals[r][player] != NO_MOVE:
                last = list(SPLITS[self.proposals[r][player]])
                break
        return {
            "seat": player,
            "name": NAMES[player],
            "airline": AIRLINES[player],
            "names": list(NAMES),
            "airlines": list(AIRLINES),
            "fee": self.fee,
            "max_rounds": self.max_rounds,
            "setting": self.setting if self.setting >= 0 else None,
            "usage": self._usage(),
            "phase": PHASE_NAMES[self.phase],
            "round": self.round_index + 1 if playing else None,
            "to_act": self.to_act if playing else None,
            "rounds": self._round_records(),
            "my_last_proposal": last,
            "conversation": self.conversation(player),
            "outcome": self._outcome(),
            "agreed_split": self._agreed_split(),
        }

    def public_history(self) -> list:
        """The setting draw and every move, each on one line."""
        out = []
        for seat, action in self._history:
            if seat == CHANCE_PLAYER:
                out.append((seat, action, self.action_to_string(CHANCE, action)))
            elif action < NUM_SPLITS:
                out.append((seat, action, f"{NAMES[seat]} proposes {split_summary(SPLITS[action])}"))
            else:
                out.append((seat, action, f"{NAMES[seat]}: {self.action_to_string(seat, action)}"))
        return out

    def result_summary(self) -> str:
        if self.phase != OVER:
            return "game in progress"
        if self.agreed >= 0:
            return f"Agreement in round {self.round_index + 1} on {split_summary(SPLITS[self.agreed])}: the negotiation succeeded"
        return f"No agreement after {self.max_rounds} round{'s' if self.max_rounds > 1 else ''}: the negotiation failed"

    def result_details(self) -> dict:
        """Everything the MAgIC metrics read: the setting, every round's proposals, talk and votes, the
        outcome, the agreed split and round, the seats whose proposal of that round has the agreed values
        (Coordination), each seat's last proposal, and each seat's cost share in percent and dollars (Cost)."""
        if self.setting < 0:
            return {}
        records = self._round_records()
        agreed = self._agreed_split()
        latest = [None] * NUM_SEATS
        for record in records:
            for seat in range(NUM_SEATS):
                if record["proposals"][seat] is not None:
                    latest[seat] = record["proposals"][seat]
        details = {
            "setting": self.setting,
            "fee": self.fee,
            "max_rounds": self.max_rounds,
            "challenger_seat": self.challenger_seat if self.challenger_seat >= 0 else None,
            "airlines": list(AIRLINES),
            "usage": self._usage(),
            "recorded_first_proposals": [list(p) for p in GROUPS[self.setting][1]],
            "rounds": records,
            "rounds_played": len(records) if self.phase == OVER else None,
            "outcome": self._outcome(),
            "success": self.agreed >= 0 if self.phase == OVER else None,
            "agreed_split": agreed,
            "agreed_round": self.round_index + 1 if agreed is not None else None,
            "agreed_proposers": [s for s in range(NUM_SEATS) if agreed is not None and records[-1]["proposals"][s] == agreed],
            "latest_proposals": latest,
            "cost_shares": agreed,
            "costs": [self._cost(share) for share in agreed] if agreed is not None else None,
        }
        return details


class Game(GameBase):
    """Cost Sharing with validated parameters (always 3 players)."""

    spec = SPEC

    def __init__(self, parameters: dict, num_players: int):
        super().__init__(parameters, num_players)
        values = self.parameters
        checked_int(values, "rounds", 1, MAX_ROUNDS)
        checked_int(values, "fee", 1, MAX_FEE)
        checked_int(values, "setting", -1, len(GROUPS) - 1)
        checked_int(values, "challenger_seat", -1, NUM_SEATS - 1)

    def new_initial_state(self) -> CostSharingState:
        return CostSharingState(self)

    def state_from_view(self, int player, dict view) -> CostSharingState:
        """The state a seat's view describes: everything is public, so the setting, the proposals (with
        their talk, from the conversation) and the votes are replayed in order."""
        check_seat("cost_sharing", player, NUM_SEATS)
        state = self.new_initial_state()
        if view["setting"] is None:
            return state
        state.apply_action(view["setting"])
        said = {entry["move"]: entry["text"] for entry in view["conversation"]}
        for record in view["rounds"]:
            for shares in record["proposals"]:
                if shares is None:
                    break
                state.apply_action(SPLIT_ID[tuple(shares)], said.get(state.move_number))
            for vote in record["votes"]:
                if vote is None:
                    break
                state.apply_action(ABSTAIN if vote == "abstain" else VOTE_BASE + vote)
        return state
