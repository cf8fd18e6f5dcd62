"""6 nimmt! in the terminal (Textual): ``sixnimmt play``, and ``sixnimmt replay show FILE --tui``."""

from .app import SixNimmtApp
from .config import GameConfig, Seat, parse_opponents

__all__ = ["GameConfig", "Seat", "SixNimmtApp", "parse_opponents"]
