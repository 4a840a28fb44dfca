"""Cinder's volume metadata, image metadata and read-only flag

A volume's user metadata (key/value pairs, ``openstack volume set --property``),
its image metadata (Cinder's volume_image_metadata: what the image it was made
from was, copied at creation) and its read-only flag (os-update_readonly_flag,
Cinder's admin metadata ``readonly``: null until set). Existing volumes have
none of them; one made from an image shows its image id until then.

Revision ID: 0015
Revises: 0014
"""

from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'


def upgrade():
    with op.batch_alter_table("volumes") as batch:
        batch.add_column(sa.Column("properties", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("image_metadata", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("readonly", sa.Boolean(), nullable=True))


def downgrade():
    with op.batch_alter_table("volumes") as batch:
        batch.drop_column("readonly")
        batch.drop_column("image_metadata")
        batch.drop_column("properties")
