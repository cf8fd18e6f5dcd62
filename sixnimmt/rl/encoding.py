"""How a :class:`~sixnimmt.core.PlayerView` becomes numbers, and how an action number becomes a move.

One layout serves every variant and every table size from 2 to 10 players, so that one policy can be
trained on any of them. Everything is computed from the seat's own view, never from the game: an
agent sees exactly what a human in that seat would see.

**Actions** (``Discrete(109)``, the same in every environment of this package):

===============  =============================================================
``0 .. 103``     the card ``action + 1``: play it (CARD) or draft it (Logic DRAFT)
``104 .. 107``   row ``action - 104``: the row to take or, in a Professional tie, to join (ROW)
``108``          pass: the only legal action of an agent that owes no decision
===============  =============================================================

**Observation**: a float32 vector of :data:`OBS_SIZE` numbers, each in ``[0, 1]``, made of the
segments in :data:`SEGMENTS` in that order (``segment_slice(name)`` gives each one's place). Card
segments are 104 long: index ``c - 1`` stands for card ``c``. Player segments are 10 slots long and
seat-relative: slot 0 is the observer, slot ``k`` the seat ``k`` places to its left (``(seat + k) %
players``); slots beyond the table size are 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from ..core import (
    BULLHEADS,
    DECK_SIZE,
    PASS,
    ROW_COUNT,
    ROW_LIMIT,
    Decision,
    DecisionKind,
    Placement,
    PlayerView,
)
from ..core import (
    VARIANT_NAMES as CORE_VARIANT_NAMES,
)
from ..core.placement import Side, best_slots, row_size
from ..core.rules import MAX_PLAYERS, Rules

# ---------------------------------------------------------------------------------------- actions

CARD_ACTIONS = DECK_SIZE  # actions 0..103 name cards 1..104
ROW_ACTION_BASE = CARD_ACTIONS  # actions 104..107 name rows 0..3
PASS_ACTION = ROW_ACTION_BASE + ROW_COUNT  # 108
N_ACTIONS = PASS_ACTION + 1  # 109


def action_to_move(action: int, decision: Decision) -> int:
    """The value to hand to ``game.act`` for ``action`` under ``decision`` (unchecked)."""
    if action == PASS_ACTION:
        return PASS  # Hand: no second card, or keep no more taken cards
    if decision.kind is DecisionKind.ROW:
        return action - ROW_ACTION_BASE
    return action + 1


def move_to_action(move: int, decision: Decision | None) -> int:
    """Inverse of :func:`action_to_move`: the action number for a bot's answer (``PASS_ACTION`` if none)."""
    if decision is None or (move == PASS and decision.kind is not DecisionKind.ROW):
        return PASS_ACTION
    if decision.kind is DecisionKind.ROW:
        return ROW_ACTION_BASE + move
    return move - 1


def action_mask(decision: Decision | None) -> NDArray[np.int8]:
    """1 for each legal action: the decision's options, or only ``PASS_ACTION`` when none is owed."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if decision is None:
        mask[PASS_ACTION] = 1
    elif decision.kind is DecisionKind.ROW:
        mask[[ROW_ACTION_BASE + r for r in decision.options]] = 1
    else:
        mask[[PASS_ACTION if c == PASS else c - 1 for c in decision.options]] = 1
    return mask


# ----------------------------------------------------------------------------------- observation

#: Scale for bullhead counts of one row (a full row of five cards rarely holds more than 20).
ROW_POINTS_SCALE = 20.0
#: Scale for totals when the game has no target (a fixed number of deals instead).
NO_TARGET_SCALE = 100.0
PLAYER_FEATURES = 5
ROW_FEATURES = 6
#: The variants, in the order of the observation's variant one-hot: the core's specs, in the order
#: of ``core.variants.VARIANTS``, so a variant added there at the end gets the next slot. The shipped
#: policies were trained on the first nine, in this order (tests/rl pin it).
VARIANT_NAMES: tuple[str, ...] = CORE_VARIANT_NAMES
#: Places in the variant one-hot: the variants, and spare slots so that another variant does not
#: change the vector's size (and a policy trained before it still loads).
VARIANT_SLOTS = 16
#: The variants the environments accept: those whose decisions and public information the layout
#: describes fully (every variant of the core so far).
SUPPORTED_VARIANTS: tuple[str, ...] = VARIANT_NAMES
#: Decision kinds, in the order of the observation's kind one-hot.
KIND_NAMES: tuple[str, ...] = ("card", "row", "draft", "order", "keep")


@dataclass(frozen=True, slots=True)
class Segment:
    name: str
    size: int
    meaning: str


#: The observation vector, in order. docs/rl.md prints this table.
SEGMENTS: tuple[Segment, ...] = (
    Segment("hand", DECK_SIZE, "1 if the card is in my hand"),
    Segment("table", DECK_SIZE, "1 if the card lies in a row"),
    Segment("unseen", DECK_SIZE, "1 if the card is in this variant's deck and I have not seen it "
            "this deal (another player's hidden hand, or set aside)"),
    Segment("unplaced", DECK_SIZE, "1 if the card was revealed this turn and waits to be placed "
            "(while a row choice is pending)"),
    Segment("others_hands", DECK_SIZE, "Logic: 1 if the card is in another player's (public) hand"),
    Segment("draft_pool", DECK_SIZE, "Logic: 1 if the card is still in the open draft pool"),
    Segment("hand_take", DECK_SIZE, "for each card in my hand: bullheads I would take if it were "
            "placed now on the rows as they are (too low: the cheapest row), / 20, capped at 1"),
    Segment("hand_gap", DECK_SIZE, "for each card in my hand: distance to the row end it would join "
            "now, / 104 (1 if too low)"),
    Segment("hand_too_low", DECK_SIZE, "for each card in my hand: 1 if no row end accepts it now"),
    Segment("rows", ROW_COUNT * ROW_FEATURES, "per row 0..3: first card / 104, last card / 104, "
            "length / 5, bullheads / 20 (capped), 1 if full (the next card there takes it), 1 if empty"),
    Segment("players", MAX_PLAYERS * PLAYER_FEATURES, "per seat-relative slot 0..9: present, total "
            "/ target (capped), penalties this deal / target (capped), cards in hand / hand size, has chosen "
            "a card this turn"),
    Segment("decision", len(KIND_NAMES) + 3, "kind one-hot (card, row, draft, order, keep), reason "
            "one-hot (too-low, tie), the card "
            "whose row is being chosen / 104"),
    Segment("context", 3 + VARIANT_SLOTS, "turn / hand size, deal / 10 (capped), players / 10, "
            f"variant one-hot ({', '.join(VARIANT_NAMES)}; then {VARIANT_SLOTS - len(VARIANT_NAMES)} "
            "spare slots for later variants)"),
)


def _offsets() -> dict[str, int]:
    offsets, position = {}, 0
    for segment in SEGMENTS:
        offsets[segment.name] = position
        position += segment.size
    return offsets


_OFFSET = _offsets()
OBS_SIZE = sum(s.size for s in SEGMENTS)
#: Sizes of the earlier observation layouts that this one only extends at its end: the first layout
#: had a one-hot of the nine variants and no spare slot. A policy made for one of them reads the
#: first that-many numbers of the vector, which still mean what they meant (rl/policy.py).
EARLIER_OBS_SIZES: tuple[int, ...] = (OBS_SIZE - VARIANT_SLOTS + 9,)

# Plain ints for the hot path below: attribute and dict lookups add up at thousands of steps/s.
_HAND = _OFFSET["hand"] - 1  # "- 1": card c sits at offset + c - 1
_TABLE = _OFFSET["table"] - 1
_UNSEEN = _OFFSET["unseen"] - 1
_UNPLACED = _OFFSET["unplaced"] - 1
_OTHERS = _OFFSET["others_hands"] - 1
_POOL = _OFFSET["draft_pool"] - 1
_TAKE = _OFFSET["hand_take"] - 1
_GAP = _OFFSET["hand_gap"] - 1
_TOO_LOW = _OFFSET["hand_too_low"] - 1
_ROWS = _OFFSET["rows"]
_PLAYERS = _OFFSET["players"]
_DECISION = _OFFSET["decision"]
_CONTEXT = _OFFSET["context"]
_KIND_INDEX = {name: i for i, name in enumerate(KIND_NAMES)}
_REASON = _DECISION + len(KIND_NAMES)
_VARIANT_INDEX = {name: i for i, name in enumerate(VARIANT_NAMES)}


def segment_slice(name: str) -> slice:
    """Where segment ``name`` lies in the observation vector."""
    for segment in SEGMENTS:
        if segment.name == name:
            start = _OFFSET[name]
            return slice(start, start + segment.size)
    raise KeyError(f"no observation segment {name!r}: choose one of {[s.name for s in SEGMENTS]}")


def _hand_placement(
    hand: tuple[int, ...], rows: tuple[tuple[int, ...], ...], costs: list[int], professional: bool, stack: bool
) -> list[tuple[int, bool, int, int]]:
    """For each hand card, where it would go if placed now: ``(card, too_low, gap, points)``, with
    ``points`` the bullheads it would take (too low: the cheapest row's; else 0 unless the row is full)."""
    placements = []
    if professional and not stack:
        # The closest accepting end, right or left (docs/rules.md §5.3), inline for speed as below; in a
        # tie the first end found, as best_slots lists it. tests/rl check it against best_slots.
        for card in hand:
            best, gap = -1, 1 << 30
            for index, row in enumerate(rows):
                for d in (card - row[-1], row[0] - card):  # right end, then left end
                    if 0 < d < gap:
                        best, gap = index, d
            if best < 0:
                placements.append((card, True, 0, min(costs)))
            else:
                placements.append((card, False, gap, costs[best] if len(rows[best]) >= ROW_LIMIT else 0))
        return placements
    if stack or len(rows) != ROW_COUNT:  # Double, or a smaller game (rules.size): ask the core
        for card in hand:  # a card may stack on its twin (Double)
            slots = best_slots(rows, card, professional, stack)
            if not slots:
                placements.append((card, True, 0, min(costs)))
                continue
            slot = slots[0]  # in a tie both ends are at the same distance
            row = rows[slot.row]
            gap = card - row[-1] if slot.side is Side.RIGHT else row[0] - card
            full = gap != 0 and row_size(row, stack) >= ROW_LIMIT  # a stacked twin takes no place
            placements.append((card, False, gap, costs[slot.row] if full else 0))
        return placements
    # The closest lower row end (docs/rules.md §3 rule 2), inline as in core.fast.FastDeal.place because
    # this runs for every card of every hand at every step; tests/rl check it against best_slots.
    end0, end1, end2, end3 = (row[-1] for row in rows)  # the four rows written out, as in the core
    for card in hand:
        best, gap = -1, 1 << 30
        d = card - end0
        if d > 0:
            best, gap = 0, d
        d = card - end1
        if 0 < d < gap:
            best, gap = 1, d
        d = card - end2
        if 0 < d < gap:
            best, gap = 2, d
        d = card - end3
        if 0 < d < gap:
            best, gap = 3, d
        if best < 0:
            placements.append((card, True, 0, min(costs)))
        else:
            placements.append((card, False, gap, costs[best] if len(rows[best]) >= ROW_LIMIT else 0))
    return placements


def encode(view: PlayerView) -> NDArray[np.float32]:
    """The observation vector of ``view`` (a seat's view, not a spectator's)."""
    return encode_seats((view,))[0]


def encode_seats(views: Sequence[PlayerView]) -> list[NDArray[np.float32]]:
    """The observation vectors of several seats' views of one moment (made with no answer between
    them, as an environment makes every seat's view after a step), each the same as ``encode(view)``.

    What the seats share (the table, the public cards, the scores, the context) is encoded once and
    copied for each seat, which then adds its own part: at every step of the PettingZoo env every
    seat is encoded, and the shared part is most of the work. Views of different moments are refused.
    """
    if not views:
        return []
    shared = _SharedPart(views[0])
    last = len(views) - 1
    return [shared.observation(view, seat_index == last) for seat_index, view in enumerate(views)]


class _SharedPart:
    """The part of an observation that every seat's view of one moment has in common (none of the
    seats' own fields: ``hand``, ``my_choices``, ``decision``), and what the seats' parts need of it."""

    __slots__ = (
        "base",
        "block",
        "costs",
        "double",
        "first",
        "hands_public",
        "moment",
        "on_table",
        "players",
        "professional",
        "rows",
    )

    def __init__(self, view: PlayerView) -> None:
        # Built as index lists and written with a few array operations: at thousands of steps per
        # second, one numpy call per feature would cost more than the game itself.
        base = self.base = np.zeros(OBS_SIZE, dtype=np.float32)
        rules = view.rules
        players = self.players = rules.players
        rows = self.rows = view.rows
        self.first = view
        self.moment: tuple[object, ...] | None = None  # the moment: read when a second view comes
        double = self.double = rules.spec.placement is Placement.STACKED  # Double: twins stack, copies count
        self.professional = rules.professional
        self.hands_public = view.hands is not None
        on_table = self.on_table = [c for row in rows for c in row]
        ones: list[int] = []
        if not double:  # Double's card segments count copies: each seat writes them whole (_double_cards)
            # Cards of this turn that wait to be placed and that everyone knows: revealed ones and
            # the face-up cards of Open and Hand (a seat adds its own chosen ones).
            waiting = list(view.unplaced)
            if view.face_up is not None:
                waiting += [c for c in view.face_up if c is not None and c not in waiting]
            everyone = [] if view.hands is None else [c for h in view.hands for c in h]  # less one's own
            ones += [_TABLE + c for c in on_table]
            ones += [_UNPLACED + c for c in waiting]
            ones += [_OTHERS + c for c in everyone]
            ones += [_POOL + c for c in view.draft_pool]
            # Unseen: this variant's deck less every card everyone has seen (PlayerView.unseen_cards);
            # each seat takes its own hand out too.
            seen = on_table + [c for pile in view.taken for c in pile]
            seen += [c for plays in view.played for c in plays]
            if view.revealed is not None:
                seen += view.revealed
            seen += everyone + list(view.draft_pool) + waiting
            base[_deck_positions(rules)] = 1.0
            base[[_UNSEEN + c for c in seen]] = 0.0

        index: list[int] = []
        value: list[float] = []
        costs = self.costs = [sum(BULLHEADS[c] for c in row) for row in rows]
        for r, row in enumerate(rows):
            at = _ROWS + r * ROW_FEATURES
            if not row:
                ones.append(at + 5)
                continue
            places = row_size(row, double)  # Double: stacked twins fill one place
            index += (at, at + 1, at + 2, at + 3)
            value += (row[0] / DECK_SIZE, row[-1] / DECK_SIZE, places / ROW_LIMIT,
                      min(costs[r] / ROW_POINTS_SCALE, 1.0))
            if places >= ROW_LIMIT:
                ones.append(at + 4)

        # Each seat's player features, by seat; a seat's observation starts the block at itself.
        scale = float(rules.target) if rules.target is not None else NO_TARGET_SCALE
        hand_size = rules.hand_size  # 14 in Nifty and Hand
        totals, penalties, sizes, chosen = view.totals, view.penalties, view.hand_sizes, view.chosen
        block: list[float] = []
        for other in range(players):
            block += (1.0, min(totals[other] / scale, 1.0), min(penalties[other] / scale, 1.0),
                      min(sizes[other] / hand_size, 1.0), 1.0 if chosen[other] else 0.0)
        self.block = block + block  # a list: numpy reads a slice of it about as fast as of an array

        index += (_CONTEXT, _CONTEXT + 1, _CONTEXT + 2)
        value += (min(view.turn / hand_size, 1.0), min(max(view.deal, 0) / 10.0, 1.0), players / MAX_PLAYERS)
        ones.append(_CONTEXT + 3 + _VARIANT_INDEX[rules.variant.value])
        base[ones] = 1.0
        base[index] = value

    def observation(self, view: PlayerView, last: bool = False) -> NDArray[np.float32]:
        """``view``'s observation: the shared part and the seat's own (the ``last`` one is written
        into the shared part itself instead of a copy)."""
        assert view.seat is not None, "observations are for a seat, not a spectator"
        if view is not self.first and _moment_of(view) != (self.moment or self._first_moment()):
            raise ValueError("encode_seats: the views are of different moments of the game (or of different games)")
        obs = self.base if last else self.base.copy()
        seat, hand, rows = view.seat, view.hand, self.rows
        if self.double:
            ones, zeros = self._double_cards(obs, view), []
        else:
            ones = [_HAND + c for c in hand]
            zeros = [_UNSEEN + c for c in hand]
            if view.revealed is None:  # before the reveal, a seat's chosen cards wait too (Nifty's first)
                ones += [_UNPLACED + c for c in view.my_choices]
                zeros += [_UNSEEN + c for c in view.my_choices]
            if self.hands_public:  # the others' hands, not one's own
                zeros += [_OTHERS + c for c in hand]
        index: list[int] = []
        value: list[float] = []
        if hand and all(rows):  # rows are empty only during a Logic draft
            for card, too_low, gap, points in _hand_placement(hand, rows, self.costs, self.professional, self.double):
                if too_low:
                    ones.append(_TOO_LOW + card)
                    ones.append(_GAP + card)
                else:
                    index.append(_GAP + card)
                    value.append(gap / DECK_SIZE)
                if points:
                    index.append(_TAKE + card)
                    value.append(min(points / ROW_POINTS_SCALE, 1.0))

        players = self.players
        obs[_PLAYERS : _PLAYERS + players * PLAYER_FEATURES] = self.block[
            seat * PLAYER_FEATURES : (seat + players) * PLAYER_FEATURES
        ]

        decision = view.decision
        if decision is not None:
            ones.append(_DECISION + _KIND_INDEX[decision.kind.value])
            if decision.reason == "too-low":
                ones.append(_REASON)
            elif decision.reason == "tie":
                ones.append(_REASON + 1)
            if decision.card is not None:
                index.append(_REASON + 2)
                value.append(decision.card / DECK_SIZE)

        index += zeros
        value += [0.0] * len(zeros)
        obs[ones] = 1.0
        obs[index] = value
        return obs

    def _first_moment(self) -> tuple[object, ...]:
        moment = self.moment = _moment_of(self.first)
        return moment

    def _double_cards(self, obs: NDArray[np.float32], view: PlayerView) -> list[int]:
        """Double: the card segments of ``view``, written whole (copies count, so a seat's own cards
        cannot be taken out of a shared count by setting a place to 0)."""
        waiting = list(view.unplaced)
        if view.revealed is None:  # once revealed, chosen cards are in ``unplaced`` or already placed
            waiting += [c for c in view.my_choices if c not in waiting]
        if view.face_up is not None:
            waiting += [c for c in view.face_up if c is not None and c not in waiting]
        seat = view.seat
        others = [] if view.hands is None else [c for s, h in enumerate(view.hands) if s != seat for c in h]
        return _double_card_segments(obs, view, self.on_table, waiting, others)


def _moment_of(view: PlayerView) -> tuple[object, ...]:
    """What every seat's view of one moment shows alike, as far as the observation reads it."""
    return (view.rules, view.deal, view.turn, view.phase, view.rows, view.unplaced, view.face_up, view.hands,
            view.draft_pool, view.taken, view.played, view.revealed, view.totals, view.penalties,
            view.hand_sizes, view.chosen)


@lru_cache(maxsize=64)
def _deck_positions(rules: Rules) -> slice | NDArray[np.intp]:
    """Where the variant's deck lies in the ``unseen`` segment: a slice when the deck is a run of
    numbers (every variant but Double), which numpy writes far faster than a list of indices."""
    deck = rules.deck
    if list(deck) == list(range(deck[0], deck[-1] + 1)):
        return slice(_UNSEEN + deck[0], _UNSEEN + deck[-1] + 1)
    return np.array([_UNSEEN + c for c in deck], dtype=np.intp)


def _double_card_segments(
    obs: NDArray[np.float32], view: PlayerView, on_table: list[int], waiting: list[int], others: list[int]
) -> list[int]:
    """Double: two copies of a card may be in play, so card segments hold copies / 2 (0, 0.5, 1).
    Writes them into ``obs``; returns the (empty) list of indices still to be set to 1."""
    half = np.float32(0.5)
    for offset, cards in ((_HAND, view.hand), (_TABLE, on_table), (_UNPLACED, waiting),
                          (_OTHERS, others), (_POOL, view.draft_pool)):
        if cards:
            np.add.at(obs, [offset + c for c in cards], half)
    # Unseen copies: the deck's copies less each copy seen once (a card is in one place at a time:
    # hand, row, pile, waiting to be placed, or another public hand).
    np.add.at(obs, [_UNSEEN + c for c in view.rules.deck], half)
    seen = list(view.hand) + on_table + [c for pile in view.taken for c in pile] + waiting + others
    np.add.at(obs, [_UNSEEN + c for c in seen], -half)
    unseen = slice(_UNSEEN + 1, _UNSEEN + 1 + DECK_SIZE)
    np.clip(obs[unseen], 0.0, 1.0, out=obs[unseen])
    return []
