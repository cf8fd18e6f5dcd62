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
    TACTICS = "tactics"
    LOGIC = "logic"
    PROFESSIONAL = "professional"


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

    def __post_init__(self) -> None:
        # Accept plain strings for the enums, so Rules(players=4, variant="logic") works.
        object.__setattr__(self, "variant", _enum_value(Variant, self.variant, "variant"))
        object.__setattr__(self, "end", _enum_value(EndRule, self.end, "end rule"))
        object.__setattr__(self, "pro_tie", _enum_value(ProTie, self.pro_tie, "pro_tie"))
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise RulesError(f"players must be a whole number, not {self.players!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(
                f"{self.players} players: 6 nimmt! is played by {MIN_PLAYERS} to {MAX_PLAYERS}"
            )
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
        """The cards in use: all 104, or 1..(10 x players + 4) in Tactics and Logic (§5.1)."""
        if self.variant in (Variant.TACTICS, Variant.LOGIC):
            return tuple(range(1, HAND_SIZE * self.players + ROW_COUNT + 1))
        return tuple(range(1, DECK_SIZE + 1))

    @property
    def professional(self) -> bool:
        return self.variant is Variant.PROFESSIONAL

    @property
    def hands_public(self) -> bool:
        """Logic's draft is open, so every hand is public knowledge."""
        return self.variant is Variant.LOGIC

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
        return {
            "variant": self.variant.value,
            "players": self.players,
            "target": self.target,
            "end": self.end.value,
            "deals": self.deals,
            "pro_tie": self.pro_tie.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from their JSON form; unknown fields are an error, missing optional ones default."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be an object, not {type(data).__name__}")
        known = {"variant", "players", "target", "end", "deals", "pro_tie"}
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
        )
