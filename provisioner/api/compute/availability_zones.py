"""Availability zones (Nova's os-availability-zone).

As in Nova, the zones are those of the compute services (provisioner's hosts). The
detail (admins only: the others get 403, and the clients then ask for the plain
list) names each zone's enabled hosts.
"""

from provisioner.api.compute import hypervisors
from provisioner.api.compute.views import hypervisors as views
from provisioner.api import wsgi


@wsgi.route('GET', '/v2.1/os-availability-zone')
def index(req):
    return wsgi.json_response({'availabilityZoneInfo': views.availability_zones(
        hypervisors.list_hosts(req))})


@wsgi.route('GET', '/v2.1/os-availability-zone/detail')
def detail(req):
    hypervisors.require_admin(req, 'The detailed list of availability zones')
    return wsgi.json_response({'availabilityZoneInfo': views.availability_zones_detail(
        hypervisors.list_hosts(req))})
