"""The identity API's version documents (Keystone v3.14), served without a token."""

from provisioner.api.identity import views
from provisioner.api import wsgi


@wsgi.route('GET', '/', public=True)
def versions(req):
    document = views.version_document(req)
    return wsgi.json_response({'versions': {'values': [document]}}, 300,
                              {'Location': document['links'][0]['href']})


@wsgi.route('GET', '/v3', public=True)
def version(req):
    return wsgi.json_response({'version': views.version_document(req)})
