"""The messages of the bot protocol, version 2 (docs/bot-protocol.md).

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
turn-result    no      ``deal``, ``turn``, ``seat_cards`` (``[seat, card]`` pairs: who played what),
                       ``plays`` and ``seat`` (as in the ``cards-revealed`` event), ``events``
                       (every public event of the turn)
deal-end       no      ``deal``, ``penalties``, ``totals``
game-end       no      ``totals``, ``winners``
bye            no      the host is done: exit
=============  ======  ==========================================================================

Replies: ``{"id": N, "type": "hello", "protocol": 2, "name": "..."}`` to ``hello`` and
``{"id": N, "move": X}`` to ``decide`` (one of ``view.decision.options``).

Version 2 added the variants of docs/rules.md §6: the decision kinds ``order`` (Nifty) and ``keep``
(Hand), the answer ``PASS`` (0), and the ``seat`` of a Hand turn. Everything a version-1 bot sees in
the four original variants is unchanged, so a bot that answers ``hello`` with protocol 1 still plays
those; the host refuses it for the new variants, whose decisions it would not know.
"""

from __future__ import annotations

import json
from typing import Any

from ..core import VARIANTS, PlayerView, Variant

PROTOCOL_VERSION = 2
#: Versions a bot may answer ``hello`` with.
SUPPORTED_VERSIONS = (1, 2)
#: The variants a version-1 bot can play (its messages there are exactly version 1's).
VERSION_1_VARIANTS = frozenset(v for v, spec in VARIANTS.items() if spec.protocol_version <= 1)
#: A line longer than this is garbage, not a reply (a full view is a few kilobytes).
MAX_LINE = 1 << 20


def speaks(version: int, variant: Variant) -> bool:
    """Whether a bot speaking protocol ``version`` can play ``variant``."""
    return version >= VARIANTS[variant].protocol_version


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


def turn_result(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A finished turn's public events, in order, with the turn's cards up front.

    ``seat_cards`` says who played which card, the same way in every variant. ``plays`` and
    ``seat`` are the ``cards-revealed`` event's, for bots written before ``seat_cards``: one card
    per seat, two per seat in Nifty (``plays[2 * seat]``, ``plays[2 * seat + 1]``), and in Hand the
    cards of the one player whose turn it was, named by ``seat``.
    """
    first = events[0]
    revealed = next((e for e in events if e["type"] == "cards-revealed"), None)
    message: dict[str, Any] = {
        "type": "turn-result",
        "deal": first["deal"],
        "turn": first["turn"],
        "seat_cards": [list(p) for p in revealed["seat_cards"]] if revealed is not None else [],
        "plays": list(revealed["plays"]) if revealed is not None else [],
    }
    if revealed is not None and revealed.get("seat") is not None:
        message["seat"] = revealed["seat"]
    message["events"] = events
    return message


def bye() -> dict[str, Any]:
    return {"type": "bye"}
