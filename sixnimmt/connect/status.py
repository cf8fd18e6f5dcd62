"""The status of ``sixnimmt bot connect``: a line for the connection, then one line per game."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from .client import BotClient
from .games import GameStatus

#: Finished games still shown under those in progress.
FINISHED_SHOWN = 3


def game_line(status: GameStatus) -> str:
    """``K7QF  standard, 4 players, seat 2  deal 1 turn 5  12 bullheads (best 7)  23 moves, last 41 ms``."""
    parts = [status.game]
    if status.rules is not None:
        seat = f", seat {status.seat + 1}" if status.seat is not None else ""
        parts.append(f"{status.rules.variant.value}, {status.rules.players} players{seat}")
    if status.winners is not None:
        parts.append("left" if status.left else "over")
    elif status.left:
        parts.append("left: the server's fallback plays")
    else:
        parts.append(f"deal {status.deal + 1} turn {status.turn + 1}")
    if status.totals and status.seat is not None and status.seat < len(status.totals):
        own = status.totals[status.seat]
        others = [t for s, t in enumerate(status.totals) if s != status.seat]
        best = f" (best other {min(others)})" if others else ""
        parts.append(f"{own} bullheads{best}")
        if status.winners:
            parts.append("won" if status.seat in status.winners else "lost")
    last = f"{status.last_ms:.0f}" if status.last_ms >= 10 else f"{status.last_ms:.1f}"
    parts.append(f"{status.decisions} moves, last {last} ms")
    if status.faults:
        parts.append(f"{status.faults} faults")
    return "  ".join(parts)


def header(client: BotClient) -> str:
    who = client.bot or "bot"
    playing = f"{len(client.games)} game{'s' if len(client.games) != 1 else ''}"
    return f"{who} ({client.spec}) at {client.url}: {client.state}, {playing}, {len(client.finished)} finished"


def render(client: BotClient) -> Group:
    """What the live display shows now."""
    lines = [Text(header(client), style="bold")]
    lines += [Text(game_line(game.status)) for game in list(client.games.values())]
    lines += [Text(game_line(game.status), style="dim") for game in client.finished[-FINISHED_SHOWN:]]
    return Group(*lines)
