"""flow store: index TaskFlow's child-to-parent columns

TaskFlow's own schema has no index on atomdetails.parent_uuid or
flowdetails.parent_uuid, so loading one flow read every atom row ever written:
a boot cost grew with the deployment's history (measured: 9 sequential scans of
atomdetails per boot in the distributed bench).

Revision ID: 0005
Revises: 0004
"""

from alembic import op


revision = "0005"
down_revision = "0004"

_INDEXES = (("ix_atomdetails_parent_uuid", "atomdetails"),
            ("ix_flowdetails_parent_uuid", "flowdetails"))


def upgrade():
    for name, table in _INDEXES:
        op.create_index(name, table, ["parent_uuid"])


def downgrade():
    for name, table in _INDEXES:
        op.drop_index(name, table_name=table)
