"""Turn a step's failed cleanups into leftovers, and a clean one into resolutions."""

import logging

from provisioner import leftovers

from flows import constants as c

LOG = logging.getLogger(__name__)

# What each cleanup step removes, by atom name (atom names never change).
STEP_KINDS = {
    c.DEFINE_DOMAIN: 'domain', c.START_DOMAIN: 'domain', c.DESTROY_DOMAIN: 'domain',
    c.CREATE_ROOT_DISK: 'root_disk', c.DELETE_ROOT_DISK: 'root_disk',
    c.CREATE_VOLUMES: 'volume', c.DELETE_VOLUMES: 'volume',
    c.BUILD_CONFIG_DRIVE: 'config_drive', c.DELETE_CONFIG_DRIVE: 'config_drive',
    c.RESERVE_DHCP: 'dhcp_host', c.RELEASE_DHCP: 'dhcp_host',
    c.DELETE_INSTANCE_FILES: 'instance_dir',
    c.ALLOCATE_PORTS: 'port', c.RELEASE_PORTS: 'port',
    c.CLAIM_RESOURCES: 'claim', c.RELEASE_CLAIM: 'claim',
    c.HOLD_QUOTA: 'quota', c.RELEASE_QUOTA: 'quota',
}
# The delete flow's steps: when one of them succeeds, its kind is gone.
_DELETE_STEPS = (c.DESTROY_DOMAIN, c.DELETE_CONFIG_DRIVE, c.DELETE_ROOT_DISK,
                 c.DELETE_VOLUMES, c.RELEASE_DHCP, c.DELETE_INSTANCE_FILES)


def cleanup_failures(result):
    """The 'what: error' list a revert or cleanup step returned, or []."""
    if isinstance(result, dict):
        return list(result.get(c.CLEANUP_FAILED) or ())
    return []


def is_cleanup_step(step):
    """True for a delete flow step (its execute removes something)."""
    return step in _DELETE_STEPS


def record(instance_id, step, host, failures):
    """Record what a step's cleanup left on ``host`` (never raises: the flow goes
    on whatever the bookkeeping does)."""
    try:
        leftovers.record_cleanup_failures(instance_id, host,
                                          STEP_KINDS.get(step, step), failures)
    except Exception:
        LOG.exception('Could not record the leftovers of step %s of instance %s',
                      step, instance_id)


def resolve(instance_id, step):
    """A delete step succeeded: what it removes is gone, for that instance."""
    try:
        leftovers.resolve(STEP_KINDS[step], instance_id=instance_id)
    except Exception:
        LOG.exception('Could not resolve the leftovers of step %s of instance %s',
                      step, instance_id)
