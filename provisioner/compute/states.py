"""Instance states, as in the documented state table, and the API status they show as."""

# vm_state: what the instance is.
BUILDING = 'building'
ACTIVE = 'active'
STOPPED = 'stopped'
ERROR = 'error'
DELETED = 'deleted'

# task_state: what is being done to it while building, in this order.
SCHEDULING = 'scheduling'
NETWORKING = 'networking'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
SPAWNING = 'spawning'
DELETING = 'deleting'
BUILD_TASK_STATES = (SCHEDULING, NETWORKING, BLOCK_DEVICE_MAPPING, SPAWNING)

# task_state of the power actions (Nova's names).
POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
REBOOTING = 'rebooting'
REBOOTING_HARD = 'rebooting_hard'
# task_state of a rebuild (Nova's): status REBUILD whatever the vm_state.
REBUILDING = 'rebuilding'
# task_state of a live migration (Nova's): status MIGRATING.
MIGRATING = 'migrating'
# task_states of a server's snapshot (Nova's createImage), in this order; the
# status stays the vm_state's.
IMAGE_SNAPSHOT = 'image_snapshot'
IMAGE_PENDING_UPLOAD = 'image_pending_upload'
IMAGE_UPLOADING = 'image_uploading'

# power_state: what the hypervisor says.
NOSTATE = 'nostate'
RUNNING = 'running'
SHUTDOWN = 'shutdown'

# Nova's numeric power states, as the compute API reports them.
POWER_STATE_CODES = {NOSTATE: 0, RUNNING: 1, SHUTDOWN: 4}

_STATUS = {BUILDING: 'BUILD', ACTIVE: 'ACTIVE', STOPPED: 'SHUTOFF', ERROR: 'ERROR',
           DELETED: 'DELETED'}
# A task that shows as its own status while the instance is in a given vm_state.
_TASK_STATUS = {(ACTIVE, REBOOTING): 'REBOOT', (ACTIVE, REBOOTING_HARD): 'HARD_REBOOT',
                (STOPPED, REBOOTING_HARD): 'HARD_REBOOT', (ACTIVE, REBUILDING): 'REBUILD',
                (STOPPED, REBUILDING): 'REBUILD', (ERROR, REBUILDING): 'REBUILD',
                (ACTIVE, MIGRATING): 'MIGRATING'}


def api_status(vm_state, task_state):
    """The compute API's status (Nova's _STATE_MAP) for a vm_state and task_state."""
    return _TASK_STATUS.get((vm_state, task_state)) or _STATUS.get(vm_state, 'UNKNOWN')
