"""Accounts, sessions, ratings and their history, the ledger of rated games, who played which game
under an account, and the tables "Play now" has opened and is filling.

Revision ID: 0007
Revises: 0006 (re-chained onto 0006 when merged)
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        # the name folded for comparison (unique without regard to case)
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False, server_default="person"),
        sa.Column("bot_level", sa.String(16), nullable=True, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        # raised by each password change: sessions made under an older one stop working
        sa.Column("password_epoch", sa.Integer, nullable=False, server_default="0"),
        # the key seat tokens at this account's tables are derived from (a second device resumes)
        sa.Column("seat_key", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("deleted_at", sa.DateTime, nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("password_epoch", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False, index=True),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("user_id", "variant", name="uq_ratings_user_variant"),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("game_id", sa.Integer, nullable=False, index=True),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("game_id", "user_id", name="uq_rating_history_game_user"),
    )
    op.create_index("ix_rating_history_user_variant", "rating_history", ["user_id", "variant", "id"])
    op.create_table(
        "rated_games",
        # one row per rated game, written in the transaction that changes the ratings: exactly once
        sa.Column("game_id", sa.Integer, primary_key=True),
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("applied_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("table_code", "number", name="uq_rated_games_table_number"),
    )
    op.create_table(
        "game_players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False, index=True),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.UniqueConstraint("game_id", "seat", name="uq_game_players_game_seat"),
    )
    op.create_table(
        "play_now",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False, index=True),
    )


def downgrade() -> None:
    for table in ("play_now", "game_players", "rated_games", "rating_history", "ratings", "sessions", "users"):
        op.drop_table(table)
