"""Atom names and store keys. Atom names are the resume key: never rename one."""

# Store keys (inputs every task may require; IDs only, never objects or secrets).
INSTANCE_ID = 'instance_id'
ACTION_ID = 'action_id'  # the instance action a power flow carries out

# Provided values.
HOST_CANDIDATES = 'host_candidates'
HOST = 'host'
FAILED_HOSTS = 'failed_hosts'
IMAGE_FILES = 'image_files'
ROOT_DISK = 'root_disk'
PORTS = 'ports'
VOLUMES = 'volumes'
CONFIG_DRIVE = 'config_drive'

# The result of a revert whose cleanup failed in part: {CLEANUP_FAILED: ['what: error']}.
CLEANUP_FAILED = 'cleanup_failed'

# Boot flow atoms, in the order of the documented request flow.
BOOT_FLOW = 'boot-instance'
LIFECYCLE_GUARD = 'instance-lifecycle-guard'
HOLD_QUOTA = 'hold-quota'
SELECT_HOSTS = 'select-hosts'
RESCHEDULE = 'reschedule'
RESCHEDULE_FLOW = 'reschedule-flow'
CLAIM_RESOURCES = 'claim-resources'
PREPARE_RESOURCES = 'prepare-resources'
FETCH_IMAGE = 'fetch-image'
CREATE_ROOT_DISK = 'create-root-disk'
ALLOCATE_PORTS = 'allocate-ports'
RESERVE_DHCP = 'reserve-dhcp'
CREATE_VOLUMES = 'create-volumes'
BUILD_CONFIG_DRIVE = 'build-config-drive'
DEFINE_DOMAIN = 'define-domain'
START_DOMAIN = 'start-domain'
WAIT_FOR_BOOT_RETRY = 'wait-for-boot-retry'
WAIT_FOR_BOOT = 'wait-for-boot'
MARK_ACTIVE = 'mark-active'

# Delete flow atoms.
DELETE_FLOW = 'delete-instance'
DESTROY_DOMAIN = 'destroy-domain'
DELETE_CONFIG_DRIVE = 'delete-config-drive'
DELETE_ROOT_DISK = 'delete-root-disk'
DELETE_VOLUMES = 'delete-volumes'
RELEASE_DHCP = 'release-dhcp'
RELEASE_PORTS = 'release-ports'
RELEASE_CLAIM = 'release-claim'
RELEASE_QUOTA = 'release-quota'
DELETE_INSTANCE_FILES = 'delete-instance-files'
MARK_DELETED = 'mark-deleted'

# Power action flows (stop, start, reboot): guard -> host step -> record the outcome.
STOP_FLOW = 'stop-instance'
START_FLOW = 'start-instance'
REBOOT_FLOW = 'reboot-instance'
POWER_ACTION_GUARD = 'power-action-guard'
POWER_OFF_DOMAIN = 'power-off-domain'
POWER_ON_DOMAIN = 'power-on-domain'
REBOOT_DOMAIN = 'reboot-domain'
RECORD_POWER_STATE = 'record-power-state'

# Volume service flows: attach and detach are instance actions (guard -> host steps
# -> record); a volume's delete is a flow of its own.
VOLUME_ID = 'volume_id'
VOLUME_PAYLOAD = 'volume_payload'
ATTACH_VOLUME_FLOW = 'attach-volume'
DETACH_VOLUME_FLOW = 'detach-volume'
DELETE_VOLUME_FLOW = 'delete-volume'
VOLUME_ACTION_GUARD = 'volume-action-guard'
MAKE_VOLUME = 'make-volume'
PLUG_VOLUME = 'plug-volume'
UNPLUG_VOLUME = 'unplug-volume'
RECORD_ATTACHMENT = 'record-attachment'
RECORD_DETACHMENT = 'record-detachment'
DELETE_VOLUME_FILE = 'delete-volume-file'
FORGET_VOLUME = 'forget-volume'

# The rebuild flow: guard -> power off -> new image, new disk swapped in, new config
# drive -> domain redefined (-> started, running) -> replaced files deleted -> record.
REBUILD_FLOW = 'rebuild-instance'
REBUILD_GUARD = 'rebuild-guard'
REBUILD_IMAGE_FILES = 'rebuild_image_files'
POWER_OFF_FOR_REBUILD = 'power-off-for-rebuild'
FETCH_REBUILD_IMAGE = 'fetch-rebuild-image'
CREATE_REBUILD_DISK = 'create-rebuild-disk'
SWAP_ROOT_DISK = 'swap-root-disk'
REBUILD_CONFIG_DRIVE = 'rebuild-config-drive'
REDEFINE_DOMAIN = 'redefine-domain'
START_REBUILT_DOMAIN = 'start-rebuilt-domain'
WAIT_FOR_REBUILD_RETRY = 'wait-for-rebuild-retry'
WAIT_FOR_REBUILD = 'wait-for-rebuild'
DELETE_REPLACED_FILES = 'delete-replaced-files'
RECORD_REBUILD = 'record-rebuild'
# Snapshot and copy flows of the volume service (no instance): run on the host
# holding the bytes, found again by the snapshot's or the new volume's status.
SNAPSHOT_ID = 'snapshot_id'
CREATE_SNAPSHOT_FLOW = 'create-snapshot'
DELETE_SNAPSHOT_FLOW = 'delete-snapshot'
COPY_VOLUME_FLOW = 'copy-volume'
SNAPSHOT_GUARD = 'snapshot-guard'
SNAPSHOT_VOLUME_FILE = 'snapshot-volume-file'
RECORD_SNAPSHOT = 'record-snapshot'
DELETE_SNAPSHOT_FILE = 'delete-snapshot-file'
FORGET_SNAPSHOT = 'forget-snapshot'
COPY_GUARD = 'copy-volume-guard'
COPY_VOLUME_FILE = 'copy-volume-file'
RECORD_VOLUME_COPY = 'record-volume-copy'

# The live migration flow: guard -> claim on the destination -> prepare it (networks,
# secret, files) -> libvirt moves the guest -> record -> the source's files removed.
# The store names both hosts (from the migration record).
SOURCE_HOST = 'source_host'
DEST_HOST = 'dest_host'
MIGRATION_TARGET_PATHS = 'migration_target_paths'
LIVE_MIGRATION_FLOW = 'live-migrate-instance'
LIVE_MIGRATION_GUARD = 'live-migration-guard'
CLAIM_MIGRATION_TARGET = 'claim-migration-target'
PREPARE_MIGRATION_TARGET = 'prepare-migration-target'
MIGRATE_DOMAIN = 'migrate-domain'
RECORD_LIVE_MIGRATION = 'record-live-migration'
FORGET_MIGRATED_GUEST = 'forget-migrated-guest'
# A server's snapshot into a new image (Nova's createImage): guard -> capture the
# root disk -> upload it into the image -> delete the capture -> record.
CREATE_IMAGE_FLOW = 'create-image'
IMAGE_SNAPSHOT = 'image_snapshot'  # {'image_id', 'running', 'direct_pool'}
CAPTURED = 'captured'
IMAGE_SNAPSHOT_GUARD = 'image-snapshot-guard'
CAPTURE_ROOT_DISK = 'capture-root-disk'
UPLOAD_SNAPSHOT = 'upload-snapshot'
DELETE_CAPTURE = 'delete-capture'
RECORD_IMAGE_SNAPSHOT = 'record-image-snapshot'
