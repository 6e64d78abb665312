"""LLMArena prompt cards (arena_client.prompts.llmarena) for Texas Hold'em, Hanabi, Bargain and
Undercover, and message turns in the LLM agent and the generic style.

Each prompt is built from a real engine state (the game's LLMArena preset, a few seeded moves) turned
into the DecisionView the SDK would receive, so the checks are on the prompt a live match produces:
its structure, that nothing hidden from the seat appears (the prompt is unchanged when only what the
seat cannot see is redrawn), and that replies in the card's format are read as the engine reads
them. For message turns, the message must reach the Decision: as Choice.message, or as text the
engine's own read_reply splits into the intended move and talk. Then `arena-agent llm --style
llmarena` plays a short match of each game on a real server against the local fake OpenAI endpoint,
and the generic style plays every game with dialogue to the end, its messages accepted by the game.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
import re
import threading

import arena_engines
import pytest
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_client import DecisionView, LegalAction, PublicMove, TextActionSpec
from arena_client.agent import Utterance
from arena_client.agents.llm_agent import LLMAgent
from arena_client.convert import struct_to_dict
from arena_client.prompts import STYLES
from arena_engines import load_game
from arena_engines.core import ActionParseError, TextRejectedError
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from ..conftest import agent_process, start_server
from ..e2e.helpers import matches_of, wait_connected, wait_tournament
from .fake_openai import FakeOpenAI, Reply, text

pytestmark = pytest.mark.timeout(120)

KEY = "test-key"
LLMARENA = STYLES["llmarena"]
GENERIC = STYLES["generic"]


# ---- engine states and the views the SDK makes of them -------------------------------------------

def play(game: str, preset: str, moves=(), *, seed: int = 1, parameters: dict | None = None):
    """The state after `moves` (ids, (id, message) pairs, or lists for a simultaneous node), chance
    drawn with a seeded RNG before and after each move."""
    state = load_game(game, parameters, preset=preset).new_initial_state()
    rng = random.Random(seed)

    def deal():
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])

    deal()
    for move in moves:
        if isinstance(move, list):
            state.apply_actions(move)
        elif isinstance(move, tuple):
            state.apply_action(*move)
        else:
            state.apply_action(move)
        deal()
    return state


def view_of(state, seat: int | None = None, *, attempt: int = 0, feedback: str = "") -> DecisionView:
    """What the SDK hands the agent: the observation data through a protobuf Struct (as on the wire),
    the legal actions, the text spec with its message fields, and the conversation."""
    seat = state.current_player() if seat is None else seat
    data = struct_pb2.Struct()
    data.update(state.observation_dict(seat))
    spec = state.text_action_spec(seat)
    text_action = None if spec is None else TextActionSpec(
        spec["description"], spec["max_length"], tuple(spec.get("forbidden_words", ())), spec.get("message"),
        spec.get("example", ""), tuple(spec.get("audience") or ()))
    return DecisionView(
        match_id="m1", decision_id=1, seat=seat, game_id=state.game.spec.game_id,
        observation_text=state.observation_string(seat), observation_data=struct_to_dict(data),
        history=[PublicMove(i, s, a, t) for i, (s, a, t) in enumerate(state.public_history())],
        legal_actions=[LegalAction(a, state.action_to_string(seat, a)) for a in state.legal_actions(seat)],
        text_action=text_action, deadline=None, time_remaining=30.0, attempt=attempt, feedback=feedback,
        parameters=dict(state.game.parameters),
        conversation=[Utterance(u["move"], u["seat"], u["text"], tuple(u.get("to") or ()))
                      for u in state.conversation(seat)])


def everything(prompt) -> str:
    return "\n".join(m["content"] for m in prompt.messages)


def decide(view: DecisionView, *replies: str, style: str = "llmarena", **options):
    """The agent's Choice for `view` when the model answers `replies` in turn, and the requests made."""
    with FakeOpenAI(api_key=KEY) as model:
        model.push(*(text(r) for r in replies))
        agent = LLMAgent("fake", base_url=model.base_url, api_key=KEY, style=style, retry_delay=0.01, **options)
        choice = asyncio.run(agent.decide(view))
        return choice, model.requests


def action_text(view: DecisionView, action_id: int) -> str:
    return next(a.text for a in view.legal_actions if a.action_id == action_id)


# ---- texas_holdem_no_limit ----------------------------------------------------------------------------

def holdem_on_the_flop(seed: int = 3):
    """Pre-flop call and check, then the flop: the big blind's first decision after the flop."""
    return play("texas_holdem_no_limit", "llmarena", [1, 1], seed=seed)


def test_holdem_prompt_is_rules_then_cards_chips_and_legal_actions_without_the_betting_history():
    state = holdem_on_the_flop()
    seat = state.current_player()
    data = state.observation_dict(seat)
    prompt = LLMARENA.build(view_of(state), False, [("an earlier turn", "Action: Fold")])
    assert [m["role"] for m in prompt.messages] == ["system", "user"]          # stateless: no kept chat
    assert prompt.keep is None and not prompt.whole_reply and prompt.max_reasks is None
    rules, user = (m["content"] for m in prompt.messages)
    assert "Texas Hold'em" in rules and "start with 100 chips" in rules
    assert "1. Royal flush" in rules and "10. High card" in rules and "the pot is split" in rules
    assert user.startswith("The hand goes on: it is your turn in the flop betting round.")
    assert f"Your hole cards: {data['hole_cards'][0]} and {data['hole_cards'][1]}." in user
    assert "Community cards: " + ", ".join(data["board"][:2]) + f" and {data['board'][2]}." in user
    assert "You have 98 chips left and have put 2 chips in the pot; your opponent has put in 2 chips." in user
    assert "  Check and Call: put in nothing more (check)." in user
    for option in data["options"]:
        assert f"\n  {option['text']}: " in user
    assert user.endswith("and after that line explain briefly why you chose it.")
    # LLMArena's prompt leaves the betting history out; the engine's own view has it.
    betting = [line for line in state.observation_string(seat).splitlines() if line.startswith("Betting ")]
    assert betting and not any(line in user for line in betting) and "Betting" not in user


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_holdem_prompt_never_shows_the_opponents_hole_cards(seed):
    state = holdem_on_the_flop(seed)
    seat = state.current_player()
    prompt = LLMARENA.build(view_of(state), True)
    theirs = state.observation_dict(1 - seat)["hole_cards"]
    assert theirs and not any(card in everything(prompt) for card in theirs)
    # Redrawing what the seat cannot see (the opponent's cards, the deck) leaves the prompt unchanged.
    redrawn = [state.resample_hidden(seat, s) for s in range(1, 6)]
    assert any(r.observation_dict(1 - seat)["hole_cards"] != theirs for r in redrawn)
    for other in redrawn:
        assert LLMARENA.build(view_of(other, seat), True).messages == prompt.messages


def test_holdem_replies_are_read_as_the_engine_reads_them():
    state = holdem_on_the_flop()
    seat = state.current_player()
    prompt = LLMARENA.build(view_of(state), False)
    replies = {
        "I hold a pair.\nAction: Raise Full Pot\nA pair is worth a raise.": "Raise Full Pot",
        "action: check and call": "Check and Call",
        "Action: ALL-IN": "All in",
        "Action: Fold looks weak here; still,\nAction: Check and Call": "Fold",      # the first one, as released
    }
    for reply, label in replies.items():
        reading = prompt.read(reply)
        assert reading.action is not None and reading.action.text == label, reply
        assert reading.action.action_id == state.parse_action(seat, reply)
    # Pre-flop the small blind may not "Raise Half Pot" (it would only call): in the format, not legal.
    opening = play("texas_holdem_no_limit", "llmarena", seed=3)
    refused = LLMARENA.build(view_of(opening), False).read("Action: Raise Half Pot")
    assert refused.found and refused.action is None
    assert not prompt.read("I raise, obviously.").found


# ---- hanabi ---------------------------------------------------------------------------------------------

def hanabi_after(moves=(5, 9, 2), seed: int = 1):
    """Seat 0 reveals Yellow, seat 1 reveals rank 4, seat 0 plays its Red 1: seat 1 to move."""
    return play("hanabi", "llmarena_small", moves, seed=seed)


def test_hanabi_prompt_shows_the_partners_hand_tokens_knowledge_and_the_partners_last_move():
    state = hanabi_after()
    prompt = LLMARENA.build(view_of(state), True)
    assert [m["role"] for m in prompt.messages] == ["system", "user"] and prompt.max_reasks == 1
    rules, user = (m["content"] for m in prompt.messages)
    assert "Hanabi" in rules and "2 colours (Red and Yellow)" in rules and "numbers 1 to 5" in rules
    assert "3 information tokens and 1 life token: a single wrong play ends the game." in rules
    assert "the largest card of each firework" in rules
    assert user.startswith("It is your turn. You are player 1, your partner is player 0.")
    assert "Your partner's cards: position 0: Yellow 4, position 1: Red 5." in user
    assert "The fireworks: the Red firework is at 1, the Yellow firework is at 0." in user
    assert "Information tokens: 1 of 3. Life tokens: 1 of 1." in user
    assert "the card at position 0: it was revealed to be Yellow" in user
    assert "the card at position 1: it could be Red" in user        # not Yellow: the reveal said so
    assert "Cards left in the deck: 15." in user
    assert "Your partner's last action: Play Card at position 0 (it was Red 1, added to the Red firework)." in user
    assert "The card your partner last played or discarded: Red 1." in user
    assert "Your legal actions: Discard Card at position 0; " in user
    assert user.endswith("and after that line explain your choice.") and "'Action: <action>'" in user


@pytest.mark.parametrize("moves", [(5, 9, 2), (5,), (4, 6, 0)])
def test_hanabi_prompt_never_shows_the_seats_own_cards(moves):
    state = hanabi_after(moves)
    seat = state.current_player()
    prompt = LLMARENA.build(view_of(state), True)
    own = state.observation_dict(1 - seat)["partner_hand"]
    redrawn = [state.resample_hidden(seat, s) for s in range(1, 8)]
    assert any(r.observation_dict(1 - seat)["partner_hand"] != own for r in redrawn)
    for other in redrawn:
        assert LLMARENA.build(view_of(other, seat), True).messages == prompt.messages


def test_hanabi_replies_are_read_as_the_engine_reads_them():
    state = hanabi_after()
    seat = state.current_player()
    view = view_of(state)
    prompt = LLMARENA.build(view, True)
    for action in view.legal_actions:
        reply = f"My partner needs to know this.\nAction: {action.text.lower()}\nIt helps the team."
        assert prompt.read(reply).action == action
        assert state.parse_action(seat, reply) == action.action_id
    assert prompt.read("Action: <Reveal Yellow Cards for another player>").action.text == \
        "Reveal Yellow Cards for another player"
    # Rank 1 is in no card of the partner's hand: a label of the format, but not legal now.
    refused = prompt.read("Action: Reveal Rank 1 Cards for another player")
    assert refused.found and refused.action is None
    assert not prompt.read("I would hint the red card.").found


def test_hanabi_is_reasked_only_once_as_the_released_code_did():
    view = view_of(hanabi_after())
    choice, requests = decide(view, "Hint red.", "Still hinting red.", "Action: Play Card at position 1",
                              max_reasks=3)
    assert len(requests) == 2 and choice.extra["reasks"] == 1
    assert "I could not find your move in the required format" in requests[1]["messages"][-1]["content"]
    assert choice.action_id is None and choice.extra["sent_as"] == "text"      # the referee decides
    assert requests[0]["temperature"] == 0


# ---- negotiation (Bargain): talk, then the plan line, sent whole as text --------------------------------------

def bargain(moves=(), seed: int = 3):
    return play("negotiation", "llmarena_bargain", moves, seed=seed)


OPENING = "I would like the apples; you can have the rest.\nplayer_0: 0 hats 0 balls 3 apples"


def test_bargain_reply_is_sent_whole_and_the_game_splits_it_into_plan_and_talk():
    state = bargain()
    view = view_of(state)
    assert view.message_wanted == "optional" and view.observation_data["pool"] == [1, 2, 3]
    prompt = LLMARENA.build(view, False)
    assert prompt.whole_reply and prompt.keep == prompt.messages[-1]["content"]
    user = prompt.messages[-1]["content"]
    assert user.startswith("You make the first proposal: open the bargaining with a plan.\nRound 1. You are player_0.")
    assert "Everything you write before that line is said to your opponent." in user
    reading = prompt.read(OPENING)
    assert reading.action.text == "Proposal: [0, 0, 3]"
    assert state.read_reply(0, OPENING) == (reading.action.action_id, "I would like the apples; you can have the rest.")
    choice, requests = decide(view, OPENING)
    assert choice.text == OPENING and choice.action_id is None and choice.message is None
    assert choice.extra["sent_as"] == "text" and choice.extra["reasks"] == 0
    assert requests[0]["messages"] == prompt.messages


def test_bargain_shows_the_opponents_talk_as_the_bargaining_history():
    first = bargain()
    move, talk = first.read_reply(0, OPENING)
    state = bargain([(move, talk)])
    prompt = LLMARENA.build(view_of(state), False, [("the opening", OPENING)])
    assert [m["role"] for m in prompt.messages] == ["system", "user", "assistant", "user"]
    user = prompt.messages[-1]["content"]
    assert "Round 1. You are player_1." in user
    assert 'Your opponent said: "I would like the apples; you can have the rest."' in user
    assert "Your opponent's plan gives it 0 hats, 0 balls, 3 apples, which leaves you 1 hat, 2 balls, 0 apples" in user
    assert user.index("Your opponent said") < user.index("Your opponent's plan")
    # Talk the seat has already answered is not repeated: after player_1's own reply, only new talk shows.
    answer = "Then I keep the balls.\nplayer_1: 1 hat 2 balls 0 apples"
    later = bargain([(move, talk), state.read_reply(1, answer)])
    shown = LLMARENA.build(view_of(later), False).messages[-1]["content"]
    assert 'Your opponent said: "Then I keep the balls."' in shown and "apples; you can" not in shown


def test_bargain_replies_the_game_would_not_split_are_asked_again():
    state = bargain()
    prompt = LLMARENA.build(view_of(state), False)
    no_plan = "I want all the apples and nothing else."
    assert not prompt.read(no_plan).found
    with pytest.raises(ActionParseError):
        state.read_reply(0, no_plan)
    for illegal in ("player_0: Deal.", "player_0: 2 hats 0 balls 0 apples"):     # nothing to accept; 1 hat only
        refused = prompt.read(illegal)
        assert refused.found and refused.action is None, illegal
    assert "choosing one of: player_0: 0 hats 0 balls 0 apples, player_0: 0 hats 0 balls 1 apple, " \
        in prompt.feedback(refused)                      # the legal moves, as plan lines
    assert prompt.read("Proposal: [1, 0, 0]").action.text == "Proposal: [1, 0, 0]"     # a canonical move alone
    choice, requests = decide(view_of(state), no_plan, OPENING)
    assert choice.text == OPENING and choice.extra["reasks"] == 1
    feedback = requests[1]["messages"][-1]["content"]
    assert "I could not find your move" in feedback and "'player_0: x hats y balls z apples'" in feedback


def test_bargain_without_talk_reads_the_plan_as_the_paper_did_and_sends_an_action_id():
    view = dataclasses.replace(view_of(bargain()), text_action=None)        # a decision that takes no message
    prompt = LLMARENA.build(view, False)
    assert not prompt.whole_reply
    assert prompt.read("I want apples: three apples please").action.text == "Proposal: [0, 0, 3]"
    choice, _ = decide(view, OPENING)
    assert action_text(view, choice.action_id) == "Proposal: [0, 0, 3]" and choice.message is None


# ---- undercover: the clue is the message, the vote an action ---------------------------------------------

CLUES = ["it hums quietly", "found in many homes", "people like it", "small and simple", "you can share it"]


def undercover_clue_turn(speakers: int = 2, seed: int = 3):
    return play("undercover", "llmarena", [(5, clue) for clue in CLUES[:speakers]], seed=seed)


def other_words(state, seat: int) -> set[str]:
    mine = state.observation_dict(seat)["word"]
    return {state.observation_dict(s)["word"] for s in range(5)} - {mine}


def test_undercover_clue_prompt_asks_for_one_clue_in_the_papers_format():
    state = undercover_clue_turn()
    seat = state.current_player()
    view = view_of(state)
    word = view.observation_data["word"]
    assert view.message_wanted == "required" and view.text_action.forbidden_words == (word,)
    prompt = LLMARENA.build(view, False)
    assert prompt.keep is not None and not prompt.whole_reply and prompt.speech == view.text_action
    rules, user = prompt.messages[0]["content"], prompt.messages[-1]["content"]
    assert "Who is the Undercover" in rules and "at most 2 rounds" in rules and "vote for civilians" in rules
    assert user.startswith(f'Round 1, clue stage. You are player_{seat}, and your secret word is "{word}".')
    assert f"player_0: {CLUES[0]}\nplayer_1: {CLUES[1]}" in user
    assert f"in the form 'player_{seat}: <your clue>'" in user
    assert not other_words(state, seat) & set(re.findall(r"[a-z]+", everything(prompt).lower()))


def test_an_undercover_clue_reaches_the_decision_as_its_message():
    state = undercover_clue_turn()
    seat = state.current_player()
    view = view_of(state)
    reply = f"player_{seat}: you hear it before you see it"
    reading = LLMARENA.build(view, False).read(reply)
    assert reading.action.text == "give a clue" and reading.message == "you hear it before you see it"
    assert state.read_reply(seat, reply) == (reading.action.action_id, reading.message)
    word = view.observation_data["word"]
    choice, requests = decide(view, f"player_{seat}: a {word}, clearly", reply)
    assert choice.action_id == reading.action.action_id and choice.message == "you hear it before you see it"
    assert choice.extra["reasks"] == 1
    assert f"Your message may not contain the word '{word}'." in requests[1]["messages"][-1]["content"]
    state.apply_action(choice.action_id, choice.message)
    assert state.conversation((seat + 1) % 5)[-1] == {"move": state.move_number - 1, "seat": seat,
                                                      "text": "you hear it before you see it"}


def test_a_refused_clue_is_shown_to_the_model_when_the_referee_asks_again():
    state = undercover_clue_turn()
    seat = state.current_player()
    with pytest.raises(TextRejectedError, match="already said"):
        state.clone().apply_action(5, CLUES[0])                 # the game's own rule: no repeated clue
    feedback = "player_0 already said 'it hums quietly'; give a new clue (1 retry left)"
    view = view_of(state, attempt=1, feedback=feedback)
    for style in (LLMARENA, GENERIC):
        prompt = style.build(view, False, [("the earlier ask", f"player_{seat}: {CLUES[0]}")])
        assert f"refused by the referee (this is attempt 2): {feedback}" in prompt.messages[-1]["content"]


def test_undercover_vote_is_an_action_read_from_vote_player():
    state = undercover_clue_turn(speakers=5)
    view = view_of(state, 1)
    assert view.message_wanted is None
    prompt = LLMARENA.build(view, True)
    user = prompt.messages[-1]["content"]
    assert user.startswith('Round 1, voting stage. You are player_1, and your secret word is "')
    assert "\n".join(f"player_{s}: {clue}" for s, clue in enumerate(CLUES)) in user
    assert "player_0, player_2, player_3, player_4" in user and "'vote: player_0.'" in user
    reply = "The fourth clue was odd.\nvote: player_3."
    assert prompt.read(reply).action.text == "vote for player_3" and state.parse_action(1, reply) == 3
    refused = prompt.read("vote: player_1.")                      # oneself
    assert refused.found and refused.action is None
    assert not prompt.read("I am not sure yet.").found
    assert not other_words(state, 1) & set(re.findall(r"[a-z]+", everything(prompt).lower()))


# ---- the generic style: any game's message turn --------------------------------------------------------------

def test_generic_message_turn_shows_the_conversation_and_the_messages_rules_and_sends_the_message():
    state = play("undercover", "magic", [(3, "round and sweet")], seed=3)
    view = view_of(state)
    word = view.observation_data["word"]
    prompt = GENERIC.build(view, False)
    user = prompt.messages[-1]["content"]
    assert "What has been said so far:\n  seat 0: round and sweet" in user
    assert f"The game describes the decision as: {view.text_action.description}." in user
    assert "Your move is fixed ('give a clue')" in user and "Every player will hear it." in user
    assert f"At most 200 characters. It must not contain the word '{word}'." in user
    assert f"An acceptable message looks like: {view.text_action.example}" in user
    assert user.endswith("Reply with just a line 'Message: <your message>'.")
    choice, requests = decide(view, f"Message: {word} maybe?", "Message: you play it with a bow", style="generic")
    assert choice.action_id == 3 and choice.message == "you play it with a bow" and choice.extra["reasks"] == 1
    assert "Answer again in the form 'Message: <your message>'" in requests[1]["messages"][-1]["content"]
    state.apply_action(choice.action_id, choice.message)
    assert state.conversation(0)[-1]["text"] == "you play it with a bow"
    # Thinking aloud, the message must be on its line; a plain one-line answer is the message itself.
    assert GENERIC.build(view, False).read("it has four strings").message == "it has four strings"
    thinking = GENERIC.build(view, True).read("Let me think.\nIt has strings.")
    assert thinking.action is None and thinking.problem.startswith("Your reply has no message")


def test_generic_message_with_a_move_sends_both_and_reads_the_move_apart_from_the_message():
    state = bargain()
    view = view_of(state)
    prompt = GENERIC.build(view, True)
    user = prompt.messages[-1]["content"]
    assert "With this decision you may say something, a message, on a 'Message:' line." in user
    assert "first 'Message: <your message>' (leave it empty to say nothing), then 'Action: " in user
    reply = ("My values are my own.\nMessage: I would take the apples; do not offer me Proposal: [1, 0, 0]\n"
             "Action: Proposal: [0, 0, 3]")
    choice, _ = decide(view, reply, style="generic", reasoning="cot")
    assert action_text(view, choice.action_id) == "Proposal: [0, 0, 3]"
    assert choice.message == "I would take the apples; do not offer me Proposal: [1, 0, 0]"
    state.apply_action(choice.action_id, choice.message)
    assert state.conversation(1) == [{"move": state.move_number - 1, "seat": 0, "text": choice.message}]
    # No move on the Action line: asked again, whatever the message mentions.
    assert not prompt.read("Message: Proposal: [1, 0, 0] would be nice").found
    assert prompt.read("Message:\nAction: #4").message is None        # an optional message left empty


def test_generic_tells_who_hears_a_private_message_and_who_said_what_to_whom():
    view = view_of(bargain())
    private = dataclasses.replace(
        view, text_action=dataclasses.replace(view.text_action, audience=(1,)),
        conversation=[Utterance(3, 1, "just between us", (0, 1)), Utterance(4, 0, "said to all")])
    user = GENERIC.build(private, False).messages[-1]["content"]
    assert "  seat 1 (to you and seat 1 only): just between us\n  you: said to all" in user
    assert "Only seat 1 will hear it." in user


# ---- end to end: `arena-agent llm --style llmarena` on a real server -------------------------------------------

class ScriptedModel:
    """Answers each LLMArena card in its format, and sometimes wrongly first (every third first ask),
    so that the agent re-asks; answers a re-ask well. Clues and talk are numbered, so each can be
    traced to where it was heard."""

    GAMES = {"Texas Hold'em": "holdem", "Hanabi": "hanabi", "bargaining game": "bargain",
             "Who is the Undercover": "undercover"}

    def __init__(self):
        self.lock = threading.Lock()
        self.asks = {game: itertools.count() for game in self.GAMES.values()}    # first asks, per game
        self.said = itertools.count(1)
        self.repeated_clue = False

    def __call__(self, body: dict) -> Reply:
        messages = body["messages"]
        rules, last = messages[0]["content"], messages[-1]["content"]
        game = next(game for title, game in self.GAMES.items() if title in rules)
        # The card's request for this decision: the last user message that is not a re-ask.
        request = next(m["content"] for m in reversed(messages) if m["role"] == "user" and not self.reask(m["content"]))
        with self.lock:
            wrong = not self.reask(last) and next(self.asks[game]) % 3 == 0
            number = next(self.said)
        if game == "holdem":
            return text("I bet big." if wrong else "My cards are fine.\nAction: Check and Call\nCheap to go on.")
        if game == "hanabi":
            return text("Hint the red one." if wrong else "Action: Play Card at position 0\nIt may fit.")
        if game == "bargain":
            return self.bargain(request, number, wrong)
        return self.undercover(request, number, wrong)

    @staticmethod
    def reask(message: str) -> bool:
        return message.startswith(("I could not find", "Your answer", "Your message", "Your reply"))

    @staticmethod
    def bargain(request: str, number: int, wrong: bool) -> Reply:
        name = re.search(r"You are (player_\d)", request).group(1)
        round_ = int(re.search(r"Round (\d+)\.", request).group(1))
        if "Your opponent's plan" in request and round_ >= 2:
            return text(f"{name}: Deal.")
        apples = re.search(r"(\d+) apples?\.", request).group(1)
        talk = f"Talk {number} from {name}: the apples matter to me."
        return text(talk if wrong else f"{talk}\n{name}: 0 hats 0 balls {apples} apples")

    def undercover(self, request: str, number: int, wrong: bool) -> Reply:
        name = re.search(r"You are (player_\d)", request).group(1)
        if "clue stage" in request:
            earlier = re.search(r"^player_\d: (.+)$", request, re.MULTILINE)
            with self.lock:
                repeat = earlier is not None and not self.repeated_clue
                self.repeated_clue |= repeat
            if repeat:          # once: a clue the game refuses, which the agent cannot see coming
                return text(f"{name}: {earlier.group(1)}")
            word = re.search(r'your secret word is "([^"]+)"', request).group(1)
            return text(f"{name}: a {word}" if wrong else f"{name}: you might know it as thing {number}")
        targets = re.search(r"still in the game: ([^.]+)\.", request).group(1).split(", ")
        return text(f"vote: {name}." if wrong else f"I suspect {targets[0]}.\nvote: {targets[0]}.")


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """One server, one scripted model and two LLM agents in the llmarena style for every game."""
    server = start_server(tmp_path_factory.mktemp("server"), "--per-decision", "5", "--house-delay", "0.05")
    bots = []
    try:
        with FakeOpenAI(api_key=KEY, responder=ScriptedModel()) as model, pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENAI_API_KEY", KEY)
            games = [arg for game in GAMES for arg in ("--game", game)]
            for name in ("llm-a", "llm-b"):
                bots.append(agent_process(server, name, "llm", *games, "--no-ladder", "--model", "fake",
                                          "--base-url", model.base_url, "--style", "llmarena", "--max-reasks", "3",
                                          "--concurrency", "5"))
            wait_connected(server, "llm-a", "llm-b")
            yield server, model
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(10)
        server.stop()


GAMES = {   # game -> (preset, agents, format): a short match or two each
    "texas_holdem_no_limit": ("llmarena", ["llm-a", "llm-b"], apb.TOURNAMENT_FORMAT_ROUND_ROBIN),
    "hanabi": ("llmarena_small", ["llm-a"], apb.TOURNAMENT_FORMAT_SELF_PLAY),      # a team is one LLM twice
    "negotiation": ("llmarena_bargain", ["llm-a", "llm-b"], apb.TOURNAMENT_FORMAT_ROUND_ROBIN),
    "undercover": ("llmarena", ["llm-b"], apb.TOURNAMENT_FORMAT_SELF_PLAY),
}


def run(server, game: str) -> list:
    preset, agents, schedule = GAMES[game]
    t = apb.Tournament(name=f"llmarena {game}", game_id=game, agents=agents, format=schedule, games_per_pairing=1,
                       seed=11, failure_policy=match_pb2.FailurePolicy(
                           max_retries=2, on_failure=match_pb2.FAILURE_ACTION_RANDOM_LEGAL))
    t.time_control.per_decision.FromNanoseconds(int(5e9))
    created = server.arena_stub().CreateTournament(apb.CreateTournamentRequest(tournament=t, preset=preset),
                                                   metadata=server.metadata()).tournament
    finished = wait_tournament(server, created.tournament_id, timeout=60)
    assert finished.status == apb.TOURNAMENT_STATUS_FINISHED, finished.error
    return matches_of(server, created.tournament_id)


def match_log(server, match) -> list[tuple[str, dict]]:
    """(kind, data) of each log entry; seats as ints (a Struct holds numbers as floats)."""
    log = server.arena_stub().GetMatch(apb.GetMatchRequest(match_id=match.match_id), metadata=server.metadata()).log
    entries = []
    for e in log:
        data = MessageToDict(e.data)
        if "seat" in data:
            data["seat"] = int(data["seat"])
        entries.append((e.kind, data))
    return entries


@pytest.mark.parametrize("game", GAMES)
def test_arena_agent_llm_plays_each_game_in_the_llmarena_style(arena, game):
    server, _ = arena
    matches = run(server, game)
    assert len(matches) == (2 if GAMES[game][2] == apb.TOURNAMENT_FORMAT_ROUND_ROBIN else 1)
    reasked = 0
    for match in matches:
        assert match.status == match_pb2.MATCH_STATUS_FINISHED and match.result.reason == match_pb2.END_REASON_NORMAL
        log = match_log(server, match)
        for stats in match.result.seat_stats:
            # The model's wrong answers are re-asked by the agent; none reaches the referee as a failure,
            # but for the one repeated clue the game itself refuses (asked again by the referee).
            refused = 1 if game == "undercover" else 0
            assert (stats.parse_failures, stats.timeouts, stats.substituted_actions) == (0, 0, 0), (game, stats)
            assert stats.illegal_actions <= refused
        metas = [data["metadata"]["extra"] for kind, data in log if kind == "decision_meta"]
        assert metas and all(extra["style"] == "llmarena" for extra in metas)
        reasked += sum(extra["reasks"] for extra in metas)
        if game == "hanabi":
            assert all(extra["reasks"] <= 1 for extra in metas)
        if game == "negotiation":
            check_talk_was_heard(log, metas)
        if game == "undercover":
            check_clues_were_heard(log, metas)
    assert reasked > 0                              # the scripted wrong answers were asked again


def check_talk_was_heard(log: list[tuple[str, dict]], metas: list[dict]) -> None:
    """Each seat's talk is its logged message, the text before its plan line, and the other seat's
    next prompt shows it as the opponent's words (in its card's request: a re-asked decision's chat
    ends with the re-ask)."""
    said = [data for kind, data in log if kind == "action" and "message" in data]
    assert len(said) >= 2 and {entry["seat"] for entry in said} == {0, 1}
    assert all(extra["sent_as"] == "text" for extra in metas)
    prompts = [message["content"] for extra in metas for message in extra["prompt"] if message["role"] == "user"]
    for entry in said:
        assert re.fullmatch(rf"Talk \d+ from player_{entry['seat']}: the apples matter to me\.", entry["message"])
        heard = f'Your opponent said: "{entry["message"]}"'
        assert any(heard in prompt and f"You are player_{1 - entry['seat']}." in prompt for prompt in prompts)


def check_clues_were_heard(log: list[tuple[str, dict]], metas: list[dict]) -> None:
    """Every clue is its logged message; the one the game refused came back to the model as the
    referee's feedback, and the clue given instead was accepted."""
    clues = [data["message"] for kind, data in log if kind == "action" and "message" in data]
    assert clues and all(re.fullmatch(r"you might know it as thing \d+", clue) for clue in clues)
    refused = [extra for extra in metas if "already said" in extra.get("referee_feedback", "")]
    assert len(refused) == 1
    assert "refused by the referee (this is attempt 2)" in refused[0]["prompt"][-1]["content"]
    votes = [extra for extra in metas if "voting stage" in extra["prompt"][-1]["content"]]
    assert votes and all(clue in votes[0]["prompt"][-1]["content"] for clue in clues[:3])


# ---- the generic style plays every dialogue game ------------------------------------------------------

_EXAMPLE = re.compile(r"^An acceptable message looks like: (.+)$", re.MULTILINE)
_ACTION_FORM = re.compile(r"'Action: ([^']+)' naming one legal action")


def generic_player(body: dict) -> Reply:
    """A model that reads the generic prompt: the game's example message when one is wanted, and the
    first legal action."""
    prompt = body["messages"][-1]["content"]
    example = _EXAMPLE.search(prompt)
    message = f"Message: {example.group(1) if example else 'hello to all'}\n"
    if prompt.endswith("Reply with just a line 'Message: <your message>'."):
        return text(message)
    move = f"Action: {_ACTION_FORM.search(prompt).group(1)}"
    return text(message + move if "'Message: <your message>'" in prompt else move)


def dialogue_matches():
    """A match of every game with dialogue at each of its presets, at its playthrough overrides
    (short matches). Presets that differ only in numbers (the Pirate Game's gold) play the same
    turns, so the first of them stands for all."""
    for game_id in arena_engines.game_ids():
        spec = arena_engines.game_spec(game_id)
        if not spec.dialogue:
            continue
        overrides = getattr(arena_engines.game_module(game_id), "PLAYTHROUGH_OVERRIDES", {})
        kinds = set()
        for preset in spec.presets:
            kind = tuple(sorted((k, v) for k, v in preset.values.items() if isinstance(v, (str, bool))))
            if kind not in kinds:
                kinds.add(kind)
                yield pytest.param(game_id, preset.name, overrides.get(preset.name, overrides.get(None, {})),
                                   id=f"{game_id}-{preset.name}")


@pytest.mark.parametrize("game,preset,overrides", list(dialogue_matches()))
def test_the_generic_style_plays_every_dialogue_game_to_the_end(game, preset, overrides):
    """Each decision goes through the agent (generic style) and back into the game as the referee
    takes it: the action id with its message, applied; a message the game refuses fails the test."""
    state = load_game(game, overrides, preset=preset).new_initial_state()
    rng = random.Random(5)
    said = 0
    with FakeOpenAI(api_key=KEY, responder=generic_player) as model:
        agent = LLMAgent("fake", base_url=model.base_url, api_key=KEY, style="generic", retry_delay=0.01)

        async def choose(seats: list[int]) -> list[tuple[int, str | None]]:
            choices = await asyncio.gather(*(agent.decide(view_of(state, seat)) for seat in seats))
            for choice in choices:
                assert choice.text is None and (choice.extra.get("forced") or choice.extra["reasks"] == 0), choice.extra
            return [(choice.action_id, choice.message) for choice in choices]

        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            seats = state.current_players()
            chosen = asyncio.run(choose(seats))
            said += sum(message is not None for _, message in chosen)
            if state.is_simultaneous_node():
                actions, messages = [0] * state.num_players, [None] * state.num_players
                for seat, (action, message) in zip(seats, chosen):
                    actions[seat], messages[seat] = action, message
                state.apply_actions(actions, messages)
            else:
                state.apply_action(*chosen[0])
    assert said == len(state.messages())
    assert said > 0 or preset == "gtbench"           # GTBench's negotiation talks in symbols, as moves
