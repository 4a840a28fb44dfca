"""Keystone's resources beyond projects and users: domains, groups, roles, grants

Domains (the Default one seeded) own projects, users, groups and domain-specific
roles; projects get a description, enabled flag, parent and tags; users a domain,
description, default project and Keystone's free attributes (extra: e-mail...), and names of up to 255 characters. Roles
become rows (the policy's admin, member, reader and service seeded, their ids their
names), with implications between them. Grants are the role assignments other than
a user's on a project (role_assignments keeps those): a group's on a project, a
user's or group's on a domain or on the system. The catalog's regions, services and
endpoints an operator adds, endpoint groups, credentials (their blob), policies
(Keystone's stored policy blobs), a domain's configuration and OAuth 1 consumers
(their secret's hash) complete Keystone's v3.

Revision ID: 0030
Revises: 0026
"""

import datetime

from alembic import op
import sqlalchemy as sa


revision = "0030"
down_revision = '0026'

BUILTIN_ROLES = ('admin', 'member', 'reader', 'service')


def _id(name='id', length=64):
    return sa.Column(name, sa.String(length=length), primary_key=True)


def upgrade():
    domains = op.create_table(
        "domains", _id(),
        sa.Column("name", sa.String(length=64), nullable=False, unique=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False))
    op.bulk_insert(domains, [{"id": "default", "name": "Default",
                              "description": "The default domain", "enabled": True,
                              "created_at": datetime.datetime(2026, 11, 26)}])
    with op.batch_alter_table("projects") as batch:
        batch.add_column(sa.Column("domain_id", sa.String(length=64), nullable=False,
                                   server_default="default"))
        batch.add_column(sa.Column("description", sa.Text(), nullable=True))
        batch.add_column(sa.Column("enabled", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("parent_id", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("tags", sa.JSON(), nullable=True))
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name", type_=sa.String(length=255),
                           existing_type=sa.String(length=64))
        batch.add_column(sa.Column("domain_id", sa.String(length=64), nullable=False,
                                   server_default="default"))
        batch.add_column(sa.Column("description", sa.Text(), nullable=True))
        batch.add_column(sa.Column("extra", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("default_project_id", sa.String(length=64),
                                   nullable=True))
    roles = op.create_table(
        "roles", _id(),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=True),
        sa.Column("description", sa.Text(), nullable=True))
    op.bulk_insert(roles, [{"id": name, "name": name} for name in BUILTIN_ROLES])
    op.create_table(
        "implied_roles",
        sa.Column("prior_role_id", sa.String(length=64),
                  sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("implied_role_id", sa.String(length=64),
                  sa.ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True))
    op.create_table(
        "groups", _id(),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.UniqueConstraint("domain_id", "name", name="uq_groups_domain_id_name"))
    op.create_table(
        "group_members",
        sa.Column("group_id", sa.String(length=64),
                  sa.ForeignKey("groups.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.String(length=36),
                  sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True))
    op.create_table(
        "grants",
        sa.Column("actor_type", sa.String(length=8), primary_key=True),
        sa.Column("actor_id", sa.String(length=64), primary_key=True),
        sa.Column("target_type", sa.String(length=8), primary_key=True),
        sa.Column("target_id", sa.String(length=64), primary_key=True),
        sa.Column("role_id", sa.String(length=64), primary_key=True))
    op.create_table(
        "regions", _id(length=255),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("parent_region_id", sa.String(length=255), nullable=True))
    op.create_table(
        "services", _id(),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False))
    op.create_table(
        "endpoints", _id(),
        sa.Column("service_id", sa.String(length=64),
                  sa.ForeignKey("services.id", ondelete="CASCADE"), nullable=False),
        sa.Column("region_id", sa.String(length=255), nullable=True),
        sa.Column("interface", sa.String(length=8), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False))
    op.create_table(
        "credentials", _id(),
        sa.Column("user_id", sa.String(length=36),
                  sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("project_id", sa.String(length=64), nullable=True),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("blob", sa.Text(), nullable=False))
    op.create_table(
        "policies", _id(),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("blob", sa.Text(), nullable=False))
    op.create_table(
        "endpoint_groups", _id(),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("filters", sa.JSON(), nullable=False))
    op.create_table(
        "oauth_consumers", _id(),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("secret_hash", sa.String(length=255), nullable=False))


def downgrade():
    for table in ("oauth_consumers", "endpoint_groups", "policies", "credentials", "endpoints", "services", "regions",
                  "grants", "group_members", "groups", "implied_roles", "roles"):
        op.drop_table(table)
    with op.batch_alter_table("users") as batch:
        for column in ("default_project_id", "extra", "description", "domain_id"):
            batch.drop_column(column)
    with op.batch_alter_table("projects") as batch:
        for column in ("tags", "parent_id", "enabled", "description", "domain_id"):
            batch.drop_column(column)
    op.drop_table("domains")
