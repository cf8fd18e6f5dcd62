"""A finished rated game's rating changes, seat by seat, for the Game over screen: each rated seat's
rating before and after the game, and whether it is still provisional (fewer rated games in the
variant than :data:`~sixnimmt.server.accounts.ratings.PROVISIONAL_GAMES`, this one counted), as
lichess and BGA show them the moment a game ends. Read from the rows the game's own transaction
wrote (``record_game``), so the answer is there as soon as the game is."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..accounts.account_rows import GamePlayerRow, RatingHistoryRow
from ..accounts.ratings import PROVISIONAL_GAMES, display


def rating_changes(engine: Engine, game_id: int, seats: int) -> dict[str, Any]:
    """``{"rated": …, "seats": [change or None, …]}`` for game ``game_id`` of ``seats`` seats; a
    change is ``{"before", "after", "delta", "provisional", "provisional_before"}`` (a seat played under no account, or a
    casual game's, has none)."""
    with Session(engine) as session:
        players = session.scalars(select(GamePlayerRow).where(GamePlayerRow.game_id == game_id)).all()
        history = {h.user_id: h for h in session.scalars(
            select(RatingHistoryRow).where(RatingHistoryRow.game_id == game_id))}
        changes: list[dict[str, Any] | None] = [None] * seats
        for player in players:
            entry = history.get(player.user_id)
            if entry is None or not 0 <= player.seat < seats:
                continue
            # (its rated games in the variant up to this one: the provisional mark as it was then)
            games = session.scalar(select(func.count()).select_from(RatingHistoryRow).where(
                RatingHistoryRow.user_id == entry.user_id, RatingHistoryRow.variant == entry.variant,
                RatingHistoryRow.id <= entry.id)) or 0
            before, after = display(entry.mu_before, entry.sigma_before), display(entry.mu, entry.sigma)
            changes[player.seat] = {"before": before, "after": after, "delta": after - before,
                                    "provisional": games < PROVISIONAL_GAMES,
                                    "provisional_before": games - 1 < PROVISIONAL_GAMES}
    return {"rated": any(c is not None for c in changes), "seats": changes}
