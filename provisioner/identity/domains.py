"""Keystone's domains: the Default one (id ``default``) and any an admin adds.

A domain owns projects, users, groups and domain-specific roles. It is deleted only
once disabled (Keystone's 403 otherwise), and its content goes with it. The users of
a disabled domain cannot authenticate, and its projects cannot be scoped to.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import grants
from provisioner.identity import records
from provisioner import policy

KIND = 'Domain'
DEFAULT = models.DEFAULT_DOMAIN_ID


def create_domain(context, name, description=None, enabled=True):
    policy.authorize(context, 'identity:create_domain')
    with db_api.transaction() as session:
        domain = models.Domain(id=records.new_id(), name=name, description=description,
                               enabled=enabled)
        return records.as_dict(records.insert(session, domain, KIND, name))


def show_domain(context, domain_id):
    return records.show(context, 'identity:get_domain', models.Domain, domain_id, KIND,
                        {'domain_id': domain_id})


def list_domains(context, name=None, enabled=None):
    return records.listed(context, 'identity:list_domains', models.Domain,
                          {'name': name, 'enabled': enabled})


def update_domain(context, domain_id, changes):
    def check(session, row, changes):
        if row.id == DEFAULT and changes.get('enabled') is False:
            raise exception.Forbidden(reason='the default domain cannot be disabled')
        if changes.get('enabled') is False:
            _end_tokens(session, domain_id)
    return records.update(context, 'identity:update_domain', models.Domain, domain_id,
                          KIND, changes, check)


def _end_tokens(session, domain_id):
    """Tokens of the domain's users end when it is disabled or deleted."""
    session.execute(sa.update(models.User).where(models.User.domain_id == domain_id)
                    .values(tokens_revoked_at=models.utcnow()))


def delete_domain(context, domain_id):
    """Only a disabled domain; its projects, users, groups and roles go with it."""
    def before(session, row):
        if row.enabled:
            raise exception.Forbidden(reason='Cannot delete a domain that is enabled, '
                                             'please disable it first.')
        _end_tokens(session, domain_id)
        for model, kind in ((models.Project, 'project'), (models.User, 'user'),
                            (models.Group, 'group')):
            for row_id in session.execute(sa.select(model.id).where(
                    model.domain_id == domain_id)).scalars().all():
                grants.forget(session, kind, row_id)
                if model is models.Project:
                    session.execute(sa.delete(models.RoleAssignment).where(
                        models.RoleAssignment.project_id == row_id))
                session.delete(session.get(model, row_id))
        session.execute(sa.delete(models.Role).where(models.Role.domain_id == domain_id))
        grants.forget(session, 'domain', domain_id)
    records.delete(context, 'identity:delete_domain', models.Domain, domain_id, KIND,
                   before)


def find(session, domain_id=None, name=None):
    """The domain a request names by id or name; None if it names none."""
    if domain_id is not None:
        return session.get(models.Domain, domain_id)
    if name is not None:
        return session.execute(sa.select(models.Domain)
                               .where(models.Domain.name == name)).scalar()
    return None


def user_domains(user_id):
    """The enabled domains a user holds a role on (Keystone's /v3/auth/domains)."""
    with db_api.transaction() as session:
        ids = grants.targets_of(session, user_id, 'domain')
        return [records.as_dict(d) for d in session.execute(sa.select(
            models.Domain).where(models.Domain.id.in_(ids), models.Domain.enabled))
            .scalars()]


def has_system_role(user_id):
    with db_api.transaction() as session:
        return bool(grants.targets_of(session, user_id, 'system'))
