"""distributed engine: instance leases (fencing) and deferred host steps

Revision ID: 0004
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa


revision = "0004"
down_revision = "0003"


def upgrade():
    op.create_table(
        "instance_leases",
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("rollback_requested", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("instance_id"),
    )
    op.create_table(
        "deferred_host_steps",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("task", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_deferred_host_steps_host", "deferred_host_steps", ["host"])


def downgrade():
    op.drop_index("ix_deferred_host_steps_host", table_name="deferred_host_steps")
    op.drop_table("deferred_host_steps")
    op.drop_table("instance_leases")
