"""The Bot API's message reference (docs/bot-api.md, "Message reference"), made from the typed
messages: those a bot sends (:data:`~.inbox.FROM_BOT`, which the server checks every message
against) and those the server sends (:data:`TO_BOT`). ``tests/server/test_bot_reference.py`` holds
the doc to what this prints, so the two cannot drift::

    python -m sixnimmt.server.botapi.reference
"""

from __future__ import annotations

from .inbox import FROM_BOT, Field, Message

GAME = Field("game", "string", True, "the game (its table's code)")

#: Every message the server sends a bot.
TO_BOT: dict[str, Message] = {m.type: m for m in (
    Message("welcome", (Field("bot", "string", True, "the bot's name"), Field("owner", "string", True, "its owner"),
                        Field("limits", "object", True, "`games`, `messages_per_second`, `seeks_per_minute`, "
                              "`invitations_per_minute`, `decision_seconds`, `grace_seconds`"),
                        Field("games", "list of strings", True, "the games the bot sits at (they count toward "
                              "`limits.games`); each comes next as `game-state`")),
            "the answer to `hello`"),
    Message("pong", (), "the answer to `ping`"),
    Message("seeking", (Field("seek", "string", True, "the seek's id"), GAME), "a seek took a seat at `game`"),
    Message("seek-cancelled", (Field("seek", "string", True, "the seek's id"), GAME),
            "the answer to `cancel-seek`: the seat is given up"),
    Message("challenging", (Field("bot", "string", True, "the bot challenged"), GAME,
                            Field("invitation", "string", True, "the invitation it got"),
                            Field("person", "boolean", True, "a person is challenged (asked in the browser)")),
            "the answer to `challenge`: the challenged bot or person is asked"),
    Message("challenge-declined", (GAME, Field("reason", "string", True, "a standard reason"),
                                   Field("message", "string", True, "the decliner's own text, if any")),
            "the challenged bot or person declined (or let it expire, or went offline): the table is given up"),
    Message("invitation", (Field("invitation", "string", True, "its id"), GAME,
                           Field("from", "string", True, "who invites"), Field("from_bot", "boolean", True, "a bot invites"),
                           Field("challenge", "boolean", False, "a bot's challenge"),
                           Field("rated", "boolean", True, "a rated game"), Field("rules", "object", True, "the rules"),
                           Field("seats", "list of strings", True, "the seats' names"),
                           Field("players", "list of objects", True, "who is who"),
                           Field("expires_in", "number", True, "seconds to answer")),
            "a seat is kept for the bot: `accept` or `decline`"),
    Message("invitation-withdrawn", (Field("invitation", "string", True, "its id"),
                                     Field("reason", "string", True, "`expired`")),
            "an invitation not answered in time"),
    Message("tournament-entered", (Field("tournament_id", "integer", True, "its id"), Field("name", "string", True, "its name"),
                           Field("format", "string", True, "`swiss` or `duplicate`"),
                           Field("variant", "string", True, "the variant"),
                           Field("players", "integer", True, "the table size"),
                           Field("rounds", "integer", True, "how many rounds"),
                           Field("starts_in", "number", True, "seconds until round 1")),
            "the answer to `enter-tournament`: the bot is entered"),
    Message("tournament-round", (Field("tournament_id", "integer", True, "its id"), Field("name", "string", True, "its name"),
                                 Field("format", "string", True, ""), Field("variant", "string", True, ""),
                                 Field("players", "integer", True, ""), Field("rounds", "integer", True, ""),
                                 Field("round", "integer", True, "the round starting"), GAME),
            "a round starts: the bot's seat at `game` is taken (its `game-start` follows)"),
    Message("game-start", (GAME, Field("seat", "integer", True, "the bot's seat"),
                           Field("seats", "list of strings", True, "the seats' names"),
                           Field("players", "list of objects", True, "who is who"), Field("rules", "object", True, "the rules")),
            "a game begins (the local protocol's, with `game` and `players`)"),
    Message("game-state", (GAME, Field("players", "list of objects", True, "who is who"),
                           Field("view", "object", True, "the seat's view now: rows, hand, totals, penalties, "
                                 "deal, turn, the open decision")),
            "after `welcome`, once per game: the game whole (the open `decide` follows)"),
    Message("players", (GAME, Field("players", "list of objects", True, "who is who")),
            "seats changed hands during the game"),
    Message("deal-start", (GAME, Field("deal", "integer", True, "the deal"), Field("rows", "list of lists", True, "the rows")),
            "the local protocol's"),
    Message("decide", (GAME, Field("id", "integer", True, "the decision's id, unique in the game"),
                       Field("view", "object", True, "the seat's view, with `decision.options`")),
            "answer with `move`"),
    Message("turn-result", (GAME, Field("deal", "integer", True, ""), Field("turn", "integer", True, ""),
                            Field("seat_cards", "list", True, "[seat, card] revealed"),
                            Field("plays", "list", True, "the cards"), Field("events", "list", True, "what happened")),
            "the local protocol's"),
    Message("deal-end", (GAME, Field("deal", "integer", True, ""), Field("penalties", "list", True, ""),
                         Field("totals", "list", True, "")), "the local protocol's"),
    Message("game-end", (GAME, Field("totals", "list", True, ""), Field("winners", "list", True, "seats")),
            "the local protocol's: the last message about the game (after `leave` too)"),
    Message("stand-in", (GAME, Field("id", "integer", True, "the decision"),
                         Field("reason", "string", True, "`late`, `away` or `illegal`"),
                         Field("move", "integer or null", True, "what the stand-in played")),
            "the stand-in answered a decision for the bot"),
    Message("left", (GAME,), "the answer to `leave`: then only the game's `game-end` comes"),
    Message("error", (Field("code", "string", True, "what was refused (see Error codes)"),
                      Field("message", "string", True, "why, in words"),
                      Field("game", "string", False, "the game it is about"),
                      Field("id", "integer or null", False, "`not-your-decision`, `illegal-move`: the decision"),
                      Field("fields", "list of strings", False, "`bad-message`: the fields missing or wrong"),
                      Field("limit", "string or integer", False, "`rate-limited`: `messages`, `seeks` or "
                            "`invitations`; `too-many-games`: the game limit"),
                      Field("retry_after", "number", False, "`rate-limited`: seconds to wait"),
                      Field("bot", "string", False, "a refused `challenge`: who was challenged")),
            "a message refused (nothing changed), or a fault"),
)}


def _table(messages: dict[str, Message]) -> list[str]:
    lines = ["| type | fields | meaning |", "|---|---|---|"]
    for message in messages.values():
        fields = ", ".join(f"`{f.name}`{'' if f.required else '?'} ({f.json})" for f in message.fields) or "none"
        lines.append(f"| `{message.type}` | {fields} | {message.does} |")
    return lines


def reference() -> str:
    """The reference as docs/bot-api.md holds it (``?``: a field that may be left out)."""
    return "\n".join(["From the bot:", "", *_table(FROM_BOT), "", "From the server:", "", *_table(TO_BOT)]) + "\n"


if __name__ == "__main__":
    print(reference(), end="")
