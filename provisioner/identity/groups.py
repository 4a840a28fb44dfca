"""Keystone's groups: named sets of users of a domain; a role granted to a group is
held by each of its members."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import grants
from provisioner.identity import records
from provisioner import policy

KIND = 'Group'


def create_group(context, name, domain_id, description=None):
    policy.authorize(context, 'identity:create_group')
    with db_api.transaction() as session:
        records.get(session, models.Domain, domain_id, 'Domain')
        group = models.Group(id=records.new_id(), name=name, domain_id=domain_id,
                             description=description)
        return records.as_dict(records.insert(session, group, KIND, name))


def show_group(context, group_id):
    return records.show(context, 'identity:get_group', models.Group, group_id, KIND)


def list_groups(context, name=None, domain_id=None):
    return records.listed(context, 'identity:list_groups', models.Group,
                          {'name': name, 'domain_id': domain_id})


def update_group(context, group_id, changes):
    return records.update(context, 'identity:update_group', models.Group, group_id,
                          KIND, changes)


def delete_group(context, group_id):
    """Its members' tokens lose the roles it gave them at once (read per request)."""
    records.delete(context, 'identity:delete_group', models.Group, group_id, KIND,
                   lambda session, row: grants.forget(session, 'group', row.id))


def _member(session, group_id, user_id):
    records.get(session, models.Group, group_id, KIND)
    records.get(session, models.User, user_id, 'User')
    return session.get(models.GroupMember, (group_id, user_id))


def add_user(context, group_id, user_id):
    policy.authorize(context, 'identity:add_user_to_group')
    with db_api.transaction() as session:
        if _member(session, group_id, user_id) is None:
            session.add(models.GroupMember(group_id=group_id, user_id=user_id))


def _found_member(session, group_id, user_id):
    member = _member(session, group_id, user_id)
    if member is None:
        raise exception.NotFound(kind='User', name='%s in group %s' % (user_id,
                                                                       group_id))
    return member


def check_user(context, group_id, user_id):
    policy.authorize(context, 'identity:check_user_in_group')
    with db_api.transaction() as session:
        _found_member(session, group_id, user_id)


def remove_user(context, group_id, user_id):
    policy.authorize(context, 'identity:remove_user_from_group')
    with db_api.transaction() as session:
        session.delete(_found_member(session, group_id, user_id))


def list_users(context, group_id):
    policy.authorize(context, 'identity:list_users_in_group')
    gm = models.GroupMember
    with db_api.transaction() as session:
        records.get(session, models.Group, group_id, KIND)
        return [records.as_dict(u) for u in session.execute(
            sa.select(models.User).join(gm, gm.user_id == models.User.id)
            .where(gm.group_id == group_id)).scalars()]


def user_groups(context, user_id):
    policy.authorize(context, 'identity:list_groups_for_user', {'user_id': user_id})
    gm = models.GroupMember
    with db_api.transaction() as session:
        records.get(session, models.User, user_id, 'User')
        return [records.as_dict(g) for g in session.execute(
            sa.select(models.Group).join(gm, gm.group_id == models.Group.id)
            .where(gm.user_id == user_id)).scalars()]
