"""What the database says one host should hold: the other half of an audit."""

import dataclasses

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models

# provisioner.compute.states' names; not imported, so that the catalog may use
# this area (network delete) without an import cycle through compute.
_DELETED, _DELETING = 'deleted', 'deleting'
# Instances whose resources must all be on their host (a boot or a delete in
# progress is the flows' business, not an audit's).
_SETTLED = ('active', 'stopped')


@dataclasses.dataclass
class Expected:
    """One instance that should be complete on the host."""

    instance_id: str
    root_disk: bool
    volume_ids: list
    ports: list  # (network_id, mac; None when another host serves its DHCP)


@dataclasses.dataclass
class HostRecords:
    host: str
    instance_hosts: dict        # instance id -> host, every instance not deleted
    volume_owners: dict         # volume id -> instance id (None: standalone)
    network_ids: set
    local_ports: set            # (network_id, mac) this host's DHCP pins: of its
                                # instances, and every host's on the networks
                                # whose DHCP server is here (one across hosts)
    expected: list              # Expected, for settled instances on this host
    # Ids of the ports of its instances (each may have a filter here).
    local_port_ids: set = dataclasses.field(default_factory=set)

    def instance_reason(self, instance_id):
        """Why an instance's resource on this host is an orphan, or None."""
        where = self.instance_hosts.get(instance_id, False)
        if where is False:
            return 'instance unknown or deleted'
        if where != self.host:
            return 'instance is on host %s' % where
        return None


def _root_disk_expected(flavor, image):
    return bool(flavor.disk_gib or image.disk_path
                or (image.store_path and image.disk_format in ('qcow2', 'raw')))


def load(host):
    """The HostRecords of ``host``, read in one transaction."""
    inst = models.Instance
    with db_api.transaction() as session:
        rows = session.execute(sa.select(inst).where(
            inst.vm_state != _DELETED)).scalars().all()
        instance_hosts = {row.id: row.host for row in rows}
        local = {row.id: row for row in rows if row.host == host}
        volume_owners = {}
        for vol in session.execute(sa.select(models.Volume)).scalars():
            if vol.instance_id is None or vol.instance_id in instance_hosts:
                volume_owners[vol.id] = vol.instance_id
        dhcp_hosts = dict(session.execute(sa.select(models.Network.id,
                                                    models.Network.dhcp_host)).all())
        network_ids = set(dhcp_hosts)
        served = [n for n, where in dhcp_hosts.items() if where == host]
        ports = session.execute(sa.select(models.Port).where(
            models.Port.instance_id.in_(list(local)))).scalars().all() if local else []
        local_ports = {(p.network_id, p.mac.lower()) for p in ports
                       if dhcp_hosts.get(p.network_id) in (None, host)}
        local_ports |= {(p.network_id, p.mac.lower()) for p in session.execute(
            sa.select(models.Port).where(models.Port.network_id.in_(served),
                                         models.Port.instance_id.is_not(None))
        ).scalars()} if served else set()
        expected = []
        for row in local.values():
            if row.vm_state not in _SETTLED or row.task_state == _DELETING:
                continue
            flavor = session.get(models.Flavor, row.flavor_id)
            image = session.get(models.Image, row.image_id)
            expected.append(Expected(
                row.id, _root_disk_expected(flavor, image),
                sorted(v for v, owner in volume_owners.items() if owner == row.id),
                sorted((p.network_id, p.mac.lower()
                        if dhcp_hosts.get(p.network_id) in (None, host) else None)
                       for p in ports if p.instance_id == row.id)))
    return HostRecords(host, instance_hosts, volume_owners, network_ids, local_ports,
                       expected, {p.id for p in ports})
