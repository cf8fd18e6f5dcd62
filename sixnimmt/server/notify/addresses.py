"""The notifications' database calls (synchronous; the server runs them off the event loop): an
account's address and the links mailed to it, the "your move" mails' pacing, the browsers
subscribed to pushes and the server's VAPID key.

A mailed link's token is random and shown only in the mail; the database keeps its SHA-256, when
it expires, and what it is for. Using it deletes it: a link works once."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..accounts.account_rows import UserRow
from ..refusal import Refusal
from ..store.database import Store
from ..tables.table_setup import hash_token
from .notice_rows import EmailRow, MailTokenRow, MoveMailRow, PushSubscriptionRow, VapidKeyRow

#: An address as people type it: something@a.domain, no spaces or angle brackets, within RFC
#: 5321's 254 characters. The confirmation mail is the real check.
ADDRESS = re.compile(r"[^@\s<>\"',;]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}")
ADDRESS_MAX = 254


class NotifyError(Refusal):
    """A request about e-mail or pushes that cannot be met; ``code`` is translated by the client."""

    status = 422


def check_address(raw: object) -> str:
    """An e-mail address as typed, or :class:`NotifyError` saying what is wrong with it."""
    address = raw.strip() if isinstance(raw, str) else ""
    if len(address) > ADDRESS_MAX or not ADDRESS.fullmatch(address):
        raise NotifyError("that is not an e-mail address (name@example.org)", "notify-address-invalid")
    return address


@dataclass(frozen=True, slots=True)
class Email:
    address: str
    confirmed: bool
    move_mails: bool
    unsubscribe_key: str
    lang: str = "en"


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str
    lang: str = "en"


class Addresses:
    """Addresses, mailed links, subscriptions: one object, one database."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    # ------------------------------------------------------------------ addresses

    def email_of(self, user_id: int) -> Email | None:
        with Session(self.engine) as session:
            row = session.get(EmailRow, user_id)
            return None if row is None else Email(row.address, row.confirmed, row.move_mails, row.unsubscribe_key,
                                                  row.lang)

    def set_address(self, user_id: int, address: str, token: str, expires_at: float, lang: str = "en") -> None:
        """A new, unconfirmed address for the account, and the link that confirms it (any link
        mailed before for another address stops working)."""
        with Session(self.engine) as session, session.begin():
            row = session.get(EmailRow, user_id, with_for_update=True)
            if row is None:
                row = EmailRow(user_id=user_id, unsubscribe_key=secrets.token_urlsafe(24), move_mails=True)
                session.add(row)
            row.address, row.confirmed, row.lang = address, False, lang
            session.execute(delete(MailTokenRow).where(MailTokenRow.user_id == user_id,
                                                       MailTokenRow.purpose == "confirm"))
            session.add(MailTokenRow(token_hash=hash_token(token), user_id=user_id, purpose="confirm",
                                     address=address, expires_at=expires_at))

    def forget(self, user_id: int) -> None:
        """The account's address, links and subscriptions go (it removed its address, or was deleted)."""
        with Session(self.engine) as session, session.begin():
            for row in (EmailRow, MailTokenRow, MoveMailRow, PushSubscriptionRow):
                session.execute(delete(row).where(row.user_id == user_id))

    def remove_address(self, user_id: int) -> None:
        with Session(self.engine) as session, session.begin():
            for row in (EmailRow, MailTokenRow):
                session.execute(delete(row).where(row.user_id == user_id))

    def add_reset(self, user_id: int, token: str, expires_at: float) -> None:
        """A password-reset link for the account (earlier ones stop working)."""
        with Session(self.engine) as session, session.begin():
            session.execute(delete(MailTokenRow).where(MailTokenRow.user_id == user_id,
                                                       MailTokenRow.purpose == "reset"))
            session.add(MailTokenRow(token_hash=hash_token(token), user_id=user_id, purpose="reset",
                                     address="", expires_at=expires_at))

    def token_user(self, token: str, purpose: str, now: float) -> int | None:
        """The account an unused, unexpired link is for, leaving the link as it is."""
        with Session(self.engine) as session:
            row = session.get(MailTokenRow, hash_token(token))
            if row is None or row.purpose != purpose or row.expires_at <= now:
                return None
            return row.user_id

    def use_token(self, token: str, purpose: str, now: float) -> tuple[int, str] | None:
        """The account (and address) a mailed link is for, if it is unused and unexpired; using it
        deletes it, so a second try finds nothing. A confirmation link also confirms its address."""
        with Session(self.engine) as session, session.begin():
            row = session.get(MailTokenRow, hash_token(token), with_for_update=True)
            if row is None or row.purpose != purpose:
                return None
            session.delete(row)
            if row.expires_at <= now:
                return None
            if purpose == "confirm":
                email = session.get(EmailRow, row.user_id)
                if email is None or email.address != row.address:
                    return None
                email.confirmed = True
            return row.user_id, row.address

    def set_move_mails(self, user_id: int, on: bool) -> bool:
        with Session(self.engine) as session, session.begin():
            row = session.get(EmailRow, user_id)
            if row is None:
                return False
            row.move_mails = on
            return True

    def unsubscribe(self, user_id: int, key: str) -> bool:
        """One-click unsubscribe from "your move" mails, by the key every such mail carries."""
        with Session(self.engine) as session, session.begin():
            row = session.get(EmailRow, user_id)
            if row is None or not secrets.compare_digest(row.unsubscribe_key.encode(), key.encode()):
                return False
            row.move_mails = False
            return True

    def person_named(self, name: str) -> tuple[int, str] | None:
        """A person's account (not a bot's, not deleted) by name in any case: its id and name."""
        with Session(self.engine) as session:
            row = session.execute(select(UserRow.id, UserRow.name).where(
                UserRow.name_key == name.casefold(), UserRow.kind == "person", UserRow.deleted_at.is_(None))
            ).one_or_none()
            return None if row is None else (int(row[0]), str(row[1]))

    def move_mail_due(self, user_id: int, code: str, now: float, period: float) -> bool:
        """Whether a "your move" mail about table ``code`` may go to the account now (none in the
        last ``period`` seconds); if so, it counts as sent."""
        with Session(self.engine) as session, session.begin():
            row = session.get(MoveMailRow, (user_id, code), with_for_update=True)
            if row is not None and now - row.sent_at < period:
                return False
            if row is None:
                session.add(MoveMailRow(user_id=user_id, code=code, sent_at=now))
            else:
                row.sent_at = now
            return True

    # ------------------------------------------------------------------ pushes

    def subscribe(self, user_id: int, subscription: Subscription, now: float) -> None:
        """The browser's subscription, for this account (a browser subscribed before for another
        account of the same browser now pushes for this one)."""
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == subscription.endpoint))
            session.add(PushSubscriptionRow(user_id=user_id, endpoint=subscription.endpoint,
                                            p256dh=subscription.p256dh, auth=subscription.auth,
                                            lang=subscription.lang, created_at=now))

    def unsubscribe_push(self, user_id: int, endpoint: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.user_id == user_id,
                                                              PushSubscriptionRow.endpoint == endpoint))

    def drop_endpoint(self, endpoint: str) -> None:
        """The push service says the subscription is gone (404 or 410)."""
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == endpoint))

    def subscriptions(self, user_id: int) -> list[Subscription]:
        with Session(self.engine) as session:
            rows = session.scalars(select(PushSubscriptionRow).where(PushSubscriptionRow.user_id == user_id))
            return [Subscription(r.endpoint, r.p256dh, r.auth, r.lang) for r in rows]

    def vapid_key(self, make: str) -> str:
        """The server's VAPID private key (PEM): the one kept, else ``make``, kept from now on
        (several processes may race: the first one's is everyone's)."""
        with Session(self.engine) as session:
            kept = session.scalar(select(VapidKeyRow.private_pem).where(VapidKeyRow.id == 1))
        if kept is not None:
            return str(kept)
        try:
            with Session(self.engine) as session, session.begin():
                session.add(VapidKeyRow(id=1, private_pem=make))
        except IntegrityError:
            pass  # another process kept its own first
        with Session(self.engine) as session:
            return str(session.scalar(select(VapidKeyRow.private_pem).where(VapidKeyRow.id == 1)))
