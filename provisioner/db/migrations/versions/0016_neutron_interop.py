"""Neutron's ports without a subnet, subnets' host routes, security groups, routers

A port may be made on a network without a subnet (no fixed IP: ``ports.ip`` null)
and be administratively down (``admin_state_up``); a subnet keeps its host routes;
a network's name is as long as Neutron's (255). Security groups, their rules and
the groups each port carries are recorded for the agent that will enforce them;
routers too, their interfaces being ports (``ports.router_id``).

Revision ID: 0016
Revises: 0015
"""

from alembic import op
import sqlalchemy as sa


revision = "0016"
down_revision = '0015'


def _timestamp():
    return sa.Column("created_at", sa.DateTime(), nullable=False)


def upgrade():
    with op.batch_alter_table("networks") as batch:
        batch.alter_column("name", existing_type=sa.String(length=64),
                           type_=sa.String(length=255), existing_nullable=False)
        batch.add_column(sa.Column("host_routes", sa.JSON(), server_default="[]",
                                   nullable=False))
    op.create_table(
        "routers",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("admin_state_up", sa.Boolean(), nullable=False),
        _timestamp())
    op.create_index("ix_routers_project_id", "routers", ["project_id"])
    with op.batch_alter_table("ports") as batch:
        batch.alter_column("ip", existing_type=sa.String(length=39), nullable=True)
        batch.add_column(sa.Column("admin_state_up", sa.Boolean(),
                                   server_default=sa.true(), nullable=False))
        batch.add_column(sa.Column("router_id", sa.String(length=36), nullable=True))
        batch.create_foreign_key("fk_ports_router_id_routers", "routers",
                                 ["router_id"], ["id"])
        batch.create_index("ix_ports_router_id", ["router_id"])
    op.create_table(
        "security_groups",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("default_of", sa.String(length=36), nullable=True, unique=True),
        _timestamp())
    op.create_index("ix_security_groups_project_id", "security_groups",
                    ["project_id"])
    op.create_table(
        "security_group_rules",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("security_group_id", sa.String(length=36),
                  sa.ForeignKey("security_groups.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("direction", sa.String(length=7), nullable=False),
        sa.Column("ethertype", sa.String(length=4), nullable=False),
        sa.Column("protocol", sa.String(length=40), nullable=True),
        sa.Column("port_range_min", sa.Integer(), nullable=True),
        sa.Column("port_range_max", sa.Integer(), nullable=True),
        sa.Column("remote_ip_prefix", sa.String(length=43), nullable=True),
        sa.Column("remote_group_id", sa.String(length=36),
                  sa.ForeignKey("security_groups.id", ondelete="CASCADE"),
                  nullable=True),
        sa.Column("description", sa.String(length=255), nullable=False),
        _timestamp())
    op.create_index("ix_security_group_rules_security_group_id",
                    "security_group_rules", ["security_group_id"])
    op.create_table(
        "port_security_groups",
        sa.Column("port_id", sa.String(length=36),
                  sa.ForeignKey("ports.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("security_group_id", sa.String(length=36),
                  sa.ForeignKey("security_groups.id"), primary_key=True))
    op.create_index("ix_port_security_groups_security_group_id",
                    "port_security_groups", ["security_group_id"])


def downgrade():
    op.drop_table("port_security_groups")
    op.drop_table("security_group_rules")
    op.drop_table("security_groups")
    op.execute("DELETE FROM ports WHERE ip IS NULL OR router_id IS NOT NULL")
    with op.batch_alter_table("ports") as batch:
        batch.drop_index("ix_ports_router_id")
        batch.drop_constraint("fk_ports_router_id_routers", type_="foreignkey")
        batch.drop_column("router_id")
        batch.drop_column("admin_state_up")
        batch.alter_column("ip", existing_type=sa.String(length=39), nullable=False)
    op.drop_table("routers")
    with op.batch_alter_table("networks") as batch:
        batch.drop_column("host_routes")
        batch.alter_column("name", existing_type=sa.String(length=255),
                           type_=sa.String(length=64), existing_nullable=False)
