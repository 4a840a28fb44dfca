"""Quotas (Nova's os-quota-sets) and limits (/limits), as Nova shows them at 2.1.

provisioner enforces three of Nova's quotas per project, kept by
provisioner.compute.quotas: ``instances``, ``cores`` (vCPUs) and ``ram`` (MiB).
The rest are shown with Nova's defaults and cannot be changed: key_pairs (per
user) and server_groups are enforced where those are created; the network and
file-injection quotas concern things provisioner does not have.
"""

from provisioner.api import common
from provisioner.api.compute import server_groups as server_groups_api
from provisioner.api.compute.service import SERVICE
from provisioner.api import wsgi
from provisioner.compute import keypairs
from provisioner.compute import quota_api
from provisioner.compute import quotas
from provisioner.compute import server_groups
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy

# Nova's quota name -> provisioner's resource.
ENFORCED = {'instances': 'instances', 'cores': 'vcpus', 'ram': 'ram_mib'}
# Nova's defaults for the quotas provisioner does not let anyone change.
FIXED = {'fixed_ips': -1, 'floating_ips': 10, 'injected_file_content_bytes': 10240,
         'injected_file_path_bytes': 255, 'injected_files': 5,
         'key_pairs': keypairs.MAX_PER_USER, 'metadata_items': 128,
         'security_group_rules': 20, 'security_groups': 10, 'server_group_members': 10,
         'server_groups': server_groups_api.MAX_GROUPS}

_quota = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$', 'minimum': -1,
          'maximum': 2147483647}
UPDATE = {
    'type': 'object',
    'properties': {
        'quota_set': {
            'type': 'object',
            'properties': dict(
                {name: _quota for name in list(ENFORCED) + list(FIXED) + ['networks']},
                force={'type': ['boolean', 'string'],
                       'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
                                'YES', 'Yes', 'yes', 'y', 't', False, 'False', 'FALSE',
                                'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no',
                                'n', 'f']}),
            'additionalProperties': False,
        },
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}


def _authorize(req, action, project_id):
    """Nova's answer to another project's quota is 403, not 404."""
    policy.authorize(req.context, action, {'project_id': project_id})


def _server_groups_in_use(req, project_id):
    if project_id == req.context.project_id:
        return len(server_groups.list_all(req.context))
    return sum(1 for g in server_groups.list_all(req.context, all_projects=True)
               if g['project_id'] == project_id)


def _usage(req, project_id):
    """{Nova name: {limit, in_use}} of a project."""
    rows = {r['resource']: r for r in quotas.show(project_id)}
    found = {name: {'limit': FIXED[name], 'in_use': 0} for name in FIXED}
    for name, resource in ENFORCED.items():
        found[name] = {'limit': rows[resource]['limit'],
                       'in_use': rows[resource]['in_use']}
    found['server_groups']['in_use'] = _server_groups_in_use(req, project_id)
    return found


def _quota_set(usage, project_id=None, detail=False):
    body = {name: (dict(value, reserved=0) if detail else value['limit'])
            for name, value in sorted(usage.items())}
    if project_id is not None:
        body['id'] = project_id
    return {'quota_set': body}


@SERVICE.route('GET', '/v2.1/os-quota-sets/{project_id}')
def show(req, project_id):
    _authorize(req, 'quota:show', project_id)
    return wsgi.json_response(_quota_set(_usage(req, project_id), project_id))


@SERVICE.route('GET', '/v2.1/os-quota-sets/{project_id}/detail')
def detail(req, project_id):
    _authorize(req, 'quota:show', project_id)
    return wsgi.json_response(_quota_set(_usage(req, project_id), project_id,
                                         detail=True))


@SERVICE.route('GET', '/v2.1/os-quota-sets/{project_id}/defaults')
def defaults(req, project_id):
    # Nova lets anyone read the defaults: they are the same for every project.
    values = dict(FIXED, **{name: getattr(CONF.quota, resource)
                            for name, resource in ENFORCED.items()})
    return wsgi.json_response(_quota_set({k: {'limit': v} for k, v in values.items()},
                                         project_id))


def _existing_project(req, project_id, action):
    _authorize(req, action, project_id)
    try:
        return quota_api.project_id(req.context, project_id, action)
    except exception.NotFound:
        raise wsgi.HTTPError(400, 'Project ID %s is not a valid project.'
                             % project_id) from None


def _requested_limits(spec):
    """{provisioner resource: limit} from a body; 400 for a quota that is fixed."""
    limits = {}
    for name, value in spec.items():
        if name == 'force' or value is None or value == '':
            continue
        value = int(value)
        if name in ENFORCED:
            limits[ENFORCED[name]] = value
        elif FIXED.get(name) != value:
            raise wsgi.HTTPError(400, 'Quota %s cannot be changed in provisioner: it '
                                      'is %s. Only instances, cores and ram can be set.'
                                 % (name, FIXED.get(name, 'not kept')))
    return limits


@SERVICE.route('PUT', '/v2.1/os-quota-sets/{project_id}')
def update(req, project_id):
    spec = common.validate(req.json_body(), UPDATE)['quota_set']
    project_id = _existing_project(req, project_id, 'quota:set')
    limits = _requested_limits(spec)
    force = str(spec.get('force', False)).lower() in ('true', '1', 'on', 'yes', 'y', 't')
    if not force:
        usage = _usage(req, project_id)
        for name, resource in ENFORCED.items():
            value, in_use = limits.get(resource), usage[name]['in_use']
            if value is not None and value != quotas.UNLIMITED and value < in_use:
                raise wsgi.HTTPError(400, 'Quota limit %d for %s must be greater than '
                                          'or equal to already used and reserved %d.'
                                     % (value, name, in_use))
    if limits:
        quotas.set_limits(project_id, **limits)
    # Nova's answer to an update has no id.
    return wsgi.json_response(_quota_set(_usage(req, project_id)))


@SERVICE.route('DELETE', '/v2.1/os-quota-sets/{project_id}')
def reset(req, project_id):
    quotas.reset_limits(_existing_project(req, project_id, 'quota:set'))
    return wsgi.empty_response(202)


# -- limits ------------------------------------------------------------------------

_LIMIT_NAMES = (('maxTotalRAMSize', 'ram'), ('maxTotalInstances', 'instances'),
                ('maxTotalCores', 'cores'), ('maxTotalKeypairs', 'key_pairs'),
                ('maxTotalFloatingIps', 'floating_ips'),
                ('maxServerMeta', 'metadata_items'), ('maxImageMeta', 'metadata_items'),
                ('maxPersonality', 'injected_files'),
                ('maxPersonalitySize', 'injected_file_content_bytes'),
                ('maxSecurityGroups', 'security_groups'),
                ('maxSecurityGroupRules', 'security_group_rules'),
                ('maxServerGroups', 'server_groups'),
                ('maxServerGroupMembers', 'server_group_members'))
_USED_NAMES = (('totalRAMUsed', 'ram'), ('totalCoresUsed', 'cores'),
               ('totalInstancesUsed', 'instances'), ('totalFloatingIpsUsed', 'floating_ips'),
               ('totalSecurityGroupsUsed', 'security_groups'),
               ('totalServerGroupsUsed', 'server_groups'))


@SERVICE.route('GET', '/v2.1/limits')
def limits(req):
    project_id = req.GET.get('tenant_id') or req.context.project_id
    if project_id != req.context.project_id:
        # Nova: another project's limits are for admins (403 for the rest).
        _authorize(req, 'quota:show', project_id)
    usage = _usage(req, project_id)
    absolute = {name: usage[quota]['limit'] for name, quota in _LIMIT_NAMES}
    absolute.update({name: usage[quota]['in_use'] for name, quota in _USED_NAMES})
    return wsgi.json_response({'limits': {'rate': [], 'absolute': absolute}})
