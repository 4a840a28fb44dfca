"""Leftovers: what a failed cleanup could not remove from a host

One row per resource (kind, name, host, instance, error, time) that a revert or a
delete could not remove, or that a host still holds after its network was deleted;
``resolved_at`` is set once an audit --fix, a later delete or the host's reconciler
removed it or found it gone.

Revision ID: 0008
Revises: 0007
"""

from alembic import op
import sqlalchemy as sa


revision = "0008"
down_revision = "0007"


def upgrade():
    op.create_table(
        "leftovers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("instance_id", sa.String(length=36), nullable=True),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("resolved_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_leftovers_host", "leftovers", ["host"])
    op.create_index("ix_leftovers_instance_id", "leftovers", ["instance_id"])


def downgrade():
    op.drop_index("ix_leftovers_instance_id", table_name="leftovers")
    op.drop_index("ix_leftovers_host", table_name="leftovers")
    op.drop_table("leftovers")
