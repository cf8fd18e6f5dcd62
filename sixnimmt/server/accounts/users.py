"""Accounts (optional): user names, argon2 password hashes, server-side sessions, and the accounts
the server's bots play rated games under.

Anonymous play does not touch any of this. What is stored:

* ``users``: the name as typed and its key (:func:`name_key`: unique without regard to case,
  combining marks or character width), the argon2 hash, a *password epoch* raised by each password
  change (a session made under an older one is refused), and a random *seat key*: the seat token of
  this account at a table is derived from it and the table's code, so a second device signed in to
  the same account resumes the same seat.
* ``sessions``: the SHA-256 of each session token (the token itself lives only in the browser's
  HttpOnly cookie), the account, the password epoch it was made under and when it expires.

Password hashing is slow on purpose: it runs on a small pool of its own threads
(:class:`~.passwords.Hasher`), never on the event loop. Every database call here is synchronous and runs through
the store's :class:`~sixnimmt.server.store.writer.Writer`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Text,
    cast,
    delete,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..refusal import Refusal
from ..store.database import Store
from ..store.rows import GameRow, TableRow, game_summary
from ..tables.table_setup import BOT_LEVELS, hash_token, plain_letters
from .account_rows import (
    GamePlayerRow,
    PlayNowRow,
    RatingHistoryRow,
    RatingRow,
    SessionRow,
    UserRow,
    now_utc,
)

# ---------------------------------------------------------------------- names


class AccountError(Refusal):
    """A request about an account that cannot be met; ``code`` is translated by the client."""

    status = 422


#: User names: 3 to 20 of these characters, starting with a letter or a digit. ASCII only, so no
#: look-alike letters from other scripts, no right-to-left marks and nothing HTML could read.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,19}")
NAME_MIN, NAME_MAX = 3, 20
#: Names nobody may take (compared without regard to case), besides any starting with "bot" and a
#: separator (the server's bots are ``bot-easy`` … ``bot-grandmaster``).
RESERVED = frozenset({
    "admin", "administrator", "root", "system", "sixnimmt", "nimmt", "moderator", "mod", "staff",
    "support", "help", "server", "bot", "bots", "anonymous", "anon", "guest", "deleted", "null",
    "undefined", "none", "me", "you", "host", "everyone", "official", *BOT_LEVELS,
})
PASSWORD_MIN, PASSWORD_MAX = 10, 128
#: The display name of a deleted account in the games it played.
DELETED_NAME = "Deleted player"


def name_key(name: str) -> str:
    """What makes an account's name unique, and how a name typed to sign in or to look an account
    up finds it: its :func:`plain_letters`, case folded (no look-alike letters: names are ASCII)."""
    return plain_letters(name).casefold()


def check_name(raw: object) -> str:
    """A new account's name, or :class:`AccountError` saying what is wrong with it."""
    if not isinstance(raw, str):
        raise AccountError("a user name is text", "account-name-invalid", min=NAME_MIN, max=NAME_MAX)
    name = raw.strip()
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(
            f"a user name has {NAME_MIN} to {NAME_MAX} characters: letters A-Z, digits, '.', '_' and '-', "
            "starting with a letter or digit",
            "account-name-invalid", min=NAME_MIN, max=NAME_MAX,
        )
    key = name_key(name)
    if key in RESERVED or re.match(r"bot[-_.]", key):
        raise AccountError("that user name is reserved", "account-name-reserved")
    return name


# ---------------------------------------------------------------------- hashing, off the event loop


# ---------------------------------------------------------------------- the account store


def seat_token(seat_key: str, code: str) -> str:
    """The seat token of an account at table ``code`` (the same on each of its devices)."""
    return hmac.new(seat_key.encode(), f"seat:{code}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    kind: str
    seat_key: str
    created_at: dt.datetime
    bot_level: str | None = None
    #: Until when a moderator barred the account (None: it is not).
    banned_until: dt.datetime | None = None

    def banned(self) -> bool:
        return self.banned_until is not None and self.banned_until > now_utc()

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "bot": self.bot_level,
                "joined": self.created_at.isoformat() + "Z"}


def user_of(row: UserRow) -> User:
    """The account a ``users`` row holds, as the rest of the server sees it."""
    return User(row.id, row.name, row.kind, row.seat_key, row.created_at, row.bot_level, row.banned_until)


def bot_account_name(level: str) -> str:
    return f"bot-{level}"


class Accounts:
    """The accounts' database calls (synchronous; the server runs them through its Writer)."""

    def __init__(self, store: Store, session_days: float = 30.0) -> None:
        self.store = store
        self.session_days = session_days

    @property
    def engine(self) -> Any:
        return self.store.engine

    def stable(self, user_id: int) -> tuple[int, ...]:
        """The accounts one person controls, ``user_id`` among them: a person and their bot
        programs, or a bot program, its owner and the owner's other bots. None of them may sit at a
        rated table with another (docs/web.md, "Rated play")."""
        with Session(self.engine) as session:
            row = session.get(UserRow, user_id)
            if row is None:
                return (user_id,)
            owner = row.owner_id if row.kind == "bot" and row.owner_id is not None else row.id
            bots = session.scalars(select(UserRow.id).where(UserRow.owner_id == owner))
            return tuple(sorted({user_id, owner, *bots}))

    def ensure_bots(self) -> dict[str, int]:
        """An account for each bot level (made once; several processes may race: one wins)."""
        made = self.bot_ids()
        for level in BOT_LEVELS:
            if level in made:
                continue
            with Session(self.engine) as session:
                try:
                    with session.begin():
                        session.add(UserRow(name=bot_account_name(level), name_key=name_key(bot_account_name(level)),
                                            kind="bot", bot_level=level, seat_key=secrets.token_hex(32)))
                except IntegrityError:
                    pass  # another process made it
        return self.bot_ids()

    def bot_ids(self) -> dict[str, int]:
        with Session(self.engine) as session:
            rows = session.execute(select(UserRow.bot_level, UserRow.id).where(
                UserRow.kind == "bot", UserRow.bot_level.is_not(None)))
            return {str(level): int(uid) for level, uid in rows}

    def create(self, name: str, password_hash: str) -> User:
        with Session(self.engine) as session:
            row = UserRow(name=name, name_key=name_key(name), kind="person", password_hash=password_hash,
                          seat_key=secrets.token_hex(32), created_at=now_utc())
            try:
                with session.begin():
                    session.add(row)
                    session.flush()
                    user = user_of(row)
            except IntegrityError:
                raise AccountError("that user name is taken", "account-name-taken", status=409) from None
            return user

    def name_taken(self, name: str) -> bool:
        with Session(self.engine) as session:
            return session.scalar(select(UserRow.id).where(UserRow.name_key == name_key(name))) is not None

    def credentials(self, name: str) -> tuple[User, str, int] | None:
        """A person's account by name (any case): the user, its hash and password epoch."""
        with Session(self.engine) as session:
            row = session.scalars(select(UserRow).where(
                UserRow.name_key == name_key(name), UserRow.kind == "person", UserRow.deleted_at.is_(None)
            )).one_or_none()
            if row is None or row.password_hash is None:
                return None
            return user_of(row), row.password_hash, row.password_epoch

    def password_of(self, user_id: int) -> tuple[str, int] | None:
        with Session(self.engine) as session:
            row = session.get(UserRow, user_id)
            if row is None or row.deleted_at is not None or row.password_hash is None:
                return None
            return row.password_hash, row.password_epoch

    def new_session(self, user_id: int, epoch: int) -> str:
        token = secrets.token_urlsafe(32)
        now = now_utc()
        with Session(self.engine) as session, session.begin():
            session.add(SessionRow(token_hash=hash_token(token), user_id=user_id, password_epoch=epoch,
                                   created_at=now, expires_at=now + dt.timedelta(days=self.session_days)))
        return token

    def session_user(self, token: str) -> User | None:
        """The account a session token is signed in to, if the session still holds: not expired,
        not signed out, the account not deleted, its password not changed since."""
        with Session(self.engine) as session:
            row = session.execute(
                select(UserRow, SessionRow.password_epoch)
                .join(SessionRow, SessionRow.user_id == UserRow.id)
                .where(SessionRow.token_hash == hash_token(token), SessionRow.expires_at > now_utc(),
                       UserRow.deleted_at.is_(None), UserRow.in_good_standing())
            ).one_or_none()
            if row is None or row[0].password_epoch != row[1]:
                return None
            return user_of(row[0])

    def end_session(self, token: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.token_hash == hash_token(token)))

    def change_password(self, user_id: int, password_hash: str) -> int:
        """The new hash, a new password epoch (every session of the account stops working); returns
        the new epoch."""
        with Session(self.engine) as session, session.begin():
            row = session.get(UserRow, user_id, with_for_update=True)
            if row is None or row.deleted_at is not None:
                raise AccountError("no such account", "account-gone", status=401)
            row.password_hash = password_hash
            row.password_epoch += 1
            session.execute(delete(SessionRow).where(SessionRow.user_id == user_id))
            return row.password_epoch

    def delete(self, user_id: int) -> None:
        """Delete an account: its sessions and ratings go, its name is free again, and the games it
        played stay, under a neutral name."""
        with Session(self.engine) as session, session.begin():
            row = session.get(UserRow, user_id, with_for_update=True)
            if row is None or row.deleted_at is not None:
                return
            old = row.name
            row.deleted_at = now_utc()
            row.name = DELETED_NAME
            row.name_key = f"~deleted-{row.id}"
            row.password_hash = None
            row.password_epoch += 1
            row.seat_key = secrets.token_hex(32)  # seat tokens derived before no longer match
            session.execute(delete(SessionRow).where(SessionRow.user_id == user_id))
            session.execute(delete(RatingRow).where(RatingRow.user_id == user_id))
            session.execute(delete(RatingHistoryRow).where(RatingHistoryRow.user_id == user_id))
            seats: dict[int, set[int]] = {}
            for game_id, seat in session.execute(
                select(GamePlayerRow.game_id, GamePlayerRow.seat).where(GamePlayerRow.user_id == user_id)
            ):
                seats.setdefault(int(game_id), set()).add(int(seat))
            for game_id, mine in seats.items():
                game = session.get(GameRow, game_id)
                if game is not None:
                    rename_in_game(game, mine, old)

    def seats_of(self, user_id: int, limit: int = 20) -> list[tuple[str, int]]:
        """The tables whose game waits or runs where the account holds a seat, the most recently
        changed first: (code, seat). The seats are JSON in the table's row; the text of each is
        searched for the account's id first (the database does that much), then checked here."""
        seats_text = cast(TableRow.seats, Text)
        mentions = or_(seats_text.like(f'%"account":{int(user_id)}%'), seats_text.like(f'%"account": {int(user_id)}%'))
        found: list[tuple[str, int]] = []
        with Session(self.engine) as session:
            rows = session.execute(
                select(TableRow.code, TableRow.seats)
                .where(TableRow.status.in_(("waiting", "playing")), mentions)
                .order_by(TableRow.updated_at.desc(), TableRow.id.desc())
            )
            for code, seats in rows:
                # (a seat the account left keeps its id till the deal ends, without a token)
                seat = next((i for i, s in enumerate(seats) if s.get("account") == user_id
                             and s.get("kind") == "human" and s.get("token_hash")), None)
                if seat is not None:
                    found.append((str(code), seat))
                    if len(found) >= limit:
                        break
        return found

    def games_of(self, user_id: int, limit: int, offset: int) -> list[dict[str, Any]]:
        """The finished games the account played, newest first, private tables' too (each with its
        table's code, which opens it, and the account's seat): only the account itself sees this."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(GamePlayerRow.seat, GameRow).join(GameRow, GameRow.id == GamePlayerRow.game_id)
                .where(GamePlayerRow.user_id == user_id)
                .order_by(GamePlayerRow.game_id.desc()).limit(limit).offset(offset)
            ).all()
            return [{**game_summary(game), "seat": int(seat)} for seat, game in rows]

    def user_by_name(self, name: str) -> User | None:
        with Session(self.engine) as session:
            row = session.scalars(select(UserRow).where(
                UserRow.name_key == name_key(name), UserRow.deleted_at.is_(None)
            )).one_or_none()
            return None if row is None else user_of(row)

    def user_names(self, ids: list[int]) -> dict[int, User]:
        with Session(self.engine) as session:
            rows = session.scalars(select(UserRow).where(UserRow.id.in_(ids), UserRow.deleted_at.is_(None)))
            return {row.id: user_of(row) for row in rows}

    # ------------------------------------------------------------------ play now

    def add_play_now(self, code: str, mode: str, variant: str, players: int, rating: float | None) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(PlayNowRow(code=code, mode=mode, variant=variant, players=players, rating=rating))

    def play_now_candidates(self, mode: str, variant: str, players: int | None, since: dt.datetime,
                            rating: float | None, limit: int = 8) -> list[str]:
        """Tables "Play now" opened recently for this mode and variant (and player count), nearest
        in rating first, then the oldest."""
        with Session(self.engine) as session:
            query = select(PlayNowRow).where(
                PlayNowRow.mode == mode, PlayNowRow.variant == variant, PlayNowRow.created_at >= since
            )
            if players is not None:
                query = query.where(PlayNowRow.players == players)
            rows = list(session.scalars(query.order_by(PlayNowRow.created_at).limit(50)))
        if rating is not None:
            rows.sort(key=lambda r: abs((r.rating if r.rating is not None else rating) - rating))
        return [r.code for r in rows[:limit]]

    def drop_play_now(self, code: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PlayNowRow).where(PlayNowRow.code == code))

    def prune_play_now(self, before: dt.datetime) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PlayNowRow).where(PlayNowRow.created_at < before))

    def set_play_now_rating(self, code: str, rating: float | None) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(update(PlayNowRow).where(PlayNowRow.code == code).values(rating=rating))


def rename_in_game(game: GameRow, seats: set[int], old: str) -> None:
    """The deleted account's seats of ``game`` under :data:`DELETED_NAME` (record, seats, deal players)."""
    game.seats = [DELETED_NAME if i in seats else name for i, name in enumerate(game.seats)]
    record = dict(game.record)
    record["seats"] = [DELETED_NAME if i in seats else name for i, name in enumerate(record.get("seats", []))]
    game.record = record
    if game.deal_players is not None:
        game.deal_players = [
            [{**p, "name": DELETED_NAME} if i in seats and (not old or p.get("name") == old) else p
             for i, p in enumerate(deal)]
            for deal in game.deal_players
        ]
