"""The service catalog a token carries: every service of this one port, devstack-like.

Clients find each service's URL here, so every URL is the externally reachable
base (``[api] public_url``, else the request's own). Ids are stable (derived from
the service type), as a catalog that changed on every token would confuse caches.
"""

import uuid

from provisioner.api import app

REGION = 'RegionOne'
_NAMESPACE = uuid.UUID('6f0e5d3c-43a2-4c43-9a57-1b1f5e0b7c11')

# (type, name, path under the base URL; {project_id} is the token's project)
SERVICES = (
    ('identity', 'keystone', '/identity'),
    ('compute', 'nova', '/compute/v2.1'),
    ('image', 'glance', '/image'),
    ('network', 'neutron', '/network'),
    ('block-storage', 'cinder', '/volume/v3/{project_id}'),
)


def _id(*parts):
    return uuid.uuid5(_NAMESPACE, '/'.join(parts)).hex


def catalog(req, project_id):
    """Keystone's catalog: [{"id","type","name","endpoints":[...]}] for the project."""
    base = app.public_base_url(req)
    entries = []
    for kind, name, path in SERVICES:
        url = base + path.format(project_id=project_id)
        entries.append({
            'id': _id('service', kind), 'type': kind, 'name': name,
            'endpoints': [{'id': _id('endpoint', kind, 'public'),
                           'interface': 'public', 'region': REGION,
                           'region_id': REGION, 'url': url}]})
    return entries
