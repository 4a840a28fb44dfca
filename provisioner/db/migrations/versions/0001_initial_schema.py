"""initial schema

Revision ID: 0001
Revises: none (first revision)
"""

from alembic import op
import sqlalchemy as sa


revision = "0001"
down_revision = None


def upgrade():
    op.create_table(
        "flavors",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("ram_mib", sa.Integer(), nullable=False),
        sa.Column("disk_gib", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "hosts",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("memory_mib", sa.Integer(), nullable=False),
        sa.Column("disk_gib", sa.Integer(), nullable=False),
        sa.Column("vcpus_used", sa.Integer(), nullable=False),
        sa.Column("memory_mib_used", sa.Integer(), nullable=False),
        sa.Column("disk_gib_used", sa.Integer(), nullable=False),
        sa.Column("cpu_allocation_ratio", sa.Double(), nullable=False),
        sa.Column("ram_allocation_ratio", sa.Double(), nullable=False),
        sa.Column("disk_allocation_ratio", sa.Double(), nullable=False),
        sa.Column("hypervisor_type", sa.String(length=16), nullable=False),
        sa.Column("arch", sa.String(length=16), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "images",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("disk_path", sa.String(length=4096), nullable=True),
        sa.Column("disk_format", sa.String(length=16), nullable=True),
        sa.Column("disk_sha256", sa.String(length=64), nullable=True),
        sa.Column("kernel_path", sa.String(length=4096), nullable=True),
        sa.Column("kernel_sha256", sa.String(length=64), nullable=True),
        sa.Column("ramdisk_path", sa.String(length=4096), nullable=True),
        sa.Column("ramdisk_sha256", sa.String(length=64), nullable=True),
        sa.Column("cmdline", sa.String(length=1024), nullable=True),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "networks",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("cidr", sa.String(length=43), nullable=False),
        sa.Column("gateway", sa.String(length=39), nullable=False),
        sa.Column("dhcp_start", sa.String(length=39), nullable=False),
        sa.Column("dhcp_end", sa.String(length=39), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "instances",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("flavor_id", sa.String(length=36), nullable=False),
        sa.Column("image_id", sa.String(length=36), nullable=False),
        sa.Column("request_spec", sa.JSON(), nullable=False),
        sa.Column("user_data", sa.LargeBinary(), nullable=True),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("vm_state", sa.String(length=16), nullable=False),
        sa.Column("task_state", sa.String(length=32), nullable=True),
        sa.Column("power_state", sa.String(length=16), nullable=False),
        sa.Column("fault", sa.Text(), nullable=True),
        sa.Column("flow_uuid", sa.String(length=36), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["flavor_id"],
            ["flavors.id"],
        ),
        sa.ForeignKeyConstraint(
            ["image_id"],
            ["images.id"],
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("instances", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_instances_name"), ["name"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_instances_project_id"), ["project_id"], unique=False
        )

    op.create_table(
        "role_assignments",
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "project_id", "role"),
    )
    op.create_table(
        "tokens",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id_hash"),
    )
    op.create_table(
        "allocations",
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("host_id", sa.String(length=36), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("memory_mib", sa.Integer(), nullable=False),
        sa.Column("disk_gib", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["host_id"],
            ["hosts.id"],
        ),
        sa.ForeignKeyConstraint(
            ["instance_id"],
            ["instances.id"],
        ),
        sa.PrimaryKeyConstraint("instance_id"),
    )
    op.create_table(
        "instance_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("result", sa.String(length=16), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["instance_id"], ["instances.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("instance_events", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_instance_events_instance_id"), ["instance_id"], unique=False
        )

    op.create_table(
        "ports",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.Column("mac", sa.String(length=17), nullable=False),
        sa.Column("ip", sa.String(length=39), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["instance_id"],
            ["instances.id"],
        ),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("instance_id", "network_id"),
        sa.UniqueConstraint("network_id", "mac"),
        sa.UniqueConstraint("network_id", "ip"),
    )
    with op.batch_alter_table("ports", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ports_instance_id"), ["instance_id"], unique=False
        )

    op.create_table(
        "volumes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("instance_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("size_gib", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("path", sa.String(length=4096), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["instance_id"],
            ["instances.id"],
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("instance_id", "index"),
    )
    with op.batch_alter_table("volumes", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_volumes_instance_id"), ["instance_id"], unique=False
        )
