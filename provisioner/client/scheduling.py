"""Quotas and server groups over provisioner-api.

Quotas use provisioner's extension (``/provisioner/quotas/{project}``): its
resources (instances, vcpus, ram_mib, volumes_gib) are provisioner's, one row
each with limit and usage, as ``quota show`` prints them all-in-one. Server
groups are Nova's ``os-server-groups``, shown as the all-in-one CLI shows them
(one policy, members by name).
"""

from provisioner.client.http import quote
from provisioner.client.http import unwrap
from provisioner import exception

COMPUTE = 'compute'
KIND = 'Server group'


class RestQuotas:
    def __init__(self, session):
        self._session = session

    def _path(self, project):
        return '/provisioner/quotas/%s' % quote(project or self._session.project_id)

    def show(self, project=None):
        return unwrap(self._session.get(COMPUTE, self._path(project)))

    def set_limits(self, project=None, **limits):
        changes = {k: v for k, v in limits.items() if v is not None}
        return unwrap(self._session.put(COMPUTE, self._path(project),
                                        {'quota': changes}))


class RestServerGroups:
    def __init__(self, session):
        self._session = session

    def _describe(self, group, names=None):
        """Nova's server group as the all-in-one CLI shows it."""
        members = group.get('members') or []
        if members:
            if names is None:
                names = self._instance_names()
            members = sorted(names.get(m, m) for m in members)
        policies = group.get('policies') or [group.get('policy')]
        # Nova shows project_id from 2.13; the groups listed are the caller's.
        return {'id': group['id'], 'name': group['name'], 'policy': policies[0],
                'project_id': group.get('project_id') or self._session.project_id,
                'members': members}

    def _instance_names(self):
        instances = self._session.get(COMPUTE, '/provisioner/instances')['instances']
        return {i['id']: i['name'] for i in instances}

    def _all(self):
        return self._session.get(COMPUTE, '/os-server-groups')['server_groups']

    def find(self, name_or_id):
        """The group named (or with the id) ``name_or_id``, in Nova's shape."""
        for group in self._all():
            if name_or_id in (group['id'], group['name']):
                return group
        raise exception.NotFound(kind=KIND, name=name_or_id)

    def create(self, name, group_policy):
        group = unwrap(self._session.post(COMPUTE, '/os-server-groups', {
            'server_group': {'name': name, 'policies': [group_policy]}}))
        return self._describe(group, {})

    def list_all(self):
        groups = sorted(self._all(), key=lambda g: g['name'])
        names = self._instance_names() if any(g.get('members') for g in groups) \
            else {}
        return [self._describe(group, names) for group in groups]

    def show(self, name_or_id):
        return self._describe(self.find(name_or_id))

    def delete(self, name_or_id):
        group = self.find(name_or_id)
        self._session.delete(COMPUTE, '/os-server-groups/%s' % quote(group['id']))
