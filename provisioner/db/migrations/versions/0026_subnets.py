"""Subnets in a table of their own: a network may have several IPv4 subnets

Each network's subnet moves from the networks row (its subnet_* and addressing
columns) to a subnets row with the same id; a downgrade moves each network's first
subnet back and drops the others.

Revision ID: 0026
Revises: 0028
"""

from alembic import op
import sqlalchemy as sa

revision = "0026"
down_revision = "0028"

_ADDRESSING = (("cidr", 43), ("gateway", 39), ("dhcp_start", 39), ("dhcp_end", 39))
# networks column -> subnets column
_MOVED = {"subnet_id": "id", "subnet_name": "name",
          "subnet_description": "description", "cidr": "cidr", "gateway": "gateway",
          "dhcp_start": "dhcp_start", "dhcp_end": "dhcp_end",
          "enable_dhcp": "enable_dhcp", "dns_nameservers": "dns_nameservers",
          "host_routes": "host_routes", "subnetpool_id": "subnetpool_id"}
_JSON = ("dns_nameservers", "host_routes")


def _networks_table():
    return sa.table("networks", sa.column("id"), sa.column("created_at"),
                    *[sa.column(c, sa.JSON) if c in _JSON else sa.column(c)
                      for c in _MOVED])


def _subnets_table():
    return sa.table("subnets", sa.column("network_id"), sa.column("created_at"),
                    *[sa.column(c, sa.JSON) if c in _JSON else sa.column(c)
                      for c in _MOVED.values()])


def upgrade():
    conn = op.get_bind()
    networks, subnets = _networks_table(), _subnets_table()
    # Read first, make the table after the networks table is rebuilt: SQLite's batch
    # rebuild drops the old table, which would cascade into subnets already there.
    moved = []
    for row in conn.execute(sa.select(networks).where(
            networks.c.subnet_id.is_not(None))).mappings().all():
        values = {new: row[old] for old, new in _MOVED.items()}
        for key, empty in (("dns_nameservers", []), ("host_routes", []), ("name", ""),
                           ("description", "")):
            values[key] = values[key] or empty
        moved.append(dict(values, network_id=row["id"], created_at=row["created_at"]))
    with op.batch_alter_table("networks") as batch:
        batch.drop_constraint("fk_networks_subnetpool_id_subnet_pools",
                              type_="foreignkey")
        batch.drop_constraint("uq_networks_subnet_id", type_="unique")
        for column in _MOVED:
            batch.drop_column(column)
    op.create_table(
        "subnets",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("network_id", sa.String(length=36),
                  sa.ForeignKey("networks.id", name="fk_subnets_network_id_networks",
                                ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("cidr", sa.String(length=43), nullable=False),
        sa.Column("gateway", sa.String(length=39), nullable=True),
        sa.Column("dhcp_start", sa.String(length=39), nullable=False),
        sa.Column("dhcp_end", sa.String(length=39), nullable=False),
        sa.Column("enable_dhcp", sa.Boolean(), nullable=False),
        sa.Column("dns_nameservers", sa.JSON(), nullable=False),
        sa.Column("host_routes", sa.JSON(), nullable=False),
        sa.Column("subnetpool_id", sa.String(length=36),
                  sa.ForeignKey("subnet_pools.id",
                                name="fk_subnets_subnetpool_id_subnet_pools"),
                  nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False))
    op.create_index("ix_subnets_network_id", "subnets", ["network_id"])
    if moved:
        conn.execute(subnets.insert(), moved)


def downgrade():
    conn = op.get_bind()
    networks, subnets = _networks_table(), _subnets_table()
    first = {}
    for row in conn.execute(sa.select(subnets).order_by(
            subnets.c.created_at, subnets.c.id)).mappings().all():
        first.setdefault(row["network_id"], row)  # one subnet per network before
    op.drop_index("ix_subnets_network_id", table_name="subnets")
    op.drop_table("subnets")
    with op.batch_alter_table("networks") as batch:
        batch.add_column(sa.Column("subnet_id", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("subnet_name", sa.String(length=255),
                                   server_default="", nullable=False))
        batch.add_column(sa.Column("subnet_description", sa.String(length=255),
                                   server_default="", nullable=False))
        for column, length in _ADDRESSING:
            batch.add_column(sa.Column(column, sa.String(length=length), nullable=True))
        batch.add_column(sa.Column("enable_dhcp", sa.Boolean(), server_default=sa.true(),
                                   nullable=False))
        batch.add_column(sa.Column("dns_nameservers", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("host_routes", sa.JSON(), server_default="[]",
                                   nullable=False))
        batch.add_column(sa.Column("subnetpool_id", sa.String(length=36),
                                   nullable=True))
        batch.create_unique_constraint("uq_networks_subnet_id", ["subnet_id"])
        batch.create_foreign_key("fk_networks_subnetpool_id_subnet_pools",
                                 "subnet_pools", ["subnetpool_id"], ["id"])
    for network_id, row in first.items():
        conn.execute(networks.update().where(networks.c.id == network_id).values(
            **{old: row[new] for old, new in _MOVED.items()}))
