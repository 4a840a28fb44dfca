"""The network API's version document, its resources and extensions (Neutron v2.0).

openstacksdk does no version discovery for the network service: it appends v2.0.
"""

from provisioner.api.network import views
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner import exception


@wsgi.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [
        {'id': 'v2.0', 'status': 'CURRENT',
         'links': [{'rel': 'self',
                    'href': '%s/network/v2.0/' % urls.public_base_url(req)}]}]})


@wsgi.route('GET', '/v2.0')
def resources(req):
    return wsgi.json_response({'resources': [
        {'name': name, 'collection': name + 's',
         'links': [{'rel': 'self', 'href': urls.service_url(req, 'v2.0', name + 's')}]}
        for name in ('network', 'subnet', 'port')]})


@wsgi.route('GET', '/v2.0/extensions')
def list_extensions(req):
    return wsgi.json_response({'extensions': [views.extension(*e)
                                              for e in views.EXTENSIONS]})


@wsgi.route('GET', '/v2.0/extensions/{alias}')
def show_extension(req, alias):
    for extension in views.EXTENSIONS:
        if extension[0] == alias:
            return wsgi.json_response({'extension': views.extension(*extension)})
    raise exception.NotFound(kind='Extension', name=alias)
