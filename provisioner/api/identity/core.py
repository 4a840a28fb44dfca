"""The identity service (Keystone v3 subset): its error body, versions and shared views.

provisioner has one domain, ``Default`` (id ``default``), and three roles whose ids
are their names (admin, member, reader), so a role given by name or by id is found
either way.
"""

from provisioner.api import app
from provisioner.api import common
from provisioner.api import wsgi
from provisioner import exception

DOMAIN_ID = 'default'
DOMAIN_NAME = 'Default'
DOMAIN = {'id': DOMAIN_ID, 'name': DOMAIN_NAME}
VERSION_ID = 'v3.14'
UPDATED = '2020-04-07T00:00:00Z'


def keystone_fault(status, message):
    """Keystone's error body: {"error": {"code": 404, "title": "Not Found", "message"}}."""
    return {'error': {'code': status, 'title': wsgi.TITLES.get(status, 'Error'),
                      'message': message}}


SERVICE = wsgi.Service('identity', fault=keystone_fault)


def version_document(req):
    return {'id': VERSION_ID, 'status': 'stable', 'updated': UPDATED,
            'links': [{'rel': 'self',
                       'href': '%s/identity/v3/' % app.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.identity-v3+json'}]}


@SERVICE.route('GET', '/', public=True)
def versions(req):
    document = version_document(req)
    return wsgi.json_response({'versions': {'values': [document]}}, 300,
                              {'Location': document['links'][0]['href']})


@SERVICE.route('GET', '/v3', public=True)
def version(req):
    return wsgi.json_response({'version': version_document(req)})


# -- shared views ---------------------------------------------------------------------

def url(req, *parts):
    """Absolute URL of an identity resource, e.g. .../identity/v3/projects/<id>."""
    return common.service_url(req, 'v3', *parts)


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


def domain_id_of(body, field='domain_id'):
    """The domain a request names (default when absent); 400 for any other domain."""
    value = body.get(field)
    if value not in (None, DOMAIN_ID):
        raise exception.Invalid(reason='provisioner has one domain, %s (id %s), not %s'
                                       % (DOMAIN_NAME, DOMAIN_ID, value))
    return DOMAIN_ID


def require_object(body, key):
    value = body.get(key)
    if not isinstance(value, dict):
        raise wsgi.HTTPError(400, 'The request body needs a "%s" object.' % key)
    return value


def bool_param(req, name):
    """A boolean query filter (?enabled=true) as True/False, or None if absent."""
    value = req.GET.get(name)
    if value is None:
        return None
    return value.lower() not in ('0', 'false', 'no', 'off', 'f', 'n')
