"""MAgIC's PGM-aware agent (reference magic.md §4.1): a two-hop theory-of-mind analysis asked of the
model before it decides, in our own words and the reference's structure.

Before a decision the model is asked, in a separate chat, for its private analysis: its own belief
about every other player and what it thinks each other player believes (B1..Bn of the paper, as
text). The analysis then goes into the decision prompt, after the game's context and before the
answer format, with the scenario's decision guidance, which may name a target player read from the
analysis. The LLM agent (`--pgm`) runs the two calls; this module holds the prompts, the parsing and
the numeric belief.

When (§4.1 "Invocation schedule"):
  - chameleon, undercover: before every decision of the seat (clue, vote, the chameleon's guess);
  - cost_sharing, iterated_prisoners_dilemma, public_goods: once a round has been completed (never
    in round 1), before the round's decision (the proposal in cost_sharing: its votes are plain).
Context: the chameleon's decision prompt carries the latest analysis; the undercover's the last two.

Numeric belief (chameleon, undercover; the released code's PGM calculator as §4.1 describes it): an
n×n matrix M, row = whose perspective, column = how suspect each player is. Each analysis is read
into factors F (chameleon: "more suspicious" +1, "less suspicious" -1, "no change" 0; undercover:
"I think Player x is undercover" +1 at [me][x], "I think Player y thinks Player x is undercover" +1
at [y][x]) and M <- softmax_row(M * (1 + 0.1 F)). It names the decision's target player and, at a
vote, the vote (magic.md §6 A15: numeric votes), unless its own row ties, when the model's vote stands.

Where this differs from the released code: the code had every PGM player write an analysis after
each clue, whoever gave it; an agent is only asked for decisions, so the analysis comes before each
of its own decisions and the belief is updated that often. The undercover's self-role is read from
the analysis's first answer ("My role: ...") by a pattern rather than by another model's call, and
falls back on the belief as the code's calculator did. Other games are played as without the option.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..agent import DecisionView, LegalAction
from .base import Message, join_words

SOCIAL_GAMES = ("chameleon", "undercover")
KEPT = {"undercover": 2}         # analyses carried into the decision prompt (others: the latest only)
FACTOR_SCALE = 0.1
JUDGEMENTS = {"more suspicious": 1, "less suspicious": -1, "no change": 0}

TITLES = {"chameleon": "The Chameleon", "undercover": "Who is the Undercover",
          "cost_sharing": "airport fee allocation", "iterated_prisoners_dilemma": "the iterated prisoner's dilemma",
          "public_goods": "the public goods game"}

SYSTEM = ("You are {me} in a game of {title}. Before some of your moves you write a private analysis of the game: "
          "what you believe about each other player, and what you think each of them believes. No other player "
          "ever reads it. Write it in the layout asked for, and do not choose your move yet.")

_PRIVATE = "Take stock before you act (this is private: no other player reads it)."


# ---- when ---------------------------------------------------------------------------------------------

def due(view: DecisionView) -> bool:
    """Whether this decision is preceded by an analysis (see the module's schedule)."""
    data = view.observation_data
    if view.game_id in SOCIAL_GAMES:
        return data.get("phase") in ("clue", "vote", "guess")
    if view.game_id == "cost_sharing":
        return data.get("phase") == "proposal" and (data.get("round") or 1) > 1
    if view.game_id == "iterated_prisoners_dilemma":
        return data.get("phase") == "choose" and bool(data.get("rounds"))
    if view.game_id == "public_goods":
        return not data.get("finished") and bool(data.get("past_rounds"))
    return False


# ---- the analysis call ----------------------------------------------------------------------------------

def names(view: DecisionView) -> list[str]:
    """The players' names as the game's view writes them ("Player 2", "seat 1")."""
    data = view.observation_data
    listed = data.get("names")
    if isinstance(listed, list) and listed and all(isinstance(n, str) for n in listed):
        return listed
    return [f"seat {s}" for s in range(int(data.get("players") or view.seat + 1))]


def others(view: DecisionView) -> list[int]:
    """The other players still in the game, in seat order."""
    alive = view.observation_data.get("alive")
    seats = alive if isinstance(alive, list) else range(len(names(view)))
    return [s for s in seats if s != view.seat]


def analysis_messages(view: DecisionView) -> list[Message]:
    """The analysis chat: who the model is, the game as its seat sees it, and the scenario's question."""
    me = names(view)[view.seat]
    system = SYSTEM.format(me=me, title=TITLES.get(view.game_id, view.game_id))
    user = view.observation_text.strip() + "\n\n" + question(view)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def question(view: DecisionView) -> str:
    """The scenario's PGM question with its answer layout, for this seat and role."""
    everyone = names(view)
    me, rest = everyone[view.seat], [everyone[s] for s in others(view)]
    data = view.observation_data
    if view.game_id == "chameleon":
        if data.get("role") == "chameleon":
            return _chameleon_question(me, rest)
        return _suspicion_question(me, rest)
    if view.game_id == "undercover":
        return _undercover_question(view, me, rest)
    return _prediction_question(view, me, rest)


def _layout(me: str, rest: list[str], line: str, own: bool = True) -> str:
    """Answer blocks: "As me, I think:" (when `own`) then "I think X thinks:" per other player, each
    with one `line` (a format taking {who}) per player judged from that perspective."""
    blocks = []
    if own:
        blocks.append(f"As {me}, I think:\n" + "\n".join(line.format(who=who) for who in rest))
    for other in rest:
        judged = [me] + [who for who in rest if who != other]
        blocks.append(f"I think {other} thinks:\n" + "\n".join(line.format(who=who) for who in judged))
    return "\n".join(blocks)


def _suspicion_question(me: str, rest: list[str]) -> str:
    return (f"{_PRIVATE} Using only the clues actually given so far, judge how suspicious each other player now "
            f"looks as the chameleon: first as you see it, then as you think each other player sees it. Judge each "
            f"player with exactly one of: more suspicious (their clue does not fit the secret word), less suspicious "
            f"(their clue clearly fits it), no change (hard to tell, or they have not given a clue yet). Never "
            f"invent a clue for a player who has not spoken.\n"
            f"Answer in this layout, one line per player, each with its reason:\n"
            + _layout(me, rest, "{who} is <more suspicious / less suspicious / no change>, because ..."))


def _chameleon_question(me: str, rest: list[str]) -> str:
    return (f"{_PRIVATE} You are the chameleon. First work out the secret word from the other players' clues; "
            f"then judge how suspicious each player looks as the chameleon to each of the other players, with "
            f"exactly one of: more suspicious, less suspicious, no change. Judge only the clues actually given.\n"
            f"Answer in this layout, each line with its reason:\n"
            f"I guess the secret word is \"...\", because ...\n"
            + _layout(me, rest, "{who} is <more suspicious / less suspicious / no change>, because ...", own=False))


def _undercover_question(view: DecisionView, me: str, rest: list[str]) -> str:
    word = view.observation_data.get("word") or "?"
    questions = [
        (f"Am I the undercover? Your word is \"{word}\". Guess what word the clues of {join_words(rest)} describe "
         f"and compare it with yours. Take yourself for the undercover only when the others' clues agree with each "
         f"other but not with your word; the two words are very similar, so do not be over-confident. Begin with "
         f"\"My role: undercover\", \"My role: civilian\" or \"My role: not sure\", then give your reason."),
        ("Who do you think is the undercover? Answer \"I think Player x is undercover, because ...\" "
         "(with that player's name)."),
    ]
    questions += [f"Who does {other} think is the undercover? Answer \"I think {other} thinks Player x is "
                  f"undercover, because ...\"." for other in rest]
    if view.observation_data.get("phase") == "vote":
        questions.append("Whom will you vote for, and why?")
    else:
        questions.append("Your plan for your next clue: if you think you are a civilian, a clue more specific to your "
                         "word that helps expose the undercover; if you think you are the undercover, what the others' "
                         "word may be and a clue close to it that hides you; if you are not sure, a clue that is not "
                         "too specific.")
    numbered = "\n".join(f"{i}. {q}" for i, q in enumerate(questions, 1))
    return f"{_PRIVATE} Answer these questions in order, numbered:\n{numbered}"


def _prediction_question(view: DecisionView, me: str, rest: list[str]) -> str:
    if view.game_id == "cost_sharing":
        what = "how each player will change its proposal in the round now starting"
        line = "{who} will ..., because ..."
    elif view.game_id == "iterated_prisoners_dilemma":
        what = "whether each player will cooperate or defect in the round now starting"
        line = "{who} will <cooperate / defect>, because ..."
    else:
        what = ("whether each player will raise or lower its contribution in the round now starting (the pool is "
                "shared equally at the end whatever each put in, so whoever invests least gains most)")
        line = "{who} will <raise / lower / keep> its contribution, because ..."
    return (f"{_PRIVATE} Predict {what}: first as you see it, then as you think each other player sees it.\n"
            f"Answer concisely in this layout:\n" + _layout(me, rest, line))


# ---- reading an analysis ----------------------------------------------------------------------------------

def _name_pattern(everyone: list[str]) -> str:
    """Any player's name, spacing, "_" and case aside, never the start of a longer number."""
    alternatives = sorted(everyone, key=len, reverse=True)
    parts = [r"[\s_]*".join(re.escape(piece) for piece in re.split(r"[\s_]+", name)) for name in alternatives]
    return "(" + "|".join(parts) + r")(?!\d)"


def _seat_of(found: str, everyone: list[str]) -> int:
    key = re.sub(r"[\s_]+", "", found).casefold()
    return next(s for s, name in enumerate(everyone) if re.sub(r"[\s_]+", "", name).casefold() == key)


def factors(view: DecisionView, analysis: str) -> list[list[int]]:
    """The analysis as the factor matrix F (row = perspective, column = player judged)."""
    everyone = names(view)
    n = len(everyone)
    f = [[0] * n for _ in range(n)]
    name = _name_pattern(everyone)
    if view.game_id == "undercover":
        thinks = re.compile(rf"i\s+think\s+(?:now\s+)?{name}\s+thinks?\s+(?:that\s+)?{name}\s+is\s+"
                            r"(?:the\s+)?undercover", re.IGNORECASE)
        own = re.compile(rf"i\s+think\s+(?:that\s+)?{name}\s+is\s+(?:the\s+)?undercover", re.IGNORECASE)
        for line in analysis.splitlines():
            found = thinks.search(line)
            if found:
                f[_seat_of(found.group(1), everyone)][_seat_of(found.group(2), everyone)] = 1
                continue
            found = own.search(line)
            if found:
                f[view.seat][_seat_of(found.group(1), everyone)] = 1
        return f
    other_header = re.compile(rf"i\s+think\s+(?:now\s+)?{name}\s+thinks?\b", re.IGNORECASE)
    own_header = re.compile(rf"^\W*(?:as\s+{name}\b|i\s+think\s*:)", re.IGNORECASE)
    judged = re.compile(rf"{name}\W{{0,3}}(?:is\W{{1,4}})?({'|'.join(JUDGEMENTS)})", re.IGNORECASE)
    perspective = view.seat
    for line in analysis.splitlines():
        header = other_header.search(line)
        if header:
            perspective = _seat_of(header.group(1), everyone)
            line = line[header.end():]
        elif own_header.search(line):
            perspective = view.seat
            line = own_header.sub("", line, count=1)
        for found in judged.finditer(line):
            f[perspective][_seat_of(found.group(1), everyone)] = JUDGEMENTS[found.group(2).lower()]
    return f


_ROLE = re.compile(r"my\s+role\s*(?:is\s*|:\s*)\W*(not\s+sure|unsure|non-?undercover|civilian|undercover)",
                   re.IGNORECASE)


def role_claim(analysis: str) -> str | None:
    """The undercover analysis's answer to "am I the undercover?": undercover, civilian or not sure."""
    found = _ROLE.search(analysis)
    if not found:
        return None
    said = found.group(1).lower()
    if said in ("not sure", "unsure") or said.startswith("not"):
        return "not sure"
    return "civilian" if said.startswith("non") or said == "civilian" else "undercover"


# ---- the numeric belief ---------------------------------------------------------------------------------

@dataclass
class Belief:
    """M: row = perspective, column = how suspect each player is, each row a distribution."""

    rows: list[list[float]]
    me: int

    @classmethod
    def initial(cls, view: DecisionView) -> Belief:
        n, me = len(names(view)), view.seat
        if view.game_id == "undercover":
            return cls([[1 / n] * n for _ in range(n)], me)
        chameleon = view.observation_data.get("role") == "chameleon"
        rows = []
        for row in range(n):
            if row == me:
                # The chameleon knows itself; a non-chameleon knows it is not the one.
                rows.append([float(col == me) for col in range(n)] if chameleon
                            else [0.0 if col == me else 1 / (n - 1) for col in range(n)])
            else:
                # The chameleon knows each other player rules itself out; a non-chameleon has no clue.
                rows.append([0.0 if col == row else 1 / (n - 1) for col in range(n)] if chameleon
                            else [1 / n] * n)
        return cls(rows, me)

    def update(self, f: list[list[int]]) -> None:
        self.rows = [_softmax([m * (1 + FACTOR_SCALE * k) for m, k in zip(row, f_row)])
                     for row, f_row in zip(self.rows, f)]

    def own_choice(self, among: list[int]) -> int | None:
        """The seat this seat suspects most among `among`; None on a tie for the most."""
        return _unique_best([(self.rows[self.me][s], s) for s in among])

    def suspicion_of_me(self, seat: int) -> float:
        return self.rows[seat][self.me]

    def rounded(self) -> list[list[float]]:
        return [[round(v, 4) for v in row] for row in self.rows]


def _softmax(values: list[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def _unique_best(scored: list[tuple[float, int]]) -> int | None:
    if not scored:
        return None
    best = max(value for value, _ in scored)
    tops = [seat for value, seat in scored if abs(value - best) < 1e-12]
    return tops[0] if len(tops) == 1 else None


# ---- the decision ---------------------------------------------------------------------------------------

@dataclass
class Plan:
    """What an analysis gives the decision: the role it settles on and the target player (seats)."""

    role: str | None = None
    target: int | None = None
    vote: int | None = None       # the belief's vote, at a vote (None: the model's vote stands)


def plan(view: DecisionView, belief: Belief | None, analysis: str) -> Plan:
    """The role, target and vote the analysis and the belief give (social games; empty otherwise).
    Targets follow the released code: the chameleon's non-chameleons aim at the player who suspects
    them most and the chameleon at the one who suspects it least; the undercover's civilians aim at
    the player they suspect most and the undercover at the one who suspects it most."""
    if belief is None:
        return Plan()
    seats = others(view)
    data = view.observation_data
    if view.game_id == "chameleon":
        role = data.get("role")
        suspicion = [(belief.suspicion_of_me(s), s) for s in seats]
        if role == "chameleon":
            target = min(suspicion)[1] if suspicion else None
        else:
            target = max(suspicion, key=lambda pair: (pair[0], -pair[1]))[1] if suspicion else None
    else:
        claimed = role_claim(analysis)
        role = claimed or _role_from_belief(belief, seats)
        if role == "undercover":
            suspicion = [(belief.suspicion_of_me(s), s) for s in seats]
            target = max(suspicion, key=lambda pair: (pair[0], -pair[1]))[1] if suspicion else None
        elif role == "civilian":
            mine = [(belief.rows[belief.me][s], s) for s in seats]
            target = max(mine, key=lambda pair: (pair[0], -pair[1]))[1] if mine else None
        else:
            target = None
    vote = belief.own_choice(seats) if data.get("phase") == "vote" else None
    return Plan(role=role, target=target, vote=vote)


def _role_from_belief(belief: Belief, seats: list[int]) -> str:
    """The code's fallback: a flat own row is "not sure"; suspecting oneself most, the undercover."""
    own = belief.rows[belief.me]
    considered = [own[belief.me]] + [own[s] for s in seats]
    mean = sum(considered) / len(considered)
    if math.sqrt(sum((v - mean) ** 2 for v in considered) / len(considered)) <= 1e-4:
        return "not sure"
    return "undercover" if max(considered) == own[belief.me] else "civilian"


def guidance(view: DecisionView, chosen: Plan) -> str:
    """The scenario's decision prompt: what to aim for, given the analysis."""
    everyone = names(view)
    target = everyone[chosen.target] if chosen.target is not None else None
    phase = view.observation_data.get("phase")
    if view.game_id in SOCIAL_GAMES and phase == "vote":
        return "Vote in line with your analysis."
    if view.game_id == "chameleon":
        if phase == "guess":
            return "Use what your analysis worked out about the secret word for your guess."
        if chosen.role == "chameleon":
            return (f"Following your analysis, blend in and win {target}'s trust: if you are the first to give a clue, "
                    f"keep it general; if you have worked out the secret word, give a clue that fits it; otherwise "
                    f"give a clue close to {target}'s.")
        return (f"Following your analysis, aim your clue at making {target} look more suspicious, for instance with "
                f"a clue more specific to the secret word than {target}'s, without giving the word away.")
    if view.game_id == "undercover":
        if chosen.role == "undercover" and target:
            return (f"Your analysis says you are probably the undercover: blend in and win {target}'s trust, with a "
                    f"clue that fits the others' word if you have guessed it, else one close to {target}'s clues.")
        if chosen.role == "civilian" and target:
            return (f"Your analysis says you are probably a civilian and {target} the undercover: make {target} look "
                    f"more suspicious with a clue more specific to your word and different from {target}'s.")
        return ("Your analysis leaves your role open: give a clue that is not too specific and does not give your "
                "word away.")
    if view.game_id == "cost_sharing":
        return ("Following your analysis, adjust your proposal so that the others will agree to it; if the others keep "
                "to a fair proposal, follow it.")
    if view.game_id == "iterated_prisoners_dilemma":
        return ("Following your analysis, be strategic: the highest score goes to whoever defects before the others "
                "plan to. Choose to cooperate or to defect for the most points for yourself.")
    return ("Following your analysis, choose the contribution that gets you the highest final points while investing "
            "the least.")


def decision_section(view: DecisionView, analyses: list[str], chosen: Plan) -> str:
    """The analysis (the last ones the scenario keeps, oldest first) and the decision guidance."""
    if len(analyses) == 1:
        shown = "Your private analysis, written just before this decision (no other player sees it):\n" \
                + analyses[0].strip()
    else:
        earlier = "\n\n".join(f"Before an earlier decision:\n{a.strip()}" for a in analyses[:-1])
        shown = ("Your private analyses (no other player sees them), the latest last:\n" + earlier
                 + f"\n\nJust before this decision:\n{analyses[-1].strip()}")
    return shown + "\n\n" + guidance(view, chosen)


def with_section(message: Message, section: str) -> Message:
    """The decision's last user message with `section` before its final paragraph (the answer
    format), so that the model reads context, analysis, guidance, then how to answer."""
    content = message["content"]
    head, sep, tail = content.rpartition("\n\n")
    content = f"{head}\n\n{section}\n\n{tail}" if sep else f"{section}\n\n{content}"
    return {**message, "content": content}


def vote_action(view: DecisionView, seat: int) -> LegalAction | None:
    """The legal action that votes for `seat` ("vote for Player 2"), when there is one."""
    wanted = re.sub(r"[\s_]+", "", names(view)[seat]).casefold()
    for action in view.legal_actions:
        text = re.sub(r"[\s_]+", "", action.text).casefold()
        if "votefor" in text and text.endswith(wanted):
            return action
    return None
