"""The game as a state machine (RULES.md §2-5).

A :class:`Game` always says which decisions it is waiting for (:meth:`Game.pending`): a card from
every player who has not chosen yet (simultaneous), a row choice from one player, or a Logic draft
pick from one player. Answers go through the checked methods :meth:`Game.play`,
:meth:`Game.choose_row` and :meth:`Game.draft` (or :meth:`Game.act` for whichever is pending); an
illegal answer raises :class:`~sixnimmt.core.errors.IllegalMoveError` and changes nothing.

Chance enters only through the *dealer*, a callable that returns each deal's hands and rows; the
default dealer shuffles with a ``random.Random`` built from the seed, so the same seed gives the same
game, and a record (which stores every deal) replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import BULLHEADS, HAND_SIZE, ROW_COUNT, ROW_LIMIT, Card
from .errors import IllegalMoveError, RulesError
from .events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
)
from .placement import Side, Slot, best_slots
from .rules import ProTie, Rules, Variant
from .views import Decision, DecisionKind, Phase, PlayerView

Cards = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DealSetup:
    """What chance decides for one deal: each seat's hand and the four starting cards (rows 0..3)."""

    hands: tuple[Cards, ...]
    rows: Cards

    def validate(self, rules: Rules) -> None:
        """Raise :class:`RulesError` unless this is a possible deal under ``rules``."""
        if len(self.hands) != rules.players:
            raise RulesError(f"a deal needs {rules.players} hands, got {len(self.hands)}")
        for seat, hand in enumerate(self.hands):
            if len(hand) != HAND_SIZE:
                raise RulesError(f"seat {seat}'s hand has {len(hand)} cards, not {HAND_SIZE}")
        if len(self.rows) != ROW_COUNT:
            raise RulesError(f"a deal starts {ROW_COUNT} rows, got {len(self.rows)}")
        cards = [c for hand in self.hands for c in hand] + list(self.rows)
        deck = set(rules.deck)
        for card in cards:
            if card not in deck:
                raise RulesError(f"card {card!r} is not in the {rules.variant.value} deck")
        if len(set(cards)) != len(cards):
            dupes = sorted({c for c in cards if cards.count(c) > 1})
            raise RulesError(f"card(s) dealt twice: {dupes}")


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
        players = self._rules.players
        hands = tuple(
            tuple(sorted(deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])) for seat in range(players)
        )
        start = players * HAND_SIZE
        return DealSetup(hands=hands, rows=tuple(deck[start : start + ROW_COUNT]))


@dataclass(slots=True)
class _PendingRow:
    seat: int
    card: Card
    options: tuple[int, ...]
    reason: str  # "too-low" or "tie"


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
        self.turn = 0
        self.phase = Phase.PLAY
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.rows: list[list[Card]] = [[] for _ in range(ROW_COUNT)]
        self.penalties: list[int] = [0] * players
        self.taken: list[list[Card]] = [[] for _ in range(players)]
        self.played: list[Cards] = []  # revealed plays of finished turns this deal
        self.chosen: list[Card | None] = [None] * players
        self.revealed: Cards | None = None
        self._queue: list[tuple[Card, int]] = []  # revealed cards not yet placed, ascending
        self._pending_row: _PendingRow | None = None
        self._picks: dict[str, int] = {}
        self.draft_pool: list[Card] = []
        self.drafter: int | None = None
        self.winners: tuple[int, ...] = ()
        self.events: list[Event] = []
        self.history: list[dict[str, Any]] = []  # the record's "deals", built as play goes on
        self._from_position = False
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
        seed: int | None = None,
    ) -> Game:
        """A game that starts mid-deal from a given position (for puzzles, tests and analysis).

        Every hand holds the same number of cards (1..10); rows hold 1..5 ascending cards. Deals after
        this one are shuffled from ``seed``. Such a game has no complete record.
        """
        players = rules.players
        if len(hands) != players:
            raise RulesError(f"a position needs {players} hands, got {len(hands)}")
        sizes = {len(h) for h in hands}
        if len(sizes) != 1 or not 1 <= next(iter(sizes)) <= HAND_SIZE:
            raise RulesError(f"every hand must hold the same number (1..{HAND_SIZE}) of cards")
        if len(rows) != ROW_COUNT or any(not 1 <= len(r) <= ROW_LIMIT for r in rows):
            raise RulesError(f"a position needs {ROW_COUNT} rows of 1..{ROW_LIMIT} cards")
        for row in rows:
            if list(row) != sorted(set(row)):
                raise RulesError(f"row {list(row)} is not ascending")
        cards = [c for h in hands for c in h] + [c for r in rows for c in r]
        deck = set(rules.deck)
        if len(set(cards)) != len(cards) or not set(cards) <= deck:
            raise RulesError("a position's cards must be distinct cards of the variant's deck")
        game = cls(rules, seats, seed=seed)
        game.hands = [sorted(h) for h in hands]
        game.rows = [list(r) for r in rows]
        game.turn = HAND_SIZE - len(hands[0])
        game.draft_pool, game.drafter = [], None
        game.phase = Phase.PLAY
        if totals is not None:
            game.totals = [int(t) for t in totals]
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

    def pending(self) -> tuple[Decision, ...]:
        """The decisions the game waits for now (empty once the game is over)."""
        if self.phase is Phase.PLAY:
            return tuple(
                Decision(DecisionKind.CARD, seat, tuple(self.hands[seat]))
                for seat in range(self.players)
                if self.chosen[seat] is None
            )
        if self.phase is Phase.ROW_CHOICE:
            assert self._pending_row is not None
            p = self._pending_row
            return (Decision(DecisionKind.ROW, p.seat, p.options, p.card, p.reason),)
        if self.phase is Phase.DRAFT:
            assert self.drafter is not None
            return (Decision(DecisionKind.DRAFT, self.drafter, tuple(self.draft_pool)),)
        return ()

    def decision_for(self, seat: int) -> Decision | None:
        """The decision ``seat`` owes now, if any. In the play phase a player who has already chosen
        may still change their card until the last player chooses; that is not a pending decision."""
        for decision in self.pending():
            if decision.seat == seat:
                return decision
        return None

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see; ``None`` gives the spectator's view (no hand at all)."""
        if seat is not None:
            self._check_seat(seat, acting=False)  # a finished game can still be looked at
        public_hands = self.rules.hands_public
        pending = self.pending()
        row_choice = pending[0] if self.phase is Phase.ROW_CHOICE else None
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
            chosen=tuple(c is not None for c in self.chosen),
            my_choice=self.chosen[seat] if seat is not None else None,
            revealed=self.revealed,
            unplaced=tuple(card for card, _ in self._queue),
            decision=self.decision_for(seat) if seat is not None else None,
            waiting_for=tuple(d.seat for d in pending),
            hands=tuple(tuple(h) for h in self.hands) if public_hands else None,
            draft_pool=tuple(self.draft_pool),
            drafter=self.drafter,
            winners=self.winners,
            row_choice=row_choice,
        )

    # ------------------------------------------------------------------ decisions

    def act(self, seat: int, value: int) -> list[Event]:
        """Answer ``seat``'s pending decision, whatever its kind."""
        decision = self.decision_for(seat)
        if decision is None and self.phase is Phase.PLAY and self.chosen[seat] is not None:
            return self.play(seat, value)  # a change of mind before the reveal
        if decision is None:
            raise IllegalMoveError(f"{self._where()}: {self._who(seat)} has no decision to make")
        if decision.kind is DecisionKind.CARD:
            return self.play(seat, value)
        if decision.kind is DecisionKind.ROW:
            return self.choose_row(seat, value)
        return self.draft(seat, value)

    def play(self, seat: int, card: Card) -> list[Event]:
        """``seat`` chooses ``card`` for this turn (or changes their choice before the reveal).

        When the last player has chosen, the cards are revealed and placed in ascending order, up to
        the first card whose owner must choose a row. Returns the events this caused.
        """
        self._check_seat(seat)
        if self.phase is not Phase.PLAY:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r} now: "
                f"the game is in the {self.phase.value} phase"
            )
        if card not in self.hands[seat]:
            raise IllegalMoveError(
                f"{self._where()}: {self._who(seat)} cannot play card {card!r}: "
                f"not in hand {sorted(self.hands[seat])}"
            )
        mark = len(self.events)
        first_choice = self.chosen[seat] is None
        self.chosen[seat] = card
        if first_choice:
            self._emit(CardChosen(self.deal_index, self.turn, seat))
        if all(c is not None for c in self.chosen):
            self._reveal()
        return self.events[mark:]

    def choose_row(self, seat: int, row: int) -> list[Event]:
        """``seat`` answers a row choice: the row to take (too-low card) or the tied row to use."""
        self._check_seat(seat)
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
            self._take_row(owner, row, "too-low")
            self.rows[row].append(card)
            self._emit(CardPlaced(self.deal_index, self.turn, owner, card, row, Side.RIGHT.value))
        else:
            side = next(s.side for s in best_slots(self.rows, card, True) if s.row == row)
            self._place(owner, card, Slot(row, side))
        self._resolve()
        return self.events[mark:]

    def draft(self, seat: int, card: Card) -> list[Event]:
        """Logic: ``seat`` takes ``card`` from the open draft pool."""
        self._check_seat(seat)
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
            self._emit(RowsLaid(self.deal_index, tuple(tuple(r) for r in self.rows)))
        else:
            self.drafter = (seat + 1) % self.players
        return self.events[mark:]

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        """This game as a record (docs/record-format.md); complete once the game is over."""
        if self._from_position:
            raise RulesError("a game started from a position has no record: its start is unknown")
        data: dict[str, Any] = {
            "format": "sixnimmt-record",
            "version": 1,
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

    def _check_seat(self, seat: int, *, acting: bool = True) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalMoveError(
                f"{self._where()}: there is no seat {seat!r} (seats are 0 to {self.players - 1})"
            )
        if acting and self.phase is Phase.OVER:
            raise IllegalMoveError(f"the game is over: {self._who(seat)} has nothing to decide")

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _start_deal(self) -> None:
        self.deal_index += 1
        self.turn = 0
        players = self.players
        self.penalties = [0] * players
        self.taken = [[] for _ in range(players)]
        self.played = []
        self.chosen = [None] * players
        self.revealed = None
        if self.rules.variant is Variant.LOGIC:
            first = self.deal_index % players
            self.hands = [[] for _ in range(players)]
            self.rows = [[] for _ in range(ROW_COUNT)]
            self.draft_pool = list(self.rules.deck)
            self.drafter = first
            self.phase = Phase.DRAFT
            self.history.append({"draft": {"first": first, "order": []}, "turns": []})
        else:
            setup = self._dealer(self.deal_index)
            setup.validate(self.rules)
            self.hands = [sorted(h) for h in setup.hands]
            self.rows = [[c] for c in setup.rows]
            self.phase = Phase.PLAY
            self.history.append(
                {
                    "hands": [list(h) for h in self.hands],
                    "rows": [list(r) for r in self.rows],
                    "turns": [],
                }
            )
        self._emit(DealStarted(self.deal_index, tuple(tuple(r) for r in self.rows)))

    def _reveal(self) -> None:
        plays = tuple(c for c in self.chosen if c is not None)
        assert len(plays) == self.players
        for seat, card in enumerate(plays):
            self.hands[seat].remove(card)
        self.revealed = plays
        self._picks = {}
        self._queue = sorted((card, seat) for seat, card in enumerate(plays))
        self._emit(CardsRevealed(self.deal_index, self.turn, plays))
        self._resolve()

    def _resolve(self) -> None:
        """Place queued cards in ascending order until one needs its owner's row choice."""
        professional = self.rules.professional
        while self._queue:
            card, seat = self._queue[0]
            slots = best_slots(self.rows, card, professional)
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
        self._end_turn()

    def _place(self, seat: int, card: Card, slot: Slot) -> None:
        row = self.rows[slot.row]
        if len(row) >= ROW_LIMIT:
            self._take_row(seat, slot.row, "full")
            self.rows[slot.row].append(card)
        elif slot.side is Side.RIGHT:
            row.append(card)
        else:
            row.insert(0, card)
        self._emit(CardPlaced(self.deal_index, self.turn, seat, card, slot.row, slot.side.value))

    def _take_row(self, seat: int, row_index: int, reason: str) -> None:
        cards = tuple(self.rows[row_index])
        points = sum(BULLHEADS[c] for c in cards)
        self.taken[seat].extend(cards)
        self.penalties[seat] += points
        self.rows[row_index] = []
        self._emit(RowTaken(self.deal_index, self.turn, seat, row_index, cards, points, reason))

    def _end_turn(self) -> None:
        assert self.revealed is not None
        turn: dict[str, Any] = {"plays": list(self.revealed)}
        if self._picks:
            turn["picks"] = dict(self._picks)
        self.history[-1]["turns"].append(turn)
        self.played.append(self.revealed)
        self.revealed = None
        self._picks = {}
        self.chosen = [None] * self.players
        self.turn += 1
        if self.turn < HAND_SIZE:
            return
        for seat in range(self.players):
            self.totals[seat] += self.penalties[seat]
        self._emit(DealScored(self.deal_index, tuple(self.penalties), tuple(self.totals)))
        if self.rules.game_over_after(self.totals, self.deal_index + 1):
            low = min(self.totals)
            self.winners = tuple(s for s, t in enumerate(self.totals) if t == low)
            self.phase = Phase.OVER
            self._emit(GameOver(tuple(self.totals), self.winners))
        else:
            self._start_deal()


def _copy_deal(deal: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = {}
    if "draft" in deal:
        copy["draft"] = {"first": deal["draft"]["first"], "order": list(deal["draft"]["order"])}
    else:
        copy["hands"] = [list(h) for h in deal["hands"]]
        copy["rows"] = [list(r) for r in deal["rows"]]
    copy["turns"] = [
        {"plays": list(t["plays"]), **({"picks": dict(t["picks"])} if "picks" in t else {})}
        for t in deal["turns"]
    ]
    return copy
