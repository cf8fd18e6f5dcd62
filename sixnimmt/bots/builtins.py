"""Registers the built-in bots. Each bot module adds one line here."""

from __future__ import annotations

from .random_bot import RandomBot
from .registry import register

register("random", RandomBot, "plays a uniformly random legal move")

# Difficulty levels for people (mapped to real bots below as they land).
register("easy", RandomBot, "difficulty level: easy")
register("medium", RandomBot, "difficulty level: medium")
register("hard", RandomBot, "difficulty level: hard")
register("expert", RandomBot, "difficulty level: expert")
