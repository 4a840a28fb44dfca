"""The engines' endpoint for workers: host reports, and the replay of deferred steps.

A worker has no database: it casts its capacity and liveness here
(``provisioner.worker.engine_rpcapi``). The engine that takes the report records it and
sends the host the undos and cleanups deferred while it was unreachable, oldest
first, then records what they changed (``record``/``record_undo``).
"""

import logging

import sqlalchemy as sa
from taskflow.types import failure as tf_failure

from provisioner.catalog import hosts
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import remote
from provisioner.engine import step_records
from provisioner import rpc
from provisioner.worker import engine_rpcapi as rpcapi

from flows.steps import base as steps_base
from flows.steps import registry

LOG = logging.getLogger(__name__)


def _task(row):
    """The engine half a row names (a registered step name, or the class path a
    row of release 2.1 holds), as the atom it was, with the records port."""
    return step_records.with_records(registry.engine_half(row.task)(row.name))


_COLUMNS = ('host', 'instance_id', 'task', 'name', 'payload', 'created_at')


def _take_next(host):
    """Remove the host's oldest deferred step and return it as a detached copy; one
    engine gets each (SKIP LOCKED)."""
    table = models.DeferredHostStep
    with db_api.transaction() as session:
        row = session.execute(
            sa.select(table).where(table.host == host).order_by(table.id).limit(1)
            .with_for_update(skip_locked=True)).scalar()
        if row is None:
            return None
        taken = models.DeferredHostStep(**{c: getattr(row, c) for c in _COLUMNS})
        session.execute(sa.delete(table).where(table.id == row.id))
        return taken


def _put_back(row):
    with db_api.transaction() as session:
        session.add(row)


# Rows deferred by an engine of the previous release (worker RPC API 1.0) name the
# TaskFlow method and hold no payload: it is built here from their arguments.
_METHODS = {'execute_task': remote.RUN, 'revert_task': remote.UNDO}


def _replay(host, row):
    task = _task(row)
    deferred = row.payload
    arguments = deferred['arguments']
    method = _METHODS.get(deferred['method'], deferred['method'])
    if method == remote.RUN:
        payload = deferred.get('payload') or steps_base.to_wire(
            task.build_payload(**arguments))
        return remote.run_remote(task, host, arguments, payload)
    payload = deferred.get('payload') or steps_base.to_wire(
        task.build_undo_payload(**arguments))
    return remote.undo_remote(task, host, arguments, payload,
                              deferred.get('result') or {'result': None})


def replay_deferred_steps(host):
    """Send the host its deferred undos and cleanups, oldest first; count them.

    A step the worker does not answer goes back, for its next report.
    """
    count = 0
    while (row := _take_next(host)) is not None:
        LOG.info('Replaying deferred %s of %s for instance %s on host %s',
                 row.payload.get('method'), row.name, row.instance_id, host)
        try:
            outcome = _replay(host, row)
        except rpc.messaging_errors():
            _put_back(row)
            LOG.warning('Host %s did not answer the replay of %s; kept for later',
                        host, row.name)
            break
        except Exception:
            LOG.exception('Replaying %s of instance %s failed; dropped', row.name,
                          row.instance_id)
            outcome = None
        if isinstance(outcome, tf_failure.Failure):
            LOG.warning('Deferred %s of instance %s failed on host %s: %s', row.name,
                        row.instance_id, host, outcome.exception_str)
        count += 1
    return count


class WorkerReportsEndpoint:
    """Serves ``report_host`` on topic [engine] topic (any engine takes a report)."""

    def __init__(self, version=rpcapi.VERSION):
        self.target = rpc.endpoint_target(version)

    def report_host(self, ctxt, host, capacity):
        hosts.report_capacity(host, capacity)
        replay_deferred_steps(host)
