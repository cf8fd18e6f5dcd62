"""Mail out through the SMTP server the settings name (``aiosmtplib``): the confirmation of an
address, the password-reset link, and "your move" at a turn-based table with its one-click
unsubscribe (RFC 8058's ``List-Unsubscribe`` and ``List-Unsubscribe-Post`` headers, and a link in
the text). The texts are the client's strings (``notify.mail…``) in the address's language. Without an SMTP host the server sends no mail and the client hides the e-mail features."""

from __future__ import annotations

import logging
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, make_msgid, parseaddr

import aiosmtplib

from ..config import Settings

log = logging.getLogger("sixnimmt.server")


#: SMTP's line ending and RFC 5322's longest line: a header holding a long link stays one line, as
#: mail clients read ``List-Unsubscribe`` (folded, it would be encoded into something they cannot).
HEADERS_AS_THEY_ARE = SMTP.clone(max_line_length=998)


#: How the connection to the SMTP server is secured: STARTTLS, implicit TLS, or not at all.
SECURITY = ("starttls", "tls", "none")


def mail_enabled(settings: Settings) -> bool:
    """Mail goes out when the settings name an SMTP server, a sender, the server's public address
    (which the links in mails start with) and one of the :data:`SECURITY` modes."""
    return not mail_missing(settings)


def mail_missing(settings: Settings) -> str:
    """What the settings lack for mail to go out ("" when nothing does)."""
    missing = [name for name, value in (("SIXNIMMT_SMTP_HOST", settings.smtp_host),
                                        ("SIXNIMMT_SMTP_FROM", parseaddr(settings.smtp_from)[1]),
                                        ("SIXNIMMT_PUBLIC_URL", settings.public_url)) if not value]
    if settings.smtp_security not in SECURITY:
        missing.append(f"SIXNIMMT_SMTP_SECURITY as one of {', '.join(SECURITY)} (not {settings.smtp_security!r})")
    return ", ".join(missing)


class Mailer:
    """Sends one message at a time through the configured SMTP server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def enabled(self) -> bool:
        return mail_enabled(self.settings)

    async def send(self, to: str, subject: str, text: str, headers: dict[str, str] | None = None) -> bool:
        """Send a plain-text mail; False (logged, without the address) if the server refused it
        or could not be reached: a mail is a courtesy, never a reason for a request to fail."""
        sender = parseaddr(self.settings.smtp_from)[1]  # ("6 nimmt! <game@example.org>": the address)
        message = EmailMessage()
        message["From"] = self.settings.smtp_from
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
        message["Auto-Submitted"] = "auto-generated"  # (RFC 3834: no out-of-office replies)
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(text)
        security = self.settings.smtp_security
        try:
            await aiosmtplib.send(
                message.as_bytes(policy=HEADERS_AS_THEY_ARE),  # (flattened here: see the policy)
                sender=sender,
                recipients=[to],
                hostname=self.settings.smtp_host,
                port=self.settings.smtp_port,
                username=self.settings.smtp_user or None,
                password=self.settings.smtp_password or None,
                use_tls=security == "tls",
                start_tls=True if security == "starttls" else False,
                timeout=30,
            )
        except (aiosmtplib.SMTPException, OSError) as error:
            log.warning("a mail was not sent: %s", type(error).__name__)
            return False
        return True
