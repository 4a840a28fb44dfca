"""What the tests read of a hypervisor and the database, which the product never asks.

A test checks what a step made or removed without a method of the product's for it:
these read libvirt through the driver's own connection and names.
"""

from provisioner.virt.libvirt import hotplug


def domain_exists(driver, instance_uuid):
    """Whether the instance's domain is defined on the driver's hypervisor."""
    return driver._guest(instance_uuid) is not None


def volume_exists(driver, volume_id):
    """Whether the volume's file is in its pool on the driver's host."""
    return bool(driver.volume_path(volume_id))


def volume_attached(driver, instance_uuid, volume_id):
    """The device the volume has in the domain (live or defined), or None."""
    guest, path = driver._guest(instance_uuid), driver.volume_path(volume_id)
    target = hotplug.target_of(guest, path) if guest and path else None
    return target and '/dev/' + target


def has_claim(instance_id):
    """Whether the instance holds a claim on a host (its allocation row)."""
    from provisioner.db import api as db_api
    from provisioner.db import models
    with db_api.transaction() as session:
        return session.get(models.Allocation, instance_id) is not None
