"""Nova's flavor view at 2.1 - 2.54 (swap is "" when there is none, until 2.75)."""

from provisioner.api import urls


def basic(req, flavor):
    return {'id': flavor['id'], 'name': flavor['name'],
            'links': urls.links(req, 'v2.1', 'flavors', flavor['id'])}


def detail(req, flavor):
    view = basic(req, flavor)
    view.update({'ram': flavor['ram_mib'], 'disk': flavor['disk_gib'],
                 'vcpus': flavor['vcpus'], 'OS-FLV-EXT-DATA:ephemeral': 0, 'swap': '',
                 'rxtx_factor': 1.0, 'OS-FLV-DISABLED:disabled': False,
                 'os-flavor-access:is_public': True})
    return view
