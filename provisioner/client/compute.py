"""ComputeAPI's interface over provisioner-api (Nova's API plus its extension).

Boot is Nova's ``POST /servers``; delete ``DELETE /servers/{id}``; the console
``os-getConsoleOutput``; resume and rollback the documented server actions
``provisioner:resume`` and ``provisioner:rollback``. What the CLI shows comes from
provisioner's extension (``/provisioner/instances``), the same dicts ComputeAPI
returns all-in-one, so every command prints the same in both modes. Waiting for a
flow polls the instance and prints each step as its event appears.
"""

import base64

from provisioner.client import catalog
from provisioner.client import follow
from provisioner.client.http import quote
from provisioner.client import scheduling

COMPUTE = 'compute'
# While following a flow, a provisioner-api restarting (all-in-one: it resumes the
# flow when it is back) is waited for this long.
FOLLOW_RETRY_SECONDS = 120


class RestComputeAPI:
    """Instance operations of one authenticated Session."""

    def __init__(self, session):
        self._session = session

    def show(self, name_or_id, retry_for=None):
        return self._session.get(COMPUTE, '/provisioner/instances/%s'
                                 % quote(name_or_id), retry_for=retry_for)['instance']

    def _poll(self, instance_id):
        return self.show(instance_id, retry_for=FOLLOW_RETRY_SECONDS)

    def list(self, all_projects=False):
        params = {'all_projects': 1} if all_projects else None
        return self._session.get(COMPUTE, '/provisioner/instances',
                                 params)['instances']

    def console(self, name_or_id):
        """The console log's path on the host that runs the instance."""
        return self.show(name_or_id)['console_log']

    def console_output(self, name_or_id):
        server_id = self.show(name_or_id)['id']
        return self._session.post(COMPUTE, '/servers/%s/action' % quote(server_id),
                                  {'os-getConsoleOutput': {}})['output']

    def create_instance(self, name, flavor, image, networks, volume_sizes=(),
                        user_data=None, *, availability_zone=None, server_group=None,
                        properties=None):
        catalog_api = catalog.RestCatalogAPI(self._session)
        image_id = catalog_api.show('image', image)['id']
        server = {
            'name': name,
            'flavorRef': catalog_api.show('flavor', flavor)['id'],
            'imageRef': image_id,
            'networks': [{'uuid': catalog_api.show('network', n)['id']}
                         for n in networks],
            # As the openstack client sends it for --image, then one blank volume each.
            'block_device_mapping_v2': [
                {'uuid': image_id, 'boot_index': 0, 'source_type': 'image',
                 'destination_type': 'local', 'delete_on_termination': True}] + [
                {'source_type': 'blank', 'destination_type': 'volume',
                 'volume_size': size, 'boot_index': -1, 'delete_on_termination': True}
                for size in volume_sizes]}
        if user_data is not None:
            server['user_data'] = base64.b64encode(user_data).decode('ascii')
        if availability_zone is not None:
            server['availability_zone'] = availability_zone
        if properties:
            server['metadata'] = properties
        body = {'server': server}
        if server_group is not None:
            group = scheduling.RestServerGroups(self._session).find(server_group)
            body['OS-SCH-HNT:scheduler_hints'] = {'group': group['id']}
        return self._session.post(COMPUTE, '/servers', body)['server']['id']

    def run_boot(self, instance_id, progress=None, rollback=False):
        """Follow the boot provisioner-api runs until it is no longer building."""
        return follow.follow(self._poll, instance_id, progress, seen=0)

    def _action(self, name_or_id, action, progress):
        info = self.show(name_or_id)
        self._session.post(COMPUTE, '/servers/%s/action' % quote(info['id']),
                           {action: None})
        return follow.follow(self._poll, info['id'], progress, seen=len(info['events']))

    def resume(self, name_or_id, progress=None):
        return self._action(name_or_id, 'provisioner:resume', progress)

    def rollback(self, name_or_id, progress=None):
        return self._action(name_or_id, 'provisioner:rollback', progress)

    def delete(self, name_or_id, progress=None, on_wait=None):
        info = self.show(name_or_id)
        self._session.delete(COMPUTE, '/servers/%s' % quote(info['id']))
        return follow.follow(self._poll, info['id'], progress, seen=len(info['events']),
                             until_gone=True, last=info)
