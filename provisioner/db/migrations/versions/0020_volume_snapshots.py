"""Cinder's volume snapshots, and volumes made from a snapshot or another volume

A snapshot's bytes are a full copy of its volume's file on the volume's ``host``
(null: the volume had no bytes yet, so the snapshot is its source, ``image_id``
or blank). A volume records the snapshot or volume it was made from.

Revision ID: 0020
Revises: 0019
"""

from alembic import op
import sqlalchemy as sa


revision = '0020'
down_revision = '0019'


def upgrade():
    op.create_table(
        'volume_snapshots',
        sa.Column('id', sa.String(length=36), primary_key=True),
        sa.Column('volume_id', sa.String(length=36), nullable=False, index=True),
        sa.Column('project_id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36)),
        sa.Column('name', sa.String(length=255)),
        sa.Column('description', sa.String(length=255)),
        sa.Column('size_gib', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('host', sa.String(length=255)),
        sa.Column('image_id', sa.String(length=36)),
        sa.Column('properties', sa.JSON()),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime()))
    with op.batch_alter_table('volumes') as batch:
        batch.add_column(sa.Column('snapshot_id', sa.String(length=36)))
        batch.add_column(sa.Column('source_volid', sa.String(length=36)))


def downgrade():
    with op.batch_alter_table('volumes') as batch:
        batch.drop_column('source_volid')
        batch.drop_column('snapshot_id')
    op.drop_table('volume_snapshots')
