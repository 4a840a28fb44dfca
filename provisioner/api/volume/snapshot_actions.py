"""Snapshot actions (POST /snapshots/{id}/action), one a request, as Cinder's:
os-reset_status (admins), os-update_snapshot_status (status and progress, as a
snapshot's maker reports them) and os-force_delete (admins: whatever its status).
"""

from provisioner.api import validation
from provisioner.api.volume import schemas
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner.volume import snapshot_status
from provisioner.volume import snapshots


def _force_delete(req, snapshot_id, args):
    if snapshots.SnapshotAPI(req.context).request_delete(snapshot_id, force=True):
        req.deployment.dispatcher.volume_flow('delete-snapshot', snapshot_id)


SERVED = {
    'os-reset_status': lambda req, sid, args: snapshot_status.reset(
        req.context, sid, args.get('status')),
    'os-update_snapshot_status': lambda req, sid, args: snapshot_status.update(
        req.context, sid, args.get('status'), args.get('progress')),
    'os-force_delete': _force_delete,
}


@wsgi.route('POST', '/v3/{project_id}/snapshots/{snapshot_id}/action')
@validation.schema(schemas.ACTION)
def snapshot_action(req, project_id, snapshot_id, body):
    check_url_project(req, project_id)
    (action, args), = body.items()
    if action not in SERVED:
        raise wsgi.HTTPError(400, 'provisioner supports the snapshot actions %s only, '
                                  'not %s.' % (', '.join(SERVED), action))
    SERVED[action](req, snapshot_id, args)
    return wsgi.empty_response(202)
