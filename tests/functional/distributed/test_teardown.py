"""A distributed deployment leaves nothing on its hosts once it is taken down.

Deleting the last instance and the network, then tearing both hosts down, removes
every libvirt network, storage pool and file of the deployment. The network is made
again at the end, so tests that run later in the session still have one.
"""

from tests.functional import conftest

HOSTS = ('func-worker-a', 'func-worker-b')
HOST_DIRECTORIES = ('disks', 'volumes', 'instances', 'images', 'dhcp')


def _libvirt_objects(dcloud):
    """(networks, pools) of this deployment on every host's libvirtd."""
    networks, pools = [], []
    for conn in dcloud.hypervisors():
        try:
            networks += [n.name() for n in conn.listAllNetworks()
                         if n.name().startswith(dcloud.prefix)]
            pools += [p.name() for p in conn.listAllStoragePools()
                      if p.name().startswith(dcloud.prefix)]
        finally:
            conn.close()
    return networks, pools


def test_last_instance_network_and_hosts_go_and_nothing_is_left(dcloud, engine):
    dcloud.boot('last-one', '--volume-size', 1)
    instance = dcloud.show('last-one')
    try:
        networks, pools = _libvirt_objects(dcloud)
        assert networks and pools  # the boot's host made them
        dcloud.cli('delete', instance['id'])
        assert dcloud.leftovers(instance) == []

        # The network leaves every host now, through their workers.
        dcloud.cli('network', 'delete', 'net1')
        assert _libvirt_objects(dcloud)[0] == []
        # ... with its DHCP namespace's dnsmasq.
        assert conftest.dnsmasqs_under(dcloud.root) == {}

        for host in HOSTS:
            out = dcloud.cli('host', 'teardown', host).stdout
            assert 'Host %s torn down' % host in out
        assert _libvirt_objects(dcloud) == ([], [])
        assert [(host, d) for host in HOSTS for d in HOST_DIRECTORIES
                if (dcloud.host_state_path(host) / d).exists()] == []
        assert dcloud.query('SELECT kind, name, host FROM leftovers '
                            'WHERE resolved_at IS NULL') == []
    finally:
        result = dcloud.cli('network', 'show', 'net1', check=False)
        if result.returncode != 0:
            dcloud.cli('network', 'create', 'net1', '--cidr', dcloud.cidr)
