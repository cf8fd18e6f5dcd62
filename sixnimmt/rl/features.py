"""Features a policy may derive from the observation, numpy alone (``MlpPolicy`` with
``meta["features"] == "derived"``; ``sixnimmt train --distil --features derived``).

The observation says where each hand card would land now and which cards are unseen. What makes a
card risky is how many unseen cards lie between the end of the row it would join and the card,
against the room left in that row: the ``cautious`` bot's card counting. A small MLP computes that
poorly from the raw 104-card segments (at ten players the distilled network lost to ``cautious``
without it), so a policy may read it directly. :func:`derived` appends three 104-long segments, one
number per card of the hand (0 elsewhere, and for a card that would be too low):

* ``between``: unseen cards strictly between the row end and the card, / 10 (capped at 1);
* ``taken``: the chance that the card is taken now, modelling each other player's card as an unseen
  card drawn at random (a binomial tail, as ``cautious`` counts; 1 for a sure sixth card);
* ``danger``: that chance times the bullheads it would take (the row, plus the cards that land
  before it at their mean), / 20 (capped at 1).

They are computed from the observation alone, so anything that feeds a policy observations (the
environments, the vector env, the ``learned`` bot) feeds it these too. The row model is the
standard game's (one card per player and turn, the closest lower row end).
"""

from __future__ import annotations

from math import comb

import numpy as np
from numpy.typing import NDArray

from ..bots.heuristics import SNUG_TIES_UP_TO
from ..core import BULLHEADS, ROW_LIMIT
from ..core.rules import MAX_PLAYERS
from .encoding import segment_slice

#: The derived segments, in order, each one number per card.
DERIVED_SEGMENTS = ("between", "taken", "danger")
DERIVED_SIZE = 104 * len(DERIVED_SEGMENTS)
#: The feature sets a policy may name in its ``meta["features"]``, with their sizes.
FEATURE_SETS = {"derived": DERIVED_SIZE}

_HAND = segment_slice("hand")
_UNSEEN = segment_slice("unseen")
_GAP = segment_slice("hand_gap")
_TOO_LOW = segment_slice("hand_too_low")
_TAKE = segment_slice("hand_take")
_ROWS = segment_slice("rows")
_PLAYERS_AT = segment_slice("context").start + 2  # players / 10
_TOO_LOW_REASON = segment_slice("decision").start + 5  # after the five decision kinds
_CARDS = np.arange(1, 105)
_BULLHEADS = np.array([BULLHEADS[c] for c in range(1, 105)], dtype=np.float32)
#: comb(others, k) for others < MAX_PLAYERS, k < ROW_LIMIT.
_COMB = np.array([[comb(n, k) for k in range(ROW_LIMIT)] for n in range(MAX_PLAYERS)], dtype=np.float64)
_COMB_ROWS: list[list[float]] = _COMB.tolist()


def derived(observations: NDArray[np.floating]) -> NDArray[np.float32]:
    """The derived features of one observation (``[OBS_SIZE]``) or a batch (``[M, OBS_SIZE]``)."""
    x = np.asarray(observations, dtype=np.float32)
    batch = x.reshape(-1, x.shape[-1])
    n = len(batch)
    hand = batch[:, _HAND] > 0
    unseen = (batch[:, _UNSEEN] > 0).astype(np.float64)
    gap = np.rint(batch[:, _GAP] * 104).astype(np.int64)
    placeable = hand & (batch[:, _TOO_LOW] == 0) & (gap > 0)
    end = np.where(placeable, _CARDS - gap, 0)  # the row end each card would join
    # cum[:, k]: unseen cards among 1..k; between end and card c: cum[c - 1] - cum[end].
    cum = np.concatenate([np.zeros((n, 1)), np.cumsum(unseen, axis=1)], axis=1)
    cum_bulls = np.concatenate([np.zeros((n, 1)), np.cumsum(unseen * _BULLHEADS, axis=1)], axis=1)
    below = np.broadcast_to(_CARDS - 1, (n, 104))
    between = np.where(placeable, np.take_along_axis(cum, below, 1) - np.take_along_axis(cum, end, 1), 0.0)
    landing = np.take_along_axis(cum_bulls, below, 1) - np.take_along_axis(cum_bulls, end, 1)
    mean_landing = np.where(between > 0, landing / np.maximum(between, 1), 0.0)
    rows = batch[:, _ROWS].reshape(n, 4, 6)
    last = np.rint(rows[:, :, 1] * 104)
    length = np.rint(rows[:, :, 2] * 5)
    cost = rows[:, :, 3] * 20
    joins = (last[:, None, :] == end[:, :, None]) & placeable[:, :, None]  # [n, card, row]
    need = np.where(joins, ROW_LIMIT - length[:, None, :], 0).sum(axis=2)
    row_cost = np.where(joins, cost[:, None, :], 0).sum(axis=2)
    others = np.clip(np.rint(batch[:, _PLAYERS_AT] * 10).astype(np.int64) - 1, 0, MAX_PLAYERS - 1)[:, None]
    q = between / np.maximum(unseen.sum(axis=1, keepdims=True), 1)
    below_need = np.zeros((n, 104))
    for k in range(ROW_LIMIT):  # P(fewer than `need` of the others' cards land in the gap); 1 if
        # the others are fewer than the room left
        term = _COMB[others, k] * q**k * (1 - q) ** np.maximum(others - k, 0)
        below_need += np.where((k < need) & (k <= others), term, 0.0)
    taken = np.where(need <= 0, 1.0, np.clip(1 - below_need, 0.0, 1.0))
    taken = np.where(placeable, taken, 0.0)
    danger = taken * (row_cost + np.maximum(need, 0) * mean_landing)
    out = np.concatenate([np.minimum(between / 10, 1), taken, np.minimum(danger / 20, 1)], axis=1)
    result: NDArray[np.float32] = out.astype(np.float32).reshape(*x.shape[:-1], DERIVED_SIZE)
    return result


def players_of(observations: NDArray[np.floating]) -> NDArray[np.int64]:
    """The number of players each observation (``[OBS_SIZE]`` or ``[M, OBS_SIZE]``) was made at."""
    x = np.asarray(observations)
    players: NDArray[np.int64] = np.rint(x[..., _PLAYERS_AT] * 10).astype(np.int64)
    return np.clip(players, 0, MAX_PLAYERS)


def counted_cost(observations: NDArray[np.floating]) -> NDArray[np.float32]:
    """Per card action (``[..., 104]``): the ``cautious`` bot's expected bullheads for playing that
    hand card now (its ``danger``; a too-low card: the cheapest row, plus 0.5 as ``cautious``
    adds), 0 for cards not in hand. A policy with a ``residual`` adds ``residual`` times this to its
    card scores: it starts from ``cautious``'s choices and learns where to differ."""
    x = np.asarray(observations, dtype=np.float32)
    if x.ndim == 1:
        return _counted_cost_one(x)
    danger = derived(x)[..., 208:312] * 20
    too_low = x[..., _TOO_LOW] > 0
    cost = np.where(too_low, x[..., _TAKE] * 20 + 0.5, danger)
    result: NDArray[np.float32] = np.where(x[..., _HAND] > 0, cost, 0.0).astype(np.float32)
    return result


def _counted_cost_one(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """:func:`counted_cost` of one observation, number for number the same: :func:`derived`'s
    arithmetic (the same operations on the same types, its powers through numpy's own ``power``) for
    the hand's cards alone, in plain Python. A playing bot asks for one observation at a time, where
    :func:`derived`'s 104-wide arrays were two thirds of its decision; ``tests/rl/test_features.py``
    checks that the two agree exactly."""
    result = np.zeros(104, dtype=np.float32)
    hand = np.flatnonzero(x[_HAND] > 0)  # card - 1
    too_low = x[_TOO_LOW][hand] > 0
    result[hand[too_low]] = x[_TAKE][hand[too_low]] * 20 + 0.5
    gaps = np.rint(x[_GAP][hand] * 104).astype(np.int64)
    cards = [(int(i), int(gap)) for i, gap, low in zip(hand, gaps, too_low) if not low and gap > 0]
    if not cards:
        return result
    unseen = x[_UNSEEN] > 0
    cum = [0, *np.cumsum(unseen).tolist()]
    cum_bulls = [0.0, *np.cumsum(unseen * _BULLHEADS.astype(np.float64)).tolist()]
    rows = x[_ROWS].reshape(4, 6)
    row_ends = np.rint(rows[:, 1] * 104).tolist()
    room = (ROW_LIMIT - np.rint(rows[:, 2] * 5)).tolist()  # float32 arithmetic, as derived() does it
    bullheads = (rows[:, 3] * 20).tolist()
    others = min(max(int(np.rint(x[_PLAYERS_AT] * 10)) - 1, 0), MAX_PLAYERS - 1)
    total = float(max(cum[-1], 1))
    # Per card: (mean landing, need, row bullheads, q).
    per_card = []
    for i, gap in cards:
        end = i + 1 - gap
        between = float(cum[i] - cum[end])
        landing = cum_bulls[i] - cum_bulls[end]
        joined = [r for r in range(4) if row_ends[r] == end]
        need = room[joined[0]] if joined else 0.0
        row_bulls = bullheads[joined[0]] if joined else 0.0
        per_card.append((landing / max(between, 1.0) if between > 0 else 0.0, need, row_bulls, between / total))
    # The binomial terms' powers, all in one numpy call: q**k is q**k as numpy's array power makes it
    # (1, q, q*q for k < 3), (1 - q)**(others - k) is numpy's power() of the two.
    terms = [(q, k) for _, need, _, q in per_card for k in range(min(ROW_LIMIT, others + 1)) if k < need]
    powers = np.power(np.array([1 - q for q, _ in terms] + [q for q, k in terms if k >= 3]),
                      np.array([float(others - k) for _, k in terms] + [float(k) for _, k in terms if k >= 3])).tolist()
    high = iter(powers[len(terms):])
    at = 0
    features = []
    for mean_landing, need, row_bulls, q in per_card:
        below_need = 0.0
        for k in range(min(ROW_LIMIT, others + 1)):
            if k < need:
                q_k = 1.0 if k == 0 else q if k == 1 else q * q if k == 2 else next(high)
                below_need += _COMB_ROWS[others][k] * q_k * powers[at]
                at += 1
        taken = 1.0 if need <= 0 else min(max(1 - below_need, 0.0), 1.0)
        features.append(min(taken * (row_bulls + max(need, 0.0) * mean_landing) / 20, 1.0))
    result[[i for i, _ in cards]] = np.array(features).astype(np.float32) * 20
    return result


def row_cost(observations: NDArray[np.floating]) -> NDArray[np.float32]:
    """Per row action (``[..., 4]``): the bullheads of taking that row, when the decision is the row
    to take for a too-low card (what ``cautious`` weighs first); 0 for any other decision (a
    Professional tie takes no row)."""
    x = np.asarray(observations, dtype=np.float32)
    rows = x[..., _ROWS].reshape(*x.shape[:-1], 4, 6)
    too_low = x[..., _TOO_LOW_REASON : _TOO_LOW_REASON + 1] > 0
    result: NDArray[np.float32] = np.where(too_low, rows[..., 3] * 20, 0.0).astype(np.float32)
    return result


class CountingPolicy:
    """The ``cautious`` bot (the ``medium`` level) as a batch policy over observations, for training
    against it in the vector env: the card of least :func:`counted_cost` (on equal cost the highest,
    keeping the low cards, as ``cautious`` does; at a table of two the snuggest fit, then the
    highest), and the row of fewest bullheads, then fewest cards. Its card choices agree with
    ``cautious``'s on about 99% of decisions at ten players; its row choices are plainer
    (``cautious`` also weighs the next turn).
    """

    def act_batch(self, observations: NDArray[np.float32], masks: NDArray[np.int8]) -> NDArray[np.int64]:
        x = np.asarray(observations, dtype=np.float32)
        legal = np.asarray(masks).astype(bool)
        # Cards: cost first (rounded, so that float noise does not break a tie; a step of 1e-4 is
        # worth 100 here), then at a table of two the snuggest fit (a too-low card's gap reads 104,
        # farther than any fit; each gap step worth 0.5), then the higher card (under 0.11).
        cost = np.round(counted_cost(x).astype(np.float64), 4)
        snug = players_of(x)[:, None] <= SNUG_TIES_UP_TO
        gap = np.rint(x[:, _GAP].astype(np.float64) * 104)
        ties = np.where(snug, -gap * 0.5, 0.0) + _CARDS / 1000
        card_scores = np.where(legal[:, :104], -cost * 1e6 + ties, -np.inf)
        rows = x[:, _ROWS].reshape(len(x), 4, 6)
        row_scores = np.where(legal[:, 104:108], -(rows[:, :, 3] * 20 * 10 + rows[:, :, 2] * 5), -np.inf)
        scores = np.concatenate([card_scores, row_scores, np.where(legal[:, 108:], 0.0, -np.inf)], axis=1)
        best: NDArray[np.int64] = np.argmax(scores, axis=1).astype(np.int64)
        return best
