"""Forget what this process cached: tests and benches switch databases and hypervisors."""

from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.engine import persistence
from provisioner import notifications
from provisioner import policy
from provisioner import virt


def reset_state():
    db_api.dispose()
    persistence.reset()
    virt.reset_driver()
    instances.build_request.cache_clear()
    policy.reset()
    notifications.reset()
