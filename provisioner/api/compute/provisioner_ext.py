"""provisioner's documented extension: what the OpenStack APIs have no place for.

Served under ``/compute/v2.1/provisioner/`` with the compute API's tokens, policy
and error format. Its bodies are provisioner's own view, the same JSON as the
``provisioner`` CLI prints with ``--format json``, so the CLI reads the same
thing whether it runs all-in-one or against the REST API:

- ``GET instances[?all_projects=1]``, ``GET instances/{name_or_id}``: vm, task and
  power states, host, addresses with MACs, volumes, fault, and every step event;
- ``GET hosts``, ``GET hosts/{name}``, ``PUT hosts/{name}`` with ``{"host": {...}}``
  (enabled, disabled_reason, availability_zone, cpu/ram/disk_allocation_ratio);
- ``GET quotas/{project}``, ``PUT quotas/{project}`` with ``{"quota": {instances,
  vcpus, ram_mib, volumes_gib}}``;
- ``GET catalog/{flavor|image|network}[/{name_or_id}]``: catalog rows.

Server actions ``provisioner:resume`` and ``provisioner:rollback`` live with
Nova's actions (server_actions.py).
"""

from provisioner.api.compute.schemas import provisioner_ext as schemas
from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.quota import api as quota_api

_CATALOG = ('flavor', 'image', 'network')


def _catalog(req):
    driver = req.deployment.hypervisor
    return catalog_api.CatalogAPI(req.context, driver)


@wsgi.route('GET', '/v2.1/provisioner/instances')
def instances(req):
    all_projects = req.GET.get('all_projects', '').lower() in ('1', 'true', 'yes')
    return wsgi.json_response({'instances': compute(req).list(all_projects)})


@wsgi.route('GET', '/v2.1/provisioner/instances/{name_or_id}')
def instance(req, name_or_id):
    return wsgi.json_response({'instance': compute(req).show(name_or_id)})


@wsgi.route('GET', '/v2.1/provisioner/hosts')
def hosts(req):
    return wsgi.json_response({'hosts': _catalog(req).list('host')})


@wsgi.route('GET', '/v2.1/provisioner/hosts/{name}')
def host(req, name):
    return wsgi.json_response({'host': _catalog(req).show('host', name)})


@wsgi.route('PUT', '/v2.1/provisioner/hosts/{name}')
@validation.schema(schemas.HOST_UPDATE)
def update_host(req, name, body):
    return wsgi.json_response({'host': _catalog(req).update_host(name, **body['host'])})


@wsgi.route('GET', '/v2.1/provisioner/quotas/{project}')
def quota(req, project):
    return wsgi.json_response({'quota': quota_api.show(req.context, project)})


@wsgi.route('PUT', '/v2.1/provisioner/quotas/{project}')
@validation.schema(schemas.QUOTA_UPDATE)
def set_quota(req, project, body):
    return wsgi.json_response({'quota': quota_api.set_limits(req.context, project,
                                                             body['quota'])})


@wsgi.route('GET', '/v2.1/provisioner/catalog/{resource}')
def catalog_list(req, resource):
    if resource not in _CATALOG:
        raise wsgi.HTTPError(404, 'No catalog of %s; there are: %s'
                             % (resource, ', '.join(_CATALOG)))
    return wsgi.json_response({resource + 's': _catalog(req).list(resource)})


@wsgi.route('GET', '/v2.1/provisioner/catalog/{resource}/{name_or_id}')
def catalog_show(req, resource, name_or_id):
    if resource not in _CATALOG:
        raise wsgi.HTTPError(404, 'No catalog of %s; there are: %s'
                             % (resource, ', '.join(_CATALOG)))
    return wsgi.json_response({resource: _catalog(req).show(resource, name_or_id)})
