"""Guest files readable by their owner and the hypervisor's user, nobody else.

Disks, config drives (which hold user data) and console logs are private to the guest.
QEMU runs as ``[libvirt] hypervisor_user`` (libvirt-qemu): it reaches them through the
group of that user, so directories are 0750 and files 0640, group-owned by it. libvirt's
DAC driver then hands running guests' files to that user and gives them back on stop.
"""

import os
import pwd

from provisioner.conf import CONF

DIR_MODE = 0o750
FILE_MODE = 0o640


def hypervisor_gid():
    """The hypervisor user's group, or None (no such user, or we cannot chgrp)."""
    try:
        gid = pwd.getpwnam(CONF.libvirt.hypervisor_user).pw_gid
    except KeyError:
        return None
    if os.geteuid() != 0 and gid not in os.getgroups():
        return None
    return gid


def share_with_hypervisor(path, mode):
    os.chmod(path, mode)
    gid = hypervisor_gid()
    if gid is not None and os.stat(path).st_gid != gid:
        os.chown(path, -1, gid)
    return path


def private_dir(path):
    """Create ``path`` (and parents, 0755) and make it 0750, hypervisor's group."""
    os.makedirs(path, mode=DIR_MODE, exist_ok=True)
    return share_with_hypervisor(path, DIR_MODE)


def private_file(path):
    return share_with_hypervisor(path, FILE_MODE)
