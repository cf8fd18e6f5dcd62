"""Tournaments on the server (docs/web.md, "Tournaments"): the tournament, its entrants and each
round's tables with their results, so that any live process moves a tournament on.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("schedule_key", sa.String(200), nullable=True, unique=True),
    )
    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, nullable=False, index=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("account", sa.Integer, nullable=True),
        sa.Column("bot", sa.String(16), nullable=True),
        sa.Column("program", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("number", sa.Integer, nullable=True),
        sa.UniqueConstraint("tournament_id", "name"),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("totals", sa.JSON, nullable=True),
        sa.Column("game_id", sa.Integer, nullable=True),
        sa.UniqueConstraint("tournament_id", "round", "position"),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_entrants")
    op.drop_table("tournaments")
