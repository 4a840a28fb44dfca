"""A snapshot's status set by hand, as Cinder's snapshot actions do:
os-reset_status (admins: any of Cinder's snapshot statuses, for a snapshot a flow
left half-way) and os-update_snapshot_status (the status and progress a
snapshot's maker reports: creating -> available or error, deleting ->
error_deleting)."""

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import schemas
from provisioner import validation
from provisioner.volume import rules

STATUSES = ('creating', 'available', 'deleting', 'error', 'error_deleting',
            'unmanaging', 'backing-up', 'restoring')
# Cinder's os-update_snapshot_status: the moves a snapshot's maker may report.
_MOVES = {'creating': ('creating', 'available', 'error'),
          'deleting': ('deleting', 'error_deleting')}
RESET = schemas.request('snapshot reset-status', {'status': {
    'enum': list(STATUSES),
    'errorMessage': "a snapshot's status can be reset to %s, not {value!r}"
                    % ', '.join(STATUSES)}}, required=['status'])
UPDATE = schemas.request('snapshot status update', {
    'status': {'type': 'string', 'errorMessage': 'status must be a string'},
    'progress': {'type': 'string', 'pattern': '^[0-9]{1,3}%$',
                 'errorMessage': "progress must be a percentage such as '80%', not "
                                 "{value!r}"}}, required=['status'])


def _get(context, session, snapshot_id, action):
    return rules.get_owned(context, session, models.VolumeSnapshot, 'Snapshot',
                           snapshot_id, action)


def reset(context, snapshot_id, status):
    validation.check({'status': status}, RESET, none_is_absent=False)
    with db_api.transaction() as session:
        row = _get(context, session, snapshot_id, 'volume:admin')
        row.status, row.updated_at = status, models.utcnow()


def update(context, snapshot_id, status, progress=None):
    validation.check({'status': status, 'progress': progress}, UPDATE)
    with db_api.transaction() as session:
        row = _get(context, session, snapshot_id, 'volume:update_snapshot')
        if status not in _MOVES.get(row.status, ()):
            raise exception.Invalid(
                reason='Provided snapshot status %s not allowed for snapshot with '
                       'status %s.' % (status, row.status))
        row.status, row.updated_at = status, models.utcnow()
        if progress is not None:
            row.progress = progress
