"""The Bot API (docs/bot-api.md): bot accounts and their tokens, the gateway that connects a bot
program to the tables it plays at, the link between one seat and its program, and the HTTP routes.
May import the server's base modules, :mod:`..store`, :mod:`..tables`, :mod:`..accounts`,
:mod:`..cluster` and :mod:`..tournaments` (a program's entries: ``tourney_entries.py``)."""
