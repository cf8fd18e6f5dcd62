"""The moderators' actions (docs/web.md, "Moderation"), each logged in its own transaction with who
did it, when and why: resolve a report, ban an account or an address for a time (or lift it), force a
rename, close a bot, void a rated game, and (the operator's, from the command line) make or unmake a
moderator.

A ban acts through the database, so it holds on every process and whether it came from the admin
page or from ``sixnimmt admin``: the account's sessions are deleted and its sign-in refused
(``users.banned_until``), and the tokens of the account's bots (or of the bot itself) are revoked,
which closes their connections. Whoever acts (the admin page's routes, ``sixnimmt admin``) then
tells every live process (:mod:`.moderation_news`), which closes the account's sockets and bots at
once; a process not told meets the ban in the database.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..accounts.account_rows import GamePlayerRow, SessionRow, UserRow, now_utc
from ..accounts.users import AccountError, User, check_name, name_key, user_of
from ..botapi.bot_accounts import BotTokenRow
from ..store.rows import GameRow
from .moderation_rows import AddressBanRow, LogRow, ModeratorRow
from .reports import NOTE_MAX, Reports
from .voiding import void_game

#: A ban without an end: until this date.
FOREVER = dt.datetime(9999, 1, 1)
DURATION = re.compile(r"(\d{1,5})([mhdw])")
UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> dt.timedelta | None:
    """``30m``, ``12h``, ``7d``, ``2w``, or ``forever`` (None). Raises :class:`AccountError`."""
    text = text.strip().lower()
    if text == "forever":
        return None
    found = DURATION.fullmatch(text)
    if found is None or int(found[1]) == 0:
        raise AccountError(f"{text[:20]!r} is no duration: say 30m, 12h, 7d, 2w or forever", "bad-duration")
    return dt.timedelta(**{UNITS[found[2]]: int(found[1])})


def check_address(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise AccountError(f"{text[:45]!r} is not an IP address", "bad-address") from None


def check_reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise AccountError("say why: every action is logged with its reason", "reason-missing")
    return reason[:NOTE_MAX]


def _rename_in_games(session: Session, account: int, old: str, new: str) -> int:
    """The account's seats in its finished games under its new name (their lists, records and deal
    players), so the offensive name is shown nowhere; returns how many games changed."""
    seats: dict[int, set[int]] = {}
    for game_id, seat in session.execute(select(GamePlayerRow.game_id, GamePlayerRow.seat)
                                         .where(GamePlayerRow.user_id == account)):
        seats.setdefault(int(game_id), set()).add(int(seat))
    for game_id, mine in seats.items():
        game = session.get(GameRow, game_id)
        if game is None:
            continue
        game.seats = [new if i in mine else name for i, name in enumerate(game.seats)]
        game.record = {**game.record, "seats": [new if i in mine else name
                                                for i, name in enumerate(game.record.get("seats", []))]}
        if game.deal_players is not None:
            game.deal_players = [[{**p, "name": new} if i in mine and p.get("name") == old else p
                                  for i, p in enumerate(deal)] for deal in game.deal_players]
    return len(seats)


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"


class Moderation:
    """The moderators' actions and the log (synchronous database calls). ``actor`` names who acts:
    a moderator's account name, or the operator at the command line."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.reports = Reports(engine)

    # ------------------------------------------------------------------ the log

    @staticmethod
    def _log(session: Session, actor: str, action: str, target: str, reason: str,
             detail: dict[str, Any] | None = None) -> None:
        session.add(LogRow(at=now_utc(), actor=actor[:64], action=action, target=target[:128], reason=reason,
                           detail=detail or {}))

    def log(self, limit: int = 100) -> list[dict[str, Any]]:
        with Session(self.engine) as session:
            rows = session.scalars(select(LogRow).order_by(LogRow.id.desc()).limit(limit))
            return [{"id": r.id, "at": _iso(r.at), "actor": r.actor, "action": r.action, "target": r.target,
                     "reason": r.reason, "detail": r.detail} for r in rows]

    # ------------------------------------------------------------------ moderators

    def is_moderator(self, user_id: int) -> bool:
        with Session(self.engine) as session:
            return session.get(ModeratorRow, user_id) is not None

    def set_moderator(self, actor: str, name: str, moderator: bool, reason: str) -> None:
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            user = self._account(session, name, kind="person")
            row = session.get(ModeratorRow, user.id)
            if moderator and row is None:
                session.add(ModeratorRow(user_id=user.id, since=now_utc()))
            elif not moderator and row is not None:
                session.delete(row)
            else:
                raise AccountError(f"{user.name} is {'already' if moderator else 'not'} a moderator", "no-change")
            self._log(session, actor, "moderator" if moderator else "unmoderator", user.name, reason)

    def moderators(self) -> list[str]:
        with Session(self.engine) as session:
            return list(session.scalars(select(UserRow.name).join(ModeratorRow, ModeratorRow.user_id == UserRow.id)
                                        .order_by(UserRow.name)))

    # ------------------------------------------------------------------ reports

    def resolve(self, actor: str, report_id: int, reason: str) -> None:
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            row = self.reports.resolve(session, report_id, reason)
            self._log(session, actor, "resolve", f"report {report_id}", reason, {"target": row.target_name})

    # ------------------------------------------------------------------ accounts and addresses

    def ban(self, actor: str, name: str, length: dt.timedelta | None, reason: str) -> dict[str, Any]:
        """Ban account ``name`` for ``length`` (None: for good): its sessions end, its bots' tokens
        (or its own, for a bot) are revoked. Returns the tokens revoked (``tokens``) and the end."""
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            row = self._row(session, name)
            until = FOREVER if length is None else now_utc() + length
            row.banned_until = until
            session.execute(delete(SessionRow).where(SessionRow.user_id == row.id))
            tokens = self._revoke_tokens(session, row.id)
            self._log(session, actor, "ban", row.name, reason, {"until": _iso(until), "tokens": len(tokens)})
            return {"name": row.name, "id": row.id, "until": _iso(until), "tokens": tokens}

    def unban(self, actor: str, name: str, reason: str) -> None:
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            row = self._row(session, name)
            if not user_of(row).banned():
                raise AccountError(f"{row.name} is not banned", "no-change")
            row.banned_until = None
            self._log(session, actor, "unban", row.name, reason)

    def close_bot(self, actor: str, name: str, reason: str) -> dict[str, Any]:
        """A bot program's account is closed for good: its tokens are revoked, no new one is made."""
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            row = self._row(session, name)
            if row.kind != "bot" or row.bot_level is not None:
                raise AccountError(f"{row.name} is not a bot program", "not-a-bot")
            row.banned_until = FOREVER
            tokens = self._revoke_tokens(session, row.id)
            self._log(session, actor, "close-bot", row.name, reason, {"tokens": len(tokens)})
            return {"name": row.name, "id": row.id, "tokens": tokens}

    @staticmethod
    def _revoke_tokens(session: Session, account: int) -> list[int]:
        bots = select(UserRow.id).where(or_(UserRow.id == account, UserRow.owner_id == account))
        live = list(session.scalars(select(BotTokenRow.id).where(
            BotTokenRow.bot_id.in_(bots), BotTokenRow.revoked_at.is_(None))))
        if live:
            session.execute(update(BotTokenRow).where(BotTokenRow.id.in_(live)).values(revoked_at=now_utc()))
        return live

    def ban_address(self, actor: str, address: str, length: dt.timedelta | None, reason: str) -> str:
        reason = check_reason(reason)
        address = check_address(address)
        until = FOREVER if length is None else now_utc() + length
        with Session(self.engine) as session, session.begin():
            session.add(AddressBanRow(address=address, until=until, reason=reason))
            self._log(session, actor, "ban-address", address, reason, {"until": _iso(until)})
        return str(_iso(until))

    def unban_address(self, actor: str, address: str, reason: str) -> None:
        reason = check_reason(reason)
        address = check_address(address)
        with Session(self.engine) as session, session.begin():
            done = session.execute(delete(AddressBanRow).where(AddressBanRow.address == address))
            if not getattr(done, "rowcount", 0):
                raise AccountError(f"{address} is not banned", "no-change")
            self._log(session, actor, "unban-address", address, reason)

    def banned_addresses(self) -> frozenset[str]:
        with Session(self.engine) as session:
            return frozenset(session.scalars(select(AddressBanRow.address).where(AddressBanRow.until > now_utc())))

    def rename(self, actor: str, name: str, new_name: str, reason: str) -> tuple[str, int]:
        """Force a new name on an offensive one (the old name is free again), in the account's
        finished games too. Returns the old name and the account's id."""
        reason = check_reason(reason)
        new_name = check_name(new_name)
        with Session(self.engine) as session:
            try:
                with session.begin():
                    row = self._row(session, name)
                    old, account = row.name, row.id
                    row.name, row.name_key = new_name, name_key(new_name)
                    games = _rename_in_games(session, row.id, old, new_name)
                    self._log(session, actor, "rename", old, reason, {"to": new_name, "games": games})
            except IntegrityError:
                raise AccountError("that user name is taken", "account-name-taken", status=409) from None
        return old, account

    # ------------------------------------------------------------------ games

    def void(self, actor: str, game_id: int, reason: str) -> dict[str, Any]:
        reason = check_reason(reason)
        with Session(self.engine) as session, session.begin():
            changed = void_game(session, game_id)
            self._log(session, actor, "void", f"game {game_id}", reason, changed)
            return changed

    # ------------------------------------------------------------------ lookups

    @staticmethod
    def _row(session: Session, name: str) -> UserRow:
        row = session.scalars(select(UserRow).where(
            UserRow.name_key == name_key(name.strip()[:64]), UserRow.deleted_at.is_(None))).one_or_none()
        if row is None or row.bot_level is not None:
            raise AccountError(f"no account named {name.strip()[:20]!r}", "no-player", status=404)
        return row

    def _account(self, session: Session, name: str, kind: str) -> User:
        row = self._row(session, name)
        if row.kind != kind:
            raise AccountError(f"{row.name} is not a person's account", "not-a-person")
        return user_of(row)
