"""Neutron's descriptions: a network's, its subnet's and a port's

Free text a user gives (``openstack network create --description``, Terraform's
``description``), at most 255 characters as Neutron's; existing rows get ''.

Revision ID: 0013
Revises: 0012
"""

from alembic import op
import sqlalchemy as sa


revision = "0013"
down_revision = "0012"

_COLUMNS = (("networks", ("description", "subnet_description")),
            ("ports", ("description",)))


def upgrade():
    for table, columns in _COLUMNS:
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.add_column(sa.Column(column, sa.String(length=255),
                                           server_default="", nullable=False))


def downgrade():
    for table, columns in _COLUMNS:
        with op.batch_alter_table(table) as batch:
            for column in reversed(columns):
                batch.drop_column(column)
