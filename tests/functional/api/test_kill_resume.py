"""kill -9 of the all-in-one provisioner-api in the middle of a boot.

The boot's steps are saved as they finish: restarted on the same port, the daemon
resumes the boot to ACTIVE, and a client already waiting (`server create --wait`,
which polls every 5 s) never notices, if the restart is quicker than its polls.
"""

import json
import re
import signal
import time

from tests.functional.api import conftest as api

# `openstack server create --wait` polls the server every 5 s (osc-lib).
CLIENT_POLL = 5.0


def _done_steps(http, server_id):
    """Steps of the server's create action that finished with success."""
    response = http.compute('GET', '/servers/%s/os-instance-actions' % server_id)
    if response.status_code != 200:
        return []
    creates = [a for a in response.json()['instanceActions']
               if a['action'] == 'create']
    if not creates:
        return []
    response = http.compute('GET', '/servers/%s/os-instance-actions/%s'
                            % (server_id, creates[0]['request_id']))
    if response.status_code != 200:
        return []
    return [e['event'] for e in response.json()['instanceAction'].get('events', [])
            if e.get('finish_time') and e.get('result') == 'Success']


def test_kill_9_mid_boot_resumes_to_active_under_a_waiting_client(api_cloud,
                                                                   openstack):
    http = api_cloud.http
    # The waiting client's polls, as the API logs them (not /servers/detail, nor the
    # /servers/<id>/os-instance-actions this test reads).
    poll = re.compile(r'GET /compute/v2\.1/servers/[0-9a-f-]{36}(?![\w/-])')
    since = api_cloud.api_log_size()
    client = openstack.popen('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                             '--network', 'net1', '--wait', '-f', 'json', 'api-kill')
    server, polls, last_poll = None, 0, None
    try:
        # Kill once a step of the boot is done (beyond the guard) and the client
        # has just polled, so the restart has most of the client's interval.
        deadline = time.monotonic() + 60
        while True:
            seen = len(poll.findall(api_cloud.api_log_text(since)))
            if seen > polls:
                polls, last_poll = seen, time.monotonic()
            server = server or http.find_server('api-kill')
            if server is not None and last_poll is not None and \
                    set(_done_steps(http, server['id'])) & set(api.BOOT_STEPS):
                break
            assert client.poll() is None, client.communicate()
            assert time.monotonic() < deadline, 'no step of the boot ever finished'
            time.sleep(0.02)
        done = _done_steps(http, server['id'])
        killed_at = time.monotonic()
        assert api_cloud.kill_api() == -signal.SIGKILL
        [(vm_state,)] = api_cloud.query('SELECT vm_state FROM instances WHERE id = ?',
                                        (server['id'],))
        assert vm_state == 'building', 'the boot was over before the kill'

        ready_after = api_cloud.start_api()
        restart = time.monotonic() - killed_at
        since_poll = time.monotonic() - last_poll
        print('kill -9 after steps %s, %.2f s after the client\'s last poll; '
              'provisioner-api ready %.2f s after its start, %.2f s after the kill'
              % (done, killed_at - last_poll, ready_after, restart))
        assert since_poll < CLIENT_POLL, \
            'the API was down when the client polled: back %.2f s after its last ' \
            'poll (restart %.2f s)' % (since_poll, restart)

        out, err = client.communicate(timeout=300)
        assert client.returncode == 0, (out, err)
        created = json.loads(out)
        assert (created['id'], created['status']) == (server['id'], 'ACTIVE')
        assert list(created['addresses']) == ['net1']

        guest = openstack.wait_for_console(server['id'])
        assert [guest['ip']] == created['addresses']['net1']
        assert guest['uuid'] == server['id']
        assert 'mark-active' in _done_steps(http, server['id'])
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
        if api_cloud.api is None:  # the restart failed: the fixture needs its daemon
            api_cloud.start_api()
        if server is not None:
            api_cloud.delete_and_check(server['id'])
