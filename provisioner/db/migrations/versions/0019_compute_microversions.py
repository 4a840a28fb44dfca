"""Nova's later microversions: flavor descriptions, forced-down services, server
group names that repeat, soft policies and rules

A flavor has a ``description`` (Nova 2.55). A host's compute service can be
forced down (2.11: ``forced_down``, down whatever its reports say). A server group
keeps who made it (``user_id``, 2.13), a policy name of up to 32 characters
(``soft-anti-affinity``, 2.15) and its anti-affinity rule
``max_server_per_host`` (2.64); its name is any of 255 characters and two groups
may share one, as in Nova. A volume keeps the device tag of its attachment
(``attachment_tag``, 2.49).

Revision ID: 0019
Revises: 0018
"""

from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'

# SQLite's constraint of 0002 has no name: batch mode names it by this rule.
_NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def _unique_name(inspector):
    for uq in inspector.get_unique_constraints("server_groups"):
        if uq["column_names"] == ["project_id", "name"]:
            return uq["name"] or "uq_server_groups_project_id"
    return None


def upgrade():
    with op.batch_alter_table("flavors") as batch:
        batch.add_column(sa.Column("description", sa.Text()))
    with op.batch_alter_table("volumes") as batch:
        batch.add_column(sa.Column("attachment_tag", sa.String(length=60)))
    with op.batch_alter_table("hosts") as batch:
        batch.add_column(sa.Column("forced_down", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    unique = _unique_name(sa.inspect(op.get_bind()))
    with op.batch_alter_table("server_groups", naming_convention=_NAMING) as batch:
        if unique:
            batch.drop_constraint(unique, type_="unique")
        batch.alter_column("name", existing_type=sa.String(length=64),
                           type_=sa.String(length=255))
        batch.alter_column("policy", existing_type=sa.String(length=16),
                           type_=sa.String(length=32))
        batch.add_column(sa.Column("user_id", sa.String(length=36)))
        batch.add_column(sa.Column("max_server_per_host", sa.Integer()))


def downgrade():
    """Back to 0017, if no group's name or policy breaks its constraints."""
    with op.batch_alter_table("server_groups", naming_convention=_NAMING) as batch:
        batch.drop_column("max_server_per_host")
        batch.drop_column("user_id")
        batch.alter_column("policy", existing_type=sa.String(length=32),
                           type_=sa.String(length=16))
        batch.alter_column("name", existing_type=sa.String(length=255),
                           type_=sa.String(length=64))
        batch.create_unique_constraint("uq_server_groups_project_id",
                                       ["project_id", "name"])
    with op.batch_alter_table("hosts") as batch:
        batch.drop_column("forced_down")
    with op.batch_alter_table("volumes") as batch:
        batch.drop_column("attachment_tag")
    with op.batch_alter_table("flavors") as batch:
        batch.drop_column("description")
