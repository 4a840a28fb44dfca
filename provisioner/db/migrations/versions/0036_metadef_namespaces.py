"""Glance's metadata definitions

A namespace of metadata definitions (its objects, properties, tags and resource
type associations kept as one document), owned by a project, public or private,
protected from deletion when asked.

Revision ID: 0036
Revises: 0034
"""

from alembic import op
import sqlalchemy as sa


revision = "0036"
down_revision = '0034'


def upgrade():
    op.create_table(
        "metadef_namespaces",
        sa.Column("namespace", sa.String(length=80), primary_key=True),
        sa.Column("display_name", sa.String(length=80), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("visibility", sa.String(length=32), nullable=False),
        sa.Column("protected", sa.Boolean(), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False))


def downgrade():
    op.drop_table("metadef_namespaces")
