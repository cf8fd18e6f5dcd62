"""Registers the built-in bots. Each bot module adds one line here."""

from __future__ import annotations

from .random_bot import RandomBot
from .registry import register

register("random", RandomBot, "plays a uniformly random legal move")
