"""[ceph] options: how a service or host reaches the Ceph cluster (its conf file, its
cephx user and keyring, the libvirt secret that carries the key to QEMU), and the
per-service choice of Ceph RBD: [image] store, [libvirt] images_type and [volume]
backend (Glance's rbd store, Nova's images_type = rbd, Cinder's RBD driver)."""

from oslo_config import cfg

ceph_opts = [
    cfg.StrOpt('conf_file',
               default='/etc/ceph/ceph.conf',
               help='The Ceph client conf file: the monitors\' addresses (mon host) '
                    'and the fsid. Always given to librados: a client without one '
                    'would look the monitors up in DNS. Related options: keyring.'),
    cfg.StrOpt('user',
               default='provisioner',
               help='The cephx user (without "client."), restricted to the pools '
                    'provisioner uses (mon \'profile rbd\', osd \'profile rbd '
                    'pool=...\').'),
    cfg.StrOpt('keyring',
               help='This service\'s or host\'s keyring file holding the user\'s key. '
                    'Each host reads its own: the key never travels in a message, '
                    'the flow store or the database. Unset: the keyring named in '
                    'conf_file.'),
    cfg.StrOpt('secret_uuid',
               secret=True,  # names the key's secret: kept out of logs all the same
               help='UUID of the libvirt secret (usage type ceph) that gives QEMU the '
                    'user\'s key, on every host (Nova\'s [libvirt] rbd_secret_uuid). '
                    'A host defines the secret and sets its value from its keyring '
                    'before it first needs it. Required by [libvirt] images_type = '
                    'rbd and [volume] backend = rbd.'),
    cfg.IntOpt('connect_timeout',
               default=10, min=1,
               help='Seconds to wait for the cluster (connecting, and each monitor '
                    'or OSD operation) before the operation fails with a fault '
                    'that names Ceph.'),
]

volume_opts = [
    cfg.StrOpt('backend',
               default='file',
               choices=[('file', 'qcow2 files in a libvirt pool of the host that '
                                 'first attaches the volume'),
                        ('rbd', 'RBD images in [volume] rbd_pool, attached over '
                                'librbd on any host')],
               help='Where volumes\' bytes live (Cinder\'s volume driver).'),
    cfg.StrOpt('rbd_pool', default='volumes',
               help='The RBD pool of volumes when backend = rbd.'),
]


def register_opts(conf):
    conf.register_opts(ceph_opts, group='ceph')
    conf.register_opts(volume_opts, group='volume')


def list_opts():
    return {'ceph': ceph_opts, 'volume': volume_opts}
