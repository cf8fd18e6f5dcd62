"""The HTTP side of tournaments (docs/web.md, "Tournaments"): the list (upcoming, running,
finished), creating one (a signed-in person), entering and withdrawing, and one tournament's page:
its entrants, each round's tables with their results, the live standings and, at the end, the
podium."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from ...competition import placement_points
from ...core import RulesError
from ..accounts.account_routes import service, signed_in
from ..accounts.ratings import default_rating
from ..limits import RequestBody
from ..refusal import Refusal
from ..tables.table_setup import TableError, check_bot_level, clean_name
from .director import Director, arena_ends, is_arena, is_duplicate, standings
from .timetable import bot_entrants, tournament_settings
from .tourney_rows import FINISHED, Tournament, TournamentStore

#: The most entrants one tournament takes, and the most rounds.
MOST_ENTRANTS = 100
MOST_ROUNDS = 12
#: The longest arena, in minutes.
LONGEST_ARENA = 12 * 60
#: How far ahead a tournament may be announced (seconds).
LONGEST_WAIT = 7 * 24 * 3600


class CreateTournament(RequestBody):
    name: str = Field(max_length=200)
    format: Literal["swiss", "duplicate", "arena"] = "swiss"
    variant: str = Field(default="standard", max_length=16)
    players: int = Field(default=4, ge=2, le=10)
    rounds: int = Field(default=3, ge=1, le=MOST_ROUNDS)
    #: An arena's length: new games are seated for this many minutes.
    minutes: int = Field(default=30, ge=1, le=LONGEST_ARENA)
    #: Every game rated (Swiss and arena: a duplicate game's fixed length is no rated game's).
    rated: bool = False
    #: Deals per game (duplicate: 1 unless told; Swiss: None, the variant's own end).
    deals: int | None = Field(default=None, ge=1, le=20)
    starts_in: float = Field(default=300.0, ge=0, le=LONGEST_WAIT)
    timer: int = 0
    fill: str = Field(default="medium", max_length=16)
    #: Server bots entered at once, by level (each under a name of its own).
    bots: list[str] = Field(default_factory=list, max_length=MOST_ENTRANTS)
    #: Whether the creator enters too.
    enter: bool = True


router = APIRouter(prefix="/api")


def tournaments(request: Request) -> TournamentStore:
    store: TournamentStore = request.app.state.tournaments
    return store


def director(request: Request) -> Director:
    found: Director = request.app.state.director
    return found


async def _load(request: Request, tournament_id: int) -> Tournament:
    found = await service(request).read(tournaments(request).load, tournament_id)
    if found is None:
        raise Refusal(f"no tournament {tournament_id}", "tournament-unknown", status=404)
    return found


async def refuse_while_its_round_plays(request: Request, code: str) -> None:
    """Refuse (409 ``round-playing``) a finished game of table ``code`` while it is a duplicate
    round's and another table of that round is still playing: they play the same shuffle, so its
    record, replay and review would show the cards the players there hold. Nobody is let in, not
    even its own players (they may pass it on)."""
    if await service(request).read(tournaments(request).round_playing, code):
        raise Refusal("this game's round is still being played with the same cards at other tables: its "
                      "games are shown once every table of the round has finished", "round-playing", status=409)


@router.get("/tournaments")
async def list_tournaments(request: Request) -> dict[str, Any]:
    listed = await service(request).read(tournaments(request).listing, 60)
    return {status: [t for t in listed if t["status"] == status] for status in ("upcoming", "running", "finished")}


@router.post("/tournaments", status_code=201)
async def create_tournament(body: CreateTournament, request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    try:
        name = clean_name(body.name)
        fill = check_bot_level(body.fill, "fill")
        levels = [check_bot_level(level, "bots") for level in body.bots]
        settings = tournament_settings(body.format, body.variant, body.players, body.rounds, body.deals,
                                       body.minutes, body.timer, fill, body.rated, levels)
    except RulesError as error:
        raise Refusal(str(error), "bad-rules", status=422, detail=str(error)) from None
    except TableError as error:
        raise error.with_status(422) from None
    store = tournaments(request)
    starts_at = svc.clock.wall() + body.starts_in
    tournament_id = await svc.rooms.db.run(store.create, name, body.format, settings, starts_at, user.id,
                                           bot_entrants(levels))
    assert tournament_id is not None
    if body.enter:
        await _enter(request, tournament_id)
    return {"id": tournament_id}


async def _enter(request: Request, tournament_id: int) -> None:
    svc = service(request)
    user = await signed_in(request, svc)
    tournament = await _load(request, tournament_id)
    variant = str(tournament.settings["variant"])
    mine = await svc.read(svc.ratings.ratings_of, user.id, variant)
    rating = float(mine[variant]["mu"]) if variant in mine else default_rating()[0]
    stable = await svc.read(svc.accounts.stable, user.id)
    await svc.rooms.db.run(tournaments(request).enter, tournament_id, user.name, user.id, None,
                           user.kind == "bot", rating, stable)


@router.post("/tournaments/{tournament_id}/join")
async def join_tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    try:
        await _enter(request, tournament_id)
    except TableError as error:
        raise error.with_status(409) from None
    return {"entered": True}


@router.post("/tournaments/{tournament_id}/leave")
async def leave_tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    await _load(request, tournament_id)
    if not await svc.rooms.db.run(tournaments(request).withdraw, tournament_id, user.id):
        raise Refusal("you are not entered, or the tournament has started", "tournament-started", status=409)
    return {"entered": False}


async def _pause(request: Request, tournament_id: int, paused: bool) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    tournament = await _load(request, tournament_id)
    if not is_arena(tournament) or tournament.status == FINISHED:
        raise Refusal("only an arena under way or to come takes a pause", "not-arena", status=409)
    if not await svc.rooms.db.run(tournaments(request).pause, tournament_id, user.id, paused):
        raise Refusal("you are not entered in this tournament", "not-entered", status=409)
    return {"paused": paused}


@router.post("/tournaments/{tournament_id}/pause")
async def pause_tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    """An arena entrant is not seated at new tables until they resume (a game under way is played out)."""
    return await _pause(request, tournament_id, True)


@router.post("/tournaments/{tournament_id}/resume")
async def resume_tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    return await _pause(request, tournament_id, False)


@router.get("/tournaments/{tournament_id}")
async def show_tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    svc = service(request)
    tournament = await _load(request, tournament_id)
    user = await svc.user(request)
    if user is not None and is_arena(tournament) and tournament.status != FINISHED:
        # (an arena entrant on its page is here: seated when a table's worth wait; the page asks
        # every few seconds, and a quarter of the window between writes is enough)
        me = next((e for e in tournament.entrants if e.account == user.id), None)
        now, window = svc.clock.wall(), director(request).settings.arena_presence
        if me is not None and (me.seen_at is None or now - me.seen_at > window / 4):
            await svc.rooms.db.run(tournaments(request).seen, tournament_id, [user.id], now)
    return tournament_page(tournament, None if user is None else user.id)


def tournament_page(tournament: Tournament, account: int | None) -> dict[str, Any]:
    """What a tournament's page shows (never the seed: it would tell the cards)."""
    by_number = {e.number: e for e in tournament.entrants if e.number is not None}
    me = next((e for e in tournament.entrants if account is not None and e.account == account), None)

    def name(number: int) -> str | None:
        return by_number[number].name if number in by_number else None

    rounds = []
    for number in range(1, tournament.round + 1):
        tables = []
        tables_of = tournament.tables_of(number)
        # a duplicate round's games are shown once the whole round is over (they hold its cards),
        # and so are its tables' codes but your own (watching a table ahead shows them too)
        shown = not is_duplicate(tournament) or all(t.totals is not None for t in tables_of)
        for table in tables_of:
            points = None if table.totals is None else list(placement_points(table.totals))
            yours = me is not None and me.number is not None and me.number in table.seats
            tables.append({"code": table.code if shown or yours else None, "players": [name(n) for n in table.seats],
                           "totals": None if table.totals is None else list(table.totals), "points": points,
                           "game_id": table.game_id if shown else None})
        rounds.append({"round": number, "tables": tables})
    placed = standings(tournament) if tournament.round else []
    table_now = None
    if me is not None and me.number is not None and tournament.status != FINISHED:
        table_now = next((t.code for t in tournament.tables_of(tournament.round) if me.number in t.seats
                          and t.totals is None), None)
    return {
        "id": tournament.id, "name": tournament.name, "format": tournament.format, "status": tournament.status,
        "starts_at": tournament.starts_at, "round": tournament.round, "rounds": tournament.rounds,
        "variant": tournament.settings["variant"], "players": tournament.settings["players"],
        "deals": tournament.settings.get("deals"), "fill": tournament.settings.get("fill"),
        "rated": bool(tournament.settings.get("rated")),
        **({"ends_at": arena_ends(tournament)} if is_arena(tournament) else {}),
        "entrants": [{"name": e.name, "kind": e.kind, "bot": e.bot} for e in tournament.entrants],
        "standings": [{"place": s.place, "name": name(s.entrant), "points": s.points, "tiebreak": s.tiebreak,
                       "bullheads": s.bullheads, "games": s.games} for s in placed],
        "podium": [name(s.entrant) for s in placed[:3]] if tournament.status == FINISHED else [],
        "rounds_played": rounds,
        "entered": me is not None, "you": None if me is None else me.name, "your_table": table_now,
        "paused": me is not None and me.paused,
    }


__all__ = ["router"]
