"""The engine-worker RPC: a worker without a database, versions, deferred steps.

On oslo.messaging's in-memory transport (fake://) with the real endpoints.
"""

import json
import subprocess
import sys
import uuid

import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import remote
from provisioner.engine import reports
from provisioner import naming
from provisioner import rpc
from provisioner import virt
from provisioner.worker import endpoint
from provisioner.worker import no_database
from provisioner.worker import rpcapi as worker_rpcapi
from tests.functional.distributed import previous_release_worker
from tests import process

from flows.host import base as host_base
from flows.tasks import volume_tasks

_IMPORTS_OF_A_WORKER = '''
import importlib, json, pkgutil, sys
import provisioner.cmd.worker, provisioner.worker.service, provisioner.virt.driver
import flows.host
for module in pkgutil.iter_modules(flows.host.__path__):
    importlib.import_module('flows.host.' + module.name)
print(json.dumps(sorted(name for name in sys.modules
                        if name.split('.')[:2] == ['provisioner', 'db']
                        or name.startswith('sqlalchemy.orm'))))
'''


def test_a_worker_imports_nothing_of_the_database():
    out = subprocess.run([sys.executable, '-c', _IMPORTS_OF_A_WORKER], check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == []


_A_WORKER_REACHING_FOR_THE_DATABASE = '''
import importlib, logging, pkgutil, sys
from provisioner.conf import CONF
logging.basicConfig(stream=sys.stdout, format='%(levelname)s %(message)s')
CONF(['--config-file', sys.argv[1]], project='provisioner')
from provisioner.worker import no_database
no_database.forbid(CONF)
import provisioner.worker.service, provisioner.maintenance.reconciler
import flows.host
for module in pkgutil.iter_modules(flows.host.__path__):
    importlib.import_module('flows.host.' + module.name)
try:
    from provisioner.db import api
except ImportError as exc:
    print('refused:', exc)
'''


def test_a_worker_refuses_the_database_layer_at_run_time(tmp_path):
    """A lazy import of the database in a host step fails loudly, instead of
    opening a SQLite file of the host's own; a [database] section is warned of."""
    config = tmp_path / 'worker.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\n[database]\nconnection = '
                      'sqlite://\n' % tmp_path)
    out = subprocess.run([sys.executable, '-c', _A_WORKER_REACHING_FOR_THE_DATABASE,
                          str(config)], check=True, capture_output=True,
                         text=True).stdout
    assert 'has a [database] section, which provisioner-worker never uses' in out
    assert ('refused: provisioner-worker has no database: refusing to import '
            'provisioner.db') in out
    assert list(tmp_path.glob('*.sqlite')) == []


def test_a_worker_with_the_database_layer_loaded_refuses_to_start(conf):
    with pytest.raises(RuntimeError, match='provisioner.db.api'):
        no_database.forbid(conf)  # the unit tests' process has it loaded


@pytest.fixture
def fake_rpc(conf, tmp_path):
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    rpc.register_transport_opts()  # transport_url, to override
    conf.set_override('transport_url', 'fake:///')
    conf.set_override('heartbeat_timeout', 2, 'worker')
    conf.set_override('step_attempts', 1, 'worker')
    conf.set_override('task_timeout', 3, 'worker')  # fake:// sends no heartbeats
    servers = []

    def serve(topic, server, endpoints):
        servers.append(rpc.get_server(topic, server, endpoints))
        servers[-1].start()

    yield serve
    for server in servers:
        server.stop()
        server.wait()
    rpc.cleanup()
    process.reset_state()


class RecordingEndpoint(endpoint.HostStepsEndpoint):
    """The worker's endpoint, remembering the cause of each undo it was sent."""

    causes = []

    def undo_step(self, ctxt, step, name, payload, result, deadline, cause=None):
        self.causes.append(cause)
        return super().undo_step(ctxt, step, name, payload, result, deadline, cause)


class PreviousReleaseRecordingEndpoint(RecordingEndpoint):
    version = previous_release_worker.PreviousReleaseEndpoint.version


def _undo_root_disk(instance_id):
    return worker_rpcapi.WorkerAPI().undo_step(
        'h1', 'flows.host.image_steps.CreateRootDisk', 'create-root-disk',
        {'instance_id': instance_id}, {'result': None}, cause='x: boom')


def test_an_engine_capped_one_version_back_talks_to_a_worker_of_that_version(
        conf, fake_rpc):
    RecordingEndpoint.causes = []
    fake_rpc(conf.worker.topic, 'h1', [PreviousReleaseRecordingEndpoint('h1')])
    instance_id = str(uuid.uuid4())
    # Uncapped, the engine sends 2.1, which a 2.0 worker refuses.
    with pytest.raises(rpc.messaging().UnsupportedVersion):
        _undo_root_disk(instance_id)
    conf.set_override('worker', '2.0', 'upgrade_levels')
    assert worker_rpcapi.decode_result(_undo_root_disk(instance_id)) is None
    assert RecordingEndpoint.causes == [None]  # 2.0 has no cause


def test_a_current_worker_gets_the_cause_of_an_undo(conf, fake_rpc):
    RecordingEndpoint.causes = []
    fake_rpc(conf.worker.topic, 'h1', [RecordingEndpoint('h1')])
    _undo_root_disk(str(uuid.uuid4()))
    assert RecordingEndpoint.causes == ['x: boom']


def test_an_engine_capped_below_the_oldest_api_sends_nothing(conf, fake_rpc):
    conf.set_override('worker', '1.0', 'upgrade_levels')
    with pytest.raises(rpc.messaging().RPCVersionCapError):
        _undo_root_disk(str(uuid.uuid4()))


def _deferred_rows():
    with db_api.transaction() as session:
        return session.execute(sa.select(models.DeferredHostStep)).scalars().all()


def test_a_cleanup_deferred_while_its_worker_was_away_runs_when_it_reports(
        conf, fake_rpc):
    instance_id = str(uuid.uuid4())
    vol_id = naming.volume_id(instance_id, 0)
    host_base.driver().create_volume(vol_id, 1)
    task = volume_tasks.DeleteVolumes('delete-volumes')
    payload = {'instance_id': instance_id, 'volume_ids': [vol_id]}
    remote.defer('h1', task, {'method': remote.RUN, 'payload': payload,
                              'arguments': {'instance_id': instance_id}})
    # The host is back: its worker serves, then reports to an engine.
    fake_rpc(conf.worker.topic, 'h1', [endpoint.HostStepsEndpoint('h1')])
    reports.WorkerReportsEndpoint().report_host({}, 'h1', virt.get_driver().capacity())
    assert virt.get_driver().volume_path(vol_id) is None
    assert _deferred_rows() == []


def test_a_deferred_step_whose_worker_is_still_away_is_kept(conf, fake_rpc):
    instance_id = str(uuid.uuid4())
    task = volume_tasks.DeleteVolumes('delete-volumes')
    remote.defer('h2', task, {'method': remote.RUN,
                              'payload': {'instance_id': instance_id, 'volume_ids': []},
                              'arguments': {'instance_id': instance_id}})
    assert reports.replay_deferred_steps('h2') == 0
    assert [row.name for row in _deferred_rows()] == ['delete-volumes']
