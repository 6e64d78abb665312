"""Playthroughs: one seeded match of a game and preset, rendered as readable text (an OpenSpiel habit).

Every step shows who acts, each acting seat's observation (text and data), its legal actions as
id:"text", and the actions a seeded uniform-random policy took (chance nodes: the outcomes with
their probabilities and the one drawn); on a dialogue turn, the seat's message spec and the message
it said (the game's random_message); the end shows the returns, the summary, the details, the
public history, the whole conversation and every seat's final observation. Golden files under tests/playthroughs/ are compared
with a fresh rendering by tests/engines/test_playthroughs.py, so a change in rules, action texts or
observations shows up as a diff. After an intended change:

    python -m arena_engines.playthrough --regenerate            # rewrite every golden file
    python -m arena_engines.playthrough --regenerate nim pig    # only these games' files
    python -m arena_engines.playthrough connect_four            # print one playthrough
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from . import game_ids, game_module, game_spec, load_game
from .core import CHANCE

# Where the golden files live when the package runs from the source tree (editable install).
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "tests" / "playthroughs"
SEED = 1
# Longer legal-action lists are shown by their first and last few entries.
MAX_LISTED = 12
SHOWN_AT_EACH_END = 3


def configurations() -> list[tuple[str, str]]:
    """(game_id, preset) for every game and every preset it has."""
    return [(g, p.name) for g in game_ids() for p in game_spec(g).presets]


def overrides_for(game_id: str, preset: str) -> dict:
    """Parameter overrides that keep a playthrough short enough to read. A game module declares
    them as PLAYTHROUGH_OVERRIDES = {preset: {...}}; the key None applies to every other preset."""
    declared = getattr(game_module(game_id), "PLAYTHROUGH_OVERRIDES", {})
    return dict(declared.get(preset, declared.get(None, {})))


def golden_path(directory: Path, game_id: str, preset: str) -> Path:
    return Path(directory) / f"{game_id}__{preset}.txt"


def _data(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _legal(state, seat: int) -> str:
    actions = state.legal_actions(seat)
    shown = [f"{a}:{json.dumps(state.action_to_string(seat, a))}" for a in actions]
    if len(shown) > MAX_LISTED:
        shown = shown[:SHOWN_AT_EACH_END] + ["..."] + shown[len(shown) - SHOWN_AT_EACH_END:]
    return f"{' '.join(shown)} ({len(actions)} actions)"


def render(game_id: str, preset: str, seed: int = SEED) -> str:
    """The playthrough text of one match of `game_id` under `preset` (with its overrides applied)."""
    overrides = overrides_for(game_id, preset)
    game = load_game(game_id, overrides, preset=preset)
    state = game.new_initial_state()
    rng = random.Random(seed)
    out = [
        f"# Playthrough of {game_id}, preset {preset}",
        f"# parameter overrides: {_data(overrides)}",
        f"# parameters: {_data(game.parameters)}",
        f"# players: {game.num_players}; policy: uniform random legal action, chance outcomes by their "
        f"probabilities, random.Random({seed})",
        "# regenerate: python -m arena_engines.playthrough --regenerate",
    ]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
            out += ["", f"## Move {state.move_number}: chance",
                    "outcomes: " + " ".join(f"{a}:{json.dumps(state.action_to_string(CHANCE, a))}@{p:.6g}"
                                            for a, p in outcomes),
                    f"drawn: {action}:{json.dumps(state.action_to_string(CHANCE, action))}"]
            state.apply_action(action)
            continue
        seats = state.current_players()
        simultaneous = state.is_simultaneous_node()
        out += ["", f"## Move {state.move_number}: " + (f"seats {seats} act together" if simultaneous
                                                       else f"seat {seats[0]} to act")]
        chosen, said = [], []
        for seat in seats:
            out += [f"### Seat {seat} observes", state.observation_string(seat),
                    f"data: {_data(state.observation_dict(seat))}", f"legal: {_legal(state, seat)}"]
            spec = state.text_action_spec(seat)
            if spec and spec.get("message"):
                out.append(f"message: {_data(spec)}")
            chosen.append(rng.choice(state.legal_actions(seat)))
            said.append(state.random_message(seat, rng) if spec and spec.get("message") else None)
        out.append("played: " + ", ".join(
            f"seat {s} {a}:{json.dumps(state.action_to_string(s, a))}" + (f" saying {json.dumps(m)}" if m is not None else "")
            for s, a, m in zip(seats, chosen, said)))
        if simultaneous:
            joint, messages = [0] * game.num_players, [None] * game.num_players
            for seat, action, message in zip(seats, chosen, said):
                joint[seat], messages[seat] = action, message
            state.apply_actions(joint, messages if any(m is not None for m in messages) else None)
        else:
            state.apply_action(chosen[0], said[0])
    out += ["", f"## End after {state.move_number} moves",
            f"returns: {_data(state.returns())}",
            f"summary: {state.result_summary()}",
            f"details: {_data(state.result_details())}",
            "public history:"]
    out += [f"  seat {seat} action {action}: {text}" for seat, action, text in state.public_history()]
    if state.messages():
        out.append("conversation:")
        out += [f"  move {m['move']} seat {m['seat']}" + (f" to {m['to']}" if m["to"] is not None else "")
                + f": {json.dumps(m['text'], ensure_ascii=False)}" for m in state.messages()]
    for seat in range(game.num_players):
        out += [f"### Seat {seat} observes at the end", state.observation_string(seat)]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help="games to print, or to regenerate (default: all)")
    parser.add_argument("--preset", help="preset of the printed game (default: its first preset)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the golden files")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="golden file directory")
    args = parser.parse_args(argv)
    if args.regenerate:
        args.dir.mkdir(parents=True, exist_ok=True)
        for game_id, preset in configurations():
            if args.games and game_id not in args.games:
                continue
            path = golden_path(args.dir, game_id, preset)
            path.write_text(render(game_id, preset))
            print(f"wrote {path}")
        return 0
    if len(args.games) == 1:
        game_id = args.games[0]
        sys.stdout.write(render(game_id, args.preset or game_spec(game_id).presets[0].name))
        return 0
    parser.print_usage()
    return 2


if __name__ == "__main__":
    sys.exit(main())
