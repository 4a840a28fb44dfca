"""Quotas (Nova's os-quota-sets) and limits (/limits), as Nova shows them.

The limits and their usage are provisioner.quota's; views/quotas.py says which of
Nova's quotas are enforced and shows them in Nova's words.
"""

from provisioner.api.compute import queries
from provisioner.api.compute.schemas import quotas as schemas
from provisioner.api.compute.views import quotas as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import server_groups
from provisioner import exception
from provisioner import policy
from provisioner.quota import api as quota_api
from provisioner.quota import counters
from provisioner.quota import limits


def _authorize(req, action, project_id):
    """Nova's answer to another project's quota is 403, not 404."""
    policy.authorize(req.context, action, {'project_id': project_id})


def _server_groups_in_use(req, project_id):
    if project_id == req.context.project_id:
        return len(server_groups.list_all(req.context))
    return sum(1 for g in server_groups.list_all(req.context, all_projects=True)
               if g['project_id'] == project_id)


def _usage(req, project_id):
    return views.usage(counters.show(project_id), _server_groups_in_use(req, project_id))


@wsgi.route('GET', '/v2.1/os-quota-sets/{project_id}')
def show(req, project_id):
    _authorize(req, 'quota:show', project_id)
    return wsgi.json_response(views.quota_set(_usage(req, project_id), project_id,
                                              hide=views.hidden(req)))


@wsgi.route('GET', '/v2.1/os-quota-sets/{project_id}/detail')
def detail(req, project_id):
    _authorize(req, 'quota:show', project_id)
    return wsgi.json_response(views.quota_set(_usage(req, project_id), project_id,
                                              detail=True, hide=views.hidden(req)))


@wsgi.route('GET', '/v2.1/os-quota-sets/{project_id}/defaults')
def defaults(req, project_id):
    # Nova lets anyone read the defaults: they are the same for every project.
    return wsgi.json_response(views.quota_set(views.defaults(), project_id,
                                              hide=views.hidden(req)))


def _existing_project(req, project_id, action):
    _authorize(req, action, project_id)
    try:
        return quota_api.project_id(req.context, project_id, action)
    except exception.NotFound:
        raise wsgi.HTTPError(400, 'Project ID %s is not a valid project.'
                             % project_id) from None


def _requested_limits(spec):
    """{provisioner resource: limit} from a body; 400 for a quota that is fixed."""
    found = {}
    for name, value in spec.items():
        if name == 'force' or value is None or value == '':
            continue
        value = int(value)
        if name in views.ENFORCED:
            found[views.ENFORCED[name]] = value
        elif views.FIXED.get(name) != value:
            raise wsgi.HTTPError(400, 'Quota %s cannot be changed in provisioner: it '
                                      'is %s. Only instances, cores and ram can be set.'
                                 % (name, views.FIXED.get(name, 'not kept')))
    return found


@wsgi.route('PUT', '/v2.1/os-quota-sets/{project_id}')
@validation.schema(schemas.UPDATE, '2.1', '2.35')
@validation.schema(schemas.UPDATE_V236, '2.36', '2.56')
@validation.schema(schemas.UPDATE_V257, '2.57')
def update(req, project_id, body):
    spec = body['quota_set']
    project_id = _existing_project(req, project_id, 'quota:set')
    wanted = _requested_limits(spec)
    force = str(spec.get('force', False)).lower() in ('true', '1', 'on', 'yes', 'y', 't')
    if not force:
        usage = _usage(req, project_id)
        for name, resource in views.ENFORCED.items():
            value, in_use = wanted.get(resource), usage[name]['in_use']
            if value is not None and value != limits.UNLIMITED and value < in_use:
                raise wsgi.HTTPError(400, 'Quota limit %d for %s must be greater than '
                                          'or equal to already used and reserved %d.'
                                     % (value, name, in_use))
    if wanted:
        counters.set_limits(project_id, **wanted)
    # Nova's answer to an update has no id.
    return wsgi.json_response(views.quota_set(_usage(req, project_id),
                                              hide=views.hidden(req)))


@wsgi.route('DELETE', '/v2.1/os-quota-sets/{project_id}')
def reset(req, project_id):
    """Nova's quotas go back to the defaults (Neutron's and Cinder's stay)."""
    limits.reset(_existing_project(req, project_id, 'quota:set'), limits.COMPUTE)
    return wsgi.empty_response(202)


@wsgi.route('GET', '/v2.1/limits')
def absolute_limits(req):
    queries.check(req, ('tenant_id',))
    project_id = req.GET.get('tenant_id') or req.context.project_id
    if project_id != req.context.project_id:
        # Nova: another project's limits are for admins (403 for the rest).
        _authorize(req, 'quota:show', project_id)
    return wsgi.json_response(views.absolute_limits(req, _usage(req, project_id)))
