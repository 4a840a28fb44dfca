"""Configuration: one module per area, each with register_opts() and list_opts().

Nothing here reads an option's value at import time; code reads CONF when it runs.
"""

from oslo_config import cfg

from provisioner.conf import compute
from provisioner.conf import database
from provisioner.conf import default
from provisioner.conf import libvirt

CONF = cfg.CONF

_AREAS = (compute, database, default, libvirt)

for _area in _AREAS:
    _area.register_opts(CONF)
