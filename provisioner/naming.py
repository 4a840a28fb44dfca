"""Deterministic names: a step re-run after a crash, or its revert, finds what it made;
and the names a guest is given from its instance's."""

import re
import uuid


def port_id(instance_id, network_id):
    return str(uuid.uuid5(uuid.UUID(instance_id), 'port:' + network_id))


def volume_id(instance_id, index):
    return str(uuid.uuid5(uuid.UUID(instance_id), 'volume:%d' % index))


def boot_volume_id(instance_id):
    """The volume a boot from volume makes for the server's root disk."""
    return str(uuid.uuid5(uuid.UUID(instance_id), 'boot-volume'))


def disk_letters(index):
    """The letters of the ``index``-th disk on a bus: a..z, then aa.., as the Linux
    kernel names them (vda, vdb, ... vdaa)."""
    letters = ''
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord('a') + rem) + letters
    return letters


def hostname(instance_name):
    """The guest's hostname: the instance name folded to an RFC 1123 label (the
    config drive gives it to the guest; Nova's API shows it to admins)."""
    label = re.sub(r'[^a-z0-9-]', '-', instance_name.lower()).strip('-')
    return label[:63] or 'instance'
