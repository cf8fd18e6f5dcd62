"""The messages of the bot protocol, version 1 (docs/bot-protocol.md).

Newline-delimited JSON, one object per line, UTF-8. The host sends; a message with an ``id`` wants a
reply carrying the same ``id``, every other message is a notification that needs no answer:

=============  ======  ==========================================================================
type           reply   content
=============  ======  ==========================================================================
hello          yes     ``protocol``, ``name`` (the host's name for the bot), ``seed``
game-start     no      ``seat``, ``seats``, ``rules``
deal-start     no      ``deal``, ``rows``
decide         yes     ``view``: the complete :meth:`PlayerView.to_dict` (``view.decision`` says
                       what is asked and lists the legal ``options``)
turn-result    no      ``deal``, ``turn``, ``plays`` (card per seat), ``events`` (placements, takes)
deal-end       no      ``deal``, ``penalties``, ``totals``
game-end       no      ``totals``, ``winners``
bye            no      the host is done: exit
=============  ======  ==========================================================================

Replies: ``{"id": N, "type": "hello", "protocol": 1, "name": "..."}`` to ``hello`` and
``{"id": N, "move": X}`` to ``decide`` (a card, a row index or a draft card, one of the options).
"""

from __future__ import annotations

import json
from typing import Any

from ..core import PlayerView

PROTOCOL_VERSION = 1
#: A line longer than this is garbage, not a reply (a full view is a few kilobytes).
MAX_LINE = 1 << 20


def encode(message: dict[str, Any]) -> str:
    """One protocol line (compact JSON, ``\\n``-terminated)."""
    return json.dumps(message, separators=(",", ":")) + "\n"


def hello(request_id: int, name: str, seed: int | None) -> dict[str, Any]:
    return {"type": "hello", "id": request_id, "protocol": PROTOCOL_VERSION, "name": name, "seed": seed}


def game_start(view: PlayerView) -> dict[str, Any]:
    return {
        "type": "game-start",
        "seat": view.seat,
        "seats": list(view.seats),
        "rules": view.rules.to_dict(),
    }


def decide(request_id: int, view: PlayerView) -> dict[str, Any]:
    return {"type": "decide", "id": request_id, "view": view.to_dict()}


def bye() -> dict[str, Any]:
    return {"type": "bye"}
