"""Network quotas (networks, subnets, ports, routers, floating IPs, security groups
and their rules per project), counted from the rows, as Neutron.

Usage is counted in the transaction that adds the row; two creates racing for a
project's last slot may both pass (Neutron counts the same way without a
reservation).
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.quota import limits
from provisioner import validation

RESOURCES = limits.NETWORK


class OverQuota(exception.Conflict):
    """Neutron's 409 OverQuota."""

    neutron_type = 'OverQuota'
    msg_fmt = 'Quota exceeded for resources: [%(resource)r] (limit %(limit)d).'


def usage(session, project_id):
    net, port = models.Network, models.Port
    groups, rules = models.SecurityGroup, models.SecurityGroupRule
    count = sa.func.count()
    return {
        'router': session.execute(sa.select(count).select_from(models.Router).where(
            models.Router.project_id == project_id)).scalar(),
        'floatingip': session.execute(sa.select(count).select_from(models.FloatingIP)
                                      .where(models.FloatingIP.project_id == project_id)
                                      ).scalar(),
        'security_group': session.execute(sa.select(count).select_from(groups).where(
            groups.project_id == project_id)).scalar(),
        'security_group_rule': session.execute(sa.select(count).select_from(rules)
                                               .where(rules.project_id == project_id)
                                               ).scalar(),
        'network': session.execute(sa.select(count).select_from(net)
                                   .where(net.project_id == project_id)).scalar(),
        'subnet': session.execute(
            sa.select(count).select_from(models.Subnet)
            .join(net, net.id == models.Subnet.network_id)
            .where(net.project_id == project_id)).scalar(),
        'port': session.execute(sa.select(count).select_from(port)
                                .where(port.project_id == project_id)).scalar()}


def check(session, project_id, resource):
    """OverQuota if the project cannot have one more ``resource``."""
    limit = limits.limits(session, project_id, RESOURCES)[resource]
    if limit != limits.UNLIMITED and usage(session, project_id)[resource] + 1 > limit:
        raise OverQuota(resource=resource, limit=limit)


def limits_and_usage(project_id):
    """{resource: (limit, used)} of a project's network resources."""
    with db_api.transaction() as session:
        found = limits.limits(session, project_id, RESOURCES)
        used = usage(session, project_id)
    return {r: (found[r], used[r]) for r in RESOURCES}


def set_project_limits(project_id, wanted):
    """set_limits of an existing project, in a transaction of its own."""
    with db_api.transaction() as session:
        if session.get(models.Project, project_id) is None:
            raise exception.NotFound(kind='Project', name=project_id)
        set_limits(session, project_id, wanted)


def set_limits(session, project_id, wanted):
    """Set the project's own limits from {resource: int}; Invalid for anything else.

    ``check_limit`` true (what ``openstack quota set`` sends unless ``--force``)
    refuses a limit below what the project already uses, as Neutron's
    quota-check-limit extension does; ``force`` skips that check (the default).
    """
    wanted = dict(wanted)
    wanted.pop('force', None)
    check_limit = wanted.pop('check_limit', False)
    if not isinstance(check_limit, bool):
        raise exception.Invalid(reason="'check_limit' must be true or false, not %r"
                                       % (check_limit,))
    validation.check(wanted, limits.NETWORK_LIMITS, none_is_absent=False)
    limits.set_limits(session, project_id, wanted, limits.NETWORK_LIMITS,
                      used=usage(session, project_id) if check_limit else None)
