"""Migrations (Nova's os-migrations, and from 2.23 a server's migrations) and a
server's NUMA topology (2.78).

provisioner moves no server between hosts, so it has no migration: the lists are
empty, as Nova's are in a cloud where nothing migrated, and a migration asked
for by id is a 404. Their query parameters are still checked as Nova checks
them: 2.59's paging (no marker can be found) and changes-before, 2.80's user_id
and project_id. Guests have no NUMA topology: 2.78 answers as Nova does for such
a server.
"""

from oslo_utils import timeutils

from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api.compute.servers import compute
from provisioner.api import wsgi

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
    return wsgi.json_response({'migrations': []})


def _server_migrations(req, server_id):
    queries.added_at(req, (2, 23))
    compute(req).server_record(server_id)
    hypervisors.require_admin(req, 'A server\'s migrations')


@wsgi.route('GET', '/v2.1/servers/{server_id}/migrations')
def server_index(req, server_id):
    _server_migrations(req, server_id)
    return wsgi.json_response({'migrations': []})


@wsgi.route('GET', '/v2.1/servers/{server_id}/migrations/{migration_id}')
def server_show(req, server_id, migration_id):
    _server_migrations(req, server_id)
    raise wsgi.HTTPError(404, 'In-progress live migration %s is not found for server '
                              '%s.' % (migration_id, server_id))


@wsgi.route('GET', '/v2.1/servers/{server_id}/topology')
def topology(req, server_id):
    queries.added_at(req, (2, 78))
    compute(req).server_record(server_id)
    return wsgi.json_response({'nodes': [], 'pagesize_kb': None})
