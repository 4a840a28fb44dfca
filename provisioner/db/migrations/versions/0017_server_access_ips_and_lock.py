"""Nova's access addresses and lock of a server

``access_ip_v4`` and ``access_ip_v6`` are what a user says the server is reached
at (Nova's accessIPv4/accessIPv6: kept and shown, nothing is routed by them);
``locked_by`` is who locked it ('owner' or 'admin', Nova's values), None when it
is not locked.

Revision ID: 0017
Revises: 0016
"""

from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0016'


def upgrade():
    with op.batch_alter_table("instances") as batch:
        batch.add_column(sa.Column("access_ip_v4", sa.String(length=39)))
        batch.add_column(sa.Column("access_ip_v6", sa.String(length=39)))
        batch.add_column(sa.Column("locked_by", sa.String(length=16)))


def downgrade():
    with op.batch_alter_table("instances") as batch:
        batch.drop_column("locked_by")
        batch.drop_column("access_ip_v6")
        batch.drop_column("access_ip_v4")
