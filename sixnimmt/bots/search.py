"""Monte-Carlo search bots: try each option on many determinizations, play the deal forward.

:class:`MonteCarloBot` is one configurable searcher; the registry builds several from it:

* ``mcs100`` - the benchmark opponent, modelled on the best published 6 nimmt! bots: for each
  candidate card 100 rollouts with every player (itself included) playing random cards, each
  candidate on its own samples, scored relative to the others (own penalty minus the mean of the
  others'); plays the best.
* ``hard`` and ``expert`` - the project's searchers (see ``docs/bots.md`` for what each setting buys).
  They share determinizations between the candidates (common random numbers, so differences between
  candidates are not drowned in sampling noise), model every player with the noisy ``SNUG`` rollout
  policy instead of random play, and minimise their own expected penalty, which is what a deal is
  scored by.

Determinization is consistent with the view: the unseen cards (``view.unseen_cards()``) are dealt
into the other hands at their known sizes; in Tactics that is exactly the other hands' cards, in
Logic every hand is public and nothing is sampled. Row choices (too-low card, Professional tie) are
searched the same way, placing the turn's remaining cards after the choice (RULES.md E3). Logic's
draft uses :func:`~sixnimmt.bots.heuristics.draft_pick`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import HAND_SIZE, DecisionKind, PlayerView, ProTie
from ..core.fast import TIE_CHOOSE, TIE_LEFT, TIE_RIGHT
from .base import Bot
from .heuristics import draft_pick
from .rollout import RANDOM, SNUG, rollout_cards, rollout_rows

_TIE_MODES = {ProTie.CHOOSE: TIE_CHOOSE, ProTie.LEFT: TIE_LEFT, ProTie.RIGHT: TIE_RIGHT}


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """A searcher's budget and character."""

    samples: int  # rollouts per option (per candidate card or row)
    policy: int = RANDOM  # rollout policy for every player: RANDOM or SNUG
    noise: float = 1.0  # SNUG only: how far the policy strays from its own argmin (bullheads)
    relative: bool = False  # score own penalty minus the others' mean (else own penalty)
    shared: bool = True  # every option on the same determinizations (common random numbers)


@dataclass(slots=True)
class _Arrays:
    rows: np.ndarray
    lens: np.ndarray
    hands: np.ndarray
    hlen: np.ndarray
    known: np.ndarray
    pool: np.ndarray


def _arrays(view: PlayerView) -> _Arrays:
    """The view as the compiled kernels' arrays: rows, this seat's (or every public) hand, and the
    pool of unseen cards to deal into the hidden hands."""
    assert view.seat is not None
    players = view.players
    rows = np.zeros((4, 6), dtype=np.int64)
    lens = np.zeros(4, dtype=np.int64)
    for r, row in enumerate(view.rows):
        rows[r, : len(row)] = row
        lens[r] = len(row)
    hands = np.zeros((players, HAND_SIZE), dtype=np.int64)
    hlen = np.array(view.hand_sizes, dtype=np.int64)
    known = np.zeros(players, dtype=np.bool_)
    if view.hands is not None:
        for s, hand in enumerate(view.hands):
            hands[s, : len(hand)] = hand
        known[:] = True
    hands[view.seat, : len(view.hand)] = view.hand
    known[view.seat] = True
    pool = np.array(view.unseen_cards() if view.hands is None else (), dtype=np.int64)
    assert len(pool) >= int(hlen[~known].sum())
    return _Arrays(rows, lens, hands, hlen, known, pool)


class MonteCarloBot(Bot):
    """Flat Monte-Carlo search over the options of every card and row decision."""

    name = "mcs"

    def __init__(self, seed: int | None = None, config: SearchConfig | None = None) -> None:
        super().__init__(seed)
        self.config = config or SearchConfig(samples=100)

    def simulate(self, view: PlayerView) -> tuple[tuple[int, ...], np.ndarray]:
        """The options and their rollout penalties, ``float64[options, samples, players]``."""
        decision = view.decision
        assert decision is not None and view.seat is not None
        cfg = self.config
        a = _arrays(view)
        seed = self.rng.getrandbits(31)
        professional = view.rules.professional
        tie_mode = _TIE_MODES[view.rules.pro_tie]
        options = tuple(decision.options)
        if decision.kind is DecisionKind.CARD:
            out = rollout_cards(
                a.rows, a.lens, a.hands, a.hlen, a.known, a.pool, view.seat,
                np.array(options, dtype=np.int64), cfg.samples, cfg.policy, professional,
                tie_mode, cfg.noise, cfg.shared, seed,
            )  # fmt: skip
        else:
            assert view.revealed is not None and decision.card is not None
            queue = view.unplaced[1:]  # unplaced[0] is the card being settled
            out = rollout_rows(
                a.rows, a.lens, a.hands, a.hlen, a.known, a.pool, view.seat, decision.card,
                np.array(options, dtype=np.int64), decision.reason == "too-low",
                np.array(queue, dtype=np.int64),
                np.array([view.revealed.index(c) for c in queue], dtype=np.int64),
                cfg.samples, cfg.policy, professional, tie_mode, cfg.noise, seed,
            )  # fmt: skip
        return options, out

    def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        """The best option and, per option, this seat's expected penalty for the whole deal."""
        decision = view.decision
        assert decision is not None and view.seat is not None
        if decision.kind is DecisionKind.DRAFT:
            return draft_pick(view), {}
        options, out = self.simulate(view)
        me = view.seat
        own = out[:, :, me].mean(axis=1)
        if self.config.relative:
            others = (out.sum(axis=2) - out[:, :, me]) / max(1, view.players - 1)
            objective = own - others.mean(axis=1)
        else:
            objective = own
        best = options[int(np.argmin(objective))]
        already = view.penalties[me]
        return best, {o: float(already + own[i]) for i, o in enumerate(options)}

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None
        if len(decision.options) == 1:
            return decision.options[0]
        return self.explain(view)[0]
