"""The ``learned`` bot: a policy trained with the RL environment, playing from a seat's view.

It encodes its :class:`~sixnimmt.core.PlayerView` exactly as the environments do, and picks the
legal action with the highest score. It plays greedily (the same view gives the same move), so
``self.rng`` is unused.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..bots.base import Bot
from ..core import PlayerView
from .encoding import action_mask, action_to_move, encode
from .policy import DEFAULT_POLICY, MlpPolicy


@lru_cache(maxsize=4)
def _shared_policy(path: str) -> MlpPolicy:
    # Arena runs build many bots; they share one read-only copy of the weights.
    return MlpPolicy.load(path)


def learned_policy(policy: str | Path) -> MlpPolicy:
    """The policy a spec names: ``shipped`` (the default) or a policy file, shared between bots."""
    return _shared_policy(str(DEFAULT_POLICY if str(policy) == "shipped" else policy))


class LearnedBot(Bot):
    """Plays the trained policy (by default the shipped one, trained on standard games of 2, 3, 4, 6
    and 10 players, with a network of its own for 10 players: docs/rl.md).

    The observation is the same at every table size and in every variant, so it plays them all,
    though not as well where it was not trained.
    """

    name = "learned"

    def __init__(self, seed: int | None = None, policy: str | Path = DEFAULT_POLICY) -> None:
        super().__init__(seed)
        self.policy = learned_policy(policy)

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None
        action = self.policy.act(encode(view), action_mask(decision))
        return action_to_move(action, decision)
