"""Migrations (Nova's os-migrations, and from 2.23 a server's migrations in
progress) and a server's NUMA topology (2.78).

Each live migration (os-migrateLive) is a migration record: the list shows them
all, newest first, filtered by Nova's query parameters (host, instance_uuid,
source_compute, status, migration_type; 2.80's user_id and project_id); a
server's list shows its live migrations under way. 2.23 adds migration_type (and
links while one is under way), 2.59 the uuid, 2.80 user_id and project_id. Paging
(2.59) and changes-since/before are checked as Nova checks them (no marker can be
found). Guests have no NUMA topology: 2.78 answers as Nova does for such a server.
"""

from oslo_utils import timeutils

from provisioner.api import common
from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api.compute.servers import compute
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner.compute import migrations

_FILTERS = ('hidden', 'host', 'instance_uuid', 'source_compute', 'status',
            'migration_type')


def _allowed(req):
    allowed = _FILTERS
    if req.api_version >= (2, 59):
        allowed += ('limit', 'marker', 'changes-since', 'changes-before')
    if req.api_version >= (2, 80):
        allowed += ('user_id', 'project_id')
    return allowed


def _check_times(req):
    found = {}
    for name in ('changes-since', 'changes-before'):
        value = req.GET.get(name)
        if value is not None and req.api_version >= (2, 59):
            try:
                found[name] = timeutils.parse_isotime(value)
            except ValueError:
                raise wsgi.HTTPError(400, 'Invalid input for query parameters %s. '
                                          "Value: %s. '%s' is not a 'date-time'"
                                     % (name, value, value)) from None
    if len(found) == 2 and found['changes-before'] < found['changes-since']:
        raise wsgi.HTTPError(400, 'The value of changes-since must be less than or '
                                  'equal to changes-before.')


@wsgi.route('GET', '/v2.1/os-migrations')
def index(req):
    hypervisors.require_admin(req, 'Listing migrations')
    queries.check(req, _allowed(req))
    _check_times(req)
    if req.api_version >= (2, 59) and req.GET.get('marker'):
        raise wsgi.HTTPError(400, 'Marker %s could not be found.' % req.GET['marker'])
    found = migrations.list_migrations(
        instance_id=req.GET.get('instance_uuid'), status=req.GET.get('status'),
        source_compute=req.GET.get('source_compute'),
        migration_type=req.GET.get('migration_type'),
        **({'user_id': req.GET.get('user_id'), 'project_id': req.GET.get('project_id')}
           if req.api_version >= (2, 80) else {}))
    host = req.GET.get('host')
    if host:
        found = [m for m in found if host in (m['source_compute'], m['dest_compute'])]
    return wsgi.json_response({'migrations': [_view(req, m) for m in found]})


def _common(req, found):
    view = {'id': found['id'], 'status': found['status'],
            'source_compute': found['source_compute'],
            'source_node': found['source_compute'],
            'dest_compute': found['dest_compute'], 'dest_node': found['dest_compute'],
            'dest_host': found['dest_address'],
            'created_at': common.object_time(found['created_at']),
            'updated_at': common.object_time(found['updated_at'])}
    if req.api_version >= (2, 59):
        view['uuid'] = found['uuid']
    if req.api_version >= (2, 80):
        view.update(user_id=found['user_id'], project_id=found['project_id'])
    return view


def _view(req, found):
    """One migration of os-migrations."""
    view = dict(_common(req, found), instance_uuid=found['instance_id'],
                old_instance_type_id=found['flavor_id'],
                new_instance_type_id=found['flavor_id'])
    if req.api_version >= (2, 23):
        view['migration_type'] = found['migration_type']
        if found['status'] in migrations.IN_PROGRESS:
            view['links'] = urls.links(req, 'v2.1', 'servers', found['instance_id'],
                                       'migrations', str(found['id']))
    return view


def _server_view(req, found):
    """One migration under way of a server (2.23): no byte counts are kept."""
    view = dict(_common(req, found), server_uuid=found['instance_id'])
    for part in ('memory', 'disk'):
        for what in ('total', 'processed', 'remaining'):
            view['%s_%s_bytes' % (part, what)] = None
    return view


def _server_migrations(req, server_id):
    queries.added_at(req, (2, 23))
    server = compute(req).server_record(server_id)
    hypervisors.require_admin(req, 'A server\'s migrations')
    return migrations.list_migrations(instance_id=server['id'], in_progress=True,
                                      migration_type=migrations.LIVE_MIGRATION)


@wsgi.route('GET', '/v2.1/servers/{server_id}/migrations')
def server_index(req, server_id):
    return wsgi.json_response({'migrations': [
        _server_view(req, m) for m in _server_migrations(req, server_id)]})


@wsgi.route('GET', '/v2.1/servers/{server_id}/migrations/{migration_id}')
def server_show(req, server_id, migration_id):
    for found in _server_migrations(req, server_id):
        if str(found['id']) == migration_id:
            return wsgi.json_response({'migration': _server_view(req, found)})
    raise wsgi.HTTPError(404, 'In-progress live migration %s is not found for server '
                              '%s.' % (migration_id, server_id))


@wsgi.route('GET', '/v2.1/servers/{server_id}/topology')
def topology(req, server_id):
    queries.added_at(req, (2, 78))
    compute(req).server_record(server_id)
    return wsgi.json_response({'nodes': [], 'pagesize_kb': None})
