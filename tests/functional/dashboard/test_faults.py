"""Boots that go wrong, as the dashboard shows them: a fault injected after a step
(the failed step and the reverts, in the graph and the timeline), and the API
killed in the middle of a boot (the interrupted step runs again on restart)."""

import signal

from tests.functional.dashboard.conftest import restart_api
from tests.functional.dashboard.test_instance import launch
from tests.functional.dashboard.test_instance import watch_flow

XSS_NAME = '<img src=x onerror=window.__xss=1>'


def test_injected_fault_shows_failed_step_and_reverts(dashboard):
    cloud = dashboard.cloud
    restart_api(cloud, OS_FAULT_INJECTION__FAIL_AFTER_STEP='define-domain')
    server_id = None
    try:
        dashboard.login()
        dashboard.wait_for('#instances-table')
        dashboard.watch_alerts()
        server_id = launch(dashboard, XSS_NAME)
        dashboard.wait_for('#flow-graph')
        _, _, states = watch_flow(dashboard)
        rows = dashboard.timeline_rows()
        assert 'failed' in dashboard.text('#flow-attempts'), dashboard.text('#attempts-area')
        dashboard.wait_for_text('#instance-status', 'ERROR', timeout=60)
        dashboard.screenshot('instance-fault')
        assert states['define-domain'] in ('failed', 'reverted'), states
        failed = dashboard.js('return [...document.querySelectorAll('
                              '"#flow-graph g.node[data-failed=true]")]'
                              '.map(n => n.dataset.atom);')
        assert failed == ['define-domain'], failed
        assert 'reverted' in states.values(), states
        kinds = {}
        for event, kind in rows:
            kinds.setdefault(event, []).append(kind)
        assert 'failed' in kinds.get('define-domain', []), rows
        assert [e for e, k in rows if k == 'reverted' and e.endswith('(revert)')], rows
        assert 'Injected' in dashboard.text('#instance-fault') or \
            'define-domain' in dashboard.text('#instance-fault'), \
            dashboard.text('#instance-fault')
        # The hostile name is shown as text, in the page and in the list.
        assert dashboard.text('#instance-name') == XSS_NAME
        dashboard.go('#/instances')
        dashboard.wait_for_text('#instances-table', XSS_NAME)
        assert not dashboard.find_all('#instances-table img')
        dashboard.screenshot('instances-hostile-name')
        assert not dashboard.xss_fired()
    finally:
        restart_api(cloud)
        if server_id is not None:
            cloud.delete_and_check(server_id)


def test_killed_boot_resumes_and_runs_the_step_again(dashboard):
    cloud = dashboard.cloud
    restart_api(cloud, OS_FAULT_INJECTION__CRASH_AFTER_STEP='define-domain')
    server_id = None
    try:
        dashboard.login()
        dashboard.wait_for('#instances-table')
        server_id = launch(dashboard, 'dash-killed')
        # The API kills itself right after define-domain's side effect.
        assert cloud.api.wait(timeout=60) == -signal.SIGKILL
        dashboard.wait_for_text('#banner', 'is not answering', timeout=30)
        dashboard.screenshot('instance-api-killed')
        restart_api(cloud)
        dashboard.wait_for_text('#instance-status', 'ACTIVE', timeout=120)
        _, _, states = watch_flow(dashboard)
        rows = dashboard.timeline_rows()
        dashboard.screenshot('instance-resumed')
        assert set(states.values()) == {'done'}, states
        # The step the kill cut off, then the same step run again by the resume.
        assert [k for e, k in rows if e == 'define-domain'] == ['interrupted', 'done'], rows
        runs = dashboard.js('return document.querySelector(arguments[0]).dataset.runs;',
                            '#flow-graph g.node[data-atom="define-domain"]')
        assert runs == '2', runs
    finally:
        if cloud.api is None:
            restart_api(cloud)
        if server_id is not None:
            cloud.delete_and_check(server_id)
