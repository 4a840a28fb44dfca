"""An instance keeps the ids of its flavor and image as plain values, not foreign keys

Deleted servers are soft-deleted: their rows stay, for instance actions readable by
id. With foreign keys, those rows kept their flavor and image from ever being deleted
(``server delete`` then ``image delete``, Terraform's destroy order, failed). Nova
keeps an instance's image reference the same way: a server outlives its image's row.
A live server still keeps its flavor and image: the catalog refuses to delete what
a server not deleted uses.

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa


revision = "0011"
down_revision = "0010"

_REFS = (("flavor_id", "flavors"), ("image_id", "images"))
# SQLite's foreign keys of 0001 have no name: batch mode names them by this rule.
_NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}


def _constraint_names():
    found = sa.inspect(op.get_bind()).get_foreign_keys("instances")
    names = {}
    for column, table in _REFS:
        for fk in found:
            if fk["constrained_columns"] == [column] and fk["referred_table"] == table:
                names[column] = fk["name"] or "fk_instances_%s_%s" % (column, table)
    return names


def upgrade():
    names = _constraint_names()
    with op.batch_alter_table("instances", naming_convention=_NAMING) as batch:
        for column, _table in _REFS:
            if column in names:
                batch.drop_constraint(names[column], type_="foreignkey")


def downgrade():
    with op.batch_alter_table("instances", naming_convention=_NAMING) as batch:
        for column, table in _REFS:
            batch.create_foreign_key("fk_instances_%s_%s" % (column, table), table,
                                     [column], ["id"])
