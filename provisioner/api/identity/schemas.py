"""JSON schemas of the identity requests (Keystone v3): tokens, projects and users.

What provisioner cannot do (a disabled or nested project, moving a user to another
domain) is refused by the schema with the reason, as "Invalid request: ..." (400);
creating in another domain is a 404, as Keystone answers for a domain it lacks.
"""

from provisioner.api.identity import views
from provisioner.api import validation

_DOMAIN_REF = {'type': 'object', 'properties': {'id': {'type': 'string'},
                                                'name': {'type': 'string'}}}
_NAMED = {'id': {'type': 'string'}, 'name': {'type': 'string'}, 'domain': _DOMAIN_REF}
AUTH_REQUEST = {
    'type': 'object', 'required': ['auth'],
    'properties': {'auth': {
        'type': 'object', 'required': ['identity'],
        'properties': {
            'identity': {
                'type': 'object', 'required': ['methods'],
                'properties': {
                    'methods': {'type': 'array', 'minItems': 1,
                                'items': {'type': 'string'}},
                    'password': {
                        'type': 'object', 'required': ['user'],
                        'properties': {'user': {
                            'type': 'object', 'required': ['password'],
                            'properties': dict(_NAMED, password={'type': 'string'})}}},
                    'token': {'type': 'object', 'required': ['id'],
                              'properties': {'id': {'type': 'string'}}},
                    'application_credential': {
                        'type': 'object', 'required': ['secret'],
                        'properties': {'id': {'type': 'string'},
                                       'name': {'type': 'string'},
                                       'secret': {'type': 'string'},
                                       'user': {'type': 'object',
                                                'properties': _NAMED}}}}},
            'scope': {'type': ['object', 'string'],
                      'properties': {'project': {'type': 'object',
                                                 'properties': _NAMED},
                                     'system': {'type': 'object'}}}}}}}


def _invalid(reason):
    return 'Invalid request: %s' % reason


# One domain: a request may name it (by id) or leave it out.
_DOMAIN_ID = {'enum': [None, views.DOMAIN_ID],
              'errorMessage': _invalid('provisioner has one domain, %s (id %s), not '
                                       '{value}' % (views.DOMAIN_NAME, views.DOMAIN_ID))}
# A create naming another domain is a 404 (the handler's), as Keystone answers for
# a domain it does not have.
_ANY_DOMAIN_ID = {'type': ['string', 'null'],
                  'errorMessage': _invalid('domain_id must be a string')}
_FALSY = [False, None, 0, '', [], {}]


def _text(low, high, what):
    return {'type': 'string', 'minLength': low, 'maxLength': high,
            'errorMessage': _invalid('%s must be text of %d to %d characters'
                                     % (what, low, high))}


def _optional(fragment):
    return dict(fragment, type=['string', 'null'])


_DESCRIPTION = {'type': ['string', 'null'],
                'errorMessage': _invalid('description must be text')}
_ENABLED = {'type': 'boolean', 'errorMessage': _invalid('enabled must be a boolean')}
_ID = {'type': ['string', 'null'], 'errorMessage': _invalid('an id must be text')}


def _resource(key, properties, required=()):
    """Keystone's body {key: {...}}; ``required`` on create (an update has none)."""
    return validation.wrapped(key, {
        'type': 'object', 'properties': properties, 'required': list(required),
        'errorMessage': {'required': _invalid('a %s needs %s' % (
            key, ', '.join(required) or 'nothing'))}})


_DOMAIN = {'name': _text(1, 64, 'name'), 'description': _DESCRIPTION,
           'enabled': _ENABLED}
DOMAIN_CREATE = _resource('domain', _DOMAIN, ['name'])
DOMAIN_UPDATE = _resource('domain', _DOMAIN)

_TAGS = {'type': 'array', 'maxItems': 80,
         'items': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                   'pattern': '^[^,/]*$'},
         'errorMessage': _invalid('tags are at most 80 texts of 1 to 255 characters '
                                  'without "," or "/"')}
_PROJECT = {'name': _text(1, 64, 'name'), 'description': _DESCRIPTION,
            'enabled': _ENABLED, 'domain_id': _ANY_DOMAIN_ID, 'parent_id': _ID,
            'tags': _TAGS,
            'is_domain': {'type': 'boolean',
                          'errorMessage': _invalid('is_domain must be a boolean')}}
PROJECT_CREATE = _resource('project', _PROJECT, ['name'])
PROJECT_UPDATE = _resource('project', _PROJECT)
TAGS_UPDATE = {'type': 'object', 'required': ['tags'], 'properties': {'tags': _TAGS}}

_USER = {'name': _text(1, 255, 'name'), 'description': _DESCRIPTION,
         'enabled': _ENABLED, 'domain_id': _ANY_DOMAIN_ID,
         'default_project_id': _ID,
         'password': {'type': ['string', 'null'], 'maxLength': 4096,
                      'errorMessage': _invalid('the password must be text')}}
USER_CREATE = _resource('user', _USER, ['name'])
USER_UPDATE = _resource('user', _USER)
PASSWORD_CHANGE = _resource('user', {
    'original_password': {'type': 'string'},
    'password': {'type': 'string', 'minLength': 1,
                 'errorMessage': _invalid('the new password must be text')}},
    ['original_password', 'password'])

_GROUP = {'name': _text(1, 64, 'name'), 'description': _DESCRIPTION,
          'domain_id': _ANY_DOMAIN_ID}
GROUP_CREATE = _resource('group', _GROUP, ['name'])
GROUP_UPDATE = _resource('group', _GROUP)

_ROLE = {'name': _text(1, 255, 'name'), 'description': _DESCRIPTION,
         'domain_id': _ANY_DOMAIN_ID}
ROLE_CREATE = _resource('role', _ROLE, ['name'])
ROLE_UPDATE = _resource('role', _ROLE)

_REGION = {'id': _text(1, 255, 'id'), 'description': _DESCRIPTION,
           'parent_region_id': _ID}
REGION_CREATE = _resource('region', _REGION)
REGION_UPDATE = _resource('region', dict(_REGION, id={'not': {}, 'errorMessage':
                                                      _invalid('id is immutable')}))

_service_fields = {'type': _text(1, 255, 'type'), 'name': _optional(_text(0, 255, 'name')),
            'description': _DESCRIPTION, 'enabled': _ENABLED}
SERVICE_CREATE = _resource('service', _service_fields, ['type'])
SERVICE_UPDATE = _resource('service', _service_fields)

_ENDPOINT = {'service_id': _text(1, 64, 'service_id'), 'url': _text(1, 2048, 'url'),
             'interface': {'enum': ['public', 'internal', 'admin'],
                           'errorMessage': _invalid('interface is public, internal '
                                                    'or admin')},
             'region_id': _ID, 'region': _ID, 'enabled': _ENABLED}
ENDPOINT_CREATE = _resource('endpoint', _ENDPOINT, ['service_id', 'interface', 'url'])
ENDPOINT_UPDATE = _resource('endpoint', _ENDPOINT)

_credential_fields = {'user_id': _text(1, 64, 'user_id'), 'project_id': _ID,
               'type': _text(1, 255, 'type'), 'blob': _text(1, 65535, 'blob')}
CREDENTIAL_CREATE = _resource('credential', _credential_fields, ['user_id', 'type', 'blob'])
CREDENTIAL_UPDATE = _resource('credential', _credential_fields)

_policy_fields = {'type': _text(1, 255, 'type'), 'blob': _text(1, 65535, 'blob')}
POLICY_CREATE = _resource('policy', _policy_fields, ['type', 'blob'])
POLICY_UPDATE = _resource('policy', _policy_fields)

_ROLE_REF = {'type': 'object', 'properties': {'id': {'type': 'string'},
                                              'name': {'type': 'string'}},
             'anyOf': [{'required': ['id']}, {'required': ['name']}],
             'errorMessage': _invalid('a role is {"id": ...} or {"name": ...}')}
# Keystone's: a name is required; expires_at is ISO 8601 (checked by the handler).
APPLICATION_CREDENTIAL_CREATE = validation.wrapped('application_credential', {
    'type': 'object', 'required': ['name'],
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'errorMessage': _invalid('name must be text of 1 to 255 characters')},
        'description': {'type': ['string', 'null'], 'maxLength': 255,
                        'errorMessage': _invalid('description must be text of at '
                                                 'most 255 characters')},
        'secret': {'type': ['string', 'null'], 'minLength': 1,
                   'errorMessage': _invalid('secret must be non-empty text')},
        'expires_at': {'type': ['string', 'null'],
                       'errorMessage': _invalid('expires_at must be an ISO 8601 time')},
        'roles': {'type': 'array', 'items': _ROLE_REF},
        'unrestricted': {'type': ['boolean', 'null'],
                         'errorMessage': _invalid('unrestricted must be true or false')},
        'access_rules': {'type': 'array', 'maxItems': 0,
                         'errorMessage': _invalid('access rules are not supported here')}},
    'errorMessage': {'required': _invalid('an application credential needs a name')}})

_FILTERS = {'type': 'object', 'errorMessage': _invalid('filters is an object of '
                                                       'endpoint attributes')}
ENDPOINT_GROUP_CREATE = _resource('endpoint_group', {
    'name': _text(1, 255, 'name'), 'description': _DESCRIPTION, 'filters': _FILTERS},
    ['name', 'filters'])
ENDPOINT_GROUP_UPDATE = _resource('endpoint_group', {
    'name': _text(1, 255, 'name'), 'description': _DESCRIPTION, 'filters': _FILTERS})
CONSUMER = _resource('consumer', {'description': _DESCRIPTION})
EC2_CREATE = {'type': 'object', 'required': ['tenant_id'],
              'properties': {'tenant_id': {'type': 'string'}},
              'errorMessage': {'required': _invalid('an EC2 credential needs the '
                                                    'tenant_id of its project')}}
DOMAIN_CONFIG = {'type': 'object', 'required': ['config'],
                 'properties': {'config': {'type': 'object'}},
                 'errorMessage': {'required': _invalid('the body is {"config": {...}}')}}
