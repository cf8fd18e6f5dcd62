"""Learning inside search: the learned policy offered to the searchers as a prior.

:func:`searcher_with_prior` (``expert-learned`` in the registry) is a Monte-Carlo searcher that
searches only the options the policy ranks best, with the rollout budget of all of them: the
rollouts go to the options the network thinks worth it. Measured against ``expert`` in docs/bots.md
("Learning inside search"). The ``learned`` bot itself stays in :mod:`sixnimmt.rl.bot`, which needs
numpy alone; this module loads the compiled search kernels.
"""

from __future__ import annotations

from ..bots.search import MonteCarloBot, Prior, searcher
from ..core import PlayerView
from .bot import learned_policy
from .encoding import encode, move_to_action
from .policy import MlpPolicy


def policy_prior(policy: MlpPolicy) -> Prior:
    """The options of a view's decision ranked by the policy's scores, best first."""

    def rank(view: PlayerView, options: tuple[int, ...]) -> tuple[int, ...]:
        decision = view.decision
        assert decision is not None
        scores = policy.logits(encode(view))
        return tuple(sorted(options, key=lambda option: -float(scores[move_to_action(option, decision)])))

    return rank


def searcher_with_prior(seed: int | None, *, policy: str = "shipped", keep: int = 4, samples: int = 100,
                        rollout: str = "random", noise: float = 1.0, relative: bool = False, shared: bool = True,
                        halving: bool = True) -> MonteCarloBot:
    """A searcher (``expert``'s settings by default) searching only ``policy``'s best ``keep``
    options of each card or row decision, with the rollout budget of all of them."""
    bot = searcher(seed, samples=samples, rollout=rollout, noise=noise, relative=relative, shared=shared,
                   halving=halving)
    bot.prior = policy_prior(learned_policy(policy))
    bot.keep = keep
    return bot
