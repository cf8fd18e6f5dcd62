"""The game as a state machine (docs/rules.md §2-6).

A :class:`Game` always says which decisions it is waiting for (:meth:`Game.pending`): a card from
every player who has not chosen yet (simultaneous), or from one player (Open, Hand); a row choice
from one player; a draft pick (Logic, Tournament); which card to place first (Nifty); which taken
cards to keep (Hand). Answers go through :meth:`Game.act` (or the named methods :meth:`Game.play`,
:meth:`Game.choose_row`, :meth:`Game.draft`, :meth:`Game.order`, :meth:`Game.keep`); an illegal answer
raises :class:`~sixnimmt.core.errors.IllegalMoveError` and changes nothing.

What differs between variants is data (the rules' :class:`~sixnimmt.core.variants.VariantSpec`):
how a turn's cards are chosen is the spec's turn structure (core/turns.py), where each deal's cards
come from is core/dealing.py, and the record is written from this game's events by core/record.py.
This module holds what every variant shares: placing the revealed cards, row choices, taking rows,
scoring.
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import add
from typing import TYPE_CHECKING, Any

from .cards import BULLHEADS, ROW_COUNT, Card
from .dealing import Dealer, Deals, DealSetup, RandomDealer
from .errors import IllegalMoveError, RulesError
from .events import (
    CardPlaced,
    CardsKept,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
    SeatCard,
)
from .frozen import FrozenTuple, make
from .placement import Side, Slot, best_slots, row_size
from .rules import HAND_VARIANT_HAND_LIMIT, MAX_PLAYERS, ProTie, Rules
from .turns import STRUCTURES, Pairs
from .variants import Placement, TurnOrder
from .views import DEFERRED, PASS, Decision, DecisionKind, Phase, PlayerView, make_view

if TYPE_CHECKING:  # record.py imports this module; the writer is made on first use
    from .record import RecordWriter

__all__ = ["DealSetup", "Dealer", "Game", "RandomDealer"]

Cards = tuple[Card, ...]
# Enum members as module constants (a lookup through the enum class each time otherwise): without
# them the engine and its record run 8% slower, a host's loop 6% (docs/performance.md).
_PLAY, _ROW_CHOICE, _DRAFT, _ORDER, _KEEP, _OVER = (
    Phase.PLAY,
    Phase.ROW_CHOICE,
    Phase.DRAFT,
    Phase.ORDER,
    Phase.KEEP,
    Phase.OVER,
)
_CARD, _ROW, _DRAFT_PICK, _KEEP_CARDS = DecisionKind.CARD, DecisionKind.ROW, DecisionKind.DRAFT, DecisionKind.KEEP
# The side's name in events, found by identity: an enum's ``.value`` runs Python code, and every
# placed card needs it (3.5% of the instructions of the engine and its record: docs/performance.md).
_SIDE_RIGHT, _RIGHT, _LEFT = Side.RIGHT, Side.RIGHT.value, Side.LEFT.value
_TOO_LOW = "too-low"
_options = operator.attrgetter("options")


class _GameConstants(FrozenTuple):
    """What a game's views show that never changes."""

    seats: tuple[str, ...]
    rules: Rules
    turns_per_deal: int | None
    target: int | None
    hands_public: bool


class _Table(FrozenTuple):
    """What every seat's view shares between two moves that move cards (``Game._table``): copies of
    the table as it was, from which a view makes its fields when one is read (:func:`_table_fields`).
    Copies and nothing more: most views are read for their decision alone, and a table is taken
    after nearly every reveal and row choice."""

    deal: int
    turn: int
    hands: tuple[Cards, ...]
    totals: tuple[int, ...]
    penalties: tuple[int, ...]
    taken: tuple[Cards, ...]
    rows: tuple[Cards, ...]
    played: tuple[Cards, ...]
    revealed: Cards | None
    revealed_by: tuple[SeatCard, ...]
    played_by: tuple[tuple[SeatCard, ...], ...]
    queue: tuple[SeatCard, ...]
    unqueued: Cards
    draft_pool: Cards
    drafter: int | None
    winners: tuple[int, ...]
    constants: _GameConstants


def _table_fields(table: _Table) -> dict[str, Any]:
    """The view fields of a table (made by a view on the first read of one of them)."""
    constants = table.constants
    revealed = table.revealed
    fields = {
        "seats": constants.seats,
        "rules": constants.rules,
        "deal": table.deal,
        "turn": table.turn,
        "rows": table.rows,
        "totals": table.totals,
        "penalties": table.penalties,
        "taken": table.taken,
        "hand_sizes": tuple([len(hand) for hand in table.hands]),
        "played": table.played,
        "revealed": revealed,
        "revealed_by": table.revealed_by if revealed is not None else None,
        "played_by": table.played_by,
        "turns_per_deal": constants.turns_per_deal,
        "target": constants.target,
        "unplaced": tuple([card for _, card in table.queue]) + table.unqueued,
        "hands": table.hands if constants.hands_public else None,
        "draft_pool": table.draft_pool,
        "drafter": table.drafter,
        "winners": table.winners,
    }
    return fields


class _Moment(FrozenTuple):
    """What views are made at until the next answer (``Game._moment``): a table, and what changes
    with every answer: who has chosen, whose turn it is, and the fields of any phase but a
    simultaneous turn's play (``None`` there: most of a game's answers are made then, and those
    fields follow from who has chosen). A view reads the fields every seat shares from it
    (:func:`_moment_fields`)."""

    table: _Table
    chosen: tuple[bool, ...]
    current: int | None
    phase_fields: dict[str, Any] | None


def _moment_fields(moment: _Moment) -> dict[str, Any]:
    """The view fields every seat shares at a moment, made by a view on the first read of one of
    them. In a simultaneous turn every seat that has not chosen owes a card
    (``Simultaneous.decisions``)."""
    fields = _table_fields(moment.table).copy()
    chosen = moment.chosen
    if moment.phase_fields is None:
        fields["phase"] = _PLAY
        fields["waiting_for"] = tuple([seat for seat, has_chosen in enumerate(chosen) if not has_chosen])
        fields["row_choice"] = None
        fields["face_up"] = None
    else:
        fields.update(moment.phase_fields)
    fields["chosen"] = chosen
    fields["current"] = moment.current
    return fields


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
        spec = rules.spec
        players = self.players = rules.players
        if seats is None:
            self.seats: tuple[str, ...] = _DEFAULT_SEATS[players]
        elif len(seats) != players:
            raise RulesError(f"{len(seats)} seat names for {players} players")
        else:
            self.seats = tuple(map(str, seats))
        if dealer is None:
            dealer = RandomDealer(rules, rng if rng is not None else random.Random(seed))
        self._deals = Deals(rules, dealer)
        #: Turns in a deal. Hand's deal has no fixed length (``rules.turns_per_deal`` is None): there
        #: it is its hand size, the turns a player would take playing one card each time.
        self.turns_per_deal = rules.hand_size // spec.cards_per_turn
        self._row_limit = rules.row_limit
        self._turns = STRUCTURES[spec.turn_order]()
        self._simultaneous = spec.turn_order is TurnOrder.SIMULTANEOUS
        self._professional = spec.placement is Placement.EITHER_END
        self._stack = spec.placement is Placement.STACKED
        self._keeps_taken = spec.keeps_taken

        self.totals: list[int] = [0] * players
        self.deal_index = -1
        self.turn = 0  # turns of this deal so far (Hand: single players' turns)
        self.phase = _PLAY
        # Each deal starts these afresh (_start_deal).
        self.hands: list[list[Card]] = []
        self.rows: list[list[Card]] = []
        self.penalties: list[int] = []
        self.taken: list[list[Card]] = []
        self.played: list[Cards] = []  # revealed plays of finished turns this deal
        self.played_by: list[tuple[SeatCard, ...]] = []  # the same with their seats
        #: This turn's chosen cards, per seat (two in Nifty; Hand's one player may add a second). Each
        #: seat's is a tuple, replaced on every choice, never changed: a new turn starts from one
        #: shared tuple of empty ones, and a view holds its seat's as it is.
        self.choices: list[Cards] = []
        self._no_choices: tuple[tuple[()], ...] = ((),) * players  # also ``map(list, ...)``: empty lists
        self.revealed: Cards | None = None
        self.revealed_by: tuple[SeatCard, ...] = ()  # who played which revealed card, by seat
        self.current: int | None = None  # Open/Hand: whose turn it is
        self._queue: list[SeatCard] = []  # revealed cards not yet placed, in the order they go
        self._row_choice: Decision | None = None  # the row choice owed, if one is
        self._pending_keep: _PendingKeep | None = None
        self.draft_pool: list[Card] = []
        self.drafter: int | None = None
        self.winners: tuple[int, ...] = ()
        self.events: list[Event] = []
        #: What chance decided for each deal (None where no chance was involved: a draft, passed
        #: hands, a position): the record keeps it.
        self.dealt: list[DealSetup | None] = []
        self._from_position = False
        self._writer: RecordWriter | None = None  # the record writer, made on first use (core/record.py)
        # Hosts ask for a view per decision (and per seat per step in the RL envs), and for the
        # pending decisions around every answer: both are cached between the changes they depend
        # on. ``_pending`` and ``_moment`` (what views are made at: the table, who has chosen, who
        # is awaited) are dropped by every answer (each public method that changes the game);
        # ``_table`` (copies of what the views show of the table) wherever cards move on the
        # table; ``_hand_copies`` and ``_card_decisions`` (each seat's decision to play a card of
        # their hand) by :meth:`_hands_changed`, wherever cards move into or out of a hand. The
        # game's state changes only through its own methods.
        self._pending: tuple[Decision, ...] | None = None
        self._moment: _Moment | None = None  # what views are made at (until an answer)
        self._table: _Table | None = None
        self._hand_copies: tuple[Cards, ...] | None = None  # the hands as views show them
        self._card_decisions: list[Decision] | None = None
        self._view_constants = _GameConstants(self.seats, rules, rules.turns_per_deal, rules.target, rules.hands_public)
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
        record. Not for drafted variants (Logic, Tournament: their deals depend on what came before).
        """
        spec = rules.spec
        if not spec.supports_positions:
            raise RulesError(f"positions are not supported for {rules.variant.value}")
        players = rules.players
        if len(hands) != players:
            raise RulesError(f"a position needs {players} hands, got {len(hands)}")
        sizes = {len(h) for h in hands}
        size = next(iter(sizes))
        per_turn = rules.cards_per_turn
        solo = spec.turn_order is TurnOrder.SOLO
        if solo:
            if any(len(h) > HAND_VARIANT_HAND_LIMIT for h in hands) or not hands[current]:
                raise RulesError("Hand positions: hands of at most 16 cards, and a card to play")
        elif len(sizes) != 1 or not 1 <= size <= rules.hand_size or size % per_turn:
            raise RulesError(f"every hand must hold the same number (1..{rules.hand_size}) of cards")
        stack = spec.twins
        count, limit = rules.row_count, rules.row_limit
        if len(rows) != count or any(not 1 <= row_size(r, stack) <= limit for r in rows):
            raise RulesError(f"a position needs {count} rows of 1..{limit} cards")
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
        game.turn = 0 if solo else (rules.hand_size - size) // per_turn
        game.draft_pool, game.drafter = [], None
        game.phase = _PLAY
        game._turns.start_deal(game)  # whose turn it is: Open's marker from the turn, Hand's below
        if solo:
            game.current = current
        if totals is not None:
            game.totals = [int(t) for t in totals]
        if taken is not None:
            game.taken = [list(pile) for pile in taken]
            game.penalties = [sum(BULLHEADS[c] for c in pile) for pile in taken]
        if penalties is not None:
            game.penalties = [int(p) for p in penalties]
        game.events = [DealStarted(0, tuple(tuple(r) for r in game.rows))]
        game.dealt = [None]
        game._from_position = True
        game._forget_views()
        return game

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def started_mid_deal(self) -> bool:
        """The game started mid-deal (:meth:`from_position`): it has no complete record."""
        return self._from_position

    @property
    def chosen(self) -> list[Card | None]:
        """Each seat's (first) chosen card this turn, or None: who has chosen, at a glance."""
        return [c[0] if c else None for c in self.choices]

    def pending(self) -> tuple[Decision, ...]:
        """The decisions the game waits for now (empty once the game is over)."""
        pending = self._pending
        if pending is None:
            pending = self._pending = self._turns.decisions(self) if self.phase is _PLAY else self._decisions()
        return pending

    def _decisions(self) -> tuple[Decision, ...]:
        phase = self.phase
        if phase is _PLAY:
            return self._turns.decisions(self)
        if phase is _ROW_CHOICE:
            assert self._row_choice is not None
            return (self._row_choice,)
        if phase is _DRAFT:
            assert self.drafter is not None
            return (Decision(_DRAFT_PICK, self.drafter, tuple(sorted(set(self.draft_pool)))),)
        if phase is _ORDER:
            assert isinstance(self._turns, Pairs)
            return (self._turns.order_decision(self),)
        if phase is _KEEP:
            keep = self._pending_keep
            assert keep is not None
            options = (PASS, *sorted(set(keep.cards)))
            return (Decision(_KEEP_CARDS, keep.seat, options, keep.trigger, "keep"),)
        return ()

    def seat_card_decisions(self) -> list[Decision]:
        """Each seat's decision "play a card of your hand", made once per change of the hands (the
        options are the hands as the views show them). For the turn structures (core/turns.py)."""
        decisions = self._card_decisions
        if decisions is None:
            hands = self._hand_copies
            if hands is None:  # copied here, once: _copy_hands takes the copies from the decisions
                decisions = [make(Decision, (_CARD, s, tuple(h), None, None)) for s, h in enumerate(self.hands)]
            else:
                decisions = [make(Decision, (_CARD, s, h, None, None)) for s, h in enumerate(hands)]
            self._card_decisions = decisions
        return decisions

    def _copy_hands(self) -> tuple[Cards, ...]:
        decisions = self._card_decisions  # made from copies of the hands, if made
        hands = self._hand_copies = (
            tuple(map(tuple, self.hands)) if decisions is None else tuple(map(_options, decisions))
        )
        return hands

    def decision_for(self, seat: int) -> Decision | None:
        """The decision ``seat`` owes now, if any. In a simultaneous turn a player who has already
        chosen may still change their card until the last player chooses; that is not a pending
        decision."""
        for decision in self.pending():
            if decision.seat == seat:
                return decision
        return None

    def has_chosen(self, seat: int) -> bool:
        """Whether ``seat`` has chosen its card(s) for this simultaneous turn and waits for the others:
        its choice is not revealed yet, and may still be changed or taken back. (Where one player
        plays at a time, as in Open, a card played is shown at once: nobody "has chosen".)"""
        turns = self._turns
        return (self.phase is _PLAY and turns.retractable and bool(self.choices[seat])
                and self.decision_for(seat) is None)

    def may_change_card(self, seat: int) -> bool:
        """Whether a card ``seat`` plays now replaces the one it chose this turn: it has chosen, the
        others have not all, and the turn takes one card a seat (with more, the cards are taken back
        first: :meth:`retract`)."""
        return self._turns.per_turn == 1 and self.has_chosen(seat)

    @property
    def turn_complete(self) -> bool:
        """Whether every answer given so far is in the record: no chosen card waits to be revealed
        and no row, order or keep waits to be answered (a turn just ended, a draft, or the end)."""
        return self.phase is _DRAFT or self.phase is _OVER or (self.phase is _PLAY and not any(self.choices))

    def asks_for(self, kind: DecisionKind) -> bool:
        """Whether the game is in the phase in which decisions of ``kind`` are answered (a card in
        the play phase, a row in a row choice, ...)."""
        return self.phase is PHASE_OF_KIND[kind]

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see; ``None`` gives the spectator's view (no hand at all).

        A view holds its seat's own fields and the moment it was made at; the fields every seat
        shares are made from the moment on the first read of one of them (``PlayerView`` hides
        this: it equals, copies and serializes as a view made field by field, and a view made
        earlier does not change when the game moves on)."""
        if seat.__class__ is not int or not 0 <= seat < self.players:
            if seat is not None:
                self._check_seat(seat, allow_over=True)
            return make_view({"seat": None, "hand": (), "my_choice": None, "my_choices": (), "decision": None,
                              DEFERRED: (_moment_fields, self._moment or self._view_moment())})
        assert seat is not None
        moment = self._moment or self._view_moment()
        hand = (self._hand_copies or self._copy_hands())[seat]
        mine = self.choices[seat]
        if moment.phase_fields is None:  # a simultaneous turn: a seat owes a card until it has chosen one
            if mine:
                return make_view({"seat": seat, "hand": hand, "my_choice": mine[0], "my_choices": mine,
                                  "decision": None, DEFERRED: (_moment_fields, moment)})
            return make_view({"seat": seat, "hand": hand, "my_choice": None, "my_choices": (),
                              "decision": (self.seat_card_decisions())[seat],
                              DEFERRED: (_moment_fields, moment)})
        decision = None
        for d in self._pending or self.pending():  # decision_for(seat), from the cached pending()
            if d.seat == seat:
                decision = d
                break
        return make_view({"seat": seat, "hand": hand, "my_choice": mine[0] if mine else None, "my_choices": mine,
                          "decision": decision, DEFERRED: (_moment_fields, moment)})

    def _view_moment(self) -> _Moment:
        """The moment views are made at until the next answer: the table (``_table``, taken if it
        was not), who has chosen and whose turn it is, and the fields of any phase but a
        simultaneous turn's play."""
        table = self._table or self._take_table()
        phase = self.phase
        if phase is _PLAY and self._simultaneous:
            phase_fields = None
        else:
            pending = self.pending()
            phase_fields = {
                "phase": phase,
                "waiting_for": tuple([d.seat for d in pending]),
                "row_choice": pending[0] if phase is _ROW_CHOICE else None,
                "face_up": self._turns.face_up(self),
            }
        moment = make(_Moment, (table, tuple(map(bool, self.choices)), self.current, phase_fields))
        self._moment = moment
        return moment

    def _take_table(self) -> _Table:
        """Copies of what the views show of the table now (``_Table``)."""
        table = make(_Table, (
            self.deal_index,
            self.turn,
            self._hand_copies or self._copy_hands(),
            tuple(self.totals),
            tuple(self.penalties),
            tuple(map(tuple, self.taken)),
            tuple(map(tuple, self.rows)),
            tuple(self.played),
            self.revealed,
            self.revealed_by,
            tuple(self.played_by),
            tuple(self._queue),
            self._turns.unqueued(self),
            tuple(self.draft_pool),
            self.drafter,
            self.winners,
            self._view_constants,
        ))
        self._table = table
        return table

    def _forget_views(self) -> None:
        """Drop every cached view field and decision (the state was set from outside: a position)."""
        self._pending = None
        self._hands_changed()

    def _hands_changed(self) -> None:
        """Cards moved into or out of a hand (and so on the table too): the copies of the hands
        and the card decisions made from them are out of date as well."""
        self._table = self._moment = self._hand_copies = self._card_decisions = None

    # ------------------------------------------------------------------ decisions

    def act(self, seat: int, value: int) -> list[Event]:
        """Answer ``seat``'s pending decision, whatever its kind (the phase says which it is).
        Returns the events the answer caused."""
        if self.phase is _PLAY and seat.__class__ is int and 0 <= seat < self.players:
            # Playing a card, the answer of most decisions (:meth:`play`): written out here.
            if value.__class__ is not int:
                value = self._whole(seat, value, "card")
            self._pending = self._moment = None
            events = self.events
            mark = len(events)
            if self._turns.play(self, seat, value):
                self._reveal()  # every card of the turn is in
            return events[mark:]
        handler = _ANSWERS.get(self.phase)
        if handler is None:  # the game is over: say so (or that there is no such seat)
            self._check_seat(seat)
            raise IllegalMoveError(f"the game is over: {self.who(seat)} has nothing to decide")
        return handler(self, seat, value)

    def play(self, seat: int, card: Card) -> list[Event]:
        """``seat`` chooses ``card`` for this turn.

        In a simultaneous turn a player may change their card until the last player has chosen
        (in Nifty, :meth:`retract` first); then the cards are revealed and placed in ascending order,
        up to the first card whose owner must choose. Returns the events this caused.
        """
        if seat.__class__ is not int or not 0 <= seat < self.players or self.phase is not _PLAY:
            self._check_seat(seat)
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot play card {card!r} now: "
                f"the game is in the {self.phase.value} phase"
            )
        return self.act(seat, card)

    def retract(self, seat: int) -> None:
        """Take back ``seat``'s unrevealed choice this turn (a simultaneous turn only)."""
        self._check_seat(seat)
        if self.phase is not _PLAY or not self._turns.retractable or not self.choices[seat]:
            raise IllegalMoveError(f"{self.where()}: {self.who(seat)} has no choice to take back")
        self._turns.retract(self, seat)
        self.choices[seat] = ()
        self._pending = self._moment = None

    def choose_row(self, seat: int, row: int) -> list[Event]:
        """``seat`` answers a row choice: the row to take (too-low card) or the tied row to use."""
        choice = self._row_choice
        if choice is None or seat != choice.seat or seat.__class__ is not int or row not in choice.options:
            self._refuse_row(seat, row)
        assert choice is not None
        if row.__class__ is not int:  # 2.0 equals 2, and is refused all the same
            row = self._whole(seat, row, "row")
        mark = len(self.events)
        self._pending = self._moment = self._table = None  # rows move; the hands do not
        self._row_choice = None
        self.phase = _PLAY
        owner, card = self._queue.pop(0)
        if choice.reason == _TOO_LOW:
            self._take_row(owner, row, _TOO_LOW, card)
            self.rows[row].append(card)
            self.events.append(make(CardPlaced, (self.deal_index, self.turn, owner, card, row, _RIGHT)))
        else:
            self._place(owner, card, next(s for s in best_slots(self.rows, card, True) if s.row == row))
        self._resolve()
        return self.events[mark:]

    def _refuse_row(self, seat: object, row: object) -> None:
        """Raise the error that says why ``row`` is not ``seat``'s answer now."""
        self._check_seat(seat)  # type: ignore[arg-type]
        assert isinstance(seat, int)
        if row.__class__ is not int:
            row = self._whole(seat, row, "row")
        choice = self._row_choice
        if self.phase is not _ROW_CHOICE or choice is None:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot choose row {row!r}: no row choice is due"
            )
        if seat != choice.seat:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot choose row {row!r}: it is "
                f"{self.who(choice.seat)}'s choice for card {choice.card}"
            )
        raise IllegalMoveError(
            f"{self.where()}: {self.who(seat)} cannot choose row {row!r} for card "
            f"{choice.card}: choose one of {list(choice.options)}"
        )

    def draft(self, seat: int, card: Card) -> list[Event]:
        """Logic, Tournament: ``seat`` takes ``card`` from the open draft pool."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        if self.phase is not _DRAFT or self.drafter is None:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot draft card {card!r}: there is no draft now"
            )
        if seat != self.drafter:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot draft card {card!r}: it is "
                f"{self.who(self.drafter)}'s pick"
            )
        if card not in self.draft_pool:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot draft card {card!r}: not in the pool"
            )
        mark = len(self.events)
        self._pending = self._moment = None
        self._hands_changed()
        self.draft_pool.remove(card)
        self.hands[seat].append(card)
        self.hands[seat].sort()
        self._emit(DraftPicked(self.deal_index, seat, card))
        if all(len(h) == self.rules.hand_size for h in self.hands):
            assert len(self.draft_pool) == ROW_COUNT
            self.rows = [[c] for c in sorted(self.draft_pool)]
            self.draft_pool = []
            self.drafter = None
            self.phase = _PLAY
            self._deals.drafted(self.hands, self.rows)
            self._emit(RowsLaid(self.deal_index, tuple(tuple(r) for r in self.rows)))
        else:
            self.drafter = (seat + 1) % self.players
        return self.events[mark:]

    def order(self, seat: int, card: Card) -> list[Event]:
        """Nifty: ``seat`` places ``card`` first of their two (the other follows at once)."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        if self.phase is not _ORDER:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot order card {card!r}: no order is due"
            )
        assert isinstance(self._turns, Pairs)
        mark = len(self.events)
        self._pending = self._moment = self._table = None  # rows move; the hands do not
        self._queue = self._turns.order(self, seat, card)
        self.phase = _PLAY
        self._resolve()
        return self.events[mark:]

    def keep(self, seat: int, card: Card) -> list[Event]:
        """Hand: move ``card`` of the row ``seat`` just took into their hand, or ``PASS`` (0) to
        leave the rest in their pile."""
        self._check_seat(seat)
        card = self._whole(seat, card, "card")
        keep = self._pending_keep
        if self.phase is not _KEEP or keep is None:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot keep card {card!r}: no taken row to split"
            )
        if seat != keep.seat:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot keep card {card!r}: it is "
                f"{self.who(keep.seat)} who took the row"
            )
        if card != PASS and card not in keep.cards:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)} cannot keep card {card!r}: "
                f"the row taken holds {sorted(keep.cards)}"
            )
        mark = len(self.events)
        self._pending = self._moment = None
        self._hands_changed()
        if card != PASS:
            keep.cards.remove(card)
            keep.kept.append(card)
            self.taken[seat].remove(card)
            self.penalties[seat] -= BULLHEADS[card]
            self.hands[seat].append(card)
            self.hands[seat].sort()
        if card == PASS or not keep.cards or len(self.hands[seat]) >= HAND_VARIANT_HAND_LIMIT:
            self._emit(CardsKept(self.deal_index, self.turn, keep.seat, tuple(keep.kept), keep.trigger))
            self._pending_keep = None
            self.phase = _PLAY
            self._resolve()
        return self.events[mark:]

    # ------------------------------------------------------------------ records

    @property
    def history(self) -> list[dict[str, Any]]:
        """The record's ``deals`` so far (docs/record-format.md), written from the events."""
        return self._record_writer().deals(self)

    def record(self) -> dict[str, Any]:
        """This game as a record (docs/record-format.md); complete once the game is over.

        Each variant writes its spec's ``record_version`` (the §6 variants 2; the others 1, which
        older readers know)."""
        if self._from_position:
            raise RulesError("a game started from a position has no record: its start is unknown")
        return self._record_writer().record(self)

    def _record_writer(self) -> RecordWriter:
        if self._writer is None:
            # The record format lives in record.py, which replays records with this class: it is
            # imported on first use, so neither module needs the other to load.
            from .record import RecordWriter

            self._writer = RecordWriter(self.rules)
        return self._writer

    # ------------------------------------------------------------------ internals

    def who(self, seat: int) -> str:
        """``seat`` as an error message names it: "seat 2 (Ana)"."""
        return f"seat {seat} ({self.seats[seat]})"

    def where(self) -> str:
        """The moment as an error message names it: "deal 1, turn 3"."""
        return f"deal {self.deal_index + 1}, turn {self.turn + 1}"

    def _whole(self, seat: int, value: object, what: str) -> int:
        """``value`` as a plain int. A card or row is a whole number: 8.0 and True are refused
        (the record would store what no reader accepts); numpy's integers become ints."""
        if value.__class__ is int:
            return value
        try:
            if isinstance(value, bool):
                raise TypeError
            return operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            raise IllegalMoveError(
                f"{self.where()}: {self.who(seat)}: a {what} is a whole number, not {repr(value)[:40]}"
            ) from None

    def _check_seat(self, seat: int, allow_over: bool = False) -> None:
        if seat.__class__ is not int or not 0 <= seat < self.players:
            raise IllegalMoveError(
                f"{self.where()}: there is no seat {seat!r} (seats are 0 to {self.players - 1})"
            )
        if self.phase is _OVER and not allow_over:
            raise IllegalMoveError(f"the game is over: {self.who(seat)} has nothing to decide")

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def unchosen(self, seat: int) -> Cards:
        """The cards of ``seat``'s hand not chosen this turn."""
        hand = list(self.hands[seat])
        for card in self.choices[seat]:
            hand.remove(card)
        return tuple(hand)

    def _start_deal(self) -> None:
        self._table = self._moment = self._hand_copies = self._card_decisions = None  # _hands_changed()
        deal = self.deal_index = self.deal_index + 1
        self.turn = 0
        players = self.players
        self.penalties = [0] * players
        self.taken = list(map(list, self._no_choices))  # a fresh empty pile per seat
        self.played = []
        self.played_by = []
        self.choices = list(self._no_choices)
        self.revealed = None
        hands, rows, drafter, setup = self._deals.start(deal)
        self.hands, self.rows = hands, rows
        self.dealt.append(setup)
        if drafter is not None:
            self.draft_pool = list(self.rules.deck)
            self.drafter = drafter
            self.phase = _DRAFT
        else:
            self.phase = _PLAY
        self._turns.start_deal(self)
        self._turns.start_turn(self)
        self.events.append(make(DealStarted, (deal, tuple(map(tuple, rows)))))

    def _reveal(self) -> None:
        self._table = self._moment = self._hand_copies = self._card_decisions = None  # _hands_changed()
        seat_cards, plays, seat, self._queue = self._turns.reveal(self)
        hands = self.hands
        for owner, card in seat_cards:
            hands[owner].remove(card)
        self.revealed = plays
        self.revealed_by = seat_cards
        self.events.append(make(CardsRevealed, (self.deal_index, self.turn, plays, seat, seat_cards)))
        self._resolve()

    def _resolve(self) -> None:
        """Place queued cards in order until one needs its owner's decision."""
        queue = self._queue
        rows = self.rows
        professional, stack = self._professional, self._stack
        keeps = self._keeps_taken
        emit = self.events.append
        deal, turn = self.deal_index, self.turn
        while True:
            if keeps and self._pending_keep is not None:
                self.phase = _KEEP
                return
            if not queue:
                if self._turns.more_to_queue(self):
                    self.phase = _ORDER
                    return
                break
            seat, card = queue[0]
            slots = best_slots(rows, card, professional, stack)
            if len(slots) == 1:
                del queue[0]
                self._place(seat, card, slots[0])
                continue
            if not slots:
                options, reason = tuple(range(len(rows))), _TOO_LOW
            elif self.rules.pro_tie is ProTie.CHOOSE:
                options, reason = tuple(s.row for s in slots), "tie"
            else:
                wanted = Side.LEFT if self.rules.pro_tie is ProTie.LEFT else Side.RIGHT
                del queue[0]
                self._place(seat, card, next(s for s in slots if s.side is wanted))
                continue
            self._row_choice = make(Decision, (_ROW, seat, options, card, reason))
            self.phase = _ROW_CHOICE
            emit(make(RowChoiceRequired, (deal, turn, seat, card, options, reason)))
            return
        self.phase = _PLAY
        self._end_turn()

    def _place(self, seat: int, card: Card, slot: Slot) -> None:
        """Put ``card`` at ``slot``: on its twin (Double), or after taking the row if it is full."""
        index, side = slot.row, _RIGHT if slot.side is _SIDE_RIGHT else _LEFT
        row = self.rows[index]
        stack = self._stack
        if stack and row[-1] == card:
            row.append(card)  # Double: stacked on its twin, no new place in the row
        elif (row_size(row, True) if stack else len(row)) >= self._row_limit:
            self._take_row(seat, index, "full", card)
            self.rows[index].append(card)
        elif side == _RIGHT:
            row.append(card)
        else:
            row.insert(0, card)
        self.events.append(make(CardPlaced, (self.deal_index, self.turn, seat, card, index, side)))

    def _take_row(self, seat: int, row_index: int, reason: str, card: Card) -> None:
        cards = tuple(self.rows[row_index])
        points = sum(map(BULLHEADS.__getitem__, cards))
        self.taken[seat].extend(cards)
        self.rows[row_index] = []
        twin_seat = self._twin_behind(card) if self._stack else None
        if twin_seat is None:
            self.penalties[seat] += points
            self.events.append(make(RowTaken, (self.deal_index, self.turn, seat, row_index, cards, points, reason)))
        else:
            # Double: two identical cards force this pickup together; each owner scores half,
            # rounded up (the cards go to the first owner's pile).
            half = (points + 1) // 2
            self.penalties[seat] += half
            self.penalties[twin_seat] += half
            self._emit(RowTaken(self.deal_index, self.turn, seat, row_index, cards, half, reason))
            self._emit(RowTaken(self.deal_index, self.turn, twin_seat, row_index, (), half, "twin"))
        if self._keeps_taken and len(self.hands[seat]) < HAND_VARIANT_HAND_LIMIT:
            self._pending_keep = _PendingKeep(seat, card, list(cards), [])

    def _twin_behind(self, card: Card) -> int | None:
        """Double: the seat whose identical card is placed right after ``card`` this turn."""
        # The card itself has left the queue; its twin, if played this turn, is next in line.
        if self._queue and self._queue[0][1] == card:
            return self._queue[0][0]
        return None

    def _end_turn(self) -> None:
        assert self.revealed is not None
        self.played.append(self.revealed)
        self.played_by.append(self.revealed_by)
        self.revealed = None
        self.revealed_by = ()
        self.choices = list(self._no_choices)
        self.turn += 1
        if self._turns.after_turn(self):
            self._score_deal()
        else:
            self._turns.start_turn(self)

    def _score_deal(self) -> None:
        rules = self.rules
        factor = rules.spec.left_in_hand_factor
        if factor:  # Hand: cards left in hand score double, on top of the pile
            for seat in range(self.players):
                self.penalties[seat] += factor * sum(BULLHEADS[c] for c in self.hands[seat])
        if self.current is not None:  # Open, Hand: nobody's turn once the deal is over
            self.current = None
        totals = self.totals
        totals[:] = map(add, totals, self.penalties)
        self.events.append(make(DealScored, (self.deal_index, tuple(self.penalties), tuple(totals))))
        if rules.game_over_after(totals, self.deal_index + 1):
            low = min(self.totals)
            self.winners = tuple(s for s, t in enumerate(self.totals) if t == low)
            self.phase = _OVER
            self.current = None
            self._emit(GameOver(tuple(self.totals), self.winners))
        else:
            self._start_deal()


#: The seats' names where none are given: "Player 1", "Player 2", ...
_DEFAULT_SEATS = [tuple(f"Player {seat + 1}" for seat in range(players)) for players in range(MAX_PLAYERS + 1)]

#: Who answers a decision of each phase but play (``Game.act``). The class's functions, not bound
#: methods: a game holding its own bound methods would be a reference cycle, freed only by the
#: cycle collector.
#: The phase in which each kind of decision is asked.
PHASE_OF_KIND: dict[DecisionKind, Phase] = {
    DecisionKind.CARD: _PLAY,
    DecisionKind.ROW: _ROW_CHOICE,
    DecisionKind.DRAFT: _DRAFT,
    DecisionKind.ORDER: _ORDER,
    DecisionKind.KEEP: _KEEP,
}

_ANSWERS: dict[Phase, Callable[[Game, int, int], list[Event]]] = {
    _PLAY: Game.play,
    _ROW_CHOICE: Game.choose_row,
    _DRAFT: Game.draft,
    _ORDER: Game.order,
    _KEEP: Game.keep,
}
