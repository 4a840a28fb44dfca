"""Nova's migration records: a server's move between hosts

One row per live migration (later cold migrations and resizes): the source and
destination hosts, its status, and the resources claimed on the destination while
the move is under way (0 once they became the instance's own claim or went back).

Revision ID: 0032
Revises: 0036
"""

from alembic import op
import sqlalchemy as sa


revision = "0032"
down_revision = '0036'


def upgrade():
    op.create_table(
        "migrations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(length=36), nullable=False, unique=True),
        sa.Column("instance_id", sa.String(length=36),
                  sa.ForeignKey("instances.id"), nullable=False, index=True),
        sa.Column("action_id", sa.Integer(), nullable=True),
        sa.Column("migration_type", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("source_compute", sa.String(length=255), nullable=False),
        sa.Column("dest_compute", sa.String(length=255), nullable=False),
        sa.Column("dest_address", sa.String(length=39), nullable=True),
        sa.Column("flavor_id", sa.String(length=36), nullable=True),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("memory_mib", sa.Integer(), nullable=False),
        sa.Column("disk_gib", sa.Integer(), nullable=False),
        sa.Column("dest_claimed", sa.Boolean(), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=True),
        sa.Column("user_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False))


def downgrade():
    op.drop_table("migrations")
