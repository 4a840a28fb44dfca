"""Network v2.0 (a Neutron subset), shaped as every service: controllers (versions
and extensions, networks, subnets, subnet pools, ports, quotas, security
groups, routers, floating IPs),
``schemas`` (the request bodies) and ``views`` (Neutron's shapes and error body,
with Neutron's error type names)."""

from provisioner.api.network import floating_ips
from provisioner.api.network import networks
from provisioner.api.network import ports
from provisioner.api.network import quotas
from provisioner.api.network import routers
from provisioner.api.network import security_groups
from provisioner.api.network import subnet_pools
from provisioner.api.network import subnets
from provisioner.api.network import versions
from provisioner.api.network import views
from provisioner.api import wsgi

SERVICE = wsgi.Service('network', fault=views.neutron_fault,
                       controllers=(versions, networks, subnets, subnet_pools, ports, quotas,
                                    security_groups, routers, floating_ips))
