"""The server view builder: one shape per microversion, as Nova's views/servers.py.

Input is a server record (provisioner.compute.listing); output is exactly what Nova
returns at the negotiated microversion: no key from a later one (strict clients
validate against the version they asked for).
"""

import base64
import hashlib

from provisioner.api import common
from provisioner.api import urls
from provisioner.compute import states
from provisioner import naming

# Statuses that carry a progress percentage in Nova's view.
_PROGRESS = {'BUILD': 0, 'ACTIVE': 100, 'REBOOT': 100, 'HARD_REBOOT': 100}


def host_id(project_id, host):
    """Nova's hostId: tells a project's servers on one host apart, without naming it."""
    if not host:
        return ''
    return hashlib.sha224((project_id + host).encode()).hexdigest()


def basic(req, server):
    return {'id': server['id'], 'name': server['name'],
            'links': urls.links(req, 'v2.1', 'servers', server['id'])}


def _addresses(server):
    addresses = {}
    for address in server['addresses']:
        addresses.setdefault(address['network'], []).append(
            {'version': 4, 'addr': address['ip'], 'OS-EXT-IPS:type': 'fixed',
             'OS-EXT-IPS-MAC:mac_addr': address['mac']})
    return addresses


def _fault(server):
    return {'code': 500, 'created': common.isotime(server['updated_at']),
            'message': server['fault'] or 'Unknown error'}


def _image(req, server):
    # Nova shows a server booted from a volume with image "" (its root is the volume).
    if server.get('boot_from_volume'):
        return ''
    return {'id': server['image_id'],
            'links': urls.bookmark(req, 'images', server['image_id'])}


def _addresses_of_network(server, network):
    return [{'version': 4, 'addr': a['ip']} for a in server['addresses']
            if a['network'] == network]


def addresses(server):
    """GET /servers/{id}/ips: the addresses by network label, without extensions."""
    return {network: _addresses_of_network(server, network)
            for network in dict.fromkeys(a['network'] for a in server['addresses'])}


def _flavor(req, server):
    """2.47 embeds the flavor the server was built with; before, its id and link."""
    if req.api_version < (2, 47):
        return {'id': server['flavor_id'],
                'links': urls.bookmark(req, 'flavors', server['flavor_id'])}
    flavor = server.get('flavor') or {}
    if not flavor:
        return {}  # Nova's view of a flavor removed from the database
    return {'vcpus': flavor['vcpus'], 'ram': flavor['ram'], 'disk': flavor['disk'],
            'ephemeral': flavor.get('ephemeral', 0), 'swap': flavor.get('swap', 0),
            'original_name': flavor['name'],
            'extra_specs': dict(flavor.get('extra_specs') or {})}


# The fields microversions 2.9 - 2.73 add to every full view of a server, in order.
_VERSIONED = (
    ((2, 9), 'locked', lambda server: bool(server['locked_by'])),
    ((2, 19), 'description', lambda server: server['description']),
    ((2, 26), 'tags', lambda server: list(server['tags'])),
    ((2, 63), 'trusted_image_certificates',
     lambda server: list(server['trusted_certs']) if server['trusted_certs'] else None),
    ((2, 73), 'locked_reason', lambda server: server['locked_reason']))


def _versioned(req, server, view, show_groups):
    """The fields microversions 2.9 - 2.73 add to every full view of a server."""
    version = req.api_version
    for since, key, value in _VERSIONED:
        if version >= since:
            view[key] = value(server)
    if show_groups and version >= (2, 71):
        view['server_groups'] = list(server['server_groups'])


def updated(req, server, show_groups=True, addresses_view=None):
    """The server as PUT /servers/{id} and rebuild answer it (below 2.75): Nova's
    base view, without the extended attributes the show view adds
    (``addresses_view``: the detail view's own addresses, in the same place)."""
    view = basic(req, server)
    view.update({
        'status': server['status'],
        'tenant_id': server['project_id'],
        'user_id': server['user_id'],
        'metadata': server['metadata'],
        'hostId': host_id(server['project_id'], server['host']),
        'image': _image(req, server),
        'flavor': _flavor(req, server),
        'created': common.isotime(server['created_at']),
        'updated': common.isotime(server['updated_at']),
        'addresses': (addresses_view or addresses)(server),
        'accessIPv4': server.get('access_ip_v4') or '',
        'accessIPv6': server.get('access_ip_v6') or '',
        'OS-DCF:diskConfig': 'MANUAL',
    })
    if server['status'] in _PROGRESS:
        view['progress'] = _PROGRESS[server['status']]
    if server['status'] in ('ERROR', 'DELETED'):
        view['fault'] = _fault(server)
    _versioned(req, server, view, show_groups)
    return view


def detail(req, server, user_data=None, show_groups=False):
    """The server as GET /servers/{id} (``show_groups``: 2.71's server groups)
    and /servers/detail show it at req.api_version."""
    version = req.api_version
    is_admin = req.context.is_admin
    view = updated(req, server, show_groups, _addresses)
    if server.get('security_groups'):  # Nova's: the groups its ports carry, by name
        view['security_groups'] = [{'name': name} for name in server['security_groups']]
    view.update({
        'OS-EXT-AZ:availability_zone': server['availability_zone'] or (
            'nova' if server['host'] else ''),
        'config_drive': 'True' if server['config_drive'] else '',
        'key_name': server['key_name'],
        'OS-SRV-USG:launched_at': common.isotime_us(server['launched_at'])
        if server['launched_at'] else None,
        'OS-SRV-USG:terminated_at': None,
        'OS-EXT-STS:task_state': server['task_state'],
        'OS-EXT-STS:vm_state': server['vm_state'],
        'OS-EXT-STS:power_state': states.POWER_STATE_CODES.get(server['power_state'],
                                                               0),
        'os-extended-volumes:volumes_attached': [
            dict({'id': v['id']}, **({'delete_on_termination': v.get('index') is not None}
                                     if version >= (2, 3) else {}))
            for v in server['volumes']],
    })
    if is_admin:
        view['OS-EXT-SRV-ATTR:host'] = server['host']
        view['OS-EXT-SRV-ATTR:instance_name'] = 'instance-%s' % server['id']
        view['OS-EXT-SRV-ATTR:hypervisor_hostname'] = server['host']
        if version >= (2, 3):
            view.update(_extended_attributes(server, user_data))
        if version >= (2, 16):  # Nova's policy: admins see the host's status
            view['host_status'] = server['host_status']
    elif version >= (2, 90):  # 2.90 shows everyone the hostname
        view['OS-EXT-SRV-ATTR:hostname'] = hostname(server)
    return view


def hostname(server):
    """What the guest is told its name is: set (2.90), else from the name."""
    return server['hostname'] or naming.hostname(server['name'])


def _extended_attributes(server, user_data):
    """2.3: what an admin sees of how the server was built."""
    return {'OS-EXT-SRV-ATTR:reservation_id': server.get('reservation_id') or
            'r-%s' % server['id'][:8],
            'OS-EXT-SRV-ATTR:launch_index': server.get('launch_index') or 0,
            'OS-EXT-SRV-ATTR:hostname': hostname(server),
            'OS-EXT-SRV-ATTR:kernel_id': '',
            'OS-EXT-SRV-ATTR:ramdisk_id': '',
            'OS-EXT-SRV-ATTR:root_device_name': '/dev/vda',
            'OS-EXT-SRV-ATTR:user_data': (base64.b64encode(user_data).decode()
                                          if user_data is not None else None)}


def created(req, instance_id):
    """POST /servers' answer (202): Nova's fields, without an adminPass (the guest
    takes no password)."""
    return {'id': instance_id,
            'links': urls.links(req, 'v2.1', 'servers', instance_id),
            'OS-DCF:diskConfig': 'MANUAL',
            'security_groups': [{'name': 'default'}]}
