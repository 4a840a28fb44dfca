"""Keystone's shapes: the error body, version documents, catalog, and each resource.

The Default domain is ``default``; the roles of the policies have their names as
ids (admin, member, reader, service). Each resource answers Keystone's keys, with
Keystone's values for what is not set (an empty description, no tags...).
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


def catalog(req, project_id, added=()):
    """Keystone's catalog: [{"id","type","name","endpoints":[...]}] for the project:
    provisioner's services, then ``added``, [(service, [endpoint])] an admin added
    (provisioner.identity.endpoints.catalog_entries)."""
    base = urls.public_base_url(req)
    entries = []
    for kind, name, path in SERVICES:
        if project_id is None and '{project_id}' in path:
            continue  # a system-scoped token's catalog: no project to put in the URL
        url = base + path.format(project_id=project_id)
        entries.append({
            'id': _id('service', kind), 'type': kind, 'name': name,
            'endpoints': [{'id': _id('endpoint', kind, 'public'),
                           'interface': 'public', 'region': REGION,
                           'region_id': REGION, 'url': url}]})
    for service, endpoints in added:
        entries.append({'id': service['id'], 'type': service['type'],
                        'name': service['name'] or '', 'endpoints': [
                            {'id': e['id'], 'interface': e['interface'],
                             'region': e['region_id'], 'region_id': e['region_id'],
                             'url': e['url'].replace('$(project_id)s', project_id or '')}
                            for e in endpoints]})
    return entries


# -- resources ---------------------------------------------------------------------------

def url(req, *parts):
    """Absolute URL of an identity resource, e.g. .../identity/v3/projects/<id>."""
    return urls.service_url(req, 'v3', *parts)


def collection(req, key, items, *path):
    """Keystone's list body: {key: [...], "links": {"self", "previous", "next"}}."""
    return wsgi.json_response({key: items, 'links': {
        'self': url(req, *path), 'previous': None, 'next': None}})


def ref(req, row, collection, keys, **defaults):
    """Keystone's resource: ``keys`` of the row (None as ``defaults`` say), links."""
    found = {key: row.get(key) for key in keys}
    for key, value in defaults.items():
        if found.get(key) is None:
            found[key] = value
    found['links'] = {'self': url(req, collection, row['id'])}
    return found


def domain_view(req, domain):
    return ref(req, domain, 'domains', ('id', 'name', 'description', 'enabled'),
                description='', tags=[], options={})


def project_view(req, project):
    """A project; a domain as the project acting as it (is_domain: no domain, no
    parent)."""
    found = ref(req, project, 'projects', ('id', 'name', 'domain_id', 'description',
                                           'enabled', 'parent_id', 'tags'),
                domain_id=DOMAIN_ID, description='', enabled=True, tags=[],
                parent_id=project.get('domain_id') or DOMAIN_ID, is_domain=False,
                options={})
    if project.get('is_domain'):
        found.update(domain_id=None, parent_id=None, is_domain=True)
    return found


def user_view(req, user):
    found = dict(user.get('extra') or {})
    found.update(ref(req, user, 'users', ('id', 'name', 'domain_id', 'enabled'),
                      domain_id=DOMAIN_ID, password_expires_at=None, options={}))
    for key in ('description', 'default_project_id'):
        if user.get(key) is not None:
            found[key] = user[key]
    return found


def group_view(req, group):
    return ref(req, group, 'groups', ('id', 'name', 'domain_id', 'description'),
                description='')


def role_view(req, role):
    return ref(req, role, 'roles', ('id', 'name', 'domain_id', 'description'),
                options={})


def role_ref(req, role):
    """A role as an implication names it."""
    return {'id': role['id'], 'name': role['name'],
            'links': {'self': url(req, 'roles', role['id'])}}


def region_view(req, region):
    return ref(req, region, 'regions', ('id', 'description', 'parent_region_id'),
                description='')


def service_view(req, service):
    return ref(req, service, 'services', ('id', 'type', 'name', 'description',
                                           'enabled'), enabled=True)


def endpoint_view(req, endpoint):
    found = ref(req, endpoint, 'endpoints', ('id', 'service_id', 'region_id',
                                              'interface', 'url', 'enabled'),
                 enabled=True)
    found['region'] = found['region_id']
    return found


def credential_view(req, credential):
    return ref(req, credential, 'credentials', ('id', 'user_id', 'project_id', 'type',
                                                 'blob'))


def policy_view(req, stored):
    return ref(req, stored, 'policies', ('id', 'type', 'blob'))


def builtin_services(req):
    """provisioner's own services and their public endpoints, as rows would be."""
    base = urls.public_base_url(req)
    services, endpoints = [], []
    for kind, name, path in SERVICES:
        service_id = _id('service', kind)
        services.append({'id': service_id, 'type': kind, 'name': name,
                         'description': None, 'enabled': True})
        endpoints.append({'id': _id('endpoint', kind, 'public'), 'service_id': service_id,
                          'region_id': REGION, 'interface': 'public', 'enabled': True,
                          'url': base + path.replace('{project_id}', '$(project_id)s')})
    return services, endpoints


def application_credential_view(req, credential):
    """Keystone's: its roles as references, the secret only in a create's answer."""
    expires = credential['expires_at']
    found = {key: credential[key] for key in ('id', 'name', 'description', 'project_id',
                                              'unrestricted')}
    found.update({
        'expires_at': expires.strftime('%Y-%m-%dT%H:%M:%S.%f') if expires else None,
        'roles': credential['roles'],
        'access_rules': [],
        'links': {'self': url(req, 'users', credential['user_id'],
                              'application_credentials', credential['id'])}})
    if 'secret' in credential:
        found['secret'] = credential['secret']
    return found


def bool_param(req, name):
    """A boolean query filter (?enabled=true) as True/False, or None if absent
    (Keystone's: "0" and "false" are false, anything else, even empty, true)."""
    value = req.GET.get(name)
    if value is None:
        return None
    return value.lower() not in ('0', 'false', 'no', 'off', 'f', 'n')


def filters(req, *names):
    """{name: value} of the query filters given (Keystone's list filters)."""
    found = {name: req.GET.get(name) for name in names}
    if 'enabled' in names:
        found['enabled'] = bool_param(req, 'enabled')
    return found
