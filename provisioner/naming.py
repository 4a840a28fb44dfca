"""Deterministic names: a step re-run after a crash, or its revert, finds what it made."""

import uuid


def port_id(instance_id, network_id):
    return str(uuid.uuid5(uuid.UUID(instance_id), 'port:' + network_id))


def volume_id(instance_id, index):
    return str(uuid.uuid5(uuid.UUID(instance_id), 'volume:%d' % index))


def boot_volume_id(instance_id):
    """The volume a boot from volume makes for the server's root disk."""
    return str(uuid.uuid5(uuid.UUID(instance_id), 'boot-volume'))
