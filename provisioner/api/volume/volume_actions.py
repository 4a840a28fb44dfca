"""Volume actions (POST /volumes/{id}/action), one a request, as Cinder's.

Served: os-extend (grow a detached volume), os-reset_status (admins: a volume a
failed flow left attaching, detaching or error_deleting), os-set_bootable (200,
as Cinder's), os-update_readonly_flag (an available volume), os-reserve and
os-unreserve (hold an available volume as attaching, and release it),
os-set_image_metadata, os-unset_image_metadata and os-show_image_metadata (the
volume's volume_image_metadata, 200 with it or empty), os-retype (no migration:
the type recorded changes) and os-force_delete (admins). Cinder's
other actions find the volume first (404 when it does not exist, as in Cinder),
then are refused: a server's volumes are attached through Nova's
os-volume_attachments, which plugs them in.
"""

from provisioner.api import validation
from provisioner.api.volume import filters
from provisioner.api.volume import schemas
from provisioner.api.volume import volumes as volumes_api
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner import exception
from provisioner import policy
from provisioner.volume import api as volume_api
from provisioner.volume import types
from provisioner.volume import volumes

# action -> (what it does with the volume API and its arguments, giving the answer's
# body or None for an empty one; the answer's status)
SERVED = {
    'os-extend': (lambda api, vid, args: api.extend(vid, args.get('new_size')), 202),
    'os-reset_status': (lambda api, vid, args: api.reset_status(vid, args.get('status')),
                        202),
    'os-set_bootable': (lambda api, vid, args: api.set_bootable(
        vid, filters.boolean(args.get('bootable'))), 200),
    'os-update_readonly_flag': (lambda api, vid, args: api.set_readonly(
        vid, filters.boolean(args.get('readonly'))), 202),
    'os-reserve': (lambda api, vid, args: api.reserve(vid), 202),
    'os-unreserve': (lambda api, vid, args: api.unreserve(vid), 202),
    'os-set_image_metadata': (lambda api, vid, args: {
        'metadata': api.set_image_metadata(vid, args.get('metadata'))}, 200),
    'os-unset_image_metadata': (lambda api, vid, args: api.delete_image_metadata(
        vid, args.get('key')), 200),
    'os-show_image_metadata': (lambda api, vid, args: {
        'metadata': api.image_metadata(vid) or {}}, 200),
    'os-retype': (lambda api, vid, args: types.retype(
        api.context, vid, args.get('new_type'), args.get('migration_policy')), 202),
}


def _refuse(req, volume_id, action):
    """A volume action provisioner does not serve: 404 for a volume not found, as
    Cinder answers before the action runs; 400 saying what is served."""
    found = volumes.describe(volume_id=volume_id)
    if not found:
        raise exception.NotFound(kind='Volume', name=volume_id)
    policy.authorize_owned(req.context, 'instance:show', found[0]['project_id'],
                           'Volume', volume_id)
    attaching = 'attach' in action or 'detach' in action
    raise wsgi.HTTPError(400, 'provisioner supports the volume actions %s only, not '
                              '%s%s.' % (', '.join(SERVED), action, (
                                  "; a server's volumes are attached and detached "
                                  "with Nova's os-volume_attachments" if attaching
                                  else '')))


@wsgi.route('POST', '/v3/{project_id}/volumes/{volume_id}/action')
@validation.schema(schemas.ACTION)
def volume_action(req, project_id, volume_id, body):
    check_url_project(req, project_id)
    (action, args), = body.items()
    if action == 'os-force_delete':
        return volumes_api.delete_volume(req, project_id, volume_id, force=True)
    if action not in SERVED:
        _refuse(req, volume_id, action)
    run, status = SERVED[action]
    body = run(volume_api.VolumeAPI(req.context), volume_id, args)
    return wsgi.empty_response(status) if body is None else wsgi.json_response(
        body, status)
