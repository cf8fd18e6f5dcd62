"""Errors a caller can cause. Every one is a ``ValueError`` whose message names what was wrong."""

from __future__ import annotations


class SixNimmtError(ValueError):
    """Base of every error a user of the engine can cause."""


class RulesError(SixNimmtError):
    """Invalid game options: player count, variant, target, end rule..."""


class IllegalMoveError(SixNimmtError):
    """A decision that the rules do not allow now. The game state is unchanged."""


class RecordError(SixNimmtError):
    """A game record that is malformed or does not replay."""
