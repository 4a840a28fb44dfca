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
    2.6 - POST /servers/{id}/remote-consoles (no console type is enabled: 400)
    2.7 - adding a project's access to a public flavor is a 409
    2.8 - remote consoles may ask for mks/webmks (libvirt has none: 501)
    2.9 - servers show ``locked`` (detail, show, update, rebuild)
    2.10 - admins create, list, show and delete other users' key pairs (user_id)
    2.11 - os-services shows forced_down; PUT os-services/force-down sets it
    2.13 - server groups show project_id and user_id
    2.15 - server group policies soft-affinity and soft-anti-affinity
    2.16 - admins see the server's ``host_status`` (UP, DOWN, MAINTENANCE, "")
    2.19 - servers have a ``description``: set at create and update, shown
    2.21 - the instance actions of a deleted server are shown
    2.23 - GET /servers/{id}/migrations[/{id}] (none: provisioner moves no server)
    2.26 - server tags: /servers/{id}/tags, ``tags`` in the server views, and the
           tags, tags-any, not-tags, not-tags-any list filters
    2.28 - a hypervisor's cpu_info is an object
    2.31 - os-console-auth-tokens looks up any token (none is ever issued: 404)
    2.32 - device tags on create's networks and block_device_mapping_v2 (kept);
           2.33 - 2.36 only on networks, 2.37 - 2.41 on neither (Nova's bug)
    2.33 - hypervisor lists page (limit, marker)
    2.35 - key pair lists page by name (limit, marker)
    2.36 - quota sets and limits drop the network quotas; the image proxy
           (/images), the volume proxies (os-volumes, os-snapshots) and the
           security group proxies (os-security-groups, os-security-group-rules)
           are gone (404)
    2.37 - create needs ``networks``: a list, "auto" (the project's one network)
           or "none" (no port); network and port ids in the form of a uuid
    2.38 - an unknown status filter is a 400
    2.39 - limits drop maxImageMeta
    2.42 - device tags on networks and block devices again
    2.43 - os-hosts is gone (404): os-hypervisors and os-services say the same
    2.44 - addFixedIp, removeFixedIp, addFloatingIp, removeFloatingIp are gone (404)
    2.47 - the server views embed the flavor (original_name, vcpus, ram, disk,
           ephemeral, swap, extra_specs) instead of its id and link
    2.49 - a volume attach takes a device tag
    2.51 - non-admins see an action's events (without traceback)
    2.52 - ``tags`` at create
    2.53 - hypervisors and services are identified by uuid; PUT os-services/{id};
           hypervisor_hostname_pattern and with_servers replace the hypervisors'
           /search and /servers
    2.55 - flavors have a description (create, PUT /flavors/{id}, every view)
    2.57 - no ``personality`` at create
    2.57 - quota sets and limits drop the file injection quotas
    2.58 - instance actions page (limit, marker, changes-since, changes-before)
           and show updated_at
    2.59 - os-migrations pages (limit, marker, changes-since, changes-before)
    2.61 - flavor details show extra_specs
    2.62 - instance action events show hostId (and host, to admins)
    2.63 - ``trusted_image_certificates`` at create, shown (null when none)
    2.64 - server groups take and show one policy and its rules
           (max_server_per_host) instead of policies and metadata
    2.66 - the ``changes-before`` list filter
    2.67 - ``volume_type`` in block_device_mapping_v2
    2.70 - volume attachments show their tag
    2.71 - show and update list the server's ``server_groups``
    2.73 - lock takes a ``locked_reason``, shown; the ``locked`` list filter
    2.74 - admins may boot on a ``host`` / ``hypervisor_hostname`` (400 if unknown)
    2.75 - a server update answers the show view; unknown query parameters are a
           400; flavors' swap is 0, not ""; a hypervisor asked with_servers
           shows servers even when it has none
    2.78 - GET /servers/{id}/topology (guests have no NUMA topology)
    2.79 - volume attachments take and show delete_on_termination
    2.80 - os-migrations filters by user_id and project_id
    2.83 - non-admins may filter lists by availability_zone, config_drive,
           key_name, created_at, launched_at, terminated_at, power_state,
           task_state, vm_state, progress and user_id
    2.84 - instance action events show details (admins)
    2.85 - PUT /servers/{id}/os-volume_attachments/{volume_id} restates an
           attachment (delete_on_termination)
    2.88 - hypervisors drop the usage fields and show uptime; /os-hypervisors/
           statistics and /{id}/uptime are 404
    2.89 - volume attachments show attachment_id and bdm_uuid instead of id
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


@wsgi.route('GET', '/v2', public=True)
def legacy_version(req):
    """The v2.0 version document its link in the list points at (Nova's)."""
    document = dict(legacy_version_document(req), **{'media-types': [
        {'base': 'application/json',
         'type': 'application/vnd.openstack.compute+json;version=2'}]})
    return wsgi.json_response({'version': document})
