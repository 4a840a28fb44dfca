"""The engine's RPC endpoint enforces the same policy and schema as ComputeAPI.

Called in-process (no transport): every refusal happens before a job is posted.
"""

import pytest

from provisioner.engine import api_service
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity
from provisioner import rpc


def _token(admin_context, user, role):
    admin.create_user(admin_context, user, 'pw-%s-123' % user)
    admin.add_role(admin_context, user, 'admin', role)
    return identity.authenticate(user, 'pw-%s-123' % user, 'admin')


def _refused(call, *args, **kwargs):
    with pytest.raises(rpc.messaging().ExpectedException) as err:
        call({}, *args, **kwargs)
    return err.value.exc_info[1]


def test_a_reader_cannot_resume_roll_back_or_delete(api, admin_context, monkeypatch):
    posted = []
    monkeypatch.setattr(api_service.jobs, 'post', lambda *job, **_: posted.append(job))
    instance_id = api.create_instance('vm1', 'tiny', 'guest', ['net1'])
    reader = _token(admin_context, 'r1', 'reader')
    endpoint = api_service.EngineAPIEndpoint()
    assert endpoint.show({}, reader, 'vm1')['id'] == instance_id
    for method, action in (('resume', 'instance:resume'),
                           ('rollback', 'instance:rollback'),
                           ('delete', 'instance:delete')):
        error = _refused(getattr(endpoint, method), reader, 'vm1')
        assert isinstance(error, exception.Forbidden) and action in str(error)
    assert posted == []


def test_boot_flags_cross_the_endpoint_and_are_validated(api, admin_context,
                                                         monkeypatch):
    posted = []
    monkeypatch.setattr(api_service.jobs, 'post', lambda *job, **_: posted.append(job))
    member = _token(admin_context, 'm1', 'member')
    endpoint = api_service.EngineAPIEndpoint()
    error = _refused(endpoint.create_instance, member, 'vm1', 'tiny', 'guest', ['net1'],
                     availability_zone='no zone')
    assert "availability zone 'no zone' may contain only" in str(error)
    info = endpoint.create_instance({}, member, 'vm2', 'tiny', 'guest', ['net1'],
                                    properties={'role': 'web'})
    assert posted == [(api_service.jobs.BOOT, info['id'])]


def test_a_boot_request_is_answered_with_the_instance_id_alone(api, admin_context,
                                                               monkeypatch):
    # As Nova's create: the id; the client follows the boot with show. A burst of
    # requests must not pay for the whole description (ports, volumes, events).
    monkeypatch.setattr(api_service.jobs, 'post', lambda *job, **_: None)
    member = _token(admin_context, 'm1', 'member')
    endpoint = api_service.EngineAPIEndpoint()
    info = endpoint.create_instance({}, member, 'vm1', 'tiny', 'guest', ['net1'],
                                    properties={'role': 'web'})
    assert list(info) == ['id']
    shown = endpoint.show({}, member, info['id'])
    assert (shown['name'], shown['status'], shown['metadata']) == \
        ('vm1', 'BUILD', {'role': 'web'})
