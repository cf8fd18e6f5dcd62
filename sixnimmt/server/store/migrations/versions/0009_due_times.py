"""When each table's current decision runs out with nobody at it (a turn-based table's deadline, as
calendar seconds), indexed, so that any live process of a cluster takes the tables that are due
(:mod:`sixnimmt.server.cluster.peers`) whichever process drove them before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("due_at", sa.Float, nullable=True))
    op.create_index("ix_tables_due_at", "tables", ["due_at"])
    # the deadlines of the turn-based games already under way (kept in ``current`` until now)
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, current FROM tables WHERE status = 'playing'")).fetchall()
    for row_id, current in rows:
        if isinstance(current, str):
            import json

            current = json.loads(current)
        deadline = (current or {}).get("deadline")
        if deadline is not None:
            bind.execute(sa.text("UPDATE tables SET due_at = :due WHERE id = :id"), {"due": deadline, "id": row_id})


def downgrade() -> None:
    op.drop_index("ix_tables_due_at", "tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("due_at")
