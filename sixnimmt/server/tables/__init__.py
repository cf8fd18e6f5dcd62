"""Game tables: a table's session (game, seats, saved state), its seats and the moves made at it, the
scheduler that plays bots and stand-ins and runs the clock, the room that holds its sockets, the fan-out
that tells each one its own view, and the registry of rooms. May import the engine, the seats, the
server's base modules and :mod:`..store`; never the accounts, the cluster, the Bot API or the web app
(they reach a table through the registry, :class:`.rooms.Rooms`)."""
