"""Projects and users can be deleted as Keystone's are; image names as Glance's

Keystone deletes a project or a user without asking the other services: their
servers, volumes, key pairs, server groups and quotas keep the id as a plain value.
The foreign keys to projects and users (but the role assignments', identity's own)
go, so deleting the row is possible and nothing cascades.

A revoked token (DELETE /v3/auth/tokens) is kept by its audit id until it would
have expired.

An image's name is Glance's: any text of at most 255 characters, or none, and two
images may share one. Its owner (an admin may set any) is at most 255 characters too.
A shared image has members: the projects it is shared with, each with its status.
A hidden image (os_hidden) is left out of image lists unless they ask for it.

Revision ID: 0014
Revises: 0013
"""

from alembic import op
import sqlalchemy as sa


revision = "0014"
down_revision = '0013'

# (table, column, referred table, ondelete) of the foreign keys that go.
_REFS = (("instances", "project_id", "projects", None),
         ("instances", "user_id", "users", None),
         ("keypairs", "user_id", "users", "CASCADE"),
         ("volumes", "project_id", "projects", None),
         ("server_groups", "project_id", "projects", None),
         ("quota_limits", "project_id", "projects", "CASCADE"),
         ("quota_usages", "project_id", "projects", "CASCADE"),
         ("quota_reservations", "project_id", "projects", None))
# SQLite's constraints of 0001/0002 have no name: batch mode names them by this rule.
_NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
           "uq": "uq_%(table_name)s_%(column_0_name)s"}


def _fk_name(inspector, table, column, referred):
    for fk in inspector.get_foreign_keys(table):
        if fk["constrained_columns"] == [column] and fk["referred_table"] == referred:
            return fk["name"] or "fk_%s_%s_%s" % (table, column, referred)
    return None


def _unique_name(inspector, table, column):
    for uq in inspector.get_unique_constraints(table):
        if uq["column_names"] == [column]:
            return uq["name"] or "uq_%s_%s" % (table, column)
    return None


def upgrade():
    inspector = sa.inspect(op.get_bind())
    tables = dict.fromkeys(table for table, *_ in _REFS)
    for table in tables:
        names = [_fk_name(inspector, table, column, referred)
                 for t, column, referred, _ondelete in _REFS if t == table]
        with op.batch_alter_table(table, naming_convention=_NAMING) as batch:
            for name in filter(None, names):
                batch.drop_constraint(name, type_="foreignkey")
    unique = _unique_name(inspector, "images", "name")
    with op.batch_alter_table("images", naming_convention=_NAMING) as batch:
        if unique:
            batch.drop_constraint(unique, type_="unique")
        batch.alter_column("name", existing_type=sa.String(length=64),
                           type_=sa.String(length=255), nullable=True)
        batch.alter_column("owner", existing_type=sa.String(length=36),
                           type_=sa.String(length=255))
        batch.add_column(sa.Column("os_hidden", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "revoked_tokens",
        sa.Column("audit_id", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("audit_id"),
    )
    op.create_index("ix_revoked_tokens_expires_at", "revoked_tokens", ["expires_at"])
    op.create_table(
        "image_members",
        sa.Column("image_id", sa.String(length=36), nullable=False),
        sa.Column("member_id", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["image_id"], ["images.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("image_id", "member_id"),
    )
    op.create_index("ix_image_members_member_id", "image_members", ["member_id"])


def downgrade():
    """Back to 0013, if no project, user or image name breaks its constraints."""
    op.drop_index("ix_image_members_member_id", table_name="image_members")
    op.drop_table("image_members")
    op.drop_index("ix_revoked_tokens_expires_at", table_name="revoked_tokens")
    op.drop_table("revoked_tokens")
    with op.batch_alter_table("images", naming_convention=_NAMING) as batch:
        batch.alter_column("name", existing_type=sa.String(length=255),
                           type_=sa.String(length=64), nullable=False)
        batch.alter_column("owner", existing_type=sa.String(length=255),
                           type_=sa.String(length=36))
        batch.drop_column("os_hidden")
        batch.create_unique_constraint("uq_images_name", ["name"])
    for table, column, referred, ondelete in _REFS:
        with op.batch_alter_table(table, naming_convention=_NAMING) as batch:
            batch.create_foreign_key("fk_%s_%s_%s" % (table, column, referred), referred,
                                     [column], ["id"], ondelete=ondelete)
