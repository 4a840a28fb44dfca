"""Image service: uploaded images with Glance's status, visibility, owner and hashes

An image is now also a Glance image: ``status`` (queued, saving, active, killed),
``visibility`` (public or private to its ``owner`` project), ``protected``,
``container_format``, Glance's md5 ``checksum`` and ``os_hash_algo``/``os_hash_value``,
``virtual_size``, free-form ``properties`` (kernel_id, ramdisk_id, ...), and
``store_path``: the file in the image store that holds its uploaded bytes (null for
images registered by path, whose files are never the store's to delete). Images
registered before stay active and public.

Revision ID: 0007
Revises: 0006
"""

from alembic import op
import sqlalchemy as sa


revision = "0007"
down_revision = "0006"


def upgrade():
    with op.batch_alter_table("images") as batch:
        batch.add_column(sa.Column("status", sa.String(length=16), nullable=False,
                                   server_default="active"))
        batch.add_column(sa.Column("visibility", sa.String(length=16), nullable=False,
                                   server_default="public"))
        batch.add_column(sa.Column("owner", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("container_format", sa.String(length=16),
                                   nullable=True))
        batch.add_column(sa.Column("protected", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("checksum", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("os_hash_algo", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("os_hash_value", sa.String(length=128),
                                   nullable=True))
        batch.add_column(sa.Column("virtual_size", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("properties", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("store_path", sa.String(length=4096), nullable=True))
        batch.add_column(sa.Column("updated_at", sa.DateTime(), nullable=True))
        batch.create_index("ix_images_owner", ["owner"])


def downgrade():
    with op.batch_alter_table("images") as batch:
        batch.drop_index("ix_images_owner")
        for column in ("updated_at", "store_path", "properties", "virtual_size",
                       "os_hash_value", "os_hash_algo", "checksum", "protected",
                       "container_format", "owner", "visibility", "status"):
            batch.drop_column(column)
