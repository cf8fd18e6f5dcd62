"""E-mail and Web Push (docs/web.md, "E-mail" and "Push"): an account's address, the links mailed
to it (only their SHA-256), the last "your move" mail per table and account, the browsers
subscribed to pushes, and the server's VAPID key.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def _user() -> sa.Column[int]:
    return sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "emails",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("confirmed", sa.Boolean, nullable=False),
        sa.Column("move_mails", sa.Boolean, nullable=False),
        sa.Column("unsubscribe_key", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False, server_default="en"),
    )
    op.create_table(
        "mail_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        _user(),
        sa.Column("purpose", sa.String(8), nullable=False),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_mail_tokens_user_id", "mail_tokens", ["user_id"])
    op.create_table(
        "move_mails",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("sent_at", sa.Float, nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer, primary_key=True),
        _user(),
        sa.Column("endpoint", sa.String(1000), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False, server_default="en"),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])
    op.create_table(
        "vapid_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("private_pem", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vapid_keys")
    op.drop_index("ix_push_subscriptions_user_id", "push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("move_mails")
    op.drop_index("ix_mail_tokens_user_id", "mail_tokens")
    op.drop_table("mail_tokens")
    op.drop_table("emails")
