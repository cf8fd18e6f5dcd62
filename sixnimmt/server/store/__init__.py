"""The database: the rows every subsystem keeps (tables, games, accounts, the cluster's leases), the
Alembic migrations that shape them, and the writes and reads the server does. May import the server's
base modules (``config``, ``wire``) only: nothing here knows of tables, rooms or sockets."""
