"""A deleted network leaves every host, also the hosts whose worker is away.

Distributed, each worker defines a network on its host when a port first needs it
there, so any host may have it. Deleting the network records it as a leftover of
every known host, asks each live host's worker to remove it now, and resolves the
hosts that did. A host whose worker is away keeps the leftover open; its worker's
first audit when it comes back removes it (a recorded leftover is removed
whatever ``[worker] reap_orphans`` says).
"""

import datetime
import logging

import sqlalchemy as sa

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import leftovers
from provisioner.maintenance import rpcapi
from provisioner.virt import inventory as inv

LOG = logging.getLogger(__name__)


def _hosts():
    """(every host name, the names of hosts reporting within host_down_time)."""
    cutoff = models.utcnow() - datetime.timedelta(
        seconds=CONF.scheduler.host_down_time)
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Host.name, models.Host.updated_at))
        rows = rows.all()
    return [name for name, _ in rows], {name for name, seen in rows if seen >= cutoff}


def unplug(driver, net):
    """Remove the network ``net`` (a network dict) from every host that has it.

    All-in-one (``driver``: this host's hypervisor) that is this host. Distributed,
    each worker defines a network on first use: every live host's worker removes
    it now, the others when they are back (remove_from_hosts).
    """
    if driver is not None:
        driver.delete_network(net)
    else:
        remove_from_hosts(net['id'])


def remove_from_hosts(network_id, host_api=None):
    """Remove the libvirt network of ``network_id`` from every host; return the
    hosts that still have to (their workers do it when they are back)."""
    every, alive = _hosts()
    for host in every:
        leftovers.record(inv.NETWORK, network_id, host,
                         'network deleted; its host\'s worker has not removed it yet')
    host_api = host_api or rpcapi.HostMaintenanceAPI(
        timeout=CONF.worker.heartbeat_timeout)
    pending = []
    for host in every:
        if host in alive:
            try:
                host_api.delete_network(host, network_id)
                leftovers.resolve(inv.NETWORK, network_id, host)
                continue
            except Exception as exc:  # unreachable, or libvirt refused: later
                LOG.warning('Worker of host %s did not remove network %s (%s); it '
                            'will when it audits its host', host, network_id, exc)
        pending.append(host)
    return pending
