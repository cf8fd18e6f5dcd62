"""Who sits where at a table: joining, invitations, freeing and leaving a seat, and filling the
open seats with bots when the host starts. Each change is made on a
:class:`~sixnimmt.server.tables.table.TableSession` and saved; the room tells the connections. Once a game
runs, a seat changes hands only at the next deal's start
(:func:`~sixnimmt.server.tables.table_setup.reseat`), so nobody takes over a hand in the middle of a deal."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .seat import Seat, SeatKind, names_clash
from .table_setup import TableError, bot_label, clean_name, hash_token

if TYPE_CHECKING:
    from .table import Change, TableSession


def token_for_key(code: str, key: str) -> str:
    """The seat token a join with the client's ``key`` gets at table ``code``: derived, so that a
    retry with the same key finds the seat it took (the store keeps only the token's hash)."""
    digest = hashlib.sha256(f"sixnimmt join\0{code}\0{key}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


@dataclass(slots=True)
class Joined:
    """A seat taken: its index, its token, whether the taking over waits for the next deal, whether
    the seats changed (False: a retry or a second device found the seat it holds), and the game that
    began because the table filled up (None: it did not)."""

    seat: int
    token: str
    later: bool
    changed: bool = True
    started: Change | None = None


async def take_seat(
    table: TableSession, name: str, invite: str | None = None, account: int | None = None,
    account_token: str | None = None, resume_only: bool = False, key: str | None = None,
    still_wanted: Callable[[], bool] | None = None, program: bool = False, stable: tuple[int, ...] = (),
) -> Joined:
    """Take a seat: the one ``invite`` keeps, else the first open one (once the game runs, an open or
    bot seat, taken over at the next deal). A signed-in player joins under ``account`` with the seat
    token derived from it (``account_token``); an account already seated here gets its seat back (a
    second device). A rated table seats accounts only, and only before its game.

    ``key`` (chosen by the client, random) makes a retry safe: the token is derived from it, so a
    join that took a seat and whose answer was lost is answered again with the same seat and token.
    ``still_wanted``: whether the caller still waits (a join forwarded from another process whose
    caller has given up takes no seat). ``program``: a bot program (docs/bot-api.md) takes the seat; it
    sits down before a game only. ``stable``: the accounts the joiner's owner controls
    (:func:`refuse_stablemates`)."""
    name = clean_name(name)
    await table.check_lease()
    if still_wanted is not None and not still_wanted():
        raise TableError("the server driving this table answered too late: try again", "table-unavailable")
    if account is not None and account_token:
        # (a seat the account left keeps it until the deal ends, for the game's record: not its seat)
        mine = next((s for s in table.seats if s.account == account and s.token_hash is not None), None)
        if mine is not None:
            return Joined(mine.index, account_token, False, changed=False)
        coming = next((s for s in table.seats if s.joining_account == account), None)
        if coming is not None:  # taking a seat over at the next deal
            return Joined(coming.index, account_token, True, changed=False)
    if table.options.tourney is not None:  # (its entrants sit under their accounts, found above)
        raise TableError("a tournament's seats are its entrants': you can watch", "tournament-seat")
    if resume_only:
        raise TableError("you have no seat at this table", "no-seat")
    if table.options.rated and (account is None or not account_token):
        raise TableError("sign in to play at a rated table (anyone may watch)", "rated-sign-in")
    if (table.options.rated or program) and table.status != "waiting":
        raise TableError("this game has started: you can watch it", "table-full")
    if account_token:
        token = account_token
    elif key is not None:
        token = token_for_key(table.code, key)
        held, taking = table.place_for_token(token)
        if held is not None:
            return Joined(held, token, False, changed=False)
        if taking is not None:
            return Joined(taking, token, True, changed=False)
    else:
        token = secrets.token_urlsafe(24)
    seat = _seat_to_take(table, invite)
    refuse_stablemates(table, stable, seat.index)
    if names_clash(name, table.seats, besides=seat.index):
        raise TableError(f"the name {name!r} is taken at this table", "name-taken", name=name)
    later = table.status != "waiting"
    if later:  # the bot plays on until the deal ends
        seat.take_over_later(name, hash_token(token), account)
    else:
        seat.become_human(name, hash_token(token), table.clock.now(), account, program)
    if not later and not table.open_seats() and not any(s.kind == SeatKind.INVITED for s in table.seats):
        return Joined(seat.index, token, later, started=await table.start_game())
    await table.commit()
    return Joined(seat.index, token, later)


def refuse_stablemates(table: TableSession, stable: tuple[int, ...], besides: int) -> None:
    """At a rated table, a bot program never sits with its owner nor with another bot of the same
    owner (``stable``: the accounts of one person, their bot programs' included), so nobody's
    rating can gain from games against their own bots. Seat ``besides`` (the one being taken) does
    not count."""
    if not table.options.rated or not stable:
        return
    for seat in table.seats:
        if seat.index != besides and (seat.account in stable or seat.joining_account in stable):
            raise TableError("a bot program does not sit at a rated table with its owner or another bot of "
                             "the same owner", "rated-same-owner")


def _seat_to_take(table: TableSession, invite: str | None) -> Seat:
    if invite:
        wanted = hash_token(invite)
        seat = next((s for s in table.seats if s.invite_hash is not None
                     and secrets.compare_digest(s.invite_hash, wanted)), None)
        if seat is None or seat.joining is not None:
            raise TableError("this invitation is unknown or already used", "invite-invalid")
        return seat
    free = table.joinable_seats()
    if not free:
        if table.status == "waiting" or not any(s.kind in (SeatKind.OPEN, SeatKind.BOT) for s in table.seats):
            raise TableError("this table is full: you can watch it", "table-full")
        raise TableError("every free seat is being taken over already: you can watch", "table-full")
    return table.seats[free[0]]


def _host_only(table: TableSession, by: int | None, index: int, program: bool = False) -> Seat:
    if by != 0:
        raise TableError("only the host (seat 1) can do that", "not-host")
    if program and table.status != "waiting":
        raise TableError("a bot program is invited before the game only", "bad-seat", seat=index + 1)
    if table.options.rated and not program:  # (a bot program sits down under its account, rated)
        raise TableError("the seats of a rated table are not changed by hand", "rated-seats")
    if not 0 < index < len(table.seats):
        raise TableError(f"there is no seat {index + 1} to change", "bad-seat", seat=index + 1)
    return table.seats[index]


async def invite(table: TableSession, by: int | None, index: int, name: str, program: bool = False,
                 stable: tuple[int, ...] = ()) -> tuple[str, str]:
    """The host keeps seat ``index`` for a named friend: before the game at once, once it runs from
    the next deal (the seat's bot, or the fallback for a vanished player, plays until then). Returns
    the invitation's token (the friend's link) and the name as kept. ``program``: the friend is a
    bot program (docs/bot-api.md), invited before the game, at a rated table too, where ``stable``
    (the program's owner and their bots) may not sit with it (:func:`refuse_stablemates`)."""
    seat = _host_only(table, by, index, program)
    refuse_stablemates(table, stable, index)
    name = clean_name(name)
    if seat.joining is not None or (seat.held and seat.connections > 0):
        raise TableError(f"seat {seat.index + 1} is taken", "bad-seat", seat=seat.index + 1)
    if names_clash(name, table.seats, besides=seat.index):
        raise TableError(f"the name {name!r} is taken at this table", "name-taken", name=name)
    token = secrets.token_urlsafe(24)
    if seat.held:  # a vanished player: they leave at the next deal, the seat waits for the friend
        if table.status == "waiting":
            seat.become_invited(name, hash_token(token))
        else:
            seat.hand_over_later(hash_token(token))
    else:
        seat.become_invited(name, hash_token(token), bot=seat.bot or table.options.fill_bot)
    await table.commit()
    return token, name


async def release(table: TableSession, by: int | None, index: int) -> None:
    """The host frees a bot's, an invitation's or a vanished player's seat: before the game at once,
    else at the start of the next deal."""
    seat = _host_only(table, by, index)
    if seat.held and seat.connections > 0:
        raise TableError(f"seat {seat.index + 1} is at the table: only a vanished player's seat can be freed",
                         "bad-seat", seat=seat.index + 1)
    if seat.kind == SeatKind.OPEN and seat.joining is None:
        raise TableError(f"seat {seat.index + 1} is already free", "bad-seat", seat=seat.index + 1)
    if table.status == "waiting":
        seat.become_open()
    else:  # an invitation or a takeover asked for stops here too
        seat.release_later()
    await table.commit()


async def withdraw_invitation(table: TableSession, invite: str) -> int | None:
    """A bot program declined the seat kept for it (or let the invitation expire): the seat opens
    again. Returns the seat, None if the invitation is no longer there (taken, or withdrawn)."""
    wanted = hash_token(invite)
    seat = next((s for s in table.seats if s.kind == SeatKind.INVITED and s.invite_hash is not None
                 and secrets.compare_digest(s.invite_hash, wanted)), None)
    if seat is None or table.status != "waiting":
        return None
    seat.become_open()
    await table.commit()
    return seat.index


async def leave(table: TableSession, by: int | None) -> None:
    """A player gives their seat up: before the game it opens at once; once it runs, the seat's token
    stops working at once (the room makes its sockets spectators), the stand-in plays it at once
    (nobody waits out the grace period) and it opens at the next deal."""
    if by is None:
        raise TableError("only a player can leave a seat", "not-seated")
    seat = table.seats[by]
    if table.status == "waiting":
        # (a bot program's host seat is its seek's, at a table Play now starts: it may give it up)
        if seat.index == 0 and not seat.program:
            raise TableError("the host's seat cannot be left before the game", "not-host")
        seat.become_open()
    else:
        seat.leave_now(table.clock.now())
    await table.commit()


async def start_with_bots(table: TableSession, by: int | None) -> Change:
    """The host starts the game now: a bot in every open seat, and one playing for each invited
    friend until they come (then from the next deal)."""
    if by != 0:
        raise TableError("only the host (seat 1) can start the game", "not-host")
    if table.status != "waiting":
        raise TableError("the game has already started", "already-started")
    level = table.options.fill_bot
    for seat in table.seats:
        if seat.kind == SeatKind.OPEN:
            taken = {s.name for s in table.seats}
            seat.become_bot(level, bot_label(seat.index, taken))
        elif seat.kind == SeatKind.INVITED and seat.bot is None:
            seat.give_bot(level)
    return await table.start_game()
