"""Bot programs in tournaments (docs/bot-api.md, "Tournaments"): a program enters with
``enter-tournament`` and is answered ``tournament`` (what it entered); when a round opens, each
program entrant connected to this process is told ``tournament-round`` (the round and its game)
and its seat there is followed as any game's (``game-start``, ``decide``, ...)."""

from __future__ import annotations

from typing import Any

from ..accounts.ratings import default_rating
from ..tables.table_setup import TableError
from ..tournaments.director import Director
from ..tournaments.tourney_rows import RUNNING, Tournament, TournamentStore
from .bot_wire import EnterTournament
from .gateway import BotGateway, BotSession
from .seat_links import BotError


class ProgramEntries:
    """This process's part: entries made through its programs' connections, and the rounds they
    are told of."""

    def __init__(self, gateway: BotGateway, store: TournamentStore, director: Director) -> None:
        self.gateway = gateway
        self.store = store
        self.told: dict[int, set[str]] = {}  # bot id -> the tables of rounds it was told of
        gateway.tourneys = self
        director.round_listeners.append(self.round_open)
        director.connected_here.append(self.connected)

    def connected(self, tournament: Tournament) -> set[int]:
        """The tournament's program entrants connected to this process."""
        return {e.account for e in tournament.entrants
                if e.program and e.account is not None and e.account in self.gateway.sessions}

    async def enter(self, session: BotSession, message: EnterTournament) -> None:
        bot = session.identity.bot
        run = self.gateway.rooms.db.run
        tournament = await run(self.store.load, message.tournament)
        if tournament is None:
            raise BotError(f"no tournament {message.tournament}", "tournament-unknown")
        try:
            stable = await run(self.gateway.bots.accounts.stable, bot.id)
            await run(self.store.enter, tournament.id, bot.name, bot.id, None, True, default_rating()[0], stable)
        except TableError as error:
            raise BotError(str(error), error.code) from None
        session.push({"type": "tournament-entered", **about(tournament),
                      "starts_in": round(max(0.0, tournament.starts_at - self.gateway.clock.wall()), 1)})

    async def round_open(self, tournament: Tournament, round_number: int) -> None:
        """The round under way: each program entrant connected here is told its game, once, and sits down."""
        if tournament.status != RUNNING:
            return
        numbers = {e.number: e for e in tournament.entrants if e.program and e.account is not None}
        for table in tournament.tables_of(round_number):
            if table.totals is not None:
                continue
            for number in table.seats:
                entrant = numbers.get(number)
                if entrant is None or entrant.account is None:
                    continue
                bot_id = entrant.account
                told = self.told.setdefault(bot_id, set())
                if table.code in told or bot_id not in self.gateway.sessions:
                    continue
                told.add(table.code)
                self.gateway.tell(bot_id, [{"type": "tournament-round", **about(tournament), "round": round_number,
                                            "game": table.code}])
                await self.gateway.seat(bot_id, table.code)


def about(tournament: Tournament) -> dict[str, Any]:
    settings = tournament.settings
    return {"tournament_id": tournament.id, "name": tournament.name, "format": tournament.format,
            "variant": settings["variant"], "players": settings["players"], "rounds": tournament.rounds}


async def enter_tournament(gateway: BotGateway, session: BotSession, message: EnterTournament) -> None:
    desk = gateway.tourneys
    if not isinstance(desk, ProgramEntries):
        raise BotError("this server runs no tournaments", "tournament-unknown")
    await desk.enter(session, message)
