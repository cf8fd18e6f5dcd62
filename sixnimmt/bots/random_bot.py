"""The baseline: a uniformly random legal answer to every decision."""

from __future__ import annotations

from ..core import PlayerView
from .base import Bot


class RandomBot(Bot):
    name = "random"

    def decide(self, view: PlayerView) -> int:
        assert view.decision is not None
        return self.rng.choice(view.decision.options)
