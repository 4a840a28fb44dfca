"""The quota steps: hand a project's quota back (the API reserved it with the instance
row); engine only."""

import logging

from provisioner.quota import counters

from flows.steps import base

LOG = logging.getLogger(__name__)


class HoldQuota(base.ProvisionerTask):
    """Hold the quota the API reserved for the boot; nothing to do going forward.

    Reversion strategy: a rolled-back boot gives its quota back to the project.
    """

    def execute(self, instance_id):
        pass

    def revert(self, instance_id, *args, **kwargs):
        LOG.warning('Releasing the quota of instance %s', instance_id)
        base.undo('release quota', counters.release, instance_id)


class ReleaseQuota(base.ProvisionerTask):
    """Give a deleted instance's quota back to its project."""

    def execute(self, instance_id):
        counters.release(instance_id)
