"""[scheduler] and [quota] options: how hosts are chosen and how much a project may use."""

from oslo_config import cfg

scheduler_opts = [
    cfg.ListOpt('enabled_filters',
                default=['AliveFilter', 'EnabledFilter', 'AvailabilityZoneFilter',
                         'RamFilter', 'VcpuFilter', 'DiskFilter', 'ImagePropertiesFilter',
                         'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter'],
                help='Host filters applied to every boot, in this order. A host must '
                     'pass all of them. Possible values: AliveFilter, EnabledFilter, '
                     'AvailabilityZoneFilter, RamFilter, VcpuFilter, DiskFilter, '
                     'ImagePropertiesFilter, ServerGroupAffinityFilter, '
                     'ServerGroupAntiAffinityFilter.'),
    cfg.FloatOpt('ram_weight_multiplier',
                 default=1.0,
                 help='Weight of a host\'s free RAM. Positive spreads instances over '
                      'hosts (most free RAM first), negative packs them, 0 ignores RAM.'),
    cfg.FloatOpt('vcpu_weight_multiplier',
                 default=1.0,
                 help='Weight of a host\'s free vCPUs; positive spreads, negative packs.'),
    cfg.IntOpt('max_attempts',
               default=3,
               min=1,
               help='Hosts a boot may be tried on: the chosen one plus max_attempts - 1 '
                    'alternates. A spawn failure on one host is undone there and the '
                    'boot is rescheduled to the next alternate.'),
    cfg.IntOpt('host_down_time',
               default=60,
               min=1,
               # Named [worker] host_down_time in the distributed engine's first draft.
               deprecated_opts=[cfg.DeprecatedOpt('host_down_time', group='worker')],
               help='Seconds since a host\'s last capacity report after which it is '
                    'considered down and AliveFilter removes it.'),
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help='Availability zone of a host that reports without naming one.'),
    cfg.FloatOpt('cpu_allocation_ratio',
                 default=4.0,
                 min=0.0,
                 help='Virtual CPUs per physical CPU given to a host when it first '
                      'reports; change one host with "provisioner host set".'),
    cfg.FloatOpt('ram_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help='RAM over-commit given to a host when it first reports.'),
    cfg.FloatOpt('disk_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help='Disk over-commit given to a host when it first reports.'),
]

quota_opts = [
    cfg.IntOpt('instances', default=10, min=-1,
               help='Live instances per project, unless set for the project with '
                    '"provisioner quota set". -1 means unlimited.'),
    cfg.IntOpt('vcpus', default=20, min=-1,
               help='vCPUs of live instances per project. -1 means unlimited.'),
    cfg.IntOpt('ram_mib', default=51200, min=-1,
               help='MiB of RAM of live instances per project. -1 means unlimited.'),
    cfg.IntOpt('volumes_gib', default=1000, min=-1,
               help='GiB of volumes per project. -1 means unlimited.'),
    cfg.IntOpt('volumes', default=-1, min=-1,
               help='Volumes per project (Cinder\'s volumes), a boot\'s own ones '
                    'included. -1 means unlimited.'),
    cfg.IntOpt('snapshots', default=-1, min=-1,
               help='Volume snapshots per project. -1 means unlimited.'),
    cfg.IntOpt('per_volume_gigabytes', default=-1, min=-1,
               help='The largest volume a project may make, in GiB. -1 means '
                    'unlimited.'),
    cfg.IntOpt('backups', default=0, min=-1,
               help='Cinder\'s volume backups per project: recorded and shown only '
                    '(provisioner makes no backups).'),
    cfg.IntOpt('backup_gigabytes', default=0, min=-1,
               help='GiB of volume backups per project: recorded and shown only.'),
    cfg.IntOpt('network', default=100, min=-1,
               help='Networks per project (Neutron\'s default). -1 means unlimited.'),
    cfg.IntOpt('subnet', default=100, min=-1,
               help='Subnets per project. -1 means unlimited.'),
    cfg.IntOpt('port', default=500, min=-1,
               help='Ports per project, a boot\'s own ones included. -1 means '
                    'unlimited.'),
    cfg.IntOpt('router', default=10, min=-1,
               help='Routers per project (Neutron\'s default). -1 means unlimited.'),
    cfg.IntOpt('floatingip', default=50, min=-1,
               help='Floating IPs per project (Neutron\'s default). -1 means '
                    'unlimited.'),
    cfg.IntOpt('security_group', default=10, min=-1,
               help='Security groups per project, its default group included '
                    '(Neutron\'s default). -1 means unlimited.'),
    cfg.IntOpt('security_group_rule', default=100, min=-1,
               help='Security group rules per project (Neutron\'s default). -1 '
                    'means unlimited.'),
]


def register_opts(conf):
    conf.register_opts(scheduler_opts, group='scheduler')
    conf.register_opts(quota_opts, group='quota')


def list_opts():
    return {'scheduler': scheduler_opts, 'quota': quota_opts}
