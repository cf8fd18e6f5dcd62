"""Who is told what, and how: the mails (confirm, reset, your move, a challenge) and the pushes
(your move, a challenge) of one server process.

A turn-based table tells the notifier when a decision waits for accounts with nobody of theirs at
the table (:attr:`~sixnimmt.server.tables.rooms.Rooms.move_due_hook`, called under the table's
lock): each decision is pushed once to each of the account's subscribed browsers, and mailed at
most once per table in ``Settings.move_mail_period`` to a confirmed address that has not
unsubscribed. The sending runs in tasks of its own, never under the table's lock."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import quote

from ..clock import Clock
from ..config import Settings
from ..store.database import Store
from .addresses import Addresses, Email, NotifyError
from .mailer import Mailer, mail_missing
from .phrases import phrase
from .webpush import Pusher, new_private_pem

log = logging.getLogger("sixnimmt.server")
T = TypeVar("T")
#: Decisions remembered as pushed (per table and account), so a table's other moves do not push again.
REMEMBERED = 10_000


def mail_text(lang: str, which: str, **params: Any) -> tuple[str, str]:
    """A mail's subject and text in ``lang`` (``notify.mail{which}Subject`` and ``notify.mail{which}``)."""
    return phrase(lang, f"notify.mail{which}Subject", **params), phrase(lang, f"notify.mail{which}", **params)


class Notifier:
    """The mails and pushes of one process (see the module docstring)."""

    def __init__(self, store: Store, settings: Settings, clock: Clock, names: Callable[[list[int]], dict[int, str]]) -> None:
        self.addresses = Addresses(store)
        self.settings = settings
        self.clock = clock
        self.mailer = Mailer(settings)
        self.names = names
        self.pusher: Pusher | None = None
        self._pushed: dict[tuple[str, int], float] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        missing = mail_missing(self.settings)
        if self.settings.smtp_host and missing:  # (meant to send mail, but cannot: say why, once)
            log.warning("e-mail is off: the settings need %s", missing)
        pem = await self.run(self.addresses.vapid_key, new_private_pem())
        self.pusher = Pusher(pem, self.settings.push_contact, self.settings.push_ttl)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.pusher is not None:
            await self.pusher.close()

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """A database call, off the event loop."""
        return await asyncio.to_thread(function, *args)

    async def settle(self) -> None:
        """Wait until every mail and push under way is sent (tests)."""
        while self._tasks:
            await asyncio.wait(list(self._tasks))

    def later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task of its own (a mail or a push: nobody waits on it, and what goes
        wrong in it is logged, never raised into a table)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            # (the database went away meanwhile, say: the next move tells again)
            log.warning("a notification was not sent: %s", type(error).__name__)

    async def _move_mails_to(self, account: int) -> Email | None:
        """The account's address, if it is confirmed, takes "your move" mails, and mail goes out."""
        email = await self.run(self.addresses.email_of, account)
        if email is None or not email.confirmed or not email.move_mails or not self.mailer.enabled:
            return None
        return email

    # ------------------------------------------------------------------ links

    def link(self, fragment: str) -> str:
        """An address in the web client. Always the configured public address, never the one a
        request came to: a request's ``Host`` is whatever its sender wrote, and a reset link to
        another site would hand it the token."""
        return f"{self.settings.public_url.rstrip('/')}/#/{fragment}"

    def unsubscribe_link(self, user_id: int, email: Email) -> str:
        root = self.settings.public_url.rstrip("/")
        return f"{root}/api/notify/unsubscribe?user={user_id}&key={quote(email.unsubscribe_key)}"

    # ------------------------------------------------------------------ mails asked for

    def require_mail(self) -> None:
        if not self.mailer.enabled:
            raise NotifyError("this server sends no e-mail", "notify-no-mail", status=404)

    async def confirm_address(self, user_id: int, name: str, address: str, lang: str = "en") -> bool:
        """Keep ``address`` (unconfirmed) and mail it the link that confirms it."""
        self.require_mail()
        token = secrets.token_urlsafe(32)
        period = self.settings.mail_link_seconds
        await self.run(self.addresses.set_address, user_id, address, token, self.clock.wall() + period, lang)
        link = self.link(f"mail/confirm?token={token}")
        return await self.mailer.send(address, *mail_text(lang, "Confirm", name=name, link=link, hours=f"{period / 3600:g}"))

    async def reset_password(self, user_id: int, name: str) -> None:
        """Mail a password-reset link to the account's confirmed address, if it has one."""
        email = await self.run(self.addresses.email_of, user_id)
        if email is None or not email.confirmed:
            return
        token = secrets.token_urlsafe(32)
        period = self.settings.mail_link_seconds
        await self.run(self.addresses.add_reset, user_id, token, self.clock.wall() + period)
        link = self.link(f"mail/reset?token={token}")
        await self.mailer.send(email.address, *mail_text(email.lang, "Reset", name=name, link=link, hours=f"{period / 3600:g}"))

    # ------------------------------------------------------------------ told by the tables

    def move_due(self, code: str, accounts: list[int], step: float, still: Callable[[], list[int]]) -> None:
        """Decision ``step`` of turn-based table ``code`` waits for ``accounts`` (none of their
        sockets at the table): each is told once per decision, if after ``Settings.move_notice_delay``
        the decision still waits for them, absent (``still()``). Called under the table's lock."""
        fresh = [a for a in accounts if self._pushed.get((code, a)) != step]
        if not fresh:
            return
        if len(self._pushed) > REMEMBERED:
            self._pushed.clear()
        for account in fresh:
            self._pushed[(code, account)] = step
        self.later(self._tell_move(code, fresh, still))

    async def _tell_move(self, code: str, accounts: list[int], still: Callable[[], list[int]]) -> None:
        await self.clock.sleep(self.settings.move_notice_delay)
        waiting = still()
        accounts = [account for account in accounts if account in waiting]
        names = await self.run(self.names, accounts) if accounts else {}
        for account in accounts:
            await self.push(account, {"kind": "move", "table": code, "url": f"/#/t/{code}"})
            email = await self._move_mails_to(account)
            if email is None or not await self.run(self.addresses.move_mail_due, account, code, self.clock.wall(),
                                                    self.settings.move_mail_period):
                continue
            subject, text = mail_text(email.lang, "Move", name=names.get(account, ""), table=code,
                                      link=self.link(f"t/{code}"), unsubscribe=self.unsubscribe_link(account, email))
            await self.mailer.send(email.address, subject, text, self._unsubscribe_headers(account, email))

    def challenged(self, account: int, by: str, code: str) -> None:
        """``by`` challenged the account to the game at table ``code``: pushed, and mailed."""
        self.later(self._tell_challenge(account, by, code))

    async def _tell_challenge(self, account: int, by: str, code: str) -> None:
        await self.push(account, {"kind": "challenge", "table": code, "from": by, "url": f"/#/t/{code}"})
        email = await self._move_mails_to(account)
        if email is None:
            return
        names = await self.run(self.names, [account])
        subject, text = mail_text(email.lang, "Challenge", name=names.get(account, ""), by=by,
                                  link=self.link(f"t/{code}"), unsubscribe=self.unsubscribe_link(account, email))
        await self.mailer.send(email.address, subject, text, self._unsubscribe_headers(account, email))

    def _unsubscribe_headers(self, account: int, email: Email) -> dict[str, str]:
        # RFC 8058: a mail client's own "unsubscribe" button POSTs to this address, in one click
        return {"List-Unsubscribe": f"<{self.unsubscribe_link(account, email)}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}

    async def push(self, account: int, news: dict[str, Any]) -> int:
        """Push ``news`` (its ``kind``, ``table``, ``url`` and who it is ``from``) to each browser the
        account subscribed, with a title and text in the language it subscribed in; returns how many
        push services took it."""
        if self.pusher is None:
            return 0
        delivered = 0
        key = "notify.pushMove" if news["kind"] == "move" else "notify.pushChallenge"
        for subscription in await self.run(self.addresses.subscriptions, account):
            lang = subscription.lang
            payload = {**news, "title": "6 nimmt! " + phrase(lang, f"{key}Title"),
                       "body": phrase(lang, key, table=news["table"], name=news.get("from", ""))}
            result = await self.pusher.push(subscription, payload, self.clock.wall())
            if result is None:
                await self.run(self.addresses.drop_endpoint, subscription.endpoint)
            delivered += bool(result)
        return delivered
