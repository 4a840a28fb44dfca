"""What the compute microversions 2.19 - 2.90 keep of a server

``description`` (2.19), ``locked_reason`` (2.73), ``hostname`` (2.90: what the
guest is told its name is, None until a user sets it: then it is derived from the
display name), ``trusted_certs`` (2.63: the certificate ids, JSON) on instances;
``instance_tags`` (2.26: a server's tags, at most 50, Nova's instance tags).
Device tags (2.32/2.42) stay in the request spec, with the nics they name.

Revision ID: 0018
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'


def upgrade():
    with op.batch_alter_table("instances") as batch:
        batch.add_column(sa.Column("description", sa.String(length=255)))
        batch.add_column(sa.Column("locked_reason", sa.String(length=255)))
        batch.add_column(sa.Column("hostname", sa.String(length=255)))
        batch.add_column(sa.Column("trusted_certs", sa.JSON()))
    op.create_table(
        "instance_tags",
        sa.Column("instance_id", sa.String(length=36),
                  sa.ForeignKey("instances.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("tag", sa.String(length=60), primary_key=True))
    op.create_index("ix_instance_tags_tag", "instance_tags", ["tag"])


def downgrade():
    op.drop_index("ix_instance_tags_tag", table_name="instance_tags")
    op.drop_table("instance_tags")
    with op.batch_alter_table("instances") as batch:
        batch.drop_column("trusted_certs")
        batch.drop_column("hostname")
        batch.drop_column("locked_reason")
        batch.drop_column("description")
