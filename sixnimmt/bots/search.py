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

Variants with one card per player and turn (standard, Tactics, Logic, Professional, Tournament, Open,
Double) are searched: in Open the cards already played face up this turn are fixed in every
rollout, in Double the rollouts place by Double's rules (stacked twins, shared pickups). In Nifty
the pair of cards is searched (every pair from the hand). Hand is answered by the ``cautious``
heuristic, and so is Nifty's order decision (played out exactly there).

Determinization is consistent with the view: the unseen cards (``view.unseen_cards()``) are dealt
into the other hands at their known sizes; in Tactics that is exactly the other hands' cards, in
Logic every hand is public and nothing is sampled. Row choices (too-low card, Professional tie) are
searched the same way, placing the turn's remaining cards after the choice (docs/rules.md E3). Logic's
draft uses :func:`~sixnimmt.bots.heuristics.draft_pick`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..core import HAND_SIZE, DecisionKind, PlayerView, ProTie, Variant
from ..core.fast import DOUBLE_ROW_WIDTH, TIE_CHOOSE, TIE_LEFT, TIE_RIGHT
from .base import Bot
from .heuristics import SIMULTANEOUS_SINGLE, CautiousBot, draft_pick
from .models import (
    MODELLED,
    PARAMETERS,
    POLICIES,
    Inference,
    TurnMemory,
    infer,
    likeliest,
)
from .rollout import (
    CAUTIOUS,
    MEDIUM,
    RANDOM,
    SEARCHLIKE,
    rollout_cards,
    rollout_models,
    rollout_nifty,
    rollout_rows,
)

_SEARCHED = frozenset({DecisionKind.CARD, DecisionKind.ROW})
#: Variants the rollouts model exactly: one card per player and turn, placed in ascending order by
#: the standard, Professional or Double rules (Open's face-up cards are conditioned on).
SEARCHED_VARIANTS = SIMULTANEOUS_SINGLE | {Variant.OPEN, Variant.DOUBLE}
#: Variants whose card decisions the modelled rollouts (opponent models, inferred deals) search:
#: one card a turn, placed by the standard or Professional rules, no card face up before the
#: reveal, no twins. The others play each seat by its likeliest model.
MODELLED_VARIANTS = frozenset({Variant.STANDARD, Variant.TACTICS, Variant.LOGIC, Variant.PROFESSIONAL, Variant.TOURNAMENT})
_TIE_MODES = {ProTie.CHOOSE: TIE_CHOOSE, ProTie.LEFT: TIE_LEFT, ProTie.RIGHT: TIE_RIGHT}
#: ``prior(view, options) -> options``: the options ranked best first by something cheaper than the
#: search (a learned policy: ``sixnimmt.rl.prior.searcher_with_prior``), for pruning before the rollouts.
Prior = Callable[[PlayerView, tuple[int, ...]], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """A searcher's budget and character."""

    samples: int  # rollouts per option (per candidate card or row): the budget is samples x options
    #: Rollout policy of the other players: RANDOM, SNUG, or MODELLED (each by its inferred model,
    #: on hidden hands inferred from the plays: :mod:`~sixnimmt.bots.models`).
    policy: int = RANDOM
    #: Rollout policy of this seat's own future turns (None: ``policy``, or MEDIUM when that is MODELLED).
    own: int | None = None
    noise: float = 1.0  # SNUG only: how far the policy strays from its own argmin (bullheads)
    relative: bool = False  # score own penalty minus the others' mean (else own penalty)
    shared: bool = True  # every option on the same determinizations (common random numbers)
    #: Successive halving: the share of the budget spent in each round. After each round only the
    #: better half of the options (at least two) goes on, so the rollouts go where the decision is
    #: close. ``(1.0,)``: one round, every option gets ``samples``.
    split: tuple[float, ...] = (1.0,)
    #: Guesses of the hidden hands the opponent models infer per decision (None: the models' own
    #: number, ``PARAMETERS.deals``). The modelled rollouts deal from these guesses only, so a large
    #: budget needs many of them to see many different deals.
    guesses: int | None = None
    #: Each batch of modelled rollouts at a decision starts at the guess after the previous batch's
    #: last (else every batch starts at the first guess, and batches smaller than the number of
    #: guesses never reach the last ones).
    walk: bool = False


@dataclass(slots=True)
class _Arrays:
    rows: np.ndarray
    lens: np.ndarray
    hands: np.ndarray
    hlen: np.ndarray
    known: np.ndarray
    pool: np.ndarray
    fixed: np.ndarray  # Open: the card each seat has already played face up this turn, else 0


def _arrays(view: PlayerView) -> _Arrays:
    """The view as the compiled kernels' arrays: rows, this seat's (or every public) hand, and the
    pool of unseen cards to deal into the hidden hands."""
    assert view.seat is not None
    players = view.players
    double = view.rules.variant is Variant.DOUBLE
    # The rules' rows, each with room for its append before a take (Double: for stacked twins too).
    width = DOUBLE_ROW_WIDTH if double else view.rules.row_limit + 1
    rows = np.zeros((view.rules.row_count, width), dtype=np.int64)
    lens = np.zeros(view.rules.row_count, dtype=np.int64)
    for r, row in enumerate(view.rows):
        rows[r, : len(row)] = row
        lens[r] = len(row)
    hands = np.zeros((players, max(HAND_SIZE, view.rules.hand_size)), dtype=np.int64)
    hlen = np.array(view.hand_sizes, dtype=np.int64)
    known = np.zeros(players, dtype=np.bool_)
    if view.hands is not None:
        for s, hand in enumerate(view.hands):
            hands[s, : len(hand)] = hand
        known[:] = True
    hands[view.seat, : len(view.hand)] = view.hand
    known[view.seat] = True
    fixed = np.zeros(players, dtype=np.int64)
    if view.face_up is not None and view.revealed is None:
        # Open: cards already played face up this turn are known; their owners hold one card less
        # besides (the view's hand sizes still count the face-up card until the reveal).
        for s, card in enumerate(view.face_up):
            if card is not None and s != view.seat:
                fixed[s] = card
                hlen[s] -= 1
    pool = np.array(view.unseen_cards() if view.hands is None else (), dtype=np.int64)
    assert len(pool) >= int(hlen[~known].sum())
    return _Arrays(rows, lens, hands, hlen, known, pool, fixed)


class MonteCarloBot(Bot):
    """Flat Monte-Carlo search over the options of every card and row decision."""

    name = "mcs"

    def __init__(self, seed: int | None = None, config: SearchConfig | None = None, prior: Prior | None = None,
                 keep: int = 0) -> None:
        super().__init__(seed)
        self.config = config or SearchConfig(samples=100)
        #: Pruning by a prior (off unless both are given): of a card or row decision's options only
        #: the prior's best ``keep`` are searched, with the whole decision's rollout budget.
        self.prior = prior
        self.keep = keep
        # Variants the rollouts do not model (Nifty, Hand) get the cautious heuristic.
        self._fallback = CautiousBot(self.rng.getrandbits(31))
        #: Rollouts (simulated deal completions) run so far, for ``sixnimmt bench bots``.
        self.rollouts = 0
        #: Nifty: ((deal, turn, seat, hand), planned pair, card scores) from this turn's first decision.
        self._nifty_plan: tuple[tuple[object, ...], tuple[int, ...], dict[int, float]] | None = None
        #: The rows of this deal's turns (what the opponent models are fitted on), and the last
        #: decision's inference with the decision it was made for.
        self.memory = TurnMemory()
        self._inference: tuple[tuple[object, ...], Inference] | None = None
        #: The guess the next batch of modelled rollouts starts at (``config.walk``).
        self._next_guess = 0

    def simulate(
        self, view: PlayerView, options: tuple[int, ...], samples: int, a: _Arrays | None = None
    ) -> np.ndarray:
        """Rollout penalties for ``options``, ``float64[options, samples, players]``."""
        decision = view.decision
        assert decision is not None and view.seat is not None
        cfg = self.config
        a = a or _arrays(view)
        seed = self.rng.getrandbits(31)
        professional = view.rules.professional
        double = view.rules.variant is Variant.DOUBLE
        tie_mode = _TIE_MODES[view.rules.pro_tie]
        self.rollouts += len(options) * samples
        policies = self.policies(view)
        if MODELLED in policies:
            own = int(policies[view.seat])
            if decision.kind is DecisionKind.CARD and view.rules.variant in MODELLED_VARIANTS and not a.fixed.any():
                inference = self.inference(view, a)
                offset = self._next_guess if cfg.walk else 0
                self._next_guess = (offset + samples) % len(inference.perms)
                return rollout_models(
                    a.rows, a.lens, a.hands, a.hlen, a.known, inference.perms, inference.mixture,
                    np.array(PARAMETERS.models, dtype=np.int64), view.seat, own,
                    np.array(options, dtype=np.int64), samples, professional, tie_mode, cfg.noise, seed, offset,
                )  # fmt: skip
            policies = self._likeliest(view, own)
        if double:  # the compiled medium counts distinct cards: Double's twins get the older estimate
            policies[(policies == MEDIUM) | (policies == SEARCHLIKE)] = CAUTIOUS
        if decision.kind is DecisionKind.CARD:
            return rollout_cards(
                a.rows, a.lens, a.hands, a.hlen, a.known, a.pool, view.seat,
                np.array(options, dtype=np.int64), samples, policies, professional,
                tie_mode, cfg.noise, cfg.shared, seed, a.fixed, double,
            )  # fmt: skip
        assert view.revealed is not None and decision.card is not None
        queue = view.unplaced[1:]  # unplaced[0] is the card being settled
        return rollout_rows(
            a.rows, a.lens, a.hands, a.hlen, a.known, a.pool, view.seat, decision.card,
            np.array(options, dtype=np.int64), decision.reason == "too-low",
            np.array(queue, dtype=np.int64),
            np.array([view.revealed.index(c) for c in queue], dtype=np.int64),
            samples, policies, professional, tie_mode, cfg.noise, seed, double,
        )  # fmt: skip

    def policies(self, view: PlayerView) -> np.ndarray:
        """The rollout policy of each seat: ``config.policy`` for the others, ``config.own`` for
        this seat."""
        assert view.seat is not None
        policies = np.full(view.players, self.config.policy, dtype=np.int64)
        own = self.config.own
        if own is None:
            own = MEDIUM if self.config.policy == MODELLED else self.config.policy
        policies[view.seat] = own
        return policies

    def inference(self, view: PlayerView, a: _Arrays | None = None) -> Inference:
        """The opponent models' inference at this decision (made once per decision: every round of
        the search rolls out on the same inferred deals)."""
        assert view.seat is not None
        key = (view.deal, len(view.played_by), view.seat, view.hand, view.rows)
        if self._inference is not None and self._inference[0] == key:
            return self._inference[1]
        self.memory.remember(view)
        a = a or _arrays(view)
        guesses = self.config.guesses
        parameters = PARAMETERS if guesses is None else replace(PARAMETERS, deals=guesses)
        result = infer(view, self.memory, a.hands, a.hlen, a.known, a.pool, self.rng.getrandbits(31), parameters)
        self._inference = (key, result)
        self._next_guess = 0
        return result

    def _likeliest(self, view: PlayerView, own: int) -> np.ndarray:
        """One policy per seat where the modelled rollouts do not apply (row choices, Open, Double):
        each seat's likeliest model by this deal's last inference (the prior's before any)."""
        assert view.seat is not None
        last = self._inference
        if last is not None and last[0][0] == view.deal and last[1].weights.shape[0] == view.players:
            weights = last[1].weights
        else:
            weights = np.tile(PARAMETERS.prior(view.players), (view.players, 1))
        return likeliest(weights, view.seat, own)

    def objective(self, out: np.ndarray, me: int, players: int) -> np.ndarray:
        """Per rollout: own penalty, or own minus the others' mean (``relative``)."""
        own: np.ndarray = out[:, :, me]
        if not self.config.relative:
            return own
        relative: np.ndarray = own - (out.sum(axis=2) - own) / max(1, players - 1)
        return relative

    def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        """The best option and, per option, this seat's expected penalty for the whole deal."""
        decision = view.decision
        assert decision is not None and view.seat is not None
        self.memory.remember(view)
        if decision.kind is DecisionKind.DRAFT:
            return draft_pick(view), {}
        if view.rules.variant is Variant.NIFTY and decision.kind is DecisionKind.CARD:
            return self._explain_nifty(view)
        if view.rules.variant not in SEARCHED_VARIANTS or decision.kind not in _SEARCHED:
            return self._fallback.explain(view)
        arrays = _arrays(view)
        options = tuple(decision.options)
        budget = self.config.samples * len(options)
        if self.prior is not None and 0 < self.keep < len(options):
            options = self.prior(view, options)[: self.keep]  # the pruned options get no estimate
        best, own = self._search(
            view, options, budget,
            lambda alive, samples: self.simulate(view, alive, samples, arrays),
        )  # fmt: skip
        return best, own

    def _search(
        self,
        view: PlayerView,
        options: tuple[int, ...],
        budget: int,
        simulate: Callable[[tuple[int, ...], int], np.ndarray],
    ) -> tuple[int, dict[int, float]]:
        """Spend ``budget`` rollouts on ``options`` (successive halving by ``config.split``); the
        best option and, per option, this seat's expected penalty for the whole deal."""
        assert view.seat is not None
        best, own = self.search(view.seat, view.players, options, budget, simulate)
        already = view.penalties[view.seat]
        return best, {o: already + value for o, value in own.items()}

    def search(
        self,
        me: int,
        players: int,
        options: tuple[int, ...],
        budget: int,
        simulate: Callable[[tuple[int, ...], int], np.ndarray],
    ) -> tuple[int, dict[int, float]]:
        """The search itself, over any ``simulate`` (``float64[options, samples, players]``
        penalties for the rest of the deal): the best option for seat ``me``, and per option the
        seat's mean penalty in its rollouts. :meth:`_search` runs it on a view; the training
        league runs it on a vector batch's state (``sixnimmt.rl.league``)."""
        # Per option: the sum of its rollouts' objective values and own penalties, and their count.
        objective = dict.fromkeys(options, 0.0)
        own = dict.fromkeys(options, 0.0)
        count = dict.fromkeys(options, 0)
        alive = options
        for share in self.config.split:
            samples = max(1, round(share * budget / len(alive)))
            out = simulate(alive, samples)
            values = self.objective(out, me, players).sum(axis=1)
            owns = out[:, :, me].sum(axis=1)
            for i, option in enumerate(alive):
                objective[option] += float(values[i])
                own[option] += float(owns[i])
                count[option] += samples
            ranked = sorted(alive, key=lambda o: objective[o] / count[o])
            finalists = ranked
            alive = tuple(ranked[: max(2, (len(ranked) + 1) // 2)])
        # Only the options that got every round compete: an early-dropped option's mean is stale.
        best = min(finalists, key=lambda o: (objective[o] / count[o], o))
        return best, {o: own[o] / count[o] for o in options}

    def _explain_nifty(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        """Nifty: search the pair of cards to play this turn (both at the first card decision, ``samples`` rollouts per pair; the
        second decision plays the other card of the planned pair, or searches with the first card
        fixed when there is no plan, e.g. after a take-back). A card's score is the best score of a
        pair holding it."""
        decision = view.decision
        assert decision is not None and view.seat is not None
        key = (
            view.deal,
            view.turn,
            view.seat,
            view.hand,
        )  # the hand: no stale plan from another game
        if view.my_choices:
            first = view.my_choices[0]
            plan = self._nifty_plan
            if plan is not None and plan[0] == key and first in plan[1]:
                other = plan[1][1] if plan[1][0] == first else plan[1][0]
                if other in decision.options:
                    return other, plan[2]
            pairs = [tuple(sorted((first, c))) for c in decision.options]
        else:
            cards = decision.options
            pairs = [(a, b) for i, a in enumerate(cards) for b in cards[i + 1 :]]
        arrays = _arrays(view)
        pair_array = np.array(pairs, dtype=np.int64)
        me = view.seat

        def simulate(alive: tuple[int, ...], samples: int) -> np.ndarray:
            self.rollouts += len(alive) * samples
            return rollout_nifty(
                arrays.rows, arrays.lens, arrays.hands, arrays.hlen, arrays.known, arrays.pool,
                me, pair_array[list(alive)], samples, self.rng.getrandbits(31),
            )  # fmt: skip

        # ``samples`` rollouts per option, as in every decision: here the options are the pairs.
        budget = self.config.samples * len(pairs)
        best, pair_scores = self._search(view, tuple(range(len(pairs))), budget, simulate)
        scores: dict[int, float] = {}
        for index, pair in enumerate(pairs):
            for card in pair:
                if card in decision.options:
                    scores[card] = min(scores.get(card, 1e18), pair_scores[index])
        chosen = pairs[best]
        self._nifty_plan = (key, chosen, scores)
        answer = chosen[0] if chosen[0] in decision.options else chosen[1]
        return answer, scores

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None
        self.memory.remember(view)
        if len(decision.options) == 1:
            return decision.options[0]
        return self.explain(view)[0]


#: Successive halving's rounds when a searcher's ``halving`` option is on (the expert's setting).
HALVING_SPLIT = (0.4, 0.3, 0.3)


def searcher(
    seed: int | None,
    *,
    samples: int,
    rollout: str = "random",
    own: str = "same",
    noise: float = 1.0,
    relative: bool = False,
    shared: bool = True,
    halving: bool = False,
) -> MonteCarloBot:
    """The registry's factory for every searcher (``mcs100``, ``hard``, ``expert``...): one
    :class:`SearchConfig` from a spec's options (their defaults are the registry's)."""
    config = SearchConfig(
        samples=samples,
        policy=POLICIES[rollout],
        own=None if own == "same" else POLICIES[own],
        noise=noise,
        relative=relative,
        shared=shared,
        split=HALVING_SPLIT if halving else (1.0,),
    )
    return MonteCarloBot(seed, config)
