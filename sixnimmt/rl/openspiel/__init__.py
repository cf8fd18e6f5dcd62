"""6 nimmt! in OpenSpiel (docs/rl.md, "OpenSpiel"): the game, and bots across the two worlds.

* :mod:`sixnimmt.rl.openspiel.game` registers the game ``sixnimmt`` with ``pyspiel.register_game``
  on import: every variant of the engine, a game parameter per rule, played by the engine itself.
* :mod:`sixnimmt.rl.openspiel.bots`: our bots as ``pyspiel.Bot`` objects (:func:`openspiel_bot`
  is the other way round: an OpenSpiel algorithm as one of our bots, the spec ``openspiel:ismcts``).

Everything here needs the optional ``openspiel`` extra (``pip install 'sixnimmt[openspiel]'``); the
rest of the package never imports it, so it works without.
"""

from __future__ import annotations

from typing import Any

MISSING = "the OpenSpiel game needs the openspiel extra: pip install 'sixnimmt[openspiel]'"


def require_pyspiel() -> None:
    """Raise ``ImportError`` with the way to install OpenSpiel unless ``pyspiel`` imports."""
    try:
        import pyspiel  # noqa: F401
    except ImportError as error:
        raise ImportError(MISSING) from error


def openspiel_bot(argument: str, seed: int | None) -> Any:
    """The bot of the spec ``openspiel:ALGORITHM[:key=value...]`` (the registry's prefix factory):
    ``ValueError`` with the way to install OpenSpiel when the extra is missing, or naming the valid
    algorithms and keys."""
    try:
        require_pyspiel()
    except ImportError as error:
        raise ValueError(str(error)) from None
    from .bots import openspiel_bot as build

    return build(argument, seed)
