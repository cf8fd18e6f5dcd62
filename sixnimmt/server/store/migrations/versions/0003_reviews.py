"""Reviews of finished games, one per game and seat.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("result", sa.JSON, nullable=False),
        sa.UniqueConstraint("game_id", "seat", name="uq_reviews_game_seat"),
    )
    op.create_index("ix_reviews_game_id", "reviews", ["game_id"])


def downgrade() -> None:
    op.drop_table("reviews")
