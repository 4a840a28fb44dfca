"""[DEFAULT] options: where all-in-one state lives, what this host is called, and how
long a daemon may take to stop."""

import os
import socket

from oslo_config import cfg


def _default_state_path():
    # QEMU runs as libvirt-qemu and must traverse every directory above a guest's disks;
    # root's home is 0700, so root gets the conventional /var/lib path.
    if os.geteuid() == 0:
        return '/var/lib/provisioner'
    base = os.environ.get('XDG_DATA_HOME') or os.path.expanduser('~/.local/share')
    return os.path.join(base, 'provisioner')


default_opts = [
    cfg.StrOpt('state_path',
               default=_default_state_path(),
               sample_default='/var/lib/provisioner (root) or '
                              '$XDG_DATA_HOME/provisioner',
               help='Directory holding all-in-one state: the SQLite database, the '
                    'image cache, instance disks, config drives and console logs. '
                    'Every directory on this path must be traversable by the '
                    'hypervisor user (libvirt-qemu).'),
    cfg.HostAddressOpt('host',
                       default=socket.gethostname(),
                       sample_default='<hostname>',
                       help='Name of this hypervisor host as the scheduler knows it.'),
    cfg.IntOpt('graceful_shutdown_timeout',
               default=60,
               min=0,
               help='Seconds a daemon may take to stop after SIGTERM: an engine '
                    'hands its running boots back at their next step boundary, a '
                    'worker finishes the steps it runs. After that it writes every '
                    'thread\'s stack to its log and exits with status 1; another '
                    'engine takes its boots over as after a crash. 0 waits forever.'),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {'DEFAULT': default_opts}
