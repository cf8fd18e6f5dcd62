"""Compiled rollouts for the search bots: play the rest of a deal forward many times, fast.

A *rollout* completes the current deal from a determinization (every hidden hand filled with unseen
cards, consistently with the view) with every player following a rollout policy, and reports each
seat's penalty for the rest of the deal. The placement rules are the core's compiled kernels
(:mod:`sixnimmt.core.fast`); this module only adds who plays what.

Layout: rows ``int64[R, L + 1]`` and lengths ``int64[R]`` as in the core (``int64[4, 6]`` and
``int64[4]`` in the full game; a smaller game's rows and row limit come from these shapes); hands
``int64[players, 10]`` with lengths ``int64[players]`` (the first ``hlen[s]`` entries of row ``s``
are seat ``s``'s hand).

Policies:

* ``RANDOM`` (0): a uniformly random card. Hands are shuffled when dealt, so "random" is simply
  "the last card of the hand", which keeps the other seats' plays identical across the candidates
  that share a determinization (common random numbers: the candidates differ only by their own
  effect).
* ``SNUG`` (1): a cheap heuristic with noise: avoid a sure sixth card or a too-low card, and
  otherwise prefer the card that lands closest to a row end in a short row. ``noise`` sets how often
  the policy deviates (a softened argmin), so opponents are neither random nor predictable.
* ``COUNT`` (2): card counting inside the determinization (``grandmaster``): a card's expected cost
  is its row's cost times the chance that enough of the other players' cards land in front of it
  this turn, each other player playing a uniformly random card of the hand it holds in the sample
  (a Poisson-binomial tail over the players); a too-low card costs the cheapest row. Plus ``noise``
  times a uniform draw, so cards of equal risk (most often zero) are played in random order. It
  peeks: it knows what each other seat holds in the sample, which no player knows.
* ``CAUTIOUS`` (3): the same estimate without peeking, as the ``cautious`` bot makes it: each other
  player's card is any card this seat has not seen (the other hands and the cards dealt to nobody,
  in the sample), a binomial tail.

The policy is per seat (``policies[s]``), so a searcher can play its own future turns better than it
models its opponents.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..core import BULLHEADS
from ..core.fast import (
    nb_charge_double,
    nb_cheapest_row,
    nb_place,
    nb_place_double,
    nb_place_pro,
    nb_play_turn_double,
    nb_play_turn_nifty,
    nb_put,
    nb_row_cost,
    nb_row_for,
    nb_row_limit,
    nb_slots_pro,
)
from .heuristics import SNUG_TIES_UP_TO

RANDOM = 0
SNUG = 1
COUNT = 2
CAUTIOUS = 3
MEDIUM = 4
SEARCHLIKE = 5
#: Mean bullheads of a card (171 in 104 cards): what each card landing in front of ours adds to the row.
_MEAN_BULL = 171 / 104


@njit(cache=True)
def _row_for(rows: np.ndarray, lens: np.ndarray, card: int, professional: bool) -> tuple[int, int]:  # pragma: no cover
    """The row ``card`` would join and the gap to the end it joins; row -1 when it is too low."""
    if professional:
        right_row, left_row, gap = nb_slots_pro(rows, lens, card)
        return (right_row if right_row >= 0 else left_row), gap
    return nb_row_for(rows, lens, card)


@njit(cache=True)
def card_danger(rows: np.ndarray, lens: np.ndarray, card: int, professional: bool) -> float:  # pragma: no cover
    """A quick guess of what playing ``card`` now costs (bullheads), for the SNUG policy."""
    r, gap = _row_for(rows, lens, card, professional)
    if r < 0:
        # Too low: the row taken is the cheapest one; a little extra because the card also resets
        # the board in a way nobody planned for.
        return nb_row_cost(rows, lens, nb_cheapest_row(rows, lens)) + 0.5
    cost = nb_row_cost(rows, lens, r)
    limit = nb_row_limit(rows)
    if lens[r] >= limit:
        return cost + 0.0
    # The more cards between the row end and ours, and the fuller the row, the likelier we are the
    # sixth card; a crude but monotone stand-in for the probability.
    fill = lens[r] / limit
    return float(cost * fill * fill * fill * min(1.0, gap / 12.0) + gap * 0.01)


@njit(cache=True)
def _counted_danger(
    rows: np.ndarray,
    lens: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    s: int,
    card: int,
    professional: bool,
    undealt: np.ndarray,
    fair: bool,
    tail: np.ndarray,
) -> float:  # pragma: no cover - compiled
    """``COUNT`` (``fair`` false) and ``CAUTIOUS`` (``fair``): the expected bullheads seat ``s``
    takes this turn by playing ``card`` (see the module docstring). ``tail`` is scratch space (at
    least 6 entries), passed in because an allocation per card and turn was a third of a rollout."""
    r, _ = _row_for(rows, lens, card, professional)
    if r < 0:
        return nb_row_cost(rows, lens, nb_cheapest_row(rows, lens)) + 0.5
    cost = nb_row_cost(rows, lens, r)
    need = nb_row_limit(rows) - lens[r]
    if need <= 0:
        return float(cost)
    if card > rows[r, lens[r] - 1]:
        low, high = rows[r, lens[r] - 1], card
    else:  # Professional: the left end
        low, high = card, rows[r, 0]
    players = hands.shape[0]
    if need > players - 1:
        return 0.0
    # tail[k]: the chance that exactly k of the players seen so far land in the gap (k < need), or
    # at least ``need`` of them (k = need).
    tail[: need + 1] = 0.0
    tail[0] = 1.0
    if fair:  # CAUTIOUS: each other player's card is any card seat s has not seen
        inside = 0
        unseen = undealt.shape[0]
        for c in undealt:
            if low < c < high:
                inside += 1
        for t in range(players):
            if t != s:
                unseen += hlen[t]
                for j in range(hlen[t]):
                    if low < hands[t, j] < high:
                        inside += 1
    for t in range(players):
        if t == s or hlen[t] == 0:
            continue
        if fair:
            p = inside / unseen if unseen else 0.0
        else:
            peek = 0
            for j in range(hlen[t]):
                if low < hands[t, j] < high:
                    peek += 1
            p = peek / hlen[t]
        if p == 0.0:
            continue
        tail[need] += tail[need - 1] * p
        for k in range(need - 1, 0, -1):
            tail[k] = tail[k] * (1.0 - p) + tail[k - 1] * p
        tail[0] *= 1.0 - p
    return float(tail[need] * (cost + need * _MEAN_BULL))


#: Bullheads per card value, for the compiled card counting.
_BULL = np.array(BULLHEADS, dtype=np.int64)
#: Binomial coefficients C(n, k) as floats, n and k below 20 (the card counting's binomial tail).
_COMB = np.array([[math.comb(n, k) for k in range(20)] for n in range(20)], dtype=np.float64)
#: Size of the hidden-card counts (card values 0..104).
COUNTS = 105


@njit(cache=True)
def hidden_counts(
    hands: np.ndarray, hlen: np.ndarray, undealt: np.ndarray, cnt: np.ndarray, bul: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``cnt[c]``, ``bul[c]``: how many cards of value at most ``c`` are hidden from the table (in a
    hand, or dealt to nobody), and their bullheads. Every seat's unseen cards are these less its own
    hand, so one count per turn serves every seat's card counting."""
    cnt[:] = 0
    bul[:] = 0
    for s in range(hands.shape[0]):
        for j in range(hlen[s]):
            c = hands[s, j]
            cnt[c] += 1
            bul[c] += _BULL[c]
    for c in undealt:
        cnt[c] += 1
        bul[c] += _BULL[c]
    for c in range(1, cnt.shape[0]):
        cnt[c] += cnt[c - 1]
        bul[c] += bul[c - 1]


@njit(cache=True)
def medium_cost(
    rows: np.ndarray,
    lens: np.ndarray,
    card: int,
    hand: np.ndarray,
    n: int,
    cnt: np.ndarray,
    bul: np.ndarray,
    others: int,
    professional: bool,
) -> float:  # pragma: no cover - compiled
    """``medium``'s expected cost of ``card`` (:func:`sixnimmt.bots.heuristics.expected_cost`),
    compiled: the same estimate in the same arithmetic. The unseen cards are the hidden ones
    (``cnt``, ``bul``: :func:`hidden_counts`) less the seat's hand (``hand[:n]``); ``others`` is how
    many cards the other players play this turn. A Professional tie counts as its lower row, as
    ``best_slots``'s first slot does."""
    if professional:
        right_row, left_row, _ = nb_slots_pro(rows, lens, card)
        r = min(right_row, left_row) if right_row >= 0 and left_row >= 0 else max(right_row, left_row)
    else:
        r, _ = nb_row_for(rows, lens, card)
    if r < 0:
        cheapest = 1 << 30
        for k in range(lens.shape[0]):
            cheapest = min(cheapest, nb_row_cost(rows, lens, k))
        return cheapest + 0.5
    cost = nb_row_cost(rows, lens, r)
    need = nb_row_limit(rows) - lens[r]
    if need <= 0:
        return float(cost)
    end = rows[r, lens[r] - 1]
    if card > end:
        low, high = end, card
    else:  # Professional: the left end
        low, high = card, rows[r, 0]
    between = cnt[high - 1] - cnt[low]
    landing = bul[high - 1] - bul[low]
    for j in range(n):
        h = hand[j]
        if low < h < high:
            between -= 1
            landing -= _BULL[h]
    unseen = cnt[COUNTS - 1] - n
    if unseen == 0 or between == 0 or need > others:
        return 0.0
    q = between / unseen
    p = 0.0
    for k in range(need, others + 1):
        p += _COMB[others, k] * q**k * (1 - q) ** (others - k)
    return float(p * (cost + need * (landing / between)))


@njit(cache=True)
def medium_pick(
    rows: np.ndarray,
    lens: np.ndarray,
    hand: np.ndarray,
    n: int,
    cnt: np.ndarray,
    bul: np.ndarray,
    others: int,
    professional: bool,
    searcher: bool,
) -> int:  # pragma: no cover - compiled
    """Index in ``hand[:n]`` of the card ``medium`` plays: the lowest expected cost (to six decimals),
    on a tie the higher card, or with one opponent the snuggest (``SNUG_TIES_UP_TO``). With ``searcher`` (the ``SEARCHLIKE`` policy, a hand-made imitation of
    a searcher) a tie goes to the snuggest card (the smallest gap to its row end): among equally
    safe cards a searcher's rollouts favour the one least likely to be overtaken later."""
    best = 0
    best_score = 1e18
    best_tie = -1e18
    snug = searcher or others < SNUG_TIES_UP_TO
    for i in range(n):
        score = round(medium_cost(rows, lens, hand[i], hand, n, cnt, bul, others, professional), 6)
        tie = _tie(rows, lens, hand[i], professional, snug)
        if score < best_score or (score == best_score and tie > best_tie):
            best, best_score, best_tie = i, score, tie
    return best


@njit(cache=True)
def _tie(rows: np.ndarray, lens: np.ndarray, card: int, professional: bool, snug: bool) -> float:  # pragma: no cover
    """How :func:`medium_pick` breaks a tie (the higher wins): the higher card, or the snuggest fit
    then the higher card."""
    if not snug:
        return float(card)
    _, gap = _row_for(rows, lens, card, professional)
    return -gap * 1000.0 + card


@njit(cache=True)
def _both_picks(
    rows: np.ndarray,
    lens: np.ndarray,
    hand: np.ndarray,
    n: int,
    cnt: np.ndarray,
    bul: np.ndarray,
    others: int,
    professional: bool,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """:func:`medium_pick` without and with ``searcher``, on one pass of the estimates."""
    best = [0, 0]
    best_score = [1e18, 1e18]
    best_tie = [-1e18, -1e18]
    for i in range(n):
        score = round(medium_cost(rows, lens, hand[i], hand, n, cnt, bul, others, professional), 6)
        for k in range(2):
            tie = _tie(rows, lens, hand[i], professional, k == 1 or others < SNUG_TIES_UP_TO)
            if score < best_score[k] or (score == best_score[k] and tie > best_tie[k]):
                best[k], best_score[k], best_tie[k] = i, score, tie
    return best[0], best[1]


@njit(cache=True)
def _choose(
    rows: np.ndarray,
    lens: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    s: int,
    policy: int,
    professional: bool,
    noise: float,
    undealt: np.ndarray,
    tail: np.ndarray,
    cnt: np.ndarray,
    bul: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Index in ``hands[s, :hlen[s]]`` of the card seat ``s`` plays in a rollout (``undealt``: the
    cards of this determinization in nobody's hand, for ``CAUTIOUS``; ``tail``: scratch space for
    :func:`_counted_danger`; ``cnt``, ``bul``: this turn's :func:`hidden_counts`, for ``MEDIUM``
    and ``SEARCHLIKE``)."""
    n = int(hlen[s])
    if policy == RANDOM or n == 1:
        return n - 1  # hands are shuffled when dealt
    if policy == MEDIUM or policy == SEARCHLIKE:
        return medium_pick(rows, lens, hands[s], n, cnt, bul, hands.shape[0] - 1, professional, policy == SEARCHLIKE)
    best = 0
    best_score = 1e18
    for i in range(n):
        score = _danger(rows, lens, hands, hlen, s, i, policy, professional, undealt, tail) + noise * np.random.random()
        if score < best_score:
            best, best_score = i, score
    return best


@njit(cache=True)
def _danger(
    rows: np.ndarray,
    lens: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    s: int,
    i: int,
    policy: int,
    professional: bool,
    undealt: np.ndarray,
    tail: np.ndarray,
) -> float:  # pragma: no cover - compiled
    """The noiseless estimate of ``COUNT``, ``CAUTIOUS`` or ``SNUG`` for seat ``s``'s card ``i``."""
    if policy == COUNT or policy == CAUTIOUS:
        return _counted_danger(rows, lens, hands, hlen, s, hands[s, i], professional, undealt, policy == CAUTIOUS, tail)
    return card_danger(rows, lens, hands[s, i], professional)


@njit(cache=True)
def _needs_counts(policies: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether a policy of ``policies`` counts cards from :func:`hidden_counts`."""
    for policy in policies:
        if policy == MEDIUM or policy == SEARCHLIKE:
            return True
    return False


#: Scratch arrays of one rollout call, reused by every rollout (allocating them per rollout or per
#: turn cost a third of the time): cards played this turn and the hand index each seat chose (per
#: seat), the seats in placement order, the Poisson-binomial tail of ``_counted_danger``, and the
#: hidden cards' counts and bullheads (:func:`hidden_counts`).
_Scratch = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def _scratch(players: int) -> _Scratch:  # pragma: no cover - compiled
    return (
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(8, dtype=np.float64),
        np.zeros(COUNTS, dtype=np.int64),
        np.zeros(COUNTS, dtype=np.int64),
    )


#: One rollout's working position: the hands and their lengths, the rows and their lengths, and
#: each seat's penalty so far this deal. Allocated once per rollout call, set back by :func:`_reset`
#: before every rollout.
_Board = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def _board(hands0: np.ndarray, hlen0: np.ndarray, rows0: np.ndarray, lens0: np.ndarray) -> _Board:  # pragma: no cover
    return (
        np.zeros_like(hands0),
        np.zeros_like(hlen0),
        np.zeros_like(rows0),
        np.zeros_like(lens0),
        np.zeros(hands0.shape[0], dtype=np.int64),
    )


@njit(cache=True)
def _reset(
    board: _Board, sample: np.ndarray, hlen0: np.ndarray, rows0: np.ndarray, lens0: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Set ``board`` back to the decision's position, the hands as ``sample`` guesses them."""
    hands, hlen, rows, lens, penalties = board
    hands[:] = sample
    hlen[:] = hlen0
    rows[:] = rows0
    lens[:] = lens0
    penalties[:] = 0


@njit(cache=True)
def _place(
    rows: np.ndarray, lens: np.ndarray, card: int, professional: bool, tie_mode: int, double: bool
) -> int:  # pragma: no cover - compiled
    if double:
        return nb_place_double(rows, lens, card, -1)
    if professional:
        return nb_place_pro(rows, lens, card, -1, tie_mode)
    return nb_place(rows, lens, card, -1)


@njit(cache=True)
def _resolve(
    rows: np.ndarray,
    lens: np.ndarray,
    cards: np.ndarray,
    penalties: np.ndarray,
    professional: bool,
    tie_mode: int,
    double: bool,
    order: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Place one turn's cards (``cards[seat]``, all different) in ascending order, charging each
    owner. ``order`` is scratch space for the seats in that order (an insertion sort: no allocation
    per turn, which ``np.argsort`` made)."""
    if double:
        nb_play_turn_double(rows, lens, cards, penalties)
        return
    players = cards.shape[0]
    for k in range(players):
        i = k
        while i > 0 and cards[order[i - 1]] > cards[k]:
            order[i] = order[i - 1]
            i -= 1
        order[i] = k
    for k in range(players):
        seat = order[k]
        penalties[seat] += _place(rows, lens, cards[seat], professional, tie_mode, False)


@njit(cache=True)
def _take(hands: np.ndarray, hlen: np.ndarray, s: int, i: int, cards: np.ndarray) -> None:  # pragma: no cover
    """Seat ``s`` plays ``hands[s, i]`` (into ``cards[s]``); the last card of the hand fills the gap."""
    cards[s] = hands[s, i]
    hlen[s] -= 1
    hands[s, i] = hands[s, hlen[s]]


@njit(cache=True)
def _play_rest(
    rows: np.ndarray,
    lens: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    penalties: np.ndarray,
    policies: np.ndarray,
    professional: bool,
    tie_mode: int,
    noise: float,
    double: bool,
    undealt: np.ndarray,
    scratch: _Scratch,
) -> None:  # pragma: no cover - compiled
    """Play every remaining turn of the deal (all hands hold the same number of cards)."""
    players = hands.shape[0]
    cards, chosen, order, tail, cnt, bul = scratch
    counting = _needs_counts(policies)
    while hlen[0] > 0:
        if counting:
            hidden_counts(hands, hlen, undealt, cnt, bul)
        # Every seat chooses from the same state before any card leaves a hand (simultaneous play).
        for s in range(players):
            chosen[s] = _choose(rows, lens, hands, hlen, s, policies[s], professional, noise, undealt, tail, cnt, bul)
        for s in range(players):
            _take(hands, hlen, s, chosen[s], cards)
        _resolve(rows, lens, cards, penalties, professional, tie_mode, double, order)


@njit(cache=True)
def _play_candidate(
    board: _Board,
    me: int,
    card: int,
    fixed: np.ndarray,
    policies: np.ndarray,
    professional: bool,
    tie_mode: int,
    noise: float,
    double: bool,
    undealt: np.ndarray,
    scratch: _Scratch,
) -> None:  # pragma: no cover - compiled
    """Play the deal out from this turn: ``me`` plays ``card`` now, a seat with ``fixed[s]`` > 0 the
    card it has already played face up (Open), every other seat by its policy; then every later turn."""
    hands, hlen, rows, lens, penalties = board
    cards, chosen, order, tail, cnt, bul = scratch
    if _needs_counts(policies):
        hidden_counts(hands, hlen, undealt, cnt, bul)
    for s in range(hands.shape[0]):
        if fixed[s] > 0:
            chosen[s] = -1
        elif s == me:
            i = 0
            while hands[s, i] != card:
                i += 1
            chosen[s] = i
        else:
            chosen[s] = _choose(rows, lens, hands, hlen, s, policies[s], professional, noise, undealt, tail, cnt, bul)
    for s in range(hands.shape[0]):
        if chosen[s] < 0:
            cards[s] = fixed[s]
        else:
            _take(hands, hlen, s, chosen[s], cards)
    _resolve(rows, lens, cards, penalties, professional, tie_mode, double, order)
    _play_rest(rows, lens, hands, hlen, penalties, policies, professional, tie_mode, noise, double, undealt, scratch)


@njit(cache=True)
def _determinize(
    out: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Fill ``out`` with one consistent guess of every hand: known hands copied, the others dealt
    from the shuffled ``pool`` of unseen cards; then every hand is shuffled (its random play order)."""
    np.random.shuffle(pool)
    _deal_from(out, hands, hlen, known, pool)


@njit(cache=True)
def _dealt(hlen: np.ndarray, known: np.ndarray) -> int:  # pragma: no cover - compiled
    """How many pool cards a determinization deals (the hidden hands' sizes)."""
    total = 0
    for s in range(hlen.shape[0]):
        if not known[s]:
            total += hlen[s]
    return total


@njit(cache=True, nogil=True)
def rollout_cards(
    rows0: np.ndarray,
    lens0: np.ndarray,
    hands0: np.ndarray,
    hlen0: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
    me: int,
    candidates: np.ndarray,
    samples: int,
    policies: np.ndarray,
    professional: bool,
    tie_mode: int,
    noise: float,
    shared: bool,
    seed: int,
    fixed: np.ndarray,
    double: bool,
) -> np.ndarray:  # pragma: no cover - compiled
    """Penalties ``float64[candidates, samples, players]`` for the rest of the deal when ``me``
    plays each candidate card this turn. With ``shared`` every candidate is tried on the same
    determinizations (common random numbers); otherwise each candidate draws its own.

    ``fixed[s]`` > 0 is a card seat ``s`` has already played face up this turn (Open): it is played
    as is, and ``hlen[s]`` counts only the cards left besides it. ``double``: Double's placement."""
    np.random.seed(seed)
    k_count = candidates.shape[0]
    out = np.zeros((k_count, samples, hands0.shape[0]), dtype=np.float64)
    sample = np.zeros_like(hands0)
    board = _board(hands0, hlen0, rows0, lens0)
    scratch = _scratch(hands0.shape[0])
    undealt = pool[_dealt(hlen0, known) :]  # a view: after each deal, the cards left in the pool
    for j in range(samples):
        for k in range(k_count):
            if k == 0 or not shared:
                _determinize(sample, hands0, hlen0, known, pool)
            _reset(board, sample, hlen0, rows0, lens0)
            _play_candidate(
                board, me, candidates[k], fixed, policies, professional, tie_mode, noise, double, undealt, scratch
            )
            out[k, j, :] = board[4]
    return out


@njit(cache=True, nogil=True)
def rollout_rows(
    rows0: np.ndarray,
    lens0: np.ndarray,
    hands0: np.ndarray,
    hlen0: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
    me: int,
    card: int,
    options: np.ndarray,
    too_low: bool,
    queue_cards: np.ndarray,
    queue_owners: np.ndarray,
    samples: int,
    policies: np.ndarray,
    professional: bool,
    tie_mode: int,
    noise: float,
    seed: int,
    double: bool,
) -> np.ndarray:  # pragma: no cover - compiled
    """Penalties ``float64[options, samples, players]`` for the rest of the deal when ``me`` settles
    ``card``'s row choice with each option: take that row (``too_low``) or use that tied row's end.
    The turn's other unplaced cards (``queue_*``, ascending) are placed next, as the rules say, so a
    choice that turns a later card into a sixth card is seen (docs/rules.md E3)."""
    np.random.seed(seed)
    k_count = options.shape[0]
    out = np.zeros((k_count, samples, hands0.shape[0]), dtype=np.float64)
    sample = np.zeros_like(hands0)
    board = _board(hands0, hlen0, rows0, lens0)
    hands, hlen, rows, lens, penalties = board
    # The settled card then the turn's queue, in placement order (for Double's shared pickups).
    owners = np.zeros(queue_cards.shape[0] + 1, dtype=np.int64)
    placed = np.zeros(queue_cards.shape[0] + 1, dtype=np.int64)
    undealt = pool[_dealt(hlen0, known) :]
    scratch = _scratch(hands0.shape[0])
    for j in range(samples):
        _determinize(sample, hands0, hlen0, known, pool)
        for k in range(k_count):
            _reset(board, sample, hlen0, rows0, lens0)
            r = options[k]
            if too_low:
                cost = nb_row_cost(rows, lens, r)
                rows[r, 0] = card
                lens[r] = 1
            else:
                cost = nb_put(rows, lens, r, card, card < rows[r, 0])
            owners[0] = me
            owners[1:] = queue_owners
            placed[0] = card
            placed[1:] = queue_cards
            for q in range(placed.shape[0]):
                if q > 0:
                    cost = _place(rows, lens, placed[q], professional, tie_mode, double)
                if double:  # a pickup forced by twins is shared
                    nb_charge_double(penalties, cost, placed, owners, q)
                else:
                    penalties[owners[q]] += cost
            _play_rest(rows, lens, hands, hlen, penalties, policies, professional, tie_mode, noise, double, undealt, scratch)
            out[k, j, :] = penalties
    return out


@njit(cache=True)
def _take_last_two(hands: np.ndarray, hlen: np.ndarray, s: int, out: np.ndarray) -> None:  # pragma: no cover
    """Seat ``s`` plays its last two cards (a random pair: hands are shuffled when dealt), lower
    card first."""
    a = hands[s, hlen[s] - 1]
    b = hands[s, hlen[s] - 2]
    hlen[s] -= 2
    out[s, 0] = min(a, b)
    out[s, 1] = max(a, b)


@njit(cache=True, nogil=True)
def rollout_nifty(
    rows0: np.ndarray,
    lens0: np.ndarray,
    hands0: np.ndarray,
    hlen0: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
    me: int,
    pairs: np.ndarray,
    samples: int,
    seed: int,
) -> np.ndarray:  # pragma: no cover - compiled
    """Nifty: penalties ``float64[pairs, samples, players]`` for the rest of the deal when ``me``
    plays each candidate pair (``pairs[k]``, placed in that order) this turn. Every pair is tried on
    the same determinizations; every other player plays random pairs, lower card first."""
    np.random.seed(seed)
    players = hands0.shape[0]
    k_count = pairs.shape[0]
    out = np.zeros((k_count, samples, players), dtype=np.float64)
    sample = np.zeros_like(hands0)
    board = _board(hands0, hlen0, rows0, lens0)
    hands, hlen, rows, lens, penalties = board
    cards = np.zeros((players, 2), dtype=np.int64)
    for j in range(samples):
        _determinize(sample, hands0, hlen0, known, pool)
        for k in range(k_count):
            _reset(board, sample, hlen0, rows0, lens0)
            first = True
            while hlen[me] > 0:
                for s in range(players):
                    if first and s == me:
                        # Remove the pair from the hand; the rest keeps its random order.
                        n = 0
                        for i in range(hlen[s]):
                            c = hands[s, i]
                            if c != pairs[k, 0] and c != pairs[k, 1]:
                                hands[s, n] = c
                                n += 1
                        hlen[s] = n
                        cards[s, 0] = pairs[k, 0]
                        cards[s, 1] = pairs[k, 1]
                    else:
                        _take_last_two(hands, hlen, s, cards)
                first = False
                nb_play_turn_nifty(rows, lens, cards, penalties)
            out[k, j, :] = penalties
    return out


# ------------------------------------------------------------------ opponent models and inference


@njit(cache=True)
def _deal_from(
    out: np.ndarray, hands: np.ndarray, hlen: np.ndarray, known: np.ndarray, perm: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Fill ``out`` as :func:`_determinize` does, from a given ordering ``perm`` of the unseen cards
    (an inferred deal) instead of a fresh shuffle; every hand is then shuffled (its random play order)."""
    taken = 0
    for s in range(hands.shape[0]):
        for j in range(hlen[s]):
            if known[s]:
                out[s, j] = hands[s, j]
            else:
                out[s, j] = perm[taken]
                taken += 1
        np.random.shuffle(out[s, : hlen[s]])


@njit(cache=True)
def _model_probability(
    rows: np.ndarray,
    lens: np.ndarray,
    hands: np.ndarray,
    hlen: np.ndarray,
    s: int,
    played: int,
    policy: int,
    professional: bool,
    noise: float,
    lapse: float,
    undealt: np.ndarray,
    tail: np.ndarray,
    cnt: np.ndarray,
    bul: np.ndarray,
    scores: np.ndarray,
    picks: tuple[int, int],
) -> float:  # pragma: no cover - compiled
    """The chance that seat ``s``, holding ``hands[s, :hlen[s]]``, plays ``played`` under ``policy``:
    ``lapse`` spread over the hand (any player errs), the rest on the policy's choice. ``MEDIUM`` and
    ``SEARCHLIKE`` choose one card; ``COUNT``, ``CAUTIOUS`` and ``SNUG`` any card within ``noise``
    of their best estimate, uniformly (their rollout noise, read coarsely). ``scores``: scratch space
    for the hand's estimates; ``picks``: the hand indices ``MEDIUM`` and ``SEARCHLIKE`` choose
    (:func:`_both_picks`, made once for every model)."""
    n = int(hlen[s])
    if policy == RANDOM or n == 1:
        return 1.0 / n
    if policy == MEDIUM or policy == SEARCHLIKE:
        i = picks[0] if policy == MEDIUM else picks[1]
        return lapse / n + (1.0 - lapse if hands[s, i] == played else 0.0)
    best = 1e18
    mine = 0.0
    for i in range(n):
        scores[i] = _danger(rows, lens, hands, hlen, s, i, policy, professional, undealt, tail)
        best = min(best, scores[i])
        if hands[s, i] == played:
            mine = scores[i]
    near = 0
    for i in range(n):
        if scores[i] <= best + noise:
            near += 1
    return lapse / n + ((1.0 - lapse) / near if mine <= best + noise else 0.0)


@njit(cache=True, nogil=True)
def play_likelihoods(
    rows_seen: np.ndarray,
    lens_seen: np.ndarray,
    plays: np.ndarray,
    seen: np.ndarray,
    hands0: np.ndarray,
    hlen0: np.ndarray,
    known: np.ndarray,
    pool: np.ndarray,
    me: int,
    deals: int,
    models: np.ndarray,
    professional: bool,
    noise: float,
    lapse: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Sample ``deals`` guesses of the hidden hands and score each seat's earlier plays under each
    model: returns the deals (``int64[deals, pool]``, orderings of the unseen cards that
    :func:`_deal_from` deals from) and ``float64[deals, turns, players, models]``, the log-likelihood
    of each earlier play of each seat in each deal under each model (0 where not scored).

    Turn ``k`` of this deal (``plays[k, s]``: the card seat ``s`` played then) is scored where
    ``seen[k]`` (its rows, ``rows_seen[k]`` and ``lens_seen[k]``, are known). A deal fixes every
    hand at every earlier turn (each seat's hand now plus the cards it played since), so each
    model's choice there is computed exactly as in a rollout."""
    np.random.seed(seed)
    players = hands0.shape[0]
    turns = plays.shape[0]
    width = hands0.shape[1] + turns
    perms = np.empty((deals, pool.shape[0]), dtype=np.int64)
    loglik = np.zeros((deals, turns, players, models.shape[0]), dtype=np.float64)
    hands = np.zeros((players, width), dtype=np.int64)
    hlen = np.zeros(players, dtype=np.int64)
    scratch = _scratch(players)
    tail, cnt, bul = scratch[3], scratch[4], scratch[5]
    scores = np.zeros(width, dtype=np.float64)
    dealt = _dealt(hlen0, known)
    for d in range(deals):
        np.random.shuffle(pool)
        perms[d] = pool
        taken = 0
        for s in range(players):
            hlen[s] = hlen0[s]
            for j in range(hlen0[s]):
                if known[s]:
                    hands[s, j] = hands0[s, j]
                else:
                    hands[s, j] = pool[taken]
                    taken += 1
        undealt = pool[dealt:]
        for k in range(turns - 1, -1, -1):  # back through the deal: each turn's card returns to its hand
            for s in range(players):
                hands[s, hlen[s]] = plays[k, s]
                hlen[s] += 1
            if not seen[k]:
                continue
            hidden_counts(hands, hlen, undealt, cnt, bul)
            for s in range(players):
                if s == me:
                    continue
                picks = _both_picks(rows_seen[k], lens_seen[k], hands[s], hlen[s], cnt, bul, players - 1, professional)
                for m in range(models.shape[0]):
                    p = _model_probability(
                        rows_seen[k], lens_seen[k], hands, hlen, s, plays[k, s], models[m], professional, noise,
                        lapse, undealt, tail, cnt, bul, scores, picks,
                    )
                    loglik[d, k, s, m] = math.log(p)
    return perms, loglik


@njit(cache=True, nogil=True)
def rollout_models(
    rows0: np.ndarray,
    lens0: np.ndarray,
    hands0: np.ndarray,
    hlen0: np.ndarray,
    known: np.ndarray,
    perms: np.ndarray,
    mixture: np.ndarray,
    models: np.ndarray,
    me: int,
    own_policy: int,
    candidates: np.ndarray,
    samples: int,
    professional: bool,
    tie_mode: int,
    noise: float,
    seed: int,
    offset: int = 0,
) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`rollout_cards` on inferred deals with modelled opponents: rollout ``j`` deals the
    hidden hands from guess ``d = (offset + j) % deals`` of ``perms`` (hands shuffled afresh) and
    plays each other seat ``s`` by a model drawn from ``mixture[d, s]`` (cumulative chances over
    ``models``); this seat plays ``own_policy`` after this turn. Every candidate is tried on the same
    deal and the same models (common random numbers). ``offset``: where this batch starts among the
    guesses, so that a search in several batches can walk through all of them."""
    np.random.seed(seed)
    players = hands0.shape[0]
    k_count = candidates.shape[0]
    deals = perms.shape[0]
    out = np.zeros((k_count, samples, players), dtype=np.float64)
    sample = np.zeros_like(hands0)
    board = _board(hands0, hlen0, rows0, lens0)
    policies = np.zeros(players, dtype=np.int64)
    scratch = _scratch(players)
    face_down = np.zeros(players, dtype=np.int64)  # no card is played face up before this turn
    dealt = _dealt(hlen0, known)
    for j in range(samples):
        d = (offset + j) % deals
        _deal_from(sample, hands0, hlen0, known, perms[d])
        undealt = perms[d, dealt:]
        for s in range(players):
            if s == me:
                policies[s] = own_policy
                continue
            u = np.random.random()
            m = 0
            while m < models.shape[0] - 1 and mixture[d, s, m] < u:
                m += 1
            policies[s] = models[m]
        for k in range(k_count):
            _reset(board, sample, hlen0, rows0, lens0)
            _play_candidate(
                board, me, candidates[k], face_down, policies, professional, tie_mode, noise, False, undealt, scratch
            )
            out[k, j, :] = board[4]
    return out
