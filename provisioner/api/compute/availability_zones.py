"""Availability zones (Nova's os-availability-zone).

As in Nova, the zones are those of the compute services (provisioner's hosts): a
zone with an enabled host is available, a zone whose hosts are all disabled is
not; no host, no zone. The detail (admins only: the others get 403, and the
clients then ask for the plain list) names each zone's enabled hosts.
"""

from provisioner.api.compute import hypervisors
from provisioner.api.compute.service import SERVICE
from provisioner.api import wsgi


def _zones(hosts):
    """(available zones, unavailable zones), each sorted by name."""
    available = sorted({h['availability_zone'] for h in hosts if h['enabled']})
    unavailable = sorted({h['availability_zone'] for h in hosts} - set(available))
    return available, unavailable


@SERVICE.route('GET', '/v2.1/os-availability-zone')
def index(req):
    available, unavailable = _zones(hypervisors.list_hosts(req))
    return wsgi.json_response({'availabilityZoneInfo': [
        {'zoneName': zone, 'zoneState': {'available': zone in available},
         'hosts': None} for zone in available + unavailable]})


@SERVICE.route('GET', '/v2.1/os-availability-zone/detail')
def detail(req):
    hypervisors.require_admin(req, 'The detailed list of availability zones')
    hosts = hypervisors.list_hosts(req)
    available, unavailable = _zones(hosts)
    info = []
    for zone in available:
        info.append({'zoneName': zone, 'zoneState': {'available': True}, 'hosts': {
            h['name']: {hypervisors.BINARY: {
                'available': h['alive'], 'active': True,
                'updated_at': hypervisors.service_time(h['updated_at'])}}
            for h in hosts if h['enabled'] and h['availability_zone'] == zone}})
    info.extend({'zoneName': zone, 'zoneState': {'available': False}, 'hosts': None}
                for zone in unavailable)
    return wsgi.json_response({'availabilityZoneInfo': info})
