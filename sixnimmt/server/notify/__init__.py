"""Notifications (optional): e-mail addresses and their confirmation, password reset by mail,
"your move" mails for turn-based tables with a one-click unsubscribe, Web Push subscriptions, the
server's VAPID keys and the pushes; owns their database rows and HTTP routes. May import the
server's base modules, :mod:`..store`, :mod:`..tables` (a move due at a turn-based table) and
:mod:`..accounts` (whose accounts are told)."""
