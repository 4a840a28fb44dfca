"""The operator's networks (`provisioner network create`): a network and its subnet in
one step, shared by every project, realised as a libvirt network on this host
all-in-one. Policy-free: CatalogAPI checks the caller; listing, showing and deleting
them is provisioner.network.service's, as for any network (their removal from the
hosts is provisioner.maintenance.networks.unplug's).
"""

import logging

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.network import addressing
from provisioner.network import service
from provisioner import schemas
from provisioner import validation

LOG = logging.getLogger(__name__)

CREATE = schemas.request('network create', {
    'name': schemas.titled(schemas.NAME, 'network name'),
    'cidr': addressing.CIDR,
    'gateway': schemas.titled(schemas.IPV4_ADDRESS, 'gateway'),
    'dhcp_start': schemas.titled(schemas.IPV4_ADDRESS, 'DHCP range start'),
    'dhcp_end': schemas.titled(schemas.IPV4_ADDRESS, 'DHCP range end')},
    required=['name', 'cidr'])


def _pool(net_plan, dhcp_start, dhcp_end):
    if dhcp_start is None and dhcp_end is None:
        return None
    return [{'start': dhcp_start or net_plan['dhcp_start'],
             'end': dhcp_end or net_plan['dhcp_end']}]


def create(driver, name, cidr, gateway=None, dhcp_start=None, dhcp_end=None):
    """Record a network with its subnet, then make it on this host; undo on failure.

    The operator's network: no project owns it, every project uses it. Without a
    driver (distributed) it is only recorded: each worker defines it on its host
    when a port first needs it there.
    """
    validation.check({'name': name, 'cidr': cidr, 'gateway': gateway,
                      'dhcp_start': dhcp_start, 'dhcp_end': dhcp_end}, CREATE)
    gateway = gateway or addressing.DEFAULT
    pools = _pool(addressing.plan(cidr, gateway), dhcp_start, dhcp_end)
    plan = addressing.plan(cidr, gateway, pools)  # all checked before any write
    net = service.add_network(name, None, shared=True)
    try:
        net = service.add_subnet(net['id'], plan, name)
        if driver is not None:
            driver.ensure_network(net)
    except Exception:
        with db_api.transaction() as session:
            session.execute(models.Network.__table__.delete().where(
                models.Network.id == net['id']))
        raise
    return net

