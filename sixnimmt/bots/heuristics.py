"""Hand-written bots: quick, explainable, and of different character.

* ``snug`` (the ``easy`` level) plays the card that fits most snugly behind a row end in a row with
  room, never counts cards, and takes the cheapest row when it must.
* ``cautious`` (the ``medium`` level) counts cards: for each card it estimates the chance that enough
  unseen cards land in front of it to make it a sixth card, and plays the card with the lowest
  expected penalty. Its row choices look one turn ahead (the rest of this turn's cards, then its own
  best next card), so it does not fall for the cheapest row when that row is a trap (docs/rules.md E3).

Both draft in Logic and Tournament with :func:`draft_pick`. The helpers here are also used by the
search bots, which fall back on ``cautious`` in the variants they do not search (Nifty, Hand): there
it counts both cards each opponent plays (Nifty), plays out Nifty's order exactly
(:func:`order_pick`), scores Hand's immediate placements exactly (:func:`hand_scores`) and
answers Hand's optional second card and kept cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from ..core import BULLHEADS, Decision, DecisionKind, PlayerView, Variant, best_slots
from ..core.fast import FastDeal, cheapest_row, row_cost
from ..core.placement import row_size
from ..core.views import PASS
from .base import Bot

Rows = Sequence[Sequence[int]]

#: Variants whose turns are one simultaneous card each, placed by the standard or Professional
#: rules: the compiled rollouts and the one-turn lookahead model exactly these.
SIMULTANEOUS_SINGLE = frozenset(
    {Variant.STANDARD, Variant.TACTICS, Variant.LOGIC, Variant.PROFESSIONAL, Variant.TOURNAMENT}
)
#: Hand variant: keep taken cards in hand only while the hand is smaller than this (cards left in
#: hand at the end score double, so a small hand is the safe side).
KEEP_BELOW = 8
#: ``cautious`` plays cards of equal risk highest first (keeping the low cards, which can take a
#: cheap row later on purpose) above this many players, and snuggest first up to it: with one
#: opponent nearly every card is safe, so "highest first" plays the hand from the top down and
#: leaves low cards that must take rows at the end (docs/bots.md, the levels at two players).
SNUG_TIES_UP_TO = 2


def draft_pick(view: PlayerView) -> int:
    """Logic draft: take the card with the most bullheads (then the lowest card).

    Every drafted card is played onto the rows by its owner and usually taken by someone else, so
    holding the costly cards keeps them out of the opponents' control; low cards are flexible (a
    deliberate cheap take). A simple, documented rule, not a searched one.
    """
    assert view.decision is not None
    return min(view.decision.options, key=lambda c: (-BULLHEADS[c], c))


def keep_pick(view: PlayerView) -> int:
    """Hand variant: move the costliest taken card to the hand while the hand is small, else stop.

    A kept card leaves the pile (its bullheads are not scored now) and can be played onto a row for
    someone else to take, but scores double if still in hand at the end.
    """
    assert view.decision is not None
    cards = [c for c in view.decision.options if c != PASS]
    if not cards or len(view.hand) >= KEEP_BELOW:
        return PASS
    best = max(cards, key=lambda c: (BULLHEADS[c], -c))
    return best if BULLHEADS[best] >= 2 else PASS


def order_pick(view: PlayerView) -> tuple[int, dict[int, float]]:
    """Nifty: which of this seat's two revealed cards to place first.

    Everything left to place this turn is face up, so each order is played out exactly: this seat's
    two cards, then the other seats' in the rules' order (the seat holding the lowest card left
    places both, lower card first; too-low cards take the cheapest row). Scores are this seat's
    bullheads this turn; on a tie the lower card goes first.
    """
    decision = view.decision
    assert decision is not None and view.revealed is not None and view.seat is not None
    me = view.seat
    per_turn = view.rules.cards_per_turn
    owner = {card: i // per_turn for i, card in enumerate(view.revealed)}
    scores: dict[int, float] = {}
    for first in decision.options:
        deal = FastDeal(view.rows, view.players, row_limit=view.rules.row_limit)
        for card in (first, *(c for c in decision.options if c != first)):
            deal.place(me, card)
        left: dict[int, list[int]] = {}
        for card in view.unplaced:
            if owner[card] != me:
                left.setdefault(owner[card], []).append(card)
        while left:
            seat = min(left, key=lambda s: (min(left[s]), s))
            for card in sorted(left.pop(seat)):
                deal.place(seat, card)
        scores[first] = float(deal.penalties[me])
    return min(scores, key=lambda c: (scores[c], c)), scores


def hand_scores(view: PlayerView, cards: Sequence[int]) -> dict[int, float]:
    """Hand variant: a card played is placed at once, so its cost now is exact (a too-low card takes
    the cheapest row). A small bonus for shedding bullheads (cards left in hand score double), and
    the snuggest fit among free cards, break ties."""
    scores: dict[int, float] = {}
    for card in cards:
        deal = FastDeal(view.rows, 1, row_limit=view.rules.row_limit)
        deal.place(0, card)
        r = _target(view.rows, card, False)
        gap = card - view.rows[r][-1] if r is not None else 104
        scores[card] = deal.penalties[0] - 0.1 * BULLHEADS[card] + gap / 1000
    return scores


def _target(rows: Rows, card: int, professional: bool, stack: bool = False) -> int | None:
    """The row ``card`` would join now (``None`` if too low). A Professional tie counts as its first
    slot: both tied rows are at the same distance, which is all the estimates below need."""
    slots = best_slots(rows, card, professional, stack)
    return slots[0].row if slots else None


def _fit(view: PlayerView, card: int) -> int:
    """How far ``card`` lands from the row end it joins (a too-low card: farther than any)."""
    r = _target(view.rows, card, view.rules.professional, view.rules.variant is Variant.DOUBLE)
    if r is None:
        return 1 << 30
    row = view.rows[r]
    return card - row[-1] if card >= row[-1] else row[0] - card


def _gap(row: Sequence[int], card: int) -> tuple[int, int]:
    """The open interval of card values that land in ``row`` in front of ``card``: (low, high)."""
    if card > row[-1]:
        return row[-1], card
    return card, row[0]  # Professional left end


def sure_cost(rows: Rows, card: int, professional: bool, row_limit: int) -> int | None:
    """Bullheads ``card`` takes for sure if no other card lands first (rows of at most
    ``row_limit`` cards); ``None`` when it is safe."""
    r = _target(rows, card, professional)
    if r is None:
        return min(row_cost(row) for row in rows)
    if len(rows[r]) >= row_limit:
        return row_cost(rows[r])
    return None


def expected_cost(view: PlayerView, rows: Rows, card: int, unseen: Sequence[int]) -> float:
    """Card counting: expected bullheads of playing ``card`` on ``rows`` this turn.

    A sure sixth card or a too-low card costs its row. Otherwise the card is taken when at least
    ``row_limit - len(row)`` (5 - len(row) in the full game) of the other players' cards land
    between the row end and it; each card the others play this turn (one each, two each in Nifty)
    is modelled as an unseen card drawn uniformly at random.
    """
    professional = view.rules.professional
    stack = view.rules.variant is Variant.DOUBLE
    r = _target(rows, card, professional, stack)
    if r is None:
        return float(min(row_cost(row) for row in rows)) + 0.5
    row = rows[r]
    cost = row_cost(row)
    if stack and row[-1] == card:
        return 0.0  # stacked on its twin: takes no place in the row
    need = view.rules.row_limit - row_size(row, stack)
    if need <= 0:
        return float(cost)
    low, high = _gap(row, card)
    between = [c for c in unseen if low < c < high]
    if not unseen or not between:
        return 0.0
    others = (view.players - 1) * view.rules.cards_per_turn
    if need > others:
        return 0.0
    q = len(between) / len(unseen)
    # P(at least `need` of `others` independent players land in the gap): binomial tail.
    p = sum(comb(others, k) * q**k * (1 - q) ** (others - k) for k in range(need, others + 1))
    landing_cost = sum(BULLHEADS[c] for c in between) / len(between)
    return p * (cost + need * landing_cost)


def after_row_choice(view: PlayerView, row: int) -> tuple[int, list[list[int]]]:
    """Settle the pending row choice with ``row`` and place the turn's remaining cards (their owners'
    own row choices: the cheapest row). Returns the bullheads this seat takes and the rows after."""
    decision = view.decision
    assert decision is not None and decision.kind is DecisionKind.ROW and view.revealed is not None
    rules = view.rules
    deal = FastDeal(view.rows, view.players, rules.professional, rules.pro_tie, rules.row_limit)
    me = decision.seat
    card = decision.card
    assert card is not None
    if decision.reason == "too-low":
        deal.penalties[me] += row_cost(deal.rows[row])
        deal.rows[row] = [card]
    else:
        deal.place(me, card, lambda rows, seat, c: row)
    for other in view.unplaced[1:]:
        deal.place(view.revealed.index(other), other, cheapest_row)
    return deal.penalties[me], deal.rows


class SnugBot(Bot):
    """Fits cards snugly behind row ends; no card counting. With ``slips`` above zero, that share of
    its card decisions is a card of the hand at random: the ``easy`` level (docs/bots.md), whose
    plain snug fit alone beats ``medium`` with two players."""

    name = "snug"

    def __init__(self, seed: int | None = None, slips: float = 0.0) -> None:
        super().__init__(seed)
        self.slips = slips

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None
        if self.slips and decision.kind is DecisionKind.CARD and self.rng.random() < self.slips:
            return self.rng.choice(decision.options)
        if decision.kind is DecisionKind.DRAFT:
            return draft_pick(view)
        if decision.kind is DecisionKind.KEEP:
            return keep_pick(view)
        if decision.kind is DecisionKind.ROW:
            return min(decision.options, key=lambda r: (row_cost(view.rows[r]), len(view.rows[r]), r))
        if PASS in decision.options:
            return PASS  # Hand's optional second card: snug never volunteers one
        professional = view.rules.professional
        stack = view.rules.variant is Variant.DOUBLE
        limit = view.rules.row_limit
        fits: list[tuple[int, int]] = []
        for card in decision.options:
            r = _target(view.rows, card, professional, stack)
            if r is not None and row_size(view.rows[r], stack) < limit:
                low, high = _gap(view.rows[r], card)
                fits.append((high - low, card))
        if fits:
            return min(fits)[1]
        # Every card takes a row: take the cheapest, keeping the higher card on equal cost.
        return min(decision.options, key=lambda c: (sure_cost(view.rows, c, professional, limit) or 0, -c))


class CautiousBot(Bot):
    """Counts cards and plays the lowest expected penalty. The ``medium`` level."""

    name = "cautious"

    def card_scores(self, view: PlayerView, rows: Rows, cards: Sequence[int]) -> dict[int, float]:
        unseen = view.unseen_cards()
        if view.hands is not None:  # Logic: the others' hands are known exactly
            assert view.seat is not None
            unseen = tuple(c for s, h in enumerate(view.hands) if s != view.seat for c in h)
        return {card: expected_cost(view, rows, card, unseen) for card in cards}

    def row_scores(self, view: PlayerView, decision: Decision) -> dict[int, float]:
        """Bullheads taken now plus the expected cost of this seat's best next card on the board the
        turn leaves: the cheapest row is not the best when it leaves only traps (docs/rules.md E3)."""
        scores: dict[int, float] = {}
        rest = list(view.hand)
        for row in decision.options:
            taken, rows = after_row_choice(view, row)
            future = min(self.card_scores(view, rows, rest).values()) if rest else 0.0
            scores[row] = taken + future
        return scores

    def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        decision = view.decision
        assert decision is not None
        if decision.kind is DecisionKind.DRAFT:
            return draft_pick(view), {}
        if decision.kind is DecisionKind.KEEP:
            return keep_pick(view), {}
        if decision.kind is DecisionKind.ROW:
            if view.rules.variant not in SIMULTANEOUS_SINGLE:
                scores = {r: float(row_cost(view.rows[r])) for r in decision.options}
            else:
                scores = self.row_scores(view, decision)
            return min(scores, key=lambda r: (scores[r], r)), scores
        if decision.kind is DecisionKind.ORDER:
            return order_pick(view)
        cards = [c for c in decision.options if c != PASS]
        if view.rules.variant is Variant.HAND:
            scores = hand_scores(view, cards)
            best = min(cards, key=lambda c: (scores[c], c))
            if PASS in decision.options and scores[best] > 0:
                return PASS, scores  # the optional second card only when it is free
            return best, scores
        scores = self.card_scores(view, view.rows, cards)
        if PASS in decision.options:
            # Hand's optional second card: shed one only when that is (nearly) free.
            safest = min(cards, key=lambda c: scores[c])
            return (safest if scores[safest] < 0.1 else PASS), scores
        # Equal risk (often zero): keep the low cards, which can take a cheap row later on purpose;
        # at a table of two, the snuggest fit first (see SNUG_TIES_UP_TO).
        snug = view.players <= SNUG_TIES_UP_TO
        return min(scores, key=lambda c: (round(scores[c], 6), _fit(view, c) if snug else 0, -c)), scores

    def decide(self, view: PlayerView) -> int:
        return self.explain(view)[0]
