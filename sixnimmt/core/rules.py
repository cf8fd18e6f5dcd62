"""Game options (RULES.md §2, §4, §5): which variant, how many players, when the game ends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from .cards import DECK_SIZE, HAND_SIZE, ROW_COUNT, Card
from .errors import RulesError

MIN_PLAYERS = 2
MAX_PLAYERS = 10


class Variant(StrEnum):
    STANDARD = "standard"
    TACTICS = "tactics"  # §5.1: only cards 1..10p+4, so every card reaches the table
    LOGIC = "logic"  # §5.2: the Tactics deck drafted openly: no chance, public hands
    PROFESSIONAL = "professional"  # §5.3: cards may go to either end of a row
    TOURNAMENT = "tournament"  # §6: one open draft, then the hands pass round the table
    OPEN = "open"  # §6: cards played face up one at a time, in seat order from the marker
    NIFTY = "nifty"  # §6: 14 cards each, two played per turn
    HAND = "hand"  # §6: one player at a time; taken cards may go back to hand
    DOUBLE = "double"  # §6: two decks; twins stack


class DoubleDeck(StrEnum):
    """Double's deck (§6): two full decks, or one full deck plus the second deck's doubles."""

    TWO_DECKS = "two-decks"
    DOUBLES = "doubles"  # 1..104 plus a second 11, 22, ..., 99


#: Player counts each variant allows (§2, §6).
PLAYER_RANGE: dict[Variant, tuple[int, int]] = {
    Variant.TOURNAMENT: (2, 5),
    Variant.OPEN: (2, 9),
    Variant.NIFTY: (2, 7),
    Variant.HAND: (2, 7),
}

#: The new card-per-hand counts of §6 (everything else deals 10).
HAND_SIZES: dict[Variant, int] = {Variant.NIFTY: 14, Variant.HAND: 14}

#: The card that is the Open variant's first-player marker, out of play.
OPEN_MARKER = 1
HAND_VARIANT_HAND_LIMIT = 16  # Hand: most cards a hand may hold after keeping taken cards
HAND_VARIANT_PILE_LIMIT = 20  # Hand: the game ends after a round in which a pile has more cards
#: Hand: the rulebook is silent, but players who keep every card they take could play forever, so
#: the game also ends after this many rounds (a real game lasts about 7 to 15).
HAND_VARIANT_ROUND_LIMIT = 50


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
    target: int | None = 66
    end: EndRule = EndRule.AT_LEAST
    deals: int | None = None
    pro_tie: ProTie = ProTie.CHOOSE
    double_deck: DoubleDeck = DoubleDeck.TWO_DECKS

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
        low, high = PLAYER_RANGE.get(self.variant, (MIN_PLAYERS, MAX_PLAYERS))
        if not low <= self.players <= high:
            raise RulesError(
                f"{self.players} players: {self.variant.value} is played by {low} to {high}"
                if self.variant in PLAYER_RANGE
                else f"{self.players} players: 6 nimmt! is played by {low} to {high}"
            )
        if self.variant is Variant.TOURNAMENT:
            # One deal per player, lowest sum wins: a target or deal count would change the variant.
            object.__setattr__(self, "target", None)
            object.__setattr__(self, "deals", self.players)
        if self.variant is Variant.HAND:
            object.__setattr__(self, "target", None)  # one long deal with its own end (§6)
            object.__setattr__(self, "deals", 1)
        for name in ("target", "deals"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise RulesError(f"{name} must be a whole number or null, not {value!r}")
            if value is not None and value < 1:
                raise RulesError(f"{name} must be at least 1, not {value}")
        if self.target is None and self.deals is None:
            raise RulesError("the game needs an end: set a target, a number of deals, or both")

    @property
    def deck(self) -> tuple[Card, ...]:
        """The cards in use, ascending: all 104; 1..(10 x players + 4) in Tactics, Logic and
        Tournament (§5.1); 2..104 in Open (card 1 is the marker); twice over in Double."""
        if self.variant in (Variant.TACTICS, Variant.LOGIC, Variant.TOURNAMENT):
            return tuple(range(1, HAND_SIZE * self.players + ROW_COUNT + 1))
        if self.variant is Variant.OPEN:
            return tuple(range(OPEN_MARKER + 1, DECK_SIZE + 1))
        if self.variant is Variant.DOUBLE:
            second = (
                range(1, DECK_SIZE + 1)
                if self.double_deck is DoubleDeck.TWO_DECKS
                else range(11, 100, 11)
            )
            return tuple(sorted([*range(1, DECK_SIZE + 1), *second]))
        return tuple(range(1, DECK_SIZE + 1))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: 10, or 14 in Nifty and Hand."""
        return HAND_SIZES.get(self.variant, HAND_SIZE)

    @property
    def cards_per_turn(self) -> int:
        """Cards each player plays in a simultaneous turn: 2 in Nifty, else 1."""
        return 2 if self.variant is Variant.NIFTY else 1

    @property
    def professional(self) -> bool:
        return self.variant is Variant.PROFESSIONAL

    @property
    def drafted(self) -> bool:
        """Logic and Tournament deal by an open draft."""
        return self.variant in (Variant.LOGIC, Variant.TOURNAMENT)

    @property
    def hands_public(self) -> bool:
        """After an open draft (Logic, Tournament) every hand is public knowledge."""
        return self.drafted

    @property
    def sequential(self) -> bool:
        """Players act one at a time (Open, Hand) rather than all at once."""
        return self.variant in (Variant.OPEN, Variant.HAND)

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
        data = {
            "variant": self.variant.value,
            "players": self.players,
            "target": self.target,
            "end": self.end.value,
            "deals": self.deals,
            "pro_tie": self.pro_tie.value,
        }
        if self.variant is Variant.DOUBLE:
            data["double_deck"] = self.double_deck.value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from their JSON form; unknown fields are an error, missing optional ones default."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be an object, not {type(data).__name__}")
        known = {"variant", "players", "target", "end", "deals", "pro_tie", "double_deck"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rules field(s): {', '.join(unknown)}")
        for required in ("variant", "players"):
            if required not in data:
                raise RulesError(f"rules need the field {required!r}")
        return cls(
            players=data["players"],
            variant=data["variant"],
            target=data.get("target", 66),
            end=data.get("end", EndRule.AT_LEAST),
            deals=data.get("deals"),
            pro_tie=data.get("pro_tie", ProTie.CHOOSE),
            double_deck=data.get("double_deck", DoubleDeck.TWO_DECKS),
        )
