"""All-in-one or distributed: decided without importing oslo.messaging when nothing
names a broker, and the same way CONF reads it (files, environment) when one does.

Each case runs in a fresh interpreter: CONF's registered options and sys.modules
outlive a test in this one.
"""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = '''
import sys
from provisioner.conf import CONF
from provisioner import deployment
from provisioner import notifications
CONF(sys.argv[1:], project="provisioner", default_config_files=[])
print(deployment.mode() == deployment.DISTRIBUTED,
      notifications.get_notifier() is not None,
      any(m.startswith("oslo_messaging") for m in sys.modules))
'''


def _mode(tmp_path, config=None, **environ):
    argv = []
    if config is not None:
        path = tmp_path / 'provisioner.conf'
        path.write_text(config)
        argv = ['--config-file', str(path)]
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(environ, XDG_DATA_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, '-c', SCRIPT] + argv, check=True, env=env,
                         capture_output=True, text=True, cwd=REPO).stdout.split()
    return {'distributed': out[0] == 'True', 'notifies': out[1] == 'True',
            'imported oslo.messaging': out[2] == 'True'}


def test_nothing_names_a_broker_all_in_one_without_importing_oslo_messaging(tmp_path):
    assert _mode(tmp_path, '[DEFAULT]\nhost = h\n') == {
        'distributed': False, 'notifies': False, 'imported oslo.messaging': False}


@pytest.mark.parametrize('config, environ', [
    ('[DEFAULT]\ntransport_url = fake://\n', {}),
    (None, {'OS_DEFAULT__TRANSPORT_URL': 'fake://'}),
])
def test_a_transport_url_in_a_file_or_the_environment_is_distributed(
        tmp_path, config, environ):
    assert _mode(tmp_path, config, **environ) == {
        'distributed': True, 'notifies': True, 'imported oslo.messaging': True}


def test_an_empty_transport_url_is_all_in_one(tmp_path):
    assert _mode(tmp_path, '[DEFAULT]\ntransport_url =\n')['distributed'] is False


def test_a_notification_transport_in_the_environment_notifies_all_in_one(tmp_path):
    assert _mode(tmp_path, None,
                 OS_OSLO_MESSAGING_NOTIFICATIONS__TRANSPORT_URL='fake://') == {
        'distributed': False, 'notifies': True, 'imported oslo.messaging': True}
