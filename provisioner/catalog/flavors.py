"""Flavors: the vCPU, RAM and disk sizes an instance is booted with."""

import uuid

from provisioner.catalog import common
from provisioner.db import models
from provisioner import schemas
from provisioner import validation

KIND = 'Flavor'


def create(name, vcpus, ram_mib, disk_gib, flavor_id=None):
    """A new flavor; its id is a new uuid unless one is given (Nova's API may)."""
    validation.check({'name': name, 'vcpus': vcpus, 'ram_mib': ram_mib,
                      'disk_gib': disk_gib}, schemas.FLAVOR_CREATE)
    return common.add_unique(models.Flavor(id=flavor_id or str(uuid.uuid4()), name=name,
                                           vcpus=vcpus, ram_mib=ram_mib,
                                           disk_gib=disk_gib), KIND)


_catalog = common.Catalog(models.Flavor, KIND,
                          common.instances_using(models.Instance.flavor_id))
list_all = _catalog.list_all
show = _catalog.show
delete = _catalog.delete
