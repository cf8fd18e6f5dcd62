"""Voiding a rated game (docs/web.md, "Moderation"): every rating it changed, and every rating
changed after it by a game with one of those players, becomes what it would be had the game not
been played.

Ratings are a chain: each game's new ratings start from its players' ratings before it. So the
variant's rating history is replayed from the start, game by game in the order they were rated,
without the voided games, each through the ratings' own update (:func:`~..accounts.ratings.rate`,
with the ranks the history kept), and every history row and current rating is rewritten from the
replay. An account whose only rated game in the variant was voided has no rating in it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ..accounts.account_rows import (
    GamePlayerRow,
    RatedGameRow,
    RatingHistoryRow,
    RatingRow,
    now_utc,
)
from ..accounts.ratings import default_rating, rate
from ..accounts.users import AccountError
from .moderation_rows import VoidedGameRow


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One game of the rating history: its accounts (in the order they were rated) and their ranks."""

    game_id: int
    accounts: tuple[int, ...]
    ranks: tuple[int, ...]


Ratings = dict[int, tuple[float, float, int]]  # account -> (mu, sigma, rated games)


def replay(games: Iterable[RatedGame]) -> tuple[Ratings, dict[tuple[int, int], tuple[float, float, float, float]]]:
    """The ratings after ``games`` in order from everyone's default, and each (game, account)'s
    (mu before, sigma before, mu after, sigma after)."""
    current: Ratings = {}
    steps: dict[tuple[int, int], tuple[float, float, float, float]] = {}
    mu0, sigma0 = default_rating()
    for game in games:
        before = [current.get(a, (mu0, sigma0, 0))[:2] for a in game.accounts]
        after = rate(before, game.ranks)  # (ranks are totals with the same order: lowest wins, ties tie)
        for account, (mu_b, sigma_b), (mu, sigma) in zip(game.accounts, before, after):
            current[account] = (mu, sigma, current.get(account, (mu0, sigma0, 0))[2] + 1)
            steps[(game.game_id, account)] = (mu_b, sigma_b, mu, sigma)
    return current, steps


def history(session: Session, variant: str) -> list[RatedGame]:
    """The variant's rated games in the order they were rated, from their history rows."""
    games: dict[int, list[tuple[int, int]]] = {}
    for row in session.scalars(select(RatingHistoryRow).where(RatingHistoryRow.variant == variant)
                               .order_by(RatingHistoryRow.id)):
        games.setdefault(row.game_id, []).append((row.user_id, row.rank))
    return [RatedGame(game_id, tuple(a for a, _ in entries), tuple(r for _, r in entries))
            for game_id, entries in games.items()]


def void_game(session: Session, game_id: int) -> dict[str, object]:
    """Void rated game ``game_id`` in ``session``'s transaction; returns what changed (the variant
    and each replayed account's rating before and after). Raises :class:`AccountError` if the game
    is not a rated game, or was voided already."""
    if session.get(VoidedGameRow, game_id) is not None:
        raise AccountError(f"game {game_id} is voided already", "game-voided")
    rated = session.get(RatedGameRow, game_id)
    if rated is None:
        raise AccountError(f"game {game_id} is not a rated game", "not-rated", status=404)
    variant = rated.variant
    # (the variant's ratings are locked while they are replayed: a game ending meanwhile waits)
    rows = {r.user_id: r for r in session.scalars(select(RatingRow).where(RatingRow.variant == variant)
                                                  .with_for_update())}
    session.add(VoidedGameRow(game_id=game_id, at=now_utc()))
    session.delete(rated)
    session.execute(delete(RatingHistoryRow).where(RatingHistoryRow.game_id == game_id))
    session.execute(update(GamePlayerRow).where(GamePlayerRow.game_id == game_id).values(rated=False))
    session.flush()
    current, steps = replay(history(session, variant))
    for step in session.scalars(select(RatingHistoryRow).where(RatingHistoryRow.variant == variant)):
        step.mu_before, step.sigma_before, step.mu, step.sigma = steps[(step.game_id, step.user_id)]
    changed: dict[str, object] = {}
    for account, row in rows.items():
        old = (row.mu, row.sigma)
        if account not in current:
            session.delete(row)
            changed[str(account)] = {"before": old, "after": None}
            continue
        mu, sigma, games = current[account]
        if (mu, sigma, games) != (row.mu, row.sigma, row.games):
            row.mu, row.sigma, row.ordinal, row.games = mu, sigma, mu - 3 * sigma, games
            changed[str(account)] = {"before": old, "after": (mu, sigma)}
    session.flush()
    return {"game": game_id, "variant": variant, "ratings": changed}
