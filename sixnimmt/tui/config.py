"""What a terminal game is set up with: who sits where, the rules, and how things are shown.

Both doors lead here: the start screen and ``sixnimmt play`` flags build a :class:`GameConfig`, and
everything a user can get wrong is checked here with a one-line ``ValueError``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core import Rules, RulesError
from ..core.variants import VARIANT_NAMES
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, N_
from ..seats import HINT_LEVEL, LEVELS, UnknownBotError, available
from ..seats import check_bot as check_bot_spec

#: The variants the terminal game plays: all of them.
TUI_VARIANTS: tuple[str, ...] = VARIANT_NAMES
#: Bot levels offered on the start screen, weakest first (the registry's list).
BOT_LEVELS: tuple[str, ...] = LEVELS
HUMAN = "human"
#: How an external program is addressed: ``cmd:COMMAND LINE`` (docs/bot-protocol.md).
EXTERNAL = "cmd"
#: The first seat's name unless the player gives theirs (translated where it is shown).
DEFAULT_NAME = N_("You")
#: The bot the hint key asks: the strongest level (``sixnimmt.seats.HINT_LEVEL``), seeded by the
#: turn so the same position gets the same hint.
HINT_BOT = HINT_LEVEL
#: Seat names for bots, so a table of several reads naturally.
BOT_NAMES: tuple[str, ...] = (
    "Ada", "Bruno", "Clara", "Diego", "Elsa", "Felix", "Greta", "Hugo", "Iris", "Jonas",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Seat:
    """One chair at the table: a person at this keyboard (``bot is None``) or a bot by registry name."""

    name: str
    bot: str | None = None

    @property
    def is_human(self) -> bool:
        return self.bot is None


def default_records_dir() -> Path:
    """Where finished games are saved: ``$XDG_DATA_HOME/sixnimmt/records`` (``~/.local/share/...``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sixnimmt" / "records"


@dataclass(frozen=True, slots=True)
class GameConfig:
    """A whole terminal game's settings. Seat 0 is the first person at the keyboard."""

    seats: tuple[Seat, ...] = field(
        default_factory=lambda: (Seat(DEFAULT_NAME), Seat("Ada", "medium"), Seat("Bruno", "medium"),
                                 Seat("Clara", "medium"))
    )  # fmt: skip
    variant: str = "standard"
    target: int | None = 66
    end: str = "at-least"
    deals: int | None = None
    pro_tie: str = "choose"
    count_down: bool = False
    lang: str = DEFAULT_LANGUAGE
    #: Seconds between two placements of the reveal animation (0: instant).
    delay: float = 0.6
    #: Ask for a second Enter (or click) before a card is played.
    confirm: bool = False
    #: Where finished games are saved; ``None`` saves nothing.
    records_dir: Path | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        self.rules()  # raises RulesError (a ValueError) naming what is wrong
        if self.variant not in TUI_VARIANTS:
            raise ValueError(
                f"the terminal game plays {', '.join(TUI_VARIANTS)}; "
                f"{self.variant!r} is not one of them yet"
            )
        if not any(seat.is_human for seat in self.seats):
            raise ValueError("at least one seat must be a person at this keyboard")
        names = [seat.name for seat in self.seats]
        if len(set(names)) != len(names):
            raise ValueError(f"two seats have the same name: {', '.join(names)}")
        if self.lang not in LANGUAGES:
            raise ValueError(f"unknown language {self.lang!r}: choose one of {', '.join(LANGUAGES)}")
        if self.delay < 0:
            raise ValueError(f"the animation delay cannot be negative ({self.delay})")
        for seat in self.seats:
            if seat.bot is not None:
                check_bot(seat.bot)

    def rules(self) -> Rules:
        return Rules.from_dict(
            {
                "players": len(self.seats),
                "variant": self.variant,
                "target": self.target,
                "end": self.end,
                "deals": self.deals,
                "pro_tie": self.pro_tie,
            }
        )

    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(i for i, seat in enumerate(self.seats) if seat.is_human)

    @property
    def pass_and_play(self) -> bool:
        """More than one person shares the keyboard: hands are hidden between them."""
        return len(self.humans) > 1

    def with_seed(self, seed: int | None) -> GameConfig:
        return replace(self, seed=seed)


def is_external(spec: str) -> bool:
    """Whether a bot spec names an external program (``cmd:COMMAND LINE``)."""
    return spec.startswith(EXTERNAL + ":")


def check_bot(spec: str) -> None:
    """Raise ``UnknownBotError`` (a ``ValueError``) with a one-line reason unless ``spec`` names a
    bot: a registered name with optional options (``expert:samples=400``), or ``cmd:COMMAND LINE``
    whose program exists. Nothing is started: an external program only runs once the game asks it
    something."""
    if spec.partition(":")[0] not in available() and not is_external(spec):
        choices = ", ".join(BOT_LEVELS)
        raise UnknownBotError(f"unknown bot {spec!r}: choose one of {choices}, or {EXTERNAL}:COMMAND LINE")
    check_bot_spec(spec)


def split_bot_list(values: str | Iterable[str]) -> list[str]:
    """The seats of ``--bots`` values (the option may be repeated): comma-separated, like the
    arena's. A command line may contain commas: a piece that is neither a bot name, nor
    ``human[:NAME]``, nor ``PREFIX:...`` belongs to the ``cmd:`` command line before it.

    >>> split_bot_list("cmd:python3 bot.py --weights 1,2,hard")
    ['cmd:python3 bot.py --weights 1,2', 'hard']
    >>> split_bot_list(["easy,human", "expert"])
    ['easy', 'human', 'expert']
    """
    names = available()
    pieces: list[str] = []
    for value in [values] if isinstance(values, str) else values:
        for piece in value.split(","):
            stripped = piece.strip()
            starts_a_seat = stripped in names or stripped == HUMAN or ":" in stripped
            if pieces and is_external(pieces[-1]) and not starts_a_seat:
                pieces[-1] += "," + piece
            else:
                pieces.append(stripped)
    return pieces


def parse_opponents(
    spec: str | Iterable[str],
    first_name: str = DEFAULT_NAME,
    player_name: Callable[[int], str] = "Player {}".format,
) -> tuple[Seat, ...]:
    """Seats from ``--bots``: comma-separated bot levels, ``cmd:COMMAND LINE`` for an external
    program, or ``human[:NAME]`` for a friend at the same keyboard (unnamed ones are called
    ``player_name(seat number)``); the first seat is always the person running the command. A
    sequence is taken as already split, one seat per item (``--bot``, repeated).

    >>> [s.bot for s in parse_opponents("hard,human:Ben,expert")]
    [None, 'hard', None, 'expert']
    >>> parse_opponents("hard,chess")
    Traceback (most recent call last):
    ...
    sixnimmt.seats.registry.UnknownBotError: unknown bot 'chess': choose one of easy, medium, hard, expert, grandmaster, random, or cmd:COMMAND LINE, or human[:NAME]
    """
    items = split_bot_list(spec) if isinstance(spec, str) else [item.strip() for item in spec]
    if not items or any(not item for item in items):
        shown = spec if isinstance(spec, str) else ",".join(spec)
        raise ValueError(f"--bots needs a comma-separated list like 'hard,hard,expert', not {shown!r}")
    seats = [Seat(first_name)]
    bot_names = iter(BOT_NAMES)
    for index, item in enumerate(items, start=2):
        kind, _, name = item.partition(":")
        if kind == HUMAN:
            seats.append(Seat(name.strip() or player_name(index)))
            continue
        try:
            check_bot(item)
        except UnknownBotError as error:
            if is_external(item) or kind in available():  # a known bot with a bad option
                raise
            raise UnknownBotError(f"{error}, or {HUMAN}[:NAME]") from None
        seats.append(Seat(next(bot_names), item))
    if not 2 <= len(seats) <= 10:
        raise RulesError(f"{len(seats)} players: 6 nimmt! is played by 2 to 10")
    return tuple(seats)


def resumed_seats(names: Iterable[str], specs: Iterable[str] | None) -> tuple[Seat, ...]:
    """The seats of a game resumed from its record: the record's names; the first seat is the
    person running the command; the others as ``specs`` says (one per seat, as for ``--bots``:
    a bot, ``cmd:...`` or ``human``, whose ``:NAME`` the record's name replaces), or, without
    ``specs``, ``medium`` bots.

    >>> [(s.name, s.bot) for s in resumed_seats(["Ana", "Ben", "Ada"], ["human", "hard"])]
    [('Ana', None), ('Ben', None), ('Ada', 'hard')]
    """
    names = list(names)
    if specs is None:
        return (Seat(names[0]), *(Seat(name, "medium") for name in names[1:]))
    specs = [spec.strip() for spec in specs]
    if len(specs) != len(names) - 1:
        raise ValueError(
            f"the saved game has {len(names)} seats: --bots must give the {len(names) - 1} after yours "
            f"({', '.join(names[1:])}), not {len(specs)}"
        )
    seats = [Seat(names[0])]
    for name, spec in zip(names[1:], specs, strict=True):
        if spec.partition(":")[0] == HUMAN:
            seats.append(Seat(name))
        else:
            check_bot(spec)
            seats.append(Seat(name, spec))
    return tuple(seats)


def bots_option(seats: Iterable[Seat]) -> str:
    """The ``--bots``/``--bot`` options that seat ``seats[1:]`` again (to resume a game), quoted
    for a shell: one ``--bot`` per seat when a command line holds a comma.

    >>> bots_option([Seat("You"), Seat("Ben"), Seat("Ada", "hard")])
    '--bots human,hard'
    """
    specs = [seat.bot or HUMAN for seat in list(seats)[1:]]
    if any("," in spec for spec in specs):
        return " ".join(f"--bot {shlex.quote(spec)}" for spec in specs)
    return f"--bots {shlex.quote(','.join(specs))}"


def resume_command(path: Path, config: GameConfig) -> str:
    """The command line that goes on with the game saved in ``path``: the same seats, and the same
    records folder when it is not the default one (else the resumed game would be saved elsewhere)."""
    command = f"sixnimmt play --resume {shlex.quote(str(path))} {bots_option(config.seats)}"
    if config.records_dir is not None and config.records_dir != default_records_dir():
        command += f" --records {shlex.quote(str(config.records_dir))}"
    return command


def watch_command(path: Path) -> str:
    """The command line that steps through the finished game saved in ``path``."""
    return f"sixnimmt replay show {shlex.quote(str(path))} --tui"
