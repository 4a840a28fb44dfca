"""The engine's RPC API: what the CLI calls in distributed mode (documented steps 1-7, 29).

Every call but ``authenticate`` carries the caller's token; the engine validates it and
acts through the same ComputeAPI as all-in-one, so project scoping and roles are the
same. A boot is recorded here and posted to the jobboard; a conductor (any engine)
runs it, and the CLI follows it with ``show``.
"""

import base64
import logging

from provisioner.compute import api as compute_api
from provisioner.engine import client
from provisioner.engine import jobs
from provisioner.engine import leases
from provisioner import exception
from provisioner.identity import service as identity
from provisioner import policy
from provisioner import rpc

LOG = logging.getLogger(__name__)

# Errors meant for the user travel back as themselves, without a server traceback.
_expected = rpc.messaging().expected_exceptions(exception.ProvisionerError)


def _api(token):
    return compute_api.ComputeAPI(identity.validate(token), local_hypervisor=False)


class EngineAPIEndpoint:
    """Served on topic [engine] topic; any engine answers any call.

    ``target`` serves the newest version of the client's history
    (``provisioner.engine.client``).
    """

    def __init__(self):
        self.target = rpc.endpoint_target(client.VERSION)

    @_expected
    def authenticate(self, ctxt, username, password, project_name):
        return identity.authenticate(username, password, project_name)

    @_expected
    def create_instance(self, ctxt, token, name, flavor, image, networks,
                        volume_sizes=(), user_data_b64=None, availability_zone=None,
                        server_group=None, properties=None):
        api = _api(token)
        user_data = (base64.b64decode(user_data_b64)
                     if user_data_b64 is not None else None)
        instance_id = api.create_instance(name, flavor, image, networks, volume_sizes,
                                          user_data, availability_zone=availability_zone,
                                          server_group=server_group,
                                          properties=properties)
        jobs.post(jobs.BOOT, instance_id, new=True)
        # The id, as Nova's create answers: the client follows the boot with show.
        # The whole description (ports, volumes, events: five more transactions)
        # was half the work of accepting a boot, and nobody read it.
        return {'id': instance_id}

    @_expected
    def show(self, ctxt, token, name_or_id):
        return _api(token).show(name_or_id)

    @_expected
    def list(self, ctxt, token, all_projects=False):
        return _api(token).list(all_projects=all_projects)

    @_expected
    def resume(self, ctxt, token, name_or_id):
        api = _api(token)
        # resumable() authorizes instance:resume on the instance, as ComputeAPI.resume.
        instance_id = api.resumable(name_or_id, 'resume')
        jobs.post(jobs.BOOT, instance_id)
        return api.show(instance_id)

    @_expected
    def rollback(self, ctxt, token, name_or_id):
        api = _api(token)
        instance_id = api.resumable(name_or_id, 'rollback')  # authorizes instance:rollback
        leases.request_rollback(instance_id)
        jobs.post(jobs.BOOT, instance_id)
        return api.show(instance_id)

    @_expected
    def delete(self, ctxt, token, name_or_id):
        api = _api(token)
        info = api.show(name_or_id)
        # The check ComputeAPI.delete makes: on the instance's project, foreign = absent.
        policy.authorize_owned(api.context, 'instance:delete', info['project_id'],
                               'Instance', name_or_id)
        jobs.post(jobs.DELETE, info['id'])
        return info
