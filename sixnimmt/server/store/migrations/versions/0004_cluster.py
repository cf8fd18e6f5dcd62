"""Several server processes on one database: who owns each table (with a fencing epoch), the
processes' leases, and an outbox for messages between processes too large for NOTIFY.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("owner", sa.String(32), nullable=True))
    op.add_column("tables", sa.Column("owner_epoch", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "server_processes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_table("server_processes")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("owner_epoch")
        batch.drop_column("owner")
