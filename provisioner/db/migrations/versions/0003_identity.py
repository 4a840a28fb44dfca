"""identity: Fernet tokens replace stored tokens; user revocation time; instance properties

Revision ID: 0003
Revises: 0002
"""

from alembic import op
import sqlalchemy as sa


revision = "0003"
down_revision = "0002"


def upgrade():
    # Fernet tokens are validated with the key repository; nothing is stored per token.
    op.drop_table("tokens")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tokens_revoked_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("instances", schema=None) as batch_op:
        batch_op.add_column(sa.Column("properties", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("instances", schema=None) as batch_op:
        batch_op.drop_column("properties")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("tokens_revoked_at")
    op.create_table(
        "tokens",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id_hash"),
    )
