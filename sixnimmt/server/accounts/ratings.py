"""Ratings of rated games: OpenSkill's Plackett-Luce model, one rating per account and variant.

A rated game's ratings change in the transaction that archives the game (``Store.finish_game``),
so the game, the table's new state, the ratings, their history and the game's row in
``rated_games`` are stored together or not at all: a process that dies in the middle leaves every
rating as it was (the game ends again when the table is loaded, and is rated then), and a second
try at the same game finds its ``rated_games`` row and changes nothing. The accounts' rows are
locked (``SELECT … FOR UPDATE``, in id order) before their ratings are read, so two games with a
player in common, ending at once on two processes, are applied one after the other.

The number shown is ``1000 + 40 * (mu - 3 * sigma)``, rounded: OpenSkill's *ordinal*, a conservative
estimate that starts at 0 (a newcomer shows 1000) and rises as the games make sigma shrink. It is
marked provisional until :data:`PROVISIONAL_GAMES` rated games in the variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..store.rows import GameRow, TableData
from .account_rows import GamePlayerRow, RatedGameRow, RatingHistoryRow, RatingRow, UserRow, now_utc
from .users import rename_in_game

#: Rated games in a variant before its rating loses the provisional mark.
PROVISIONAL_GAMES = 10
#: The shown rating: ``DISPLAY_BASE + DISPLAY_SCALE * ordinal``.
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 40.0

MODEL = PlackettLuce()


def display(mu: float, sigma: float) -> int:
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def default_rating() -> tuple[float, float]:
    rating = MODEL.rating()
    return float(rating.mu), float(rating.sigma)


def ranks_of(totals: Sequence[float]) -> list[int]:
    """1 for the lowest total, ties as ties (two seats on the same total share a rank)."""
    return [1 + sum(1 for other in totals if other < mine) for mine in totals]


def rate(before: Sequence[tuple[float, float]], totals: Sequence[float]) -> list[tuple[float, float]]:
    """New (mu, sigma) of each player, given their ratings ``before`` and final ``totals`` (lowest wins)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    updated = MODEL.rate(teams, ranks=[float(r) for r in ranks_of(totals)])
    return [(float(team[0].mu), float(team[0].sigma)) for team in updated]


@dataclass(frozen=True, slots=True)
class Participant:
    """The accounts of a game's seats: ``seats[i]`` is the account of seat ``i`` (None: none)."""

    seats: list[int | None]
    rated: bool


def participants(data: TableData, bots: dict[str, int]) -> Participant:
    """Who plays each seat of a finished table, by account: a person's seat carries its account, a
    server bot's seat plays under its level's account (rated or not: its profile counts its casual
    games too)."""
    rated = bool(data.settings.get("rated"))
    seats: list[int | None] = []
    for seat in data.seats:
        account = seat.get("account")
        if account is None and seat.get("kind") != "human":
            account = bots.get(str(seat.get("bot") or data.settings.get("fill_bot", "medium")))
        seats.append(None if account is None else int(account))
    return Participant(seats, rated)


def _stablemates(session: Session, accounts: set[int]) -> bool:
    """Whether two of ``accounts`` belong to one person (a person and their bot, or two bots of one
    owner)."""
    owners = [row.owner_id if row.kind == "bot" and row.owner_id is not None else row.id
              for row in session.scalars(select(UserRow).where(UserRow.id.in_(accounts)))]
    return len(set(owners)) < len(owners)


def record_game(session: Session, game: GameRow, who: Participant) -> bool:
    """Inside the archive's transaction: the seats played under an account, and for a rated game every
    rating, its history and the game's ``rated_games`` row. Returns whether ratings changed (False
    when the game was rated already)."""
    if session.scalar(select(GamePlayerRow.id).where(GamePlayerRow.game_id == game.id).limit(1)) is not None:
        return False  # recorded already
    # (the tables refuse a bot with its owner or its stable-mates; a game that had them anyway, by a
    # path that forgot to ask, moves no rating: nobody's rating gains from their own bots)
    rated = who.rated and not _stablemates(session, {a for a in who.seats if a is not None})
    for seat, account in enumerate(who.seats):
        if account is not None:
            session.add(GamePlayerRow(game_id=game.id, seat=seat, user_id=account, rated=rated))
    if not rated or any(a is None for a in who.seats):
        return False
    known = session.scalar(select(RatedGameRow.game_id).where(
        (RatedGameRow.game_id == game.id)
        | ((RatedGameRow.table_code == game.table_code) & (RatedGameRow.number == game.number))
    ))
    if known is not None:
        return False
    # One entry per account (a bot level may sit twice): ranked by its mean total.
    accounts = sorted({a for a in who.seats if a is not None})
    totals = list(game.totals)
    mean = {a: sum(t for t, s in zip(totals, who.seats) if s == a) / who.seats.count(a) for a in accounts}
    # Lock the accounts (in id order: two games never wait on each other in a circle), then read.
    session.execute(select(UserRow.id).where(UserRow.id.in_(accounts)).order_by(UserRow.id).with_for_update())
    # An account deleted during the game is not rated, and its seats get the neutral name.
    gone = set(session.scalars(select(UserRow.id).where(UserRow.id.in_(accounts), UserRow.deleted_at.is_not(None))))
    if gone:
        rename_in_game(game, {i for i, a in enumerate(who.seats) if a in gone}, "")
        accounts = [a for a in accounts if a not in gone]
    if len(accounts) < 2:
        return False
    rows = {r.user_id: r for r in session.scalars(select(RatingRow).where(
        RatingRow.user_id.in_(accounts), RatingRow.variant == game.variant
    ))}
    now = now_utc()
    mu0, sigma0 = default_rating()
    for account in accounts:
        if account not in rows:
            row = RatingRow(user_id=account, variant=game.variant, mu=mu0, sigma=sigma0,
                            ordinal=mu0 - 3 * sigma0, games=0, updated_at=now)
            session.add(row)
            rows[account] = row
    before = [(rows[a].mu, rows[a].sigma) for a in accounts]
    after = rate(before, [mean[a] for a in accounts])
    ranks = ranks_of([mean[a] for a in accounts])
    session.add(RatedGameRow(game_id=game.id, table_code=game.table_code, number=game.number,
                             variant=game.variant, applied_at=now))
    for account, (mu_b, sigma_b), (mu, sigma), rank in zip(accounts, before, after, ranks):
        row = rows[account]
        row.mu, row.sigma, row.ordinal = mu, sigma, mu - 3 * sigma
        row.games += 1
        row.updated_at = now
        session.add(RatingHistoryRow(user_id=account, variant=game.variant, game_id=game.id, mu_before=mu_b,
                                     sigma_before=sigma_b, mu=mu, sigma=sigma, rank=rank, at=now))
    session.flush()
    return True


def rating_public(mu: float, sigma: float, games: int) -> dict[str, Any]:
    return {"rating": display(mu, sigma), "mu": round(mu, 4), "sigma": round(sigma, 4), "games": games,
            "provisional": games < PROVISIONAL_GAMES}


class Ratings:
    """The rating queries of the leaderboard and the profiles (synchronous, run through the Writer)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def leaderboard(self, variant: str, provisional: bool, limit: int, offset: int) -> dict[str, Any]:
        settled = RatingRow.games >= PROVISIONAL_GAMES
        where = [RatingRow.variant == variant, UserRow.deleted_at.is_(None),
                 ~settled if provisional else settled]
        with Session(self.engine) as session:
            total = session.scalar(
                select(func.count()).select_from(RatingRow).join(UserRow, UserRow.id == RatingRow.user_id).where(*where)
            ) or 0
            rows = session.execute(
                select(RatingRow, UserRow).join(UserRow, UserRow.id == RatingRow.user_id).where(*where)
                .order_by(RatingRow.ordinal.desc(), UserRow.id).limit(limit).offset(offset)
            ).all()
        return {
            "variant": variant, "provisional": provisional, "total": int(total), "offset": offset, "limit": limit,
            "rows": [{"rank": offset + i + 1, "name": u.name, "kind": u.kind, "bot": u.bot_level,
                      **rating_public(r.mu, r.sigma, r.games)} for i, (r, u) in enumerate(rows)],
        }

    def ratings_of(self, user_id: int, variant: str | None = None) -> dict[str, dict[str, Any]]:
        with Session(self.engine) as session:
            query = select(RatingRow).where(RatingRow.user_id == user_id)
            if variant is not None:
                query = query.where(RatingRow.variant == variant)
            return {r.variant: rating_public(r.mu, r.sigma, r.games) for r in session.scalars(query)}

    def profile(self, user_id: int, games_limit: int, games_offset: int) -> dict[str, Any]:
        """The account's ratings and games: the count is of every game it played, casual ones at
        tables reached by link only (Play now's, friends') included; the list only has the public
        tables' games."""
        with Session(self.engine) as session:
            ratings = {r.variant: rating_public(r.mu, r.sigma, r.games)
                       for r in session.scalars(select(RatingRow).where(RatingRow.user_id == user_id))}
            history: dict[str, list[dict[str, Any]]] = {}
            for h in session.scalars(select(RatingHistoryRow).where(RatingHistoryRow.user_id == user_id)
                                     .order_by(RatingHistoryRow.id)):
                history.setdefault(h.variant, []).append(
                    {"game": h.game_id, "at": h.at.isoformat() + "Z", "rating": display(h.mu, h.sigma),
                     "before": display(h.mu_before, h.sigma_before), "rank": h.rank})
            # (a profile is public: it lists the games of public tables, rated games included)
            played = session.scalar(select(func.count()).select_from(GamePlayerRow)
                                    .join(GameRow, GameRow.id == GamePlayerRow.game_id)
                                    .where(GamePlayerRow.user_id == user_id)) or 0
            rows = session.execute(
                select(GamePlayerRow, GameRow).join(GameRow, GameRow.id == GamePlayerRow.game_id)
                .where(GamePlayerRow.user_id == user_id, GameRow.public.is_(True))
                .order_by(GamePlayerRow.game_id.desc())
                .limit(games_limit).offset(games_offset)
            ).all()
            changes = {h["game"]: h for points in history.values() for h in points}
            games = []
            for player, game in rows:
                totals = list(game.totals)
                change = changes.get(game.id)
                games.append({
                    "id": game.id, "variant": game.variant, "finished_at": game.finished_at.isoformat() + "Z",
                    "seat": player.seat, "seats": list(game.seats), "totals": totals, "rated": player.rated,
                    "rank": ranks_of(totals)[player.seat] if player.seat < len(totals) else None,
                    "rating": None if change is None else change["rating"],
                    "delta": None if change is None else change["rating"] - change["before"],
                })
        return {"ratings": ratings, "history": history, "games": games, "games_total": int(played)}
