"""[compute] options: how boots run and how long they may take."""

from oslo_config import cfg

compute_opts = [
    cfg.IntOpt('boot_timeout',
               default=120,
               min=1,
               help='Seconds to wait for a started domain to report running before '
                    'the boot fails and is rolled back. See also power_poll_interval.'),
    cfg.FloatOpt('power_poll_interval',
                 default=0.2,
                 min=0.01,
                 help='Seconds between two checks of a starting domain\'s power '
                      'state. Each check is one step execution, so a resumed boot '
                      're-checks the real state.'),
    cfg.IntOpt('shutdown_timeout',
               default=60,
               min=0,
               help='Seconds a stop (or soft reboot) waits for the guest to shut '
                    'down after the ACPI power button before powering it off at '
                    'once. 0 powers off at once.'),
    cfg.IntOpt('volume_detach_timeout',
               default=30,
               min=1,
               help='Seconds a volume detach waits for the running guest to release '
                    'the disk before it fails (the volume then stays attached, '
                    'in-use). Related: [compute] shutdown_timeout.'),
    cfg.IntOpt('max_parallel_steps',
               default=4,
               min=1,
               help='Independent steps of one boot (image, ports, volumes, config '
                    'drive) run in parallel on at most this many threads. 1 runs '
                    'every step in turn.'),
    cfg.IntOpt('max_user_data_bytes',
               default=65536,
               min=0,
               help='Largest user-data accepted by boot, in bytes.'),
    cfg.BoolOpt('force_config_drive',
                default=True,
                help='Give every new server a config drive (Nova\'s [DEFAULT] '
                     'force_config_drive, whose default is False). On by default: '
                     'a guest then has its documents with no metadata service '
                     'set up. False: only a server asking for one (config_drive: '
                     'true) gets a drive, the others read the metadata service '
                     '(169.254.169.254). Related options: [metadata] '
                     'proxy_shared_secret.'),
]

def register_opts(conf):
    conf.register_opts(compute_opts, group='compute')


def list_opts():
    return {'compute': compute_opts}
