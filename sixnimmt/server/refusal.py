"""A request the server refuses, and why: one type for every door (a table's WebSocket, the HTTP API,
the Bot API's WebSocket), so a refusal keeps its reason and parameters wherever it goes.

``code`` names the reason for the client to translate, ``params`` fill its text in, and the English
``str(refusal)`` stays readable for scripts and logs. A refusal knows its HTTP status (its class's,
or the one it was made with) and how each door says it: :meth:`Refusal.to_message` on a table's
socket, :meth:`Refusal.body` over HTTP, :meth:`Refusal.to_bot_message` on the Bot API's socket."""

from __future__ import annotations

import copy
from typing import Any, Self


class Refusal(ValueError):
    """A request that cannot be met; nothing changed, and the message is safe to show."""

    #: The HTTP status of a refusal of this kind (a route that knows better gives its own).
    status = 409

    def __init__(self, message: str, code: str, *, status: int | None = None,
                 headers: dict[str, str] | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
        if status is not None:
            self.status = status
        #: HTTP headers of the answer (``Retry-After``).
        self.headers = headers

    def with_status(self, status: int) -> Self:
        """The same refusal, answered over HTTP with ``status``."""
        other = copy.copy(self)
        other.status = status
        return other

    def to_message(self) -> dict[str, Any]:
        """The refusal on a table's WebSocket (docs/web.md, "Error codes")."""
        return {"type": "error", "code": self.code, "params": self.params, "message": str(self)}

    def body(self) -> dict[str, Any]:
        """The refusal's HTTP body (with :attr:`status` and :attr:`headers`)."""
        return {"detail": str(self), "code": self.code, "params": self.params}

    def to_bot_message(self) -> dict[str, Any]:
        """The refusal on the Bot API's WebSocket (docs/bot-api.md): its parameters beside its code."""
        return {"type": "error", "code": self.code, "message": str(self), **self.params}
