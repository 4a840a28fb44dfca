"""Cinder's list query on volumes: its filters, its sort, its booleans.

Filters (Cinder's resource_filters for volumes): ``name``, ``status``,
``availability_zone``, ``bootable``, ``size`` and ``metadata`` (a dict, sent as
its Python text: ``metadata={'Type': 'work'}``, each pair must match); admins
also ``project_id``. Other query keys are left alone, as Cinder's 3.0 does with
those it does not filter on. Sort: ``sort=key[:dir],...`` or ``sort_key`` and
``sort_dir``; default the order of creation.
"""

import ast

from provisioner.api import wsgi

# query key -> the volume's field (provisioner.volume.volumes.describe)
_FIELDS = {'name': 'name', 'display_name': 'name', 'status': 'status',
           'availability_zone': 'availability_zone', 'size': 'size_gib',
           'project_id': 'project_id'}
_SORT_KEYS = {'id': 'id', 'name': 'name', 'display_name': 'name', 'status': 'status',
              'size': 'size_gib', 'availability_zone': 'availability_zone',
              'created_at': 'created_at', 'updated_at': 'updated_at',
              'bootable': 'bootable'}
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')


def boolean(value):
    """Cinder's booleans: true or false, or their words ("True", "yes", "0"...);
    anything else as it is (for the service to refuse)."""
    if isinstance(value, str) and value.lower() in _TRUE + _FALSE:
        return value.lower() in _TRUE
    return value


def _text(volume, field):
    value = volume.get(field)  # a snapshot has no zone
    if field == 'availability_zone':
        value = value or 'nova'  # as the view shows it
    return None if value is None else str(value)


def _metadata(req):
    text = req.GET.get('metadata')
    try:
        wanted = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        wanted = None
    if not isinstance(wanted, dict):
        raise wsgi.HTTPError(400, 'Invalid metadata filter %r: give a dict, such as '
                                  "{'key': 'value'}." % text)
    return {str(k): str(v) for k, v in wanted.items()}


def matching(req, volumes):
    """The volumes the query's filters keep."""
    for key, field in _FIELDS.items():
        if req.GET.get(key) is not None:
            wanted = req.GET[key]
            volumes = [v for v in volumes if _text(v, field) == wanted]
    if req.GET.get('bootable') is not None:
        wanted = boolean(req.GET['bootable']) is True
        volumes = [v for v in volumes if v.get('bootable') == wanted]
    if req.GET.get('metadata') is not None:
        pairs = _metadata(req).items()
        volumes = [v for v in volumes if pairs <= v['metadata'].items()]
    return volumes


def _sort_keys(req):
    """[(field, descending)] from ``sort`` or ``sort_key``/``sort_dir``."""
    if req.GET.get('sort'):
        asked = [part.partition(':')[::2] for part in req.GET['sort'].split(',')]
    elif req.GET.get('sort_key') or req.GET.get('sort_dir'):
        keys = (req.GET.get('sort_key') or 'created_at').split(',')
        dirs = (req.GET.get('sort_dir') or 'desc').split(',')
        asked = [(key, dirs[min(i, len(dirs) - 1)]) for i, key in enumerate(keys)]
    else:
        return []
    found = []
    for key, direction in asked:
        key, direction = key.strip(), (direction.strip() or 'desc').lower()
        if key not in _SORT_KEYS or direction not in ('asc', 'desc'):
            raise wsgi.HTTPError(400, 'Invalid sort %s:%s: sort keys are %s and '
                                      'directions asc or desc.'
                                 % (key, direction, ', '.join(sorted(_SORT_KEYS))))
        found.append((_SORT_KEYS[key], direction == 'desc'))
    return found


def sorted_as_asked(req, volumes):
    """The volumes in the query's order (stable: the last key sorts first)."""
    for field, descending in reversed(_sort_keys(req)):
        volumes = sorted(volumes, key=lambda v: (v[field] is not None, v[field]),
                         reverse=descending)
    return volumes
