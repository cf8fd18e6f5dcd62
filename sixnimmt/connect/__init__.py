"""Bots online: ``sixnimmt bot connect`` plays any bot the registry knows on a server, through its
Bot API (docs/bot-api.md): one WebSocket, the local bot protocol's messages with a game id."""

from .client import AcceptPolicy, BotClient, ConnectError, Seek, backoff, connect_url
from .games import GameStatus, RemoteGame

__all__ = ["AcceptPolicy", "BotClient", "ConnectError", "GameStatus", "RemoteGame", "Seek", "backoff", "connect_url"]
