"""Neutron's subnet pools, and the pool a subnet was allocated from

A subnet pool is a project's (or a shared) set of IPv4 prefixes that subnets are
carved from: a subnet asked for by ``subnetpool_id`` (and a prefix length) gets the
first free range of that length in the pool.

Revision ID: 0024
Revises: 0021
"""

from alembic import op
import sqlalchemy as sa


revision = "0024"
down_revision = '0021'


def upgrade():
    op.create_table(
        "subnet_pools",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("prefixes", sa.JSON(), nullable=False),
        sa.Column("min_prefixlen", sa.Integer(), nullable=False),
        sa.Column("max_prefixlen", sa.Integer(), nullable=False),
        sa.Column("default_prefixlen", sa.Integer(), nullable=False),
        sa.Column("default_quota", sa.Integer(), nullable=True),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False))
    op.create_index("ix_subnet_pools_project_id", "subnet_pools", ["project_id"])
    with op.batch_alter_table("networks") as batch:
        batch.add_column(sa.Column("subnetpool_id", sa.String(length=36), nullable=True))
        batch.create_foreign_key("fk_networks_subnetpool_id_subnet_pools",
                                 "subnet_pools", ["subnetpool_id"], ["id"])


def downgrade():
    with op.batch_alter_table("networks") as batch:
        batch.drop_constraint("fk_networks_subnetpool_id_subnet_pools",
                              type_="foreignkey")
        batch.drop_column("subnetpool_id")
    op.drop_index("ix_subnet_pools_project_id", table_name="subnet_pools")
    op.drop_table("subnet_pools")
