"""Nova's hypervisor and compute service shapes, from provisioner's hosts.

Each provisioner host is one hypervisor and one ``nova-compute`` service. Before
2.53 Nova numbers both with integers; provisioner's hosts have uuids, so the
number shown is derived from the uuid (CRC-32, 31 bits): stable for the host's
life and the same in both APIs, with no column to keep. From 2.53 both ids are
the host's uuid. 2.28 shows ``cpu_info`` as an object; 2.88 drops the usage
fields and shows the ``uptime``; 2.11 shows a service's ``forced_down``.
"""

import json
import zlib

from provisioner.api import common

BINARY = 'nova-compute'


def number(host):
    """The integer id of a host's hypervisor and service (Nova's before 2.53)."""
    return zlib.crc32(host['id'].encode()) & 0x7fffffff


def host_id(req, host):
    """The id Nova shows at req's version: the number, or from 2.53 the uuid."""
    return host['id'] if req.api_version >= (2, 53) else number(host)


def summary(req, host):
    return {'id': host_id(req, host), 'hypervisor_hostname': host['name'],
            'state': 'up' if host['alive'] else 'down',
            'status': 'enabled' if host['enabled'] else 'disabled'}


def _hypervisor_type(host):
    kind = host['hypervisor_type'] or ''
    return 'QEMU' if kind.lower() in ('qemu', 'kvm') else kind  # as libvirt names it


def detail(req, host, servers, uptime=None):
    """A hypervisor with its usage; ``servers``: every server record; ``uptime``:
    the host's uptime line (2.88), None when it cannot be known."""
    view = summary(req, host)
    view.update({'hypervisor_type': _hypervisor_type(host),
                 'hypervisor_version': 0,  # not reported by provisioner's hosts
                 'host_ip': None,          # idem
                 'service': {'host': host['name'], 'id': host_id(req, host),
                             'disabled_reason': host['disabled_reason']}})
    if req.api_version >= (2, 88):
        view['uptime'] = uptime
    else:
        view.update(_usage(req, host, servers))
    return view


def _usage(req, host, servers):
    on_host = [s for s in servers if s['host'] == host['name']]
    free_disk = host['disk_gib'] - host['disk_gib_used']
    cpu_info = {'arch': host['arch']}
    return {
        'vcpus': host['vcpus'], 'vcpus_used': host['vcpus_used'],
        'memory_mb': host['memory_mib'], 'memory_mb_used': host['memory_mib_used'],
        'free_ram_mb': host['memory_mib'] - host['memory_mib_used'],
        'local_gb': host['disk_gib'], 'local_gb_used': host['disk_gib_used'],
        'free_disk_gb': free_disk, 'disk_available_least': free_disk,
        'running_vms': len(on_host),
        'current_workload': sum(1 for s in on_host if s['task_state'] is not None),
        'cpu_info': cpu_info if req.api_version >= (2, 28) else json.dumps(cpu_info),
    }


def servers_of(host, servers):
    """Nova's ``servers`` of a hypervisor: name and uuid of each on the host."""
    return [{'name': s['name'], 'uuid': s['id']} for s in servers
            if s['host'] == host['name']]


_TOTALS = ('current_workload', 'disk_available_least', 'free_disk_gb', 'free_ram_mb',
           'local_gb', 'local_gb_used', 'memory_mb', 'memory_mb_used', 'running_vms',
           'vcpus', 'vcpus_used')


def statistics(details):
    totals = {field: sum(v[field] for v in details) for field in _TOTALS}
    return {'hypervisor_statistics': dict(totals, count=len(details))}


def service(req, host):
    view = {'id': host_id(req, host), 'binary': BINARY, 'host': host['name'],
            'zone': host['availability_zone'],
            'status': 'enabled' if host['enabled'] else 'disabled',
            'state': 'up' if host['alive'] else 'down',
            'updated_at': common.object_time(host['updated_at']),
            'disabled_reason': host['disabled_reason']}
    if req.api_version >= (2, 11):
        view['forced_down'] = bool(host.get('forced_down'))
    return view


def service_update(body, action):
    """What PUT os-services/{enable,disable,disable-log-reason} answers."""
    view = {'host': body['host'], 'binary': body['binary'],
            'status': 'enabled' if action == 'enable' else 'disabled'}
    if action == 'disable-log-reason':
        view['disabled_reason'] = body['disabled_reason']
    return {'service': view}


def availability_zones(hosts):
    """Nova's os-availability-zone: a zone with an enabled host is available, a zone
    whose hosts are all disabled is not; no host, no zone."""
    available, unavailable = _zones(hosts)
    return [{'zoneName': zone, 'zoneState': {'available': zone in available},
             'hosts': None} for zone in available + unavailable]


def availability_zones_detail(hosts):
    """The same, with each available zone's enabled hosts (admins)."""
    available, unavailable = _zones(hosts)
    info = []
    for zone in available:
        info.append({'zoneName': zone, 'zoneState': {'available': True}, 'hosts': {
            h['name']: {BINARY: {'available': h['alive'], 'active': True,
                                 'updated_at': common.object_time(h['updated_at'])}}
            for h in hosts if h['enabled'] and h['availability_zone'] == zone}})
    info.extend({'zoneName': zone, 'zoneState': {'available': False}, 'hosts': None}
                for zone in unavailable)
    return info


def _zones(hosts):
    """(available zones, unavailable zones), each sorted by name."""
    available = sorted({h['availability_zone'] for h in hosts if h['enabled']})
    unavailable = sorted({h['availability_zone'] for h in hosts} - set(available))
    return available, unavailable
