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
                                                 'properties': _NAMED}}}}}}}


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

PROJECT_CREATE = validation.wrapped('project', {
    'type': 'object', 'required': ['name'],
    'properties': {
        'domain_id': _ANY_DOMAIN_ID,
        'enabled': {'not': {'const': False},
                    'errorMessage': _invalid('provisioner projects are always enabled')},
        'is_domain': {'enum': _FALSY,
                      'errorMessage': _invalid('provisioner has one domain; a project '
                                               'cannot be a domain')},
        'parent_id': {'enum': [None, views.DOMAIN_ID],
                      'errorMessage': _invalid('provisioner projects are not nested')},
        'name': {'type': 'string', 'errorMessage': _invalid('a project needs a name')}},
    'errorMessage': {'required': _invalid('a project needs a name')}})

_NEEDS_PASSWORD = _invalid('a provisioner user needs a password (openstack user '
                           'create --password ...)')
USER_CREATE = validation.wrapped('user', {
    'type': 'object',
    'properties': {
        'domain_id': _ANY_DOMAIN_ID,
        'name': {'type': 'string', 'errorMessage': _invalid('a user needs a name')},
        'password': {'type': 'string', 'errorMessage': _NEEDS_PASSWORD}},
    'allOf': [{'required': ['name'], 'errorMessage': _invalid('a user needs a name')},
              {'required': ['password'], 'errorMessage': _NEEDS_PASSWORD}]})

# What "openstack user set" sends: a password, enabled; the name only unchanged.
USER_UPDATE = validation.wrapped('user', {
    'type': 'object',
    'properties': {
        'domain_id': _DOMAIN_ID,
        'password': {'type': 'string',
                     'errorMessage': _invalid('the password must be a string')}}})

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
