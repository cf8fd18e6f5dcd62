"""Where each deal's cards come from (docs/rules.md §2, §5.2, §6): shuffled and dealt, or drafted openly.

Chance enters a game only through the *dealer*, a callable that returns each shuffled deal's hands
and rows; the default dealer shuffles with a ``random.Random``, so the same seed gives the same game,
and a record (which stores every shuffled deal) replays exactly. Drafted deals involve no chance:
the whole deck lies open and the players take turns picking (the game asks them, :meth:`Game.draft`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from .cards import ROW_COUNT, Card
from .errors import RulesError
from .frozen import FrozenTuple, make
from .rules import Rules
from .variants import Dealing

Cards = tuple[Card, ...]


class DealSetup(FrozenTuple):
    """What chance decides for one deal: each seat's hand and the cards turned up for the rows.

    ``rows`` holds the four starting cards for rows 0..3. Where the deck has twins (Double) it holds
    every card turned up, in order: a twin of an earlier one is stacked on it and another card is
    turned up, so there may be more than four.
    """

    hands: tuple[Cards, ...]
    rows: Cards

    def validate(self, rules: Rules) -> None:
        """Raise :class:`RulesError` unless this is a possible deal under ``rules``."""
        size = rules.hand_size
        if len(self.hands) != rules.players:
            raise RulesError(f"a deal needs {rules.players} hands, got {len(self.hands)}")
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise RulesError(f"seat {seat}'s hand has {len(hand)} cards, not {size}")
        count = rules.row_count
        if rules.spec.twins:
            if len(set(self.rows)) != count or len(self.rows) > 2 * count:
                raise RulesError(f"the rows need {count} different starting cards")
        elif len(self.rows) != count:
            raise RulesError(f"a deal starts {count} rows, got {len(self.rows)}")
        dealt = [c for hand in self.hands for c in hand]
        dealt.extend(self.rows)
        if not rules.spec.twins and len(set(dealt)) == len(dealt) and _deck_set(rules).issuperset(dealt):
            return  # distinct cards of the deck: the common case, checked without counting
        cards = Counter(dealt)
        deck = Counter(rules.deck)
        for card, count in sorted(cards.items()):
            if card not in deck:
                raise RulesError(f"card {card!r} is not in the {rules.variant.value} deck")
            if count > deck[card]:
                raise RulesError(f"card(s) dealt twice: [{card}]")


def _deck_set(rules: Rules) -> frozenset[Card]:
    return _DECK_SETS.get(rules) or _DECK_SETS.setdefault(rules, frozenset(rules.deck))


_DECK_SETS: dict[Rules, frozenset[Card]] = {}


def shuffle(deck: list[Card], rng: random.Random) -> None:
    """``rng.shuffle(deck)``, with the very same result, at twice the speed: the loop of
    ``random.Random.shuffle`` with its ``_randbelow`` written inline and each bound's bit length
    looked up (a deal shuffles 104 cards, and every game of the checked engine shuffles several
    times)."""
    if type(rng) is not random.Random:  # a subclass may draw its numbers differently
        rng.shuffle(deck)
        return
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS if len(deck) < len(_BIT_LENGTHS) else [n.bit_length() for n in range(len(deck) + 1)]
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        k = bits[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


#: ``_BIT_LENGTHS[n] == n.bit_length()``, for every deck (Double's is 208 cards).
_BIT_LENGTHS: tuple[int, ...] = tuple(n.bit_length() for n in range(257))


#: ``dealer(deal_index) -> DealSetup``: where each shuffled deal's cards come from.
Dealer = Callable[[int], DealSetup]


class RandomDealer:
    """Shuffles the variant's deck with its own ``random.Random`` for each deal."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self._rng = rng
        self._deck = rules.deck
        # Read once: each of these looks the variant's spec up again.
        self._players, self._size, self._twins = rules.players, rules.hand_size, rules.spec.twins
        self._rows = rules.row_count

    def __call__(self, deal_index: int) -> DealSetup:
        deck = list(self._deck)
        shuffle(deck, self._rng)
        players, size = self._players, self._size
        hands = tuple([tuple(sorted(deck[start : start + size])) for start in range(0, players * size, size)])
        rest = deck[players * size :]
        if not self._twins:
            return make(DealSetup, (hands, tuple(rest[: self._rows])))
        turned: list[Card] = []  # twins: turn cards up until four different ones start the rows
        for card in rest:
            turned.append(card)
            if len(set(turned)) == ROW_COUNT:
                break
        return make(DealSetup, (hands, tuple(turned)))


def lay_rows(turned: Cards) -> list[list[Card]]:
    """The rows from the cards turned up: each starts a row; a twin of one stacks on it (Double)."""
    rows: list[list[Card]] = []
    for card in turned:
        twin = next((r for r in rows if r[0] == card), None)
        if twin is not None:
            twin.append(card)
        else:
            rows.append([card])
    return rows


class DealStart(FrozenTuple):
    """How one deal begins: the hands and rows (empty before a draft), who drafts first (None: no
    draft), and the shuffled setup a record must keep (None: no chance was involved)."""

    hands: list[list[Card]]
    rows: list[list[Card]]
    drafter: int | None
    setup: DealSetup | None


class Deals:
    """Starts each deal of one game as the variant deals it (its spec's ``dealing``)."""

    def __init__(self, rules: Rules, dealer: Dealer) -> None:
        self._rules = rules
        self._dealer = dealer
        self._sheets: list[list[Card]] = []  # Tournament: the drafted hands, passed round
        self._sheet_rows: list[Card] = []  # Tournament: the rows every deal starts from
        self._twins = rules.spec.twins
        self._dealing = rules.spec.dealing
        self._ours = dealer.__class__ is RandomDealer

    def start(self, deal_index: int) -> DealStart:
        rules, players = self._rules, self._rules.players
        dealing = self._dealing
        if dealing is Dealing.DRAFT or (dealing is Dealing.DRAFT_ONCE and deal_index == 0):
            empty: list[list[Card]] = [[] for _ in range(players)]
            return make(DealStart, (empty, [[] for _ in range(ROW_COUNT)], deal_index % players, None))
        if dealing is Dealing.DRAFT_ONCE:
            # The sheets pass to the next seat after every deal; the rows restart the same.
            k = deal_index
            hands = [list(self._sheets[(seat - k) % players]) for seat in range(players)]
            return make(DealStart, (hands, [[c] for c in self._sheet_rows], None, None))
        setup = self._dealer(deal_index)
        if self._ours:
            # Our own shuffle: distinct cards of the deck, each hand sorted, four rows (the tests
            # check it); a deal from anywhere else is checked.
            hands = list(map(list, setup.hands))
        else:
            setup.validate(rules)
            hands = list(map(sorted, setup.hands))
        rows = lay_rows(setup.rows) if self._twins else [[card] for card in setup.rows]
        return make(DealStart, (hands, rows, None, setup))

    def drafted(self, hands: list[list[Card]], rows: list[list[Card]]) -> None:
        """An open draft ended with these hands and rows (Tournament deals them again, passed on)."""
        self._sheets = [list(h) for h in hands]
        self._sheet_rows = [r[0] for r in rows]
