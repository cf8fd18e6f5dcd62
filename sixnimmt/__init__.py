"""sixnimmt: 6 nimmt! done right, as a Python library (docs/python.md).

The names below are the library's public API, each importable from ``sixnimmt`` itself::

    from sixnimmt import Game, Rules, GuardedSeat, make_bot, play_game

* The rules (:mod:`sixnimmt.core`): :class:`Game` (the checked engine), :class:`Rules` (players,
  variant, target...), :data:`VARIANT_NAMES`, what a seat sees (:class:`PlayerView`,
  :class:`Decision`, :class:`DecisionKind`, :data:`PASS`), :func:`bullheads` (a card's penalty) and the errors (:class:`IllegalMoveError`,
  :class:`RecordError`, :class:`RulesError`).
* Game records (:mod:`sixnimmt.core.record`, docs/record-format.md): :func:`load_record` reads a
  file, :func:`replay` checks a record by replaying it and returns a :class:`ReplayResult`.
* Bots (:mod:`sixnimmt.bots`, :mod:`sixnimmt.seats`): the :class:`Bot` interface; :func:`make_bot`
  builds one by spec (``"expert"``, ``"expert:samples=400"``, ``"cmd:python3 mybot.py"``);
  :func:`register` and :func:`unregister` add and remove your own; :class:`GuardedSeat` asks a bot
  and always gets a legal answer; :func:`play_game` plays a whole game with seats.
* The arena (:mod:`sixnimmt.arena`, docs/arena.md): :func:`run_arena` plays an
  :class:`ArenaConfig` and returns an :class:`ArenaReport`.
* Reinforcement learning (:mod:`sixnimmt.rl`, docs/rl.md): :class:`SixNimmtEnv` (Gymnasium),
  :class:`SixNimmtParallelEnv` (PettingZoo), :class:`SixNimmtBatch` and :class:`SixNimmtVectorEnv`
  (N games in compiled arrays).

Every name is imported on first use, so ``import sixnimmt`` loads nothing but this module: a
program that only plays games never loads numba, gymnasium or the arena.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .arena import ArenaConfig, ArenaReport, run_arena
    from .bots import Bot
    from .core import (
        PASS,
        VARIANT_NAMES,
        Decision,
        DecisionKind,
        Game,
        IllegalMoveError,
        PlayerView,
        RecordError,
        Rules,
        RulesError,
        bullheads,
    )
    from .core.record import ReplayResult, replay
    from .core.record import load as load_record
    from .rl import SixNimmtBatch, SixNimmtEnv, SixNimmtParallelEnv, SixNimmtVectorEnv
    from .seats import GuardedSeat, available, make_bot, play_game, register, unregister

#: Public name -> (module, attribute there).
_EXPORTS: dict[str, tuple[str, str]] = {
    **{name: ("sixnimmt.core", name) for name in (
        "Game", "Rules", "VARIANT_NAMES", "bullheads", "PlayerView", "Decision", "DecisionKind", "PASS",
        "IllegalMoveError", "RecordError", "RulesError",
    )},
    "replay": ("sixnimmt.core.record", "replay"),
    "load_record": ("sixnimmt.core.record", "load"),
    "ReplayResult": ("sixnimmt.core.record", "ReplayResult"),
    "Bot": ("sixnimmt.bots", "Bot"),
    **{name: ("sixnimmt.seats", name) for name in (
        "make_bot", "register", "unregister", "available", "GuardedSeat", "play_game",
    )},
    **{name: ("sixnimmt.arena", name) for name in ("ArenaConfig", "ArenaReport", "run_arena")},
    **{name: ("sixnimmt.rl", name) for name in (
        "SixNimmtEnv", "SixNimmtParallelEnv", "SixNimmtBatch", "SixNimmtVectorEnv",
    )},
}  # fmt: skip

__all__ = [
    "PASS", "VARIANT_NAMES", "ArenaConfig", "ArenaReport", "Bot", "Decision", "DecisionKind", "Game",
    "GuardedSeat", "IllegalMoveError", "PlayerView", "RecordError", "ReplayResult", "Rules", "RulesError",
    "SixNimmtBatch", "SixNimmtEnv", "SixNimmtParallelEnv", "SixNimmtVectorEnv", "__version__", "available", "bullheads",
    "load_record", "make_bot", "play_game", "register", "replay", "run_arena", "unregister",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562), so that ``import sixnimmt`` stays cheap."""
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value  # the next lookup is a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
