"""Volumes (a Cinder v3 subset): list, show, create, update, delete, extend.

Two kinds of volume are served: those a boot made for its instance (named
``<instance name>-vol<index>``, in-use until the instance is deleted with them) and
the volume service's own (provisioner.volume.api): created blank or from an image
(``imageRef``), renamed, given metadata (volume_metadata), grown while detached
(``os-extend``), marked bootable or read-only, deleted while not attached (with
its snapshots given ``?cascade=true``), made from a snapshot or another volume
(``snapshot_id``, ``source_volid``: provisioner.volume.snapshots), and attached
to servers through Nova's os-volume_attachments; of a volume type (types).
No backups or groups.

As in Cinder, the project id in the URL must be the token's project (400
"Malformed request url" otherwise); an admin reaches other projects' volumes
with ``?all_tenants=1``.
"""

from provisioner.api import common
from provisioner.api import validation
from provisioner.api.volume import filters
from provisioner.api.volume import schemas
from provisioner.api.volume import views
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner import exception
from provisioner import policy
from provisioner.volume import api as volume_api
from provisioner.volume import volumes


def check_url_project(req, project_id):
    if project_id != req.context.project_id:
        raise wsgi.HTTPError(400, 'Malformed request url: the project %s in the URL is '
                                  'not the token\'s project %s.'
                             % (project_id, req.context.project_id))


def listed_project(req, project_id):
    """The project a list shows: the URL's, or None (every project) for an admin
    asking for ``all_tenants``."""
    check_url_project(req, project_id)
    policy.authorize(req.context, 'instance:list')
    everyone = req.GET.get('all_tenants', '').lower() in ('1', 'true', 'yes') and \
        policy.check(req.context, 'instance:list:all_projects')
    return None if everyone else project_id


def _list(req, project_id):
    found = volumes.describe(project_id=listed_project(req, project_id))
    return filters.sorted_as_asked(req, filters.matching(req, found))


@wsgi.route('GET', '/v3/{project_id}/volumes')
def list_volumes(req, project_id):
    return common.paged_response(req, 'volumes', _list(req, project_id), views.summary,
                                 after_full_page=True)


@wsgi.route('GET', '/v3/{project_id}/volumes/detail')
def list_volumes_detail(req, project_id):
    return common.paged_response(req, 'volumes', _list(req, project_id), views.detail,
                                 after_full_page=True)


def _found(volume_id):
    found = volumes.describe(volume_id=volume_id)
    if not found:
        raise exception.NotFound(kind='Volume', name=volume_id)
    return found[0]


@wsgi.route('GET', '/v3/{project_id}/volumes/{volume_id}')
def show_volume(req, project_id, volume_id):
    check_url_project(req, project_id)
    volume = _found(volume_id)
    policy.authorize_owned(req.context, 'instance:show', volume['project_id'],
                           'Volume', volume_id)
    return wsgi.json_response({'volume': views.detail(req, volume)})


@wsgi.route('POST', '/v3/{project_id}/volumes')
@validation.schema(schemas.CREATE)
def create_volume(req, project_id, body):
    """A blank volume, or one from an image (imageRef); 202 as Cinder's, with its
    create answer (no os-vol-* attributes)."""
    check_url_project(req, project_id)
    body = body['volume']
    volume_id, copy = volume_api.VolumeAPI(req.context).create(
        body.get('size'), name=body.get('name'), description=body.get('description'),
        image_ref=body.get('imageRef') or body.get('image_id'),
        availability_zone=body.get('availability_zone'), metadata=body.get('metadata'),
        volume_type=body.get('volume_type'), snapshot_id=body.get('snapshot_id'),
        source_volid=body.get('source_volid'))
    if copy:  # from a snapshot or a volume with bytes: copied on their host
        req.deployment.dispatcher.volume_flow('copy-volume', volume_id)
    return wsgi.json_response(
        {'volume': views.detail(req, _found(volume_id), extended=False)}, 202)


@wsgi.route('PUT', '/v3/{project_id}/volumes/{volume_id}')
@validation.schema(schemas.UPDATE)
def update_volume(req, project_id, volume_id, body):
    check_url_project(req, project_id)
    body = body['volume']
    fields = {key: body[alias] for key, alias in
              (('name', 'name'), ('description', 'description'),
               ('name', 'display_name'), ('description', 'display_description'),
               ('metadata', 'metadata'))
              if alias in body}
    volume_api.VolumeAPI(req.context).update(volume_id, **fields)
    return wsgi.json_response(
        {'volume': views.detail(req, _found(volume_id), extended=False)})


@wsgi.route('DELETE', '/v3/{project_id}/volumes/{volume_id}')
def delete_volume(req, project_id, volume_id, force=False):
    """Delete a volume (``force``: os-force_delete, whatever its status)."""
    check_url_project(req, project_id)
    cascade = filters.boolean(req.GET.get('cascade', 'false')) is True
    flow, snapshot_flows = volume_api.VolumeAPI(req.context).request_delete(
        volume_id, cascade=cascade, force=force)
    for snapshot_id in snapshot_flows:
        req.deployment.dispatcher.volume_flow('delete-snapshot', snapshot_id)
    if flow:
        req.deployment.dispatcher.volume_delete(volume_id)
    return wsgi.empty_response(202)


@wsgi.route('GET', '/v3/{project_id}/os-availability-zone')
def availability_zones(req, project_id):
    """The zones of the enabled hosts (a volume lives on its instance's host)."""
    check_url_project(req, project_id)
    return wsgi.json_response(views.availability_zones(
        catalog_api.CatalogAPI(req.context, None).list('host')))
