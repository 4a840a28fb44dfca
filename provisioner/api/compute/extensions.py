"""Nova's extension list (GET /extensions[/{alias}]), kept for old clients.

Nova lists a fixed set since the v2.1 API folded its extensions in; provisioner
lists, under Nova's aliases and names, those of its API it serves.
"""

from provisioner.api import wsgi

# (alias, name, description)
_SERVED = (
    ('OS-DCF', 'DiskConfig', 'Disk Management Extension.'),
    ('OS-EXT-AZ', 'ExtendedAvailabilityZone', 'Extended Availability Zone support.'),
    ('OS-EXT-IPS', 'ExtendedIps', 'Adds type parameter to the ip list.'),
    ('OS-EXT-IPS-MAC', 'ExtendedIpsMac', 'Adds mac address parameter to the ip list.'),
    ('OS-EXT-SRV-ATTR', 'ExtendedServerAttributes', 'Extended Server Attributes '
                                                    'support.'),
    ('OS-EXT-STS', 'ExtendedStatus', 'Extended Status support.'),
    ('OS-FLV-DISABLED', 'FlavorDisabled', 'Support to show the disabled status of a '
                                          'flavor.'),
    ('OS-FLV-EXT-DATA', 'FlavorExtraData', 'Provide additional data for flavors.'),
    ('OS-SCH-HNT', 'SchedulerHints', 'Pass arbitrary key/value pairs to the '
                                     'scheduler.'),
    ('OS-SRV-USG', 'ServerUsage', 'Adds launched_at and terminated_at on Servers.'),
    ('os-access-ips', 'AccessIPs', 'Access IPs support.'),
    ('os-availability-zone', 'AvailabilityZone', 'Availability zones of the compute '
                                                 'hosts, and at server create.'),
    ('os-block-device-mapping-v2-boot', 'BlockDeviceMappingV2Boot',
     'Allow boot with the new BDM data format.'),
    ('os-config-drive', 'ConfigDrive', 'Config Drive Extension.'),
    ('os-console-auth-tokens', 'ConsoleAuthTokens', 'Console token authentication '
                                                    'support.'),
    ('os-console-output', 'ConsoleOutput', 'Console log output support, with tailing '
                                           'ability.'),
    ('os-consoles', 'Consoles', 'Interactive Console support.'),
    ('os-flavor-access', 'FlavorAccess', 'Flavor access support.'),
    ('os-flavor-extra-specs', 'FlavorExtraSpecs', 'Flavors extra specs support.'),
    ('os-flavor-manage', 'FlavorManage', 'Flavor create/delete API support.'),
    ('os-flavor-rxtx', 'FlavorRxtx', 'Support to show the rxtx status of a flavor.'),
    ('os-flavor-swap', 'FlavorSwap', 'Support to show the swap status of a flavor.'),
    ('os-hosts', 'Hosts', 'Admin-only host administration.'),
    ('os-hypervisors', 'Hypervisors', 'Admin-only hypervisor administration.'),
    ('os-instance-actions', 'InstanceActions', 'View a log of actions and events taken '
                                               'on an instance.'),
    ('os-keypairs', 'Keypairs', 'Keypair Support.'),
    ('os-lock-server', 'LockServer', 'Enable lock/unlock server actions.'),
    ('os-migrations', 'Migrations', 'Provide data on migrations.'),
    ('os-multiple-create', 'MultipleCreate', 'Allow multiple create in the Create '
                                             'Server v2.1 API.'),
    ('os-quota-sets', 'Quotas', 'Quotas management support.'),
    ('os-security-groups', 'SecurityGroups', 'Security group support.'),
    ('os-server-groups', 'ServerGroups', 'Server group support.'),
    ('os-services', 'Services', 'Services support.'),
    ('os-used-limits', 'UsedLimits', 'Provide data on limited resources that are '
                                     'being used.'),
    ('os-user-data', 'UserData', 'Add user_data to the Create Server API.'),
)


def _view(alias, name, description):
    return {'alias': alias, 'name': name, 'description': description, 'links': [],
            'namespace': 'http://docs.openstack.org/compute/ext/fake_xml',
            'updated': '2014-12-03T00:00:00Z'}


@wsgi.route('GET', '/v2.1/extensions')
def index(req):
    return wsgi.json_response({'extensions': [_view(*e) for e in _SERVED]})


@wsgi.route('GET', '/v2.1/extensions/{alias}')
def show(req, alias):
    for extension in _SERVED:
        if extension[0] == alias:
            return wsgi.json_response({'extension': _view(*extension)})
    raise wsgi.HTTPError(404, 'The resource could not be found.')
