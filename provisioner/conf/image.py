"""[image] options: where uploaded images live, how large they may be, and which
directories a path-registered image may name. [image_service]: how a host's worker
reaches the image API to fetch images into its cache (Nova's [glance] and
[service_user])."""

from oslo_config import cfg

GIB = 1024 ** 3

image_opts = [
    cfg.ListOpt('image_directories',
                default=['$state_path/import'],
                help='Directories that image files (--file, --kernel, --ramdisk) '
                     'must lie in, after symbolic links are resolved: copy an '
                     'image\'s files into one before "provisioner image create". '
                     'The default import directory is made (mode 0750) on first '
                     'use. A path outside every listed directory is refused, so '
                     'an image cannot name a file such as /etc/shadow; an empty '
                     'list refuses every path. Applies to images registered by '
                     'path (all-in-one CLI), not to uploads. Related options: '
                     'state_path.'),
    cfg.StrOpt('store_directory',
               sample_default='$state_path/image-store',
               help='Directory of the image store: the bytes of images uploaded '
                    'through the image API (PUT /image/v2/images/{id}/file), one '
                    'file per image, named by its id. Unset means '
                    '$state_path/image-store (not $state_path/images, which is '
                    'each host\'s image cache). Every provisioner-api of a '
                    'deployment must see the same directory. Related options: '
                    'max_image_size.'),
    cfg.StrOpt('cache_directory',
               sample_default='$state_path/images',
               help='Directory of this host\'s image cache: each image file a boot '
                    'needs, fetched once and named by its sha256 (Nova\'s '
                    '_base). Unset means $state_path/images. Must be readable by '
                    'the hypervisor\'s group (QEMU reads the files as backing '
                    'files). Related options: [image_service] auth_url.'),
    cfg.StrOpt('store',
               default='file',
               choices=[('file', 'one file per image in store_directory'),
                        ('rbd', 'a raw RBD image per image in rbd_pool, with a '
                                'protected snapshot "snap" that root disks and '
                                'volumes are cloned from')],
               help='Where uploaded images\' bytes live (Glance\'s stores). With rbd '
                    'a qcow2 upload is converted to raw once (its disk_format '
                    'becomes raw), and the cluster is reached as [ceph] user. '
                    'Images of other formats (aki, ari, ...) stay files.'),
    cfg.StrOpt('rbd_pool', default='images',
               help='The RBD pool of images when store = rbd.'),
    cfg.IntOpt('max_image_size',
               default=10 * GIB,
               min=1,
               help='Largest image upload accepted, in bytes (413 above it), as '
                    'Glance\'s image_size_cap. Default 10 GiB.'),
]

image_service_opts = [
    cfg.StrOpt('auth_url',
               help='Identity URL (as OS_AUTH_URL, e.g. http://api-host:8774/identity) '
                    'a worker authenticates at to download images from the image '
                    'API into its host\'s image cache; the token\'s catalog names '
                    'the image endpoint. Unset (all-in-one), hosts read image files '
                    'from the image store and registered paths directly. Related '
                    'options: username, password, project_name.'),
    cfg.StrOpt('username', default='provisioner-service',
               help='The service user (made by "provisioner bootstrap '
                    '--service-user"), whose service role may download any image.'),
    cfg.StrOpt('password', secret=True,
               help='The service user\'s password.'),
    cfg.StrOpt('project_name', default='service',
               help='The service user\'s project.'),
    cfg.StrOpt('endpoint_override',
               help='Image API URL to use instead of the catalog\'s (e.g. an '
                    'internal address, http://10.0.0.5:8774/image).'),
    cfg.IntOpt('timeout', default=60, min=1,
               help='Seconds to wait for the image API to connect or send more '
                    'data before a download fails.'),
]


def register_opts(conf):
    conf.register_opts(image_opts, group='image')
    conf.register_opts(image_service_opts, group='image_service')


def list_opts():
    return {'image': image_opts, 'image_service': image_service_opts}
