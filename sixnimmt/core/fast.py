"""The fast path for simulation: compact state, unchecked moves, cheap copies.

The checked :class:`~sixnimmt.core.game.Game` validates every input, records history and emits
events; a search bot that plays millions of simulated turns needs none of that. This module has two
tiers, both exactly the rules of :mod:`sixnimmt.core.placement` (the tests compare them with the
checked engine on random deals):

* :class:`FastDeal`, plain Python: rows as lists, a turn as a list of cards per seat. A too-low card's
  row is chosen by a callback (default: the row with the fewest bullheads).
* ``nb_*`` functions compiled with numba for batched rollouts: rows as an ``int64[R, L + 1]`` array
  (``R`` rows of at most ``L`` cards, one slot more for the append before a take: ``int64[4, 6]``
  in the full game) with an ``int64[R]`` of lengths: standard placement (Tactics and Logic place
  the same way), Professional (``nb_place_pro``), Double (``nb_place_double`` on rows
  ``int64[4, 12]``, ``nb_play_turn_double``) and Nifty turns (``nb_play_turn_nifty``).

Both tiers take the table's shape as data, so a smaller game of the same rules (``Rules.size``:
fewer rows, shorter rows) plays on them too: :class:`FastDeal` from its rows and ``row_limit``, the
kernels from the shape of the arrays they are given (:func:`nb_row_limit`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from .cards import BULLHEADS, DECK_SIZE, HAND_SIZE, ROW_COUNT, ROW_LIMIT
from .placement import Side, best_slots
from .rules import ProTie

#: ``choose(rows, seat, card) -> row`` for a too-low card (or a Professional tie: then the options
#: are the tied rows, passed as ``options``).
RowChooser = Callable[[list[list[int]], int, int], int]


def row_cost(row: Sequence[int]) -> int:
    return sum(BULLHEADS[c] for c in row)


def cheapest_row(rows: list[list[int]], seat: int = 0, card: int = 0) -> int:
    """The row with the fewest bullheads (then fewest cards, then lowest index)."""
    best, best_key = 0, (1 << 30, 0)
    for index, row in enumerate(rows):
        key = (row_cost(row), len(row))
        if key < best_key:
            best, best_key = index, key
    return best


class FastDeal:
    """Rows and this deal's penalties; nothing else. ``copy()`` is two list copies."""

    __slots__ = ("penalties", "pro_tie", "professional", "row_limit", "rows")

    def __init__(
        self,
        rows: Sequence[Sequence[int]],
        players: int,
        professional: bool = False,
        pro_tie: ProTie | str = ProTie.CHOOSE,
        row_limit: int = ROW_LIMIT,
    ) -> None:
        """``pro_tie`` settles a Professional tie as ``Game(pro_tie=...)`` does: ``choose`` asks
        the row chooser, ``left``/``right`` take that end. ``row_limit``: the cards a row holds
        before the next one takes it (``Rules.row_limit``); the number of rows is ``len(rows)``."""
        self.rows = [list(r) for r in rows]
        self.penalties = [0] * players
        self.professional = professional
        self.pro_tie = ProTie(pro_tie)
        self.row_limit = row_limit

    def copy(self) -> FastDeal:
        clone = FastDeal.__new__(FastDeal)
        clone.rows = [r[:] for r in self.rows]
        clone.penalties = self.penalties[:]
        clone.professional = self.professional
        clone.pro_tie = self.pro_tie
        clone.row_limit = self.row_limit
        return clone

    def place(self, seat: int, card: int, choose: RowChooser = cheapest_row) -> None:
        """Place one card by the rules, charging ``seat`` for any row taken. Unchecked."""
        rows = self.rows
        if not self.professional:
            # Inline search: this is the innermost loop of every rollout.
            best, gap = -1, 1 << 30
            for i in range(len(rows)):
                d = card - rows[i][-1]
                if 0 < d < gap:
                    best, gap = i, d
            if best < 0:
                best = choose(rows, seat, card)
                self.penalties[seat] += row_cost(rows[best])
                rows[best] = [card]
            elif len(rows[best]) >= self.row_limit:
                self.penalties[seat] += row_cost(rows[best])
                rows[best] = [card]
            else:
                rows[best].append(card)
            return
        slots = best_slots(rows, card, True)
        if not slots:
            best = choose(rows, seat, card)
            self.penalties[seat] += row_cost(rows[best])
            rows[best] = [card]
            return
        slot = slots[0]
        if len(slots) == 2:
            if self.pro_tie is ProTie.CHOOSE:
                row = choose(rows, seat, card)
                slot = slots[0] if slots[0].row == row else slots[1]
            else:
                side = Side.LEFT if self.pro_tie is ProTie.LEFT else Side.RIGHT
                slot = next(s for s in slots if s.side is side)
        target = rows[slot.row]
        if len(target) >= self.row_limit:
            self.penalties[seat] += row_cost(target)
            rows[slot.row] = [card]
        elif slot.side is Side.RIGHT:
            target.append(card)
        else:
            target.insert(0, card)

    def play_turn(self, cards: Sequence[int], choose: RowChooser = cheapest_row) -> None:
        """Resolve one turn: ``cards[seat]`` is each seat's card; placed in ascending order."""
        for card, seat in sorted(zip(cards, range(len(cards)))):
            self.place(seat, card, choose)


# ---------------------------------------------------------------------------------------------
# Compiled tier (numba). Arrays: rows int64[R, L + 1] (R rows of at most L cards; the extra slot
# simplifies appends), lens int64[R]. The full game's are int64[4, 6] and int64[4].

_BULL = np.array(BULLHEADS, dtype=np.int64)


@njit(cache=True)
def nb_row_limit(rows: np.ndarray) -> int:  # pragma: no cover - compiled
    """The cards (Double: places) a row holds before the next one takes it, from the rows' shape:
    the width less the append slot. Double's rows are wider, for stacked twins, and hold five places
    (Double is played at full size only)."""
    return int(min(rows.shape[1] - 1, ROW_LIMIT))


@njit(cache=True)
def nb_row_cost(rows: np.ndarray, lens: np.ndarray, r: int) -> int:  # pragma: no cover - compiled
    total = 0
    for j in range(lens[r]):
        total += _BULL[rows[r, j]]
    return total


@njit(cache=True)
def nb_cheapest_row(rows: np.ndarray, lens: np.ndarray) -> int:  # pragma: no cover - compiled
    best = 0
    best_cost = 1 << 30
    best_len = 1 << 30
    for r in range(lens.shape[0]):
        cost = nb_row_cost(rows, lens, r)
        if cost < best_cost or (cost == best_cost and lens[r] < best_len):
            best, best_cost, best_len = r, cost, lens[r]
    return best


@njit(cache=True)
def nb_row_for(rows: np.ndarray, lens: np.ndarray, card: int) -> tuple[int, int]:  # pragma: no cover
    """The row ``card`` joins by the standard rules (the highest end below it) and the gap to that
    end; row -1 when it is lower than every end."""
    best = -1
    gap = 1 << 30
    for r in range(lens.shape[0]):
        d = card - rows[r, lens[r] - 1]
        if 0 < d < gap:
            best, gap = r, d
    return best, gap


@njit(cache=True)
def nb_place(rows: np.ndarray, lens: np.ndarray, card: int, low_row: int) -> int:  # pragma: no cover
    """Place ``card`` (standard rules); returns the bullheads its owner takes. A too-low card takes
    ``low_row``, or the cheapest row when ``low_row`` is -1."""
    best, _ = nb_row_for(rows, lens, card)
    if best < 0:
        r = low_row if low_row >= 0 else nb_cheapest_row(rows, lens)
        cost = nb_row_cost(rows, lens, r)
        rows[r, 0] = card
        lens[r] = 1
        return cost
    if lens[best] >= nb_row_limit(rows):
        cost = nb_row_cost(rows, lens, best)
        rows[best, 0] = card
        lens[best] = 1
        return cost
    rows[best, lens[best]] = card
    lens[best] += 1
    return 0


@njit(cache=True)
def nb_play_turn(
    rows: np.ndarray, lens: np.ndarray, cards: np.ndarray, penalties: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One turn: ``cards[seat]`` placed in ascending order; too-low cards take the cheapest row."""
    order = np.argsort(cards)
    for k in range(cards.shape[0]):
        seat = order[k]
        penalties[seat] += nb_place(rows, lens, cards[seat], -1)


@njit(cache=True)
def nb_random_games(
    games: int, players: int, target: int, seed: int
) -> np.ndarray:  # pragma: no cover - compiled
    """Play ``games`` whole standard games between random players (too-low: cheapest row) to the
    ``>= target`` end; returns the final totals, shape (games, players)."""
    np.random.seed(seed)
    out = np.zeros((games, players), dtype=np.int64)
    rows = np.zeros((ROW_COUNT, ROW_LIMIT + 1), dtype=np.int64)
    lens = np.zeros(ROW_COUNT, dtype=np.int64)
    deck = np.arange(1, DECK_SIZE + 1)
    cards = np.zeros(players, dtype=np.int64)
    penalties = np.zeros(players, dtype=np.int64)
    for g in range(games):
        totals = np.zeros(players, dtype=np.int64)
        while totals.max() < target:
            # A shuffled deck is the deal *and* every random player's play order at once.
            np.random.shuffle(deck)
            base = players * HAND_SIZE
            for r in range(ROW_COUNT):
                rows[r, 0] = deck[base + r]
                lens[r] = 1
            penalties[:] = 0
            for t in range(HAND_SIZE):
                for s in range(players):
                    cards[s] = deck[s * HAND_SIZE + t]
                nb_play_turn(rows, lens, cards, penalties)
            totals += penalties
        out[g] = totals
    return out


# Professional placement (docs/rules.md §5.3) for the compiled tier: a card may go to either end of a row.
#: ``tie_mode`` for the compiled Professional kernels: how a left/right tie is settled in a rollout.
TIE_CHOOSE, TIE_LEFT, TIE_RIGHT = 0, 1, 2


@njit(cache=True)
def nb_put(rows: np.ndarray, lens: np.ndarray, r: int, card: int, left: bool) -> int:  # pragma: no cover
    """Put ``card`` at the left or right end of row ``r``; a full row is taken first and the card
    starts it again. Returns the bullheads taken."""
    if lens[r] >= nb_row_limit(rows):
        cost = nb_row_cost(rows, lens, r)
        rows[r, 0] = card
        lens[r] = 1
        return cost
    if left:
        for j in range(lens[r], 0, -1):
            rows[r, j] = rows[r, j - 1]
        rows[r, 0] = card
    else:
        rows[r, lens[r]] = card
    lens[r] += 1
    return 0


@njit(cache=True)
def nb_slots_pro(rows: np.ndarray, lens: np.ndarray, card: int) -> tuple[int, int, int]:  # pragma: no cover
    """Professional: ``(right_row, left_row, distance)`` of the closest end(s) accepting ``card``.

    One of the rows is -1 normally; both are -1 when no end accepts the card (too low for every
    row); both are set for a tie between one row's right end and another's left end."""
    best = 1 << 30
    right_row = -1
    left_row = -1
    for r in range(lens.shape[0]):
        d = card - rows[r, lens[r] - 1]
        if d > 0:
            if d < best:
                best, right_row, left_row = d, r, -1
            elif d == best:
                right_row = r
        d = rows[r, 0] - card
        if d > 0:
            if d < best:
                best, right_row, left_row = d, -1, r
            elif d == best:
                left_row = r
    return right_row, left_row, best


@njit(cache=True)
def nb_place_pro(
    rows: np.ndarray, lens: np.ndarray, card: int, low_row: int, tie_mode: int
) -> int:  # pragma: no cover - compiled
    """Place ``card`` by the Professional rules; returns the bullheads its owner takes. A card no end
    accepts takes ``low_row`` (the cheapest row when -1). A tie goes by ``tie_mode``; with
    ``TIE_CHOOSE`` the owner avoids a full row when the other tied row has room, else goes right."""
    right_row, left_row, _ = nb_slots_pro(rows, lens, card)
    if right_row < 0 and left_row < 0:
        r = low_row if low_row >= 0 else nb_cheapest_row(rows, lens)
        cost = nb_row_cost(rows, lens, r)
        rows[r, 0] = card
        lens[r] = 1
        return cost
    if right_row >= 0 and left_row >= 0:
        limit = nb_row_limit(rows)
        if tie_mode == 1 or (tie_mode == 0 and lens[right_row] >= limit and lens[left_row] < limit):
            right_row = -1
        else:
            left_row = -1
    if left_row >= 0:
        return nb_put(rows, lens, left_row, card, True)
    return nb_put(rows, lens, right_row, card, False)


# Double (docs/rules.md §6) for the compiled tier: two decks, so a card may have a twin. Rows need room
# for stacked twins: use rows int64[4, DOUBLE_ROW_WIDTH] (5 places of up to 2 cards, and room to
# append before a take).
DOUBLE_ROW_WIDTH = 12


@njit(cache=True)
def nb_row_size_double(rows: np.ndarray, lens: np.ndarray, r: int) -> int:  # pragma: no cover
    """Places row ``r`` fills toward the limit of 5: a stack of twins is one place."""
    size = 0
    for j in range(lens[r]):
        if j == 0 or rows[r, j - 1] != rows[r, j]:
            size += 1
    return size


@njit(cache=True)
def nb_place_double(rows: np.ndarray, lens: np.ndarray, card: int, low_row: int) -> int:  # pragma: no cover
    """Place ``card`` by Double's rules (its owner alone); returns the bullheads of the row taken.

    A card whose twin ends a row is stacked on it (no new place, never a take); otherwise standard
    placement with places counted as stacks. A too-low card takes ``low_row`` (cheapest when -1).
    Sharing a pickup between twins is the turn's business: :func:`nb_play_turn_double`."""
    for r in range(lens.shape[0]):
        if rows[r, lens[r] - 1] == card:
            rows[r, lens[r]] = card
            lens[r] += 1
            return 0
    best = -1
    gap = 1 << 30
    for r in range(lens.shape[0]):
        d = card - rows[r, lens[r] - 1]
        if 0 < d < gap:
            best, gap = r, d
    if best < 0 or nb_row_size_double(rows, lens, best) >= nb_row_limit(rows):
        r = best
        if r < 0:
            r = low_row if low_row >= 0 else nb_cheapest_row(rows, lens)
        cost = nb_row_cost(rows, lens, r)
        rows[r, 0] = card
        lens[r] = 1
        return cost
    rows[best, lens[best]] = card
    lens[best] += 1
    return 0


@njit(cache=True)
def nb_charge_double(
    penalties: np.ndarray, cost: int, placed: np.ndarray, owners: np.ndarray, k: int
) -> None:  # pragma: no cover - compiled
    """Charge the pickup ``cost`` of a turn's ``k``-th placed card (``placed`` in placement order,
    ``owners`` their seats): when its twin is placed right after it, both owners pay half, rounded
    up (docs/rules.md §6); otherwise its owner pays it all."""
    if cost > 0 and k + 1 < placed.shape[0] and placed[k + 1] == placed[k]:
        half = (cost + 1) // 2
        penalties[owners[k]] += half
        penalties[owners[k + 1]] += half
    else:
        penalties[owners[k]] += cost


@njit(cache=True)
def nb_play_turn_double(
    rows: np.ndarray, lens: np.ndarray, cards: np.ndarray, penalties: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One Double turn: ``cards[seat]`` placed in ascending order (too-low: the cheapest row); twins
    stack, and a pickup forced by two identical cards is shared (docs/rules.md §6)."""
    owners = np.argsort(cards, kind="mergesort")  # stable: twins in seat order, as the engine
    placed = cards[owners]
    for k in range(cards.shape[0]):
        cost = nb_place_double(rows, lens, placed[k], -1)
        nb_charge_double(penalties, cost, placed, owners, k)


@njit(cache=True)
def nb_play_turn_nifty(
    rows: np.ndarray, lens: np.ndarray, cards: np.ndarray, penalties: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One Nifty turn (docs/rules.md §6): ``cards[seat]`` holds the seat's two cards in the order it
    places them. The seat holding the lowest card not yet placed places both, then the seat holding
    the lowest of the rest, and so on; too-low cards take the cheapest row."""
    players = cards.shape[0]
    done = np.zeros(players, dtype=np.bool_)
    for _ in range(players):
        seat = -1
        low = 1 << 30
        for s in range(players):
            if not done[s]:
                m = min(cards[s, 0], cards[s, 1])
                if m < low:
                    seat, low = s, m
        done[seat] = True
        penalties[seat] += nb_place(rows, lens, cards[seat, 0], -1)
        penalties[seat] += nb_place(rows, lens, cards[seat, 1], -1)
