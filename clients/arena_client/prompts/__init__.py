"""Prompt styles for LLM agents, one module per style, built from the structured observation.

  generic    every game: the canonical text view, the public history and the numbered legal actions
  gtbench    GTBench: system + head + observation + reasoning prompt, answers "Action: <C1R1>"
  llmarena   LLMArena: rules + observation + action prompt, answers "X: (1, 3)", "player_0: $1.08"
  gamabench  GAMA-Bench: rules, per-round history as a chat, JSON answers {"chosen_number": "34"}
  gamebench  GameBench: rules summary with expandable sections (Explain(Hk)), observation, predefined
             and open-ended actions, JSON answers {"action": "<id>", "openended_response": ...}

A suite's style covers the games its paper played; for other games (or phases its paper never had)
it hands the decision to the generic style.
"""

from __future__ import annotations

from . import gamabench, gamebench, generic, gtbench, llmarena
from .base import Conversation, Prompt, Style

STYLES: dict[str, Style] = {style.name: style for style in
                            (generic.STYLE, gtbench.STYLE, llmarena.STYLE, gamabench.STYLE, gamebench.STYLE)}
AUTO = "auto"
# Styles that "auto" picks only when the preset names their suite: GameBench's (long rules, JSON mode)
# is for its presets; without a preset its games keep the generic prompt.
BY_PRESET_ONLY = {"gamebench"}


def style_for(requested: str, game_id: str, preset: str = "") -> Style:
    """The style to use: the requested one, or with "auto" the suite named by the preset (its
    prefix, e.g. "gtbench_blind" -> gtbench, "gamebench_code" -> gamebench) when that style covers
    the game, else the only style that covers the game (BY_PRESET_ONLY aside), else the generic style."""
    if requested != AUTO:
        try:
            return STYLES[requested]
        except KeyError:
            raise ValueError(f"unknown prompt style {requested!r} (known: {', '.join(STYLES)}, {AUTO})") from None
    if preset:
        suite = STYLES.get(preset.split("_")[0])
        return suite if suite is not None and suite.covers(game_id) else generic.STYLE
    covering = [style for style in STYLES.values() if style.covers(game_id) and style.name not in BY_PRESET_ONLY]
    return covering[0] if len(covering) == 1 else generic.STYLE


__all__ = ["AUTO", "Conversation", "Prompt", "STYLES", "Style", "style_for"]
