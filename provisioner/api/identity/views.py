"""Keystone's shapes: the error body, version documents, catalog, and each resource.

provisioner has one domain, ``Default`` (id ``default``), and the roles of its
policies, whose ids are their names (admin, member, reader, service), so a role
given by name or by id is found either way.
"""

import uuid

from provisioner.api import urls
from provisioner.api import wsgi

DOMAIN_ID = 'default'
DOMAIN_NAME = 'Default'
DOMAIN = {'id': DOMAIN_ID, 'name': DOMAIN_NAME}
VERSION_ID = 'v3.14'
UPDATED = '2020-04-07T00:00:00Z'


def keystone_fault(status, message, exc=None):
    """Keystone's error body: {"error": {"code": 404, "title": "Not Found", "message"}}."""
    return {'error': {'code': status, 'title': wsgi.TITLES.get(status, 'Error'),
                      'message': message}}


def version_document(req):
    return {'id': VERSION_ID, 'status': 'stable', 'updated': UPDATED,
            'links': [{'rel': 'self',
                       'href': '%s/identity/v3/' % urls.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.identity-v3+json'}]}


# -- the service catalog a token carries ----------------------------------------------
# Every service of this one port, devstack-like. Clients find each service's URL
# here, so every URL is the externally reachable base. Ids are stable (derived from
# the service type), as a catalog that changed on every token would confuse caches.

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
    base = urls.public_base_url(req)
    entries = []
    for kind, name, path in SERVICES:
        url = base + path.format(project_id=project_id)
        entries.append({
            'id': _id('service', kind), 'type': kind, 'name': name,
            'endpoints': [{'id': _id('endpoint', kind, 'public'),
                           'interface': 'public', 'region': REGION,
                           'region_id': REGION, 'url': url}]})
    return entries


# -- resources ---------------------------------------------------------------------------

def url(req, *parts):
    """Absolute URL of an identity resource, e.g. .../identity/v3/projects/<id>."""
    return urls.service_url(req, 'v3', *parts)


def collection(req, key, items, *path):
    """Keystone's list body: {key: [...], "links": {"self", "previous", "next"}}."""
    return wsgi.json_response({key: items, 'links': {
        'self': url(req, *path), 'previous': None, 'next': None}})


def domain_view(req):
    return {'id': DOMAIN_ID, 'name': DOMAIN_NAME, 'description': 'The default domain',
            'enabled': True, 'tags': [], 'options': {},
            'links': {'self': url(req, 'domains', DOMAIN_ID)}}


def project_view(req, project):
    return {'id': project['id'], 'name': project['name'], 'domain_id': DOMAIN_ID,
            'parent_id': DOMAIN_ID, 'description': '', 'enabled': True,
            'is_domain': False, 'tags': [], 'options': {},
            'links': {'self': url(req, 'projects', project['id'])}}


def user_view(req, user):
    return {'id': user['id'], 'name': user['name'], 'domain_id': DOMAIN_ID,
            'enabled': user['enabled'], 'password_expires_at': None, 'options': {},
            'links': {'self': url(req, 'users', user['id'])}}


def role_view(req, role):
    return {'id': role, 'name': role, 'domain_id': None, 'description': None,
            'options': {}, 'links': {'self': url(req, 'roles', role)}}


def assignment_view(req, assignment, names):
    role = {'id': assignment['role']}
    user = {'id': assignment['user_id']}
    project = {'id': assignment['project_id']}
    if names:
        role['name'] = assignment['role']
        user.update(name=assignment['user_name'], domain=dict(DOMAIN))
        project.update(name=assignment['project_name'], domain=dict(DOMAIN))
    return {'role': role, 'user': user, 'scope': {'project': project},
            'links': {'assignment': url(
                req, 'projects', assignment['project_id'], 'users',
                assignment['user_id'], 'roles', assignment['role'])}}


def application_credential_view(req, credential):
    """Keystone's: its roles as references, the secret only in a create's answer."""
    expires = credential['expires_at']
    found = {key: credential[key] for key in ('id', 'name', 'description', 'project_id',
                                              'unrestricted')}
    found.update({
        'expires_at': expires.strftime('%Y-%m-%dT%H:%M:%S.%f') if expires else None,
        'roles': [{'id': role, 'name': role, 'domain_id': None}
                  for role in credential['roles']],
        'access_rules': [],
        'links': {'self': url(req, 'users', credential['user_id'],
                              'application_credentials', credential['id'])}})
    if 'secret' in credential:
        found['secret'] = credential['secret']
    return found
