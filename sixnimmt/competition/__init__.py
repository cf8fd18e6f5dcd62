"""Competitions between many entrants at tables of several players: who sits with whom each round,
and how results at the tables become standings.

Pure functions over entrant numbers and penalties, with no game, no bot and no database in them, so
the command line (``sixnimmt tournament``, through the arena) and a server can share them:

- :mod:`.swiss`: Swiss tables: entrants grouped by standing, repeat table-mates avoided where
  possible, the seats left over given to fill players who score nothing.
- :mod:`.standings`: placement points at a table, duplicate scores (each entrant against everyone
  who held the same hand in the same seat at another table of the round), and the standings with
  their tie-breaks.

It imports nothing else of the project.
"""

from .standings import (
    DuplicateResult,
    Standing,
    TableResult,
    duplicate_results,
    placement_points,
    rank,
)
from .swiss import FILL, Table, swiss_tables

__all__ = [
    "FILL", "DuplicateResult", "Standing", "Table", "TableResult", "duplicate_results",
    "placement_points", "rank", "swiss_tables",
]
