"""The volume API's versions: microversion 3.0 only, and the version documents."""

from provisioner.api import microversions
from provisioner.api.volume import views
from provisioner.api import wsgi

MICROVERSIONS = microversions.Microversions('volume', (3, 0), (3, 0))


@wsgi.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [views.version_document(req)]}, 300)


@wsgi.route('GET', '/v3', public=True)
@wsgi.route('GET', '/v3/', public=True)
def version(req):
    return wsgi.json_response({'versions': [views.version_document(req)]})

