"""Bots: the interface, the registry and the built-in players."""

from .base import Bot
from .registry import UnknownBotError, available, make_bot, register, register_prefix
from .runner import play_game

__all__ = ["Bot", "UnknownBotError", "available", "make_bot", "play_game", "register", "register_prefix"]
