"""Keystone's v3 extensions provisioner serves: endpoint groups (OS-EP-FILTER),
OAuth 1 consumers (OS-OAUTH1), EC2 credentials (OS-EC2), and a domain's
configuration (provisioner.identity.extras and .credentials check the policy)."""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.identity import credentials
from provisioner.identity import extras

_GROUPS = '/v3/OS-EP-FILTER/endpoint_groups'
_CONSUMERS = '/v3/OS-OAUTH1/consumers'


def _group_view(req, group):
    return dict(views.ref(req, group, 'OS-EP-FILTER/endpoint_groups',
                          ('id', 'name', 'description', 'filters'), description=''))


def _group(req, group, status=200):
    return wsgi.json_response({'endpoint_group': _group_view(req, group)}, status)


@wsgi.route('GET', _GROUPS)
def list_endpoint_groups(req):
    found = extras.list_endpoint_groups(req.context, views.filters(req, 'name'))
    return views.collection(req, 'endpoint_groups',
                            [_group_view(req, g) for g in found],
                            'OS-EP-FILTER', 'endpoint_groups')


@wsgi.route('POST', _GROUPS)
@validation.schema(schemas.ENDPOINT_GROUP_CREATE)
def create_endpoint_group(req, body):
    body = body['endpoint_group']
    return _group(req, extras.create_endpoint_group(
        req.context, body['name'], body['filters'], body.get('description')), 201)


@wsgi.route('GET', _GROUPS + '/{group_id}')
def show_endpoint_group(req, group_id):
    """GET: the group; HEAD: 200 if it exists."""
    return _group(req, extras.show_endpoint_group(req.context, group_id))


@wsgi.route('PATCH', _GROUPS + '/{group_id}')
@validation.schema(schemas.ENDPOINT_GROUP_UPDATE)
def update_endpoint_group(req, group_id, body):
    return _group(req, extras.update_endpoint_group(req.context, group_id,
                                                    body['endpoint_group']))


@wsgi.route('DELETE', _GROUPS + '/{group_id}')
def delete_endpoint_group(req, group_id):
    extras.delete_endpoint_group(req.context, group_id)
    return wsgi.empty_response(204)


# -- OAuth 1 consumers ------------------------------------------------------------------

def _consumer_view(req, consumer):
    found = views.ref(req, consumer, 'OS-OAUTH1/consumers', ('id', 'description'))
    if 'secret' in consumer:  # a create's answer only
        found['secret'] = consumer['secret']
    return found


def _consumer(req, consumer, status=200):
    return wsgi.json_response({'consumer': _consumer_view(req, consumer)}, status)


@wsgi.route('GET', _CONSUMERS)
def list_consumers(req):
    found = extras.list_consumers(req.context, {})
    return views.collection(req, 'consumers', [_consumer_view(req, c) for c in found],
                            'OS-OAUTH1', 'consumers')


@wsgi.route('POST', _CONSUMERS)
@validation.schema(schemas.CONSUMER)
def create_consumer(req, body):
    return _consumer(req, extras.create_consumer(
        req.context, body['consumer'].get('description')), 201)


@wsgi.route('GET', _CONSUMERS + '/{consumer_id}')
def show_consumer(req, consumer_id):
    return _consumer(req, extras.show_consumer(req.context, consumer_id))


@wsgi.route('PATCH', _CONSUMERS + '/{consumer_id}')
@validation.schema(schemas.CONSUMER)
def update_consumer(req, consumer_id, body):
    return _consumer(req, extras.update_consumer(req.context, consumer_id,
                                                 body['consumer']))


@wsgi.route('DELETE', _CONSUMERS + '/{consumer_id}')
def delete_consumer(req, consumer_id):
    extras.delete_consumer(req.context, consumer_id)
    return wsgi.empty_response(204)


# -- EC2 credentials --------------------------------------------------------------------

def _ec2_view(req, credential):
    return dict(credential, links={'self': views.url(
        req, 'users', credential['user_id'], 'credentials', 'OS-EC2',
        credential['access'])})


@wsgi.route('GET', '/v3/users/{user_id}/credentials/OS-EC2')
def list_ec2(req, user_id):
    found = credentials.list_ec2(req.context, user_id)
    return views.collection(req, 'credentials', [_ec2_view(req, c) for c in found],
                            'users', user_id, 'credentials', 'OS-EC2')


@wsgi.route('POST', '/v3/users/{user_id}/credentials/OS-EC2')
@validation.schema(schemas.EC2_CREATE)
def create_ec2(req, user_id, body):
    made = credentials.create_ec2(req.context, user_id, body['tenant_id'])
    return wsgi.json_response({'credential': _ec2_view(req, made)}, 201)


@wsgi.route('GET', '/v3/users/{user_id}/credentials/OS-EC2/{access}')
def show_ec2(req, user_id, access):
    return wsgi.json_response({'credential': _ec2_view(
        req, credentials.show_ec2(req.context, user_id, access))})


@wsgi.route('DELETE', '/v3/users/{user_id}/credentials/OS-EC2/{access}')
def delete_ec2(req, user_id, access):
    credentials.delete_ec2(req.context, user_id, access)
    return wsgi.empty_response(204)


# -- a domain's configuration -----------------------------------------------------------

def _config(body, status=200):
    return wsgi.json_response({'config': body}, status)


@wsgi.route('GET', '/v3/domains/config/default')
def default_config(req):
    return _config(extras.default_config())


@wsgi.route('GET', '/v3/domains/config/{group}/default')
def default_group_config(req, group):
    return _config(extras.default_config(group))


@wsgi.route('GET', '/v3/domains/config/{group}/{option}/default')
def default_option(req, group, option):
    return _config(extras.default_config(group, option))


@wsgi.route('PUT', '/v3/domains/{domain_id}/config')
@validation.schema(schemas.DOMAIN_CONFIG)
def create_config(req, domain_id, body):
    config, new = extras.create_config(req.context, domain_id, body['config'])
    return _config(config, 201 if new else 200)


@wsgi.route('GET', '/v3/domains/{domain_id}/config')
@wsgi.route('GET', '/v3/domains/{domain_id}/config/{group}')
@wsgi.route('GET', '/v3/domains/{domain_id}/config/{group}/{option}')
def show_config(req, domain_id, group=None, option=None):
    return _config(extras.show_config(req.context, domain_id, group, option))


@wsgi.route('PATCH', '/v3/domains/{domain_id}/config')
@wsgi.route('PATCH', '/v3/domains/{domain_id}/config/{group}')
@wsgi.route('PATCH', '/v3/domains/{domain_id}/config/{group}/{option}')
@validation.schema(schemas.DOMAIN_CONFIG)
def update_config(req, domain_id, body, group=None, option=None):
    return _config(extras.update_config(req.context, domain_id, body['config'], group,
                                        option))


@wsgi.route('DELETE', '/v3/domains/{domain_id}/config')
@wsgi.route('DELETE', '/v3/domains/{domain_id}/config/{group}')
@wsgi.route('DELETE', '/v3/domains/{domain_id}/config/{group}/{option}')
def delete_config(req, domain_id, group=None, option=None):
    extras.delete_config(req.context, domain_id, group, option)
    return wsgi.empty_response(204)
