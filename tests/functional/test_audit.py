"""provisioner audit on the real libvirtd: what it lists, what --fix removes, and what
it never touches (a second deployment on the same host)."""

import hashlib
import json
import os
import uuid

import libvirt

from tests.functional import conftest as base

DOMAIN_XML = """<domain type='qemu'><name>instance-{id}</name><uuid>{id}</uuid>
<memory unit='MiB'>96</memory><vcpu>1</vcpu><os><type>hvm</type></os>
<devices><serial type='file'><source path='{state}/instances/{id}/console.log'/>
<target port='0'/></serial></devices></domain>"""
VOLUME_XML = """<volume><name>volume-{id}.qcow2</name>
<capacity unit='MiB'>1</capacity><target><format type='qcow2'/></target></volume>"""


def _derived_prefix(state_path):
    # What provisioner.virt.deployment derives for a state_path without a prefix.
    digest = hashlib.sha256(os.path.realpath(state_path).encode()).hexdigest()
    return 'prov-%s' % digest[:8]


def _pool(conn, name, path):
    path.mkdir(parents=True, exist_ok=True)
    pool = conn.storagePoolDefineXML(
        "<pool type='dir'><name>%s</name><target><path>%s</path></target></pool>"
        % (name, path))
    pool.create()
    return pool


def _plant(conn, pool, state_path):
    """A domain and a volume as a boot killed after define-domain leaves them, once
    the database no longer knows its instance; their ids."""
    ids = str(uuid.uuid4()), str(uuid.uuid4())
    conn.defineXML(DOMAIN_XML.format(id=ids[0], state=state_path))
    pool.createXML(VOLUME_XML.format(id=ids[1]), 0)
    return ids


def _audit(cloud, *flags):
    result = cloud.cli('audit', '--format', 'json', *flags, check=False)
    return result.returncode, sorted((f['problem'], f['kind'], f['name'], f['action'])
                                     for f in json.loads(result.stdout))


def _remove(conn, domain_ids, pools):
    for domain_id in domain_ids:
        try:
            conn.lookupByUUIDString(domain_id).undefine()
        except libvirt.libvirtError:
            pass
    for pool in pools:
        for name in pool.listVolumes():
            pool.storageVolLookupByName(name).delete(0)
        pool.destroy()
        pool.undefine()


def test_audit_lists_what_went_behind_its_back_and_fix_spares_another_deployment(
        cloud, booted):
    booted.append('audited')
    cloud.boot('audited', '--volume-size', 1)
    vm = cloud.show('audited')
    mac, volume_id = vm['addresses'][0]['mac'], vm['volumes'][0]['id']
    net_id = cloud.query('SELECT id FROM networks WHERE name = ?', ('net1',))[0][0]
    conn = base._libvirt_connection()
    other_state = cloud.root / 'second' / 'state'
    other_pool = _pool(conn, '%s-volumes' % _derived_prefix(other_state),
                       other_state / 'volumes')
    other_ids = ()
    try:
        # Behind provisioner's back: the domain, its DHCP entry and its volume go.
        domain = conn.lookupByName('instance-%s' % vm['id'])
        domain.destroy()
        domain.undefine()
        # (the DHCP entry: a line of the hosts file of the network's dnsmasq)
        hosts = cloud.state_path / 'dhcp' / cloud.prefix / net_id / 'hosts'
        kept_lines = [line for line in hosts.read_text().splitlines()
                      if not line.startswith(mac)]
        assert len(kept_lines) < len(hosts.read_text().splitlines())
        hosts.write_text(''.join(line + '\n' for line in kept_lines))
        own_pool = conn.storagePoolLookupByName('%s-volumes' % cloud.prefix)
        own_pool.storageVolLookupByName('volume-%s.qcow2' % volume_id).delete(0)
        ghost, ghost_volume = _plant(conn, own_pool, cloud.state_path)
        # A port's filter whose port is no instance's here.
        ghost_port = str(uuid.uuid4())
        conn.nwfilterDefineXML("<filter name='%s-port-%s' chain='root'/>"
                               % (cloud.prefix, ghost_port))
        # The same, of a second deployment (its own state_path, derived prefix).
        other_ids = _plant(conn, other_pool, other_state)

        code, listed = _audit(cloud)
        assert code == 1
        kept = 'kept (run with --fix)'
        assert listed == sorted([
            ('missing', 'domain', 'instance-%s' % vm['id'], '-'),
            ('missing', 'dhcp_host', mac, '-'),
            ('missing', 'volume', 'volume-%s.qcow2' % volume_id, '-'),
            ('orphan', 'domain', 'instance-%s' % ghost, kept),
            ('orphan', 'port_filter', ghost_port, kept),
            ('orphan', 'volume', 'volume-%s.qcow2' % ghost_volume, kept)])

        # The volume was made just now: inside the grace period, it stays.
        code, listed = _audit(cloud, '--fix')
        assert ('orphan', 'domain', 'instance-%s' % ghost, 'removed') in listed
        assert ('orphan', 'port_filter', ghost_port, 'removed') in listed
        assert ('orphan', 'volume', 'volume-%s.qcow2' % ghost_volume,
                'kept (younger than the grace period)') in listed
        code, listed = _audit(cloud, '--fix', '--grace-period', '0')
        assert code == 1 and [f for f in listed if f[0] == 'orphan'] == [
            ('orphan', 'volume', 'volume-%s.qcow2' % ghost_volume, 'removed')]
        assert [f[0] for f in _audit(cloud)[1]] == ['missing'] * 3

        names = [d.name() for d in conn.listAllDomains()]
        assert 'instance-%s' % ghost not in names
        # The instance's own port keeps its filter; the ghost's is gone.
        filters = {f.name() for f in conn.listAllNWFilters()}
        assert '%s-port-%s' % (cloud.prefix, ghost_port) not in filters
        (port_id,), = cloud.query('SELECT id FROM ports WHERE instance_id = ?',
                                  (vm['id'],))
        assert '%s-port-%s' % (cloud.prefix, port_id) in filters
        assert 'instance-%s' % other_ids[0] in names
        assert other_pool.listVolumes() == ['volume-%s.qcow2' % other_ids[1]]
    finally:
        _remove(conn, [other_ids[0]] if other_ids else [], [other_pool])
        conn.close()
