"""Moderation (docs/web.md, "Moderation"): players' reports with their context, blocks between
accounts, bans of addresses, the operator's moderators, the rated games voided, and the log of every
moderator's action. An account's ban is a column of ``users`` (``banned_until``), so signing in and
every session check read it with the account.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("banned_until", sa.DateTime, nullable=True))
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False, index=True),
        sa.Column("reporter_id", sa.Integer, nullable=True, index=True),
        sa.Column("reporter_address", sa.String(64), nullable=False, index=True),
        sa.Column("target_id", sa.Integer, nullable=True, index=True),
        sa.Column("target_name", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("note", sa.String(500), nullable=False),
        sa.Column("place", sa.String(16), nullable=False),
        sa.Column("table_code", sa.String(16), nullable=True),
        sa.Column("game_id", sa.Integer, nullable=True),
        sa.Column("context", sa.JSON, nullable=False),
        sa.Column("resolved_at", sa.DateTime, nullable=True),
        sa.Column("resolution", sa.String(500), nullable=True),
    )
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("blocked_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "address_bans",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("address", sa.String(64), nullable=False, index=True),
        sa.Column("until", sa.DateTime, nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
    )
    op.create_table(
        "moderators",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("since", sa.DateTime, nullable=False),
    )
    op.create_table(
        "voided_games",
        sa.Column("game_id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime, nullable=False, index=True),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(128), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("moderation_log")
    op.drop_table("voided_games")
    op.drop_table("moderators")
    op.drop_table("address_bans")
    op.drop_index("ix_blocks_blocked_id", "blocks")
    op.drop_table("blocks")
    op.drop_table("reports")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("banned_until")
