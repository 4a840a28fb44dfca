"""The engine-worker RPC: a worker without a database, versions, deferred steps.

On oslo.messaging's in-memory transport (fake://) with the real endpoints.
"""

import json
import subprocess
import sys
import time
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

from flows.steps import base as steps_base
from flows.steps import registry
from flows.steps import volume

_IMPORTS_OF_A_WORKER = '''
import json, sys
import provisioner.cmd.worker, provisioner.worker.service, provisioner.virt.driver
import flows.steps.registry  # every module holding a host half
print(json.dumps(sorted(name for name in sys.modules
                        if name.split('.')[:2] == ['provisioner', 'db']
                        or name.startswith('sqlalchemy.orm'))))
'''


def test_a_worker_imports_nothing_of_the_database():
    out = subprocess.run([sys.executable, '-c', _IMPORTS_OF_A_WORKER], check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == []


_A_WORKER_REACHING_FOR_THE_DATABASE = '''
import logging, sys
from provisioner.conf import CONF
logging.basicConfig(stream=sys.stdout, format='%(levelname)s %(message)s')
CONF(['--config-file', sys.argv[1]], project='provisioner')
from provisioner.worker import no_database
no_database.forbid(CONF)
import provisioner.worker.service, provisioner.maintenance.reconciler
import flows.steps.registry  # every module holding a host half
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
    """The worker's endpoint, remembering what named each step it was sent and the
    cause of each undo."""

    steps, causes = [], []

    def run_step(self, ctxt, step, name, payload, deadline):
        self.steps.append(step)
        return super().run_step(ctxt, step, name, payload, deadline)

    def undo_step(self, ctxt, step, name, payload, result, deadline, cause=None):
        self.steps.append(step)
        self.causes.append(cause)
        return super().undo_step(ctxt, step, name, payload, result, deadline, cause)


class PreviousReleaseRecordingEndpoint(RecordingEndpoint,
                                       previous_release_worker.PreviousReleaseEndpoint):
    """The previous release's endpoint (2.0, class paths only), recording."""


@pytest.fixture(autouse=True)
def _fresh_records():
    RecordingEndpoint.steps, RecordingEndpoint.causes = [], []


def _undo_root_disk(instance_id):
    return worker_rpcapi.WorkerAPI().undo_step(
        'h1', 'image.create_root_disk', 'create-root-disk',
        {'instance_id': instance_id}, {'result': None}, cause='x: boom')


def _destroy_domain(instance_id):
    return worker_rpcapi.decode_result(worker_rpcapi.WorkerAPI().run_step(
        'h1', 'domain.destroy', 'destroy-domain', {'instance_id': instance_id}))


def test_an_engine_capped_one_version_back_talks_to_a_worker_of_that_version(
        conf, fake_rpc):
    fake_rpc(conf.worker.topic, 'h1', [PreviousReleaseRecordingEndpoint('h1')])
    instance_id = str(uuid.uuid4())
    # Uncapped, the engine sends 2.2, which a 2.0 worker refuses.
    with pytest.raises(rpc.messaging().UnsupportedVersion):
        _undo_root_disk(instance_id)
    with pytest.raises(rpc.messaging().UnsupportedVersion):
        _destroy_domain(instance_id)
    conf.set_override('worker', '2.0', 'upgrade_levels')
    assert worker_rpcapi.decode_result(_undo_root_disk(instance_id)) is None
    assert _destroy_domain(instance_id) is None
    assert RecordingEndpoint.causes == [None]  # 2.0 has no cause
    # ... and names each step by the class path that release knows.
    assert RecordingEndpoint.steps == ['flows.host.image_steps.CreateRootDisk',
                                       'flows.host.domain_steps.DestroyDomain']


def test_the_previous_release_worker_runs_class_paths_only(fake_rpc):
    """As that release's worker did: a registered name is no step it knows (on the
    test:/// hypervisor of fake_rpc)."""
    old = previous_release_worker.PreviousReleaseEndpoint('h1')
    deadline = time.time() + 60
    refused = worker_rpcapi.decode_result(old.run_step(
        {}, 'domain.destroy', 'destroy-domain', {'instance_id': 'i'}, deadline))
    assert refused.check(registry.UnknownStep)
    ran = worker_rpcapi.decode_result(old.run_step(
        {}, 'flows.host.domain_steps.DestroyDomain', 'destroy-domain',
        {'instance_id': str(uuid.uuid4())}, deadline))
    assert ran is None


def test_a_current_worker_gets_the_cause_of_an_undo(conf, fake_rpc):
    fake_rpc(conf.worker.topic, 'h1', [RecordingEndpoint('h1')])
    _undo_root_disk(str(uuid.uuid4()))
    assert RecordingEndpoint.causes == ['x: boom']
    assert RecordingEndpoint.steps == ['image.create_root_disk']  # 2.2: its name


@pytest.mark.parametrize('cap, cause', [('2.1', 'x: boom'), ('2.0', None)])
def test_a_current_worker_serves_an_engine_of_the_previous_release(
        conf, fake_rpc, cap, cause):
    """An engine capped below 2.2 sends what release 2.1 sent: class paths."""
    fake_rpc(conf.worker.topic, 'h1', [RecordingEndpoint('h1')])
    conf.set_override('worker', cap, 'upgrade_levels')
    instance_id = str(uuid.uuid4())
    assert worker_rpcapi.decode_result(_undo_root_disk(instance_id)) is None
    assert _destroy_domain(instance_id) is None
    assert RecordingEndpoint.steps == ['flows.host.image_steps.CreateRootDisk',
                                       'flows.host.domain_steps.DestroyDomain']
    assert RecordingEndpoint.causes == [cause]


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
    steps_base.driver().create_volume(vol_id, 1)
    task = volume.DeleteVolumes('delete-volumes')
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
    task = volume.DeleteVolumes('delete-volumes')
    remote.defer('h2', task, {'method': remote.RUN,
                              'payload': {'instance_id': instance_id, 'volume_ids': []},
                              'arguments': {'instance_id': instance_id}})
    assert reports.replay_deferred_steps('h2') == 0
    assert [row.name for row in _deferred_rows()] == ['delete-volumes']


def _defer_volume_delete(host, instance_id, vol_id):
    remote.defer(host, volume.DeleteVolumes('delete-volumes'), {
        'method': remote.RUN, 'arguments': {'instance_id': instance_id},
        'payload': {'instance_id': instance_id, 'volume_ids': [vol_id]}})


@pytest.mark.parametrize('cap, named', [
    (None, 'volume.delete'),
    # Capped: engines of release 2.1 may take the host's report and replay the row.
    ('2.1', 'flows.tasks.volume_tasks.DeleteVolumes'),
    ('2.0', 'flows.tasks.volume_tasks.DeleteVolumes')])
def test_a_deferred_row_names_its_step_as_the_engines_read_it(conf, fake_rpc, cap,
                                                               named):
    conf.set_override('worker', cap, 'upgrade_levels')
    _defer_volume_delete('h2', str(uuid.uuid4()), 'v1')
    assert [row.task for row in _deferred_rows()] == [named]


@pytest.mark.parametrize('task', ['flows.tasks.volume_tasks.DeleteVolumes',
                                  'volume.delete'])
def test_rows_of_release_2_1_and_of_this_release_are_replayed(conf, fake_rpc, task):
    instance_id = str(uuid.uuid4())
    vol_id = naming.volume_id(instance_id, 0)
    steps_base.driver().create_volume(vol_id, 1)
    _defer_volume_delete('h1', instance_id, vol_id)
    with db_api.transaction() as session:  # as release 2.1 wrote it, or this one
        session.execute(sa.update(models.DeferredHostStep).values(task=task))
    fake_rpc(conf.worker.topic, 'h1', [endpoint.HostStepsEndpoint('h1')])
    assert reports.replay_deferred_steps('h1') == 1
    assert virt.get_driver().volume_path(vol_id) is None
    assert _deferred_rows() == []


@pytest.mark.parametrize('task', ['os.system', 'flows.tasks.scheduler_tasks.ReleaseClaim',
                                  'flows.host.volume_steps.DeleteVolumes', 'volume.nope'])
def test_a_row_naming_no_host_step_is_dropped_unrun(conf, fake_rpc, task):
    instance_id = str(uuid.uuid4())
    vol_id = naming.volume_id(instance_id, 0)
    steps_base.driver().create_volume(vol_id, 1)
    _defer_volume_delete('h1', instance_id, vol_id)
    with db_api.transaction() as session:
        session.execute(sa.update(models.DeferredHostStep).values(task=task))
    fake_rpc(conf.worker.topic, 'h1', [endpoint.HostStepsEndpoint('h1')])
    assert reports.replay_deferred_steps('h1') == 1  # taken, logged, not run
    assert virt.get_driver().volume_path(vol_id) is not None
    assert _deferred_rows() == []
