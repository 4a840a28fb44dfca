"""Instance states, as in the documented state table."""

# vm_state: what the instance is.
BUILDING = 'building'
ACTIVE = 'active'
ERROR = 'error'
DELETED = 'deleted'

# task_state: what is being done to it while building, in this order.
SCHEDULING = 'scheduling'
NETWORKING = 'networking'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
SPAWNING = 'spawning'
DELETING = 'deleting'
BUILD_TASK_STATES = (SCHEDULING, NETWORKING, BLOCK_DEVICE_MAPPING, SPAWNING)

# power_state: what the hypervisor says.
NOSTATE = 'nostate'
RUNNING = 'running'
SHUTDOWN = 'shutdown'
