"""Cinder's extensions (GET /v3/{project_id}/extensions): those provisioner has.

Cinder lists the API extensions it loaded; these are the ones whose resources,
attributes or actions provisioner serves (Cinder's own names, aliases and dates).
"""

from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi

# (alias, name, updated, description), as Cinder describes each.
EXTENSIONS = (
    ('os-vol-tenant-attr', 'VolumeTenantAttribute', '2011-11-03T00:00:00+00:00',
     'Expose the internal project_id as an attribute of a volume.'),
    ('os-vol-host-attr', 'VolumeHostAttribute', '2011-11-03T00:00:00+00:00',
     'Expose host as an attribute of a volume.'),
    ('os-vol-image-meta', 'VolumeImageMetadata', '2012-12-07T00:00:00+00:00',
     'Show image metadata associated with the volume.'),
    ('os-volume-actions', 'VolumeActions', '2012-05-31T00:00:00+00:00',
     'Enable volume actions.'),
    ('os-admin-actions', 'AdminActions', '2012-08-25T00:00:00+00:00',
     'Enable admin actions.'),
    ('os-quota-sets', 'Quotas', '2011-08-08T00:00:00+00:00',
     'Quota management support.'),
    ('os-availability-zone', 'AvailabilityZones', '2013-06-27T00:00:00+00:00',
     'Describe Availability Zones.'),
    ('os-extended-snapshot-attributes', 'ExtendedSnapshotAttributes',
     '2012-06-19T00:00:00+00:00', 'Extended SnapshotAttributes support.'),
    ('os-used-limits', 'UsedLimits', '2013-10-03T00:00:00+00:00',
     'Provide data on limited resources that are being used.'),
)


@wsgi.route('GET', '/v3/{project_id}/extensions')
def list_extensions(req, project_id):
    check_url_project(req, project_id)
    return wsgi.json_response({'extensions': [
        {'alias': alias, 'name': name, 'updated': updated, 'description': description,
         'links': []} for alias, name, updated, description in EXTENSIONS]})
