"""GameBench's prompt style (reference gamebench.md §1.1, §2.10, §3.1), in our own words after the
structure of its agents' prompts.

A system message says that the model is an agent playing a game and should pick the action that
gives it the best chance of winning. One user message then holds, in order: the game's title and a
rules summary; the headings of the rules' further sections as a numbered map (H1, H2, ...) that the
model may open with the action "Explain(Hk)"; the observation (the engine's text view; an image of
the view goes with it when the agent runs with vision and the game sends one, as Hive does); and
the actions: the game's instructions for this decision, the predefined actions (ids with
descriptions: the legal actions) and the open-ended ones (the decision's message, when the game
wants one: Codenames' clue, the questions and answers of Are You the Traitor? and Two Rooms and a
Boom), with a note that "Explain(<action id>)" describes an action. The reply is one JSON object,
{"action": "<id>", "openended_response": "<text>" or null}, asked for in JSON mode (the style's
response_format; an endpoint that refuses it is asked without).

Action ids are GameBench's where the engine has them: the keys of the observation's "actions" map
(Santorini, Hive, Pit, Sea Battle), the per-decision numbers of Air, Land, and Sea, "guess_<k>" and
"end_turn" in Codenames, the bare player numbers of Are You the Traitor? and Two Rooms and a Boom;
elsewhere the action's number (Arctic Scavengers' selections, described by their lists).

Invalid answers (§2.10): a reply that is not a JSON object, names no listed action, or names an
open-ended action without its response is asked again with a corrective message (the valid actions
restated where the action was not among them); an "Explain(...)" answer gets the section's or the
action's text back; each of these uses one of the decision's 3 attempts (max_reasks 2), after which
the agent sends what it has and the referee's failure policy (the gamebench suite: a random legal
move) decides.

CoT (§3.1): with reasoning, the first call asks the model to reason aloud about which action gives it
the best chance of winning, without answering yet; its reply joins the chat, then `then` (a summary
restating the valid predefined and open-ended actions and the JSON form) gets the answer in a second
call, in JSON mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..agent import DecisionView, LegalAction
from ..answers import Reading
from . import generic
from .base import Conversation, Prompt, Style, message_problem, referee_note

SYSTEM = ("You are an agent playing a game. You are given the rules, your observation of the game and the actions "
          "you can take. Choose the action that maximises your chance of winning the game.")
JSON_FORM = '{"action": "<action id>", "openended_response": "<your text, for an open-ended action>" or null}'
REASON_ALOUD = ("Before you answer, reason aloud, step by step, about which of the available actions maximises your "
                "probability of winning. Do not give your JSON answer yet: it will be asked for next.")
ATTEMPTS = 3            # answers per decision, Explain requests included (GameBench's max_retries)

_EXPLAIN = re.compile(r"^\s*explain\s*\(\s*[\"'`]?(.*?)[\"'`]?\s*\)\s*$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Rules:
    """What the prompt shows of a game's rules: the summary, and sections opened on request."""

    title: str
    summary: str
    sections: tuple[tuple[str, str], ...] = ()


# ---- the games' rules, in our own words (from the engines' docstrings and the reference's cards) -----

RULES: dict[str, Rules] = {
    "air_land_sea": Rules(
        "Air, Land, and Sea",
        "Two commanders fight a series of battles over three theaters (Air, Land and Sea). In each battle both "
        "players get 6 cards and take turns playing one card each. A battle ends when a player withdraws or both "
        "hands are empty; the player controlling more theaters wins it and scores victory points (VPs). The first "
        "to 12 VPs wins the game; your score is your share of all VPs.",
        (("Turns", "On your turn do exactly one thing: Deploy (play a card face up on your side of the theater "
                   "of its own type), Improvise (play a card face down in any theater) or Withdraw (give up "
                   "the battle; your opponent scores VPs by how many cards you still hold)."),
         ("Theaters", "The three theaters stand in a row; neighbours are adjacent. Each player plays only to "
                      "their own side. A new card covers the cards already on your side of that theater."),
         ("Cards", "Each card has a type (Air, Land or Sea), a strength from 1 to 6 and usually an ability. A face "
                   "down card counts 2 and has no ability; you see your own face-down cards but not your "
                   "opponent's. Instant abilities act once when the card is played or turned face up; Ongoing "
                   "ones last while it stays face up."),
         ("Control", "You control a theater when your total strength there is higher than your opponent's. Ties "
                     "and empty theaters go to the player holding the 1st-player commander card."),
         ("Scoring", "A battle won without withdrawal gives 6 VPs. After a withdrawal the winner scores by the "
                     "cards left in the withdrawing hand: 5 or more 2 VPs, 4 3 (2 for the 2nd player), 3 3, 2 4 "
                     "(3 for the 2nd player), 1 6 (4 for the 2nd player), 0 6. Then the deck is reshuffled, the "
                     "theaters rotate and the commander cards are swapped."))),
    "arctic_scavengers": Rules(
        "Arctic Scavengers",
        "Each player leads a small tribe of survivors and draws a hand from their own deck. Every round has a "
        "gathering phase (dig in the junkyard, draw, hunt, hire mercenaries, trash cards) and a skirmish in "
        "which the stronger tribe wins a contested resource. When the contested resources are gone, the "
        "player with the larger tribe wins.",
        (("Gathering", "Each gathering action (DIG, DRAW, HUNT, HIRE, TRASH) may be taken once per round, using "
                       "cards from your hand; STOP ends your gathering. Your opponent may answer an action with "
                       "a Sniper or a Saboteur."),
         ("Cards", "Cards give tribe members and skills: DIG finds junkyard cards, HUNT brings food to hire "
                   "mercenaries, FIGHT counts in the skirmish. Tools and medicine only help together with a "
                   "person card."),
         ("Skirmish", "The highest total FIGHT wins the contested resource; on a tie, the larger number of tribe "
                      "members; still tied, nobody gets it."),
         ("Winning", "At the end the player with more tribe members wins (score 1, the other 0)."))),
    "are_you_the_traitor": Rules(
        "Are You the Traitor?",
        "Players are secretly split into a Good team and an Evil team. Good wants to give a magic key to the Good "
        "Wizard to destroy it; Evil wants to keep it, and the Evil Wizard looks just like the Good one. Players "
        "question one another to work out who is who; anyone may call STOP and accuse a player. A correct "
        "accusation wins the round's treasure for the caller's team, a wrong one gives it to the other team. "
        "The first to 10 treasure points ends the game, and that team wins.",
        (("Roles", "Evil: the Traitor and the Evil Wizard. Good: the Good Wizard, the Key Holder and a Guard. "
                   "Everyone knows which two players are the wizards, not which is which."),
         ("Targets", "Each role hunts one role: the Evil Wizard the Key Holder, the Good Wizard and the Guard the "
                     "Traitor, the Key Holder the Good Wizard. An accusation is correct when the accused holds "
                     "the caller's target role."),
         ("Talking", "A player chosen at random picks someone to question; the question and the answer are heard "
                     "by everyone. Answering 'skip' to the question turn asks nothing."),
         ("Calling STOP", "After each exchange every player but the Traitor may secretly call STOP; one caller is "
                          "heard and must accuse a player."))),
    "codenames": Rules(
        "Codenames",
        "Two teams, Red and Blue, each with a spymaster and an operative, share a grid of words. Only the "
        "spymasters see which words belong to which team, which are neutral and which one is the assassin. "
        "Spymasters give one-word clues with a number; operatives guess words. The game ends when a team has "
        "found all its words or someone picks the assassin.",
        (("Clues", "A clue is exactly one word that is not a board word, nor a part or a form of one, plus a "
                   "number: how many of your team's words it points to (0 allows unlimited guesses)."),
         ("Guessing", "The operative may guess up to the clue's number plus one. A guess of your own word lets you "
                      "go on; any other word ends the turn, and the assassin ends the game with a loss. You may "
                      "end your turn at any time."),
         ("Scoring", "Each team scores its revealed words, the winner 3 more; a team that picked the assassin "
                     "scores nothing. Scores are then shared out to sum to 1."))),
    "hive": Rules(
        "Hive",
        "Two players place and move insect pieces on a board of hexagons that grows as they play. Surround your "
        "opponent's Queen on all six sides (with pieces of either colour) to win, while keeping your own Queen "
        "free.",
        (("Placement", "A new piece goes next to your own pieces and not next to your opponent's (the first two "
                       "pieces of the game excepted). Your Queen must be placed by your fourth turn; your "
                       "pieces cannot move until it is."),
         ("Queen", "The Queen moves one cell at a time around the hive."),
         ("Spider", "The Spider moves exactly three cells around the hive."),
         ("Ant", "The Ant moves any number of cells around the hive."),
         ("Grasshopper", "The Grasshopper (Hopper) jumps in a straight line over one or more pieces to the first "
                         "empty cell."),
         ("One hive", "All pieces must stay connected: no move may split the hive, even for a moment."),
         ("Sliding", "A piece moving around the hive must be able to slide: it cannot squeeze through a gap "
                     "between two pieces."),
         ("End", "After 250 turns each with no Queen surrounded, the game is a draw."))),
    "pit": Rules(
        "Pit",
        "A trading game: each player holds commodity cards (Wheat, Barley, Corn, Soyabeans) and trades blindly, "
        "offering sets of identical cards, to gather one commodity and corner its market. A corner scores "
        "that commodity's points; the first side to 500 points wins, and your score is your share of all "
        "points.",
        (("Trading", "Offer 1 to 4 cards of one commodity, or accept an open offer by giving back as many cards "
                     "of another commodity. You never see what you will get until the trade is done."),
         ("Corners", "Holding 6 of one commodity (or 5 with the Bull) corners it: Wheat 100, Barley 85, Corn 75, "
                     "Soyabeans 55 points, doubled with 6 and the Bull; the Bear costs its holder 20 points. The "
                     "cards are then dealt again."),
         ("Sides", "Your side plays two traders; their points add up."))),
    "santorini": Rules(
        "Santorini",
        "Two players each have two pawns on a 5 by 5 board of squares that start at level 0. Each turn a player "
        "moves a pawn one square and then builds one level next to it. Moving a pawn onto a level-3 square wins "
        "at once, and so does leaving your opponent unable to play a turn.",
        (("Placement", "First the players place their pawns one at a time on empty squares."),
         ("Alternation", "You do not choose the pawn: you play your two pawns in turn, starting with the first."),
         ("Moving", "A pawn moves to one of the 8 neighbouring squares that has no pawn, is not at level 4 and is "
                    "at most one level higher; it may step down any number of levels."),
         ("Building", "Then add one level to a square next to the moved pawn that has no pawn and is below level "
                      "4. A level-4 square is complete: nobody enters or builds on it."))),
    "two_rooms_and_a_boom": Rules(
        "Two Rooms and a Boom",
        "Players are split into a Blue team, with the President, and a Red team, with the Bomber, spread over "
        "two rooms; nobody knows the others' teams. After the last round Red wins if the President and the "
        "Bomber are in the same room, Blue wins if they are not.",
        (("Rounds", "In each round every player questions a roommate in private and answers the questions put "
                    "to them; what a team learns is reported to its room's Leader; then each Leader sends one "
                    "non-leader player of their room to the other room as a hostage."),
         ("Talking", "Questions and answers are heard only by the two players talking. Anyone may lie."),
         ("Leaders", "Each room has one Leader, who chooses the hostage."))),
    "sea_battle": Rules(
        "Sea Battle",
        "Two sides of three ships sail a rocky 24 by 24 sea. Every turn each ship afloat is given an order, a "
        "move then a shot, and all orders are carried out at the same time. Sink all enemy ships while one of "
        "yours still floats to win.",
        (("Orders", "Move left, move forward, move right or don't move, then shoot left or shoot right. Moving "
                    "left or right is one square ahead, a quarter turn, then one more square ahead."),
         ("Damage", "A cannonball hit does 2 damage; sailing into a rock or ramming another ship does 1. A ship "
                    "with 10 damage sinks."),
         ("Cannons", "A cannonball flies up to 3 squares out of the side it is fired from and stops at the first "
                     "rock or ship."),
         ("Winning", "The side with a ship afloat when every enemy ship has sunk wins; if all ships sink, the "
                     "game is a draw."))),
}


# ---- action ids --------------------------------------------------------------------------------------

def _default_ids(view: DecisionView) -> list[tuple[str, LegalAction, str]]:
    """(id, legal action, description): the keys of the observation's "actions" map when it names every
    legal action (GameBench's own ids), else the action's number with its text as the description."""
    listed = view.observation_data.get("actions")
    if isinstance(listed, dict) and listed and all(a.text in listed for a in view.legal_actions):
        return [(a.text, a, str(listed[a.text])) for a in view.legal_actions]
    return [(str(a.action_id), a, a.text) for a in view.legal_actions]


_PLAYER = re.compile(r"\bplayer (\d+)$")


def _player_ids(view: DecisionView) -> list[tuple[str, LegalAction, str]]:
    """Are You the Traitor?: a target or an accusation is the bare player number, as in GameBench."""
    ids = []
    for a in view.legal_actions:
        number = _PLAYER.search(a.text)
        ids.append((number.group(1) if number else a.text, a, a.text))
    return ids


def _codenames_ids(view: DecisionView) -> list[tuple[str, LegalAction, str]]:
    return [(f"guess_{a.action_id}" if a.text.startswith("Guess") else "end_turn", a, a.text)
            for a in view.legal_actions]


def _list_ids(view: DecisionView) -> list[tuple[str, LegalAction, str]]:
    """Arctic Scavengers: the action's own list, GameBench's open-ended answer, without its quotes
    ([DIG, [Brawler, Shovel]]), so that it needs no escaping inside the JSON answer."""
    return [(a.text.replace('"', ""), a, _described(a.text)) for a in view.legal_actions]


def _described(text: str) -> str:
    """["HIRE", ["Pills"], "Saboteur"] -> "HIRE Saboteur, using Pills"; a card's title as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, list) or not value:
        return text
    verb, rest = str(value[0]), value[1:]
    cards = rest[0] if rest and isinstance(rest[0], list) else []
    named = [str(v) for v in rest if isinstance(v, str) and v]
    return " ".join([verb] + named) + (f", using {', '.join(map(str, cards))}" if cards else "")


IDS: dict[str, Callable[[DecisionView], list[tuple[str, LegalAction, str]]]] = {
    "are_you_the_traitor": _player_ids, "codenames": _codenames_ids, "arctic_scavengers": _list_ids}

# What the engines' descriptions say about answering in text, which the JSON answer replaces.
_TEXT_FORMAT_NOTE = re.compile(r"\s*\((?:in )?GameBench's (?:format|reply)\b.*?\)(?=\s*(?:\(e\.g\.|$))", re.DOTALL)
_AS_MESSAGE = re.compile(r",? as your message\b")


def _instructions(view: DecisionView) -> str:
    """The game's instructions for the decision (its text spec's description), without the notes on
    answering in plain text; Arctic Scavengers' lists lose their quotes, as its ids do."""
    if view.text_action is None:
        return ""
    text = _AS_MESSAGE.sub("", _TEXT_FORMAT_NOTE.sub("", view.text_action.description)).strip()
    return text.replace('"', "") if view.game_id == "arctic_scavengers" else text


_CLUE = re.compile(r"^\s*[\"']?([A-Za-z][A-Za-z'-]*)[\"']?\s*[,;:]\s*(\d+)\s*$")


def _read_clue(view: DecisionView, response: str) -> tuple[LegalAction | None, str | None, str]:
    """Codenames' clue "word,number": the action for the number, the word as the message."""
    found = _CLUE.match(response)
    if not found:
        return None, None, (f"Your clue {response!r} is not of the form 'word,number' (one word, then the number "
                            "of your words it points to).")
    number = min(int(found.group(2)), max(a.action_id for a in view.legal_actions))
    action = next((a for a in view.legal_actions if a.action_id == number), None)
    if action is None:
        return None, None, f"The clue number {found.group(2)} is not allowed now."
    return action, found.group(1), ""


@dataclass
class Open:
    """An open-ended action: its id, what to write, and how the response becomes (action, message)."""

    id: str
    prompt: str
    read: Callable[[str], tuple[LegalAction | None, str | None, str]]


def _open_actions(view: DecisionView) -> list[Open]:
    """The decision's open-ended actions: its message, when the game wants one with a fixed move (a
    question, an answer) or, in Codenames, the clue with its number."""
    spec = view.text_action
    if not view.message_wanted:
        return []
    if view.game_id == "codenames" and len(view.legal_actions) > 1:
        return [Open("clue", "your clue as 'word,number': one word that is not on the board, nor part or form of "
                             "a board word, then how many of your team's words it points to (0: unlimited "
                             "guesses)", lambda response: _read_clue(view, response))]
    if len(view.legal_actions) == 1:
        only = view.legal_actions[0]
        slug = re.sub(r"[^a-z0-9]+", "_", only.text.lower()).strip("_") or "say"
        return [Open(slug, _instructions(view).rstrip(".") + (f" (e.g. {spec.example!r})" if spec.example else ""),
                     lambda response: (only, response, ""))]
    return []


# ---- the prompt -------------------------------------------------------------------------------------

@dataclass
class GameBenchPrompt(Prompt):
    """A prompt whose reply is GameBench's JSON answer; Explain requests are answered as feedback."""

    predefined: dict[str, tuple[LegalAction, str]] = field(default_factory=dict)    # id (lower case) -> action
    open_ended: dict[str, Open] = field(default_factory=dict)                        # id (lower case) -> action
    sections: dict[str, tuple[str, str]] = field(default_factory=dict)              # "h1" -> (heading, text)
    ids: list[str] = field(default_factory=list)                                   # every id, as listed
    then: str | None = None          # CoT: the prompt of the answer call, after the reasoning call's reply

    def read(self, reply: str) -> Reading:
        answer = _last_answer(reply)
        if answer is None:
            return Reading(None, "", problem="Your reply is not a JSON object with an \"action\" field.")
        action = answer.get("action")
        action = "" if action is None else str(action).strip()
        response = answer.get("openended_response")
        response = str(response).strip() if response is not None and not isinstance(response, (dict, list)) \
            else json.dumps(response) if response is not None else None
        response = response or None
        explain = _EXPLAIN.match(action)
        if explain:
            return Reading(None, action, problem=self._explain(explain.group(1).strip()))
        key = action.lower()
        if key == "openended" and len(self.open_ended) == 1 and not self.predefined:
            key = next(iter(self.open_ended))      # the generic id some games' own instructions name
        elif key not in self.predefined and key not in self.open_ended:
            # Some games' instructions also allow an action's text (Pit's "Offer 2 Wheat", ALS's card).
            key = next((k for k, (legal, description) in self.predefined.items()
                        if key in (legal.text.lower(), description.lower())), key)
        if key in self.predefined:
            legal, _ = self.predefined[key]
            message = response if self.speech is not None else None
            problem = message_problem(self.speech, message) if self.speech is not None else ""
            if problem:
                return Reading(None, action, problem=f"{problem} Put it in \"openended_response\".")
            return Reading(legal, action, message=message)
        if key in self.open_ended:
            if response is None:
                return Reading(None, action, problem=f'The action "{self.open_ended[key].id}" is open-ended: your '
                                                     'JSON must include its "openended_response".')
            legal, message, problem = self.open_ended[key].read(response)
            if not problem and self.speech is not None:
                problem = message_problem(self.speech, message)
            if problem:
                return Reading(None, action, problem=problem)
            return Reading(legal, action, message=message)
        shown = f'"{action}"' if action else "An empty action"
        return Reading(None, action or "(none)", problem=f"{shown} is not one of the valid actions. The valid "
                                                         f"actions are: {', '.join(self.ids)}.")

    def feedback(self, reading: Reading) -> str:
        if reading.problem.startswith("Explanation"):
            return f"{reading.problem}\nNow answer with a JSON object: {JSON_FORM}"
        return f"{reading.problem} Answer again with a JSON object: {JSON_FORM}"

    def _explain(self, subject: str) -> str:
        key = subject.lower()
        if key in self.sections:
            heading, text = self.sections[key]
            return f"Explanation of {subject} ({heading}): {text}"
        by_heading = {h.lower(): (h, t) for h, t in self.sections.values()}
        if key in by_heading:
            heading, text = by_heading[key]
            return f"Explanation of {heading}: {text}"
        if key in self.predefined:
            return f"Explanation of action {subject}: {self.predefined[key][1]}"
        if key in self.open_ended:
            return f"Explanation of action {subject}: write {self.open_ended[key].prompt}."
        return (f"There is nothing to explain under {subject!r}: explain a rule heading (H1 ... "
                f"H{len(self.sections)}) or an action id.")


def _last_answer(reply: str) -> dict | None:
    """The last JSON object of a reply that has an "action" field (the whole reply first)."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        whole = json.loads(text)
        if isinstance(whole, dict) and "action" in whole:
            return whole
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    found = None
    for start in (m.start() for m in re.finditer(r"\{", reply)):
        try:
            value, _ = decoder.raw_decode(reply, start)
        except ValueError:
            continue
        if isinstance(value, dict) and "action" in value:
            found = value
    return found


def build(view: DecisionView, think: bool, conversation: Conversation = ()) -> Prompt | None:
    rules = RULES.get(view.game_id)
    if rules is None or not view.legal_actions:
        return None
    predefined = IDS.get(view.game_id, _default_ids)(view)
    open_ended = _open_actions(view)
    if open_ended:             # the message is the decision: its moves are read from the response
        predefined = []
    sections = {f"h{k}": section for k, section in enumerate(rules.sections, 1)}
    parts = [f"You are playing {rules.title}.\n\nRules summary: {rules.summary}"]
    if sections:
        listed = "\n".join(f"  H{k[1:]}: {heading}" for k, (heading, _) in sections.items())
        parts.append("More rules are written under these headings. To read one, answer with the action "
                     f'"Explain(Hk)", e.g. {{"action": "Explain(H1)"}}; this uses one of your {ATTEMPTS} attempts '
                     f"for this decision.\n{listed}")
    observation = "Observation:\n" + view.observation_text.strip()
    if view.images:
        observation += "\n(An image of the current state is attached.)"
    parts.append(observation)
    actions = ["Actions:"]
    instructions = _instructions(view) if not open_ended else ""
    actions.append("Instructions: " + (instructions.rstrip(".") + "." if instructions else
                                       "choose one of the actions below by its id."))
    if predefined:
        actions.append("Predefined actions (id: description):")
        actions += [f'  "{ident}": {description}' for ident, _, description in predefined]
    if open_ended:
        actions.append("Open-ended actions (id: what to write in \"openended_response\"):")
        actions += [f'  "{o.id}": {o.prompt}' for o in open_ended]
    elif view.message_wanted:
        actions.append(f'With the action, write your message in "openended_response": '
                       f"{_instructions(view).rstrip('.')}"
                       + (" (required)." if view.message_wanted == "required" else " (or null to say nothing)."))
    actions.append('To learn more about an action, answer with "Explain(<action id>)".')
    parts.append("\n".join(actions))
    note = referee_note(view)
    if note:
        parts.append(note)
    ids = [ident for ident, _, _ in predefined] + [o.id for o in open_ended]
    answer = f"Answer with a JSON object only: {JSON_FORM}."
    parts.append(REASON_ALOUD if think else answer)
    then = None
    if think:
        restated = []
        if predefined:
            restated.append("The valid predefined actions are: " + ", ".join(f'"{i}"' for i, _, _ in predefined) + ".")
        if open_ended:
            restated.append("The valid open-ended actions are: " + ", ".join(f'"{o.id}" ({o.prompt})'
                                                                              for o in open_ended) + ".")
        then = " ".join(["Now choose your action."] + restated + [answer])
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]
    return GameBenchPrompt(
        "gamebench", messages, None, list(view.legal_actions), hint=JSON_FORM, max_reasks=ATTEMPTS - 1,
        predefined={ident.lower(): (action, description) for ident, action, description in predefined},
        open_ended={o.id.lower(): o for o in open_ended}, sections=sections, ids=ids, then=then)


@dataclass
class GameBenchStyle(Style):
    """A style whose answers are asked for in the endpoint's JSON mode (`response_format`, sent with
    its own prompts' answer calls, not with the reasoning call nor with the fallback's prompts)."""

    response_format: dict | None = None


# GameBench set no sampling parameters (the API's defaults) and asked for the final answer in JSON mode.
STYLE = GameBenchStyle("gamebench", {game_id: build for game_id in RULES}, fallback=generic.STYLE,
                       response_format={"type": "json_object"})
