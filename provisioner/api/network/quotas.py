"""Network quotas (Neutron's quotas and quota_details): network, subnet, port.

The limits and their usage are provisioner.quota's (counted from the rows); a limit
below usage is refused unless ``--force`` (Neutron's check_limit).
"""

from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import policy
from provisioner.quota import limits
from provisioner.quota import networks as network_quotas


def _authorize(req, project_id, action='quota:show'):
    """Another project's quota reads as not found to anyone but an admin."""
    policy.authorize_owned(req.context, action, project_id, 'Project', project_id)


@wsgi.route('GET', '/v2.0/quotas/{project_id}')
def show_quota(req, project_id):
    _authorize(req, project_id)
    return wsgi.json_response(views.quota(network_quotas.limits_and_usage(project_id)))


@wsgi.route('GET', '/v2.0/quotas/{project_id}/details')
def show_quota_details(req, project_id):
    _authorize(req, project_id)
    return wsgi.json_response(views.quota(network_quotas.limits_and_usage(project_id),
                                          details=True))


@wsgi.route('PUT', '/v2.0/quotas/{project_id}')
@validation.schema(schemas.QUOTA_UPDATE)
def update_quota(req, project_id, body):
    _authorize(req, project_id, 'quota:set')
    network_quotas.set_project_limits(project_id, body['quota'])
    return show_quota(req, project_id)


@wsgi.route('DELETE', '/v2.0/quotas/{project_id}')
def reset_quota(req, project_id):
    _authorize(req, project_id, 'quota:set')
    limits.reset(project_id, network_quotas.RESOURCES)
    return wsgi.empty_response(204)
