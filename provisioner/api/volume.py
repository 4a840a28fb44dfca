"""Block storage v3 (a Cinder subset): volumes, their quotas, limits and zones.

Two kinds of volume are served: those a boot made for its instance (named
``<instance name>-vol<index>``, in-use until the instance is deleted with them) and
the volume service's own (provisioner.volume.api): created blank or from an image
(``imageRef``), renamed, grown while detached (``os-extend``), deleted while not
attached, and attached to servers through Nova's os-volume_attachments. Quotas are
provisioner's ``volumes_gib`` (Cinder's ``gigabytes``, over it: 413 overLimit);
there is no per-volume count limit, and no snapshots, backups, groups or types.
Only microversion 3.0 is served.

As in Cinder, the project id in the URL must be the token's project (400
"Malformed request url" otherwise); an admin reaches other projects' volumes
with ``?all_tenants=1`` and their quotas by the target project id.
"""

import re

from provisioner.api import app
from provisioner.api import common
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.compute import quotas
from provisioner.conf import CONF
from provisioner import exception
from provisioner.identity import admin
from provisioner import policy
from provisioner.volume import api as volume_api
from provisioner.volume import volumes

VERSION = '3.0'
UPDATED = '2023-08-31T00:00:00Z'
_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')
# Cinder's quota keys; provisioner enforces gigabytes only (its volumes_gib).
UNSUPPORTED_ZERO = ('snapshots', 'backups', 'backup_gigabytes', 'groups')
UNLIMITED = ('volumes', 'per_volume_gigabytes')


class VolumeService(wsgi.Service):
    def before(self, req):
        req.api_version = negotiate(req)

    def after(self, req, response):
        response.headers['OpenStack-API-Version'] = 'volume %s' % VERSION
        response.headers['Vary'] = 'OpenStack-API-Version'


def negotiate(req):
    """3.0, the one microversion served; 400/406 for anything else asked for."""
    for part in req.headers.get('OpenStack-API-Version', '').split(','):
        service, _, value = part.strip().partition(' ')
        value = value.strip()
        if service.lower() != 'volume' or not value or value.lower() == 'latest':
            continue
        if _VERSION_RE.match(value) is None:
            raise wsgi.HTTPError(400, 'API Version String %s is of invalid format. '
                                      'Must be of format MajorNum.MinorNum.' % value)
        if value != VERSION:
            raise wsgi.HTTPError(406, 'Version %s is not supported by the API. Minimum '
                                      'is %s and maximum is %s.'
                                 % (value, VERSION, VERSION))
    return (3, 0)


SERVICE = VolumeService('volume')  # Cinder's faults are Nova's (wsgi.nova_fault)


def version_document(req):
    return {'id': 'v3.0', 'status': 'CURRENT', 'version': VERSION,
            'min_version': VERSION, 'updated': UPDATED,
            'links': [{'rel': 'describedby', 'type': 'text/html',
                       'href': 'https://docs.openstack.org/'},
                      {'rel': 'self',
                       'href': '%s/volume/v3/' % app.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.volume+json;version=3'}]}


@SERVICE.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [version_document(req)]}, 300)


@SERVICE.route('GET', '/v3', public=True)
def version(req):
    return wsgi.json_response({'versions': [version_document(req)]})


def _check_url_project(req, project_id):
    if project_id != req.context.project_id:
        raise wsgi.HTTPError(400, 'Malformed request url: the project %s in the URL is '
                                  'not the token\'s project %s.'
                             % (project_id, req.context.project_id))


def _time(moment):
    # Cinder's timestamps: 2026-11-23T14:42:38.469947 (UTC, no zone suffix)
    return common.isotime_us(moment)[:-1] if moment is not None else None


def _device(volume):
    """The guest's device: after the root disk (vda) for a boot's volume; the one
    recorded at attachment for a volume of the volume service."""
    if not volume['from_boot']:
        return volume['device']
    index = volume['index'] + (1 if volume['root_disk'] else 0)
    letters = ''
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord('a') + rem) + letters
    return '/dev/vd' + letters


def _links(req, volume):
    return common.links(req, 'v3', req.context.project_id, 'volumes', volume['id'])


def summary_view(req, volume):
    return {'id': volume['id'], 'name': volume['name'], 'links': _links(req, volume)}


def _attachments(volume):
    if volume['instance_id'] is None or volume['status'] not in ('in-use', 'detaching'):
        return []
    return [{'id': volume['id'], 'attachment_id': volume['id'],
             'volume_id': volume['id'], 'server_id': volume['instance_id'],
             'host_name': volume['host'], 'device': _device(volume),
             'attached_at': _time(volume['attached_at'])}]


def detail_view(req, volume):
    created = _time(volume['created_at'])
    body = {
        'id': volume['id'], 'name': volume['name'], 'status': volume['status'],
        'size': volume['size_gib'],
        'availability_zone': volume['availability_zone'] or 'nova',
        'created_at': created, 'updated_at': _time(volume['updated_at']) or created,
        'attachments': _attachments(volume),
        'bootable': 'true' if volume['bootable'] else 'false', 'volume_type': None,
        'metadata': {}, 'description': volume['description'],
        'encrypted': False, 'multiattach': False, 'replication_status': None,
        'snapshot_id': None, 'source_volid': None, 'consistencygroup_id': None,
        'user_id': volume['user_id'], 'links': _links(req, volume),
        'os-vol-tenant-attr:tenant_id': volume['project_id'],
    }
    if volume['image_id']:
        body['volume_image_metadata'] = {'image_id': volume['image_id']}
    if req.context.is_admin:
        body['os-vol-host-attr:host'] = volume['host']
    return body


def _list(req, project_id):
    _check_url_project(req, project_id)
    policy.authorize(req.context, 'instance:list')
    everyone = req.GET.get('all_tenants', '').lower() in ('1', 'true', 'yes') and \
        policy.check(req.context, 'instance:list:all_projects')
    found = volumes.describe(project_id=None if everyone else project_id)
    for key in ('name', 'status', 'project_id', 'bootable'):
        if req.GET.get(key) is not None:
            wanted = req.GET[key]
            if key == 'bootable':
                wanted = wanted.lower() in ('1', 'true', 'yes')
            found = [v for v in found if v[key] == wanted]
    return found


def _listing(req, project_id, view):
    return common.paged_response(req, 'volumes', _list(req, project_id), view)


@SERVICE.route('GET', '/v3/{project_id}/volumes')
def list_volumes(req, project_id):
    return _listing(req, project_id, summary_view)


@SERVICE.route('GET', '/v3/{project_id}/volumes/detail')
def list_volumes_detail(req, project_id):
    return _listing(req, project_id, detail_view)


@SERVICE.route('GET', '/v3/{project_id}/volumes/{volume_id}')
def show_volume(req, project_id, volume_id):
    _check_url_project(req, project_id)
    found = volumes.describe(volume_id=volume_id)
    if not found:
        raise exception.NotFound(kind='Volume', name=volume_id)
    policy.authorize_owned(req.context, 'instance:show', found[0]['project_id'],
                           'Volume', volume_id)
    return wsgi.json_response({'volume': detail_view(req, found[0])})


# -- create, update, extend, delete --------------------------------------------------

def _body(req, key):
    body = req.json_body().get(key)
    if not isinstance(body, dict):
        raise wsgi.HTTPError(400, 'The request body needs a "%s" object.' % key)
    return body


def _show(req, volume_id, status=200):
    found = volumes.describe(volume_id=volume_id)
    if not found:
        raise exception.NotFound(kind='Volume', name=volume_id)
    return wsgi.json_response({'volume': detail_view(req, found[0])}, status)


@SERVICE.route('POST', '/v3/{project_id}/volumes')
def create_volume(req, project_id):
    """A blank volume, or one from an image (imageRef); 202 as Cinder's."""
    _check_url_project(req, project_id)
    body = _body(req, 'volume')
    unsupported = [k for k in ('snapshot_id', 'source_volid', 'backup_id')
                   if body.get(k)]
    if unsupported:
        raise wsgi.HTTPError(400, 'provisioner makes volumes blank or from an image '
                                  'only; %s is not supported.' % ', '.join(unsupported))
    volume_id = volume_api.VolumeAPI(req.context, req.deployment).create(
        body.get('size'), name=body.get('name'), description=body.get('description'),
        image_ref=body.get('imageRef') or body.get('image_id'),
        availability_zone=body.get('availability_zone'))
    return _show(req, volume_id, 202)


@SERVICE.route('PUT', '/v3/{project_id}/volumes/{volume_id}')
def update_volume(req, project_id, volume_id):
    _check_url_project(req, project_id)
    body = _body(req, 'volume')
    extra = sorted(set(body) - {'name', 'description', 'display_name',
                                'display_description', 'metadata'})
    if extra or body.get('metadata'):
        raise wsgi.HTTPError(400, 'Only a volume\'s name and description can be set, '
                                  'not %s.' % ', '.join(extra or ['metadata']))
    fields = {key: body[alias] for key, alias in
              (('name', 'name'), ('description', 'description'),
               ('name', 'display_name'), ('description', 'display_description'))
              if alias in body}
    volume_api.VolumeAPI(req.context, req.deployment).update(volume_id, **fields)
    return _show(req, volume_id)


@SERVICE.route('DELETE', '/v3/{project_id}/volumes/{volume_id}')
def delete_volume(req, project_id, volume_id):
    _check_url_project(req, project_id)
    if volume_api.VolumeAPI(req.context, req.deployment).request_delete(volume_id):
        req.deployment.dispatcher.volume_delete(volume_id)
    return wsgi.empty_response(202)


@SERVICE.route('POST', '/v3/{project_id}/volumes/{volume_id}/action')
def volume_action(req, project_id, volume_id):
    """os-extend (grow a detached volume) and os-reset_status (admins: a volume a
    failed flow left attaching, detaching or error_deleting)."""
    _check_url_project(req, project_id)
    body = req.json_body()
    if len(body) != 1 or not isinstance(next(iter(body.values())), dict) or \
            next(iter(body)) not in ('os-extend', 'os-reset_status'):
        raise wsgi.HTTPError(400, 'provisioner supports the volume actions os-extend '
                                  '{"new_size": N} and os-reset_status {"status": S} '
                                  'only, not %s.' % ', '.join(sorted(body)))
    api = volume_api.VolumeAPI(req.context, req.deployment)
    if 'os-extend' in body:
        api.extend(volume_id, body['os-extend'].get('new_size'))
    else:
        api.reset_status(volume_id, body['os-reset_status'].get('status'))
    return wsgi.empty_response(202)


# -- quotas, limits, zones ------------------------------------------------------------

def _usage(project_id):
    """{cinder key: (limit, in_use)} of a project."""
    gigabytes = {q['resource']: q for q in quotas.show(project_id)}['volumes_gib']
    usage = {'gigabytes': (gigabytes['limit'], gigabytes['in_use']),
             'volumes': (-1, len(volumes.describe(project_id=project_id))),
             'per_volume_gigabytes': (-1, 0)}
    usage.update({key: (0, 0) for key in UNSUPPORTED_ZERO})
    return usage


def _quota_target(req, project_id, target, action):
    """Check the URL and the policy; another project reads as not found."""
    _check_url_project(req, project_id)
    policy.authorize_owned(req.context, action, target, 'Project', target)
    admin.show_project(req.context, target)  # 404 for a project that does not exist


def _quota_set(project_id, with_usage, with_id=True):
    quota_set = {key: ({'limit': limit, 'in_use': in_use, 'reserved': 0, 'allocated': 0}
                       if with_usage else limit)
                 for key, (limit, in_use) in _usage(project_id).items()}
    if with_id:
        quota_set['id'] = project_id
    return {'quota_set': quota_set}


@SERVICE.route('GET', '/v3/{project_id}/os-quota-sets/{target}')
def show_quota_set(req, project_id, target):
    _quota_target(req, project_id, target, 'quota:show')
    usage = req.GET.get('usage', 'false').lower() in ('1', 'true', 'yes')
    return wsgi.json_response(_quota_set(target, usage))


@SERVICE.route('GET', '/v3/{project_id}/os-quota-sets/{target}/defaults')
def show_quota_defaults(req, project_id, target):
    _quota_target(req, project_id, target, 'quota:show')
    defaults = {key: -1 for key in UNLIMITED}
    defaults.update({key: 0 for key in UNSUPPORTED_ZERO})
    defaults.update(gigabytes=CONF.quota.volumes_gib, id=target)
    return wsgi.json_response({'quota_set': defaults})


@SERVICE.route('PUT', '/v3/{project_id}/os-quota-sets/{target}')
def update_quota_set(req, project_id, target):
    """Set the gigabytes limit (admins); the other keys only to what they already are."""
    _quota_target(req, project_id, target, 'quota:set')
    body = req.json_body().get('quota_set')
    if not isinstance(body, dict):
        raise wsgi.HTTPError(400, 'The request body needs a "quota_set" object.')
    current = _usage(target)
    for key, value in body.items():
        if key == 'gigabytes':
            continue
        if key not in current or value != current[key][0]:
            raise wsgi.HTTPError(400, 'provisioner limits only the gigabytes of a '
                                      'project\'s volumes; %s cannot be set.' % key)
    if 'gigabytes' in body:
        value = body['gigabytes']
        if isinstance(value, bool) or not isinstance(value, (int, str)) or \
                not str(value).lstrip('-').isdigit():
            raise wsgi.HTTPError(400, 'gigabytes must be an integer, not %r' % (value,))
        quotas.set_limits(target, volumes_gib=int(value))
    return wsgi.json_response(_quota_set(target, False, with_id=False))


@SERVICE.route('GET', '/v3/{project_id}/limits')
def limits(req, project_id):
    _check_url_project(req, project_id)
    policy.authorize_owned(req.context, 'quota:show', project_id, 'Project', project_id)
    usage = _usage(project_id)
    return wsgi.json_response({'limits': {'rate': [], 'absolute': {
        'maxTotalVolumes': usage['volumes'][0], 'totalVolumesUsed': usage['volumes'][1],
        'maxTotalVolumeGigabytes': usage['gigabytes'][0],
        'totalGigabytesUsed': usage['gigabytes'][1],
        'maxTotalSnapshots': 0, 'totalSnapshotsUsed': 0,
        'maxTotalBackups': 0, 'totalBackupsUsed': 0,
        'maxTotalBackupGigabytes': 0, 'totalBackupGigabytesUsed': 0}}})


@SERVICE.route('GET', '/v3/{project_id}/os-availability-zone')
def availability_zones(req, project_id):
    """The zones of the enabled hosts (a volume lives on its instance's host)."""
    _check_url_project(req, project_id)
    hosts = catalog_api.CatalogAPI(req.context, None).list('host')
    zones = sorted({h['availability_zone'] for h in hosts if h['enabled']}) or ['nova']
    return wsgi.json_response({'availabilityZoneInfo': [
        {'zoneName': zone, 'zoneState': {'available': True}} for zone in zones]})


@SERVICE.route('GET', '/v3/{project_id}/types')
def list_types(req, project_id):
    """No volume types: provisioner has one kind of volume (a file on the host)."""
    _check_url_project(req, project_id)
    return wsgi.json_response({'volume_types': []})
