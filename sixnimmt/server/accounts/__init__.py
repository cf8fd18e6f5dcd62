"""Accounts: users and their sign-in sessions, ratings, matchmaking ("play now"), and their HTTP
routes; owns their database rows. May import the server's base modules, :mod:`..store` and
:mod:`..tables` (a rated game is a table)."""
