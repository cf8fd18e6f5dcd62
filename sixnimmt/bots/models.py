"""Opponent models for the search: how each other seat plays, and who holds which unseen card.

A searcher's rollouts play every other seat by a *model*, a mixture of compiled policies
(:mod:`~sixnimmt.bots.rollout`): a uniformly random card, ``easy``'s snug fit, ``medium``'s card
counting (an exact compiled copy), ``count`` (card counting that peeks at the sampled hands) and a
hand-made imitation of a searcher. Which mixture is a matter of evidence, gathered from the cards
each seat has played in this deal:

* **Deals.** :func:`infer` samples guesses of the hidden hands (orderings of the unseen cards) and,
  in each, replays every earlier turn of the deal the bot saw: a guess fixes every hand at every
  turn (the hand now plus the cards played since), so each model's choice there is exact. The
  likelihood of a seat's plays in a guess is the product of each model's chance of each play.
* **Per-seat model weights.** A seat's weight on a model is its prior times, for each earlier play,
  the model's chance of that play averaged over the guesses (:attr:`Inference.weights`): Bayes'
  rule over the models, with the hidden hands averaged out turn by turn. It moves toward the
  policy that really plays the seat; each rollout draws each seat's model by these weights.
* **Inference over the hidden hands.** The guesses are resampled by how likely they make every
  seat's plays (each seat's likelihood averaged over the models by its weights), tempered so that
  a share of them survives: a hand that explains why a seat played what it played is kept, one
  that does not is dropped.

Every parameter of the models is in :data:`PARAMETERS`, as data. The prior depends on the table
size and on nothing else: a bot is told nothing about who it plays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..core import DecisionKind, PlayerView
from .rollout import CAUTIOUS, COUNT, MEDIUM, RANDOM, SEARCHLIKE, SNUG, play_likelihoods

#: The rollout policy code that stands for "each seat by its model" in a searcher's settings.
MODELLED = 9
#: Rollout policies by the names a bot spec uses (``grandmaster:others=model``, ``hard:rollout=snug``).
POLICIES = {
    "random": RANDOM, "snug": SNUG, "count": COUNT, "cautious": CAUTIOUS, "medium": MEDIUM,
    "searcher": SEARCHLIKE, "model": MODELLED,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ModelParameters:
    """Everything the opponent models assume, in one place."""

    #: The policies a seat may play by (rollout policy codes), and their names.
    models: tuple[int, ...] = (RANDOM, SNUG, MEDIUM, COUNT, SEARCHLIKE)
    names: tuple[str, ...] = ("random", "snug", "medium", "count", "searcher")
    #: Prior weights of the models by table size (the nearest size listed below applies): the same
    #: at every table but for how much room a random player gets, people at a small table being
    #: the likeliest to play a card without a plan.
    priors: Mapping[int, tuple[float, ...]] = field(
        default_factory=lambda: {
            2: (0.15, 0.15, 0.25, 0.2, 0.25),
            4: (0.1, 0.15, 0.3, 0.2, 0.25),
            6: (0.1, 0.15, 0.3, 0.2, 0.25),
            10: (0.1, 0.15, 0.3, 0.2, 0.25),
        }
    )
    #: The chance that a player plays any card of the hand instead of its policy's (an error).
    lapse: float = 0.15
    #: ``count`` and ``snug`` choose among the cards within this many bullheads of their best.
    noise: float = 0.5
    #: Guesses of the hidden hands sampled per decision, before resampling.
    deals: int = 48
    #: The resampling keeps at least this share of the guesses' worth of different ones (its
    #: effective sample size): the likelihoods are tempered down to it, as few guesses explain a
    #: whole deal's plays and the search should not bet everything on one of them.
    spread: float = 0.25

    def prior(self, players: int) -> np.ndarray:
        """The prior weights of the models at a table of ``players`` (summing to one)."""
        size = min(self.priors, key=lambda size: (abs(size - players), size))
        weights = np.array(self.priors[size], dtype=np.float64)
        normalised: np.ndarray = weights / weights.sum()
        return normalised


PARAMETERS = ModelParameters()


@dataclass(slots=True)
class Inference:
    """What :func:`infer` concluded at one decision."""

    #: The resampled guesses of the hidden hands: orderings of the unseen cards (``int64[deals, pool]``).
    perms: np.ndarray
    #: Per guess and seat, the cumulative chances of the models the rollouts draw from (``float64[deals, players, models]``).
    mixture: np.ndarray
    #: Per seat, the posterior weight of each model (``float64[players, models]``; the prior for
    #: this seat and for a seat whose plays were not seen).
    weights: np.ndarray
    #: Per guess before resampling, its log-likelihood of each earlier play of every seat under each
    #: model (``[deals, turns, players, models]``), and which guesses the resampling kept (indices,
    #: with repeats): for tests and reports.
    loglik: np.ndarray
    kept: np.ndarray


class TurnMemory:
    """The rows at the start of each turn of the current deal, as this bot saw them, with its own
    hand then: a view shows which cards each seat played in the deal's earlier turns, not the rows
    they were played on."""

    def __init__(self) -> None:
        self._turns: dict[int, tuple[tuple[tuple[int, ...], ...], frozenset[int]]] = {}
        self._deal: object = None

    def remember(self, view: PlayerView) -> None:
        """Keep the rows of this view's turn (a card decision, before any card of it is placed)."""
        decision = view.decision
        if decision is None or decision.kind is not DecisionKind.CARD or view.my_choices:
            return
        turn = len(view.played_by)
        if view.deal != self._deal:
            self._turns.clear()
            self._deal = view.deal
        for later in [k for k in self._turns if k >= turn]:  # a new game, or a take-back
            del self._turns[later]
        self._turns[turn] = (view.rows, frozenset(view.hand))

    def history(self, view: PlayerView) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The deal's earlier turns as arrays: rows and lengths at each (``int64[T, R, L + 1]``,
        ``int64[T, R]``, for the rules' ``R`` rows of at most ``L`` cards), the card each seat played
        (``int64[T, players]``), and whether the turn's rows are known (``bool[T]``): remembered in
        this deal, with this seat's hand then being its hand now plus the cards it played since
        (else the memory is of another game)."""
        assert view.seat is not None
        turns = len(view.played_by)
        count, limit = view.rules.row_count, view.rules.row_limit
        rows = np.zeros((turns, count, limit + 1), dtype=np.int64)
        lens = np.zeros((turns, count), dtype=np.int64)
        plays = np.zeros((turns, view.players), dtype=np.int64)
        seen = np.zeros(turns, dtype=np.bool_)
        for k, played in enumerate(view.played_by):
            for seat, card in played:
                plays[k, seat] = card
        hand = set(view.hand)
        for k in range(turns - 1, -1, -1):
            hand.add(int(plays[k, view.seat]))
            kept = self._turns.get(k) if view.deal == self._deal else None
            if kept is None or kept[1] != hand:
                continue
            seen[k] = True
            for r, row in enumerate(kept[0]):
                rows[k, r, : len(row)] = row
                lens[k, r] = len(row)
        return rows, lens, plays, seen


def infer(
    view: PlayerView,
    memory: TurnMemory,
    hands: np.ndarray,
    hlen: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
    seed: int,
    parameters: ModelParameters = PARAMETERS,
) -> Inference:
    """Guesses of the hidden hands resampled by the likelihood of every seat's plays, and each
    seat's posterior over the models (see the module docstring). ``hands`` ... ``pool``: the view
    as the compiled kernels' arrays (:func:`sixnimmt.bots.search._arrays`)."""
    assert view.seat is not None
    players = view.players
    models = np.array(parameters.models, dtype=np.int64)
    log_prior = np.log(parameters.prior(players))
    rows, lens, plays, seen = memory.history(view)
    perms, loglik = play_likelihoods(
        rows, lens, plays, seen, hands, hlen, known, pool.copy(), view.seat, parameters.deals, models,
        view.rules.professional, parameters.noise, parameters.lapse, seed,
    )  # fmt: skip
    # Each seat's weights: every earlier play's chance under a model, averaged over the guesses
    # turn by turn (a guess that explains every play of a seat is rare among a few dozen, so one
    # that explains each play is asked for, turn by turn), times the prior.
    per_turn = np.log(np.exp(loglik).mean(axis=0))  # [turns, players, models]
    log_weights = log_prior + per_turn.sum(axis=0)
    log_weights -= log_weights.max(axis=1, keepdims=True)
    weights = np.exp(log_weights)
    weights /= weights.sum(axis=1, keepdims=True)
    weights[view.seat] = np.exp(log_prior)
    # Each guess's likelihood of every seat's plays, each seat by its weighted models.
    seat_loglik = loglik.sum(axis=1)  # [deals, players, models]
    top = seat_loglik.max(axis=2, keepdims=True)
    deal_log = (np.log((np.exp(seat_loglik - top) * weights).sum(axis=2)) + top[:, :, 0]).sum(axis=1)
    deal_weight = _tempered(deal_log - deal_log.max(), parameters.spread)
    # Systematic resampling: each guess is kept about deals x its weight times.
    deals = perms.shape[0]
    rng = np.random.default_rng(seed)
    positions = (rng.random() + np.arange(deals)) / deals
    chosen = np.minimum(np.searchsorted(np.cumsum(deal_weight), positions), deals - 1)
    rng.shuffle(chosen)
    mixture = np.broadcast_to(np.cumsum(weights, axis=1), (deals, players, len(parameters.models))).copy()
    return Inference(perms[chosen], mixture, weights, loglik, chosen)


def _tempered(log_weight: np.ndarray, spread: float) -> np.ndarray:
    """Normalised weights ``exp(beta x log_weight)`` with the largest ``beta`` <= 1 whose effective
    sample size is at least ``spread`` times the number of weights (found by bisection)."""

    def weights(beta: float) -> np.ndarray:
        w = np.exp(beta * log_weight)
        normalised: np.ndarray = w / w.sum()
        return normalised

    def enough(w: np.ndarray) -> bool:
        return bool(1.0 / (w * w).sum() >= spread * len(w))

    if enough(weights(1.0)):
        return weights(1.0)
    low, high = 0.0, 1.0
    for _ in range(20):
        middle = (low + high) / 2
        low, high = (middle, high) if enough(weights(middle)) else (low, middle)
    return weights(low)


def likeliest(weights: np.ndarray, me: int, own: int, parameters: ModelParameters = PARAMETERS) -> np.ndarray:
    """Each seat's most likely model (``own`` for seat ``me``): the policies of the rollouts that
    take one policy per seat (row choices, and the variants the modelled rollouts leave out)."""
    policies = np.array([parameters.models[int(i)] for i in weights.argmax(axis=1)], dtype=np.int64)
    policies[me] = own
    return policies
