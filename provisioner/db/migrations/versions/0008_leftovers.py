"""(reserved) leftovers: filled in by the change that needs it

Revision ID: 0008
Revises: 0007
"""

revision = "0008"
down_revision = "0007"


def upgrade():
    pass


def downgrade():
    pass
