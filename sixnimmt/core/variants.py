"""Every variant as data (docs/rules.md §2, §5, §6): one :class:`VariantSpec` each, in :data:`VARIANTS`.

What differs between variants lives here and nowhere else: the deck, the hand, the player range,
how a turn is taken, how hands are dealt, where a card may go, how the game ends and which record
version stores it. The engine, the interfaces and the tools read these fields instead of asking
for a variant by name, so a new variant is a new entry here (plus its turn structure and its texts).

>>> variant_spec("nifty").cards_per_turn, variant_spec("nifty").turns_per_deal
(2, 7)
>>> [spec.name.value for spec in VARIANTS.values() if spec.turn_order is TurnOrder.SOLO]
['hand']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import DECK_SIZE, HAND_SIZE, ROW_COUNT, ROW_LIMIT, Card
from .errors import RulesError

MIN_PLAYERS = 2
MAX_PLAYERS = 10
DEFAULT_TARGET = 66  # §4: the game ends once a total reaches 66


class Variant(StrEnum):
    """The variants' names (each one's :class:`VariantSpec` is ``VARIANTS[variant]``)."""

    STANDARD = "standard"
    TACTICS = "tactics"
    LOGIC = "logic"
    PROFESSIONAL = "professional"
    TOURNAMENT = "tournament"
    OPEN = "open"
    NIFTY = "nifty"
    HAND = "hand"
    DOUBLE = "double"


class DoubleDeck(StrEnum):
    """Double's deck (§6): two full decks, or one full deck plus the second deck's doubles."""

    TWO_DECKS = "two-decks"
    DOUBLES = "doubles"  # 1..104 plus a second 11, 22, ..., 99


class Deck(StrEnum):
    """Which cards a variant plays with."""

    FULL = "full"  # 1..104
    TRIMMED = "trimmed"  # §5.1: 1..(10 x players + 4), so every card reaches the table
    NO_MARKER = "no-marker"  # §6 Open: 2..104, card 1 is the first-player marker
    DOUBLED = "doubled"  # §6 Double: a second deck (or its doubles) beside the first


class TurnOrder(StrEnum):
    """How the cards of a turn are chosen (each has its turn structure in ``core/turns.py``)."""

    SIMULTANEOUS = "simultaneous"  # everyone chooses secretly; all cards revealed together
    PAIRS = "pairs"  # §6 Nifty: two secret cards each; each owner orders their pair when due
    SEQUENCE = "sequence"  # §6 Open: face up, one player after another from the marker
    SOLO = "solo"  # §6 Hand: one player's turn at a time, one or two cards


class Dealing(StrEnum):
    """Where each deal's hands come from."""

    SHUFFLE = "shuffle"  # shuffled and dealt
    DRAFT = "draft"  # §5.2 Logic: every deal is an open draft
    DRAFT_ONCE = "draft-once"  # §6 Tournament: one open draft, then the hands pass round the table


class Placement(StrEnum):
    """Where a card may go."""

    RIGHT_END = "right-end"  # §3: after the highest row end below it
    EITHER_END = "either-end"  # §5.3 Professional: also before the lowest row start above it
    STACKED = "stacked"  # §6 Double: a card on its twin stacks; twins share a pickup


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """Everything that makes one variant what it is. Immutable; one per variant in :data:`VARIANTS`."""

    name: Variant
    title: str  # the English name, which is also the gettext msgid of the name in every interface
    section: str  # where the rules describe it (docs/rules.md)
    deck_kind: Deck
    hand_size: int
    min_players: int
    max_players: int
    cards_per_turn: int
    turn_order: TurnOrder
    dealing: Dealing
    placement: Placement
    record_version: int  # the record format version this variant's records are written in
    protocol_version: int  # the lowest bot-protocol version that knows this variant's decisions
    #: The game's end: a target (None: none), and whether the variant fixes the deal count itself
    #: (one deal per player in Tournament, one long deal in Hand) so no option may change it.
    has_target: bool = True
    deals_per_player: bool = False
    fixed_deals: int | None = None
    keeps_taken: bool = False  # §6 Hand: a player who takes a row may move its cards to their hand
    #: Cards still in hand when a deal ends score this many times their bullheads (§6 Hand: twice);
    #: 0 where every card is played.
    left_in_hand_factor: int = 0
    in_starting_texts: bool = False  # §5: one of the four variants of the starting texts

    @property
    def i18n_key(self) -> str:
        """The stem of this variant's texts: ``rules/{lang}/{key}.md`` and ``variant.{key}`` in JS."""
        return self.name.value

    @property
    def hands_public(self) -> bool:
        """After an open draft every hand is public knowledge."""
        return self.dealing is not Dealing.SHUFFLE

    @property
    def drafted(self) -> bool:
        return self.dealing is not Dealing.SHUFFLE

    @property
    def sequential(self) -> bool:
        """Players act one at a time rather than all at once."""
        return self.turn_order in (TurnOrder.SEQUENCE, TurnOrder.SOLO)

    @property
    def turns_per_deal(self) -> int | None:
        """Turns in a deal; ``None`` in Hand, whose deal lasts until its own end condition."""
        if self.turn_order is TurnOrder.SOLO:
            return None
        return self.hand_size // self.cards_per_turn

    @property
    def twins(self) -> bool:
        """The deck holds some cards twice (Double)."""
        return self.deck_kind is Deck.DOUBLED

    @property
    def player_range(self) -> tuple[int, int]:
        return (self.min_players, self.max_players)

    @property
    def supports_positions(self) -> bool:
        """Whether a game may start mid-deal from a given position (a draft depends on the past)."""
        return not self.drafted

    def to_dict(self) -> dict[str, Any]:
        """What interfaces need to know about how this variant is played (JSON-ready)."""
        return {
            "name": self.name.value,
            "title": self.title,
            "hand_size": self.hand_size,
            "players": list(self.player_range),
            "cards_per_turn": self.cards_per_turn,
            "turn_order": self.turn_order.value,
            "turns_per_deal": self.turns_per_deal,
            "dealing": self.dealing.value,
            "hands_public": self.hands_public,
            "placement": self.placement.value,
            "has_target": self.has_target,
            "keeps_taken": self.keeps_taken,
            "left_in_hand_factor": self.left_in_hand_factor,
            "twins": self.twins,
        }

    def deck(self, players: int, double_deck: DoubleDeck = DoubleDeck.TWO_DECKS) -> tuple[Card, ...]:
        """The cards in use for ``players`` players, ascending (made once: bots ask for every
        decision, and every game's dealer once)."""
        key = (self.name, players, double_deck)
        deck = _DECKS.get(key)
        if deck is None:
            deck = _DECKS[key] = self._make_deck(players, double_deck)
        return deck

    def _make_deck(self, players: int, double_deck: DoubleDeck) -> tuple[Card, ...]:
        if self.deck_kind is Deck.TRIMMED:
            return tuple(range(1, HAND_SIZE * players + ROW_COUNT + 1))
        if self.deck_kind is Deck.NO_MARKER:
            return tuple(range(OPEN_MARKER + 1, DECK_SIZE + 1))
        if self.deck_kind is Deck.DOUBLED:
            second = range(1, DECK_SIZE + 1) if double_deck is DoubleDeck.TWO_DECKS else range(11, 100, 11)
            return tuple(sorted([*range(1, DECK_SIZE + 1), *second]))
        return tuple(range(1, DECK_SIZE + 1))

    def check_players(self, players: int) -> None:
        """Raise :class:`RulesError` unless this variant is played by ``players``."""
        if not self.min_players <= players <= self.max_players:
            who = "6 nimmt!" if self.player_range == (MIN_PLAYERS, MAX_PLAYERS) else self.name.value
            raise RulesError(
                f"{players} players: {who} is played by {self.min_players} to {self.max_players}"
            )

    def game_end(self, players: int, target: int | None, deals: int | None) -> tuple[int | None, int | None]:
        """The effective ``(target, deals)``: what the options ask for, unless the variant fixes it."""
        if not self.has_target:
            target = None
        if self.deals_per_player:
            deals = players
        elif self.fixed_deals is not None:
            deals = self.fixed_deals
        return target, deals


_DECKS: dict[tuple[Variant, int, DoubleDeck], tuple[Card, ...]] = {}


@dataclass(frozen=True, slots=True)
class TableSize:
    """A smaller game of the same rules: the deck ``1..cards``, hands of ``hand`` cards, ``rows``
    rows that a card makes full once it would be the ``row_limit + 1``-th. Small enough, a game can
    be solved exactly (docs/rl.md, "Tiny 6 nimmt!"); the full game is ``TableSize(104, 10, 4, 5)``.

    >>> TableSize(cards=10, hand=3, rows=2, row_limit=3).to_dict()
    {'cards': 10, 'hand': 3, 'rows': 2, 'row_limit': 3}
    """

    cards: int
    hand: int
    rows: int
    row_limit: int

    def __post_init__(self) -> None:
        for name in ("cards", "hand", "rows", "row_limit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"size: {name} must be a whole number, not {value!r}")
        if not 1 <= self.cards <= DECK_SIZE:
            raise RulesError(f"size: cards must be 1..{DECK_SIZE}, not {self.cards}")
        if not 1 <= self.rows <= ROW_COUNT:
            raise RulesError(f"size: rows must be 1..{ROW_COUNT}, not {self.rows}")
        if not 1 <= self.row_limit <= ROW_LIMIT:
            raise RulesError(f"size: row_limit must be 1..{ROW_LIMIT}, not {self.row_limit}")
        if not 1 <= self.hand <= HAND_SIZE:
            raise RulesError(f"size: hand must be 1..{HAND_SIZE}, not {self.hand}")

    def check(self, spec: VariantSpec, players: int) -> None:
        """Raise :class:`RulesError` unless this size can be played by ``players`` under ``spec``:
        the standard rules or Professional's (shuffled deals, one secret card a turn, one deck),
        and enough cards for every hand and row."""
        if spec.name not in SIZED_VARIANTS:
            raise RulesError(f"a smaller size is played with {' or '.join(v.value for v in SIZED_VARIANTS)}, not {spec.name.value}")
        needed = players * self.hand + self.rows
        if self.cards < needed:
            raise RulesError(f"size: {players} hands of {self.hand} and {self.rows} rows need {needed} cards, not {self.cards}")

    def to_dict(self) -> dict[str, int]:
        return {"cards": self.cards, "hand": self.hand, "rows": self.rows, "row_limit": self.row_limit}

    @classmethod
    def from_dict(cls, data: Any) -> TableSize:
        if not isinstance(data, dict):
            raise RulesError(f"size must be an object, not {type(data).__name__}")
        fields = ("cards", "hand", "rows", "row_limit")
        unknown = sorted(set(data) - set(fields))
        missing = [f for f in fields if f not in data]
        if unknown or missing:
            raise RulesError(f"size takes {', '.join(fields)}; unknown: {unknown}, missing: {missing}")
        return cls(**{f: data[f] for f in fields})


#: The variants a smaller size may be played with.
SIZED_VARIANTS = (Variant.STANDARD, Variant.PROFESSIONAL)

#: The card that is Open's first-player marker, out of play.
OPEN_MARKER = 1
#: §6 Hand: the most cards a hand may hold after keeping taken cards.
HAND_VARIANT_HAND_LIMIT = 16
#: §6 Hand: the game ends after a round in which a pile holds more cards than this.
HAND_VARIANT_PILE_LIMIT = 20
#: §6 Hand: the rulebook is silent, but players who keep every card they take could play forever,
#: so the game also ends after this many rounds (a real game lasts about 7 to 15).
HAND_VARIANT_ROUND_LIMIT = 50


def _spec(
    name: Variant,
    title: str,
    section: str,
    *,
    deck: Deck = Deck.FULL,
    hand_size: int = HAND_SIZE,
    players: tuple[int, int] = (MIN_PLAYERS, MAX_PLAYERS),
    cards_per_turn: int = 1,
    turn_order: TurnOrder = TurnOrder.SIMULTANEOUS,
    dealing: Dealing = Dealing.SHUFFLE,
    placement: Placement = Placement.RIGHT_END,
    new: bool = True,
    **more: bool | int | None,
) -> VariantSpec:
    return VariantSpec(
        name=name,
        title=title,
        section=section,
        deck_kind=deck,
        hand_size=hand_size,
        min_players=players[0],
        max_players=players[1],
        cards_per_turn=cards_per_turn,
        turn_order=turn_order,
        dealing=dealing,
        placement=placement,
        # The §6 variants came with record version 2 and bot protocol version 2.
        record_version=2 if new else 1,
        protocol_version=2 if new else 1,
        in_starting_texts=not new,
        **more,  # type: ignore[arg-type]
    )


#: Every variant, in the order menus list them.
VARIANTS: dict[Variant, VariantSpec] = {
    spec.name: spec
    for spec in (
        _spec(Variant.STANDARD, "Standard", "§2-4", new=False),
        _spec(Variant.TACTICS, "Tactics", "§5.1", deck=Deck.TRIMMED, new=False),
        _spec(Variant.LOGIC, "Logic", "§5.2", deck=Deck.TRIMMED, dealing=Dealing.DRAFT, new=False),
        _spec(Variant.PROFESSIONAL, "Professional", "§5.3", placement=Placement.EITHER_END, new=False),
        _spec(
            Variant.TOURNAMENT,
            "Tournament",
            "§6",
            deck=Deck.TRIMMED,
            players=(2, 5),
            dealing=Dealing.DRAFT_ONCE,
            has_target=False,
            deals_per_player=True,
        ),
        _spec(Variant.OPEN, "Open", "§6", deck=Deck.NO_MARKER, players=(2, 9), turn_order=TurnOrder.SEQUENCE),
        _spec(
            Variant.NIFTY, "Nifty", "§6", hand_size=14, players=(2, 7), cards_per_turn=2, turn_order=TurnOrder.PAIRS
        ),
        _spec(
            Variant.HAND,
            "Hand",
            "§6",
            hand_size=14,
            players=(2, 7),
            turn_order=TurnOrder.SOLO,
            has_target=False,
            fixed_deals=1,
            keeps_taken=True,
            left_in_hand_factor=2,
        ),
        _spec(Variant.DOUBLE, "Double", "§6", deck=Deck.DOUBLED, placement=Placement.STACKED),
    )
}

#: The variants' names in menu order (for CLI help, request models, one-hots sized by position).
VARIANT_NAMES: tuple[str, ...] = tuple(v.value for v in VARIANTS)


def variant_spec(name: str | Variant) -> VariantSpec:
    """The spec of the variant called ``name``; :class:`RulesError` naming the choices otherwise."""
    try:
        return VARIANTS[Variant(name)]
    except ValueError:
        raise RulesError(f"unknown variant {name!r}: choose one of {', '.join(VARIANT_NAMES)}") from None
