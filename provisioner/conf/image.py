"""[image] options: where uploaded images live, how large they may be, and which
directories a path-registered image may name."""

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
    cfg.IntOpt('max_image_size',
               default=10 * GIB,
               min=1,
               help='Largest image upload accepted, in bytes (413 above it), as '
                    'Glance\'s image_size_cap. Default 10 GiB.'),
]


def register_opts(conf):
    conf.register_opts(image_opts, group='image')


def list_opts():
    return {'image': image_opts}
