"""Compute v2.1 (Nova's API), with microversions 2.1 to versions.MAX_VERSION.

Shaped as Nova's: one controller module per resource (parse, check policy through
the service, call the service, return the view), ``schemas/<resource>.py`` (a JSON
Schema per request body and microversion) and ``views/<resource>.py`` (the
response shapes per microversion). A new endpoint is a handler marked with
``@wsgi.route`` in its controller, listed below if the controller is new.
"""

from provisioner.api.compute import availability_zones
from provisioner.api.compute import consoles
from provisioner.api.compute import flavors
from provisioner.api.compute import flows
from provisioner.api.compute import hypervisors
from provisioner.api.compute import images
from provisioner.api.compute import instance_actions
from provisioner.api.compute import ips
from provisioner.api.compute import keypairs
from provisioner.api.compute import migrations
from provisioner.api.compute import provisioner_ext
from provisioner.api.compute import quotas
from provisioner.api.compute import server_actions
from provisioner.api.compute import server_groups
from provisioner.api.compute import server_metadata
from provisioner.api.compute import server_tags
from provisioner.api.compute import servers
from provisioner.api.compute import services
from provisioner.api.compute import versions
from provisioner.api.compute import volume_attachments
from provisioner.api import wsgi

SERVICE = wsgi.Service('compute', microversions=versions.MICROVERSIONS,
                       request_id_header='x-compute-request-id', controllers=(
    versions, servers, server_actions, server_metadata, server_tags, ips, instance_actions,
    flavors, keypairs, server_groups, quotas, availability_zones, hypervisors, services,
    provisioner_ext, flows,
    volume_attachments, consoles, migrations, images))
