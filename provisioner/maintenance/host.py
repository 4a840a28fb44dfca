"""The host side of an audit: list and remove this deployment's resources here.

Runs in provisioner-worker (no database) or all-in-one in the CLI; every answer is
plain data, so it crosses the wire as it is.
"""

import logging

from provisioner import exception
from provisioner.maintenance import rpcapi
from provisioner.virt import inventory as inv

LOG = logging.getLogger(__name__)


def inventory(driver):
    """[Resource dict] of this deployment on the driver's host."""
    return [resource.to_dict() for resource in inv.collect(driver)]


def remove(driver, resources):
    """Remove each resource (dicts of the inventory), domains first and networks
    last; [{'kind', 'name', 'error'}] with error None for each one removed."""
    order = {kind: index for index, kind in enumerate(inv.KINDS)}
    wanted = sorted((inv.Resource.from_dict(r) for r in resources),
                    key=lambda r: order.get(r.kind, len(order)))
    outcomes = []
    for resource in wanted:
        error = None
        try:
            inv.remove(driver, resource)
            LOG.warning('Removed orphan %s %s', resource.kind, resource.name)
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            LOG.warning('Could not remove orphan %s %s: %s', resource.kind,
                        resource.name, error)
        outcomes.append({'kind': resource.kind, 'name': resource.name,
                         'error': error})
    return outcomes


def delete_network(driver, network_id):
    """Stop and undefine the libvirt network of ``network_id`` here, if present."""
    driver.delete_network({'id': network_id})


def console_output(driver, instance_id):
    """The instance's console log here, decoded ('' before the guest printed):
    what the guest printed is data, so undecodable bytes become U+FFFD."""
    try:
        with open(driver.console_log_path(instance_id), 'rb') as log:
            return log.read().decode('utf-8', errors='replace')
    except FileNotFoundError:
        return ''


def trigger_crash_dump(driver, instance_id):
    """Inject an NMI into the instance's running guest here."""
    driver.trigger_crash_dump(instance_id)


def teardown(driver):
    """Remove every pool, network and file of this deployment here; what went."""
    removed = inv.teardown(driver)
    for line in removed:
        LOG.warning('Teardown removed %s', line)
    return removed


class LocalHostMaintenance:
    """All-in-one, this process's host, reached with its own driver: the same calls
    as ``rpcapi.HostMaintenanceAPI`` makes to a host's worker."""

    def __init__(self, driver, host):
        self._driver = driver
        self._host = host

    def _check(self, host):
        if host != self._host:
            raise exception.NotFound(kind='Host', name=host)

    def inventory(self, host):
        self._check(host)
        return inventory(self._driver)

    def remove_resources(self, host, resources):
        self._check(host)
        return remove(self._driver, resources)

    def delete_network(self, host, network_id, timeout=None):
        self._check(host)
        delete_network(self._driver, network_id)

    def console_output(self, host, instance_id):
        # Every instance of an all-in-one deployment has its files here, whatever
        # host name its row recorded.
        return console_output(self._driver, instance_id)

    def trigger_crash_dump(self, host, instance_id):
        trigger_crash_dump(self._driver, instance_id)

    def teardown(self, host):
        self._check(host)
        return teardown(self._driver)


class HostMaintenanceEndpoint:
    """On each worker, next to its steps' endpoint: this host's side of audits."""

    def __init__(self, driver):
        self.target = rpcapi.target()
        self._driver = driver

    def inventory(self, ctxt):
        return inventory(self._driver)

    def remove_resources(self, ctxt, resources):
        return remove(self._driver, resources)

    def delete_network(self, ctxt, network_id):
        delete_network(self._driver, network_id)

    def console_output(self, ctxt, instance_id):
        return console_output(self._driver, instance_id)

    def trigger_crash_dump(self, ctxt, instance_id):
        trigger_crash_dump(self._driver, instance_id)

    def teardown(self, ctxt):
        return teardown(self._driver)
