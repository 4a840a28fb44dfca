"""Neutron's shapes: the views of networks, subnets, ports and quotas, filters, errors.
"""

import ipaddress

from provisioner.api import common
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner import exception
from provisioner.network import sg_rules

MTU = 1500  # libvirt's default for the bridges it makes
NEUTRON_TYPES = {400: 'HTTPBadRequest', 401: 'HTTPUnauthorized', 403: 'HTTPForbidden',
                 404: 'HTTPNotFound', 405: 'HTTPMethodNotAllowed', 409: 'HTTPConflict',
                 413: 'HTTPRequestEntityTooLarge', 501: 'HTTPNotImplemented',
                 503: 'HTTPServiceUnavailable'}
# Query parameters that are not attribute filters.
_NOT_FILTERS = ('fields', 'limit', 'marker', 'page_reverse', 'sort_key', 'sort_dir')


def _error_type(exc):
    """Neutron's own type for an error (NetworkNotFound, PortInUse, OverQuota...)."""
    if getattr(exc, 'neutron_type', None):
        return exc.neutron_type
    if isinstance(exc, exception.NotFound):
        return '%sNotFound' % exc.kwargs.get('kind', '').replace(' ', '')
    if isinstance(exc, exception.Invalid):
        return 'InvalidInput'
    return None


def neutron_fault(status, message, exc=None):
    """Neutron's error body: {"NeutronError": {"type", "message", "detail"}}, with
    Neutron's type names for the services' errors, as clients log them."""
    kind = _error_type(exc) if isinstance(exc, exception.ProvisionerError) else None
    return {'NeutronError': {'type': kind or NEUTRON_TYPES.get(status, 'HTTPError'),
                             'message': message, 'detail': ''}}


def _common(item, description):
    created = common.isotime(item['created_at'])
    return {'project_id': item['project_id'], 'tenant_id': item['project_id'],
            'description': description, 'tags': [], 'created_at': created,
            'updated_at': created, 'revision_number': 0}


def network_view(net):
    return dict(_common(net, net['description']), **{
        'id': net['id'], 'name': net['name'], 'admin_state_up': True, 'status': 'ACTIVE',
        'subnets': [s['id'] for s in net['subnets']],
        'shared': net['shared'], 'router:external': net['router_external'], 'mtu': MTU,
        'port_security_enabled': False, 'availability_zones': ['nova'],
        'availability_zone_hints': [], 'ipv4_address_scope': None,
        'ipv6_address_scope': None, 'is_default': False, 'l2_adjacency': True})


def subnet_view(net):
    return dict(_common(net, net['subnet_description']), **{
        'id': net['subnet_id'], 'name': net['subnet_name'], 'network_id': net['id'],
        'cidr': net['cidr'], 'ip_version': 4, 'gateway_ip': net['gateway'],
        'enable_dhcp': net['enable_dhcp'],
        'allocation_pools': [{'start': net['dhcp_start'], 'end': net['dhcp_end']}],
        'dns_nameservers': net['dns_nameservers'], 'host_routes': net['host_routes'],
        'ipv6_address_mode': None, 'ipv6_ra_mode': None,
        'subnetpool_id': net.get('subnetpool_id'),
        'segment_id': None, 'service_types': [],
        'router:external': net.get('router_external', False)})


def _subnet_of(subnets, ip):
    """The id of the subnet of ``subnets`` ([(CIDR, id)]) holding ``ip``."""
    address = ipaddress.ip_address(ip)
    return next((subnet_id for cidr, subnet_id in subnets
                 if address in ipaddress.ip_network(cidr)), None)


def port_view(port, subnet_ids):
    """A port; ``subnet_ids`` maps network ids to their subnets [(CIDR, id)]."""
    bound = port['instance_id'] is not None
    device_owner = ('compute:nova' if bound else
                    'network:router_interface' if port['router_id'] else
                    port.get('device_owner') or '')
    return dict(_common(port, port['description']), **{
        'id': port['id'], 'name': port['name'], 'network_id': port['network_id'],
        'mac_address': port['mac'], 'admin_state_up': port['admin_state_up'],
        'status': 'ACTIVE' if device_owner and port['admin_state_up'] else 'DOWN',
        'device_id': (port['instance_id'] or port['router_id'] or port.get('device_id')
                      or ''),
        'device_owner': device_owner,
        'fixed_ips': [{'subnet_id': _subnet_of(subnet_ids.get(port['network_id'], ()),
                                               port['ip']),
                       'ip_address': port['ip']}] if port['ip'] else [],
        'security_groups': port['security_groups'],
        'allowed_address_pairs': port['allowed_address_pairs'],
        'extra_dhcp_opts': [],
        'port_security_enabled': port['port_security_enabled'], 'dns_name': '',
        'dns_assignment': [],
        'binding:host_id': port['host'] or '',
        'binding:vif_type': 'bridge' if bound else 'unbound',
        'binding:vnic_type': 'normal'})


def _as_text(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


_FIXED_IP_KEYS = ('ip_address', 'subnet_id', 'ip_address_substr')


def _fixed_ips_filter(values):
    """``?fixed_ips=ip_address=X&fixed_ips=subnet_id=Y`` (``openstack port list
    --fixed-ip``): {key: set of values}; a port matches when one of its fixed IPs
    has every key asked for (``ip_address_substr``: a part of its address)."""
    wanted = {}
    for value in values:
        key, _sep, found = value.partition('=')
        if key not in _FIXED_IP_KEYS or not found:
            raise wsgi.HTTPError(400, 'Invalid fixed_ips filter %r: give %s=<value>.'
                                 % (value, ' or '.join(_FIXED_IP_KEYS)))
        wanted.setdefault(key, set()).add(found)

    def matches(fixed_ip):
        return all(any(part in fixed_ip['ip_address'] for part in parts)
                   if key == 'ip_address_substr' else fixed_ip.get(key) in parts
                   for key, parts in wanted.items())
    return lambda fixed_ips: any(matches(f) for f in fixed_ips)


def _filtered(req, items):
    """Neutron's attribute filters: ?name=a&name=b matches either; unknown ones pass."""
    for key in set(req.GET.keys()) - set(_NOT_FILTERS):
        if key == 'fixed_ips':
            match = _fixed_ips_filter(req.GET.getall(key))
            items = [i for i in items if key not in i or match(i[key])]
            continue
        wanted = {v.lower() if v.lower() in ('true', 'false') else v
                  for v in req.GET.getall(key)}
        items = [i for i in items if key not in i or _matches(i[key], wanted)]
    return items


def _matches(value, wanted):
    if isinstance(value, list):  # e.g. fixed_ips, subnets: any element
        return any(_as_text(v) in wanted for v in value)
    return _as_text(value) in wanted


def listing(req, collection, items):
    """The page, with the ``fields`` asked for and a ``<collection>_links`` next link."""
    shown, more = common.page(req, _filtered(req, items))
    fields = req.GET.getall('fields')
    if fields:
        shown = [{k: v for k, v in item.items() if k in fields} for item in shown]
    body = {collection: shown}
    if more and shown and 'id' in shown[-1]:
        body[collection + '_links'] = urls.next_link(req, ['v2.0', collection],
                                                       shown[-1]['id'])
    return wsgi.json_response(body)


def one(req, key, item, status=200):
    fields = req.GET.getall('fields')
    if fields:
        item = {k: v for k, v in item.items() if k in fields}
    return wsgi.json_response({key: item}, status)


# -- quotas --------------------------------------------------------------------------

QUOTA_RESOURCES = ('network', 'subnet', 'port', 'router', 'floatingip', 'security_group',
                   'security_group_rule', 'rbac_policy', 'subnetpool')


def quota(found, details=False):
    """Neutron's quota body from {resource: (limit, used)} of the resources kept;
    the others (routers and the like, which do not exist here) unlimited, unused."""
    found = dict(dict.fromkeys(QUOTA_RESOURCES, (-1, 0)), **found)
    if details:
        return {'quota': {resource: {'limit': limit, 'used': used, 'reserved': 0}
                          for resource, (limit, used) in found.items()}}
    return {'quota': {resource: limit for resource, (limit, _used) in found.items()}}


# -- extensions ------------------------------------------------------------------------

EXTENSIONS = (
    ('quotas', 'Quota management support',
     'Expose functions for quotas management per project', '2012-07-29T10:00:00-00:00'),
    ('quota_details', 'Quota details management support',
     'Expose functions for quotas usage statistics per project',
     '2017-02-10T10:00:00-00:00'),
    ('net-mtu', 'Network MTU', 'Provides MTU attribute for a network resource.',
     '2015-03-25T10:00:00-00:00'),
    ('external-net', 'Neutron external network',
     'Adds external network attribute to network resource.',
     '2013-01-14T10:00:00-00:00'),
    ('security-group', 'security-group', 'The security groups extension.',
     '2012-10-05T10:00:00-00:00'),
    ('port-security', 'Port Security', 'Provides port security',
     '2012-07-23T10:00:00-00:00'),
    ('allowed-address-pairs', 'Allowed Address Pairs',
     'Provides allowed address pairs', '2013-07-23T10:00:00-00:00'),
    ('subnet_allocation', 'Subnet Allocation', 'Enables allocation of subnets from a '
     'subnet pool', '2015-03-30T10:00:00-00:00'),
    ('default-subnetpools', 'Default Subnetpools',
     'Provides ability to mark and use a subnetpool as the default.',
     '2016-02-18T18:00:00-00:00'),
    ('router', 'Neutron L3 Router',
     'Router abstraction for basic L3 forwarding between L2 Neutron networks and '
     'access to external networks via a NAT gateway.', '2012-07-20T10:00:00-00:00'),
    ('ext-gw-mode', 'Neutron L3 Configurable external gateway mode',
     'Extension of the router abstraction for specifying whether SNAT should occur '
     'on the external gateway', '2013-03-28T10:00:00-00:00'),
    ('subnet-external-network', 'Subnet External Network',
     'Informs if the subnet is associated to an external network.',
     '2023-04-11T10:00:00-00:00'),
    ('extraroute', 'Neutron Extra Route', 'Extra routes configuration for L3 router',
     '2013-02-01T10:00:00-00:00'),
    ('extraroute-atomic', 'Atomically add/remove extra routes',
     'Edit extra routes of a router on server side by atomically adding/removing '
     'extra routes', '2019-07-10T10:00:00-00:00'),
)


def subnet_pool_view(pool):
    return dict(_common(pool, pool['description']), **{
        key: pool[key] for key in ('id', 'name', 'prefixes', 'min_prefixlen',
                                   'max_prefixlen', 'default_prefixlen',
                                   'default_quota', 'shared', 'is_default')},
        ip_version=4, address_scope_id=None)


def router_view(router):
    return dict(_common(router, router['description']), id=router['id'],
                name=router['name'], admin_state_up=router['admin_state_up'],
                status='ACTIVE', external_gateway_info=router['external_gateway_info'],
                routes=router['routes'])


def floating_ip_view(fip):
    return dict(_common(fip, fip['description']), **{
        key: fip[key] for key in ('id', 'floating_network_id', 'floating_ip_address',
                                  'fixed_ip_address', 'port_id', 'router_id')},
        status='ACTIVE' if fip['port_id'] else 'DOWN',
        updated_at=common.isotime(fip['updated_at'] or fip['created_at']))


def security_group_rule_view(rule):
    return dict(_common(rule, rule['description']), **{
        key: rule[key] for key in (
            'id', 'security_group_id', 'direction', 'ethertype', 'protocol',
            'port_range_min', 'port_range_max', 'remote_ip_prefix', 'remote_group_id',
            'belongs_to_default_sg')},
        remote_address_group_id=None,
        normalized_cidr=sg_rules.normalized(rule['remote_ip_prefix']))


def security_group_view(group):
    return dict(_common(group, group['description']), id=group['id'],
                name=group['name'], stateful=True, shared=False,
                security_group_rules=[security_group_rule_view(r)
                                      for r in group['rules']])


def extension(alias, name, description, updated):
    return {'alias': alias, 'name': name, 'description': description,
            'updated': updated, 'links': []}
