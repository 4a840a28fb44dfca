"""Guests read the metadata service at 169.254.169.254 (issue 22 item 4): a server
without a config drive gets its id, hostname, key and user data from its network's
metadata proxy (in the network's DHCP namespace, reached by DHCP's option 121), and a
guest that takes another server's address gets nothing of that server's.

A cloud of its own: [compute] force_config_drive off, the proxy's [metadata] api_url
set to this API. The guests print what they read on their serial consoles.
"""

import pytest

from tests.functional.api import conftest as api_conftest

USER_DATA = '#!/bin/sh\necho metadata-user-data-line\n'
# Takes the other guest's address, sends from it to 169.254.169.254 and prints what
# came back (port security drops the forged packets: nothing does).
FORGER = '''#!/bin/sh
via=$(ip route show 169.254.169.254 | awk '{print $3}')
[ -n "$via" ] || via=$(ip route show default | awk '{print $3}')
ip addr add %(ip)s/32 dev eth0
ip route replace 169.254.169.254/32 via "$via" dev eth0 src %(ip)s
printf 'GET /openstack/latest/meta_data.json HTTP/1.0\\r\\n\\r\\n' |
    nc -w 5 169.254.169.254 80 > /tmp/forged 2>/dev/null
echo "FORGED-READ: $(head -c 300 /tmp/forged | tr -d '\\r\\n')"
'''


@pytest.fixture(scope='module')
def cloud(guest_image, tmp_path_factory):
    extra = ('[compute]\nforce_config_drive = False\n'
             '[metadata]\napi_url = {api}/metadata\n')
    with api_conftest.running_api_cloud(guest_image, tmp_path_factory.mktemp('md'),
                                        extra) as running:
        yield running


def _key(cloud, path):
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.hazmat.primitives import serialization
    key = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    path.write_text(key + ' md@provisioner\n')
    cloud.openstack.json('keypair', 'create', '--public-key', path, 'md-key')
    return key + ' md@provisioner'


def test_a_guest_reads_its_own_metadata_and_never_anothers(cloud, tmp_path):
    openstack = cloud.openstack
    key = _key(cloud, tmp_path / 'key.pub')
    (tmp_path / 'user-data').write_text(USER_DATA)
    reader = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', '--key-name', 'md-key',
                            '--user-data', tmp_path / 'user-data', '--wait', 'md-reader')
    assert reader['config_drive'] in ('', 'False', False, None)  # Nova's "": none
    seen = openstack.wait_for_console(reader['id'],
                                      marker='PROVISIONER-GUEST: user-data-script=exit')
    assert seen['metadata'] == 'metadata-service'
    assert (seen['uuid'], seen['hostname']) == (reader['id'], 'md-reader')
    assert seen['public-key'] == key
    assert seen['user-data'].startswith('#!/bin/sh')
    [(_net, [reader_ip])] = openstack.json('server', 'show', reader['id'])[
        'addresses'].items()

    (tmp_path / 'forger').write_text(FORGER % {'ip': reader_ip})
    forger = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', '--user-data', tmp_path / 'forger',
                            '--wait', 'md-forger')
    forged = openstack.wait_for_console(forger['id'],
                                        marker='PROVISIONER-GUEST: user-data-script=exit')
    assert forged['uuid'] == forger['id']  # its own, read before it forged
    console = openstack.run('console', 'log', 'show', forger['id']).stdout
    [line] = [x for x in console.splitlines() if x.startswith('FORGED-READ:')]
    assert reader['id'] not in line, line
