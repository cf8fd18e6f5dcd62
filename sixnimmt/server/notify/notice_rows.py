"""The notifications' rows (on the store's :class:`~sixnimmt.server.store.rows.Base`): an account's
e-mail address, the links mailed to it (confirm, reset), the last "your move" mail per table, the
browsers subscribed to pushes, and the server's VAPID key. Times are calendar seconds of the
server's clock (:meth:`~sixnimmt.server.clock.Clock.wall`), so tests move them by hand."""

from __future__ import annotations

from sqlalchemy import Boolean, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.rows import Base


class EmailRow(Base):
    """An account's address: confirmed once its link was followed; ``move_mails`` until the
    account unsubscribes. ``unsubscribe_key`` is random and only turns the mails off, so it is kept
    as it is (every "your move" mail carries it)."""

    __tablename__ = "emails"

    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str] = mapped_column(String(254))
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    move_mails: Mapped[bool] = mapped_column(Boolean, default=True)
    unsubscribe_key: Mapped[str] = mapped_column(String(64))
    #: The page's language when the address was given: the mails are in it.
    lang: Mapped[str] = mapped_column(String(8), default="en")


class MailTokenRow(Base):
    """A link mailed to an account: to confirm ``address``, or to set a new password. Only the
    token's SHA-256 is kept; the row goes when the link is used."""

    __tablename__ = "mail_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(8))  # confirm | reset
    address: Mapped[str] = mapped_column(String(254))
    expires_at: Mapped[float] = mapped_column(Float)


class MoveMailRow(Base):
    """When the last "your move" mail about table ``code`` went to the account."""

    __tablename__ = "move_mails"

    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    sent_at: Mapped[float] = mapped_column(Float)


class PushSubscriptionRow(Base):
    """A browser subscribed to pushes for an account (the Push API's subscription: the push
    service's endpoint, the browser's P-256 key and its authentication secret)."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))
    auth: Mapped[str] = mapped_column(String(40))
    #: The page's language when it subscribed: the pushes' texts are in it.
    lang: Mapped[str] = mapped_column(String(8), default="en")
    created_at: Mapped[float] = mapped_column(Float)


class VapidKeyRow(Base):
    """The server's VAPID key (RFC 8292), made once: every process of a cluster signs with it, and
    browsers subscribed under it stay subscribed across restarts."""

    __tablename__ = "vapid_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)
