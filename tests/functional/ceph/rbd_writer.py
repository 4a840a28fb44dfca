"""A librbd client that stands for a host's guest in the fencing test.

    python -m tests.functional.ceph.rbd_writer CONF CLIENT POOL IMAGE

Connects with the client's keyring (from CONF) and prints ``addr <its client
address>``; then for every line ``write BYTE OFFSET`` on stdin it writes 4 KiB of that
byte there (opening the image at the first) and prints ``ok`` or ``error <errno>
<message>``.
An operation that the cluster never answers fails after 30 s rather than hang.
"""

import sys

import rados
import rbd

BLOCK = 4096


def main(conf, client, pool, image_name):
    cluster = rados.Rados(conffile=conf, rados_id=client)
    cluster.conf_set('rados_osd_op_timeout', '30')
    cluster.conf_set('rados_mon_op_timeout', '30')
    cluster.connect(timeout=30)
    print('addr %s' % cluster.get_addrs(), flush=True)
    ioctx = image = None
    try:
        for line in sys.stdin:
            _, byte, offset = line.split()
            try:
                if image is None:                   # opened at the first write
                    ioctx = cluster.open_ioctx(pool)
                    image = rbd.Image(ioctx, image_name)
                image.write(bytes([int(byte)]) * BLOCK, int(offset))
                image.flush()
                print('ok', flush=True)
            except (rbd.Error, rados.Error) as exc:
                print('error %s %s' % (getattr(exc, 'errno', '?'), exc), flush=True)
    finally:
        for handle in (image, ioctx):
            if handle is not None:
                try:
                    handle.close()
                except (rbd.Error, rados.Error):
                    pass                        # a blocklisted client cannot unlock
        cluster.shutdown()

if __name__ == '__main__':
    main(*sys.argv[1:])
