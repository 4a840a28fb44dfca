"""openstacksdk, as a script or Ansible's openstack.cloud modules use it."""

import os
import time

from tests.functional.api import conftest as api


def test_create_server_wait_then_delete_server_wait(api_cloud, monkeypatch):
    import openstack
    for key in list(os.environ):
        if key.startswith('OS_'):
            monkeypatch.delenv(key)
    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(api_cloud.clouds_yaml))
    conn = openstack.connect(cloud=api.CLOUD_NAME)
    try:
        # Ansible's openstack.cloud.server sends "tags": [] (compute 2.52).
        server = conn.create_server('api-sdk', image='guest', flavor='tiny',
                                    network='net1', wait=True, timeout=300, tags=[])
        assert server.status == 'ACTIVE'
        server = conn.compute.wait_for_server(conn.compute.get_server(server.id),
                                              status='ACTIVE', wait=120)
        [address] = server.addresses['net1']
        assert server.tags == [] and server.flavor.original_name == 'tiny'
        assert server.id in [s.id for s in conn.compute.servers()]

        deadline = time.monotonic() + 90
        while True:
            console = conn.compute.get_server_console_output(server)['output']
            if 'PROVISIONER-GUEST: ready' in console or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert api.markers(console).get('ip') == address['addr'], console

        instance = api_cloud.record(server.id)
        assert conn.delete_server(server.id, wait=True, timeout=120) is True
        conn.compute.wait_for_delete(server, wait=30)
        assert conn.compute.find_server(server.id) is None
        assert api_cloud.leftovers(instance) == []
    finally:
        leftover = conn.compute.find_server('api-sdk')
        if leftover is not None:
            conn.delete_server(leftover.id, wait=True, timeout=120)
        conn.close()
