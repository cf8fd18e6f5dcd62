"""Bot accounts and their API tokens (docs/bot-api.md): a bot is a row of ``users`` (kind "bot",
no password) with the person who owns it and a short description; each of its tokens is stored as
its SHA-256 only, with a label, when it was last used and when it was revoked. ``bot_games`` lists
the tables a bot program is seated at, so that any process it reconnects to resumes them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("description", sa.String(200), nullable=True))
    op.create_index("ix_users_owner_id", "users", ["owner_id"])
    op.create_table(
        "bot_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("last_used_at", sa.DateTime, nullable=True),
        sa.Column("revoked_at", sa.DateTime, nullable=True),
    )
    op.create_table(
        "bot_games",
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bot_games")
    op.drop_table("bot_tokens")
    op.drop_index("ix_users_owner_id", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("description")
        batch.drop_column("owner_id")
