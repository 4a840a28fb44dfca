"""Nova's security group proxy (os-security-groups, os-security-group-rules), 2.1 - 2.35.

Nova forwards these to Neutron and answers in its own shapes; here they call the
network service the Neutron API uses, so a group made either way is the same group
and its rules reach the hosts the same way. As Nova: ids are uuids (anything else is
400), only ingress rules are shown or made, a conflict Neutron reports (a duplicate
rule, a group in use, the default group) is a 400, and from 2.36 every path is 404.
"""

import ipaddress

from oslo_utils import uuidutils

from provisioner.api.compute import queries
from provisioner.api.compute.views import security_groups as views
from provisioner.api import wsgi
from provisioner import exception
from provisioner.network import security_groups as service


def _check(req, group_id=None):
    queries.removed_at(req, (2, 36))
    if group_id is not None and not uuidutils.is_uuid_like(group_id):
        raise wsgi.HTTPError(400, 'Security group id should be uuid')


def _group_body(req, body):
    """The name and description of a create or update: both strings of at most 255."""
    group = body.get('security_group') if isinstance(body, dict) else None
    if not isinstance(group, dict):
        raise wsgi.HTTPError(400, "Invalid input for field/attribute security_group.")
    for field in ('name', 'description'):
        value = group.get(field)
        if not isinstance(value, str) or len(value) > 255:
            raise wsgi.HTTPError(400, "Invalid input for field/attribute %s: a string "
                                      "of at most 255 characters is required." % field)
    return group['name'], group['description']


def _shown(req, group):
    """Nova's view of one group; its rules' remote groups named as Nova names them."""
    known = []
    for remote in {r['remote_group_id'] for r in group['rules']} - {None, group['id']}:
        try:
            known.append(service.show_group(req.context, remote))
        except exception.NotFound:
            pass  # Nova, too, leaves out what it cannot find
    return views.security_groups([group], known)['security_groups'][0]


def _conflict_is_bad_request(call, *args):
    """Nova turns Neutron's 409s here into 400s."""
    try:
        return call(*args)
    except exception.Conflict as exc:
        raise wsgi.HTTPError(400, str(exc)) from None


@wsgi.route('GET', '/v2.1/os-security-groups')
def index(req):
    _check(req)
    groups = service.list_groups(req.context)
    if not (req.context.is_admin and 'all_tenants' in req.GET):
        groups = [g for g in groups if g['project_id'] == req.context.project_id]
    offset = req.int_param('offset', minimum=0) or 0
    limit = req.int_param('limit', minimum=0)
    page = groups[offset:None if limit is None else offset + limit]
    shown = views.security_groups(page, groups)['security_groups']
    return wsgi.json_response({'security_groups': sorted(
        shown, key=lambda g: (g['tenant_id'], g['name']))})


@wsgi.route('GET', '/v2.1/os-security-groups/{group_id}')
def show(req, group_id):
    _check(req, group_id)
    return wsgi.json_response({'security_group': _shown(
        req, service.show_group(req.context, group_id))})


@wsgi.route('POST', '/v2.1/os-security-groups')
def create(req):
    _check(req)
    name, description = _group_body(req, req.json_body())
    group = _conflict_is_bad_request(service.create_group, req.context, name,
                                     description)
    return wsgi.json_response({'security_group': _shown(req, group)})


@wsgi.route('PUT', '/v2.1/os-security-groups/{group_id}')
def update(req, group_id):
    _check(req, group_id)
    service.show_group(req.context, group_id)  # 404 before the body is judged
    name, description = _group_body(req, req.json_body())
    group = _conflict_is_bad_request(service.update_group, req.context, group_id,
                                     name, description)
    return wsgi.json_response({'security_group': _shown(req, group)})


@wsgi.route('DELETE', '/v2.1/os-security-groups')
def delete_without_id(req):
    queries.not_routed()


@wsgi.route('DELETE', '/v2.1/os-security-groups/{group_id}')
def delete(req, group_id):
    _check(req, group_id)
    _conflict_is_bad_request(service.delete_group, req.context, group_id)
    return wsgi.empty_response(202)


# -- rules ------------------------------------------------------------------------------

def _port_range(protocol, from_port, to_port):
    """Nova's checks of an ingress rule's protocol and ports: Neutron's
    port_range_min/max (None for ICMP's -1, "any")."""
    try:
        low, high = int(from_port), int(to_port)
    except (TypeError, ValueError):
        raise wsgi.HTTPError(400, 'Type and Code must be integers for ICMP protocol '
                                  'type' if protocol.upper() == 'ICMP' else
                             'To and From ports must be integers') from None
    kind = protocol.upper()
    if kind not in ('TCP', 'UDP', 'ICMP'):
        raise wsgi.HTTPError(400, 'Invalid IP protocol %s.' % protocol)
    if kind in ('TCP', 'UDP') and low > high:
        raise wsgi.HTTPError(400, 'Invalid port range %d:%d. Former value cannot be '
                                  'greater than the later' % (low, high))
    if kind in ('TCP', 'UDP') and (low < 1 or high > 65535):
        raise wsgi.HTTPError(400, 'Invalid port range %d:%d. Valid %s ports should be '
                                  'between 1-65535' % (low, high, kind))
    if kind == 'ICMP' and not (-1 <= low <= 255 and -1 <= high <= 255):
        raise wsgi.HTTPError(400, 'Invalid port range %d:%d. For ICMP, the type:code '
                                  'must be valid' % (low, high))
    return (None if low == -1 else low), (None if high == -1 else high)


def _cidr(value):
    if not value:
        return '0.0.0.0/0'
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid cidr %s.' % value) from None
    if network.prefixlen == 0 and not ipaddress.ip_address(
            str(value).split('/')[0]).is_unspecified:
        raise wsgi.HTTPError(400, 'Bad prefix for network in cidr %s' % value)
    return str(value)


def _neutron_rule(spec, parent_id):
    """Nova's rule body as the Neutron rule it makes (ingress only)."""
    protocol, remote_group = spec.get('ip_protocol'), spec.get('group_id')
    from_port, to_port = spec.get('from_port'), spec.get('to_port')
    rule = {'security_group_id': parent_id, 'direction': 'ingress'}
    if remote_group is not None:
        rule.update(remote_group_id=remote_group, ethertype='IPv4')
        kind = str(protocol or '').upper()
        if from_port is None and to_port is None and kind in ('TCP', 'UDP', 'ICMP'):
            from_port, to_port = (-1, -1) if kind == 'ICMP' else (1, 65535)
    else:
        cidr = _cidr(spec.get('cidr'))
        version = ipaddress.ip_network(cidr, strict=False).version
        rule.update(remote_ip_prefix=cidr, ethertype='IPv6' if version == 6 else 'IPv4')
    if protocol and from_port is not None and to_port is not None:
        low, high = _port_range(str(protocol), from_port, to_port)
        rule.update(protocol=str(protocol).lower(), port_range_min=low,
                    port_range_max=high)
    elif remote_group is None:
        raise wsgi.HTTPError(400, 'Not enough parameters to build a valid rule.')
    return rule


@wsgi.route('POST', '/v2.1/os-security-group-rules')
def create_rule(req):
    _check(req)
    body = req.json_body()
    spec = body.get('security_group_rule') if isinstance(body, dict) else None
    if not isinstance(spec, dict) or 'parent_group_id' not in spec:
        raise wsgi.HTTPError(400, "Invalid input for field/attribute "
                                  "security_group_rule: 'parent_group_id' is a "
                                  "required property")
    parent_id, remote_id = spec['parent_group_id'], spec.get('group_id')
    for value in (parent_id, remote_id):
        if value is not None and not (isinstance(value, str)
                                      and uuidutils.is_uuid_like(value)):
            raise wsgi.HTTPError(400, "Invalid input for field/attribute: %r is not a "
                                      "'uuid'" % (value,))
    parent = service.show_group(req.context, parent_id)
    known = [parent]
    if remote_id is not None:
        known.append(service.show_group(req.context, remote_id))
    rule = _conflict_is_bad_request(service.create_rule, req.context,
                                    _neutron_rule(spec, parent['id']))
    names = {g['id']: {'name': g['name'], 'tenant_id': g['project_id']} for g in known}
    return wsgi.json_response({'security_group_rule': views.rule(rule, names)})


@wsgi.route('DELETE', '/v2.1/os-security-group-rules/{rule_id}')
def delete_rule(req, rule_id):
    _check(req)
    if not uuidutils.is_uuid_like(rule_id):
        raise wsgi.HTTPError(400, 'Security group id should be uuid')
    service.delete_rule(req.context, rule_id)
    return wsgi.empty_response(202)

