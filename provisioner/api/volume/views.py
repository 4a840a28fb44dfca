"""Cinder's shapes: the version document, volumes and their attachments, quotas, limits.

Cinder's faults are Nova's (wsgi.nova_fault).
"""

from provisioner.api import common
from provisioner.api import urls

VERSION = '3.0'
UPDATED = '2023-08-31T00:00:00Z'
# Cinder's quota keys; provisioner enforces gigabytes only (its volumes_gib).
UNSUPPORTED_ZERO = ('backups', 'backup_gigabytes', 'groups')


def version_document(req):
    return {'id': 'v3.0', 'status': 'CURRENT', 'version': VERSION,
            'min_version': VERSION, 'updated': UPDATED,
            'links': [{'rel': 'describedby', 'type': 'text/html',
                       'href': 'https://docs.openstack.org/'},
                      {'rel': 'self',
                       'href': '%s/volume/v3/' % urls.public_base_url(req)}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.volume+json;version=3'}]}


def _time(moment):
    # Cinder's timestamps: 2026-11-23T14:42:38.469947 (UTC, no zone suffix)
    return common.isotime_us(moment)[:-1] if moment is not None else None


def _device(volume):
    """The guest's device: after the root disk (vda) for a boot's volume; the one
    recorded at attachment for a volume of the volume service."""
    if not volume['from_boot']:
        return volume['device']
    index = volume['index'] + (1 if volume['root_disk'] else 0)
    letters = ''
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord('a') + rem) + letters
    return '/dev/vd' + letters


def _links(req, volume):
    return urls.links(req, 'v3', req.context.project_id, 'volumes', volume['id'])


def summary(req, volume):
    return {'id': volume['id'], 'name': volume['name'], 'links': _links(req, volume)}


def _attachments(volume):
    if volume['instance_id'] is None or volume['status'] not in ('in-use', 'detaching'):
        return []
    return [{'id': volume['id'], 'attachment_id': volume['id'],
             'volume_id': volume['id'], 'server_id': volume['instance_id'],
             'host_name': volume['host'], 'device': _device(volume),
             'attached_at': _time(volume['attached_at'])}]


def _host(volume):
    """Cinder's ``host@backend#pool``: a volume's file on its host (null before its
    first attachment gives it one)."""
    return volume['host'] and backend_of(volume['host'])


def backend_of(host):
    """Cinder's name of a host's volume backend and pool."""
    return '%s@file#volumes' % host


def metadata(volume):
    """The user's metadata, with Cinder's visible admin metadata (``readonly``)."""
    found = dict(volume['metadata'])
    if volume['readonly'] is not None:
        found['readonly'] = str(volume['readonly'])
    return found


def detail(req, volume, extended=True):
    """Cinder's volume; ``extended``: as show and list show it (the os-vol-*
    attributes and the image's metadata), not as create and update answer it."""
    created = _time(volume['created_at'])
    body = {
        'id': volume['id'], 'name': volume['name'], 'status': volume['status'],
        'size': volume['size_gib'],
        'availability_zone': volume['availability_zone'] or 'nova',
        'created_at': created, 'updated_at': _time(volume['updated_at']) or created,
        'attachments': _attachments(volume),
        'bootable': 'true' if volume['bootable'] else 'false',
        'volume_type': volume.get('volume_type'),
        'metadata': metadata(volume), 'description': volume['description'],
        'encrypted': False, 'multiattach': False, 'replication_status': None,
        'snapshot_id': volume.get('snapshot_id'),
        'source_volid': volume.get('source_volid'), 'consistencygroup_id': None,
        'user_id': volume['user_id'], 'links': _links(req, volume),
    }
    if not extended:
        return body
    # os-vol-tenant-attr: project readers and admins, i.e. whoever sees the volume.
    body['os-vol-tenant-attr:tenant_id'] = volume['project_id']
    if volume['image_metadata'] is not None:
        body['volume_image_metadata'] = volume['image_metadata']
    if req.context.is_admin:  # Cinder's admin attributes; volumes never migrate here
        body.update({'os-vol-host-attr:host': _host(volume), 'migration_status': None,
                     'os-vol-mig-status-attr:migstat': None,
                     'os-vol-mig-status-attr:name_id': None})
    return body


def usage(gigabytes, volumes, snapshots=0, own=None):
    """{cinder key: (limit, in_use)} from the gigabytes quota row, the counts of
    volumes and snapshots and the project's other limits (``own``: {key: limit})."""
    own = own or {}
    found = {'gigabytes': (gigabytes['limit'], gigabytes['in_use']),
             'volumes': (own.get('volumes', -1), volumes),
             'snapshots': (own.get('snapshots', -1), snapshots),
             'per_volume_gigabytes': (own.get('per_volume_gigabytes', -1), 0)}
    found.update({key: (own.get(key, 0), 0) for key in UNSUPPORTED_ZERO})
    return found


def quota_set(project_id, usage, with_usage, with_id=True):
    found = {key: ({'limit': limit, 'in_use': in_use, 'reserved': 0, 'allocated': 0}
                   if with_usage else limit)
             for key, (limit, in_use) in usage.items()}
    if with_id:
        found['id'] = project_id
    return {'quota_set': found}


def defaults(project_id, gigabytes, own=None):
    found = {key: (limit if isinstance(limit, int) else limit[0])
             for key, limit in usage({'limit': gigabytes, 'in_use': 0}, 0, 0,
                                     own).items()}
    found['id'] = project_id
    return {'quota_set': found}


def absolute_limits(usage):
    return {'limits': {'rate': [], 'absolute': {
        'maxTotalVolumes': usage['volumes'][0], 'totalVolumesUsed': usage['volumes'][1],
        'maxTotalVolumeGigabytes': usage['gigabytes'][0],
        'totalGigabytesUsed': usage['gigabytes'][1],
        'maxTotalSnapshots': usage['snapshots'][0],
        'totalSnapshotsUsed': usage['snapshots'][1],
        'maxTotalBackups': 0, 'totalBackupsUsed': 0,
        'maxTotalBackupGigabytes': 0, 'totalBackupGigabytesUsed': 0}}}


def snapshot(req, snap):
    """Cinder's snapshot as create, update and the plain list answer it."""
    created = _time(snap['created_at'])
    return {'id': snap['id'], 'created_at': created,
            'updated_at': _time(snap['updated_at']) or created,
            'name': snap['name'], 'description': snap['description'],
            'volume_id': snap['volume_id'], 'status': snap['status'],
            'size': snap['size_gib'], 'metadata': dict(snap['metadata'])}


def snapshot_detail(req, snap):
    """As show and the detailed list answer it (os-extended-snapshot-attributes)."""
    body = snapshot(req, snap)
    body['os-extended-snapshot-attributes:progress'] = snap.get('progress') or (
        '100%' if snap['status'] == 'available' else '0%')
    body['os-extended-snapshot-attributes:project_id'] = snap['project_id']
    return body


def availability_zones(hosts):
    """The zones of the enabled hosts (a volume lives on its instance's host)."""
    zones = sorted({h['availability_zone'] for h in hosts if h['enabled']}) or ['nova']
    return {'availabilityZoneInfo': [{'zoneName': zone, 'zoneState': {'available': True}}
                                     for zone in zones]}
