"""Ready-made agents."""

from .random_agent import RandomAgent

__all__ = ["RandomAgent"]
