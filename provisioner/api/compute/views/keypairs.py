"""Nova's key pair shapes: 2.2 adds ``type`` to every one."""

from provisioner.api import common

_INDEX_FIELDS = ('name', 'public_key', 'fingerprint')
_CREATE_FIELDS = _INDEX_FIELDS + ('user_id',)


def typed(req):
    return req.api_version >= (2, 2)


def _view(req, keypair, fields):
    view = {field: keypair[field] for field in fields}
    if typed(req):
        view['type'] = keypair['type']
    return view


def listed(req, keypair):
    return {'keypair': _view(req, keypair, _INDEX_FIELDS)}


def created(req, keypair, private_key=None):
    view = _view(req, keypair, _CREATE_FIELDS)
    if private_key is not None:
        view['private_key'] = private_key
    return view


def integer_id(keypair):
    """Nova's key pair id is its row's integer; provisioner's is a uuid, of which
    the first 32 bits stand in for it (stable; nothing is looked up by it)."""
    return int(keypair['id'].replace('-', '')[:8], 16)


def show(req, keypair):
    view = _view(req, keypair, _CREATE_FIELDS)
    view.update({'id': integer_id(keypair), 'deleted': False, 'deleted_at': None,
                 'updated_at': None,
                 'created_at': common.object_time(keypair['created_at'])})
    return view
