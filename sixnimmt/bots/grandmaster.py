"""``grandmaster``: the strongest searcher, racing the options on shared determinizations.

It is :class:`~sixnimmt.bots.search.MonteCarloBot` (the same determinizations consistent with the
view, the same compiled rollouts, the same handling of every variant) with three changes, each
measured in ``docs/bots.md``:

* **Racing instead of a fixed split.** The options are played out in rounds of ``batch`` rollouts
  each, every option on the same determinizations. After each round an option is dropped once its
  mean is worse than the best option's by more than ``z`` standard errors of their paired difference
  (paired by determinization, so the noise of the deal cancels). The budget goes where the decision
  is close, and a clear decision ends early.
* **Its own future turns are played well.** In the rollouts this seat plays by card counting, not
  at random, so a card is valued by what the rest of the hand can still do after it: ``COUNT``
  (which peeks at the sampled hands) at two players and from five, ``medium``'s counting at three
  and four, each the one that measured better at that size (:data:`OWN_POLICY_BY_PLAYERS`); the
  other seats play as ``others_policy`` says.
* **Many guesses of the hidden hands.** Its opponent models infer ``guesses`` deals of the hidden
  cards per decision (256, not the models' 48), and the racing's rounds walk through all of them, so
  its thousand rollouts per option see many different deals, not the same few again.
* **Its own penalty.** A deal is scored by each player's own penalty. The duel objective (own
  penalty minus ``rival`` times the others' mean) is an option; with two players, where it looked
  right, it measured worse (docs/bots.md).

Two ways to bound the thinking: a rollout budget (``samples`` per option, the default: a seeded bot
is exactly repeatable) or a time limit (``ms`` per decision, measured on an injectable clock; the
next round is cut to what the pace of the rounds so far says fits in the time left).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..core import PlayerView
from .models import MODELLED, PARAMETERS, POLICIES
from .rollout import COUNT, MEDIUM
from .search import MonteCarloBot, SearchConfig

Clock = Callable[[], float]
#: The default budget: rollouts per option (docs/bots.md: its strength and its time per decision).
SAMPLES = 1000
#: Guesses of the hidden hands per decision (docs/bots.md: measured against the models' 48).
GUESSES = 256


@dataclass(frozen=True, slots=True)
class GrandmasterConfig:
    """A grandmaster's budget and character."""

    #: Budget mode: at most ``samples`` rollouts per option on average (the budget is samples x options).
    samples: int = SAMPLES
    #: Time mode: think at most this many milliseconds per decision (then ``samples`` is ignored).
    ms: float | None = None
    #: This seat's future turns in the rollouts (None: by table size, :data:`OWN_POLICY_BY_PLAYERS`).
    own_policy: int | None = None
    others_policy: int = MODELLED  # the other seats' turns in the rollouts: each by its model
    noise: float = 0.5  # COUNT/SNUG: uniform noise added to each card's estimate (bullheads)
    #: Objective: own penalty minus ``rival`` x the others' mean penalty (1: the duel objective).
    rival: float = 0.0
    #: At most this many rollouts per decision whatever the number of options (Nifty's first card
    #: searches up to 91 pairs of cards: without it that decision could take over a second).
    cap: int = 40_000
    batch: int = 32  # rollouts per option and round (the first round: an eighth of it)
    z: float = 3.0  # racing: drop an option worse than the best by this many standard errors, once
    # every option has had ``batch`` rollouts
    #: Guesses of the hidden hands per decision for the opponent models (None: the models' own
    #: number; in time mode at most one per millisecond of ``ms``, as the inference is not cut by
    #: the clock), and whether the racing's rounds walk through them (see :class:`SearchConfig`).
    guesses: int | None = GUESSES
    walk: bool = True

    def inferred_guesses(self) -> int | None:
        """The guesses the opponent models infer per decision, time mode's bound applied."""
        if self.guesses is None or self.ms is None:
            return self.guesses
        return min(self.guesses, max(PARAMETERS.deals, int(self.ms)))


class GrandmasterBot(MonteCarloBot):
    """Monte-Carlo search with racing and counted self-play in the rollouts."""

    name = "grandmaster"

    def __init__(
        self, seed: int | None = None, config: GrandmasterConfig | None = None, clock: Clock = time.perf_counter
    ) -> None:
        self.settings = config or GrandmasterConfig()
        s = self.settings
        super().__init__(
            seed,
            SearchConfig(
                samples=s.samples, policy=s.others_policy, noise=s.noise, guesses=s.inferred_guesses(), walk=s.walk
            ),
        )
        self.clock = clock

    def policies(self, view: PlayerView) -> np.ndarray:
        assert view.seat is not None
        policies = np.full(view.players, self.settings.others_policy, dtype=np.int64)
        policies[view.seat] = own_policy(self.settings.own_policy, view.players)
        return policies

    def objective(self, out: np.ndarray, me: int, players: int) -> np.ndarray:
        """Per rollout: own penalty less ``rival`` times the others' mean (of two players, the other's)."""
        rival = self.settings.rival
        own: np.ndarray = out[:, :, me]
        if rival == 0.0:
            return own
        others: np.ndarray = (out.sum(axis=2) - own) / max(1, players - 1)
        return own - rival * others

    def _search(
        self,
        view: PlayerView,
        options: tuple[int, ...],
        budget: int,
        simulate: Callable[[tuple[int, ...], int], np.ndarray],
    ) -> tuple[int, dict[int, float]]:
        """Race ``options`` in rounds of ``batch`` rollouts each until one is left or the budget (or
        the time) is spent; the best option and, per option, this seat's expected penalty for the deal."""
        assert view.seat is not None
        me, players = view.seat, view.players
        s = self.settings
        options = tuple(dict.fromkeys(options))  # Double: two copies of a card are one option
        budget = min(budget, max(s.cap, len(options)))
        start = self.clock()
        deadline = None if s.ms is None else start + s.ms / 1000.0
        # Per option (a row, in ``options``' order): its rollouts' objective values, in one array
        # that grows by doubling (the racing's statistics are then a few vectorised reductions per
        # round, not a pass per option), and its own penalties' sum.
        history = np.empty((len(options), 4 * s.batch))
        own = np.zeros(len(options))
        ran = np.zeros(len(options), dtype=np.int64)  # rollouts per option (until it was dropped)
        alive = np.arange(len(options))  # the rows still in the race, all with ``done`` rollouts
        done = 0
        spent = 0
        per_rollout = 0.0  # seconds per rollout, from the rounds so far (time mode)
        while True:
            # A small first round: it measures the pace before a full round is risked on the clock.
            batch = s.batch if spent else max(2, s.batch // 8)
            if deadline is None:
                batch = min(batch, (budget - spent) // len(alive))
                if batch < 1:
                    break
            elif spent:
                # As many rollouts as the pace so far says fit in the time left (at most a round's).
                left = deadline - self.clock()
                batch = min(batch, int(left / (per_rollout * len(alive)))) if per_rollout > 0 else batch
                if batch < 1:
                    break
            round_start = self.clock()
            out = simulate(tuple(options[i] for i in alive), batch)
            spent += batch * len(alive)
            per_rollout = max(per_rollout, (self.clock() - round_start) / (batch * len(alive)))
            if done + batch > history.shape[1]:
                history = np.concatenate([history, np.empty_like(history)], axis=1)
            history[alive, done : done + batch] = self.objective(out, me, players)
            own[alive] += out[:, :, me].sum(axis=1)
            ran[alive] += batch
            done += batch
            alive = self._race(alive, history[alive, :done], options)
            if len(alive) == 1:
                break
        means = history[alive, :done].mean(axis=1)
        best = min(range(len(alive)), key=lambda i: (float(means[i]), options[alive[i]]))
        already = view.penalties[me]
        return options[alive[best]], {o: already + float(own[i]) / int(ran[i]) for i, o in enumerate(options)}

    def _race(self, alive: np.ndarray, values: np.ndarray, options: tuple[int, ...]) -> np.ndarray:
        """The options still in the race (rows of ``values``, one per alive option, every one on the
        same determinizations): those not worse than the leader by ``z`` standard errors of the
        paired difference. Ties for the lead go to the lower option."""
        means = values.mean(axis=1)
        leader = min(range(len(alive)), key=lambda i: (float(means[i]), options[alive[i]]))
        n = values.shape[1]
        if n < self.settings.batch or math.isinf(self.settings.z):  # z = infinity: nobody is dropped
            return alive
        diff = values - values[leader]
        mean = diff.mean(axis=1)
        spread = diff.std(axis=1, ddof=1) / math.sqrt(n)
        kept: np.ndarray = alive[(mean <= self.settings.z * spread) | (np.arange(len(alive)) == leader)]
        return kept


#: The grandmaster's own future turns by table size (the nearest size listed applies, a tie to the
#: larger): ``count``, which plays against the sampled hands, measured better at two players (a
#: bullhead a deal on two seeds) and leaned better at six and ten; ``medium``'s counting, which does
#: not peek at them, leaned better at four (docs/bots.md has the runs).
OWN_POLICY_BY_PLAYERS: Mapping[int, int] = MappingProxyType({2: COUNT, 4: MEDIUM, 6: COUNT})


def own_policy(chosen: int | None, players: int) -> int:
    """The rollout policy of the grandmaster's own future turns: ``chosen``, or by table size."""
    if chosen is not None:
        return chosen
    nearest = min(OWN_POLICY_BY_PLAYERS, key=lambda size: (abs(size - players), -size))
    return OWN_POLICY_BY_PLAYERS[nearest]


#: The objective by name: own penalty, or own penalty minus the others' mean (the duel objective).
OBJECTIVES = {"own": 0.0, "duel": 1.0}


def grandmaster(
    seed: int | None,
    *,
    samples: int = SAMPLES,
    ms: float = 0.0,
    own: str = "auto",
    others: str = "model",
    noise: float = 0.5,
    objective: str = "own",
    z: float = 3.0,
    guesses: int = GUESSES,
    walk: bool = True,
) -> GrandmasterBot:
    """The registry's factory: a grandmaster from a spec's options (``ms`` 0: the rollout budget)."""
    config = GrandmasterConfig(
        samples=samples, ms=ms or None, own_policy=None if own == "auto" else POLICIES[own], others_policy=POLICIES[others],
        noise=noise, rival=OBJECTIVES[objective], z=z, guesses=guesses or None, walk=walk,
    )  # fmt: skip
    return GrandmasterBot(seed, config)
