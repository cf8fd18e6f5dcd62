"""The web game server: tables played in the browser, accounts and ratings, the Bot API, and several
processes sharing one database.

One package per subsystem, each owning its objects and importing only the layers below it (checked
by ``tests/test_architecture.py``; docs/architecture.md draws the layers):

- the modules here (``config``, ``clock``, ``refusal``, ``wire``, ``calls``, ``limits``, ``sockets``):
  settings, time, refusals, the browser protocol, the calls between processes, rate limits and the
  socket pump every door shares; they import nothing above;
- :mod:`.store`: the database (its rows, migrations, writes);
- :mod:`.tables`: a table's session, seats, moves, scheduler, room and fan-out;
- :mod:`.accounts`: users, sessions, ratings and matchmaking, and their HTTP routes;
- :mod:`.cluster`: several server processes on one database (lease, messages, forwarding, balancing);
- :mod:`.botapi`: bot accounts, their tokens, the gateway and its wire;
- :mod:`.web`: the application that puts them together, its routes, logs and static files.
"""
