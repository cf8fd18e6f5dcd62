"""Tables in play and finished games.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("game_number", sa.Integer, nullable=False),
        sa.Column("record", sa.JSON, nullable=True),
        sa.Column("current", sa.JSON, nullable=True),
    )
    op.create_index("ix_tables_code", "tables", ["code"], unique=True)
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("finished_at", sa.DateTime, nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("totals", sa.JSON, nullable=False),
        sa.Column("winners", sa.JSON, nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_index("ix_games_table_code", "games", ["table_code"])
    op.create_index("ix_games_finished_at", "games", ["finished_at"])


def downgrade() -> None:
    op.drop_table("games")
    op.drop_table("tables")
