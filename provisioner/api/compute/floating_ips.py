"""Nova's floating IP proxies to the network API: ``/os-floating-ips`` (list, show,
allocate from a pool, release; 2.1 - 2.35, then 404 as Nova) and the server actions
``addFloatingIp`` and ``removeFloatingIp`` (2.1 - 2.43), in Nova's words and codes
over provisioner.network.floating_ips (Neutron's floatingips)."""

from provisioner.api.compute.schemas import servers as schemas
from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api.compute import queries
from provisioner.api import wsgi
from provisioner.conf import CONF
from provisioner import exception
from provisioner.network import floating_ips as service
from provisioner.network import ipam
from provisioner.quota import networks as network_quotas

MAX_PROXY = (2, 35)  # Nova's MAX_PROXY_API_SUPPORT_VERSION
_CREATE = {'type': ['object', 'null'], 'properties': {'pool': {
    'type': ['string', 'null']}}}


def _proxy(req):
    if req.api_version is not None and req.api_version > MAX_PROXY:
        queries.not_routed()


def _view(fip):
    return {'id': fip['id'], 'ip': fip['floating_ip_address'],
            'fixed_ip': fip['fixed_ip_address'], 'instance_id': fip['instance_id'],
            'pool': fip['network_name'] or fip['floating_network_id']}


def _one(req, fip_id):
    try:
        return service.show_floating_ip(req.context, fip_id)
    except exception.NotFound:
        raise wsgi.HTTPError(404, 'Floating IP not found for ID %s' % fip_id) from None


@wsgi.route('GET', '/v2.1/os-floating-ips')
def list_floating_ips(req):
    _proxy(req)
    return wsgi.json_response({'floating_ips': [
        _view(f) for f in service.list_floating_ips(req.context)
        if f['project_id'] == req.context.project_id]})


@wsgi.route('GET', '/v2.1/os-floating-ips/{fip_id}')
def show_floating_ip(req, fip_id):
    _proxy(req)
    return wsgi.json_response({'floating_ip': _view(_one(req, fip_id))})


@wsgi.route('POST', '/v2.1/os-floating-ips')
def create_floating_ip(req):
    _proxy(req)
    body = validation.validate(req.json_body() if req.body else None, _CREATE)
    pool = (body or {}).get('pool') or CONF.network.default_floating_pool
    try:
        net = service.external_network(req.context, pool)
    except exception.NotFound:
        raise wsgi.HTTPError(404, 'Floating IP pool not found.') from None
    try:
        fip = service.create_floating_ip(req.context, net['id'])
    except network_quotas.OverQuota:
        raise wsgi.HTTPError(403, 'IP allocation over quota in pool %s.' % pool) \
            from None
    except exception.Conflict:
        raise wsgi.HTTPError(404, 'No more floating IPs in pool %s.' % pool) from None
    return wsgi.json_response({'floating_ip': _view(fip)})


@wsgi.route('DELETE', '/v2.1/os-floating-ips/{fip_id}')
def delete_floating_ip(req, fip_id):
    _proxy(req)
    _one(req, fip_id)
    service.delete_floating_ip(req.context, fip_id)
    return wsgi.empty_response(202)


def _by_address(req, address, words):
    try:
        return service.find_by_address(req.context, address)
    except exception.NotFound:
        raise wsgi.HTTPError(404, words) from None


@validation.schema(schemas.ADD_FLOATING_IP, '2.1', '2.43')
def add_floating_ip(req, server_id, body):
    """Associate the address with the server's port of ``fixed_address`` (else its
    first fixed IPv4 address); one associated elsewhere moves here, as Nova's."""
    server = compute(req).server_record(server_id)
    ports = [p for p in ipam.ports_for(server['id']) if p['ip']]
    if not ports:
        raise wsgi.HTTPError(400, 'No fixed IPs associated to instance')
    wanted = body.get('fixed_address')
    port = next((p for p in ports if p['ip'] == wanted), None) if wanted else ports[0]
    if port is None:
        raise wsgi.HTTPError(400, 'Specified fixed address not assigned to instance')
    fip = _by_address(req, body['address'], 'floating IP not found')
    try:
        service.update_floating_ip(req.context, fip['id'], port['id'], port['ip'])
    except exception.Forbidden as exc:
        raise wsgi.HTTPError(403, str(exc)) from None
    except exception.ProvisionerError as exc:
        raise wsgi.HTTPError(400, 'Unable to associate floating IP %s to fixed IP %s '
                                  'for instance %s. Error: %s'
                             % (body['address'], port['ip'], server['id'], exc)) \
            from None
    return wsgi.empty_response(202)


@validation.schema(schemas.REMOVE_FLOATING_IP, '2.1', '2.43')
def remove_floating_ip(req, server_id, body):
    server = compute(req).server_record(server_id)
    address = body['address']
    fip = _by_address(req, address, 'Floating IP not found for address %s.' % address)
    if fip['instance_id'] != server['id']:
        raise wsgi.HTTPError(409, 'Floating IP %s is not associated with instance %s.'
                             % (address, server_id))
    service.update_floating_ip(req.context, fip['id'], None)
    return wsgi.empty_response(202)
