"""Security groups across two namespace hosts (distributed, the ``openstack`` CLI):
guest B on one host listens, guest A on the other sends (tests/functional/api/
test_security_groups_enforced.py says how). A rule naming A's group lets A in: B's
host learns A's address from the engine when A boots; deleting the rule reaches B's
host from provisioner-api over RPC (the hosts' security group agents), live.
"""

import time

from tests.functional.api import test_security_groups_enforced as enforced
# The distributed API and the L2 agents' workers (one network across the hosts).
from tests.functional.distributed.conftest import WORKERS
from tests.functional.distributed.test_distributed_api import dapi  # noqa: F401
from tests.functional.distributed.test_l2_across_hosts import l2_workers  # noqa: F401


def test_a_rule_across_hosts_follows_its_group_and_goes_live(
        dapi, l2_workers, tmp_path):  # noqa: F811
    openstack = dapi.openstack
    made = []
    try:
        for group in ('sgx-senders', 'sgx-listener'):
            openstack.json('security', 'group', 'create', group)
        rule = openstack.json(
            'security', 'group', 'rule', 'create', '--ingress', '--protocol', 'tcp',
            '--dst-port', '5000', '--remote-group', 'sgx-senders', 'sgx-listener')
        apart = openstack.json('server', 'group', 'create', '--policy',
                               'anti-affinity', 'sgx-apart')
        servers = {}
        for name, group, script in (('sgx-b', 'sgx-listener', enforced.LISTENER),
                                    ('sgx-a', 'sgx-senders', enforced.SENDER)):
            path = tmp_path / name
            path.write_text(script % {'peer': servers.get('sgx-b', ('', ''))[1]})
            made.append(name)
            server = openstack.json(
                'server', 'create', '--flavor', 'tiny', '--image', 'guest',
                '--network', 'net1', '--security-group', group, '--hint',
                'group=%s' % apart['id'], '--user-data', path, '--wait', name)
            [ip] = server['addresses']['net1']
            servers[name] = (server['id'], ip)
        hosts = {dapi.cloud.query('SELECT host FROM instances WHERE id = ?',
                                  (server_id,))[0][0]
                 for server_id, _ip in servers.values()}
        assert hosts == set(WORKERS)

        consoles = ('sgx-a', 'sgx-b')
        enforced._wait_heard(openstack, 'sgx-b', 'A', consoles=consoles)
        openstack.run('security', 'group', 'rule', 'delete', rule['id'])
        time.sleep(3)
        last = max(n for who, n in enforced._heard(openstack, 'sgx-b') if who == 'A')
        time.sleep(12)
        assert [n for who, n in enforced._heard(openstack, 'sgx-b')
                if who == 'A' and n > last] == []
    finally:
        for name in made:
            openstack.run('server', 'delete', '--wait', name, check=False)
        openstack.run('server', 'group', 'delete', 'sgx-apart', check=False)
        for group in ('sgx-senders', 'sgx-listener'):
            openstack.run('security', 'group', 'delete', group, check=False)
    for worker in WORKERS:
        conn = dapi.cloud.hypervisor(worker)
        try:
            left = [f.name() for f in conn.listAllNWFilters()
                    if f.name().startswith(dapi.cloud.prefix + '-port-')]
        finally:
            conn.close()
        assert left == [], (worker, left)
