"""The WebSocket of a table (``/ws/CODE``): one per player or spectator, served by the room that
drives the table, here or through the process that does."""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from fastapi import WebSocket

from ..cluster.peers import Cluster
from ..config import Settings
from ..limits import (
    AddressCount,
    RateLimits,
    client_address,
)
from ..sockets import SocketClient, pump
from ..tables.rooms import Rooms
from ..tables.table_setup import TableError
from ..wire import MOVED_CLOSE_CODE, ProtocolError
from .table_routes import take_lookup

log = logging.getLogger("sixnimmt.server")


# ---------------------------------------------------------------------- the WebSocket


#: WebSocket subprotocol of the game. Browsers send the seat token as a second subprotocol,
#: ``token.<TOKEN>``, so that it never appears in a URL (and so in no access log).
SUBPROTOCOL = "sixnimmt"


def _token_from_subprotocols(websocket: WebSocket) -> str | None:
    offered = websocket.headers.get("sec-websocket-protocol", "")
    for item in (part.strip() for part in offered.split(",")):
        if item.startswith("token."):
            return item.removeprefix("token.")
    return None


async def _refuse(websocket: WebSocket, error: dict[str, Any], close_code: int) -> None:
    await websocket.send_text(json.dumps(error))
    await websocket.close(code=close_code)


async def table_socket(websocket: WebSocket, code: str, token: str | None = None) -> None:
    """One player or spectator. The seat token comes as the ``token.<TOKEN>`` subprotocol (browsers)
    or the ``token`` query parameter (scripts); without one, the connection watches."""
    rooms: Rooms = websocket.app.state.rooms
    settings: Settings = websocket.app.state.settings
    addresses: AddressCount = websocket.app.state.socket_addresses
    header_token = _token_from_subprotocols(websocket)
    token = header_token or token
    await websocket.accept(subprotocol=SUBPROTOCOL if header_token or SUBPROTOCOL in
                           websocket.headers.get("sec-websocket-protocol", "") else None)
    address = client_address(websocket)
    now = rooms.clock.now()
    opens: RateLimits = websocket.app.state.socket_opens
    wait = opens.retry_after(address, now) or take_lookup(websocket, now)
    if wait:
        seconds = max(1, math.ceil(wait))
        log.info("refused a WebSocket from %s: over its budget of connections and lookups", address)
        await _refuse(websocket, TableError(
            f"too many connections or table lookups from your address: try again in {seconds} s",
            "rate-limited", retry_after=seconds, what="connections",
        ).to_message(), 4429)
        return
    if not addresses.acquire(address):
        limit = settings.max_connections_per_address
        log.warning("refused a WebSocket from %s: %d already open", address, limit)
        await _refuse(websocket, TableError(
            f"too many connections from your address (limit {limit})", "too-many-connections", limit=limit
        ).to_message(), 4429)
        return
    try:
        await _serve_socket(websocket, rooms, settings, code, token, address)
    finally:
        addresses.release(address)


async def _serve_socket(
    websocket: WebSocket, rooms: Rooms, settings: Settings, code: str, token: str | None, address: str
) -> None:
    try:
        target = await rooms.locate(code)
    except LookupError as error:
        websocket.app.state.lookups.missed(address, rooms.clock.now())
        await _refuse(websocket, {**TableError(str(error), "no-table", table=code[:8]).to_message(), "fatal": True}, 4404)
        return
    except TableError as error:  # changing hands between processes: the page retries
        await _refuse(websocket, error.to_message(), MOVED_CLOSE_CODE)
        return
    if isinstance(target, str):
        cluster = websocket.app.state.cluster
        assert cluster is not None
        await _forward_socket(websocket, cluster, target, code.strip().upper(), token, address, settings)
        return
    room = target
    client = SocketClient(websocket, None, settings.max_outbox_messages)
    try:
        await room.admit(client, token, address)
    except TableError as error:
        log.warning("refused a WebSocket from %s at table %s: %s", address, room.code, error)
        await _refuse(websocket, error.to_message(), 4429)
        return
    try:
        await pump(websocket, client, lambda text: room.receive(client, text, address))
    finally:
        await room.disconnect(client)


async def _forward_socket(
    websocket: WebSocket, cluster: Cluster, owner: str, code: str, token: str | None, address: str, settings: Settings
) -> None:
    """A socket at a table another process drives: its frames go to the owner, the owner's messages
    for this socket come back through the cluster; if this process takes the table over, the
    frames are handled here from then on."""
    client = SocketClient(websocket, None, settings.max_outbox_messages)
    link = cluster.link(code, owner, client, token, address)

    async def handle(text: str | None) -> None:
        if link.room is not None:
            await link.room.receive(client, text, address)
        elif text is not None and (size := len(text.encode())) > settings.max_message_bytes:
            # (checked here too: a frame travels to the owner inside one NOTIFY)
            client.push(ProtocolError(
                f"message too large: {size} bytes (limit {settings.max_message_bytes})",
                "too-large", size=size, limit=settings.max_message_bytes,
            ).to_message())
        else:
            cluster.forward(link, text)

    try:
        await pump(websocket, client, handle)
    finally:
        await cluster.unlink(link)
