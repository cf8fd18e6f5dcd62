"""A bot program challenges another, or a person, by name (docs/bot-api.md, "Challenges"): a table of its own is
opened, the challenger in its first seat, a seat kept for the challenged bot (an invitation, which
it accepts or declines with a standard reason), the server's bots in any other seat; the game starts
when the challenged bot sits down. A decline, an expiry or the challenged bot going offline gives
the table up and tells the challenger why (``challenge-declined``). A person is asked in the browser
(:mod:`.person_challenges`)."""

from __future__ import annotations

import asyncio
from typing import Any

from ...core import Rules, RulesError, Variant
from ..accounts.users import User, seat_token
from ..calls import InviteProgram, Summary, WithdrawInvitation
from ..tables.table_setup import TableError, TableOptions
from .bot_wire import Challenge
from .gateway import BotGateway, BotSession
from .seat_links import BotError, players

#: The players of a challenge when the challenger names none.
DEFAULT_PLAYERS = 2


async def challenge(gateway: BotGateway, session: BotSession, message: Challenge) -> None:
    """``{"type": "challenge", "bot": NAME, "mode", "players", "variant"}``: answered by
    ``challenging`` (the challenged bot is asked), then ``game-start`` or ``challenge-declined``."""
    me = session.identity.bot
    mode, variant = message.mode, message.variant
    count = message.players or DEFAULT_PLAYERS
    gateway.room_for_games(session)
    named = await asyncio.to_thread(gateway.bots.bot_named, message.bot)
    found = None if named is None else named[0]
    if found is None:  # (a person is asked in the browser: person_challenges)
        found = await _person_named(gateway, message.bot)
    if found is None or found.id == me.id:
        raise BotError(f"no other bot named {message.bot[:20]!r}", "no-bot")
    stables = [await asyncio.to_thread(gateway.bots.accounts.stable, account) for account in (me.id, found.id)]
    if await gateway.rooms.blocks.keeps_apart(*stables):  # (docs/web.md, "Moderation")
        raise BotError(f"{found.name} does not take challenges from you", "blocked", bot=found.name)
    try:
        rules = Rules(players=count, variant=Variant(variant))
    except (ValueError, RulesError) as error:
        raise BotError(f"no such game: {error}", "bad-rules") from None
    options = TableOptions(rules, fill_bot=gateway.settings.fallback_bot, rated=mode == "rated")
    seats: list[dict[str, Any]] = [{"kind": "open"}] + [{"kind": "bot", "level": gateway.settings.fallback_bot}
                                                          for _ in range(count - 2)]
    key = me.seat_key
    try:
        room, host = await gateway.rooms.create(options, me.name, seats, account=me.id,
                                                token_for=lambda code: seat_token(key, code), program=True)
        token = await gateway.rooms.call(room.code, InviteProgram(host, 1, found.name))
        summary = await gateway.rooms.call(room.code, Summary())
    except TableError as error:
        raise BotError(str(error), error.code) from None
    await gateway.seat(me.id, room.code, me)
    about = {"from": me.name, "from_bot": True, "challenge": True, "rated": mode == "rated",
             "rules": summary["rules"], "seats": [s["name"] for s in summary["seats"]],
             "players": players(summary["seats"])}
    try:
        if found.kind == "person":
            invitation = await gateway.people.ask(me.id, found.id, found.name, room.code, token, about)
        else:
            invitation = await gateway.invite_anywhere(found.id, room.code, token, about)
    except BotError as error:
        await gateway.rooms.call(room.code, WithdrawInvitation(token))
        link = gateway.links.get(me.id, {}).get(room.code)
        if link is not None:
            await gateway.finish(link)
        raise BotError(f"{found.name} cannot take the challenge: {error}", error.code, bot=found.name,
                       **error.params) from None
    gateway.challengers[room.code] = me.id
    session.push({"type": "challenging", "bot": found.name, "game": room.code, "invitation": invitation,
                  "person": found.kind == "person"})


async def _person_named(gateway: BotGateway, name: str) -> User | None:
    """The person named ``name`` (not a bot program, not one of the server's own bots)."""
    person = await asyncio.to_thread(gateway.bots.accounts.user_by_name, name[:64])
    return person if person is not None and person.kind == "person" else None
