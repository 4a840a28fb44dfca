"""Fixtures of the REST API tests: the WSGI application, a client, tokens per role.

Requests go through webob's ``Request.blank(...).get_response(app)``: the whole
application (routing, token check, error bodies) without a socket.
"""

import json

import pytest
import webob

from provisioner.api import app as api_app
from provisioner.dashboard import service as dashboard
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity

ADMIN_PASSWORD = 'admin-secret'  # tests/unit/conftest.py's admin_context bootstrap


class Client:
    """Sends JSON requests to a WSGI application, with a token if given one."""

    def __init__(self, app, token=None):
        self.app = app
        self.token = token

    def as_(self, token):
        """The same client, sending another token (None: no token)."""
        return Client(self.app, token)

    def request(self, method, path, body=None, headers=None, raw=None):
        req = webob.Request.blank(path, method=method)
        req.headers['Accept'] = 'application/json'
        if self.token is not None:
            req.headers['X-Auth-Token'] = self.token
        if body is not None or raw is not None:
            req.body = raw if raw is not None else json.dumps(body).encode()
            req.content_type = 'application/json'
        for name, value in (headers or {}).items():
            req.headers[name] = value
        return req.get_response(self.app)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def head(self, path, **kwargs):
        return self.request('HEAD', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request('PATCH', path, body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)


@pytest.fixture
def app(deployment):
    """The whole provisioner-api application (every service mounted)."""
    return api_app.build_app(deployment, {'/dashboard': dashboard.SERVICE})


@pytest.fixture
def client(app):
    """A client without a token (discovery, authentication, 401s)."""
    return Client(app)


@pytest.fixture
def admin_token(admin_context):
    """A token of the bootstrapped admin, scoped to project admin."""
    return identity.authenticate('admin', ADMIN_PASSWORD, 'admin')


@pytest.fixture
def admin_client(app, admin_token):
    return Client(app, admin_token)


@pytest.fixture
def make_token(admin_context):
    """make_token(user, role='member', project='demo'): a token of a new user with
    ``role`` in ``project`` (created when missing)."""

    def make(user, role='member', project='demo'):
        try:
            admin.create_project(admin_context, project)
        except exception.Conflict:
            pass
        password = 'pw-%s-123456' % user
        try:
            admin.create_user(admin_context, user, password)
        except exception.Conflict:
            pass
        admin.add_role(admin_context, user, project, role)
        return identity.authenticate(user, password, project)

    return make


@pytest.fixture
def member_client(app, make_token):
    """A member of project demo."""
    return Client(app, make_token('demo-member', 'member', 'demo'))


@pytest.fixture
def test_hypervisor(conf):
    """All-in-one listings report this host's capacity: libvirt's test driver's."""
    conf.set_override('connection_uri', 'test:///default', 'libvirt')
