"""The CLI's side of the engine API (distributed mode).

Same methods as ComputeAPI, so the CLI's commands need not care which mode runs
them; here each call goes to any engine over RPC, and waiting for a flow means
polling the instance through the API (documented step 29), printing each step as
its event appears.

API version history (the endpoint, ``provisioner.engine.api_service``, serves the
newest; ``[upgrade_levels] engine_api`` caps what the CLI sends during an upgrade):

* 1.0 - ``authenticate``, ``create_instance``, ``show``, ``list``, ``resume``,
  ``rollback``, ``delete``; every call but ``authenticate`` carries a token.
  ``create_instance`` answers ``{'id': ...}``; the client reads nothing else.
"""

import base64
import time

from provisioner.client import follow
from provisioner.conf import CONF
from provisioner import exception
from provisioner import rpc

BASE_VERSION = '1.0'
VERSION = '1.0'

# An RPC call is delivered at most once: one taken by an engine that is stopping is
# lost. Calls that are safe to repeat are sent again after this many seconds.
RETRY_AFTER = 10


class EngineUnavailable(exception.ProvisionerError):
    msg_fmt = ('No provisioner-engine answered within %(timeout)s s on topic %(topic)s. '
               'Is one running, and is transport_url right?')


def _client():
    return rpc.get_client(CONF.engine.topic, timeout=CONF.engine.api_timeout,
                          version=BASE_VERSION,
                          version_cap=CONF.upgrade_levels.engine_api)


def _call(method, idempotent=False, **kwargs):
    """Call any engine; send a call that is safe to repeat again if it went unanswered."""
    budget = CONF.engine.api_timeout
    deadline = time.monotonic() + budget
    while True:
        timeout = budget
        if idempotent:
            timeout = max(1, min(RETRY_AFTER, deadline - time.monotonic()))
        try:
            return _client().prepare(timeout=timeout, version='1.0').call(
                {}, method, **kwargs)
        except rpc.messaging_errors():
            if not idempotent or time.monotonic() >= deadline:
                raise EngineUnavailable(timeout=budget,
                                        topic=CONF.engine.topic) from None


def authenticate(username, password, project_name):
    return _call('authenticate', idempotent=True, username=username,
                 password=password, project_name=project_name)


class RemoteComputeAPI:
    """ComputeAPI's interface, served by the engines."""

    def __init__(self, token):
        self._token = token

    def _call(self, method, **kwargs):
        # Everything but create_instance only reads, or posts a job once per instance.
        return _call(method, idempotent=method != 'create_instance', token=self._token,
                     **kwargs)

    def create_instance(self, name, flavor, image, networks, volume_sizes=(),
                        user_data=None, *, availability_zone=None, server_group=None,
                        properties=None):
        encoded = base64.b64encode(user_data).decode() if user_data is not None else None
        info = self._call('create_instance', name=name, flavor=flavor, image=image,
                          networks=list(networks), volume_sizes=list(volume_sizes),
                          user_data_b64=encoded, availability_zone=availability_zone,
                          server_group=server_group, properties=properties)
        return info['id']

    def show(self, name_or_id):
        return self._call('show', name_or_id=name_or_id)

    def list(self, all_projects=False):
        return self._call('list', all_projects=all_projects)

    def console(self, name_or_id):
        return self.show(name_or_id)['console_log']

    def start_in_background(self, instance_id, log_path):
        """Nothing to start: an engine already claimed (or will claim) the boot."""

    def run_boot(self, instance_id, progress=None, rollback=False):
        """Follow the boot an engine runs until it is no longer building."""
        return self._follow(instance_id, progress, seen=0)

    def resume(self, name_or_id, progress=None):
        info = self._call('resume', name_or_id=name_or_id)
        return self._follow(info['id'], progress, seen=len(info['events']))

    def rollback(self, name_or_id, progress=None):
        info = self._call('rollback', name_or_id=name_or_id)
        return self._follow(info['id'], progress, seen=len(info['events']))

    def delete(self, name_or_id, progress=None, on_wait=None):
        info = self._call('delete', name_or_id=name_or_id)
        return self._follow(info['id'], progress, seen=len(info['events']),
                            until_gone=True, last=info)

    def _follow(self, instance_id, progress, seen, until_gone=False, last=None):
        return follow.follow(self.show, instance_id, progress, seen,
                             until_gone=until_gone, last=last)
