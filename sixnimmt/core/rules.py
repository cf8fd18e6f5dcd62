"""Game options (docs/rules.md §2, §4, §5): which variant, how many players, when the game ends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from .cards import ROW_COUNT, ROW_LIMIT, Card
from .errors import RulesError
from .variants import (
    DEFAULT_TARGET,
    HAND_VARIANT_HAND_LIMIT,
    HAND_VARIANT_PILE_LIMIT,
    HAND_VARIANT_ROUND_LIMIT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPEN_MARKER,
    VARIANTS,
    DoubleDeck,
    Placement,
    TableSize,
    Variant,
    VariantSpec,
)

# The variants themselves are data in variants.py; these names stay importable from here.
__all__ = [
    "HAND_VARIANT_HAND_LIMIT",
    "HAND_VARIANT_PILE_LIMIT",
    "HAND_VARIANT_ROUND_LIMIT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPEN_MARKER",
    "PLAYER_RANGE",
    "DoubleDeck",
    "EndRule",
    "ProTie",
    "Rules",
    "TableSize",
    "Variant",
]

#: Player counts each variant allows (§2, §6), from the specs.
PLAYER_RANGE: dict[Variant, tuple[int, int]] = {v: spec.player_range for v, spec in VARIANTS.items()}


class EndRule(StrEnum):
    AT_LEAST = "at-least"  # the game ends once a total is >= target (English rulebook)
    ABOVE = "above"  # ... once a total is > target (German leaflet)


class ProTie(StrEnum):
    """Who settles a Professional tie between one row's left end and another's right end."""

    CHOOSE = "choose"  # the card's owner picks one of the tied rows
    LEFT = "left"  # always the left end
    RIGHT = "right"  # always the right end


E = TypeVar("E", bound=StrEnum)


def _enum_value(enum: type[E], value: object, field: str) -> E:
    if value.__class__ is enum:  # already a member: most rules are made from members
        return value
    if isinstance(value, str):
        try:
            return enum(value)
        except ValueError:
            pass
    choices = ", ".join(repr(m.value) for m in enum)
    raise RulesError(f"unknown {field} {value!r}: choose one of {choices}")


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that fixes how a game is played. Immutable and validated on creation.

    >>> Rules(players=3, variant=Variant.TACTICS).deck[-1]
    34
    """

    players: int
    variant: Variant = Variant.STANDARD
    target: int | None = DEFAULT_TARGET
    end: EndRule = EndRule.AT_LEAST
    deals: int | None = None
    pro_tie: ProTie = ProTie.CHOOSE
    double_deck: DoubleDeck = DoubleDeck.TWO_DECKS
    #: A smaller game of the same rules (None: the variant's own cards, hands and rows).
    size: TableSize | None = None

    def __post_init__(self) -> None:
        # Accept plain strings for the enums, so Rules(players=4, variant="logic") works.
        object.__setattr__(self, "variant", _enum_value(Variant, self.variant, "variant"))
        object.__setattr__(self, "end", _enum_value(EndRule, self.end, "end rule"))
        object.__setattr__(self, "pro_tie", _enum_value(ProTie, self.pro_tie, "pro_tie"))
        object.__setattr__(
            self, "double_deck", _enum_value(DoubleDeck, self.double_deck, "double_deck")
        )
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise RulesError(f"players must be a whole number, not {self.players!r}")
        spec = VARIANTS[self.variant]
        spec.check_players(self.players)
        # Tournament (one deal per player, lowest sum wins) and Hand (one long deal with its own
        # end) fix their end: a target or deal count would change the variant.
        target, deals = spec.game_end(self.players, self.target, self.deals)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "deals", deals)
        for name, value in (("target", target), ("deals", deals)):
            if value is None or (value.__class__ is int and value >= 1):
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"{name} must be a whole number or null, not {value!r}")
            if value < 1:
                raise RulesError(f"{name} must be at least 1, not {value}")
        if self.target is None and self.deals is None:
            raise RulesError("the game needs an end: set a target, a number of deals, or both")
        if self.size is not None:
            if not isinstance(self.size, TableSize):
                raise RulesError(f"size must be a TableSize, not {type(self.size).__name__}")
            self.size.check(spec, self.players)

    @property
    def spec(self) -> VariantSpec:
        """The variant's data: deck, hand, turn order, dealing, placement (core/variants.py)."""
        return VARIANTS[self.variant]

    @property
    def deck(self) -> tuple[Card, ...]:
        """The cards in use, ascending: all 104; 1..(10 x players + 4) in Tactics, Logic and
        Tournament (§5.1); 2..104 in Open (card 1 is the marker); twice over in Double."""
        if self.size is not None:
            return _sized_deck(self.size.cards)
        return VARIANTS[self.variant].deck(self.players, self.double_deck)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: 10, or 14 in Nifty and Hand (or the size's)."""
        if self.size is not None:
            return self.size.hand
        return VARIANTS[self.variant].hand_size

    @property
    def row_count(self) -> int:
        """Rows on the table: 4 (or the size's)."""
        return ROW_COUNT if self.size is None else self.size.rows

    @property
    def row_limit(self) -> int:
        """Cards a row holds before the next one takes it: 5 (or the size's)."""
        return ROW_LIMIT if self.size is None else self.size.row_limit

    @property
    def cards_per_turn(self) -> int:
        """Cards each player plays in a simultaneous turn: 2 in Nifty, else 1."""
        return VARIANTS[self.variant].cards_per_turn

    @property
    def turns_per_deal(self) -> int | None:
        """Turns in a deal (None in Hand, whose deal runs to its own end)."""
        if self.size is not None:
            return self.size.hand // self.cards_per_turn
        return VARIANTS[self.variant].turns_per_deal

    @property
    def professional(self) -> bool:
        return VARIANTS[self.variant].placement is Placement.EITHER_END

    @property
    def drafted(self) -> bool:
        """Logic and Tournament deal by an open draft."""
        return VARIANTS[self.variant].drafted

    @property
    def hands_public(self) -> bool:
        """After an open draft (Logic, Tournament) every hand is public knowledge."""
        return VARIANTS[self.variant].hands_public

    @property
    def sequential(self) -> bool:
        """Players act one at a time (Open, Hand) rather than all at once."""
        return VARIANTS[self.variant].sequential

    def game_over_after(self, totals: tuple[int, ...] | list[int], deals_played: int) -> bool:
        """The end check, made only after a complete deal (§4)."""
        if self.deals is not None and deals_played >= self.deals:
            return True
        if self.target is None:
            return False
        if self.end is EndRule.AT_LEAST:
            return max(totals) >= self.target
        return max(totals) > self.target

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "variant": self.variant.value,
            "players": self.players,
            "target": self.target,
            "end": self.end.value,
            "deals": self.deals,
            "pro_tie": self.pro_tie.value,
        }
        if VARIANTS[self.variant].twins:
            data["double_deck"] = self.double_deck.value
        if self.size is not None:
            data["size"] = self.size.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, sizes: bool = False) -> Rules:
        """Rules from their JSON form; unknown fields are an error, missing optional ones default.
        A smaller ``size`` is read only where ``sizes`` says the caller plays one (the solvers):
        elsewhere it is an unknown field, as the interfaces and bots play the full game."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be an object, not {type(data).__name__}")
        known = {"variant", "players", "target", "end", "deals", "pro_tie", "double_deck"}
        if sizes:
            known.add("size")
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rules field(s): {', '.join(unknown)}")
        for required in ("variant", "players"):
            if required not in data:
                raise RulesError(f"rules need the field {required!r}")
        return cls(
            players=data["players"],
            variant=data["variant"],
            target=data.get("target", DEFAULT_TARGET),
            end=data.get("end", EndRule.AT_LEAST),
            deals=data.get("deals"),
            pro_tie=data.get("pro_tie", ProTie.CHOOSE),
            double_deck=data.get("double_deck", DoubleDeck.TWO_DECKS),
            size=None if data.get("size") is None else TableSize.from_dict(data["size"]),
        )


_SIZED_DECKS: dict[int, tuple[Card, ...]] = {}


def _sized_deck(cards: int) -> tuple[Card, ...]:
    """``1..cards``, made once per size (bots ask for the deck at every decision)."""
    deck = _SIZED_DECKS.get(cards)
    if deck is None:
        deck = _SIZED_DECKS[cards] = tuple(range(1, cards + 1))
    return deck
