"""The compute API's versions: its microversions and the version documents.

Microversions as Nova negotiates them (provisioner.api.microversions): none
asked for means 2.1. Only versions whose every change to what provisioner serves
is implemented are advertised; a microversion's request schema is in
``schemas/<resource>.py`` and its response shape in ``views/<resource>.py``:

    2.1 - the base API
    2.2 - key pairs have a ``type`` (ssh or x509)
    2.3 - admins see the extended server attributes (OS-EXT-SRV-ATTR:hostname,
          kernel_id, ramdisk_id, launch_index, reservation_id, root_device_name,
          user_data); volumes_attached carries delete_on_termination
    2.4 - os-fixed-ips gains "reserved" (provisioner serves no os-fixed-ips)
    2.5 - non-admins may filter server lists by ip6
    2.9 - servers show ``locked`` (detail, show, update, rebuild)
    2.16 - admins see the server's ``host_status`` (UP, DOWN, MAINTENANCE, "")
    2.19 - servers have a ``description``: set at create and update, shown
    2.26 - server tags: /servers/{id}/tags, ``tags`` in the server views, and the
           tags, tags-any, not-tags, not-tags-any list filters
    2.32 - device tags on create's networks and block_device_mapping_v2 (kept);
           2.33 - 2.36 only on networks, 2.37 - 2.41 on neither (Nova's bug)
    2.37 - create needs ``networks``: a list, "auto" (the project's one network)
           or "none" (no port); network and port ids in the form of a uuid
    2.38 - an unknown status filter is a 400
    2.42 - device tags on networks and block devices again
    2.44 - addFixedIp, removeFixedIp, addFloatingIp, removeFloatingIp are gone (404)
    2.47 - the server views embed the flavor (original_name, vcpus, ram, disk,
           ephemeral, swap, extra_specs) instead of its id and link
    2.52 - ``tags`` at create
    2.57 - no ``personality`` at create
    2.63 - ``trusted_image_certificates`` at create, shown (null when none)
    2.66 - the ``changes-before`` list filter
    2.67 - ``volume_type`` in block_device_mapping_v2
    2.71 - show and update list the server's ``server_groups``
    2.73 - lock takes a ``locked_reason``, shown; the ``locked`` list filter
    2.74 - admins may boot on a ``host`` / ``hypervisor_hostname`` (400 if unknown)
    2.75 - update answers the show view; unknown list query parameters are a 400
    2.83 - non-admins may filter lists by availability_zone, config_drive,
           key_name, created_at, launched_at, terminated_at, power_state,
           task_state, vm_state, progress and user_id
    2.90 - ``hostname`` at create and update; everyone sees
           OS-EXT-SRV-ATTR:hostname
"""

from provisioner.api import microversions
from provisioner.api import urls
from provisioner.api import wsgi

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 90)
UPDATED = '2013-07-23T11:33:21Z'
LEGACY_UPDATED = '2011-01-21T11:33:21Z'
MICROVERSIONS = microversions.Microversions(
    'compute', MIN_VERSION, MAX_VERSION, legacy_header='X-OpenStack-Nova-API-Version')


def version_document(req):
    return {'id': 'v2.1', 'status': 'CURRENT',
            'version': microversions.version_str(MAX_VERSION),
            'min_version': microversions.version_str(MIN_VERSION), 'updated': UPDATED,
            'links': [{'rel': 'self',
                       'href': '%s/compute/v2.1/' % urls.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.compute+json;'
                                     'version=2.1'}]}


def legacy_version_document(req):
    """v2.0, as Nova lists it: the 2.1 API without microversions (SUPPORTED)."""
    return {'id': 'v2.0', 'status': 'SUPPORTED', 'version': '', 'min_version': '',
            'updated': LEGACY_UPDATED,
            'links': [{'rel': 'self',
                       'href': '%s/compute/v2/' % urls.public_base_url(req)}]}


@wsgi.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [legacy_version_document(req),
                                            version_document(req)]})


@wsgi.route('GET', '/v2.1', public=True)
def version(req):
    return wsgi.json_response({'version': version_document(req)})
