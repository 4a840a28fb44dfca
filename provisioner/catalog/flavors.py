"""Flavors: the vCPU, RAM and disk sizes an instance is booted with."""

import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.compute import states
from provisioner.db import models
from provisioner import validation

KIND = 'Flavor'


def create(name, vcpus, ram_mib, disk_gib):
    validation.name(name, 'flavor name')
    validation.positive_int(vcpus, 'vcpus', 256)
    validation.positive_int(ram_mib, 'ram (MiB)', 4 * 1024 * 1024)
    validation.non_negative_int(disk_gib, 'disk (GiB)', 64 * 1024)
    return common.add_unique(models.Flavor(id=str(uuid.uuid4()), name=name, vcpus=vcpus,
                                           ram_mib=ram_mib, disk_gib=disk_gib), KIND)


def _in_use(session, flavor):
    names = session.execute(sa.select(models.Instance.name).where(
        models.Instance.flavor_id == flavor.id,
        models.Instance.vm_state != states.DELETED)).scalars().all()
    return ', '.join(names)


def list_all():
    return common.list_all(models.Flavor)


def show(name_or_id):
    return common.show(models.Flavor, name_or_id, KIND)


def delete(name_or_id):
    return common.delete(models.Flavor, name_or_id, KIND, _in_use)
