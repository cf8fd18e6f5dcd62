"""The game as a state machine (RULES.md §2-6).

A :class:`Game` always says which decisions it is waiting for (:meth:`Game.pending`): a card from
every player who has not chosen yet (simultaneous), or from one player (Open, Hand); a row choice
from one player; a draft pick (Logic, Tournament); which card to place first (Nifty); which taken
cards to keep (Hand). Answers go through :meth:`Game.act` (or the named methods :meth:`Game.play`,
:meth:`Game.choose_row`, :meth:`Game.draft`, :meth:`Game.order`, :meth:`Game.keep`); an illegal answer
raises :class:`~sixnimmt.core.errors.IllegalMoveError` and changes nothing.

Chance enters only through the *dealer*, a callable that returns each deal's hands and rows; the
default dealer shuffles with a ``random.Random`` built from the seed, so the same seed gives the same
game, and a record (which stores every deal) replays exactly.
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import BULLHEADS, HAND_SIZE, ROW_COUNT, ROW_LIMIT, Card
from .errors import IllegalMoveError, RulesError
from .events import (
    CardChosen,
    CardPlaced,
    CardShown,
    CardsKept,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    OrderChosen,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
    SeatCard,
)
from .placement import Side, Slot, best_slots, row_size
from .rules import (
    HAND_VARIANT_HAND_LIMIT,
    HAND_VARIANT_PILE_LIMIT,
    HAND_VARIANT_ROUND_LIMIT,
    ProTie,
    Rules,
    Variant,
)
from .views import PASS, Decision, DecisionKind, Phase, PlayerView

Cards = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DealSetup:
    """What chance decides for one deal: each seat's hand and the cards turned up for the rows.

    ``rows`` holds the four starting cards for rows 0..3. In Double it holds every card turned up,
    in order: a twin of an earlier one is stacked on it and another card is turned up, so there may
    be more than four.
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
        if rules.variant is Variant.DOUBLE:
            if len(set(self.rows)) != ROW_COUNT or len(self.rows) > 2 * ROW_COUNT:
                raise RulesError(f"the rows need {ROW_COUNT} different starting cards")
        elif len(self.rows) != ROW_COUNT:
            raise RulesError(f"a deal starts {ROW_COUNT} rows, got {len(self.rows)}")
        cards = Counter(c for hand in self.hands for c in hand)
        cards.update(self.rows)
        deck = Counter(rules.deck)
        for card, count in sorted(cards.items()):
            if card not in deck:
                raise RulesError(f"card {card!r} is not in the {rules.variant.value} deck")
            if count > deck[card]:
                raise RulesError(f"card(s) dealt twice: [{card}]")


#: ``dealer(deal_index) -> DealSetup``: where each deal's cards come from.
Dealer = Callable[[int], DealSetup]


class RandomDealer:
    """Shuffles the variant's deck with its own ``random.Random`` for each deal."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self._rules = rules
        self._rng = rng

    def __call__(self, deal_index: int) -> DealSetup:
        deck = list(self._rules.deck)
        self._rng.shuffle(deck)
        players, size = self._rules.players, self._rules.hand_size
        hands = tuple(tuple(sorted(deck[seat * size : (seat + 1) * size])) for seat in range(players))
        rest = deck[players * size :]
        if self._rules.variant is not Variant.DOUBLE:
            return DealSetup(hands=hands, rows=tuple(rest[:ROW_COUNT]))
        turned: list[Card] = []  # Double: turn cards up until four different ones start the rows
        for card in rest:
            turned.append(card)
            if len(set(turned)) == ROW_COUNT:
                break
        return DealSetup(hands=hands, rows=tuple(turned))


@dataclass(slots=True)
class _PendingRow:
    seat: int
    card: Card
    options: tuple[int, ...]
    reason: str  # "too-low" or "tie"


@dataclass(slots=True)
class _PendingKeep:
    """Hand: ``seat`` took ``cards`` (by playing ``trigger``) and may move some to their hand."""

    seat: int
    trigger: Card
    cards: list[Card]
    kept: list[Card]


class Game:
    """One game of 6 nimmt! from the first deal to the end.

    >>> game = Game(Rules(players=4), seed=1)
    >>> [d.kind.value for d in game.pending()]
    ['card', 'card', 'card', 'card']
    """

    def __init__(
        self,
        rules: Rules,
        seats: Sequence[str] | None = None,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        dealer: Dealer | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise RulesError(f"rules must be a Rules object, not {type(rules).__name__}")
        self.rules = rules
        players = rules.players
        if seats is None:
            seats = [f"Player {i + 1}" for i in range(players)]
        if len(seats) != players:
            raise RulesError(f"{len(seats)} seat names for {players} players")
        self.seats: tuple[str, ...] = tuple(str(s) for s in seats)
        if dealer is None:
            dealer = RandomDealer(rules, rng if rng is not None else random.Random(seed))
        self._dealer = dealer

        self.totals: list[int] = [0] * players
        self.deal_index = -1
        self.turn = 0  # turns of this deal so far (Hand: single players' turns)
        self.phase = Phase.PLAY
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.rows: list[list[Card]] = [[] for _ in range(ROW_COUNT)]
        self.penalties: list[int] = [0] * players
        self.taken: list[list[Card]] = [[] for _ in range(players)]
        self.played: list[Cards] = []  # revealed plays of finished turns this deal
        self.choices: list[list[Card]] = [[] for _ in range(players)]  # this turn, per seat
        self.revealed: Cards | None = None
        self.revealed_by: tuple[SeatCard, ...] = ()  # who played which revealed card, by seat
        self.played_by: list[tuple[SeatCard, ...]] = []  # the same for each finished turn this deal
        self.current: int | None = None  # Open/Hand: whose turn it is
        self._queue: list[tuple[Card, int]] = []  # revealed cards not yet placed, in order
        self._nifty_left: dict[int, list[Card]] = {}  # Nifty: pairs whose order is not chosen
        self._orders: dict[int, list[Card]] = {}  # Nifty: each seat's pair in placement order
        self._pending_row: _PendingRow | None = None
        self._pending_keep: _PendingKeep | None = None
        self._picks: dict[str, int] = {}
        self._keeps: dict[str, list[Card]] = {}
        self._sheets: list[list[Card]] = []  # Tournament: the drafted hands
        self._sheet_rows: list[Card] = []  # Tournament: the rows every deal starts from
        self.draft_pool: list[Card] = []
        self.drafter: int | None = None
        self.winners: tuple[int, ...] = ()
        self.events: list[Event] = []
        self.history: list[dict[str, Any]] = []  # the record's "deals", built as play goes on
        self._from_position = False
        self._rounds = 0  # Hand: complete rounds of turns so far
        self._start_deal()

    @classmethod
    def from_position(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        rows: Sequence[Sequence[Card]],
        *,
        seats: Sequence[str] | None = None,
        totals: Sequence[int] | None = None,
        penalties: Sequence[int] | None = None,
        taken: Sequence[Sequence[Card]] | None = None,
        current: int = 0,
        seed: int | None = None,
    ) -> Game:
        """A game that starts mid-deal from a given position (for puzzles, tests and analysis).

        Every hand holds the same number of cards (1..hand size, a multiple of the cards played per
        turn); in Hand, any number up to 16, and ``current`` is the seat to play. Rows hold 1..5
        ascending cards. Deals after this one are shuffled from ``seed``. Such a game has no complete
        record. Not for Logic or Tournament (their deals depend on what came before).
        """
        if rules.variant in (Variant.LOGIC, Variant.TOURNAMENT):
            raise RulesError(f"positions are not supported for {rules.variant.value}")
        players = rules.players
        if len(hands) != players:
            raise RulesError(f"a position needs {players} hands, got {len(hands)}")
        sizes = {len(h) for h in hands}
        size = next(iter(sizes))
        per_turn = rules.cards_per_turn
        if rules.variant is Variant.HAND:
            if any(len(h) > HAND_VARIANT_HAND_LIMIT for h in hands) or not hands[current]:
                raise RulesError("Hand positions: hands of at most 16 cards, and a card to play")
        elif len(sizes) != 1 or not 1 <= size <= rules.hand_size or size % per_turn:
            raise RulesError(f"every hand must hold the same number (1..{rules.hand_size}) of cards")
        stack = rules.variant is Variant.DOUBLE
        if len(rows) != ROW_COUNT or any(not 1 <= row_size(r, stack) <= ROW_LIMIT for r in rows):
            raise RulesError(f"a position needs {ROW_COUNT} rows of 1..{ROW_LIMIT} cards")
        for row in rows:
            if list(row) != sorted(row) or (not stack and len(set(row)) != len(row)):
                raise RulesError(f"row {list(row)} is not ascending")
        cards = Counter(c for h in hands for c in h)
        cards.update(c for r in rows for c in r)
        cards.update(c for pile in taken or () for c in pile)
        deck = Counter(rules.deck)
        if any(count > deck.get(card, 0) for card, count in cards.items()):
            raise RulesError("a position's cards must be distinct cards of the variant's deck")
        game = cls(rules, seats, seed=seed)
        game.hands = [sorted(h) for h in hands]
        game.rows = [list(r) for r in rows]
        game.turn = 0 if rules.variant is Variant.HAND else (rules.hand_size - size) // per_turn
        game.draft_pool, game.drafter = [], None
        game.phase = Phase.PLAY
        game.current = {Variant.OPEN: game._first_player(), Variant.HAND: current}.get(rules.variant)
        if totals is not None:
            game.totals = [int(t) for t in totals]
        if taken is not None:
            game.taken = [list(pile) for pile in taken]
            game.penalties = [sum(BULLHEADS[c] for c in pile) for pile in taken]
        if penalties is not None:
            game.penalties = [int(p) for p in penalties]
        game.events = [DealStarted(0, tuple(tuple(r) for r in game.rows))]
        game.history = [{"position": True, "turns": []}]
        game._from_position = True
        return game

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def chosen(self) -> list[Card | None]:
        """Each seat's (first) chosen card this turn, or None: who has chosen, at a glance."""
        return [c[0] if c else None for c in self.choices]

    @property
    def turns_per_deal(self) -> int:
        return self.rules.hand_size // self.rules.cards_per_turn

    def pending(self) -> tuple[Decision, ...]:
        """The decisions the game waits for now (empty once the game is over)."""
        if self.phase is Phase.PLAY:
            if self.rules.variant is Variant.HAND:
                return (self._hand_card_decision(),)
            if self.rules.variant is Variant.OPEN:
                assert self.current is not None
                return (Decision(DecisionKind.CARD, self.current, tuple(self.hands[self.current])),)
            per_turn = self.rules.cards_per_turn
            return tuple(
                Decision(DecisionKind.CARD, seat, self._unchosen(seat))
                for seat in range(self.players)
                if len(self.choices[seat]) < per_turn
            )
        if self.phase is Phase.ROW_CHOICE:
            assert self._pending_row is not None
            p = self._pending_row
            return (Decision(DecisionKind.ROW, p.seat, p.options, p.card, p.reason),)
        if self.phase is Phase.DRAFT:
            assert self.drafter is not None
            return (Decision(DecisionKind.DRAFT, self.drafter, tuple(sorted(set(self.draft_pool)))),)
        if self.phase is Phase.ORDER:
            seat = self._next_nifty_seat()
            return (Decision(DecisionKind.ORDER, seat, tuple(sorted(self._nifty_left[seat]))),)
        if self.phase is Phase.KEEP:
            keep = self._pending_keep
            assert keep is not None
            options = (PASS, *sorted(set(keep.cards)))
            return (Decision(DecisionKind.KEEP, keep.seat, options, keep.trigger, "keep"),)
        return ()

    def decision_for(self, seat: int) -> Decision | None:
        """The decision ``seat`` owes now, if any. In a simultaneous turn a player who has already
        chosen may still change their card until the last player chooses; that is not a pending
        decision."""
        for decision in self.pending():
            if decision.seat == seat:
                return decision
        return None

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see; ``None`` gives the spectator's view (no hand at all)."""
        if seat is not None:
            self._check_seat(seat, allow_over=True)
        pending = self.pending()
        row_choice = pending[0] if self.phase is Phase.ROW_CHOICE else None
        face_up: tuple[Card | None, ...] | None = None
        if self.rules.variant is Variant.OPEN and self.revealed is None:
            face_up = tuple(c[0] if c else None for c in self.choices)
        own = tuple(self.choices[seat]) if seat is not None else ()
        return PlayerView(
            seat=seat,
            seats=self.seats,
            rules=self.rules,
            phase=self.phase,
            deal=self.deal_index,
            turn=self.turn,
            hand=tuple(self.hands[seat]) if seat is not None else (),
            rows=tuple(tuple(r) for r in self.rows),
            totals=tuple(self.totals),
            penalties=tuple(self.penalties),
            taken=tuple(tuple(t) for t in self.taken),
            hand_sizes=tuple(len(h) for h in self.hands),
            played=tuple(self.played),
            chosen=tuple(bool(c) for c in self.choices),
            my_choice=own[0] if own else None,
            revealed=self.revealed,
            revealed_by=self.revealed_by if self.revealed is not None else None,
            played_by=tuple(self.played_by),
            turns_per_deal=self.rules.turns_per_deal,
            target=self.rules.target,
            unplaced=tuple(card for card, _ in self._queue)
            + tuple(sorted(c for cards in self._nifty_left.values() for c in cards)),
            # decision_for(seat), from the pending() computed above: RL envs build a view per seat
            # per step, and pending() is the view's largest cost at big tables.
            decision=next((d for d in pending if d.seat == seat), None) if seat is not None else None,
            waiting_for=tuple(d.seat for d in pending),
            hands=tuple(tuple(h) for h in self.hands) if self.rules.hands_public else None,
            draft_pool=tuple(self.draft_pool),
            drafter=self.drafter,
            winners=self.winners,
            row_choice=row_choice,
            my_choices=own,
            face_up=face_up,
            current=self.current,
        )

    # ------------------------------------------------------------------ decisions

    def act(self, seat: int, value: int) -> list[Event]:
        """Answer ``seat``'s pending decision, whatever its kind (the phase says which it is)."""
        self._check_seat(seat)
        value = self._whole(seat, value, "move")
        handler = {
            Phase.PLAY: self.play,
            Phase.ROW_CHOICE: self.choose_row,
            Phase.DRAFT: self.draft,
            Phase.ORDER: self.order,
            Phase.KEEP: self.keep,
        }[self.phase]
        return handler(seat, value)

    def play(self, seat: int, card: Card) -> list[Event]:
        """``seat`` chooses ``card`` for this turn.

        In a simultaneous turn a player may change their card until the last player has chosen
        (in Nifty, :meth:`retract` first); then the cards are revealed and placed in ascending order,
        up to the first card whose owner must choose. Returns the events this caused.
        """
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        if self.phase is not Phase.PLAY:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r} now: "
                f"the game is in the {self.phase.value} phase"
            )
        variant = self.rules.variant
        if variant is Variant.HAND:
            return self._hand_play(seat, card)
        if variant is Variant.OPEN and seat != self.current:
            assert self.current is not None
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r}: it is "
                f"{self._who(self.current)}'s turn to play"
            )
        per_turn = self.rules.cards_per_turn
        mine = self.choices[seat]
        if per_turn > 1 and len(mine) >= per_turn:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} has already chosen {mine}: retract them to change"
            )
        available = list(self.hands[seat])
        for chosen in mine if per_turn > 1 else ():
            available.remove(chosen)
        if card not in available:
            where = "not in hand" if card not in self.hands[seat] else "already chosen"
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r}: "
                f"{where} {sorted(self.hands[seat])}"
            )
        mark = len(self.events)
        first_choice = not mine
        if per_turn == 1:
            self.choices[seat] = [card]
        else:
            mine.append(card)
        if variant is Variant.OPEN:
            self._emit(CardShown(self.deal_index, self.turn, seat, card))
            self.current = (seat + 1) % self.players
        elif first_choice:
            self._emit(CardChosen(self.deal_index, self.turn, seat))
        if all(len(c) == per_turn for c in self.choices):
            self._reveal()
        return self.events[mark:]

    def retract(self, seat: int) -> None:
        """Take back ``seat``'s unrevealed choice this turn (a simultaneous turn only)."""
        self._check_seat(seat)
        if self.phase is not Phase.PLAY or self.rules.sequential or not self.choices[seat]:
            raise IllegalMoveError(f"{self._where()}: {self._who(seat)} has no choice to take back")
        self.choices[seat] = []

    def choose_row(self, seat: int, row: int) -> list[Event]:
        """``seat`` answers a row choice: the row to take (too-low card) or the tied row to use."""
        self._check_seat(seat)
        row = self._whole(seat, row, "row")
        pending = self._pending_row
        if self.phase is not Phase.ROW_CHOICE or pending is None:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot choose row {row!r}: no row choice is due"
            )
        if seat != pending.seat:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot choose row {row!r}: it is "
                f"{self._who(pending.seat)}'s choice for card {pending.card}"
            )
        if isinstance(row, bool) or not isinstance(row, int) or row not in pending.options:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot choose row {row!r} for card "
                f"{pending.card}: choose one of {list(pending.options)}"
            )
        mark = len(self.events)
        self._pending_row = None
        self.phase = Phase.PLAY
        self._picks[str(pending.card)] = row
        card, owner = self._queue.pop(0)
        assert (card, owner) == (pending.card, seat)
        if pending.reason == "too-low":
            self._take_row(owner, row, "too-low", card)
            self.rows[row].append(card)
            self._emit(CardPlaced(self.deal_index, self.turn, owner, card, row, Side.RIGHT.value))
        else:
            side = next(s.side for s in best_slots(self.rows, card, True) if s.row == row)
            self._place(owner, card, Slot(row, side))
        self._resolve()
        return self.events[mark:]

    def draft(self, seat: int, card: Card) -> list[Event]:
        """Logic, Tournament: ``seat`` takes ``card`` from the open draft pool."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        if self.phase is not Phase.DRAFT or self.drafter is None:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot draft card {card!r}: there is no draft now"
            )
        if seat != self.drafter:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot draft card {card!r}: it is "
                f"{self._who(self.drafter)}'s pick"
            )
        if card not in self.draft_pool:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot draft card {card!r}: not in the pool"
            )
        mark = len(self.events)
        self.draft_pool.remove(card)
        self.hands[seat].append(card)
        self.hands[seat].sort()
        self.history[-1]["draft"]["order"].append(card)
        self._emit(DraftPicked(self.deal_index, seat, card))
        if all(len(h) == HAND_SIZE for h in self.hands):
            assert len(self.draft_pool) == ROW_COUNT
            self.rows = [[c] for c in sorted(self.draft_pool)]
            self.draft_pool = []
            self.drafter = None
            self.phase = Phase.PLAY
            if self.rules.variant is Variant.TOURNAMENT:
                self._sheets = [list(h) for h in self.hands]
                self._sheet_rows = [r[0] for r in self.rows]
            self._emit(RowsLaid(self.deal_index, tuple(tuple(r) for r in self.rows)))
        else:
            self.drafter = (seat + 1) % self.players
        return self.events[mark:]

    def order(self, seat: int, card: Card) -> list[Event]:
        """Nifty: ``seat`` places ``card`` first of their two (the other follows at once)."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        if self.phase is not Phase.ORDER:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot order card {card!r}: no order is due"
            )
        due = self._next_nifty_seat()
        if seat != due:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot order card {card!r}: it is "
                f"{self._who(due)}'s cards that are placed next"
            )
        pair = self._nifty_left[seat]
        if card not in pair:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot place card {card!r} first: "
                f"their cards are {sorted(pair)}"
            )
        mark = len(self.events)
        rest = list(pair)
        rest.remove(card)
        del self._nifty_left[seat]
        self._orders[seat] = [card, rest[0]]
        self._queue = [(card, seat), (rest[0], seat)]
        self._emit(OrderChosen(self.deal_index, self.turn, seat, (card, rest[0])))
        self.phase = Phase.PLAY
        self._resolve()
        return self.events[mark:]

    def keep(self, seat: int, card: Card) -> list[Event]:
        """Hand: move ``card`` of the row ``seat`` just took into their hand, or ``PASS`` (0) to
        leave the rest in their pile."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        keep = self._pending_keep
        if self.phase is not Phase.KEEP or keep is None:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot keep card {card!r}: no taken row to split"
            )
        if seat != keep.seat:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot keep card {card!r}: it is "
                f"{self._who(keep.seat)} who took the row"
            )
        if card != PASS and card not in keep.cards:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot keep card {card!r}: "
                f"the row taken holds {sorted(keep.cards)}"
            )
        mark = len(self.events)
        if card != PASS:
            keep.cards.remove(card)
            keep.kept.append(card)
            self.taken[seat].remove(card)
            self.penalties[seat] -= BULLHEADS[card]
            self.hands[seat].append(card)
            self.hands[seat].sort()
        if card == PASS or not keep.cards or len(self.hands[seat]) >= HAND_VARIANT_HAND_LIMIT:
            self._finish_keep()
            self._resolve()
        return self.events[mark:]

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        """This game as a record (docs/record-format.md); complete once the game is over.

        Each variant writes its spec's ``record_version`` (the §6 variants 2; the others 1, which
        older readers know).
        """
        if self._from_position:
            raise RulesError("a game started from a position has no record: its start is unknown")
        data: dict[str, Any] = {
            "format": "sixnimmt-record",
            "version": self.rules.spec.record_version,
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            "deals": [_copy_deal(d) for d in self.history],
        }
        if self.is_over:
            data["scores"] = list(self.totals)
        return data

    # ------------------------------------------------------------------ internals

    def _who(self, seat: int) -> str:
        return f"seat {seat} ({self.seats[seat]})"

    def _where(self) -> str:
        return f"deal {self.deal_index + 1}, turn {self.turn + 1}"

    def _whole(self, seat: int, value: object, what: str) -> int:
        """``value`` as a plain int. A card or row is a whole number: 8.0 and True are refused
        (the record would store what no reader accepts); numpy's integers become ints."""
        try:
            if isinstance(value, bool):
                raise TypeError
            return operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)}: a {what} is a whole number, not {repr(value)[:40]}"
            ) from None

    def _check_seat(self, seat: int, allow_over: bool = False) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalMoveError(
                f"{self._where()}: there is no seat {seat!r} (seats are 0 to {self.players - 1})"
            )
        if self.phase is Phase.OVER and not allow_over:
            raise IllegalMoveError(f"the game is over: {self._who(seat)} has nothing to decide")

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _unchosen(self, seat: int) -> Cards:
        hand = list(self.hands[seat])
        for card in self.choices[seat]:
            hand.remove(card)
        return tuple(hand)

    def _first_player(self) -> int:
        """Open: the marker starts at seat 0 and passes on after every turn of the game."""
        return (self.deal_index * self.turns_per_deal + self.turn) % self.players

    def _start_deal(self) -> None:
        self.deal_index += 1
        self.turn = 0
        players = self.players
        self.penalties = [0] * players
        self.taken = [[] for _ in range(players)]
        self.played = []
        self.played_by = []
        self.choices = [[] for _ in range(players)]
        self.revealed = None
        variant = self.rules.variant
        if variant is Variant.LOGIC or (variant is Variant.TOURNAMENT and self.deal_index == 0):
            first = self.deal_index % players
            self.hands = [[] for _ in range(players)]
            self.rows = [[] for _ in range(ROW_COUNT)]
            self.draft_pool = list(self.rules.deck)
            self.drafter = first
            self.phase = Phase.DRAFT
            self.history.append({"draft": {"first": first, "order": []}, "turns": []})
        elif variant is Variant.TOURNAMENT:
            # The sheets pass to the next seat after every deal; the rows restart the same.
            k = self.deal_index
            self.hands = [list(self._sheets[(seat - k) % players]) for seat in range(players)]
            self.rows = [[c] for c in self._sheet_rows]
            self.phase = Phase.PLAY
            self.history.append({"turns": []})
        else:
            setup = self._dealer(self.deal_index)
            setup.validate(self.rules)
            self.hands = [sorted(h) for h in setup.hands]
            self.rows = []
            for card in setup.rows:  # Double: a twin of a turned-up card stacks on it
                twin = next((r for r in self.rows if r[0] == card), None)
                if twin is not None:
                    twin.append(card)
                else:
                    self.rows.append([card])
            self.phase = Phase.PLAY
            self.history.append(
                {
                    "hands": [list(h) for h in self.hands],
                    "rows": [list(r) for r in self.rows],
                    "turns": [],
                }
            )
        if variant in (Variant.OPEN, Variant.HAND):
            self.current = self._first_player() if variant is Variant.OPEN else 0
        self._emit(DealStarted(self.deal_index, tuple(tuple(r) for r in self.rows)))

    def _reveal(self) -> None:
        if self.rules.variant is Variant.NIFTY:
            # Each seat's pair ascending: the order they were picked in is nobody's business.
            seat_cards = tuple((s, c) for s, cards in enumerate(self.choices) for c in sorted(cards))
        else:  # one card each, or Hand's cards in the order their player places them
            seat_cards = tuple((s, c) for s, cards in enumerate(self.choices) for c in cards)
        plays = tuple(c for _, c in seat_cards)
        for seat, cards in enumerate(self.choices):
            for card in cards:
                self.hands[seat].remove(card)
        self.revealed = plays
        self.revealed_by = seat_cards
        self._picks = {}
        self._keeps = {}
        hand_turn = self.current if self.rules.variant is Variant.HAND else None
        self._emit(CardsRevealed(self.deal_index, self.turn, plays, hand_turn, seat_cards))
        if self.rules.variant is Variant.NIFTY:
            self._queue = []
            self._orders = {}
            self._nifty_left = {seat: list(cards) for seat, cards in enumerate(self.choices)}
        elif self.rules.variant is Variant.HAND:
            assert self.current is not None
            self._queue = [(card, self.current) for card in self.choices[self.current]]
        else:
            self._queue = sorted((cards[0], seat) for seat, cards in enumerate(self.choices))
            if self.rules.variant is Variant.OPEN:
                self.current = None  # nobody plays while the turn's cards are placed
        self._resolve()

    def _next_nifty_seat(self) -> int:
        """Nifty: the seat holding the lowest card not yet placed places both of theirs next."""
        return min(self._nifty_left, key=lambda s: (min(self._nifty_left[s]), s))

    def _resolve(self) -> None:
        """Place queued cards in order until one needs its owner's decision."""
        professional = self.rules.professional
        stack = self.rules.variant is Variant.DOUBLE
        while self._queue or self._nifty_left:
            if self._pending_keep is not None:
                self.phase = Phase.KEEP
                return
            if not self._queue:
                self.phase = Phase.ORDER
                return
            card, seat = self._queue[0]
            slots = best_slots(self.rows, card, professional, stack=stack)
            if len(slots) == 1:
                self._queue.pop(0)
                self._place(seat, card, slots[0])
                continue
            if not slots:
                options, reason = tuple(range(ROW_COUNT)), "too-low"
            elif self.rules.pro_tie is ProTie.CHOOSE:
                options, reason = tuple(s.row for s in slots), "tie"
            else:
                wanted = Side.LEFT if self.rules.pro_tie is ProTie.LEFT else Side.RIGHT
                self._queue.pop(0)
                self._place(seat, card, next(s for s in slots if s.side is wanted))
                continue
            self._pending_row = _PendingRow(seat, card, options, reason)
            self.phase = Phase.ROW_CHOICE
            self._emit(RowChoiceRequired(self.deal_index, self.turn, seat, card, options, reason))
            return
        if self._pending_keep is not None:
            self.phase = Phase.KEEP
            return
        self.phase = Phase.PLAY
        self._end_turn()

    def _place(self, seat: int, card: Card, slot: Slot) -> None:
        row = self.rows[slot.row]
        stack = self.rules.variant is Variant.DOUBLE
        if stack and row[-1] == card:
            row.append(card)  # Double: stacked on its twin, no new place in the row
        elif row_size(row, stack) >= ROW_LIMIT:
            self._take_row(seat, slot.row, "full", card)
            self.rows[slot.row].append(card)
        elif slot.side is Side.RIGHT:
            row.append(card)
        else:
            row.insert(0, card)
        self._emit(CardPlaced(self.deal_index, self.turn, seat, card, slot.row, slot.side.value))

    def _take_row(self, seat: int, row_index: int, reason: str, card: Card) -> None:
        cards = tuple(self.rows[row_index])
        points = sum(BULLHEADS[c] for c in cards)
        self.taken[seat].extend(cards)
        self.rows[row_index] = []
        twin_seat = self._twin_behind(card)
        if twin_seat is None:
            self.penalties[seat] += points
            self._emit(RowTaken(self.deal_index, self.turn, seat, row_index, cards, points, reason))
        else:
            # Double: two identical cards force this pickup together; each owner scores half,
            # rounded up (the cards go to the first owner's pile).
            half = (points + 1) // 2
            self.penalties[seat] += half
            self.penalties[twin_seat] += half
            self._emit(RowTaken(self.deal_index, self.turn, seat, row_index, cards, half, reason))
            self._emit(RowTaken(self.deal_index, self.turn, twin_seat, row_index, (), half, "twin"))
        if self.rules.variant is Variant.HAND and len(self.hands[seat]) < HAND_VARIANT_HAND_LIMIT:
            self._pending_keep = _PendingKeep(seat, card, list(cards), [])

    def _twin_behind(self, card: Card) -> int | None:
        """Double: the seat whose identical card is placed right after ``card`` this turn."""
        if self.rules.variant is not Variant.DOUBLE:
            return None
        # The card itself has left the queue; its twin, if played this turn, is next in line.
        if self._queue and self._queue[0][0] == card:
            return self._queue[0][1]
        return None

    def _finish_keep(self) -> None:
        keep = self._pending_keep
        assert keep is not None
        self._keeps[str(keep.trigger)] = list(keep.kept)
        self._emit(CardsKept(self.deal_index, self.turn, keep.seat, tuple(keep.kept)))
        self._pending_keep = None
        self.phase = Phase.PLAY

    def _hand_card_decision(self) -> Decision:
        assert self.current is not None
        seat = self.current
        if not self.choices[seat]:
            return Decision(DecisionKind.CARD, seat, tuple(self.hands[seat]))
        return Decision(DecisionKind.CARD, seat, (PASS, *self._unchosen(seat)), reason="second")

    def _hand_play(self, seat: int, card: Card) -> list[Event]:
        assert self.current is not None
        if seat != self.current:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r}: it is "
                f"{self._who(self.current)}'s turn"
            )
        decision = self._hand_card_decision()
        if card not in decision.options:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r}: choose one of "
                f"{list(decision.options)}" + (" (0 = no second card)" if decision.reason else "")
            )
        mark = len(self.events)
        if card != PASS:
            self.choices[seat].append(card)
        if card == PASS or len(self.choices[seat]) == 2 or len(self.hands[seat]) == 1:
            self._reveal()
        return self.events[mark:]

    def _end_turn(self) -> None:
        assert self.revealed is not None
        variant = self.rules.variant
        if variant is Variant.NIFTY:
            # Each seat's two cards, in the order that seat chose to place them.
            turn: dict[str, Any] = {"plays": [self._orders[s] for s in range(self.players)]}
        elif variant is Variant.HAND:
            assert self.current is not None
            turn = {"seat": self.current, "plays": list(self.revealed)}
        else:
            turn = {"plays": list(self.revealed)}
        if self._picks:
            turn["picks"] = dict(self._picks)
        if self._keeps:
            turn["keeps"] = {card: list(kept) for card, kept in self._keeps.items()}
        self.history[-1]["turns"].append(turn)
        self.played.append(self.revealed)
        self.played_by.append(self.revealed_by)
        self.revealed = None
        self.revealed_by = ()
        self._picks = {}
        self._keeps = {}
        self.choices = [[] for _ in range(self.players)]
        self.turn += 1
        if variant is Variant.HAND:
            if not self._hand_next_player():
                return
        elif self.turn < self.turns_per_deal:
            if variant is Variant.OPEN:
                self.current = self._first_player()
            return
        self._score_deal()

    def _hand_next_player(self) -> bool:
        """Hand: pass the turn on; True when the round just ended with the game's end condition."""
        assert self.current is not None
        seat = self.current
        while True:
            seat = (seat + 1) % self.players
            if seat == 0:
                self._rounds += 1
                if (
                    any(not h for h in self.hands)
                    or any(len(t) > HAND_VARIANT_PILE_LIMIT for t in self.taken)
                    or self._rounds >= HAND_VARIANT_ROUND_LIMIT
                ):
                    return True
            if self.hands[seat]:
                self.current = seat
                return False

    def _score_deal(self) -> None:
        factor = self.rules.spec.left_in_hand_factor
        if factor:  # Hand: cards left in hand score double, on top of the pile
            for seat in range(self.players):
                self.penalties[seat] += factor * sum(BULLHEADS[c] for c in self.hands[seat])
        if self.rules.sequential:
            self.current = None
        for seat in range(self.players):
            self.totals[seat] += self.penalties[seat]
        self._emit(DealScored(self.deal_index, tuple(self.penalties), tuple(self.totals)))
        if self.rules.game_over_after(self.totals, self.deal_index + 1):
            low = min(self.totals)
            self.winners = tuple(s for s, t in enumerate(self.totals) if t == low)
            self.phase = Phase.OVER
            self.current = None
            self._emit(GameOver(tuple(self.totals), self.winners))
        else:
            self._start_deal()


def _copy_deal(deal: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = {}
    if "draft" in deal:
        copy["draft"] = {"first": deal["draft"]["first"], "order": list(deal["draft"]["order"])}
    elif "hands" in deal:
        copy["hands"] = [list(h) for h in deal["hands"]]
        copy["rows"] = [list(r) for r in deal["rows"]]
    turns = []
    for t in deal["turns"]:
        turn: dict[str, Any] = {}
        if "seat" in t:
            turn["seat"] = t["seat"]
        turn["plays"] = [list(p) if isinstance(p, list) else p for p in t["plays"]]
        if "picks" in t:
            turn["picks"] = dict(t["picks"])
        if "keeps" in t:
            turn["keeps"] = {k: list(v) for k, v in t["keeps"].items()}
        turns.append(turn)
    copy["turns"] = turns
    return copy
