"""Where an accepted request's flow runs: here (all-in-one) or on an engine.

provisioner-api records every request in the database (the instance row or its new
state, the instance action and its flow's uuid: what its flow is built from) before
it answers, then hands the flow to a dispatcher; whoever runs it builds and
persists it first (provisioner.engine.runner):

* ``LocalDispatcher`` (all-in-one): a pool of this process's threads runs it,
  under the instance's file lock. Flows this process (or a killed predecessor)
  left unfinished are found in the database and resumed at start-up.
* ``JobboardDispatcher`` (distributed): a job on the Redis jobboard, which any
  engine's conductor claims.
"""

from concurrent import futures
import contextvars
import logging
import threading

import sqlalchemy as sa
from taskflow import states as tf_states

from provisioner.compute import actions
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import runner
from provisioner.engine import volume_flows
from provisioner.volume import volumes

LOG = logging.getLogger(__name__)


class LocalDispatcher:
    """Run flows in this process's threads; suspend them at a stop (they resume)."""

    def __init__(self):
        workers = CONF.engine.max_concurrent_flows
        runner.expect_concurrent_flows(workers)
        self._pool = futures.ThreadPoolExecutor(max_workers=workers,
                                                thread_name_prefix='provisioner-flow')
        self._engines = set()
        self._lock = threading.Lock()
        self._stopping = False

    def _submit(self, what, func, *args, **kwargs):
        def run():
            try:
                func(*args, **kwargs)
            except Exception:
                LOG.exception('%s stopped with an error; it resumes at the next '
                              'start of provisioner-api', what)
        # The flow's log lines carry the request id of the request that started it.
        context = contextvars.copy_context()
        with self._lock:
            if self._stopping:
                return
            self._pool.submit(context.run, run)

    def _attach(self, engine):
        with self._lock:
            self._engines.add(engine)
            if self._stopping:
                engine.suspend()

    def _run_attached(self, func, *args, **kwargs):
        """``func(*args, on_engine=..., **kwargs)``, its engines suspendable by stop()
        while it runs and forgotten once it returned: kept, they would hold every
        finished flow (storage, compiled graph) for the life of provisioner-api."""
        engines = []

        def attach(engine):
            engines.append(engine)
            self._attach(engine)
        try:
            return func(*args, on_engine=attach, **kwargs)
        finally:
            with self._lock:
                self._engines.difference_update(engines)

    def boot(self, instance_id, rollback=False):
        self._submit('Boot of instance %s' % instance_id, self._run_boot, instance_id,
                     rollback)

    def _run_boot(self, instance_id, rollback):
        with db_api.transaction() as session:
            flow_uuid = session.get(models.Instance, instance_id).flow_uuid
        self._run_attached(runner.run_boot, instance_id, flow_uuid, rollback=rollback)

    def resume(self, instance_id):
        self.boot(instance_id)

    def rollback(self, instance_id):
        self.boot(instance_id, rollback=True)

    def delete(self, instance_id):
        self._submit('Delete of instance %s' % instance_id, runner.run_delete,
                     instance_id)

    def run_action(self, instance_id, action_id):
        """The flow of an instance action other than a boot or delete: a power
        action, or a volume's attach or detach."""
        self._submit('Action %s on instance %s' % (action_id, instance_id),
                     self._run_attached, runner.run_action, instance_id, action_id)

    def volume_delete(self, volume_id):
        self._submit('Delete of volume %s' % volume_id, runner.run_volume_delete,
                     volume_id)

    def volume_flow(self, kind, resource_id):
        """A snapshot's create or delete, or a volume's copy (engine.volume_flows)."""
        self._submit('%s of %s' % (kind, resource_id), volume_flows.run, kind,
                     resource_id)

    def resume_interrupted(self):
        """Start again every flow a killed process left unfinished; how many."""
        for volume_id in volumes.deleting():
            self.volume_delete(volume_id)
        for kind, resource_id in volume_flows.pending():
            self.volume_flow(kind, resource_id)
        boots, deletes = _interrupted_instances()
        for instance_id in boots:
            self.boot(instance_id)
        for instance_id in deletes:
            self.delete(instance_id)
        other = actions.unfinished()
        for instance_id, action_id in other:
            self.run_action(instance_id, action_id)
        count = len(boots) + len(deletes) + len(other)
        if count:
            LOG.info('Resuming %d interrupted flow(s): %d boot(s), %d delete(s), '
                     '%d other action(s)', count, len(boots), len(deletes), len(other))
        return count

    def stop(self):
        """Suspend running flows at their next step boundary and wait for them."""
        with self._lock:
            self._stopping = True
            engines = list(self._engines)
        for engine in engines:
            engine.suspend()
        self._pool.shutdown(wait=True, cancel_futures=True)


def _interrupted_instances():
    inst = models.Instance
    with db_api.transaction() as session:
        building = session.execute(
            sa.select(inst.id, inst.flow_uuid)
            .where(inst.vm_state == states.BUILDING).order_by(inst.created_at)).all()
        deleting = list(session.execute(
            sa.select(inst.id).where(inst.vm_state != states.DELETED,
                                     inst.vm_state != states.BUILDING,
                                     inst.task_state == states.DELETING)).scalars())
    boots = [instance_id for instance_id, flow_uuid in building
             if runner.boot_flow_state(flow_uuid) not in (tf_states.SUCCESS,
                                                          tf_states.REVERTED)]
    return boots, deleting


class JobboardDispatcher:
    """Post each flow as a job; the engines' conductors claim and run it."""

    @staticmethod
    def boot(instance_id):
        from provisioner.engine import jobs
        jobs.post(jobs.BOOT, instance_id, new=True)

    @staticmethod
    def resume(instance_id):
        from provisioner.engine import jobs
        jobs.post(jobs.BOOT, instance_id)

    @staticmethod
    def rollback(instance_id):
        from provisioner.engine import jobs
        from provisioner.engine import leases
        leases.request_rollback(instance_id)
        jobs.post(jobs.BOOT, instance_id)

    @staticmethod
    def delete(instance_id):
        from provisioner.engine import jobs
        jobs.post(jobs.DELETE, instance_id)

    @staticmethod
    def run_action(instance_id, action_id):
        from provisioner.engine import jobs
        jobs.post_action(instance_id, action_id)

    @staticmethod
    def volume_delete(volume_id):
        from provisioner.engine import jobs
        jobs.post_volume_delete(volume_id)

    @staticmethod
    def volume_flow(kind, resource_id):
        from provisioner.engine import jobs
        jobs.post_volume_flow(kind, resource_id)

    def stop(self):
        from provisioner.engine import jobs
        jobs.reset()
