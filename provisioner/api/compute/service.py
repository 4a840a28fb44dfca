"""The compute service: its version documents, microversions and routes.

Microversions as Nova negotiates them: a request names one in
``OpenStack-API-Version: compute X.Y`` or ``X-OpenStack-Nova-API-Version: X.Y``
(``latest`` = the maximum); none means 2.1; one outside [MIN, MAX] is 406. The
response echoes the version it was served at. Only versions whose every change
to what provisioner serves is implemented are advertised:

    2.1 - the base API
    2.2 - key pairs have a ``type`` (ssh or x509)
    2.3 - admins see the extended server attributes (OS-EXT-SRV-ATTR:hostname,
          kernel_id, ramdisk_id, launch_index, reservation_id, root_device_name,
          user_data); volumes_attached carries delete_on_termination
    2.4 - os-fixed-ips gains "reserved" (provisioner serves no os-fixed-ips)
    2.5 - non-admins may filter server lists by ip6
"""

import re

from provisioner.api import app
from provisioner.api import wsgi

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 5)
_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')
UPDATED = '2013-07-23T11:33:21Z'


def version_str(version):
    return '%d.%d' % version


class ComputeService(wsgi.Service):
    def before(self, req):
        req.api_version = negotiate(req)

    def after(self, req, response):
        version = version_str(req.api_version or MIN_VERSION)
        response.headers['OpenStack-API-Version'] = 'compute %s' % version
        response.headers['X-OpenStack-Nova-API-Version'] = version
        response.headers['Vary'] = 'OpenStack-API-Version, X-OpenStack-Nova-API-Version'


def _requested(req):
    # Repeated headers reach WSGI joined by commas: "compute 2.3, volume 3.0".
    for part in req.headers.get('OpenStack-API-Version', '').split(','):
        service, _, value = part.strip().partition(' ')
        if service.lower() == 'compute' and value.strip():
            return value.strip()
    return req.headers.get('X-OpenStack-Nova-API-Version', '').strip() or None


def negotiate(req):
    """The microversion to serve this request at; 400/406 when it cannot be."""
    value = _requested(req)
    if value is None:
        return MIN_VERSION
    if value.lower() == 'latest':
        return MAX_VERSION
    match = _VERSION_RE.match(value)
    if match is None:
        raise wsgi.HTTPError(400, 'API Version String %s is of invalid format. Must '
                                  'be of format MajorNum.MinorNum.' % value)
    version = (int(match.group(1)), int(match.group(2)))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise wsgi.HTTPError(406, 'Version %s is not supported by the API. Minimum is '
                                  '%s and maximum is %s.'
                             % (value, version_str(MIN_VERSION),
                                version_str(MAX_VERSION)))
    return version


SERVICE = ComputeService('compute')


def version_document(req):
    return {'id': 'v2.1', 'status': 'CURRENT', 'version': version_str(MAX_VERSION),
            'min_version': version_str(MIN_VERSION), 'updated': UPDATED,
            'links': [{'rel': 'self',
                       'href': '%s/compute/v2.1/' % app.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.compute+json;'
                                     'version=2.1'}]}


@SERVICE.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [version_document(req)]})


@SERVICE.route('GET', '/v2.1', public=True)
def version(req):
    return wsgi.json_response({'version': version_document(req)})


def _register_resources():
    # Each module adds its routes under /v2.1 to SERVICE when imported.
    import importlib
    for module in RESOURCE_MODULES:
        importlib.import_module('provisioner.api.compute.' + module)


RESOURCE_MODULES = ('servers', 'server_actions', 'instance_actions', 'flavors',
                    'keypairs', 'server_groups', 'quotas', 'availability_zones',
                    'hypervisors', 'provisioner_ext', 'flows',
                    'volume_attachments')
_register_resources()
