"""Security groups and their rules on behalf of one caller (Neutron's API).

A group belongs to a project; each project has one ``default`` group, made on its
first use (listing groups, making a group or a port) with Neutron's default rules.
Ports carry groups (the project's default unless they name others). The rules are
recorded for the agent that will enforce them on the hosts: none does yet.
"""

import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ownership
from provisioner.network import sg_rules
from provisioner import policy
from provisioner.quota import networks as network_quotas
from provisioner import schemas
from provisioner import validation

DEFAULT = 'default'
GROUP = schemas.request('security group', {
    'name': {'type': 'string', 'maxLength': 255,
             'errorMessage': 'security group name must be text of at most 255 '
                             'characters'},
    'description': schemas.titled(schemas.DESCRIPTION, 'description')})


class SecurityGroupNotFound(exception.NotFound):
    neutron_type = 'SecurityGroupNotFound'
    msg_fmt = 'Security group %(name)s does not exist'


class RuleNotFound(exception.NotFound):
    neutron_type = 'SecurityGroupRuleNotFound'
    msg_fmt = 'Security group rule %(name)s does not exist'


class DefaultExists(exception.Conflict):
    neutron_type = 'SecurityGroupDefaultAlreadyExists'
    msg_fmt = 'Default security group already exists.'


class GroupInUse(exception.Conflict):
    neutron_type = 'SecurityGroupInUse'


class RuleExists(exception.Conflict):
    neutron_type = 'SecurityGroupRuleExists'
    msg_fmt = 'Security group rule already exists. Rule id is %(rule_id)s.'


def _group_row(session, context, group_id):
    return ownership.get(session, context, models.SecurityGroup, group_id,
                         SecurityGroupNotFound)


def _rule_dict(rule, default_group):
    return {column: getattr(rule, column) for column in (
        'id', 'security_group_id', 'project_id', 'direction', 'ethertype', 'protocol',
        'port_range_min', 'port_range_max', 'remote_ip_prefix', 'remote_group_id',
        'description', 'created_at')} | {'belongs_to_default_sg': default_group}


def _group_dict(session, group):
    rules = session.execute(sa.select(models.SecurityGroupRule).where(
        models.SecurityGroupRule.security_group_id == group.id)
        .order_by(models.SecurityGroupRule.created_at)).scalars()
    is_default = group.default_of is not None
    return {'id': group.id, 'name': group.name, 'description': group.description,
            'project_id': group.project_id, 'created_at': group.created_at,
            'default': is_default, 'rules': [_rule_dict(r, is_default) for r in rules]}


def _add_rule(session, group, columns):
    rule = models.SecurityGroupRule(id=str(uuid.uuid4()), security_group_id=group.id,
                                    project_id=group.project_id, **columns)
    session.add(rule)
    return rule


def _egress_rules(session, group):
    for ethertype in sg_rules.ETHERTYPES:
        _add_rule(session, group, sg_rules.check({'direction': 'egress',
                                                  'ethertype': ethertype}))


def ensure_default(project_id):
    """The project's default group, made with Neutron's rules if it has none: all
    egress, and ingress from the group's own ports. Its own transaction (a race
    for it loses to the unique default_of, then finds the winner's)."""
    for _attempt in range(2):
        with db_api.transaction() as session:
            found = session.execute(sa.select(models.SecurityGroup).where(
                models.SecurityGroup.default_of == project_id)).scalar()
            if found is not None:
                return found.id
        try:
            with db_api.transaction() as session:
                group = models.SecurityGroup(
                    id=str(uuid.uuid4()), project_id=project_id, name=DEFAULT,
                    description='Default security group', default_of=project_id)
                session.add(group)
                session.flush()
                _egress_rules(session, group)
                for ethertype in sg_rules.ETHERTYPES:
                    _add_rule(session, group, sg_rules.check(
                        {'direction': 'ingress', 'ethertype': ethertype,
                         'remote_group_id': group.id}))
                return group.id
        except sa_exc.IntegrityError:
            continue  # another request made it first
    raise exception.Conflict(reason='Could not make the default security group of '
                                    'project %s; try again.' % project_id)


# -- groups -------------------------------------------------------------------------

def list_groups(context):
    policy.authorize(context, 'security_group:list')
    ensure_default(context.project_id)
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.SecurityGroup)
                               .order_by(models.SecurityGroup.created_at)).scalars()
        return [_group_dict(session, g) for g in rows if ownership.visible(context, g)]


def show_group(context, group_id):
    policy.authorize(context, 'security_group:show')
    with db_api.transaction() as session:
        return _group_dict(session, _group_row(session, context, group_id))


def create_group(context, name='', description='', project_id=None):
    """A group with Neutron's egress rules; a second ``default`` is refused (409)."""
    validation.check({'name': name, 'description': description}, GROUP)
    project_id = project_id or context.project_id
    policy.authorize(context, 'security_group:create', {'project_id': project_id})
    ensure_default(project_id)
    if name == DEFAULT:
        raise DefaultExists()
    with db_api.transaction() as session:
        network_quotas.check(session, project_id, 'security_group')
        group = models.SecurityGroup(id=str(uuid.uuid4()), project_id=project_id,
                                     name=name, description=description)
        session.add(group)
        session.flush()
        _egress_rules(session, group)
        session.flush()
        return _group_dict(session, group)


def update_group(context, group_id, name=None, description=None):
    """Rename a group or change its description (None: unchanged). No group is
    renamed ``default``, and the default group keeps its name."""
    validation.check({'name': name, 'description': description}, GROUP)
    with db_api.transaction() as session:
        group = _group_row(session, context, group_id)
        policy.authorize(context, 'security_group:update',
                         {'project_id': group.project_id})
        if name is not None and name != group.name:
            if name == DEFAULT or group.default_of is not None:
                raise exception.Conflict(reason='Updating default security group not '
                                                'allowed.' if group.default_of else
                                         'Default security group already exists.')
            group.name = name
        if description is not None:
            group.description = description
        session.flush()
        return _group_dict(session, group)


def delete_group(context, group_id):
    with db_api.transaction() as session:
        group = _group_row(session, context, group_id)
        policy.authorize(context, 'security_group:delete',
                         {'project_id': group.project_id})
        if group.default_of is not None and not context.is_admin:
            raise GroupInUse(reason='Insufficient rights for removing default security '
                                    'group.')
        if session.execute(sa.select(models.PortSecurityGroup.port_id).where(
                models.PortSecurityGroup.security_group_id == group_id)).first():
            raise GroupInUse(reason='Security Group %s in use.' % group_id)
        session.delete(group)


# -- rules ----------------------------------------------------------------------------

def list_rules(context):
    return [rule for group in list_groups(context) for rule in group['rules']]


def show_rule(context, rule_id):
    policy.authorize(context, 'security_group:show')
    with db_api.transaction() as session:
        rule = ownership.get(session, context, models.SecurityGroupRule, rule_id,
                             RuleNotFound)
        group = session.get(models.SecurityGroup, rule.security_group_id)
        return _rule_dict(rule, group.default_of is not None)


def create_rule(context, rule):
    """Record a rule (``rule``: the body's attributes) in its group; 409 if the
    group has the same rule already."""
    columns = sg_rules.check(rule)
    with db_api.transaction() as session:
        group = _group_row(session, context, rule.get('security_group_id'))
        policy.authorize(context, 'security_group:update',
                         {'project_id': group.project_id})
        if columns['remote_group_id']:
            _group_row(session, context, columns['remote_group_id'])
        existing = session.execute(sa.select(models.SecurityGroupRule).where(
            models.SecurityGroupRule.security_group_id == group.id)).scalars()
        duplicate = sg_rules.duplicate_of(columns, existing)
        if duplicate:
            raise RuleExists(rule_id=duplicate)
        network_quotas.check(session, group.project_id, 'security_group_rule')
        created = _add_rule(session, group, columns)
        session.flush()
        return _rule_dict(created, group.default_of is not None)


def delete_rule(context, rule_id):
    """Delete the rule; the id of its group."""
    with db_api.transaction() as session:
        rule = ownership.get(session, context, models.SecurityGroupRule, rule_id,
                             RuleNotFound)
        policy.authorize(context, 'security_group:update',
                         {'project_id': rule.project_id})
        session.delete(rule)
        return rule.security_group_id


# -- the groups of a port ---------------------------------------------------------------

def for_port(session, context, wanted, default_group):
    """The group ids a new or updated port carries: those named (each one the caller
    sees), or None given, ``default_group`` (ensure_default's, made before the
    caller's transaction)."""
    if wanted is None:
        return [default_group]
    if not isinstance(wanted, list):
        raise exception.Invalid(reason='security_groups must be a list of security '
                                       'group ids')
    return [_group_row(session, context, group_id).id
            for group_id in dict.fromkeys(wanted)]


def ids_for_boot(session, context, names):
    """The ids of the groups a boot names (by name or id) for its new ports; Nova's
    400 for one the caller does not have. The project's default group is made
    first when named (ensure_default, before the caller's transaction)."""
    found = []
    for name in dict.fromkeys(names):
        try:
            found.append(_by_name_or_id(session, context, name).id)
        except SecurityGroupNotFound:
            raise exception.Invalid(reason="Unable to find security_group with name "
                                           "or id '%s'" % name) from None
    return list(dict.fromkeys(found))  # a group named twice (by name and id) once


def set_port_groups(session, port_id, group_ids):
    session.execute(sa.delete(models.PortSecurityGroup).where(
        models.PortSecurityGroup.port_id == port_id))
    for group_id in group_ids:
        session.add(models.PortSecurityGroup(port_id=port_id,
                                             security_group_id=group_id))


# -- a server's groups (Nova's addSecurityGroup / removeSecurityGroup) ----------------

class NotOnServer(exception.Invalid):
    msg_fmt = 'Security group %(name)s not associated with the instance %(server)s'


class AlreadyOnServer(exception.Invalid):
    msg_fmt = 'Security group %(name)s is already associated with the instance %(server)s'


def _by_name_or_id(session, context, name):
    """A group the caller sees, by id or by name (Nova's actions name it); a name
    several of the caller's groups have is ambiguous (409, as Nova)."""
    group = session.get(models.SecurityGroup, name)
    if group is not None and ownership.visible(context, group):
        return group
    named = [g for g in session.execute(sa.select(models.SecurityGroup).where(
        models.SecurityGroup.name == name)).scalars()
        if g.project_id == context.project_id]
    if len(named) > 1:
        raise exception.Conflict(reason='Multiple security groups found matching '
                                        "'%s'. Use an ID to be more specific." % name)
    if not named:
        raise SecurityGroupNotFound(name=name)
    return named[0]


def _server_ports(session, instance_id):
    return session.execute(sa.select(models.Port.id).where(
        models.Port.instance_id == instance_id)).scalars().all()


def _carried(session, port_ids, group_id):
    return session.execute(sa.select(models.PortSecurityGroup.port_id).where(
        models.PortSecurityGroup.port_id.in_(port_ids),
        models.PortSecurityGroup.security_group_id == group_id)).scalars().all()


def add_to_server(context, instance_id, name):
    """Give every port of the server the group ``name`` (an id or a name); its id."""
    policy.authorize(context, 'port:update', {'project_id': context.project_id})
    if name == DEFAULT:
        ensure_default(context.project_id)
    with db_api.transaction() as session:
        group = _by_name_or_id(session, context, name)
        ports = _server_ports(session, instance_id)
        if session.execute(sa.select(models.Port.id).where(
                models.Port.id.in_(ports),
                models.Port.port_security_enabled.is_(False))).first():
            raise exception.Invalid(reason='Network requires port_security_enabled and '
                                           'subnet associated in order to apply '
                                           'security groups.')
        if ports and len(_carried(session, ports, group.id)) == len(ports):
            raise AlreadyOnServer(name=name, server=instance_id)
        for port_id in set(ports) - set(_carried(session, ports, group.id)):
            session.add(models.PortSecurityGroup(port_id=port_id,
                                                 security_group_id=group.id))
        return group.id


def remove_from_server(context, instance_id, name):
    """Take the group ``name`` off every port of the server that carries it; (its
    id, the ports that carried it)."""
    policy.authorize(context, 'port:update', {'project_id': context.project_id})
    with db_api.transaction() as session:
        group = _by_name_or_id(session, context, name)
        carried = _carried(session, _server_ports(session, instance_id), group.id)
        if not carried:
            raise NotOnServer(name=name, server=instance_id)
        session.execute(sa.delete(models.PortSecurityGroup).where(
            models.PortSecurityGroup.port_id.in_(carried),
            models.PortSecurityGroup.security_group_id == group.id))
        return group.id, carried


def server_groups(context, instance_id):
    """The groups the server's ports carry (each once), as list_groups shows them."""
    with db_api.transaction() as session:
        ids = session.execute(
            sa.select(models.PortSecurityGroup.security_group_id).distinct()
            .join(models.Port, models.Port.id == models.PortSecurityGroup.port_id)
            .where(models.Port.instance_id == instance_id)).scalars().all()
        rows = session.execute(sa.select(models.SecurityGroup).where(
            models.SecurityGroup.id.in_(ids))
            .order_by(models.SecurityGroup.created_at)).scalars()
        return [_group_dict(session, g) for g in rows]
