"""os-migrateLive (Nova's migrate_server): move a running server to another host.

202 with no body, as Nova; the move is the live migration flow's, recorded as the
instance action ``live-migration`` and a migration (os-migrations). A request that
cannot be carried out changes nothing: a server not ACTIVE or busy (409), its own
host, an unknown, down or disabled host, no other host with room, a block migration
(disks are shared) (400).
"""

from oslo_utils import strutils

from provisioner.api.compute.schemas import migrate_server as schemas
from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api import wsgi


@validation.schema(schemas.MIGRATE_LIVE, '2.1', '2.24')
@validation.schema(schemas.MIGRATE_LIVE_V225, '2.25', '2.29')
@validation.schema(schemas.MIGRATE_LIVE_V230, '2.30', '2.67')
@validation.schema(schemas.MIGRATE_LIVE_V268, '2.68')
def migrate_live(req, server_id, body):
    block = body['block_migration']
    if block != 'auto' and strutils.bool_from_string(block, strict=True):
        raise wsgi.HTTPError(400, 'Block migration is not supported: the server\'s '
                                  'disks are shared (Ceph); migrate it with '
                                  'block_migration false or "auto".')
    api = compute(req)
    instance_id, action_id = api.live_migrate(
        api.server_record(server_id)['id'], host=body.get('host'),
        force=strutils.bool_from_string(body.get('force', False), strict=True))
    req.deployment.dispatcher.run_action(instance_id, action_id)
    return wsgi.empty_response(202)
