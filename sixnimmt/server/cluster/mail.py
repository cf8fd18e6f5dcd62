"""The messages between server processes, typed as the browser's are: a tagged union of small
records, each named on the wire by its ``t``. A forwarding process tells the owner of a table about
its sockets there (:class:`Open`, :class:`Frame`, :class:`Close`); the owner answers each socket
(:class:`Push`, :class:`Gone`, :class:`Refuse`, each with the owner's epoch, so that a stale owner's
is ignored); any process asks another to run a call (:class:`Ask`) and gets its :class:`Reply`.

Messages travel in batches (:func:`encode_batch`): a message pushed to several sockets of the
receiving process travels once, and its text is the one the owner already made for its own sockets."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import orjson

from ..calls import RemoteCall, call_from_dict, call_to_dict
from ..wire import Outbound, to_json, wire_text


@dataclass(frozen=True, slots=True)
class Open:
    """A socket of the sender, holding ``token`` (None: a spectator), opens at table ``code``; the
    owner's ``epoch`` as the sender last heard it, and the client's ``address`` (its budgets)."""

    t: ClassVar[str] = "open"
    code: str
    conn: int
    token: str | None
    epoch: int
    address: str


@dataclass(frozen=True, slots=True)
class Frame:
    """What the sender's socket ``conn`` sent (None: a binary frame, refused by the table)."""

    t: ClassVar[str] = "frame"
    code: str
    conn: int
    text: str | None


@dataclass(frozen=True, slots=True)
class Close:
    """The sender's socket ``conn`` at table ``code`` closed."""

    t: ClassVar[str] = "close"
    code: str
    conn: int


@dataclass(frozen=True, slots=True)
class Push:
    """The owner's ``message`` for the receiver's socket ``conn``."""

    t: ClassVar[str] = "push"
    conn: int
    message: dict[str, Any]
    epoch: int


@dataclass(frozen=True, slots=True)
class Gone:
    """The table left the owner: the receiver's socket ``conn`` reconnects."""

    t: ClassVar[str] = "gone"
    conn: int
    epoch: int


@dataclass(frozen=True, slots=True)
class Refuse:
    """The owner refused the receiver's socket ``conn`` (``message`` says why) and closes it."""

    t: ClassVar[str] = "refuse"
    conn: int
    message: dict[str, Any]
    close_code: int
    epoch: int


@dataclass(frozen=True, slots=True)
class Ask:
    """Run ``call`` (about table ``code``, or the receiver itself) and reply to ``id``; a call that
    arrives after ``deadline`` (the wall clock) is not acted on."""

    t: ClassVar[str] = "ask"
    id: int
    code: str
    call: RemoteCall
    deadline: float


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to the sender's :class:`Ask` ``id``: ``{"result": ...}`` or ``{"error": ...}``."""

    t: ClassVar[str] = "reply"
    id: int
    answer: dict[str, Any]


Mail = Open | Frame | Close | Push | Gone | Refuse | Ask | Reply
#: What an owner sends one forwarded socket (each carries the owner's epoch).
FromOwner = Push | Gone | Refuse
KINDS: dict[str, type[Mail]] = {cls.t: cls for cls in (Open, Frame, Close, Push, Gone, Refuse, Ask, Reply)}


def encode_batch(sender: str, items: list[Mail]) -> str:
    """``items`` from ``sender`` as one JSON text."""
    texts: list[str] = []
    index: dict[int, int] = {}
    parts: list[str] = []
    for item in items:
        if type(item) is Push:
            number = index.get(id(item.message))  # (the items hold every message alive meanwhile)
            if number is None:
                number = index[id(item.message)] = len(texts)
                texts.append(wire_text(item.message))
            parts.append(f'{{"t":"push","conn":{int(item.conn)},"message":{number},"epoch":{int(item.epoch)}}}')
        else:
            fields_ = {f.name: getattr(item, f.name) for f in fields(item)}
            if type(item) is Ask:
                fields_["call"] = call_to_dict(item.call)
            parts.append(to_json({"t": item.t, **fields_}))
    return f'{{"from":{to_json(sender)},"messages":[{",".join(texts)}],"items":[{",".join(parts)}]}}'


def decode_batch(text: str) -> tuple[str, list[Mail]]:
    """The sender and the messages of a batch (:class:`ValueError` for one that is not a batch)."""
    try:
        batch = orjson.loads(text)
        messages = [Outbound(message) for message in batch["messages"]]
        items: list[Mail] = []
        for raw in batch["items"]:
            kind = KINDS[raw.pop("t")]
            if kind is Push:
                raw["message"] = messages[raw["message"]]
            elif kind is Ask:
                raw["call"] = call_from_dict(raw["call"])
            items.append(kind(**raw))
        return str(batch["from"]), items
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError) as error:
        raise ValueError(f"not a batch of messages between processes: {error!r}") from None
