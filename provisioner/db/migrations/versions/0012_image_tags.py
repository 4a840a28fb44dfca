"""Glance's image tags: a list of strings per image

Revision ID: 0012
Revises: 0011
"""

from alembic import op
import sqlalchemy as sa


revision = "0012"
down_revision = "0011"


def upgrade():
    with op.batch_alter_table("images") as batch:
        batch.add_column(sa.Column("tags", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("images") as batch:
        batch.drop_column("tags")
