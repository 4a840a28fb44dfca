"""The conductor: claim jobs from the jobboard and run their flows, durably.

Differences from TaskFlow's stock conductors, each for a measured reason:

* Claims expire (``[engine] claim_ttl``) and a heartbeat thread keeps them, and the
  instance lease, alive while the flow runs. A stock Redis claim never expires, so a
  killed engine's boot would never be taken over.
* The instance lease fences the flow store: an engine that stalled past its claim
  gets LeaseLost at its next write and stops, never running next to its successor.
* The job ends the way its flow (a boot, a power action) did: consumed when it
  succeeded, trashed when it was rolled back (the stock conductor consumes reverted
  jobs too), abandoned when the run was suspended (SIGTERM, a rollback request),
  so another engine continues.
* SIGTERM stops claiming, suspends the running flows at their next step boundary,
  hands their jobs back, and exits.
* A job that failed unexpectedly is handed back, and this engine leaves it alone
  for a while (1 s, doubling up to a minute): a fault that persists must not turn
  into a loop claiming it again several times a second.
"""

from concurrent import futures
import logging
import os
import threading
import time
import uuid

from taskflow import exceptions as tf_exc
from taskflow import states as tf_states

from provisioner.compute import instances
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.engine import jobs
from provisioner.engine import leases
from provisioner.engine import runner
from provisioner.engine import volume_flows
from provisioner import exception

LOG = logging.getLogger(__name__)

CONSUME, TRASH, ABANDON, LEAVE = 'consume', 'trash', 'abandon', 'leave'
RETRY_DELAY_FIRST, RETRY_DELAY_MAX = 1.0, 60.0  # seconds, after an unexpected failure


class _Run:
    """One claimed job being worked on, as the heartbeat sees it."""

    def __init__(self, job):
        self.job = job
        self.lease = None
        self.engine = None
        self.rolling_back = False
        self.rollback_wanted = False
        self.lost = False

    def attach(self, engine):
        self.engine = engine

    def suspend(self):
        if self.engine is not None:
            self.engine.suspend()


def owner_name():
    """Unique per process: a restarted engine is a new owner, never its old self."""
    return '%s:%d:%s' % (CONF.host, os.getpid(), uuid.uuid4().hex[:8])


def _job_outcome(flow_state):
    """Consume a job whose flow succeeded, trash a reverted one, hand back the rest."""
    if flow_state == tf_states.SUCCESS:
        return CONSUME
    if flow_state in (tf_states.REVERTED, tf_states.FAILURE, tf_states.REVERT_FAILURE):
        return TRASH
    return ABANDON


class Conductor:
    def __init__(self, board, name=None, on_lease_taken=None):
        self.name = name or owner_name()
        self._board = board
        # Called inside the transaction that takes a lease (fault injection only).
        self._on_lease_taken = on_lease_taken
        self._pool = futures.ThreadPoolExecutor(
            max_workers=CONF.engine.max_concurrent_flows,
            thread_name_prefix='provisioner-flow')
        self._running = {}
        # job uuid -> (monotonic time before which it is not claimed, delay)
        self._failed = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._heartbeat_stop = threading.Event()
        runner.expect_concurrent_flows(CONF.engine.max_concurrent_flows)

    # -- lifecycle -----------------------------------------------------------------

    def run(self):
        """Claim and run jobs until stop(); then hand back what is still running."""
        heartbeat = threading.Thread(target=self._heartbeat, name='provisioner-heartbeat',
                                     daemon=True)
        heartbeat.start()
        LOG.info('Conductor %s claiming jobs from jobboard %s', self.name,
                 CONF.jobboard.name)
        while not self._stopping.is_set():
            try:
                self._claim_jobs()
            except Exception as exc:  # Redis blip: say so and keep going
                LOG.warning('Looking for jobs failed (%s: %s); retrying',
                            type(exc).__name__, exc)
                self._stopping.wait(1.0)
            self._stopping.wait(CONF.engine.poll_interval)
        with self._lock:
            running = list(self._running.values())
        if running:
            LOG.info('Stopping: suspending %d running flow(s) at their next step '
                     'boundary and handing their jobs back', len(running))
        for run in running:
            run.suspend()
        self._pool.shutdown(wait=True)
        self._heartbeat_stop.set()
        heartbeat.join()
        LOG.info('Conductor %s stopped', self.name)

    def stop(self):
        self._stopping.set()
        with self._lock:
            running = list(self._running.values())
        for run in running:
            run.suspend()

    # -- claiming ------------------------------------------------------------------

    def _full(self):
        with self._lock:
            return len(self._running) >= CONF.engine.max_concurrent_flows

    def _claim_jobs(self):
        if self._full():
            return  # no room: listing the jobboard would be wasted (it grows with it)
        for job in self._board.iterjobs(only_unclaimed=True, ensure_fresh=True):
            if self._stopping.is_set() or self._full():
                return
            if self._backing_off(job):
                continue
            try:
                self._board.claim(job, self.name, expiry=CONF.engine.claim_ttl)
            except (tf_exc.UnclaimableJob, tf_exc.NotFound):
                continue  # another engine was quicker
            run = _Run(job)
            with self._lock:
                self._running[job.uuid] = run
            self._pool.submit(self._work, run)

    def _backing_off(self, job):
        with self._lock:
            until, _delay = self._failed.get(job.uuid, (0.0, 0.0))
        return time.monotonic() < until

    def _back_off(self, job):
        """Leave the job alone for a while; return for how long."""
        now = time.monotonic()
        with self._lock:
            _until, previous = self._failed.get(job.uuid, (0.0, None))
            delay = RETRY_DELAY_FIRST if previous is None else min(2 * previous,
                                                                   RETRY_DELAY_MAX)
            self._failed[job.uuid] = (now + delay, delay)
            # Bounded: a job not seen failing for a while ended on another engine.
            for stale in [uuid_ for uuid_, (until, _) in self._failed.items()
                          if until + 2 * RETRY_DELAY_MAX < now]:
                del self._failed[stale]
        return delay

    def _heartbeat(self):
        ttl = CONF.engine.claim_ttl
        while not self._heartbeat_stop.wait(CONF.engine.heartbeat_interval):
            with self._lock:
                running = list(self._running.values())
            for run in running:
                self._keep_alive(run, ttl)

    @staticmethod
    def _keep_alive(run, ttl):
        try:
            run.job.extend_expiry(ttl)
        except Exception as exc:
            LOG.warning('Could not extend the claim of job %s: %s', run.job.name, exc)
        if run.lease is None or run.lost:
            return
        try:
            wants_rollback = leases.renew(run.lease, ttl)
        except leases.LeaseLost:
            LOG.warning('Lost the lease of instance %s to another engine; stopping '
                        'its flow', run.lease.instance_id)
            run.lost = True
            run.suspend()
            return
        except Exception as exc:  # database blip: the fence still protects the flow
            LOG.warning('Could not renew the lease of instance %s: %s',
                        run.lease.instance_id, exc)
            return
        if wants_rollback and not run.rolling_back and not run.rollback_wanted:
            LOG.info('Rollback requested for instance %s: suspending its boot to '
                     'roll it back', run.lease.instance_id)
            run.rollback_wanted = True
            run.suspend()

    # -- running -------------------------------------------------------------------

    def _work(self, run):
        job = run.job
        outcome = ABANDON
        if job.details['action'] in (jobs.VOLUME_DELETE, jobs.VOLUME_FLOW):
            # No instance to lease: the volume's (snapshot's) status is its claim,
            # and the steps are idempotent should two engines run it.
            if job.details['action'] == jobs.VOLUME_FLOW:
                volume_flows.run(job.details['kind'], job.details['resource_id'],
                                 remote_steps=True)
            else:
                runner.run_volume_delete(jobs.volume_of(job), remote_steps=True)
            with self._lock:
                self._running.pop(job.uuid, None)
            self._finish(job, CONSUME)
            return
        instance_id = job.details['instance_id']
        try:
            run.lease = leases.acquire(instance_id, self.name, CONF.engine.claim_ttl,
                                       before_commit=self._on_lease_taken)
            if run.lease is None:
                # Still leased: a delete waiting for its boot, or an engine that
                # stalled past its claim. Hand the job back and look again later.
                LOG.debug('Instance %s is leased by another engine; job %s waits',
                          instance_id, job.name)
            elif job.details['action'] == jobs.DELETE:
                runner.run_delete(instance_id, lease=run.lease)
                outcome = CONSUME
            elif job.details['action'] == jobs.POWER:
                outcome = self._power_action(run, instance_id,
                                             job.details['action_id'])
            else:
                outcome = self._boot(run, instance_id)
        except leases.LeaseLost:
            LOG.warning('Job %s: another engine took instance %s over; leaving it',
                        job.name, instance_id)
            outcome = LEAVE
        except exception.NotFound:
            LOG.warning('Job %s: instance %s no longer exists; dropping the job',
                        job.name, instance_id)
            outcome = TRASH
        except Exception:
            delay = self._back_off(job)
            LOG.exception('Job %s failed unexpectedly; handing it back (not claimed '
                          'here again for %.0f s)', job.name, delay)
        else:
            with self._lock:
                self._failed.pop(job.uuid, None)
        finally:
            with self._lock:
                self._running.pop(job.uuid, None)
            if run.lease is not None and not run.lost:
                self._quietly(leases.release, run.lease)
            self._finish(job, LEAVE if run.lost else outcome)

    def _boot(self, run, instance_id):
        with db_api.transaction() as session:
            row = instances.get_row(session, instance_id)
            flow_uuid, vm_state = row.flow_uuid, row.vm_state
        flow_state = runner.boot_flow_state(flow_uuid)
        if vm_state == states.DELETED or flow_state in (tf_states.SUCCESS,
                                                        tf_states.REVERTED):
            return CONSUME if flow_state == tf_states.SUCCESS else TRASH
        run.rolling_back = leases.rollback_requested(instance_id)
        state = runner.run_boot(instance_id, flow_uuid, rollback=run.rolling_back,
                                lease=run.lease, on_engine=run.attach)
        if state == tf_states.SUSPENDED and run.rollback_wanted and not run.lost \
                and not self._stopping.is_set():
            run.rolling_back = True
            state = runner.run_boot(instance_id, flow_uuid, rollback=True,
                                    lease=run.lease, on_engine=run.attach)
        return _job_outcome(state)

    @staticmethod
    def _power_action(run, instance_id, action_id):
        # A rollback request is about a boot; it must not suspend a power action.
        run.rolling_back = True
        state = runner.run_action(instance_id, action_id, lease=run.lease,
                                  on_engine=run.attach)
        return _job_outcome(state)

    def _finish(self, job, outcome):
        actions = {CONSUME: self._board.consume, TRASH: self._board.trash,
                   ABANDON: self._board.abandon}
        if outcome in actions:
            LOG.info('Job %s: %s', job.name, outcome)
            self._quietly(actions[outcome], job, self.name)

    @staticmethod
    def _quietly(func, *args):
        try:
            func(*args)
        except Exception as exc:  # an expired claim or lease: the next owner decides
            LOG.warning('%s failed: %s', getattr(func, '__name__', func), exc)
