"""A complete agent: a random legal move at every decision. Run it with your agent's key:
ARENA_API_KEY=<key> python first_agent.py   (ARENA_SERVER=host:port, default localhost:50051)"""
import os
import random

from arena_client import Agent, Choice, run_agent


class FirstAgent(Agent):
    def decide(self, request):  # the seat's view: request.observation_text, request.legal_actions, ...
        action = random.choice(request.legal_actions)
        return Choice(action_id=action.action_id)


server = os.environ.get("ARENA_SERVER", "localhost:50051")
for result in run_agent(FirstAgent(), server, os.environ["ARENA_API_KEY"], ["tic_tac_toe"], max_matches=3):
    print(result.game_id, "against", ", ".join(result.opponents), "->", result.summary)
