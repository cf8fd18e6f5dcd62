"""Seats: how a host lets bots play. The registry builds bots from specs (``expert:samples=400``,
``cmd:python3 mybot.py``); a :class:`GuardedSeat` asks one for its decisions and always gets a legal
answer; :func:`play_game` drives a whole game with them.

This package sits above the bots, the bot protocol and the learned bot: it imports them only when a
bot is built, so ``make_bot("random")`` loads neither numba nor gymnasium.
"""

from ..protocol.faults import BotFaultError, Fault, FaultKind
from .guarded import Clock, GuardedSeat
from .play import play_game
from .registry import (
    HINT_LEVEL,
    LEVELS,
    BotSpec,
    Option,
    UnknownBotError,
    available,
    check_bot,
    entries,
    make_bot,
    parse_spec,
    prefixes,
    register,
    register_prefix,
    unregister,
)

__all__ = [
    "HINT_LEVEL", "LEVELS", "BotFaultError", "BotSpec", "Clock", "Fault", "FaultKind", "GuardedSeat", "Option",
    "UnknownBotError", "available", "check_bot", "entries", "make_bot", "parse_spec", "play_game",
    "prefixes", "register", "register_prefix", "unregister",
]
