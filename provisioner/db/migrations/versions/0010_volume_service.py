"""(reserved) volume service: filled in by the change that needs it

Revision ID: 0010
Revises: 0009
"""

revision = "0010"
down_revision = "0009"


def upgrade():
    pass


def downgrade():
    pass
