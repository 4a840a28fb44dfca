"""Nova's flavor views: 2.55 adds ``description`` (the list too), 2.61
``extra_specs``, 2.75 shows no swap as 0 instead of ""."""

from provisioner.api import urls


def basic(req, flavor):
    view = {'id': flavor['id'], 'name': flavor['name'],
            'links': urls.links(req, 'v2.1', 'flavors', flavor['id'])}
    if req.api_version >= (2, 55):
        view['description'] = flavor.get('description')
    return view


def detail(req, flavor):
    view = basic(req, flavor)
    swap = flavor.get('swap_mib') or (0 if req.api_version >= (2, 75) else '')
    view.update({'ram': flavor['ram_mib'], 'disk': flavor['disk_gib'],
                 'vcpus': flavor['vcpus'],
                 'OS-FLV-EXT-DATA:ephemeral': flavor.get('ephemeral_gib', 0),
                 'swap': swap, 'rxtx_factor': flavor.get('rxtx_factor', 1.0),
                 'OS-FLV-DISABLED:disabled': False,
                 'os-flavor-access:is_public': flavor.get('is_public', True)})
    if req.api_version >= (2, 61):
        view['extra_specs'] = dict(flavor.get('extra_specs') or {})
    return view
