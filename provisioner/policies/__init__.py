"""Every policy rule provisioner enforces, with its documented default.

``tox -e genpolicy`` writes etc/provisioner/policy.yaml.sample from list_rules(); an
operator overrides any rule in policy.yaml (``[oslo_policy] policy_file``).
"""

import itertools

from provisioner.policies import base
from provisioner.policies import catalog
from provisioner.policies import identity
from provisioner.policies import instances
from provisioner.policies import keystone
from provisioner.policies import volumes


def list_rules():
    return list(itertools.chain(base.list_rules(), instances.list_rules(),
                                catalog.list_rules(), identity.list_rules(),
                                keystone.list_rules(),
                                volumes.list_rules()))
