"""Configuration: one module per area, each with register_opts() and list_opts().

Nothing here reads an option's value at import time; code reads CONF when it runs.
"""

from oslo_config import cfg

from provisioner.conf import api
from provisioner.conf import ceph
from provisioner.conf import compute
from provisioner.conf import database
from provisioner.conf import default
from provisioner.conf import engine
from provisioner.conf import fault_injection
from provisioner.conf import identity
from provisioner.conf import image
from provisioner.conf import libvirt
from provisioner.conf import metadata
from provisioner.conf import network
from provisioner.conf import notifications
from provisioner.conf import scheduler

CONF = cfg.CONF

_AREAS = (api, ceph, compute, database, default, engine, fault_injection, identity, image,
          libvirt, metadata, network, notifications, scheduler)

for _area in _AREAS:
    _area.register_opts(CONF)
