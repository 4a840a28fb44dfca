"""(reserved) network service: filled in by the change that needs it

Revision ID: 0009
Revises: 0008
"""

revision = "0009"
down_revision = "0008"


def upgrade():
    pass


def downgrade():
    pass
