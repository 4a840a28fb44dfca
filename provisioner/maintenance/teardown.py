"""Tear a host down: remove what this deployment made there, once nothing uses it."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import leftovers


class HostInUse(exception.Conflict):
    pass


def check_unused(host):
    """Refuse (Conflict) while an instance that is not deleted is on ``host``."""
    inst = models.Instance
    with db_api.transaction() as session:
        names = session.execute(sa.select(inst.name).where(
            inst.host == host, inst.vm_state != 'deleted')
            .order_by(inst.name)).scalars().all()
    if names:
        raise HostInUse(reason='host %s still has %d instance(s): %s; delete them '
                               'first, then tear the host down.'
                               % (host, len(names), ', '.join(names[:10])))


def teardown(host, run_on_host):
    """Check the host is unused, have ``run_on_host(host)`` remove this deployment's
    pools, networks and files there, and resolve the host's leftovers; what went."""
    check_unused(host)
    removed = run_on_host(host)
    leftovers.resolve(host=host)
    return removed
