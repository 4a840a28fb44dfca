"""Keystone's roles: global ones (the policy's admin, member, reader and service,
whose ids are their names, and any an admin adds) and domain-specific ones, which
only imply others and never reach a token; and implied roles (a prior role brings
the roles it implies wherever it is assigned)."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import records
from provisioner import policy
from provisioner import schemas

BUILTIN = schemas.ROLES
KIND = 'Role'


def _unique(session, name, domain_id, role_id=None):
    found = session.execute(sa.select(models.Role.id).where(
        models.Role.name == name, models.Role.domain_id.is_(None) if domain_id is None
        else models.Role.domain_id == domain_id)).scalar()
    if found is not None and found != role_id:
        raise records.conflict(KIND, name)


def create_role(context, name, domain_id=None, description=None):
    policy.authorize(context, 'identity:create_role')
    with db_api.transaction() as session:
        if domain_id is not None:
            records.get(session, models.Domain, domain_id, 'Domain')
        _unique(session, name, domain_id)
        role = models.Role(id=records.new_id(), name=name, domain_id=domain_id,
                           description=description)
        session.add(role)
        return records.as_dict(role)


def show_role(context, role_id):
    return records.show(context, 'identity:get_role', models.Role, role_id, KIND)


def list_roles(context, name=None, domain_id=None):
    roles = records.listed(context, 'identity:list_roles', models.Role, {'name': name})
    return [r for r in roles if r['domain_id'] == domain_id]


def _builtin(role_id, what):
    if role_id in BUILTIN:
        raise exception.Forbidden(reason='role %s is one of the policy\'s; it cannot '
                                         'be %s' % (role_id, what))


def update_role(context, role_id, changes):
    def check(session, row, changes):
        if changes.get('name', row.name) != row.name:
            _builtin(role_id, 'renamed')
            _unique(session, changes['name'], row.domain_id, row.id)
    return records.update(context, 'identity:update_role', models.Role, role_id, KIND,
                          changes, check)


def delete_role(context, role_id):
    """Its assignments go with it, and the implications that name it."""
    def before(session, row):
        _builtin(role_id, 'deleted')
        session.execute(sa.delete(models.RoleAssignment)
                        .where(models.RoleAssignment.role == role_id))
        session.execute(sa.delete(models.Grant).where(models.Grant.role_id == role_id))
        ir = models.ImpliedRole
        session.execute(sa.delete(ir).where(sa.or_(ir.prior_role_id == role_id,
                                                   ir.implied_role_id == role_id)))
    records.delete(context, 'identity:delete_role', models.Role, role_id, KIND, before)


# -- implied roles ------------------------------------------------------------------

def _pair(session, prior_id, implied_id):
    return (records.get(session, models.Role, prior_id, KIND),
            records.get(session, models.Role, implied_id, KIND))


def create_implied_role(context, prior_id, implied_id):
    """Keystone's: a global role may not imply a domain-specific one (403)."""
    policy.authorize(context, 'identity:create_implied_role')
    with db_api.transaction() as session:
        prior, implied = _pair(session, prior_id, implied_id)
        if implied.domain_id is not None and prior.domain_id is None:
            raise exception.Forbidden(reason='a global role cannot imply a '
                                             'domain-specific role')
        if session.get(models.ImpliedRole, (prior_id, implied_id)) is None:
            session.add(models.ImpliedRole(prior_role_id=prior_id,
                                           implied_role_id=implied_id))
        return records.as_dict(prior), records.as_dict(implied)


def show_implied_role(context, prior_id, implied_id):
    policy.authorize(context, 'identity:get_implied_role')
    with db_api.transaction() as session:
        prior, implied = _pair(session, prior_id, implied_id)
        if session.get(models.ImpliedRole, (prior_id, implied_id)) is None:
            raise exception.NotFound(kind='Implied role', name='%s of %s'
                                     % (implied_id, prior_id))
        return records.as_dict(prior), records.as_dict(implied)


def delete_implied_role(context, prior_id, implied_id):
    show_implied_role(context, prior_id, implied_id)
    policy.authorize(context, 'identity:delete_implied_role')
    with db_api.transaction() as session:
        session.delete(session.get(models.ImpliedRole, (prior_id, implied_id)))


def list_implied_roles(context, prior_id=None):
    """[(prior role, [the roles it implies])], of one prior role or of all."""
    policy.authorize(context, 'identity:list_implied_roles')
    ir = models.ImpliedRole
    query = sa.select(ir)
    with db_api.transaction() as session:
        if prior_id is not None:
            records.get(session, models.Role, prior_id, KIND)
            query = query.where(ir.prior_role_id == prior_id)
        found = {}
        for rule in session.execute(query).scalars():
            found.setdefault(rule.prior_role_id, []).append(rule.implied_role_id)
        if prior_id is not None:
            found.setdefault(prior_id, [])
        roles = {r.id: records.as_dict(r) for r in session.execute(
            sa.select(models.Role)).scalars()}
        return [(roles[prior], [roles[i] for i in implied])
                for prior, implied in found.items()]


def expand(session, role_ids):
    """The roles ``role_ids`` bring (themselves and what they imply, transitively),
    domain-specific roles left out: {id: name}."""
    rules = {}
    for prior, implied in session.execute(sa.select(models.ImpliedRole.prior_role_id,
                                                    models.ImpliedRole.implied_role_id)):
        rules.setdefault(prior, []).append(implied)
    seen, todo = set(), list(role_ids)
    while todo:
        role_id = todo.pop()
        if role_id not in seen:
            seen.add(role_id)
            todo.extend(rules.get(role_id, ()))
    if not seen:
        return {}
    return dict(session.execute(sa.select(models.Role.id, models.Role.name).where(
        models.Role.id.in_(seen), models.Role.domain_id.is_(None))).all())


def refs(session, names):
    """[{id, name, domain_id}] of global roles named ``names`` (a role no longer
    there keeps its name as its id)."""
    ids = dict(session.execute(sa.select(models.Role.name, models.Role.id).where(
        models.Role.name.in_(names), models.Role.domain_id.is_(None))).all())
    return [{'id': ids.get(name, name), 'name': name, 'domain_id': None}
            for name in names]


def name_of(session, ref):
    """The name of the global role a reference ({"id"} or {"name"}) names, or what it
    says when there is none."""
    if ref.get('id') is not None:
        role = session.get(models.Role, ref['id'])
        return role.name if role is not None else ref['id']
    return ref.get('name')
