"""Rules for the volume service's volumes and their attachments to servers."""

from oslo_policy import policy

from provisioner.policies import base

_VOLUMES = '/volume/v3/{project_id}/volumes'
_SNAPSHOTS = '/volume/v3/{project_id}/snapshots'
_ATTACHMENTS = '/compute/v2.1/servers/{server_id}/os-volume_attachments'

_TYPES = '/volume/v3/{project_id}/types'
_ADMIN = ('volume:reset_status', 'volume:manage_types', 'volume:admin',
          'volume:force_delete')

_rules = [
    policy.DocumentedRuleDefault(
        name, base.ADMIN if name in _ADMIN else base.PROJECT_MEMBER,
        description, [{'path': path, 'method': method}])
    for name, description, method, path in (
        ('volume:create', 'Create a volume in one\'s project.', 'POST', _VOLUMES),
        ('volume:update', 'Rename a volume or change its description.', 'PUT',
         _VOLUMES + '/{volume_id}'),
        ('volume:extend', 'Grow a detached volume (os-extend).', 'POST',
         _VOLUMES + '/{volume_id}/action'),
        ('volume:delete', 'Delete a volume that is not attached.', 'DELETE',
         _VOLUMES + '/{volume_id}'),
        ('volume:update_metadata', 'Set, replace or delete a volume\'s metadata.',
         'PUT', _VOLUMES + '/{volume_id}/metadata'),
        ('volume:update_image_metadata', 'Set or delete a volume\'s image metadata '
         '(os-set_image_metadata, os-unset_image_metadata).', 'POST',
         _VOLUMES + '/{volume_id}/action'),
        ('volume:set_bootable', 'Mark a volume bootable or not (os-set_bootable).',
         'POST', _VOLUMES + '/{volume_id}/action'),
        ('volume:update_readonly_flag', 'Set a volume\'s read-only flag '
         '(os-update_readonly_flag).', 'POST', _VOLUMES + '/{volume_id}/action'),
        ('volume:reserve', 'Hold an available volume for an attachment, or release '
         'it (os-reserve, os-unreserve).', 'POST', _VOLUMES + '/{volume_id}/action'),
        ('volume:reset_status', 'Reset a volume\'s status (os-reset_status).', 'POST',
         _VOLUMES + '/{volume_id}/action'),
        ('volume:force_delete', 'Delete a volume or snapshot whatever its status '
         '(os-force_delete), detach a volume from whatever it is attached to '
         '(os-force_detach).', 'POST', _VOLUMES + '/{volume_id}/action'),
        ('volume:manage_types', 'Create, change and delete volume types, their '
         'extra specs, access lists and encryption.', 'POST', _TYPES),
        ('volume:admin', 'Read the volume service\'s services, hosts, pools and '
         'backends, quota classes; reset or set a snapshot\'s status.', 'GET',
         '/volume/v3/{project_id}/os-services'),
        ('volume:transfer', 'Offer a volume of one\'s project to another project, '
         'accept a transfer.', 'POST', '/volume/v3/{project_id}/os-volume-transfer'),
        ('volume:create_snapshot', 'Snapshot a volume of one\'s project.', 'POST',
         _SNAPSHOTS),
        ('volume:update_snapshot', 'Rename a snapshot, change its description or '
         'its metadata.', 'PUT', _SNAPSHOTS + '/{snapshot_id}'),
        ('volume:delete_snapshot', 'Delete a snapshot.', 'DELETE',
         _SNAPSHOTS + '/{snapshot_id}'),
        ('volume:attach', 'Attach a volume to a server.', 'POST', _ATTACHMENTS),
        ('volume:detach', 'Detach a volume from a server.', 'DELETE',
         _ATTACHMENTS + '/{volume_id}'),
    )
]


def list_rules():
    return _rules
