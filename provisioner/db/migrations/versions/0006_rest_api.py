"""REST API: key pairs, instance actions (Nova's os-instance-actions), server fields

Every change to an instance (create, stop, start, reboot, delete, resume, rollback)
is an instance action identified by the request id of the call that asked for it;
each step event belongs to the action whose flow ran it. Instances gain the key
pair they were booted with (name and public key, copied as Nova does, so deleting
the key pair later changes nothing), the time they first ran, and a monotonic
``vm_state`` of ``stopped``.

Revision ID: 0006
Revises: 0005
"""

from alembic import op
import sqlalchemy as sa


revision = "0006"
down_revision = "0005"


def upgrade():
    op.create_table(
        "keypairs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("type", sa.String(length=8), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "name"),
    )
    op.create_table(
        "instance_actions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=True),
        sa.Column("project_id", sa.String(length=36), nullable=True),
        sa.Column("start_time", sa.DateTime(), nullable=False),
        sa.Column("finish_time", sa.DateTime(), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("flow_uuid", sa.String(length=36), nullable=True),
        sa.ForeignKeyConstraint(["instance_id"], ["instances.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_instance_actions_instance_id", "instance_actions",
                    ["instance_id"])
    with op.batch_alter_table("instance_events") as batch:
        batch.add_column(sa.Column("action_id", sa.Integer(), nullable=True))
    with op.batch_alter_table("instances") as batch:
        batch.add_column(sa.Column("key_name", sa.String(length=255), nullable=True))
        batch.add_column(sa.Column("key_data", sa.Text(), nullable=True))
        batch.add_column(sa.Column("launched_at", sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table("instances") as batch:
        batch.drop_column("launched_at")
        batch.drop_column("key_data")
        batch.drop_column("key_name")
    with op.batch_alter_table("instance_events") as batch:
        batch.drop_column("action_id")
    op.drop_index("ix_instance_actions_instance_id", table_name="instance_actions")
    op.drop_table("instance_actions")
    op.drop_table("keypairs")
