"""Alembic environment: runs on the connection the store hands over (``config.attributes``)."""

from __future__ import annotations

from alembic import context

from sixnimmt.server.store.rows import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
