"""Cinder's volume types (extra specs, access lists, encryption, QoS specs) and
volume transfers

A volume type is a name with extra specs (key -> value), public or private (seen
and used by admins and the projects of its access list), and at most one
encryption spec; a volume records its type. A volume transfer offers a volume to
whoever gives its id and authorization key (kept as a salted hash). QoS specs (a
consumer and key/value specs) are associated with volume types. A snapshot records
the progress its maker reports.

Revision ID: 0035
Revises: 0030
"""

from alembic import op
import sqlalchemy as sa


revision = "0035"
down_revision = '0030'


def upgrade():
    op.create_table(
        "volume_types",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("name", sa.String(length=255), nullable=False, unique=True),
        sa.Column("description", sa.String(length=255)),
        sa.Column("is_public", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("extra_specs", sa.JSON()),
        sa.Column("projects", sa.JSON()),
        sa.Column("encryption", sa.JSON()),
        sa.Column("qos_specs_id", sa.String(length=36)),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime()))
    op.create_table(
        "qos_specs",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("name", sa.String(length=255), nullable=False, unique=True),
        sa.Column("consumer", sa.String(length=16), nullable=False),
        sa.Column("specs", sa.JSON()),
        sa.Column("created_at", sa.DateTime(), nullable=False))
    with op.batch_alter_table("volumes") as batch:
        batch.add_column(sa.Column("volume_type_id", sa.String(length=36)))
        # Cinder's statuses: awaiting-transfer has 17 characters.
        batch.alter_column("status", type_=sa.String(length=32),
                           existing_type=sa.String(length=16))
    with op.batch_alter_table("volume_snapshots") as batch:
        batch.add_column(sa.Column("progress", sa.String(length=8)))
    op.create_table(
        "volume_transfers",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("volume_id", sa.String(length=36), nullable=False, unique=True),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255)),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("crypt_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False))


def downgrade():
    op.drop_table("volume_transfers")
    with op.batch_alter_table("volume_snapshots") as batch:
        batch.drop_column("progress")
    with op.batch_alter_table("volumes") as batch:
        batch.drop_column("volume_type_id")
        batch.alter_column("status", type_=sa.String(length=16),
                           existing_type=sa.String(length=32))
    op.drop_table("qos_specs")
    op.drop_table("volume_types")
