"""One place at a table, a small state machine: its kind (:class:`SeatKind`) and the moves between
kinds, each a method with its rule (a person sits down, a bot takes a seat, a friend is invited, a
seat is released or left, a takeover waits for the next deal). No other module assigns a seat's
fields (``tests/test_architecture.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .table_setup import bot_label, name_skeleton


class SeatKind(StrEnum):
    """Who a seat is for."""

    HUMAN = "human"  # held by a seat token: a person, or a bot program over the Bot API
    BOT = "bot"  # one of the server's bots
    OPEN = "open"  # anyone with the table's link may take it
    INVITED = "invited"  # kept for the friend holding the invitation


class Occupant(StrEnum):
    """Who plays a seat: a person or a bot program (each holding the seat's token), or one of the
    server's bots (in a bot's seat, and in an open or invited seat while a game runs)."""

    PERSON = "person"
    PROGRAM = "program"
    SERVER_BOT = "server-bot"


@dataclass(slots=True)
class Seat:
    """One place at the table.

    ``kind`` is "human" (held by the token whose hash is ``token_hash``), "bot", "open" (waiting for
    anyone with the table's link) or "invited" (kept for the friend holding ``invite_hash``, named
    ``name``). While a game runs, every seat that is not "human" is played by a bot (its ``bot``
    level). Seat changes asked for during a game wait for the next deal: ``leaving`` (the host
    released the seat) and ``joining`` (a person who takes the seat over, with ``joining_hash``)."""

    index: int
    kind: SeatKind
    name: str
    bot: str | None = None  # level, for seats a bot plays
    token_hash: str | None = None
    invite_hash: str | None = None
    leaving: bool = False
    joining: str | None = None
    joining_hash: str | None = None
    #: The account a signed-in player sits under (its seat token is derived from the account).
    account: int | None = None
    #: A bot program playing over the Bot API (docs/bot-api.md) holds this "human" seat: it is
    #: shown as a bot, has its own time per decision and grace, and is played for as a person is.
    program: bool = False
    #: The account of the person taking the seat over at the next deal (``joining``), if signed in.
    joining_account: int | None = None
    #: The name of the player who left this seat during the game, while a stand-in plays it on
    #: (so the results keep who sat here, and the stand-in is shown as a bot).
    left_by: str | None = None
    # runtime only
    connections: int = 0
    away_since: float | None = None

    @property
    def held(self) -> bool:
        """A seat token holds the seat: a person's or a bot program's."""
        return self.kind == SeatKind.HUMAN

    @property
    def occupant(self) -> Occupant:
        if not self.held:
            return Occupant.SERVER_BOT
        return Occupant.PROGRAM if self.program else Occupant.PERSON

    @property
    def person(self) -> bool:
        """A person holds the seat (not a bot program, nor one of the server's bots)."""
        return self.occupant == Occupant.PERSON

    @property
    def left(self) -> bool:
        """The player (a person or a bot program) gave the seat up during the game (its token no
        longer works)."""
        return self.held and self.leaving and self.token_hash is None

    def to_store(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "bot": self.bot, "token_hash": self.token_hash,
            "invite_hash": self.invite_hash, "leaving": self.leaving, "joining": self.joining,
            "joining_hash": self.joining_hash, **({"account": self.account} if self.account is not None else {}),
            **({"program": True} if self.program else {}),
            **({"joining_account": self.joining_account} if self.joining_account is not None else {}),
            **({"left_by": self.left_by} if self.left_by is not None else {}),
        }

    @classmethod
    def from_store(cls, index: int, data: dict[str, Any], now: float) -> Seat:
        seat = cls(
            index, SeatKind(data["kind"]), data["name"], data.get("bot"), data.get("token_hash"), data.get("invite_hash"),
            bool(data.get("leaving")), data.get("joining"), data.get("joining_hash"), data.get("account"),
            bool(data.get("program")),
            data.get("joining_account"), data.get("left_by"),
        )
        if seat.kind == SeatKind.HUMAN:
            seat.away_since = now  # nobody is connected right after a load
        return seat

    def as_stored(self, data: dict[str, Any]) -> Seat:
        """This seat as ``data`` (what the store holds) has it, who is connected (a runtime matter)
        kept as it is now."""
        back = Seat.from_store(self.index, data, 0.0)
        back.connections, back.away_since = self.connections, self.away_since
        return back

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name, "kind": self.kind, "bot": self.bot, "connected": self.connections > 0,
            "leaving": self.leaving, "joining": self.joining, **({"member": True} if self.account is not None else {}),
            **({"left": True} if self.left else {}),
            **({"left_by": self.left_by} if self.left_by is not None else {}),
            **({"program": True} if self.program else {}),
        }

    def become_human(self, name: str, token_hash: str, now: float, account: int | None = None,
                     program: bool = False) -> None:
        """A person (or, ``program``, a bot program) sits down, holding the token whose hash is
        ``token_hash``; under ``account`` if signed in."""
        self.kind, self.name, self.bot, self.token_hash, self.account = SeatKind.HUMAN, name, None, token_hash, account
        self.program = program
        self.invite_hash, self.leaving, self.joining, self.joining_hash = None, False, None, None
        self.joining_account, self.away_since, self.left_by = None, now, None

    def become_open(self) -> None:
        """Anyone with the table's link may take the seat."""
        self.kind, self.name, self.token_hash, self.invite_hash, self.account = SeatKind.OPEN, "", None, None, None
        self.program = False
        self.leaving, self.joining, self.joining_hash, self.away_since = False, None, None, None
        self.joining_account = self.left_by = None

    def become_invited(self, name: str, invite_hash: str, bot: str | None = None) -> None:
        """The seat is kept for the friend ``name`` holding the invitation; ``bot`` (a level) plays it
        until they come, if the game runs (None: the seat's bot stays)."""
        if bot is not None:
            self.bot = bot
        self.kind, self.name, self.token_hash, self.invite_hash, self.account = (
            SeatKind.INVITED, name, None, invite_hash, None)
        self.program = False
        self.leaving, self.joining, self.joining_hash, self.away_since = False, None, None, None
        self.joining_account = self.left_by = None

    def become_bot(self, level: str, name: str) -> None:
        """One of the server's bots, of ``level``, takes the open seat under ``name``."""
        self.kind, self.bot, self.name = SeatKind.BOT, level, name

    def give_bot(self, level: str) -> None:
        """The bot that plays an invited seat until its friend comes."""
        self.bot = level

    def take_over_later(self, name: str, token_hash: str, account: int | None) -> None:
        """A person takes the seat over at the next deal's start (its bot plays until then)."""
        self.joining, self.joining_hash, self.joining_account = name, token_hash, account

    def rename(self, account: int, name: str) -> bool:
        """A moderator renamed ``account``: its seat (or the take-over it waits for) shows ``name``.
        Returns whether this seat is the account's."""
        mine = False
        if self.account == account and self.kind == SeatKind.HUMAN:
            self.name, mine = name, True
        if self.joining_account == account and self.joining is not None:
            self.joining, mine = name, True
        return mine

    def hand_over_later(self, invite_hash: str) -> None:
        """A vanished player's seat goes to the invited friend at the next deal's start."""
        self.leaving, self.invite_hash = True, invite_hash

    def release_later(self) -> None:
        """The host frees the seat at the next deal's start; an invitation or a takeover asked for
        stops now."""
        self.leaving, self.invite_hash, self.joining, self.joining_hash = True, None, None, None
        self.joining_account = None

    def leave_now(self, now: float) -> None:
        """The player gives the seat up during a game: its token stops working at once, the stand-in
        plays it from ``now`` (no grace), and it opens at the next deal's start."""
        self.leaving, self.token_hash = True, None
        if self.away_since is None:
            self.away_since = now

    def arrive(self) -> None:
        """A socket of the seat's holder connected."""
        self.connections += 1
        self.away_since = None

    def depart(self, now: float | None) -> None:
        """A socket of the seat's holder went; with the last one, the holder is away from ``now``
        (None: not counted as away)."""
        self.connections = max(0, self.connections - 1)
        if self.connections == 0 and now is not None:
            self.away_since = now


def reseat(seats: list[Seat], fill_bot: str, now: float, keep_leavers: bool = False,
           new_game: bool = False) -> bool:
    """At a deal's start: apply the seat changes asked for during the last one (a bot of the seat's
    level, else ``fill_bot``, takes a seat given up). Returns whether any seat changed hands.

    ``keep_leavers`` (a rated game under way): a seat its player left stays theirs, played by the
    stand-in, to the game's end: whoever sits down rated is rated on the result whatever they do.
    Otherwise a seat its player left opens, and until ``new_game`` (the next game's start) it keeps
    the leaver's name in ``left_by`` for the game's results."""
    changed = False
    for seat in seats:
        if new_game:
            seat.left_by = None
        if keep_leavers and seat.left:
            continue
        if seat.joining is not None and seat.joining_hash is not None:
            seat.become_human(seat.joining, seat.joining_hash, now, seat.joining_account)
            changed = True
        elif seat.leaving:
            invite = seat.invite_hash
            level = seat.bot or fill_bot
            if invite is not None:
                seat.become_invited(seat.name, invite)
            else:
                leaver = seat.name if seat.left and not new_game else None
                seat.become_open()
                seat.name = bot_label(seat.index, {s.name for s in seats})
                seat.left_by = leaver
            seat.bot = level
            changed = True
    return changed



def names_clash(name: str, seats: list[Seat], besides: int | None = None) -> bool:
    """Whether ``name`` is taken at the table, ignoring case and letters that look alike: by a
    seat's name (bots' too) or a person about to take a seat over. Seat ``besides`` (the one being taken) does not count."""
    looks = name_skeleton(name)
    for seat in seats:
        if seat.index == besides:
            continue
        if (seat.kind != SeatKind.OPEN and name_skeleton(seat.name) == looks) or (
            seat.joining is not None and name_skeleton(seat.joining) == looks
        ):
            return True
    return False
