"""The image API's versions (Glance v2.0 - v2.15), served without a token."""

from provisioner.api import urls
from provisioner.api import wsgi

VERSIONS = ['2.%d' % minor for minor in range(15, -1, -1)]  # newest first


@wsgi.route('GET', '/', public=True)
def versions(req):
    base = urls.public_base_url(req)
    return wsgi.json_response({'versions': [
        {'id': 'v' + version, 'status': 'CURRENT' if index == 0 else 'SUPPORTED',
         'links': [{'rel': 'self', 'href': '%s/image/v2/' % base}]}
        for index, version in enumerate(VERSIONS)]}, 300)
