"""Bots by name: ``make_bot("random", seed=1)``. Other modules register theirs with :func:`register`."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot

BotFactory = Callable[[int | None], Bot]

_REGISTRY: dict[str, tuple[BotFactory, str]] = {}


class UnknownBotError(ValueError):
    """A bot name that no registered bot answers to."""


def register(name: str, factory: BotFactory, description: str) -> None:
    _REGISTRY[name] = (factory, description)


def _ensure_builtins() -> None:
    # Imported here, not at module top, so that each bot module can import the registry itself.
    from . import builtins  # noqa: F401


def available() -> dict[str, str]:
    """Registered names with a one-line description each."""
    _ensure_builtins()
    return {name: desc for name, (_, desc) in sorted(_REGISTRY.items())}


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """Build a bot from its name (or ``cmd:COMMAND LINE`` for an external program)."""
    _ensure_builtins()
    if spec in _REGISTRY:
        bot = _REGISTRY[spec][0](seed)
        bot.name = spec
        return bot
    if spec.startswith("cmd:"):
        factory = _REGISTRY.get("cmd:")
        if factory is None:
            raise UnknownBotError("external bots (cmd:...) are not available in this build")
        bot = factory[0](seed)
        return bot
    known = ", ".join(sorted(n for n in _REGISTRY if n != "cmd:"))
    raise UnknownBotError(f"unknown bot {spec!r}: choose one of {known}, or cmd:COMMAND")
