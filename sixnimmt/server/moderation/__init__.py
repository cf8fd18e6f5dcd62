"""Moderation (docs/web.md, "Moderation"): players' reports with their context, blocks between
accounts, bans of accounts and addresses, forced renames, closed bots, voided rated games, the
moderators and the log of every action; their HTTP routes, and what the ``sixnimmt admin`` command
calls. The tables, the accounts and the Bot API ask it only through what they are given (the
:class:`~sixnimmt.server.tables.shield.BlockBook`), so none of them imports this package.
May import the server's base modules, :mod:`..store`, :mod:`..tables`, :mod:`..accounts`,
:mod:`..cluster` and :mod:`..botapi`."""
