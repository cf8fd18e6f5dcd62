"""Arena entrants who are away are not seated (docs/web.md, "Tournaments"): an entrant's pause (their
own) and when they were last seen on the tournament's page.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.add_column(sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("seen_at", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_entrants") as batch:
        batch.drop_column("seen_at")
        batch.drop_column("paused")
