"""Keystone's role assignments ("grants"): a role for a user or a group on a
project, a domain or the system; ``GET /v3/role_assignments`` and the effective
roles a token carries.

A user's role on a project is a RoleAssignment row (what the rest of provisioner
reads); every other grant is a Grant row. An inherited grant (OS-INHERIT) on a
domain holds on each of its projects, on a project on each project below it (its
target_type: ``idomain``, ``iproject``). Effective assignments are Keystone's: a
group's become its members', an inherited one the projects it reaches, a role
brings the roles it implies, and domain-specific roles are left out.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import records
from provisioner.identity import roles as roles_api
from provisioner import policy

SYSTEM = 'all'
ACTORS = {'user': (models.User, 'User'), 'group': (models.Group, 'Group')}
TARGETS = {'project': (models.Project, 'Project'), 'domain': (models.Domain, 'Domain'),
           'iproject': (models.Project, 'Project'), 'idomain': (models.Domain, 'Domain')}
INHERITED = {'domain': 'idomain', 'project': 'iproject'}


def _direct(actor_type, target_type):
    return actor_type == 'user' and target_type == 'project'


def _check_parts(session, actor_type, actor_id, target_type, target_id, role_id):
    model, kind = ACTORS[actor_type]
    records.get(session, model, actor_id, kind)
    if target_type != 'system':
        model, kind = TARGETS[target_type]
        records.get(session, model, target_id, kind)
    if role_id is not None:
        records.get(session, models.Role, role_id, 'Role')


def _row(session, actor_type, actor_id, target_type, target_id, role_id):
    if _direct(actor_type, target_type):
        return session.get(models.RoleAssignment, (actor_id, target_id, role_id))
    return session.get(models.Grant, (actor_type, actor_id, target_type, target_id,
                                      role_id))


def grant(context, actor_type, actor_id, target_type, target_id, role_id):
    policy.authorize(context, 'identity:create_grant')
    with db_api.transaction() as session:
        _check_parts(session, actor_type, actor_id, target_type, target_id, role_id)
        if _row(session, actor_type, actor_id, target_type, target_id, role_id):
            return
        if _direct(actor_type, target_type):
            session.add(models.RoleAssignment(user_id=actor_id, project_id=target_id,
                                              role=role_id))
        else:
            session.add(models.Grant(actor_type=actor_type, actor_id=actor_id,
                                     target_type=target_type, target_id=target_id,
                                     role_id=role_id))


def _found(session, actor_type, actor_id, target_type, target_id, role_id):
    _check_parts(session, actor_type, actor_id, target_type, target_id, role_id)
    row = _row(session, actor_type, actor_id, target_type, target_id, role_id)
    if row is None:
        raise exception.NotFound(kind='Role assignment', name='%s of %s %s on %s %s' % (
            role_id, actor_type, actor_id, target_type, target_id))
    return row


def check_grant(context, actor_type, actor_id, target_type, target_id, role_id):
    policy.authorize(context, 'identity:check_grant')
    with db_api.transaction() as session:
        _found(session, actor_type, actor_id, target_type, target_id, role_id)


def revoke_grant(context, actor_type, actor_id, target_type, target_id, role_id):
    """A user's tokens for the project end at once when no role is left there."""
    policy.authorize(context, 'identity:revoke_grant')
    with db_api.transaction() as session:
        session.delete(_found(session, actor_type, actor_id, target_type, target_id,
                              role_id))


def list_grants(context, actor_type, actor_id, target_type, target_id):
    """The roles given directly to the actor on the target."""
    policy.authorize(context, 'identity:list_grants')
    with db_api.transaction() as session:
        _check_parts(session, actor_type, actor_id, target_type, target_id, None)
        ids = [a['role_id'] for a in _all(session) if
               (a['actor_type'], a['actor_id'], a['target_type'], a['target_id'])
               == (actor_type, actor_id, target_type, target_id)]
        return [records.as_dict(r) for r in session.execute(
            sa.select(models.Role).where(models.Role.id.in_(ids))).scalars()]


def _all(session):
    """Every assignment as {actor_type, actor_id, target_type, target_id, role_id}."""
    found = [{'actor_type': 'user', 'actor_id': ra.user_id, 'target_type': 'project',
              'target_id': ra.project_id, 'role_id': ra.role}
             for ra in session.execute(sa.select(models.RoleAssignment)).scalars()]
    found += [records.as_dict(g) for g in session.execute(
        sa.select(models.Grant)).scalars()]
    return found


def _effective(session, found):
    """Group assignments as their members' (``group_id`` kept), implied roles added
    (``prior_role_id``), domain-specific roles left out."""
    members = {}
    for group_id, user_id in session.execute(sa.select(models.GroupMember.group_id,
                                                       models.GroupMember.user_id)):
        members.setdefault(group_id, []).append(user_id)
    users = []
    for a in found:
        if a['actor_type'] == 'group':
            users += [dict(a, actor_type='user', actor_id=user_id,
                           group_id=a['actor_id'])
                      for user_id in members.get(a['actor_id'], ())]
        else:
            users.append(a)
    projects = _projects(session)
    reached = []
    for a in users:
        if a['target_type'] in ('idomain', 'iproject'):
            reached += [dict(a, target_type='project', target_id=project_id,
                             inherited_from=(a['target_type'], a['target_id']))
                        for project_id in _below(projects, a['target_type'],
                                                 a['target_id'])]
        else:
            reached.append(a)
    users = reached
    result = []
    for a in users:
        for role_id in roles_api.expand(session, [a['role_id']]):
            extra = {'prior_role_id': a['role_id']} if role_id != a['role_id'] else {}
            result.append(dict(a, role_id=role_id, **extra))
    return result


def role_assignments(context, filters, effective=False):
    """``filters``: user_id, group_id, role_id, project_id, domain_id, system."""
    policy.authorize(context, 'identity:list_role_assignments')
    with db_api.transaction() as session:
        found = _all(session)
        if effective:
            found = _effective(session, found)
        wanted = {('actor', 'user'): filters.get('user_id'),
                  ('actor', 'group'): filters.get('group_id'),
                  ('target', 'project'): filters.get('project_id'),
                  ('target', 'domain'): filters.get('domain_id'),
                  ('target', 'system'): SYSTEM if filters.get('system') else None}
        for (side, kind), value in wanted.items():
            if value is not None:
                found = [a for a in found if a[side + '_type'] == kind
                         and a[side + '_id'] == value]
        if filters.get('role_id') is not None:
            found = [a for a in found if a['role_id'] == filters['role_id']]
        return found


def named(assignments):
    """{role, actor, target: the rows' dicts} of each assignment, for
    ?include_names."""
    result = []
    with db_api.transaction() as session:
        for a in assignments:
            found = {'role': session.get(models.Role, a['role_id']),
                     'actor': session.get(ACTORS[a['actor_type']][0], a['actor_id'])}
            if a['target_type'] != 'system':
                found['target'] = session.get(TARGETS[a['target_type']][0],
                                              a['target_id'])
            named = {key: records.as_dict(row) for key, row in found.items()
                     if row is not None}
            for value in named.values():  # its domain's name too
                domain = session.get(models.Domain, value.get('domain_id') or '')
                value['domain_name'] = domain.name if domain is not None else None
            result.append(named)
    return result


def _projects(session):
    """{project id: (domain id, parent id)} of every project."""
    return {pid: (domain_id, parent_id) for pid, domain_id, parent_id in session.execute(
        sa.select(models.Project.id, models.Project.domain_id, models.Project.parent_id))}


def _below(projects, target_type, target_id):
    """The projects an inherited grant reaches: a domain's, or those under a project."""
    if target_type == 'idomain':
        return [pid for pid, (domain_id, _) in projects.items() if domain_id == target_id]
    found, todo = [], [target_id]
    while todo:
        parent = todo.pop()
        children = [pid for pid, (_, parent_id) in projects.items() if parent_id == parent]
        found += children
        todo += children
    return found


def _inheriting(session, project_id):
    """[(target_type, target_id)] of the inherited grants that reach a project: its
    domain's and its ancestors'."""
    projects = _projects(session)
    if project_id not in projects:
        return []
    found = [('idomain', projects[project_id][0])]
    parent = projects[project_id][1]
    while parent in projects:
        found.append(('iproject', parent))
        parent = projects[parent][1]
    return found


def effective_roles(session, user_id, target_type, target_id):
    """{role id: name} a user holds on a project, a domain or the system: their own
    roles and their groups', with the roles these imply (no domain-specific role)."""
    groups = list(session.execute(sa.select(models.GroupMember.group_id).where(
        models.GroupMember.user_id == user_id)).scalars())
    g = models.Grant
    targets = [(target_type, target_id)]
    if target_type == 'project':
        targets += _inheriting(session, target_id)
    query = sa.select(g.role_id).where(
        sa.or_(*[sa.and_(g.target_type == kind, g.target_id == row_id)
                 for kind, row_id in targets]),
        sa.or_(sa.and_(g.actor_type == 'user', g.actor_id == user_id),
               sa.and_(g.actor_type == 'group', g.actor_id.in_(groups))))
    role_ids = list(session.execute(query).scalars())
    if target_type == 'project':
        ra = models.RoleAssignment
        role_ids += session.execute(sa.select(ra.role).where(
            ra.user_id == user_id, ra.project_id == target_id)).scalars()
    return roles_api.expand(session, role_ids)


def targets_of(session, user_id, target_type):
    """Ids of the projects or domains a user holds a role on (directly or by group)."""
    groups = list(session.execute(sa.select(models.GroupMember.group_id).where(
        models.GroupMember.user_id == user_id)).scalars())
    g = models.Grant
    kinds = [target_type] + (['idomain', 'iproject'] if target_type == 'project' else [])
    found = session.execute(sa.select(g.target_type, g.target_id).where(
        g.target_type.in_(kinds),
        sa.or_(sa.and_(g.actor_type == 'user', g.actor_id == user_id),
               sa.and_(g.actor_type == 'group', g.actor_id.in_(groups))))).all()
    ids = {row_id for kind, row_id in found if kind == target_type}
    projects = _projects(session) if target_type == 'project' else {}
    for kind, row_id in found:
        if kind != target_type:
            ids.update(_below(projects, kind, row_id))
    if target_type == 'project':
        ids |= set(session.execute(sa.select(models.RoleAssignment.project_id).where(
            models.RoleAssignment.user_id == user_id)).scalars())
    return ids


def forget(session, kind, row_id):
    """Drop the grants of a deleted user, group, project or domain."""
    g = models.Grant
    side = g.actor_id if kind in ACTORS else g.target_id
    type_column = g.actor_type if kind in ACTORS else g.target_type
    kinds = [kind] + ([INHERITED[kind]] if kind in INHERITED else [])
    session.execute(sa.delete(g).where(type_column.in_(kinds), side == row_id))
