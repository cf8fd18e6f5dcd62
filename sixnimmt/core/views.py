"""What one seat (or a spectator) may know. Bots and interfaces only ever receive these views."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .cards import Card
from .events import SeatCard
from .frozen import FrozenTuple
from .rules import Rules

Cards = tuple[Card, ...]


class Phase(StrEnum):
    DRAFT = "draft"  # Logic, Tournament: one player at a time takes a card from the open deck
    PLAY = "play"  # cards are chosen: secretly and at once, or (Open, Hand) one player at a time
    ROW_CHOICE = "row-choice"  # resolution paused: one player must choose a row
    ORDER = "order"  # Nifty: a player chooses which of their two cards is placed first
    KEEP = "keep"  # Hand: a player who took a row moves some of its cards to their hand
    OVER = "over"


class DecisionKind(StrEnum):
    """What a decision asks for; a :class:`Decision`'s ``options`` are cards, or row indices for ``ROW``."""

    CARD = "card"  # play a card from hand (Hand's optional second card: PASS declines)
    ROW = "row"  # choose a row index
    DRAFT = "draft"  # take a card from the draft pool
    ORDER = "order"  # Nifty: the card to place first
    KEEP = "keep"  # Hand: a taken card to move to the hand, or PASS to leave the rest in the pile


#: The answer "no card": declines Hand's second card, or ends keeping taken cards.
PASS = 0


class Decision(FrozenTuple):
    """A decision the game is waiting for: who, what kind, and the legal answers."""

    kind: DecisionKind
    seat: int
    options: tuple[int, ...]
    card: Card | None = None  # for ROW: the card whose placement needs the choice
    reason: str | None = None  # for ROW: "too-low" or "tie"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "seat": self.seat,
            "options": list(self.options),
            "card": self.card,
            "reason": self.reason,
        }


#: The fields of a view that are its seat's own (:meth:`Game.view` sets them per seat); at one
#: moment every other field is the same in every seat's view and in the spectators'.
OWN_FIELDS = ("seat", "hand", "my_choice", "my_choices", "decision")


@dataclass(frozen=True)
class PlayerView:
    """The game as seen from ``seat`` (``None`` for a spectator).

    Holds no other player's hidden hand, no card set aside, and no card chosen but not yet revealed,
    except the viewer's own. In Logic every hand is public (the draft was open), so ``hands`` is set.

    Not slotted, unlike the events: the engine makes a view for every decision, and filling an
    instance's ``__dict__`` from the fields every seat's view shares at that moment (:func:`make_view`)
    costs a fifth of setting 33 slots one by one.
    """

    seat: int | None
    seats: tuple[str, ...]
    rules: Rules
    phase: Phase
    deal: int
    turn: int
    hand: Cards
    rows: tuple[Cards, ...]
    totals: tuple[int, ...]
    penalties: tuple[int, ...]
    taken: tuple[Cards, ...]
    hand_sizes: tuple[int, ...]
    played: tuple[Cards, ...]
    chosen: tuple[bool, ...]
    my_choice: Card | None
    revealed: Cards | None
    unplaced: Cards
    decision: Decision | None
    waiting_for: tuple[int, ...]
    hands: tuple[Cards, ...] | None = None
    draft_pool: Cards = ()
    drafter: int | None = None
    winners: tuple[int, ...] = ()
    row_choice: Decision | None = field(default=None)
    my_choices: Cards = ()  # every card the viewer has chosen this turn (two in Nifty)
    face_up: tuple[Card | None, ...] | None = None  # Open/Hand: this turn's cards, played face up
    current: int | None = None  # Open/Hand: the seat whose turn it is
    #: ``((seat, card), ...)``: who played which card of ``revealed`` (as in ``CardsRevealed``).
    revealed_by: tuple[SeatCard, ...] | None = None
    #: The same for each finished turn of this deal (``played``'s cards with their seats).
    played_by: tuple[tuple[SeatCard, ...], ...] = ()
    turns_per_deal: int | None = None  # turns in a deal; None where a deal has no fixed length (Hand)
    target: int | None = None  # the total that ends the game, once the variant has fixed its end

    if not TYPE_CHECKING:  # hidden from mypy, which would let any attribute name through

        def __getattr__(self, name: str) -> Any:
            # Only reached for a name not in the instance: a view whose shared fields the engine
            # deferred (make_view) makes them now, once.
            if name not in _FIELD_NAMES or not self._make_deferred():
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return self.__dict__[name]

        def __getstate__(self) -> dict[str, Any]:
            # Pickled and copied with every field made, like any other view.
            self._make_deferred()
            return self.__dict__

    def _make_deferred(self) -> bool:
        """Make the fields the engine deferred, if any (True if there were). They are made before
        they are stored, so a view read by two threads at once only makes them twice."""
        attributes = self.__dict__
        deferred = attributes.get(DEFERRED)
        if deferred is None:
            return False
        make, source = deferred
        attributes.update(make(source))
        attributes.pop(DEFERRED, None)
        return True

    @property
    def players(self) -> int:
        return self.rules.players

    def seen_cards(self) -> frozenset[Card]:
        """Every card this viewer has seen this deal: hand, rows, revealed and taken cards."""
        seen: set[Card] = set(self.hand)
        for row in self.rows:
            seen.update(row)
        for pile in self.taken:
            seen.update(pile)
        for plays in self.played:
            seen.update(plays)
        if self.revealed is not None:
            seen.update(self.revealed)
        if self.hands is not None:
            for hand in self.hands:
                seen.update(hand)
        if self.face_up is not None:
            seen.update(c for c in self.face_up if c is not None)
        seen.update(self.draft_pool)
        return frozenset(seen)

    def unseen_cards(self) -> Cards:
        """Cards of the deck this viewer has not seen: the others' hidden hands and the set-aside cards.

        In Tactics every unseen card is in another player's hand; in Logic none is unseen. In Double
        a card can be seen once and still unseen once (its twin).
        """
        if not self.rules.spec.twins:
            seen = self.seen_cards()
            return tuple(c for c in self.rules.deck if c not in seen)
        counts: dict[Card, int] = {}
        for card in self._seen_list():
            counts[card] = counts.get(card, 0) + 1
        unseen: list[Card] = []
        for card in self.rules.deck:
            if counts.get(card, 0) > 0:
                counts[card] -= 1
            else:
                unseen.append(card)
        return tuple(unseen)

    def _seen_list(self) -> list[Card]:
        # Each physical card once, where it is now: earlier plays (``played``) and this turn's
        # placed cards (``revealed``) already lie in a row or a pile, so counting them again would
        # mark a twin still in someone's hand as seen.
        seen: list[Card] = list(self.hand)
        for group in (*self.rows, *self.taken):
            seen.extend(group)
        seen.extend(self.unplaced)
        return seen

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for the web server and the bot protocol)."""
        return {**self.own_to_dict(), **self.shared_to_dict()}

    def own_to_dict(self) -> dict[str, Any]:
        """The fields of :data:`OWN_FIELDS`, JSON-ready: what this seat's view has that no other has."""
        return {
            "seat": self.seat,
            "hand": list(self.hand),
            "my_choice": self.my_choice,
            "my_choices": list(self.my_choices),
            "decision": None if self.decision is None else self.decision.to_dict(),
        }

    def shared_to_dict(self) -> dict[str, Any]:
        """Every other field, JSON-ready: the same in every seat's view of one moment, and in the
        spectators' (a server serializes it once for all of them)."""
        return {
            "seats": list(self.seats),
            "rules": self.rules.to_dict(),
            "phase": self.phase.value,
            "deal": self.deal,
            "turn": self.turn,
            "rows": [list(r) for r in self.rows],
            "totals": list(self.totals),
            "penalties": list(self.penalties),
            "taken": [list(t) for t in self.taken],
            "hand_sizes": list(self.hand_sizes),
            "played": [list(p) for p in self.played],
            "chosen": list(self.chosen),
            "revealed": None if self.revealed is None else list(self.revealed),
            "unplaced": list(self.unplaced),
            "waiting_for": list(self.waiting_for),
            "hands": None if self.hands is None else [list(h) for h in self.hands],
            "draft_pool": list(self.draft_pool),
            "drafter": self.drafter,
            "winners": list(self.winners),
            "row_choice": None if self.row_choice is None else self.row_choice.to_dict(),
            "face_up": None if self.face_up is None else list(self.face_up),
            "current": self.current,
            "revealed_by": None if self.revealed_by is None else [list(p) for p in self.revealed_by],
            "played_by": [[list(p) for p in turn] for turn in self.played_by],
            "turns_per_deal": self.turns_per_deal,
            "target": self.target,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerView:
        """Inverse of :meth:`to_dict` (a Python bot speaking the protocol can rebuild its view)."""

        def cards(value: Any) -> Cards:
            return tuple(int(c) for c in value)

        def seat_cards(value: Any) -> tuple[SeatCard, ...]:
            return tuple((int(seat), int(card)) for seat, card in value)

        def decision(value: Any) -> Decision | None:
            if value is None:
                return None
            return Decision(
                kind=DecisionKind(value["kind"]),
                seat=int(value["seat"]),
                options=cards(value["options"]),
                card=value.get("card"),
                reason=value.get("reason"),
            )

        rules = Rules.from_dict(data["rules"])
        return cls(
            seat=data["seat"],
            seats=tuple(data["seats"]),
            rules=rules,
            phase=Phase(data["phase"]),
            deal=int(data["deal"]),
            turn=int(data["turn"]),
            hand=cards(data["hand"]),
            rows=tuple(cards(r) for r in data["rows"]),
            totals=cards(data["totals"]),
            penalties=cards(data["penalties"]),
            taken=tuple(cards(t) for t in data["taken"]),
            hand_sizes=cards(data["hand_sizes"]),
            played=tuple(cards(p) for p in data["played"]),
            chosen=tuple(bool(c) for c in data["chosen"]),
            my_choice=data.get("my_choice"),
            revealed=None if data.get("revealed") is None else cards(data["revealed"]),
            unplaced=cards(data.get("unplaced", ())),
            decision=decision(data.get("decision")),
            waiting_for=cards(data.get("waiting_for", ())),
            hands=None if data.get("hands") is None else tuple(cards(h) for h in data["hands"]),
            draft_pool=cards(data.get("draft_pool", ())),
            drafter=data.get("drafter"),
            winners=cards(data.get("winners", ())),
            row_choice=decision(data.get("row_choice")),
            my_choices=cards(data.get("my_choices", ())),
            face_up=None if data.get("face_up") is None else tuple(data["face_up"]),
            current=data.get("current"),
            revealed_by=None if data.get("revealed_by") is None else seat_cards(data["revealed_by"]),
            played_by=tuple(seat_cards(turn) for turn in data.get("played_by", ())),
            # a view from before these fields: what the rules say
            turns_per_deal=data.get("turns_per_deal", rules.turns_per_deal),
            target=data.get("target", rules.target),
        )


def make_view(fields: dict[str, Any]) -> PlayerView:
    """The engine's quick way to make a view (``Game.view``): ``fields`` (a fresh dict, which the
    view keeps) must give every field once, or some of them and, under :data:`DEFERRED`, a pair
    ``(make, source)`` whose ``make(source)`` gives the others when one of those is first read.
    Nothing is checked or converted, which is what makes it quick (``tests/core`` compares these
    views with ones made afresh). ``source`` must not change: the view may read it at any time."""
    view = _new(PlayerView)
    _set_attribute(view, "__dict__", fields)  # a frozen dataclass refuses setattr, not this
    return view


#: The key of a view's deferred fields: ``(make, source)``, whose ``make(source)`` gives the view
#: fields not made yet. Made at once instead, a host's loop runs 30% slower (docs/performance.md).
DEFERRED = "_deferred"
_FIELD_NAMES = frozenset(f.name for f in fields(PlayerView))
# Python asks ``__getattr__`` only for a name that neither the instance nor its class holds, and the
# dataclass leaves each field's default on the class: a deferred ``hands`` would read as None. Its
# ``__init__`` and ``fields()`` keep the defaults; every view made either way holds every field.
for _name in _FIELD_NAMES:
    if _name in PlayerView.__dict__:
        delattr(PlayerView, _name)
_new = object.__new__
_set_attribute = object.__setattr__
