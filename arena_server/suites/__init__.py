"""Suites: presets that reproduce one paper's evaluation protocol. A suite is data — games with
their parameters, opponents, match counts, seat rotation and failure policy — turned into
ordinary tournaments for the agent under evaluation."""

from .base import Suite, SuiteGame
from .gamabench import GAMABENCH
from .gamebench import GAMEBENCH
from .gtbench import GTBENCH
from .llmarena import LLMARENA
from .magic import MAGIC

SUITES: dict[str, Suite] = {s.name: s for s in (GTBENCH, GAMABENCH, LLMARENA, MAGIC, GAMEBENCH)}

__all__ = ["SUITES", "Suite", "SuiteGame"]
