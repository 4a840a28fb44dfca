"""Running the volume service's snapshot and copy flows (flows.snapshot).

No instance owns them: each is persisted in its resource's own logbook (the
snapshot's or the new volume's id) under a flow uuid derived from it, so a flow a
killed process left half-way is resumed where it stopped (or reverted) when it is
run again; it is forgotten once it ended. The resource's status (a snapshot
creating or deleting, a copied volume creating) is its claim, and what
``pending()`` finds to run again.
"""

import logging
import uuid

from taskflow import states as tf_states

from provisioner.engine import persistence
from provisioner.engine import runner
from provisioner.volume import snapshots
from provisioner.volume import volumes

from flows import constants
from flows import snapshot

LOG = logging.getLogger(__name__)

CREATE_SNAPSHOT = constants.CREATE_SNAPSHOT_FLOW
DELETE_SNAPSHOT = constants.DELETE_SNAPSHOT_FLOW
COPY_VOLUME = constants.COPY_VOLUME_FLOW


def _store(kind, resource_id):
    if kind == COPY_VOLUME:
        return {constants.VOLUME_ID: resource_id,
                constants.HOST: volumes.host_of(resource_id)}
    found = snapshots.describe(snapshot_id=resource_id)
    if not found:
        return None
    return {constants.SNAPSHOT_ID: resource_id, constants.HOST: found[0]['host'],
            constants.VOLUME_ID: found[0]['volume_id']}


_FACTORIES = {CREATE_SNAPSHOT: snapshot.create_flow,
              DELETE_SNAPSHOT: snapshot.delete_flow, COPY_VOLUME: snapshot.copy_flow}


def run(kind, resource_id, remote_steps=False):
    """Run (or resume) the flow ``kind`` of a snapshot or new volume; its end
    state. A failed delete leaves the snapshot error_deleting (deleting it again
    is allowed); a failed creation or copy was reverted to ``error`` by its guard.
    ``remote_steps`` (a conductor): the host step runs on the host's worker.
    """
    store = _store(kind, resource_id)
    if store is None:
        return tf_states.SUCCESS  # already gone: an ended delete run again
    flow_uuid = str(uuid.uuid5(uuid.NAMESPACE_URL, '%s/%s' % (kind, resource_id)))
    detail = (persistence.get_flow_detail(flow_uuid)
              or persistence.create_flow_detail(resource_id, kind, resource_id,
                                                flow_uuid))
    engine = runner.build_engine(_FACTORIES[kind](), store, detail,
                                 remote_steps=remote_steps, serial=True)
    state = tf_states.SUCCESS
    try:
        engine.run()
    except Exception as exc:
        LOG.warning('%s of %s failed: %s', kind, resource_id, exc)
        if kind == DELETE_SNAPSHOT:
            snapshots.mark(resource_id, snapshots.ERROR_DELETING)
        state = tf_states.FAILURE
    persistence.destroy_logbook(resource_id)
    return state


def pending():
    """(kind, resource id) of every flow a killed process left unfinished."""
    return ([(CREATE_SNAPSHOT, sid) for sid in snapshots.pending(snapshots.CREATING)]
            + [(DELETE_SNAPSHOT, sid) for sid in snapshots.pending(snapshots.DELETING)]
            + [(COPY_VOLUME, vid) for vid in snapshots.copies_pending()])
