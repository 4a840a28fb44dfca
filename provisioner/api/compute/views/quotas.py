"""Nova's quota set and limits bodies, from provisioner's quotas.

From 2.36 the network quotas (and their limits) are gone from both, from 2.39
maxImageMeta from the limits, from 2.57 the file injection quotas and limits.

provisioner enforces three of Nova's quotas per project (provisioner.quota):
``instances``, ``cores`` (vCPUs) and ``ram`` (MiB). The rest are shown with
Nova's defaults and cannot be changed: key_pairs (per user) and server_groups are
enforced where those are created; the network and file-injection quotas concern
things provisioner does not have.
"""

from provisioner.quota import limits

# Nova's quota name -> provisioner's resource.
ENFORCED = {'instances': 'instances', 'cores': 'vcpus', 'ram': 'ram_mib'}
# Nova's defaults for the quotas provisioner does not let anyone change.
FIXED = {'fixed_ips': -1, 'floating_ips': 10, 'injected_file_content_bytes': 10240,
         'injected_file_path_bytes': 255, 'injected_files': 5,
         'key_pairs': limits.KEY_PAIRS_PER_USER, 'metadata_items': 128,
         'security_group_rules': 20, 'security_groups': 10, 'server_group_members': 10,
         'server_groups': limits.SERVER_GROUPS}


def usage(counted, server_groups_in_use):
    """{Nova name: {limit, in_use}} from the counted quotas' rows of a project."""
    rows = {r['resource']: r for r in counted}
    found = {name: {'limit': FIXED[name], 'in_use': 0} for name in FIXED}
    for name, resource in ENFORCED.items():
        found[name] = {'limit': rows[resource]['limit'],
                       'in_use': rows[resource]['in_use']}
    found['server_groups']['in_use'] = server_groups_in_use
    return found


def defaults():
    """{Nova name: {limit}} of the defaults, the same for every project."""
    found = limits.defaults(ENFORCED.values())
    values = dict(FIXED, **{name: found[resource] for name, resource in ENFORCED.items()})
    return {name: {'limit': value} for name, value in values.items()}


# The quotas Nova no longer shows from 2.36, and from 2.57.
HIDDEN_V236 = ('fixed_ips', 'floating_ips', 'security_group_rules', 'security_groups')
HIDDEN_V257 = HIDDEN_V236 + ('injected_files', 'injected_file_content_bytes',
                             'injected_file_path_bytes')


def hidden(req):
    """The quotas req's version does not show."""
    if req.api_version >= (2, 57):
        return HIDDEN_V257
    return HIDDEN_V236 if req.api_version >= (2, 36) else ()


def quota_set(usage, project_id=None, detail=False, hide=()):
    body = {name: (dict(value, reserved=0) if detail else value['limit'])
            for name, value in sorted(usage.items()) if name not in hide}
    if project_id is not None:
        body['id'] = project_id
    return {'quota_set': body}


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


def absolute_limits(req, usage):
    """Nova's /limits body at req's version."""
    hide = hidden(req)
    absolute = {name: usage[quota]['limit'] for name, quota in _LIMIT_NAMES
                if quota not in hide
                and not (name == 'maxImageMeta' and req.api_version >= (2, 39))}
    absolute.update({name: usage[quota]['in_use'] for name, quota in _USED_NAMES
                     if quota not in hide})
    return {'limits': {'rate': [], 'absolute': absolute}}
