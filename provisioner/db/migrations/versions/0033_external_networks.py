"""Neutron's external networks, router gateways, extra routes and floating IPs;
Nova's server password

``networks.router_external`` (Neutron's router:external); a router's ``routes``
(extraroute), its gateway network and ``enable_snat``; ``ports.device_owner`` and
``device_id`` for ports that belong to neither an instance nor a router interface
(a router's gateway port, a floating IP's own port); ``floatingips``; the encrypted
password a guest posts (``instances.password``, Nova's os-server-password).

Revision ID: 0033
Revises: 0032
"""

from alembic import op
import sqlalchemy as sa


revision = "0033"
down_revision = '0032'


def upgrade():
    with op.batch_alter_table("networks") as batch:
        batch.add_column(sa.Column("router_external", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    with op.batch_alter_table("ports") as batch:
        batch.add_column(sa.Column("device_owner", sa.String(length=255),
                                   nullable=True))
        batch.add_column(sa.Column("device_id", sa.String(length=36), nullable=True))
    with op.batch_alter_table("routers") as batch:
        batch.add_column(sa.Column("routes", sa.JSON(), nullable=False,
                                   server_default='[]'))
        batch.add_column(sa.Column("gw_network_id", sa.String(length=36),
                                   nullable=True))
        batch.add_column(sa.Column("enable_snat", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.create_foreign_key("fk_routers_gw_network_id_networks", "networks",
                                 ["gw_network_id"], ["id"])
    op.create_table(
        "floatingips",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("project_id", sa.String(length=36), nullable=False, index=True),
        sa.Column("description", sa.String(length=255), nullable=False,
                  server_default=''),
        sa.Column("floating_network_id", sa.String(length=36),
                  sa.ForeignKey("networks.id"), nullable=False),
        sa.Column("floating_port_id", sa.String(length=36),
                  sa.ForeignKey("ports.id"), nullable=False),
        sa.Column("floating_ip_address", sa.String(length=39), nullable=False),
        sa.Column("port_id", sa.String(length=36), sa.ForeignKey("ports.id"),
                  nullable=True, index=True),
        sa.Column("fixed_ip_address", sa.String(length=39), nullable=True),
        sa.Column("router_id", sa.String(length=36), sa.ForeignKey("routers.id"),
                  nullable=True, index=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("instances") as batch:
        batch.add_column(sa.Column("password", sa.Text(), nullable=True))


def downgrade():
    with op.batch_alter_table("instances") as batch:
        batch.drop_column("password")
    op.drop_table("floatingips")
    op.execute("DELETE FROM ports WHERE device_owner IS NOT NULL")
    with op.batch_alter_table("routers") as batch:
        batch.drop_constraint("fk_routers_gw_network_id_networks", type_="foreignkey")
        batch.drop_column("enable_snat")
        batch.drop_column("gw_network_id")
        batch.drop_column("routes")
    with op.batch_alter_table("ports") as batch:
        batch.drop_column("device_id")
        batch.drop_column("device_owner")
    with op.batch_alter_table("networks") as batch:
        batch.drop_column("router_external")
