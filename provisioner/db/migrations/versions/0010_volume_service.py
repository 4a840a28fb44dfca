"""Volume service: volumes of their own, attached to and detached from servers

A volume made by the volume service has no boot ``index`` and outlives servers:
``instance_id`` is the server it is attached to (null while available) and ``host``
the compute host whose pool holds its bytes (null until its first attachment, which
makes them there). Cinder's ``name``, ``description``, ``bootable``, the source
``image_id``, the owner ``user_id``, ``availability_zone``, the guest's ``device``,
``attached_at``, ``updated_at``, and ``action_id``: the attach or detach action whose
flow is under way.

Revision ID: 0010
Revises: 0009
"""

from alembic import op
import sqlalchemy as sa


revision = "0010"
down_revision = "0009"

_COLUMNS = (
    ("name", sa.String(length=255)), ("description", sa.String(length=255)),
    ("user_id", sa.String(length=36)), ("host", sa.String(length=255)),
    ("availability_zone", sa.String(length=255)), ("image_id", sa.String(length=36)),
    ("device", sa.String(length=32)), ("action_id", sa.Integer()),
    ("attached_at", sa.DateTime()), ("updated_at", sa.DateTime()),
)


def upgrade():
    with op.batch_alter_table("volumes") as batch:
        batch.alter_column("instance_id", existing_type=sa.String(length=36),
                           nullable=True)
        batch.alter_column("index", existing_type=sa.Integer(), nullable=True)
        for name, kind in _COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))
        batch.add_column(sa.Column("bootable", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade():
    with op.batch_alter_table("volumes") as batch:
        batch.drop_column("bootable")
        for name, _kind in reversed(_COLUMNS):
            batch.drop_column(name)
        batch.alter_column("index", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("instance_id", existing_type=sa.String(length=36),
                           nullable=False)
