"""Keystone's records: domains, projects, users, roles and their grants, groups,
the catalog's regions/services/endpoints, credentials, application credentials."""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.db.models.base import Base
from provisioner.db.models.base import TimestampMixin


DEFAULT_DOMAIN_ID = 'default'


class Domain(TimestampMixin, Base):
    __tablename__ = 'domains'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    # Keystone's domain configuration ({group: {option: value}}), kept and served:
    # provisioner has one identity driver (SQL), domain-specific drivers are off.
    config: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)


class Project(TimestampMixin, Base):
    __tablename__ = 'projects'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), unique=True)
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64),
                                                   default=DEFAULT_DOMAIN_ID)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    parent_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    tags: orm.Mapped[list | None] = orm.mapped_column(sa.JSON)


class User(TimestampMixin, Base):
    __tablename__ = 'users'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64),
                                                   default=DEFAULT_DOMAIN_ID)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)  # e-mail...
    default_project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    password_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    # Tokens issued before this (a password change, a disable) are no longer valid.
    tokens_revoked_at: orm.Mapped[datetime.datetime | None]


class RoleAssignment(Base):
    __tablename__ = 'role_assignments'
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('projects.id', ondelete='CASCADE'), primary_key=True)
    role: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)


class Role(Base):
    """A role; the policy's (admin, member, reader, service) have their names as ids.
    A domain-specific role (domain_id set) is never in a token: it only implies."""

    __tablename__ = 'roles'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    domain_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class ImpliedRole(Base):
    __tablename__ = 'implied_roles'
    prior_role_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('roles.id', ondelete='CASCADE'), primary_key=True)
    implied_role_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('roles.id', ondelete='CASCADE'), primary_key=True)


class Group(Base):
    __tablename__ = 'groups'
    __table_args__ = (sa.UniqueConstraint('domain_id', 'name',
                                          name='uq_groups_domain_id_name'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class GroupMember(Base):
    __tablename__ = 'group_members'
    group_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('groups.id', ondelete='CASCADE'), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'), primary_key=True)


class Grant(Base):
    """A role assignment but a user's on a project (RoleAssignment): actor_type
    'user' or 'group', target_type 'project', 'domain' or 'system' (target_id
    'all')."""

    __tablename__ = 'grants'
    actor_type: orm.Mapped[str] = orm.mapped_column(sa.String(8), primary_key=True)
    actor_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    target_type: orm.Mapped[str] = orm.mapped_column(sa.String(8), primary_key=True)
    target_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    role_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)


class Region(Base):
    __tablename__ = 'regions'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    parent_region_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


class Service(Base):
    """A service an operator added to the catalog (the built-in ones are not rows)."""

    __tablename__ = 'services'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)


class Endpoint(Base):
    __tablename__ = 'endpoints'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    service_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('services.id', ondelete='CASCADE'))
    region_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(8))
    url: orm.Mapped[str] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)


class Credential(Base):
    """Keystone's credential: a user's blob (an EC2 key pair, a TOTP secret...)."""

    __tablename__ = 'credentials'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    blob: orm.Mapped[str] = orm.mapped_column(sa.Text)


class Policy(Base):
    """Keystone's stored policy blob (served, never enforced here)."""

    __tablename__ = 'policies'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    blob: orm.Mapped[str] = orm.mapped_column(sa.Text)


class EndpointGroup(Base):
    """Keystone's endpoint group (OS-EP-FILTER): filters on endpoints' attributes."""

    __tablename__ = 'endpoint_groups'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    filters: orm.Mapped[dict] = orm.mapped_column(sa.JSON)


class OAuthConsumer(Base):
    """Keystone's OAuth 1 consumer (OS-OAUTH1); only its secret's hash is kept."""

    __tablename__ = 'oauth_consumers'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    secret_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class ApplicationCredential(TimestampMixin, Base):
    """Keystone's application credential: a user's secret for one project and some
    of their roles on it (``roles``: names). Only the secret's hash is kept."""

    __tablename__ = 'application_credentials'
    __table_args__ = (sa.UniqueConstraint('user_id', 'name',
                                          name='uq_application_credentials_user_id_name'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'))
    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('projects.id', ondelete='CASCADE'))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    secret_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    expires_at: orm.Mapped[datetime.datetime | None]
    unrestricted: orm.Mapped[bool] = orm.mapped_column(default=False)
    roles: orm.Mapped[list] = orm.mapped_column(sa.JSON)


class RevokedToken(Base):
    """A token revoked before it expires (DELETE /v3/auth/tokens), by its audit id;
    kept until it would have expired anyway."""

    __tablename__ = 'revoked_tokens'
    audit_id: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)
    expires_at: orm.Mapped[datetime.datetime] = orm.mapped_column(index=True)
