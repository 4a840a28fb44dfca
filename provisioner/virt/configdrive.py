"""The config drive: an ISO 9660 image labelled config-2 in OpenStack's layout.

Rock Ridge and Joliet carry the real lower-case names (ISO 9660 alone only has 8.3
upper-case names), so cloud-init and a plain ``mount`` see openstack/latest/*.
"""

import io
import json
import os

import pycdlib

VOLUME_LABEL = 'config-2'

# (ISO 9660 8.3 name, real name) of each file under openstack/latest.
_META_DATA = ('META_DAT.JSO;1', 'meta_data.json')
_NETWORK_DATA = ('NETWORK_.JSO;1', 'network_data.json')
_USER_DATA = ('USER_DAT.;1', 'user_data')


def _add_file(iso, names, data):
    iso_name, real_name = names
    iso.add_fp(io.BytesIO(data), len(data), '/OPENSTAC/LATEST/' + iso_name,
               rr_name=real_name, joliet_path='/openstack/latest/' + real_name)


def build_config_drive(path, meta_data, network_data, user_data=None):
    """Write the config drive to ``path`` atomically (mode 0640: it holds user data)."""
    iso = pycdlib.PyCdlib()
    iso.new(vol_ident=VOLUME_LABEL, joliet=3, rock_ridge='1.09')
    try:
        iso.add_directory('/OPENSTAC', rr_name='openstack', joliet_path='/openstack')
        iso.add_directory('/OPENSTAC/LATEST', rr_name='latest',
                          joliet_path='/openstack/latest')
        _add_file(iso, _META_DATA, json.dumps(meta_data).encode())
        _add_file(iso, _NETWORK_DATA, json.dumps(network_data).encode())
        if user_data is not None:
            _add_file(iso, _USER_DATA, bytes(user_data))
        os.makedirs(os.path.dirname(path) or '.', mode=0o755, exist_ok=True)
        tmp = '%s.tmp-%d' % (path, os.getpid())
        try:
            with open(tmp, 'wb') as f:
                iso.write_fp(f)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o640)  # the caller gives the hypervisor's group read
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    finally:
        iso.close()
    return path
