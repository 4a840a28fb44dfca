"""Server groups: instances a project wants on one host (affinity) or on distinct ones.

Membership is recorded with the instance; the scheduler's group filters and the
claim (under the group's lock) read where the members' claims are.
"""

import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas
from provisioner.scheduler import filters
from provisioner import validation

KIND = 'Server group'
POLICIES = (filters.AFFINITY, filters.ANTI_AFFINITY, filters.SOFT_AFFINITY,
            filters.SOFT_ANTI_AFFINITY)
CREATE = schemas.request('server group create', {
    'name': schemas.titled(dict(schemas.NAME, maxLength=255), 'server group name'),
    'policy': schemas.titled(schemas.one_of(*POLICIES), 'policy'),
    'max_server_per_host': schemas.titled(
        {'type': ['integer', 'null'], 'minimum': 1,
         'errorMessage': '{label} must be a whole number of at least 1, not {value}'},
        'max_server_per_host')},
    required=['name', 'policy'])


def _find(session, context, name_or_id):
    """By id, or by a name no other group of the project has (names repeat)."""
    sg = models.ServerGroup
    rows = session.execute(sa.select(sg).where(
        sg.project_id == context.project_id,
        sa.or_(sg.id == name_or_id, sg.name == name_or_id))).scalars().all()
    by_id = [r for r in rows if r.id == name_or_id]
    if by_id:
        return by_id[0]
    if len(rows) > 1:
        raise exception.Conflict(reason='%d server groups are named %s: give its id.'
                                        % (len(rows), name_or_id))
    if not rows:
        raise exception.NotFound(kind=KIND, name=name_or_id)
    return rows[0]


def _describe(session, row):
    info = common.to_dict(row)
    member, inst = models.ServerGroupMember, models.Instance
    info['members'] = list(session.execute(
        sa.select(inst.name).join(member, member.instance_id == inst.id)
        .where(member.group_id == row.id, inst.vm_state != states.DELETED)
        .order_by(inst.name)).scalars())
    return info


def create(context, name, group_policy, max_server_per_host=None):
    """A group; ``max_server_per_host`` is anti-affinity's rule (Nova 2.64)."""
    policy.authorize(context, 'server_group:create')
    validation.check({'name': name, 'policy': group_policy,
                      'max_server_per_host': max_server_per_host}, CREATE)
    if max_server_per_host is not None and group_policy != filters.ANTI_AFFINITY:
        raise exception.Invalid(reason='Only anti-affinity policy supports rules.')
    row = models.ServerGroup(id=str(uuid.uuid4()), name=name, policy=group_policy,
                             project_id=context.project_id, user_id=context.user_id,
                             max_server_per_host=max_server_per_host)
    return common.add_unique(row, KIND)


def list_all(context, all_projects=False):
    policy.authorize(context, 'server_group:list')
    sg = models.ServerGroup
    query = sa.select(sg)
    if all_projects:
        policy.authorize(context, 'instance:list:all_projects')
    else:
        query = query.where(sg.project_id == context.project_id)
    with db_api.transaction() as session:
        rows = session.execute(query.order_by(sg.name)).scalars()
        return [_describe(session, row) for row in rows]


def show(context, name_or_id):
    policy.authorize(context, 'server_group:show')
    with db_api.transaction() as session:
        return _describe(session, _find(session, context, name_or_id))


def delete(context, name_or_id):
    policy.authorize(context, 'server_group:delete')
    with db_api.transaction() as session:
        row = _find(session, context, name_or_id)
        members = _describe(session, row)['members']
        if members:
            raise exception.Conflict(reason='%s %s still has members: %s.'
                                            % (KIND, row.name, ', '.join(members)))
        session.delete(row)


def add_member(session, context, name_or_id, instance_id):
    """Record an instance in its group, in the transaction that records the instance."""
    row = _find(session, context, name_or_id)
    session.add(models.ServerGroupMember(instance_id=instance_id, group_id=row.id))
    return row.id


def member_ids(group_ids):
    """{group id: [ids of its live instances]}: the REST API shows members by id."""
    member, inst = models.ServerGroupMember, models.Instance
    found = {group_id: [] for group_id in group_ids}
    with db_api.transaction() as session:
        for group_id, instance_id in session.execute(
                sa.select(member.group_id, inst.id)
                .join(inst, member.instance_id == inst.id)
                .where(member.group_id.in_(found), inst.vm_state != states.DELETED)
                .order_by(inst.created_at)):
            found[group_id].append(instance_id)
    return found


def lookup(group_id):
    """(name, policy, max_server_per_host) of a group by id."""
    with db_api.transaction() as session:
        row = session.get(models.ServerGroup, group_id)
        return row.name, row.policy, row.max_server_per_host
