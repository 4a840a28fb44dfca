"""Network quotas (network, subnet, port per project), counted from the rows, as Neutron.

Limits are the project's own rows in quota_limits, else the [quota] defaults. Usage is
counted in the transaction that adds the row; two creates racing for a project's
last slot may both pass (Neutron counts the same way without a reservation).
"""

import sqlalchemy as sa

from provisioner.conf import CONF
from provisioner.db import models
from provisioner import exception

RESOURCES = ('network', 'subnet', 'port')
UNLIMITED = -1


class OverQuota(exception.Conflict):
    """Neutron's 409 OverQuota."""

    neutron_type = 'OverQuota'
    msg_fmt = 'Quota exceeded for resources: [%(resource)r] (limit %(limit)d).'


def limits(session, project_id):
    found = {r: getattr(CONF.quota, r) for r in RESOURCES}
    found.update(session.execute(
        sa.select(models.QuotaLimit.resource, models.QuotaLimit.hard_limit).where(
            models.QuotaLimit.project_id == project_id,
            models.QuotaLimit.resource.in_(RESOURCES))).all())
    return found


def usage(session, project_id):
    net, port = models.Network, models.Port
    count = sa.func.count()
    return {
        'network': session.execute(sa.select(count).select_from(net)
                                   .where(net.project_id == project_id)).scalar(),
        'subnet': session.execute(sa.select(count).select_from(net).where(
            net.project_id == project_id, net.subnet_id.is_not(None))).scalar(),
        'port': session.execute(sa.select(count).select_from(port)
                                .where(port.project_id == project_id)).scalar()}


def check(session, project_id, resource):
    """OverQuota if the project cannot have one more ``resource``."""
    limit = limits(session, project_id)[resource]
    if limit != UNLIMITED and usage(session, project_id)[resource] + 1 > limit:
        raise OverQuota(resource=resource, limit=limit)


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
    unknown = sorted(set(wanted) - set(RESOURCES))
    if unknown:
        raise exception.Invalid(reason='unknown network quota resource(s) %s; there '
                                       'are: %s' % (', '.join(unknown),
                                                    ', '.join(RESOURCES)))
    for resource, value in wanted.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < UNLIMITED:
            raise exception.Invalid(reason='quota %s must be -1 (unlimited) or an '
                                           'integer of at least 0, not %r'
                                           % (resource, value))
    used = usage(session, project_id) if check_limit else {}
    for resource, value in sorted(wanted.items()):
        if check_limit and value != UNLIMITED and value < used[resource]:
            raise exception.Invalid(reason='Quota limit %d for %s must be greater than '
                                           'or equal to already used %d'
                                           % (value, resource, used[resource]))
    for resource, value in wanted.items():
        session.merge(models.QuotaLimit(project_id=project_id, resource=resource,
                                        hard_limit=value))
