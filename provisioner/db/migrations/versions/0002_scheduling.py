"""scheduling: host zones, image properties, server groups, quotas

Revision ID: 0002
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa


revision = "0002"
down_revision = "0001"


def upgrade():
    with op.batch_alter_table("hosts") as batch:
        batch.add_column(sa.Column("availability_zone", sa.String(length=255),
                                   server_default="nova", nullable=False))
        batch.add_column(sa.Column("disabled_reason", sa.String(length=255),
                                   nullable=True))
    with op.batch_alter_table("images") as batch:
        batch.add_column(sa.Column("arch", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("hypervisor_type", sa.String(length=16),
                                   nullable=True))
        batch.add_column(sa.Column("min_ram_mib", sa.Integer(), server_default="0",
                                   nullable=False))
        batch.add_column(sa.Column("min_disk_gib", sa.Integer(), server_default="0",
                                   nullable=False))
    op.create_table(
        "server_groups",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("policy", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "name"),
    )
    op.create_table(
        "server_group_members",
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("group_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["server_groups.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["instance_id"], ["instances.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("instance_id"),
    )
    op.create_index(op.f("ix_server_group_members_group_id"), "server_group_members",
                    ["group_id"], unique=False)
    op.create_table(
        "quota_limits",
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("resource", sa.String(length=32), nullable=False),
        sa.Column("hard_limit", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("project_id", "resource"),
    )
    op.create_table(
        "quota_usages",
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("resource", sa.String(length=32), nullable=False),
        sa.Column("in_use", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("project_id", "resource"),
    )
    op.create_table(
        "quota_reservations",
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("amounts", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["instance_id"], ["instances.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"]),
        sa.PrimaryKeyConstraint("instance_id"),
    )


def downgrade():
    op.drop_table("quota_reservations")
    op.drop_table("quota_usages")
    op.drop_table("quota_limits")
    op.drop_index(op.f("ix_server_group_members_group_id"),
                  table_name="server_group_members")
    op.drop_table("server_group_members")
    op.drop_table("server_groups")
    with op.batch_alter_table("images") as batch:
        for column in ("min_disk_gib", "min_ram_mib", "hypervisor_type", "arch"):
            batch.drop_column(column)
    with op.batch_alter_table("hosts") as batch:
        batch.drop_column("disabled_reason")
        batch.drop_column("availability_zone")
