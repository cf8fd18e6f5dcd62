"""The arena: duplicate-deal tournaments between any bots, with honest statistics.

``run_arena(ArenaConfig(bots=("random", "cmd:python3 mybot.py"), deals=200))`` plays the schedule
(in parallel processes with ``jobs``, or on Ray with ``backend="ray"``) and returns an
:class:`ArenaReport` (table, JSON, CSV, PNG).
"""

from .report import ArenaReport, BotStats, PairStats, Rating, summarise
from .runner import ArenaConfig, ArenaError, run_arena
from .schedule import DuplicateDealer, GameTask, Permutations, derive_seed, lineup, seatings
from .stats import Interval, mean_ci, paired_differences, t_quantile
from .worker import GameResult, play_task

__all__ = [
    "ArenaConfig", "ArenaError", "ArenaReport", "BotStats", "DuplicateDealer", "GameResult", "GameTask",
    "Interval", "PairStats", "Permutations", "Rating", "derive_seed", "lineup", "mean_ci",
    "paired_differences", "play_task", "run_arena", "seatings", "summarise", "t_quantile",
]
