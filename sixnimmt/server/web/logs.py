"""Secrets never reach a log: seat, invitation and unsubscribe tokens are cut out of every line the
server and uvicorn write (a script's ``?token=`` in a WebSocket URL, an invitation link, the
``token.`` subprotocol, a mail's unsubscribe link), whatever the handler or format the operator
configured."""

from __future__ import annotations

import logging
import re

#: A token in a query string (``token=``, ``invite=``, a mail's unsubscribe ``key=``) or in the
#: WebSocket subprotocol (``token.``).
SECRET = re.compile(r"(?i)\b(token=|invite=|key=|token\.)[^&\s\"',;]+")
REDACTED = r"\1[redacted]"
#: A Bot API token (docs/bot-api.md) anywhere in a line: its first 8 characters stay.
BOT_TOKEN = re.compile(r"\b(snb_[A-Za-z0-9_-]{4})[A-Za-z0-9_-]+")

#: The loggers whose lines can carry a URL or headers.
LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn.asgi", "uvicorn", "sixnimmt.server")


def redact(text: str) -> str:
    return BOT_TOKEN.sub(r"\1...", SECRET.sub(REDACTED, text))


class RedactSecrets(logging.Filter):
    """Rewrites a record with every token replaced by ``[redacted]``: the access log's arguments
    one by one (its formatter reads them by position), any other record as its finished message
    (its arguments may be whole ASGI scopes, with the query string as bytes)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        else:
            record.msg, record.args = redact(record.getMessage()), None
        return True


def redact_secrets_in_logs() -> None:
    """Put the filter on every logger that can carry a URL (once, however often it is called)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
