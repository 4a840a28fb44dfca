"""The engines' API over RPC in-process (fake://): the CLI's versioned client and
the endpoint's Target, with [upgrade_levels] engine_api capping what is sent."""

import pytest

from provisioner.engine import api_service
from provisioner.engine import client
from provisioner import rpc


@pytest.fixture
def served(conf, admin_context):
    rpc.register_transport_opts()  # transport_url, to override
    conf.set_override('transport_url', 'fake:///')
    conf.set_override('api_timeout', 10, 'engine')
    server = rpc.get_server(conf.engine.topic, 'engine-1',
                            [api_service.EngineAPIEndpoint()])
    server.start()
    yield
    server.stop()
    server.wait()
    rpc.cleanup()


def _list(conf, token, version):
    return rpc.get_client(conf.engine.topic, timeout=10).prepare(
        version=version).call({}, 'list', token=token)


def test_the_cli_client_logs_in_and_lists_through_the_endpoint(served):
    token = client.authenticate('admin', 'admin-secret', 'admin')
    assert client.RemoteComputeAPI(token).list() == []


def test_the_endpoint_serves_the_clients_newest_version_and_no_newer(served, conf):
    token = client.authenticate('admin', 'admin-secret', 'admin')
    assert _list(conf, token, client.VERSION) == []
    with pytest.raises(rpc.messaging().UnsupportedVersion):
        _list(conf, token, '1.%d' % (int(client.VERSION.split('.')[1]) + 1))


def test_a_client_capped_below_the_oldest_api_refuses_to_send(served, conf):
    conf.set_override('engine_api', '0.9', 'upgrade_levels')
    with pytest.raises(rpc.messaging().RPCVersionCapError):
        client.authenticate('admin', 'admin-secret', 'admin')
