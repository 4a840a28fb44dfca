"""What this deployment holds on its host, and how to remove one piece of it.

The inventory lists, without any database: libvirt domains whose console log is
this deployment's (state_path/instances/<uuid>/console.log), the libvirt networks
named with its prefix and their DHCP host entries, the volumes of its two pools, the
instance directories (and config drives) under state_path/instances, and the ports'
filters (libvirt nwfilters named with its prefix). Another
deployment on the same host has another prefix and another state_path (even one
inside this one's): none of its resources is ever listed, so none is ever removed
(provisioner.virt.deployment).

Names are the ones the leftovers table records (provisioner.compute.leftovers).
"""

import dataclasses
import os
import shutil
import time
import uuid

import libvirt
from lxml import etree

from provisioner.image import fetcher
from provisioner.virt import deployment
from provisioner.virt import dhcp_namespace
from provisioner.virt.libvirt import host as libvirt_host
from provisioner.virt.libvirt import storage

DOMAIN, ROOT_DISK, VOLUME = 'domain', 'root_disk', 'volume'
CONFIG_DRIVE, INSTANCE_DIR = 'config_drive', 'instance_dir'
DHCP_HOST, NETWORK = 'dhcp_host', 'network'
PORT_FILTER = 'port_filter'  # a port's security groups (provisioner.virt.port_filters)
KINDS = (DOMAIN, ROOT_DISK, VOLUME, CONFIG_DRIVE, INSTANCE_DIR, DHCP_HOST, NETWORK,
         PORT_FILTER)
# What a host's steps make under state_path (the driver's layout); the database and
# logs of an all-in-one state_path are not the host's to remove.
HOST_DIRECTORIES = ('disks', 'volumes', 'instances', 'images', 'dhcp')
HOST_FILES = ('virt_type.json',)  # the KVM probe's answer (libvirt.host)


@dataclasses.dataclass(frozen=True)
class Resource:
    """One thing on the host. ``owner`` is the instance, volume or network id it
    belongs to; ``network`` the network id of a DHCP entry; ``age`` seconds since it
    was made (None: unknown); ``detail`` a path or an address, for people."""

    kind: str
    name: str
    owner: str
    network: str | None = None
    detail: str = ''
    age: float | None = None

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


def _uuid(text):
    try:
        return str(uuid.UUID(text))
    except ValueError:
        return None


def _age(path, now):
    try:
        return max(0.0, now - os.stat(path).st_mtime)
    except OSError:
        return None


def _domains(driver, now):
    conn = driver.connection()
    with libvirt_host.translate_errors('listing domains'):
        domains = conn.listAllDomains(0)
    for domain in domains:
        try:
            xml = etree.fromstring(domain.XMLDesc(0).encode())
        except libvirt.libvirtError:
            continue  # undefined while we looked
        instance_id = _uuid(xml.findtext('uuid') or '')
        console = xml.find('devices/serial/source')
        path = console.get('path') if console is not None else None
        if instance_id and _own_console_log(driver, instance_id, path):
            yield Resource(DOMAIN, domain.name(), instance_id, detail=path,
                           age=_age(driver.instance_dir(instance_id), now))


def _own_console_log(driver, instance_id, path):
    """Whether ``path`` is exactly where this deployment keeps the instance's console
    log: lying under state_path is not enough, as another deployment's state_path
    may lie inside this one's."""
    return deployment.under_state_path(path) and os.path.realpath(path) == \
        os.path.realpath(driver.console_log_path(instance_id))


def _pool_volumes(driver, kind, now):
    instances_pool, volumes_pool = driver.pool_names()
    pool = storage.lookup_pool(driver.connection(),
                               instances_pool if kind == ROOT_DISK else volumes_pool)
    if pool is None or not deployment.under_state_path(storage.pool_path(pool)):
        return
    try:
        pool.refresh(0)  # files made while libvirtd was not looking
    except libvirt.libvirtError:
        pass  # a boot is building a volume now: libvirt's last list will do
    with libvirt_host.translate_errors('listing volumes of %s' % pool.name()):
        names = pool.listVolumes()
    head, tail = ('instance-', '-root.qcow2') if kind == ROOT_DISK \
        else ('volume-', '.qcow2')
    for name in names:
        if name.startswith(head) and name.endswith(tail):
            owner = name[len(head):-len(tail)]
            path = os.path.join(storage.pool_path(pool), name)
            yield Resource(kind, name, owner, detail=path, age=_age(path, now))


def _instance_files(driver, now):
    root = os.path.join(deployment.state_path(), 'instances')
    try:
        entries = sorted(os.listdir(root))
    except FileNotFoundError:
        return
    for entry in entries:
        instance_id = _uuid(entry)
        path = os.path.join(root, entry)
        if instance_id != entry or not os.path.isdir(path):
            continue
        yield Resource(INSTANCE_DIR, entry, entry, detail=path, age=_age(path, now))
        drive = driver.config_drive_path(entry)
        if os.path.exists(drive):
            yield Resource(CONFIG_DRIVE, '%s/disk.config' % entry, entry,
                           detail=drive, age=_age(drive, now))


def _networks(driver):
    """The networks of the libvirt networks named with the prefix, and of the DHCP
    namespaces and their state directories (one may outlive its bridge when a
    worker was killed mid-way), with the DHCP entries pinned there."""
    conn = driver.connection()
    head = '%s-net-' % driver.resource_prefix()
    with libvirt_host.translate_errors('listing networks'):
        names = [n.name() for n in conn.listAllNetworks(0)]
    network_ids = {name[len(head):] for name in names if name.startswith(head)}
    network_ids.update(dhcp_namespace.network_ids(driver.resource_prefix()))
    for network_id in sorted(network_ids):
        yield Resource(NETWORK, network_id, network_id, network=network_id,
                       detail=head + network_id)
        for entry in dhcp_namespace.held(driver.resource_prefix(), network_id):
            yield Resource(DHCP_HOST, entry['mac'].lower(), network_id,
                           network=network_id, detail=entry['ip'])


def _port_filters(driver):
    with libvirt_host.translate_errors('listing filters'):
        port_ids = driver.port_filters()
    for port_id in port_ids:
        yield Resource(PORT_FILTER, port_id, port_id,
                       detail=driver.port_filter_name(port_id))


def collect(driver):
    """Every resource of this deployment on the driver's host, as Resources."""
    now = time.time()
    found = list(_domains(driver, now))
    found += _pool_volumes(driver, ROOT_DISK, now)
    found += _pool_volumes(driver, VOLUME, now)
    found += _instance_files(driver, now)
    found += _networks(driver)
    found += _port_filters(driver)  # after the domains: teardown removes those first
    return found


def remove(driver, resource):
    """Remove one resource of this deployment (idempotent: gone is fine)."""
    kind, owner = resource.kind, resource.owner
    if kind == DOMAIN:
        driver.destroy_domain(owner)
    elif kind == ROOT_DISK:
        driver.delete_root_disk(owner)
    elif kind == VOLUME:
        driver.delete_volume(owner)
    elif kind == CONFIG_DRIVE:
        driver.delete_config_drive(owner)
    elif kind == INSTANCE_DIR:
        driver.delete_instance_dir(owner)
    elif kind == DHCP_HOST:
        driver.release_dhcp({'id': resource.network}, resource.name)
    elif kind == NETWORK:
        driver.delete_network({'id': owner})
    elif kind == PORT_FILTER:
        driver.delete_port_filter(owner)
    else:
        raise ValueError('unknown resource kind %r' % kind)


def teardown(driver):
    """Remove this deployment's domains, networks, pools and volumes from the host,
    and what it made under state_path (HOST_DIRECTORIES, HOST_FILES); return what
    was removed, one line each.

    The caller checks first that no instance uses the host any more.
    """
    removed = []
    for resource in collect(driver):
        if resource.kind in (NETWORK, DOMAIN, ROOT_DISK, VOLUME, INSTANCE_DIR,
                             PORT_FILTER):
            remove(driver, resource)
            removed.append('%s %s' % (resource.kind, resource.name))
    for name in driver.pool_names():
        if storage.lookup_pool(driver.connection(), name) is not None:
            storage.delete_pool(driver.connection(), name)
            removed.append('pool %s' % name)
    # The image cache may live elsewhere ([image] cache_directory).
    for path in [os.path.join(deployment.state_path(), directory)
                 for directory in HOST_DIRECTORIES] + [fetcher.cache_directory()]:
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append('directory %s' % path)
    for name in HOST_FILES:
        path = os.path.join(deployment.state_path(), name)
        if os.path.exists(path):
            os.unlink(path)
            removed.append('file %s' % path)
    return removed
