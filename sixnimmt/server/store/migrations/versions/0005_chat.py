"""A table's chat in a column of its own: it changes when someone writes in it, not with every move,
so a move's save no longer writes the whole chat again (``current`` did, up to 50 lines).

Tables saved before keep their chat in ``current`` until their next chat line; a load reads it from
there while the column is empty.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("chat", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("chat")
