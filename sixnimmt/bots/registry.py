"""Bots by name: ``make_bot("random", seed=1)``. Other modules register theirs with :func:`register`."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot

BotFactory = Callable[[int | None], Bot]
#: Builds a bot from a ``PREFIX:ARGUMENT`` spec, e.g. ``cmd:python3 mybot.py``: (argument, seed) -> Bot
PrefixFactory = Callable[[str, int | None], Bot]

_REGISTRY: dict[str, tuple[BotFactory, str]] = {}
_PREFIXES: dict[str, tuple[PrefixFactory, str]] = {}


class UnknownBotError(ValueError):
    """A bot name that no registered bot answers to."""


def register(name: str, factory: BotFactory, description: str) -> None:
    _REGISTRY[name] = (factory, description)


def register_prefix(prefix: str, factory: PrefixFactory, description: str) -> None:
    """Register a family of bots addressed as ``PREFIX:ARGUMENT`` (``cmd:`` for external programs)."""
    _PREFIXES[prefix] = (factory, description)


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
    prefix, sep, argument = spec.partition(":")
    if sep and prefix in _PREFIXES:
        if not argument.strip():
            raise UnknownBotError(f"bot {spec!r} needs something after '{prefix}:'")
        bot = _PREFIXES[prefix][0](argument, seed)
        bot.name = spec
        return bot
    known = ", ".join(sorted(_REGISTRY))
    prefixes = ", ".join(f"{p}:..." for p in sorted(_PREFIXES))
    raise UnknownBotError(f"unknown bot {spec!r}: choose one of {known}" + (f", or {prefixes}" if prefixes else ""))
