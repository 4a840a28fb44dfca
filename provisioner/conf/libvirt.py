"""[libvirt] options: which hypervisor this host drives and how guests are shaped."""

from oslo_config import cfg

libvirt_opts = [
    cfg.StrOpt('connection_uri',
               default='qemu:///system',
               help='libvirt URI of the hypervisor on this host. Possible values: '
                    'qemu:///system (the all-in-one default), or test:///<file.xml> '
                    'for unit tests. The worker of a host always drives its local '
                    'libvirtd. Related options: virt_type.'),
    cfg.StrOpt('virt_type',
               default='auto',
               choices=[('auto', 'Probe once per host whether KVM really runs '
                                 'guest code and fall back to qemu if not.'),
                        ('kvm', 'Hardware virtualization; fails if KVM is unusable.'),
                        ('qemu', 'Software emulation (TCG): slower, works everywhere.')],
               help='Domain type of the guests. "auto" runs the guest BIOS once '
                    'per host boot under KVM and under TCG, uses KVM only if it is '
                    'not much slower, and caches the answer in '
                    '$state_path/virt_type.json; /dev/kvm existing is not enough '
                    '(nested virtualization often opens it and then runs guests '
                    'so slowly that a kernel never boots). Related options: '
                    'tb_cache_mib, state_path.'),
    cfg.IntOpt('tb_cache_mib',
               default=0,
               min=0,
               help='Size in MiB of QEMU\'s translation block cache for software '
                    'emulated guests. 0 keeps QEMU\'s default. Possible values: '
                    '0 or a positive size; 16 cuts a small guest\'s memory use '
                    'from about 220 to 160 MB at the cost of about 0.5-1 s of boot '
                    'time. Only used when the guests run with virt_type qemu. '
                    'Related options: virt_type.'),
    cfg.StrOpt('kernel_cmdline',
               default='console=ttyS0',
               help='Kernel command line for direct kernel boot when the image '
                    'carries none of its own. Possible values: any kernel command '
                    'line; keep console=ttyS0 so the console log captures the boot.'),
    cfg.StrOpt('images_type',
               default='qcow2',
               choices=[('qcow2', 'a qcow2 overlay on the image in this host\'s '
                                  'image cache'),
                        ('rbd', 'a copy-on-write clone of the image\'s protected '
                                'snapshot in images_rbd_pool (needs [image] store = '
                                'rbd; nothing is downloaded to the host)')],
               help='How instances\' root disks are made (Nova\'s images_type). '
                    'Related options: [ceph] secret_uuid.'),
    cfg.StrOpt('images_rbd_pool', default='vms',
               help='The RBD pool of root disks when images_type = rbd.'),
    cfg.StrOpt('live_migration_scheme', default='tcp',
               choices=[('tcp', 'qemu+tcp://<address>/system: libvirtd listening on '
                                'TCP (listen_tcp) on the underlay'),
                        ('tls', 'qemu+tls://<address>/system'),
                        ('ssh', 'qemu+ssh://<address>/system')],
               help='How a source host\'s libvirtd reaches the destination\'s in a '
                    'live migration (Nova\'s live_migration_scheme); the address is '
                    'the destination\'s [l2] local_ip as its worker reports it, else '
                    'its host name. The guest\'s memory goes over tcp to that address.'),
    cfg.IntOpt('live_migration_timeout', default=300, min=1,
               help='Seconds a live migration step, run again after an engine '
                    'stopped, waits for the migration an earlier run started.'),
    cfg.StrOpt('resource_prefix',
               regex=r'^[a-z][a-z0-9-]{0,31}$',
               sample_default='<derived from the deployment>',
               help='Prefix of the libvirt storage pools, networks and bridges this '
                    'deployment creates, so that two deployments (or test runs) on '
                    'one libvirtd never collide. Unset (the default), it is "prov-" '
                    'and 8 hex digits of a hash of what every host of the deployment '
                    'shares: distributed ([DEFAULT] transport_url set), the RPC '
                    'broker address, virtual host, exchange and [worker] topic (not '
                    'the credentials), so every engine, worker and API server of '
                    'one deployment derives the same prefix whatever its state_path; '
                    'all-in-one, the state_path. A host whose "provisioner-instances" '
                    'pool already serves this state_path (made before the prefix was '
                    'derived) keeps the prefix "provisioner". Pools stay per host: '
                    'one whose name serves another state_path on this libvirtd makes '
                    'this host use "<prefix>-<8 hex of state_path>-instances". '
                    'Possible values: lower-case letters, '
                    'digits and "-", starting with a letter, at most 32 characters. '
                    'Bridge names longer than 15 characters are shortened with a '
                    'hash. Related options: state_path.'),
    cfg.StrOpt('config_drive_bus',
               default='virtio',
               choices=[('virtio', 'A read-only virtio disk after the volumes.'),
                        ('ide', 'An IDE CD-ROM (guests without virtio drivers).'),
                        ('sata', 'A SATA CD-ROM (q35 machines).'),
                        ('scsi', 'A SCSI CD-ROM.')],
               help='Bus of the config drive (label config-2) attached to each guest.'),
    cfg.StrOpt('hypervisor_user',
               default='libvirt-qemu',
               help='User QEMU runs as (libvirt-qemu on Debian, qemu on Fedora). '
                    'Instance directories, disks and config drives are made 0750/0640 '
                    'and group-owned by this user\'s group, so QEMU and the owner can '
                    'read them and nobody else.'),
]


def register_opts(conf):
    conf.register_opts(libvirt_opts, group='libvirt')


def list_opts():
    return {'libvirt': libvirt_opts}
