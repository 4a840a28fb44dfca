"""Servers: create, list, show, rename, delete (Nova's servers controller).

The controller translates Nova's request into a ComputeAPI call, which checks
policy, records the instance, its action and its persisted flow in one go; the
flow is then handed to the process's dispatcher (a thread here all-in-one, an
engine through the jobboard when distributed). Every refusal happens before
anything is written.
"""

import base64
import datetime
import re

from provisioner.api import common
from provisioner.api.compute.schemas import servers as schemas
from provisioner.api.compute.views import security_groups as security_group_views
from provisioner.api.compute.views import servers as views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import api as compute_api
from provisioner.compute import instances
from provisioner import exception
from provisioner.network import security_groups as network_security_groups
from provisioner.network import service as networks

# Nova's status filter, as the vm_states that show as it.
_STATUS_FILTER = {'BUILD': ['building'], 'ACTIVE': ['active'], 'SHUTOFF': ['stopped'],
                  'ERROR': ['error'], 'REBOOT': ['active'],
                  'HARD_REBOOT': ['active', 'stopped']}


def compute(req):
    # All-in-one this process is the hypervisor host: a boot first checks and
    # reports it, as the CLI does. Distributed, the workers report their hosts.
    return compute_api.ComputeAPI(req.context, req.deployment)


def _ref_id(value):
    """Nova takes a flavor or image as an id or a URL ending in it."""
    return str(value).rstrip('/').rsplit('/', 1)[-1]


# -- create ----------------------------------------------------------------------

def _unsupported(field, why):
    raise wsgi.HTTPError(400, '%s is not supported: %s' % (field, why))


def _deletes_on_termination(bdm):
    return str(bdm.get('delete_on_termination', False)).lower() == 'true'


def _check_root(bdm, why):
    """Refuse a volume mapping that can only be the root disk at another boot_index."""
    if str(bdm.get('boot_index')) != '0':
        _unsupported('block_device_mapping_v2 source_type=%s destination_type=volume '
                     'with boot_index %s' % (bdm.get('source_type'),
                                             bdm.get('boot_index')), why)


def _boot_volume(bdm):
    """{'size', 'delete_on_termination'} of a root volume made from the image."""
    _check_root(bdm, 'a volume from an image is the root disk (boot_index 0)')
    size = bdm.get('volume_size')
    if isinstance(size, bool) or not str(size).strip().isdigit() or int(size) < 1:
        raise wsgi.HTTPError(400, 'Booting from a volume needs an integer volume_size '
                                  '(GiB) of at least 1, not %r.' % (size,))
    return {'size': int(size), 'delete_on_termination': _deletes_on_termination(bdm)}


def _existing_boot_volume(bdm):
    """{'volume_id'} of an existing volume to boot from."""
    _check_root(bdm, 'an existing volume can be the root disk (boot_index 0); attach '
                     'others once the server is ACTIVE')
    if not isinstance(bdm.get('uuid'), str) or not bdm['uuid']:
        raise wsgi.HTTPError(400, 'A block device mapping of source_type volume needs '
                                  'the volume\'s uuid.')
    if _deletes_on_termination(bdm):
        _unsupported('block_device_mapping_v2 source_type=volume '
                     'delete_on_termination=true', 'an existing volume outlives the '
                     'server; delete it with the volume API once the server is gone')
    return {'volume_id': bdm['uuid']}


def _bdm_image(bdm, image):
    """The image a block device mapping boots, which must be imageRef if given."""
    if image is not None and _ref_id(bdm.get('uuid', image)) != _ref_id(image):
        raise wsgi.HTTPError(400, 'The image of block_device_mapping_v2 (%s) is not '
                                  'imageRef (%s).' % (bdm.get('uuid'), image))
    return image or bdm.get('uuid')


def _volumes_and_image(server):
    """(image ref, [volume sizes], boot volume or None) from imageRef and
    block_device_mapping_v2; no image ref is needed to boot from an existing volume."""
    image = server.get('imageRef') or None
    sizes = []
    boot_volume = None
    for bdm in server.get('block_device_mapping_v2', []):
        source, dest = bdm.get('source_type'), bdm.get('destination_type', 'volume')
        if source == 'image' and dest == 'local':
            image = _bdm_image(bdm, image)
        elif source == 'blank' and dest == 'volume':
            if not _deletes_on_termination(bdm):
                _unsupported('block_device_mapping_v2 delete_on_termination=false',
                             'volumes created at boot are deleted with the server')
            try:
                sizes.append(int(bdm['volume_size']))
            except (KeyError, ValueError):
                raise wsgi.HTTPError(400, 'A blank volume needs an integer '
                                          'volume_size (GiB).') from None
        elif source == 'image' and dest == 'volume' and boot_volume is None:
            image = _bdm_image(bdm, image)
            boot_volume = _boot_volume(bdm)
        elif source == 'volume' and dest == 'volume' and boot_volume is None:
            boot_volume = _existing_boot_volume(bdm)
        else:
            _unsupported('block_device_mapping_v2 source_type=%s destination_type=%s'
                         % (source, dest), 'only new blank volumes are attached at '
                                           'boot')
    if boot_volume is not None and 'volume_id' in boot_volume:
        return image and _ref_id(image), sizes, boot_volume  # the volume's image
    if image is None:
        raise wsgi.HTTPError(400, 'imageRef is required: provisioner boots servers '
                                  'from an image or a volume made from one.')
    return _ref_id(image), sizes, boot_volume


def _networks(req, server):
    requested = server.get('networks')
    if requested is None:
        # Nova 2.1 without networks: the one network there is, if there is one.
        found = networks.list_networks(req.context)
        if len(found) != 1:
            raise wsgi.HTTPError(400, 'Give the server a network ("networks": '
                                      '[{"uuid": ...}]): %d networks exist.'
                                 % len(found))
        return [found[0]['id']]
    nics = []
    for network in requested:  # each has a port or a uuid (the schema says so)
        if network.get('port'):  # a port made first: its network and address
            nics.append({'port': network['port']})
        elif network.get('fixed_ip'):
            nics.append({'network': network['uuid'], 'fixed_ip': network['fixed_ip']})
        else:
            nics.append(network['uuid'])
    return nics


def _user_data(server):
    encoded = server.get('user_data')
    return None if encoded is None else base64.b64decode(encoded)  # checked: base64


# References in the body that do not exist are the request's fault: 400, as Nova.
_BAD_REFERENCE = {'Flavor', 'Image', 'Network', 'Port', 'Server group', 'Volume'}


def _count(server):
    """How many servers to boot: Nova's max_count (min_count if not given)."""
    low = int(server.get('min_count', 1))
    high = int(server.get('max_count', low))
    if low > high:
        raise wsgi.HTTPError(400, 'min_count (%d) must be <= max_count (%d)'
                             % (low, high))
    return high


def _access_ips(server):
    """{'v4', 'v6'} of the access addresses given (Nova's accessIPv4/accessIPv6)."""
    return {version: server[key] for version, key in (('v4', 'accessIPv4'),
                                                      ('v6', 'accessIPv6'))
            if key in server}


def _check_one_per_port(nics, count):
    """A port or a fixed address is one server's (Nova's 400 for several)."""
    if count > 1 and any(isinstance(nic, dict) for nic in nics):
        raise wsgi.HTTPError(400, 'Unable to launch multiple instances with a single '
                                  'configured port or fixed IP.')


def _true(value):
    return str(value).lower() in ('true', '1', 'on', 'yes', 'y', 't')


@wsgi.route('POST', '/v2.1/servers')
@validation.schema(schemas.CREATE)
def create(req, body):
    server = body['server']
    hints = body.get('OS-SCH-HNT:scheduler_hints') or body.get('os:scheduler_hints') \
        or {}
    image, volume_sizes, boot_volume = _volumes_and_image(server)
    count = _count(server)
    nics = _networks(req, server)
    _check_one_per_port(nics, count)
    try:
        reservation_id, instance_ids = compute(req).create_instances(
            server['name'], _ref_id(server['flavorRef']), image, nics, volume_sizes,
            _user_data(server), availability_zone=server.get('availability_zone'),
            server_group=hints.get('group'), properties=server.get('metadata'),
            key_name=server.get('key_name'), boot_volume=boot_volume,
            access_ips=_access_ips(server), count=count)
    except exception.NotFound as exc:
        if exc.kwargs.get('kind') in _BAD_REFERENCE:
            raise wsgi.HTTPError(400, str(exc)) from None
        raise
    for instance_id in instance_ids:
        req.deployment.dispatcher.boot(instance_id)
    if _true(server.get('return_reservation_id', False)):
        return wsgi.json_response({'reservation_id': reservation_id}, 202)
    return wsgi.json_response({'server': views.created(req, instance_ids[0])}, 202,
                              {'Location': urls.service_url(req, 'v2.1', 'servers',
                                                            instance_ids[0])})


# -- list and show -------------------------------------------------------------------

def _list_filters(req):
    """Nova's list filters that provisioner keeps; unknown ones are ignored, as Nova
    ignores what a non-admin may not filter on."""
    params = req.GET
    filters = {}
    all_projects = False
    if req.context.is_admin:
        if 'all_tenants' in params:
            all_projects = params['all_tenants'].lower() not in ('0', 'false', 'no',
                                                                 'off')
        project = params.get('project_id') or params.get('tenant_id')
        if project:
            filters['project_id'], all_projects = project, True
        if params.get('host'):
            filters['host'] = params['host']
    status = params.get('status')
    if status:
        if status.upper() not in _STATUS_FILTER:
            return status, all_projects, filters  # nothing has an unknown status
        filters['vm_states'] = _STATUS_FILTER[status.upper()]
    for param, key in (('flavor', 'flavor_id'), ('image', 'image_id'),
                       ('key_name', 'key_name'), ('user_id', 'user_id')):
        if params.get(param):
            filters[key] = _ref_id(params[param])
    if params.get('changes-since'):
        filters['changes_since'] = _timestamp(params['changes-since'])
    return status, all_projects, filters


def _timestamp(value):
    try:
        moment = datetime.datetime.fromisoformat(value.replace('Z', '+00:00'))
    except ValueError:
        raise wsgi.HTTPError(400, 'changes-since must be an ISO 8601 time, not %r'
                             % value) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def _matches(pattern, value):
    """Nova matches name and ip filters as regular expressions (re.search)."""
    try:
        return re.search(pattern, value or '') is not None
    except re.error:
        return pattern in (value or '')


def _servers(req):
    status, all_projects, filters = _list_filters(req)
    if status is not None and 'vm_states' not in filters:
        return []
    servers = compute(req).server_records(all_projects=all_projects, **filters)
    name, ip = req.GET.get('name'), req.GET.get('ip')
    reservation_id = req.GET.get('reservation_id')
    if reservation_id:
        servers = [s for s in servers if s['reservation_id'] == reservation_id]
    if name:
        servers = [s for s in servers if _matches(name, s['name'])]
    if ip:
        servers = [s for s in servers
                   if any(_matches(ip, a['ip']) for a in s['addresses'])]
    if status in ('REBOOT', 'HARD_REBOOT', 'ACTIVE', 'SHUTOFF'):
        servers = [s for s in servers if s['status'] == status.upper()]
    return servers


def _list(req, view):
    return common.paged_response(req, 'servers', _servers(req), view)


@wsgi.route('GET', '/v2.1/servers')
def index(req):
    return _list(req, views.basic)


@wsgi.route('GET', '/v2.1/servers/detail')
def detail(req):
    # Extended attributes (2.3) would need each server's user data: admins only,
    # and read per server only at that microversion.
    if req.context.is_admin and req.api_version >= (2, 3):
        return _list(req, lambda r, s: views.detail(r, s, _user_data_of(s)))
    return _list(req, views.detail)


def _user_data_of(server):
    return instances.user_data(server['id']) if server['has_user_data'] else None


@wsgi.route('GET', '/v2.1/servers/{server_id}')
def show(req, server_id):
    server = compute(req).server_record(server_id)
    user_data = None
    if req.context.is_admin and req.api_version >= (2, 3):
        user_data = _user_data_of(server)
    return wsgi.json_response({'server': views.detail(req, server, user_data)})


# -- update and delete -----------------------------------------------------------

@wsgi.route('PUT', '/v2.1/servers/{server_id}')
@validation.schema(schemas.UPDATE)
def update(req, server_id, body):
    api = compute(req)
    server = api.server_record(server_id)
    api.update(server['id'], name=body['server'].get('name'),
               access_ips=_access_ips(body['server']))
    return wsgi.json_response({'server': views.updated(req, api.server_record(
        server['id']))})


@wsgi.route('DELETE', '/v2.1/servers/{server_id}')
def delete(req, server_id):
    api = compute(req)
    instance_id = api.request_delete(api.server_record(server_id)['id'])
    req.deployment.dispatcher.delete(instance_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-security-groups')
def security_groups(req, server_id):
    """The groups the server's ports carry, in Nova's shape. Recorded: the hosts do
    not enforce them yet."""
    instance_id = compute(req).server_record(server_id)['id']
    found = network_security_groups.server_groups(req.context, instance_id)
    return wsgi.json_response(security_group_views.security_groups(
        found, network_security_groups.list_groups(req.context)))
