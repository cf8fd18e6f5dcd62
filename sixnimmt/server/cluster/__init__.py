"""Several server processes on one database: which process drives which table (a lease with a
heartbeat, taken over when a process dies), the messages between processes, forwarding a socket or a
request to the process that drives its table, and balancing tables between processes. May import the
server's base modules, :mod:`..store` and :mod:`..tables`; the tables never import it (they see it
through :class:`..tables.rooms.Peers`)."""
