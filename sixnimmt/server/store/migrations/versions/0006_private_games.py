"""Finished games remember whether their table was public: a private table's games appear in no
public listing, and are shown only to whoever has the table's link (docs/web.md, "Who sees what").

Games stored before this column take their table's setting where the table is still there, and
count as private where it is not: tables were private unless their host chose otherwise.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("public", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_index("ix_games_public_id", "games", ["public", "id"])
    bind = op.get_bind()
    tables = sa.table("tables", sa.column("code", sa.String), sa.column("settings", sa.JSON))
    games = sa.table("games", sa.column("table_code", sa.String), sa.column("public", sa.Boolean))
    public = [code for code, settings in bind.execute(sa.select(tables.c.code, tables.c.settings))
              if isinstance(settings, dict) and settings.get("public")]
    for start in range(0, len(public), 500):
        bind.execute(sa.update(games).where(games.c.table_code.in_(public[start:start + 500])).values(public=True))


def downgrade() -> None:
    op.drop_index("ix_games_public_id", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("public")
