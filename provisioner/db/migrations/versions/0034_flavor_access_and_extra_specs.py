"""Nova's flavor fields, access lists and extra specs

A flavor may be private (``is_public`` false): only admins and the projects on its
access list see or boot it. It records Nova's ephemeral and swap sizes and
rxtx_factor, and extra specs (key -> value).

Revision ID: 0034
Revises: 0025
"""

from alembic import op
import sqlalchemy as sa


revision = "0034"
down_revision = '0025'


def upgrade():
    with op.batch_alter_table("flavors") as batch:
        batch.add_column(sa.Column("is_public", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("ephemeral_gib", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("swap_mib", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("rxtx_factor", sa.Float(), nullable=False,
                                   server_default="1.0"))
    op.create_table(
        "flavor_projects",
        sa.Column("flavor_id", sa.String(length=36),
                  sa.ForeignKey("flavors.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("project_id", sa.String(length=255), primary_key=True))
    op.create_table(
        "flavor_extra_specs",
        sa.Column("flavor_id", sa.String(length=36),
                  sa.ForeignKey("flavors.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("key", sa.String(length=255), primary_key=True),
        sa.Column("value", sa.String(length=255), nullable=False))


def downgrade():
    op.drop_table("flavor_extra_specs")
    op.drop_table("flavor_projects")
    with op.batch_alter_table("flavors") as batch:
        for column in ("rxtx_factor", "swap_mib", "ephemeral_gib", "is_public"):
            batch.drop_column(column)
