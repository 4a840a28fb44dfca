"""Servers: create, list, show, rename, delete (Nova's servers controller).

The controller translates Nova's request into a ComputeAPI call, which checks
policy, records the instance, its action and its persisted flow in one go; the
flow is then handed to the process's dispatcher (a thread here all-in-one, an
engine through the jobboard when distributed). Every refusal happens before
anything is written.
"""

import base64

from oslo_utils import strutils

from provisioner.api import common
from provisioner.api.compute import server_filters
from provisioner.api.compute.schemas import servers as schemas
from provisioner.api.compute.views import security_groups as security_group_views
from provisioner.api.compute.views import servers as views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import api as compute_api
from provisioner.compute import instances
from provisioner.compute import listing
from provisioner import exception
from provisioner.network import security_groups as network_security_groups
from provisioner.network import service as networks

def compute(req):
    # All-in-one this process is the hypervisor host: a boot first checks and
    # reports it, as the CLI does. Distributed, the workers report their hosts.
    return compute_api.ComputeAPI(req.context, req.deployment)


_ref_id = server_filters.ref_id


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


def _auto_network(req):
    """2.37's "auto": the one network the project can use, as Nova's; provisioner
    allocates none of its own (Nova's 400 when there is none to use)."""
    found = networks.list_networks(req.context)
    if not found:
        raise wsgi.HTTPError(400, 'Unable to automatically allocate a network for '
                                  'project %s' % req.context.project_id)
    if len(found) > 1:
        raise wsgi.HTTPError(400, 'More than one possible network found. Specify '
                                  'network ID(s) to select which one(s) to connect '
                                  'to.')
    return [found[0]['id']]


def _networks(req, server):
    requested = server.get('networks')
    if requested == 'none':
        return []
    if requested == 'auto':
        return _auto_network(req)
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


def _config_drive(server):
    """Whether the server asks for a config drive (Nova's _check_config_drive)."""
    value = server.get('config_drive')
    try:
        return bool(value) and strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid config_drive provided.') from None


# References in the body that do not exist are the request's fault: 400, as Nova.
_BAD_REFERENCE = {'Flavor', 'Image', 'Network', 'Port', 'Server group', 'Volume',
                  'Compute host'}


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


def _device_tags(server):
    """2.32/2.42's device tags, as asked: {'nics': [tag or None per network],
    'root': the root disk's, 'blank_volumes': [tag or None per blank volume]}; {}
    when none is tagged."""
    nics = server.get('networks')
    tags = {'nics': [n.get('tag') for n in nics] if isinstance(nics, list) else [],
            'root': None, 'blank_volumes': []}
    for bdm in server.get('block_device_mapping_v2', []):
        if bdm.get('source_type') == 'blank':
            tags['blank_volumes'].append(bdm.get('tag'))
        elif tags['root'] is None:
            tags['root'] = bdm.get('tag')
    return tags if any(tags['nics'] + tags['blank_volumes'] + [tags['root']]) else {}


def _requested_host(req, server):
    """2.74's host and hypervisor_hostname (one name here: a host is its own
    hypervisor); admins only, as Nova's policy."""
    host, node = server.get('host'), server.get('hypervisor_hostname')
    if host is None and node is None:
        return None
    if not req.context.is_admin:
        raise wsgi.HTTPError(403, 'Policy doesn\'t allow compute:servers:create:'
                                  'requested_destination to be performed.')
    if host and node and host != node:
        raise wsgi.HTTPError(400, 'Compute host %s could not be found.' % node)
    return host or node


def _fields(req, server, count):
    """What the create sets besides the boot itself (2.19, 2.63, 2.90); below
    2.19 Nova describes a server by its name."""
    fields = {key: server[key] for key in ('description', 'hostname',
                                           'trusted_image_certificates')
              if server.get(key) is not None}
    if req.api_version < (2, 19):
        fields['description'] = server['name']
    if 'hostname' in fields and count > 1:
        raise wsgi.HTTPError(400, 'Unable to allocate a single hostname to multiple '
                                  'instances')
    for bdm in server.get('block_device_mapping_v2', []):
        if bdm.get('volume_type'):  # 2.67; provisioner's volumes have no types
            raise wsgi.HTTPError(400, 'Volume type %s could not be found.'
                                 % bdm['volume_type'])
    return fields


@wsgi.route('POST', '/v2.1/servers')
@validation.schema(schemas.CREATE, '2.1', '2.18')
@validation.schema(schemas.CREATE_V219, '2.19', '2.31')
@validation.schema(schemas.CREATE_V232, '2.32', '2.32')
@validation.schema(schemas.CREATE_V233, '2.33', '2.36')
@validation.schema(schemas.CREATE_V237, '2.37', '2.41')
@validation.schema(schemas.CREATE_V242, '2.42', '2.51')
@validation.schema(schemas.CREATE_V252, '2.52', '2.56')
@validation.schema(schemas.CREATE_V257, '2.57', '2.62')
@validation.schema(schemas.CREATE_V263, '2.63', '2.66')
@validation.schema(schemas.CREATE_V267, '2.67', '2.73')
@validation.schema(schemas.CREATE_V274, '2.74', '2.89')
@validation.schema(schemas.CREATE_V290, '2.90')
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
            access_ips=_access_ips(server), count=count, fields=_fields(req, server, count),
            tags=server.get('tags', ()), device_tags=_device_tags(server),
            security_groups=[g['name'] for g in server.get('security_groups') or ()
                             if g.get('name')],
            requested_host=_requested_host(req, server),
            config_drive=_config_drive(server))
    except exception.NotFound as exc:
        if exc.kwargs.get('kind') == 'Compute host':
            raise wsgi.HTTPError(400, 'Compute host %s could not be found.'
                                 % exc.kwargs['name']) from None
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

def _servers(req):
    query = server_filters.params(req)
    status = query.get('status')
    all_projects, filters = server_filters.database_filters(req, query)
    if status:
        vm_states = server_filters.status_states(req, status)
        if vm_states is None:
            return []
        filters['vm_states'] = vm_states
    servers = compute(req).server_records(all_projects=all_projects, **filters)
    return server_filters.matching(servers, query, status and status.upper())


def _list(req, view, prepare=None):
    return common.paged_response(req, 'servers', _servers(req), view, prepare=prepare)


@wsgi.route('GET', '/v2.1/servers')
def index(req):
    return _list(req, views.basic)


@wsgi.route('GET', '/v2.1/servers/detail')
def detail(req):
    # Extended attributes (2.3) need the servers' user data: admins only, at that
    # microversion, read for the page in one query.
    if req.context.is_admin and req.api_version >= (2, 3):
        user_data = {}

        def read_user_data(shown):
            user_data.update(listing.user_data(
                [s['id'] for s in shown if s['has_user_data']]))

        return _list(req, lambda r, s: views.detail(r, s, user_data.get(s['id'])),
                     read_user_data)
    return _list(req, views.detail)


def _user_data_of(server):
    return instances.user_data(server['id']) if server['has_user_data'] else None


def _shown(req, server):
    user_data = None
    if req.context.is_admin and req.api_version >= (2, 3):
        user_data = _user_data_of(server)
    return views.detail(req, server, user_data, show_groups=True)


@wsgi.route('GET', '/v2.1/servers/{server_id}')
def show(req, server_id):
    return wsgi.json_response({'server': _shown(req, compute(req).server_record(
        server_id))})


# -- update and delete -----------------------------------------------------------

@wsgi.route('PUT', '/v2.1/servers/{server_id}')
@validation.schema(schemas.UPDATE, '2.1', '2.18')
@validation.schema(schemas.UPDATE_V219, '2.19', '2.89')
@validation.schema(schemas.UPDATE_V290, '2.90')
def update(req, server_id, body):
    api = compute(req)
    server = api.server_record(server_id)
    fields = {key: body['server'][key] for key in ('description', 'hostname')
              if key in body['server']}  # a description of null clears it
    api.update(server['id'], name=body['server'].get('name'),
               access_ips=_access_ips(body['server']), fields=fields)
    server = api.server_record(server['id'])
    if req.api_version >= (2, 75):  # the same view as show's
        return wsgi.json_response({'server': _shown(req, server)})
    return wsgi.json_response({'server': views.updated(req, server)})


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
