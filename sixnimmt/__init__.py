"""sixnimmt: 6 nimmt! done right. The rules live in :mod:`sixnimmt.core`."""

__version__ = "0.1.0"
