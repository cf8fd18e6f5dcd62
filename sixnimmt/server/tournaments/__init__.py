"""Tournaments on the server (docs/web.md, "Tournaments"): Swiss and duplicate rounds at ordinary
tables, for people, server bots and bot programs alike.

- ``tourney_rows.py``: the tournament, its entrants and each round's tables with their results, in
  the database (every change of course a compare-and-swap on the tournament's version);
- ``director.py``: the director each process runs, which opens rounds at their time and moves on
  when a round's tables have finished, whichever process lives; seating and scoring are
  :mod:`sixnimmt.competition`'s;
- ``tourney_routes.py``: the HTTP routes of the list, creating, entering and a tournament's page.

May import: the server's own modules, ``store``, ``tables``, ``accounts``, ``cluster``.
"""
