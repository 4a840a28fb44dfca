"""network service: networks own projects and at most one subnet; ports of their own

Existing networks become shared networks (no owner) with one subnet, whose id is the
one the read-only API derived before (uuid5 of the network id); existing ports are
the boots' own, in their instance's project.

Revision ID: 0009
Revises: 0008
"""

import uuid

from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"

_SUBNET_NAMESPACE = uuid.UUID('0b8a4d1e-7c6f-4e8e-9a9d-3f1c2b5e6a70')
_ADDRESSING = (("cidr", 43), ("gateway", 39), ("dhcp_start", 39), ("dhcp_end", 39))


def upgrade():
    with op.batch_alter_table("networks") as batch:
        batch.add_column(sa.Column("project_id", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("shared", sa.Boolean(), server_default=sa.false(),
                                   nullable=False))
        batch.add_column(sa.Column("subnet_id", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("subnet_name", sa.String(length=255),
                                   server_default="", nullable=False))
        batch.add_column(sa.Column("enable_dhcp", sa.Boolean(), server_default=sa.true(),
                                   nullable=False))
        batch.add_column(sa.Column("dns_nameservers", sa.JSON(), nullable=True))
        for column, length in _ADDRESSING:
            batch.alter_column(column, existing_type=sa.String(length=length),
                               nullable=True)
        batch.create_unique_constraint("uq_networks_subnet_id", ["subnet_id"])
    networks = sa.table("networks", sa.column("id"), sa.column("name"),
                        sa.column("shared"), sa.column("subnet_id"),
                        sa.column("subnet_name"), sa.column("dns_nameservers", sa.JSON))
    conn = op.get_bind()
    for network_id, name in conn.execute(sa.select(networks.c.id, networks.c.name)).all():
        conn.execute(networks.update().where(networks.c.id == network_id).values(
            shared=True, subnet_id=str(uuid.uuid5(_SUBNET_NAMESPACE, network_id)),
            subnet_name=name, dns_nameservers=[]))
    with op.batch_alter_table("ports") as batch:
        batch.add_column(sa.Column("project_id", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("name", sa.String(length=255), server_default="",
                                   nullable=False))
        batch.add_column(sa.Column("boot_made", sa.Boolean(), server_default=sa.true(),
                                   nullable=False))
        batch.alter_column("instance_id", existing_type=sa.String(length=36),
                           nullable=True)
    ports = sa.table("ports", sa.column("instance_id"), sa.column("project_id"))
    instances = sa.table("instances", sa.column("id"), sa.column("project_id"))
    conn.execute(ports.update().values(project_id=sa.select(instances.c.project_id).where(
        instances.c.id == ports.c.instance_id).scalar_subquery()))


def downgrade():
    conn = op.get_bind()
    ports = sa.table("ports", sa.column("instance_id"))
    conn.execute(ports.delete().where(ports.c.instance_id.is_(None)))
    with op.batch_alter_table("ports") as batch:
        batch.alter_column("instance_id", existing_type=sa.String(length=36),
                           nullable=False)
        for column in ("boot_made", "name", "project_id"):
            batch.drop_column(column)
    networks = sa.table("networks", sa.column("cidr"))
    conn.execute(networks.delete().where(networks.c.cidr.is_(None)))
    with op.batch_alter_table("networks") as batch:
        batch.drop_constraint("uq_networks_subnet_id", type_="unique")
        for column, length in _ADDRESSING:
            batch.alter_column(column, existing_type=sa.String(length=length),
                               nullable=False)
        for column in ("dns_nameservers", "enable_dhcp", "subnet_name", "subnet_id",
                       "shared", "project_id"):
            batch.drop_column(column)
