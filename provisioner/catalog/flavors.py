"""Flavors: the vCPU, RAM and disk sizes an instance is booted with."""

import uuid

from provisioner.catalog import common
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import schemas
from provisioner import validation

KIND = 'Flavor'


def create(name, vcpus, ram_mib, disk_gib, flavor_id=None, description=None):
    """A new flavor; its id is a new uuid unless one is given (Nova's API may)."""
    validation.check({'name': name, 'vcpus': vcpus, 'ram_mib': ram_mib,
                      'disk_gib': disk_gib}, schemas.FLAVOR_CREATE)
    return common.add_unique(models.Flavor(id=flavor_id or str(uuid.uuid4()), name=name,
                                           vcpus=vcpus, ram_mib=ram_mib,
                                           disk_gib=disk_gib, description=description),
                             KIND)


def set_description(flavor_id, description):
    """Nova's PUT /flavors/{id} (2.55): the description is all that changes."""
    with db_api.transaction() as session:
        row = session.get(models.Flavor, flavor_id)
        if row is None:
            raise exception.NotFound(kind=KIND, name=flavor_id)
        row.description = description
        session.flush()
        return common.to_dict(row)


_catalog = common.Catalog(models.Flavor, KIND,
                          common.instances_using(models.Instance.flavor_id))
list_all = _catalog.list_all
show = _catalog.show
delete = _catalog.delete
