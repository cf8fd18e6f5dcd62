"""What one server process asks another to do (several processes on one database:
:mod:`~sixnimmt.server.cluster`), typed as the browser's messages are: a tagged union of small frozen
records, each named on the wire by its ``op``. A table call runs on the process that drives the
table (:meth:`~sixnimmt.server.tables.rooms.Rooms.run_call`), wherever the request came in; a process
call asks another process about itself (its lobby, the bot programs connected to it).

A new call is a record here, its entry in :data:`CALLS`, and the code that answers it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Summary:
    """What the lobby shows of the table."""

    op: ClassVar[str] = "summary"


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat (:func:`~sixnimmt.server.tables.seating.take_seat` says what each field means)."""

    op: ClassVar[str] = "join"
    name: str
    invite: str | None = None
    account: int | None = None
    token: str | None = None
    resume_only: bool = False
    key: str | None = None
    program: bool = False
    #: The accounts one person controls, the joiner among them (:meth:`~sixnimmt.server.accounts.
    #: users.Accounts.stable`): none of the others may sit at the same rated table.
    stable: tuple[int, ...] = ()

    def __post_init__(self) -> None:  # (a tuple again after a trip through JSON)
        object.__setattr__(self, "stable", tuple(self.stable))


@dataclass(frozen=True, slots=True)
class InviteProgram:
    """The host (proved by its seat token ``host``) keeps seat ``seat`` for the bot program ``name``."""

    op: ClassVar[str] = "invite-program"
    host: str | None
    seat: int
    name: str
    #: The bot's owner and the owner's bot programs, the bot among them (see :class:`Join`).
    stable: tuple[int, ...] = ()

    def __post_init__(self) -> None:  # (a tuple again after a trip through JSON)
        object.__setattr__(self, "stable", tuple(self.stable))


@dataclass(frozen=True, slots=True)
class WithdrawInvitation:
    """A bot program declined the seat kept for it by ``invite``."""

    op: ClassVar[str] = "withdraw-invitation"
    invite: str


@dataclass(frozen=True, slots=True)
class Listing:
    """The public tables the process drives (for the lobby)."""

    op: ClassVar[str] = "listing"
    limit: int = 40


@dataclass(frozen=True, slots=True)
class BotsOnline:
    """The bot programs connected to the process."""

    op: ClassVar[str] = "bots-online"


@dataclass(frozen=True, slots=True)
class InviteBot:
    """Invite bot ``bot``, connected to the process, to the seat of table ``code`` kept by ``token``."""

    op: ClassVar[str] = "invite-bot"
    bot: int
    code: str
    token: str
    about: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BotConnected:
    """Bot ``bot`` connected to another process: a connection of it here is replaced."""

    op: ClassVar[str] = "bot-connected"
    bot: int


@dataclass(frozen=True, slots=True)
class AccountBanned:
    """A moderator banned account ``account`` and revoked the bot tokens ``tokens`` (its own, or its
    bots'): the account's sockets at the process's tables and those bots' connections are closed."""

    op: ClassVar[str] = "account-banned"
    account: int
    tokens: tuple[int, ...] = ()

    def __post_init__(self) -> None:  # (a tuple again after a trip through JSON)
        object.__setattr__(self, "tokens", tuple(self.tokens))


@dataclass(frozen=True, slots=True)
class BlocksChanged:
    """Account ``account`` blocked or unblocked someone: the process's tables where it sits read its
    blocks again."""

    op: ClassVar[str] = "blocks-changed"
    account: int


@dataclass(frozen=True, slots=True)
class AddressBansChanged:
    """An address was banned or let in again: the process reads the address bans again."""

    op: ClassVar[str] = "address-bans-changed"


@dataclass(frozen=True, slots=True)
class AccountRenamed:
    """A moderator renamed account ``account`` to ``name``: its seats at the process's tables too."""

    op: ClassVar[str] = "account-renamed"
    account: int
    name: str


#: What a moderator's action tells every process (:mod:`~sixnimmt.server.moderation.moderation_news`).
ModerationCall = AccountBanned | BlocksChanged | AddressBansChanged | AccountRenamed
TableCall = Summary | Join | InviteProgram | WithdrawInvitation
ProcessCall = Listing | BotsOnline | InviteBot | BotConnected | ModerationCall
RemoteCall = TableCall | ProcessCall

#: Every call, by the name it has on the wire.
CALLS: dict[str, type[RemoteCall]] = {
    cls.op: cls for cls in (Summary, Join, InviteProgram, WithdrawInvitation, Listing, BotsOnline, InviteBot,
                            BotConnected, AccountBanned, BlocksChanged, AddressBansChanged, AccountRenamed)
}


def call_to_dict(call: RemoteCall) -> dict[str, Any]:
    return {"op": call.op, **asdict(call)}


def call_from_dict(data: dict[str, Any]) -> RemoteCall:
    """The call ``data`` describes (:class:`ValueError` if it names none, or not with its fields)."""
    cls = CALLS.get(str(data.get("op")))
    if cls is None:
        raise ValueError(f"unknown call {data.get('op')!r}")
    try:
        return cls(**{k: v for k, v in data.items() if k != "op"})
    except TypeError as error:  # (a field missing, or one it does not have)
        raise ValueError(f"call {cls.op!r}: {error}") from None
