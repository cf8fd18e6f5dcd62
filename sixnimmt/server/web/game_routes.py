"""The HTTP routes of finished games and the rules: the history, a game's record and events, its
review, and the rules texts."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from ...core import (
    CardsRevealed,
    DraftPicked,
)
from ...core.record import dumps, replay
from ..limits import (
    RequestBody,
)
from ..refusal import Refusal
from ..tables.rooms import Rooms
from ..tournaments.tourney_routes import refuse_while_its_round_plays
from .rating_changes import rating_changes
from .reviews import ReviewBusyError, Reviews
from .rules_pages import LANGUAGES, rules_html
from .table_routes import MAX_ID, MAX_OFFSET, VARIANT_NAMES, RoomsDep

games_api = APIRouter(prefix="/api")


@games_api.get("/games")
async def list_games(
    rooms: RoomsDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> list[dict[str, Any]]:
    """The newest finished games of public tables (a private table's games are not listed)."""
    return await rooms.db.run(rooms.store.list_games, limit, offset)


#: The table's code, which a private table's finished games ask for: whoever has the table's link
#: (its players, and those they gave it to) may see them, nobody else.
TableKey = Annotated[str | None, Query(max_length=16, description="the table's code (a private table's games)")]


async def _game_or_404(request: Request, rooms: Rooms, game_id: int, table: str | None) -> dict[str, Any]:
    """Game ``game_id``, or 404: also for a private table's game asked for without its table's code
    (the same answer as for no game, so ids cannot be scanned for private games). A duplicate
    round's game is refused to anyone while another table of its round plays the same cards."""
    game = await rooms.db.run(rooms.store.get_game, game_id) if 1 <= game_id <= MAX_ID else None
    if game is not None and not game["public"] and (table or "").strip().upper() != game["table"]:
        game = None
    if game is None:
        shown = str(game_id) if len(str(game_id)) <= 20 else str(game_id)[:20] + "..."
        raise Refusal(f"no finished game {shown}", "no-game", status=404, id=shown)
    if not game["public"]:  # (a duplicate round's tables are private)
        await refuse_while_its_round_plays(request, game["table"])
    return game


@games_api.get("/games/{game_id}")
async def get_game(game_id: int, rooms: RoomsDep, request: Request, table: TableKey = None) -> dict[str, Any]:
    return await _game_or_404(request, rooms, game_id, table)


class ReviewRequest(RequestBody):
    seat: int = Field(ge=0, le=9)


async def _review(
    request: Request, rooms: Rooms, game_id: int, seat: int, start: bool, table: str | None
) -> JSONResponse:
    game = await _game_or_404(request, rooms, game_id, table)
    if not 0 <= seat < len(game["seats"]):
        raise Refusal(f"this game has no seat {seat + 1}", "bad-seat", status=422, seat=seat + 1)
    reviews: Reviews = request.app.state.reviews
    try:
        status = await reviews.status(game_id, seat, start=start)
    except ReviewBusyError:
        raise Refusal("the server is busy with other reviews: try again in a minute", "review-busy", status=503, headers={"Retry-After": "60"}) from None
    if status is None:
        raise Refusal(f"no review of seat {seat + 1} in game {game_id} yet", "no-review", status=404, seat=seat + 1)
    return JSONResponse(status, status_code=200 if status["status"] in ("done", "failed") else 202)


@games_api.post("/games/{game_id}/review")
async def ask_review(
    game_id: int, body: ReviewRequest, rooms: RoomsDep, request: Request, table: TableKey = None
) -> JSONResponse:
    """Review one seat's decisions in a finished game (made in the background, then kept): 202 with
    ``queued``/``running`` until it is ``done`` (200, with the review)."""
    return await _review(request, rooms, game_id, body.seat, start=True, table=table)


@games_api.get("/games/{game_id}/review")
async def get_review(
    game_id: int, rooms: RoomsDep, request: Request, seat: Annotated[int, Query(ge=0, le=9)],
    table: TableKey = None,
) -> JSONResponse:
    return await _review(request, rooms, game_id, seat, start=False, table=table)


@games_api.get("/games/{game_id}/events")
async def game_events(game_id: int, rooms: RoomsDep, request: Request, table: TableKey = None) -> dict[str, Any]:
    """A finished game replayed by the engine: every public event, and each deal's starting hands
    (public once the game is over), for the turn-by-turn replay page."""
    game = await _game_or_404(request, rooms, game_id, table)
    replayed = replay(game["record"]).game
    events = [e.to_dict() for e in replayed.events]
    hands: list[list[list[int]]] = []
    for deal in game["record"]["deals"]:
        hands.append([list(h) for h in deal["hands"]] if "hands" in deal else [[] for _ in replayed.seats])
    # Tournament's later deals hold no hands in the record (the drafted hands passed round): every
    # card of such a deal is played, one per seat per turn, so the reveals give the hands back.
    passed = {i for i, deal in enumerate(game["record"]["deals"]) if "hands" not in deal and "draft" not in deal}
    for event in replayed.events:
        if isinstance(event, DraftPicked):
            hands[event.deal][event.seat].append(event.card)
        elif isinstance(event, CardsRevealed) and event.deal in passed:
            for seat, card in event.seat_cards:
                hands[event.deal][seat].append(card)
    # the target lets a viewer who counts down show points left (None: the variant has none)
    return {**{k: v for k, v in game.items() if k != "record"}, "events": events, "hands": hands,
            "target": replayed.rules.target}


@games_api.get("/games/{game_id}/ratings")
async def game_ratings(game_id: int, rooms: RoomsDep, request: Request, table: TableKey = None) -> dict[str, Any]:
    """Each seat's rating before and after a rated game, for the Game over screen
    (:mod:`.rating_changes`)."""
    game = await _game_or_404(request, rooms, game_id, table)
    changes: dict[str, Any] = await rooms.db.run(rating_changes, rooms.store.engine, game_id, len(game["seats"]))
    return changes


@games_api.get("/games/{game_id}/record.json")
async def download_record(game_id: int, rooms: RoomsDep, request: Request, table: TableKey = None) -> Response:
    game = await _game_or_404(request, rooms, game_id, table)
    return Response(
        dumps(game["record"]),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="sixnimmt-game-{game_id}.json"'},
    )


@games_api.get("/rules/{lang}/{variant}")
def get_rules(lang: str, variant: str) -> dict[str, Any]:
    if lang not in LANGUAGES or variant not in VARIANT_NAMES:
        raise Refusal(f"no rules page for {lang[:8]!r}/{variant[:16]!r}", "no-page", status=404)
    html, found_lang = rules_html(lang, variant)
    return {"lang": found_lang, "variant": variant, "html": html}
